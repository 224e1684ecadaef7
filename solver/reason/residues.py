"""Residue lattices over several symbols: implications decided on residue classes alone.

A term is *periodic* when it is invariant under ``x -> x + P_x`` for each of its symbols:
``Mod(u, m)`` is, for ``u`` an integer polynomial in the symbols, in periodic terms and in
one-symbol division chains (``quasilinear``: ``c(x + P) = c(x) + s``), with
``P_x = lcm(m, periods of the periodic parts, P*m/gcd(s, m) per chain)`` — a polynomial with integer
coefficients keeps its residue mod ``m`` when an argument moves by a multiple of ``m``. Sums,
products and ``//`` by a literal of periodic terms are periodic. ``Eq(Mod(s0*s1 + 3, 6), 3)``,
``Ne(Mod(s1 + s2, 8), Mod(s0//24, 8))``, ``Mod(3*s2 + s1, 12) <= 5`` compare periodic terms.

Such comparisons depend on ``(x mod L_x)`` alone, ``L_x`` a common period, so whether the facts
and the negated goal have a common point is a finite constraint problem over residues: a
backtracking search, symbol by symbol (domains first narrowed by the one-symbol atoms), checking
each atom once its symbols are assigned. Exhausted without a solution: the facts imply the
goal on every integer point (each point's residues would be one). A solution is only a candidate
counterexample (the facts that are not periodic were left out): the caller verifies its point.
Work is counted in atom evaluations (``budget``), never time. Brute-force property tests in
tests/test_reason_residues.py.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import evaluate
from symguard.solver.ir.terms import Term
from symguard.solver.reason import meter, quasilinear

MAX_PERIOD = 4096  # per symbol
MAX_SYMBOLS = 6
TRIES = 3  # points tried per residue solution (``accept``)
SOLUTIONS = 8  # residue solutions tried before the search gives up (``accept``)
AFTER_FIRST = 2_000  # budget the search may spend past its first solution (looking for another)
MISS_COST = 8  # an atom evaluated (pyeval) against a look-up of one already evaluated
Periods = dict[str, int]
_Atom = tuple[str, Term, Periods]  # (rel, e, periods of e): e (rel) 0


def _lcm(a: int, b: int) -> int:
    return a * b // math.gcd(a, b)


def _merge(ps: Sequence[Periods]) -> Periods | None:
    out: Periods = {}
    for p in ps:
        for s, v in p.items():
            out[s] = _lcm(out.get(s, 1), v)
            if out[s] > MAX_PERIOD:
                return None
    return out


def periods(t: Term, memo: dict[Term, Periods | None] | None = None) -> Periods | None:
    """Per symbol of ``t``, a period ``P_x`` with ``t`` invariant under ``x -> x + P_x``; None when
    ``t`` is not periodic in that sense (or a period passes ``MAX_PERIOD``)."""
    memo = {} if memo is None else memo
    for n in ir.iter_dag(t):
        if n not in memo:
            memo[n] = _one(n, memo)
    return memo[t]


def _one(n: Term, memo: dict[Term, Periods | None]) -> Periods | None:
    k = n.kind
    if k == ir.CONST:
        return {}
    if k in (ir.ADD, ir.MUL) or (k == ir.FLOORDIV and n.args[1].kind == ir.CONST and n.args[1].value > 0):
        parts = [memo[a] for a in n.args]
        return None if any(p is None for p in parts) else _merge(parts)  # type: ignore[arg-type]
    if k == ir.MOD and n.args[1].kind == ir.CONST and n.args[1].value > 0:
        return _mod_periods(n.args[0], n.args[1].value, memo)
    return None


def _mod_periods(u: Term, m: int, memo: dict[Term, Periods | None]) -> Periods | None:
    """Periods of ``Mod(u, m)``: ``u`` an integer polynomial in symbols, periodic terms and
    one-symbol chains (a leaf moving by a multiple of ``m`` keeps ``u mod m``)."""
    parts: list[Periods] = []
    stack = [u]
    while stack:
        n = stack.pop()
        if n.kind == ir.CONST:
            continue
        if n.kind == ir.SYM:
            parts.append({n.value: m})
            continue
        p = memo.get(n) if n in memo else periods(n, memo)
        if p is not None:
            parts.append(p)
            continue
        sh = quasilinear.wide_shape(n) if n.kind in ir.DIV_KINDS else None
        if sh is not None:  # c(x + P*j) = c(x) + s*j: j = m/gcd(s, m) keeps c mod m
            parts.append({sh[0]: sh[1] * (m // math.gcd(sh[2], m))})
            continue
        if n.kind in (ir.ADD, ir.MUL):
            stack.extend(n.args)
            continue
        return None
    return _merge(parts)


def atoms(t: Term, positive: bool, memo: dict[Term, Periods | None]) -> list[_Atom] | None:
    """``t`` (or its negation) as a conjunction of comparisons of periodic terms, or None."""
    raw: list[tuple[str, Term]] = []
    if not quasilinear.atoms_of(t, positive, raw):
        return None
    out: list[_Atom] = []
    for rel, e in raw:
        p = periods(e, memo)
        if p is None:
            return None
        out.append((rel, e, p))
    return out


class Meter(meter.Meter):
    """What one set of guards carries between searches: the periods found so far and the atom
    evaluations the set may still spend (``left``; ``tick`` is called before each evaluation)."""

    def __init__(self, left: int, tick: Callable[[], None] | None = None) -> None:
        super().__init__(left, tick)
        self.periods: dict[Term, Periods | None] = {}


Answer = tuple[bool, dict[str, int] | list[int]] | None


def counterexample(goal: Term, facts: Sequence[tuple[Term, int]], ranges: Mapping[str, tuple[int | None, int | None]],
                   near: Mapping[str, int], budget: int, meter: Meter | None = None,
                   accept: Callable[[dict[str, int]], bool] | None = None) -> Answer:
    """``_counterexample`` within ``budget`` atom evaluations and what ``meter`` has left; the
    evaluations spent (all of ``budget`` when the search gave up) are taken from ``meter``."""
    meter = meter or Meter(budget)
    budget = min(budget, meter.left)
    if budget <= 0:
        return None
    spent = [0]
    got = _counterexample(goal, facts, ranges, near, budget, meter.periods, accept, spent, meter.tick)
    meter.left -= budget if got is None else min(budget, spent[0])
    return got


def _counterexample(goal: Term, facts: Sequence[tuple[Term, int]], ranges: Mapping[str, tuple[int | None, int | None]],
                    near: Mapping[str, int], budget: int, memo: dict[Term, Periods | None],
                    accept: Callable[[dict[str, int]], bool] | None, spent: list[int],
                    tick: Callable[[], None] | None = None) -> Answer:
    """``(False, used)``: the periodic ``facts`` (term, id) imply ``goal`` (``used``: the ids of the
    facts in the search); ``(True, point)``: their residues admit a point where the goal fails
    (a candidate, over the symbols searched, nearest ``near`` class by class); None when the goal
    is not a comparison of periodic terms, too many symbols or classes, or the ``budget`` of atom
    evaluations runs out. Facts over symbols unrelated to the goal are left out. With ``accept``
    (the caller's check of a point against everything, the facts left out included) each
    solution's classes are tried at a few points near ``near`` (``TRIES`` per solution, up to
    ``SOLUTIONS`` solutions) until one is accepted; if none is, the answer is None."""
    neg = atoms(goal, False, memo)
    if neg is None or not neg:
        return None
    syms: set[str] = set()
    for _, _, p in neg:
        syms |= set(p)
    given: list[tuple[int, list[_Atom]]] = []
    for t, fid in facts:
        a = atoms(t, True, memo)
        if a:
            given.append((fid, a))
    # the facts over the symbols already in the search first, then those that bring in new ones
    # (connected to the goal through shared symbols) while at most MAX_SYMBOLS are searched
    chosen: list[tuple[int, list[_Atom]]] = []
    rest = [(fid, a, set().union(*(set(p) for _, _, p in a))) for fid, a in given]
    while rest:
        inside = [x for x in rest if x[2] <= syms]
        if inside:
            chosen += [(fid, a) for fid, a, _ in inside]
            rest = [x for x in rest if not x[2] <= syms]
            continue
        grow = next((x for x in rest if x[2] & syms and len(syms | x[2]) <= MAX_SYMBOLS), None)
        if grow is None:
            break
        syms |= grow[2]
    if not syms:
        return None
    # the negated goal's periods first; a fact whose periods would pass MAX_PERIOD is left out
    # (fewer facts: an implication found still holds, a point found is verified by the caller)
    L = _merge([p for _, _, p in neg])
    if L is None:
        return None
    used: list[int] = []
    all_atoms = list(neg)
    for fid, a in chosen:
        wider = _merge([L] + [p for _, _, p in a])
        if wider is None:
            continue
        L = wider
        used.append(fid)
        all_atoms += a
    syms = set().union(*(set(p) for _, _, p in all_atoms))
    if any(not p and not quasilinear.rel_holds(rel, e.value) for rel, e, p in all_atoms if e.kind == ir.CONST):
        return False, sorted(used)  # a constant atom fails: no common point at all
    order_syms = sorted(syms)
    tables = _Tables(budget, tick)
    try:
        # domains: residues of x mod L_x with a point in the range, narrowed by one-symbol atoms
        dom: dict[str, list[int]] = {}
        for s in order_syms:
            unary = sorted(((k, rel, e, p) for k, (rel, e, p) in enumerate(all_atoms) if set(p) == {s}),
                           key=lambda a: (a[1] != "eq", a[3][s], a[0]))
            vals = _domain(s, unary, L.get(s, 1), ranges.get(s, (None, None)), tables)
            if not vals:
                spent[0] = tables.spent
                return False, sorted(used)
            dom[s] = vals
        order_syms.sort(key=lambda s: (len(dom[s]), s))
        pos = {s: i for i, s in enumerate(order_syms)}
        # each atom checked once the last of its symbols is assigned
        at: list[list[tuple[int, str, Term, Periods]]] = [[] for _ in order_syms]
        for k, (rel, e, p) in enumerate(all_atoms):
            if len(p) > 1:
                at[max(pos[s] for s in p)].append((k, rel, e, p))
        assign: dict[str, int] = {}
        solutions = 0
        first: int | None = None  # the budget spent when the first solution was found
        idx = [0] * len(order_syms)
        depth = 0
        while depth >= 0:
            if depth == len(order_syms):
                if accept is None:
                    spent[0] = tables.spent
                    return True, _point(assign, L, ranges, near)
                for shift in range(TRIES):
                    pt = _point(assign, L, ranges, near, shift)
                    tables.spend(MISS_COST)
                    if accept(pt):
                        spent[0] = tables.spent
                        return True, pt
                solutions += 1
                first = tables.spent if first is None else first
                if solutions >= SOLUTIONS or tables.spent - first > AFTER_FIRST:
                    raise _Spent
                depth -= 1
                idx[depth] += 1
                continue
            s = order_syms[depth]
            if idx[depth] >= len(dom[s]):
                idx[depth] = 0
                assign.pop(s, None)
                depth -= 1
                if depth >= 0:
                    idx[depth] += 1
                continue
            assign[s] = dom[s][idx[depth]]
            if all(tables.holds(k, rel, e, p, assign) for k, rel, e, p in at[depth]):
                depth += 1
            else:
                idx[depth] += 1
    except _Spent:
        spent[0] = tables.spent
        return None
    spent[0] = tables.spent
    if solutions:  # classes where the goal fails exist, none of their points was accepted: undecided
        return None
    return False, sorted(used)


def _domain(s: str, unary: list[tuple[int, str, Term, Periods]], P: int, rng: tuple[int | None, int | None],
            tables: _Tables) -> list[int]:
    """The residues of ``s`` mod ``P`` that its one-symbol atoms admit and its range meets, by
    lifting (``quasilinear.lift``: atom by atom, equalities first, each residue ``r`` mod ``L``
    lifted to ``r + L*j`` mod ``lcm(L, p)``), so a tight lattice never walks all ``P`` classes."""
    res, cur = [0], 1
    for k, rel, e, p in unary:
        nxt = _lcm(cur, p[s])
        res = [v for r in res for j in range(nxt // cur) for v in (r + cur * j,)
               if tables.holds(k, rel, e, p, {s: v})]
        cur = nxt
        if not res:
            return []
    res = [r + cur * j for r in res for j in range(P // cur)]
    lo, hi = rng
    if lo is not None and hi is not None and hi - lo + 1 < P:
        res = [r for r in res if (lo + (r - lo) % P) <= hi]
    return res


class _Spent(Exception):
    """The budget of atom evaluations ran out."""


class _Tables:
    """Each atom's truth per residues of its own symbols modulo its own periods, evaluated once
    (the search meets the same residues again and again): a look-up costs one unit of the
    budget, an evaluation ``MISS_COST`` more."""

    def __init__(self, budget: int, tick: Callable[[], None] | None = None) -> None:
        self.left = budget
        self.spent = 0
        self.tick = tick
        self.memo: dict[tuple[int, tuple[int, ...]], bool] = {}

    def spend(self, n: int) -> None:
        self.spent += n
        if self.spent > self.left:
            raise _Spent

    def holds(self, k: int, rel: str, e: Term, p: Periods, at: Mapping[str, int]) -> bool:
        self.spent += 1
        key = (k, tuple(at[s] % p[s] for s in sorted(p)))
        got = self.memo.get(key)
        if got is None:
            self.spent += MISS_COST
        if self.spent > self.left:
            raise _Spent
        if got is None:
            if self.tick is not None:
                self.tick()
            got = self.memo[key] = _holds(rel, e, {s: at[s] % p[s] for s in p})
        return got


def _holds(rel: str, e: Term, at: Mapping[str, int]) -> bool:
    return quasilinear.rel_holds(rel, evaluate(e, dict(at)))  # type: ignore[arg-type]


def _point(assign: Mapping[str, int], L: Periods, ranges: Mapping[str, tuple[int | None, int | None]],
           near: Mapping[str, int], shift: int = 0) -> dict[str, int]:
    """Per symbol the value of its class nearest its hint (else the low end) inside its range
    (every class in a domain has a value in the range); ``shift`` > 0 moves every symbol's value
    ``ceil(shift/2)`` periods up (odd) or down (even) when that stays in the range."""
    out = {}
    for s, r in assign.items():
        P = L.get(s, 1)
        lo, hi = ranges.get(s, (None, None))
        t = near.get(s, lo if lo is not None else 0)
        up = t + (r - t) % P  # the class's first value at or above t
        inside = [v for v in (up, up - P) if (lo is None or v >= lo) and (hi is None or v <= hi)]
        if inside:
            v = min(inside, key=lambda c: (abs(c - t), c))
        else:
            v = up
            if lo is not None and v < lo:
                v += -((v - lo) // P) * P
            if hi is not None and v > hi:
                v -= -((hi - v) // P) * P
        if shift:
            w = v + (P if shift % 2 else -P) * ((shift + 1) // 2)
            if (lo is None or w >= lo) and (hi is None or w <= hi):
                v = w
        out[s] = v
    return out
