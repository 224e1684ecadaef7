"""``smt.lifted`` against brute force on small integer boxes (negatives and zero included):
``decide`` proves only true implications, from the facts it names, and returns only real
counterexamples; the lifted encoding of a nest is exact; its units are the same run after run."""

from __future__ import annotations

import itertools

from guard_grammar import X, Y
from hypothesis import given, settings
from hypothesis import strategies as st
from test_reason_regions import BOX, RELS, nests

from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import evaluate
from symguard.solver.ir.terms import Term
from symguard.solver.smt.checker import Deadline
from symguard.solver.smt.lifted import Lifted

RANGES = {"x": (BOX.start, BOX.stop - 1), "y": (BOX.start, BOX.stop - 1)}
BASE = {"x": 1, "y": 2}


def _truth(t: Term, pt: dict[str, int]) -> bool:
    return bool(evaluate(t, pt))


def _lifted(total: int = 10**8) -> Lifted:
    return Lifted(Deadline(3_600_000), RANGES, total)


@settings(max_examples=200, deadline=None)
@given(nests, nests, st.sampled_from(RELS),
       st.lists(st.tuples(nests, nests, st.sampled_from(RELS)), min_size=0, max_size=3))
def test_decide_against_brute_force(a: Term, b: Term, rel: object, raw: list[tuple[Term, Term, object]]) -> None:
    goal = rel(a, b)  # type: ignore[operator]
    facts = [(r(p, q), j) for j, (p, q, r) in enumerate(raw)]  # type: ignore[operator]
    if goal.kind == ir.BCONST or any(f.kind == ir.BCONST for f, _ in facts):
        return

    def accept(pt: dict[str, int]) -> bool:
        return not _truth(goal, pt) and all(_truth(f, pt) for f, _ in facts)

    got = _lifted().decide(goal, facts, BASE, 10**7, accept)
    pts = [{"x": x, "y": y} for x, y in itertools.product(BOX, BOX)]
    if got is None:
        return
    found, what = got
    if found:
        assert isinstance(what, dict) and accept(what) and all(BOX.start <= what[x] < BOX.stop for x in "xy")
    else:
        named = [f for f, j in facts if j in what]  # type: ignore[operator]
        for pt in pts:
            if all(_truth(f, pt) for f in named):
                assert _truth(goal, pt), (goal, named, pt)


@settings(max_examples=200, deadline=None)
@given(nests, nests, st.sampled_from(RELS))
def test_a_comparison_that_holds_on_the_whole_box_is_proven_and_one_that_fails_is_not(a: Term, b: Term,
                                                                                    rel: object) -> None:
    """The encoding is exact: with no facts, an answer is the box's own truth (the search over
    a box of 169 points ends well inside the units)."""
    goal = rel(a, b)  # type: ignore[operator]
    if goal.kind == ir.BCONST:
        return
    truth = all(_truth(goal, {"x": x, "y": y}) for x, y in itertools.product(BOX, BOX))
    got = _lifted().decide(goal, [], BASE, 10**7, lambda pt: not _truth(goal, pt))
    if got is not None:
        assert got[0] is not truth, (goal, got)


def test_an_or_that_needs_both_arguments_of_a_max() -> None:
    """``Max(x, 12 - x) != 5``: no argument alone is never 5, the two together are (the first for
    large ``x``, the second for small); implied by the ranges alone, naming no fact."""
    goal = ir.mk_ne(ir.mk_max(X, ir.mk_sub(ir.mk_int(12), X)), ir.mk_int(5))
    got = _lifted().decide(goal, [(ir.mk_ge(Y, ir.ONE), 0)], BASE, 10**7, lambda pt: False)
    assert got == (False, set())


def test_an_implication_through_a_nest_names_only_the_facts_it_joined() -> None:
    """``Min(x, y//4) >= 3`` implies ``x + y >= 15``; the fact the models never violate is not joined."""
    goal = ir.mk_ge(ir.mk_add(X, Y), ir.mk_int(15))
    facts = [(ir.mk_ge(ir.mk_min(X, ir.mk_floordiv(Y, ir.mk_int(4))), ir.mk_int(3)), 0),
             (ir.mk_le(X, ir.mk_int(100)), 1)]
    lift = Lifted(Deadline(3_600_000), {"x": (None, None), "y": (None, None)}, 10**8)
    assert lift.decide(goal, facts, {"x": 5, "y": 20}, 10**7, lambda pt: False) == (False, {0})


def test_a_counterexample_moving_both_sizes() -> None:
    """``Max(x, 3*y - 20) != y + x//2`` fails only where both sizes move together; a point is
    returned only once the caller accepts it, and it is a real one."""
    goal = ir.mk_ne(ir.mk_max(X, ir.mk_sub(ir.mk_mul(ir.mk_int(3), Y), ir.mk_int(20))),
                    ir.mk_add(Y, ir.mk_floordiv(X, ir.mk_int(2))))
    facts = [(ir.mk_ge(X, ir.mk_int(2)), 0)]
    lift = Lifted(Deadline(3_600_000), {"x": (2, None), "y": (2, None)}, 10**8)
    got = lift.decide(goal, facts, {"x": 40, "y": 10}, 10**7, lambda pt: not _truth(goal, pt))
    assert got is not None and got[0] and not _truth(goal, got[1]) and got[1]["x"] >= 2  # type: ignore[index]
    assert _lifted().decide(goal, facts, BASE, 10**7, lambda pt: False) is None  # a point rejected: undecided


def test_units_are_counted_and_repeatable() -> None:
    """The same question spends the same units twice; past the pass's units nothing is asked."""
    goal = ir.mk_ne(ir.mk_max(X, ir.mk_sub(ir.mk_int(12), X)), ir.mk_int(5))
    first, second = _lifted(), _lifted()
    assert first.decide(goal, [], BASE, 10**7, lambda pt: False) == second.decide(goal, [], BASE, 10**7,
                                                                                lambda pt: False)
    assert first.units == second.units > 0 and first.checks == second.checks == 1
    assert _lifted(total=10).decide(goal, [], BASE, 10**7, lambda pt: False) is None
