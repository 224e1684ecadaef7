"""Implications between guards over two or three sizes, decided residue class by residue class.

Patch merging across two sizes relates their division chains: ``(x//16 + 1)*(y//16 + 1) ==
4*(x//32 + 1)*(y//32 + 1)`` says both quotients by 16 are odd; a dynamic batch ``b`` multiplies
the window count, ``b*(x//16 + 1)*(y//16 + 1)``. Each one-symbol chain is quasi-linear
(``quasilinear``; a plain symbol is a chain of period 1): on the residue class ``x = L*q + r``
of a common period ``L`` it is ``a*q + b``. So on a cell of classes ``(r, r', r'')`` every
comparison built from such chains by sums and products becomes a comparison of a polynomial in
the integers ``q, q', q''`` whose ranges the symbols' ranges (and the one-symbol facts, linear
in ``q``) bound. Most are decided there without search:

* shifted to the low ends (``q = lo + t``, ``t >= 0``) a polynomial whose coefficients share a
  sign has its extreme at the corner: ``-(2*q' + 2) < 0`` for every ``q' >= 0``;
* ``e == 0`` has no integer solution when the constant is not a multiple of the gcd of the other
  coefficients, or, in one quotient, when none of its few integer root candidates is a root;
* ``u // v`` and ``Mod(u, v)`` on a class: exact when polynomial long division of ``u`` by ``v``
  leaves no remainder (a product divided by one of its factors) and ``v`` has one sign on the
  class, or ``v`` is a literal dividing every non-constant coefficient of ``u``, or ``0 <= u < v``;
* ``Max``/``Min`` on a class: the argument whose difference to every other has one sign on the
  class's range box (``Max(1, (x//8 + 1)*(y//8 + 1))`` is the product there).

``counterexample`` walks every cell of classes: the facts and the negated goal are all
decided true on a cell (a counterexample there, at the point nearest the hint), or one of
them false (nothing there). A cell where some comparison stays open makes the answer ``None``:
undecided, never a guess. Exact for every integer, negatives and zero included (hypothesis
tests against brute force).

The modules: this one walks the cells (``_Walk``) and keeps the budgets and the per-set memo
(``Memo``); ``multivariate_expr`` turns a comparison side into a polynomial per class, and
``multivariate_poly`` is the algebra on a class's box.
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Callable, Mapping, Sequence

from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import holds
from symguard.solver.ir.terms import Term
from symguard.solver.reason import quasilinear
from symguard.solver.reason.multivariate_expr import MAX_PERIOD, _Expr
from symguard.solver.reason.multivariate_poly import Box, Interval, Poly, _decide, _divide, _extreme, _Open

MAX_SYMBOLS = 3
MAX_CELLS = 1 << 14  # cells of residue classes one check may walk (those the one-symbol facts leave)
# work, counted in comparisons decided on a cell of classes (deterministic, like z3's resource
# units): a walk past its share is undecided, and a pass over a set of guards stops walking past
# its total. The Swin class needs at most 2,500 in one walk and 6,200 for a whole 537-guard set,
# the synthetic lattices and chains 13,000 and 61,000; 300 synthetic products spent 516,000 (7 s)
# deciding almost nothing
MAX_WALK = 15_000
MAX_TOTAL = 50_000
# once a cell stays open the walk can no longer show an implication, only find a counterexample:
# it looks for one this much further. Measured over the torch and validation sets, 112 walks went
# on to their end after an open cell (159,000 comparisons, a third of all) and one found a point
# (88 comparisons on); on the synthetic dev sets 2,537 walks spent 497,000 and 11 found one, 9 of
# them within 400 (poolformer and VitDet compile sets: 50,000 comparisons, 0.5-0.6 s, no guard
# decided, z3 then decided each guard in a few ms)
AFTER_OPEN = 500
TICK_EVERY = 64  # comparisons between two calls of ``Memo.tick`` (~1 ms of walking)
# walks over three symbols have shares of their own, so that they never starve the two-symbol
# walks: HF Swin with a dynamic batch needs 108 for its six; the synthetic products spent a whole
# 50,000 on 19 walks deciding 8 (and the mixed set lost 6 guards the two-symbol walks had decided).
# At 2,500 / 5,000 the synthetic sets keep what 10,000 decides but one guard, at 0-37 % more CPU
# than with two-symbol walks only (BENCHMARKS.md, "Round 3: three sizes")
# Max/Min resolved on a class (one argument dominates the class's range box): the Swin v2 hook
# problem needs 241 for a whole set, the synthetic nested Max/Min sets spent 48,000-113,000
# (2.5 -> 9.3 s of CPU) deciding nothing more; past this a term with a Max/Min is not followed
MAX_EXTREMES = 4_000
MAX_WALK_WIDE = 2_500
# rounds of cuts of an open cell at its lowest quotients, one symbol per cut (``_Walk._cell``)
PEEL_ROUNDS = 1
# comparisons charged for deciding an atom with a Max/Min again on a box the facts narrowed: its
# polynomial is rebuilt there (upernet_convnext_70x45 spent its whole walk share either way, at
# twice the CPU when this was charged as one)
TIGHT_EXTREMES_COST = 4
# a walk checks its pace at cells 64, 128, 256, ...: one whose comparisons so far, spread over all
# its cells, pass what it may spend gives up there instead of at its cap (it can no longer show an
# implication, which needs every cell). DepthPro's fusion guards: a 96 x 96 walk spent its 15,000
# on 9,216 cells and stayed open; z3 then decided the guard in a few ms
PROJECT_FROM = 64
MAX_PEEL = 5_000  # comparisons per set on those pieces (the VitDet class needs ~1,500 per walk)
MAX_TOTAL_WIDE = 5_000
# ... and one three-symbol walk never takes more than half of what is left of that share: a
# Swin trace with a dynamic batch (and stride symbols) had two walks that stayed open spend
# 2,500 each, and the product identity after them (64 comparisons) found the share gone
WIDE_SPLIT = 2

_Atom = tuple[str, Term]
_Class = tuple[int, int | None, int | None, frozenset[int], frozenset[int]]  # r, qlo, qhi, excluded, atoms used
_OPEN = None


class _NoPeel(Exception):
    """The set's budget for the pieces of cut cells is spent: the cell stays open."""


