"""Periodic symbols: an exact decision step for floor and mod by constants (residue splitting).

Padding to a window multiple (``Mod(w - Mod(n, w), w)``), patch merging (``(n + Mod(n, 2))//2``),
strided output sizes and their products are floor/mod *by literals* of affine terms. For them the
integers are periodic, and a case split on residues removes every such division:

**Period of a symbol.** For a term ``t`` and a symbol ``s`` let ``P(t, s)`` be the lcm, over the
paths from ``t`` down to an occurrence of ``s``, of the product of ``|c|`` over the nodes ``u // c``,
``Mod(u, c)``, ``CeilDiv``/``ModularIndexing`` (built from these) with a literal ``c != 0`` on the
path; other nodes (sums, products, ``Max``, divisions by non-literals) multiply by 1. Take
``L_s`` a multiple of ``P(root, s)``.

**Substitution.** ``s = L*q + r`` with ``0 <= r < L`` a literal and ``q`` a fresh integer is a
bijection ``Z -> Z x [0, L)``, and ``s in [lo, hi]`` becomes ``q in [ceil((lo-r)/L), floor((hi-r)/L)]``
(an empty interval: the residue has no point). This holds wherever ``s`` occurs, inside a
division or not: a symbol used also outside divisions simply becomes the affine ``L*q + r``.

**Divisions vanish.** Every subterm ``u`` is kept as an expanded polynomial over atoms (the
``q``'s, unsplit symbols and opaque subterms). At ``u // c`` write ``u = c*A + B`` where ``A``
gathers the monomials whose coefficient ``c`` divides and ``B`` the rest; then for every integer
value of ``A`` (Python's floor semantics, any sign of ``c``)

    (c*A + B) // c = A + B // c,        Mod(c*A + B, c) = Mod(B, c),

and when ``B`` is a literal the division is gone. By induction along each path, a ``q``-monomial
below ``k`` divisions ``c_1 … c_k`` carries a multiple of ``L / (c_1 ⋯ c_k)`` (times integer
coefficients), so ``c_k`` divides it: every ``q``-monomial moves into ``A`` and, when the only
other monomials are literals, every division by a literal disappears. Nested chains compose
(the products along the path are what ``P`` multiplies). Products are expanded (bounded, beyond
``MAX_MONOMIALS`` a product stays an opaque atom); where some division survives (a non-literal
divisor, an unsplit symbol) it stays as it was: the result is always *equal* to the input at
every point, never an approximation.

The cases are handed back as plain IR conditions over the fresh ``q`` symbols: the caller
decides each (interval facts, then an exact solver call on a division-free formula); the
conjunction is unsatisfiable iff every residue case is.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import product as cartesian

from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term
from symguard.solver.reason.intervals import Interval

MAX_PERIOD = 64  # a symbol whose period exceeds this is not split (its divisions stay)
MAX_MONOMIALS = 64  # an expanded product beyond this stays one opaque factor
Q_PREFIX = "."  # fresh names start with '.', which no parsed symbol does (SMT-LIB reserves it)

Poly = dict[tuple[Term, ...], int]  # monomial (sorted atoms, repeats = powers) -> coefficient


def q_name(s: str) -> str:
    """The fresh quotient symbol of ``s = L*q + r``."""
    return f"{Q_PREFIX}{s}.q"


# ------------------------------------------------------------------ periods

def periods(conds: Iterable[Term]) -> dict[str, int]:
    """``P(root, s)`` per integer symbol, lcm over ``conds`` (1: no division by a literal above it).

    Memoized over the shared DAG, children first (``iter_dag``): no recursion."""
    memo: dict[Term, dict[str, int]] = {}
    out: dict[str, int] = {}
    for root in conds:
        for n in ir.iter_dag(root):
            if n in memo:
                continue
            if n.kind == ir.SYM:
                memo[n] = {n.value: 1}
                continue
            acc: dict[str, int] = {}
            for a in n.args:
                for s, p in memo[a].items():
                    acc[s] = _lcm(acc.get(s, 1), p)
            if n.kind in ir.DIV_KINDS and n.args[1].kind == ir.CONST and n.args[1].value != 0:
                c = abs(n.args[1].value)
                # the divisor's own symbols (none: it is a literal) and the dividend's paths gain c
                acc = {s: p * c for s, p in memo[n.args[0]].items()}
            memo[n] = acc
        for s, p in memo[root].items():
            out[s] = _lcm(out.get(s, 1), p)
    return out


def _lcm(a: int, b: int) -> int:
    return a * b // math.gcd(a, b)


# ------------------------------------------------------------------ substitution

def substitute(t: Term, subst: Mapping[str, Poly]) -> Term:
    """``t`` with each symbol of ``subst`` replaced, divisions by literals removed where the
    polynomial rules above allow; equal to ``t`` at every point (see the module docstring)."""
    return _Subst(subst).term(t)


def substituter(subst: Mapping[str, Poly]) -> Callable[[Term], Term]:
    """``substitute`` for many terms under one ``subst``: each subterm they share is rewritten once
    (a set's guards repeat the same sub-products hundreds of times)."""
    return _Subst(subst).term


class _Subst:
    def __init__(self, subst: Mapping[str, Poly], shared: _Shared | None = None) -> None:
        self.subst = subst
        self.poly: dict[Term, Poly] = {}
        self.bools: dict[Term, Term] = {}
        self.shared = shared

    def term(self, t: Term) -> Term:
        sh = self.shared
        for n in (ir.iter_dag(t) if sh is None else sh.order(t)):
            if n in self.poly or n in self.bools:
                continue
            if sh is not None and n in sh.free:  # no split symbol below: the same in every case
                if n.is_bool:
                    got = sh.bools.get(n)
                    if got is None:
                        got = sh.bools[n] = self._bool(n)
                    self.bools[n] = got
                else:
                    poly = sh.poly.get(n)
                    if poly is None:
                        poly = sh.poly[n] = self._int(n)
                    self.poly[n] = poly
            elif n.is_bool:
                self.bools[n] = self._bool(n)
            else:
                self.poly[n] = self._int(n)
        return self.bools[t] if t.is_bool else to_term(self.poly[t])

    def _bool(self, n: Term) -> Term:
        k = n.kind
        if k in (ir.BCONST, ir.BSYM):
            return n
        if k == ir.LE:
            return ir.mk_le(to_term(self.poly[n.args[0]]), ir.ZERO)
        if k == ir.EQ:
            return ir.mk_eq(to_term(self.poly[n.args[0]]), ir.ZERO)
        b = [self.bools[a] for a in n.args]
        if k == ir.NOT:
            return ir.mk_not(b[0])
        if k == ir.AND:
            return ir.mk_and(*b)
        if k == ir.OR:
            return ir.mk_or(*b)
        if k == ir.IFF:
            return ir.mk_iff(b[0], b[1])
        raise AssertionError(k)

    def _int(self, n: Term) -> Poly:
        k = n.kind
        if k == ir.CONST:
            return {(): n.value} if n.value else {}
        if k == ir.SYM:
            return dict(self.subst[n.value]) if n.value in self.subst else {(n,): 1}
        if k == ir.ADD:
            acc: Poly = {}
            for a in n.args:
                _add_into(acc, self.poly[a], 1)
            return acc
        if k == ir.MUL:
            acc = {(): 1}
            for a in n.args:
                acc = _times(acc, self.poly[a])
            return acc
        if k in ir.DIV_KINDS:
            x, d = self.poly[n.args[0]], self.poly[n.args[1]]
            if len(d) == 1 and () in d:  # a literal divisor, or one the substitution made literal
                return _div_const(k, x, d[()])
            return _atom(_rebuild(k, [to_term(x), to_term(d)]))
        if k == ir.ITE:
            return _atom(ir.mk_ite(self.bools[n.args[0]], to_term(self.poly[n.args[1]]),
                                   to_term(self.poly[n.args[2]])))
        if k in (ir.MAX, ir.MIN):
            args = [to_term(self.poly[a]) for a in n.args]
            return _atom(ir.mk_max(*args) if k == ir.MAX else ir.mk_min(*args))
        if k == ir.ISQRT:
            return _atom(ir.mk_isqrt(to_term(self.poly[n.args[0]])))
        if k == ir.BITFLOOR:
            return _atom(ir.mk_bitfloor(to_term(self.poly[n.args[0]])))
        raise AssertionError(k)


class _Shared:
    """What every residue case of one split has in common: each condition's DAG order, and the
    results for the subterms no split symbol occurs in (computed in the first case, reused)."""

    def __init__(self, conds: Sequence[Term], split: Iterable[str]) -> None:
        names = set(split)
        self._orders: dict[Term, list[Term]] = {}
        self.free: set[Term] = set()
        for c in conds:
            for n in self.order(c):
                if n not in self.free and not (n.kind == ir.SYM and n.value in names) and \
                        all(a in self.free for a in n.args):
                    self.free.add(n)
        self.poly: dict[Term, Poly] = {}
        self.bools: dict[Term, Term] = {}

    def order(self, t: Term) -> list[Term]:
        got = self._orders.get(t)
        if got is None:
            got = self._orders[t] = ir.iter_dag(t)
        return got


def _rebuild(k: str, a: list[Term]) -> Term:
    mk = {ir.FLOORDIV: ir.mk_floordiv, ir.MOD: ir.mk_mod, ir.EDIV: ir.mk_ediv, ir.EMOD: ir.mk_emod}[k]
    return mk(a[0], a[1])


def _div_const(k: str, x: Poly, c: int) -> Poly:
    """``x // c``, ``Mod(x, c)`` (floor) or ``ediv``/``emod`` (Euclidean) by a literal ``c != 0``.

    ``x = c*A + B``, ``A`` the monomials with coefficients divisible by ``c``: floor
    ``(c*A + B)//c = A + B//c`` and ``Mod(c*A + B, c) = Mod(B, c)``; Euclidean likewise
    (``c*A`` is a multiple of ``c``, and ``ediv(c*A + B, c) = A + ediv(B, c)``: the remainder
    ``emod(B, |c|)`` is unchanged by adding multiples of ``c``)."""
    a_part: Poly = {m: v // c for m, v in x.items() if v % c == 0}
    b_part: Poly = {m: v for m, v in x.items() if v % c != 0}
    b_term = to_term(b_part)
    if k in (ir.FLOORDIV, ir.EDIV):
        rest = _as_poly(_rebuild(k, [b_term, ir.mk_int(c)]))
        _add_into(a_part, rest, 1)
        return a_part
    return _as_poly(_rebuild(k, [b_term, ir.mk_int(c)]))


def _as_poly(t: Term) -> Poly:
    if t.kind == ir.CONST:
        return {(): t.value} if t.value else {}
    return _atom(t)


def _atom(t: Term) -> Poly:
    if t.kind == ir.CONST:
        return {(): t.value} if t.value else {}
    return {(t,): 1}


def _add_into(acc: Poly, p: Poly, w: int) -> None:
    for m, v in p.items():
        s = acc.get(m, 0) + w * v
        if s:
            acc[m] = s
        else:
            acc.pop(m, None)


def _times(x: Poly, y: Poly) -> Poly:
    if len(x) * len(y) > MAX_MONOMIALS:  # keep the product as one opaque factor: still exact
        return _atom(ir.mk_mul(to_term(x), to_term(y)))
    out: Poly = {}
    for mx, vx in x.items():
        for my, vy in y.items():
            m = tuple(sorted(mx + my, key=lambda t: t.skey))
            s = out.get(m, 0) + vx * vy
            if s:
                out[m] = s
            else:
                out.pop(m, None)
    return out


def to_term(p: Poly) -> Term:
    if not p:
        return ir.ZERO
    return ir.mk_add(*(ir.mk_mul(ir.mk_int(v), *m) for m, v in sorted(p.items(), key=_mono_key)))


def _mono_key(mv: tuple[tuple[Term, ...], int]) -> tuple[bytes, ...]:
    return tuple(t.skey for t in mv[0])


# ------------------------------------------------------------------ cases

@dataclass(frozen=True)
class Case:
    """One residue class: ``s = L*q + r`` for each split symbol, the conditions rewritten."""

    residues: tuple[tuple[str, int, int], ...]  # (symbol, L, r)
    ranges: dict[str, Interval]  # the fresh q's ranges (the unsplit symbols keep theirs)
    conds: tuple[Term, ...]


def plan(conds: Sequence[Term], ranges: Mapping[str, Interval], max_cases: int) -> list[tuple[str, int]]:
    """The symbols to split and their periods, smallest first, while the number of feasible residue
    combinations stays within ``max_cases``. A period beyond ``MAX_PERIOD`` (or the case budget) is
    replaced by its largest divisor that fits: ``s = L'*q + r`` with ``L' | L`` is as exact, and
    removes every division whose path product divides ``L'`` (the rest stay, exact)."""
    per = periods(conds)
    chosen: list[tuple[str, int]] = []
    total = 1
    for s, L in sorted(per.items(), key=lambda sp: (sp[1], sp[0])):
        iv = ranges.get(s, (None, None))
        for d in range(min(L, MAX_PERIOD), 1, -1):  # the largest divisor of L that fits
            if L % d:
                continue
            n = len(_residues(iv, d))
            if n == 0:
                return [(s, d)]  # an empty range: one split proves there is no point at all
            if total * n <= max_cases:
                total *= n
                chosen.append((s, d))
                break
    return chosen


def _residues(iv: Interval, L: int) -> list[tuple[int, Interval]]:
    """``(r, q-range)`` for each ``r in [0, L)`` that leaves ``s = L*q + r`` a point in ``iv``."""
    lo, hi = iv
    out = []
    for r in range(L):
        qlo = None if lo is None else -((r - lo) // L)  # ceil((lo - r) / L)
        qhi = None if hi is None else (hi - r) // L
        if qlo is not None and qhi is not None and qlo > qhi:
            continue
        out.append((r, (qlo, qhi)))
    return out


def cases(conds: Sequence[Term], ranges: Mapping[str, Interval], split: Sequence[tuple[str, int]]) -> Iterator[Case]:
    """Every residue case of ``split``, lazily (a caller stops at the first open case). The
    conjunction of ``conds`` is satisfiable iff some case's conjunction is. A condition may become
    ``False`` in a case: that case has no point *because of that condition*, so a caller proving
    something from the case must count the condition among its sources (it is not left out)."""
    per_sym = [[(s, L, r, qiv) for r, qiv in _residues(ranges.get(s, (None, None)), L)] for s, L in split]
    shared = _Shared(conds, (s for s, _ in split))
    for combo in cartesian(*per_sym):
        subst: dict[str, Poly] = {}
        qranges: dict[str, Interval] = {}
        for s, L, r, qiv in combo:
            q = ir.mk_sym(q_name(s))
            subst[s] = {(q,): L, (): r} if r else {(q,): L}
            qranges[q_name(s)] = qiv
        sub = _Subst(subst, shared)
        yield Case(tuple((s, L, r) for s, L, r, _ in combo), qranges, tuple(sub.term(c) for c in conds))


def point_back(case: Case, qvalues: Mapping[str, int]) -> dict[str, int]:
    """The original symbols' values at a point of a case: ``s = L*q + r``."""
    return {s: L * qvalues[q_name(s)] + r for s, L, r in case.residues if q_name(s) in qvalues}
