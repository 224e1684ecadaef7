"""``reason.bivariate`` against brute force: every implication it proves holds at every point of a
box of two symbols with negatives and zero, every counterexample it names is one, and the Swin
relations between two sizes' chains are decided (issue 25)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from solver.ir import terms as ir
from solver.ir.pyeval import evaluate
from solver.ir.terms import Term
from solver.reason import bivariate, facts, rewrite
from solver.syntax.sympy_reader import parse_sympy


@st.composite
def chains(draw: st.DrawFn, name: str) -> Term:
    """A one-symbol chain: sums with literals, literal multiples, ``//``/``Mod``/ceilings by
    positive literals, padding to a multiple."""
    x = ir.mk_sym(name)
    t: Term = x
    for _ in range(draw(st.integers(0, 3))):
        op = draw(st.sampled_from(["add", "mul", "floor", "mod", "ceil", "pad"]))
        c = draw(st.integers(1, 6))
        if op == "add":
            t = ir.mk_add(t, ir.mk_int(draw(st.integers(-4, 4))))
        elif op == "mul":
            t = ir.mk_mul(ir.mk_int(draw(st.sampled_from([-2, -1, 2, 3]))), t)
        elif op == "floor":
            t = ir.mk_floordiv(t, ir.mk_int(c))
        elif op == "mod":
            t = ir.mk_mod(t, ir.mk_int(c))
        elif op == "ceil":
            t = ir.mk_ceildiv(t, ir.mk_int(c))
        else:
            t = ir.mk_add(t, ir.mk_mod(ir.mk_neg(t), ir.mk_int(c)))
    return t


@st.composite
def sides(draw: st.DrawFn) -> Term:
    """Sums and products of chains of ``x`` and ``y``, and their quotients by such products."""
    a, b = draw(chains("x")), draw(chains("y"))
    shape = draw(st.sampled_from(["prod", "sum", "lin", "div", "mod", "one"]))
    k = ir.mk_int(draw(st.integers(-3, 4)))
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
def comparisons(draw: st.DrawFn) -> Term:
    mk = draw(st.sampled_from([ir.mk_le, ir.mk_eq, ir.mk_ne, ir.mk_lt]))
    return mk(draw(sides()), draw(sides()))


def _box(draw: st.DrawFn) -> dict[str, tuple[int, int]]:
    out = {}
    for n in ("x", "y"):
        lo = draw(st.integers(-30, 30))
        out[n] = (lo, lo + draw(st.integers(0, 24)))
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
    got = bivariate.counterexample(goal, fs, box, {"x": 7, "y": -3})
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
    got = bivariate.counterexample(goal, fs, {"x": (lx, None), "y": (ly, None)}, None)
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
    assert bivariate.counterexample(odd_x, [rel], ranges) == (False, None)
    assert bivariate.counterexample(odd_y, [rel], ranges) == (False, None)
    assert bivariate.counterexample(rel, [odd_x, odd_y], ranges) == (False, None)
    found, pt = bivariate.counterexample(rel, [odd_x], ranges, {"x": 121, "y": 117}) or (None, None)
    assert found and pt is not None and not _holds(rel, pt) and _holds(odd_x, pt)
    # the product divided by one of its factors, and taken modulo it
    assert bivariate.counterexample(_can(f"Eq(Mod(4*(x//{2 * a} + 1)*(y//{2 * a} + 1), (x//{a} + 1)*(y//{a} + 1)), 0)"),
                                    [rel], ranges) == (False, None)