class Memo:
    """What one set of guards reuses between checks: each comparison side's plan, polynomials
    and decisions per class (the symbols' ranges are part of the key)."""

    def __init__(self, total: int = MAX_TOTAL, wide: int = MAX_TOTAL_WIDE,
                 tick: Callable[[], None] | None = None) -> None:
        self.tick = tick  # called every ``TICK_EVERY`` comparisons: the caller's wall-clock deadline may raise
        self.ticks = 0
        self.exprs: dict[tuple[Term, tuple[str, ...], Box], _Expr | None] = {}
        self.left = total  # comparisons the set may still decide over one or two symbols (``MAX_TOTAL``)
        self.left_wide = wide  # ... and over three (``MAX_TOTAL_WIDE``)
        self.extremes_left = MAX_EXTREMES  # Max/Min the set may still resolve on a class
        self.peel_left = MAX_PEEL  # comparisons on the pieces of cut cells (``_Walk._cell``)
        # resolved Max/Min by (kind, arguments, box): the cells of a walk, and the pieces cells are
        # cut into, meet the same few (``Max(1, q + c)`` on ``q >= 0`` or ``q >= 1``)
        self._extremes: dict[tuple[str, tuple[tuple[tuple[tuple[int, ...], int], ...], ...], Box], Poly | None] = {}
        # divisions by (kind, dividend, divisor, box): each cell of a walk rebuilds its atoms'
        # polynomials, and the same few quotients come back (Florence-2's windows: 8,319
        # divisions, 303 distinct). Not charged: ``_divide`` is exact or open, never a search
        self._divisions: dict[tuple[str, frozenset[tuple[tuple[int, ...], int]],
                                    frozenset[tuple[tuple[int, ...], int]], Box | None], Poly | None] = {}
        # a symbol's residue classes by (position, period, box, its one-symbol atoms): ``_Walk.classes``
        self.classes: dict[tuple[int, int, Box, tuple[tuple[str, _Expr], ...]], list[_Class]] = {}

    def extreme(self, kind: str, args: Sequence[Poly], box: Box) -> Poly:
        """``_extreme`` remembered; only a new one is charged to ``extremes_left``."""
        key = (kind, tuple(tuple(sorted(a.items())) for a in args), box)
        if key in self._extremes:
            got = self._extremes[key]
        else:
            if self.extremes_left <= 0:
                raise _Open
            self.extremes_left -= 1
            try:
                got = _extreme(kind, args, box)
            except _Open:
                got = None
            self._extremes[key] = got
        if got is None:
            raise _Open
        return got

    def divide(self, kind: str, u: Poly, v: Poly, box: Box | None) -> Poly:
        """``_divide`` remembered (a pure function of its arguments; the polynomial returned is
        shared, and nothing here changes a polynomial in place)."""
        key = (kind, frozenset(u.items()), frozenset(v.items()), box)
        got = self._divisions.get(key, _UNSET)
        if got is _UNSET:
            try:
                got = _divide(kind, u, v, box)
            except _Open:
                got = None
            self._divisions[key] = got
        if got is None:
            raise _Open
        return got  # type: ignore[return-value]

    def expr(self, e: Term, syms: tuple[str, ...], ranges: Box) -> _Expr:
        key = (e, syms, ranges)
        if key not in self.exprs:
            try:
                self.exprs[key] = _Expr(e, syms, self)
            except _Open:
                self.exprs[key] = None
        got = self.exprs[key]
        if got is None or (got.extremes and self.extremes_left <= 0):
            raise _Open
        return got


