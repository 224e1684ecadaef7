"""The round-2 rule modules on their own, against brute force (hypothesis): ``index_algebra``,
``simplify_algebra``, ``simplify_divisibility``, ``simplify_equalities``. Every rewrite they
return must equal its input at every point of a box with negatives and zero (where the input is
defined), and never hold more divisions."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import evaluate, holds
from symguard.solver.reason import index_algebra
from symguard.solver.reason import simplify_algebra as alg
from symguard.solver.reason.simplify_divisibility import Divisibility
from symguard.solver.reason.simplify_equalities import replacements, substitute
from symguard.solver.syntax.sympy_reader import parse_sympy

BOX = [{"x": x, "y": y} for x, y in itertools.product(range(-20, 21), range(-4, 5))]


def term(text: str) -> ir.Term:
    return parse_sympy(text).term


def same(a: ir.Term, b: ir.Term, box: list[dict[str, int]] = BOX) -> None:
    dom = parse_domain(a)
    for pt in box:
        if holds(dom, pt):
            assert evaluate(a, pt) == evaluate(b, pt), (a, b, pt)


def parse_domain(t: ir.Term) -> ir.Term:
    return ir.mk_and(*(ir.mk_ne(d.args[1], ir.ZERO) for d in ir.divisions_of(t)))


def divs(t: ir.Term) -> int:
    return len(ir.divisions_of(t))


radix = st.sampled_from([1, 2, 3, 4, 6, 8])
coef = st.sampled_from([-3, -1, 1, 2, 5])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(radix, st.sampled_from([2, 3, 4, 0]), coef), min_size=2, max_size=4),
       st.sampled_from(["x", "x + 3*y", "x - 1"]), st.integers(-3, 3))
def test_merge_digits_is_an_identity(parts: list[tuple[int, int, int]], base: str, k: int) -> None:
    b = term(base)
    mono = [(index_algebra.Digit(b, lo, None if m == 0 else lo * m).term(), c) for lo, m, c in parts]
    coefs: dict[ir.Term, int] = {}
    for t, c in mono:
        if t.kind != ir.CONST:
            coefs[t] = coefs.get(t, 0) + c
    got = index_algebra.merge_digits(coefs, k)
    if got is not None:
        src = ir.from_linear(coefs, k)
        same(src, got)
        assert divs(got) < divs(src)


@settings(max_examples=100, deadline=None)
@given(radix, st.sampled_from([2, 4, 8, 12, 16]), st.sampled_from([1, 2, 3, 4, 8]), st.sampled_from(["x", "x + 3*y"]))
def test_split_is_an_identity(lo: int, m: int, k: int, base: str) -> None:
    src = ir.mk_floordiv(index_algebra.Digit(term(base), lo, lo * m).term(), ir.mk_int(k))
    got = index_algebra.split(src)
    if got is not None:
        same(src, got)


ints = st.sampled_from(["x", "y", "2*x", "x + y", "3*x - 2*y", "x//3", "Mod(x, 4)", "Max(x, y)", "Min(x, 2*y)",
                        "x + 1", "8*x + 7", "x - Mod(x, y)", "x + 3"])


@settings(max_examples=50, deadline=None)
@given(ints, ints, st.sampled_from([2, 3, 4, 8, 16]), st.integers(-9, 9), st.sampled_from(["<=", "<", ">=", ">", "=="]))
def test_identity_rules(a: str, b: str, d: int, k: int, rel: str) -> None:
    cands = [f"({a})//{d}", f"Mod({a}, {d})", f"Mod(3*Mod({a}, {2 * d}) + {b}, {d})", f"Mod({a} - Mod({a}, y), y)",
             f"({d}*({a}) + {k})//{2 * d}", f"(({a}) + {abs(k)})//{d} - ({a})//{d}", f"Max({a}, {b}) + Min({a}, {b})",
             f"Max({a}, {b})*Min({a}, {b})*{k}", f"Max({a} + {k}, {b} + {k})", f"Min({a}, Max({a}, {b}))",
             f"Max({d}*({a}), {d}*({b}))", f"Min({a}, {b} + 1) - 1", f"{k}*Max({a}, {b}) - {k}*Max(-({a}), -({b}))",
             f"Min({a}, {b}) - Min(-({a}), -({b})) + {d}"]
    bounds = interval_on_box
    for text in cands:
        t = term(text)
        for rule in (alg.floordiv_gcd, alg.mod_of_residues, alg.extremes_in_product, alg.lattice):
            got = rule(t)
            if got is not None:
                same(t, got)
        got = alg.two_valued(t, bounds)
        if got is not None:
            same(t, got)
        coefs, const = ir.linear(t)
        for got in (alg.extremes_in_sum(coefs, const), alg.quotient_pairs(coefs, const, bounds)):
            if got is not None:
                same(t, got)
    for text in (f"({a})//{d} {rel} {k}", f"{d}*({a}) + Mod(y, {d}) {rel} {k}", f"-({a})//{d} + {b} {rel} 0"):
        t = term(text)
        for got in (alg.compare_division(t), alg.compare_bounded(t, bounds)):
            if got is not None:
                same(t, got)


def _quotient_pairs_by_construction(coefs: dict[ir.Term, int], const: int, bounds: alg.Bounds) -> ir.Term | None:
    """``quotient_pairs`` as it read before it stopped building terms to decide (the difference of
    the arguments by ``mk_sub``, the new quotient by ``mk_floordiv`` handed to ``two_valued``)."""
    divs = [(n, v) for n, v in coefs.items() if n.kind == ir.FLOORDIV and n.args[1].kind == ir.CONST
            and n.args[1].value > 0]
    for n, v in divs:
        for p, w in divs:
            if p is n or w != -v or p.args[1].value != n.args[1].value:
                continue
            diff = ir.mk_sub(n.args[0], p.args[0])
            if diff.kind != ir.CONST or diff.value <= 0:
                continue
            d, r = n.args[1].value, diff.value
            inner = ir.mk_floordiv(ir.mk_add(ir.mk_mod(p.args[0], n.args[1]), ir.mk_int(r % d)), n.args[1])
            line = alg.two_valued(inner, bounds) if inner.kind == ir.FLOORDIV else inner
            if line is None:
                continue
            rest = {q: u for q, u in coefs.items() if q is not n and q is not p}
            return ir.mk_add(ir.from_linear(rest, const), ir.mk_mul(ir.mk_int(v), ir.mk_add(ir.mk_int(r // d), line)))
    return None


@settings(max_examples=80, deadline=None)
@given(ints, ints, st.sampled_from([2, 3, 4, 8, 16]), st.integers(-20, 20), st.integers(-3, 3))
def test_quotient_pairs_answers_as_by_construction(a: str, b: str, d: int, r: int, c: int) -> None:
    for text in (f"{c}*(({a}) + {r})//{d} - {c}*({a})//{d} + {b}", f"(({a}) + {r})//{d} - ({b})//{d}",
                 f"({a})//{d} - (({a}) + {r})//{d}"):
        coefs, const = ir.linear(term(text))
        assert alg.quotient_pairs(coefs, const, interval_on_box) is \
            _quotient_pairs_by_construction(coefs, const, interval_on_box), text


def interval_on_box(t: ir.Term) -> tuple[int | None, int | None]:
    """Exact bounds of ``t`` over ``BOX`` (a sound interval there)."""
    dom = parse_domain(t)
    vals = [evaluate(t, pt) for pt in BOX if holds(dom, pt)]
    return (min(vals), max(vals)) if vals else (None, None)


conds = st.sampled_from(["x <= 3", "x >= 5", "x <= 5", "x >= 3", "Eq(x, 4)", "Ne(x, 4)", "Ne(x, 3)", "Eq(x//8, 2)",
                         "Eq(Mod(x, 8), 5)", "Eq(Mod(x, 8), 9)", "y >= 1", "Eq(y, 2)", "Ne(x + y, 3)", "Eq(x, 1)",
                         "x >= -7", "x <= 13", "x >= 16", "x <= 20", "Eq(Mod(x, 8), 4)", "Eq(Mod(x, 3), 0)"])


@settings(max_examples=200, deadline=None)
@given(st.lists(conds, min_size=2, max_size=4), st.booleans())
def test_conjunctions_and_disjunctions(parts: list[str], disjoin: bool) -> None:
    t = (ir.mk_or if disjoin else ir.mk_and)(*(term(p) for p in parts))
    got = alg.disjunction(t) if disjoin else alg.conjunction(t)
    if got is not None:
        same(t, got)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from([2, 3, 4, 7]), st.sampled_from([2, 3, 4]), st.sampled_from(["x*y", "3*x + 6", "x*y + x", "(x//2)*y"]))
def test_divisibility_is_proven_on_the_box(d: int, e: int, expr: str) -> None:
    facts = [term(f"Eq(Mod(x, {d}), 0)"), term(f"Eq(Mod(y, {e}), 0)")]
    div = Divisibility(facts)
    t = term(expr)
    k = div.of(t)
    dom = parse_domain(t)
    for pt in BOX:
        if all(holds(f, pt) for f in facts) and holds(dom, pt):
            assert k == 0 and evaluate(t, pt) == 0 or k and evaluate(t, pt) % k == 0, (expr, k, pt)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.sampled_from(["Eq(x, y)", "Eq(x, 2*y + 1)", "Eq(y, z)", "Eq(x + y, z)", "Eq(2*x, 3*z)",
                                 "Eq(z, 4)"]), min_size=1, max_size=3))
def test_equality_classes_hold_at_every_point(guards: list[str]) -> None:
    facts = [term(g) for g in guards]
    sub = replacements(facts, {"x": 8, "y": 4, "z": 4})
    pts = [{"x": x, "y": y, "z": z} for x, y, z in itertools.product(range(-7, 8), repeat=3)]
    for pt in pts:
        if all(holds(f, pt) for f in facts):
            for v, e in sub.items():
                assert evaluate(e, pt) == pt[v], (guards, v, e, pt)
                assert v not in ir.symbols_of(substitute(e, sub))
