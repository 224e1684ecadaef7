"""Refutation by points: concrete assignments that prove a guard is not implied.

A point that satisfies the ranges and the asserts and where guard ``g`` fails proves ``g`` is not
``always_true``; if every other guard still kept holds there too, it proves ``g`` ``required``
(``A & (K - {g})`` has a model where ``g`` is false). No solver is needed for either claim, and
the point stays valid while the kept set shrinks, so one point can decide several guards.

The pool starts from the hints (PyTorch's trace-time sizes) and small deterministic moves away
from them (one or two symbols at a time, which break few guards at once), and grows with every
model z3 returns. A symbol without a hint that an equality defines (a trace's stride,
``src0 == 3*s0*s1``) follows its definition at every point that does not move it (``complete``). Masks are computed on the terms the solver uses (``rewrite``'s canonical forms,
one pass over their shared DAG per point); before a point decides anything, ``verify`` re-checks
the claim on the original terms with ``pyeval`` — exactly the semantics of docs/problem-format.md §1.2.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from typing import Any

from symguard.solver.ir import terms as ir
from symguard.solver.ir.problem import Problem
from symguard.solver.ir.pyeval import Value, step
from symguard.solver.ir.terms import Term

MAX_POINTS = 1500
MOVES_PER_SYMBOL = 12  # seeded single-symbol moves; targeted searches add the rest
TARGET_TRIES = 48


class Pool:
    """Points of ``ranges & asserts`` and, per point, the bitmask of guards failing there."""

    def __init__(self, problem: Problem, terms: Sequence[Term | None], seed: int = 0) -> None:
        self.p = problem
        self.terms = terms
        self.originals = [c.term for c in problem.guards]
        self.asserts = [c.term for c in problem.asserts if c.term is not None]
        self.points: list[dict[str, Value]] = []
        self.masks: list[int] = []
        self._seen: set[tuple[tuple[str, Value], ...]] = set()
        self.rng = random.Random(seed)
        live = [t for t in terms if t is not None]
        order: list[Term] = []
        seen: set[int] = set()
        for t in live:
            for n in ir.iter_dag(t):
                if id(n) not in seen:
                    seen.add(id(n))
                    order.append(n)
        self._order = order
        self._names = [s.name for s in problem.symbols]
        self._fast = _compile(order, terms, self._names)
        self.evaluated = 0
        self._last: tuple[object, int] = (None, 0)
        self._orders: dict[Term, list[Term]] = {}  # original terms: their DAG, children first
        self._alone_fns: dict[int, Any] = {}
        self._defs = _definitions(problem)
        ints = [s for s in problem.symbols if not s.is_bool]
        self.base: dict[str, Value] = self.complete({s.name: _base(s.lo, s.hi, s.hint) for s in ints}, ())

    # -------------------------------------------------------------- building
    def add(self, point: dict[str, Value]) -> bool:
        """Keep ``point`` when it is in the ranges and satisfies every assert."""
        key = tuple(sorted(point.items()))
        if key in self._seen or len(self.points) >= MAX_POINTS:
            return False
        self._seen.add(key)
        if not self.admits(point):
            return False
        self.points.append(point)
        self.masks.append(self._mask(point))
        return True

    def admits(self, point: dict[str, Value]) -> bool:
        """``point`` gives every symbol a value in its range and satisfies every assert."""
        for s in self.p.symbols:
            v = point.get(s.name)
            if v is None or (not s.is_bool and ((s.lo is not None and v < s.lo) or (s.hi is not None and v > s.hi))):  # type: ignore[operator]
                return False
        return all(self._holds(a, point) for a in self.asserts)

    def complete(self, point: dict[str, Value], moved: Iterable[str]) -> dict[str, Value]:
        """``point`` with each symbol that has no hint and that an assert or a guard defines
        (``c*x + t == 0``, ``x`` not in ``t``: a stride ``src0 == 3*s0*s1``) set to its defined
        value at the point, unless ``moved`` names it. Such a symbol otherwise sits at the low end
        of its range wherever the others move, and every point breaks its definition: no point
        satisfies every guard, and none proves a guard ``required`` while the definition is kept."""
        if not self._defs:
            return point
        pt = dict(point)
        fixed = set(moved)
        for x, c, rest in self._defs:  # in dependency order (``_definitions``)
            if x in fixed:
                continue
            v = self._value(rest, pt)
            if v is not None and not isinstance(v, bool) and v % c == 0:
                pt[x] = -v // c
        return pt

    def _value(self, t: Term, pt: dict[str, Value]) -> Value | None:
        order = self._orders.get(t)
        if order is None:
            order = self._orders[t] = ir.iter_dag(t)
        val: dict[Term, Value | None] = {}
        for n in order:
            val[n] = step(n, [val[a] for a in n.args], pt)
        return val[t]

    def mask_of(self, point: dict[str, Value]) -> int:
        """The failing guards at any point (not added to the pool; a cache of the last one)."""
        key = tuple(sorted(point.items()))
        if self._last[0] != key:
            self._last = (key, self._mask(point))
        return self._last[1]

    def _mask(self, point: dict[str, Value]) -> int:
        """Bit ``i`` set when guard ``i`` fails at ``point`` (a zero divisor counts as failing)."""
        self.evaluated += 1
        if self._fast is not None:
            try:
                return self._fast([point[n] for n in self._names])  # type: ignore[no-any-return]
            except ZeroDivisionError:
                pass  # some guard divides by zero here: the node-by-node path below isolates it
        val: dict[int, Value | None] = {}
        for n in self._order:  # None: undefined; an ITE or and/or may still be defined (pyeval.step)
            val[id(n)] = step(n, [val[id(x)] for x in n.args], point)
        m = 0
        for i, t in enumerate(self.terms):
            if t is not None and not val[id(t)]:
                m |= 1 << i
        return m

    def seed_points(self, limit: int) -> None:
        """Deterministic moves from the hints (or from the low ends of the ranges)."""
        ints = [s for s in self.p.symbols if not s.is_bool]
        if not ints or any(s.is_bool for s in self.p.symbols):
            return
        base = self.base
        self.add(dict(base))
        cands = {s.name: _moves(s.lo, s.hi, base[s.name]) for s in ints}  # type: ignore[arg-type]
        for s in ints:  # one symbol at a time
            for v in _spread(cands[s.name], MOVES_PER_SYMBOL):
                self.add(self.complete({**base, s.name: v}, (s.name,)))
        movable = [s for s in ints if cands[s.name]]
        tries = 0
        while movable and len(self.points) < limit and tries < 4 * limit:  # a few symbols at a time
            tries += 1
            pt = dict(base)
            moved = self.rng.sample(movable, min(len(movable), self.rng.choice((2, 2, 3))))
            for s in moved:
                pt[s.name] = self.rng.choice(cands[s.name])
            self.add(self.complete(pt, [s.name for s in moved]))

    def search(self, i: int, syms: Iterable[str], kept_mask: int | None) -> dict[str, Value] | None:
        """Targeted: move only guard ``i``'s symbols (from the hints) looking for a point where
        ``i`` fails (and, with ``kept_mask``, every other kept guard holds). Verified, pooled."""
        ints = {s.name: s for s in self.p.symbols if not s.is_bool}
        names = sorted(n for n in syms if n in ints)
        if self._fast is None or not names or any(s.is_bool for s in self.p.symbols):
            return None
        base = self.base
        vals = {n: _targets(ints[n].lo, ints[n].hi, base[n]) for n in names}  # type: ignore[arg-type]
        names = [n for n in names if vals[n]]  # a one-value (or empty) range has nowhere to move
        if not names:
            return None
        rng = random.Random(i)
        if len(names) == 1:
            combos = [{names[0]: v} for v in vals[names[0]]]
        else:
            combos = [{n: rng.choice(vals[n]) for n in names} for _ in range(TARGET_TRIES)]
        bit = 1 << i
        alone = self._alone(i)
        for c in combos:
            pt = self.complete({**base, **c}, c)
            at = [pt[n] for n in self._names]
            try:
                if alone is not None and not alone(at):
                    continue  # the guard holds here: no need to evaluate every other guard
                m = self._fast(at)
            except ZeroDivisionError:
                continue
            if not m & bit or (kept_mask is not None and m & kept_mask != bit):
                continue
            if self.add(pt) and self.verify(pt, i, kept_mask):
                return pt
        return None

    def _alone(self, i: int) -> Any:
        """Guard ``i``'s failure bit on its own (compiled once): a search tries dozens of points
        where the guard usually holds, and the whole set's mask costs every guard each time."""
        if i not in self._alone_fns:
            t = self.terms[i]
            self._alone_fns[i] = None if t is None else _compile(ir.iter_dag(t), [t], self._names)
        return self._alone_fns[i]

    # -------------------------------------------------------------- queries
    def fails_somewhere(self, i: int, *, verified: bool = True) -> bool:
        """Some point of ``ranges & asserts`` where guard ``i`` fails: it is not always true."""
        bit = 1 << i
        return any(m & bit and (not verified or self.verify(pt, i, None))
                   for pt, m in zip(self.points, self.masks))

    def holds_all(self, pt: dict[str, Value], idx: Iterable[int]) -> bool:
        """Every guard of ``idx`` holds at ``pt`` (original terms)."""
        return all(t is None or self._holds(t, pt) for j in idx for t in (self.originals[j],))

    def refuting(self, i: int, kept_mask: int) -> dict[str, Value] | None:
        """A point where guard ``i`` fails and every other kept guard holds (verified)."""
        bit = 1 << i
        for pt, m in zip(self.points, self.masks):
            if m & kept_mask == bit and self.verify(pt, i, kept_mask):
                return pt
        return None

    def verify(self, pt: dict[str, Value], i: int, kept_mask: int | None) -> bool:
        """On the original terms: ``i`` fails at ``pt`` and every kept guard but ``i`` holds."""
        g = self.originals[i]
        if g is None or self._holds(g, pt):
            return False
        if kept_mask is None:
            return True
        return all(t is None or self._holds(t, pt) for j in _bits(kept_mask) if j != i
                   for t in (self.originals[j],))

    def _holds(self, t: Term, pt: dict[str, Value]) -> bool:
        """``pyeval.holds`` with each term's DAG order kept: verification evaluates the same
        original guards at many points, and walking the DAG again each time cost as much as
        evaluating it."""
        return bool(self._value(t, pt))  # undefined (None): the guard cannot pass (pyeval.holds)


