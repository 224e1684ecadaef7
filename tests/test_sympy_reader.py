"""The sympy-syntax parser: every call of docs/problem-format.md §1.1 is accepted, what PyTorch prints parses, the
recorded domain (divisors != 0, Piecewise coverage) is exact, nothing outside the whitelist runs."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from guard_grammar import conds
from hypothesis import given, settings
from hypothesis import strategies as st
from lazy_grammar import GRID, NAMES, fraction_value, lazy_pairs, python_value, rational_relations

from symguard.solver.errors import ParseError, TooLargeError, UnsupportedError
from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import evaluate, holds
from symguard.solver.syntax import sympy_fast, sympy_reader
from symguard.solver.syntax.sympy_reader import parse_sympy

ACCEPTED = [
    "Eq(s0, 2)", "Ne(s0, 2)", "Lt(s0, 2)", "Le(s0, 2)", "Gt(s0, 2)", "Ge(s0, 2)",
    "And(s0 > 1, s1 > 1)", "Or(s0 > 1, s1 > 1)", "Not(s0 > 1)", "Implies(s0 > 1, s1 > 1)",
    "Piecewise((s0, s0 > 1), (1, True)) > 0", "Abs(s0) > 0", "Max(s0, s1, 2) > 0", "Min(s0) > 0",
    "Mod(s0, 2) > 0", "PythonMod(s0, 2) > 0", "FloorDiv(s0, 2) > 0", "CeilDiv(s0, 2) > 0",
    "CleanDiv(s0, 2) > 0", "TruncDiv(s0, 2) > 0", "ModularIndexing(s0, 2, 4) > 0",
    "floor(s0/2) > 0", "ceiling(s0/2) > 0", "s0/2 >= 2", "Max(s0/2, s1) > 1", "Abs(s0/s1 - 1) < 1", "Rational(3, 2)*s0 >= 3", "Ne(s0/2, 1)", "3*s0/2 < 24", "s0/(5*s1) <= 1",
    "Eq(s0/3, s1)", "s0/s1 + s2/3 > 1 - s0/2", "(s0/2)/3 < -(s1/4)**2", "floor((s0 + 1)/2/s1) > 0", "PowByNatural(s0, 2) > 0", "pow_by_natural(s0, 2) > 0",
    "s0**2 > 0", "-s0 + 3 > 0", "True", "False", "(s0 > 1) & (s1 > 1) | ~(s0 > 3)",
    "s0 > 1 and s1 > 1 or not s0 > 3", "1 < s0 <= s1 != 3",
    "((s0 - 1)//16) + 1 != 1", "Ne(s23*s25, s25*(s23 - (Mod(s23, 4))))",
    "12345678901234567890123456789 > s0",
    # PyTorch's torch.utils._sympy functions, as str() prints them
    "Eq(2*CeilToInt(IntTrueDiv((((s4 - 1)//8)) + 1, 2)), (((s4 - 1)//8)) + 1)",
    "FloorToInt(IntTrueDiv(s0, s1)) > 2", "TruncToInt(IntTrueDiv(-s0, 3)) < 0", "RoundToInt(IntTrueDiv(s0, 2)) > 1",
    "CeilToInt(FloatTrueDiv(ToFloat(s0), ToFloat(s1))) > 1", "CeilToInt(ToFloat(s0)) > 1", "FloorToInt(s0) > 1",
    "CeilToInt(Where(s0 > 2, IntTrueDiv(s0, 3), ToFloat(s1))) > 1", "RoundToInt(-IntTrueDiv(s0, 3)) > 1",
    "BitwiseFn_bitwise_and(s0, 7) > 0", "BitwiseFn_bitwise_or(s0, -8) < 0", "BitwiseFn_bitwise_xor(s0, 5) > 0",
    "(s0 & 7) + (s0 | 8) + (s0 ^ -3) + ~s0 > 0", "LShift(s0, 3) > RShift(s1, 2)", "(s0 << 2) + (s1 >> 1) > 0",
    "Where(Eq(s0, 2), s0, s1) > 2", "IsNonOverlappingAndDenseIndicator(s0, s1, 1, s0) > 0",
    "Identity(s0 + 1) > 2", "FloorToInt(FloatTrueDiv(ToFloat(s0), 2.0)) > 1", "2*((s0 + 1)) > 2", "Eq(PowByNatural(s0, 3), 8)",
    # float arithmetic under a rounding function, read as the exact affine value (test_sympy_float_affine)
    "CeilToInt(FloatTrueDiv(ToFloat((s0//7)) - 0.5, 1.0)) >= 2", "FloorToInt(0.5*ToFloat(s0) + 0.25) > 1",
    "CeilToInt(IntTrueDiv(s0, 2) + 1) > 0", "FloorToInt(FloatTrueDiv(ToFloat(s0), 2.5)) > 1",
    # one converted integer's float arithmetic compared with a literal: Python's roundings, step by step
    "IntTrueDiv(s0, 2) + 1.0 >= 2.0", "2.0 <= 1.0 + IntTrueDiv(s0, 2)", "ToFloat(s0) - 0.5 >= 1.0",
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
    ("s0 + sqrt(s1) > 0", UnsupportedError, 5),
    # an exact rational (true division '/') used as an integer value, not compared
    ("s0 / 2", UnsupportedError, 0),
    ("Max(s0 / 2, 1) // 2 > 0", UnsupportedError, 4),
    ("Mod(s0/2, 3) > 0", UnsupportedError, 4),
    ("s1 // (s0/2) > 1", UnsupportedError, 7),
    ("Piecewise((s0/2, s0 > 1), (1, True)) // 2 > 0", UnsupportedError, 11),
    ("s0/2 + FloorDiv(s1/3, 1) > 0", UnsupportedError, 16),
    ("  s0 >", ParseError, None),
    ("Max()", ParseError, 0),
    ("ModularIndexing(s0, 2)", ParseError, 0),
    ("PowByNatural(s0, s1) > 0", UnsupportedError, None),
    ("s0 < (s1 > 2)", ParseError, None),
    ("Eq(s0, s1 > 2)", ParseError, None),
    ("Piecewise((s0, s0 > 1), (s0 > 2, True))", ParseError, None),
    ("Max(s0, key=1)", UnsupportedError, 0),
    ("s0.bit_length() > 1", UnsupportedError, None),
    # fullwidth names: Python's parser would NFKC-fold them into s0 / Max
    ("\uff530 > 2", ParseError, 0),
    ("s1 + \uff530 > 2", ParseError, 5),
    ("\uff2dax(s0, 1) > 2", ParseError, 0),
    ("Max(s0, s\u2080) > 2", ParseError, 8),  # subscript zero
    ("\u00e9 > 2", ParseError, 0),  # a letter that NFKC keeps: still not ASCII
    ("s0 + x\u0301 > 2", ParseError, 5),
    ("s0 < int_oo", UnsupportedError, 5),  # PyTorch's integer infinity is not a symbol
    ("Max(s0, -int_oo) > 2", UnsupportedError, 9),  # a combining mark Python's tokenizer module splits off
    ("Max(s0, 2) + \u2160 > 2", ParseError, 13),  # Roman numeral one: NFKC 'I', sympy's imaginary unit
    # float values no single rounding turns back into an integer
    ("OpaqueUnaryFn_sqrt(s0) > 2", UnsupportedError, 0),
    ("s0 + OpaqueUnaryFn_log2(ToFloat(s1)) > 2", UnsupportedError, 5),
    ("IntTrueDiv(s0, 2) > IntTrueDiv(s1, 3)", UnsupportedError, 0),
    ("CeilToInt(IntTrueDiv(s0, s1) + 1) > 0", UnsupportedError, 10),  # a symbolic divisor in float arithmetic
    ("CeilToInt(ToFloat(s0)*ToFloat(s1)) > 0", UnsupportedError, 10),  # not affine
    ("FloorToInt(ToFloat(s0)*0.1 + 0.5) > s1", UnsupportedError, 23),  # 0.1's double is not 0.1 (a chain, not compared with a literal)
    ("FloorToInt(ToFloat(s0) // 2.0) > 0", UnsupportedError, 11),  # Python's float floor division
    ("CeilToInt(s0/2) > 0", UnsupportedError, 10),
    ("CeilToInt(FloatTrueDiv(IntTrueDiv(s0, 2), ToFloat(s1))) > 0", UnsupportedError, 10),
    ("IntTrueDiv(s0, s1) + 1 > 0", UnsupportedError, 0),
    ("s1 < IntTrueDiv(s0, 3)", UnsupportedError, 5),
    # a float compared with anything but a literal, or after arithmetic (test_sympy_reader_float reads the rest)
    ("ToFloat(s0) >= s1", UnsupportedError, 0),
    ("IntTrueDiv(s0, 2) + ToFloat(s1) >= 2.0", UnsupportedError, 0),
    ("2.0 <= 1.0 + IntTrueDiv(s0, s1)", UnsupportedError, 13),
    ("FloatTrueDiv(ToFloat(s0), ToFloat(s1)) >= 1.0", UnsupportedError, 0),
    ("s0/2 >= 1.5", UnsupportedError, 0),  # sympy's exact '/' against a float
    ("Max(1.0, IntTrueDiv(s0, 2)) + 1 > 2", UnsupportedError, 0),
    ("FloorToInt(FloatTrueDiv(ToFloat(s0), 0.3)) > s1", UnsupportedError, 37),
    ("Where(s0 > 1, ToFloat(s0), 1) + 1 > 0", UnsupportedError, 0),
    ("FloatPow(ToFloat(s0), 2.0) > 1", UnsupportedError, 0),
    ("BitwiseFn_bitwise_and(s0, s1) > 0", UnsupportedError, 0),
    ("s0 | s1 > 0", UnsupportedError, 0),
    ("LShift(s0, s1) > 0", UnsupportedError, 0),
    ("s0 >> s1 > 0", UnsupportedError, 0),
    ("PowByNatural(2, s1) > 0", UnsupportedError, 16),
    ("IsNonOverlappingAndDenseIndicator(s0, s1, s2, s3, s4, 1, 1, 1, 1, 1) > 0", UnsupportedError, 0),
    ("IsNonOverlappingAndDenseIndicator(s0, s1, 1) > 0", ParseError, 0),
    ("CeilToInt(s0, s1) > 0", ParseError, 0),
    ("Where(s0 > 1, s0, s0 > 2)", ParseError, 0),
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


def test_fullwidth_names_say_what_python_would_read() -> None:
    with pytest.raises(ParseError) as e:
        parse_sympy("  Eq(\uff530, 2)")
    assert e.value.offset == 5
    assert "'\uff530' is not an ASCII identifier" in e.value.message and "'s0'" in e.value.message


def test_a_comment_is_not_a_name() -> None:
    assert parse_sympy("s0 > 1  # \u00e9t\u00e9").term is parse_sympy("s0 > 1").term


def test_a_negative_shift_cannot_pass() -> None:
    # Python raises ValueError("negative shift count"): like a zero divisor, the guard is false
    p = parse_sympy("LShift(s0, -1) >= 0")
    assert p.domain is ir.FALSE and p.as_condition() is ir.FALSE


def test_rounding_an_integer_is_the_integer() -> None:
    # Python's math.ceil/floor/trunc and round of an int are exact; ToFloat(x) is exact to 2**53
    s0 = parse_sympy("s0").term
    for text in ("CeilToInt(s0)", "FloorToInt(s0)", "TruncToInt(s0)", "RoundToInt(s0)", "CeilToInt(ToFloat(s0))",
                 "RoundToInt(ToFloat(s0))", "FloorToInt(IntTrueDiv(s0, 1))", "Identity(s0)"):
        assert parse_sympy(text).term is s0, text


# ------------------------------------------------------------------ the lowerings are Python's operators

_INTS = st.integers(-2**70, 2**70) | st.integers(-40, 40)
_CONSTS = st.integers(-2**66, 2**66) | st.integers(-40, 40) | st.sampled_from([0, -1, 2**64 - 1, -2**63, 0x5555])


def _value(text: str, **env: int) -> int | bool:
    p = parse_sympy(text)
    assert holds(p.domain, env), text
    return evaluate(p.term, env)


@settings(max_examples=300, deadline=None)
@given(_INTS, _CONSTS)
def test_bitwise_with_a_constant_is_pythons(x: int, c: int) -> None:
    assert _value(f"BitwiseFn_bitwise_and(x, {c})", x=x) == x & c
    assert _value(f"BitwiseFn_bitwise_or({c}, x)", x=x) == x | c
    assert _value(f"BitwiseFn_bitwise_xor(x, {c})", x=x) == x ^ c
    assert _value(f"(x & {c}) + (x | {c}) - (x ^ {c})", x=x) == (x & c) + (x | c) - (x ^ c)
    assert _value("~x", x=x) == ~x


@settings(max_examples=200, deadline=None)
@given(_INTS, st.integers(-5, 5), st.booleans())
def test_bitwise_with_a_condition_counts_it_as_0_or_1(x: int, y: int, cond: bool) -> None:
    c = f"y {'>' if cond else '<='} 0"
    bit = int((y > 0) if cond else (y <= 0))
    assert _value(f"BitwiseFn_bitwise_and(x, {c})", x=x, y=y) == x & bit
    assert _value(f"BitwiseFn_bitwise_or({c}, x)", x=x, y=y) == x | bit
    assert _value(f"({c}) ^ x", x=x, y=y) == x ^ bit


@settings(max_examples=200, deadline=None)
@given(_INTS, st.integers(0, 80))
def test_literal_shifts_are_pythons(x: int, k: int) -> None:
    assert _value(f"LShift(x, {k})", x=x) == x << k
    assert _value(f"RShift(x, {k})", x=x) == x >> k
    assert _value(f"(x << {k}) - (x >> {k})", x=x) == (x << k) - (x >> k)


@settings(max_examples=300, deadline=None)
@given(_INTS, (st.integers(-2**40, 2**40) | st.integers(-9, 9)).filter(bool))
def test_rounding_a_quotient_is_exact(a: int, b: int) -> None:
    q = Fraction(a, b)
    assert _value("CeilToInt(IntTrueDiv(a, b))", a=a, b=b) == math.ceil(q)
    assert _value("FloorToInt(IntTrueDiv(a, b))", a=a, b=b) == math.floor(q)
    assert _value("TruncToInt(FloatTrueDiv(ToFloat(a), ToFloat(b)))", a=a, b=b) == math.trunc(q)
    assert _value("RoundToInt(IntTrueDiv(a, b))", a=a, b=b) == round(q)  # half to even
    assert _value("RoundToInt(IntTrueDiv(2*a + 1, 2))", a=a) == round(Fraction(2 * a + 1, 2))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-4, 6), min_size=2, max_size=8).filter(lambda v: len(v) % 2 == 0))
def test_non_overlapping_and_dense_is_pytorchs_algorithm(vals: list[int]) -> None:
    n = len(vals) // 2
    names = [f"v{i}" for i in range(2 * n)]
    env = dict(zip(names, vals, strict=True))
    text = f"IsNonOverlappingAndDenseIndicator({', '.join(names)})"
    assert _value(text, **env) == int(_dense(vals[:n], vals[n:]))


def _dense(sizes: list[int], strides: list[int]) -> bool:
    """PyTorch's _eval_is_non_overlapping_and_dense (torch/fx/experimental/symbolic_shapes.py)."""
    if len(sizes) == 1:
        return strides[0] == 1 or sizes[0] < 2
    expected = 1
    for length, stride in sorted(zip(sizes, strides, strict=True), key=lambda p: p[1]):
        if length == 1:
            continue
        if stride != expected:
            return False
        expected *= length
    return True


