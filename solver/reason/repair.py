"""Counterexamples by repair: a local search for a point where one guard fails and the others hold.

``required`` needs a point of ``ranges & A & (K - {g}) & ~g``. ``points.Pool`` tries the hints and
moves of ``g``'s own symbols; on sets of many loosely related guards (residue lattices over
several moduli, nests of ``Max``/``Min``) such a point exists but lies several moves away, and
z3 needs many resource units to find it in non-linear integer arithmetic. The repair walk starts
from pool points where ``g`` fails (fewest other kept guards failing first) and, a move at a
time, changes one symbol of a failing kept guard to the value that leaves the fewest kept guards
failing while ``g`` still fails (steepest descent, strict improvement only, so it terminates).

The moves are general, not fitted to an instance: small steps, doubling and halving, the low
end of the range, the hint, and steps by the literal divisors the symbol sits under and by
their lcm (``x -> x + L`` keeps ``x mod m`` for every ``m | L``, so a step by the period moves an
inequality without breaking a residue guard). A point is only an answer after
``Pool.verify`` on the original terms, so the search is sound whatever it tries; its work is
counted in point evaluations (``evals``), which the caller charges to the effort.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import Value, evaluate
from symguard.solver.ir.terms import Term
from symguard.solver.reason.points import Pool

STARTS = 3  # pool points a walk starts from
MAX_PERIOD = 1 << 20  # lcm steps larger than this are left out (they leave every small box)
STEPS = (1, 2, 3, 5, 8)
DESCENT_ROUNDS = 6  # moves of the coordinate descent towards a point where the guard fails


def divisors_by_symbol(terms: Sequence[Term | None]) -> dict[str, frozenset[int]]:
    """Per symbol, the positive literal divisors of the ``//`` and ``%`` nodes it sits under."""
    out: dict[str, set[int]] = {}
    seen: set[Term] = set()
    for t in terms:
        if t is None or not t.has_div:
            continue
        for n in ir.iter_dag(t):
            if n in seen or n.kind not in ir.DIV_KINDS:
                continue
            seen.add(n)
            b = n.args[1]
            if b.kind == ir.CONST and b.value != 0:
                for s in ir.symbols_of(n.args[0]):
                    out.setdefault(s, set()).add(abs(int(b.value)))
    return {s: frozenset(ds) for s, ds in out.items()}


def step_sizes(divisors: frozenset[int]) -> list[int]:
    """Steps that keep residues: each divisor, their lcm (when it stays small), and small steps."""
    steps = set(STEPS) | set(divisors)
    period = 1
    for d in sorted(divisors):
        period = period * d // math.gcd(period, d)
        if period > MAX_PERIOD:
            break
    else:
        steps |= {period, 2 * period}
    return sorted(steps)


