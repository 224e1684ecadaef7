"""A float PyTorch computes with one rounding, compared with a literal: an exact integer condition.

Guards of code such as ``max(k_size / q_size, 1.0)`` compare a float with a literal:
``IntTrueDiv(s0, s1) >= 1.0``, ``Eq(IntTrueDiv(a, b), 1.5)``, ``Max(1.0, IntTrueDiv(a, b)) > 2``.
Python's ``a / b`` on ints (and ``float(a)``) is the correctly rounded double of the exact
rational ``q = a / b``: round to nearest, ties to the neighbour with an even significand, any size
of ints; ``OverflowError`` where the rounded value would not be finite (``|q| >= 2**1024 -
2**970``, the midpoint between the largest double and ``2**1024``, which ties upwards) and
``ZeroDivisionError`` at ``b == 0``: the guard fails there (the reader's domain, ``no_overflow``).

Rounding ``fl`` is monotone, so ``fl(q) >= c`` holds exactly when ``q`` is at least the lowest
rational that rounds to ``d``, the least double ``>= c``: the midpoint ``m`` between ``d`` and its
predecessor, included when the tie goes up (``d``'s significand is even). ``>`` is ``>=`` of the
least double ``> c``; ``<`` and ``<=`` are their negations; ``==`` holds for no ``q`` when ``c`` is
not a double, else between the two boundaries of ``c``. ``q >= m`` is then the exact rational
comparison ``(a*m.den - m.num*b) * b >= 0`` (``b != 0`` in the domain; a literal ``b`` is
multiplied out). Signs are symmetric (``fl(-q) = -fl(q)``), ``-0.0`` compares as ``0.0``.

An exact value (an integer term, a float literal: Python compares ints and floats exactly) is
compared as the rational it is. ``Max``/``Min``/``abs`` of floats pick one of their arguments
(no rounding), so ``max(x, y) >= c`` is ``x >= c or y >= c``; ``Where`` picks a branch.
"""

from __future__ import annotations

import math
import struct
import sys
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term
from symguard.solver.syntax import float_literal

OVERFLOW = 2**1024 - 2**970  # |q| >= this: Python's int / int and float(int) raise OverflowError
_DBL_MAX = sys.float_info.max


@dataclass(frozen=True)
class Rounded:
    """``fl(num / den)``: Python's correctly rounded true division of two ints (``den`` 1: ``float``)."""

    num: Term
    den: Term


@dataclass(frozen=True)
class Exact:
    """An exact value ``num / den`` (``den`` a positive int): an integer term or a float literal."""

    num: Term
    den: int = 1


@dataclass(frozen=True)
class Pick:
    """``Where(cond, then, other)``: the float of the branch ``cond`` picks."""

    cond: Term
    then: Value
    other: Value


@dataclass(frozen=True)
class Extreme:
    """``Max``/``Min`` (``kind`` "max"/"min") of floats: one of its arguments, unrounded."""

    kind: str
    args: tuple[Value, ...]


@dataclass(frozen=True)
class Chain:
    """Python's double arithmetic on one converted integer, compared with a literal: ``x =
    num / den`` correctly rounded (``float(num)`` for ``den`` 1), then each step in order, each
    one correctly rounded: ``("add", c)`` is ``x + c``, ``("mul", c)`` ``x * c``, ``("div", c)``
    ``x / c`` (``c`` a non-zero finite double), ``("neg", 0.0)`` is ``-x``."""

    num: Term
    den: int
    steps: tuple[tuple[str, float], ...] = ()


Value = Rounded | Exact | Pick | Extreme | Chain
Literal = int | float  # the other side: any int, any double (infinities included)


def exact_literal(v: float) -> Exact:
    """A float literal's exact value (every double is a dyadic rational)."""
    f = Fraction(v)
    return Exact(ir.mk_int(f.numerator), f.denominator)


