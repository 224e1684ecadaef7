"""``reason.quasilinear`` against brute force: every collapse is the same function on a box of
integers with negatives and zero, every decided comparison agrees at every point of the range,
and the rewriter's use of both (issue 25: one-symbol division chains of Swin-like models)."""

from __future__ import annotations

import pytest
from chain_strategies import chains
from hypothesis import given, settings
from hypothesis import strategies as st

from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import evaluate
from symguard.solver.ir.terms import Term
from symguard.solver.reason import facts, quasilinear, rewrite
from symguard.solver.syntax.sympy_reader import parse_sympy

X = ir.mk_sym("x")
BOX = range(-70, 71)


def _values(t: Term) -> list[int]:
    return [evaluate(t, {"x": v}) for v in BOX]  # type: ignore[misc]


@settings(max_examples=300, deadline=None)
@given(chains())
def test_shape_is_a_period_and_a_step(t: Term) -> None:
    sh = quasilinear.shape(t)
    if sh is None:
        return
    _, p, s = sh
    for v in range(-20, 21):
        assert evaluate(t, {"x": v + p}) == evaluate(t, {"x": v}) + s  # type: ignore[operator]


@settings(max_examples=400, deadline=None)
@given(chains())
def test_collapse_is_the_same_function(t: Term) -> None:
    c = quasilinear.collapse(t)
    if c is not None:
        assert _values(c) == _values(t)
        assert sum(n.kind == ir.FLOORDIV for n in ir.iter_dag(c)) <= 1


@settings(max_examples=300, deadline=None)
@given(chains(), chains(), st.integers(-40, 40), st.integers(0, 60))
def test_two_chains_collapse_to_one_term_exactly_when_equal(a: Term, b: Term, lo: int, width: int) -> None:
    ca, cb = quasilinear.collapse(a), quasilinear.collapse(b)
    if ca is not None and cb is not None and _values(a) == _values(b):
        sa, sb = quasilinear.shape(a), quasilinear.shape(b)
        if sa is not None and sb is not None and sa[2] * sb[1] == sb[2] * sa[1]:
            assert _values(ca) == _values(cb)


@settings(max_examples=400, deadline=None)
@given(chains(), st.integers(-60, 60), st.integers(0, 80), st.integers(-6, 6))
def test_value_range_is_exact_on_the_range(t: Term, lo: int, width: int, shift: int) -> None:
    e = ir.mk_add(t, ir.mk_int(shift))
    got = quasilinear.value_range(e, lo, lo + width)
    if got is None:
        return
    vals = [evaluate(e, {"x": v}) for v in range(lo, lo + width + 1)]
    assert got == (any(v <= 0 for v in vals), any(v > 0 for v in vals), any(v == 0 for v in vals))  # type: ignore[operator]


@settings(max_examples=300, deadline=None)
@given(chains(), chains(), st.sampled_from(["le", "eq", "ne", "lt"]), st.integers(-30, 30), st.integers(0, 50),
       st.booleans())
def test_the_rewriter_keeps_every_comparison_of_chains(a: Term, b: Term, op: str, lo: int, width: int,
                                                        collapse: bool) -> None:
    mk = {"le": ir.mk_le, "eq": ir.mk_eq, "ne": ir.mk_ne, "lt": ir.mk_lt}[op]
    g = mk(a, b)
    r = rewrite.Rewriter(facts.facts_env({"x": (lo, lo + width)}, []), collapse=collapse).rewrite(g)
    for v in range(lo, lo + width + 1):
        assert evaluate(r, {"x": v}) == evaluate(g, {"x": v}), (v, g, r)


@pytest.mark.parametrize(("text", "same"), [
    ("(x//4)//2", "x//8"),
    ("CeilDiv(CeilDiv(x, 4), 2)", "CeilDiv(x, 8)"),
    ("(x + Mod(-x, 7))//7", "CeilDiv(x, 7)"),
    ("((x + 3)//4 + 1)//2", "(x + 7)//8"),
    ("x - Mod(x, 7)", "7*(x//7)"),
    ("((x - Mod(x, 4))//4 + Mod((x - Mod(x, 4))//4 + 1, 2))//2", "x//8"),
])
def test_the_spellings_of_one_quantity_get_one_term(text: str, same: str) -> None:
    rw = rewrite.Rewriter(facts.facts_env({"x": (None, None)}, []), collapse=True)
    assert rw.rewrite(parse_sympy(text).term) is rw.rewrite(parse_sympy(same).term)