# ------------------------------------------------------------------ the fast reader

_TOKENS = ["a", "b", "s0", "0", "1", "2", "7", "00", "01", "(", ")", "(", ")", ",", "+", "-", "*", "//", "%", "**",
           "<", "<=", ">", ">=", "==", "!=", " ", "Max", "Min", "Mod", "Eq", "Ne", "And", "Or", "Not", "Abs",
           "FloorDiv", "ModularIndexing", "PowByNatural", "PythonMod", "CeilDiv", "True", "None", "oo", "floor",
           "1.5", "/", "&", "|", "~", "not", "1e3", "lambda", "int_oo", "Piecewise", "\t", "ｓ"]


def _same_as_reference(text: str) -> None:
    """The fast reader either leaves a text to the reference or reads what the reference reads
    (the same interned term and domain), with its call memo cold and warm."""
    for cold in (True, False):
        if cold:
            sympy_fast._SPANS.clear()
        got = sympy_fast._fast(text)
        if got is None:
            return
        ref = sympy_reader._parse_ast(text)  # raises if the fast reader accepted a wrong text
        assert got.term is ref.term and got.domain is ref.domain, text


@settings(max_examples=400, deadline=None)
@given(st.one_of(conds(["x", "y"]), st.lists(st.sampled_from(_TOKENS), min_size=1, max_size=12).map("".join)))
def test_the_fast_reader_reads_what_the_ast_reader_reads(text: str) -> None:
    _same_as_reference(text)


