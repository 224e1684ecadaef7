"""docs/problem-format.md §2 ``simplify``: the canonical form of each expression under the context.

The context is the ranges, the asserts and the guards: every form is equal to its expression at
every point of the context where the expression is defined (its divisors non-zero). Built for a
compiler's hot path: per request, the context's facts, its sample points and one z3 session are
built once (the last two only when some expression needs them) and shared by every expression.
Per expression:

0. The context's equality classes (``reason.simplify_equalities``: ``Eq(s0, s1)``,
   ``Eq(s1, 2*s0)``) are substituted first, one representative per class (PyTorch's choice);
   the result's ``representatives`` names them.
1. ``reason.simplify_rules.Simplifier`` rewrites it bottom-up, each distinct subterm once per
   request (memoized on the interned term, per expression domain): exact rules by construction,
   and rules with a side condition decided in this order — ``Decider`` (facts and intervals of the
   canonical term, common factors, floor divisions eliminated: microseconds), then the sample
   points (which may refute it), then z3 (one incremental session, the expression's domain as an
   assumption literal). A step is taken only when its condition is proven, so the form is proven
   equal to its input by construction (``proved: true``).
2. The cheaper of the rewritten form and the input's own printing is kept (cost: divisions first,
   then operations), printed in PyTorch's sympy syntax (``syntax.sympy_writer``); mapped back,
   a form costlier than the text as sent gives way to that text.
3. **Equal expressions, one form**: expressions whose values agree at every sample point (and at
   the points a targeted search tries) are candidates; each is proven equal (z3) to the cheapest of its candidates, whose
   form it then takes — so a compiler can CSE them. The choice is by (cost, text): independent of
   input order.

Sample points are evaluated as value vectors (``_Values``): each interned term's values at all
points, computed once per request from its children's vectors — a constant guess, a refutation
and a fingerprint are lookups, not tree walks per point.

With ``SELF_CHECK`` (``SYMGUARD_SIMPLIFY_CHECK=1``; the tests turn it on, the bench re-verifies
independently) every changed form is re-checked before it leaves: against its input at every
sample point and by z3 on ``context ∧ domain ∧ ¬(form == input ∧ form defined)``; a difference
is an ``InternalError`` (a bug, never a wrong answer).

Forms are computed on the canonical problem (symbols ``v0, v1, …``, expressions sorted), so they
do not depend on the order of the input or on the symbols' names; ``map_back`` renames them.
A registered context keeps its ``Engine`` (this request state, minus the expressions) for its
follow-ups (``solver.session``); there a form is also kept per expression shape up to a
renaming of interchangeable free symbols (``_Run.roles``), so the same index expression of
another loop variable costs a lookup.

Past the wall-clock deadline (``OutOfTime``, docs/problem-format.md §2 ``simplify``) the answer is
partial: the forms settled by then are kept, exactly as a complete run gives them (``unsettled``
says which a later ``merge`` could still change), the other expressions come back unproved (as
sent), ``incomplete: true``; never cached (``_final``).
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from symguard.solver.errors import InternalError
from symguard.solver.ir import terms as ir
from symguard.solver.ir.problem import Problem, Query
from symguard.solver.ir.pyeval import holds
from symguard.solver.ops.operation import Operation
from symguard.solver.ops.simplify_cost import _key, least_cost
from symguard.solver.ops.simplify_cse import _Classes, _Cse
from symguard.solver.ops.simplify_evidence import POINT_UNITS
from symguard.solver.ops.simplify_facts import _propagated
from symguard.solver.ops.simplify_oracle import _Oracle
from symguard.solver.ops.simplify_result import _audit, _final, _map_back, _row, _tally, _unknown, _value
from symguard.solver.ops.simplify_shapes import _Renaming, _ShapeMemo, _Shapes
from symguard.solver.ops.simplify_values import Model, _Values
from symguard.solver.reason import facts, rewrite
from symguard.solver.reason import intervals as cheap
from symguard.solver.reason import simplify_equalities as eqs
from symguard.solver.reason.simplify_divisibility import Divisibility
from symguard.solver.reason.simplify_rules import Decider, Simplifier
from symguard.solver.reason.simplify_sums import collect
from symguard.solver.smt.checker import SAT, UNSAT, Deadline, OutOfTime
from symguard.solver.smt.optimize import Session
from symguard.solver.syntax.sympy_writer import Writer, cost

SELF_CHECK = os.environ.get("SYMGUARD_SIMPLIFY_CHECK", "") not in ("", "0")
# z3 budgets in resource units (``simplify_evidence.CHECK_UNITS``: not derived from ms)
RECHECK_UNITS = 18_000  # the independent re-check of a form built by proven steps (SELF_CHECK)


def simplify(problem: Problem, deadline: Deadline) -> dict[str, Any]:
    return _Run(problem, deadline).run()


class Engine:
    """A registered context's ``simplify`` state, kept between its requests (``solver.session``):
    the facts and their propagation, the equality classes and divisibility facts, the sample
    points and their value vectors, each expression domain's memoized ``Simplifier``, the
    printing memo and the CSE classes of the forms it returned (``_Run.merge_classes``). A follow-up pays for its own expressions only, as an ``evaluate`` follow-up
    does. Forms are computed in the context's own names (no canonical renaming: that is the
    cost a context avoids), so their spelling may differ from the stateless answer's; every
    one is proven and never costlier all the same. The z3 sessions are kept too, each request's
    deadline taking over their z3 context (as ``solver.session`` does for ``evaluate``)."""

    def __init__(self, context: Problem) -> None:
        self.context = context
        self.names = {s.name: s.name for s in context.symbols}  # the result's names: the context's own
        self._run: _Run | None = None

    def answer(self, problem: Problem, deadline: Deadline) -> dict[str, Any]:
        """The canonical-form result (``simplify``'s) for ``problem``: the context plus expressions."""
        r = self._run
        if r is None or r.memo_size() > ENGINE_MEMO_LIMIT:  # a cache: forgetting it changes no proof
            r = self._run = _Run(replace(self.context, exprs=()), deadline)
            r.classes, r.shapes = {}, _ShapeMemo()
        r.p, r.deadline = problem, deadline
        kept = [x for x in (r._sess, r._slice_sess) if x is not None]
        if kept:  # the z3 objects live in the first request's z3 context: this deadline takes it over
            deadline.adopt_context(kept[0].ch.deadline)
            for x in kept:
                x.deadline = x.ch.deadline = deadline
        return r.run()


ENGINE_MEMO_LIMIT = 200_000  # simplified subterms and value vectors one context's engine keeps


class _Run(_Cse, _Renaming):
    """One ``simplify`` request over a context (or a context's kept state, ``Engine``): the
    driver. Sample points and proofs come from ``_Evidence`` (through ``_Cse``), the CSE classes
    from ``_Cse``, the renaming of free symbols from ``_Renaming``."""

    def __init__(self, problem: Problem, deadline: Deadline) -> None:
        self.p = problem
        self.deadline = deadline
        self._sess: Session | None = None
        self._slice_sess: Session | None = None
        self._con_syms: list[tuple[ir.Term, frozenset[str]]] | None = None
        self._misses: dict[tuple[ir.Term, ir.Term], list[Model]] = {}  # points near the context (slice_refuted)
        self._linear: dict[ir.Term, bool] = {}
        self._sized = {s.name for s in problem.symbols if s.hint is not None}
        ranges = cheap.Facts.from_problem(problem)
        plain = rewrite.Rewriter(rewrite.Env({s.name: (s.lo, s.hi) for s in problem.symbols if not s.is_bool}))
        self.context = [c.term for c in (*problem.asserts, *problem.guards) if c.term is not None]
        env = facts.facts_env(ranges.ranges, [(plain.rewrite(t), None) for t in self.context])
        self.env = env
        self.sub = eqs.replacements(self.context, {s.name: s.hint for s in problem.symbols})  # equality classes: substituted before anything else
        self._sub_memo: dict[ir.Term, ir.Term] = {}
        self.div = Divisibility(self.context, lambda t: eqs.substitute(t, self.sub, self._sub_memo))
        self.rw = _propagated(env, self.context)
        self.rw.below = self._below  # after the propagation: its own rewrites never ask for points
        self._inside: list[bool] = []  # each sample point inside every symbol's range (``_below``)
        self.decider = Decider(self.rw, plain)
        self.simplifiers: dict[ir.Term, Simplifier] = {}
        self.oracles: list[_Oracle] = []
        # CSE classes kept across requests (a context's Engine only): fingerprint -> forms
        self.classes: dict[tuple[Any, ...], _Classes] | None = None
        self._fp_len: int | None = None
        self.checks = 0
        self._values: _Values | None = None
        self.writer = Writer({})  # one printing memo per request: shared subterms are printed once
        self._collected: dict[ir.Term, ir.Term] = {}  # forms with common factors written once (``collect``)
        self._search: tuple[list[str], Any, Model, dict[str, list[int]]] | None = None
        self._tied: dict[str, tuple[str, ...]] = {}
        self._range: dict[str, tuple[int | None, int | None]] = {}
        # forms up to renaming of interchangeable symbols (a context's Engine only: ``_shape``)
        self.shapes: _ShapeMemo | None = None
        self._sat: str | None = None  # the context is satisfiable: known from a point
        self._roles: dict[str, tuple[Any, ...]] | None = None
        self._base_ok = False  # the search's base is a point of the context (``_context_at``)
        self._about: dict[str, list[ir.Term]] | None = None  # symbol -> the constraints about it

    # -------------------------------------------------------------- the operation
    def run(self) -> dict[str, Any]:
        # a sample point proves the context satisfiable only inside the ranges too: the sample
        # checks the asserts and guards alone (``s0 < 0`` with ``s0 >= 0`` has points, no model)
        status = self._sat
        if status is None:  # (a context's Engine asks once: its context does not change)
            ranges = [(s.name, s.lo, s.hi) for s in self.p.symbols if not s.is_bool]
            status = SAT if any(all((lo is None or pt[n] >= lo) and (hi is None or pt[n] <= hi)
                                    for n, lo, hi in ranges) for pt in self.values.points) else None
        why = "incomplete"  # why the context's satisfiability stayed open (the check's own reason)
        if status is None:
            out = self.sess.check(budget=self.deadline.grant(POINT_UNITS))
            status = out.status
            why = out.reason or why
            if out.status == SAT:
                self.add_point(dict(out.model))
        if status == SAT:
            self._sat = SAT
        if status == UNSAT:
            return {"status": UNSAT, "exprs": [_row(q, None, False) for q in self.p.exprs],
                    "warnings": ["the asserts and guards are unsatisfiable: every expression is left as it is"]}
        rows: list[dict[str, Any]] = []
        terms: list[ir.Term | None] = []
        stopped = False  # the wall-clock deadline passed (``OutOfTime``): the answer is partial
        for q in self.p.exprs:
            form = None
            if not stopped:
                try:
                    self.deadline.ensure_time()  # the outer limit, between expressions too
                    form = self.one(q)
                except OutOfTime:
                    stopped = True
            terms.append(form)
            rows.append(_row(q, None if form is None else self.print(form), form is not None))
        classed: set[int] = set()
        grouped: set[int] = set()
        if not stopped:
            try:
                self.merge(rows, terms, classed, grouped)
            except OutOfTime:
                stopped = True
        res: dict[str, Any] = {"status": SAT if status == SAT else "unknown", "exprs": rows}
        if stopped:
            for i in self.unsettled(terms, classed, grouped):
                rows[i] = _row(self.p.exprs[i], None, False)
            res["incomplete"] = True
        res["representatives"] = self.representatives()
        if status != SAT:  # ``resource`` when the effort ran out: ``timeout`` is the wall clock's alone
            res["reason"] = why
        return res

    def representatives(self) -> dict[str, str]:
        """The replacements an expression of the request met (``eqs.replacements``), and the whole
        class of a representative some form uses (``_map_back`` may pick another member)."""
        if not self.sub:
            return {}
        used: set[str] = set()
        for q in self.p.exprs:
            used |= ir.symbols_of(q.term)
        after = set().union(*(ir.symbols_of(eqs.substitute(ir.mk_sym(x), self.sub)) for x in used)) if used else set()
        return {x: self.print(e) for x, e in sorted(self.sub.items()) if x in used or (e.kind == ir.SYM and e.value in after)}

    def print(self, t: ir.Term) -> str:
        return self.writer.text(t)[0]

    def simplifier(self, domain: ir.Term) -> Simplifier:
        """One memoized ``Simplifier`` per expression domain (after the facts: ``TRUE`` when the
        ranges keep every divisor non-zero), sharing the request's rewriter and decider."""
        got = self.simplifiers.get(domain)
        if got is None:
            oracle = _Oracle(self, domain)
            self.oracles.append(oracle)
            got = self.simplifiers[domain] = Simplifier(self.rw, oracle, self.decider, self.div)
        return got

    def memo_size(self) -> int:
        return (sum(len(s.memo) for s in self.simplifiers.values()) + (len(self._values.memo) if self._values else 0)
                + (self.shapes.size if self.shapes is not None else 0) + len(self._collected))

    def one(self, q: Query) -> ir.Term | None:
        """The proven form of one expression, or None (then it comes back unchanged). In a
        context's Engine, an expression that is an earlier one renamed by a permutation of free
        symbols that keeps their roles (``roles``) takes that one's form, renamed the same way.

        ``shapes`` holds the forms in buckets by the roles of their symbols (in order of first
        occurrence) and the expression's outline (``_names``), then by the renamed expression
        (``_shape``). Renaming builds and normalizes new terms, so a form is kept as it came
        (``_Shapes.pending``) and keyed only when another expression of its bucket is asked: an
        expression of a new outline or of new roles — one the context has not seen — pays a
        walk and a lookup, not the renaming."""
        got_names = self._names(q) if self.shapes is not None and q.term.kind not in (ir.SYM, ir.CONST) else None
        bucket = key = None
        if got_names is not None:
            assert self.shapes is not None
            names, outline = got_names
            roles = self.roles()
            where = (tuple(roles[x] for x in names), outline)
            bucket = self.shapes.get(where)
            if bucket is not None:
                key = self._shape(q.term, q.domain, names)
                hit = bucket.get(key)
                if hit is not None:
                    form, was = hit
                    renamed = eqs.substitute(form, {x: ir.mk_sym(y) for x, y in zip(was, names) if x != y})
                    self._self_check(q, renamed)
                    return renamed
        got = self._one(q)
        # (a symbol of the form's own would not be renamed)
        if got_names is not None and got is not None and self.shapes is not None \
                and ir.symbols_of(got) <= set(got_names[0]):
            if bucket is None:
                bucket = self.shapes[where] = _Shapes()
                bucket.pending.append((q.term, q.domain, tuple(got_names[0]), got))
            else:
                assert key is not None
                bucket.keyed[key] = (got, tuple(got_names[0]))
            self.shapes.size += 1
        return got

    def _one(self, q: Query) -> ir.Term | None:
        term = eqs.substitute(q.term, self.sub, self._sub_memo)
        domain = self.rw.rewrite(eqs.substitute(q.domain, self.sub, self._sub_memo))
        got = self.simplifier(domain).simplify(term).term
        if got.kind not in (ir.CONST, ir.SYM, ir.BCONST):  # y*Mod(x, 6) + 4*Mod(x, 6) prints (y + 4)*Mod(x, 6)
            got = collect(got, self._collected)
        if got is q.term:
            return got
        mine = _key(cost(self.print(got)))
        # (nothing costs less than nothing, nor less than ``least_cost``: a form that costs no more
        # than that bound costs no more than the input, which then need not be printed)
        if mine != (0, 0) and mine > least_cost(q.term) and mine > _key(cost(self.print(q.term))):
            return q.term
        if self.deadline.expired:
            return None
        self._self_check(q, got)
        return got

    def _self_check(self, q: Query, got: ir.Term) -> None:
        if SELF_CHECK and got is not q.term and (
                not self.agrees(q, got)
                or self.prove(self.same(q.term, got), q.domain, RECHECK_UNITS, linear_only=False) is False):
            raise InternalError(f"simplify self-check failed: {q.text!r} and its form {self.print(got)!r} "
                                "differ at a point of the context; please report this problem")

    def agrees(self, q: Query, form: ir.Term) -> bool:
        for pt in self.values.points:
            if holds(q.domain, pt) and _value(q.term, pt) != _value(form, pt):
                return False
        return True


OPERATION = Operation("simplify", simplify, _unknown, is_final=_final, map_back=_map_back, tally=_tally,
                      audit=_audit)
