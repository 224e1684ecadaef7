"""docs/problem-format.md §2 ``simplify``: the canonical form of each expression under the context.

The context is the ranges, the asserts and the guards: every form is equal to its expression at
every point of the context where the expression is defined (its divisors non-zero). Per
expression:

1. ``reason.simplify_rules.Simplifier`` rewrites it: exact rules by construction, and rules with
   a side condition that ``_Oracle.holds`` proves — facts first, then a pool of points of the
   context that may refute the condition with Python integers, then z3 (one incremental session
   for the whole problem, the expression's domain as an assumption literal).
2. The cheaper of the rewritten form and the input's own printing is kept (cost: divisions first,
   then operations), printed in PyTorch's sympy syntax (``syntax.sympy_writer``).
3. **Verified before it leaves**. The form is proven by construction: each step is an identity
   or has its side condition proven. It is checked again, independently: evaluated against the
   input at every pool point (Python integers) and handed to z3 as
   ``context ∧ domain ∧ ¬(form == input ∧ form defined)``, which must not be sat; a point or a
   z3 model where they differ is an ``InternalError`` (a bug, never a wrong answer). z3's
   ``unknown`` on that re-check (non-linear identities such as ``Mod(Mod(x, 4*N), N) = Mod(x, N)``
   are beyond its arithmetic) leaves the proof by construction standing. When time runs out
   before an expression is done, it comes back unchanged with ``proved: false``.
4. **Equal expressions, one form**: expressions whose values agree at every pool point are
   candidates; each is proven equal (z3) to the cheapest of its candidates, whose form it then
   takes — so a compiler can CSE them. The choice is by (cost, text): independent of input order.

Forms are computed on the canonical problem (symbols ``v0, v1, …``, expressions sorted), so they
do not depend on the order of the input or on the symbols' names; ``map_back`` renames them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from solver.errors import InternalError
from solver.ir import terms as ir
from solver.ir.problem import Problem, Query
from solver.ir.pyeval import Value, evaluate, holds
from solver.ops.operation import Back, Operation, Result
from solver.ops.selfcheck import hint_model
from solver.reason import facts, rewrite
from solver.reason import intervals as cheap
from solver.reason.points import Pool
from solver.reason.simplify_rules import Simplifier
from solver.smt.checker import SAT, UNSAT, Deadline
from solver.smt.optimize import Session
from solver.syntax.sympy_writer import cost, to_sympy

POOL_POINTS = 16  # context points sampled up front (hints and moves around them)
CHECK_MS = 250  # budget of one z3 check (a side condition, a CSE proof)
RECHECK_MS = 60  # budget of the independent z3 re-check of a form built by proven steps
MAX_CSE_CLASS = 16  # expressions proven against one representative
Model = dict[str, Value]


def simplify(problem: Problem, deadline: Deadline) -> dict[str, Any]:
    return _Run(problem, deadline).run()


def _key(c: dict[str, int]) -> tuple[int, int]:
    return (c["divs"], c["ops"])


def divisors_defined(t: ir.Term) -> ir.Term:
    """Every divisor of ``t`` is non-zero (the domain of a form)."""
    return ir.mk_and(*(ir.mk_ne(d.args[1], ir.ZERO) for d in ir.divisions_of(t)))


class _Run:
    def __init__(self, problem: Problem, deadline: Deadline) -> None:
        self.p = problem
        self.deadline = deadline
        self._sess: Session | None = None
        ranges = cheap.Facts.from_problem(problem)
        plain = rewrite.Rewriter(rewrite.Env({s.name: (s.lo, s.hi) for s in problem.symbols if not s.is_bool}))
        self.context = [c.term for c in (*problem.asserts, *problem.guards) if c.term is not None]
        env = facts.facts_env(ranges.ranges, [(plain.rewrite(t), None) for t in self.context])
        self.env = env
        self.checks = 0
        self._pool: Pool | None = None

    @property
    def pool(self) -> Pool:
        """Points of the context, sampled on first need (most expressions need none). ``Pool``
        compiles the context into one Python function (its "guards"); points where some of it
        fails are dropped, the rest are the context's points."""
        if self._pool is None:
            pool = Pool(replace(self.p, asserts=(), guards=()), self.context)
            hint = hint_model(self.p)
            if hint is not None:
                pool.add(hint)
            pool.seed_points(POOL_POINTS * 4)
            keep = [pt for pt, m in zip(pool.points, pool.masks) if m == 0][:POOL_POINTS]
            self._pool = Pool(replace(self.p, asserts=(), guards=()), [])
            for pt in keep:
                self._pool.add(pt)
        return self._pool

    def add_point(self, pt: Model) -> None:
        if all(holds(t, pt) for t in self.context):
            self.pool.add(pt)

    @property
    def sess(self) -> Session:
        if self._sess is None:
            self._sess = Session(self.p, self.deadline)
        return self._sess

    def prove(self, cond: ir.Term, domain: ir.Term, budget_ms: int = CHECK_MS) -> bool | None:
        """``context ∧ domain ⇒ cond``: True proven, False refuted (the model joins the pool),
        None undecided."""
        budget = min(budget_ms, self.deadline.remaining_ms())
        if budget <= 0:
            return None
        s = self.sess
        self.checks += 1
        hs = [s.ch.negation(cond)] + ([] if domain is ir.TRUE else [s.ch.selector(domain)])
        out = s.check(hs, budget_ms=budget)
        if out.status == UNSAT:
            return True
        if out.status == SAT:
            self.add_point(dict(out.model))
            return False
        return None

    # -------------------------------------------------------------- the operation
    def run(self) -> dict[str, Any]:
        status = SAT if hint_model(self.p) is not None or self.pool.points else None
        if status is None:
            out = self.sess.check(budget_ms=min(CHECK_MS * 4, self.deadline.remaining_ms()))
            status = out.status
            if out.status == SAT:
                self.add_point(dict(out.model))
        if status == UNSAT:
            return {"status": UNSAT, "exprs": [_row(q, None, False) for q in self.p.exprs],
                    "warnings": ["the asserts and guards are unsatisfiable: every expression is left as it is"]}
        rows: list[dict[str, Any]] = []
        terms: list[ir.Term | None] = []
        for q in self.p.exprs:
            form = self.one(q)
            terms.append(form)
            rows.append(_row(q, None if form is None else to_sympy(form), form is not None))
        self.merge(rows, terms)
        res: dict[str, Any] = {"status": SAT if status == SAT else "unknown", "exprs": rows}
        if status != SAT:
            res["reason"] = "timeout" if self.deadline.expired else "incomplete"
        return res

    def one(self, q: Query) -> ir.Term | None:
        """The proven form of one expression, or None (then it comes back unchanged)."""
        oracle = _Oracle(self, q.domain)
        got = Simplifier(self.env, oracle).simplify(q.term).term
        if _key(cost(to_sympy(got))) > _key(cost(to_sympy(q.term))):
            got = q.term
        if got is q.term:
            return got
        if self.deadline.expired:
            return None
        if not self.agrees(q, got) or self.prove(self.same(q.term, got), q.domain, RECHECK_MS) is False:
            raise InternalError(f"simplify self-check failed: {q.text!r} and its form {to_sympy(got)!r} "
                                "differ at a point of the context; please report this problem")
        return got

    def same(self, a: ir.Term, b: ir.Term) -> ir.Term:
        eq = ir.mk_iff(a, b) if a.is_bool else ir.mk_eq(a, b)
        return ir.mk_and(eq, divisors_defined(b))

    def agrees(self, q: Query, form: ir.Term) -> bool:
        for pt in self.pool.points:
            if holds(q.domain, pt) and _value(q.term, pt) != _value(form, pt):
                return False
        return True

    def merge(self, rows: list[dict[str, Any]], terms: Sequence[ir.Term | None]) -> None:
        """Expressions proven equal under the context take one form: the cheapest (then the
        first by text) of those that agree at every pool point."""
        live = [t for t in terms if t is not None and t.kind not in (ir.CONST, ir.BCONST)]
        if len(set(live)) < 2:
            return
        groups: dict[tuple[Any, ...], list[int]] = {}
        for i, (q, t) in enumerate(zip(self.p.exprs, terms)):
            if t is None or t.kind in (ir.CONST, ir.BCONST):
                continue
            fp = tuple(_value(t, pt) if holds(q.domain, pt) else None for pt in self.pool.points)
            groups.setdefault((t.is_bool, fp), []).append(i)
        for members in groups.values():
            forms = {rows[i]["form"] for i in members}
            if len(forms) < 2:
                continue
            best = min(members, key=lambda i: (_key(rows[i]["cost"]), rows[i]["form"]))
            rep = terms[best]
            assert rep is not None
            for i in members[:MAX_CSE_CLASS]:
                t = terms[i]
                if i == best or rows[i]["form"] == rows[best]["form"] or t is None:
                    continue
                if self.prove(self.same(t, rep), self.p.exprs[i].domain):
                    rows[i]["form"], rows[i]["cost"] = rows[best]["form"], rows[best]["cost"]


