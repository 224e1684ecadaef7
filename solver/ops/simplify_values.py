"""Sample points of the context as value vectors: each interned term's values at every point.

A vector is computed once per request from its children's vectors, one column operation per
kind (``_COLUMN``), strict like ``pyeval`` (a zero divisor below makes a value None). A constant
guess, a refutation and a fingerprint are then lookups, not tree walks per point; points found
later (counterexamples) are appended, and a vector is extended from where it stopped.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import Value, _one
from symguard.solver.reason import rewrite

MAX_POINTS = 96  # sample points plus the counterexamples found later
HEAD_POINTS = 8  # points a question about sample points looks at before the others (``_Oracle``)
Model = dict[str, Value]


class _Values:
    """Each term's values at the sample points (None where a divisor is zero), one vector per
    interned term, computed once from its children's vectors (strict, as ``pyeval``).

    Points found later (counterexamples) are appended with ``add``; a vector shorter than the
    point list is extended on its next use, so every point ever found refutes every later
    condition at the cost of a lookup."""

    def __init__(self, points: list[Model]) -> None:
        self.points = points
        self.memo: dict[ir.Term, list[Value | None]] = {}

    def add(self, pt: Model) -> None:
        if len(self.points) < MAX_POINTS:
            self.points.append(pt)

    def of(self, t: ir.Term) -> list[Value | None]:
        """``t``'s values at every point."""
        return self.head(t, len(self.points))

    def head(self, t: ir.Term, k: int) -> list[Value | None]:
        """``t``'s values at the first ``k`` points at least (the vector may be longer): a question
        the first points already answer (two values differ, a condition is false at one) does
        not pay for the other points. The rest is computed on a later ``of``, from where it stopped."""
        memo = self.memo
        size = min(k, len(self.points))
        hit = memo.get(t)
        if hit is not None and len(hit) >= size:
            return hit
        for x in t.args:  # children known (most calls): no walk
            got = memo.get(x)
            if got is None or len(got) < size:
                break
        else:
            if hit is None:
                hit = memo[t] = []
            self._extend(t, hit, size)
            return hit
        if t.size <= rewrite.WALK_BY_CALLS:
            self._down(t, size)
            return memo[t]
        stack: list[tuple[ir.Term, bool]] = [(t, False)]
        while stack:
            n, ready = stack.pop()
            have = memo.get(n)
            if have is not None and len(have) >= size:
                continue
            if ready:
                self._extend(n, have if have is not None else memo.setdefault(n, []), size)
                continue
            stack.append((n, True))
            stack.extend((x, False) for x in n.args)
        return memo[t]

    def _down(self, n: ir.Term, size: int) -> None:
        """``head``'s walk by recursion, for a small term."""
        memo = self.memo
        for x in n.args:
            have = memo.get(x)
            if have is None or len(have) < size:
                self._down(x, size)
        have = memo.get(n)
        self._extend(n, have if have is not None else memo.setdefault(n, []), size)

    def _extend(self, n: ir.Term, out: list[Value | None], size: int) -> None:
        k = n.kind
        start = len(out)
        if k in (ir.CONST, ir.BCONST):
            out.extend([n.value] * (size - start))
            return
        if k in (ir.SYM, ir.BSYM):
            name = n.value
            out += [pt[name] for pt in self.points[start:size]]
            return
        cols = [self.memo[x][start:size] for x in n.args]
        op = _COLUMN.get(k)
        if op is not None:
            out.extend(op(cols))
            return
        for vals in zip(*cols):
            if None in vals:
                out.append(None)
                continue
            try:
                out.append(_one(n, list(vals), {}))
            except ZeroDivisionError:
                out.append(None)


def _sum(cols: list[list[Any]]) -> list[Any]:
    if len(cols) == 2:  # (most sums: a term and a constant, two terms)
        return [None if a is None or b is None else a + b for a, b in zip(*cols)]
    return [None if None in vs else sum(vs) for vs in zip(*cols)]


def _prod(cols: list[list[Any]]) -> list[Any]:
    if len(cols) == 2:
        return [None if a is None or b is None else a * b for a, b in zip(*cols)]
    return [None if None in vs else math.prod(vs) for vs in zip(*cols)]


def _floordiv(cols: list[list[Any]]) -> list[Any]:
    return [None if a is None or not b else a // b for a, b in zip(*cols)]


def _mod(cols: list[list[Any]]) -> list[Any]:
    return [None if a is None or not b else a % b for a, b in zip(*cols)]


def _max(cols: list[list[Any]]) -> list[Any]:
    return [None if None in vs else max(vs) for vs in zip(*cols)]


def _min(cols: list[list[Any]]) -> list[Any]:
    return [None if None in vs else min(vs) for vs in zip(*cols)]


def _le(cols: list[list[Any]]) -> list[Any]:
    return [None if a is None else a <= 0 for a in cols[0]]


def _eq(cols: list[list[Any]]) -> list[Any]:
    return [None if a is None else a == 0 for a in cols[0]]


def _not(cols: list[list[Any]]) -> list[Any]:
    return [None if a is None else not a for a in cols[0]]


def _and(cols: list[list[Any]]) -> list[Any]:
    return [None if None in vs else all(vs) for vs in zip(*cols)]


def _or(cols: list[list[Any]]) -> list[Any]:
    return [None if None in vs else any(vs) for vs in zip(*cols)]


# one column operation per kind: the values at every point at once (strict like ``pyeval``: a
# None — a zero divisor below — makes the node None; ``b == 0`` here is that zero divisor)
_COLUMN: dict[str, Callable[[list[list[Any]]], list[Any]]] = {
    ir.ADD: _sum, ir.MUL: _prod, ir.FLOORDIV: _floordiv, ir.MOD: _mod, ir.MAX: _max, ir.MIN: _min,
    ir.LE: _le, ir.EQ: _eq, ir.NOT: _not, ir.AND: _and, ir.OR: _or,
}