@pytest.mark.parametrize("text", [
    *ACCEPTED, "(2*(a + b))*c > 0", "2*(a + b)*c > 0", "a*(b*(c + 1)) > 0", "-(a*b)*c > 0", "(a*b)**2 > 0",
    "2**3**2 > a", "-2**2 < a", "a - -b + +c > 0", "(a < b) == (b < c)", "Eq(a < b, c > 0)", "a*b//c*d % 3 > 0",
    "Max(a, b, 1) + Max(a, b, 1) > ModularIndexing(a, 2, 4) + ModularIndexing(a, 2, 4)",
    "PowByNatural(a*2, 3) > 0", "Max(a, b,) > 0", "Max() > 0", "f(a) > 0", "a(b) > 0", "a > 0 > b < c",
    "0 < 00", "01 > a", "2(3) > a", "a[0] > 1", "a.b > 1", "Mod(a, b, c) > 0", "Eq(a, b < c)",
    *(f"{'(' * n}a{')' * n} > 0" for n in (50, 100, 101, 250)),
    *(f"a{'//2' * n} > 0" for n in (50, 150, 400)),
    *(f"{'-' * n}a > 0" for n in (50, 150, 400)),
    *(f"{'Max(' * n}a{', 1)' * n} > 0" for n in (50, 150, 400)),
    " + ".join(f"a{i}" for i in range(1000)) + " > 0",
    # sympy's Or/And printed as | and & (PyTorch's guards): conditions only, Python's precedence
    "(a > 0) | (b > 0)", "(a > 0) & (b > 0) | (c < 1)", "(a > 0) | (b > 0) & (c < 1)", "a & 3 > 0",
    "(a > 0) | b > 0", "(a > 0) | (b > 0) == (c > 0)", "Eq((a > 0) | (b > 0), a < 1)", "(a > 0) | 1",
    *(" | ".join(["(a > 0)"] * n) for n in (2, 50, 99, 100, 101, 250)),
    *(" & ".join([f"(a{i} > 0)" for i in range(n)]) for n in (3, 120)),
])
def test_the_fast_reader_on_chosen_texts(text: str) -> None:
    _same_as_reference(text)