class _Oracle:
    """Side conditions for one expression: proven under the context and the expression's domain."""

    def __init__(self, run: _Run, domain: ir.Term) -> None:
        self.run = run
        self.domain = domain
        self.memo: dict[ir.Term, bool] = {}

    def points(self) -> list[Model]:
        return [pt for pt in self.run.pool.points if holds(self.domain, pt)]

    def holds(self, cond: ir.Term) -> bool:
        hit = self.memo.get(cond)
        if hit is None:
            pts = self.points()
            if any(not holds(cond, pt) for pt in pts):
                hit = False
            else:
                hit = self.run.prove(cond, self.domain) is True
            self.memo[cond] = hit
        return hit

    def guess(self, t: ir.Term) -> int | bool | None:
        """The value ``t`` takes at every sampled point, when there are two or more and they agree."""
        pts = self.points()
        if len(pts) < 2:
            return None
        vals = set()
        for pt in pts:
            vals.add(_value(t, pt))
            if len(vals) > 1:
                return None
        v = vals.pop()
        return None if v is None else v


def _value(t: ir.Term, pt: Model) -> Value | None:
    try:
        return evaluate(t, pt)
    except ZeroDivisionError:
        return None


def _row(q: Query, form: str | None, proved: bool) -> dict[str, Any]:
    row: dict[str, Any] = {"id": q.id, "form": form, "proved": proved}
    if form is not None:
        row["cost"] = cost(form)
    return row


