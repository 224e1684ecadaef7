"""Float arithmetic under a rounding function (``CeilToInt(FloatTrueDiv(ToFloat((n//7)) - 0.5, 1.0))``):
symguard reads the exact rational affine value, so its reading equals ``Fraction`` arithmetic on
the literals' doubles at every point, any size and sign; within the documented bounds it is also
Python's double evaluation; what leaves the affine class stays unsupported, naming the place; and
such guards are premises of a redundancy answer that brute force confirms."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from fractions import Fraction
from itertools import product
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symguard.solver import run
from symguard.solver.errors import UnsupportedError
from symguard.solver.ir.pyeval import evaluate
from symguard.solver.syntax.float_affine import decimal_exact
from symguard.solver.syntax.sympy_reader import parse_sympy

Env = dict[str, int]
Expr = tuple[str, Callable[[Env], Fraction], str]  # symguard text, exact value, Python code

ROUNDINGS: dict[str, tuple[Callable[[Fraction], int], str]] = {
    "CeilToInt": (math.ceil, "math.ceil"), "FloorToInt": (math.floor, "math.floor"),
    "TruncToInt": (math.trunc, "math.trunc"), "RoundToInt": (round, "round"),  # round(Fraction): half to even
}
LITERALS = [0.5, -0.5, 0.25, 1.5, -0.75, 0.375, 1.0, 2.0, 3.0, -4.0, 2.5, 0.125, 1e3]
INTS: list[tuple[str, Callable[[Env], int], str]] = [
    ("a", lambda e: e["a"], "a"), ("b", lambda e: e["b"], "b"), ("(a//7)", lambda e: e["a"] // 7, "(a // 7)"),
    ("2*a - b", lambda e: 2 * e["a"] - e["b"], "(2*a - b)"), ("3", lambda e: 3, "3"),
]


def _leaf() -> st.SearchStrategy[Expr]:
    to_float = st.sampled_from(INTS).map(lambda i: (f"ToFloat({i[0]})", lambda e, f=i[1]: Fraction(f(e)),
                                                    f"float({i[2]})"))
    divided = st.tuples(st.sampled_from(INTS), st.sampled_from([2, -3, 4, 7])).map(
        lambda p: (f"IntTrueDiv({p[0][0]}, {p[1]})", lambda e, f=p[0][1], d=p[1]: Fraction(f(e), d),
                   f"({p[0][2]} / {p[1]})"))
    lit = st.sampled_from(LITERALS).map(lambda v: (repr(v), lambda e, v=v: Fraction(v), repr(v)))
    return st.one_of(to_float, divided, lit)


def affine(depth: int) -> st.SearchStrategy[Expr]:
    """Random affine float expressions: their text, exact value and Python code."""
    if depth == 0:
        return _leaf()
    sub = affine(depth - 1)
    lit = st.sampled_from(LITERALS)
    return st.one_of(
        _leaf(),
        st.tuples(sub, sub).map(lambda p: (f"({p[0][0]}) + ({p[1][0]})", lambda e, x=p[0][1], y=p[1][1]: x(e) + y(e),
                                           f"({p[0][2]} + {p[1][2]})")),
        st.tuples(sub, sub).map(lambda p: (f"({p[0][0]}) - ({p[1][0]})", lambda e, x=p[0][1], y=p[1][1]: x(e) - y(e),
                                           f"({p[0][2]} - {p[1][2]})")),
        st.tuples(sub, lit).map(lambda p: (f"{p[1]!r}*({p[0][0]})", lambda e, x=p[0][1], c=p[1]: Fraction(c) * x(e),
                                           f"({p[1]!r}*{p[0][2]})")),
        st.tuples(sub, lit).map(lambda p: (f"FloatTrueDiv({p[0][0]}, {p[1]!r})",
                                           lambda e, x=p[0][1], c=p[1]: x(e) / Fraction(c), f"({p[0][2]} / {p[1]!r})")),
        sub.map(lambda p: (f"-({p[0]})", lambda e, x=p[1]: -x(e), f"(-{p[2]})")),
    )


SIZES = st.one_of(st.integers(-50, 50), st.integers(-(2**70), 2**70),
                  st.sampled_from([2**52 - 1, 2**52 + 1, 2**53 - 1, 2**53 + 1, 2**63 - 1, -(2**63)]))


def _read(text: str, env: Env) -> int:
    p = parse_sympy(text)
    assert evaluate(p.domain, env)
    return int(evaluate(p.term, env))  # type: ignore[arg-type]


@settings(max_examples=400, deadline=None)
@given(affine(3), st.sampled_from(sorted(ROUNDINGS)), SIZES, SIZES)
def test_the_reading_is_the_exact_rational_rounded(f: Expr, rnd: str, a: int, b: int) -> None:
    text, value, _ = f
    env = {"a": a, "b": b}
    assert _read(f"{rnd}({text})", env) == ROUNDINGS[rnd][0](value(env)), (text, env)


def _power_of_two(d: float) -> bool:
    return d != 0 and math.frexp(abs(d))[0] == 0.5


def _is_exact_in_doubles(code: str, value: Fraction, env: Env) -> bool:
    """Whether Python's evaluation of ``code`` happens to give the exact value (no step rounded)."""
    try:
        return Fraction(eval(code, {}, dict(env))) == value
    except OverflowError:
        return False


