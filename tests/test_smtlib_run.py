"""``run_script``: a z3 -smt2 style transcript, checked against z3's own answers."""

from __future__ import annotations

import re

import pytest
import z3

from symguard.solver.ir.pyeval import evaluate
from symguard.solver.ops.smtlib_run import run_script
from symguard.solver.syntax.smtlib_script import parse_term, script_problem


def _z3_transcript(text: str) -> str:
    """What ``z3 -smt2`` prints for ``text`` (errors come back inside the exception)."""
    ctx = z3.Context()  # keep it alive: a temporary's ref() would dangle (segfault)
    try:
        return str(z3.Z3_eval_smtlib2_string(ctx.ref(), text))
    except z3.Z3Exception as e:
        return e.value.decode() if isinstance(e.value, bytes) else str(e.value)


def _statuses(transcript: str) -> list[str]:
    return [ln for ln in transcript.splitlines() if ln in ("sat", "unsat", "unknown")]


SCRIPTS = {
    "push_pop": """
(declare-const x Int)
(declare-const y Int)
(assert (= (div x (- 3)) 2))
(check-sat)
(push 1)
(assert (> x (- 4)))
(check-sat)
(push 2)
(assert (< y 0))
(pop 1)
(assert (= y (mod x 4)))
(check-sat)
(pop 2)
(assert (< x (- 5)))
(check-sat)
""",
    "bools_and_macros": """
(declare-fun p () Bool)
(declare-const n Int)
(define-fun even ((v Int)) Bool (= (mod v 2) 0))
(assert (=> p (even n)))
(assert (xor p (> n 10)))
(check-sat)
(assert (not (even n)))
(assert (<= n 10))
(check-sat)
""",
    "lets_and_chains": """
(declare-const a Int)
(declare-const b Int)
(declare-const c Int)
(assert (let ((s (+ a b c)) (d (- a b))) (and (< 0 a b c 10) (= s 12) (distinct d (- 1)))))
(check-sat)
(assert (= (abs (- a c)) 7))
(check-sat)
""",
    "euclid_negative": """
(declare-const x Int)
(declare-const y Int)
(assert (and (< y 0) (> y (- 5)) (< x 0) (> x (- 20))))
(assert (= (mod x y) 3))
(assert (= (div x y) 4))
(check-sat)
""",
}


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_check_sat_lines_match_z3(name: str) -> None:
    text = SCRIPTS[name]
    ours = run_script(text, timeout_ms=10_000)
    assert _statuses(ours) == _statuses(_z3_transcript(text))
    assert "error" not in ours


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_script_problem_agrees_with_z3_from_string(name: str) -> None:
    """The JSON path (assertions at the first check-sat) answers as z3 does on the same text."""
    text = SCRIPTS[name]
    first = text[:text.index("(check-sat)")]
    s = z3.Solver()
    s.from_string(first)
    from symguard.solver import run

    assert run("solve", script_problem(text))["status"] == str(s.check())


def test_model_and_values_are_printed_like_z3_and_hold() -> None:
    text = SCRIPTS["push_pop"].replace("(check-sat)\n(push 1)", "(check-sat)\n(get-model)\n(get-value (x (+ x 1) y))\n(push 1)", 1)
    out = run_script(text, timeout_ms=10_000)
    lines = out.splitlines()
    assert lines[0] == "sat" and lines[1] == "(model"
    m = {k: int(v.replace("(- ", "-").rstrip(")")) for k, v in
         re.findall(r"\(define-fun (\w+) \(\) Int (\(- \d+\)|\d+)\)", out)}
    assert set(m) == {"x", "y"}  # user symbols only: never .q0/.r0
    assert evaluate(parse_term("(= (div x (- 3)) 2)").term, m)
    x = m["x"]
    fmt = (lambda v: str(v) if v >= 0 else f"(- {-v})")
    assert f"((x {fmt(x)}) ((+ x 1) {fmt(x + 1)}) (y {fmt(m['y'])}))" in lines
    assert ".q" not in out and ".r" not in out


def test_errors_and_unavailable_answers() -> None:
    text = """(declare-const x Int)
(get-model)
(assert (> (/ x 2) 0))
(assert (! (> x 5) :named big))
(assert (! (< x 3) :named small))
(check-sat)
(get-model)
(get-unsat-core)
(echo "done")
(exit)
(check-sat)
"""
    out = run_script(text, timeout_ms=5000).splitlines()
    assert out[0] == '(error "model is not available")'
    assert out[1].startswith('(error "line 3 column 12: unsupported construct: real division')
    assert out[2:] == ["unsat", '(error "model is not available")', "(big small)", "done"]


def test_malformed_text_ends_the_run_after_earlier_answers() -> None:
    out = run_script("(declare-const x Int)(assert (> x 0))(check-sat)\n(assert (< x", timeout_ms=5000)
    assert out.splitlines()[0] == "sat"
    assert out.splitlines()[1].startswith('(error "line 2 column 9: unbalanced')


def test_nonlinear_is_sat_or_unknown_never_wrong() -> None:
    text = """(declare-const x Int)
(declare-const y Int)
(declare-const z Int)
(assert (and (> x 1) (> y 1) (> z 1)))
(assert (= (+ (* x x x) (* y y y)) (* z z z)))
(check-sat)
(assert (= (* x y) 12))
(check-sat)
"""
    out = _statuses(run_script(text, timeout_ms=300))
    assert out[0] in ("unknown", "unsat")  # Fermat n=3: no solution
    assert out[1] in ("unknown", "unsat")


DIV_BY_ZERO = [
    "(declare-const x Int)(assert (= (div x 0) 1))(check-sat)",
    "(declare-const x Int)(assert (= (div x 0) 5))(check-sat)(assert (= (div x 0) 6))(check-sat)",
    "(declare-const y Int)(assert (= (mod y 0) 3))(assert (> (div 7 y) 2))(check-sat)",
    "(declare-const x Int)(declare-const y Int)(assert (= y 0))(assert (not (= (div x y) (div x 0))))(check-sat)",
    "(declare-const x Int)(push 1)(assert (= (mod x 0) 2))(check-sat)(pop 1)(assert (= (div 4 0) x))(check-sat)",
]


@pytest.mark.parametrize("text", DIV_BY_ZERO)
def test_division_by_zero_is_total_as_in_z3(text: str) -> None:
    """In --smtlib mode (div x 0) is an unspecified value, the same for the same dividend, as in z3
    (the JSON operations keep the implicit divisor != 0 of docs/problem-format.md §1.2)."""
    assert _statuses(run_script(text, timeout_ms=5000)) == _statuses(_z3_transcript(text))
