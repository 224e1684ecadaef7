"""``service.guard_semantics.may_raise``: where it says a guard's printed Python code cannot raise
on some ranges, Python's own evaluation of PyTorch's ``PythonPrinter`` code raises at no point of
them (zero divisors, negative roots, logarithms of 0, roundings of an infinite float).

Why it matters: when a C++ shape guard rejects, Dynamo finds the recompile's reason by running the
guards' Python code in order, and an exception there reaches the caller; the pruner keeps every
guard up to the last emitted one that may raise in place (tests/torch_adversarial.py,
``narrowed_divisor``, is the compile that found it)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sympy = pytest.importorskip("sympy")
torch = pytest.importorskip("torch")

from bridge_harness import corners, inf, ranges, uneval, x, y
from torch.utils._sympy.functions import (
    CeilToInt,
    FloatTrueDiv,
    FloorDiv,
    FloorToInt,
    IntTrueDiv,
    OpaqueUnaryFn_log2,
    OpaqueUnaryFn_sqrt,
    PythonMod,
    RoundToInt,
    ToFloat,
    TruncToInt,
)
from torch.utils._sympy.printers import PythonPrinter

from symguard.service.guard_semantics import may_raise


def built(make: Any) -> Any:
    """``make()``, or None where sympy evaluates a constant that raises (``sqrt(-1.0)``)."""
    try:
        return make()
    except (ValueError, ZeroDivisionError, OverflowError, TypeError):
        return None


def raises(g: Any, env: dict[Any, int]) -> bool:
    """Whether Python raises evaluating PyTorch's printed code of ``g`` at ``env``."""
    code = PythonPrinter().doprint(g)
    try:
        eval(code, {"math": math, "torch": torch}, {str(k): v for k, v in env.items()})
    except (ZeroDivisionError, ValueError, OverflowError, TypeError):
        return True
    return False


LEAVES = st.sampled_from([x, y, sympy.Integer(0), sympy.Integer(1), sympy.Integer(-1), sympy.Integer(3),
                          sympy.Integer(2**40)])


def int_terms() -> st.SearchStrategy[Any]:
    """Integer terms of ``x``, ``y`` and literals: sums, products, floor divisions, moduli."""
    return st.recursive(LEAVES, lambda sub: st.one_of(
        st.tuples(sub, sub).map(lambda ab: built(lambda: ab[0] + ab[1])),
        st.tuples(sub, sub).map(lambda ab: built(lambda: ab[0] - ab[1])),
        st.tuples(sub, LEAVES).map(lambda ab: built(lambda: ab[0] * ab[1])),
        st.tuples(sub, sub).map(lambda ab: uneval(FloorDiv, *ab)),
        st.tuples(sub, sub).map(lambda ab: uneval(PythonMod, *ab))).filter(lambda t: t is not None), max_leaves=4)


FLOAT_LITERALS = st.sampled_from([0.5, 1.5, 0.3, -2.0, 1e300]).map(sympy.Float)


def float_terms() -> st.SearchStrategy[Any]:
    """Float terms: a converted integer, a true division, a root, a logarithm, arithmetic with a
    literal, a division by a literal (0.0 included)."""
    base = st.one_of(
        int_terms().map(lambda t: ToFloat(t)),
        st.tuples(int_terms(), int_terms()).map(lambda ab: uneval(IntTrueDiv, *ab)),
        int_terms().map(lambda t: built(lambda: OpaqueUnaryFn_sqrt(ToFloat(t)))),
        st.tuples(int_terms(), st.sampled_from([1, 8])).map(
            lambda ab: built(lambda: OpaqueUnaryFn_log2(uneval(IntTrueDiv, ab[0], sympy.Integer(ab[1])))))
    ).filter(lambda t: t is not None)
    return st.recursive(base, lambda sub: st.one_of(
        st.tuples(sub, FLOAT_LITERALS).map(lambda ab: built(lambda: ab[0] * ab[1])),
        st.tuples(sub, FLOAT_LITERALS).map(lambda ab: built(lambda: ab[0] + ab[1])),
        st.tuples(sub, sub).map(lambda ab: built(lambda: ab[0] * ab[1])),
        st.tuples(sub, st.sampled_from([2.0, 0.0]).map(sympy.Float)).map(lambda ab: uneval(FloatTrueDiv, *ab))
    ).filter(lambda t: t is not None), max_leaves=3)


ROUNDINGS = [FloorToInt, CeilToInt, TruncToInt, RoundToInt]


