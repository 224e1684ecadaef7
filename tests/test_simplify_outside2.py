"""The second outside set (``tests/simplify_outside2_cases.py``) and the rules it led to.

Every case: ``simplify``'s form is proved and never costlier than the input; as simple as the
expected form (weighted, ``ops + 3*divs``) except the known misses below, each with its reason.
Each expected form is checked against its input on a small grid by an evaluator apart from
symguard's reader (``bench/simplify_outside2.py --check`` runs the full grid).

Then a brute-force property test per algebraic claim of the new rules: ``index_algebra``'s digit
differences, Hermite's complete residues, ``Max - Min``, a remainder by the divisor itself, a
polynomial's residue over one period, powers of a term in ``[-1, 1]`` and a select on
divisibility: each rewrite equals its input at every point of a box with negatives and zero
where the input is defined.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from simplify_outside2_cases import CASES
from simplify_outside2_check import Case, check, weighted

from symguard.solver import run
from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import evaluate, holds
from symguard.solver.ops.simplify_cost import no_costlier
from symguard.solver.reason import index_algebra
from symguard.solver.reason import simplify_algebra as alg
from symguard.solver.reason import simplify_identities as ident
from symguard.solver.syntax.sympy_reader import parse_sympy
from symguard.solver.syntax.sympy_writer import cost

# Not as simple as expected, and why (everything else must be).
KNOWN_MISSES = {
    # Held out, missed at the one measurement (after the rules were written; none added for them):
    "fold15": "2*x + 2*y stays expanded, as PyTorch prints it (docs/simplify.md: a plain sum's common constant)",
    "trunc17": "TruncMod(x, 2)**2: the square of a term in [-1, 1] is its absolute value; no rule reads it",
}


def problem(case: Case) -> dict[str, object]:
    _, _, syms, asserts, ranges, expr, _ = case
    entry: dict[str, object] = {"id": "e", "expr": expr}
    if ranges:
        entry["ranges"] = dict(ranges)
    return {"symbols": {n: {"min": lo, "max": hi} for n, (lo, hi) in syms.items()},
            "asserts": list(asserts), "exprs": [entry]}


def test_every_case() -> None:
    bad = []
    for case in CASES:
        row = run("simplify", problem(case))["exprs"][0]
        form, want, expr = row["form"], case[6], case[5]
        if not row["proved"] or not no_costlier(cost(form), cost(expr)):
            bad.append(f"{case[0]}: {expr} -> {form} (proved {row['proved']})")
        simple = weighted(cost(form)) <= weighted(cost(want))
        if simple == (case[0] in KNOWN_MISSES):
            bad.append(f"{case[0]}: {expr} -> {form}, want {want}" + (" (a known miss now met)" if simple else ""))
    assert not bad, "\n".join(bad)


def test_expectations_by_brute_force() -> None:
    bad = [f"{c[0]}: {why}" for c in CASES for ok, why in [check(c, scale=0.1)] if not ok]
    assert not bad, "\n".join(bad)


# ------------------------------------------------------------------ the rules, by brute force

BOX = [{"x": x, "y": y} for x, y in itertools.product(range(-17, 18), range(-4, 5))]


def term(text: str) -> ir.Term:
    return parse_sympy(text).term


def same(a: ir.Term, b: ir.Term) -> None:
    dom = ir.mk_and(*(ir.mk_ne(d.args[1], ir.ZERO) for d in ir.divisions_of(a)))
    for pt in BOX:
        if holds(dom, pt):
            assert evaluate(a, pt) == evaluate(b, pt), (a, b, pt)


def on_box(t: ir.Term) -> tuple[int | None, int | None]:
    """Exact bounds of ``t`` over ``BOX`` (a sound interval there)."""
    dom = ir.mk_and(*(ir.mk_ne(d.args[1], ir.ZERO) for d in ir.divisions_of(t)))
    vals = [evaluate(t, pt) for pt in BOX if holds(dom, pt)]
    return (min(vals), max(vals)) if vals else (None, None)


bases = st.sampled_from(["x", "x + 3*y", "x - 1", "2*x + y"])
ints = st.sampled_from(["x", "y", "2*x", "x + y", "3*x - 2*y", "x//3", "Mod(x, 4)", "Max(x, y)", "x*y", "x + 1"])


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([1, 2, 3, 4]), st.sampled_from([2, 3, 4]), st.sampled_from([0, 2, 3, 4]),
       st.sampled_from([-2, -1, 1, 3]), bases, st.integers(-3, 3), st.booleans())
def test_digit_differences(lo: int, k: int, m: int, c: int, base: str, const: int, noise: bool) -> None:
    """``c*D(x, a, e) - c*(b/a)*D(x, b, e) = c*D(x, a, b)`` (and pairs that do not match left)."""
    b = term(base)
    hi = None if m == 0 else lo * k * m
    whole = index_algebra.Digit(b, lo, hi).term()
    high = index_algebra.Digit(b, lo * k, hi).term()
    coefs = {whole: c, high: -c * k if not noise else c}
    if index_algebra.digit(whole) is None or index_algebra.digit(high) is None or whole is high:
        return  # D(x, 1, ∞) is x itself: the rewriter's ``x - d*(x//d)``
    src = ir.from_linear(coefs, const)
    got = index_algebra.digit_differences(coefs, const)
    if not noise:
        assert got is not None
    if got is not None:
        same(src, got)
        assert len(ir.divisions_of(got)) <= len(ir.divisions_of(src))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([2, 3, 4, 5]), st.sampled_from([1, -1, 3]), ints,
       st.lists(st.integers(-2, 2), min_size=5, max_size=5), st.booleans(), st.integers(-4, 4))
def test_complete_residues(d: int, v: int, a: str, shifts: list[int], drop: bool, const: int) -> None:
    """Hermite: ``Σ_{r} (A + r + d*k_r)//d = A + Σ k_r`` over one of each residue ``r``."""
    parts = [f"{v}*(({a}) + {r + d * shifts[r]})//{d}" for r in range(d)]
    if drop:
        parts = parts[1:]
    src = term(" + ".join(parts) + f" + {const}")
    coefs, k = ir.linear(src)
    got = ident.complete_residues(coefs, k)
    if got is not None:
        same(src, got)


