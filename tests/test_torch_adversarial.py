"""The adversarial differential of issue 31: every function of the zoo (tests/torch_adversarial.py)
compiled stock and inside ``prune_guards()`` must accept the same inputs, fail to compile with
the same error, recompile on the same calls, and, wherever it runs, do what eager does (or what
the stock compile does, where Dynamo's own code is not eager). At least 200 inputs per function,
the extremes included (sizes near 2**31, 2**53, 2**62 as stride-0 tensors, ints of both signs).

What runs by default (about a minute on 2 cores): every function with Python guards and the eager
backend, cold caches; the int64- and float-sensitive ones again with C++ guards; two with
inductor, cold and warm. ``SYMGUARD_ZOO_FULL=1`` runs the whole matrix: every function with C++
guards, with inductor, and with warm caches.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
za = pytest.importorskip("torch_adversarial")

pytestmark = [pytest.mark.slow, pytest.mark.torch]

FULL = os.environ.get("SYMGUARD_ZOO_FULL") == "1"
CASES = {c.name: c for c in za.CASES}
# C++ guards compile a shared object per guard set (seconds each): by default the cases whose
# guards differ in int64 or in doubles from exact integers
CPP_DEFAULT = ["ceil_half", "floor_half_int", "mod_then_product", "mod_then_square", "square_grid", "square_grid_pow",
               "octave_halving", "narrowed_divisor", "narrowed_size_divisor", "narrowed_modulus", "round_half", "ranged_product",
               "broadcast_pair", "strided_view", "ceil_grid",
               "pool_ceil_rel"]
INDUCTOR_DEFAULT = [("ceil_half", "cold"), ("mod_then_product", "warm")]


def _full_only(names: list[str], default: list[str]) -> list[Any]:
    return [n if n in default else pytest.param(n, marks=pytest.mark.skipif(not FULL, reason="SYMGUARD_ZOO_FULL=1"))
            for n in names]


def _agree(out: dict[str, Any]) -> None:
    assert out["disagreements"] == [], out["disagreements"][:10]


@pytest.fixture(autouse=True)
def _own_cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test starts from an empty on-disk cache of its own."""
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path / "inductor"))


def test_the_zoo_looks_where_it_breaks() -> None:
    assert len(za.CASES) >= 20
    for c in za.CASES:
        assert len(c.points) >= za.MIN_POINTS and len(set(c.points)) == len(c.points), c.name
        assert c.example in c.points or c.mark is not None or c.example not in c.points
    values = {v for c in za.CASES for p in c.points for v in p}
    for v in (2**31 + 1, 2**53 + 1, 2**53 + 3, -(2**53) - 1, 2**60 + 1, 2**62, 2**63 - 1, -(2**63), 0, -1):
        assert v in values, v
    assert {(2**32, 2**32), (2**33, 2**31)} <= set(CASES["mod_then_product"].points)
    assert (10, 0) in CASES["lazy_ite"].points
    assert any(c.sequence for c in za.CASES) and any(c.mark for c in za.CASES)


@pytest.mark.parametrize("name", list(CASES))
def test_python_guards_agree(name: str, tmp_path: Path) -> None:
    _agree(za.differential(CASES[name], root=str(tmp_path)))


MORE = {c.name: c for c in za.MORE}  # compile errors, unbacked sizes, several tensors: full matrix only


@pytest.mark.parametrize("name", _full_only(list(MORE), []))
def test_more_python_guards_agree(name: str, tmp_path: Path) -> None:
    _agree(za.differential(MORE[name], root=str(tmp_path)))


@pytest.mark.parametrize("name", _full_only([n for n, c in MORE.items() if c.cpp_runs], []))
def test_more_cpp_guards_agree(name: str, tmp_path: Path) -> None:
    _agree(za.differential(MORE[name], cpp=True, root=str(tmp_path)))


@pytest.mark.parametrize("name", _full_only([n for n, c in CASES.items() if c.cpp_runs], CPP_DEFAULT))
def test_cpp_guards_agree(name: str, tmp_path: Path) -> None:
    _agree(za.differential(CASES[name], cpp=True, root=str(tmp_path)))