def negate(v: Value) -> Value:
    """``-v``: exact in floats (round-half-even is symmetric); ``-max(x, y) = min(-x, -y)``."""
    if isinstance(v, Rounded):
        return Rounded(ir.mk_neg(v.num), v.den)
    if isinstance(v, Exact):
        return Exact(ir.mk_neg(v.num), v.den)
    if isinstance(v, Pick):
        return Pick(v.cond, negate(v.then), negate(v.other))
    if isinstance(v, Chain):
        return Chain(v.num, v.den, (*v.steps, ("neg", 0.0)))
    return Extreme("min" if v.kind == "max" else "max", tuple(negate(a) for a in v.args))


_OVERFLOW_SHIFT, _OVERFLOW_UNITS = 970, 2**54 - 1  # OVERFLOW = 2**970 * (2**54 - 1)
_STEP = 64  # 2**64: 20 digits, what non-linear problems take without ``too_large`` (solver/api.py)


def no_overflow(num: Term, den: Term) -> Term:
    """``|num / den| < OVERFLOW`` for ``den != 0``: where Python's ``num / den`` has a finite value.

    ``|num| < 2**970 * N`` for the integer ``N = (2**54 - 1) * |den|`` is ``|num| // 2**970 < N``;
    the quotient is taken in steps of ``2**64`` (``(x // p) // q = x // (p*q)`` for p, q > 0) so
    that no constant has more digits than an int64-sized one: a 309-digit constant would make any
    non-linear problem ``too_large`` (z3 cannot be stopped inside such arithmetic). ``|num / num|``
    is 1 and a literal ``num`` below the bound needs no condition."""
    if num.kind == ir.CONST and abs(num.value) < OVERFLOW:
        return ir.TRUE  # |den| >= 1
    if num is den or num is ir.mk_neg(den):
        return ir.TRUE
    q = ir.mk_abs(num)
    shift = _OVERFLOW_SHIFT
    while shift:
        k = min(shift, _STEP)
        q = ir.mk_floordiv(q, ir.mk_int(1 << k))
        shift -= k
    return ir.mk_lt(q, ir.mk_mul(ir.mk_int(_OVERFLOW_UNITS), ir.mk_abs(den)))


def _even(d: float) -> bool:
    """Whether the finite double ``d`` has an even significand (the lowest bit of its encoding)."""
    return not struct.unpack("<q", struct.pack("<d", abs(d)))[0] & 1


_ALWAYS, _NEVER = "always", "never"


def _lower_bound(c: Literal, strict: bool) -> tuple[Fraction, bool] | str:
    """The rationals ``q`` with ``fl(q) >= c`` (``> c`` when ``strict``), among those that do not
    overflow: ``q >= m`` (or ``q > m``, the bool says inclusive), or ``_ALWAYS``/``_NEVER``."""
    if isinstance(c, float) and math.isinf(c):
        return _NEVER if c > 0 else _ALWAYS
    exact = Fraction(c)
    try:
        d = float(exact)  # correctly rounded: the least double >= c is d or its successor
    except OverflowError:
        return _NEVER if exact > 0 else _ALWAYS
    if Fraction(d) < exact or (strict and Fraction(d) == exact):
        d = math.nextafter(d, math.inf)
    if math.isinf(d):
        return _NEVER  # above the largest double: only an overflow (outside the domain) gets there
    if d == -_DBL_MAX:
        return _ALWAYS  # every finite double is >= -DBL_MAX
    below = math.nextafter(d, -math.inf)
    return (Fraction(below) + Fraction(d)) / 2, _even(d)


def _ratio_at_least(num: Term, den: Term, m: Fraction, inclusive: bool) -> Term:
    """``num / den >= m`` (``> m``) for ``den != 0``, as integer arithmetic."""
    n = ir.mk_sub(ir.mk_mul(ir.mk_int(m.denominator), num), ir.mk_mul(ir.mk_int(m.numerator), den))
    if den.kind == ir.CONST:  # num/den - m = n / (den * m.den): the sign of n times den's
        if den.value < 0:
            n = ir.mk_neg(n)
    else:
        n = ir.mk_mul(n, den)
    return ir.mk_ge(n, ir.ZERO) if inclusive else ir.mk_gt(n, ir.ZERO)