def counterexample(goal: Term, facts: Sequence[Term], ranges: Mapping[str, Interval],
                   near: Mapping[str, int] | None = None,
                   memo: Memo | None = None) -> tuple[bool, dict[str, int] | None] | None:
    """Whether the ``facts`` and not the ``goal`` have a common point in the ``ranges``, all of
    them over at most ``MAX_SYMBOLS`` symbols: ``(False, None)`` when the facts imply the goal;
    ``(True, point)`` when not, with a point of the symbols (nearest ``near`` class by class; None
    when no point was built); None when undecided (a term that is not a polynomial in one-symbol
    chains, a class where some comparison stays open, periods too long). Facts that are not
    conjunctions of comparisons, that this procedure cannot follow or whose periods are too long
    are left out of the walk (fewer facts: an implication found still holds); a counterexample
    found without them is one only if they hold at its point (checked in Python, else None).
    ``memo`` carries work between calls on one set."""
    if goal.kind == ir.AND:  # implied when every part is
        for part in goal.args:
            got = counterexample(part, facts, ranges, near, memo)
            if got is None or got[0]:
                return got
        return False, None
    neg: list[_Atom] = []
    if not quasilinear.atoms_of(goal, False, neg):
        return None
    given: list[tuple[Term, list[_Atom]]] = []
    left_out: list[Term] = []
    for f in facts:
        mine: list[_Atom] = []
        if quasilinear.atoms_of(f, True, mine):
            given.append((f, mine))
        else:
            left_out.append(f)
    memo = memo or Memo()
    try:
        walk = _Walk(neg, given, ranges, near or {}, memo)
        found, pt = walk.run()
    except _Open:
        return None
    left_out += walk.left_out
    # a point of the facts followed is a counterexample if it meets the rest
    if found and left_out and (pt is None or not all(_holds_at(f, pt) for f in left_out)):
        return None
    return found, pt


def _holds_at(t: Term, pt: Mapping[str, int]) -> bool:
    try:
        return holds(t, dict(pt))
    except (KeyError, TypeError):
        return False  # a symbol the point does not name: not confirmed


