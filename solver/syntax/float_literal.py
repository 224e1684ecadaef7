"""A size times a float literal that is not its double, rounded: where Python's value is exact.

MAE-style models keep ``int(ratio * n)`` of a size: ``TruncToInt(0.4*ToFloat(n))``. The double
of ``0.4`` is ``c = 0.4000000000000000222…``, not ``2/5``, and Python computes ``fl(c * n)`` (one
correctly rounded product, ``n`` converted exactly while ``|n| <= 2**53``) before rounding it to
an integer. Neither ``2/5`` nor ``c`` read exactly is Python's value at every size:
``math.ceil(0.1 * 10)`` is 1 (``fl`` lands on 1.0) and ``ceil(c * 10)`` 2; ``int(0.57 * 100)``
is 56 and ``trunc(57/100 * 100)`` 57. This module finds, per literal and rounding, the sizes
``-lo_bound <= n <= hi_bound`` on which ``R(fl(c * n)) == R(q * n)`` for ``q`` the literal's
decimal (``Fraction(repr(c))``, ``2/5``), so that the rounded product is read there as the
integer ``R(q * n)`` (docs/pytorch-functions.md).

Proof, for ``n > 0`` (``R(fl(c * -n)) = -R'(fl(c * n))`` with ``R'`` the mirror rounding:
floor and ceiling swap, trunc and round stay). Let ``q = a/d`` in lowest terms, ``delta = c - q``.
The critical points of ``R`` are the integers (floor, ceil, trunc) or the half-integers (round,
half to even). For ``c`` normal, ``|fl(c n) - c n| <= 2**-53 |c n|``, so
``|fl(c n) - q n| <= (|delta| + 2**-53 |c|) n``, which is ``< gap`` (``1/d``, or ``1/(2d)`` for
round: how near ``q n`` can come to a critical point it is not on) for ``n <= n_err``.

- Where ``q n`` is not critical, ``fl(c n)`` stays in the same open cell between two critical
  points: ``R`` is the same.
- Where ``q n = h`` is critical (``d | n``; for round, ``n`` an odd multiple of ``d/2``),
  ``h`` is a double (``|c| n <= 2**51``) and ``fl`` is monotone, so ``fl(c n)`` is ``h`` or on
  ``delta``'s side of it. ``R(fl(c n)) == R(h)`` unless it is off ``h`` on the side where ``R``
  jumps (below for floor/trunc, above for ceil, away from the even neighbour for round). Off
  ``h`` means ``|delta| n`` exceeds half the gap between doubles there (ties to even), and that
  gap is constant within a binade of ``h``: the critical ``n`` in a binade that disagree are
  all those above one threshold (for round: among those of one parity of ``h - 1/2``). Each
  binade's first one is found by bisection with Python's own ``c * float(n)``.

So ``hi_bound`` is the least of ``n_err`` and the first disagreeing critical ``n``, minus one.
tests/test_float_literal.py checks it against Python exhaustively on small sizes and at the
bounds and binade edges.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

ROUNDINGS = ("FloorToInt", "CeilToInt", "TruncToInt", "RoundToInt")
MIRROR = {"FloorToInt": "CeilToInt", "CeilToInt": "FloorToInt", "TruncToInt": "TruncToInt",
          "RoundToInt": "RoundToInt"}
FLOAT_EXACT = 1 << 53
MIN_BOUND = 1 << 32  # a reading that agrees with Python on fewer sizes is refused (see ``scaled``)
_U = Fraction(1, 1 << 53)  # unit roundoff of round-to-nearest doubles
_MIN_NORMAL = 2.0 ** -1022


_ROUND: dict[str, Callable[[float | Fraction], int]] = {
    "FloorToInt": math.floor, "CeilToInt": math.ceil, "TruncToInt": math.trunc, "RoundToInt": round}


def rounded(name: str, v: float | Fraction) -> int:
    """Python's ``math.floor``/``ceil``/``trunc``/``round`` of a finite double or of an exact
    rational: the same functions serve both (``round`` of either is half to even)."""
    return _ROUND[name](v)


@dataclass(frozen=True)
class Scaled:
    """``R(fl(c * n)) == R(q * n)`` for ``-lo_bound <= n <= hi_bound`` (``q`` the decimal of ``c``)."""

    q: Fraction
    lo_bound: int
    hi_bound: int


def _positive_bound(c: float, q: Fraction, name: str) -> int:
    """The largest ``N`` with ``R(fl(c n)) == R(q n)`` for every ``0 <= n <= N`` (module docstring)."""
    delta = abs(Fraction(c) - q)
    d = q.denominator
    gap = Fraction(1, 2 * d) if name == "RoundToInt" else Fraction(1, d)
    slope = delta + _U * abs(Fraction(c))
    n_err = math.ceil(gap / slope) - 1  # (|delta| + u|c|) n < gap for n <= n_err
    n_err = min(n_err, FLOAT_EXACT, math.floor(Fraction(1 << 51) / abs(Fraction(c))))
    if delta == 0:
        return n_err
    # critical sizes: n = first + step * j (q n an integer; for round an odd multiple of 1/2)
    if name == "RoundToInt":
        if d % 2:
            return n_err  # q n is never a half-integer
        first, step = d // 2, d
    else:
        first, step = d, d

    def agrees(n: int) -> bool:
        return rounded(name, c * float(n)) == rounded(name, q * n)

    a = abs(q.numerator)
    j = 0
    while True:
        n0 = first + step * j
        if n0 > n_err:
            return n_err
        h = abs(q * n0)
        e = math.floor(math.log2(h)) if h >= 1 else -1
        while Fraction(2) ** e > h:  # exact binade of h: 2**e <= h < 2**(e + 1)
            e -= 1
        while Fraction(2) ** (e + 1) <= h:
            e += 1
        # the critical n whose |q n| is in this binade: j in [j, j_end)
        top = Fraction(2) ** (e + 1)
        j_end = max(j + 1, math.ceil((top / Fraction(a, d) - first) / step))
        last = min(j_end - 1, (n_err - first) // step)
        # h = 2**e has half the gap below it: checked on its own, the rest by bisection
        if not agrees(n0):
            return n0 - 1
        bads = [_first_bad(agrees, first, step, js, last, 2) for js in (j + 1, j + 2)] \
            if name == "RoundToInt" else [_first_bad(agrees, first, step, j + 1, last, 1)]
        found = [b for b in bads if b is not None]  # round: the parities of h - 1/2 jump on opposite sides
        if found:
            return min(found) - 1
        if last < j_end - 1:
            return n_err
        j = j_end


def _first_bad(agrees: Callable[[int], bool], first: int, step: int, j0: int, j1: int, stride: int) -> int | None:
    """The least ``n = first + step*j`` (``j`` in ``j0, j0 + stride, ... <= j1``) that disagrees,
    given that within one binade the disagreeing ones are those past a threshold."""
    count = (j1 - j0) // stride + 1
    if count <= 0 or agrees(first + step * (j0 + stride * (count - 1))):
        return None
    lo, hi = -1, count - 1  # agrees at lo (or before the start), disagrees at hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if agrees(first + step * (j0 + stride * mid)):
            lo = mid
        else:
            hi = mid
    return first + step * (j0 + stride * hi)


@functools.lru_cache(maxsize=256)  # a pure function of two constants; ~1 ms of bisections each
def scaled(c: float, name: str) -> Scaled | None:
    """Where the rounded product of a size with the literal ``c`` is ``R(q * n)``; None if ``c`` is
    zero, not finite or subnormal (the relative error bound needs a normal product)."""
    if not math.isfinite(c) or abs(c) < _MIN_NORMAL:
        return None
    q = Fraction(repr(c))
    return Scaled(q, _positive_bound(c, q, MIRROR[name]), _positive_bound(c, q, name))


def first_disagreement(c: float, name: str, bound: int, sign: int = 1) -> int:
    """The size ``n = sign * m`` nearest 0 past ``m = bound`` with ``R(fl(c n)) != R(q n)``,
    searched a little (for messages; the proof's bound is tight where it stops at such a size)."""
    q = Fraction(repr(c))
    for m in range(bound + 1, bound + 1 + 4096):
        n = sign * m
        if m > FLOAT_EXACT or rounded(name, c * float(n)) != rounded(name, q * n):
            return n
    return sign * (bound + 1)
