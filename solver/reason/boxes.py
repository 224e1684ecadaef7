"""Guards decided on the small finite box the other guards pin the sizes to.

PyTorch guard sets of a model traced at one input size often pin a size's quotient outright
(``Eq(2*(s58//10), 10)``: ``s58`` in ``[50, 59]``) and, through it, the quotient of another size;
every other guard then asks a question about a handful of points, which exhaustive evaluation in
Python answers exactly, where z3's non-linear search over the whole range may run out of units.

``contract`` first narrows each symbol's interval by HC4 (backward steps through the facts), which
can close an unbounded range; then, over the closed symbols a fact narrowed, it projects the
equalities: a fact whose symbols' domains span at most ``PROJECT_POINTS`` points is evaluated at
each of them (``pycode``: ``pyeval.holds`` semantics, a zero divisor fails), and a value of a
symbol that no satisfying point uses is removed. Neither step removes a value some point of the
fact uses, so every point of the ranges satisfying all facts keeps its values (sound), and the facts
that narrowed something are the box's sources. Both follow what moved (AC-3): a fact is narrowed
or projected again only once a domain of its symbols shrank since, in rounds to a fixpoint (at
most ``ROUNDS``): a pinned symbol makes a two-symbol fact small enough to project on the next one.

``Box.decide`` then enumerates the box over a guard's own symbols (at most ``MAX_POINTS``
points): the guard holding at every point is implied by the box's sources; at each point where it
fails, a fact over those symbols that fails there excludes it (the facts already named first), and
the guard is implied by the sources and the facts named; a point no fact excludes is a candidate
counterexample the caller verifies on the original terms (``accept``). Work is counted in
evaluations (``Meter``), never in time.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from symguard.solver.ir import terms as ir
from symguard.solver.ir.pycode import compile_check
from symguard.solver.reason.intervals import Facts, Interval, _Intervals, meet
from symguard.solver.reason.meter import Meter

MAX_DOMAIN = 4096  # a symbol with a wider (or unbounded) interval is left open: no guard over it is enumerated
# ... and one no fact narrowed (HC4) only when its declared range is this small: enumerating the
# declared ranges of sizes (``[2, 4096]``) where nothing pins them spent the pass' whole budget
# on synthetic lattices for one verdict (synthetic_400_mixed: 400,000 evaluations)
SMALL_RANGE = 64
PROJECT_POINTS = 20_000  # points of one fact's symbols enumerated to project it
MAX_POINTS = 8_192  # points of a guard's symbols enumerated to decide it
ROUNDS = 6  # projection rounds over every fact (each that narrows nothing ends the contraction)
FACT_ROUNDS = 3  # HC4 steps on one fact in a row while it narrows
WITNESSES = 8  # candidate counterexamples offered to ``accept`` per guard

Fact = tuple[ir.Term, int]  # a condition and its source (a guard's index; negative: an assert)


@dataclass
class Compiled:
    """Each term's check compiled once per pass (positional arguments: its sorted symbols)."""

    fns: dict[ir.Term, tuple[tuple[str, ...], Callable[..., bool]] | None] = field(default_factory=dict)

    def get(self, t: ir.Term) -> tuple[tuple[str, ...], Callable[..., bool]] | None:
        if t not in self.fns:
            names = tuple(sorted(ir.symbols_of(t)))
            try:
                self.fns[t] = (names, compile_check([t], names))
            except ValueError:  # a symbol name that is no Python identifier: not enumerated
                self.fns[t] = None
        return self.fns[t]


def _size(domains: Mapping[str, Sequence[int]], names: Sequence[str]) -> int:
    return math.prod(len(domains[x]) for x in names)


