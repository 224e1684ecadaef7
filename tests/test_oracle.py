"""The ShapeEnv companion: answers a real ShapeEnv's questions that sympy cannot, follows it as
guards are added, and never raises."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
sympy = pytest.importorskip("sympy")

from torch._dynamo.source import ConstantSource
from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv
from torch.utils._sympy.functions import FloorDiv, Mod

from symguard.service.oracle import Oracle

TILES = (64, 32, 16, 8)


def pick_tile(dim: Any, known_true: Any) -> int:
    """An Inductor-like heuristic: the largest tile that divides the dim and fits in it."""
    for tile in TILES:
        if known_true(sympy.Eq(Mod(dim, tile), 0)) and known_true(sympy.Ge(dim, tile)):
            return tile
    return 1


def _env(hint: int = 96) -> tuple[Any, Any, Any]:
    env = ShapeEnv()
    s = env.create_symbol(hint, ConstantSource("n"), dynamic_dim=DimDynamic.DYNAMIC)
    return env, s, env.create_symintnode(s, hint=hint)


def test_tile_heuristic_that_raises_under_sympy() -> None:
    env, s, n = _env()
    assert bool(n % 16 == 0) and bool(n >= 32)  # the traced code branched: two guards
    with pytest.raises(TypeError, match="cannot determine truth value"):
        pick_tile(s, bool)
    oracle = Oracle(env)
    assert pick_tile(s, oracle.statically_known_true) == 16
    # PyTorch's own static evaluation does not know 8 | n from 16 | n; the oracle does
    assert env._maybe_evaluate_static(sympy.Eq(Mod(s, 8), 0)) is None
    assert oracle.evaluate(sympy.Eq(Mod(s, 8), 0)).value is True


def test_follows_the_shape_env_as_guards_are_added() -> None:
    env, s, n = _env(128)
    oracle = Oracle(env)
    assert pick_tile(s, oracle.statically_known_true) == 1  # nothing known yet
    assert bool(n % 64 == 0) and bool(n > 64)
    assert pick_tile(s, oracle.statically_known_true) == 64


def test_answers_and_witnesses() -> None:
    env, s, n = _env()
    assert bool(n % 16 == 0)
    oracle = Oracle(env)
    ans = oracle.evaluate(sympy.Eq(Mod(s, 32), 0))
    assert ans.value is None and ans.when_true[str(s)] % 32 == 0 and ans.when_false[str(s)] % 32 == 16
    assert oracle.bounds(Mod(s, 8)) == (0, 0)
    assert oracle.bounds(FloorDiv(s, 16)) == (1, None)  # s >= 2 and 16 | s
    assert oracle.evaluate(sympy.Lt(s, 0)).value is False


def test_never_raises() -> None:
    env, s, n = _env()
    assert bool(n % 16 == 0)
    oracle = Oracle(env)
    assert oracle.evaluate(sympy.sqrt(s) > 3).value is None  # unsupported: no answer, no exception
    assert oracle.bounds(sympy.sqrt(s)) is None
    assert oracle.errors == 2 and oracle.last_error is not None


def test_minimal_guards() -> None:
    env, s, n = _env()
    assert bool(n % 16 == 0) and bool(n % 8 == 0) and bool(n > 4)
    assert Oracle(env).minimal_guards() == [f"Eq(Mod({s}, 16), 0)"]


def test_simplify_under_the_shape_env() -> None:
    env, s, n = _env()
    oracle = Oracle(env)
    assert oracle.simplify(s - Mod(s, 4)) == f"4*({s}//4)"
    assert bool(n % 16 == 0)
    assert oracle.simplify(s - Mod(s, 4)) == str(s) and oracle.simplify(Mod(s, 8)) == "0"


@pytest.mark.parametrize("row", [
    {"id": "q0", "kind": "int", "value": "unknown", "reason": "resource"},  # the effort ran out
    {"id": "q0", "kind": "int", "value": "unknown", "min": None, "max": None, "exact": False, "reason": "timeout"},
    {"id": "q0", "kind": "int", "min": 0, "max": 9, "exact": False, "reason": "incomplete"},
])
def test_undecided_bounds_are_no_bounds(row: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """An integer query left undecided gives no range (an effort-out row read as the range
    ("unknown", "unknown") before)."""
    env, s, _ = _env()
    oracle = Oracle(env)
    monkeypatch.setattr(oracle, "_ask", lambda op, text, extra: {"status": "sat", "queries": [row]})
    assert oracle.bounds(FloorDiv(s, 16)) is None
