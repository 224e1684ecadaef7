"""``cheap`` is sound: every point's value lies in its interval, and a decided guard agrees with
Python's evaluation at every point of the box that satisfies the asserts."""

from __future__ import annotations

from typing import Any

from guard_grammar import Box, boxes, terms
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symguard.solver import load_problem, run
from symguard.solver.ir.pyeval import evaluate, holds
from symguard.solver.reason import intervals as cheap


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boxes())
def test_decide_agrees_with_every_point(doc: dict[str, Any]) -> None:
    box = Box(doc)
    facts = cheap.Facts.from_problem(box.p)
    asserts = [c.term for c in box.p.asserts]
    base = box.where([])
    for c in box.p.guards:
        d = cheap.decide(c.term, facts, asserts)
        if d is not None:
            assert all(holds(c.term, pt) == d for pt in base), (c.text, d)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(terms(["x", "y"]), st.integers(-5, 3), st.integers(0, 5), st.integers(-5, 3), st.integers(0, 5))
def test_interval_contains_every_value(text: str, xlo: int, xw: int, ylo: int, yw: int) -> None:
    doc = {"symbols": {"x": {"min": xlo, "max": xlo + xw}, "y": {"min": ylo, "max": ylo + yw}},
           "queries": [text]}
    p = load_problem(doc)
    t = p.queries[0].term
    lo, hi = cheap._Intervals(cheap.Facts.from_problem(p)).of(t)
    for x in range(xlo, xlo + xw + 1):
        for y in range(ylo, ylo + yw + 1):
            try:
                v = evaluate(t, {"x": x, "y": y})
            except ZeroDivisionError:
                continue
            assert (lo is None or lo <= v) and (hi is None or v <= hi), (text, x, y, v, lo, hi)


def test_bound_asserts_tighten_ranges() -> None:
    p = load_problem({"symbols": {"s0": {"min": 0}}, "asserts": ["s0 >= 16", "s0 <= 64"], "guards": ["s0 >= 8"]})
    facts = cheap.Facts.from_problem(p)
    assert facts.ranges["s0"] == (16, 64)
    assert cheap.decide(p.guards[0].term, facts) is True


def test_empty_range_from_asserts_does_not_crash() -> None:
    # regression: x in [-1, -1] with assert x >= 0 left x in the empty range [0, -1]; the interval
    # of FloorDiv(x, x) then divided by the range's end 0 (ZeroDivisionError, an internal error)
    doc = {"symbols": {"x": {"min": -1, "max": -1}}, "asserts": ["x < x", "(0 - x) < 1"],
           "guards": ["x < FloorDiv(x, x)"]}
    res = run("redundancy", doc)
    assert res["status"] == "unsat" and res["guards"][0]["verdict"] == "always_false"
    assert run("solve", doc)["status"] == "unsat"


def _mul_by_corners(x: tuple[int | None, int | None], y: tuple[int | None, int | None]) -> tuple[int | None, int | None]:
    """``intervals._mul`` by its four corner products alone (as it read before a literal factor
    took a shortcut)."""
    import math

    (a, b), (c, d) = x, y
    inf = math.inf
    xs = (-inf if a is None else a, inf if b is None else b)
    ys = (-inf if c is None else c, inf if d is None else d)
    ps = [cheap._times(p, q) for p in xs for q in ys]
    lo, hi = min(ps), max(ps)
    return (None if lo == -inf else int(lo), None if hi == inf else int(hi))


bound = st.one_of(st.none(), st.integers(-10**20, 10**20), st.integers(-5, 5))


@settings(max_examples=400, deadline=None)
@given(st.tuples(bound, bound), st.tuples(bound, bound), st.integers(-7, 7), st.booleans())
def test_a_product_with_a_literal_factor_is_the_scaled_interval(x: Any, y: Any, v: int, first: bool) -> None:
    """The interval of ``v * y`` is ``y`` scaled, ends swapped for a negative ``v``: the corner
    products' answer, unbounded ends, 0 and empty intervals included."""
    for pair in ((x, y), ((v, v), y) if first else (y, (v, v))):
        assert cheap._mul(*pair) == _mul_by_corners(*pair), pair


_ENDS = st.one_of(st.none(), st.integers(-6, 6))


@given(_ENDS, _ENDS, _ENDS, _ENDS, st.integers(-8, 8))
def test_meet_holds_exactly_where_both_intervals_do(a0: int | None, a1: int | None, b0: int | None,
                                                   b1: int | None, v: int) -> None:
    def inside(iv: tuple[int | None, int | None]) -> bool:
        return (iv[0] is None or iv[0] <= v) and (iv[1] is None or v <= iv[1])

    assert inside(cheap.meet((a0, a1), (b0, b1))) == (inside((a0, a1)) and inside((b0, b1)))