@settings(max_examples=300, deadline=None)
@given(affine(2), st.sampled_from(sorted(ROUNDINGS)), st.integers(-(2**20), 2**20), st.integers(-(2**20), 2**20))
def test_where_no_step_rounds_it_is_pythons_evaluation(f: Expr, rnd: str, a: int, b: int) -> None:
    """At moderate sizes the arithmetic on these literals (multiples of 1/8) is exact except for
    a division by a literal that is not a power of two: elsewhere PyTorch's printed code computes
    what symguard reads."""
    text, value, code = f
    env = {"a": a, "b": b}
    name = ROUNDINGS[rnd][1]
    if any(not _power_of_two(float(d)) for d in re.findall(r"/ (-?[0-9.e+]+)\)", code)):
        return  # a division that rounds: docs/pytorch-functions.md, the pruner keeps such guards opaque
    assert _is_exact_in_doubles(code, value(env), env), (code, env)
    assert _read(f"{rnd}({text})", env) == eval(f"{name}({code})", {"math": math}, dict(env))


def test_the_rotary_grid_guards_read_as_integers() -> None:
    """``ceil(n - 0.5)`` of an integer ``n`` is ``n``: the guards become integer facts."""
    t = parse_sympy("CeilToInt(FloatTrueDiv(ToFloat((s58//7)) - 0.5, 1.0)) >= 2")
    printed = parse_sympy("CeilToInt(FloatTrueDiv((-0.5) + ToFloat(s58 // 7), 1.0)) >= 2")  # PyTorch's print
    assert t.term is printed.term
    for n in range(-30, 60):
        assert evaluate(t.term, {"s58": n}) == (n // 7 >= 2)
    assert parse_sympy("FloorToInt(0.25 + 0.5*ToFloat(x)) > 1").term is parse_sympy(
        "FloorToInt(ToFloat(x)*0.5 + 0.25) > 1").term


@pytest.mark.parametrize(("text", "offset", "says"), [
    ("FloorToInt(ToFloat(x)*0.1 + 0.5) > y", 22, "0.1000000000000000055511151231257827"),
    ("FloorToInt(ToFloat(x)*ToFloat(y)) > 1", 11, "two non-constant floats"),
    ("CeilToInt(IntTrueDiv(x, y) - 0.5) > 1", 10, "symbolic divisor"),
    ("CeilToInt(FloatTrueDiv(ToFloat(x) - 0.5, ToFloat(y))) > 1", 10, "symbolic divisor"),
    ("CeilToInt(Max(ToFloat(x), 1.0) - 0.5) > 1", 10, "Max/Min/Abs/Where"),
    ("CeilToInt(ToFloat(x) % 2.0) > 1", 10, "'%'"),
    ("ToFloat(x) - ToFloat(y) >= 1.0", 0, "compared exactly"),  # compared: two variables' roundings
])
def test_what_leaves_the_affine_class_is_refused_where_it_is(text: str, offset: int, says: str) -> None:
    with pytest.raises(UnsupportedError) as e:
        parse_sympy(text)
    assert e.value.offset == offset and says in str(e.value), (text, e.value)


def test_decimal_exact_literals() -> None:
    assert all(decimal_exact(v) for v in (0.5, -0.75, 1.5, 0.375, 2.0**-10, 1e22, 0.0))
    assert not any(decimal_exact(v) for v in (0.1, 0.3, 2.0**-60, 1e23, math.inf, math.nan))


def test_a_literal_zero_divisor_fails_the_guard() -> None:
    p = parse_sympy("FloorToInt(FloatTrueDiv(ToFloat(x), 0.0)) > 1")  # Python raises ZeroDivisionError
    assert not evaluate(p.domain, {"x": 3})


# ------------------------------------------------------------------ premises of a redundancy answer

BOX = range(-3, 40)
GUARDS = [
    ("CeilToInt(FloatTrueDiv(ToFloat((n//7)) - 0.5, 1.0)) >= 2", "math.ceil(((-0.5) + float(n // 7)) / 1.0) >= 2"),
    ("Ne(CeilToInt(FloatTrueDiv(ToFloat((n//7)) - 0.5, 1.0)), 1)", "math.ceil(((-0.5) + float(n // 7)) / 1.0) != 1"),
    ("n >= 14", "n >= 14"),
    ("FloorToInt(0.5*ToFloat(m) + 0.25) >= 3", "math.floor(0.25 + 0.5*float(m)) >= 3"),
    ("m > 5", "m > 5"),
    ("CeilToInt(FloatTrueDiv(ToFloat(m) + 1.5, 2.0))*CeilToInt(FloatTrueDiv(ToFloat((n//7)) - 0.5, 1.0)) >= 8",
     "math.ceil((1.5 + float(m)) / 2.0)*math.ceil(((-0.5) + float(n // 7)) / 1.0) >= 8"),
]


def test_rotary_guards_are_premises_and_redundant_by_brute_force() -> None:
    doc: dict[str, Any] = {"symbols": {"n": {"min": BOX[0], "max": BOX[-1]}, "m": {"min": BOX[0], "max": BOX[-1]}},
                           "guards": [{"id": f"g{i}", "expr": t} for i, (t, _) in enumerate(GUARDS)]}
    ans = run("redundancy", doc)
    verdicts = {g["id"]: g["verdict"] for g in ans["guards"]}
    assert "unsupported" not in verdicts.values(), ans
    # n//7 >= 2 is n >= 14, which implies the Ne; floor(m/2 + 1/4) >= 3 is m >= 6; ceil((m + 1.5)/2) >= 4
    # and n//7 >= 2 give the product >= 8
    assert verdicts["g1"] == "redundant" and verdicts["g5"] == "redundant", ans
    assert {verdicts["g3"], verdicts["g4"]} == {"redundant", "required"}, ans
    kept = set(ans["minimal"])
    for n, m in product(BOX, BOX):
        ok = {f"g{i}": bool(eval(code, {"math": math}, {"n": n, "m": m})) for i, (_, code) in enumerate(GUARDS)}
        assert all(ok[g] for g in kept) == all(ok.values()), (n, m, ans["minimal"])


# ------------------------------------------------------------------ compared with a literal: Python's own roundings

OVERFLOW_EDGE = 2**1024 - 2**970  # |float(n)| raises OverflowError from here on
CHAIN_LITERALS = [0.5, -0.5, 0.1, 1.5, 3.0, -7.0, 1e300, 2.0**-1074, 1e-300, 3]


def chains(depth: int) -> st.SearchStrategy[tuple[str, str]]:
    """One converted integer with literal steps: symguard text, Python code."""
    if depth == 0:
        return st.one_of(
            st.sampled_from([("ToFloat(a)", "float(a)"), ("IntTrueDiv(a, 3)", "(a / 3)"), ("IntTrueDiv(a, -2)", "(a / -2)"),
                             ("ToFloat(2*a)", "float(2*a)"), ("a", "a")]))
    sub = chains(depth - 1)
    lit = st.sampled_from(CHAIN_LITERALS)
    return st.one_of(
        sub,
        st.tuples(sub, lit).map(lambda p: (f"({p[0][0]}) + {p[1]!r}", f"({p[0][1]} + {p[1]!r})")),
        st.tuples(sub, lit).map(lambda p: (f"{p[1]!r} - ({p[0][0]})", f"({p[1]!r} - {p[0][1]})")),
        st.tuples(sub, lit).map(lambda p: (f"({p[0][0]}) - {p[1]!r}", f"({p[0][1]} - {p[1]!r})")),
        st.tuples(sub, lit).map(lambda p: (f"{p[1]!r}*({p[0][0]})", f"({p[1]!r}*{p[0][1]})")),
        st.tuples(sub, lit).map(lambda p: (f"FloatTrueDiv({p[0][0]}, {p[1]!r})", f"({p[0][1]} / {p[1]!r})")),
        sub.map(lambda p: (f"-({p[0]})", f"(-{p[1]})")),
    )


BIG = st.one_of(st.integers(-(2**70), 2**70), st.sampled_from(
    [0, 1, -1, 2**53 + 1, -(2**53) - 1, 2**52 + 1, OVERFLOW_EDGE - 1, -OVERFLOW_EDGE + 1, OVERFLOW_EDGE,
     2 * OVERFLOW_EDGE, (OVERFLOW_EDGE - 1) // 2, 3 * OVERFLOW_EDGE - 1]))


@settings(max_examples=400, deadline=None)
@given(chains(3), st.sampled_from(["<", "<=", ">", ">=", "==", "!="]),
       st.sampled_from([0.0, 1.0, 2.5, -0.3, 1e300, 2**53, 2**53 + 1, 7, 1e-300, math.inf]), BIG)
def test_a_compared_chain_is_pythons_evaluation(f: tuple[str, str], op: str, lit: float, a: int) -> None:
    """Each step rounds as Python's does (the comparison is bisected on Python's own arithmetic):
    symguard's reading is Python's value at every size, overflow (a failing guard) included."""
    text, code = f
    try:
        want: bool | None = bool(eval(f"{code} {op} {lit!r}", {"inf": math.inf}, {"a": a}))
    except OverflowError:
        want = None
    p = parse_sympy(f"{text} {op} {lit!r}".replace("inf", "1e309"))
    got = bool(evaluate(p.term, {"a": a})) if evaluate(p.domain, {"a": a}) else None
    assert got == want, (text, op, lit, a)


@pytest.mark.parametrize(("text", "a"), [
    ("FloatTrueDiv(a, 3) == 3002399751580331.0", 2**53 + 1),  # (2**53 + 1) / 3 exactly; float(a)/3 is not
    ("(FloatTrueDiv(a, 3)) + 0.5 < 0.0", OVERFLOW_EDGE),  # float(a) overflows, a / 3 does not
    ("FloatTrueDiv(a, -7) >= -1e300", 2**1100),  # nor does it here: the quotient is finite
    ("FloatTrueDiv(a, 3.0) < 1.0", OVERFLOW_EDGE),  # a float literal: float(a) first, which overflows
])
def test_an_integer_divided_by_an_integer_literal_is_pythons_true_division(text: str, a: int) -> None:
    """``a / 3`` of an int ``a`` is Python's int true division, rounded once (``IntTrueDiv``), not
    ``float(a) / 3.0``: the two differ past 2**53 and where ``float(a)`` overflows."""
    lhs, op, lit = re.fullmatch(r"(.+) (==|<|>=) (\S+)", text).groups()  # type: ignore[union-attr]
    code = lhs.replace("FloatTrueDiv(a, ", "(a / ")
    try:
        want: bool | None = bool(eval(f"{code} {op} {lit}", {}, {"a": a}))
    except OverflowError:
        want = None
    p = parse_sympy(text)
    assert (bool(evaluate(p.term, {"a": a})) if evaluate(p.domain, {"a": a}) else None) == want


def test_a_compared_chain_refuses_what_can_make_a_nan_or_two_variables() -> None:
    for text, offset in [("ToFloat(a)*0.0 >= 1.0", 11), ("ToFloat(a) + ToFloat(b) >= 1.0", 0),
                         ("IntTrueDiv(a, b) + 0.5 > 1.0", 0), ("ToFloat(a) + 1e309 > 1.0", 13)]:
        with pytest.raises(UnsupportedError) as e:
            parse_sympy(text)
        assert e.value.offset == offset, (text, e.value)
