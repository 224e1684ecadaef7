"""``sampling.Pool``: masks agree with Python's evaluation; a refuting point really refutes."""

from __future__ import annotations

from typing import Any

from guard_grammar import Box, boxes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symguard.solver import load_problem
from symguard.solver.ir.pyeval import holds
from symguard.solver.reason.points import Pool


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boxes())
def test_masks_match_python_at_every_point(doc: dict[str, Any]) -> None:
    box = Box(doc)
    terms = [c.term for c in box.p.guards]
    pool = Pool(box.p, terms)
    for pt in box.points:
        if pool.add(dict(pt)):
            m = pool.masks[-1]
            for i, t in enumerate(terms):
                assert bool(m >> i & 1) == (not holds(t, pt)), (doc, pt, i)
        else:  # rejected: outside the asserts
            assert not all(holds(a, pt) for a in box.asserts)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boxes(), st.data())
def test_refuting_points_satisfy_the_kept_guards(doc: dict[str, Any], data: st.DataObject) -> None:
    box = Box(doc)
    terms = [c.term for c in box.p.guards]
    pool = Pool(box.p, terms)
    for pt in box.points:
        pool.add(dict(pt))
    pool.seed_points(8)
    ids = list(box.guard)
    kept = data.draw(st.sets(st.integers(0, len(ids) - 1)))
    mask = sum(1 << i for i in kept)
    for i in kept:
        pt = pool.refuting(i, mask)
        expected = not box.implies([ids[j] for j in kept if j != i], ids[i])
        assert (pt is not None) == expected  # every box point is in the pool: complete here
        if pt is not None:
            assert not holds(terms[i], pt)
            assert all(holds(terms[j], pt) for j in kept if j != i)
            assert all(holds(a, pt) for a in box.asserts)


def test_zero_divisor_falls_back_to_strict_evaluation() -> None:
    p = load_problem({"symbols": {"x": {"min": -2, "max": 2}, "y": {"min": 0, "max": 2}},
                      "guards": ["x // y >= 0", "x >= -1"]})
    pool = Pool(p, [c.term for c in p.guards])
    assert pool.add({"x": -2, "y": 0})
    assert pool.masks[-1] == 0b11  # a zero divisor fails that guard only... and x >= -1 fails too
    assert pool.add({"x": 1, "y": 0})
    assert pool.masks[-1] == 0b01


def test_seed_points_respect_ranges_and_asserts() -> None:
    p = load_problem({"symbols": {"s": {"min": 2, "max": 9, "hint": 4}, "t": {"min": 2, "hint": 6}},
                      "asserts": ["Eq(Mod(t, 2), 0)"], "guards": ["s < t"]})
    pool = Pool(p, [c.term for c in p.guards])
    pool.seed_points(30)
    assert pool.points[0] == {"s": 4, "t": 6}
    for pt in pool.points:
        assert 2 <= pt["s"] <= 9 and pt["t"] >= 2 and pt["t"] % 2 == 0


# ---------------------------------------------------------------- symbols a guard defines
@settings(max_examples=80, deadline=None)
@given(st.integers(1, 64), st.integers(1, 64), st.integers(1, 4), st.integers(-3, 3), st.booleans())
def test_a_symbol_without_hint_follows_its_definition(h0: int, h1: int, c: int, k: int, chained: bool) -> None:
    """Strides a trace gives no hint for (``src0 == c*s0*s1 + k``; ``src1 == src0 + s1``: defined
    through another hintless symbol) take their defined value at the base point and at every
    seeded point that moves only the sizes, so those points satisfy the definitions; the moves
    of a defined symbol itself are kept (they are the points where its definition fails)."""
    guards = [f"src0 == {c}*s0*s1 + {k}"] + (["src1 == src0 + s1"] if chained else []) + ["s0 >= 1"]
    syms: dict[str, Any] = {"s0": {"min": 1, "hint": h0}, "s1": {"min": 1, "hint": h1}, "src0": {}}
    if chained:
        syms["src1"] = {}
    p = load_problem({"symbols": syms, "guards": guards})
    pool = Pool(p, [g.term for g in p.guards])
    base = pool.base
    assert base["src0"] == c * h0 * h1 + k and (not chained or base["src1"] == base["src0"] + h1)
    assert all(holds(g.term, base) for g in p.guards)
    pool.seed_points(24)  # the one-symbol moves (the first 24 points)
    src0 = p.guards[0].term
    assert any((pt["s0"], pt["s1"]) != (h0, h1) for pt in pool.points)
    for pt in pool.points:
        if not holds(src0, pt):  # only a move of src0 itself breaks its definition
            assert (pt["s0"], pt["s1"]) == (h0, h1) and pt["src0"] != base["src0"]
    assert any(not holds(src0, pt) for pt in pool.points)  # ... and those moves are seeded


def test_definitions_in_a_cycle_or_of_hinted_symbols_are_left_alone() -> None:
    p = load_problem({"symbols": {"a": {}, "b": {}, "s": {"min": 1, "hint": 5}},
                      "guards": ["a == b + 1", "b == a - 1", "s == 2*a"]})
    pool = Pool(p, [g.term for g in p.guards])
    assert pool.base["s"] == 5  # hinted: never overwritten
    assert pool.base["a"] == pool.base["b"] + 1  # one of the two is defined by the other, not both


def test_a_definition_that_does_not_divide_is_not_used() -> None:
    p = load_problem({"symbols": {"x": {"min": 0}, "s": {"min": 1, "hint": 5}}, "guards": ["2*x == s"]})
    pool = Pool(p, [g.term for g in p.guards])
    assert pool.base["x"] == 0  # 5 is odd: the low end of the range, as without the definition
