"""One incremental z3 session per problem, driven through assumption literals.

Each formula we may want to switch on or off (an assert, a guard, the negation of a guard, a
query) gets a selector ``p`` with ``p -> F`` asserted once; a check is then ``check(p1, p2, …)``.
Learned lemmas survive between checks, nothing is re-translated, and an unsat answer comes with
a core of selectors that maps straight back to ids.

This is the one place where foreign exceptions (z3, pysmt) become symguard outcomes or errors.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import z3
from pysmt.exceptions import PysmtException
from pysmt.solvers.z3 import Z3Converter

from solver.errors import InternalError
from solver.ir.problem import Problem
from solver.ir.terms import Term
from solver.smt.encode import Encoding

SAT, UNSAT, UNKNOWN = "sat", "unsat", "unknown"


@dataclass(frozen=True)
class Outcome:
    status: str
    model: dict[str, int | bool] = field(default_factory=dict)
    core: tuple[int, ...] = ()  # selector handles (see Checker.selector)
    reason: str | None = None


class Deadline:
    """The operation's time budget (options.timeout_ms, docs/problem-format.md §1.3), shared by all its checks."""

    def __init__(self, budget_ms: int) -> None:
        self.budget_ms = budget_ms
        self.end = time.monotonic() + budget_ms / 1000.0

    def remaining_ms(self) -> int:
        return max(0, int((self.end - time.monotonic()) * 1000))

    @property
    def expired(self) -> bool:
        return time.monotonic() >= self.end


