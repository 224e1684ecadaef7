"""SMT-LIB terms, scripts and export (``solver.syntax.smtlib_script``): meaning, errors with locations, round trips."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from small_problems import Expr, Small, holds, small_problems

from symguard.solver import run
from symguard.solver.errors import BadInput, ParseError, TooLargeError, UnsupportedError
from symguard.solver.ir import terms as ir
from symguard.solver.syntax.export import problem_to_smt2
from symguard.solver.syntax.smtlib_script import parse_term, script_problem
from symguard.solver.syntax.sympy_reader import parse_sympy


def _euclid(a: int, b: int) -> tuple[int, int]:
    """SMT-LIB div/mod, from the standard's definition: a = b*q + r, 0 <= r < |b|."""
    r = a % abs(b)
    return (a - r) // b, r


# ------------------------------------------------------------------ terms

@pytest.mark.parametrize(("smt", "sympy"), [
    ("(<= x 5)", "x <= 5"),
    ("(< x (- 5))", "x < -5"),
    ("(> (+ x y 1) (* 2 z))", "x + y + 1 > 2*z"),
    ("(- x y z)", "x - y - z"),
    ("(- x)", "-x"),
    ("(< 0 x y 9)", "0 < x < y < 9"),
    ("(= x y z)", "And(Eq(x, y), Eq(y, z))"),
    ("(distinct x y z)", "And(Ne(x, y), Ne(x, z), Ne(y, z))"),
    ("(=> (> x 0) (> y 0) (> z 0))", "Implies(x > 0, Implies(y > 0, z > 0))"),
    ("(xor (> x 0) (> y 0))", "Not(Eq(x > 0, y > 0))"),
    ("(ite (> x 0) (>= y 1) (>= z 1))", "Or(And(x > 0, y >= 1), And(x <= 0, z >= 1))"),
    ("(= (abs x) (ite (>= x y) x y))", "Eq(Abs(x), Piecewise((x, x >= y), (y, True)))"),
    ("(let ((a (+ x 1))) (let ((a (* a a))) (> a x)))", "(x + 1)*(x + 1) > x"),
    ("(! (>= x 0) :named foo :weight 3)", "x >= 0"),
    ("(>= |x| |the y|)", "x >= y"),
    ("(and)", "True"),
    ("(or (not true) false)", "False"),
])
def test_terms_mean_the_same_as_sympy(smt: str, sympy: str) -> None:
    got = parse_term(smt).term
    want = parse_sympy(sympy.replace("the y", "the_y")).term
    if "|the y|" in smt:
        want = ir.mk_ge(ir.mk_sym("x"), ir.mk_sym("the y"))
    assert got is want


def test_div_mod_are_euclidean_with_divisor_domain() -> None:
    p = parse_term("(= (+ (div x y) (mod x 3)) 0)")
    x, y = ir.mk_sym("x"), ir.mk_sym("y")
    assert p.term is ir.mk_eq(ir.mk_add(ir.mk_ediv(x, y), ir.mk_emod(x, ir.mk_int(3))), ir.ZERO)
    assert p.domain is ir.mk_ne(y, ir.ZERO)
    q = parse_term("(div x y 2)")  # left-associative
    assert q.term is ir.mk_ediv(ir.mk_ediv(x, y), ir.mk_int(2))
    assert parse_term("(div (- 7) (- 2))").term is ir.mk_int(_euclid(-7, -2)[0])


def test_bool_constants_by_sort_ascription() -> None:
    p = parse_term("(and (as p Bool) (> (as x Int) 0))")
    assert p.term is ir.mk_and(ir.mk_bsym("p"), ir.mk_gt(ir.mk_sym("x"), ir.ZERO))


def test_let_sharing_does_not_blow_up() -> None:
    depth = 400  # x_{i+1} = 2*x_i + 1: a tree of 2^400 leaves, a DAG of 400 nodes
    body = "".join(f"(let ((x{i + 1} (+ x{i} x{i} 1))) " for i in range(depth))
    term = parse_term(f"{body}(> x{depth} 0){')' * depth}").term
    assert term.kind == ir.LE and term.size < 20


