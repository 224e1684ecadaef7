"""One side of a comparison as a polynomial per residue class of its symbols (``_Expr``).

The side is walked down to its one-symbol chains (``quasilinear``: ``a*q + b`` on the class
``x = L*q + r``); sums, products, exact divisions and dominated ``Max``/``Min`` of them are
polynomials in the quotients (``multivariate_poly``), built once per class and remembered, on the
class's range box first and on a box the facts narrowed when that one leaves it open.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol

from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term
from symguard.solver.reason import quasilinear
from symguard.solver.reason.multivariate_poly import Box, Poly, _add, _mul, _Open, _unit

MAX_PERIOD = 1024  # per symbol


class _Extremes(Protocol):
    """What an ``_Expr`` needs of ``multivariate.Memo``: a ``Max``/``Min`` resolved on a box."""

    def extreme(self, kind: str, args: Sequence[Poly], box: Box) -> Poly: ...

    def divide(self, kind: str, u: Poly, v: Poly, box: Box | None) -> Poly: ...


class _Expr:
    """One side ``e`` of a comparison over the symbols ``syms``: its nodes down to its one-symbol
    chains, and per symbol the period of its own chains (classes are taken modulo these, and a
    walk with a longer period maps onto them: ``L*q + r == P*q' + r'`` with
    ``q' = (L/P)*q + r//P``)."""

    def __init__(self, e: Term, syms: tuple[str, ...], memo: _Extremes) -> None:
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
        self.boxes: dict[tuple[int, ...], Box] = {}  # own classes -> ``own_box``
        self.owns: dict[tuple[int, ...], tuple[tuple[int, ...], tuple[int, ...]]] = {}  # walk classes -> ``_Walk._own``

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
        """The box of the own quotients on the own classes ``r`` (remembered: one ``ranges`` per
        expression, as ``poly`` assumes; a walk asks it for every cell)."""
        got = self.boxes.get(r)
        if got is None:
            got = self.boxes[r] = self._own_box(r, ranges)
        return got

    def _own_box(self, r: tuple[int, ...], ranges: Box) -> Box:
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
                    lin: Poly = {_unit(self.n, var): a} if a else {}
                    if b:
                        lin[zero] = b
                    val[n] = lin
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
                    val[n] = self.memo.divide(k, args[0], args[1], box)
            out: Poly | None = val[self.plan[-1]]
        except _Open:
            out = None
        return out