@pytest.mark.parametrize("name", _full_only(list(CASES), []))
def test_warm_caches_agree(name: str, tmp_path: Path) -> None:
    _agree(za.differential(CASES[name], cache="warm", root=str(tmp_path)))


INDUCTOR = [(c.name, cache) for c in za.CASES if c.inductor for cache in ("cold", "warm")]


@pytest.mark.parametrize(("name", "cache"), [
    p if p in INDUCTOR_DEFAULT else pytest.param(*p, marks=pytest.mark.skipif(not FULL, reason="SYMGUARD_ZOO_FULL=1"))
    for p in INDUCTOR])
@pytest.mark.filterwarnings("ignore:`torch.jit.script_method` is deprecated:DeprecationWarning")  # inductor's cache
def test_inductor_agrees(name: str, cache: str, tmp_path: Path) -> None:
    _agree(za.differential(CASES[name], backend="inductor", cache=cache, root=str(tmp_path)))


def test_compile_errors_are_compared() -> None:
    """The repro of item 4 fails to compile stock; the comparison sees the error itself."""
    run = za.compile_run(CASES["constrained_parity"], prune=False)
    assert run.error is not None and run.error.startswith("ConstraintViolationError")


def test_recompiles_are_counted(tmp_path: Path) -> None:
    out = za.differential(CASES["recompile_threshold"], root=str(tmp_path))
    run = za.compile_run(CASES["recompile_threshold"], prune=False)
    assert [n for n, _ in run.sequence] == [1, 1, 2, 2, 3, 3, 3, 3, 3]  # 10 -> 20 ... the thresholds
    _agree(out)


class _DropsEverything:
    """A wrong oracle: every guard it is asked about is called redundant."""

    def redundancy(self, doc: dict[str, Any]) -> dict[str, Any]:
        ids = [g["id"] for g in doc["guards"]]
        return {"status": "sat", "minimal": [], "guards": [{"id": i, "verdict": "redundant"} for i in ids]}

    def simplify(self, doc: dict[str, Any]) -> dict[str, Any]:
        return {"status": "unknown"}


def test_the_differential_catches_a_wrong_pruner(tmp_path: Path) -> None:
    """Not vacuous: a pruner that drops every guard is caught, with the inputs it lets through,
    as a different acceptance, a wrong output and emitted code unlike its own unpruned code."""
    out = za.differential(CASES["max_min_gap"], root=str(tmp_path), client=_DropsEverything())
    kinds = {d["kind"] for d in out["disagreements"]}
    assert {"acceptance", "wrong output", "own unpruned guards"} <= kinds, out["disagreements"][:5]
    assert all("point" in d for d in out["disagreements"] if d["kind"] != "compiles")


def test_the_square_grid_drops_the_squares_consequences() -> None:
    """``int(math.sqrt(n))`` guards are premises within ``float_sqrt.BOUND`` (the differential above
    shows it is sound): the grid's consequences of ``side*side == n`` go; unbounded, they stay."""
    h = za.compile_run(CASES["square_grid"], prune=True).history[-1]
    assert h["opaque"] == 0 and len(h["pruned_code"]["python"]) < len(h["stock_code"]["python"]) - 4
    h = za.compile_run(CASES["square_grid_pow"], prune=True).history[-1]  # int(n ** 0.5), within POW_BOUND
    assert h["opaque"] == 0 and len(h["pruned_code"]["python"]) < len(h["stock_code"]["python"]) - 4
    h = za.compile_run(CASES["square_grid_unbounded"], prune=True).history[-1]
    assert h["opaque"] > 0 and len(h["pruned_code"]["python"]) == len(h["stock_code"]["python"])


def test_the_ceil_grid_drops_the_grids_consequences() -> None:
    """``math.ceil(math.sqrt(n))`` and ``round(math.sqrt(n))`` guards are premises within their
    bounds (the differential above shows it is sound, in Python and C++): the grid's consequences
    go; unbounded, they stay."""
    h = za.compile_run(CASES["ceil_grid"], prune=True).history[-1]
    assert h["opaque"] == 0 and len(h["pruned_code"]["python"]) <= len(h["stock_code"]["python"]) - 4
    h = za.compile_run(MORE["ceil_grid_unbounded"], prune=True).history[-1]
    assert h["opaque"] > 0 and len(h["pruned_code"]["python"]) == len(h["stock_code"]["python"])


