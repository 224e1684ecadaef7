"""The plain z3 script a user could write instead of symguard: our overhead is measured against it.

It reads the problem with symguard's own parser (the only part reused: a user needs *some*
parser, and this keeps the semantics identical), then talks to z3's Python API directly — no
pysmt, no canonicalization, no interval pre-pass, no Python re-checks of models, no cache:

- ``solve``: ranges ∧ asserts ∧ guards (∧ divisor ≠ 0), one ``check()``;
- ``redundancy``: the textbook loop on one solver with assumption literals: a guard is
  always-true when ``A ∧ ¬g`` is unsat; then greedy deletion (last guard first):
  drop ``g`` when ``A ∧ (K − g) ∧ ¬g`` is unsat;
- ``shrink``: ``z3.Optimize`` minimizing the sum of the symbols (no ``preserve_distinct``).

Floor division and modulus get the same exact encoding as ``solver/smt/encode.py`` (one
quotient/remainder pair per division), written straight in z3 terms.
"""

from __future__ import annotations

import time
from typing import Any

import z3

from symguard.solver.ir import terms as ir
from symguard.solver.ir.problem import Problem
from symguard.solver.ir.terms import Term
from symguard.solver.syntax.document import load_problem


class Z3Problem:
    """One problem in z3 terms: symbols, range constraints, assert/guard formulas, definitions."""

    def __init__(self, p: Problem, ctx: z3.Context | None = None) -> None:
        self.ctx = ctx or z3.Context()
        self.p = p
        self.vars: dict[str, Any] = {}
        self.defs: list[Any] = []
        self._memo: dict[Term, Any] = {}
        self._pairs: dict[tuple[bool, Term, Term], tuple[Any, Any]] = {}
        self.ranges = []
        for s in p.symbols:
            v = self.var(s.name, s.is_bool)
            if s.is_bool:
                continue
            if s.lo is not None:
                self.ranges.append(v >= s.lo)
            if s.hi is not None:
                self.ranges.append(v <= s.hi)
        self.asserts = [self.term(c.term) for c in p.asserts if c.term is not None]
        self.guards = [self.term(c.term) if c.term is not None else None for c in p.guards]

    def var(self, name: str, is_bool: bool = False) -> Any:
        if name not in self.vars:
            self.vars[name] = z3.Bool(name, self.ctx) if is_bool else z3.Int(name, self.ctx)
        return self.vars[name]

    def term(self, t: Term) -> Any:
        for n in ir.iter_dag(t):
            if n not in self._memo:
                self._memo[n] = self._one(n, [self._memo[a] for a in n.args])
        return self._memo[t]

    def _one(self, n: Term, a: list[Any]) -> Any:
        k, c = n.kind, self.ctx
        if k == ir.CONST:
            return z3.IntVal(n.value, c)
        if k in (ir.SYM, ir.BSYM):
            return self.var(n.value, k == ir.BSYM)
        if k == ir.BCONST:
            return z3.BoolVal(n.value, c)
        if k == ir.ADD:
            return z3.Sum(a)
        if k == ir.MUL:
            return z3.Product(a)
        if k in ir.DIV_KINDS:
            q, r = self._pair(k in (ir.FLOORDIV, ir.MOD), n.args[0], n.args[1], a[0], a[1])
            return q if k in (ir.FLOORDIV, ir.EDIV) else r
        if k in (ir.MAX, ir.MIN):
            acc = a[0]
            for x in a[1:]:
                acc = z3.If(x > acc if k == ir.MAX else x < acc, x, acc)
            return acc
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
        raise AssertionError(k)

    def _pair(self, floor: bool, ta: Term, tb: Term, a: Any, b: Any) -> tuple[Any, Any]:
        key = (floor, ta, tb)
        if key not in self._pairs:
            i = len(self._pairs)
            q, r = z3.Int(f"q!{i}", self.ctx), z3.Int(f"r!{i}", self.ctx)
            pos = z3.Implies(b > 0, z3.And(0 <= r, r < b))
            neg = z3.Implies(b < 0, z3.And(b < r, r <= 0)) if floor else z3.Implies(b < 0, z3.And(0 <= r, r < -b))
            self.defs.append(z3.Implies(b != 0, z3.And(a == b * q + r, pos, neg)))
            self._pairs[key] = (q, r)
        return self._pairs[key]

    def background(self) -> list[Any]:
        """Ranges, asserts and division definitions: the facts every check starts from."""
        return [*self.ranges, *self.asserts, *self.defs]


