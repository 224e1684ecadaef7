"""A condition on one integer term as a set of intervals: the decision procedure behind
``simplify``'s comparisons of ``TruncDiv``, ``Piecewise`` and floor divisions by literals.

``solve(c)`` reads a boolean ``c`` built from comparisons, ``Not``, ``And`` and ``Or`` whose
integer sides are all functions of **one** term ``t`` through

* affine maps ``a*u + k`` (``a != 0``): ``a*u + k in [lo, hi]`` iff ``u`` is in
  ``[ceil((lo - k)/a), floor((hi - k)/a)]`` (``a > 0``; the ends swap for ``a < 0``);
* floor divisions by a literal ``d != 0``: ``u//d in [lo, hi]`` iff ``u in [lo*d, hi*d + d - 1]``
  (``d > 0``: ``floor(u/d) >= lo <=> u >= lo*d`` and ``floor(u/d) <= hi <=> u < (hi + 1)*d``) or
  ``u in [(hi + 1)*d + 1, lo*d]`` (``d < 0``, the inequalities turned over);
* ``Piecewise((A, p), (B, True))`` with ``p`` itself such a condition on ``t``:
  ``{t : p and A in S} | {t : not p and B in S}`` — truncated division, which the reader spells
  ``Piecewise((x//d, x >= 0), (-((-x)//d), True))``, is the case the rule is for;

and returns ``(t, S)`` with ``S`` the exact set of values of ``t`` where ``c`` holds: a finite
union of integer intervals (sorted, disjoint, not adjacent; ``None`` an unbounded end). Every
step is an equivalence over the integers, so the set is exact; ``render`` meets it with ``t``'s
interval on the context (sound bounds at every point) and writes what is left as one bound, one
interval, an equation, or the exclusion of one point or one interval. ``TruncDiv(x, 4) < 2`` is
``x <= 7`` (rounding toward zero makes every ``x < 0`` a quotient of at most 0), ``TruncDiv(x, 4) < 0``
is ``x <= -4``, ``Eq(TruncDiv(x, 4), 0)`` is ``-3 <= x <= 3``.
"""

from __future__ import annotations

from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term

Span = tuple[int | None, int | None]
Spans = tuple[Span, ...]
Interval = tuple[int | None, int | None]

ALL: Spans = ((None, None),)
NONE: Spans = ()
MAX_SPANS = 8  # a set of more intervals is not one bound: the procedure gives up
MAX_NODES = 48  # nodes of the condition walked (a large guard is not a condition on one term)


class _GiveUp(Exception):
    pass



def _norm(spans: list[Span]) -> Spans:
    """Sorted, overlapping or adjacent intervals merged, empty ones dropped."""
    live = [(lo, hi) for lo, hi in spans if lo is None or hi is None or lo <= hi]
    live.sort(key=lambda s: (s[0] is not None, s[0] or 0))
    out: list[list[int | None]] = []
    for lo, hi in live:
        if out:
            phi = out[-1][1]
            if phi is None or lo is None or lo <= phi + 1:
                out[-1][1] = None if phi is None or hi is None else max(phi, hi)
                continue
        out.append([lo, hi])
    if len(out) > MAX_SPANS:
        raise _GiveUp
    return tuple((a, b) for a, b in out)


def meet(a: Spans, b: Spans) -> Spans:
    out: list[Span] = []
    for alo, ahi in a:
        for blo, bhi in b:
            lo = alo if blo is None else blo if alo is None else max(alo, blo)
            hi = ahi if bhi is None else bhi if ahi is None else min(ahi, bhi)
            out.append((lo, hi))
    return _norm(out)


def join(a: Spans, b: Spans) -> Spans:
    return _norm([*a, *b])


def complement(a: Spans) -> Spans:
    out: list[Span] = []
    cur: int | None = None  # the first value not yet covered (None: from -inf)
    for lo, hi in a:
        if lo is not None:
            out.append((cur, lo - 1))
        if hi is None:
            return _norm(out)
        cur = hi + 1
    out.append((cur, None))
    return _norm(out)


