"""``int(math.sqrt(n))`` of a size: Python's value, and where it is the integer square root.

Models that view a token sequence as a square grid keep ``side = int(math.sqrt(num_tokens))``;
PyTorch prints it ``TruncToInt(OpaqueUnaryFn_sqrt(ToFloat(n)))`` and Python computes
``math.trunc(math.sqrt(float(n)))``: ``float(n)`` rounded to the nearest double (``OverflowError``
past the largest double), its square root correctly rounded (``ValueError`` for ``n < 0``), then
truncated. Two readings are exact:

**As an integer** it is ``math.isqrt(n)`` for ``0 <= n <= BOUND = 2**52 + 2**27 - 1``, and not at
``BOUND + 1 = (2**26 + 1)**2 - 1``. Proof: for ``n <= 2**53`` ``float(n)`` is ``n``. Let
``k = isqrt(n)``, so ``k**2 <= n < (k + 1)**2``. ``k`` and ``k + 1`` are doubles and rounding is
monotone, so ``k <= fl(sqrt(n)) <= k + 1``, and the value is ``k`` unless ``fl(sqrt(n))`` reaches
``m = k + 1``; by monotonicity that happens in ``[k**2, m**2)`` exactly when it does at
``n = m**2 - 1``. There ``m - sqrt(m**2 - 1) = 1 / (m + sqrt(m**2 - 1))``, which lies in
``(1/(2m), 1/(2m - 1)]``, and the value rounds up to ``m`` only when this distance is at most
half the spacing of the doubles just below ``m`` (no tie: ``sqrt(m**2 - 1)`` is irrational).

- ``m <= 2**26``: ``m`` is in the binade ``[2**e, 2**(e+1)]`` with ``e <= 25`` (``m = 2**26``: the
  doubles below it are those of ``[2**25, 2**26)``), half the spacing below ``m`` is at most
  ``2**(e - 53)``, and ``1/(2m) >= 2**(-e - 2) > 2**(e - 53)`` since ``2e < 51``: never rounds up.
- ``m = 2**26 + 1``: half the spacing is ``2**-27`` and ``m + sqrt(m**2 - 1) > 2**27`` (that is
  ``2**28 m > 2**54 + 1``), so the distance is below ``2**-27``: ``fl`` is ``m`` and
  ``int(math.sqrt(float(m**2 - 1)))`` is ``m``, one more than ``isqrt``.

So the bound holds up to ``(2**26 + 1)**2 - 2``, below ``2**53`` where ``float(n)`` is exact.

**The power form** ``int(n ** 0.5)`` (``TruncToInt(FloatPow(ToFloat(n), 0.5))``; Python computes
``float(n) ** 0.5``, the C library's ``pow``) is not the same double: ``pow`` is not required to be
correctly rounded (glibc's is within 0.52 ulp, and differs from ``sqrt`` on thousands of sizes
below ``2**42``). Read as the same ``isqrt(n)`` for ``0 <= n <= POW_BOUND = 2**50``, assuming what
the common C libraries document for ``pow`` (glibc, musl, Apple's libm: faithful, an error below
one ulp, and exact where the result is a double). Then for ``k = isqrt(n) <= 2**25``: at
``n = k**2`` the root ``k`` is a double, so ``pow`` returns it; above it the root is at least
``sqrt(k**2 + 1) > k + 1/(2k + 1)``, and below ``k + 1`` it is at most ``sqrt((k + 1)**2 - 1) <
k + 1 - 1/(2k + 2)``: both more than 2**-26, four ulps of the doubles below ``2**25``, away from an
integer, so an error below one ulp cannot cross one. tests/test_float_sqrt.py checks this platform's
``pow`` next to every square below ``2**21`` and at sampled squares up to the bound. Compared with
a number literal it is read as Python computes it at any size, by bisection with ``float(n) ** 0.5``
itself (``pow`` is monotone where faithful: an assumption of the same kind).
Past it the two part (and past ``2**53`` ``float(n)`` rounds too): like a size times a literal
that is not its double (``float_literal``), the reading is claimed only where ranges keep ``n``
within the bound (the PyTorch bridge checks that, in Python and C++: ``std::sqrt`` is the same
correctly rounded IEEE operation). ``FloorToInt`` of it is the same value (``sqrt >= 0``).

**Ceiling and round.** ``math.ceil(math.sqrt(float(n)))`` is ``isqrt(n) + [n is not a square]``
for ``0 <= n <= 2**52``: at ``n = k**2`` the root is the double ``k``; for ``k**2 < n < (k + 1)**2``
the value stays below ``k + 1`` (the floor's proof) and must stay above ``k``, whose worst case
is ``n = k**2 + 1``, at ``sqrt(k**2 + 1) - k = 1/(sqrt(k**2 + 1) + k) > 1/(2k + 1)`` from ``k``:
more than half the spacing of the doubles above ``k`` (``2**(e - 53)`` for ``k`` in
``[2**e, 2**(e + 1))``) while ``k < 2**26``; at ``k = 2**26``, ``n = 2**52 + 1`` rounds down to
``k`` (the first failure). ``round(math.sqrt(float(n)))`` (Python's ``round``, C++'s
``std::nearbyint``; never a tie, ``sqrt(n)`` is never a half-integer) is ``isqrt(n) + [n > k**2 +
k]`` for ``0 <= n < 2**50``: the exact root crosses ``k + 1/2`` between ``k**2 + k`` and
``k**2 + k + 1``, at distances ``sqrt((k + 1/2)**2 - 1/4)`` below (more than ``1/(8k + 4)``) and
``3/(8k + 4)`` above, more than half the spacing of the doubles near ``k + 1/2``
(``2**(e - 53)``, ``k + 1/2`` in ``[2**e, 2**(e + 1))``) while ``k < 2**25``. For the power form
(a faithful ``pow``, an error below one ulp ``2**(e - 52)``) the same distances give ``2**50``
(ceiling: ``1/(2k + 1) > 2**(e - 52)`` for ``k <= 2**25``) and ``2**48`` (round: ``k < 2**24``).
Within those bounds each is read as the exact integer (``integer_term``); the bridge claims it
only where ranges keep ``n`` within (``bound``), as for the floor.

**Compared with a number literal** (``TruncToInt(OpaqueUnaryFn_sqrt(ToFloat(n))) >= 24``), any of
the four roundings of it is read as Python computes it at any size: ``float``, ``sqrt`` and the
rounding are each monotone, so the comparison is an interval of ``n``, its ends found by
bisection with Python's own floats (``least``). tests/test_float_sqrt.py checks both against
Python next to every square near the bound and at the overflow edge.
"""