@dataclass
class Box:
    """The values each closed symbol can take at any point of the ranges that satisfies the facts
    (``domains``), the sources of the facts that narrowed it (``used``), and per enumerated group of
    symbols its points and each term's mask of the points where it holds."""

    domains: dict[str, tuple[int, ...]]
    used: frozenset[int]
    narrowed: frozenset[str]
    compiled: Compiled
    _points: dict[tuple[str, ...], list[tuple[int, ...]]] = field(default_factory=dict)
    _masks: dict[tuple[tuple[str, ...], ir.Term], int | None] = field(default_factory=dict)

    def mask(self, t: ir.Term, names: tuple[str, ...], meter: Meter) -> int | None:
        """Bit ``k`` set where ``t`` holds at the ``k``-th point over ``names`` (None: not affordable)."""
        key = (names, t)
        if key in self._masks:
            return self._masks[key]
        got = self.compiled.get(t)
        pts = self._points.get(names)
        if pts is None:
            pts = self._points[names] = list(itertools.product(*(self.domains[x] for x in names)))
        m: int | None = None
        if got is not None and meter.take(len(pts)):
            own, fn = got
            pos = [names.index(x) for x in own]
            m = 0
            for k, p in enumerate(pts):
                if fn(*[p[q] for q in pos]):
                    m |= 1 << k
        self._masks[key] = m
        return m

    def decide(self, goal: ir.Term, facts: Sequence[Fact], meter: Meter,
               accept: Callable[[dict[str, int]], bool]) -> tuple[bool, list[int]] | None:
        """``(False, sources)``: ``goal`` holds at every point of the box over its symbols where the
        facts over those symbols hold (implied by the box's sources and the facts named);
        ``(True, [])``: a point where it fails was accepted; None: cannot tell here."""
        names = tuple(sorted(ir.symbols_of(goal)))
        if not names or any(x not in self.domains for x in names) or not set(names) & self.narrowed \
                or _size(self.domains, names) > MAX_POINTS:
            return None
        g = self.mask(goal, names, meter)
        if g is None:
            return None
        full = (1 << _size(self.domains, names)) - 1
        if g == full:
            return False, sorted(self.used)
        # the points where the goal fails, each excluded by a fact over the goal's symbols (those
        # already named first): a fact's mask over every point cost 500 facts x 630 points on SAM 2's
        # padded windows, where a few points fail the goal and the first facts tried exclude them
        pts = self._points[names]
        near: list[tuple[tuple[int, ...], Callable[..., bool], int]] = []
        for t, src in facts:
            got = self.compiled.get(t) if ir.symbols_of(t) <= set(names) else None
            if got is not None:
                near.append((tuple(names.index(x) for x in got[0]), got[1], src))
        named: list[int] = []  # indices into ``near`` of the facts the proof uses
        bad = full & ~g
        tried = 0  # candidate counterexamples offered to ``accept``
        while bad:
            k = (bad & -bad).bit_length() - 1
            bad &= bad - 1
            p = pts[k]
            for q in itertools.chain(named, (q for q in range(len(near)) if q not in named)):
                if not meter.take(1):
                    return None
                pos, fn, _ = near[q]
                if not fn(*[p[r] for r in pos]):
                    if q not in named:
                        named.append(q)
                    break
            else:  # every fact holds there: a candidate counterexample (no proof from here on)
                if accept(dict(zip(names, p))):
                    return True, []
                tried += 1
                if tried >= WITNESSES:
                    return None
        if tried:
            return None
        return False, sorted(self.used | {near[q][2] for q in named if near[q][2] >= 0})  # asserts: always premises


def _pins(t: ir.Term) -> bool:
    """An equality (alone or with its domain conditions): the facts that narrow most when projected."""
    return t.kind == ir.EQ or (t.kind == ir.AND and any(a.kind == ir.EQ for a in t.args))



