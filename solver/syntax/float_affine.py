"""Float arithmetic under a rounding function, read as the exact rational affine value.

PyTorch's rotary and grid code rounds sizes through a little float arithmetic:
``math.ceil((n // 7 - 0.5) / 1.0)`` is ``CeilToInt(FloatTrueDiv(ToFloat((n//7)) - 0.5, 1.0))``.
Under a rounding function the reader takes every leaf as its exact rational
(docs/pytorch-functions.md); this module extends that to ``+``, ``-``, ``*`` by a constant and
``FloatTrueDiv`` by a non-zero constant, so the argument stays ``num / den`` with an integer term
``num`` and a positive literal ``den`` (an ``fc.Exact``), and the rounding is an ordinary floor or
ceiling division of ``num`` by ``den``. ``(t - 1/2) / 1`` is ``(2t - 1) / 2``; each result is
reduced by the gcd of ``den`` and ``num``'s integer coefficients, so the same value written in
another order (``-0.5 + t``, as PyTorch's printer writes it) is the same term.

A float literal is its double's exact value, and only one whose decimal text is exactly that
value is accepted (``0.5``, ``1.5``, ``0.375``; not ``0.1``, whose double is
``0.1000000000000000055…``: ``math.ceil(n * 0.1)`` rounds at every size, ``ceil(10 * 0.1)`` is 1
in Python and 2 exactly). A symbolic divisor (``IntTrueDiv(a, b) + 1``,
``FloatTrueDiv(x, ToFloat(b))`` of a non-integral ``x``) and a product of two non-constant floats
are refused: they leave the affine class. Where the exact reading and Python's doubles part is in
docs/pytorch-functions.md, "Float arithmetic under a rounding function".
"""

from __future__ import annotations

import math
from fractions import Fraction

from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term
from symguard.solver.syntax import float_compare as fc


def decimal_exact(v: float) -> bool:
    """Whether the shortest decimal that names the double ``v`` is its exact value (``0.5``
    yes, ``0.1`` no): a literal the user can read as the number it is."""
    return math.isfinite(v) and Fraction(repr(v)) == Fraction(v)


def exact(v: fc.Value) -> fc.Exact | None:
    """``v`` as ``num / den`` with a literal ``den > 0``, or None (a symbolic divisor, a
    ``Where``/``Max``/``Min``, which arithmetic does not distribute over here)."""
    if isinstance(v, fc.Exact):
        return v
    if isinstance(v, fc.Rounded) and v.den.kind == ir.CONST and v.den.value != 0:
        return reduced(v.num, v.den.value)
    return None


def reduced(num: Term, den: int) -> fc.Exact:
    """``num / den`` with ``den > 0`` and no common factor of ``den`` and all of ``num``'s
    integer coefficients (``(4t + 2) / 8`` is ``(2t + 1) / 4``): one term per value."""
    if den < 0:
        num, den = ir.mk_neg(num), -den
    coefs, const = ir.linear(num)
    g = math.gcd(den, const, *coefs.values())
    if g > 1:
        num = ir.mk_add(*(ir.mk_mul(ir.mk_int(c // g), m) for m, c in coefs.items()), ir.mk_int(const // g))
        den //= g
    return fc.Exact(num, den)


def add(x: fc.Exact, y: fc.Exact, sign: int = 1) -> fc.Exact:
    """``x + y`` (``x - y`` for ``sign`` -1) over the least common denominator."""
    m = math.lcm(x.den, y.den)
    ys = ir.mk_mul(ir.mk_int(sign * (m // y.den)), y.num)
    return reduced(ir.mk_add(ir.mk_mul(ir.mk_int(m // x.den), x.num), ys), m)


def constant(v: fc.Exact) -> Fraction | None:
    """The value of ``v`` when it is a literal, else None."""
    return Fraction(v.num.value, v.den) if v.num.kind == ir.CONST else None


def mul(x: fc.Exact, y: fc.Exact) -> fc.Exact | None:
    """``x * y`` when one factor is a constant (affine), else None."""
    if constant(x) is None and constant(y) is None:
        return None
    return reduced(ir.mk_mul(x.num, y.num), x.den * y.den)


def div(x: fc.Exact, c: Fraction) -> fc.Exact:
    """``x / c`` for a non-zero constant ``c``."""
    return reduced(ir.mk_mul(ir.mk_int(c.denominator), x.num), x.den * c.numerator)
