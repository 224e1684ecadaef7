"""shrink_search: the smallest point in objective order, proven by exhaustion — checked against
brute-force enumeration of small boxes, at any budget."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from small_problems import Small, holds, size_problems, small_problems

from symguard.solver import load_problem
from symguard.solver.ir.problem import Symbol
from symguard.solver.ops.shrink import distinct_pairs
from symguard.solver.ops.shrink_search import Found, _candidates, search
from symguard.solver.smt.checker import Deadline
from symguard.solver.smt.objectives import levels

PROFILE = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
OBJECTIVES = st.sampled_from(["sum", "max", "lex"])


def run_search(small: Small, objective: str, best: list[int] | None, units: int | None) -> tuple[Found, Any]:
    p = load_problem(small.doc)
    key = levels(objective, [s for s in p.symbols if not s.is_bool])
    pairs = distinct_pairs(p)
    if best is None:  # above every point of the box
        corner = {n: max(abs(lo), abs(hi)) for n, (lo, hi) in small.boxes.items()}
        best = [v + 1 for v in key(corner)]
    found = search(p, key, best, pairs, Deadline(20000, budget_units=units))
    return found, (key, best, pairs)


def check(small: Small, found: Found, key: Any, best: list[int], pairs: list[tuple[str, str]]) -> None:
    feasible = [e for e in small.feasible() if all(e[a] != e[b] for a, b in pairs)]
    for e in feasible:  # ``lower`` holds level by level for every model
        k = key(e)
        assert k[0] >= found.lower[0]
        assert all(x >= lo for x, lo in zip(k[1:], found.lower[1:]))
    smallest = min((key(e) for e in feasible), default=None)
    if found.model is not None:
        assert found.optimal
        m = found.model
        assert all(lo <= m[n] <= hi for n, (lo, hi) in small.boxes.items())
        assert all(holds(g.fn, m) for g in small.guards)
        assert all(m[a] != m[b] for a, b in pairs)
        assert key(m) == smallest and key(m) < best
    elif found.optimal:  # nothing below ``best``
        assert smallest is None or smallest >= best


@PROFILE
@given(small=st.one_of(small_problems(), size_problems()),
       objective=OBJECTIVES, units=st.one_of(st.none(), st.integers(0, 30_000)), data=st.data())
def test_search_agrees_with_enumeration(small: Small, objective: str, units: int | None, data: st.DataObject) -> None:
    """Whatever the budget: a model is a smallest one, "optimal" is true, ``lower`` is a bound;
    the same budget gives the same answer."""
    feasible = small.feasible()
    best = None
    if feasible and data.draw(st.booleans()):  # from a start model, as shrink calls it
        p = load_problem(small.doc)
        key = levels(objective, [s for s in p.symbols if not s.is_bool])
        best = key(data.draw(st.sampled_from(feasible)))
    found, (key, best, pairs) = run_search(small, objective, best, units)
    check(small, found, key, best, pairs)
    assert run_search(small, objective, best, units)[0] == found
    if units is None:  # the default share of 20 s settles boxes this small
        assert found.optimal


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small=small_problems(), objective=OBJECTIVES, units=st.integers(0, 20_000))
def test_unbounded_ranges_end_with_the_units(small: Small, objective: str, units: int) -> None:
    """Ranges of (-inf, +inf) with the bounds as guards: domains are infinite, the search must
    stay sound and stop when its units run out."""
    doc = dict(small.doc, symbols={n: {"min": None, "max": None} for n in small.boxes},
               guards=small.doc["guards"] + [f"{n} >= {lo}" for n, (lo, _) in small.boxes.items()]
               + [f"{n} <= {hi}" for n, (_, hi) in small.boxes.items()])
    hidden = Small(doc, small.boxes, small.guards)
    found, (key, best, pairs) = run_search(hidden, objective, None, units)
    check(small, found, key, best, pairs)


def test_zero_units_settle_nothing_but_the_ranges() -> None:
    doc = {"symbols": {"a": {"min": 3, "max": 90}, "b": {"min": 2, "max": 90}}, "guards": ["Eq(Mod(a, 8), 0)", "a*b >= 30"]}
    p = load_problem(doc)
    key = levels("sum", list(p.symbols))
    found = search(p, key, [90], [], Deadline(2000, budget_units=0))
    assert found == Found(None, False, [5])
    found = search(p, key, [90], [], Deadline(2000))
    assert found.optimal and found.model == {"a": 8, "b": 4}  # the own guards give a >= 8: lower 10
    assert found.lower == [12]


def test_a_start_at_the_domains_floor_is_proven_without_a_joint_check() -> None:
    doc = {"symbols": {"a": {"min": 2}, "b": {"min": 2}}, "guards": ["Eq(Mod(a, 8), 0)", "Eq(Mod(b, 4), 0)", "a*b >= 32"]}
    p = load_problem(doc)
    found = search(p, levels("sum", list(p.symbols)), [12], [], Deadline(2000))
    assert found == Found(None, True, [12])


def test_candidates_run_outward_from_zero() -> None:
    def first(s: Symbol, n: int) -> list[Any]:
        it = _candidates(s)
        return [v for _, v in zip(range(n), it)]

    assert first(Symbol("x", None, None), 5) == [0, 1, -1, 2, -2]
    assert first(Symbol("x", -2, None), 6) == [0, 1, -1, 2, -2, 3]
    assert first(Symbol("x", None, -3), 3) == [-3, -4, -5]
    assert first(Symbol("x", 4, 6), 5) == [4, 5, 6]
    assert first(Symbol("x", -1, 1), 5) == [0, 1, -1]
    assert first(Symbol("b", None, None, is_bool=True), 3) == [False, True]
