"""``shrink`` without a solver: the smallest points in objective order, checked in Python.

Shape guard sets have few symbols (2-4 on the whole corpus) and a smallest model of small values,
while their floor/mod chains and products make every z3 proof of ``objective < best`` non-linear
and slow. Here nothing is proven by search in z3: points are generated in non-decreasing order
of the objective and evaluated with Python's integers (``pycode.compile_shared``, ``pyeval``'s
semantics), so the first point that satisfies everything is a smallest one — proven by
exhaustion, exactly.

* Each symbol's **domain** is the values its range allows and its own guards accept (the guards
  over that symbol alone: ``Mod(s0, 4) != 0``, ``FloorDiv(s0, 4) >= 2`` …), in order of ``|v|``,
  generated lazily. Their first values give every objective level a lower bound at once.
* The **points** are index vectors into the domains, walked best-first (a heap): a vector's
  parent is the vector with its last non-zero index lowered by one, so each is reached once, and
  because every objective level is non-decreasing in each ``|s|`` a child never sorts before its
  parent. Hence the heap pops in non-decreasing key order, and when it pops key ``k`` every
  point with a smaller key has been ruled out.
* A point that fails a condition over its first ``m`` symbols (the shared guards are tried in
  order of their last symbol) has children that change only symbols from ``m`` on: they, and
  all their descendants, keep the failing values, so they are ruled out unseen. Without this a
  ``lex`` walk would try every value of the last symbol behind a clash of the first two.
* Only points below the best key known (the start model) are generated; the heap running dry
  proves the start optimal.

The work is budgeted in the operation's resource units (``Deadline``): compiling a check costs
per node, evaluating it per node computed, both calibrated against the z3 units (see the
constants) and counted, never timed, so the answer does not depend on the machine's load. When
the units run out the search reports the lowest key it had not yet ruled out: a lower bound the
solver's descent starts from.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from symguard.solver.ir import terms as ir
from symguard.solver.ir.problem import Problem, Symbol
from symguard.solver.ir.pycode import compile_shared
from symguard.solver.ir.pyeval import Value
from symguard.solver.ir.terms import Term, iter_dag, symbols_of
from symguard.solver.reason.facts import facts_env
from symguard.solver.smt.checker import SETUP_SHARE, Deadline, units

Key = list[int]
# What the search's steps cost, measured on the corpus (2-core VM, CPU time), charged like a
# check's setup (checker.py): SETUP_SHARE times the milliseconds, at the units one millisecond of
# ``timeout_ms`` stands for. Compiling: ~40 µs per distinct node; a compiled call: ~1 µs plus
# ~0.06 µs per node computed; one objective key of a point: ~1.5 µs plus ~0.3 µs per symbol;
# a point's own bookkeeping (heap, children, distinctness): ~5 µs plus ~0.6 µs per symbol.
UNITS_PER_MS = units(1) * SETUP_SHARE
COMPILE_MS_PER_NODE = 0.040
CALL_MS, EVAL_MS_PER_NODE = 0.001, 0.00006
KEY_MS, KEY_MS_PER_SYMBOL = 0.0015, 0.0003
POINT_MS, POINT_MS_PER_SYMBOL = 0.005, 0.0006
# The share of the remaining units the search may use before the solver takes over.
SHARE = 0.2


@dataclass(frozen=True)
class Found:
    """What the search settled. ``model``: the first point in key order that satisfies everything
    (a proven optimum), or None. ``optimal``: ``model``, or when None the start, is proven
    smallest. ``lower``: per objective level, a value no model goes below."""

    model: dict[str, Value] | None
    optimal: bool
    lower: Key


class _OutOfUnits(Exception):
    pass


class _Budget:
    """The search's share of the operation's units, paid step by step (in milliseconds of work
    at ``UNITS_PER_MS``, so the count is exact however small a step)."""

    def __init__(self, deadline: Deadline, share: float) -> None:
        self.deadline = deadline
        self.left = int(deadline.remaining() * share)
        self._owed = 0.0
        self._steps = 0

    def pay(self, ms: float) -> None:
        self._owed += ms * UNITS_PER_MS
        whole = int(self._owed)
        if whole > self.left:
            raise _OutOfUnits
        self._owed -= whole
        self.left -= whole
        self.deadline.pay(whole)
        self._steps += 1
        if self._steps % 256 == 0:
            self.deadline.ensure_time()


class _Check:
    """Terms compiled on first use (a search the domains settle never compiles the rest)."""

    def __init__(self, terms: Sequence[Term], names: Sequence[str], budget: _Budget) -> None:
        self.terms, self.names, self.budget = list(terms), list(names), budget
        self.fn: Callable[..., int] | None = None
        self.ms = CALL_MS

    def __call__(self, *values: Value) -> int:
        """The index of the first term that fails at ``values``, -1 when all hold."""
        if not self.terms:
            return -1
        if self.fn is None:
            nodes = len({id(n) for t in self.terms for n in iter_dag(t)})
            self.budget.pay(nodes * COMPILE_MS_PER_NODE)
            self.fn, computed = compile_shared(self.terms, self.names)
            self.ms = CALL_MS + computed * EVAL_MS_PER_NODE
        self.budget.pay(self.ms)
        return self.fn(*values)


def _tightened(syms: Sequence[Symbol], terms: Sequence[Term]) -> list[Symbol]:
    """The symbols with their ranges narrowed by the bounds the guards state outright
    (``facts``: ``Eq(s, 3)``, ``s <= 64``, ``FloorDiv(s, 8) <= 7`` …): a domain then ends where
    the guards end it, instead of scanning an unbounded range that no objective bound cuts
    (the later symbols of ``lex``)."""
    env = facts_env({s.name: (s.lo, s.hi) for s in syms if not s.is_bool}, [(t, None) for t in terms])
    out = []
    for s in syms:
        lo, hi = s.lo, s.hi
        for _, (a, b) in ([] if s.is_bool else env.bounds.get(ir.mk_sym(s.name), [])):
            lo = a if lo is None or (a is not None and a > lo) else lo
            hi = b if hi is None or (b is not None and b < hi) else hi
        out.append(replace(s, lo=lo, hi=hi))
    return out


def _candidates(s: Symbol) -> Iterator[Value]:
    """The values of ``s``'s range in order of ``|v|`` (positive first on a tie)."""
    if s.is_bool:
        yield False
        yield True
        return
    lo, hi = s.lo, s.hi
    if lo is not None and lo >= 0:
        v = lo
        while hi is None or v <= hi:
            yield v
            v += 1
        return
    if hi is not None and hi <= 0:
        v = hi
        while lo is None or v >= lo:
            yield v
            v -= 1
        return
    yield 0
    a = 1
    while (hi is None or a <= hi) or (lo is None or -a >= lo):
        if hi is None or a <= hi:
            yield a
        if lo is None or -a >= lo:
            yield -a
        a += 1


