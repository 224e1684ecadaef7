"""Minimizing integer objectives over a problem: the engine under ``shrink`` and ``evaluate``.

pysmt 0.9.6 has no optimizer, so this module works on the z3 terms the ``Checker`` already
built (same translation, same division encodings). Two methods, both behind ``Session``:

* ``descend`` — bisection on the objective bound on the one incremental solver: with the best
  value ``b`` and a proven lower bound ``lo``, check ``obj <= (lo + b) // 2`` under an assumption
  literal; sat lowers ``b`` to the new model's value, unsat raises ``lo``. ``lo == b`` proves the
  optimum. Lexicographic objectives fix each level at its optimum (``obj_i <= b_i``) before the
  next. Every check is bounded by the operation's resource units (``checker.Deadline``), so a
  hard (non-linear) check ends the descent with the best model so far.
* ``optimize`` — z3's ``Optimize`` over a copy of the checker's assertions. Its answer is never
  taken on trust: the claimed optimum is re-proven by one ``descend`` check (``obj < b``
  unsat), which also catches z3's optimizer being unsound on non-linear input. When its units
  run out, the best model it had found is still handed back (``anytime``), for the caller to
  re-check and start the descent from.

Every model is re-checked in Python (``selfcheck``) by the callers before it leaves the library.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import z3

from symguard.solver.errors import InternalError
from symguard.solver.ir import terms as ir
from symguard.solver.ir.problem import Problem
from symguard.solver.ir.pyeval import Value
from symguard.solver.smt.checker import (
    ASSUMPTION_COST,
    CHECK_COST,
    FORMULA_COST,
    SAT,
    SCOPED_COST,
    UNSAT,
    Checker,
    Deadline,
    Outcome,
    Z3Failed,
)

Model = dict[str, Value]


@dataclass(frozen=True)
class Objective:
    """One level of a (lexicographic) objective: ``term`` to minimize, never below ``lower``."""

    term: z3.ArithRef
    le: Callable[[int], z3.BoolRef]  # the constraint "objective <= bound"
    value: Callable[[Mapping[str, Value]], int]  # the objective at a model, in Python
    lower: int


_OPTIMIZE_BOUNDS = "smt.arith.nl.optimize_bounds"


@contextlib.contextmanager
def _no_monomial_bound_optimization() -> Iterator[None]:
    """z3 Optimize without the non-linear solver's LP optimization of monomial bounds, which can
    take roots of huge rationals (``nla::monomial_bounds::tighten_lp_bound``) for seconds without
    looking at its ``timeout``, its ``rlimit`` or an interrupt: an ``evaluate`` with
    ``timeout_ms`` 500 answered after 4 s. Optimize takes the parameter only from z3's global
    table (neither its own ``set`` nor the context's), so it is set around the call and put back;
    an operation runs alone in its process (``api._SERIAL``), so no other check sees it."""
    before = z3.get_param(_OPTIMIZE_BOUNDS)
    z3.set_param(_OPTIMIZE_BOUNDS, False)
    try:
        yield
    finally:
        z3.set_param(_OPTIMIZE_BOUNDS, before)


class Session:
    """A problem's ranges, asserts and guards on one ``Checker``; extra facts ride on literals."""

    def __init__(self, problem: Problem, deadline: Deadline) -> None:
        self.problem = problem
        self.deadline = deadline
        self.ch = Checker(problem, deadline)
        self.ids: dict[int, str] = {}
        for c in (*problem.asserts, *problem.guards):
            if c.term is not None:
                self.ids.setdefault(self.ch.selector(c.term), c.id)
        self.base = list(self.ids)
        # one numbering per z3 solver, not per Session object: a copy of this session over the
        # same checker (a context's view, ``solver.session``) draws from it too. A name drawn
        # twice would be one z3 constant, and the new ``b -> e`` would join the still asserted
        # ``b -> e_old``: the literal would assume both bounds (an "exact" range too narrow).
        self._names = [0]  # a list, so that copies share it

    def lit(self, e: z3.BoolRef) -> z3.BoolRef:
        """A fresh assumption literal ``b`` with ``b -> e`` asserted (never a name used before
        on this solver: the implications of earlier literals stay asserted)."""
        n = self._names[0]
        self._names[0] = n + 1
        b = z3.Bool(f".o{n}", self.ch.ctx)
        self.ch.solver.add(z3.Implies(b, e))
        return b

    def size(self) -> int:
        """Literals this solver holds (selectors of every term it was asked about, and the bound
        literals): it only grows, so a long-lived owner retires it past a limit."""
        return len(self.ch._lits) + self._names[0]

    def check(self, handles: Sequence[int] = (), lits: Sequence[z3.BoolRef] = (), *,
              budget: int | None = None) -> Outcome:
        """A check of the problem plus ``handles`` and ``lits`` within ``budget`` resource units."""
        return self.ch.check([*self.base, *handles], extra=lits, budget=budget)

    def core_ids(self, out: Outcome) -> list[str]:
        return [self.ids[h] for h in out.core if h in self.ids]

    # -------------------------------------------------------------- descent
    def descend(self, objs: Sequence[Objective], model: Model, lits: Sequence[z3.BoolRef] = (), *,
                accept: Callable[[Model], None] = lambda m: None,
                probe_first: bool = False, lower: Sequence[int] = ()) -> tuple[Model, bool]:
        """Lexicographic bisection from ``model``; returns (best model, proven optimal).

        ``accept`` sees every improving model (the caller's Python self-check). With
        ``probe_first`` the first probe of each level is ``best - 1`` (the model is believed
        optimal: one unsat check proves it). ``lower``: per level, a bound the caller has
        proven (no model goes below it) that may beat the ranges' ``Objective.lower``. Any probe
        in ``[lo, best)`` keeps the search sound: ``lo`` only rises on an unsat answer."""
        fixed = list(lits)
        for i, o in enumerate(objs):
            best, lo = o.value(model), max([o.lower, *lower[i:i + 1]])
            first = probe_first
            while lo < best:
                mid = best - 1 if first else lo + (best - lo) // 2
                first = False
                out = self.check(lits=[*fixed, self.lit(o.le(mid))])
                if out.status == SAT:
                    accept(out.model)
                    if o.value(out.model) > mid:  # pragma: no cover - encoding and Python disagree
                        raise InternalError(f"objective bound {mid} not met by the solver's model {out.model}")
                    model, best = out.model, o.value(out.model)
                elif out.status == UNSAT:
                    lo = mid + 1
                else:
                    return model, False
            fixed.append(self.lit(o.le(best)))
        return model, True

    # -------------------------------------------------------------- z3 Optimize
    def optimize(self, terms: Sequence[tuple[str, z3.ArithRef]], handles: Sequence[int] = (),
                 lits: Sequence[z3.BoolRef] = (), *,
                 budget: int | None = None) -> tuple[str, Model | None, list[int | None]]:
        """z3 Optimize on ``("min"|"max", term)`` levels (lexicographic): status, model, values.

        A value is None when z3 says the level is unbounded; callers decide whether to trust it.
        With status ``unknown`` the model, when not None, is the best one z3 saw before its units
        ran out (not re-checked here: callers do that before using it)."""
        forms = self.ch.solver.assertions()
        assumptions = [self.ch.literal(h) for h in (*self.base, *handles)] + list(lits)
        cost = CHECK_COST + ASSUMPTION_COST * len(assumptions) + SCOPED_COST + FORMULA_COST * len(forms)
        self.ch.checks += 1
        if not self.deadline.admits(budget, cost):
            self.deadline.ensure_time()
            return "unknown", None, []
        spent = self.deadline.spent
        with _no_monomial_bound_optimization():
            opt = z3.Optimize(ctx=self.ch.ctx)
            opt.add(forms)
            hs = [opt.minimize(t) if sense == "min" else opt.maximize(t) for sense, t in terms]
            try:
                r, ran_out = self.deadline.run(opt, budget, assumptions, cost)
            except Z3Failed:
                return "unknown", None, []
            finally:
                self.ch.units += self.deadline.spent - spent
        if r is None:
            return "unknown", None, []
        if r == z3.unsat:
            return UNSAT, None, []
        if r != z3.sat:
            return "unknown", (self._read(opt) if ran_out else None), []
        model = self._read(opt)
        if model is None:  # pragma: no cover - z3 answered sat
            return "unknown", None, []
        values: list[int | None] = []
        for (sense, _), h in zip(terms, hs):
            v = h.value()
            values.append(v.as_long() if z3.is_int_value(v) else None)
        return SAT, model, values

    def _read(self, opt: z3.Optimize) -> Model | None:
        try:
            m = opt.model()
        except z3.Z3Exception:
            return None
        model: Model = {}
        for s in self.problem.symbols:
            v = m.eval(self.ch.z3_symbol(s.name), model_completion=True)
            if z3.is_true(v) or z3.is_false(v):
                model[s.name] = z3.is_true(v)
            elif z3.is_int_value(v):
                model[s.name] = v.as_long()
            else:  # pragma: no cover - a partial model
                return None
        return model


# ------------------------------------------------------------------ helpers

def is_linear(terms: Sequence[ir.Term]) -> bool:
    """No product of two non-constant factors and no division by a non-constant.

    On such input z3 decides linear integer arithmetic, and its optimizer's "unbounded" is exact.
    """
    for t in terms:
        for n in ir.iter_dag(t):
            if n.kind == ir.MUL and sum(a.kind != ir.CONST for a in n.args) > 1:
                return False
            if n.kind in ir.DIV_KINDS and n.args[1].kind != ir.CONST:
                return False
    return True


def problem_terms(p: Problem) -> list[ir.Term]:
    return [c.term for c in (*p.asserts, *p.guards) if c.term is not None]
