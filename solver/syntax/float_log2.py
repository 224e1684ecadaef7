"""``b // 2 ** int(math.log2(a / c))`` of sizes: Python's value, and where it is exact integers.

Models that halve a size once per octave of another keep ``H // 2 ** int(math.log2(W / 8))``
(DepthPro's fusion stages); PyTorch prints the power ``PowByNatural(2, TruncToInt(
OpaqueUnaryFn_log2(IntTrueDiv(a, c))))`` (``ToFloat(a)`` for ``c = 1``) and Python computes
``2 ** math.trunc(math.log2(a / c))``: ``a / c`` correctly rounded to a double, its ``log2``
(``ValueError`` for ``a / c <= 0``: the domain, like a zero divisor), truncated, and ``2 ** e``,
an int for ``e >= 0`` and the float ``2.0 ** e`` for ``e < 0``. ``FloorToInt`` in place of
``TruncToInt`` is read as well.

**The exponent** (``t = log2(a / c)``, ``K = floor(t)``) is Python's, ``floor`` or ``trunc`` of
the computed ``log2``, for ``1 <= a <= BOUND = 2**47`` and a literal ``1 <= c <= MAX_DIVISOR =
2**47``, assuming a *faithful* ``log2`` (an error below one ulp: what glibc, musl and Apple's libm
document). Proof: below ``2**53`` ``a`` and ``c`` are doubles and ``x = fl(a / c)`` has a relative
error below ``u = 2**-53``; ``|K| <= 48``, so ``2**K`` and ``2**(K + 1)`` are doubles.

- *Not below K:* ``a / c >= 2**K`` gives ``x >= 2**K`` (rounding is monotone), so the true
  ``log2(x) >= K``, and a faithful result is at least the double ``K``.
- *Below K + 1:* write ``D = c * max(1, 2**(K + 1))`` (an integer: ``a / c < 2**(K + 1)`` means
  ``a < D`` for ``K + 1 >= 0`` and ``a * 2**-(K + 1) < c = D`` otherwise, so ``a / c <=
  2**(K + 1) (1 - 1/D)``). Then ``log2(x) <= K + 1 - (1/D - u) / ln 2``. The result stays below
  ``K + 1`` if this distance is at least the spacing ``s`` of the doubles next to ``K + 1`` on
  its lower side: ``s <= 2**-47`` for ``|K + 1| < 64``, ``s <= 2**-48`` for ``|K + 1| <= 32``.
  A failure needs ``D > 1 / (s ln 2 + u)``, which is ``> 1.41 * 2**47`` (``|K + 1| > 32``) or
  ``> 1.38 * 2**48`` (otherwise), and (``D - a`` below ``D (s ln 2 + u)``) ``a`` within a
  hair of ``D``: for ``K + 1 >= 1`` so ``a > 2**47``; for ``K + 1 <= 0`` ``D = c > 2**47``.
  Neither happens within the bounds.

So the exponent is ``floor(t)`` exactly. ``trunc(t)`` is ``floor(t)`` for ``t >= 0``; for
``t < 0`` it is ``L = ceil(t)``, and the same two steps at the ends of ``(L - 1, L]`` hold: not
above the double ``L`` by monotonicity, and above ``L - 1`` since ``a * 2**(1 - L) >= c + 1``
puts ``log2(x)`` at least ``(1/c - 1/(2c**2) - u) / ln 2 > 1.4 * 2**-47`` above ``L - 1``, more
than the spacing there (``|L - 1| <= 48``).
This machine's ``log2`` is closer than faithful (tests check it at ``2**k * c - 1`` for every
``k`` up to the bound, and by hypothesis below it; the first failure for ``c = 1`` is at
``2**49 - 1``). ``math.log2`` of a Python int converts it to a double first: the same ``x``.

**The value** in integers, for ``a >= 1`` (``bit_floor(n)``: the largest power of two ``<= n``):

- ``a >= c``: ``K = floor(log2(a // c))`` (``floor(log2 y) = floor(log2 floor(y))`` for
  ``y >= 1``), the power is ``bit_floor(a // c)`` and ``b // power`` an integer division.
- ``c/2 < a < c`` (``TruncToInt``): the exponent is 0, the power the int 1, ``b // 1 = b``.
- ``a <= c/2`` (``TruncToInt``, ``j = floor(log2(c // a)) >= 1``) or ``a < c`` (``FloorToInt``,
  ``J = ceil(log2(c / a)) = (c - 1) // a``'s bit length, ``2**J = 2 * bit_floor((c - 1) // a)``):
  the power is the float ``2.0**-j``, and ``b // 2.0**-j`` is the float ``b * 2**j`` (``fmod`` is
  0, the quotient exact): the same number as the integer ``b * bit_floor(c // a)`` while ``|b|``
  and what the guard computes from it stay below ``2**53`` (a float past it rounds, as for
  ``IntTrueDiv``; the PyTorch bridge claims such a guard only where ranges keep ``a > c/2``).
  ``b % 2.0**-j`` is ``0.0``.

**Compared with a number literal** (``TruncToInt(OpaqueUnaryFn_log2(IntTrueDiv(a, c))) >= 0``:
PyTorch guards that the exponent of ``PowByNatural`` is natural), ``R(log2(x)) >= k`` is a
threshold on ``a``, exact at *any* size when ``c * max(1, 2**k) <= 2**47`` and ``|k| <= 47``
(``threshold``): ``R(t) >= k`` means ``t >= k`` (``FloorToInt``, and ``TruncToInt`` for ``k >= 1``)
or ``t > k - 1`` (``TruncToInt``, ``k <= 0``), that is ``x >= 2**k`` (``x > 2**(k - 1)``). A
faithful ``log2`` is at least the double ``k`` wherever ``x >= 2**k``, and ``x >= 2**k`` exactly
where ``a / c >= 2**k`` (rounding is monotone, ``2**k`` a double); below, the argument above
keeps the result under ``k`` — it needs ``D = c * max(1, 2**k)`` within the bound, not ``a``
(a failure needs ``a`` within a hair of ``D``). ``a <= 0`` raises ``ValueError``, ``a / c`` past
the largest double ``OverflowError``: both the domain.

Past the bound the reading and Python's doubles may part, like a literal that is not its double
(``float_literal``): the reader reads it always; the bridge claims it only within.
"""

