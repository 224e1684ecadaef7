"""Polynomials in the quotients ``q0, q1, q2`` of a cell of residue classes, over a box of their
ranges: what ``multivariate`` decides a comparison with.

Arithmetic (``_add``, ``_mul``, bounded by ``MAX_DEGREE``), ``//`` and ``Mod`` where exact on the
class (``_divide``), ``Max``/``Min`` where one argument dominates the box (``_extreme``), bounds
over the box (``_range``: exact at a corner when the shifted coefficients share a sign, an
enclosure otherwise) and the decision of ``p rel 0`` on the whole box (``_decide``). What cannot be
followed raises ``_Open``: the comparison stays undecided, never guessed.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Sequence

from symguard.solver.ir import terms as ir
from symguard.solver.reason import quasilinear

MAX_DEGREE = 6
MAX_ROOT_CANDIDATES = 64

Poly = dict[tuple[int, ...], int]  # (exponent of q0, of q1, ...) -> coefficient
Interval = tuple[int | None, int | None]
Box = tuple[Interval, ...]  # one interval per symbol


class _Open(Exception):
    """A term this procedure cannot follow on some class (the answer is then undecided)."""



def _add(ps: Sequence[Poly]) -> Poly:
    out: Poly = {}
    for p in ps:
        for m, c in p.items():
            out[m] = out.get(m, 0) + c
    return {m: c for m, c in out.items() if c}


@functools.cache
def _unit(n: int, var: int) -> tuple[int, ...]:
    """The monomial ``q_var`` among ``n`` quotients."""
    return tuple(1 if v == var else 0 for v in range(n))


def _mul(a: Poly, b: Poly) -> Poly:
    out: Poly = {}
    get = out.get
    for ma, c in a.items():
        for mb, d in b.items():
            m = tuple(map(operator.add, ma, mb))  # the hottest loop of a walk: no generator
            out[m] = get(m, 0) + c * d
    res = {m: c for m, c in out.items() if c}
    for m in res:
        if sum(m) > MAX_DEGREE:
            raise _Open
    return res


def _divide(kind: str, u: Poly, v: Poly, box: tuple[Interval, ...] | None) -> Poly:
    """``u // v`` or ``Mod(u, v)`` (Python's) where it is exact on the class; else ``_Open``."""
    if not v:
        raise _Open  # a zero divisor: the guard's own domain, not decided here
    zero = (0,) * len(next(iter(v)))
    if list(v) == [zero]:
        c = v[zero]
        rest = {m: x for m, x in u.items() if m != zero}
        if all(x % c == 0 for x in rest.values()):
            u0 = u.get(zero, 0)
            if kind == ir.MOD:
                return {zero: u0 % c} if u0 % c else {}
            return _add([{m: x // c for m, x in rest.items()}, {zero: u0 // c} if u0 // c else {}])
        raise _Open
    if box is None:
        raise _Open
    # u == w*v + r: a product divided by one of its factors (the batch times the window count
    # divided by the window count), exact when r == 0 and else when r, or r + v, lies in [0, v)
    qr = _long_division(u, v)
    if qr is not None and _sign_definite(v, box):
        w, r = qr
        if not r:
            return w if kind == ir.FLOORDIV else {}
        for shift in (0, 1):  # u == (w - shift)*v + (r + shift*v)
            rest = _add([r, v]) if shift else r
            if _below(rest, v, box):
                return (_add([w, {zero: -shift}]) if shift else w) if kind == ir.FLOORDIV else rest
    if _below(u, v, box):  # quotient 0, remainder u
        return {} if kind == ir.FLOORDIV else u
    raise _Open


def _below(x: Poly, v: Poly, box: tuple[Interval, ...]) -> bool:
    """Whether ``0 <= x < v`` on the whole box (``x`` is then ``Mod(x, v)`` and ``x // v`` is 0)."""
    lo_x, _ = _range(x, box)
    _, hi_gap = _range(_add([x, {m: -c for m, c in v.items()}]), box)
    return lo_x is not None and lo_x >= 0 and hi_gap is not None and hi_gap < 0


def _extreme(kind: str, args: Sequence[Poly], box: tuple[Interval, ...] | None) -> Poly:
    """``Max``/``Min`` of the arguments where one of them is the largest (smallest) on the whole
    class: its difference to each other argument has one sign on the box; else ``_Open``."""
    if box is None:
        raise _Open
    for a in args:
        ok = True
        for b in args:
            if b is a:
                continue
            lo, hi = _range(_add([a, {m: -c for m, c in b.items()}]), box)
            if not ((lo is not None and lo >= 0) if kind == ir.MAX else (hi is not None and hi <= 0)):
                ok = False
                break
        if ok:
            return a
    raise _Open


def _long_division(u: Poly, v: Poly) -> tuple[Poly, Poly] | None:
    """``(w, r)`` with ``u == w*v + r``, integer coefficients and no monomial of ``r`` a multiple
    of ``v``'s leading one, or None: long division by ``v`` in the graded-lexicographic order (a
    monomial order, so each step lowers the leading monomial left; with one divisor ``r == 0``
    exactly when ``v`` divides ``u``), None when a coefficient does not divide (not followed)."""
    lead = max(v, key=_grlex)
    cv = v[lead]
    rem = dict(u)
    out: Poly = {}
    left_over: Poly = {}
    for _ in range(4 * MAX_DEGREE ** 2 + len(u)):
        if not rem:
            return out, left_over
        top = max(rem, key=_grlex)
        m = tuple(a - b for a, b in zip(top, lead))
        if min(m) < 0:
            left_over[top] = rem.pop(top)
            continue
        if rem[top] % cv:
            return None
        c = rem[top] // cv
        out[m] = out.get(m, 0) + c
        for mv, dv in v.items():
            mm = tuple(a + b for a, b in zip(m, mv))
            left = rem.get(mm, 0) - c * dv
            if left:
                rem[mm] = left
            else:
                rem.pop(mm, None)
    return None


def _grlex(m: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
    return sum(m), m


def _sign_definite(v: Poly, box: tuple[Interval, ...]) -> bool:
    lo, hi = _range(v, box)
    return (lo is not None and lo > 0) or (hi is not None and hi < 0)


def _shift(p: Poly, box: tuple[Interval, ...]) -> tuple[Poly, list[int | None]] | None:
    """``p`` with ``q_i = lo_i + t_i`` (or ``hi_i - t_i``), ``0 <= t_i <= T_i``: the polynomial in
    the ``t`` and each ``T`` (None: unbounded). None when a variable ``p`` uses is unbounded both ways."""
    n = len(box)
    used = [any(m[i] for m in p) for i in range(n)]
    subs: list[tuple[int, int]] = []  # q_i = base + sign*t_i
    spans: list[int | None] = []
    for i in range(n):
        lo, hi = box[i]
        if lo is not None:
            subs.append((lo, 1))
            spans.append(None if hi is None else hi - lo)
        elif hi is not None:
            subs.append((hi, -1))
            spans.append(None)
        else:
            if used[i]:
                return None
            subs.append((0, 1))
            spans.append(None)
    out: Poly = {}
    zero = (0,) * n
    for mono, c in p.items():
        term: Poly = {zero: c}
        for var, e in enumerate(mono):
            base, sign = subs[var]
            lin = {m: x for m, x in ((zero, base), (_unit(n, var), sign)) if x}
            for _ in range(e):
                term = _mul(term, lin)
        for m, x in term.items():
            out[m] = out.get(m, 0) + x
    return {m: c for m, c in out.items() if c}, spans


def _fix(p: Poly, box: tuple[Interval, ...]) -> Poly:
    """``p`` with every quotient the box pins to one value (``lo == hi``: a peeled piece of a
    cell, ``_Walk._cell``) replaced by that value: the same function on the box."""
    if all(lo is None or lo != hi for lo, hi in box):
        return p
    pinned = [lo if lo is not None and lo == hi else None for lo, hi in box]
    out: Poly = {}
    for m, c in p.items():
        for e, v in zip(m, pinned):
            if e and v is not None:
                c *= v ** e
        key = tuple(0 if v is not None else e for e, v in zip(m, pinned))
        out[key] = out.get(key, 0) + c
    return {m: c for m, c in out.items() if c}


def _range(p: Poly, box: tuple[Interval, ...]) -> tuple[int | None, int | None]:
    """Bounds (None: unbounded or unknown) of ``p`` over the box: exact at the corner when the
    shifted coefficients share a sign, an enclosure otherwise."""
    return _range_fixed(_fix(p, box), box)


def _range_fixed(p: Poly, box: tuple[Interval, ...]) -> tuple[int | None, int | None]:
    """``_range`` of a polynomial ``_fix`` has already seen."""
    n = len(box)
    zero = (0,) * n
    pos = neg = False
    used = [False] * n
    for m, c in p.items():
        if m != zero:
            if c > 0:
                pos = True
            else:
                neg = True
            used = [u or e > 0 for u, e in zip(used, m)]
    if not (pos or neg):
        c0 = p.get(zero, 0)
        return c0, c0
    if pos != neg and all(not u or (lo is not None and lo >= 0) for u, (lo, _) in zip(used, box)):
        # monotone on the box (non-negative quotients, one sign): the extremes are at the corners
        low = _at(p, [lo or 0 for lo, _ in box])
        high = None if any(u and hi is None for u, (_, hi) in zip(used, box)) else _at(p, [hi or 0 for _, hi in box])
        return (low, high) if pos else (high, low)
    got = _shift(p, box)
    if got is None:
        return None, None
    q, spans = got
    lo: int | None = q.get(zero, 0)
    hi: int | None = lo
    for m, c in q.items():
        if m == zero:
            continue
        big: int | None = c
        for e, span in zip(m, spans):
            if e:
                big = None if span is None or big is None else big * span ** e
        if c > 0:
            hi = None if hi is None or big is None else hi + big
        else:
            lo = None if lo is None or big is None else lo + big
    return lo, hi


def _at(p: Poly, q: Sequence[int]) -> int:
    return sum(c * math.prod(x ** e for x, e in zip(q, m)) for m, c in p.items())





def _no_integer_root(p: Poly, box: tuple[Interval, ...]) -> bool:
    """Whether a polynomial in one quotient has no integer root in the box. An integer root of
    ``q^k * r(q)`` with ``r(0) != 0`` is 0 (when ``k > 0``) or a divisor of ``r(0)``: few
    candidates, each evaluated (``ceil(x/2)*x == 16`` has none)."""
    used = [v for v in range(len(box)) if any(m[v] for m in p)]
    if len(used) != 1:
        return False
    v = used[0]
    k = min(m[v] for m in p)
    c0 = next((c for m, c in p.items() if m[v] == k), 0)
    lo, hi = box[v]
    cands = [0] if k > 0 else []
    if abs(c0) > 1 << 20:
        return False
    divs = [d for d in range(1, math.isqrt(abs(c0)) + 1) if c0 % d == 0]
    divs += [abs(c0) // d for d in divs]
    if len(divs) > MAX_ROOT_CANDIDATES:
        return False
    cands += [s * d for d in divs for s in (1, -1)]
    for q in cands:
        if (lo is None or q >= lo) and (hi is None or q <= hi) and sum(c * q ** m[v] for m, c in p.items()) == 0:
            return False
    return True


def _decide(rel: str, p: Poly, box: tuple[Interval, ...]) -> bool | None:
    """Whether ``p rel 0`` holds on the whole class (True), nowhere in it (False), or either."""
    p = _fix(p, box)
    zero = (0,) * len(box)
    if not p or list(p) == [zero]:
        return quasilinear.rel_holds(rel, p.get(zero, 0))
    if rel in ("eq", "ne"):
        g = 0
        for m, c in p.items():
            if m != zero:
                g = math.gcd(g, c)
        never = p.get(zero, 0) % g != 0
        if not never:
            lo, hi = _range_fixed(p, box)
            never = (lo is not None and lo > 0) or (hi is not None and hi < 0)
        if not never:
            never = _no_integer_root(p, box)
        if never:
            return rel == "ne"
        return None
    lo, hi = _range_fixed(p, box)
    if hi is not None and hi <= 0:
        return rel == "le"
    if lo is not None and lo > 0:
        return rel == "gt"
    return None
