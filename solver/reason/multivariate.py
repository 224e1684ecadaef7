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
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Mapping, Sequence

from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import holds
from symguard.solver.ir.terms import Term
from symguard.solver.reason import quasilinear

MAX_SYMBOLS = 3
MAX_PERIOD = 1024  # per symbol
MAX_CELLS = 1 << 14  # cells of residue classes one check may walk (those the one-symbol facts leave)
MAX_DEGREE = 6
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
MAX_PEEL = 5_000  # comparisons per set on those pieces (the VitDet class needs ~1,500 per walk)
MAX_TOTAL_WIDE = 5_000

Poly = dict[tuple[int, ...], int]  # (exponent of q0, of q1, ...) -> coefficient
_Atom = tuple[str, Term]
Interval = tuple[int | None, int | None]
Box = tuple[Interval, ...]  # one interval per symbol
_Class = tuple[int, int | None, int | None, frozenset[int], frozenset[int]]  # r, qlo, qhi, excluded, atoms used
_OPEN = None


class _Open(Exception):
    """A term this procedure cannot follow on some class (the answer is then undecided)."""


class _NoPeel(Exception):
    """The set's budget for the pieces of cut cells is spent: the cell stays open."""


class _Expr:
    """One side ``e`` of a comparison over the symbols ``syms``: its nodes down to its one-symbol
    chains, and per symbol the period of its own chains (classes are taken modulo these, and a
    walk with a longer period maps onto them: ``L*q + r == P*q' + r'`` with
    ``q' = (L/P)*q + r//P``)."""

    def __init__(self, e: Term, syms: tuple[str, ...], memo: Memo) -> None:
        self.memo = memo
        self.n = len(syms)
        self.leaves: dict[Term, tuple[int, int, int, tuple[int, ...]]] = {}  # chain -> (var, P, s, table)
        self.plan = self._plan(e, syms)
        self.period = [1] * self.n
        for var, p, _, _ in self.leaves.values():
            self.period[var] = self.period[var] * p // math.gcd(self.period[var], p)
        if max(self.period) > MAX_PERIOD:
            raise _Open
        self.vars = frozenset(v for v, _, _, _ in self.leaves.values())
        # a Max/Min is followed on the range box first (``poly``, memoized per class), then on a
        # box the facts narrowed (``Max(1, (x + 12)//16)`` is the quotient once ``x >= 16``)
        self.extremes = any(n.kind in (ir.MAX, ir.MIN) for n in self.plan)
        self.polys: dict[tuple[int, ...], Poly | None] = {}  # own classes -> polynomial (None: open)
        self.loose: dict[tuple[str, tuple[int, ...]], bool | None] = {}  # (rel, classes) -> on the range box
        self.lines: dict[int, list[tuple[int, int] | None]] = {}  # symbol -> per own class (``linear``)
        self.tight: dict[tuple[str, tuple[int, ...], Box], bool | None] = {}  # ... on a box the facts narrowed

    def _plan(self, e: Term, syms: tuple[str, ...]) -> list[Term]:
        order: list[Term] = []
        seen: set[Term] = set()
        stack: list[tuple[Term, bool]] = [(e, False)]
        while stack:
            n, done = stack.pop()
            if done:
                order.append(n)
                continue
            if n in seen:
                continue
            seen.add(n)
            if n.kind == ir.CONST:
                order.append(n)
                continue
            sh = quasilinear.shape(n)
            if sh is not None:
                self.leaves[n] = (syms.index(sh[0]), sh[1], sh[2], quasilinear.table(n, sh))
                order.append(n)
                continue
            if n.kind not in (ir.ADD, ir.MUL, ir.FLOORDIV, ir.MOD, ir.MAX, ir.MIN):
                raise _Open
            stack.append((n, True))
            stack.extend((a, False) for a in reversed(n.args))
        return order

    def own_box(self, r: tuple[int, ...], ranges: Box) -> Box:
        out = []
        for v in range(self.n):
            lo, hi = ranges[v]
            P = self.period[v]
            out.append((None if lo is None else -((r[v] - lo) // P), None if hi is None else (hi - r[v]) // P))
        return tuple(out)

    def poly(self, r: tuple[int, ...], ranges: Box) -> Poly | None:
        """The polynomial in the own quotients on the own classes ``r`` (None: not exact there;
        divisions are decided on the box the symbols' ranges give the class)."""
        if r not in self.polys:
            self.polys[r] = self.poly_in(r, self.own_box(r, ranges), extremes=True)
        return self.polys[r]

    def linear(self, var: int, ranges: Box) -> list[tuple[int, int] | None]:
        """Per own class of ``var`` (the other symbols' class 0): ``(c, b)`` when the expression is
        ``c*q + b`` there, None when it is not exact or not linear (computed once per symbol)."""
        got = self.lines.get(var)
        if got is None:
            got = []
            zero, unit = (0,) * self.n, _unit(self.n, var)
            for rv in range(self.period[var]):
                p = self.poly(tuple(rv if v == var else 0 for v in range(self.n)), ranges)
                got.append(None if p is None or any(sum(m) > 1 for m in p) else (p.get(unit, 0), p.get(zero, 0)))
            self.lines[var] = got
        return got

    def poly_in(self, r: tuple[int, ...], box: Box, extremes: bool = False) -> Poly | None:
        """As ``poly``, with the divisions decided on ``box`` (a class the facts narrowed)."""
        val: dict[Term, Poly] = {}
        zero = (0,) * self.n
        try:
            for n in self.plan:
                k = n.kind
                if k == ir.CONST:
                    val[n] = {zero: n.value} if n.value else {}
                    continue
                leaf = self.leaves.get(n)
                if leaf is not None:
                    var, p, s, tab = leaf
                    rv, L = r[var], self.period[var]
                    a, b = s * (L // p), s * (rv // p) + tab[rv % p]
                    val[n] = {m: c for m, c in ((_unit(self.n, var), a), (zero, b)) if c}
                    continue
                args = [val[a] for a in n.args]
                if k == ir.ADD:
                    val[n] = _add(args)
                elif k == ir.MUL:
                    acc: Poly = {zero: 1}
                    for f in args:
                        acc = _mul(acc, f)
                    val[n] = acc
                elif k in (ir.MAX, ir.MIN):
                    if not extremes:
                        raise _Open
                    val[n] = self.memo.extreme(k, args, box)
                else:
                    val[n] = _divide(k, args[0], args[1], box)
            out: Poly | None = val[self.plan[-1]]
        except _Open:
            out = None
        return out


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
            if self.work > MAX_WALK or self.memo.left < 0:
                raise _Open
        else:
            self.memo.left_wide -= n
            if self.work > MAX_WALK_WIDE or self.memo.left_wide < 0:
                raise _Open

    def _own(self, x: _Expr, res: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The expression's own classes for the walk's classes ``res``, and the offsets
        ``r//P`` (``q' = (L/P)*q + r//P``)."""
        return tuple(r % P for r, P in zip(res, x.period)), tuple(r // P for r, P in zip(res, x.period))

    # -------------------------------------------------------------- one symbol's classes
    def classes(self, var: int) -> list[_Class]:
        """``(r, qlo, qhi, excluded q, atoms used)`` per residue class of the symbol's period
        inside its range and the atoms over this symbol alone that are linear in ``q`` there."""
        L = self.period[var]
        lo, hi = self.sym_ranges[var]
        own = [(k, rel, x) for k, (rel, x) in enumerate(self.atoms) if x.vars <= {var}]
        out = []
        lines = [(k, rel, x.period[var], x.linear(var, self.sym_ranges)) for k, rel, x in own]
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
        if math.prod(len(c) for c in per) > MAX_CELLS:
            raise _Open
        opened: int | None = None  # the work done when the first cell stayed open
        for cell in itertools.product(*per):
            if opened is not None and self.work + self.peeled - opened > AFTER_OPEN:
                raise _Open
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


# ------------------------------------------------------------------ polynomials

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
    for ma, c in a.items():
        for mb, d in b.items():
            m = tuple(i + k for i, k in zip(ma, mb))
            out[m] = out.get(m, 0) + c * d
    res = {m: c for m, c in out.items() if c}
    if any(sum(m) > MAX_DEGREE for m in res):
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


MAX_ROOT_CANDIDATES = 64


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
