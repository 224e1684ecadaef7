"""True division ``/`` read exactly: the rational ``num / den`` of integer terms (``_Frac``).

PyTorch's export solver prints relations over exact rationals (``s/2 >= 2``, ``Eq(s0/3, s1)``).
Such a value is accepted only where it is compared, which ``_compare`` turns back into integer
arithmetic (``s/2 >= 2`` is ``s >= 4``, ``a/b < c`` is ``(a - b*c)*b < 0``), or where
``floor``/``ceiling`` rounds it; used as an integer it is ``unsupported``
(``TRUE_DIV_AS_INTEGER``). Both readers apply the same operations in the same order, so they
build equal terms.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable

from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term


class _Frac:
    """An exact rational ``num / den`` of integer terms: the value of a true division ``/``.

    Only a comparison turns it back into a condition (``_compare``): PyTorch's export solver
    prints relations such as ``s/2 >= 2`` and ``Eq(s0/3, s1)`` over exact rationals. ``den`` is
    never the constant 1 (that is an integer term) and a constant ``den`` is positive; every
    divisor met on the way is in the reader's domain, so ``den != 0`` wherever it is defined."""

    __slots__ = ("den", "num")
    is_bool = False  # read where a term is expected, it is refused as an integer like a condition

    def __init__(self, num: Term, den: Term) -> None:
        self.num = num
        self.den = den


_Num = Term | _Frac


def _frac(num: Term, den: Term) -> _Num:
    """``num / den`` with a constant denominator made positive and constant fractions reduced."""
    if den.kind == ir.CONST:
        if den.value == 0:  # a literal zero divisor: the domain is already false, the value unused
            return ir.ZERO
        if den.value < 0:
            num, den = ir.mk_neg(num), ir.mk_int(-den.value)
        if num.kind == ir.CONST:
            g = math.gcd(num.value, den.value)
            num, den = ir.mk_int(num.value // g), ir.mk_int(den.value // g)
        if den is ir.ONE:
            return num
    return _Frac(num, den)


def _parts(x: _Num) -> tuple[Term, Term]:
    return (x.num, x.den) if isinstance(x, _Frac) else (x, ir.ONE)


def _fadd(x: _Num, y: _Num) -> _Num:
    (n1, d1), (n2, d2) = _parts(x), _parts(y)
    if d1 is d2:
        return _frac(ir.mk_add(n1, n2), d1)
    if d1.kind == ir.CONST and d2.kind == ir.CONST:  # over the least common multiple
        m = math.lcm(d1.value, d2.value)
        return _frac(ir.mk_add(ir.mk_mul(n1, ir.mk_int(m // d1.value)), ir.mk_mul(n2, ir.mk_int(m // d2.value))),
                     ir.mk_int(m))
    return _frac(ir.mk_add(ir.mk_mul(n1, d2), ir.mk_mul(n2, d1)), ir.mk_mul(d1, d2))


def _fneg(x: _Num) -> _Num:
    n, d = _parts(x)
    return _frac(ir.mk_neg(n), d)


def _fmul(x: _Num, y: _Num) -> _Num:
    (n1, d1), (n2, d2) = _parts(x), _parts(y)
    return _frac(ir.mk_mul(n1, n2), ir.mk_mul(d1, d2))


def _fdiv(x: _Num, y: _Num) -> _Num:
    """``x / y``; the caller records ``_parts(y)[0] != 0`` (y's own denominator is already)."""
    (n1, d1), (n2, d2) = _parts(x), _parts(y)
    return _frac(ir.mk_mul(n1, d2), ir.mk_mul(d1, n2))


def _fpow(x: _Num, k: int) -> _Num:
    n, d = _parts(x)
    return _frac(ir.mk_pow(n, k), ir.mk_pow(d, k))


def _compare(op: str, x: _Num, y: _Num) -> Term:
    """``x op y`` on exact rationals, as integer arithmetic: ``x - y = n/d`` and ``n/d op 0``.

    A constant ``d`` is positive (``_frac``): ``n op 0``, linear when ``n`` is (``s/2 >= 2`` is
    ``s >= 4``). A symbolic ``d`` is non-zero where the text is defined: ``n/d`` has the sign of
    ``n*d``, so an ordering is ``n*d op 0``; ``==`` and ``!=`` need only ``n``."""
    n, d = _parts(_fadd(x, _fneg(y)))
    if op == "==":
        return ir.mk_eq(n, ir.ZERO)
    if op == "!=":
        return ir.mk_ne(n, ir.ZERO)
    if d.kind != ir.CONST:
        n = ir.mk_mul(n, d)
    return _FAST_RELATIONS[op](n, ir.ZERO)

_FAST_RELATIONS: dict[str, Callable[[Term, Term], Term]] = {
    "<": ir.mk_lt, "<=": ir.mk_le, ">": ir.mk_gt, ">=": ir.mk_ge,
}

_ARITH = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)

TRUE_DIV_AS_INTEGER = ("true division '/' whose value is used as an integer: a rational is read exactly "
                       "only where it is compared (s/2 >= 2, Eq(a/b, c)) or rounded (floor(a/b), "
                       "ceiling(a/b); PyTorch's own CeilToInt(IntTrueDiv(a, b)) and the like)")


def _has_true_div(node: ast.AST) -> bool:
    """Does ``node``'s arithmetic (``+ - * / **`` and signs, not calls) hold a true division?"""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.BinOp) and isinstance(n.op, _ARITH):
            if isinstance(n.op, ast.Div):
                return True
            stack += (n.left, n.right)
        elif isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            stack.append(n.operand)
    return False
