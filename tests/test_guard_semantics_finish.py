"""``service.guard_semantics.may_not_finish``: where it says a guard's printed Python code finishes
on some ranges, every integer power in it has, at every corner of them, an exponent Python's own
evaluation finds at most ``POW_EXPONENT_LIMIT`` (a few thousand bits per bit of the base); where
an exponent may be larger it says so.

Why it matters: ``2 ** k`` at ``k = 2**62`` does not finish in Python. Python's guard runs part 2
in order, so a stock guard before the power that rejects such a ``k`` keeps the check from
computing it; the pruner keeps every guard up to the last emitted one that may not finish, in
place (tests/torch_adversarial.py, ``power_prefix``, is the compile that found it)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sympy = pytest.importorskip("sympy")
torch = pytest.importorskip("torch")

from bridge_harness import corners, inf, ranges, uneval, x, y
from torch.utils._sympy.functions import FloorDiv, PowByNatural, PythonMod
from torch.utils._sympy.printers import PythonPrinter

from symguard.service.guard_semantics import POW_EXPONENT_LIMIT, may_not_finish


def value(e: Any, env: dict[Any, int]) -> int | None:
    """Python's evaluation of PyTorch's printed code of integer term ``e`` at ``env`` (None where it
    raises: a zero divisor)."""
    try:
        return int(eval(PythonPrinter().doprint(e), {"math": math}, {str(k): v for k, v in env.items()}))
    except (ZeroDivisionError, ValueError, OverflowError, TypeError):
        return None


LEAVES = st.sampled_from([x, y, sympy.Integer(0), sympy.Integer(1), sympy.Integer(-1), sympy.Integer(2),
                          sympy.Integer(3), sympy.Integer(64), sympy.Integer(2**40)])


def int_terms() -> st.SearchStrategy[Any]:
    """Integer terms of ``x``, ``y`` and literals: sums, products, floor divisions, moduli."""
    return st.recursive(LEAVES, lambda sub: st.one_of(
        st.tuples(sub, sub).map(lambda ab: ab[0] + ab[1]),
        st.tuples(sub, sub).map(lambda ab: ab[0] - ab[1]),
        st.tuples(sub, LEAVES).map(lambda ab: ab[0] * ab[1]),
        st.tuples(sub, sub).map(lambda ab: uneval(FloorDiv, *ab)),
        st.tuples(sub, sub).map(lambda ab: uneval(PythonMod, *ab))), max_leaves=3)


def powers() -> st.SearchStrategy[Any]:
    """``b ** e`` as Dynamo records it (``PowByNatural``, or sympy's ``Pow`` of a literal base), in
    a comparison with another term."""
    power = st.one_of(
        st.tuples(int_terms(), int_terms()).map(lambda be: uneval(PowByNatural, *be)),
        st.tuples(st.sampled_from([2, 3]), int_terms()).map(
            lambda be: sympy.Pow(sympy.Integer(be[0]), be[1], evaluate=False)))
    # unevaluated: sympy would otherwise compare the power itself (and not finish either)
    return st.tuples(power, int_terms(), st.sampled_from([sympy.Gt, sympy.Eq])).map(
        lambda t: t[2](t[0], t[1], evaluate=False))


def exponents(g: Any) -> list[Any]:
    return [p.args[1] for p in sympy.preorder_traversal(g) if type(p).__name__ in ("Pow", "PowByNatural")]


bounds = st.sampled_from([-inf, -(2**63), -3, -1, 0, 1, 2, 7, 57, 4096, 4097, 2**40, 2**63 - 1, inf])
SIZES = (-2, -1, 0, 1, 2, 3, 8, 9, 62, 64, 4096)


@settings(max_examples=200, deadline=None)
@given(powers(), ranges(bounds))
def test_a_power_called_finite_has_small_exponents(g: Any, r: dict[Any, tuple[float, float]]) -> None:
    if may_not_finish(g, r):
        return
    for env in corners(r, SIZES):
        for e in exponents(g):
            v = value(e, env)
            assert v is None or v <= POW_EXPONENT_LIMIT, (g, r, env, v)


def test_an_unbounded_exponent_may_not_finish() -> None:
    """The zoo's ``power_prefix``: ``2 ** k > n`` with ``k`` an int argument (unbounded before part 3
    checks ``0 <= k <= 57``) may not finish; within ``[0, 57]`` it does; a size as exponent is
    ``>= 0`` only (a size of ``2**62`` is a stride-0 tensor)."""
    g = sympy.Gt(uneval(PowByNatural, sympy.Integer(2), y), x, evaluate=False)
    assert may_not_finish(g, {x: (0, inf)})
    assert value(y, {y: 2**62}) == 2**62 > POW_EXPONENT_LIMIT
    assert not may_not_finish(g, {x: (0, inf), y: (0, 57)})
    assert may_not_finish(g, {x: (0, inf), y: (0, inf)})
    assert not may_not_finish(sympy.Gt(uneval(PowByNatural, x, sympy.Integer(3)), y, evaluate=False), {})
    assert may_not_finish(sympy.Gt(uneval(PowByNatural, x, sympy.Integer(POW_EXPONENT_LIMIT + 1)), y,
                                   evaluate=False), {})
    assert not may_not_finish(sympy.Gt(x * y, 3), {})


def test_a_rounded_log2_exponent_finishes() -> None:
    """``2 ** math.trunc(math.log2(y / 8))`` (the zoo's ``octave_halving``): the log of a finite
    double is at most 1024 in magnitude, so the power finishes on any range (its log2 may raise at
    ``y <= 0``: ``may_raise``'s concern); a rounding of anything else is not bounded so."""
    from torch.utils._sympy.functions import IntTrueDiv, OpaqueUnaryFn_log2, ToFloat, TruncToInt

    e = TruncToInt(OpaqueUnaryFn_log2(IntTrueDiv(y, sympy.Integer(8))))
    g = sympy.Ne(uneval(FloorDiv, x, uneval(PowByNatural, sympy.Integer(2), e)), 0, evaluate=False)
    assert not may_not_finish(g, {})
    for v in (1, 8, 9, 2**53 + 1, 2**63 - 1, 10**300):
        assert abs(int(eval(PythonPrinter().doprint(e), {"math": math}, {"y": v}))) <= 1024
    assert may_not_finish(sympy.Gt(uneval(PowByNatural, sympy.Integer(2), TruncToInt(ToFloat(y))), x,
                                   evaluate=False), {})
