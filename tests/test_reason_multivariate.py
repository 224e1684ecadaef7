"""``reason.multivariate`` against brute force: every implication it proves holds at every point of
a box of two or three symbols with negatives and zero (sums, products, quotients, Max/Min and
one-symbol polynomials of division chains), every counterexample it names is one, the
Swin relations between two sizes' chains are decided (issue 25), and so are the same relations
multiplied by a dynamic batch (three symbols)."""

from __future__ import annotations

import pytest
from chain_strategies import chains
from hypothesis import given, settings
from hypothesis import strategies as st

from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import evaluate
from symguard.solver.ir.terms import Term
from symguard.solver.reason import facts, multivariate, multivariate_poly, rewrite
from symguard.solver.syntax.sympy_reader import parse_sympy


@st.composite
def sides(draw: st.DrawFn, third: bool = False) -> Term:
    """Sums and products of chains of ``x`` and ``y`` (with ``third``, some scaled by a chain of
    ``z``: the batch), and their quotients by such products."""
    a, b = draw(chains("x", 0, 3)), draw(chains("y", 0, 3))
    shape = draw(st.sampled_from(["prod", "sum", "lin", "div", "mod", "one", "square", "max", "min", "divrem", "maxone"]
                                 + (["batch", "batchdiv"] if third else [])))
    k = ir.mk_int(draw(st.integers(-3, 4)))
    if shape in ("max", "min"):
        return (ir.mk_max if shape == "max" else ir.mk_min)(a, ir.mk_add(b, k))
    if shape == "maxone":  # VitDet's padded window counts: Max(1, q) times another count (issue 33)
        return ir.mk_mul(ir.mk_max(ir.ONE, ir.mk_add(a, k)), ir.mk_max(ir.ONE, b))
    if shape == "divrem":  # a product plus a small remainder, divided by (or modulo) one factor
        num = ir.mk_add(ir.mk_mul(ir.mk_add(a, k), b), ir.mk_int(draw(st.integers(-3, 3))))
        return draw(st.sampled_from([ir.mk_floordiv, ir.mk_mod]))(num, b)
    if shape == "square":  # a one-symbol polynomial: an equation with few integer roots
        return ir.mk_add(ir.mk_mul(a, a), ir.mk_mul(k, a))
    if shape in ("batch", "batchdiv"):
        z = draw(chains("z", 0, 3))
        prod = ir.mk_mul(ir.mk_add(a, k), b)
        num = ir.mk_add(ir.mk_mul(z, prod), ir.mk_int(draw(st.integers(-2, 2))))
        if shape == "batch":
            return num
        return draw(st.sampled_from([ir.mk_floordiv, ir.mk_mod]))(num, draw(st.sampled_from([prod, b])))
    if shape == "prod":
        return ir.mk_mul(ir.mk_add(a, k), b)
    if shape == "sum":
        return ir.mk_add(ir.mk_mul(k, a), b)
    if shape == "lin":
        return ir.mk_add(ir.mk_mul(a, b), ir.mk_mul(k, a))
    if shape in ("div", "mod"):
        num = ir.mk_mul(ir.mk_int(draw(st.integers(1, 4))), a, b)
        den = draw(st.sampled_from([a, b, ir.mk_int(draw(st.integers(1, 5)))]))
        return ir.mk_floordiv(num, den) if shape == "div" else ir.mk_mod(num, den)
    return a


@st.composite
def comparisons(draw: st.DrawFn, third: bool = False) -> Term:
    mk = draw(st.sampled_from([ir.mk_le, ir.mk_eq, ir.mk_ne, ir.mk_lt]))
    return mk(draw(sides(third)), draw(sides(third)))


def _box(draw: st.DrawFn, names: tuple[str, ...] = ("x", "y"), span: int = 24) -> dict[str, tuple[int, int]]:
    out = {}
    for n in names:
        lo = draw(st.integers(-30, 30))
        out[n] = (lo, lo + draw(st.integers(0, span)))
    return out


def _holds(t: Term, pt: dict[str, int]) -> bool:
    try:
        return bool(evaluate(t, pt))
    except ZeroDivisionError:
        return False