def _rounded_at_least(v: Rounded, c: Literal, strict: bool) -> Term:
    b = _lower_bound(c, strict)
    if b == _ALWAYS:
        return ir.TRUE
    if b == _NEVER:
        return ir.FALSE
    assert isinstance(b, tuple)
    return _ratio_at_least(v.num, v.den, b[0], b[1])


def _is_double(c: Literal) -> bool:
    if isinstance(c, float):
        return not math.isinf(c)
    try:
        return float(c) == c
    except OverflowError:
        return False


def _exact(op: str, v: Exact, c: Literal) -> Term:
    if isinstance(c, float) and math.isinf(c):  # no finite value reaches an infinity
        if op in ("==", "!="):
            return ir.mk_bool(op == "!=")
        return ir.mk_bool((op in ("<", "<=")) == (c > 0))
    f = Fraction(c)
    left = ir.mk_mul(ir.mk_int(f.denominator), v.num)  # num/den op p/q  <=>  num*q op p*den
    right = ir.mk_int(f.numerator * v.den)
    return _RELATIONS[op](left, right)


_RELATIONS = {"<": ir.mk_lt, "<=": ir.mk_le, ">": ir.mk_gt, ">=": ir.mk_ge, "==": ir.mk_eq, "!=": ir.mk_ne}
MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}  # c op v is v MIRROR[op] c


def compare(op: str, v: Value, c: Literal) -> Term:
    """``v op c`` (``op`` one of ``< <= > >= == !=``) as an exact condition on integers, where
    ``v`` is defined and does not overflow (the caller's domain)."""
    if isinstance(v, Exact):
        return _exact(op, v, c)
    if isinstance(v, Chain):
        return _chain(op, v, c)
    if isinstance(v, Pick):
        return ir.mk_ite(v.cond, compare(op, v.then, c), compare(op, v.other, c))
    if op == "!=":
        return ir.mk_not(compare("==", v, c))
    if isinstance(v, Extreme):
        parts = [compare(op, a, c) for a in v.args]
        if op == "==":  # max(x) == c: some argument is c and none is above it
            bounded = [compare("<=" if v.kind == "max" else ">=", a, c) for a in v.args]
            return ir.mk_and(ir.mk_or(*parts), *bounded)
        upward = op in (">", ">=")
        return ir.mk_or(*parts) if upward == (v.kind == "max") else ir.mk_and(*parts)
    if op == ">=":
        return _rounded_at_least(v, c, False)
    if op == ">":
        return _rounded_at_least(v, c, True)
    if op == "<":
        return ir.mk_not(_rounded_at_least(v, c, False))
    if op == "<=":
        return ir.mk_not(_rounded_at_least(v, c, True))
    if not _is_double(c):
        return ir.FALSE  # a double never equals a value that is not one
    return ir.mk_and(_rounded_at_least(v, c, False), ir.mk_not(_rounded_at_least(v, c, True)))


def chain_value(v: Chain, t: int) -> float:
    """What Python computes for ``v`` at ``num = t`` (``|t / den| < OVERFLOW``: no exception; a
    step may overflow to an infinity, never to a NaN: no step multiplies by 0 or adds an infinity)."""
    x = t / v.den
    for step, c in v.steps:
        x = x + c if step == "add" else x * c if step == "mul" else x / c if step == "div" else -x
    return x


def _chain(op: str, v: Chain, c: Literal) -> Term:
    """``v op c`` exactly as Python evaluates it: ``chain_value`` is monotone in ``t``, so where it
    is ``>= c`` (or ``<``, ...) is a half-line of integers, found by bisection over the domain
    ``|t| < OVERFLOW * |den|`` with Python's own arithmetic; ``==`` is two half-lines."""
    if op == "==":
        return ir.mk_and(_chain(">=", v, c), _chain("<=", v, c))
    if op == "!=":
        return ir.mk_not(_chain("==", v, c))
    rel = _PY_OPS[op]

    def holds(t: int) -> bool:
        return bool(rel(chain_value(v, t), c))

    return _half_line(v, holds)