@settings(max_examples=40, deadline=None)
@given(ints, ints, st.sampled_from([1, -2, 3]), st.integers(-3, 3))
def test_max_less_min(a: str, b: str, v: int, k: int) -> None:
    src = term(f"{v}*Max({a}, {b}) - {v}*Min({a}, {b}) + {k}")
    coefs, const = ir.linear(src)
    got = alg.extremes_in_sum(coefs, const)
    if got is not None:
        same(src, got)


@settings(max_examples=30, deadline=None)
@given(ints, ints, st.sampled_from(["y", "-3", "3", "y + 1", "x - y", "2*y"]), st.sampled_from([1, -1, 2]))
def test_quotient_of_remainders(a: str, r: str, b: str, c: int) -> None:
    for text in (f"Mod({a}, {b})//({b})", f"({c}*({a}) - {c}*Mod({a}, {b}) + {r})//({b})",
                 f"({c}*({a}) - {c}*Mod({a}, {b}))//({b})"):
        src = term(text)
        if src.kind != ir.FLOORDIV:
            continue
        got = ident.quotient_of_remainders(src)
        if got is not None:
            same(src, got)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["x*(x + 1)", "x**3 - x", "x*y*(x + y)", "x**2 + y**2", "Mod(x, 3)*(Mod(x, 3) + 1)",
                        "x*(x + 1)*(x + 2)", "(x//2)*(x//2 + 1)", "x**2", "x*y + x"]),
       st.sampled_from([2, 3, 4, 6]), st.integers(-3, 3))
def test_polynomial_residue(p: str, d: int, k: int) -> None:
    src = term(f"Mod({p} + {k}, {d})")
    if src.kind != ir.MOD:
        return
    got = ident.polynomial_residue(src)
    if got is not None:
        assert got.kind == ir.CONST
        same(src, got)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["Mod(x, 2)", "Mod(x, 3) - 1", "Mod(x, 2) - 1", "Mod(x, 3)", "x//100", "Max(Min(x, 1), -1)"]),
       st.integers(2, 5), st.sampled_from(["1", "y", "x"]))
def test_small_powers(t: str, k: int, other: str) -> None:
    src = term(f"({t})**{k}*{other}")
    got = alg.small_powers(src, on_box)
    if got is not None:
        same(src, got)


@settings(max_examples=25, deadline=None)
@given(bases, st.sampled_from([2, 3, 4, 8]), ints, st.integers(-3, 3))
def test_select_on_divisibility(x: str, d: int, a: str, k: int) -> None:
    """The indicator is 0 exactly where ``d | x`` and 1 elsewhere; simplify's form of the select is
    equal to it on the box."""
    cond = term(f"Eq(Mod({x}, {d}), 0)")
    ind = ident.divisibility_indicator(cond)
    if cond.kind == ir.EQ:
        assert ind is not None
        same(ir.mk_ite(cond, ir.ZERO, ir.ONE), ind)
    text = f"Piecewise(({a}, Eq(Mod({x}, {d}), 0)), ({a} + {k}, True))"
    res = run("simplify", {"symbols": {"x": {"min": None}, "y": {"min": None}}, "exprs": [text]})["exprs"][0]
    assert res["proved"]
    same(term(text), term(res["form"]))


@pytest.mark.parametrize(("text", "form"), [
    ("x//4 - 2*(x//8)", "ModularIndexing(x, 4, 2)"),
    ("x//3 + (x + 1)//3 + (x + 2)//3", "x"),
    ("(x - Mod(x, y))//y", "x//y"),
    ("Mod(x*(x + 1), 2)", "0"),
    ("Piecewise((x//4, Eq(Mod(x, 4), 0)), (x//4 + 1, True))", "CeilDiv(x, 4)"),
])
def test_new_classes_end_to_end(text: str, form: str) -> None:
    res = run("simplify", {"symbols": {"x": {"min": None}, "y": {"min": 1}}, "exprs": [text]})["exprs"][0]
    assert res["proved"] and weighted(cost(res["form"])) <= weighted(cost(form)), res
