"""``solver.api.check_cached``: a result read from a shared cache is checked field by field, by the
common checks and by each operation's ``audit``; a fresh result always passes, a planted one never."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from symguard.solver import compute, prepare
from symguard.solver.api import check_cached
from symguard.solver.errors import InternalError

DOC: dict[str, Any] = {
    "symbols": {"s0": {"min": 2, "max": 64, "hint": 16}, "s1": {"min": 1, "max": 64, "hint": 8}},
    "guards": ["Eq(Mod(s0, 8), 0)", "s0 >= 2", "s0 >= 8", "s1 <= s0"],
    "queries": ["s0 >= 3", "s0 - s1"],
    "exprs": ["s0 - Mod(s0, 8)", "Max(s1, 1)", "FloorDiv(s0*s1, s1)"],
}


def _fresh(op: str) -> tuple[Any, dict[str, Any]]:
    _, canon = prepare(DOC)
    return canon.problem, compute(op, canon.problem)


@pytest.mark.parametrize("op", ["solve", "redundancy", "evaluate", "shrink", "simplify"])
def test_a_fresh_result_passes(op: str) -> None:
    problem, res = _fresh(op)
    check_cached(op, problem, res)


def _set(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def plant(res: dict[str, Any]) -> None:
        node: Any = res
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value
    return plant


PLANTED = [
    ("solve", "model outside its range", _set(("model", "v0"), 999)),
    ("redundancy", "an unknown verdict", _set(("guards", 0, "verdict"), "probably")),
    ("redundancy", "a minimal set naming no guard", _set(("minimal",), ["g99"])),
    ("redundancy", "guard rows reordered", lambda r: r["guards"].reverse()),
    ("evaluate", "a witness that violates a guard", _set(("queries", 0, "when_true"), {"v0": 3, "v1": 1})),
    ("evaluate", "a query row missing", lambda r: r["queries"].pop()),
    ("simplify", "a form that differs at the hints", _set(("exprs", 0, "form"), "v0 + 1")),
    ("simplify", "a form that does not read back", _set(("exprs", 0, "form"), "v0 +")),
    ("simplify", "a form over another symbol", _set(("exprs", 0, "form"), "v7")),
    ("simplify", "a proof flag that is not a boolean", _set(("exprs", 0, "proved"), "yes")),
]


@pytest.mark.parametrize(("op", "why", "plant"), PLANTED, ids=[p[1] for p in PLANTED])
def test_a_planted_result_is_rejected(op: str, why: str, plant: Callable[[dict[str, Any]], None]) -> None:
    problem, res = _fresh(op)
    bad = copy.deepcopy(res)
    plant(bad)
    with pytest.raises(InternalError, match=f"cached {op} result rejected"):
        check_cached(op, problem, bad)


def test_an_unproved_row_is_not_read() -> None:
    """An unproved row carries no claim (the caller gets its own text back), so its form is free."""
    problem, res = _fresh("simplify")
    res = copy.deepcopy(res)
    res["exprs"][0].update(form="anything at all", proved=False)
    check_cached("simplify", problem, res)
