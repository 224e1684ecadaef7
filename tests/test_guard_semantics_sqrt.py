"""``service.guard_semantics`` on ``int(math.sqrt(n))`` and ``int(n ** 0.5)`` guards: where it
calls one exact, Dynamo's printed Python code (``math.trunc(torch._sym_sqrt(torch.sym_float(n)))``,
``math.trunc(torch.sym_float(n) ** 0.5)``) and C++ code (``static_cast<int64_t>(std::trunc(std::sqrt(
static_cast<double>(n))))``, ``std::pow(…, 0.5)``, emulated with Python's doubles, which are the same
IEEE operations and the same C library ``pow``, and int64 arithmetic that raises on overflow)
compute the value symguard reads, at the corners of random ranges and next to the bounds, ``2**53``
and the squares there; past its bound the integer form is opaque."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sympy = pytest.importorskip("sympy")
pytest.importorskip("torch")

from bridge_harness import check_claims, ranges
from torch.utils._sympy.functions import (
    CeilToInt,
    FloatPow,
    FloorDiv,
    FloorToInt,
    OpaqueUnaryFn_sqrt,
    PythonMod,
    RoundToInt,
    ToFloat,
    TruncToInt,
)

from symguard.service.guard_semantics import INT64_MAX, executed_exactly
from symguard.solver.syntax.float_sqrt import BOUND, POW_BOUND

x, y = sympy.symbols("x y", integer=True)
inf = math.inf


class _Torch:
    """What the printed Python code calls: ``torch._sym_sqrt`` of a float is ``math.sqrt``."""

    sym_float = float
    _sym_sqrt = staticmethod(math.sqrt)


def side(rnd: Any, n: Any, power: bool = False) -> Any:
    return rnd(FloatPow(ToFloat(n), sympy.Float(0.5)) if power else OpaqueUnaryFn_sqrt(ToFloat(n)))


operands = st.sampled_from([x, x * y, FloorDiv(x, 8) * FloorDiv(y, 8), x + y, x - 5])
bounds = st.one_of(st.integers(-50, 50), st.sampled_from([-inf, inf, 2**31, BOUND - 3, BOUND + 3, 2**52, 2**53 + 2,
                                                         POW_BOUND - 3, POW_BOUND + 3, 2**62, INT64_MAX]))


@st.composite
def guards(draw: Any) -> Any:
    n = draw(operands)
    shape = draw(st.sampled_from(["square", "mod", "div", "vs_symbol", "literal"]))
    power = draw(st.booleans())
    s = side(draw(st.sampled_from([TruncToInt, FloorToInt, CeilToInt, RoundToInt])), n, power)
    if shape == "square":
        return sympy.Eq(n, s * s, evaluate=False)
    if shape == "mod":
        return sympy.Eq(PythonMod(n, s), 0, evaluate=False)
    if shape == "div":
        return sympy.Gt(FloorDiv(n, s), 1, evaluate=False)
    if shape == "vs_symbol":
        return sympy.Ge(s, y, evaluate=False)
    rnd = draw(st.sampled_from([TruncToInt, FloorToInt, CeilToInt, RoundToInt]))
    lit = draw(st.sampled_from([sympy.Integer(24), sympy.Integer(2**26 + 1), sympy.Float(2.5), sympy.Integer(0)]))
    rel = draw(st.sampled_from([sympy.Ge, sympy.Lt, sympy.Eq, sympy.Ne]))
    return rel(side(rnd, n, power), lit, evaluate=False)

_M, _P = 2**26 + 1, 2**25
SIZES = [0, 1, 8, 64, 576, 575, _M * _M - 1, _M * _M, BOUND, BOUND + 1, 2**53 + 1, 8 * _M, 8 * _M + 7,
         _P * _P - 1, _P * _P, _P * _P + 1, (_P - 1) ** 2 - 1, (_P - 1) ** 2,
         # where the ceiling and the nearest integer of the root part from Python's past their bounds
         2**52, 2**52 + 1, 2**50 - 1, 1125900007505922, 2**48 - 1, 2**48, _P * _P + _P, _P * _P + _P + 1]


@settings(max_examples=300, deadline=None)
@given(guards(), ranges(bounds))
def test_claimed_exact_computes_what_symguard_reads(g: Any, r: dict[Any, tuple[float, float]]) -> None:
    check_claims(g, r, SIZES, _Torch)


def test_the_integer_form_is_exact_only_within_the_bound() -> None:
    g = sympy.Eq(PythonMod(x, side(TruncToInt, x)), 0)
    assert executed_exactly(g, {x: (1, BOUND)}, "python")
    assert not executed_exactly(g, {x: (1, BOUND + 1)}, "python")
    assert not executed_exactly(g, {x: (1, inf)}, "python")
    assert not executed_exactly(g, {x: (0, BOUND)}, "cpp")  # isqrt(0) = 0: a zero divisor in C++
    assert executed_exactly(g, {x: (1, BOUND)}, "cpp")
    # one past the bound Python's code and isqrt part: the square's guard differs there
    n = BOUND + 1
    assert math.trunc(math.sqrt(float(n))) ** 2 != n and math.isqrt(n) ** 2 != n
    assert math.trunc(math.sqrt(float(n))) != math.isqrt(n)


def test_the_compared_form_is_exact_at_any_size_in_python() -> None:
    g = sympy.Ge(side(TruncToInt, x * y), 24)
    assert executed_exactly(g, {x: (2, inf), y: (2, inf)}, "python")
    assert not executed_exactly(g, {x: (2, inf), y: (2, inf)}, "cpp")  # static_cast<double> rounds past 2**53
    assert executed_exactly(g, {x: (2, 2**26), y: (2, 2**26)}, "cpp")
    assert not executed_exactly(g, {x: (-2, 2**26), y: (2, 2**26)}, "cpp")  # NaN cast to int64


def test_the_power_form_is_exact_only_within_its_bound() -> None:
    """``int(n ** 0.5)``: ``isqrt`` within ``POW_BOUND`` in Python and C++ (a faithful ``pow``, or
    the ``sqrt`` a compiler may put in its place); compared with a literal at any size in Python
    (the reader bisects with the same ``pow``), in C++ only as ``isqrt`` within the bound."""
    g = sympy.Eq(PythonMod(x, side(TruncToInt, x, power=True)), 0)
    assert executed_exactly(g, {x: (1, POW_BOUND)}, "python")
    assert executed_exactly(g, {x: (1, POW_BOUND)}, "cpp")
    assert not executed_exactly(g, {x: (1, POW_BOUND + 1)}, "python")
    lit = sympy.Ge(side(TruncToInt, x * y, power=True), 24)
    assert executed_exactly(lit, {x: (2, inf), y: (2, inf)}, "python")
    assert not executed_exactly(lit, {x: (2, inf), y: (2, inf)}, "cpp")
    assert executed_exactly(lit, {x: (2, 2**25), y: (2, 2**25)}, "cpp")
    ceil = sympy.Ge(side(CeilToInt, x, power=True), 24)
    assert executed_exactly(ceil, {x: (2, inf)}, "python")
    # within its bound a faithful pow and the sqrt a compiler may put in its place both round up to
    # isqrt(n) + [n is not a square] (float_sqrt, "Ceiling and round"); past it they may part
    assert executed_exactly(ceil, {x: (2, 2**25)}, "cpp")
    assert not executed_exactly(ceil, {x: (2, POW_BOUND + 1)}, "cpp")
    rnd = sympy.Eq(PythonMod(x, side(RoundToInt, x, power=True)), 0)
    assert executed_exactly(rnd, {x: (1, 2**48 - 1)}, "cpp")
    assert not executed_exactly(rnd, {x: (1, 2**48)}, "cpp")
