"""Index algebra: sums of mixed-radix digits of one term, merged into the fewest digits.

Inductor's index expressions are built from the digits of split and merged loop variables
(``x = 32*a + 4*b + c``): ``ModularIndexing(x, a, m)``, ``FloorDiv(x, a)`` and ``Mod(x, m)``
with literal positive ``a``, ``m``. Each is a **digit** ``D(x, lo, hi)`` of ``x`` — the value of
its places ``[lo, hi)``: ``D(x, lo, hi) = Mod(x//lo, hi/lo)`` (``lo | hi``), ``D(x, lo, ∞) = x//lo``,
and ``D(x, 1, ∞) = x`` itself. Two identities of floor division by positive integers, for every
integer ``x`` (negative ones included) and ``a | b | e``:

* **merge**: ``D(x, a, b) + (b/a)*D(x, b, e) = D(x, a, e)`` — with ``y = x//a``, ``B = b/a``:
  ``Mod(y, E) = Mod(y, B) + B*Mod(y//B, E/B)`` and ``y = Mod(y, B) + B*(y//B)``, where
  ``y//B = x//b``;
* **split**: ``D(x, a, e)//k = D(x, a*k, e)`` when ``k | e/a`` (``Mod(y, M)//k = Mod(y//k, M/k)``
  for ``k | M``): ``FloorDiv(ModularIndexing(x, 1, 64), 8)`` is ``ModularIndexing(x, 8, 8)``;
* **difference** (merge read the other way): ``D(x, a, e) - (b/a)*D(x, b, e) = D(x, a, b)``:
  ``x//4 - 2*(x//8)`` is ``ModularIndexing(x, 4, 2)``, ``Mod(x, 8) - 4*ModularIndexing(x, 4, 2)``
  is ``Mod(x, 4)``.

Bases need only agree below the place where two digits meet (``D(x, a, b)`` depends on ``x``
modulo ``b`` alone): ``Mod(x, 3) + 3*Mod(w + x//3, 4)`` — the digits of ``x + 3*w`` as the
rewriter spells them (``Mod(x + 3*w, 3)`` is ``Mod(x, 3)``, ``(x + 3*w)//3`` is ``w + x//3``) —
is ``Mod(x + 3*w, 12)``.

``merge_digits`` applies the first to a sum until no two digits of one base are adjacent with
matching coefficients: ``ModularIndexing(x, 4, 8) + 8*FloorDiv(x, 32)`` is ``x//4``,
``Mod(x, 4) + 4*ModularIndexing(x, 4, 8) + 32*(x//32)`` is ``x`` (the whole recognised: ``D(x, 1, ∞)``). Each
merge removes a division, so the form is never costlier.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term


@dataclass(frozen=True)
class Digit:
    base: Term
    lo: int
    hi: int | None  # None: all the places from lo up (x//lo)

    def term(self) -> Term:
        q = ir.mk_floordiv(self.base, ir.mk_int(self.lo))
        return q if self.hi is None else ir.mk_mod(q, ir.mk_int(self.hi // self.lo))


def digit(m: Term) -> Digit | None:
    """The digit a monomial is, for literal positive radices (None for anything else)."""
    k = m.kind
    if k == ir.FLOORDIV:
        x, a = m.args
        if a.kind == ir.CONST and a.value > 0:
            return Digit(x, a.value, None)
        return None
    if k == ir.MOD:
        x, n = m.args
        if n.kind != ir.CONST or n.value <= 0:
            return None
        if x.kind == ir.FLOORDIV and x.args[1].kind == ir.CONST and x.args[1].value > 0:
            a = x.args[1].value
            return Digit(x.args[0], a, a * n.value)
        shifted = _shifted(x)
        if shifted is not None:
            base, place = shifted
            return Digit(base, place, place * n.value)
        return Digit(x, 1, n.value)
    return None


def _shifted(x: Term) -> tuple[Term, int] | None:
    """``q + y//a`` (one floor division by a literal ``a > 0`` with coefficient 1, any integer
    rest ``q``) as ``(y + a*q)//a``: ``(y + a*q)//a = q + y//a`` for every integer ``q``. The
    rewriter spells a digit of a shifted base this way (``Mod((x + 3*w)//3, 4)`` is
    ``Mod(w + x//3, 4)``); read back, its base is the other digits' again."""
    if x.kind != ir.ADD:
        return None
    coefs, const = ir.linear(x)
    quotients = [m for m, c in coefs.items()
                 if c == 1 and m.kind == ir.FLOORDIV and m.args[1].kind == ir.CONST and m.args[1].value > 0]
    if len(quotients) != 1:
        return None
    m = quotients[0]
    a = m.args[1].value
    rest = {n: c * a for n, c in coefs.items() if n is not m}
    return ir.mk_add(m.args[0], ir.from_linear(rest, const * a)), a


def _same_below(x: Term, y: Term, place: int) -> bool:
    """``x - y`` is a multiple of ``place`` for all integer values (every coefficient is): then
    the digits of ``x`` and ``y`` below ``place`` agree — ``D(x, a, place)`` depends on ``x``
    modulo ``place`` only (``a | place``)."""
    if x is y:
        return True
    coefs, const = ir.linear(ir.mk_sub(x, y))
    return const % place == 0 and all(c % place == 0 for c in coefs.values())


def split(m: Term) -> Term | None:
    """``D(x, a, e)//k -> D(x, a*k, e)`` when ``k | e/a`` (module docstring), else None."""
    if m.kind != ir.FLOORDIV or m.args[1].kind != ir.CONST or m.args[1].value <= 0:
        return None
    d = digit(m.args[0])
    k = m.args[1].value
    if d is None or d.hi is None or d.base.kind == ir.CONST or ((d.hi // d.lo) % k):
        return None
    return Digit(d.base, d.lo * k, d.hi).term()


def merge_digits(coefs: dict[Term, int], const: int) -> Term | None:
    """The sum ``Σ coefs + const`` with adjacent digits of one base merged, or None when no two
    merge."""
    return _fold(coefs, const, _merged)


def _fold(coefs: dict[Term, int], const: int,
          step: Callable[[dict[Term, int], dict[Term, Digit]], tuple[Term, Term, Digit] | None]) -> Term | None:
    """The sum with ``step``'s pairs replaced until there is none: ``step`` names the monomial whose
    coefficient the new digit takes, the one that goes, and the new digit; None when no step."""
    digits = {m: d for m in coefs if (d := digit(m)) is not None and d.base.kind != ir.CONST}
    if len(digits) < 2:
        return None
    cur = dict(coefs)
    changed = False
    while (pair := step(cur, digits)) is not None:
        keep, gone, new = pair
        c = cur.pop(keep)
        cur.pop(gone)
        t = new.term()
        cur[t] = cur.get(t, 0) + c
        if t.kind != ir.CONST:
            digits[t] = new
        changed = True
    return ir.from_linear({m: c for m, c in cur.items() if c}, const) if changed else None


def _merged(cur: dict[Term, int], digits: dict[Term, Digit]) -> tuple[Term, Term, Digit] | None:
    """``_adjacent``'s pair and the digit they make: the bases agree below the lower digit's top,
    so the higher digit's base is the whole's."""
    pair = _adjacent(cur, digits)
    if pair is None:
        return None
    dl, dh = digits[pair[0]], digits[pair[1]]
    return pair[0], pair[1], Digit(dh.base, dl.lo, dh.hi)


def _adjacent(cur: dict[Term, int], digits: dict[Term, Digit]) -> tuple[Term, Term] | None:
    """Two digits ``D(x, a, b)`` (coefficient ``c``) and ``D(y, b, e)`` (coefficient ``c*b/a``)
    of bases equal below ``b`` (``_same_below``: ``D(x, a, b) = D(y, a, b)``, so the pair is
    ``D(y, a, e)``)."""
    by_lo: dict[int, list[Term]] = {}
    for m in cur:
        d = digits.get(m)
        if d is not None:
            by_lo.setdefault(d.lo, []).append(m)
    for m in sorted((m for m in cur if m in digits), key=lambda t: t.skey):
        d = digits[m]
        if d.hi is None or d.hi % d.lo:
            continue
        for n in sorted(by_lo.get(d.hi, ()), key=lambda t: t.skey):
            e = digits[n]
            if (e.hi is None or e.hi % e.lo == 0) and cur[n] == cur[m] * (d.hi // d.lo) \
                    and _same_below(e.base, d.base, d.hi):
                return m, n
    return None


def digit_differences(coefs: dict[Term, int], const: int) -> Term | None:
    """The sum with each pair ``c*D(x, a, e) - c*(b/a)*D(y, b, e)`` (``a | b``, ``b | e`` or
    ``e = ∞``, ``x`` and ``y`` equal below ``e``: the same term when ``e = ∞``) replaced by
    ``c*D(x, a, b)``, or None when there is no such pair. An identity (merge, module docstring);
    each step drops a monomial and never adds a division (``D(x, a, b)`` has at most two, the pair
    at least two)."""
    return _fold(coefs, const, _difference)


def _difference(cur: dict[Term, int], digits: dict[Term, Digit]) -> tuple[Term, Term, Digit] | None:
    for m in sorted((m for m in cur if m in digits), key=lambda t: t.skey):
        w = digits[m]
        for n in sorted((n for n in cur if n in digits and n is not m), key=lambda t: t.skey):
            h = digits[n]
            if h.hi != w.hi or h.lo <= w.lo or h.lo % w.lo or cur[n] != -cur[m] * (h.lo // w.lo):
                continue
            if w.hi is None and h.base is not w.base:
                continue
            if w.hi is not None and (w.hi % h.lo or not _same_below(h.base, w.base, w.hi)):
                continue
            return m, n, Digit(w.base, w.lo, h.lo)
    return None