from __future__ import annotations

from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term
from symguard.solver.syntax import float_compare as fc

BOUND = 1 << 47  # the exponent is Python's for 1 <= a <= BOUND (module docstring)
MAX_DIVISOR = 1 << 47  # ... and a literal divisor 1 <= c <= MAX_DIVISOR; a larger one is refused
ROUNDINGS = ("TruncToInt", "FloorToInt")  # of the logarithm; exact as above
POWER_NAMES = ("PowByNatural", "pow_by_natural", "Pow")  # 2 ** e as PyTorch prints it (and ``2 ** e``)


def exponent(name: str, a: int, c: int) -> int:
    """The exact ``R(log2(a / c))`` for integers ``a, c >= 1``."""
    if a >= c:
        return (a // c).bit_length() - 1
    if name == "TruncToInt":
        return 0 if 2 * a > c else -((c // a).bit_length() - 1)
    return -((c - 1) // a).bit_length()


def integer_power(a: Term, c: int) -> Term:
    """The power where the exponent is ``>= 0`` (``a >= c``): ``bit_floor(a // c)``; 1 for
    ``c/2 < a < c`` is the caller's (there ``a // c`` is 0)."""
    return ir.mk_bitfloor(a if c == 1 else ir.mk_floordiv(a, ir.mk_int(c)))


def inverse_power(name: str, a: Term, c: int) -> Term:
    """``2**-e`` for ``1 <= a < c``, where the exponent ``e`` is at most 0: ``bit_floor(c // a)``
    (``TruncToInt``: 1 for ``c/2 < a < c``, where the power is the int 1) or ``2 *
    bit_floor((c - 1) // a)`` (``FloorToInt``), spelled as the step function of ``a`` it is for the literal ``c`` (``2**j`` where ``a <=
    c // 2**j``, largest ``j`` first; at most 48 steps within ``MAX_DIVISOR``), so that it stays
    linear: the product ``b * 2**j`` has a literal factor."""
    # TruncToInt: 2**j <= c // a  <=>  a * 2**j <= c;  FloorToInt: 2**J = 2 * bit_floor((c - 1) // a),
    # and 2**(J - 1) <= (c - 1) // a  <=>  a * 2**(J - 1) <= c - 1
    top = c if name == "TruncToInt" else c - 1
    scale = 1 if name == "TruncToInt" else 2
    steps = [(top >> j, scale << j) for j in range(top.bit_length() - 1, -1, -1)]
    out: Term = ir.mk_int(steps[-1][1])  # the last step, a <= top, holds wherever this is read
    for bound, value in reversed(steps[:-1]):
        out = ir.mk_ite(ir.mk_le(a, ir.mk_int(bound)), ir.mk_int(value), out)
    return out


def floordiv(name: str, b: Term, a: Term, c: int) -> Term:
    """``b // 2 ** R(log2(a / c))`` for ``a >= 1`` (the caller's domain): exact integers as in
    the module docstring."""
    big = ir.mk_floordiv(b, integer_power(a, c))
    if c == 1:
        return big  # a >= 1 = c
    small = _times(b, inverse_power(name, a, c))  # b itself where the power is the int 1
    return ir.mk_ite(ir.mk_ge(a, ir.mk_int(c)), big, small)


def mod(name: str, b: Term, a: Term, c: int) -> Term:
    """``b % 2 ** R(log2(a / c))`` for ``a >= 1``: 0 wherever the power is 1 or a float."""
    big = ir.mk_mod(b, integer_power(a, c))
    return big if c == 1 else ir.mk_ite(ir.mk_ge(a, ir.mk_int(c)), big, ir.ZERO)


def _times(b: Term, steps: Term) -> Term:
    """``b`` times a step function of literals, the product pushed into its branches (linear)."""
    if steps.kind == ir.ITE:
        return ir.mk_ite(steps.args[0], _times(b, steps.args[1]), _times(b, steps.args[2]))
    return ir.mk_mul(steps, b)


def power(a: Term, c: int) -> Term | None:
    """The power as an integer, where that is exact for every ``a >= 1``: for ``c = 1`` only
    (else a float where ``a < c``); None otherwise."""
    return integer_power(a, 1) if c == 1 else None


MAX_COMPARED_EXPONENT = 47  # |k| for ``R(log2(a / c)) op k`` (``threshold``)


def threshold(name: str, k: int, c: int) -> int | None:
    """The least ``a >= 1`` with ``R(log2(a / c)) >= k`` as Python computes it, at any size (module
    docstring); None when ``c`` and ``k`` are outside the proven bounds."""
    if abs(k) > MAX_COMPARED_EXPONENT or c * (1 << max(k, 0)) > BOUND or not 1 <= c <= MAX_DIVISOR:
        return None
    if name == "TruncToInt" and k <= 0:  # a / c > 2**(k - 1)  <=>  a * 2**(1 - k) > c
        return (c >> (1 - k)) + 1
    if k >= 0:  # a / c >= 2**k
        return c << k
    return (c + (1 << -k) - 1) >> -k  # a * 2**-k >= c


def compare(op: str, name: str, a: Term, c: int, lit: float) -> Term | None:
    """``R(math.log2(a / c)) op lit`` for a finite number literal, as a condition on ``a`` that is
    exact wherever Python's value is defined (``a >= 1`` and no overflow: the caller's domain);
    None outside the proven bounds."""
    return fc.integer_compared(op, lit, lambda k: _at_least(name, a, c, k))


def _at_least(name: str, a: Term, c: int, k: int) -> Term | None:
    start = threshold(name, k, c)
    return None if start is None else ir.TRUE if start <= 1 else ir.mk_ge(a, ir.mk_int(start))