def candidates(v: int, lo: int | None, hi: int | None, hint: int | None, steps: list[int]) -> list[int]:
    """The values symbol ``x`` may move to from ``v`` (within its range, not ``v`` itself)."""
    vals = {v + d for d in steps} | {v - d for d in steps} | {2 * v, v // 2}
    if lo is not None:
        vals |= {lo, lo + 1}
    if hint is not None:
        vals.add(hint)
    return sorted(x for x in vals if x != v and (lo is None or x >= lo) and (hi is None or x <= hi))


class Repair:
    """One repair walker per pool (per redundancy pass): the symbols and move steps of each guard
    are computed once."""

    def __init__(self, pool: Pool, syms: Sequence[frozenset[str]]) -> None:
        self.pool = pool
        self.syms = syms
        self.ints = {s.name: s for s in pool.p.symbols if not s.is_bool}
        self.usable = pool._fast is not None and not any(s.is_bool for s in pool.p.symbols)
        divs = divisors_by_symbol(pool.terms)
        self.steps = {n: step_sizes(divs.get(n, frozenset())) for n in self.ints}
        self.evals = 0  # point evaluations, all walks of the pass

    def find(self, i: int, kept_mask: int, limit: int) -> dict[str, Value] | None:
        """A verified point where guard ``i`` fails and every other kept guard holds, searched
        with at most ``limit`` point evaluations (pooled when found); None otherwise."""
        if not self.usable or limit <= 0:
            return None
        bit = 1 << i
        others = kept_mask & ~bit
        pool = self.pool
        cands = [(pool.points[k], m) for k, m in enumerate(pool.masks) if m & bit]
        budget = limit - self._breaking(i, cands)
        starts = sorted(range(len(cands)), key=lambda k: ((cands[k][1] & others).bit_count(), k))
        for k in starts[:STARTS]:
            if budget <= 0:
                break
            pt, used = self._walk(dict(cands[k][0]), cands[k][1], bit, others, budget)
            budget -= used
            if pt is not None:
                return pt
            if budget <= 0:
                break
        return None

    def _breaking(self, i: int, out: list[tuple[dict[str, Value], int]]) -> int:
        """Starting points where guard ``i`` fails, made from the first pool point (the hints): an
        ``Ne`` guard fails on a thin set no pool point may meet, a comparison of nests only where
        several symbols moved together. First each symbol alone, solving the guard's negation
        for it (``_solved``, a few secant steps: a ``Max``/``Min`` is linear piece by piece); then
        a coordinate descent on the negation's slack (how far ``e`` is from ``e <= 0`` or
        ``e == 0``), one symbol's best move at a time. Returns the evaluations spent."""
        pool = self.pool
        t = pool.terms[i]
        if t is None or not pool.points:
            return 0
        want = _negation(t)
        if want is None:
            return 0
        base = pool.points[0]
        spent = 0
        names = sorted(x for x in self.syms[i] if x in self.ints)

        def fails(pt: dict[str, Value]) -> bool:
            nonlocal spent
            spent += 1
            self.evals += 1
            try:
                m = pool._fast([pt[n] for n in pool._names])
            except ZeroDivisionError:
                return False
            if m >> i & 1:
                out.append((pt, m))
                return True
            return False

        for x in names:
            s = self.ints[x]
            pt = dict(base)
            for _ in range(3):
                vals = _solved(want, pt, x, int(pt[x]), s.lo, s.hi)  # type: ignore[arg-type]
                if not vals:
                    break
                pt = {**pt, x: vals[0]}
                if fails(pt):
                    break
        if out or len(names) < 2:
            return spent
        pt = dict(base)
        slack = _slack(want, pt)
        for _ in range(DESCENT_ROUNDS):
            if slack is None or slack <= 0:
                break
            best: tuple[int, dict[str, Value]] | None = None
            for x in names:
                s = self.ints[x]
                v0 = int(pt[x])  # type: ignore[arg-type]
                for v in _solved(want, pt, x, v0, s.lo, s.hi) + candidates(v0, s.lo, s.hi, None, list(STEPS)):
                    cand = {**pt, x: v}
                    spent += 1
                    self.evals += 1
                    got = _slack(want, cand)
                    if got is not None and got < slack and (best is None or got < best[0]):
                        best = (got, cand)
            if best is None:
                break
            slack, pt = best
            if slack <= 0:
                fails(pt)
        return spent

    def _walk(self, pt: dict[str, Value], mask: int, bit: int, others: int,
              budget: int) -> tuple[dict[str, Value] | None, int]:
        pool = self.pool
        names = pool._names
        used = 0
        bad = mask & others
        seen = {tuple(pt[n] for n in names)}
        while bad:
            j = (bad & -bad).bit_length() - 1  # the first failing kept guard
            best: tuple[int, dict[str, Value], int] | None = None
            for x in sorted(self.syms[j]):
                s = self.ints.get(x)
                if s is None:
                    continue
                v0 = int(pt[x])  # type: ignore[arg-type]
                vals = candidates(v0, s.lo, s.hi, s.hint, self.steps[x])
                vals = _solved(pool.terms[j], pt, x, v0, s.lo, s.hi) + vals
                for v in vals:
                    if used >= budget:
                        return None, used
                    cand = {**pt, x: v}
                    key = tuple(cand[n] for n in names)
                    if key in seen:
                        continue
                    used += 1
                    self.evals += 1
                    try:
                        m = pool._fast(list(key))
                    except ZeroDivisionError:
                        continue
                    if not m & bit:
                        continue
                    score = (m & others).bit_count()
                    if best is None or score < best[0]:
                        best = (score, cand, m)
            # the best move, even sideways (one failing guard traded for another: two symbols
            # tied by an equality move one after the other); never back to a point seen
            if best is None or best[0] > bad.bit_count():
                return None, used
            _, pt, mask = best
            seen.add(tuple(pt[n] for n in names))
            bad = mask & others
        if not all(pool._holds(a, pt) for a in pool.asserts):
            return None, used  # the moves keep the ranges, not necessarily the asserts
        pool.add(pt)
        return (pt, used) if pool.verify(pt, bit.bit_length() - 1, others | bit) else (None, used)


def _slack(want: Term, pt: dict[str, Value]) -> int | None:
    """How far ``pt`` is from ``want`` (``e == 0``: ``|e|``; ``e <= 0``: ``max(e, 0)``)."""
    try:
        e = evaluate(want.args[0], pt)
    except (ZeroDivisionError, KeyError, TypeError):
        return None
    if not isinstance(e, int):
        return None
    return abs(e) if want.kind == ir.EQ else max(e, 0)


def _negation(t: Term) -> Term | None:
    """The comparison that holds exactly where ``t`` fails, as ``e == 0`` or ``e <= 0``."""
    if t.kind == ir.NOT and t.args[0].kind == ir.EQ:
        return t.args[0]
    if t.kind == ir.NOT and t.args[0].kind == ir.LE:  # not (e <= 0)  ->  e <= 0
        return t.args[0]
    if t.kind == ir.LE:  # not (e <= 0)  ->  1 - e <= 0
        return ir.mk_le(ir.mk_add(ir.mk_int(1), ir.mk_mul(ir.mk_int(-1), t.args[0])), ir.ZERO)
    return None


def _solved(t: Term | None, pt: dict[str, Value], x: str, v0: int, lo: int | None, hi: int | None) -> list[int]:
    """The value of ``x`` that makes the comparison ``t`` (``e == 0``, ``e <= 0``) hold if ``e`` is
    linear in ``x`` near ``pt``, from the secant ``e(x + 1) - e(x)``: a candidate like any other,
    evaluated before it is taken, so a wrong guess (``e`` not linear there) costs one evaluation."""
    if t is None or t.kind not in (ir.EQ, ir.LE):
        return []
    e = t.args[0]
    try:
        e0 = evaluate(e, pt)
        c = evaluate(e, {**pt, x: v0 + 1}) - e0  # type: ignore[operator]
    except (ZeroDivisionError, KeyError, TypeError):
        return []
    if not c or not isinstance(e0, int):
        return []
    if t.kind == ir.EQ:
        if e0 % c:
            return []
        v = v0 - e0 // c
    else:  # e0 + c*d <= 0
        d = (-e0) // c if c > 0 else ir.ceil_div(e0, -c)
        v = v0 + d
    return [v] if v != v0 and (lo is None or v >= lo) and (hi is None or v <= hi) else []