from __future__ import annotations

import functools
import math

from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term
from symguard.solver.syntax import float_compare as fc
from symguard.solver.syntax.float_literal import rounded

BOUND = (1 << 52) + (1 << 27) - 1  # int(math.sqrt(float(n))) == math.isqrt(n) for 0 <= n <= BOUND
POW_BOUND = 1 << 50  # int(float(n) ** 0.5) == math.isqrt(n) for 0 <= n <= POW_BOUND (a faithful pow)
SQRT, POW = "sqrt", "pow"  # math.sqrt(float(n)) or float(n) ** 0.5: the two spellings of a size's root
INTEGER_ROUNDINGS = ("TruncToInt", "FloorToInt", "CeilToInt", "RoundToInt")  # read exactly within their bound
# The largest n where each rounding of the root is ``integer_value`` (module docstring, "Ceiling and
# round"); tests/test_float_sqrt.py checks each next to every candidate near its end.
_BOUNDS = {
    (SQRT, "TruncToInt"): BOUND, (SQRT, "FloorToInt"): BOUND,
    (SQRT, "CeilToInt"): 1 << 52, (SQRT, "RoundToInt"): (1 << 50) - 1,
    (POW, "TruncToInt"): POW_BOUND, (POW, "FloorToInt"): POW_BOUND,
    (POW, "CeilToInt"): POW_BOUND, (POW, "RoundToInt"): (1 << 48) - 1,
}
# the largest int float() converts: 2**1024 - 2**970 rounds (half to even) to 2**1024, an overflow
MAX_CONVERTIBLE = (1 << 1024) - (1 << 970) - 1


