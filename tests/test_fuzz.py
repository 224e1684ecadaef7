"""Fuzzing the input boundary: whatever a client sends, only documented errors come out.

The parsers (sympy text, SMT-LIB terms and scripts) and the JSON schema (``load_problem``) get
random text, mutated real guards, random expression trees and random JSON. Every call must
either succeed or raise a ``BadInput`` subclass (docs/problem-format.md §5) — never another exception. Resource
bombs must be refused with ``too_large`` (the per-test timeout catches a hang; no timed asserts).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symguard.solver import load_problem, run
from symguard.solver.errors import BadInput, TooLargeError
from symguard.solver.syntax.export import problem_to_smt2
from symguard.solver.syntax.smtlib_script import parse_term, script_problem
from symguard.solver.syntax.sympy_reader import parse_sympy

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
# SYMGUARD_FUZZ_EXAMPLES scales every fuzz test up for a long local run (CI keeps the default)
EXAMPLES = int(os.environ.get("SYMGUARD_FUZZ_EXAMPLES", "300"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                database=None)


def documented(fn: Callable[..., Any], *args: Any) -> Any:
    """Call ``fn``; a ``BadInput`` is a fine answer, any other exception fails the test."""
    try:
        return fn(*args)
    except BadInput as e:
        body = e.to_json()["error"]
        assert body["code"] in ("parse_error", "unsupported", "invalid_problem", "too_large")
        assert body["message"] and "Traceback" not in body["message"]
        return None


def _corpus_guards() -> list[str]:
    out = ["Eq(Mod(s0, 8), 0)", "s0 <= 8*s1", "Ne(s1, 1)", "FloorDiv(s0*4, 2) > s1",
           "Piecewise((s0, s0 > 2), (1, True)) >= 1", "ModularIndexing(s0, 2, 4) < 3",
           "(s0 >= 2) & (s1 < 7) | ~(s2 > 1)", "CeilDiv(s0, 3) == TruncDiv(-s1, 2)",
           "Max(1, s0//2, Min(s1, 3))*Abs(s2 - 4) != 1", "PowByNatural(s0, 3) >= s1**2"]
    for f in sorted(SHARED.glob("corpus_sample/*.json")):
        doc = json.loads(f.read_text())
        out += [g if isinstance(g, str) else g["expr"] for g in doc.get("guards", [])[:40]]
    return out


GUARDS = _corpus_guards()
CHARS = "s0123456789 +-*/%()<>=!&|~,._eEqNMaxinodFlrDvPwcgTuF\t\n[]{}:'\"#@$^\\"

# ------------------------------------------------------------------ mutation


@st.composite
def mutated(draw: st.DrawFn, seeds: list[str], alphabet: str) -> str:
    text = draw(st.sampled_from(seeds))
    for _ in range(draw(st.integers(1, 4))):
        if not text:
            break
        i = draw(st.integers(0, len(text) - 1))
        j = draw(st.integers(i, min(len(text), i + 8)))
        op = draw(st.sampled_from(["delete", "insert", "replace", "dup", "swap"]))
        if op == "delete":
            text = text[:i] + text[j:]
        elif op == "insert":
            text = text[:i] + draw(st.text(alphabet, min_size=1, max_size=4)) + text[i:]
        elif op == "replace":
            text = text[:i] + draw(st.sampled_from(alphabet)) + text[i + 1:]
        elif op == "dup":
            text = text[:j] + text[i:j] + text[j:]
        else:
            k = draw(st.integers(0, len(text)))
            text = text[:i] + text[k:] + text[i:k] if k > i else text
    return text


# ------------------------------------------------------------------ random sympy trees

FUNCS = ["Eq", "Ne", "Lt", "Le", "Gt", "Ge", "And", "Or", "Not", "Implies", "Abs", "Max", "Min", "Mod",
         "PythonMod", "FloorDiv", "CleanDiv", "CeilDiv", "TruncDiv", "TruncMod", "ModularIndexing", "floor", "ceiling",
         "PowByNatural", "pow_by_natural", "Piecewise", "sqrt", "ToFloat", "OpaqueUnaryFn_exp", "Pow",
         "Equality", "__import__", "eval"]
LEAVES = st.one_of(
    st.sampled_from(["s0", "s1", "s2", "True", "False", "oo", "zoo", "x_1", "__class__", "None"]),
    st.integers(-10**6, 10**6).map(str), st.integers(-10**60, 10**60).map(str),
    st.sampled_from(["1.5", "'a'", "b'x'", "...", "[1]", "{}", "lambda: 1", "s0.attr", "s0[0]", "f'x'"]),
)


def _combine(kids: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    binop = st.tuples(kids, st.sampled_from(["+", "-", "*", "//", "%", "/", "**", "<", "<=", "==", "!=",
                                             ">", ">=", "&", "|", "and", "or", "@", "<<", "^", "is", "in"]),
                      kids).map(lambda t: f"({t[0]} {t[1]} {t[2]})")
    unop = st.tuples(st.sampled_from(["-", "+", "~", "not "]), kids).map(lambda t: f"{t[0]}({t[1]})")
    call = st.tuples(st.sampled_from(FUNCS), st.lists(kids, max_size=4)).map(lambda t: f"{t[0]}({', '.join(t[1])})")
    pair = st.tuples(kids, kids).map(lambda t: f"({t[0]}, {t[1]})")
    pw = st.lists(pair, min_size=1, max_size=3).map(lambda ps: f"Piecewise({', '.join(ps)})")
    return st.one_of(binop, unop, call, pw, kids.map(lambda k: f"floor({k}/s1)"))


SYMPY_TREES = st.recursive(LEAVES, _combine, max_leaves=12)


@FUZZ
@given(st.one_of(st.text(CHARS, max_size=80), st.text(max_size=40)))
def test_sympy_random_text(text: str) -> None:
    documented(parse_sympy, text)


@FUZZ
@given(mutated(GUARDS, CHARS))
def test_sympy_mutated_guards(text: str) -> None:
    documented(parse_sympy, text)


@FUZZ
@given(SYMPY_TREES)
def test_sympy_random_trees(text: str) -> None:
    documented(parse_sympy, text)


# ------------------------------------------------------------------ SMT-LIB

SMT_ATOMS = st.one_of(
    st.sampled_from(["x", "y", "s0", "true", "false", "Int", "Bool", "|odd sym|", ":named", "!", "_",
                     "1.5", "#x1F", "#b101", "\"str\"", "as", "let", "forall", "exists", "(as p Bool)"]),
    st.integers(-5, 10**30).map(str),
)
SMT_HEADS = ["+", "-", "*", "div", "mod", "abs", "<=", "<", ">=", ">", "=", "distinct", "and", "or", "not",
             "=>", "xor", "ite", "let", "!", "/", "select", "bvadd", "f", "to_real"]


def _smt_combine(kids: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    app = st.tuples(st.sampled_from(SMT_HEADS), st.lists(kids, max_size=4)).map(
        lambda t: f"({t[0]} {' '.join(t[1])})")
    let = st.tuples(st.sampled_from(["a", "b", "x"]), kids, kids).map(lambda t: f"(let (({t[0]} {t[1]})) {t[2]})")
    named = st.tuples(kids, st.sampled_from(["g0", "g1", "a"])).map(lambda t: f"(! {t[0]} :named {t[1]})")
    return st.one_of(app, let, named)


SMT_TREES = st.recursive(SMT_ATOMS, _smt_combine, max_leaves=12)
SMT_CHARS = "()xys0123456789 +-*<=>!:|;\"#_\n.abdefgilmnortv"


def _scripts() -> list[str]:
    out = [("(set-logic QF_NIA)(declare-fun x () Int)(declare-const b Bool)(define-fun d ((a Int)) Int (* 2 a))"
           "(assert (>= x 2))(assert (! (= (mod (d x) 4) 0) :named g0))(push 1)(check-sat)(get-model)(pop 1)(exit)")]
    for f in sorted(SHARED.glob("corpus_sample/*.json"))[:4]:
        doc = json.loads(f.read_text())
        doc["guards"] = doc.get("guards", [])[:15]
        out.append(problem_to_smt2({k: v for k, v in doc.items() if k in ("symbols", "asserts", "guards")}))
    return out


SCRIPTS = _scripts()


@FUZZ
@given(st.one_of(SMT_TREES, st.text(SMT_CHARS, max_size=80), mutated(["(>= (+ x (div y 2)) 3)"], SMT_CHARS)))
def test_smtlib_terms(text: str) -> None:
    documented(parse_term, text)


@settings(FUZZ, max_examples=max(1, EXAMPLES * 2 // 5))
@given(mutated(SCRIPTS, SMT_CHARS))
def test_smtlib_mutated_scripts(text: str) -> None:
    doc = documented(script_problem, text)
    if doc is not None:  # a script that reads is a problem document that loads (or is bad input)
        documented(load_problem, doc)


# ------------------------------------------------------------------ the JSON schema

JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=True),
              st.text(max_size=10)),
    lambda kids: st.one_of(st.lists(kids, max_size=4), st.dictionaries(st.text(max_size=6), kids, max_size=4)),
    max_leaves=15,
)
KEYS = ["symbols", "asserts", "guards", "queries", "inputs", "syntax", "options", "source", "bogus"]
OPTION_VALUES = st.fixed_dictionaries({}, optional={
    "timeout_ms": st.one_of(st.integers(-5, 400), JSON), "default_min": st.one_of(st.integers(-3, 3), JSON),
    "on_unsupported": st.sampled_from(["error", "skip", "x"]), "minimize": st.one_of(st.booleans(), JSON),
    "prefer": st.sampled_from(["cheap", "order", 1]), "objective": st.sampled_from(["sum", "max", "lex", None]),
    "preserve_distinct": st.one_of(st.booleans(), st.none(), JSON), "x": JSON})
ENTRY = st.one_of(st.sampled_from(GUARDS[:30]), SYMPY_TREES,
                  st.fixed_dictionaries({"expr": st.sampled_from(GUARDS[:30])}, optional={"id": JSON}), JSON)
SYMBOL = st.one_of(st.none(), JSON, st.fixed_dictionaries({}, optional={
    "min": st.one_of(st.integers(-3, 3), st.none(), JSON), "max": st.one_of(st.integers(0, 9), st.none()),
    "hint": st.integers(-2, 9), "other": JSON}))
PROBLEMS = st.fixed_dictionaries({}, optional={
    "symbols": st.one_of(st.dictionaries(st.sampled_from(["s0", "s1", "s2", "1x", "__r", ""]), SYMBOL, max_size=3),
                         JSON),
    "asserts": st.one_of(st.lists(ENTRY, max_size=3), JSON),
    "guards": st.one_of(st.lists(ENTRY, max_size=4), JSON),
    "queries": st.one_of(st.lists(st.one_of(st.sampled_from(["s0*s1", "s0 > 3", "Max(s0, 2)"]), ENTRY), max_size=2),
                         JSON),
    "inputs": st.one_of(st.dictionaries(st.text(max_size=3), st.lists(st.one_of(st.integers(0, 9), ENTRY),
                                                                         max_size=3), max_size=2), JSON),
    "syntax": st.sampled_from(["sympy", "smtlib", "latex", 3]),
    "options": st.one_of(OPTION_VALUES, JSON),
    "bogus": JSON,
})


@FUZZ
@given(st.one_of(JSON, st.dictionaries(st.sampled_from(KEYS), JSON, max_size=4)))
def test_load_problem_random_json(doc: Any) -> None:
    documented(load_problem, doc)


@settings(FUZZ, max_examples=max(1, EXAMPLES // 4))
@given(PROBLEMS, st.sampled_from(["solve", "redundancy", "evaluate", "shrink"]))
def test_structured_problems_run(doc: dict[str, Any], op: str) -> None:
    """Near-valid documents: bad input is an error; a valid one runs to an answer (short budget)."""
    if documented(load_problem, doc) is None:
        return
    doc = {**doc, "options": {**(doc.get("options") or {}), "timeout_ms": 300}}
    res = documented(run, op, doc)
    if res is not None:
        assert res["status"] in ("sat", "unsat", "unknown")


# ------------------------------------------------------------------ resource bombs

N = 10**5
BOMBS: dict[str, Callable[[], Any]] = {
    "symbolic power s0**10**10": lambda: parse_sympy("s0**10**10 > 1"),
    "constant power 2**10**10": lambda: parse_sympy("2**10**10 > s0"),
    "power of a power (s0+1)**64**64": lambda: parse_sympy("((s0 + 1)**64)**64 > 3"),
    "10^5-deep parentheses": lambda: parse_sympy("(" * N + "s0" + ")" * N + " > 1"),
    "20000-deep parentheses (under the size limit)": lambda: parse_sympy("(" * 20000 + "s0" + ")" * 20000),
    "10^5-deep Max": lambda: parse_sympy("Max(" * N + "s0" + ", 1)" * N + " > 1"),
    "12000-deep Max (under the size limit)": lambda: parse_sympy("Max(" * 12000 + "s0" + ",1)" * 12000),
    "20000 unary minus": lambda: parse_sympy("-" * 20000 + "s0 > 1"),
    "10 MB expression": lambda: parse_sympy("s0 + " * 2_000_000 + "1 > 0"),
    "10 MB guard in a problem": lambda: load_problem({"guards": ["s0 " * 3_500_000]}),
    "10^4-digit literal (sympy)": lambda: parse_sympy("s0 > " + "9" * 10_000),
    "10^4-digit integer (JSON)": lambda: load_problem({"symbols": {"s0": {"min": 10**10_000}}}),
    "10^4-digit literal (SMT-LIB)": lambda: parse_term("(> s " + "9" * 10_000 + ")"),
    "10^5 guards": lambda: load_problem({"guards": ["s0 >= 1"] * N}),
    "10^5 symbols": lambda: load_problem({"symbols": {f"s{i}": {} for i in range(N)}}),
    "SMT-LIB 10^5-deep nesting": lambda: parse_term("(+ " * N + "1" + ")" * N),
    "SMT-LIB deep let": lambda: parse_term("(let ((x0 s0)) " * N + "(> x0 1)" + ")" * N),
    "SMT-LIB let doubling": lambda: script_problem(
        "(declare-const x0 Int)(assert (> " + "".join(f"(let ((x{i + 1} (* x{i} (+ x{i} 1)))) " for i in range(3000))
        + "x3000" + ")" * 3000 + " 1))"),
    "SMT-LIB define-fun expansion": lambda: script_problem(
        "(define-fun f0 ((x Int)) Int x)\n"
        + "".join(f"(define-fun f{i + 1} ((x Int)) Int (* (f{i} x) (f{i} (+ x 1))))\n" for i in range(40))
        + "(declare-const s Int)(assert (> (f40 s) 1))"),
    "SMT-LIB 4096-factor product": lambda: parse_term("(> (* " + "(+ x 1) " * 4096 + ") 3)"),
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", sorted(BOMBS))
def test_resource_bomb_is_too_large(name: str) -> None:
    with pytest.raises(TooLargeError) as err:
        BOMBS[name]()
    assert err.value.to_json()["error"]["code"] == "too_large"


@pytest.mark.timeout(60)
def test_power_bomb_through_run_is_bad_input() -> None:
    """Regression: ((s0+1)**64)**64 parsed, then z3 spent 14 s in assert (outside its 1 s budget)."""
    with pytest.raises(TooLargeError):
        run("solve", {"guards": ["((s0+1)**64)**64 > 3"], "options": {"timeout_ms": 1000}})