def _solver(zp: Z3Problem, timeout_ms: int) -> z3.Solver:
    s = z3.Solver(ctx=zp.ctx)
    s.set("timeout", timeout_ms)
    s.add(zp.background())
    return s


def plain_solve(doc: dict[str, Any], timeout_ms: int = 2000) -> dict[str, Any]:
    p = load_problem(doc)
    zp = Z3Problem(p)
    s = _solver(zp, timeout_ms)
    s.add([g for g in zp.guards if g is not None])
    r = s.check()
    return {"status": str(r)}


def plain_redundancy(doc: dict[str, Any], timeout_ms: int = 2000) -> dict[str, Any]:
    """Counts of always-true and redundant guards, and the kept set, by the textbook loop."""
    p = load_problem(doc)
    zp = Z3Problem(p)
    deadline = time.monotonic() + timeout_ms / 1000
    s = _solver(zp, timeout_ms)
    sel, neg = [], []
    for i, g in enumerate(zp.guards):
        b, nb = z3.Bool(f"sel!{i}", zp.ctx), z3.Bool(f"neg!{i}", zp.ctx)
        if g is not None:
            s.add(z3.Implies(b, g), z3.Implies(nb, z3.Not(g)))
        sel.append(b)
        neg.append(nb)

    def unsat(assumptions: list[Any]) -> bool:
        left = int((deadline - time.monotonic()) * 1000)
        if left <= 0:
            return False
        s.set("timeout", max(1, left))
        return s.check(assumptions) == z3.unsat

    n = len(zp.guards)
    if unsat(sel):
        return {"status": "unsat", "always_true": 0, "redundant": 0, "kept": n}
    always = [zp.guards[i] is not None and unsat([neg[i]]) for i in range(n)]
    kept = [i for i in range(n) if not always[i] and zp.guards[i] is not None]
    for i in reversed(list(kept)):
        rest = [sel[j] for j in kept if j != i]
        if unsat([*rest, neg[i]]):
            kept.remove(i)
    skipped = sum(1 for g in zp.guards if g is None)
    return {"status": "sat", "always_true": sum(always), "redundant": n - sum(always) - len(kept) - skipped,
            "kept": len(kept) + skipped}


def plain_shrink(doc: dict[str, Any], timeout_ms: int = 2000) -> dict[str, Any]:
    """``z3.Optimize`` on the same objective (sum or max of |s|) and the same ``preserve_distinct``."""
    p = load_problem(doc)
    zp = Z3Problem(p)
    if p.options.objective == "lex":
        return {"status": "n/a (lex)"}
    o = z3.Optimize(ctx=zp.ctx)
    o.set("timeout", timeout_ms)
    o.add(zp.background())
    o.add([g for g in zp.guards if g is not None])
    syms = [s for s in p.symbols if not s.is_bool]
    if p.preserve_distinct:
        for i, a in enumerate(syms):
            for b in syms[i + 1:]:
                if a.hint is not None and b.hint is not None and a.hint != b.hint:
                    o.add(zp.var(a.name) != zp.var(b.name))
    absv = [z3.If(zp.var(s.name) >= 0, zp.var(s.name), -zp.var(s.name)) for s in syms]
    if not absv:
        obj = z3.IntVal(0, zp.ctx)
    elif p.options.objective == "max":
        obj = z3.Int("obj!max", zp.ctx)
        o.add([obj >= a for a in absv])
    else:
        obj = z3.Sum(absv)
    o.minimize(obj)
    r = o.check()
    if r != z3.sat:
        return {"status": str(r)}
    m = o.model()
    vals = {s.name: m.eval(zp.var(s.name), model_completion=True).as_long() for s in syms}
    value = max(map(abs, vals.values()), default=0) if p.options.objective == "max" else \
        sum(abs(v) for v in vals.values())
    return {"status": "sat", "objective_value": value, "model": vals}