def bound(form: str, name: str = "TruncToInt") -> int:
    """The largest ``n`` whose root in ``form`` rounded by ``name`` is ``integer_value(name, n)``
    (for ``TruncToInt``/``FloorToInt``: ``isqrt(n)``, ``BOUND`` or ``POW_BOUND``)."""
    return _BOUNDS[(form, name)]


def integer_value(name: str, n: int) -> int:
    """The exact rounding ``name`` of ``sqrt(n)`` for an integer ``n >= 0``: ``k = isqrt(n)``,
    plus one for the ceiling unless ``n = k**2``, plus one for the nearest integer when
    ``n > k**2 + k`` (``sqrt(n)`` is never a half-integer: ``(k + 1/2)**2`` is not an integer)."""
    k = math.isqrt(n)
    if name == "CeilToInt":
        return k + (k * k < n)
    if name == "RoundToInt":
        return k + (n > k * k + k)
    return k


def integer_term(name: str, n: Term) -> Term:
    """``integer_value`` as a term of ``n`` (``n >= 0`` is the caller's domain)."""
    k = ir.mk_isqrt(n)
    if name == "CeilToInt":
        return ir.mk_add(k, ir.mk_ite(ir.mk_lt(ir.mk_mul(k, k), n), ir.ONE, ir.ZERO))
    if name == "RoundToInt":
        return ir.mk_add(k, ir.mk_ite(ir.mk_lt(ir.mk_add(ir.mk_mul(k, k), k), n), ir.ONE, ir.ZERO))
    return k


def python_value(name: str, n: int, form: str = SQRT) -> int:
    """``R(math.sqrt(float(n)))`` (or ``R(float(n) ** 0.5)``) as Python computes it (raises
    ``ValueError`` for ``n < 0`` and ``OverflowError`` past ``MAX_CONVERTIBLE``, as Python does;
    ``float ** 0.5`` of a negative is a complex number, which the rounding refuses with a
    ``TypeError``: the domain excludes it the same way)."""
    x = float(n)
    if form == POW:
        if x < 0:
            raise ValueError("a negative size's root")
        return rounded(name, x ** 0.5)
    return rounded(name, math.sqrt(x))


@functools.lru_cache(maxsize=1024)  # a pure function of two constants; ~1,000 float steps
def least(name: str, k: int, form: str = SQRT) -> int | None:
    """The least ``n >= 0`` with ``R(math.sqrt(float(n))) >= k`` (or of ``float(n) ** 0.5``;
    monotone in ``n``), None when no convertible ``n`` reaches ``k``."""
    if python_value(name, 0, form) >= k:
        return 0
    if python_value(name, MAX_CONVERTIBLE, form) < k:
        return None
    lo, hi = 0, MAX_CONVERTIBLE  # below k at lo, at least k at hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if python_value(name, mid, form) >= k:
            hi = mid
        else:
            lo = mid
    return hi


def compare(op: str, name: str, n: Term, c: float, form: str = SQRT) -> Term:
    """``R(math.sqrt(float(n))) op c`` (or of ``float(n) ** 0.5``, ``form`` ``POW``) for a finite
    number literal ``c``, as a condition on ``n``
    that is exact wherever Python's value is defined (``0 <= n <= MAX_CONVERTIBLE``: the caller
    puts that in the domain). The rounded value ``v`` is an integer, compared exactly with ``c``
    (as Python compares an int with a float)."""
    got = fc.integer_compared(op, c, lambda k: _at_least(name, n, k, form))
    assert got is not None  # every k is read
    return got


def _at_least(name: str, n: Term, k: int, form: str) -> Term:
    """``R(root(n)) >= k`` for ``0 <= n <= MAX_CONVERTIBLE``."""
    start = least(name, k, form)
    return ir.FALSE if start is None else ir.TRUE if start == 0 else ir.mk_ge(n, ir.mk_int(start))
