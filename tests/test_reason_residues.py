"""``reason.residues`` against brute force: the periods of a periodic term are periods at every
point of a box (negatives and zero included), and on a box the residue search answers exactly
what enumerating the box answers (an implication iff no point of the facts fails the goal; a
point it returns is in the ranges, meets every fact and fails the goal)."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import evaluate
from symguard.solver.ir.terms import Term
from symguard.solver.reason import residues

NAMES = ("a", "b", "c")
SYMS = [ir.mk_sym(n) for n in NAMES]


@st.composite
def polys(draw: st.DrawFn) -> Term:
    """Integer polynomials in the symbols, with one-symbol chains and residues as leaves."""
    leaves = st.one_of(st.sampled_from(SYMS),
                       st.builds(lambda x, d: ir.mk_floordiv(x, ir.mk_int(d)), st.sampled_from(SYMS),
                                 st.sampled_from([2, 3, 4])),
                       st.builds(lambda x, d: ir.mk_mod(x, ir.mk_int(d)), st.sampled_from(SYMS),
                                 st.sampled_from([2, 3, 5])))
    terms = draw(st.lists(st.tuples(st.integers(-3, 3), st.lists(leaves, min_size=1, max_size=2)),
                          min_size=1, max_size=3))
    parts = [ir.mk_mul(ir.mk_int(c), *fs) for c, fs in terms]
    return ir.mk_add(*parts, ir.mk_int(draw(st.integers(-4, 4))))


@st.composite
def periodic(draw: st.DrawFn) -> Term:
    return ir.mk_mod(draw(polys()), ir.mk_int(draw(st.sampled_from([2, 3, 4, 6]))))


@st.composite
def atoms(draw: st.DrawFn) -> Term:
    e = draw(periodic())
    other = draw(st.one_of(st.integers(0, 5).map(ir.mk_int), periodic()))
    op = draw(st.sampled_from([ir.mk_eq, ir.mk_ne, ir.mk_le, ir.mk_lt]))
    return op(e, other)  # type: ignore[no-any-return]


@settings(max_examples=300, deadline=None)
@given(periodic(), st.integers(-30, 30), st.integers(-30, 30), st.integers(-30, 30))
def test_periods_are_periods(t: Term, x: int, y: int, z: int) -> None:
    p = residues.periods(t)
    assert p is not None
    pt = {"a": x, "b": y, "c": z}
    v = evaluate(t, pt)
    for s, P in p.items():
        for k in (-2, -1, 1, 3):
            assert evaluate(t, {**pt, s: pt[s] + k * P}) == v


@settings(max_examples=300, deadline=None)
@given(st.lists(atoms(), min_size=0, max_size=4), atoms(),
       st.lists(st.tuples(st.integers(-12, 8), st.integers(0, 14)), min_size=3, max_size=3))
def test_search_agrees_with_the_box(facts: list[Term], goal: Term, box: list[tuple[int, int]]) -> None:
    ranges = {n: (lo, lo + w) for n, (lo, w) in zip(NAMES, box)}
    got = residues.counterexample(goal, [(f, k) for k, f in enumerate(facts)], ranges, {}, 1_000_000)
    if got is None:
        return
    found, what = got
    syms = sorted(set().union(*(ir.symbols_of(t) for t in [goal, *facts])) & set(NAMES))
    used = [facts[k] for k in what] if not found else facts  # type: ignore[union-attr]
    grid = itertools.product(*(range(ranges[s][0], ranges[s][1] + 1) for s in syms))
    bad = [pt for pt in (dict(zip(syms, v)) for v in grid)
           if all(evaluate(f, pt) for f in used) and not evaluate(goal, pt)]
    if not found:
        assert not bad, (goal, used, bad[:2])
    else:
        assert isinstance(what, dict)
        for s, v in what.items():
            assert ranges[s][0] <= v <= ranges[s][1]
        pt = {**{s: ranges[s][0] for s in syms}, **what}
        chosen = [f for f in facts if ir.symbols_of(f) <= set(what)]
        assert not evaluate(goal, pt) and all(evaluate(f, pt) for f in chosen), (goal, chosen, pt)


def test_a_residue_implied_through_two_symbols() -> None:
    """``s1 = 8 (mod 24)`` and ``s1 + s2 = 0 (mod 8)`` leave ``s2 = 0 (mod 8)``."""
    s1, s2 = ir.mk_sym("s1"), ir.mk_sym("s2")
    facts = [(ir.mk_eq(ir.mk_mod(s1, ir.mk_int(24)), ir.mk_int(8)), 0),
             (ir.mk_eq(ir.mk_mod(ir.mk_add(s1, s2), ir.mk_int(8)), ir.mk_int(0)), 1)]
    goal = ir.mk_eq(ir.mk_mod(s2, ir.mk_int(8)), ir.mk_int(0))
    assert residues.counterexample(goal, facts, {"s1": (2, None), "s2": (2, None)}, {}, 10_000) == (False, [0, 1])
    weaker = ir.mk_eq(ir.mk_mod(s2, ir.mk_int(16)), ir.mk_int(0))
    found, pt = residues.counterexample(weaker, facts, {"s1": (2, None), "s2": (2, None)},  # type: ignore[misc]
                                        {"s1": 32, "s2": 32}, 10_000)
    assert found and pt["s2"] % 8 == 0 and pt["s2"] % 16 and (pt["s1"] + pt["s2"]) % 8 == 0


def test_classes_whose_points_are_all_rejected_decide_nothing() -> None:
    """Every class where the goal fails is tried and every point rejected (the facts left out of
    the search exclude them): undecided, never an implication."""
    n = ir.mk_sym("n")
    goal = ir.mk_eq(ir.mk_mod(n, ir.mk_int(8)), ir.ZERO)
    assert residues.counterexample(goal, [], {"n": (0, None)}, {}, 10_000, accept=lambda pt: False) is None
