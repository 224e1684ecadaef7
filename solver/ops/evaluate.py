"""docs/problem-format.md §2 ``evaluate``: decide boolean queries and bound integer queries under the problem.

A query is evaluated at the points that satisfy the ranges, the asserts, the guards and the
query's own domain (its divisors are non-zero: ``x // y`` means nothing at ``y = 0``). When the
domain can fail at some point of the problem the row says so (``partial``, turned into a warning
by ``api``); when it holds nowhere the query has no value (``null``).

Boolean query ``q`` (two checks, fewer when earlier models already witness a side):
``A & q`` sat and ``A & ~q`` sat → ``depends`` with both models; only one side sat → ``true`` /
``false``; a side that times out → ``unknown`` unless the other side is unsat (then the answer
holds whatever the unknown side would have said).

Integer query ``e``: ``min``/``max`` are attained values (a witness model exists). z3 Optimize
proposes each bound; the bisection of ``optimum`` proves it (one unsat check ``e < min``) or
improves it. "Unbounded" (``null``) is z3's verdict on linear problems, where its optimizer is a
decision procedure; on non-linear ones the galloping search (``e <= best - 2^k``) can only give up,
so the row is ``exact: false``: bounds are the extreme values found (or null when the values
kept growing through every probe), the true range may be wider. ``value`` replaces ``min``/``max``
when they are equal and exact.

If the asserts and guards are unsat there is no point to evaluate at: ``status`` is ``unsat`` and
every query's ``value`` is ``null`` (vacuous, not "unknown": the answer is final).

Budgets are z3 resource units (``checker.Deadline``), never milliseconds: each query gets an
equal share of the units left, split between its checks by the units they actually used, so the
answers do not depend on the machine's load. Past the wall-clock deadline (``OutOfTime``) once
the problem is known satisfiable, the answer is partial (docs/problem-format.md §2 ``evaluate``):
the rows answered so far — each the row a complete run gives — and ``unknown`` for the rest,
``incomplete: true``, never cached.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from symguard.solver.ir import terms as ir
from symguard.solver.ir.problem import Problem, Query
from symguard.solver.ir.pyeval import evaluate as py_eval
from symguard.solver.ir.pyeval import holds
from symguard.solver.ops.operation import Audit, Back, Operation, Result, open_query
from symguard.solver.ops.selfcheck import hint_model, verify_model
from symguard.solver.reason import intervals as cheap
from symguard.solver.smt import unbounded as ray
from symguard.solver.smt.checker import SAT, UNSAT, Deadline, Outcome, OutOfTime
from symguard.solver.smt.optimize import Model, Session, is_linear, problem_terms

GALLOP_LIMIT = 64  # doublings of the probe step before a bound is reported as "kept growing"
RAY_AFTER = 4  # doublings before asking for an unboundedness certificate (``ray``)
OPTIMIZE_SHARE = 0.5  # of a bound's budget z3 Optimize may use


def evaluate(problem: Problem, deadline: Deadline) -> dict[str, Any]:
    return _Run(problem, deadline).run()


class _Run:
    def __init__(self, problem: Problem, deadline: Deadline) -> None:
        self.p = problem
        self.deadline = deadline
        self.sess = Session(problem, deadline)
        self.models: list[Model] = []
        self.linear = is_linear(problem_terms(problem))
        self.facts = cheap.Facts.from_problem(problem)
        self.asserts = [c.term for c in problem.asserts if c.term is not None]
        self.why = "resource"  # what stopped the last check that answered unknown (a row's ``reason``)

    def run(self) -> dict[str, Any]:
        # the trace-time sizes, when they pass everything, show satisfiability with no solver call
        # (as in ``redundancy`` and a context's questions): at every effort, so a small effort that
        # could not pay z3's check still answers what a larger one answers from the same start
        hinted = hint_model(self.p)
        out = Outcome(SAT, model=hinted) if hinted is not None else self.sess.check()
        if out.status == UNSAT:
            return {"status": UNSAT, "queries": [{"id": q.id, "kind": _kind(q), "value": None}
                                                 for q in self.p.queries],
                    "warnings": ["the asserts and guards are unsatisfiable: no query has a value"]}
        if out.status == SAT:
            self.models.append(out.model)
        n = len(self.p.queries)
        rows, stopped = self.answer(self.p.queries)
        if stopped is not None and out.status != SAT and not self.models:
            raise stopped  # satisfiability not established: no answer holds yet (all unknown)
        status = out.status
        if status != SAT and self.models:  # a witness found on the way proves the problem sat
            status = SAT
        res: dict[str, Any] = {"status": status, "queries": partial_rows(self.p, rows)}
        if len(rows) < n:
            res["incomplete"] = True
        if status != SAT:
            res["reason"] = out.reason
        return res

    def answer(self, queries: Sequence[Query]) -> tuple[list[dict[str, Any]], OutOfTime | None]:
        """The rows of ``queries`` in turn, each with an equal share of the units left, and the
        ``OutOfTime`` that stopped them (the wall-clock deadline, checked between queries too):
        the rows answered by then are kept, each the row a complete run gives."""
        rows: list[dict[str, Any]] = []
        try:
            for i, q in enumerate(queries):
                self.deadline.ensure_time()
                budget = self.deadline.remaining() // max(1, len(queries) - i)
                rows.append(self.bool_query(q, budget) if q.is_bool else self.int_query(q, budget))
        except OutOfTime as e:
            return rows, e
        return rows, None

    # -------------------------------------------------------------- shared
    def domain(self, q: Query) -> list[int]:
        return [] if q.domain is ir.TRUE else [self.sess.ch.selector(q.domain)]

    def partial(self, q: Query, budget: int) -> bool:
        """Whether the query's divisors can be zero at some point of the problem."""
        if q.domain is ir.TRUE or cheap.decide(q.domain, self.facts, self.asserts) is True:
            return False
        if any(not holds(q.domain, m) for m in self.models):
            return True
        out = self.sess.check([self.sess.ch.negation(q.domain)], budget=budget)
        if out.status == SAT:
            self.keep(out.model)
            return True
        return False

    def keep(self, m: Model, extra: Sequence[tuple[str, ir.Term]] = ()) -> Model:
        verify_model(self.p, m, extra=extra)
        self.models.append(m)
        return m

    def witness(self, q: Query, cond: ir.Term, budget: int) -> tuple[str, Model | None]:
        """A model of the problem where the query is defined and ``cond`` holds."""
        extra = [(q.id, cond), (f"{q.id} domain", q.domain)]
        for m in self.models:
            if holds(q.domain, m) and holds(cond, m):
                return SAT, m
        sel = [] if cond is ir.TRUE else [self.sess.ch.selector(cond)]
        out = self.sess.check([*self.domain(q), *sel], budget=budget)
        if out.status == SAT:
            return SAT, self.keep(out.model, extra)
        if out.status != UNSAT:
            self.why = out.reason or "resource"
        return out.status, None

    # -------------------------------------------------------------- boolean
    def bool_query(self, q: Query, budget: int) -> dict[str, Any]:
        row: dict[str, Any] = {"id": q.id, "kind": "bool"}
        spent0 = self.deadline.spent
        decided = cheap.decide(q.term, self.facts, self.asserts)
        if decided is not None and q.domain is ir.TRUE:
            row["value"] = decided
            return row
        st_t, m_t = self.witness(q, q.term, budget // 2)
        left = max(1, budget - (self.deadline.spent - spent0))
        st_f, m_f = self.witness(q, ir.mk_not(q.term), left)
        if st_t == SAT and st_f == SAT:
            row.update(value="depends", when_true=m_t, when_false=m_f)
        elif st_f == UNSAT and st_t == UNSAT:
            row["value"] = None  # defined nowhere: see the module docstring
        elif st_f == UNSAT:
            row["value"] = True
        elif st_t == UNSAT:
            row["value"] = False
        else:
            row["value"] = "unknown"
            row["reason"] = self.why
        if row["value"] is None or self.partial(q, max(1, budget // 4)):
            row["partial"] = True
        return row

    # -------------------------------------------------------------- integer
    def int_query(self, q: Query, budget: int) -> dict[str, Any]:
        row: dict[str, Any] = {"id": q.id, "kind": "int"}
        spent0 = self.deadline.spent
        st, m = self.witness(q, ir.TRUE, budget // 3)
        if st != SAT or m is None:
            row["value"] = None if st == UNSAT else "unknown"
            if st == UNSAT:
                row["partial"] = True
            else:
                row["reason"] = self.why
            return row
        linear = self.linear and is_linear([q.term, q.domain])
        bounds = []
        for sense in ("min", "max"):
            left = budget - (self.deadline.spent - spent0)
            bounds.append(self.extreme(q, sense, m, linear, max(1, left // (2 if sense == "min" else 1))))
        (lo, lo_ok), (hi, hi_ok) = bounds
        if lo_ok and hi_ok and lo is not None and lo == hi:
            row["value"] = lo
        else:
            row.update(min=lo, max=hi)
        row["exact"] = lo_ok and hi_ok
        if not row["exact"]:
            row["reason"] = self.why
        if self.partial(q, max(1, budget // 4)):
            row["partial"] = True
        return row

    def extreme(self, q: Query, sense: str, m: Model, linear: bool, budget: int) -> tuple[int | None, bool]:
        """(bound, exact) of the query in direction ``sense``; bound None means unbounded."""
        sign = 1 if sense == "min" else -1
        ch = self.sess.ch
        z = ch.z3_term(q.term)
        dom = self.domain(q)
        extra = [(f"{q.id} domain", q.domain)]
        end = self.deadline.spent + budget  # in resource units

        def val(model: Model) -> int:
            return sign * int(py_eval(q.term, model))

        status, om, vals = self.sess.optimize([(sense, z)], dom, budget=int(budget * OPTIMIZE_SHARE))
        unbounded_claim = status == SAT and vals and vals[0] is None
        if unbounded_claim and linear:
            return None, True
        found = [m]
        if status == SAT and om is not None:
            found.append(self.keep(om, extra))
            if val(om) < val(m):
                m = om
        best, lo, step = val(m), None, 1
        probe_first = status == SAT and not unbounded_claim
        gallops, ray_tried = 0, False
        while lo is None or lo < best:
            if self.deadline.spent >= end:
                self.why = "resource"
                return sign * best, False
            if lo is None and not ray_tried and (unbounded_claim or gallops >= RAY_AFTER):
                ray_tried = True  # the values keep growing: look for a certificate, once
                left = max(1, (end - self.deadline.spent) // 2)
                if ray.unbounded(self.p, q.term, q.domain, sense, found, self.deadline, left):
                    return None, True
            if probe_first:
                mid, probe_first = best - 1, False
            elif lo is None:
                if gallops >= GALLOP_LIMIT:
                    self.why = "incomplete"  # the values kept growing, no certificate either way
                    return (None, False)
                mid, step, gallops = best - step, step * 2, gallops + 1
            else:
                mid = lo + (best - lo) // 2
            bound = z <= sign * mid if sign == 1 else z >= sign * mid
            left = max(1, end - self.deadline.spent)
            out = self.sess.check(dom, [self.sess.lit(bound)], budget=left)
            if out.status == SAT:
                found.append(self.keep(out.model, extra))
                best = min(best, val(out.model))
            elif out.status == UNSAT:
                lo = mid + 1
            else:
                self.why = out.reason or "resource"
                return sign * best, False
        return sign * best, True


def _kind(q: Query) -> str:
    return "bool" if q.is_bool else "int"


# ------------------------------------------------------------------ the operation

def unknown_row(q: Query) -> dict[str, Any]:
    """The row of a query the deadline left undecided (docs/problem-format.md §2, partial answers):
    ``value: "unknown"`` as when the effort runs out, an integer query's bounds null besides."""
    if q.is_bool:
        return {"id": q.id, "kind": "bool", "value": "unknown", "reason": "timeout"}
    return {"id": q.id, "kind": "int", "value": "unknown", "min": None, "max": None, "exact": False,
            "reason": "timeout"}


def partial_rows(problem: Problem, rows: Sequence[dict[str, Any] | None]) -> list[dict[str, Any]]:
    """The rows answered before the wall-clock deadline (a prefix, or None for a gap), the other
    queries ``unknown`` (docs/problem-format.md §1.3, partial answers): each answered row is the
    one a complete run gives, since a query's budget is its share of the effort alone."""
    rows = list(rows)
    return [r if r is not None else unknown_row(q)
            for q, r in zip(problem.queries, rows + [None] * (len(problem.queries) - len(rows)))]


def _unknown(problem: Problem) -> dict[str, Any]:
    return {"status": "unknown", "reason": "timeout", "queries": [unknown_row(q) for q in problem.queries]}


def _final(res: dict[str, Any]) -> bool:
    return not res.get("incomplete") and not any(open_query(q) for q in res.get("queries", ()))


def _map_back(res: Result, back: Back) -> Result:
    """Rows in the caller's query order and ids; witnesses in the caller's names."""
    out: Result = {"warnings": list(res.get("warnings", ()))}
    rows = res["queries"]
    mapped = []
    for q, j in zip(back.problem.queries, back.canon.queries):
        row = dict(rows[j])
        row["id"] = q.id
        if row.pop("partial", False):  # its domain (divisors != 0, a Piecewise branch holds) fails somewhere
            nowhere = "value" in row and row["value"] is None
            out["warnings"].append(f"query {q.id} is undefined (a zero divisor or no Piecewise branch "
                                   "holding) at " + ("every point of the problem: it has no value" if nowhere
                                                     else "some points of the problem; it is evaluated "
                                                     "where it is defined"))
        for w in ("when_true", "when_false"):
            if w in row:
                row[w] = back.model(row[w])
        mapped.append(row)
    out["queries"] = mapped
    return out


def _tally(res: dict[str, Any]) -> list[str]:
    labels = []
    for row in res.get("queries", ()):
        v = row.get("value") if row.get("kind") == "bool" else ("constant" if "value" in row else "range")
        labels.append(f"{row.get('kind')}: {str(v).lower()}")
    return labels


def _audit(res: Result, audit: Audit) -> None:
    for r in audit.rows(res, "queries", [q.id for q in audit.problem.queries]):
        for side in ("when_true", "when_false"):
            if r.get(side) is not None:
                audit.model(r[side], f"{r['id']}.{side}")


def _carry(_problem: Problem, other: Result, res: Result) -> Result:
    """``res`` with each query it left open answered by ``other`` where that one answered it: a
    query's row is a fact about the problem alone (witnesses verified, ranges proven), whatever
    the other rows say."""
    if res.get("status") != SAT or other.get("status") != SAT:
        return res
    rows = [o if open_query(r) and not open_query(o) else r for r, o in zip(res["queries"], other["queries"])]
    return {**res, "queries": rows}


OPERATION = Operation("evaluate", evaluate, _unknown, is_final=_final, map_back=_map_back, tally=_tally,
                      audit=_audit, carry=_carry)
