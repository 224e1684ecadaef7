"""Sound deciders that need no search: constants, repeated asserts, interval arithmetic.

``decide(cond, facts, asserts)`` returns True when ``cond`` holds at every point of the symbol
ranges that satisfies the asserts, False when it holds at none, None when it cannot tell.
Intervals are over-approximations (``None`` bound = unbounded), so a decided answer is exact:
``hi(e) <= 0`` proves ``e <= 0`` everywhere; ``lo(e) > 0`` proves it nowhere.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from symguard.solver.ir import terms as ir
from symguard.solver.ir.problem import Problem
from symguard.solver.ir.terms import Term

Bound = int | None  # None: unbounded on that side
Interval = tuple[Bound, Bound]  # the one interval type of ``solver.reason`` (facts, rewrite reuse it)
FULL: Interval = (None, None)


def meet(a: Interval, b: Interval) -> Interval:
    """Both intervals hold: the tighter end on each side (None is unbounded)."""
    lo = a[0] if b[0] is None else b[0] if a[0] is None else max(a[0], b[0])
    hi = a[1] if b[1] is None else b[1] if a[1] is None else min(a[1], b[1])
    return (lo, hi)


@dataclass(frozen=True)
class Facts:
    """Symbol ranges, tightened by single-symbol bound asserts (``s0 >= 16``)."""

    ranges: dict[str, Interval]

    @classmethod
    def from_problem(cls, p: Problem) -> Facts:
        ranges: dict[str, Interval] = {s.name: (s.lo, s.hi) for s in p.symbols if not s.is_bool}
        for c in p.asserts:
            if c.term is None:
                continue
            for atom in (c.term.args if c.term.kind == ir.AND else (c.term,)):
                _tighten(ranges, atom)
        return cls(ranges)


def _tighten(ranges: dict[str, Interval], atom: Term) -> None:
    """``c*s + k <= 0`` or ``c*s + k == 0`` with one symbol tightens that symbol's range."""
    if atom.kind not in (ir.LE, ir.EQ):
        return
    coefs, k = ir.linear(atom.args[0])
    if len(coefs) != 1:
        return
    (m, c), = coefs.items()
    if m.kind != ir.SYM or m.value not in ranges:
        return
    lo, hi = ranges[m.value]
    if atom.kind == ir.EQ:
        if k % c == 0:
            v = -k // c
            lo, hi = _max(lo, v), _min(hi, v)
    elif c > 0:  # s <= floor(-k / c)
        hi = _min(hi, (-k) // c)
    else:  # s >= ceil(-k / c) = ceil(k / -c)
        lo = _max(lo, -((-k) // (-c)))
    ranges[m.value] = (lo, hi)


def _max(a: Bound, b: int) -> int:
    return b if a is None else max(a, b)


def _min(a: Bound, b: int) -> int:
    return b if a is None else min(a, b)


def decide(cond: Term, facts: Facts, asserts: Sequence[Term] = ()) -> bool | None:
    if cond.kind == ir.BCONST:
        return bool(cond.value)
    if cond in asserts:
        return True
    if ir.mk_not(cond) in asserts:
        return False
    return _Intervals(facts).truth(cond)


class _Intervals:
    def __init__(self, facts: Facts) -> None:
        self.facts = facts
        self.memo: dict[Term, Interval] = {}

    def truth(self, t: Term) -> bool | None:
        k = t.kind
        if k == ir.BCONST:
            return bool(t.value)
        if k == ir.LE:
            lo, hi = self.of(t.args[0])
            if hi is not None and hi <= 0:
                return True
            if lo is not None and lo > 0:
                return False
            return None
        if k == ir.EQ:
            lo, hi = self.of(t.args[0])
            if lo == 0 and hi == 0:
                return True
            if (lo is not None and lo > 0) or (hi is not None and hi < 0):
                return False
            return None
        if k == ir.NOT:
            v = self.truth(t.args[0])
            return None if v is None else not v
        if k in (ir.AND, ir.OR):
            vals = [self.truth(a) for a in t.args]
            if k == ir.AND:
                return False if False in vals else True if all(v is True for v in vals) else None
            return True if True in vals else False if all(v is False for v in vals) else None
        return None

    def of(self, t: Term) -> Interval:
        hit = self.memo.get(t)
        if hit is None:
            for n in ir.iter_dag(t):
                if n not in self.memo and not n.is_bool:
                    self.memo[n] = self._one(n)
            hit = self.memo[t]
        return hit

    def _one(self, n: Term) -> Interval:
        k = n.kind
        if k == ir.CONST:
            return (n.value, n.value)
        if k == ir.SYM:
            return self.facts.ranges.get(n.value, FULL)
        a = [self.memo[x] for x in n.args if not x.is_bool]
        if k == ir.ADD:
            lo: Bound = 0
            hi: Bound = 0
            for x, y in a:
                lo = None if lo is None or x is None else lo + x
                hi = None if hi is None or y is None else hi + y
            return (lo, hi)
        if k == ir.MUL:
            acc = a[0]
            for iv in a[1:]:
                acc = _mul(acc, iv)
            return acc
        if k == ir.MAX:
            return (_ext(max, [x for x, _ in a], any_none=False), _ext(max, [y for _, y in a], any_none=True))
        if k == ir.MIN:
            return (_ext(min, [x for x, _ in a], any_none=True), _ext(min, [y for _, y in a], any_none=False))
        if k == ir.ITE:
            c = self.truth(n.args[0])
            if c is not None:
                return a[0] if c else a[1]
            (l1, h1), (l2, h2) = a
            return (None if l1 is None or l2 is None else min(l1, l2),
                    None if h1 is None or h2 is None else max(h1, h2))
        if k == ir.FLOORDIV:
            return _floordiv(a[0], a[1])
        if k == ir.MOD:
            return _mod(a[0], a[1])
        if k == ir.EMOD:
            bl, bh = a[1]
            if bl is None or bh is None:
                return (0, None)
            return (0, max(abs(bl), abs(bh)) - 1)
        if k == ir.ISQRT:
            return _isqrt(a[0])
        if k == ir.BITFLOOR:
            return _bitfloor(a[0])
        return FULL


def _ext(fn: object, xs: list[Bound], *, any_none: bool) -> Bound:
    """max/min over bounds where None is +inf (any_none) or -inf (otherwise, ignored)."""
    if any_none:
        if any(x is None for x in xs):
            return None
        return fn(xs)  # type: ignore[operator, no-any-return]
    vals = [x for x in xs if x is not None]
    return fn(vals) if vals else None  # type: ignore[operator, no-any-return]


def _mul(x: Interval, y: Interval) -> Interval:
    """Interval product with unbounded ends (None) treated as ±infinity, ``0*inf = 0`` (an integer
    factor that is exactly 0 makes the product 0 whatever the other is). The one interval product
    of ``solver.reason`` (``rewrite`` uses it through ``mul_iv``)."""
    (a, b), (c, d) = x, y
    if a is not None and a == b and (c is None or d is None or c <= d):  # a literal factor (most
        return _scaled(a, c, d)  # products): the other interval, when not empty, scaled
    if c is not None and c == d and (a is None or b is None or a <= b):
        return _scaled(c, a, b)
    inf = math.inf
    xs = (-inf if a is None else a, inf if b is None else b)
    ys = (-inf if c is None else c, inf if d is None else d)
    ps = [_times(p, q) for p in xs for q in ys]
    lo, hi = min(ps), max(ps)
    return (None if lo == -inf else int(lo), None if hi == inf else int(hi))


def _scaled(v: int, lo: Bound, hi: Bound) -> Interval:
    """``v * [lo, hi]`` as ``_mul`` computes it (an unbounded end times 0 is 0)."""
    if v == 0:
        return (0, 0)
    if v > 0:
        return (None if lo is None else v * lo, None if hi is None else v * hi)
    return (None if hi is None else v * hi, None if lo is None else v * lo)


def _times(p: float, q: float) -> float:
    """Exact for ints of any size: only the float infinities are floats (``math.isinf`` on an
    int converts it to a float, which overflows past 10**308)."""
    if p == 0 or q == 0:
        return 0
    if isinstance(p, float) or isinstance(q, float):
        return math.inf if (p > 0) == (q > 0) else -math.inf
    return p * q


def _floordiv(x: Interval, y: Interval) -> Interval:
    (a, b), (c, d) = x, y
    if (a is not None and b is not None and a > b) or (c is not None and d is not None and c > d):
        return FULL  # an empty range (contradictory bound asserts): no point, any answer is sound
    if c is None or d is None or c <= 0 <= d:
        if c is not None and c > 0 and a is not None and a >= 0:
            return (0, None if b is None else b // c)
        return FULL
    # divisor of one sign: floor(p/q) is monotone in each argument on each orthant
    if a is None or b is None:
        if c > 0 and a is not None:  # x >= a, y in [c, d] positive
            return (min(a // c, a // d), None)
        if c > 0 and b is not None:
            return (None, max(b // c, b // d))
        return FULL
    qs = [a // c, a // d, b // c, b // d]
    return (min(qs), max(qs))


def _mod(x: Interval, y: Interval) -> Interval:
    (a, b), (c, d) = x, y
    if c is not None and c == d and c != 0:
        if a is not None and b is not None and a // c == b // c and c > 0:
            return (a % c, b % c)  # one period: mod is the identity shifted
        return (0, c - 1) if c > 0 else (c + 1, 0)
    if c is not None and c > 0:
        hi = None if d is None else d - 1
        if a is not None and a >= 0 and b is not None:
            hi = b if hi is None else min(hi, b)
        return (0, hi)
    if d is not None and d < 0:
        return (None if c is None else c + 1, 0)
    return FULL


def _isqrt(x: Interval) -> Interval:
    """``isqrt`` is monotone; it is defined only where its argument is ``>= 0`` (elsewhere the
    guard fails: no value to bound), so a negative lower end counts as 0."""
    a, b = x
    if b is not None and b < 0:
        return FULL  # defined nowhere: any answer is sound
    return (0 if a is None or a < 0 else math.isqrt(a), None if b is None else math.isqrt(b))


def _bitfloor(x: Interval) -> Interval:
    """``bit_floor`` is monotone; it is defined only where its argument is ``>= 1``, so a lower
    end below 1 counts as 1."""
    a, b = x
    if b is not None and b < 1:
        return FULL  # defined nowhere: any answer is sound
    return (1 if a is None or a < 1 else ir.bit_floor(a), None if b is None else ir.bit_floor(b))


# interval arithmetic shared with ``rewrite``
mul_iv, floordiv_iv, mod_iv, isqrt_iv, bitfloor_iv = _mul, _floordiv, _mod, _isqrt, _bitfloor