class _Walk:
    def __init__(self, neg: list[_Atom], given: list[tuple[Term, list[_Atom]]], ranges: Mapping[str, Interval],
                 near: Mapping[str, int], memo: Memo) -> None:
        syms: set[str] = set()
        for _, e in neg:
            syms |= ir.symbols_of(e)
        for _, f in given:
            for _, e in f:
                syms |= ir.symbols_of(e)
        if not syms or len(syms) > MAX_SYMBOLS:
            raise _Open
        self.syms = tuple(sorted(syms))
        self.n = len(self.syms)
        self.memo = memo
        self.work = 0
        self.peeled = 0  # comparisons on the pieces of cut cells (charged to ``MAX_PEEL``)
        self.peeling = False  # evaluating the pieces of a cut cell (``_cell``)
        if (memo.left if self.n <= 2 else memo.left_wide) <= 0:
            raise _Open
        self.cap = MAX_WALK if self.n <= 2 else min(MAX_WALK_WIDE, memo.left_wide // WIDE_SPLIT)
        self.sym_ranges: Box = tuple(ranges.get(s, (None, None)) for s in self.syms)
        self.near = near
        # the negated goal first (a class where the goal holds ends at once); a fact this
        # procedure cannot follow is left out whole (fewer facts: an implication found still holds)
        # and a fact whose periods would make a symbol's period too long (a 557-guard set keeps
        # guards of periods 28 and 32 over one size: 224)
        self.atoms: list[tuple[str, _Expr]] = [(rel, memo.expr(e, self.syms, self.sym_ranges)) for rel, e in neg]
        self.period = [1] * self.n
        self._widen([x for _, x in self.atoms])
        if max(self.period) > MAX_PERIOD:
            raise _Open
        self.left_out: list[Term] = []
        for term, f in given:
            try:
                mine = [(rel, memo.expr(e, self.syms, self.sym_ranges)) for rel, e in f]
            except _Open:
                self.left_out.append(term)
                continue
            old = list(self.period)
            self._widen([x for _, x in mine])
            if max(self.period) > MAX_PERIOD:
                self.period = old
                self.left_out.append(term)
                continue
            self.atoms += mine

    def _widen(self, exprs: list[_Expr]) -> None:
        for x in exprs:
            for v in range(self.n):
                self.period[v] = self.period[v] * x.period[v] // math.gcd(self.period[v], x.period[v])

    def _spend(self, n: int) -> None:
        """Charge ``n`` comparisons; past the walk's or the set's share the walk is undecided.
        Comparisons on the pieces of a cut cell are charged to the set's ``MAX_PEEL`` instead:
        cuts never starve a walk that needs none."""
        if self.memo.tick is not None:
            self.memo.ticks += n
            if self.memo.ticks >= TICK_EVERY:
                self.memo.ticks = 0
                self.memo.tick()
        if self.peeling:
            self.peeled += n
            self.memo.peel_left -= n
            if self.memo.peel_left < 0:
                raise _NoPeel
            return
        self.work += n
        if self.n <= 2:
            self.memo.left -= n
            if self.work > self.cap or self.memo.left < 0:
                raise _Open
        else:
            self.memo.left_wide -= n
            if self.work > self.cap or self.memo.left_wide < 0:
                raise _Open

    def _share(self) -> int:
        """Comparisons this walk may still reach: its own cap or what the set has left."""
        return min(self.cap, self.work + (self.memo.left if self.n <= 2 else self.memo.left_wide))

    def _own(self, x: _Expr, res: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The expression's own classes for the walk's classes ``res``, and the offsets
        ``r//P`` (``q' = (L/P)*q + r//P``)."""
        got = x.owns.get(res)
        if got is None:
            got = x.owns[res] = (tuple(map(operator.mod, res, x.period)), tuple(map(operator.floordiv, res, x.period)))
        return got

    # -------------------------------------------------------------- one symbol's classes
    def classes(self, var: int) -> list[_Class]:
        """``(r, qlo, qhi, excluded q, atoms used)`` per residue class of the symbol's period
        inside its range and the atoms over this symbol alone that are linear in ``q`` there."""
        L = self.period[var]
        own = [(k, rel, x) for k, (rel, x) in enumerate(self.atoms) if x.vars <= {var}]
        # the same one-symbol facts come back walk after walk (the kept guards, goal after goal):
        # the classes are a function of the atoms (each ``_Expr`` is the memo's own) and the box
        key = (var, L, self.sym_ranges, tuple((rel, x) for _, rel, x in own))
        got = self.memo.classes.get(key)
        if got is None:
            got = self.memo.classes[key] = self._classes(var, [(rel, x) for _, rel, x in own])
        ks = [k for k, _, _ in own]
        return [(r, qlo, qhi, excl, frozenset(ks[p] for p in used)) for r, qlo, qhi, excl, used in got]

    def _classes(self, var: int, own: list[tuple[str, _Expr]]) -> list[_Class]:
        """``classes`` over the atoms ``own``, their positions there as the atoms used."""
        L = self.period[var]
        lo, hi = self.sym_ranges[var]
        out = []
        lines = [(k, rel, x.period[var], x.linear(var, self.sym_ranges)) for k, (rel, x) in enumerate(own)]
        for r in range(L):
            qlo = None if lo is None else -((r - lo) // L)
            qhi = None if hi is None else (hi - r) // L
            excl: set[int] = set()
            used: set[int] = set()
            empty = False
            for k, rel, P, line in lines:
                cb = line[r % P]
                if cb is None:
                    continue  # not exact, or non-linear in q: decided with the cell
                used.add(k)
                c = cb[0]  # c*q' + b with q' = (L/P)*q + r//P
                got = quasilinear.narrow(rel, c * (L // P), cb[1] + c * (r // P), qlo, qhi, excl)
                if got is None:
                    empty = True
                    break
                qlo, qhi = got
            if empty or not quasilinear.has_point(qlo, qhi, excl):
                continue
            out.append((r, qlo, qhi, frozenset(excl), frozenset(used)))
        return out

    # -------------------------------------------------------------- the walk
    def run(self) -> tuple[bool, dict[str, int] | None]:
        per = [self.classes(v) for v in range(self.n)]
        cells = math.prod(len(c) for c in per)
        if cells > MAX_CELLS:
            raise _Open
        opened: int | None = None  # the work done when the first cell stayed open
        for k, cell in enumerate(itertools.product(*per)):
            if opened is not None and self.work + self.peeled - opened > AFTER_OPEN:
                raise _Open
            if k >= PROJECT_FROM and k & (k - 1) == 0 and self.work * cells > self._share() * k:
                raise _Open  # at its pace so far the walk would run out before its last cell
            verdict, where = self._cell(cell, 0)
            if verdict is False:
                continue
            if verdict is None:
                opened = self.work + self.peeled if opened is None else opened
                continue
            return True, self._point(where)
        if opened is not None:
            raise _Open
        return False, None

    def _cell(self, cell: tuple[_Class, ...], cut: int) -> tuple[bool | None, tuple[_Class, ...]]:
        """Whether every atom holds on the whole cell (True, with the piece where they do), some
        atom fails on all of it (False), or neither is known (None). An open cell is cut at its
        lowest quotient, ``q == lo`` apart from ``q >= lo + 1``, one symbol per cut in turn
        (``PEEL_ROUNDS`` rounds over the symbols): a ``Max(1, q)``, or a product that is 0 only
        at ``q == 0``, is decided on each piece (VitDet's padded window counts at sizes that may
        be below one window). ``cut`` counts the cuts made above this piece."""
        verdict, extremes = self._atoms(cell)
        if verdict is not None or not extremes or self.memo.peel_left <= 0:
            return verdict, cell  # cuts help a Max/Min, not a division left open
        outer, self.peeling = self.peeling, True
        try:
            return self._pieces(cell, cut)
        except _NoPeel:
            if outer:
                raise
            return None, cell
        finally:
            self.peeling = outer

    def _pieces(self, cell: tuple[_Class, ...], cut: int) -> tuple[bool | None, tuple[_Class, ...]]:
        n = len(cell)
        for k in range(cut, PEEL_ROUNDS * n):
            v = k % n
            r, qlo, qhi, excl, used = cell[v]
            if qlo is not None and (qhi is None or qlo < qhi):
                break
        else:
            return None, cell
        opened = False
        for piece in ((r, qlo, qlo, excl, used), (r, qlo + 1, qhi, excl, used)):
            if not quasilinear.has_point(piece[1], piece[2], set(excl)):
                continue
            got, where = self._cell((*cell[:v], piece, *cell[v + 1:]), k + 1)
            if got:
                return True, where
            if got is None:
                opened = True
        return (None if opened else False), cell

    def _atoms(self, cell: tuple[_Class, ...]) -> tuple[bool | None, bool]:
        """Every atom on the cell: True (all hold), False (one fails), None (open); and whether
        an atom left open has a Max/Min."""
        extremes = False
        L = self.period
        res = tuple(c[0] for c in cell)
        done = frozenset().union(*(c[4] for c in cell))
        verdict: bool | None = True  # every atom holds on the whole cell
        for k, (rel, x) in enumerate(self.atoms):
            if k in done:
                continue
            rr, off = self._own(x, res)
            self._spend(1)
            key = (rel, rr)
            t = x.loose.get(key, _UNSET)
            if t is _UNSET:
                p = x.poly(rr, self.sym_ranges)
                t = x.loose[key] = None if p is None else _decide(rel, p, x.own_box(rr, self.sym_ranges))
            if t is None:  # on the tighter box of this cell (the facts' bounds on q)
                tight = tuple((None if c[1] is None else (L[v] // x.period[v]) * c[1] + off[v],
                               None if c[2] is None else (L[v] // x.period[v]) * c[2] + off[v])
                              for v, c in enumerate(cell))
                tkey = (rel, rr, tight)
                # the same box as the class's own (no fact narrowed it): the same open answer
                t = x.tight.get(tkey, _UNSET) if tight != x.own_box(rr, self.sym_ranges) else None
                if t is _UNSET:
                    p = x.poly(rr, self.sym_ranges)
                    if p is None:  # a division or a Max/Min the range alone did not settle
                        if x.extremes:
                            self._spend(TIGHT_EXTREMES_COST)  # a polynomial rebuilt with its Max/Min: dearer
                        p = x.poly_in(rr, tight, extremes=x.extremes)
                    t = x.tight[tkey] = None if p is None else _decide(rel, p, tight)
            if t is False:
                return False, False
            if t is None:
                verdict = None
                extremes = extremes or x.extremes
        return verdict, extremes

    def _point(self, cls: tuple[_Class, ...]) -> dict[str, int] | None:
        out = {}
        for var, name in enumerate(self.syms):
            r, qlo, qhi, excl, _ = cls[var]
            L = self.period[var]
            h = self.near.get(name)
            q = quasilinear.closest(qlo, qhi, set(excl), None if h is None else (h - r) // L)
            if q is None:
                return None
            out[name] = L * q + r
        return out


_UNSET: bool | None = object()  # type: ignore[assignment]