class Checker:
    """z3 behind pysmt's translation; formulas are converted once and switched by selectors."""

    def __init__(self, problem: Problem, deadline: Deadline) -> None:
        self.problem = problem
        self.deadline = deadline
        self.enc = Encoding()
        self.conv = Z3Converter(self.enc.env, z3.main_ctx())
        self.solver = z3.Solver()
        self._defs_done = 0
        self._selectors: dict[Term, int] = {}
        self._lits: list[z3.BoolRef] = []
        self._by_zid: dict[int, int] = {}
        self._neg_selectors: dict[Term, int] = {}
        self._lit_terms: list[Term | None] = []  # per handle: the IR term it switches on (or negates)
        self._lit_impl: list[z3.BoolRef] = []  # per handle: ``lit -> formula`` as handed to z3
        self._ranges_z3: list[z3.BoolRef] = []
        self._defs_z3: dict[tuple[bool, Term, Term], z3.BoolRef] = {}
        self.checks = 0
        self.solver_ms = 0.0
        self._sym_z3 = {s.name: self.conv.convert(self.enc.symbol(s.name, s.is_bool)) for s in problem.symbols}
        for s in problem.symbols:
            self._add(self.enc.range_constraint(s))
            self._ranges_z3.append(self.conv.convert(self.enc.range_constraint(s)))

    # -------------------------------------------------------------- building
    def _add(self, f: object) -> None:
        try:
            self.solver.add(self.conv.convert(f))
        except (PysmtException, z3.Z3Exception) as e:  # pragma: no cover - translation bug
            raise InternalError(f"could not hand a formula to z3: {e}") from e

    def _sync_definitions(self) -> None:
        defs = self.enc.definitions
        while self._defs_done < len(defs):
            self._add(defs[self._defs_done])
            self._defs_done += 1

    def assert_hard(self, t: Term) -> None:
        self._add(self.enc.formula(t))
        self._sync_definitions()

    def selector(self, t: Term) -> int:
        """A handle whose literal, when assumed, makes ``t`` hold."""
        h = self._selectors.get(t)
        if h is None:
            h = self._new_lit(self.enc.formula(t), t)
            self._selectors[t] = h
        return h

    def negation(self, t: Term) -> int:
        """A handle whose literal, when assumed, makes ``t`` fail."""
        h = self._neg_selectors.get(t)
        if h is None:
            h = self._new_lit(self.enc.mgr.Not(self.enc.formula(t)), t)
            self._neg_selectors[t] = h
        return h

    def _new_lit(self, f: object, t: Term | None = None) -> int:
        h = len(self._lits)
        lit = z3.Bool(f".p{h}")
        self._lits.append(lit)
        self._by_zid[lit.get_id()] = h
        self._lit_terms.append(t)
        try:
            impl = z3.Implies(lit, self.conv.convert(f))
            self._lit_impl.append(impl)
            self.solver.add(impl)
        except (PysmtException, z3.Z3Exception) as e:  # pragma: no cover
            raise InternalError(f"could not hand a formula to z3: {e}") from e
        self._sync_definitions()
        return h

    # -------------------------------------------------------------- checking
    def check(self, handles: Iterable[int], *, budget_ms: int | None = None,
              extra: Sequence[z3.BoolRef] = ()) -> Outcome:
        """Check the conjunction of the selected formulas (plus ranges and definitions)."""
        remaining = self.deadline.remaining_ms()
        ms = remaining if budget_ms is None else min(budget_ms, remaining)
        if ms <= 0:
            return Outcome(UNKNOWN, reason="timeout")
        hs = list(handles)
        self.solver.set("timeout", ms)
        self.checks += 1
        t0 = time.perf_counter()
        try:
            r = self.solver.check(*[self._lits[h] for h in hs], *extra)
        except z3.Z3Exception as e:
            return Outcome(UNKNOWN, reason="resource" if "memory" in str(e).lower() else "incomplete")
        finally:
            self.solver_ms += (time.perf_counter() - t0) * 1000
        if r == z3.sat:
            return Outcome(SAT, model=self._model())
        if r == z3.unsat:
            core = tuple(sorted(self._by_zid[c.get_id()] for c in self.solver.unsat_core()
                                if c.get_id() in self._by_zid))
            return Outcome(UNSAT, core=core)
        return Outcome(UNKNOWN, reason=_reason(self.solver.reason_unknown(), self.deadline, ms))

    def check_scoped(self, handles: Iterable[int], *, budget_ms: int | None = None) -> Outcome:
        """As ``check``, in a fresh z3 solver holding only the selected formulas, the ranges and
        the division definitions those formulas use. The incremental solver carries every
        definition and selector ever created, and with non-linear terms among them z3's
        arithmetic works on all of them in every check; a scoped check does not."""
        remaining = self.deadline.remaining_ms()
        ms = remaining if budget_ms is None else min(budget_ms, remaining)
        if ms <= 0:
            return Outcome(UNKNOWN, reason="timeout")
        hs = list(handles)
        s = z3.Solver()
        s.set("timeout", ms)
        s.add(*self._ranges_z3)
        keys: dict[tuple[bool, Term, Term], None] = {}
        for h in hs:
            t = self._lit_terms[h]
            if t is None:
                raise InternalError("a scoped check needs selectors built from IR terms")
            for k in self.enc.pairs_of(t):
                keys[k] = None
            s.add(self._lit_impl[h])
        for k in keys:
            d = self._defs_z3.get(k)
            if d is None:
                f = self.enc.pair_def.get(k)
                if f is None:
                    continue
                d = self._defs_z3[k] = self.conv.convert(f)
            s.add(d)
        self.checks += 1
        t0 = time.perf_counter()
        try:
            r = s.check(*[self._lits[h] for h in hs])
        except z3.Z3Exception as e:
            return Outcome(UNKNOWN, reason="resource" if "memory" in str(e).lower() else "incomplete")
        finally:
            self.solver_ms += (time.perf_counter() - t0) * 1000
        if r == z3.sat:
            m = s.model()
            out: dict[str, int | bool] = {}
            for name, v in self._sym_z3.items():
                val = m.eval(v, model_completion=True)
                out[name] = z3.is_true(val) if z3.is_bool(val) else val.as_long()
            return Outcome(SAT, model=out)
        if r == z3.unsat:
            core = tuple(sorted(self._by_zid[c.get_id()] for c in s.unsat_core()
                                if c.get_id() in self._by_zid))
            return Outcome(UNSAT, core=core)
        return Outcome(UNKNOWN, reason=_reason(s.reason_unknown(), self.deadline, ms))

    def _model(self) -> dict[str, int | bool]:
        m = self.solver.model()
        out: dict[str, int | bool] = {}
        for name, v in self._sym_z3.items():
            val = m.eval(v, model_completion=True)
            out[name] = z3.is_true(val) if z3.is_bool(val) else val.as_long()
        return out

    def z3_term(self, t: Term) -> z3.ExprRef:
        """The z3 expression of an IR term (definitions it needs are asserted)."""
        e = self.conv.convert(self.enc.formula(t))
        self._sync_definitions()
        return e

    def z3_symbol(self, name: str) -> z3.ExprRef:
        return self._sym_z3[name]

    def literal(self, handle: int) -> z3.BoolRef:
        """The z3 literal behind a selector handle (to hand the same switch to z3.Optimize)."""
        return self._lits[handle]


def _reason(text: str, deadline: Deadline, ms: int) -> str:
    low = text.lower()
    if "timeout" in low or "canceled" in low or "cancelled" in low or deadline.expired:
        return "timeout"
    if "memory" in low or "resource" in low or "max." in low:
        return "resource"
    return "incomplete"
