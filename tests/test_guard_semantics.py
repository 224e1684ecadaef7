"""``service.guard_semantics``: a guard it calls exact computes, as Dynamo's printed Python and C++
code, the exact value at every point of its ranges; and the four ways the executed value parts
from the exact one (floats past 2**53, lazy operands, int64 overflow, C's ``%``) are refused.

The property tests print each random guard with PyTorch's own printers, evaluate the Python code
with Python, and the C++ code's semantics with an int64 emulator that raises on overflow, at the
corners and random points of random ranges (negatives, zero and the int64 extremes included)."""

from __future__ import annotations

import math
import operator
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

sympy = pytest.importorskip("sympy")
pytest.importorskip("torch")

from bridge_harness import corners, inf, ranges, read, uneval, x, y
from cpp_model import cpp, i64
from torch.utils._sympy.functions import (
    CeilToInt,
    FloorDiv,
    FloorToInt,
    IntTrueDiv,
    PythonMod,
    ToFloat,
)
from torch.utils._sympy.printers import PythonPrinter

from symguard.service.guard_semantics import INT64_MAX, executed_exactly

# ------------------------------------------------------------------ the four ways, one by one

def test_float_division_past_2_53_is_opaque_and_exact_below() -> None:
    g = sympy.Ge(2 * CeilToInt(IntTrueDiv(x, 2)), x)
    assert not executed_exactly(g, {x: (2, inf)})
    assert executed_exactly(g, {x: (2, 2**40)})
    n = 2**53 + 1  # where Python's double and the exact value part
    assert 2 * math.ceil(n / 2) < n and 2 * (-(-n // 2)) >= n


def test_lazy_operands_are_read_in_pythons_order() -> None:
    """``and``/``or`` are exact: symguard reads ``&``/``|`` left to right as Python does (a divisor
    after a deciding operand is not evaluated), in the order both printers print; a Piecewise
    (``a if c else b``, whose last condition Python never reads) stays opaque."""
    from symguard.solver import run

    lazy_or = sympy.Or(sympy.Eq(y, 0), sympy.Eq(PythonMod(x, y), 0))
    assert executed_exactly(lazy_or, {x: (2, inf), y: (-inf, inf)})
    assert not executed_exactly(lazy_or, {x: (2, inf), y: (-inf, inf)}, "cpp")  # C++: y may be 0
    printed, read = PythonPrinter().doprint(lazy_or), str(lazy_or)
    assert (printed.index("y == 0") < printed.index("%")) == (read.index("Eq(y, 0)") < read.index("Mod"))
    # at y = 0 Python never divides: the guard holds there, so it does not imply y != 0
    ans = run("redundancy", {"symbols": {"x": {"min": 2, "hint": 4}, "y": {"min": None, "hint": 2}},
                             "guards": [{"id": "or", "expr": str(lazy_or)}, {"id": "ne", "expr": "Ne(y, 0)"}]})
    assert {g["id"]: g["verdict"] for g in ans["guards"]}["ne"] == "required"
    pw = sympy.Ge(sympy.Piecewise((FloorDiv(x, y), y > 5), (FloorDiv(x, 2), True)), 1)
    assert not executed_exactly(pw, {x: (2, inf), y: (-inf, inf)})


def test_int64_overflow_only_matters_in_cpp() -> None:
    g = sympy.Le(x * y, 100)
    r = {x: (2, inf), y: (2, inf)}
    assert executed_exactly(g, r, "python")
    assert not executed_exactly(g, r, "cpp")
    assert executed_exactly(g, {x: (2, 2**31), y: (2, 2**31)}, "cpp")
    assert executed_exactly(sympy.Eq(PythonMod(x, 1000), x), r, "cpp")


def test_cpp_mod_of_a_negative_is_opaque() -> None:
    g = sympy.Eq(sympy.Mod(x, 4, evaluate=False), 0)
    assert executed_exactly(g, {x: (0, 100)}, "cpp")
    assert not executed_exactly(g, {x: (-5, 100)}, "cpp")
    assert executed_exactly(g, {x: (-5, 100)}, "python")


def test_unknown_kinds_and_floats_are_opaque() -> None:
    assert not executed_exactly(sympy.Ge(sympy.Float(0.5) * x * y, 1), {x: (0, 10), y: (0, 10)})  # two variables
    assert executed_exactly(sympy.Ge(sympy.Float(0.5) * x, 1), {x: (0, 10)})  # Python's 0.5*x, read as it rounds
    assert not executed_exactly(sympy.Ge(sympy.Rational(1, 2) * x, 1), {x: (0, 10)})
    assert not executed_exactly(sympy.Ge(sympy.Symbol("f", real=True), 1), {})


# ------------------------------------------------------------------ property: exact means exact

def exact(e: Any, env: dict[Any, int]) -> Any:
    """The exact value (Python integers), strict: a zero divisor raises ZeroDivisionError."""
    k = type(e).__name__
    if e.is_Integer:
        return int(e)
    if e.is_Symbol:
        return env[e]
    a = [exact(v, env) for v in e.args] if k not in ("FloorToInt", "CeilToInt") else None
    if k == "Add":
        return sum(a)
    if k == "Mul":
        return math.prod(a)
    if k == "FloorDiv":
        return a[0] // a[1]
    if k in ("PythonMod", "Mod"):
        return a[0] % a[1]
    if k == "ModularIndexing":
        return (a[0] // a[1]) % a[2]
    if k == "Max":
        return max(a)
    if k == "Min":
        return min(a)
    if k in ("FloorToInt", "CeilToInt"):
        n, d = (exact(v, env) for v in e.args[0].args)
        return n // d if k == "FloorToInt" else -(-n // d)
    rel = {"Equality": "==", "Unequality": "!=", "StrictLessThan": "<", "LessThan": "<=",
           "StrictGreaterThan": ">", "GreaterThan": ">="}
    if k in rel:
        return eval(f"{a[0]} {rel[k]} {a[1]}")  # two integers
    raise AssertionError(k)


def terms(depth: int) -> st.SearchStrategy[Any]:
    leaf = st.one_of(st.sampled_from([x, y]), st.integers(-9, 9).map(sympy.Integer))
    if depth == 0:
        return leaf
    sub = terms(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(sub, sub).map(lambda p: sympy.Add(*p, evaluate=False)),
        st.tuples(sub, sub).map(lambda p: sympy.Mul(*p, evaluate=False)),
        st.tuples(sub, sub).map(lambda p: uneval(FloorDiv, *p)),
        st.tuples(sub, sub).map(lambda p: uneval(PythonMod, *p)),
        st.tuples(sub, sub).map(lambda p: sympy.Mod(*p, evaluate=False)),
        st.tuples(sub, sub).map(lambda p: sympy.Max(*p, evaluate=False)),
        st.tuples(sub, sub).map(lambda p: uneval(FloorToInt, uneval(IntTrueDiv, *p))),
        st.tuples(sub, sub).map(lambda p: uneval(CeilToInt, uneval(IntTrueDiv, *p))),
    )


bounds = st.one_of(st.integers(-50, 50), st.sampled_from([-inf, inf, 2**31, 2**53 - 7, 2**62, INT64_MAX]))
SIZES = [0, 1, -1, 2**53 + 1, -(2**53) - 1, 2**62]


@settings(max_examples=400, deadline=None)
@given(terms(2), terms(2), st.sampled_from(["Ge", "Eq", "Lt"]), ranges(bounds), st.lists(st.integers(-(2**63), 2**63 - 1), max_size=3))
def test_exact_guards_compute_their_exact_value(a: Any, b: Any, rel: str, r: Any, extra: list[int]) -> None:
    g = getattr(sympy, rel)(a, b, evaluate=False)
    assume(isinstance(g, sympy.Rel))
    py_ok, cpp_ok = executed_exactly(g, r, "python"), executed_exactly(g, r, "cpp")
    assume(py_ok or cpp_ok)
    code = PythonPrinter().doprint(g)
    for env in corners(r, SIZES + extra):
        try:
            want = exact(g, env)
        except ZeroDivisionError:
            want = None  # the guard fails (raises) in every reading
        if py_ok:
            try:
                got = eval(code, {"math": math}, {"x": env[x], "y": env[y]})
            except ZeroDivisionError:
                got = None
            assert got == want, (code, env)
        if cpp_ok:
            assert want is not None, (g, env)  # a C++ zero divisor is undefined behaviour: never claimed exact
            assert cpp(g, env) == want, (g, env)


@settings(max_examples=2000, deadline=None)
@given(st.integers(-(2**53), 2**53), st.one_of(st.integers(1, 2**26), st.integers(2**26, 2**53)),
       st.booleans(), st.integers(-3, 3))
def test_the_2_53_bound_of_rounded_division(a: int, b: int, neg: bool, nudge: int) -> None:
    """The claim behind ``_rounded_division``: with ``|a| + |b| < 2**53`` the double quotient's
    floor, ceiling and truncation are the exact ones (near multiples of ``b`` especially)."""
    from fractions import Fraction

    b = -b if neg else b
    a = (a // b) * b + nudge  # next to a multiple, where rounding would show
    assume(abs(a) + abs(b) < 2**53)
    assert math.floor(a / b) == a // b
    assert math.ceil(a / b) == -(-a // b)
    assert math.trunc(a / b) == math.trunc(Fraction(a, b))


def test_past_the_bound_the_double_quotient_is_wrong() -> None:
    a, b = 2**53 + 1, 2
    assert math.ceil(a / b) != -(-a // b)
    g = sympy.Ge(2 * CeilToInt(IntTrueDiv(x, 2)), x)
    assert not executed_exactly(g, {x: (2, 2**53 + 1)})
    assert executed_exactly(g, {x: (2, 2**53 - 3)})


def test_a_misprinted_guard_is_opaque() -> None:
    """PyTorch's printer drops the brackets of a sympy ``Mod`` factor under a negative
    coefficient: ``3 - Mod(s0, 4)`` runs as ``3 + ((-1)*s0 % 4)``, 4 at s0 = 7 where the exact
    value is 0. Such a guard runs another function than the one symguard would reason about."""
    g = sympy.Eq(3 - sympy.Mod(x, 4), 0)
    code = PythonPrinter().doprint(g)
    assert eval(code, {}, {"x": 7}) != bool(g.subs(x, 7))  # the misprint, as PyTorch prints it today
    assert not executed_exactly(g, {x: (2, inf)})
    assert executed_exactly(sympy.Eq(sympy.Mod(x, 4), 3), {x: (2, inf)})
    assert executed_exactly(sympy.Eq(3 - PythonMod(x, 4), 0), {x: (2, inf)})  # PythonMod prints bracketed


# ------------------------------------------------------------------ a float compared with a literal

def cpp_float(e: Any, env: dict[Any, int]) -> Any:
    """What CppPrinter's code computes for a float: ``static_cast<double>`` of each integer."""
    k = type(e).__name__
    if e.is_Float:
        return float(e)
    if k == "IntTrueDiv":
        return float(cpp(e.args[0], env)) / float(cpp(e.args[1], env))
    if k == "ToFloat":
        return float(cpp(e.args[0], env))
    if k in ("Max", "Min"):
        vals = [float(cpp_float(a, env)) for a in e.args]
        return max(vals) if k == "Max" else min(vals)
    if k == "Abs":
        return abs(float(cpp_float(e.args[0], env)))
    return float(cpp(e, env))


def floats(depth: int) -> st.SearchStrategy[Any]:
    ints = st.one_of(st.sampled_from([x, y, 2 * x, x + y, x * y]), st.integers(-3, 3).map(sympy.Integer))
    leaf = st.one_of(st.tuples(ints, ints).map(lambda p: uneval(IntTrueDiv, *p)), ints.map(lambda a: uneval(ToFloat, a)))
    if depth == 0:
        return leaf
    sub = floats(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(sub, st.one_of(sub, ints, st.sampled_from([0.5, 1.0, 3.0]).map(sympy.Float))).map(
            lambda p: sympy.Max(*p, evaluate=False)),
        st.tuples(sub, st.one_of(sub, ints)).map(lambda p: sympy.Min(*p, evaluate=False)),
        sub.map(lambda f: sympy.Abs(f, evaluate=False)),
    )


LITERALS = st.one_of(st.sampled_from([0.0, 0.5, 1.0, 1.5, 0.3, 2.5, -1.0, 1e-5, 1e300]).map(sympy.Float),
                     st.sampled_from([0, 1, 2, -7, 2**53, 2**53 + 1]).map(sympy.Integer))


def _printed_value(code: str, env: dict[Any, int]) -> Any:
    """PyTorch's printed Python of a guard over ``x``, ``y`` at ``env`` (a raise is no value)."""
    import torch

    try:
        return eval(code, {"math": math, "torch": torch}, {"x": env[x], "y": env[y]})
    except (ZeroDivisionError, OverflowError):
        return None


@settings(max_examples=300, deadline=None)
@given(floats(1), LITERALS, st.sampled_from(["Ge", "Gt", "Lt", "Le", "Eq", "Ne"]), st.booleans(), ranges(bounds),
       st.lists(st.integers(-(2**63), 2**63 - 1), max_size=3))
def test_float_relations_compute_what_symguard_reads(f: Any, lit: Any, rel: str, flip: bool, r: Any,
                                                     extra: list[int]) -> None:
    """Python's ``a / b`` and ``float(a)`` are correctly rounded at any size (exact, with the
    reader's domain where they raise); C++'s doubles only within 2**53 and away from 0."""
    args = (lit, f) if flip else (f, lit)
    g = getattr(sympy, rel)(*args, evaluate=False)
    assume(isinstance(g, sympy.Rel))
    py_ok, cpp_ok = executed_exactly(g, r, "python"), executed_exactly(g, r, "cpp")
    assume(py_ok or cpp_ok)
    code = PythonPrinter().doprint(g)
    ops = {"Ge": operator.ge, "Gt": operator.gt, "Lt": operator.lt, "Le": operator.le, "Eq": operator.eq,
           "Ne": operator.ne}
    for env in corners(r, SIZES + extra):
        want = read(g, env)
        if py_ok:
            assert _printed_value(code, env) == want, (code, env)
        if cpp_ok:
            assert want is not None, (g, env)
            a, b = (cpp_float(v, env) if v is f else float(v) for v in args)
            assert ops[rel](a, b) == want, (g, env)


def test_real_float_guards_are_exact_in_python_and_within_2_53_in_cpp() -> None:
    """The guards of ``max(k / q, 1.0)`` (HF relative positions); a float whose ``str`` does not
    round-trip (15 digits) and two roundings stay opaque."""
    from torch.utils._sympy.functions import FloatTrueDiv

    wide, narrow = {x: (2, inf), y: (2, inf)}, {x: (2, 2**40), y: (2, 2**40)}
    for g in [sympy.Ge(IntTrueDiv(x, y), 1.0), sympy.Lt(IntTrueDiv(2 * x, y), 1.0), sympy.Eq(IntTrueDiv(x, y), 1.5),
              sympy.Gt(ToFloat(x), 2.5), sympy.Gt(sympy.Max(1.0, IntTrueDiv(x, y)), 1.0)]:
        assert executed_exactly(g, wide) and executed_exactly(g, narrow, "cpp"), g
        assert not executed_exactly(g, wide, "cpp"), g
    assert not executed_exactly(sympy.Ge(IntTrueDiv(x, y), 1.0), {x: (2, 10), y: (-1, 10)}, "cpp")  # y may be 0
    assert executed_exactly(sympy.Ge(IntTrueDiv(x, y), 1.0), {x: (2, 10), y: (-1, 10)})  # Python raises: the domain
    assert not executed_exactly(sympy.Ne(IntTrueDiv(x, y), sympy.Float(0.1 + 0.2)), wide)  # str prints 0.3
    assert not executed_exactly(sympy.Ge(FloatTrueDiv(ToFloat(x), ToFloat(y)), 1.0), narrow)
    assert not executed_exactly(sympy.Ge(IntTrueDiv(x, y), IntTrueDiv(y, x)), narrow)


def test_float_comparisons_are_found_for_the_bridge() -> None:
    """The bridge rewrites no guard comparing a float: its form would be defined where Python's
    ``a / b`` overflows and the original fails."""
    from symguard.service.guard_semantics import compares_floats

    assert compares_floats(sympy.And(x > 2, sympy.Ge(IntTrueDiv(x, y), 1.0)))
    assert compares_floats(sympy.Lt(sympy.Max(ToFloat(x), 2), 3))
    assert not compares_floats(sympy.Ge(2 * CeilToInt(IntTrueDiv(x, 2)), x))
    assert not compares_floats(sympy.Ge(x, y))


# ------------------------------------------------------------------ float arithmetic under a rounding function

def cpp_affine(e: Any, env: dict[Any, int]) -> Any:
    """What CppPrinter's code computes for rounded float arithmetic: ``static_cast<double>`` of an
    int64, IEEE doubles rounded to nearest in printed order (``expr.args``; an integer operand of a
    double operation converted), ``std::lrint`` half to even, int64 results that must not overflow."""
    k = type(e).__name__
    if e.is_Float:
        return float(e)
    if k == "ToFloat":
        return float(cpp(e.args[0], env))
    if k == "IntTrueDiv":
        return float(cpp(e.args[0], env)) / float(cpp(e.args[1], env))
    if k == "FloatTrueDiv":
        return cpp_affine(e.args[0], env) / cpp_affine(e.args[1], env)
    rounding = {"FloorToInt": math.floor, "CeilToInt": math.ceil, "TruncToInt": math.trunc, "RoundToInt": round}
    if k in rounding:
        return i64(rounding[k](cpp_affine(e.args[0], env)))
    ops = {"Add": operator.add, "Mul": operator.mul, "Equality": operator.eq, "Unequality": operator.ne,
           "StrictLessThan": operator.lt, "LessThan": operator.le, "StrictGreaterThan": operator.gt,
           "GreaterThan": operator.ge}
    if k not in ops:
        return cpp(e, env)  # integer code
    vals = [cpp_affine(a, env) for a in e.args]
    if k not in ("Add", "Mul"):
        return ops[k](*vals)
    acc = vals[0]
    for v in vals[1:]:
        acc = ops[k](acc, v)
        if isinstance(acc, int):
            i64(acc)
    return acc


AFFINE_LITERALS = [0.5, -0.5, 0.25, 1.5, -0.75, 1.0, 2.0, 4.0, 0.125]


def affine_floats(depth: int) -> st.SearchStrategy[Any]:
    """Float arithmetic PyTorch prints for sizes: converted integers, true division by a literal,
    sums, products and true division by float literals."""
    from torch.utils._sympy.functions import FloatTrueDiv

    ints = st.sampled_from([x, y, uneval(FloorDiv, x, 7), x - y, 2 * x])
    lit = st.sampled_from(AFFINE_LITERALS).map(sympy.Float)
    leaf = st.one_of(ints.map(lambda a: uneval(ToFloat, a)),
                     st.tuples(ints, st.sampled_from([2, -4, 3, 8])).map(lambda p: uneval(IntTrueDiv, *p)))
    if depth == 0:
        return leaf
    sub = affine_floats(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(sub, st.one_of(sub, lit)).map(lambda p: p[0] + p[1]),
        st.tuples(sub, lit).map(lambda p: p[1] * p[0]),
        st.tuples(sub, st.sampled_from([1.0, 2.0, 0.5, -4.0, 3.0]).map(sympy.Float)).map(
            lambda p: uneval(FloatTrueDiv, *p)),
    )


EDGES = [2**52 - 1, 2**52, 2**52 + 1, 2**53 - 1, 2**53, 2**53 + 1, 7 * 2**52 + 3, 2**62, INT64_MAX]
affine_bounds = st.one_of(st.integers(-50, 50), st.sampled_from([-inf, inf, *EDGES, *(-v for v in EDGES)]))


@settings(max_examples=500, deadline=None)
@given(affine_floats(2), st.sampled_from(["FloorToInt", "CeilToInt", "TruncToInt", "RoundToInt"]),
       st.sampled_from(["Ge", "Eq", "Lt", "Ne"]), st.one_of(st.integers(-3, 3).map(sympy.Integer), st.just(y)),
       ranges(affine_bounds), st.lists(st.integers(-(2**63), 2**63 - 1), max_size=3))
def test_rounded_float_arithmetic_claimed_exact_is_exact(f: Any, rnd: str, rel: str, other: Any, r: Any,
                                                         extra: list[int]) -> None:
    """A guard the walk calls exact computes, as PyTorch's printed Python and C++ code, the value
    symguard reads (the exact rational rounded) at the corners of its ranges and next to 2**52,
    2**53 and 2**63, where a double sum or conversion would round first."""
    from torch.utils._sympy import functions as F

    g = getattr(sympy, rel)(getattr(F, rnd)(f), other, evaluate=False)
    _computes_what_symguard_reads(g, r, extra)


def test_the_rotary_guard_is_exact_below_2_52_and_opaque_past_it() -> None:
    """``math.ceil(-0.5 + float(n))``: ``n - 0.5`` is a double while ``|n| < 2**52``; at
    ``n = 2**52 + 1`` it is a tie that rounds to even, and the ceiling is one too small."""
    from torch.utils._sympy.functions import FloatTrueDiv

    g = sympy.Ge(CeilToInt(uneval(FloatTrueDiv, ToFloat(x) - 0.5, sympy.Float(1.0))), y)
    small, past = {x: (2, 2**52 - 1), y: (0, 10)}, {x: (2, 2**52 + 1), y: (0, 10)}
    assert executed_exactly(g, small) and executed_exactly(g, small, "cpp")
    assert not executed_exactly(g, past) and not executed_exactly(g, past, "cpp")
    assert not executed_exactly(g, {x: (2, inf), y: (0, 10)})  # Dynamo's unbounded sizes
    n = 2**52 + 1
    assert math.ceil(-0.5 + float(n)) == n - 1  # past the bound Python's double is wrong
    for v in (2**52 - 1, 2**52 - 2, 3):
        assert math.ceil(-0.5 + float(v)) == v


def test_rounding_arithmetic_stays_opaque_where_a_step_rounds() -> None:
    """A division by a literal that is not a power of two, a quotient by a non-power of two inside
    a sum: each step rounds, so the guard is opaque whatever the ranges."""
    from torch.utils._sympy.functions import FloatTrueDiv

    small = {x: (2, 100), y: (2, 100)}
    assert not executed_exactly(sympy.Ge(FloorToInt(uneval(FloatTrueDiv, ToFloat(x), sympy.Float(2.5))), 2), small)
    assert not executed_exactly(sympy.Ge(FloorToInt(IntTrueDiv(x, 3) + 0.5), 2), small)
    assert not executed_exactly(sympy.Ge(FloorToInt(0.1 * ToFloat(x) + 0.5), y), small)  # 0.1 in a chain, not compared
    assert executed_exactly(sympy.Ge(FloorToInt(0.1 * ToFloat(x)), 2), small)  # compared: read as Python computes it
    assert executed_exactly(sympy.Ge(FloorToInt(IntTrueDiv(x, 4) + 0.5), 2), small)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(AFFINE_LITERALS), st.sampled_from(AFFINE_LITERALS + [0.0]),
       st.sampled_from([1.0, 2.0, 0.5, -4.0]), st.sampled_from(["FloorToInt", "CeilToInt", "TruncToInt", "RoundToInt"]),
       st.integers(49, 55), st.integers(-4, 4), st.booleans())
def test_the_exactness_bound_by_brute_force_next_to_it(c1: float, c2: float, d: float, rnd: str, k: int,
                                                       nudge: int, neg: bool) -> None:
    """``Rnd(FloatTrueDiv(c1*float(x) + c2, d))`` on a window of 17 sizes ending next to ``2**k``
    (``k`` around 53, where the double sum starts to round): if the walk calls the window exact,
    Python's and the C++ code's value is the exact one at every one of its points."""
    import torch
    from torch.utils._sympy import functions as F

    f = uneval(F.FloatTrueDiv, sympy.Float(c1) * ToFloat(x) + sympy.Float(c2), sympy.Float(d))
    g = sympy.Eq(getattr(F, rnd)(f), y, evaluate=False)
    hi = 2**k + nudge
    window = (-hi, -hi + 16) if neg else (hi - 16, hi)
    r = {x: window, y: (-inf, inf)}
    py_ok, cpp_ok = executed_exactly(g, r, "python"), executed_exactly(g, r, "cpp")
    code = PythonPrinter().doprint(f)
    fn = {"FloorToInt": math.floor, "CeilToInt": math.ceil, "TruncToInt": math.trunc, "RoundToInt": round}[rnd]
    for v in range(window[0], window[1] + 1):
        want = fn((Fraction(c1) * v + Fraction(c2)) / Fraction(d))
        if py_ok:
            assert fn(eval(code, {"torch": torch}, {"x": v})) == want, (code, v, window)
        if cpp_ok:
            assert cpp_affine(getattr(F, rnd)(f), {x: v}) == want, (f, v, window)
        if py_ok or cpp_ok:
            assert read(sympy.Eq(getattr(F, rnd)(f), want, evaluate=False), {x: v, y: 0}) is True


def compared_chains(depth: int) -> st.SearchStrategy[Any]:
    """Python's double arithmetic of one converted size with literals (any double: compared, each
    step's rounding is what symguard reads)."""
    from torch.utils._sympy.functions import FloatTrueDiv

    leaf = st.one_of(st.sampled_from([x, 2 * x, uneval(FloorDiv, x, 7)]).map(lambda a: uneval(ToFloat, a)),
                     st.sampled_from([3, -2, 4]).map(lambda d: uneval(IntTrueDiv, x, d)))
    if depth == 0:
        return leaf
    sub = compared_chains(depth - 1)
    lit = st.sampled_from([0.5, -0.5, 0.1, 1.5, 3.0, 1e300]).map(sympy.Float)
    return st.one_of(leaf, st.tuples(sub, lit).map(lambda p: p[0] + p[1]), st.tuples(sub, lit).map(lambda p: p[1] * p[0]),
                     st.tuples(sub, lit).map(lambda p: p[1] - p[0]),
                     st.tuples(sub, lit).map(lambda p: uneval(FloatTrueDiv, *p)))


@settings(max_examples=300, deadline=None)
@given(compared_chains(2), st.sampled_from([0.0, 0.5, 1.0, 2.5, 0.3, -1.0, 1e300]).map(sympy.Float),
       st.sampled_from(["Ge", "Gt", "Lt", "Le", "Eq", "Ne"]), ranges(affine_bounds),
       st.lists(st.integers(-(2**63), 2**63 - 1), max_size=3))
def test_compared_float_arithmetic_computes_what_symguard_reads(f: Any, lit: Any, rel: str, r: Any,
                                                               extra: list[int]) -> None:
    """Python: symguard reads each step rounded as Python rounds it, at any size; C++ only where no
    step rounds (it may contract ``a*x + c`` into one rounding)."""

    g = getattr(sympy, rel)(f, lit, evaluate=False)
    _computes_what_symguard_reads(g, r, extra)


def _computes_what_symguard_reads(g: Any, r: Any, extra: list[int]) -> None:
    """Where the pruner calls ``g`` exact, PyTorch's printed Python (a raise is no value) and the C++
    emulation compute the value symguard reads, at the corners of ``r`` and next to the extremes."""
    assume(isinstance(g, sympy.Rel))
    py_ok, cpp_ok = executed_exactly(g, r, "python"), executed_exactly(g, r, "cpp")
    assume(py_ok or cpp_ok)
    code = PythonPrinter().doprint(g)
    for env in corners(r, SIZES + extra + EDGES + [-v for v in EDGES]):
        want = read(g, env)
        if py_ok:
            assert _printed_value(code, env) == want, (code, env)
        if cpp_ok:
            assert want is not None and cpp_affine(g, env) == want, (g, env)


# ------------------------------------------------------------------ float literals that are not their double

INEXACT = [0.4, 0.1, -0.3, 0.7, 1.1, 0.57, 1e300]


def _literal_edges() -> list[int]:
    """Sizes next to the proven bounds of ``float_literal.scaled`` (and of ``7n`` and ``2n``)."""
    from symguard.solver.syntax import float_literal as fl

    out: set[int] = set()
    for c in INEXACT:
        for name in fl.ROUNDINGS:
            s = fl.scaled(c, name)
            assert s is not None
            for b in (s.hi_bound, -s.lo_bound):
                for v in (b, b // 2, b * 7):
                    out |= {v - 1, v, v + 1}
    return sorted(out)


def inexact_floats() -> st.SearchStrategy[Any]:
    """``c*float(n)`` for literals that are not their double, alone (read as an integer anywhere)
    or in a longer chain (read only compared with a literal)."""
    from torch.utils._sympy.functions import FloatTrueDiv

    ints = st.sampled_from([x, uneval(FloorDiv, x, 7), 2 * x])
    lit = st.sampled_from(INEXACT).map(sympy.Float)
    scaled = st.tuples(lit, ints).map(lambda p: p[0] * uneval(ToFloat, p[1]))
    return st.one_of(
        scaled,
        st.tuples(scaled, st.sampled_from([0.5, 0.3, -1.0]).map(sympy.Float)).map(lambda p: p[0] + p[1]),
        st.tuples(ints, lit).map(lambda p: uneval(FloatTrueDiv, uneval(ToFloat, p[0]), p[1])),
    )


@settings(max_examples=500, deadline=None)
@given(inexact_floats(), st.sampled_from(["FloorToInt", "CeilToInt", "TruncToInt", "RoundToInt"]),
       st.sampled_from(["Ge", "Eq", "Lt", "Ne"]),
       st.one_of(st.integers(-3, 3).map(sympy.Integer), st.just(sympy.Integer(21)), st.just(y), st.just(x - y)),
       ranges(st.one_of(affine_bounds, st.sampled_from(_literal_edges()))),
       st.lists(st.integers(-(2**63), 2**63 - 1), max_size=3))
def test_a_rounded_literal_that_is_not_its_double_claimed_exact_is_exact(f: Any, rnd: str, rel: str, other: Any,
                                                                        r: Any, extra: list[int]) -> None:
    """Compared with a literal: Python at any size, C++ for one step within ±2**53; used as an
    integer (``other`` symbolic): within the literal's proven bound, both languages."""
    from torch.utils._sympy import functions as F

    g = getattr(sympy, rel)(getattr(F, rnd)(f), other, evaluate=False)
    _computes_what_symguard_reads(g, r, extra)


def test_the_vit_mae_guards_are_exact_where_the_literal_bound_holds() -> None:
    """``int(0.4 * num_patches)`` (ViTMAE): compared with a literal it is exact in Python at any
    size; as an integer inside other arithmetic only while ``num_patches < 2**51``, and in C++
    only while the product of sizes fits (and within ``±2**53``)."""
    from torch.utils._sympy.functions import Mod, TruncToInt

    from symguard.solver.syntax import float_literal as fl

    a, b, s4 = sympy.symbols("s24 s58 s4", integer=True, positive=True)
    n = uneval(FloorDiv, a, 6) * uneval(FloorDiv, b, 6)
    t = TruncToInt(sympy.Float(0.4) * ToFloat(n))
    compared = [sympy.Eq(t, 21), sympy.Ne(t, 1)]
    inside = [sympy.And(t >= 0, t <= n), sympy.Ne(Mod(s4, s4 * (t + 1)), 0)]
    unbounded = {a: (2, inf), b: (2, inf), s4: (2, inf)}
    small = {a: (2, 2**20), b: (2, 2**20), s4: (2, 2**20)}
    for g in compared:
        assert executed_exactly(g, unbounded) and not executed_exactly(g, unbounded, "cpp")
        assert executed_exactly(g, small, "cpp")
    for g in inside:
        assert not executed_exactly(g, unbounded) and not executed_exactly(g, unbounded, "cpp")
        assert executed_exactly(g, small) and executed_exactly(g, small, "cpp")
    bound = fl.scaled(0.4, "TruncToInt").hi_bound  # type: ignore[union-attr]
    assert 2**50 < bound < 2**52
    one = TruncToInt(sympy.Float(0.4) * ToFloat(x))
    assert executed_exactly(sympy.Ge(one, y), {x: (0, bound), y: (0, 9)})
    assert not executed_exactly(sympy.Ge(one, y), {x: (0, bound + 1), y: (0, 9)})
    # 0.7 parts from 7/10 at 90: never an integer inside arithmetic, still exact compared
    seven = TruncToInt(sympy.Float(0.7) * ToFloat(x))
    assert not executed_exactly(sympy.Ge(seven, y), {x: (0, 10), y: (0, 9)})
    assert executed_exactly(sympy.Ge(seven, 62), {x: (0, inf)})