class _Domain:
    """The values of one symbol its own guards accept, in order of ``|v|``, found on demand."""

    def __init__(self, s: Symbol, check: _Check) -> None:
        self.values: list[Value] = []
        self._next = _candidates(s)
        self._pending: Value | None = None
        self._check = check
        self.done = False  # the range is exhausted: ``values`` is the whole domain

    def get(self, k: int, below: Callable[[Value], bool]) -> Value | None:
        """The ``k``-th value, or None when it does not exist or when every candidate still
        unexamined fails ``below`` (monotone: once a candidate fails, larger ones do too)."""
        if k < len(self.values):
            return self.values[k] if below(self.values[k]) else None
        while len(self.values) <= k:
            if self._pending is None:
                nxt = next(self._next, None)
                if nxt is None:
                    self.done = True
                    return None
                self._pending = nxt
            v = self._pending
            if not below(v):
                return None
            self._pending = None
            if self._check(v) < 0:
                self.values.append(v)
        return self.values[k]


def search(problem: Problem, key: Callable[[Mapping[str, Value]], Key], best: Key,
           pairs: Sequence[tuple[str, str]], deadline: Deadline, *, share: float = SHARE) -> Found:
    """The smallest point of ``problem`` (every range, assert and guard holds, the ``pairs`` differ)
    under ``key`` if one sorts below ``best``, within ``share`` of the remaining units.

    ``key`` must be non-decreasing in each ``|s|`` (shrink's sum, max and lex objectives are)."""
    walk = _Walk(problem, key, best, pairs, _Budget(deadline, share))
    try:
        return walk.run()
    except _OutOfUnits:
        return Found(None, False, walk.lower)


