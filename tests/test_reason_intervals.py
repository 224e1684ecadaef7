"""``cheap`` is sound: every point's value lies in its interval, and a decided guard agrees with
Python's evaluation at every point of the box that satisfies the asserts."""

from __future__ import annotations

from typing import Any

from guard_grammar import Box, boxes, terms
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver import load_problem, run
from solver.ir.pyeval import evaluate, holds
from solver.reason import intervals as cheap


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