def test_parsed_texts_are_remembered() -> None:
    text = "ModularIndexing(x0, 1, 16) + 16*ModularIndexing(x0, 16, 4) < s0"
    first = parse_sympy(text)
    assert parse_sympy(text) is first
    sympy_reader._TEXTS.clear()
    again = parse_sympy(text)
    assert again.term is first.term and again.domain is first.domain


# ------------------------------------------------------------------ exact rationals and lazy domains

POINTS = st.fixed_dictionaries({n: st.sampled_from(GRID) for n in NAMES})


@settings(max_examples=250, deadline=None)
@given(rational_relations(), POINTS)
def test_rational_comparisons_are_fractions(pair: tuple[str, str], env: dict[str, int]) -> None:
    """``/`` compared is Python's ``Fraction`` (issue 33): the domain holds exactly where no
    divisor is zero, and there the condition is the exact comparison."""
    text, py = pair
    p = parse_sympy(text)
    want = fraction_value(py, env)
    assert holds(p.domain, env) == (want is not None), (text, env)
    if want is not None:
        assert holds(p.term, env) == want, (text, env)
    _same_as_reference(text)


def _pw(*pieces: tuple[object, bool]) -> object:
    return next(v for v, c in pieces if c)


@pytest.mark.parametrize(("text", "want"), [
    # a rational through a Piecewise: only the branch taken is evaluated (a zero divisor elsewhere
    # is never met), its value the exact one
    ("Piecewise((a/2, a > 1), (b/3, True)) >= 1",
     lambda a, b: _pw((lambda: Fraction(a, 2), a > 1), (lambda: Fraction(b, 3), True))() >= 1),
    ("Piecewise((a/b, b > 0), (a/(b - 1), True)) < 2",
     lambda a, b: _pw((lambda: Fraction(a, b), b > 0), (lambda: Fraction(a, b - 1), True))() < 2),
    ("Eq(Piecewise((a/b, Ne(b, 0)), (a, True)), Rational(1, 2))",
     lambda a, b: _pw((lambda: Fraction(a, b), b != 0), (lambda: Fraction(a), True))() == Fraction(1, 2)),
    ("Max(a/2, Piecewise((b/3, b > a), (-a, True))) <= Abs(b - a/4)",
     lambda a, b: max(Fraction(a, 2), _pw((lambda: Fraction(b, 3), b > a), (lambda: Fraction(-a), True))())
     <= abs(b - Fraction(a, 4))),
])
def test_rationals_through_piecewise(text: str, want: object) -> None:
    """``/`` inside a ``Piecewise`` value compared (issue 33): exact, and lazy as Python's
    conditional (the branch not taken may divide by zero)."""
    p = parse_sympy(text)
    for a in GRID:
        for b in GRID:
            env = {"a": a, "b": b}
            assert holds(p.domain, env), (text, env)
            assert holds(p.term, env) == want(a, b), (text, env)  # type: ignore[operator]
    _same_as_reference(text)