def test_products_of_collapsed_chains_cancel() -> None:
    """A product divided by one of its factors, spelled another way: the other factor."""
    env = facts.facts_env({"x": (16, 1024), "y": (16, 1024)}, [])
    rw = rewrite.Rewriter(env, collapse=True)
    p = "((x//4 + Mod(x//4 + 1, 2) - 1)//2 + 1)*((y - Mod(y, 4))//8 + 1)"
    t = parse_sympy(f"({p})//((x - Mod(x, 4))//8 + 1)").term
    assert rw.rewrite(t) is rw.rewrite(parse_sympy("y//8 + 1").term)
    assert rw.rewrite(parse_sympy(f"Eq(Mod({p}, (x - Mod(x, 4))//8 + 1), 0)").term) is ir.TRUE


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(chains(), st.sampled_from(["le", "eq", "ne", "lt"]), st.integers(-6, 6)), min_size=1,
                max_size=4),
       st.integers(-40, 40), st.integers(0, 70), st.booleans())
def test_implied_agrees_with_brute_force(atoms: list[tuple[Term, str, int]], lo: int, width: int,
                                         bounded: bool) -> None:
    mk = {"le": ir.mk_le, "eq": ir.mk_eq, "ne": ir.mk_ne, "lt": ir.mk_lt}
    conds = [mk[op](t, ir.mk_int(k)) for t, op, k in atoms]
    *fs, goal = conds
    hi = lo + width if bounded else None
    got = quasilinear.implied(goal, fs, lo, hi)
    if got is None:
        return
    top = lo + width if bounded else lo + 400
    points = [v for v in range(lo, top + 1) if all(evaluate(f, {"x": v}) for f in fs)]
    fails = [v for v in points if not evaluate(goal, {"x": v})]
    if got:
        assert not fails, (fails[:3], goal, fs)
    elif bounded:
        assert fails, (goal, fs)


_RESIDUE_TERMS = st.builds(
    lambda d, m, c, k: ir.mk_mod(ir.mk_add(ir.mk_mul(ir.mk_int(c), ir.mk_floordiv(X, ir.mk_int(d))), ir.mk_int(k)),
                                 ir.mk_int(m)),
    st.sampled_from([1, 2, 3, 8, 24, 32, 64]), st.sampled_from([2, 3, 6, 9, 10, 24, 64]), st.integers(1, 5),
    st.integers(-7, 7))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.one_of(_RESIDUE_TERMS, chains()), st.sampled_from(["le", "eq", "ne", "lt"]),
                          st.integers(-3, 40)), min_size=1, max_size=5),
       st.integers(-300, 300), st.integers(0, 3000), st.booleans())
def test_lifted_residues_agree_with_brute_force(atoms: list[tuple[Term, str, int]], lo: int, width: int,
                                                force: bool) -> None:
    """Wide periods (``Mod(x//32, 64)``: 2,048) go through ``lift``; ``force`` sends every
    check there (``MAX_CASES`` of 1). Exact on a bounded range, checked point by point."""
    mk = {"le": ir.mk_le, "eq": ir.mk_eq, "ne": ir.mk_ne, "lt": ir.mk_lt}
    conds = [mk[op](t, ir.mk_int(k)) for t, op, k in atoms]
    *fs, goal = conds
    old = quasilinear.MAX_CASES
    quasilinear.MAX_CASES = 1 if force else old
    try:
        got = quasilinear.implied(goal, fs, lo, lo + width)
    finally:
        quasilinear.MAX_CASES = old
    if got is None:
        return
    fails = [v for v in range(lo, lo + width + 1)
             if all(evaluate(f, {"x": v}) for f in fs) and not evaluate(goal, {"x": v})]
    assert got == (not fails), (fails[:3], goal, fs)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_RESIDUE_TERMS, st.sampled_from(["eq", "ne", "le", "gt"]), st.integers(0, 12)),
                min_size=1, max_size=4))
def test_lift_keeps_exactly_the_admitted_residues(atoms: list[tuple[Term, str, int]]) -> None:
    parts = []
    for t, rel, k in atoms:
        e = ir.mk_add(t, ir.mk_int(-k))
        sh = quasilinear.wide_shape(e)
        assert sh is not None and sh[2] == 0  # a residue of x: step 0
        parts.append((rel, sh[1], sh[2], quasilinear.table(e, sh)))
    got = quasilinear.lift(parts)
    if got is None:
        return
    L, res = got
    want = [r for r in range(L) if all(quasilinear.rel_holds(rel, evaluate(ir.mk_add(t, ir.mk_int(-k)), {"x": r}))
                                       for t, rel, k in atoms)]  # type: ignore[arg-type]
    assert sorted(res) == want
