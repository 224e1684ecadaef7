"""True division ``/`` read exactly: the rational ``num / den`` of integer terms (``_Frac``).

PyTorch's export solver prints relations over exact rationals (``s/2 >= 2``, ``Eq(s0/3, s1)``).
Such a value is accepted only where it is compared, which ``_compare`` turns back into integer
arithmetic (``s/2 >= 2`` is ``s >= 4``, ``a/b < c`` is ``(a - b*c)*b < 0``), or where
``floor``/``ceiling`` rounds it; used as an integer it is ``unsupported``
(``TRUE_DIV_AS_INTEGER``). Inside a comparison it may also pass through ``Max``, ``Min``, ``Abs``
and ``Piecewise`` (``_fmaxmin``, ``_fabs``, ``_fselect``) and be a literal ``Rational(p, q)``.
Both readers apply the same operations in the same order, so they build equal terms (the fast
reader leaves a rational inside a call to this one).
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


def _common(xs: list[_Num]) -> tuple[list[Term], Term] | None:
    """The numerators of ``xs`` over one constant denominator (their least common multiple), or
    None when a denominator is symbolic."""
    parts = [_parts(x) for x in xs]
    if any(d.kind != ir.CONST for _, d in parts):
        return None
    m = math.lcm(*(d.value for _, d in parts))
    return [ir.mk_mul(n, ir.mk_int(m // d.value)) for n, d in parts], ir.mk_int(m)


def _fselect(c: Term, x: _Num, y: _Num) -> _Num:
    """``x`` where ``c`` holds, else ``y``: over one constant denominator when both have one
    (linear stays linear), else the select of the numerators over the select of the denominators
    (each non-zero where its branch is taken)."""
    common = _common([x, y])
    if common is not None:
        (n1, n2), m = common
        return _frac(ir.mk_ite(c, n1, n2), m)
    (n1, d1), (n2, d2) = _parts(x), _parts(y)
    return _frac(ir.mk_ite(c, n1, n2), d1 if d1 is d2 else ir.mk_ite(c, d1, d2))


def _fmaxmin(largest: bool, xs: list[_Num]) -> _Num:
    """``Max``/``Min`` of exact rationals: of the numerators over a positive constant denominator,
    else the first argument that is at least (at most) every other, each condition comparing two
    arguments as sent (sympy's value either way). Comparing a running maximum with the next
    argument instead would nest every earlier comparison into the next one: exponential in the
    number of arguments."""
    common = _common(xs)
    if common is not None:
        nums, m = common
        return _frac((ir.mk_max if largest else ir.mk_min)(*nums), m)
    op = ">=" if largest else "<="
    acc = xs[-1]
    for j in range(len(xs) - 2, -1, -1):
        wins = ir.mk_and(*(_compare(op, xs[j], xs[i]) for i in range(len(xs)) if i != j))
        acc = _fselect(wins, xs[j], acc)
    return acc


def _fabs(x: _Num) -> _Num:
    """``|n/d| = |n| / |d|`` (a constant ``d`` is positive already)."""
    n, d = _parts(x)
    return _frac(ir.mk_abs(n), d if d.kind == ir.CONST else ir.mk_abs(d))


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


# calls a rational passes through inside a comparison (a Piecewise through its values only)
RATIONAL_CALLS = frozenset({"Max", "Min", "Abs", "Piecewise"})


def _has_true_div(node: ast.AST) -> bool:
    """Does ``node``'s arithmetic (``+ - * / **``, signs, ``Max``/``Min``/``Abs`` and the values of
    a ``Piecewise``; no other call) hold a true division or a ``Rational(p, q)`` literal?"""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.BinOp) and isinstance(n.op, _ARITH):
            if isinstance(n.op, ast.Div):
                return True
            stack += (n.left, n.right)
        elif isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            stack.append(n.operand)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and not n.keywords:
            if n.func.id == "Rational":
                return True
            if n.func.id == "Piecewise":
                stack += (a.elts[0] for a in n.args if isinstance(a, ast.Tuple) and len(a.elts) == 2)
            elif n.func.id in RATIONAL_CALLS:
                stack += n.args
    return False