@pytest.mark.parametrize(("text", "error"), [
    ("Max(a/2, b)", UnsupportedError), ("Rational(1, 2)", UnsupportedError),
    ("Rational(a, 2) > 1", UnsupportedError), ("Rational(1, 0) > 1", ParseError),
    ("Piecewise((a/2, a > 1), (b > 0, True)) > 1", ParseError),
])
def test_rationals_used_as_integers_are_refused(text: str, error: type[Exception]) -> None:
    with pytest.raises(error):
        parse_sympy(text)


@pytest.mark.parametrize("text", [
    "Abs(" * 40 + "a" + " - 1)" * 40 + " > 2",  # Abs(a) is Max(a, -a): 2**40 written out
    "TruncDiv(" * 14 + "a" + ", b)" * 14 + " > 0",
    # a Max of rationals compares each argument with every other: 7 deep, ~300 million nodes
    "Max(" * 7 + "a/b" + ", c/(b + 1), Min(a/(c + 2), c/b))" * 7 + " >= 1",
])
def test_expressions_that_multiply_out_are_too_large(text: str) -> None:
    """The DAG read is linear in the text, but the tree these write out doubles per level; the
    canonical key and z3's translation write it out (40 nested ``Abs`` exhausted the memory)."""
    with pytest.raises(TooLargeError):
        parse_sympy(text)


