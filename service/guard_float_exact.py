"""Where the printed float arithmetic of a guard computes its exact rational value (docs/torch_guards.md).

``math.ceil((-0.5 + torch.sym_float(n // 7)) / 1.0)`` is what PyTorch prints for
``CeilToInt(FloatTrueDiv(ToFloat((n//7)) - 0.5, 1.0))``; symguard reads the argument as the exact
rational ``n//7 - 1/2`` (docs/pytorch-functions.md). The code computes that value when no
operation rounds, and a double operation does not round exactly when its exact result is a
double. This module proves that over the enforced ranges, one subterm at a time:

- every value is tracked as an interval ``[lo, hi]`` of rationals and a grain ``g``: it is an
  integer multiple of ``2**g``. A multiple ``m * 2**g`` with ``|m| <= 2**53`` and ``g >= -1074``
  is a double (``|m * 2**g| < 2**1023`` keeps it finite): so a value is exact when its magnitude
  is at most ``2**(53 + g)``;
- a float literal ``p * 2**e`` (``p`` odd) has grain ``e``; ``float(n)`` of an integer and an
  integer operand converted by Python or C++ have grain 0 and must lie within ``±2**53``;
- ``IntTrueDiv(a, ±2**j)`` and ``FloatTrueDiv(x, ±2**j)`` scale the grain by ``2**-j``: a
  division by a power of two is exact whenever its result is a double. Any other divisor rounds:
  opaque;
- a sum of ``n`` exact values of grain ``g`` (the least grain of its terms) with
  ``sum(max |term|) <= 2**(53 + g)``: every partial sum, in any order, has grain ``g`` and at
  most that magnitude, so the printed order (and C++'s contraction or reassociation) is exact;
- a product: with each grain capped at 0, ``prod(max(1, max |factor|)) <= 2**(53 + sum of
  grains)`` bounds every partial product the same way;
- ``Max``/``Min``/``Abs`` pick an argument or negate it: exact.

Every other kind (a float function, a division by a symbol, ``Where``) is None: opaque.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

FLOAT_EXACT = 1 << 53
MIN_GRAIN = -1074  # the least subnormal's exponent
MAX_MAGNITUDE = Fraction(2) ** 1023

Interval = tuple[float, float]
FloatRange = tuple[Fraction, Fraction, int]  # lo, hi, grain: values in [lo, hi] ∩ 2**grain * Z


def _grain(v: Fraction) -> int:
    """The largest ``g`` with ``v`` a multiple of ``2**g`` (``v`` a dyadic rational; 0 for 0)."""
    if v == 0:
        return 0
    n, d = v.numerator, v.denominator
    return (abs(n) & -abs(n)).bit_length() - d.bit_length()  # d is a power of two


def _power_of_two(v: Fraction) -> int | None:
    """``j`` when ``|v| == 2**j``, else None."""
    n, d = abs(v.numerator), v.denominator
    if n & (n - 1) or d & (d - 1):
        return None
    return n.bit_length() - d.bit_length()


def _exact(r: FloatRange) -> FloatRange | None:
    """``r`` if every value in it is a double (see the module docstring), else None."""
    lo, hi, g = r
    top = max(abs(lo), abs(hi))
    if g < MIN_GRAIN or top >= MAX_MAGNITUDE or top > Fraction(2) ** (53 + g):
        return None
    return r


def _literal(e: Any) -> Fraction | None:
    if getattr(e, "is_Float", False):
        v = float(e)
        return Fraction(v) if math.isfinite(v) else None
    if getattr(e, "is_Integer", False):
        return Fraction(int(e))
    return None


class FloatWalk:
    """The float subterms of one guard; ``term`` gives the interval of an integer subterm (None
    where its code is not exact), from ``guard_semantics._Walk``."""

    def __init__(self, term: Callable[[Any], Interval | None]) -> None:
        self.term = term

    def value(self, e: Any) -> FloatRange | None:
        """The range of float (or integer, converted) term ``e`` if its code computes it exactly."""
        k = type(e).__name__
        c = _literal(e)
        if c is not None:
            return _exact((c, c, _grain(c)))
        if k == "ToFloat":
            return self._integer(e.args[0])
        if k in ("IntTrueDiv", "FloatTrueDiv"):
            return self._divided(k, e)
        if k in ("Add", "Mul"):
            parts = [self.value(a) for a in e.args]
            if any(p is None for p in parts):
                return None
            rs = [p for p in parts if p is not None]
            return _sum(rs) if k == "Add" else _product(rs)
        if k in ("Max", "Min"):
            parts = [self.value(a) for a in e.args]
            if any(p is None for p in parts) or not parts:
                return None
            rs = [p for p in parts if p is not None]
            pick = max if k == "Max" else min
            return (pick(r[0] for r in rs), pick(r[1] for r in rs), min(r[2] for r in rs))
        if k == "Abs":
            r = self.value(e.args[0])
            if r is None:
                return None
            lo, hi, g = r
            if lo >= 0:
                return r
            return (-hi, -lo, g) if hi <= 0 else (Fraction(0), max(-lo, hi), g)
        if getattr(e, "is_integer", False) and not _floaty_kind(k):
            return self._integer(e)
        return None

    def _integer(self, e: Any) -> FloatRange | None:
        """An integer converted to a double: exact within ``±2**53`` (its own code exact)."""
        iv = self.term(e)
        if iv is None or not (-FLOAT_EXACT <= iv[0] and iv[1] <= FLOAT_EXACT):
            return None
        return (Fraction(int(iv[0])), Fraction(int(iv[1])), 0)

    def _divided(self, k: str, e: Any) -> FloatRange | None:
        """A true division by a literal ``±2**j``: the value scaled, exact while it is a double."""
        a, b = e.args
        d = _literal(b)
        if d is None or d == 0 or (j := _power_of_two(d)) is None:
            return None
        x = self._integer(a) if k == "IntTrueDiv" else self.value(a)
        if x is None:
            return None
        lo, hi = sorted((x[0] / d, x[1] / d))
        return _exact((lo, hi, x[2] - j))


def _floaty_kind(k: str) -> bool:
    return k in ("FloatTrueDiv", "IntTrueDiv", "ToFloat", "FloatPow", "TruncToFloat", "RoundDecimal") \
        or k.startswith("OpaqueUnaryFn_")


def _sum(rs: list[FloatRange]) -> FloatRange | None:
    g = min(r[2] for r in rs)
    if sum(max(abs(r[0]), abs(r[1])) for r in rs) > Fraction(2) ** (53 + g):
        return None
    return _exact((sum((r[0] for r in rs), Fraction(0)), sum((r[1] for r in rs), Fraction(0)), g))


def _product(rs: list[FloatRange]) -> FloatRange | None:
    g = sum(min(r[2], 0) for r in rs)
    bound = Fraction(1)
    lo, hi = Fraction(1), Fraction(1)
    for r in rs:
        bound *= max(Fraction(1), abs(r[0]), abs(r[1]))
        ps = [x * y for x in (lo, hi) for y in (r[0], r[1])]
        lo, hi = min(ps), max(ps)
    if bound > Fraction(2) ** (53 + g):
        return None
    return _exact((lo, hi, g))