@pytest.mark.parametrize(("text", "cls", "offset", "word"), [
    ("(/ x 2)", UnsupportedError, 0, "real division"),
    ("(+ x 1.5)", UnsupportedError, 5, "real literal"),
    ("(to_real x)", UnsupportedError, 0, "to_real"),
    ("(forall ((y Int)) (> y x))", UnsupportedError, 0, "forall"),
    ("(> (f x) 0)", UnsupportedError, 3, "'f'"),
    ("(= ((_ extract 1 0) x) #b01)", UnsupportedError, 4, "indexed"),
    ("(> x #x0f)", UnsupportedError, 5, "bit-vector"),
    ("(select a 1)", UnsupportedError, 0, "arrays"),
    ("(+ x 1", ParseError, 0, "unbalanced"),
    ("(+ x 1))", ParseError, 7, "unexpected"),
    ("(> x 1) (< x 3)", ParseError, 8, "after the end"),
    ("", ParseError, 0, "empty"),
    ("()", ParseError, 0, "empty application"),
    ("(and x (> x 1))", ParseError, 5, "Bool"),
    ("(+ (> x 1) 2)", ParseError, 3, "Int"),
    ("(let ((a 1) (a 2)) a)", ParseError, 12, "twice"),
    ("(ite (> x 0) 1 (> x 1))", ParseError, 0, "different sorts"),
    ("(> x 00)", ParseError, 5, "leading zero"),
    ("(> x |unterminated)", ParseError, 5, "unterminated"),
    ("(+ x \u00e9)", ParseError, 5, "invalid character"),
    ("(> .q0 1)", ParseError, 3, "reserved"),
    ("(< x +)", ParseError, 5, "function"),
])
def test_term_errors_name_the_construct_and_offset(text: str, cls: type, offset: int, word: str) -> None:
    with pytest.raises(cls) as e:
        parse_term(text)
    assert e.value.offset == offset
    assert word in e.value.message


def test_deep_nesting_is_too_large_not_a_crash() -> None:
    with pytest.raises(TooLargeError):
        parse_term("(+ " * 20_000 + "1" + ")" * 20_000)
    deep = "(- " * 3000 + "x" + ")" * 3000  # deep but within limits: read iteratively
    assert parse_term(f"(> {deep} 0)").term is ir.mk_gt(ir.mk_sym("x"), ir.ZERO)


def test_load_problem_locates_smtlib_errors() -> None:
    with pytest.raises(UnsupportedError) as e:
        run("solve", {"syntax": "smtlib", "guards": ["(> x 0)", "(> (/ x 2) 0)"]})
    assert e.value.where == "guards[1]" and e.value.offset == 3


# ------------------------------------------------------------------ semantics through the pipeline

def _pinned(pairs: list[tuple[int, int]], exprs: dict[str, str], syntax: str) -> dict[str, Any]:
    symbols: dict[str, Any] = {}
    guards = []
    for i, (a, b) in enumerate(pairs):
        symbols[f"a{i}"] = {"min": a, "max": a}
        symbols[f"b{i}"] = {"min": b, "max": b}
        for k, e in exprs.items():
            symbols[f"{k}{i}"] = {"min": None}
            guards.append(e.format(a=f"a{i}", b=f"b{i}", v=f"{k}{i}"))
    return {"syntax": syntax, "symbols": symbols, "guards": guards, "options": {"timeout_ms": 60_000}}


GRID = [(a, b) for a in range(-7, 8) for b in (-3, -2, -1, 1, 2, 3)]


def test_euclidean_div_mod_through_solve() -> None:
    doc = _pinned(GRID, {"q": "(= {v} (div {a} {b}))", "r": "(= {v} (mod {a} {b}))"}, "smtlib")
    res = run("solve", doc)
    assert res["status"] == "sat"
    m = res["model"]
    for i, (a, b) in enumerate(GRID):
        assert (m[f"q{i}"], m[f"r{i}"]) == _euclid(a, b), (a, b)


@pytest.mark.parametrize("b", [0, 3, -3])
def test_zero_divisor_makes_the_assertion_false(b: int) -> None:
    doc = {"syntax": "smtlib", "symbols": {"x": {"min": None}, "y": {"min": b, "max": b}},
           "guards": ["(= (mod x y) (mod x y))"]}
    assert run("solve", doc)["status"] == ("unsat" if b == 0 else "sat")


