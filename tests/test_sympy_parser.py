"""The sympy-syntax parser: every call of docs/problem-format.md §1.1 is accepted, what PyTorch prints parses, the
recorded domain (divisors != 0, Piecewise coverage) is exact, nothing outside the whitelist runs."""

from __future__ import annotations

import pytest
from guard_grammar import conds
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.errors import ParseError, UnsupportedError
from solver.ir import terms as ir
from solver.ir.pyeval import holds
from solver.syntax.sympy_reader import parse_sympy

ACCEPTED = [
    "Eq(s0, 2)", "Ne(s0, 2)", "Lt(s0, 2)", "Le(s0, 2)", "Gt(s0, 2)", "Ge(s0, 2)",
    "And(s0 > 1, s1 > 1)", "Or(s0 > 1, s1 > 1)", "Not(s0 > 1)", "Implies(s0 > 1, s1 > 1)",
    "Piecewise((s0, s0 > 1), (1, True)) > 0", "Abs(s0) > 0", "Max(s0, s1, 2) > 0", "Min(s0) > 0",
    "Mod(s0, 2) > 0", "PythonMod(s0, 2) > 0", "FloorDiv(s0, 2) > 0", "CeilDiv(s0, 2) > 0",
    "CleanDiv(s0, 2) > 0", "TruncDiv(s0, 2) > 0", "ModularIndexing(s0, 2, 4) > 0",
    "floor(s0/2) > 0", "ceiling(s0/2) > 0", "PowByNatural(s0, 2) > 0", "pow_by_natural(s0, 2) > 0",
    "s0**2 > 0", "-s0 + 3 > 0", "True", "False", "(s0 > 1) & (s1 > 1) | ~(s0 > 3)",
    "s0 > 1 and s1 > 1 or not s0 > 3", "1 < s0 <= s1 != 3",
    "((s0 - 1)//16) + 1 != 1", "Ne(s23*s25, s25*(s23 - (Mod(s23, 4))))",
    "12345678901234567890123456789 > s0",
]


@pytest.mark.parametrize("text", ACCEPTED)
def test_accepted(text: str) -> None:
    assert parse_sympy(text).term.is_bool


def test_domain_records_every_divisor() -> None:
    p = parse_sympy("FloorDiv(a, b) + Mod(a, c) + ModularIndexing(a, d, e) > 0")
    for zero in "bcde":
        env = {n: 1 for n in "abcde"}
        env[zero] = 0
        assert not holds(p.domain, env)
    assert holds(p.domain, {n: 1 for n in "abcde"})


def test_piecewise_domain_is_coverage() -> None:
    p = parse_sympy("Piecewise((a, a > 0), (b, b > 0)) > 0")
    assert holds(p.domain, {"a": 1, "b": 0}) and not holds(p.domain, {"a": 0, "b": 0})
    assert parse_sympy("Piecewise((a, a > 0), (b, True)) > 0").domain is ir.TRUE


@pytest.mark.parametrize(("text", "cls", "offset"), [
    ("s0 > 1.5", UnsupportedError, 5),
    ("s0 + sqrt(s1) > 0", UnsupportedError, 5),
    ("s0 / 2 > 0", UnsupportedError, 0),
    ("  s0 >", ParseError, None),
    ("Max()", ParseError, 0),
    ("ModularIndexing(s0, 2)", ParseError, 0),
    ("PowByNatural(s0, s1) > 0", UnsupportedError, None),
    ("s0 < (s1 > 2)", ParseError, None),
    ("Eq(s0, s1 > 2)", ParseError, None),
    ("Piecewise((s0, s0 > 1), (s0 > 2, True))", ParseError, None),
    ("Max(s0, key=1)", UnsupportedError, 0),
    ("s0.bit_length() > 1", UnsupportedError, None),
])
def test_rejected_with_offset(text: str, cls: type, offset: int | None) -> None:
    with pytest.raises(cls) as e:
        parse_sympy(text)
    if offset is not None:
        assert e.value.offset == offset
    assert e.value.offset is None or 0 <= e.value.offset <= len(text)


@pytest.mark.parametrize(("text", "message", "offset"), [
    ("s0 >= 3 3", "invalid syntax near '3'", 8),
    ("  a b c", "invalid syntax near 'b'", 4),
    ("  s0 >", "invalid syntax at the end of the expression", 6),
    ("Max(s0, (3 > 1)", "invalid syntax: '(' was never closed near '(s0, (3 > 1)'", 3),
    ("Max(s0,\n  s1 >= )", "invalid syntax near ')'", 16),  # an offset into the whole text, not the line
])
def test_syntax_errors_say_invalid_syntax_once_with_the_offending_text(text: str, message: str, offset: int) -> None:
    with pytest.raises(ParseError) as e:
        parse_sympy(text)
    assert e.value.message == message and e.value.message.count("invalid syntax") == 1
    assert e.value.offset == offset


@settings(max_examples=100, deadline=None)
@given(conds(["x", "y"]), st.text(" \t", max_size=3))
def test_surrounding_whitespace_is_ignored(text: str, pad: str) -> None:
    assert parse_sympy(pad + text + pad).term is parse_sympy(text).term
