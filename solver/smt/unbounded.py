"""Proving that an integer expression is unbounded, where z3's optimizer cannot be trusted.

On linear problems z3's ``Optimize`` decides unboundedness. On non-linear ones (``s0*s1`` guards
are everywhere in PyTorch's output) it may answer "unbounded" without proof, so ``evaluate``
asks for a certificate instead: a feasible point ``m`` and an integer direction ``d`` such that

    for every integer t >= 0:  x(t) = m + t*d satisfies the ranges, asserts, guards and the
                               query's domain, and  e(x(t+1)) > e(x(t))     (for "max")

Then ``e`` takes infinitely many strictly increasing integer values on the problem: unbounded.
The claim is one univariate check (``exists t >= 0`` violating it must be unsat), built by
substituting ``x(t)`` into the IR and handed to a fresh ``Checker`` with the one symbol ``t``.
Directions tried: each symbol of ``e`` alone, all symbols together, and the trend between two
models the search found, each scaled by the lcm of the constant divisors (so floor divisions and
moduli step by whole periods). No certificate found means no claim: the caller says so.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from symguard.solver.ir import terms as ir
from symguard.solver.ir.problem import Options, Problem, Symbol
from symguard.solver.ir.pyeval import Value
from symguard.solver.ir.terms import Term
from symguard.solver.smt.checker import UNSAT, Checker, Deadline

T = "t"
MAX_PERIOD = 10**6


def subst(t: Term, env: Mapping[str, Term]) -> Term:
    """``t`` with symbols replaced by terms, rebuilt through the normalizing constructors."""
    memo: dict[Term, Term] = {}
    for n in ir.iter_dag(t):
        a = [memo[x] for x in n.args]
        memo[n] = _rebuild(n, a, env)
    return memo[t]


_BUILD: dict[str, Callable[..., Term]] = {
    ir.ADD: ir.mk_add, ir.MUL: ir.mk_mul, ir.MAX: ir.mk_max, ir.MIN: ir.mk_min,
    ir.AND: ir.mk_and, ir.OR: ir.mk_or, ir.FLOORDIV: ir.mk_floordiv, ir.MOD: ir.mk_mod,
    ir.EDIV: ir.mk_ediv, ir.EMOD: ir.mk_emod, ir.ITE: ir.mk_ite, ir.ISQRT: ir.mk_isqrt, ir.BITFLOOR: ir.mk_bitfloor, ir.NOT: ir.mk_not,
    ir.IFF: ir.mk_iff,
    ir.LE: lambda e: ir.mk_le(e, ir.ZERO), ir.EQ: lambda e: ir.mk_eq(e, ir.ZERO),
}


def _rebuild(n: Term, a: list[Term], env: Mapping[str, Term]) -> Term:
    if n.kind in (ir.SYM, ir.BSYM):
        return env.get(n.value, n)
    if n.kind in (ir.CONST, ir.BCONST):
        return n
    return _BUILD[n.kind](*a)


def period(terms: Sequence[Term]) -> int:
    """lcm of the constant divisors (1 when there are none), capped."""
    p = 1
    for t in terms:
        for n in ir.iter_dag(t):
            if n.kind in ir.DIV_KINDS and n.args[1].kind == ir.CONST and n.args[1].value != 0:
                p = math.lcm(p, abs(n.args[1].value))
                if p > MAX_PERIOD:
                    return 1
    return p


def unbounded(problem: Problem, query: Term, domain: Term, sense: str, models: Sequence[Mapping[str, Value]],
              deadline: Deadline, budget: int) -> bool:
    """True only with a certificate (see the module docstring) that ``query`` has no ``sense``
    bound. The certificate checks share ``budget`` resource units (``checker.Deadline``)."""
    if not models:
        return False
    ints = [s for s in problem.symbols if not s.is_bool]
    cons = [c.term for c in (*problem.asserts, *problem.guards) if c.term is not None] + [domain]
    step = period([*cons, query])
    m = models[-1]
    in_q = sorted({n.value for n in ir.iter_dag(query) if n.kind == ir.SYM})
    sign = 1 if sense == "max" else -1
    dirs: list[dict[str, int]] = []
    for s in in_q:
        dirs += [{s: step}, {s: -step}]
    dirs.append({s.name: step for s in ints})
    if len(models) >= 2:
        a, b = models[-2], models[-1]
        trend = {s.name: step * _sgn(int(b[s.name]) - int(a[s.name])) for s in ints}
        if any(trend.values()):
            dirs.insert(0, trend)
    seen: list[dict[str, int]] = []
    end = deadline.spent + budget
    for d in dirs:
        d = {k: v for k, v in d.items() if v}
        if d in seen or not _fits_ranges(ints, d):
            continue
        seen.append(d)
        left = min(end - deadline.spent, deadline.remaining())
        if left <= 0:
            return False
        if _certify(problem, cons, query, sign, m, d, deadline, left):
            return True
    return False


def _sgn(x: int) -> int:
    return (x > 0) - (x < 0)


def _fits_ranges(ints: Sequence[Symbol], d: Mapping[str, int]) -> bool:
    """A ray leaves a finite range at some t: only directions that stay inside are worth a check."""
    for s in ints:
        v = d.get(s.name, 0)
        if (v > 0 and s.hi is not None) or (v < 0 and s.lo is not None):
            return False
    return True


def _certify(problem: Problem, cons: Sequence[Term], query: Term, sign: int, m: Mapping[str, Value],
             d: Mapping[str, int], deadline: Deadline, budget: int) -> bool:
    t = ir.mk_sym(T)
    at: list[dict[str, Term]] = []
    for shift in (0, 1):
        tt = ir.mk_add(t, ir.mk_int(shift))
        env: dict[str, Term] = {}
        for s in problem.symbols:
            v = m[s.name]
            if s.is_bool:
                env[s.name] = ir.mk_bool(bool(v))
            else:
                env[s.name] = ir.mk_add(ir.mk_int(int(v)), ir.mk_mul(ir.mk_int(d.get(s.name, 0)), tt))
        at.append(env)
    now, nxt = at
    parts = [subst(c, now) for c in cons]
    for s in problem.symbols:  # the ranges along the ray (directions already stay inside them)
        if not s.is_bool:
            x = now[s.name]
            if s.lo is not None:
                parts.append(ir.mk_le(ir.mk_int(s.lo), x))
            if s.hi is not None:
                parts.append(ir.mk_le(x, ir.mk_int(s.hi)))
    e0, e1 = subst(query, now), subst(query, nxt)
    parts.append(ir.mk_lt(e0, e1) if sign > 0 else ir.mk_lt(e1, e0))
    claim = ir.mk_and(*parts)
    if claim.kind == ir.BCONST:
        return bool(claim.value)
    tp = Problem((Symbol(T, 0, None),), options=Options(timeout_ms=max(1, deadline.budget_ms)))
    ch = Checker(tp, deadline)  # the operation's context and units
    try:
        return ch.check([ch.negation(claim)], budget=budget).status == UNSAT
    finally:
        ch.close()  # the operation goes on in the same context (Checker.close)
