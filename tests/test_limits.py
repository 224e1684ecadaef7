"""docs/problem-format.md §6 limits, as documented: what passes at the limit and what is refused
one past it (issue 25: the nesting limit said 400 and was 200; 4,009-digit literals passed a
4,000-digit limit; a tree-size limit refused a real PyTorch guard set)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from symguard.solver import run
from symguard.solver.errors import TooLargeError
from symguard.solver.ir import terms as ir
from symguard.solver.syntax import sympy_reader as reader
from symguard.solver.syntax.sympy_reader import MAX_BRACKETS, MAX_EXPR_CHARS, parse_sympy
from symguard.solver.syntax.sympy_walk import MAX_DEPTH

CORPUS = Path(__file__).resolve().parent.parent / "smt2_corpus"


def _fresh(text: str) -> reader.Parsed:
    reader._TEXTS.clear()
    return parse_sympy(text)


@pytest.mark.parametrize("digits", [1, 3999, ir.MAX_INT_DIGITS])
def test_literals_up_to_the_limit_are_read(digits: int) -> None:
    _fresh("x + " + "9" * digits)


@pytest.mark.parametrize("digits", [ir.MAX_INT_DIGITS + 1, ir.MAX_INT_DIGITS + 9, ir.MAX_INT_DIGITS + 10])
def test_one_digit_past_the_limit_is_refused(digits: int) -> None:
    with pytest.raises(TooLargeError):
        _fresh("x + " + "9" * digits)


def test_the_digit_limit_is_exact_for_folded_constants() -> None:
    assert not ir.too_many_digits(10**ir.MAX_INT_DIGITS - 1)
    assert ir.too_many_digits(10**ir.MAX_INT_DIGITS)
    assert ir.too_many_digits(-(10**ir.MAX_INT_DIGITS))
    _fresh(f"x + 10**{ir.MAX_INT_DIGITS - 1}")
    with pytest.raises(TooLargeError):
        _fresh(f"x + 10**{ir.MAX_INT_DIGITS}")
    with pytest.raises(TooLargeError):
        _fresh(f"x + 5*2*10**{ir.MAX_INT_DIGITS - 1}")
    with pytest.raises(TooLargeError):  # refused before the power is computed
        _fresh("x + 7**10000000")


@pytest.mark.parametrize("form", ["(", "Max(x, ", "x + (", "2*(", "FloorDiv(x, 2) + FloorDiv("])
def test_brackets_up_to_the_documented_depth_are_read_and_one_more_refused(form: str) -> None:
    tail = ", 3)" if form.startswith("FloorDiv") else ")"
    _fresh(form * MAX_BRACKETS + "x" + tail * MAX_BRACKETS)
    with pytest.raises(TooLargeError):
        _fresh(form * (MAX_BRACKETS + 1) + "x" + tail * (MAX_BRACKETS + 1))


@pytest.mark.parametrize("form", ["-", "+", "- +"])
def test_operators_up_to_the_documented_depth_are_read_and_one_more_refused(form: str) -> None:
    n = form.count("-") + form.count("+")
    _fresh(form * (MAX_DEPTH // n) + "x")
    with pytest.raises(TooLargeError):
        _fresh(form * (MAX_DEPTH // n) + form[0] + "x")


def test_documented_limits_are_the_code_limits() -> None:
    text = (Path(__file__).resolve().parent.parent / "docs" / "problem-format.md").read_text()
    assert f"nesting depth {MAX_BRACKETS} brackets (a call's parentheses count) and {MAX_DEPTH} operators" in text
    assert f"{ir.MAX_INT_DIGITS:,} digits" in text
    assert f"{MAX_EXPR_CHARS:,} characters" in text


def test_shared_subterms_do_not_count_once_per_use() -> None:
    """A DAG whose tree is astronomically large is small: no limit may count the tree."""
    t = ir.mk_sym("x")
    for k in range(80):
        t = ir.mk_max(ir.mk_add(t, ir.ONE), ir.mk_floordiv(ir.mk_add(t, ir.mk_int(k)), ir.mk_int(2)))
    assert sum(1 for _ in ir.iter_dag(t)) < 2000
    assert t.size == ir.SIZE_CAP


def test_hostile_text_is_refused_by_its_length_before_any_work() -> None:
    for text in ("(" * 100_000 + "x" + ")" * 100_000, "x + " * 30_000 + "x", "9" * 10**6):
        with pytest.raises(TooLargeError):
            _fresh(text)


def test_largest_real_swin_sets_are_read() -> None:
    """The 3-stage Swinv2 compile set (the longest guard ~15 KB of shared chains) was refused
    ``too_large`` by a tree-size limit before any work."""
    for path in sorted((CORPUS / "torch").glob("swinv2_s3*_compile.json")):
        doc = json.loads(path.read_text())
        res = run("solve", doc)
        assert res["status"] in ("sat", "unknown")
