"""``reason.regions`` against brute force on small integer boxes (negatives and zero included):
bounds hold at every point, relaxed formulas hold wherever their comparison does (and are the
comparison exactly when it has no product), Fourier–Motzkin never calls a system with a point
contradictory and reads back only points of it, and ``decide`` proves only true implications,
from the facts it names, and returns only real counterexamples."""

from __future__ import annotations

import itertools

from guard_grammar import X, Y, linear_leaves
from hypothesis import given, settings
from hypothesis import strategies as st

from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import evaluate
from symguard.solver.ir.terms import Term
from symguard.solver.reason import regions
from symguard.solver.reason.meter import Meter

BOX = range(-6, 7)


def _nests(products: bool) -> st.SearchStrategy[Term]:
    def grow(inner: st.SearchStrategy[Term]) -> st.SearchStrategy[Term]:
        parts = [
            st.builds(lambda a: ir.mk_max(*a), st.lists(inner, min_size=2, max_size=3)),
            st.builds(lambda a: ir.mk_min(*a), st.lists(inner, min_size=2, max_size=3)),
            st.builds(lambda a, c: ir.mk_mul(ir.mk_int(c), a), inner, st.integers(-3, 3)),
            st.builds(lambda a, d: ir.mk_floordiv(a, ir.mk_int(d)), inner, st.integers(1, 4)),
            st.builds(lambda a, m: ir.mk_mod(a, ir.mk_int(m)), inner, st.integers(1, 4)),
            st.builds(ir.mk_add, inner, inner)]
        if products:
            parts += [
                st.builds(lambda a, b: ir.mk_mul(ir.mk_max(ir.ONE, a), ir.mk_max(ir.ONE, b)), inner, inner),
                st.builds(lambda a, b, m: ir.mk_mul(a, ir.mk_mod(b, ir.mk_int(m))), inner, inner, st.integers(1, 4))]
        return st.one_of(*parts)
    return st.recursive(linear_leaves(), grow, max_leaves=7)


nests = _nests(True)
linear_nests = _nests(False)
RELS = [ir.mk_le, ir.mk_lt, ir.mk_eq, ir.mk_ne, ir.mk_ge]


def _points() -> list[dict[str, int]]:
    return [{"x": x, "y": y} for x in BOX for y in BOX]


def _truth(t: Term, pt: dict[str, int]) -> bool:
    return bool(evaluate(t, pt))


def _full_holds(f: regions.Formula, cache: regions.Cache, pt: dict[str, int]) -> bool:
    return regions._holds(f, cache.extend(pt))


@settings(max_examples=300, deadline=None)
@given(nests)
def test_bounds_hold_everywhere(t: Term) -> None:
    cache = regions.Cache()
    lows, highs = regions.bounds(t, cache)
    for pt in _points():
        full = cache.extend(pt)
        v = evaluate(t, pt)
        for lo in lows:
            assert lo[1] + sum(c * full[x] for x, c in lo[0]) <= v, (t, pt, lo)
        for hi in highs:
            assert hi[1] + sum(c * full[x] for x, c in hi[0]) >= v, (t, pt, hi)


@settings(max_examples=300, deadline=None)
@given(nests, nests, st.sampled_from(RELS))
def test_the_relaxed_formula_holds_where_the_comparison_does(a: Term, b: Term, rel: object) -> None:
    t = rel(a, b)  # type: ignore[operator]
    for cond in (t, ir.mk_not(t)):
        cache = regions.Cache()
        f = regions.formula(cond, 0, cache)
        for pt in _points():
            if _truth(cond, pt):
                assert _full_holds(f, cache, pt), (cond, pt)


@settings(max_examples=300, deadline=None)
@given(linear_nests, linear_nests, st.sampled_from(RELS))
def test_without_products_the_formula_is_the_comparison(a: Term, b: Term, rel: object) -> None:
    """Quotients and extremes as exact auxiliary variables: the rows at their values are the comparison."""
    t = rel(a, b)  # type: ignore[operator]
    for cond in (t, ir.mk_not(t)):
        cache = regions.Cache()
        f = regions.formula(cond, 0, cache)
        for pt in _points():
            assert _full_holds(f, cache, pt) == _truth(cond, pt), (cond, pt)