def guards() -> st.SearchStrategy[Any]:
    rounded = st.tuples(st.sampled_from(ROUNDINGS), float_terms()).map(
        lambda fa: built(lambda: fa[0](fa[1]))).filter(lambda t: t is not None)
    lhs = st.one_of(int_terms(), rounded)
    return st.tuples(lhs, int_terms(), st.sampled_from([sympy.Ge, sympy.Eq])).map(
        lambda t: built(lambda: t[2](t[0], t[1]))).filter(lambda t: t is not None)


bounds = st.sampled_from([-inf, -(2**63), -3, -1, 0, 1, 2, 7, 2**40, 2**63 - 1, inf])
SIZES = (-2, -1, 0, 1, 2, 3, 8, 9, 2**31)


@settings(max_examples=200, deadline=None)
@given(guards(), ranges(bounds))
def test_a_guard_called_safe_never_raises(g: Any, r: dict[Any, tuple[float, float]]) -> None:
    if may_raise(g, r):
        return
    for env in corners(r, SIZES):
        assert not raises(g, env), (g, r, env)


# ------------------------------------------------------------------ each cause, both ways


def test_zero_divisors_on_the_ranges_part_2_sees() -> None:
    """The zoo's ``narrowed_divisor``: ``n // k >= 3`` raises at ``k = 0``, which the range
    ``k >= 1`` (checked only after part 2) does not keep out of the unchecked inputs."""
    g = sympy.Ge(uneval(FloorDiv, x, y), 3)
    assert may_raise(g, {x: (0, inf), y: (-inf, inf)}) and raises(g, {x: 2, y: 0})
    assert may_raise(g, {x: (0, inf), y: (0, inf)})
    assert not may_raise(g, {x: (0, inf), y: (1, inf)})
    assert not may_raise(sympy.Ge(uneval(FloorDiv, x, y + 1), 3), {x: (0, inf), y: (0, inf)})
    assert may_raise(sympy.Eq(uneval(PythonMod, x, y), 0), {y: (-5, 5)})
    assert may_raise(sympy.Ge(uneval(IntTrueDiv, x, y), sympy.Float(1.5)), {y: (0, inf)})


def test_float_functions_outside_their_domain() -> None:
    root = sympy.Ge(TruncToInt(OpaqueUnaryFn_sqrt(ToFloat(x))), 3)
    assert not may_raise(root, {x: (0, inf)})
    assert may_raise(root, {x: (-1, inf)}) and raises(root, {x: -1})
    log = sympy.Ge(TruncToInt(OpaqueUnaryFn_log2(uneval(IntTrueDiv, x, sympy.Integer(8)))), 0)
    assert not may_raise(log, {x: (1, inf)})
    assert may_raise(log, {x: (0, inf)}) and raises(log, {x: 0})


def test_roundings_of_floats_that_may_overflow() -> None:
    """``math.floor`` of ``inf`` raises: a product of a huge literal and two sizes overflows."""
    safe = sympy.Ge(FloorToInt(sympy.Float(1.5) * ToFloat(x)), 3)
    assert not may_raise(safe, {x: (0, inf)})
    big = sympy.Ge(FloorToInt(sympy.Float(1e300) * ToFloat(x) * ToFloat(x)), 3)
    assert may_raise(big, {x: (0, inf)}) and raises(big, {x: 2**40})
    by_zero = sympy.Ge(FloorToInt(uneval(FloatTrueDiv, ToFloat(x), sympy.Float(0.0))), 3)
    assert may_raise(by_zero, {x: (0, 5)}) and raises(by_zero, {x: 1})


def test_c_modulus_of_int64_min_by_minus_one() -> None:
    """C's ``%`` traps on ``INT64_MIN % -1`` (SIGFPE), Python's is 0: a modulus whose divisor may
    be -1 (never 0) and whose dividend may reach ``INT64_MIN`` may raise; kept from either, it
    may not."""
    g = sympy.Eq(uneval(PythonMod, x, -y - 1), 0)
    assert not raises(g, {x: -(2**63), y: 0})  # Python's own evaluation: 0
    assert may_raise(g, {y: (0, inf)})
    assert not may_raise(g, {x: (0, inf), y: (0, inf)})
    assert not may_raise(sympy.Eq(uneval(PythonMod, x, y + 1), 0), {y: (0, inf)})
    assert not may_raise(sympy.Eq(uneval(PythonMod, x, sympy.Integer(4)), 0), {})
