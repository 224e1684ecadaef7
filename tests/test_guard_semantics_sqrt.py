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

from cpp_model import cpp
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
from torch.utils._sympy.printers import PythonPrinter

from symguard.service.guard_semantics import INT64_MAX, INT64_MIN, executed_exactly
from symguard.solver.ir.pyeval import holds
from symguard.solver.syntax.float_sqrt import BOUND, POW_BOUND
from symguard.solver.syntax.sympy_reader import parse_sympy

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
    s = side(draw(st.sampled_from([TruncToInt, FloorToInt])), n, power)
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


@st.composite
def ranges(draw: Any) -> dict[Any, tuple[float, float]]:
    out = {}
    for s in (x, y):
        a, b = draw(bounds), draw(bounds)
        lo, hi = min(a, b), max(a, b)
        out[s] = (-inf if lo == inf else lo, inf if hi == -inf else hi)
    return out


def points(r: dict[Any, tuple[float, float]]) -> list[dict[Any, int]]:
    def vals(lo: float, hi: float) -> set[int]:
        lo_i = INT64_MIN if lo == -inf else int(lo)
        hi_i = INT64_MAX if hi == inf else int(hi)
        m = 2**26 + 1
        p = 2**25
        cands = {lo_i, hi_i, lo_i + 1, hi_i - 1, 0, 1, 8, 64, 576, 575, m * m - 1, m * m, BOUND, BOUND + 1,
                 2**53 + 1, 8 * m, 8 * m + 7, p * p - 1, p * p, p * p + 1, (p - 1) ** 2 - 1, (p - 1) ** 2}
        return {v for v in cands if lo_i <= v <= hi_i}
    return [{x: a, y: b} for a in vals(*r[x]) for b in vals(*r[y])]


def read(g: Any, env: dict[Any, int]) -> bool | None:
    """symguard's reading: the guard's truth, None where its domain fails (Python raises)."""
    p = parse_sympy(str(g))
    e = {str(k): v for k, v in env.items()}
    return holds(p.term, e) if holds(p.domain, e) else None


@settings(max_examples=300, deadline=None)
@given(guards(), ranges())
def test_claimed_exact_computes_what_symguard_reads(g: Any, r: dict[Any, tuple[float, float]]) -> None:
    py_ok, cpp_ok = executed_exactly(g, r, "python"), executed_exactly(g, r, "cpp")
    code = PythonPrinter().doprint(g)
    for env in points(r):
        want = read(g, env)
        if py_ok:
            try:
                got: bool | None = bool(eval(code, {"math": math, "torch": _Torch},
                                             {"x": env[x], "y": env[y]}))
            except (ValueError, OverflowError, ZeroDivisionError, TypeError):  # TypeError: trunc of a complex root
                got = None
            assert got == want, (code, env)
        if cpp_ok:
            assert want is not None, (g, env)  # undefined behaviour is never claimed exact
            assert cpp(g, env) == want, (g, env)


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
    assert not executed_exactly(ceil, {x: (2, 2**25)}, "cpp")  # sqrt in pow's place may round the other way