rows3 = st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3), st.integers(-3, 3), st.integers(-8, 8)),
                 min_size=1, max_size=7)


@settings(max_examples=400, deadline=None)
@given(rows3)
def test_elimination_against_the_box(raw: list[tuple[int, int, int, int]]) -> None:
    names = ["a", "b", "c"]
    rows: list[regions.Row] = []
    for k, (p, q, r, b) in enumerate(raw):
        rows.append(({"a": p, "b": q, "c": r}, b, 1 << k))
    for x in names:  # a box |x| <= 4, no sources
        rows += [({x: 1}, 4, 0), ({x: -1}, 4, 0)]
    box = list(itertools.product(range(-4, 5), repeat=3))

    def sat(rs: list[regions.Row], v: tuple[int, ...]) -> bool:
        pt = dict(zip(names, v))
        return all(sum(c * pt[x] for x, c in co.items()) <= b for co, b, _ in rs)

    feasible, got = regions.eliminate(rows, names, {"a": 0, "b": 0, "c": 0}, Meter(10**6), [10**6])
    if not feasible:
        named = [r for r in rows if r[2] == 0 or r[2] & got]  # type: ignore[operator]
        assert not any(sat(named, v) for v in box), raw  # the named rows alone contradict
    elif isinstance(got, dict):
        assert sat(rows, tuple(got[x] for x in names)), (raw, got)


@settings(max_examples=250, deadline=None)
@given(nests, nests, st.sampled_from(RELS), st.lists(st.tuples(nests, nests, st.sampled_from(RELS)), max_size=3))
def test_decide_against_brute_force(a: Term, b: Term, rel: object, raw: list[tuple[Term, Term, object]]) -> None:
    goal = rel(a, b)  # type: ignore[operator]
    facts = [(r(p, q), j) for j, (p, q, r) in enumerate(raw)]  # type: ignore[operator]
    if goal.kind == ir.BCONST or any(f.kind == ir.BCONST for f, _ in facts):
        return
    ranges = {"x": (-6, 6), "y": (-6, 6)}
    pts = _points()

    def accept(pt: dict[str, int]) -> bool:
        return not _truth(goal, pt) and all(_truth(f, pt) for f, _ in facts)

    got = regions.decide(goal, facts, ranges, {"x": 1, "y": 2}, 20_000, Meter(10**6), accept)
    if got is None:
        return
    found, what = got
    if found:
        assert isinstance(what, dict) and accept(what) and all(-6 <= what[x] <= 6 for x in "xy")
    else:
        named = [f for f, j in facts if j in what]  # type: ignore[operator]
        for pt in pts:
            if all(_truth(f, pt) for f in named):
                assert _truth(goal, pt), (goal, named, pt)


def test_a_nest_equality_needing_two_symbols_moved_together() -> None:
    """``Max(x, 3*y - z) == y`` fails the guard ``Ne`` only where ``z = 2*y`` and ``x <= y``: the
    region system finds such a point (the kept guards hold there too)."""
    x, y, z = ir.mk_sym("x"), ir.mk_sym("y"), ir.mk_sym("z")
    goal = ir.mk_ne(ir.mk_max(x, ir.mk_sub(ir.mk_mul(ir.mk_int(3), y), z)), y)
    facts = [(ir.mk_ge(x, ir.mk_int(2)), 0), (ir.mk_ge(z, ir.mk_add(y, ir.mk_int(5))), 1)]
    ranges = {"x": (2, None), "y": (2, None), "z": (2, None)}

    def accept(pt: dict[str, int]) -> bool:
        return not _truth(goal, pt) and all(_truth(f, pt) for f, _ in facts)

    got = regions.decide(goal, facts, ranges, {"x": 40, "y": 10, "z": 17}, 20_000, Meter(10**6), accept)
    assert got is not None and got[0] and accept(got[1])  # type: ignore[arg-type]