def test_exported_floor_division_keeps_python_semantics() -> None:
    """FloorDiv/Mod/Max/Min written as Euclidean div/mod/ite mean exactly what Python computes."""
    exprs = {"q": "Eq({v}, FloorDiv({a}, {b}))", "r": "Eq({v}, Mod({a}, {b}))",
             "c": "Eq({v}, CeilDiv({a}, {b}))", "t": "Eq({v}, TruncDiv({a}, {b}))",
             "m": "Eq({v}, Max({a}, {b}) - Min({a}, 2*{b}))"}
    doc = _pinned(GRID, exprs, "sympy")
    back = script_problem(problem_to_smt2(doc))
    back["options"]["timeout_ms"] = 60_000
    res = run("solve", back)
    assert res["status"] == "sat"
    m = res["model"]
    for i, (a, b) in enumerate(GRID):
        assert m[f"q{i}"] == a // b and m[f"r{i}"] == a % b, (a, b)
        assert m[f"c{i}"] == -((-a) // b) and m[f"t{i}"] == int(a / b), (a, b)
        assert m[f"m{i}"] == max(a, b) - min(a, 2 * b)


# ------------------------------------------------------------------ scripts

SCRIPT = """\
(set-logic QF_NIA)
(set-option :produce-models true)
(declare-const x Int)
(declare-fun y () Int)
(declare-const flag Bool)
(define-fun half ((v Int)) Int (div v 2))
(define-fun big () Bool (> x 100))
(assert (>= (half x) y))
(push 1)
(assert (! (> x 1000) :named discarded))
(pop 1)
(assert (! (let ((s (+ x y))) (> s 10)) :named g_sum))
(assert (! (=> flag big) :named |g flag|))
(check-sat)
(assert (! (< x 0) :named after_check))
"""


def test_script_problem_document() -> None:
    doc = script_problem(SCRIPT)
    assert doc["syntax"] == "smtlib" and doc["symbols"] == {"x": {"min": None}, "y": {"min": None}}
    assert [g["id"] for g in doc["guards"]] == ["g_sum", "g flag"]
    assert len(doc["asserts"]) == 1
    assert "(as flag Bool)" in doc["guards"][1]["expr"]
    res = run("solve", doc)
    assert res["status"] == "sat"
    m = res["model"]
    assert m["x"] // 2 >= m["y"] and m["x"] + m["y"] > 10 and (not m["flag"] or m["x"] > 100)
    assert run("solve", script_problem(SCRIPT.replace("(check-sat)", "")))["status"] == "unsat"


def test_named_guards_redundancy() -> None:
    text = """(declare-const n Int)
(assert (>= n 0))
(assert (! (>= n 16) :named ge16))
(assert (! (>= n 8) :named ge8))
(assert (! (= (mod n 8) 0) :named mult8))
(assert (! (>= n (- 1)) :named trivial))
"""
    res = run("redundancy", script_problem(text))
    verdicts = {g["id"]: g["verdict"] for g in res["guards"]}
    assert verdicts == {"ge16": "required", "ge8": "redundant", "mult8": "required", "trivial": "always_true"}
    assert res["minimal"] == ["ge16", "mult8"]


def test_assert_ids_avoid_named_labels() -> None:
    doc = script_problem("(declare-const x Int)(declare-const y Int)(assert (> x y))(assert (! (> x 1) :named a0))")
    assert doc["asserts"][0]["id"] == "a0_" and doc["guards"][0]["id"] == "a0"
    assert run("solve", doc)["status"] == "sat"


@pytest.mark.parametrize(("text", "cls", "where", "word"), [
    ("(declare-const x Int)\n(assert (> x 0)\n", ParseError, "line 2", "unbalanced"),
    ("(declare-const x Int)\n(assert (> y 0))", ParseError, "line 2", "unknown symbol"),
    ("(declare-fun f (Int) Int)", UnsupportedError, "line 1", "uninterpreted function"),
    ("(declare-const r Real)", UnsupportedError, "line 1", "Real"),
    ("(declare-const x Int)\n\n(assert (+ x 1))", ParseError, "line 3", "Bool"),
    ("(declare-const x Int)(declare-const x Int)", ParseError, "line 1", "already declared"),
    ("(push 1)(pop 2)", ParseError, "line 1", "pop 2"),
    ("(declare-const x Int)\n(assert (! (> x 0) :named g))\n(assert (! (> x 1) :named g))", ParseError,
     "line 3", "already used"),
    ("(check-sat-assuming (p))", UnsupportedError, "line 1", "check-sat-assuming"),
    ("(declare-const x Int)\n(assert (exists ((y Int)) (> y x)))", UnsupportedError, "line 2", "exists"),
    ("x", ParseError, "line 1", "command"),
])
def test_script_errors_say_where(text: str, cls: type, where: str, word: str) -> None:
    with pytest.raises(cls) as e:
        script_problem(text)
    assert e.value.where == where and word in e.value.message
    assert e.value.offset is not None and 0 <= e.value.offset <= len(text)


def test_script_error_offset_points_into_the_script() -> None:
    text = "(declare-const x Int)\n(assert (> (/ x 2) 0))"
    with pytest.raises(UnsupportedError) as e:
        script_problem(text)
    assert text[e.value.offset:].startswith("(/ x 2)")


def test_define_fun_macros_are_closed_memoized_and_bounded() -> None:
    lines = ["(declare-const x Int)", "(define-fun f0 ((v Int)) Int (+ v 1))"]
    for i in range(1, 300):  # f_i = 2 f_{i-1} - f_{i-1}: exponential walking without the memo
        lines.append(f"(define-fun f{i} ((v Int)) Int (- (+ (f{i - 1} v) (f{i - 1} v)) (f{i - 1} v)))")
    lines.append("(assert (! (> (f299 x) 0) :named g))")
    doc = script_problem("\n".join(lines))
    assert parse_term(doc["guards"][0]["expr"]).term is ir.mk_gt(ir.mk_add(ir.mk_sym("x"), ir.ONE), ir.ZERO)
    # a macro body does not see the caller's let names
    with pytest.raises(ParseError):
        script_problem("(define-fun g ((v Int)) Int (+ v w))(assert (let ((w 1)) (> (g 1) 0)))")
    # genuinely exponential terms are refused, not built
    big = ["(declare-const x Int)", "(define-fun h0 ((v Int)) Int (* v v))"]
    big += [f"(define-fun h{i} ((v Int)) Int (* (h{i - 1} v) (h{i - 1} (+ v 1))))" for i in range(1, 40)]
    big.append("(assert (> (h39 x) 0))")
    with pytest.raises(TooLargeError):
        script_problem("\n".join(big))


@pytest.mark.parametrize("text", [
    "(declare-const x Int)(define-fun f ((v Int)) Int (f v))(assert (> (f x) 0))",
    "(declare-const x Int)(define-fun f ((v Int)) Int (g v))(define-fun g ((v Int)) Int (f v))(assert (> (f x) 0))",
])
def test_recursive_macros_are_refused(text: str) -> None:
    with pytest.raises(ParseError, match="before its definition"):
        script_problem(text)


def test_popped_macro_can_be_redefined() -> None:
    text = """(declare-const x Int)
(push 1)
(define-fun f ((v Int)) Int (+ v 1))
(assert (> (f x) 0))
(pop 1)
(define-fun f ((v Int)) Int (- v 1))
(assert (! (> (f x) 0) :named g))
(check-sat)"""
    doc = script_problem(text)
    assert doc["symbols"] == {"x": {"min": None}} and doc["asserts"] == []
    assert parse_term(doc["guards"][0]["expr"]).term is ir.mk_gt(ir.mk_sym("x"), ir.ONE)


def test_nullary_macro_keeps_its_divisor_domain() -> None:
    doc = script_problem("(declare-const x Int)(declare-const y Int)(define-fun k () Int (div x y))"
                         "(assert (= y 0))(assert (! (= k k) :named g))")
    assert run("solve", doc)["status"] == "unsat"


# ------------------------------------------------------------------ export and round trip

def test_single_symbol_bounds_become_ranges() -> None:
    doc = script_problem("(declare-const x Int)(declare-const y Int)(declare-const |z.1| Int)"
                         "(assert (and (<= 1 x 64) (> y x)))(assert (= y 5))(assert (>= (* 2 x) 5))"
                         "(assert (> |z.1| 0))(assert (! (> x 2) :named g))")
    assert doc["symbols"] == {"x": {"min": 3, "max": 64}, "y": {"min": 5, "max": 5}}
    assert len(doc["asserts"]) == 2  # y > x, and the bound on a name JSON cannot declare
    contradictory = script_problem("(declare-const x Int)(assert (> x 5))(assert (< x 3))")
    assert contradictory["symbols"] == {"x": {"min": None}} and len(contradictory["asserts"]) == 2
    assert run("solve", contradictory)["status"] == "unsat"


def test_export_declares_ranges_and_quotes_ids() -> None:
    text = problem_to_smt2({"symbols": {"s0": {"min": 2, "max": 64, "hint": 8}},
                            "guards": [{"id": "x y", "expr": "s0 // 3 >= 2"}], "queries": ["s0 + 1"]})
    assert "(declare-const s0 Int)" in text and "(assert (<= 2 s0 64))" in text
    assert ":named |x y|" in text and text.rstrip().endswith("(check-sat)")
    assert '; symguard: hints = {"s0": 8}' in text
    assert script_problem(text)["guards"][0]["id"] == "x y"


def test_export_refuses_symbols_named_like_smtlib_functions() -> None:
    with pytest.raises(UnsupportedError) as e:
        problem_to_smt2({"guards": ["div >= 2"]})
    assert e.value.where == "symbols.div"


def test_export_of_smtlib_problem_round_trips_bools() -> None:
    doc = script_problem(SCRIPT)
    again = script_problem(problem_to_smt2(doc))
    assert [g["id"] for g in again["guards"]] == ["g_sum", "g flag"]
    assert run("solve", again)["status"] == "sat"


def _verdicts(res: dict[str, Any]) -> dict[str, str]:
    return {g["id"]: g["verdict"] for g in res["guards"]}


_TWINS = Small(  # g1 and g2 are the same guard on [0, 2]; the SMT-LIB spelling of g1 reaches z3
    doc={"symbols": {"s0": {"min": 0, "max": 2}}, "guards": ["Ne(s0, 1)", "Ne(s0, ((s0)//((-2))))", "Ne(s0, 0)"]},
    boxes={"s0": (0, 2)},
    guards=(Expr("Ne(s0, 1)", lambda e: e["s0"] != 1), Expr("Ne(s0, s0//-2)", lambda e: e["s0"] != e["s0"] // -2),
            Expr("Ne(s0, 0)", lambda e: e["s0"] != 0)))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_problems(hints=False))
@example(_TWINS)
def test_round_trip_keeps_solve_and_redundancy_answers(sp: Small) -> None:
    doc = dict(sp.doc, options={"timeout_ms": 20_000, "prefer": "order"})
    back = script_problem(problem_to_smt2(doc))
    back["options"] = {**back["options"], "timeout_ms": 20_000, "prefer": "order"}
    a, b = run("solve", doc), run("solve", back)
    assert a["status"] == b["status"] or "unknown" in (a["status"], b["status"])
    feasible = sp.feasible()
    assert (b["status"] == "sat") == bool(feasible) or b["status"] == "unknown"
    if b["status"] == "sat":
        assert {k: b["model"][k] for k in sp.boxes} in feasible
    ra, rb = run("redundancy", doc), run("redundancy", back)
    va, vb = _verdicts(ra), _verdicts(rb)
    assert set(va) == set(vb) and ra["status"] == rb["status"] or "unknown" in (ra["status"], rb["status"])
    if ra["status"] == "unsat":  # everything follows from false: only always_false is pinned
        va = {k: v for k, v in va.items() if "always_false" in (v, vb[k])}
        vb = {k: vb[k] for k in va}
        ra["minimal"] = rb["minimal"] = None
    for k in va:  # always true / false is the guard's meaning: the same on both sides
        if "unknown" not in (va[k], vb[k]) and "always" in va[k] + vb[k]:
            assert va[k] == vb[k], (k, va, vb)
    if ra["status"] == "sat" and "unknown" not in (*va.values(), *vb.values()):
        # which of two equivalent guards goes first may differ (the levers before z3 run over the
        # whole order first, and a spelling one of them cannot read reaches z3 instead): each side's
        # minimal set must still accept exactly the shapes the whole set accepts
        for res in (ra, rb):
            kept = [g for k, g in enumerate(sp.guards) if f"g{k}" in res["minimal"]]
            assert [e for e in sp.points() if all(holds(g.fn, e) for g in kept)] == feasible, (va, vb)


_TOKENS = ["(", ")", "(", ")", " ", "x", "y", "p", "0", "7", "-", "+", "*", "div", "mod", "abs", "<=", "=",
           "and", "not", "ite", "let", "!", ":named", "as", "Int", "Bool", "|q|", "1.5", "\"s\"", "_", "f",
           "assert", "declare-const", "define-fun", "push", "pop", "check-sat", ";c\n", "distinct", "=>"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_TOKENS), max_size=40).map(" ".join))
def test_garbage_is_bad_input_never_a_crash(text: str) -> None:
    for fn in (parse_term, script_problem):
        try:
            fn(text)
        except BadInput as e:
            assert e.offset is None or 0 <= e.offset <= len(text)


def test_nested_lets_that_multiply_the_tree_are_too_large() -> None:
    """A ``let`` names a term used three times; nested 25 deep the tree is ~200 million nodes and
    writing it out exhausted the memory (an internal error): now a clear ``too_large`` with the
    assertion's offset, while 18 levels (1.6 million nodes) are still read."""
    def script(depth: int) -> str:
        opens, prev = "", "x"
        for d in range(depth):
            opens += f"(let ((v{d} (ite (> {prev} {d}) (- {prev} {d}) (- {d} {prev})))) "
            prev = f"v{d}"
        return f"(declare-fun x () Int)\n(assert {opens}(> {prev} 3){')' * depth})\n(check-sat)\n"

    assert script_problem(script(18))["asserts"]
    with pytest.raises(TooLargeError) as e:
        script_problem(script(25))
    assert e.value.offset == 31
