"""The pruner against the guard code Dynamo runs: the four ways exact integers and executed code
part (floats past 2**53, a divisor in a lazy branch, int64 overflow in C++ guards, a
``mark_dynamic`` constraint error), each compiled stock and pruned, with Python and with C++
guards, and every probe judged by both cache entries' guard managers. Before the bridge checked
the executed semantics, each of these accepted an input the stock guards reject (or compiled
where stock raised)."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator
from typing import Any

import pytest

torch = pytest.importorskip("torch")

import symguard.torch as sgt

pytestmark = [pytest.mark.slow, pytest.mark.torch]


@pytest.fixture(params=[False, True], ids=["python-guards", "cpp-guards"])
def cpp(request: pytest.FixtureRequest) -> Iterator[bool]:
    import torch._dynamo.config as cfg

    old = cfg.enable_cpp_symbolic_shape_guards
    cfg.enable_cpp_symbolic_shape_guards = request.param
    yield request.param
    cfg.enable_cpp_symbolic_shape_guards = old


def manager(fn: Callable[..., Any], args: tuple[Any, ...], *, pruned: bool) -> tuple[Any, Any]:
    """Compile a fresh copy of ``fn`` at ``args`` (stock or pruned); its guard manager and history."""
    from torch._C._dynamo.eval_frame import _debug_get_cache_entry_list

    torch._dynamo.reset()
    code = fn.__code__.replace()  # a code object of its own: its cache entry meets no other
    own = type(fn)(code, fn.__globals__, fn.__name__)
    compiled = torch.compile(own, backend="eager", dynamic=True)
    history: list[Any] = []
    if pruned:
        with sgt.prune_guards() as p:
            compiled(*args)
        history = p.history
    else:
        compiled(*args)
    entries = _debug_get_cache_entry_list(code)
    assert len(entries) == 1
    return entries[0].guard_manager, history


def accepts(gm: Any, fn: Callable[..., Any], args: tuple[Any, ...]) -> bool:
    names = fn.__code__.co_varnames[:fn.__code__.co_argcount]
    return bool(gm.check(dict(zip(names, args))))


def big(n: int) -> Any:
    return torch.zeros(1).expand(n)  # a size of n without n elements


def agree(fn: Callable[..., Any], example: tuple[Any, ...], probes: list[tuple[Any, ...]]) -> list[Any]:
    stock, _ = manager(fn, example, pruned=False)
    pruned, history = manager(fn, example, pruned=True)
    assert history and all(r.get("error") is None for r in history), history
    for args in probes:
        assert accepts(pruned, fn, args) == accepts(stock, fn, args), args
    return history


def ceil_half(x: Any) -> Any:
    n = x.shape[0]
    if math.ceil(n / 2) * 2 >= n:
        return x.narrow(0, 0, 1) + 1
    return x.narrow(0, 0, 1) - 1


def floor_third(x: Any, n: int) -> Any:
    if math.floor(n / 3) * 3 + 2 >= n:
        return x + 1
    return x - 1


def lazy_branch(x: Any, k: int) -> Any:
    n = x.shape[0]
    if k != 0:
        x = x.narrow(0, 0, 1)
    if torch.sym_ite(k > 5, n // k, n // 2) >= 1:
        return x.narrow(0, 0, 1) + 1
    return x.narrow(0, 0, 1) - 1


def lazy_or(x: Any, k: int) -> Any:
    n = x.shape[0]
    if k != 0:
        x = x.narrow(0, 0, 1)
    if k == 0 or n % k == 0:
        return x.narrow(0, 0, 1) + 1
    return x.narrow(0, 0, 1) - 1


def product(x: Any, y: Any) -> Any:
    n, m = x.shape[0], y.shape[0]
    if n % 1000 == n:  # noqa: SIM102 - two branches, two guards, as the repro has them
        if n * m <= 100:
            return x.narrow(0, 0, 1) + 1
    return x.narrow(0, 0, 1)


def test_floats_past_2_53(cpp: bool) -> None:
    probes = [(big(n),) for n in (2**53 - 1, 2**53, 2**53 + 1, 2**54 + 1, 2**62 + 1, 7, 8)]
    history = agree(ceil_half, (big(10),), probes)
    assert not any(r.get("stock_code") is None for r in history)


def test_floats_of_int_arguments(cpp: bool) -> None:
    probes = [(torch.zeros(2), n) for n in (2**60 + 1, 2**53 + 3, -(2**53) - 1, -5, 0, 2**62)]
    agree(floor_third, (torch.zeros(2), 10), probes)


@pytest.mark.parametrize("fn", [lazy_branch, lazy_or])
def test_lazy_branches_with_zero_divisors(cpp: bool, fn: Callable[..., Any]) -> None:
    probes = [(torch.zeros(20), k) for k in (0, 7, 3, -7, 20, 21)]
    history = agree(fn, (torch.zeros(20), 7), probes)
    if fn is lazy_branch and not cpp:  # the Piecewise guard is opaque: no premise for Ne(k, 0)
        assert any(r.get("opaque") for r in history)


def test_int64_products(cpp: bool) -> None:
    probes = [(big(n), big(m)) for n, m in ((2**32, 2**32), (2**33, 2**31), (5, 6), (2**31, 2), (999, 2))]
    agree(product, (big(5), big(6)), probes)


def constraint(x: Any, y: Any) -> Any:
    n, m = x.shape[0], y.shape[0]
    if n % 2 == 0:  # noqa: SIM102 - two branches, two guards, as the repro has them
        if n % (2 * m) == 0:
            return x + 1
    return x


def test_constraint_errors_are_the_stock_ones(cpp: bool) -> None:
    from torch.fx.experimental.symbolic_shapes import ConstraintViolationError

    def args() -> tuple[Any, Any]:
        x, y = torch.zeros(12), torch.zeros(3)
        torch._dynamo.mark_dynamic(x, 0, min=2, max=64)
        torch._dynamo.mark_dynamic(y, 0, min=2, max=64)
        return x, y

    messages = []
    for pruned in (False, True):
        torch._dynamo.reset()
        compiled = torch.compile(constraint, backend="eager", dynamic=True)
        with (sgt.prune_guards() if pruned else contextlib.nullcontext()), pytest.raises(Exception) as e:
            compiled(*args())
        chain = [e.value, *(_causes(e.value))]
        assert any(isinstance(c, ConstraintViolationError) for c in chain), chain
        messages.append(str(e.value))
    assert messages[0] == messages[1]


def _causes(e: BaseException) -> Iterator[BaseException]:
    while e.__cause__ is not None or e.__context__ is not None:
        e = e.__cause__ or e.__context__  # type: ignore[assignment]
        yield e