def _compile(order: Sequence[Term], terms: Sequence[Term | None], names: list[str]) -> Any:
    """One Python function computing every guard's failure bit at a point, sharing subterms.

    Generated from the IR only: the source holds generated identifiers (``t12``), integer
    literals printed by ``int.__repr__`` and positional reads of the point (``e[3]``) — no user
    text — so compiling it runs nothing a client wrote. It computes every node (``//`` and ``%``
    are Python's) and raises ZeroDivisionError where any node divides by zero, even in an ITE
    branch not taken; the caller then falls back to node-by-node evaluation (``pyeval.step``,
    which is lazy where Python is).
    """
    if not order or len(order) > 50_000:
        return None
    pos = {n: i for i, n in enumerate(names)}
    idx = {id(n): k for k, n in enumerate(order)}
    lines = ["def f(e):"]
    for k, n in enumerate(order):
        a = [f"t{idx[id(x)]}" for x in n.args]
        kind = n.kind
        if kind == ir.CONST:
            ex = repr(int(n.value))
        elif kind == ir.BCONST:
            ex = "True" if n.value else "False"
        elif kind in (ir.SYM, ir.BSYM):
            if n.value not in pos:
                return None
            ex = f"e[{pos[n.value]}]"
        elif kind in _INFIX:
            ex = _INFIX[kind].join(a)
        elif kind in _CALL:
            ex = f"{_CALL[kind]}(({', '.join(a)},))"
        elif kind in (ir.EDIV, ir.EMOD, ir.ISQRT, ir.BITFLOOR):
            ex = f"{kind}({', '.join(a)})"
        elif kind == ir.ITE:
            ex = f"({a[1]} if {a[0]} else {a[2]})"
        elif kind == ir.LE:
            ex = f"{a[0]} <= 0"
        elif kind == ir.EQ:
            ex = f"{a[0]} == 0"
        elif kind == ir.NOT:
            ex = f"not {a[0]}"
        elif kind == ir.IFF:
            ex = f"bool({a[0]}) == bool({a[1]})"
        else:
            return None
        lines.append(f"    t{k} = {ex}")
    lines.append("    m = 0")
    for i, t in enumerate(terms):
        if t is not None:
            lines.append(f"    if not t{idx[id(t)]}: m |= {1 << i}")
    lines.append("    return m")
    ns: dict[str, Any] = {"__builtins__": {}, "max": max, "min": min, "all": all, "any": any, "bool": bool,
                          ir.EDIV: _ediv, ir.EMOD: _emod, ir.ISQRT: _isqrt,
                          ir.BITFLOOR: _bitfloor}
    exec(compile("\n".join(lines), "<guards>", "exec"), ns)  # noqa: S102 - generated from IR, see docstring
    return ns["f"]


