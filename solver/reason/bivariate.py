"""Implications between guards over two sizes, decided residue class by residue class.

Patch merging across two sizes relates their division chains: ``(x//16 + 1)*(y//16 + 1) ==
4*(x//32 + 1)*(y//32 + 1)`` says both quotients by 16 are odd. Each one-symbol chain is
quasi-linear (``quasilinear``): on the residue class ``x = L*q + r`` of a common period ``L`` it
is ``a*q + b``. So on a pair of classes ``(r, r')`` every comparison built from such chains by
sums and products becomes a comparison of a polynomial in two integers ``q, q'`` whose ranges
the symbols' ranges (and the one-symbol facts, linear in ``q``) bound. Most are decided there
without search:

* shifted to the low ends (``q = lo + t``, ``t >= 0``) a polynomial whose coefficients share a
  sign has its extreme at the corner: ``-(2*q' + 2) < 0`` for every ``q' >= 0``;
* ``e == 0`` has no integer solution when the constant is not a multiple of the gcd of the other
  coefficients;
* ``u // v`` and ``Mod(u, v)`` on a class: exact when ``u`` is a literal multiple of ``v`` (a
  product divided by one of its factors) or ``v`` a literal dividing every non-constant
  coefficient of ``u``, or ``0 <= u < v``.

``counterexample`` walks every pair of classes: the facts and the negated goal are all
decided true on a class (a counterexample there, at the point nearest the hint), or one of
them false (nothing there). A class where some comparison stays open makes the answer ``None``:
undecided, never a guess. Exact for every integer, negatives and zero included (hypothesis
tests against brute force).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from solver.ir import terms as ir
from solver.ir.pyeval import holds
from solver.ir.terms import Term
from solver.reason import quasilinear

MAX_PERIOD = 1024  # per symbol
MAX_PAIRS = 1 << 14  # pairs of residue classes one check may walk (those the one-symbol facts leave)
MAX_DEGREE = 6
# work, counted in comparisons decided on a pair of classes (deterministic, like z3's resource
# units): a walk past its share is undecided, and a pass over a set of guards stops walking past
# its total. The Swin class needs at most 2,500 in one walk and 6,200 for a whole 537-guard set,
# the synthetic lattices and chains 13,000 and 61,000; 300 synthetic products spent 516,000 (7 s)
# deciding almost nothing
MAX_WALK = 15_000
MAX_TOTAL = 50_000

Poly = dict[tuple[int, int], int]  # (exponent of q0, exponent of q1) -> coefficient
_Atom = tuple[str, Term]
Interval = tuple[int | None, int | None]
Box = tuple[Interval, Interval]
_Class = tuple[int, int | None, int | None, frozenset[int], frozenset[int]]  # r, qlo, qhi, excluded, atoms used
_OPEN = None


class _Open(Exception):
    """A term this procedure cannot follow on some class (the answer is then undecided)."""


class _Expr:
    """One side ``e`` of a comparison over the symbols ``syms``: its nodes down to its one-symbol
    chains, and per symbol the period of its own chains (classes are taken modulo these, and a
    walk with a longer period maps onto them: ``L*q + r == P*q' + r'`` with
    ``q' = (L/P)*q + r//P``)."""

    def __init__(self, e: Term, syms: tuple[str, ...]) -> None:
        self.leaves: dict[Term, tuple[int, int, int, tuple[int, ...]]] = {}  # chain -> (var, P, s, table)
        self.plan = self._plan(e, syms)
        self.period = [1, 1]
        for var, p, _, _ in self.leaves.values():
            self.period[var] = self.period[var] * p // math.gcd(self.period[var], p)
        if max(self.period) > MAX_PERIOD:
            raise _Open
        self.vars = frozenset(v for v, _, _, _ in self.leaves.values())
        self.polys: dict[tuple[int, int], Poly | None] = {}  # own classes -> polynomial (None: open)
        self.loose: dict[tuple[str, int, int], bool | None] = {}  # (rel, r0, r1) -> on the range box

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
            if n.kind not in (ir.ADD, ir.MUL, ir.FLOORDIV, ir.MOD):
                raise _Open
            stack.append((n, True))
            stack.extend((a, False) for a in reversed(n.args))
        return order

    def own_box(self, r: tuple[int, int], ranges: tuple[Interval, Interval]) -> Box:
        out = []
        for v in range(2):
            lo, hi = ranges[v]
            P = self.period[v]
            out.append((None if lo is None else -((r[v] - lo) // P), None if hi is None else (hi - r[v]) // P))
        return out[0], out[1]

    def poly(self, r: tuple[int, int], ranges: tuple[Interval, Interval]) -> Poly | None:
        """The polynomial in the own quotients on the own classes ``r`` (None: not exact there;
        divisions are decided on the box the symbols' ranges give the class)."""
        if r not in self.polys:
            self.polys[r] = self.poly_in(r, self.own_box(r, ranges))
        return self.polys[r]

    def poly_in(self, r: tuple[int, int], box: Box) -> Poly | None:
        """As ``poly``, with the divisions decided on ``box`` (a class the facts narrowed)."""
        val: dict[Term, Poly] = {}
        try:
            for n in self.plan:
                k = n.kind
                if k == ir.CONST:
                    val[n] = {(0, 0): n.value} if n.value else {}
                    continue
                leaf = self.leaves.get(n)
                if leaf is not None:
                    var, p, s, tab = leaf
                    rv, L = r[var], self.period[var]
                    a, b = s * (L // p), s * (rv // p) + tab[rv % p]
                    key = (1, 0) if var == 0 else (0, 1)
                    val[n] = {m: c for m, c in ((key, a), ((0, 0), b)) if c}
                    continue
                args = [val[a] for a in n.args]
                if k == ir.ADD:
                    val[n] = _add(args)
                elif k == ir.MUL:
                    acc: Poly = {(0, 0): 1}
                    for f in args:
                        acc = _mul(acc, f)
                    val[n] = acc
                else:
                    val[n] = _divide(k, args[0], args[1], box)
            out: Poly | None = val[self.plan[-1]]
        except _Open:
            out = None
        return out


class Memo:
    """What one set of guards reuses between checks: each comparison side's plan, polynomials
    and decisions per class (the symbols' ranges are part of the key)."""

    def __init__(self, total: int = MAX_TOTAL) -> None:
        self.exprs: dict[tuple[Term, tuple[str, ...], tuple[Interval, Interval]], _Expr | None] = {}
        self.left = total  # comparisons the set may still decide (``MAX_TOTAL``)

    def expr(self, e: Term, syms: tuple[str, ...], ranges: tuple[Interval, Interval]) -> _Expr:
        key = (e, syms, ranges)
        if key not in self.exprs:
            try:
                self.exprs[key] = _Expr(e, syms)
            except _Open:
                self.exprs[key] = None
        got = self.exprs[key]
        if got is None:
            raise _Open
        return got


def counterexample(goal: Term, facts: Sequence[Term], ranges: Mapping[str, Interval],
                   near: Mapping[str, int] | None = None,
                   memo: Memo | None = None) -> tuple[bool, dict[str, int] | None] | None:
    """Whether the ``facts`` and not the ``goal`` have a common point in the ``ranges``, all of
    them over at most two symbols: ``(False, None)`` when the facts imply the goal; ``(True,
    point)`` when not, with a point of the two symbols (nearest ``near`` class by class; None
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
    if memo.left <= 0:
        return None
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
        if not syms or len(syms) > 2:
            raise _Open
        self.syms = tuple(sorted(syms))
        self.memo = memo
        self.work = 0
        self.sym_ranges: tuple[Interval, Interval] = (
            ranges.get(self.syms[0], (None, None)),
            ranges.get(self.syms[1], (None, None)) if len(self.syms) > 1 else (0, 0))
        self.near = near
        # the negated goal first (a class where the goal holds ends at once); a fact this
        # procedure cannot follow is left out whole (fewer facts: an implication found still holds)
        # and a fact whose periods would make a symbol's period too long (a 557-guard set keeps
        # guards of periods 28 and 32 over one size: 224)
        self.atoms: list[tuple[str, _Expr]] = [(rel, memo.expr(e, self.syms, self.sym_ranges)) for rel, e in neg]
        self.period = [1, 1]
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
            for v in range(2):
                self.period[v] = self.period[v] * x.period[v] // math.gcd(self.period[v], x.period[v])

    def _spend(self, n: int) -> None:
        """Charge ``n`` comparisons; past the walk's or the set's share the walk is undecided."""
        self.work += n
        self.memo.left -= n
        if self.work > MAX_WALK or self.memo.left < 0:
            raise _Open

    def _own(self, x: _Expr, res: tuple[int, int]) -> tuple[tuple[int, int], tuple[int, int]]:
        """The expression's own classes for the walk's classes ``res``, and the offsets
        ``r//P`` (``q' = (L/P)*q + r//P``)."""
        P0, P1 = x.period
        return (res[0] % P0, res[1] % P1), (res[0] // P0, res[1] // P1)

    # -------------------------------------------------------------- one symbol's classes
    def classes(self, var: int) -> list[_Class]:
        """``(r, qlo, qhi, excluded q, atoms used)`` per residue class of the symbol's period
        inside its range and the atoms over this symbol alone that are linear in ``q`` there."""
        L = self.period[var]
        lo, hi = self.sym_ranges[var]
        own = [(k, rel, x) for k, (rel, x) in enumerate(self.atoms) if x.vars <= {var}]
        out = []
        for r in range(L):
            qlo = None if lo is None else -((r - lo) // L)
            qhi = None if hi is None else (hi - r) // L
            excl: set[int] = set()
            used: set[int] = set()
            empty = False
            res = (r, 0) if var == 0 else (0, r)
            for k, rel, x in own:
                rr, off = self._own(x, res)
                p = x.poly(rr, self.sym_ranges)
                if p is None or any(i + j > 1 for i, j in p):
                    continue  # not exact, or non-linear in q: decided with the pair
                used.add(k)
                c = p.get((1, 0), 0) + p.get((0, 1), 0)  # c*q' + b with q' = (L/P)*q + off
                P = x.period[var]
                a = c * (L // P)
                b = p.get((0, 0), 0) + c * off[var]
                got = quasilinear.narrow(rel, a, b, qlo, qhi, excl)
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
        per = [self.classes(v) for v in range(len(self.syms))]
        if len(per) == 1:
            per.append([(0, 0, 0, frozenset(), frozenset())])
        if len(per[0]) * len(per[1]) > MAX_PAIRS:
            raise _Open
        opened = False
        L = self.period
        for cx in per[0]:
            for cy in per[1]:
                res = (cx[0], cy[0])
                done = cx[4] | cy[4]
                verdict: bool | None = True  # every atom holds on the whole class
                for k, (rel, x) in enumerate(self.atoms):
                    if k in done:
                        continue
                    rr, off = self._own(x, res)
                    self._spend(1)
                    key = (rel, rr[0], rr[1])
                    t = x.loose.get(key, _UNSET)
                    if t is _UNSET:
                        p = x.poly(rr, self.sym_ranges)
                        t = x.loose[key] = None if p is None else _decide(rel, p, x.own_box(rr, self.sym_ranges))
                    if t is None:  # on the tighter box of this class (the facts' bounds on q)
                        box = []
                        for v, c in enumerate((cx, cy)):
                            m = L[v] // x.period[v]
                            box.append((None if c[1] is None else m * c[1] + off[v],
                                        None if c[2] is None else m * c[2] + off[v]))
                        tight = (box[0], box[1])
                        p = x.poly(rr, self.sym_ranges)
                        if p is None:  # a division the range alone did not settle
                            p = x.poly_in(rr, tight)
                        if p is not None:
                            t = _decide(rel, p, tight)
                    if t is False:
                        verdict = False
                        break
                    if t is None:
                        verdict = None
                if verdict is False:
                    continue
                if verdict is None:
                    opened = True
                    continue
                return True, self._point((cx, cy))
        if opened:
            raise _Open
        return False, None

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


def _mul(a: Poly, b: Poly) -> Poly:
    out: Poly = {}
    for (i, j), c in a.items():
        for (k, l), d in b.items():
            m = (i + k, j + l)
            out[m] = out.get(m, 0) + c * d
    res = {m: c for m, c in out.items() if c}
    if any(i + j > MAX_DEGREE for i, j in res):
        raise _Open
    return res


def _divide(kind: str, u: Poly, v: Poly, box: tuple[Interval, ...] | None) -> Poly:
    """``u // v`` or ``Mod(u, v)`` (Python's) where it is exact on the class; else ``_Open``."""
    if not v:
        raise _Open  # a zero divisor: the guard's own domain, not decided here
    if list(v) == [(0, 0)]:
        c = v[(0, 0)]
        rest = {m: x for m, x in u.items() if m != (0, 0)}
        if all(x % c == 0 for x in rest.values()):
            u0 = u.get((0, 0), 0)
            if kind == ir.MOD:
                return {(0, 0): u0 % c} if u0 % c else {}
            return _add([{m: x // c for m, x in rest.items()}, {(0, 0): u0 // c} if u0 // c else {}])
        raise _Open
    if box is None:
        raise _Open
    # a literal multiple of the divisor: u == k*v (a product divided by one of its factors)
    m0 = next(iter(v))
    if m0 in u and u[m0] % v[m0] == 0:
        k = u[m0] // v[m0]
        if not _add([u, {m: -k * c for m, c in v.items()}]) and _sign_definite(v, box):
            return ({(0, 0): k} if k else {}) if kind == ir.FLOORDIV else {}
    # 0 <= u < v (v > 0) or v < u <= 0 (v < 0): quotient 0, remainder u
    lo_v, _ = _range(v, box)
    if lo_v is not None and lo_v > 0:
        lo_u, _ = _range(u, box)
        _, hi_gap = _range(_add([u, {m: -c for m, c in v.items()}]), box)
        if lo_u is not None and lo_u >= 0 and hi_gap is not None and hi_gap < 0:
            return {} if kind == ir.FLOORDIV else u
    raise _Open


def _sign_definite(v: Poly, box: tuple[Interval, ...]) -> bool:
    lo, hi = _range(v, box)
    return (lo is not None and lo > 0) or (hi is not None and hi < 0)


def _shift(p: Poly, box: tuple[Interval, ...]) -> tuple[Poly, list[int | None]] | None:
    """``p`` with ``q_i = lo_i + t_i`` (or ``hi_i - t_i``), ``0 <= t_i <= T_i``: the polynomial in
    the ``t`` and each ``T`` (None: unbounded). None when a variable ``p`` uses is unbounded both ways."""
    used = [any(m[i] for m in p) for i in range(2)]
    subs: list[tuple[int, int]] = []  # q_i = base + sign*t_i
    spans: list[int | None] = []
    for i in range(2):
        lo, hi = box[i] if i < len(box) else (0, 0)
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
    for (i, j), c in p.items():
        term: Poly = {(0, 0): c}
        for var, e in ((0, i), (1, j)):
            base, sign = subs[var]
            lin = {(0, 0): base, (1, 0) if var == 0 else (0, 1): sign}
            lin = {m: x for m, x in lin.items() if x}
            for _ in range(e):
                term = _mul(term, lin)
        for m, x in term.items():
            out[m] = out.get(m, 0) + x
    return {m: c for m, c in out.items() if c}, spans


def _range(p: Poly, box: tuple[Interval, ...]) -> tuple[int | None, int | None]:
    """Bounds (None: unbounded or unknown) of ``p`` over the box: exact at the corner when the
    shifted coefficients share a sign, an enclosure otherwise."""
    pos = neg = used0 = used1 = False
    for (i, j), c in p.items():
        if i or j:
            if c > 0:
                pos = True
            else:
                neg = True
            used0 = used0 or i > 0
            used1 = used1 or j > 0
    if not (pos or neg):
        c0 = p.get((0, 0), 0)
        return c0, c0
    (lo0, hi0), (lo1, hi1) = box
    if pos != neg and (not used0 or (lo0 is not None and lo0 >= 0)) and (not used1 or (lo1 is not None and lo1 >= 0)):
        # monotone on the box (non-negative quotients, one sign): the extremes are at the corners
        low = _at(p, lo0 or 0, lo1 or 0)
        high = None if (used0 and hi0 is None) or (used1 and hi1 is None) else _at(p, hi0 or 0, hi1 or 0)
        return (low, high) if pos else (high, low)
    got = _shift(p, box)
    if got is None:
        return None, None
    q, spans = got
    lo: int | None = q.get((0, 0), 0)
    hi: int | None = lo
    for (i, j), c in q.items():
        if (i, j) == (0, 0):
            continue
        big = None if (i and spans[0] is None) or (j and spans[1] is None) else \
            c * (spans[0] or 0) ** i * (spans[1] or 0) ** j
        if c > 0:
            hi = None if hi is None or big is None else hi + big
        else:
            lo = None if lo is None or big is None else lo + big
    return lo, hi


def _at(p: Poly, q0: int, q1: int) -> int:
    return sum(c * q0 ** i * q1 ** j for (i, j), c in p.items())


def _holds(rel: str, v: int) -> bool:
    return {"le": v <= 0, "eq": v == 0, "ne": v != 0, "gt": v > 0}[rel]


def _decide(rel: str, p: Poly, box: tuple[Interval, ...]) -> bool | None:
    """Whether ``p rel 0`` holds on the whole class (True), nowhere in it (False), or either."""
    if not p or list(p) == [(0, 0)]:
        return _holds(rel, p.get((0, 0), 0))
    if rel in ("eq", "ne"):
        g = 0
        for m, c in p.items():
            if m != (0, 0):
                g = math.gcd(g, c)
        never = p.get((0, 0), 0) % g != 0
        if not never:
            lo, hi = _range(p, box)
            never = (lo is not None and lo > 0) or (hi is not None and hi < 0)
        if never:
            return rel == "ne"
        return None
    lo, hi = _range(p, box)
    if hi is not None and hi <= 0:
        return rel == "le"
    if lo is not None and lo > 0:
        return rel == "gt"
    return None