@settings(max_examples=500, deadline=None)
@given(comparisons(), st.lists(comparisons(), max_size=2), st.data())
def test_every_answer_agrees_with_brute_force(goal: Term, fs: list[Term], data: st.DataObject) -> None:
    box = _box(data.draw)
    got = multivariate.counterexample(goal, fs, box, {"x": 7, "y": -3})
    if got is None:
        return
    found, pt = got
    points = [{"x": x, "y": y} for x in range(box["x"][0], box["x"][1] + 1)
              for y in range(box["y"][0], box["y"][1] + 1)]
    bad = [p for p in points if all(_holds(f, p) for f in fs) and not _holds(goal, p)]
    assert found == bool(bad), (goal, fs, box, bad[:3])
    if pt is not None:  # the symbols no atom names are free: any value will do
        pt = {"x": box["x"][0], "y": box["y"][0], **pt}
        assert box["x"][0] <= pt["x"] <= box["x"][1] and box["y"][0] <= pt["y"] <= box["y"][1]
        assert pt in bad


@settings(max_examples=300, deadline=None)
@given(comparisons(), st.lists(comparisons(), max_size=2), st.integers(-20, 20), st.integers(-20, 20))
def test_unbounded_above_implications_hold_on_a_window(goal: Term, fs: list[Term], lx: int, ly: int) -> None:
    """Ranges open above (sizes): an implication must hold on any window; a named point is one."""
    got = multivariate.counterexample(goal, fs, {"x": (lx, None), "y": (ly, None)}, None)
    if got is None:
        return
    found, pt = got
    if pt is not None:
        pt = {"x": lx, "y": ly, **pt}
        assert pt["x"] >= lx and pt["y"] >= ly
        assert all(_holds(f, pt) for f in fs) and not _holds(goal, pt)
    if not found:
        for x in range(lx, lx + 40):
            for y in range(ly, ly + 40):
                p = {"x": x, "y": y}
                assert not all(_holds(f, p) for f in fs) or _holds(goal, p), (goal, fs, p)


def _can(text: str) -> Term:
    rw = rewrite.Rewriter(facts.facts_env({"x": (2, None), "y": (2, None)}, []), collapse=True)
    return rw.rewrite(parse_sympy(text).term)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([2, 4, 8, 16]))
def test_patch_merging_across_two_sizes(a: int) -> None:
    """``(x//a + 1)*(y//a + 1) == 4*(x//2a + 1)*(y//2a + 1)`` says both quotients by ``a`` are odd."""
    rel = _can(f"Eq((x//{a} + 1)*(y//{a} + 1), 4*(x//{2 * a} + 1)*(y//{2 * a} + 1))")
    odd_x, odd_y = _can(f"Eq(Mod(x//{a}, 2), 1)"), _can(f"Eq(Mod(y//{a}, 2), 1)")
    ranges = {"x": (2, None), "y": (2, None)}
    assert multivariate.counterexample(odd_x, [rel], ranges) == (False, None)
    assert multivariate.counterexample(odd_y, [rel], ranges) == (False, None)
    assert multivariate.counterexample(rel, [odd_x, odd_y], ranges) == (False, None)
    found, pt = multivariate.counterexample(rel, [odd_x], ranges, {"x": 121, "y": 117}) or (None, None)
    assert found and pt is not None and not _holds(rel, pt) and _holds(odd_x, pt)
    # the product divided by one of its factors, and taken modulo it
    assert multivariate.counterexample(_can(f"Eq(Mod(4*(x//{2 * a} + 1)*(y//{2 * a} + 1), (x//{a} + 1)*(y//{a} + 1)), 0)"),
                                    [rel], ranges) == (False, None)