def _affine(s: Spans, a: int, k: int) -> Spans:
    """``{u : a*u + k in s}``."""
    out: list[Span] = []
    for lo, hi in s:
        if a > 0:
            out.append((None if lo is None else ir.ceil_div(lo - k, a), None if hi is None else (hi - k) // a))
        else:
            out.append((None if hi is None else ir.ceil_div(hi - k, a), None if lo is None else (lo - k) // a))
    return _norm(out)


def _floor_pre(s: Spans, d: int) -> Spans:
    """``{u : u//d in s}`` for a literal ``d != 0``."""
    out: list[Span] = []
    for lo, hi in s:
        if d > 0:
            out.append((None if lo is None else lo * d, None if hi is None else hi * d + d - 1))
        else:
            out.append((None if hi is None else (hi + 1) * d + 1, None if lo is None else lo * d))
    return _norm(out)


class _Solver:
    def __init__(self) -> None:
        self.base: Term | None = None
        self.nodes = 0

    def _tick(self) -> None:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise _GiveUp

    def _at(self, t: Term, s: Spans) -> Spans:
        """The set of values of the base where ``t``'s value is in ``s``."""
        self._tick()
        if not s:
            return NONE
        k = t.kind
        if k == ir.CONST:
            return ALL if any((lo is None or lo <= t.value) and (hi is None or t.value <= hi) for lo, hi in s) else NONE
        if k in (ir.ADD, ir.MUL):
            coefs, const = ir.linear(t)
            if len(coefs) == 1:
                (u, a), = coefs.items()
                if u is not t:
                    return self._at(u, _affine(s, a, const))
        elif k == ir.FLOORDIV and t.args[1].kind == ir.CONST and t.args[1].value != 0:
            return self._at(t.args[0], _floor_pre(s, t.args[1].value))
        elif k == ir.ITE:
            p = self.cond(t.args[0])
            return join(meet(p, self._at(t.args[1], s)), meet(complement(p), self._at(t.args[2], s)))
        if self.base is None:
            self.base = t
        elif self.base is not t:
            raise _GiveUp
        return s

    def cond(self, c: Term) -> Spans:
        self._tick()
        k = c.kind
        if k == ir.BCONST:
            return ALL if c.value else NONE
        if k == ir.LE:
            return self._at(c.args[0], ((None, 0),))
        if k == ir.EQ:
            return self._at(c.args[0], ((0, 0),))
        if k == ir.NOT:
            return complement(self.cond(c.args[0]))
        if k in (ir.AND, ir.OR):
            acc = ALL if k == ir.AND else NONE
            for a in c.args:
                acc = meet(acc, self.cond(a)) if k == ir.AND else join(acc, self.cond(a))
            return acc
        raise _GiveUp


def solve(c: Term) -> tuple[Term, Spans] | None:
    """``(t, S)``: ``c`` holds exactly where ``t``'s value is in ``S``; None when ``c`` is not a
    condition on one term of the shapes above (or the set has more than ``MAX_SPANS`` intervals)."""
    sv = _Solver()
    try:
        s = sv.cond(c)
    except _GiveUp:
        return None
    if sv.base is None:
        return None
    return sv.base, s


def render(t: Term, s: Spans, known: Interval) -> Term | None:
    """``t in S`` as one bound, an interval, an equation or one exclusion, given that ``t`` is in
    ``known`` at every point of the context (so only the ends ``known`` does not already give are
    written); None when what is left needs more (also when the spans are more than ``meet``
    keeps: an enumerated residue class on a wide range)."""
    klo, khi = known
    try:
        return _render(t, meet(s, ((klo, khi),)), known)
    except _GiveUp:
        return None


def _render(t: Term, s: Spans, known: Interval) -> Term | None:
    klo, khi = known
    if not s:
        return ir.FALSE
    if s == ((klo, khi),):
        return ir.TRUE
    if len(s) == 1:
        return _interval(t, s[0], known)
    gaps = meet(complement(s), ((klo, khi),))
    if len(gaps) == 1:
        glo, ghi = gaps[0]
        if glo is not None and glo == ghi:
            return ir.mk_ne(t, ir.mk_int(glo))
        return ir.mk_or(*(_interval(t, sp, known) for sp in s))
    return None


def _interval(t: Term, span: Span, known: Interval) -> Term:
    lo, hi = span
    if lo is not None and lo == hi:
        return ir.mk_eq(t, ir.mk_int(lo))
    parts = []
    if lo is not None and lo != known[0]:
        parts.append(ir.mk_le(ir.mk_int(lo), t))
    if hi is not None and hi != known[1]:
        parts.append(ir.mk_le(t, ir.mk_int(hi)))
    return ir.mk_and(*parts)