def _back(n: ir.Term, target: Interval, fwd: _Intervals, out: dict[str, Interval]) -> bool:
    """HC4's backward step: every point where ``n``'s value lies in ``target`` has its symbols in
    ``out`` (narrowed in place); False when no value of ``n`` lies in ``target`` (a contradiction).
    Only the cases that are exact to state are narrowed; any other node narrows nothing."""
    here = fwd.of(n)
    lo, hi = meet(here, target)
    if lo is not None and hi is not None and lo > hi:
        return False
    if (lo, hi) == here:  # the target cuts nothing off n's own interval: nothing below narrows
        return True
    k = n.kind
    if k == ir.SYM:
        got = meet(out.get(n.value, (None, None)), (lo, hi))
        out[n.value] = got
        return got[0] is None or got[1] is None or got[0] <= got[1]
    if k == ir.ADD:
        ivs = [fwd.of(a) for a in n.args]
        for q, _ in enumerate(ivs):
            rest = ivs[:q] + ivs[q + 1:]
            r_lo = None if any(x is None for x, _ in rest) else sum(x for x, _ in rest)  # type: ignore[misc]
            r_hi = None if any(y is None for _, y in rest) else sum(y for _, y in rest)  # type: ignore[misc]
            t = (None if lo is None or r_hi is None else lo - r_hi, None if hi is None or r_lo is None else hi - r_lo)
            if not _back(n.args[q], t, fwd, out):
                return False
        return True
    if k == ir.MUL:
        args = list(n.args)
        c = 1
        if args[0].kind == ir.CONST:
            c = args.pop(0).value
        if c == 0:
            return True
        p_lo, p_hi = (None if lo is None else ir.ceil_div(lo, c), None if hi is None else hi // c) if c > 0 else \
            (None if hi is None else ir.ceil_div(hi, c), None if lo is None else lo // c)
        if len(args) == 1:
            return _back(args[0], (p_lo, p_hi), fwd, out)
        ivs = [fwd.of(a) for a in args]
        los: list[int] = []
        for x, _ in ivs:
            if x is None or x < 0:
                return True  # factors of unknown sign: nothing narrowed
            los.append(x)
        if p_hi is not None and p_hi < 0:
            return False  # a product of non-negative factors is non-negative
        for q, f in enumerate(args):
            rest = ivs[:q] + ivs[q + 1:]
            rest_lo = los[:q] + los[q + 1:]
            f_lo: int | None = None
            f_hi: int | None = None
            if p_lo is not None and p_lo >= 1:  # a positive product: every factor at least 1
                f_lo = 1
                his = [y for _, y in rest]
                if all(y is not None for y in his):
                    f_lo = max(1, ir.ceil_div(p_lo, max(1, math.prod(his))))  # type: ignore[arg-type]
                if p_hi is not None:
                    f_hi = p_hi // math.prod(max(1, x) for x in rest_lo)
            elif p_hi is not None and all(x >= 1 for x in rest_lo):
                f_hi = p_hi // math.prod(rest_lo)
            if not _back(f, (f_lo, f_hi), fwd, out):
                return False
        return True
    if k == ir.FLOORDIV:
        b_lo, b_hi = fwd.of(n.args[1])
        if b_lo is None or b_lo < 1:
            return True  # a divisor that may be non-positive: nothing narrowed
        # q = a // b with b in [b_lo, b_hi], q in [lo, hi]: q*b <= a <= q*b + b - 1
        a_lo = None if lo is None else lo * b_lo if lo >= 0 else None if b_hi is None else lo * b_hi
        a_hi = None if hi is None else (None if b_hi is None else (hi + 1) * b_hi - 1) if hi + 1 >= 0 \
            else (hi + 1) * b_lo - 1
        return _back(n.args[0], (a_lo, a_hi), fwd, out)
    if k == ir.MAX and hi is not None:  # Max(a, b) <= hi: each argument too
        return all(_back(a, (None, hi), fwd, out) for a in n.args)
    if k == ir.MIN and lo is not None:
        return all(_back(a, (lo, None), fwd, out) for a in n.args)
    return True


def _narrow(fact: ir.Term, fwd: _Intervals, out: dict[str, Interval]) -> bool:
    """``_back`` on a condition: ``e <= 0``, ``e == 0`` and conjunctions of them."""
    k = fact.kind
    if k == ir.LE:
        return _back(fact.args[0], (None, 0), fwd, out)
    if k == ir.EQ:
        return _back(fact.args[0], (0, 0), fwd, out)
    if k == ir.AND:
        return all(_narrow(a, fwd, out) for a in fact.args)
    if k == ir.NOT and fact.args[0].kind == ir.EQ:  # e != 0 at an end of e's interval moves that end
        e = fact.args[0].args[0]
        lo, hi = fwd.of(e)
        if lo == 0 and hi == 0:
            return False
        if lo == 0:
            return _back(e, (1, None), fwd, out)
        if hi == 0:
            return _back(e, (None, -1), fwd, out)
    return True


def _refresh(old: _Intervals, iv: dict[str, Interval], moved: set[str]) -> _Intervals:
    """Forward intervals under the narrowed ``iv``, keeping those of the nodes over symbols that did
    not move (recomputing every fact's nodes after each narrowing was most of a contraction's cost)."""
    new = _Intervals(Facts(iv))
    new.memo = {n: v for n, v in old.memo.items() if moved.isdisjoint(ir.symbols_of(n))}
    return new


def contract(facts: Sequence[Fact], ranges: Mapping[str, Interval], meter: Meter,
             compiled: Compiled | None = None) -> Box | None:
    """The box of ``facts`` within ``ranges`` (module doc), or None when the work is not
    affordable or a domain empties (the facts contradict each other within the ranges: the caller
    decides nothing from it). First HC4 narrowing of the symbols' intervals (``_back``), which
    can close an unbounded range; then exact projection on the closed symbols some fact narrowed
    (a declared range nobody narrowed, SAM 2's batch, multiplied every projection by 63 and
    pinned nothing); in rounds."""
    comp = compiled if compiled is not None else Compiled()
    iv: dict[str, Interval] = dict(ranges)
    for t, _ in facts:
        for x in ir.symbols_of(t):
            iv.setdefault(x, (None, None))
    domains: dict[str, tuple[int, ...]] = {}
    used: set[int] = set()
    narrowed: set[str] = set()
    last: dict[int, tuple[int, ...]] = {}  # per fact projected, its domains' sizes after (AC-3 across rounds)

    def close() -> None:
        for x, (lo, hi) in iv.items():
            if x in domains:
                domains[x] = tuple(v for v in domains[x] if lo <= v <= hi)  # type: ignore[operator]
            elif lo is not None and hi is not None and hi - lo + 1 <= (MAX_DOMAIN if x in narrowed else SMALL_RANGE):
                domains[x] = tuple(range(lo, hi + 1))

    # HC4 as AC-3 too: a fact is narrowed again only once an interval of its symbols moved since
    # (``stamp``: the step it last moved at; ``done``: the step a fact was last at its fixpoint)
    syms = [tuple(ir.symbols_of(t)) for t, _ in facts]
    stamp: dict[str, int] = {}
    done: dict[int, int] = {}
    clock = 0
    for _ in range(ROUNDS):
        changed = False
        fwd = _Intervals(Facts(iv))
        for q, (t, src) in enumerate(facts):
            if done.get(q, -1) >= max((stamp.get(x, 0) for x in syms[q]), default=0):
                continue
            done[q] = clock
            for _ in range(FACT_ROUNDS):  # a conjunct's narrowing (a divisor != 0) helps the next
                if not meter.take(1):
                    return None
                out: dict[str, Interval] = {}
                if not _narrow(t, fwd, out):
                    return None
                moved = False
                for x, b in out.items():
                    new = meet(iv[x], b)
                    if new != iv[x]:
                        if new[0] is not None and new[1] is not None and new[0] > new[1]:
                            return None
                        iv[x] = new
                        narrowed.add(x)
                        moved = True
                        clock += 1
                        stamp[x] = clock
                if not moved:
                    done[q] = clock
                    break
                used.add(src)
                changed = True
                fwd = _refresh(fwd, iv, set(out))
        close()
        if not domains:
            return None
        # AC-3 over the equalities (they pin; projecting every fact spent 300,000 evaluations on a
        # synthetic lattice for one verdict): the one over the fewest points first, and a fact
        # again only once a domain of its symbols narrowed since it was last projected
        todo = {q for q, (t, _) in enumerate(facts) if _pins(t) and ir.symbols_of(t) <= domains.keys() & narrowed
                and last.get(q) != tuple(len(domains[x]) for x in sorted(ir.symbols_of(t)))}
        while todo:
            q = min(todo, key=lambda q: (_size(domains, sorted(ir.symbols_of(facts[q][0]))), q))
            todo.discard(q)
            t, src = facts[q]
            got = comp.get(t)
            if got is None:
                continue
            names, fn = got
            n = _size(domains, names)
            if n > PROJECT_POINTS:
                continue
            if n > meter.left:
                return None
            # until every value has a point of the fact (a fact that narrows nothing, most of them,
            # stops early: SAM 2's three-size equalities, 630 points each, re-projected per narrowing)
            seen: list[set[int]] = [set() for _ in names]
            open_ = sum(len(domains[x]) for x in names)
            evals = 0
            for p in itertools.product(*(domains[x] for x in names)):
                evals += 1
                if fn(*p):
                    for v, s in zip(p, seen):
                        if v not in s:
                            s.add(v)
                            open_ -= 1
                    if not open_:
                        break
            meter.take(evals)
            for x, s in zip(names, seen):
                if len(s) < len(domains[x]):
                    if not s:
                        return None
                    domains[x] = tuple(sorted(s))
                    iv[x] = (domains[x][0], domains[x][-1])
                    clock += 1
                    stamp[x] = clock
                    narrowed.add(x)
                    used.add(src)
                    changed = True
                    todo |= {r for r, (u, _) in enumerate(facts) if r != q and _pins(u) and
                             x in ir.symbols_of(u) and ir.symbols_of(u) <= domains.keys() & narrowed}
            last[q] = tuple(len(domains[x]) for x in names)
        if not changed:
            break
    return Box(domains, frozenset(s for s in used if s >= 0), frozenset(narrowed), comp)