@settings(max_examples=400, deadline=None)
@given(comparisons(third=True), st.lists(comparisons(third=True), max_size=2), st.data())
def test_three_symbols_agree_with_brute_force(goal: Term, fs: list[Term], data: st.DataObject) -> None:
    box = _box(data.draw, ("x", "y", "z"), 9)
    got = multivariate.counterexample(goal, fs, box, {"x": 7, "y": -3, "z": 2})
    if got is None:
        return
    found, pt = got
    points = [{"x": x, "y": y, "z": z} for x in range(box["x"][0], box["x"][1] + 1)
              for y in range(box["y"][0], box["y"][1] + 1) for z in range(box["z"][0], box["z"][1] + 1)]
    bad = [p for p in points if all(_holds(f, p) for f in fs) and not _holds(goal, p)]
    assert found == bool(bad), (goal, fs, box, bad[:3])
    if pt is not None:
        pt = {n: box[n][0] for n in box} | pt
        assert all(box[n][0] <= pt[n] <= box[n][1] for n in box)
        assert pt in bad


@settings(max_examples=300, deadline=None)
@given(comparisons(third=True), st.lists(comparisons(third=True), max_size=2), st.integers(1, 600), st.data())
def test_one_three_symbol_walk_leaves_half_the_share(goal: Term, fs: list[Term], share: int,
                                                     data: st.DataObject) -> None:
    """Whatever a walk over three symbols decides, it spends at most half of what is left of the
    set's share for such walks (and the charge of its last comparison): walks that stay open
    cannot starve the ones after them (``WIDE_SPLIT``)."""
    box = _box(data.draw, ("x", "y", "z"), 40)
    memo = multivariate.Memo(wide=share)
    multivariate.counterexample(goal, fs, box, {"x": 7, "y": -3, "z": 2}, memo)
    assert memo.left_wide >= share - share // multivariate.WIDE_SPLIT - multivariate.TIGHT_EXTREMES_COST


_polys = st.dictionaries(st.tuples(st.integers(0, 1), st.integers(0, 1), st.integers(0, 1)),
                         st.integers(-4, 4).filter(bool), min_size=1, max_size=4)


@settings(max_examples=300, deadline=None)
@given(_polys, _polys, _polys)
def test_long_division(w: dict, v: dict, u: dict) -> None:
    """``u == q*v + r`` whenever ``(q, r)`` is returned, and a product ``w*v`` divides exactly."""
    got = multivariate_poly._long_division(u, v)
    if got is not None:
        q, r = got
        assert multivariate_poly._add([u, {m: -c for m, c in multivariate_poly._mul(q, v).items()},
                                  {m: -c for m, c in r.items()}]) == {}
    assert multivariate_poly._long_division(multivariate_poly._mul(w, v), v) == (w, {})


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([2, 4, 8]))
def test_a_dynamic_batch_times_the_window_count(a: int) -> None:
    """The window count times a batch ``b``, divided by (and taken modulo) the window count, under
    the guards that make every padded size a positive multiple: decided with three symbols."""
    ranges = {"x": (2, None), "y": (2, None), "b": (2, None)}
    env = facts.facts_env(ranges, [])
    rw = rewrite.Rewriter(env, collapse=True)
    win = f"((x//{a} + 1)*(y//{a} + 1))"
    for text in (f"Eq(Mod(b*{win}, {win}), 0)", f"Eq((b*{win})//{win}, b)", f"b*{win} >= {win}"):
        goal = rw.rewrite(parse_sympy(text).term)
        if goal is ir.TRUE:
            continue
        assert multivariate.counterexample(goal, [], ranges) == (False, None), text
    wrong = rw.rewrite(parse_sympy(f"Eq(Mod(b*{win}, 4*{win}), 0)").term)
    found, pt = multivariate.counterexample(wrong, [], ranges, {"x": 37, "y": 45, "b": 3}) or (None, None)
    assert found and pt is not None and not _holds(wrong, pt)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.integers(0, 4), st.integers(-30, 30).filter(bool), min_size=1, max_size=4),
       st.integers(-25, 5), st.integers(0, 30))
def test_no_integer_root_means_none_in_the_box(coefs: dict[int, int], lo: int, span: int) -> None:
    """A one-quotient polynomial said to have no integer root in the box has none there."""
    p = {(e, 0): c for e, c in coefs.items()}
    box = ((lo, lo + span), (0, 0))
    if multivariate_poly._no_integer_root(p, box):
        assert all(sum(c * q ** e for e, c in coefs.items()) != 0 for q in range(lo, lo + span + 1))


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.tuples(st.integers(0, 2), st.integers(0, 2)), st.integers(-9, 9), max_size=5),
       st.integers(-5, 5), st.integers(-5, 5), st.integers(0, 4), st.booleans())