def test_an_implication_through_a_nest_names_its_fact() -> None:
    """``Min(x, y//4) >= 3`` implies ``x + y >= 15``; the unrelated fact is not named."""
    x, y = X, Y
    goal = ir.mk_ge(ir.mk_add(x, y), ir.mk_int(15))
    facts = [(ir.mk_ge(ir.mk_min(x, ir.mk_floordiv(y, ir.mk_int(4))), ir.mk_int(3)), 0), (ir.mk_le(x, ir.mk_int(100)), 1)]
    got = regions.decide(goal, facts, {"x": (None, None), "y": (None, None)}, {"x": 5, "y": 20}, 20_000,
                         Meter(10**6))
    assert got == (False, {0})


def test_the_budget_is_counted() -> None:
    """Past its work the search is undecided, and the pass meter is charged what it spent."""
    goal = ir.mk_ge(ir.mk_add(X, Y), ir.mk_int(15))
    facts = [(ir.mk_ge(ir.mk_min(X, ir.mk_floordiv(Y, ir.mk_int(4))), ir.mk_int(3)), 0)]
    meter = Meter(10**6)
    assert regions.decide(goal, facts, {"x": (None, None), "y": (None, None)}, {"x": 5, "y": 20}, 1, meter) is None
    assert meter.left < 10**6


def test_a_rational_region_without_integer_points_is_branched_on() -> None:
    """``3a - 2b <= 6``, ``3a + 5b <= -3``, ``3a - b >= 4`` have rational points (``a = 2/3``,
    ``b = -2``) and no integer one: the elimination reads back a rational point, and the search
    splits a fractional variable at its floor until every integer case contradicts."""
    a, b = ir.mk_sym("a"), ir.mk_sym("b")

    def lin(p: int, q: int) -> Term:
        return ir.mk_add(ir.mk_mul(ir.mk_int(p), a), ir.mk_mul(ir.mk_int(q), b))

    facts = [(ir.mk_le(lin(3, -2), ir.mk_int(6)), 0), (ir.mk_le(lin(3, 5), ir.mk_int(-3)), 1),
             (ir.mk_ge(lin(3, -1), ir.mk_int(4)), 2)]
    rows = [({"a": 3, "b": -2}, 6, 1), ({"a": 3, "b": 5}, -3, 2), ({"a": -3, "b": 1}, -4, 4)]
    rows += [({x: s}, 6, 0) for x in "ab" for s in (1, -1)]
    feasible, got = regions.eliminate(rows, ["a", "b"], {"a": 0, "b": 0}, Meter(10**6), [10**6])
    assert feasible and isinstance(got, dict) and any(v.denominator != 1 for v in got.values())  # type: ignore[union-attr]
    assert all(sum(c * got[x] for x, c in co.items()) <= r for co, r, _ in rows)
    goal = ir.mk_ge(a, ir.mk_int(7))  # false on the whole box: implied only as the facts contradict
    ranges = {"a": (-6, 6), "b": (-6, 6)}
    assert regions.decide(goal, facts, ranges, {"a": 0, "b": 0}, 20_000, Meter(10**6)) == (False, {0, 1, 2})


@settings(max_examples=300, deadline=None)
@given(linear_nests)
def test_dominated_arguments_leave_a_covering_choice(t: Term) -> None:
    """The or-node "the extreme is one of its arguments" without the arguments another bounds
    (``Cache.choice``) still holds at every point of the lower bounds, for every Max/Min of the
    nest (the nested ones too)."""
    cache = regions.Cache({"x": -2, "y": 1})
    regions.bounds(t, cache)
    pts = [cache.extend({"x": x, "y": y}) for x in range(-2, 9) for y in range(1, 12)]
    for name in list(cache.def_ors):
        node = cache.choice(name, Meter(10**6), [])
        assert node and len(node) <= len(cache.def_ors[name])
        for pt in pts:
            assert any(regions._holds(part, pt) for part in node), (t, name, pt)