def test_octave_halving_drops_the_powers_consequences() -> None:
    """``h // 2 ** int(math.log2(w / 8))`` guards are premises where the ranges keep the exponent
    0 to 30 (the differential above shows it is sound): ``2*(h // p) >= 2`` and ``h // p != 0``
    go; unbounded, only the exponent's own guard is read (exactly) and the power's are kept."""
    h = za.compile_run(CASES["octave_halving"], prune=True).history[-1]
    assert h["opaque"] == 0 and len(h["pruned_code"]["python"]) <= len(h["stock_code"]["python"]) - 2
    h = za.compile_run(CASES["octave_halving_unbounded"], prune=True).history[-1]
    assert h["opaque"] > 0 and any("math.log2" in g for g in h["stock_code"]["python"])


def test_the_raising_prefix_is_put_back_under_cpp_guards() -> None:
    """``narrowed_divisor``: with Python guards ``2*n - k >= 5`` goes (implied by ``n // k >= 3`` on
    ``k >= 1``); with C++ guards it is put back before ``n // k``, which may raise on the inputs part
    2 sees (``k = 0``: part 3 checks ``k >= 1`` only afterwards)."""
    h = za.compile_run(CASES["narrowed_divisor"], prune=True).history[-1]
    assert "restored" not in h and len(h["pruned_code"]["python"]) < len(h["stock_code"]["python"])
    h = za.compile_run(CASES["narrowed_divisor"], prune=True, cpp=True).history[-1]
    assert h["restored"] == 1 and h["pruned_code"]["python"] == h["stock_code"]["python"]


def test_the_cached_entries_are_compared(tmp_path: Path) -> None:
    """Not vacuous for recompile chains: a pruner that drops every guard lets the sequence's
    cache (several entries, automatic dynamic) answer points stock's entries refuse."""
    out = za.differential(CASES["auto_dynamic"], root=str(tmp_path), client=_DropsEverything())
    kinds = {d["kind"] for d in out["disagreements"]}
    assert "cached entries" in kinds, out["disagreements"][:5]
    assert za.differential(CASES["auto_dynamic"], root=str(tmp_path))["disagreements"] == []


def test_runtime_asserts_are_no_premises() -> None:
    """``nonzero_vs_size``: the deferred runtime assert ``u <= m`` runs in the graph, after the
    guards; it is not told to symguard (no assert in the problem), and the guard ``n > m`` stays
    while ``n + 1 > m`` (implied by it) goes. ``item_bounds``: the range the asserts give the
    backed size (``u >= 5``, ``u < n``: ``n >= 6``) is part 3's, checked before the graph runs."""
    h = za.compile_run(CASES["nonzero_vs_size"], prune=True).history[-1]
    assert h["problem"]["asserts"] == [] and h["kept"] == 1 and h["guards"] == 2
    assert "L['x'].size()[0] > L['y'].size()[0]" in h["pruned_code"]["python"]
    h = za.compile_run(CASES["item_bounds"], prune=True).history[-1]
    assert "6 <= L['x'].size()[0]" in h["pruned_code"]["python"]


def test_the_prefix_before_a_power_stays() -> None:
    """``power_prefix``: ``n + 2*k < 140`` is implied by the later ``k + n < 60`` but stays before
    ``2 ** k > n``, whose Python code does not finish at a huge ``k`` (with Python guards too:
    their ``and`` runs in order); the rest is pruned as usual."""
    for cpp in (False, True):
        h = za.compile_run(CASES["power_prefix"], prune=True, cpp=cpp).history[-1]
        assert h["restored"] == 1 and h["pruned_code"]["python"] == h["stock_code"]["python"], cpp
    h = za.compile_run(CASES["narrowed_divisor"], prune=True).history[-1]
    assert "restored" not in h  # no power: Python guards still drop what is implied



