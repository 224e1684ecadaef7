"""``service.guard_semantics`` on ``b // 2 ** int(math.log2(a / c))`` guards: where it calls one
exact, Dynamo's printed Python code (``b // 2 ** math.trunc(math.log2(a / 8))``) and C++ code
(``c10::div_floor_integer(b, (1 << static_cast<int64_t>(std::trunc(std::log2(static_cast<double>(a)
/ static_cast<double>(8L))))))``, emulated with Python's doubles — the same IEEE division and C
library ``log2`` — an ``int`` shift that is undefined past 30 or below 0, and int64 arithmetic that
raises on overflow) compute the value symguard reads, at the corners of random ranges and next to
the bound, the powers of two and ``c/2``; a negative exponent (a float power in Python, a negative
shift in C++) and sizes past the bound are opaque."""

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
    FloorDiv,
    FloorToInt,
    IntTrueDiv,
    OpaqueUnaryFn_log2,
    PowByNatural,
    PythonMod,
    ToFloat,
    TruncToInt,
)
from torch.utils._sympy.printers import CppPrinter

from symguard.service.guard_semantics import INT64_MAX, executed_exactly
from symguard.solver.syntax.float_log2 import BOUND

x, y = sympy.symbols("x y", integer=True)
inf = math.inf


class _Torch:
    """What the printed Python code calls: ``torch.sym_float`` of an int is ``float``."""

    sym_float = float


def power(rnd: Any, a: Any, c: int) -> Any:
    return PowByNatural(2, rnd(OpaqueUnaryFn_log2(ToFloat(a) if c == 1 else IntTrueDiv(a, c))))


@st.composite
def guards(draw: Any) -> Any:
    a = draw(st.sampled_from([x, x + 3, FloorDiv(x, 2)]))
    c = draw(st.sampled_from([1, 2, 8, 10]))
    p = power(draw(st.sampled_from([TruncToInt, FloorToInt])), a, c)
    shape = draw(st.sampled_from(["div", "mod", "scaled", "product", "exponent"]))
    if shape == "exponent":  # PyTorch's guard that 2 ** e has a natural exponent, and its kin
        lit = draw(st.sampled_from([sympy.Integer(0), sympy.Integer(3), sympy.Integer(-2), sympy.Float(1.5)]))
        rel = draw(st.sampled_from([sympy.Ge, sympy.Lt, sympy.Eq, sympy.Ne]))
        return rel(p.args[1], lit, evaluate=False)
    if shape == "div":
        return sympy.Ge(FloorDiv(y, p), 2, evaluate=False)
    if shape == "mod":
        return sympy.Eq(PythonMod(y, p), 0, evaluate=False)
    if shape == "scaled":
        return sympy.Gt(2 * FloorDiv(y, p), 1, evaluate=False)
    return sympy.Ge(16 * FloorDiv(x, p) * FloorDiv(y, p), 2, evaluate=False)


bounds = st.one_of(st.integers(-20, 300), st.sampled_from([-inf, inf, 2**31, 8 * 2**30 - 1, 8 * 2**31, BOUND - 3,
                                                          BOUND + 3, 2**53 + 2, INT64_MAX]))

SIZES = [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 79, 80, 81, 2**30, 8 * 2**30 - 1, 8 * 2**30, BOUND, BOUND - 1,
         (1 << 46) * 10 - 1, 2**53 + 1]


@settings(max_examples=300, deadline=None)
@given(guards(), ranges(bounds))
def test_claimed_exact_computes_what_symguard_reads(g: Any, r: dict[Any, tuple[float, float]]) -> None:
    if executed_exactly(g, r, "cpp") and "PowByNatural" in str(g):
        assert "(1 << (" in CppPrinter().doprint(g)  # the shift the emulation models
    check_claims(g, r, SIZES, _Torch)


def test_where_the_bridge_claims_it() -> None:
    g = sympy.Ge(FloorDiv(y, power(TruncToInt, x, 8)), 2, evaluate=False)
    wide = (1, inf)
    assert executed_exactly(g, {x: (8, BOUND), y: wide}, "python")
    assert executed_exactly(g, {x: (5, BOUND), y: wide}, "python")  # exponent 0 for 4 < x < 8: the int 1
    assert not executed_exactly(g, {x: (4, BOUND), y: wide}, "python")  # 2 ** -1 is a float
    assert not executed_exactly(g, {x: (8, BOUND + 1), y: wide}, "python")  # past the proven bound
    assert not executed_exactly(g, {x: (8, inf), y: wide}, "python")
    assert not executed_exactly(g, {x: (0, BOUND), y: wide}, "python")  # log2(0) raises
    narrow = (1, 2**62)
    assert executed_exactly(g, {x: (8, 8 * 2**31 - 1), y: narrow}, "cpp")  # shifts up to 30
    assert not executed_exactly(g, {x: (8, 8 * 2**31), y: narrow}, "cpp")  # 1 << 31 overflows an int
    assert executed_exactly(g, {x: (5, 100), y: narrow}, "cpp")  # exponents 0 (1 << 0) to 3
    assert not executed_exactly(g, {x: (4, 100), y: narrow}, "cpp")  # 1 << -1: undefined
    f = sympy.Ge(FloorDiv(y, power(FloorToInt, x, 8)), 2, evaluate=False)
    assert not executed_exactly(f, {x: (5, BOUND), y: wide}, "python")  # floor(log2(5/8)) = -1
    assert executed_exactly(f, {x: (8, BOUND), y: wide}, "python")