def rounded_chain(op: str, name: str, v: Chain, c: Literal) -> Term:
    """``R(v) op c`` for a rounding ``R`` (``FloorToInt``, ``CeilToInt``, ``TruncToInt``,
    ``RoundToInt``: Python's ``math.floor``/``ceil``/``trunc``/``round``) exactly as Python
    evaluates it, where ``v`` is finite (``finite_chain``, the caller's domain: rounding an
    infinity raises). ``R`` is monotone, so ``R(chain_value(v, t))`` is monotone in ``t`` and the
    condition is a half-line (two for ``==``), found as in ``_chain``; an infinite value counts
    as itself, which keeps the predicate monotone outside the domain."""
    if op == "==":
        return ir.mk_and(rounded_chain(">=", name, v, c), rounded_chain("<=", name, v, c))
    if op == "!=":
        return ir.mk_not(rounded_chain("==", name, v, c))
    rel = _PY_OPS[op]

    def holds(t: int) -> bool:
        x = chain_value(v, t)
        return bool(rel(x if math.isinf(x) else float_literal.rounded(name, x), c))

    return _half_line(v, holds)


def integer_compared(op: str, c: Literal, at_least: Callable[[int], Term | None]) -> Term | None:
    """``v op c`` for an integer value ``v`` (a rounding's result) and a finite number literal
    ``c``, compared exactly as Python compares an int with a float, given ``at_least(k)``, the
    condition ``v >= k``: ``v >= c`` is ``v >= ceil(c)``, ``v > c`` is ``v >= floor(c) + 1``, ``<``
    and ``<=`` their negations; ``v == c`` holds nowhere when ``c`` is not an integer, else it is
    ``v >= c and not v >= c + 1``. None wherever ``at_least`` answers None (a ``k`` not read)."""
    if op in ("==", "!="):
        if Fraction(c).denominator != 1:
            return ir.mk_bool(op == "!=")
        k = int(c)
        lo, hi = at_least(k), at_least(k + 1)
        if lo is None or hi is None:
            return None
        inside = ir.mk_and(lo, ir.mk_not(hi))
        return inside if op == "==" else ir.mk_not(inside)
    up = at_least(math.ceil(Fraction(c)) if op in (">=", "<") else math.floor(Fraction(c)) + 1)
    return None if up is None else up if op in (">=", ">") else ir.mk_not(up)


def finite_chain(v: Chain) -> Term:
    """Where ``chain_value(v, t)`` is finite (a step may overflow to an infinity)."""
    return ir.mk_and(_chain(">", v, -math.inf), _chain("<", v, math.inf))


def _half_line(v: Chain, holds: Callable[[int], bool]) -> Term:
    """The integers ``t`` (``v.num``) where the monotone predicate ``holds`` is true, within the
    domain ``|t| < OVERFLOW * |den|``: a half-line, its end found by bisection."""
    lo, hi = -(OVERFLOW * abs(v.den) - 1), OVERFLOW * abs(v.den) - 1
    first, last = holds(lo), holds(hi)
    if first == last:  # a monotone predicate equal at both ends is constant
        return ir.mk_bool(first)
    a, b = lo, hi  # holds(a) == first != holds(b): narrow to neighbours
    while b - a > 1:
        mid = (a + b) // 2
        if holds(mid) == first:
            a = mid
        else:
            b = mid
    return ir.mk_ge(v.num, ir.mk_int(b)) if last else ir.mk_le(v.num, ir.mk_int(a))


_PY_OPS = {"<": lambda x, y: x < y, "<=": lambda x, y: x <= y, ">": lambda x, y: x > y,
           ">=": lambda x, y: x >= y}