# ------------------------------------------------------------------ the operation

def _unknown(problem: Problem) -> dict[str, Any]:
    return {"status": "unknown", "reason": "timeout", "exprs": [_row(q, None, False) for q in problem.exprs]}


def _final(res: dict[str, Any]) -> bool:
    return all(row.get("proved") for row in res.get("exprs", ())) or res.get("status") == UNSAT


_CANON_NAME = re.compile(r"\bv\d+\b")


def _map_back(res: Result, back: Back) -> Result:
    """Rows in the caller's order and ids; forms in the caller's symbol names; an unproven row
    gives the caller's own text back."""
    rows = res["exprs"]
    names = back.canon.names
    syntax = back.problem.syntax
    mapped = []
    for q, j in zip(back.problem.exprs, back.canon.exprs):
        row = dict(rows[j])
        row["id"] = q.id
        before = cost(q.text) if syntax == "sympy" else cost(to_sympy(q.term))
        if row["form"] is None or not row["proved"]:
            row.update(form=q.text, proved=False, cost={"before": before, "after": before})
        else:
            row["form"] = _CANON_NAME.sub(lambda m: names.get(m.group(0), m.group(0)), row["form"])
            row["cost"] = {"before": before, "after": row["cost"]}
        mapped.append(row)
    return {"exprs": mapped, "warnings": list(res.get("warnings", ()))}


def _tally(res: dict[str, Any]) -> list[str]:
    labels = []
    for row in res.get("exprs", ()):
        if not row.get("proved"):
            labels.append("unproved")
        else:
            c = row.get("cost", {})
            labels.append("simplified" if c.get("after") != c.get("before") else "unchanged")
    return labels


OPERATION = Operation("simplify", simplify, _unknown, is_final=_final, map_back=_map_back, tally=_tally)