class _Walk:
    """The best-first walk over index vectors (see the module's docstring)."""

    def __init__(self, problem: Problem, key: Callable[[Mapping[str, Value]], Key], best: Key,
                 pairs: Sequence[tuple[str, str]], budget: _Budget) -> None:
        self.key, self.best, self.budget = key, best, budget
        syms = list(problem.symbols)
        self.names = [s.name for s in syms]
        at = {n: i for i, n in enumerate(self.names)}
        self.key_ms = KEY_MS + KEY_MS_PER_SYMBOL * len(syms)
        self.point_ms = POINT_MS + POINT_MS_PER_SYMBOL * len(syms)
        own: list[list[Term]] = [[] for _ in syms]
        shared: list[tuple[int, Term]] = []
        for c in (*problem.asserts, *problem.guards):
            if c.term is None:
                continue
            used = symbols_of(c.term)
            if len(used) == 1:
                own[at[next(iter(used))]].append(c.term)
            else:  # ``reach``: one past its last symbol; terms over the first symbols first
                shared.append((1 + max((at[n] for n in used), default=-1), c.term))
        shared.sort(key=lambda rt: rt[0])
        self.reach = [r for r, _ in shared]
        self.apart = {(min(at[a], at[b]), max(at[a], at[b])) for a, b in pairs}
        syms = _tightened(syms, [c.term for c in (*problem.asserts, *problem.guards) if c.term is not None])
        self.doms = [_Domain(s, _Check(own[i], [s.name], budget)) for i, s in enumerate(syms)]
        self.joint = _Check([t for _, t in shared], self.names, budget)
        # a placeholder per symbol: its lowest |v| in range (no domain value is smaller)
        self.floor = {s.name: next(_candidates(s), 0) for s in syms}
        self.lower = key(self.floor)  # per level; level 0 rises as the walk rules keys out
        self._last: Key = []  # the key ``_below`` computed last: the one of the value ``get`` returns

    def _below(self, base: dict[str, Value], i: int) -> Callable[[Value], bool]:
        name = self.names[i]

        def ok(v: Value) -> bool:
            self.budget.pay(self.key_ms)
            self._last = self.key({**base, name: v})
            return self._last < self.best
        return ok

    def _point(self, idx: Sequence[int]) -> dict[str, Value]:
        return {n: d.values[k] for n, d, k in zip(self.names, self.doms, idx)}

    def _blame(self, pt: dict[str, Value]) -> int:
        """0 when ``pt`` satisfies everything; else one past the last symbol of a condition it
        fails: every point that agrees with ``pt`` on the symbols before that fails it too."""
        self.budget.pay(self.point_ms)
        values = [pt[n] for n in self.names]
        if self.apart:
            first: dict[Value, list[int]] = {}
            for i, v in enumerate(values):  # the first symbol that clashes with an earlier one
                if any((j, i) in self.apart for j in first.get(v, ())):
                    return i + 1
                first.setdefault(v, []).append(i)
        bad = self.joint(*values)
        return 0 if bad < 0 else max(1, self.reach[bad])

    def run(self) -> Found:
        n = len(self.names)
        for i, d in enumerate(self.doms):
            if d.get(0, self._below(self.floor, i)) is None:
                return Found(None, True, self.lower)  # nothing sorts below ``best``
        root = (0,) * n
        # the smallest value of each symbol bounds every level from below (each is monotone)
        self.lower = self.key(self._point(root))
        heap: list[tuple[Key, tuple[int, ...]]] = [(self.lower, root)]
        while heap:
            k, idx = heap[0]
            if k >= self.best:
                break
            self.lower = [max(self.lower[0], k[0]), *self.lower[1:]]
            pt = self._point(idx)
            blame = self._blame(pt)
            if not blame:
                return Found(pt, True, self.lower)
            heapq.heappop(heap)
            # children: one parent each (``tail``); those that change only symbols from ``blame``
            # on keep the failing condition's values, and so do all their descendants
            tail = max((i for i, x in enumerate(idx) if x), default=0)
            for i in range(tail, min(n, blame)):
                if self.doms[i].get(idx[i] + 1, self._below(pt, i)) is not None:
                    heapq.heappush(heap, (self._last, idx[:i] + (idx[i] + 1,) + idx[i + 1:]))
        return Found(None, True, self.lower)
