"""``service.torch_fast`` (the ``fast_trace`` switch): every memo gives PyTorch exactly what its own
code computes, a compile under the switch makes the same decisions as stock (same guards, same
acceptance over many shapes, same outputs, same errors), and the switch restores PyTorch and sympy
exactly. Compiles are slow: module-scoped fixtures, the ``eager`` backend."""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.slow

torch = pytest.importorskip("torch")
sympy = pytest.importorskip("sympy")
tf = pytest.importorskip("symguard.service.torch_fast")
pg = pytest.importorskip("symguard.service.cli.prune_guards")

import torch.fx.experimental.symbolic_shapes as shapes
import torch.utils._sympy.value_ranges as vr
from torch.utils._sympy.functions import FloorDiv, Mod, ModularIndexing, PythonMod
from torch.utils._sympy.value_ranges import ValueRanges, bound_sympy

SIMP = sys.modules["sympy.simplify.simplify"]


def _patched_now() -> dict[str, Any]:
    """Every attribute the switch may replace, as PyTorch and sympy hold it right now."""
    return {"simplify_mod": SIMP.__dict__["simplify"], "sympy.simplify": sympy.simplify,
            "sympy_interp": vr.sympy_interp, "_fast_expand": shapes._fast_expand,
            "xreplace": sympy.Basic.__dict__["xreplace"], "atoms": sympy.Basic.__dict__["atoms"],
            "free_symbols": sympy.Basic.__dict__["free_symbols"]}


@pytest.fixture
def fast() -> Any:
    tok = tf.enable()
    try:
        yield tok
    finally:
        tf.disable(tok)


# ------------------------------------------------------------------ the switch itself

def test_nested_enable_disable_restores_exactly() -> None:
    before = _patched_now()
    t1 = tf.enable()
    assert tf.active() and tf.error() is None
    during = _patched_now()
    assert all(during[k] is not before[k] for k in before)
    t2 = tf.enable()
    tf.disable(t1)
    assert tf.active() and _patched_now() == during  # still on: t2 holds it
    tf.disable(t1)  # a token counts once
    assert tf.active()
    tf.disable(t2)
    assert not tf.active()
    after = _patched_now()
    assert all(after[k] is before[k] for k in before)


def test_threads_enable_and_disable_concurrently() -> None:
    before = _patched_now()
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(50):
                tf.disable(tf.enable())
        except BaseException as e:  # noqa: BLE001 - reported by the assertion below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and not tf.active()
    assert all(_patched_now()[k] is before[k] for k in before)


def test_a_pytorch_it_does_not_fit_stays_stock(monkeypatch: pytest.MonkeyPatch) -> None:
    before = _patched_now()
    monkeypatch.delattr(shapes, "_fast_expand")  # a PyTorch without the function it memoizes
    tok = tf.enable()
    try:
        assert not tf.active() and "_fast_expand" in (tf.error() or "")
        assert SIMP.__dict__["simplify"] is before["simplify_mod"] and vr.sympy_interp is before["sympy_interp"]
        assert sympy.Basic.__dict__["xreplace"] is before["xreplace"]
    finally:
        tf.disable(tok)
    monkeypatch.undo()
    assert all(_patched_now()[k] is before[k] for k in before)


def test_prune_guards_switch_turns_it_on_and_off() -> None:
    import symguard

    with symguard.torch.prune_guards():
        assert tf.active()
    assert not tf.active()
    with symguard.torch.prune_guards(fast_trace=False):
        assert not tf.active()
    with symguard.torch.prune_guards(prune=False):
        assert tf.active()
    p = symguard.torch.install()
    q = symguard.torch.install(fast_trace=False)
    assert tf.active()
    symguard.torch.uninstall(p)
    assert not tf.active()
    symguard.torch.uninstall(q)
    assert not tf.active()


# ------------------------------------------------------------------ each memo against sympy / PyTorch

NAMES = ("s0", "s1", "s2", "s27", "s53", "s77")  # six: free-symbol sets past a set's small table
SYMS = [sympy.Symbol(n, integer=True, positive=True) for n in NAMES]
FREE = sympy.Symbol("u", integer=True)  # no sign: ranges may be negative


