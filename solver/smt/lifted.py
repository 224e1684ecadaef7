"""Implications between ``Max``/``Min`` nests posed for z3 with the extremes lifted out.

The checker hands z3 a ``Max(a, b)`` as ``ite(b > a, b, a)``: a nest of depth 3 over three
arguments each is a tower of term-level ``ite`` inside the arithmetic, which z3's default
incremental solver (no preprocessing) searches slowly — on the nested Max/Min class a
redundancy check of 40 guards over 2–4 sizes needs 1.5–10 M resource units (``lift`` below:
0.05–3 M). Here every ``Max``/``Min`` node is one fresh integer ``m`` with its definition as
constraints, exact at every integer point:

    m = Max(a_1, …, a_n)   <=>   m >= a_1  and … and  m >= a_n  and  (m == a_1 or … or m == a_n)

(``Min`` with ``<=``); ``u // k`` and ``Mod(u, k)`` for a literal ``k > 0`` are one quotient
``q`` and remainder ``r`` with ``u == k*q + r``, ``0 <= r < k``; a division by a term keeps the
exact case split of ``smt.encode``. The problem is then solved by a non-incremental tactic
solver (``simplify``, ``propagate-ineqs``, ``smt``): bounds propagated over the lifted
variables decide most of it before any search.

``Lifted.decide`` asks whether the facts imply the goal. The facts join lazily (as in
``reason.regions``): the negated goal with the ranges first, then the facts a model violates
(evaluated in Python on the original terms), until unsat — implied, by the facts joined, a
sound proof since every constraint is exact and only facts were added — or a model that
meets every fact, a candidate counterexample the caller verifies. Work is z3's resource units,
at most ``limit`` per question and the pass's ``total`` across them: the same on every machine.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import z3

from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import value
from symguard.solver.ir.terms import Term
from symguard.solver.smt.checker import (
    CHECK_COST,
    FORMULA_COST,
    SCOPED_COST,
    Deadline,
    OutOfTime,
    Z3Failed,
    _rlimit_count,
)

JOIN = 8  # facts a model's violations add per round
TACTICS = ("simplify", "propagate-ineqs", "smt")


class _Unsupported(Exception):
    pass


class Lifted:
    """One pass's encoder: z3 terms of IR nodes in the operation's context, each node's
    definitions (extremes, quotients) kept beside it, and the pass's units left."""

    def __init__(self, deadline: Deadline, ranges: Mapping[str, tuple[int | None, int | None]],
                 total: int) -> None:
        self.deadline = deadline
        self.ctx = deadline.ctx
        self.ranges = dict(ranges)
        self.left = total
        self.units = 0  # what this pass's checks used
        self.checks = 0
        self._memo: dict[Term, z3.ExprRef] = {}
        self._defs: dict[Term, list[z3.BoolRef]] = {}  # node -> its own definition constraints
        self._pairs: dict[tuple[bool, Term, Term], tuple[z3.ArithRef, z3.ArithRef, list[z3.BoolRef]]] = {}
        self._vars: dict[str, z3.ArithRef] = {}

    def close(self) -> None:
        """Release this pass's z3 terms now (see ``Checker.close``: z3 reuses a freed term's id,
        and ids steer its search; the next pass shares the context)."""
        self._memo.clear()
        self._defs.clear()
        self._pairs.clear()
        self._vars.clear()

    # -------------------------------------------------------------- encoding
    def _var(self, name: str) -> z3.ArithRef:
        v = self._vars.get(name)
        if v is None:
            v = self._vars[name] = z3.Int(name, self.ctx)
        return v

    def encode(self, t: Term) -> tuple[z3.BoolRef, list[z3.BoolRef]]:
        """``t`` in z3 and the definitions of every lifted node under it."""
        nodes = ir.iter_dag(t)
        for n in nodes:
            if n not in self._memo:
                self._memo[n] = self._one(n, [self._memo[a] for a in n.args])
        defs = [d for n in nodes for d in self._defs.get(n, ())]
        return self._memo[t], defs  # type: ignore[return-value]

    def _one(self, n: Term, a: list[z3.ExprRef]) -> z3.ExprRef:
        k, c = n.kind, self.ctx
        if k == ir.CONST:
            return z3.IntVal(n.value, c)
        if k == ir.SYM:
            return self._var(n.value)
        if k == ir.BCONST:
            return z3.BoolVal(n.value, c)
        if k == ir.ADD:
            return z3.Sum(a)  # type: ignore[arg-type]
        if k == ir.MUL:
            return z3.Product(a)  # type: ignore[arg-type]
        if k in ir.DIV_KINDS:
            return self._div(n, a)
        if k in (ir.MAX, ir.MIN):
            m = z3.Int(f".m{len(self._memo)}", c)
            self._defs[n] = [(m >= x) if k == ir.MAX else (m <= x) for x in a] + [z3.Or([m == x for x in a])]
            return m
        if k == ir.ITE:
            return z3.If(a[0], a[1], a[2])
        if k == ir.LE:
            return a[0] <= 0
        if k == ir.EQ:
            return a[0] == 0
        if k == ir.NOT:
            return z3.Not(a[0])
        if k == ir.AND:
            return z3.And(a)
        if k == ir.OR:
            return z3.Or(a)
        if k == ir.IFF:
            return a[0] == a[1]
        raise _Unsupported(k)  # a kind this encoder does not know (Boolean symbols, new ops)

    def _div(self, n: Term, a: list[z3.ExprRef]) -> z3.ExprRef:
        """Quotient or remainder of ``n``, shared by ``u // b`` and ``Mod(u, b)`` (the encoding of
        ``smt.encode``: Python's floor semantics, Euclid's for ``EDIV``/``EMOD``)."""
        floor = n.kind in (ir.FLOORDIV, ir.MOD)
        key = (floor, n.args[0], n.args[1])
        got = self._pairs.get(key)
        if got is None:
            i = len(self._pairs)
            q, r = z3.Int(f".q{i}", self.ctx), z3.Int(f".r{i}", self.ctx)
            u, b = a[0], a[1]
            tb = n.args[1]
            if tb.kind == ir.CONST:
                bv = tb.value
                if bv == 0:  # never defined: the enclosing formula already requires b != 0
                    defs: list[z3.BoolRef] = []
                elif floor and bv < 0:
                    defs = [u == bv * q + r, bv < r, r <= 0]
                else:
                    defs = [u == bv * q + r, r >= 0, r < abs(bv)]
            else:
                pos = z3.Implies(b > 0, z3.And(r >= 0, r < b))
                neg = z3.Implies(b < 0, z3.And(b < r, r <= 0) if floor else z3.And(r >= 0, r < -b))
                defs = [z3.Implies(b != 0, z3.And(u == b * q + r, pos, neg))]
            got = self._pairs[key] = (q, r, defs)
        q, r, defs = got
        self._defs[n] = defs
        return q if n.kind in (ir.FLOORDIV, ir.EDIV) else r

    # -------------------------------------------------------------- deciding
    def decide(self, goal: Term, facts: Sequence[tuple[Term, int]], base: Mapping[str, int], limit: int,
               accept: Callable[[dict[str, int]], bool]) -> tuple[bool, set[int] | dict[str, int]] | None:
        """Do the ``facts`` (``(term, source)``; source -1: no name) imply ``goal`` within the
        ranges? ``(False, sources)``: implied, by the facts joined; ``(True, point)``: a point
        (``base`` for the symbols z3 did not fix) every fact holds at and ``goal`` fails at,
        accepted by ``accept``; None: undecided (units, or a model Python disagrees with)."""
        budget = min(limit, self.left)
        if budget <= SCOPED_COST:
            return None
        spent = [SCOPED_COST]
        try:
            return self._search(goal, facts, base, budget, accept, spent)
        except _Unsupported:
            return None
        finally:
            self.left -= spent[0]

    def _search(self, goal: Term, facts: Sequence[tuple[Term, int]], base: Mapping[str, int], budget: int,
                accept: Callable[[dict[str, int]], bool], spent: list[int]) -> tuple[bool, set[int] | dict[str, int]] | None:
        s = z3.Then(*TACTICS, ctx=self.ctx).solver()
        neg, defs = self.encode(ir.mk_not(goal))
        parts = [neg, *defs]
        fresh = set(ir.symbols_of(goal))
        seen: set[str] = set()  # symbols the solver constrains (the others keep their ``base`` value)
        joined: set[int] = set()
        pending = list(range(len(facts)))
        while True:
            for x in sorted(fresh - seen):
                lo, hi = self.ranges.get(x, (None, None))
                v = self._var(x)
                parts += ([v >= lo] if lo is not None else []) + ([v <= hi] if hi is not None else [])
            seen |= fresh
            s.add(*parts)
            spent[0] += FORMULA_COST * len(parts) + CHECK_COST
            grant = budget - spent[0]
            if grant <= 0:
                return None
            r, used = self._check(s, grant)
            spent[0] += used
            if r == z3.unsat:
                return False, {j for j in joined if j >= 0}
            if r != z3.sat:
                return None
            model = s.model()
            pt = {**base, **{x: model.eval(self._vars[x], model_completion=True).as_long()  # type: ignore[attr-defined]
                             for x in seen}}
            bad = [k for k in pending if value(facts[k][0], pt) is not True][:JOIN]
            if not bad:
                return (True, pt) if value(goal, pt) is False and accept(pt) else None
            parts, fresh = [], set()
            for k in bad:
                t, j = facts[k]
                f, fdefs = self.encode(t)
                parts += [f, *fdefs]
                fresh |= ir.symbols_of(t)
                joined.add(j)
            pending = [k for k in pending if k not in bad]

    def _check(self, s: z3.Solver, grant: int) -> tuple[z3.CheckSatResult, int]:
        """One check under ``grant`` units and the operation's outer limit (``OutOfTime``)."""
        self.deadline.ensure_time()
        wall = self.deadline.wall_left_ms()
        if wall <= 0:
            raise OutOfTime
        s.set("rlimit", grant)
        s.set("timeout", wall)
        before = _rlimit_count(s)  # the context's counter: it runs on across solvers
        try:
            r = s.check()
        except z3.Z3Exception as e:
            if self.deadline.out_of_time:
                raise OutOfTime from None
            raise Z3Failed("incomplete") from e
        used = _rlimit_count(s) - before
        self.units += used
        self.checks += 1
        if r == z3.unknown:
            low = s.reason_unknown().lower()
            if used < grant and "resource limit" not in low and (self.deadline.out_of_time or "cancel" in low
                                                                  or "timeout" in low):
                raise OutOfTime  # the hang guard or an interrupt, not the units: load-dependent
        return r, used