_INFIX = {ir.ADD: " + ", ir.MUL: " * ", ir.FLOORDIV: " // ", ir.MOD: " % "}
_CALL = {ir.MAX: "max", ir.MIN: "min", ir.AND: "all", ir.OR: "any"}


def _ediv(x: int, y: int) -> int:
    if y == 0:
        raise ZeroDivisionError
    return x // abs(y) * (1 if y > 0 else -1)


def _emod(x: int, y: int) -> int:
    return x - y * _ediv(x, y)


def _isqrt(x: int) -> int:
    if x < 0:  # undefined (Python's math.sqrt raises), as a zero divisor
        raise ZeroDivisionError
    return math.isqrt(x)


def _bitfloor(x: int) -> int:
    if x < 1:  # undefined (Python's math.log2 raises), as a zero divisor
        raise ZeroDivisionError
    return ir.bit_floor(x)


def _bits(mask: int) -> Iterable[int]:
    i = 0
    while mask:
        if mask & 1:
            yield i
        mask >>= 1
        i += 1


def _definitions(problem: Problem) -> list[tuple[str, int, Term]]:
    """``(x, c, t)`` per integer symbol ``x`` without a hint that an assert, else a guard, states
    as ``c*x + t == 0`` with ``x`` not in ``t`` (the first such entry that closes no cycle through
    the definitions before it), ordered so that a definition comes after those its ``t`` reads."""
    hintless = {s.name for s in problem.symbols if not s.is_bool and s.hint is None}
    found: dict[str, tuple[int, Term, frozenset[str]]] = {}

    def reads(x: str) -> set[str]:
        """The hintless symbols ``x``'s value depends on, transitively (``x`` when undefined)."""
        out, todo = set(), [x]
        while todo:
            y = todo.pop()
            if y not in out:
                out.add(y)
                todo += found[y][2] if y in found else ()
        return out

    for c in [*problem.asserts, *problem.guards]:
        t = c.term
        if t is None or t.kind != ir.EQ or not hintless:
            continue
        coefs, k = ir.linear(t.args[0])
        for m, a in sorted(coefs.items(), key=lambda mc: mc[0].skey):
            if m.kind != ir.SYM or m.value not in hintless or m.value in found:
                continue
            rest = {n: b for n, b in coefs.items() if n is not m}
            used = frozenset().union(*(ir.symbols_of(n) for n in rest)) & hintless
            if any(m.value in reads(y) for y in used):  # ``x`` in ``t``, or a cycle
                continue
            found[m.value] = (a, ir.from_linear(rest, k), used)
            break
    out: list[tuple[str, int, Term]] = []
    done: set[str] = set()
    while len(done) < len(found):  # each round places the definitions whose inputs are placed
        ready = [x for x in sorted(found) if x not in done and found[x][2] & set(found) <= done]
        if not ready:  # (never: ``found`` has no cycle)
            break
        for x in ready:
            out.append((x, found[x][0], found[x][1]))
            done.add(x)
    return out