def test_pinning_a_quotient_keeps_the_values_on_the_box(p: dict, lo0: int, lo1: int, span: int, pin_second: bool) -> None:
    """``_fix`` (a piece of a cut cell pins a quotient, ``lo == hi``) is the same function on the box."""
    box = ((lo0, lo0 + span), (lo1, lo1) if pin_second else (lo1, lo1 + span))
    fixed = multivariate_poly._fix(p, box)
    for q0 in range(box[0][0], box[0][1] + 1):
        for q1 in range(box[1][0], box[1][1] + 1):
            at = multivariate_poly._at
            assert at(p, [q0, q1]) == at(fixed, [q0, q1])
    if pin_second:
        assert all(m[1] == 0 for m in fixed)


_MONOS = st.sampled_from([(0, 0), (1, 0), (0, 1), (1, 1), (2, 0)])
_POLYS = st.dictionaries(_MONOS, st.integers(-6, 6).filter(bool), max_size=3)
_BOXES = st.tuples(*[st.tuples(st.one_of(st.none(), st.integers(-3, 3)), st.one_of(st.none(), st.integers(3, 9)))] * 2)


def _divided(kind: str, u: multivariate_poly.Poly, v: multivariate_poly.Poly,
             box: multivariate_poly.Box, fn: object) -> object:
    try:
        return fn(kind, u, v, box)  # type: ignore[operator]
    except multivariate_poly._Open:
        return "open"


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([ir.FLOORDIV, ir.MOD]), _POLYS, _POLYS, _BOXES)
def test_remembered_division_is_the_division(kind: str, u: multivariate_poly.Poly, v: multivariate_poly.Poly,
                                             box: multivariate_poly.Box) -> None:
    """``Memo.divide`` answers what ``_divide`` does (a quotient, or open), the first time and
    from memory, whatever the dict order of equal polynomials."""
    memo = multivariate.Memo()
    want = _divided(kind, u, v, box, multivariate_poly._divide)
    assert _divided(kind, u, v, box, memo.divide) == want
    assert _divided(kind, dict(reversed(list(u.items()))), v, box, memo.divide) == want


@settings(max_examples=200, deadline=None)
@given(st.lists(comparisons(), min_size=2, max_size=4), st.lists(comparisons(), max_size=2), st.data())
def test_a_shared_memo_answers_what_a_fresh_one_does(goals: list[Term], fs: list[Term], data: st.DataObject) -> None:
    """One ``Memo`` across the checks of a set (its residue classes, polynomials and divisions
    remembered, goal after goal against the same facts) answers each as a fresh memo would."""
    box = _box(data.draw)
    shared = multivariate.Memo()
    for goal in goals:
        assert multivariate.counterexample(goal, fs, box, {"x": 7, "y": -3}, shared) == \
            multivariate.counterexample(goal, fs, box, {"x": 7, "y": -3}, multivariate.Memo())


def test_a_walk_that_cannot_reach_its_last_cell_gives_up_at_its_pace(monkeypatch: pytest.MonkeyPatch) -> None:
    """1,024 cells (two sizes' classes mod 32), one comparison each: within the default share the
    implication is shown; with a share of 500 the pace at cell 64 already says the walk would run
    out, and it stops there (undecided) instead of at its share."""
    goal = parse_sympy("x//32 + y//32 >= 0").term
    ranges = {"x": (0, None), "y": (0, None)}
    memo = multivariate.Memo()
    assert multivariate.counterexample(goal, [], ranges, None, memo) == (False, None)
    assert multivariate.MAX_TOTAL - memo.left == 32 * 32
    monkeypatch.setattr(multivariate, "MAX_WALK", 500)
    memo = multivariate.Memo()
    assert multivariate.counterexample(goal, [], ranges, None, memo) is None
    assert multivariate.MAX_TOTAL - memo.left == multivariate.PROJECT_FROM