def test_a_wide_max_of_rationals_is_read() -> None:
    """30 rationals over symbolic denominators: each compared with every other, not with a running
    maximum (which nested every comparison in the next: exponential)."""
    args = ", ".join(f"a/(b + {i})" for i in range(30))
    p = parse_sympy(f"Max({args}) >= 1")
    env = {"a": 7, "b": 2, "c": 0}
    assert holds(p.term, env) == (max(Fraction(7, 2 + i) for i in range(30)) >= 1)
    assert p.term.size < 1_000_000


_INTS, _CONDS = lazy_pairs()


@settings(max_examples=300, deadline=None)
@given(st.one_of(_INTS, _CONDS), POINTS)
def test_lazy_domain_is_where_python_is_defined(pair: tuple[str, str], env: dict[str, int]) -> None:
    """The domain follows Python's evaluation of the printed text (issue 31): a divisor in a
    branch not taken or after a short circuit is never evaluated; elsewhere the value is Python's."""
    text, py = pair
    p = parse_sympy(text)
    want = python_value(py, env)
    assert holds(p.domain, env) == (want is not None), (text, py, env)
    if want is not None:
        assert evaluate(p.term, env) == want, (text, py, env)
    _same_as_reference(text)


@pytest.mark.parametrize(("text", "defined", "undefined"), [
    # a zero divisor in the branch not taken is never evaluated
    ("Piecewise((n//k, k > 5), (n//2, True)) >= 1", {"k": 0, "n": 3}, None),
    ("Where(Ne(k, 0), n//k, 0) > 1", {"k": 0, "n": 3}, None),
    ("And(Ne(k, 0), n//k >= 1)", {"k": 0, "n": 3}, None),
    ("(k > 0) & (n % k > 0)", {"k": 0, "n": 3}, None),
    ("Or(Eq(k, 0), n//k >= 1)", {"k": 0, "n": 3}, None),
    ("(k < 1) | (Mod(n, k) > 0)", {"k": 0, "n": 3}, None),
    ("k < 1 or n // k > 0", {"k": 0, "n": 3}, None),
    # a chain is Python's `and` of its links: past a false link nothing is evaluated
    ("k < 0 < n // k", {"k": 0, "n": 3}, None),
    ("Not(k < 0 < 1/k)", {"k": 0, "n": 3}, None),
    ("0 < k <= n < n // k + 5 < 7", {"k": 0, "n": 3}, None),
    ("Implies(Ne(k, 0), n//k >= 1)", {"k": 0, "n": 3}, None),
    # ... but it is where it is evaluated: the order is the printed one
    ("And(n//k >= 1, Ne(k, 0))", None, {"k": 0, "n": 3}),
    ("n // k < 0 < k", None, {"k": 0, "n": 3}),  # the first two operands are always evaluated
    ("n < 5 < n // k", None, {"k": 0, "n": 3}),
    ("Not(And(Ne(k, 0), n//k >= 1)) & (n//k > 0)", None, {"k": 0, "n": 3}),
    ("Max(Piecewise((n//k, k > 0), (0, True)), n//k) > 0", None, {"k": 0, "n": 3}),
    ("Piecewise((1, n//k > 0), (2, True)) > 0", None, {"k": 0, "n": 3}),
    ("Piecewise((n//k, k > 5), (n//m, m > 0)) >= 1", {"k": 0, "m": 1, "n": 3}, {"k": 0, "m": 0, "n": 3}),
])
def test_lazy_domain_examples(text: str, defined: dict[str, int] | None, undefined: dict[str, int] | None) -> None:
    for cold in (True, False):  # the memos replay the same domain
        if cold:
            sympy_fast._SPANS.clear()
            sympy_reader._TEXTS.clear()
        p = parse_sympy(text)
        if defined is not None:
            assert holds(p.domain, defined)
        if undefined is not None:
            assert not holds(p.domain, undefined)
    _same_as_reference(text)