def _base(lo: int | None, hi: int | None, hint: int | None) -> int:
    if hint is not None and (lo is None or hint >= lo) and (hi is None or hint <= hi):
        return hint
    if lo is not None:
        return lo
    return 0 if hi is None or hi >= 0 else hi


def _spread(vals: list[int], n: int) -> list[int]:
    """At most ``n`` of ``vals``, spread over the list (deterministic)."""
    if len(vals) <= n:
        return vals
    step = len(vals) / n
    return [vals[int(k * step)] for k in range(n)]


def _targets(lo: int | None, hi: int | None, b: int) -> list[int]:
    """Values that break size guards: the low end, neighbours of the hint (every residue mod 4),
    multiples and large sizes."""
    vals = {b + d for d in (-3, -2, -1, 1, 2, 3)} | {2 * b, 2 * b + 1, 3 * b + 1, 4 * b, 16 * b + 5, 256 * b + 7}
    if lo is not None:
        vals |= {lo + d for d in range(6)}
    else:
        vals |= {-b, 0, 1, -1}
    return sorted(v for v in vals if (lo is None or v >= lo) and (hi is None or v <= hi) and v != b)


def _moves(lo: int | None, hi: int | None, b: int) -> list[int]:
    vals = {b + d for d in (-16, -8, -5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 8, 16)}
    vals |= {2 * b, b // 2, 4 * b, b * b if abs(b) < 10_000 else b + 64}
    if lo is not None:
        vals |= {lo + d for d in range(9)}
    else:
        vals |= set(range(-4, 9))
    return sorted(v for v in vals if (lo is None or v >= lo) and (hi is None or v <= hi) and v != b)
