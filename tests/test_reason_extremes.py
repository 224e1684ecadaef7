"""``reason.extremes``: the and/or tree a comparison with ``Max``/``Min`` splits into has the
comparison's truth value at every point of a box (negatives and zero included), and ``proves``
never proves a comparison that fails somewhere."""

from __future__ import annotations

from guard_grammar import X, Y, linear_leaves
from hypothesis import given, settings
from hypothesis import strategies as st

from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import evaluate
from symguard.solver.ir.terms import Term
from symguard.solver.reason import extremes

nests = st.recursive(
    linear_leaves(),
    lambda inner: st.one_of(
        st.builds(lambda a: ir.mk_max(*a), st.lists(inner, min_size=2, max_size=3)),
        st.builds(lambda a: ir.mk_min(*a), st.lists(inner, min_size=2, max_size=3)),
        st.builds(lambda a, c: ir.mk_mul(ir.mk_int(c), a), inner, st.integers(-3, 3)),
        st.builds(lambda a, d: ir.mk_floordiv(a, ir.mk_int(d)), inner, st.integers(1, 4)),
        st.builds(lambda a, b: ir.mk_mul(ir.mk_max(ir.ONE, a), ir.mk_max(ir.ONE, b)), inner, inner),
        st.builds(lambda a, b, m: ir.mk_mul(a, ir.mk_mod(b, ir.mk_int(m))), inner, inner, st.integers(1, 4)),
        st.builds(ir.mk_add, inner, inner)),
    max_leaves=8)

RELS = [ir.mk_le, ir.mk_lt, ir.mk_eq, ir.mk_ne, ir.mk_ge]


@settings(max_examples=400, deadline=None)
@given(nests, nests, st.sampled_from(RELS))
def test_the_tree_is_the_comparison(a: Term, b: Term, rel: object) -> None:
    t = rel(a, b)  # type: ignore[operator]
    if t.kind == ir.BCONST:
        return
    tree = extremes.split(t)
    if tree is None:
        return
    for x in range(-7, 8):
        for y in range(-7, 8, 3):
            pt = {"x": x, "y": y}
            assert extremes.holds(tree, lambda c, pt=pt: bool(evaluate(c, pt))) == bool(evaluate(t, pt)), (t, pt)


@settings(max_examples=300, deadline=None)
@given(nests, nests, st.sampled_from(RELS), st.integers(-5, 5), st.integers(-5, 5))
def test_proves_is_sound(a: Term, b: Term, rel: object, lo: int, lo2: int) -> None:
    """Leaves 'proven' where they hold on the whole box: a proven tree holds on the whole box."""
    t = rel(a, b)  # type: ignore[operator]
    tree = extremes.split(t) if t.kind != ir.BCONST else None
    if tree is None:
        return
    box = [{"x": x, "y": y} for x in range(lo, lo + 6) for y in range(lo2, lo2 + 6)]
    if extremes.proves(tree, lambda c: all(evaluate(c, pt) for pt in box)):
        assert all(evaluate(t, pt) for pt in box)


def test_a_nest_bounded_by_one_argument() -> None:
    """``4*Max(Max(x, 2*(x//2)), y) >= 2*y`` on ``y >= 0``: one ``or`` branch, ``4*y >= 2*y``."""
    t = ir.mk_ge(ir.mk_mul(ir.mk_int(4), ir.mk_max(ir.mk_max(X, ir.mk_mul(ir.mk_int(2), ir.mk_floordiv(X, ir.mk_int(2)))), Y)),
                 ir.mk_mul(ir.mk_int(2), Y))
    tree = extremes.split(t)
    assert tree is not None and tree[0] == "or"  # type: ignore[index]
    assert extremes.proves(tree, lambda c: all(evaluate(c, {"x": x, "y": y}) for x in range(-9, 9) for y in range(9)))


@settings(max_examples=300, deadline=None)
@given(nests, nests, st.sampled_from(RELS))
def test_conjuncts_are_consequences(a: Term, b: Term, rel: object) -> None:
    t = rel(a, b)  # type: ignore[operator]
    if t.kind == ir.BCONST:
        return
    parts = extremes.conjuncts(t)
    for x in range(-7, 8):
        for y in range(-7, 8, 2):
            pt = {"x": x, "y": y}
            if evaluate(t, pt):
                assert all(evaluate(c, pt) for c in parts), (t, pt)