def exprs() -> st.SearchStrategy[Any]:
    """Size expressions as PyTorch builds them, with shared sub-terms (a term reused in a sum)."""
    leaf = st.one_of(st.sampled_from([*SYMS, FREE]), st.integers(-3, 5).map(sympy.Integer))
    pos = st.sampled_from([sympy.Integer(2), sympy.Integer(4), *SYMS])

    def extend(t: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.one_of(
            st.tuples(t, t).map(lambda p: p[0] + p[1]),
            st.tuples(t, t).map(lambda p: p[0] * p[1]),
            st.tuples(t, pos).map(lambda p: _built(FloorDiv, *p)),
            st.tuples(t, pos).map(lambda p: _built(Mod, *p)),
            st.tuples(t, pos).map(lambda p: _built(PythonMod, *p)),
            st.tuples(t, pos, pos).map(lambda p: _built(ModularIndexing, *p)),
            st.tuples(t, t).map(lambda p: sympy.Max(p[0], p[1])),
            st.tuples(t, t).map(lambda p: sympy.Min(p[0], p[1])),
            t.map(lambda e: e + FloorDiv(e + 3, 4) * e),  # the same term three times
        )

    return st.recursive(leaf, extend, max_leaves=10)


def _built(fn: Any, *args: Any) -> Any:
    """``fn(*args)``, or the first argument where PyTorch refuses the term (Mod of a negative)."""
    try:
        return fn(*args)
    except (AssertionError, ZeroDivisionError, TypeError):
        return args[0]


TYPES = [(FloorDiv,), (Mod, PythonMod), (sympy.Max,), (sympy.Integer,), (sympy.Rational,), (sympy.Pow,),
         (sympy.Symbol,), ()]


@settings(max_examples=300, deadline=None)
@given(exprs(), st.sampled_from(TYPES))
def test_atoms_and_free_symbols_match_sympy(e: Any, types: tuple[Any, ...]) -> None:
    """Same elements in the same iteration order (PyTorch iterates over these sets, and the
    order decides which of two equal spellings a guard gets)."""
    stock, stock_free = list(e.atoms(*types)), list(e.free_symbols)
    with _on():
        assert list(e.atoms(*types)) == stock
        assert list(e.free_symbols) == stock_free
        fs = e.free_symbols
        fs.add(sympy.Symbol("mutated"))  # a caller may mutate the set: the memo must not see it
        assert list(e.free_symbols) == stock_free
        assert list(e.atoms(*types)) == stock


@contextlib.contextmanager
def _on() -> Iterator[None]:
    tok = tf.enable()
    try:
        yield
    finally:
        tf.disable(tok)


VALUES = st.sampled_from([-3, -1, 0, 1, 2, 5])


@settings(max_examples=150, deadline=None)
@given(exprs(), st.dictionaries(st.sampled_from([*SYMS, FREE]), st.one_of(VALUES.map(sympy.Integer),
                                                                            st.sampled_from(SYMS)), max_size=3))
def test_xreplace_matches_sympy(e: Any, rule: dict[Any, Any]) -> None:
    """Substitution, twice (the second from the memo), against sympy's, zero and negatives
    included: an error (a division by zero) is raised the same, never remembered as a value."""

    def run() -> Any:
        try:
            return ("ok", e.xreplace(rule))
        except Exception as ex:  # noqa: BLE001 - compared below
            return ("raised", type(ex).__name__)

    stock = run()
    with _on():
        first, second = run(), run()
    assert first == stock and second == stock


def test_a_hit_for_an_equal_term_returns_that_term_itself() -> None:
    """The first computation of a term may return an equal copy (its arguments were rebuilt);
    a later, unchanged instance of the same term must come back as itself, not as that copy
    (found by the property below: ``Max(s0, s77) is Max(s0, s77)`` failed)."""
    s0, s1 = sympy.symbols("s0 s1", integer=True)
    first = sympy.Max(s0, s1)
    second = sympy.Max(s1, s0, evaluate=False)  # equal, another object
    assert second == first and second is not first
    stock = shapes._fast_expand  # the patched module global, when the switch is on
    calls: list[Any] = []

    def copying(e: Any) -> Any:  # what a stock recursion that rebuilt the arguments returns
        calls.append(e)
        return e.func(*e.args, evaluate=False) if not calls[1:] else e

    with _on():
        memo = tf._memo_expand(copying)
        assert memo(first) == first and memo(first) is first  # computed once, then a hit
        assert memo(second) is second
        assert len(calls) == 1
    assert shapes._fast_expand is stock


@settings(max_examples=100, deadline=None)
@given(exprs())
def test_fast_expand_matches_pytorch_and_keeps_identity(e: Any) -> None:
    stock = shapes._fast_expand(e)
    # safe_expand has PyTorch's own lru_cache: an equal term from an earlier example comes back as
    # that example's object, switch or no switch; the identity below is the memo's, not the cache's
    shapes.safe_expand.cache_clear()
    with _on():
        once, twice = shapes.safe_expand(e), shapes._fast_expand(e)
        assert once == stock and twice == stock
        if stock is e:  # PyTorch's recursion compares arguments by identity
            assert once is e and twice is e


RANGES = st.tuples(st.integers(-4, 6), st.integers(0, 8)).map(lambda p: ValueRanges(p[0], p[0] + p[1]))


@settings(max_examples=150, deadline=None)
@given(exprs(), st.lists(st.tuples(st.sampled_from([*SYMS, FREE]), RANGES), max_size=4))
def test_value_ranges_match_pytorch(e: Any, steps: list[tuple[Any, Any]]) -> None:
    """``bound_sympy`` as the ranges change under it (entries computed under other ranges must
    not be reused), over ranges with negatives and zero."""
    env: dict[Any, Any] = {}
    for sym, rng in [(None, None), *steps]:
        if sym is not None:
            env[sym] = rng

        def run() -> Any:
            try:
                return ("ok", bound_sympy(e, dict(env)))
            except Exception as ex:  # noqa: BLE001 - compared below
                return ("raised", type(ex).__name__)

        stock = run()
        with _on():
            assert run() == stock
            assert run() == stock


@settings(max_examples=40, deadline=None)
@given(exprs())
def test_simplify_matches_sympy(e: Any) -> None:
    stock = sympy.simplify(e)
    with _on():
        assert sympy.simplify(e) == stock
        assert sympy.simplify(e) == stock


def test_other_analyses_and_large_rules_take_pytorch_path(fast: Any) -> None:
    """What the memo does not cover goes to PyTorch's own function untouched."""
    from torch.utils._sympy.reference import PythonReferenceAnalysis

    s0, s1 = SYMS[:2]
    e = FloorDiv(s0 + 3, 4) * s1
    assert vr.sympy_interp(PythonReferenceAnalysis, {s0: 5, s1: 2}, e) == 4
    big = {sympy.Symbol(f"b{i}", integer=True): sympy.Integer(i) for i in range(40)}
    before = tf.stats().get("xreplace_hit", 0)
    assert (e + sum(big)).xreplace(big) == e + sum(range(40))
    assert tf.stats().get("xreplace_hit", 0) == before


# ------------------------------------------------------------------ compiles: the same decisions

class Windows(torch.nn.Module):
    """Swin's size arithmetic in miniature: pad to a multiple, window partition by view/permute,
    a 2x2 merge after padding to even, a reshape back."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, h, w, c = x.shape
        ph, pw = (4 - h % 4) % 4, (4 - w % 4) % 4
        y = torch.nn.functional.pad(x, (0, 0, 0, pw, 0, ph))
        hp, wp = h + ph, w + pw
        win = y.view(b, hp // 4, 4, wp // 4, 4, c).permute(0, 1, 3, 2, 4, 5).reshape(-1, 16, c)
        y = win.view(b, hp // 4, wp // 4, 4, 4, c).permute(0, 1, 3, 2, 4, 5).reshape(b, hp, wp, c)
        y = y[:, :h, :w, :]
        y = torch.nn.functional.pad(y, (0, 0, 0, w % 2, 0, h % 2))
        y = torch.cat([y[:, 0::2, 0::2], y[:, 1::2, 1::2]], dim=-1)
        return y.reshape(b, -1, 2 * c).sum(1)


def _windows() -> Any:
    ex = (torch.randn(2, 9, 11, 3),)
    return pg.Target("windows", Windows(), ex, {0: {0: (1, 8), 1: (2, 40), 2: (2, 40)}},
                     lambda s: pg.random_inputs(ex, s))


@pytest.fixture(scope="module")
def windows() -> Any:
    return _windows()


@pytest.fixture(scope="module")
def windows_stock(windows: Any) -> Any:
    return pg.compile_target(windows, prune=False, backend="eager", fast_trace=False)


@pytest.fixture(scope="module")
def windows_fast(windows: Any) -> Any:
    tf.disable(tf.enable())  # start from empty tables
    tok = tf.enable()
    try:
        compiled = pg.compile_target(windows, prune=False, backend="eager", fast_trace=True)
        compiled.stats = tf.stats()  # type: ignore[attr-defined]
    finally:
        tf.disable(tok)
    return compiled


@pytest.mark.torch
def test_fast_compile_emits_the_stock_guards(windows_stock: Any, windows_fast: Any) -> None:
    (s,), (f,) = windows_stock.history, windows_fast.history
    assert s["verbose"] and f["verbose"] == s["verbose"]
    assert windows_fast.stats.get("ranges_hit", 0) + windows_fast.stats.get("expand_hit", 0) > 0


@pytest.mark.torch
def test_fast_compile_accepts_the_same_shapes(windows: Any, windows_stock: Any, windows_fast: Any) -> None:
    out = pg.differential(windows, shapes=300, stock=windows_stock, pruned=windows_fast, backend="eager")
    assert out["disagreements"] == 0, out["examples"]
    assert out["shapes"]["accepted"] > 0 and out["shapes"]["rejected"] > 0


class Bad(torch.nn.Module):
    """A view that is wrong for every odd width: tracing at an odd width fails."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, w = x.shape
        return x.view(b, w // 2, 2).sum(-1)


def _error_of(fn: Any, x: Any) -> str:
    torch._dynamo.reset()
    try:
        torch.compile(fn, backend="eager", dynamic=True)(x)
    except Exception as e:  # noqa: BLE001 - compared below
        return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    return "no error"


@pytest.mark.torch
def test_fast_compile_raises_the_stock_error() -> None:
    x = torch.randn(3, 7)
    stock = _error_of(Bad(), x)
    with _on():
        fast = _error_of(Bad(), x)
    assert stock != "no error" and fast == stock


@pytest.mark.torch
def test_fast_compile_recompiles_where_stock_does() -> None:
    """A sequence of shapes: the frame's compile count after each call is the same."""

    def counts(on: bool) -> list[int]:
        torch._dynamo.reset()
        cnt = torch._dynamo.testing.CompileCounter()
        fn = torch.compile(Windows(), backend=cnt, dynamic=True)
        seen = []
        ctx = _on() if on else contextlib.nullcontext()
        with ctx, torch.no_grad():
            for h, w in [(9, 11), (12, 12), (1, 5), (9, 13), (4, 4), (2, 2), (33, 17)]:
                fn(torch.randn(2, h, w, 3))
                seen.append(cnt.frame_count)
        return seen

    assert counts(True) == counts(False)


def test_sympy_global_switches_bypass_the_memos(fast: Any) -> None:
    """Under ``evaluate(False)`` sympy builds other objects: the memos must not answer for it."""
    from sympy.core.parameters import evaluate

    s0 = SYMS[0]
    e = FloorDiv(s0 + 4, 4)
    built = e.xreplace({s0: sympy.Integer(4)})  # evaluating: a number, now remembered
    assert built == 2
    with evaluate(False):
        stock = sympy.Basic.__dict__["xreplace"].__wrapped__(e, {s0: sympy.Integer(4)})
        assert e.xreplace({s0: sympy.Integer(4)}) == stock
        assert shapes._fast_expand(s0 * (s0 + 1)) == shapes._fast_expand.__wrapped__(s0 * (s0 + 1))