def test_a_dropped_guard_that_may_raise_is_put_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """``dropped_divisor``: ``n // m >= 1`` is implied by the later ``n - m >= 0``, but with C++
    guards, at ``m = 0`` both C++ checks reject and stock's reason walk raises ``ZeroDivisionError``
    at it (eager does not divide there); pruned must raise as stock does, so the dropped guard is
    put back in place with its prefix. With Python guards it goes (the lambda guard's exception
    is a rejection, and no reason walk follows). The pruner is told the guards run in C++ too
    (the C++ build costs seconds; the full matrix runs the differential with real C++ guards)."""
    from symguard.service import torch_hook

    case = dataclasses.replace(CASES["dropped_divisor"], points=[(2, 0), (20, 3)])
    h = za.compile_run(case, prune=True).history[-1]
    assert "restored" not in h and len(h["pruned_code"]["python"]) < len(h["stock_code"]["python"])
    monkeypatch.setattr(torch_hook, "_executed_langs", lambda kwargs: ("python", "cpp"))
    h = za.compile_run(case, prune=True).history[-1]
    assert h["restored"] == 1 and h["pruned_code"]["python"] == h["stock_code"]["python"]
    # ``guarded_divisor``: the guard before it (``n*m > 10``) keeps ``m`` from 0: dropped all the same
    case = dataclasses.replace(MORE["guarded_divisor"], points=[(2, 0), (20, 3)])
    h = za.compile_run(case, prune=True).history[-1]
    assert "restored" not in h and h["raise_questions"] == 1
    assert len(h["pruned_code"]["python"]) < len(h["stock_code"]["python"])


def test_hunt4_premises_of_shape_ops() -> None:
    """``int_ratio_threshold``: ``n / k > 1.5`` (Python's correctly rounded quotient against a
    literal, read exactly) implies ``2*n > 3*k`` and ``n > k``: both go with Python guards.
    ``view_by_size``: ``view(m, -1)``'s ``n % m == 0`` with ``n > 2*m`` implies ``n // m > 2``.
    ``pool_ceil_rel``: ceil-mode pooling's correction guard goes, its output's residue stays."""
    h = za.compile_run(CASES["int_ratio_threshold"], prune=True).history[-1]
    assert h["pruned_code"]["python"] == ["(L['x'].size()[0] / L['k']) > 1.5", "2 <= L['x'].size()[0]", "1 <= L['k']"]
    h = za.compile_run(CASES["view_by_size"], prune=True).history[-1]
    assert "(L['x'].size()[0] // L['y'].size()[0]) > 2" in h["stock_code"]["python"]
    assert "(L['x'].size()[0] // L['y'].size()[0]) > 2" not in h["pruned_code"]["python"]
    assert "(L['x'].size()[0] % L['y'].size()[0]) == 0" in h["pruned_code"]["python"]
    h = za.compile_run(CASES["pool_ceil_rel"], prune=True).history[-1]
    assert len(h["pruned_code"]["python"]) == len(h["stock_code"]["python"]) - 3
    assert "((L['x'].size()[0] // 2) % 3) != 0" in h["pruned_code"]["python"]


def test_unfolds_zero_divisor_is_put_back_under_cpp_guards(monkeypatch: pytest.MonkeyPatch) -> None:
    """A real op's raising guard: ``F.unfold`` with dilation and padding guards ``1 % ((n - 1) // 2)
    != 0`` (a zero divisor at n = 1, 2). With Python guards the ranges imply it and it goes; with
    C++ guards nothing before it proves the divisor non-zero, so it is put back in place (the
    pruner is told the guards run in C++ too: no g++ build)."""
    from symguard.service import torch_hook

    case = dataclasses.replace(CASES["unfold_im2col"], points=[(20, 4)])
    guard = "(1 % (((-1) + L['x'].size()[0]) // 2)) != 0"
    h = za.compile_run(case, prune=True).history[-1]
    assert guard in h["stock_code"]["python"] and guard not in h["pruned_code"]["python"]
    monkeypatch.setattr(torch_hook, "_executed_langs", lambda kwargs: ("python", "cpp"))
    h = za.compile_run(case, prune=True).history[-1]
    assert h["restored"] == 1 and h["raise_questions"] == 1 and h["pruned_code"]["python"][0] == guard
