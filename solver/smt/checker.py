"""One incremental z3 session per problem, driven through assumption literals.

Each formula we may want to switch on or off (an assert, a guard, the negation of a guard, a
query) gets a selector ``p`` with ``p -> F`` asserted once; a check is then ``check(p1, p2, …)``.
Learned lemmas survive between checks, nothing is re-translated, and an unsat answer comes with
a core of selectors that maps straight back to ids.

Budgets are deterministic (issue 13): a verdict must not depend on the machine's load. Every
decision inside an operation is budgeted in z3 *resource units* (``rlimit``), never in
milliseconds. A check is granted units, z3 stops deterministically when they run out, and the
units it used (the context's ``rlimit count`` before and after; z3 reports it per context,
cumulatively) are charged to the operation's ``Deadline``. Each operation gets its own
``z3.Context``: AST ids, and with them z3's search, then do not depend on what the process solved
before (in the shared main context the same problem gave two different smallest models in one
process). Checks always run with at least one assumption, which keeps z3 on its incremental
kernel; without one it may pick a tactic with a wall-clock ``try_for`` inside.

``options.timeout_ms`` becomes units through ``UNITS_PER_MS`` (calibrated on the corpus' checks
so that spending every unit fits well inside ``timeout_ms`` on a loaded machine: see the
constant) and survives as time only in the outer limit of the whole call (``outer_ms``: wall
clock, ``timeout_ms`` + 10 % + 50 ms from the start of the call, also z3's own ``timeout`` in
each check). When it passes, or a watchdog calls ``Deadline.interrupt``, the next check — or the
running one — raises ``OutOfTime``: the caller answers the operation's sound ``unknown`` result
for everything instead of a partial, load-dependent one. So the answer is the same on any machine
whose load lets the units be spent within ``timeout_ms``, and never late on any machine.

This is the one place where foreign exceptions (z3, pysmt) become symguard outcomes or errors.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import z3
from pysmt.exceptions import PysmtException
from pysmt.solvers.z3 import Z3Converter

from symguard.solver.errors import InternalError
from symguard.solver.ir.problem import DEFAULT_EFFORT, Options, Problem
from symguard.solver.ir.terms import Term
from symguard.solver.smt.encode import Encoding, PairKey

SAT, UNSAT, UNKNOWN = "sat", "unsat", "unknown"

# z3 resource units granted per millisecond of ``timeout_ms``. Measured on the corpus (redundancy
# and shrink on swin, vit_patchify, wav2vec2, reshape_zoo, focalnet; redundancy on synthetic_500),
# per ms of CPU time: checks doing real search count 900-2,000 units. At 300 a 2 s budget buys
# z3 about 0.3-0.6 s of search in all, so an operation that spends every unit on search stays
# well inside timeout_ms even on a machine two to three times slower or busier (then the
# wall-clock outer limit, a promise to the caller, would cut it short). Measured at 2 s on the
# torch corpus (2-core VM, load 10): 100 left focalnet_37x45_compile with 2 guards unknown, 300
# with none, at 0.4 -> 0.6 s of CPU; 1,000 overran the outer limit on focalnet_64x64_compile.
UNITS_PER_MS = 300
# The outer limit of a whole operation, wall clock, counted from the start of the caller's call:
# timeout_ms plus a share and a slack, so that a call answers within timeout_ms + 20 % + 100 ms
# with mapping back and returning included (the library's watchdog and the server hold to it).
# It ends an operation only when its units could not be spent in time (a machine slower or more
# loaded than the units assume): then the answer is the sound "nothing decided" result, never a
# partial, load-dependent one.
WALL_SHARE, WALL_SLACK_MS = 0.1, 50


def units(ms: float) -> int:
    """The resource units that stand for ``ms`` milliseconds of ``timeout_ms``."""
    return max(0, int(ms * UNITS_PER_MS))


# What a check costs beyond the units z3 counts, charged in units so that the number of checks
# is bounded too: z3 counts search, not setup. Measured here: a check ~0.25 ms, plus ~0.03 ms per
# assumption (the incremental checks of a 500-guard set carry 265 and took ~8 ms for 1,000
# counted units); a fresh scoped solver ~2 ms (its first assertion builds z3's SMT context) plus
# ~0.05 ms per formula. Charged at twice that (SETUP_SHARE): a run made of many small checks
# (synthetic_500) then spends its units in about half of timeout_ms, leaving the other half as
# margin for a slower machine, like the search units above.
SETUP_SHARE = 2
CHECK_COST, ASSUMPTION_COST = units(0.25 * SETUP_SHARE), units(0.03 * SETUP_SHARE)
SCOPED_COST, FORMULA_COST = units(2 * SETUP_SHARE), units(0.05 * SETUP_SHARE)


RUNG = 4  # above the default effort, each plan is this many times the one below


def plan_units(effort: int) -> int:
    """The units an operation plans its work for at ``effort`` (docs/problem-format.md, the
    effort row): up to the default, the default's plan, stopped where the effort runs out
    (``Deadline.cap``), so a smaller effort does a prefix of a larger one's work and decides a
    subset of what it decides; above it the largest rung ``DEFAULT_EFFORT * RUNG**k`` within the
    effort (``solver.api.compute`` runs the rungs below it first, each only where the one below
    left something open)."""
    plan = DEFAULT_EFFORT
    while plan * RUNG <= effort:
        plan *= RUNG
    return plan


def outer_ms(timeout_ms: int) -> int:
    """The outer wall-clock limit (ms) of a whole operation whose options say ``timeout_ms``."""
    return int(timeout_ms * (1 + WALL_SHARE)) + WALL_SLACK_MS


# What answering costs once the work stops (the partial answer, mapping it back to the caller's
# ids, returning), kept in reserve before the outer limit so the answer still leaves within it:
# measured on the corpus, library, in-process, ~1 ms plus ~2 us per entry quiet (swin, 537
# guards: partial report 0.6 ms, ``finish`` 0.8 ms), 3-10x that at load 6-10; reserved at about
# ten times the quiet figure, and never more than half the outer limit (a huge problem at a tiny
# timeout_ms answers its timeout result at once instead)
FINISH_MS, FINISH_PER_ENTRY_MS = 8.0, 0.02
CONTEXT_MS = 25  # the wall time a new z3 context may take (``Deadline.ctx``)
# z3 notices its ``timeout`` late: checks given 4-8 ms of wall time answered after 12-15 ms at load
# 5; each check gets this much less than what is left, and none starts without it
Z3_LATE_MS = 10
NEW_LITS_PER_TIME_CHECK = 16  # selectors translated between two looks at the outer limit (~2-8 ms)


def finish_ms(entries: int, timeout_ms: int) -> float:
    """The reserve (ms) for answering a problem of ``entries`` asserts, guards and queries."""
    return min(FINISH_MS + FINISH_PER_ENTRY_MS * entries, outer_ms(timeout_ms) / 2)


class OutOfTime(Exception):
    """The outer limit passed (or ``Deadline.interrupt`` was called) during an operation. Not a ``SymguardError``: it never reaches a caller; the library turns it into the
    operation's sound ``unknown`` result (reason ``timeout``, never cached)."""


class OutOfEffort(OutOfTime):
    """The effort ran out where the planned computation would have gone on (``Deadline.cap``):
    the operation stops exactly there, as the wall clock would stop it, and answers what it has
    decided so far. Unlike the clock this stop is deterministic: the caller relabels the answer
    (reason ``resource``, not ``incomplete``: ``solver.ops.operation.settled``)."""


@dataclass(frozen=True)
class Outcome:
    status: str
    model: dict[str, int | bool] = field(default_factory=dict)
    core: tuple[int, ...] = ()  # selector handles (see Checker.selector)
    reason: str | None = None


class Deadline:
    """An operation's budget (options.timeout_ms, docs/problem-format.md §1.3), shared by all its checks.

    ``units`` (z3 resource units) decide everything inside the operation: each split between
    checks is computed from ``remaining()``. Time only ends the whole operation (``OutOfTime``):
    the wall clock passing ``wall_end`` (``limit_ms``, default ``outer_ms(timeout_ms)``, after
    ``started``, default now), or ``interrupt()`` from a watchdog. One z3 context per deadline
    (``ctx``): every z3 object of the operation lives in it.
    """

    # the wall clock every deadline reads (monotonic seconds); tests put a clock of their own here
    clock: Callable[[], float] = staticmethod(time.monotonic)

    @classmethod
    def for_options(cls, options: Options, *, started: float | None = None, entries: int = 0,
                    plan: int | None = None) -> Deadline:
        """An operation's deadline from its options: ``effort`` units decide, ``timeout_ms``
        (wall clock, from ``started``) only ends the call (then the answer is partial), early
        enough to answer a problem of ``entries`` entries within the outer limit (``finish_ms``).
        The work is planned for ``plan`` units (``plan_units`` of the effort unless given: a rung of
        ``solver.api.compute``) and capped at the effort."""
        t = options.timeout_ms
        plan = plan_units(options.effort) if plan is None else plan
        return cls(t, budget_units=plan, cap=min(options.effort, plan), started=started,
                   limit_ms=outer_ms(t) - finish_ms(entries, t))

    def __init__(self, budget_ms: int, *, budget_units: int | None = None, cap: int | None = None,
                 limit_ms: float | None = None, started: float | None = None) -> None:
        self.budget_ms = budget_ms
        self.units = units(budget_ms) if budget_units is None else budget_units
        # the units the operation may really spend; the plan (``units``) may be larger: then the
        # planned computation runs until a step needs more than is left of the cap (``OutOfEffort``)
        self.cap = self.units if cap is None else cap
        self.cut = False  # the cap stopped the operation (``OutOfEffort``)
        self.spent = 0
        limit = (outer_ms(budget_ms) if limit_ms is None else limit_ms) / 1000.0
        self.wall_end = (self.clock() if started is None else started) + limit
        self._ctx: z3.Context | None = None
        self._stop = threading.Event()

    @property
    def ctx(self) -> z3.Context:
        """The operation's own z3 context, made on first use (an operation that needs no solver
        call, most redundancy runs on the corpus, never pays for it). Making one is native work
        nothing interrupts, 1-35 ms (more while the previous operation's context still awaits
        Python's collector): it starts only with ``CONTEXT_MS`` left before the outer limit."""
        if self._ctx is None:
            if self.wall_left_ms() < CONTEXT_MS:
                raise OutOfTime
            self._ctx = z3.Context()
        return self._ctx

    @property
    def made_context(self) -> z3.Context | None:
        """The z3 context if one was made (``ctx`` makes one)."""
        return self._ctx

    def remaining(self) -> int:
        """Resource units left for the operation's checks."""
        return max(0, self.units - self.spent)

    def charge(self, used: int) -> None:
        """Count units already used (a check's, after it ran)."""
        self.spent += max(0, used)

    def cap_left(self) -> int:
        return max(0, self.cap - self.spent)

    def stop(self) -> OutOfEffort:
        """The cap ends the operation here (raise the result)."""
        self.cut = True
        return OutOfEffort()

    def pay(self, cost: int) -> None:
        """Charge ``cost`` units of Python work about to be done (the plan ``affords`` it): past
        the cap the operation stops before the work, where a larger effort would do it."""
        if cost > self.cap_left():
            raise self.stop()
        self.charge(cost)

    def admits(self, budget: int | None, cost: int) -> bool:
        """Whether a check of ``budget`` units whose setup costs ``cost`` is worth starting: not
        when the plan leaves no more than its setup (it would answer ``unknown``, deterministically);
        when the plan would but the cap cannot pay the setup, the operation stops (``OutOfEffort``)."""
        if self.grant(budget) <= cost:
            return False
        if self.cap_left() <= cost:
            raise self.stop()
        return True

    @property
    def expired(self) -> bool:
        """What is left cannot pay for one more check (``CHECK_COST``): every further check would
        answer ``unknown`` (deterministically), so a caller skips building it."""
        return self.remaining() <= CHECK_COST

    def affords(self, cost: int) -> bool:
        """Whether ``cost`` units of counted work (a check's setup, a residue split) are left."""
        return self.remaining() >= cost

    def wall_left_ms(self) -> int:
        return max(0, int((self.wall_end - self.clock()) * 1000))

    @property
    def out_of_time(self) -> bool:
        """The outer limit passed or an interrupt came: the operation's answer would depend on load."""
        return self._stop.is_set() or self.clock() >= self.wall_end

    def ensure_time(self) -> None:
        """Raise ``OutOfTime`` once the outer limit has passed (call between pieces of work)."""
        if self.out_of_time:
            raise OutOfTime

    def adopt_context(self, other: Deadline) -> None:
        """Use the z3 context of ``other`` (a session kept across requests, ``solver.session``):
        the z3 objects it built live there, and this deadline's ``interrupt`` must reach them."""
        self._ctx = other.ctx

    def release(self) -> None:
        """Drop the reference to the z3 context at the end of the operation: whatever of the
        operation still holds this deadline (a bound ``ensure_time`` in a walk's memo, which sits
        in a reference cycle) then frees the context by reference counting, at the same step
        every time, never later by Python's cycle collector. A context adopted from a session
        stays alive through the session's own deadline."""
        self._ctx = None

    def interrupt(self) -> None:
        """End the operation from another thread (a watchdog): the running z3 check stops and
        raises ``OutOfTime`` in the thread running the operation, as does every later check."""
        self._stop.set()
        ctx = self._ctx
        if ctx is not None:
            ctx.interrupt()

    def grant(self, budget: int | None) -> int:
        """Units the plan grants one check: ``budget`` (all that is left when None), never more
        than is left (``run`` cuts it to the cap)."""
        left = self.remaining()
        return left if budget is None else max(0, min(budget, left))

    def run(self, s: z3.Solver | z3.Optimize, budget: int | None, args: Sequence[z3.BoolRef],
            cost: int = CHECK_COST) -> tuple[z3.CheckSatResult | None, bool]:
        """``s.check(*args)`` under ``budget`` units and the outer limit; charges ``cost`` (the
        setup) and the units z3 used.

        Returns (z3's answer, whether the units ran out); (None, True) when the plan's grant does
        not cover ``cost``. Raises ``OutOfTime`` when the hang guard or an interrupt ended it,
        ``OutOfEffort`` when the cap cut a check short that ran out (or cannot pay its setup),
        ``Z3Failed`` on a z3 exception. A check the cap cut short that still finished goes on as
        with the whole plan: z3 took the same steps (rlimit only stops it)."""
        if not self.admits(budget, cost):
            self.ensure_time()
            return None, True
        planned = self.grant(budget)
        grant = min(planned, self.cap_left()) - cost
        short = grant < planned - cost
        self.ensure_time()
        self.charge(cost)
        wall = self.wall_left_ms() - Z3_LATE_MS
        if wall <= 0:
            raise OutOfTime
        s.set("rlimit", grant)
        s.set("timeout", wall)
        before = _rlimit_count(s)
        try:
            r = s.check(*args)
        except z3.Z3Exception as e:
            self.charge(_rlimit_count(s) - before)
            if self.out_of_time:
                raise OutOfTime from None
            raise Z3Failed("resource" if "memory" in str(e).lower() else "incomplete") from e
        used = _rlimit_count(s) - before
        self.charge(used)
        if r == z3.unknown:
            low = s.reason_unknown().lower()
            if used >= grant or "resource limit" in low:  # the units ran out: deterministic
                if short:
                    raise self.stop()
                return r, True
            if self.out_of_time or "cancel" in low or "timeout" in low:
                raise OutOfTime  # the hang guard or an interrupt, not the units: load-dependent
        return r, False


class Z3Failed(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _rlimit_count(s: z3.Solver | z3.Optimize) -> int:
    """The context's resource counter (z3 reports it in every solver's statistics). Looked up
    from the end: z3 lists it among the last few of what can be a hundred counters after a
    check, and ``get_key_value`` reads every key before it (two lookups per check)."""
    try:
        st = s.statistics()
        ref, stats = st.ctx.ref(), st.stats
        for idx in range(len(st) - 1, -1, -1):
            if z3.Z3_stats_get_key(ref, stats, idx) == "rlimit count":
                return int(z3.Z3_stats_get_uint_value(ref, stats, idx))
        return 0  # pragma: no cover - every z3 since 4.5 reports it
    except z3.Z3Exception:  # pragma: no cover
        return 0


def _assert(s: z3.Solver, e: z3.BoolRef) -> None:
    """``s.add(e)`` for a formula known to be Boolean and of the solver's context: z3's Python
    layer re-checks each argument's sort first, which cost as much as the assertion itself."""
    z3.Z3_solver_assert(s.ctx.ref(), s.solver, e.as_ast())


class Checker:
    """z3 behind pysmt's translation; formulas are converted once and switched by selectors."""

    def __init__(self, problem: Problem, deadline: Deadline) -> None:
        self.problem = problem
        self.deadline = deadline
        self.enc = Encoding()
        self.ctx = deadline.ctx
        self.conv = Z3Converter(self.enc.env, self.ctx)
        self.solver = z3.Solver(ctx=self.ctx)
        self._on = z3.Bool(".on", self.ctx)  # an assumption in every check: z3's incremental kernel
        self._defs_done = 0
        self._deferred: dict[PairKey, object] = {}  # definitions only scoped-only handles used so far (``lemma``)
        self._scoped_only: set[int] = set()  # handles made by ``lemma``: never in the incremental solver
        self._lemmas: dict[tuple[Term, bool], int] = {}
        self._selectors: dict[Term, int] = {}
        self._lits: list[z3.BoolRef] = []
        self._by_zid: dict[int, int] = {}
        self._neg_selectors: dict[Term, int] = {}
        self._lit_terms: list[Term | None] = []  # per handle: the IR term it switches on (or negates)
        self._lit_impl: list[z3.BoolRef] = []  # per handle: ``lit -> formula`` as handed to z3
        self._ranges_z3: list[z3.BoolRef] = []
        self._defs_z3: dict[PairKey, z3.BoolRef] = {}
        self._new_since_check = 0
        self.checks = 0
        self.solver_ms = 0.0
        self.units = 0  # resource units this checker's checks used
        self._sym_z3 = {s.name: self.conv.convert(self.enc.symbol(s.name, s.is_bool)) for s in problem.symbols}
        for s in problem.symbols:
            r = self._z3(self.enc.range_constraint(s))
            _assert(self.solver, r)
            self._ranges_z3.append(r)

    def close(self) -> None:
        """Release every z3 reference this checker holds, now. The operation's z3 context outlives
        a checker (redundancy runs two passes in one context, a ray check makes its own checker
        beside evaluate's), and z3 hands a freed AST's id to the next AST it makes, ids that steer
        its search. pysmt's converter sits in a reference cycle (its dispatch tables hold bound
        methods) and gives its ASTs back only when Python's cycle collector runs, at a moment
        set by everything the process allocated before: one problem, solved twice in one
        process, spent different units on the same check and answered differently. Closing
        makes the release happen at the same step every time."""
        conv = self.conv
        ref = self.ctx.ref()
        for t in conv.memoization.values():  # what pysmt's ``__del__`` would do, later
            z3.Z3_dec_ref(ref, t)
        conv.memoization.clear()
        conv._back_memoization.clear()
        conv.functions.clear()  # the cycle: the converter's shell now goes by reference counting
        conv._back_fun.clear()
        self._lits.clear()
        self._lit_impl.clear()
        self._by_zid.clear()
        self._ranges_z3.clear()
        self._defs_z3.clear()
        self._sym_z3.clear()
        del self.solver, self._on  # a closed checker checks nothing more

    # -------------------------------------------------------------- building
    def _z3(self, f: object) -> z3.BoolRef:
        try:
            return self.conv.convert(f)  # type: ignore[no-any-return]
        except (PysmtException, z3.Z3Exception) as e:  # pragma: no cover - translation bug
            raise InternalError(f"could not hand a formula to z3: {e}") from e

    def _add(self, f: object) -> None:
        _assert(self.solver, self._z3(f))

    def _sync_definitions(self, t: Term | None = None) -> None:
        """The division definitions made since the last call, into the incremental solver (those
        only a ``lemma`` made wait until a formula of that solver, ``t``, uses them)."""
        defs = self.enc.definitions
        while self._defs_done < len(defs):
            self._add(defs[self._defs_done])
            self._defs_done += 1
        if self._deferred and t is not None:
            for k in self.enc.pairs_of(t):
                f = self._deferred.pop(k, None)
                if f is not None:
                    self._add(f)

    def assert_hard(self, t: Term) -> None:
        self._add(self.enc.formula(t))
        self._sync_definitions(t)

    def selector(self, t: Term) -> int:
        """A handle whose literal, when assumed, makes ``t`` hold. Translating a formula is
        Python work z3's timeout does not reach (an optimizer's 296 selectors on a Swin set: 0.2 s
        past the deadline), so a new one is made only before the outer limit (``OutOfTime``)."""
        h = self._selectors.get(t)
        if h is None:
            self._mind_time()
            h = self._new_lit(self.enc.formula(t), t)
            self._selectors[t] = h
        return h

    def negation(self, t: Term) -> int:
        """A handle whose literal, when assumed, makes ``t`` fail."""
        h = self._neg_selectors.get(t)
        if h is None:
            self._mind_time()
            h = self._new_lit(self.enc.mgr.Not(self.enc.formula(t)), t)
            self._neg_selectors[t] = h
        return h

    def lemma(self, t: Term, *, negated: bool = False) -> int:
        """A handle for ``check_scoped`` only whose literal makes ``t`` hold (fail, ``negated``):
        a formula implied by what a check assumes, there to help z3 (``reason.restate``). It is
        never asserted in the incremental solver, nor are the definitions only it needs: that
        solver's history, which steers its search, stays what it was without the lemma."""
        h = (self._neg_selectors if negated else self._selectors).get(t)
        if h is not None:
            return h
        h = self._lemmas.get((t, negated))
        if h is None:
            self._mind_time()
            self._sync_definitions()
            f = self.enc.formula(t)
            for k in self.enc.def_keys[self._defs_done:]:
                self._deferred[k] = self.enc.pair_def[k]
            self._defs_done = len(self.enc.definitions)
            h = self._new_lit(self.enc.mgr.Not(f) if negated else f, t, incremental=False)
            self._lemmas[(t, negated)] = h
        return h

    def _mind_time(self) -> None:
        """The outer limit, looked at every ``NEW_LITS_PER_TIME_CHECK`` new selectors (a few ms)."""
        self._new_since_check += 1
        if self._new_since_check >= NEW_LITS_PER_TIME_CHECK:
            self._new_since_check = 0
            self.deadline.ensure_time()

    def selected(self, handle: int) -> Term | None:
        """The IR term a ``selector`` handle switches on (None for a negation's handle)."""
        t = self._lit_terms[handle]
        return t if t is not None and self._selectors.get(t) == handle else None

    def _new_lit(self, f: object, t: Term | None = None, *, incremental: bool = True) -> int:
        h = len(self._lits)
        lit = z3.Bool(f".p{h}", self.ctx)
        self._lits.append(lit)
        self._by_zid[lit.get_id()] = h
        self._lit_terms.append(t)
        body = self._z3(f)
        impl = z3.BoolRef(z3.Z3_mk_implies(self.ctx.ref(), lit.as_ast(), body.as_ast()), self.ctx)
        self._lit_impl.append(impl)
        if not incremental:
            self._scoped_only.add(h)
            return h
        _assert(self.solver, impl)
        self._sync_definitions(t)
        return h

    # -------------------------------------------------------------- checking
    def check(self, handles: Iterable[int], *, budget: int | None = None,
              extra: Sequence[z3.BoolRef] = ()) -> Outcome:
        """Check the conjunction of the selected formulas (plus ranges and definitions) within
        ``budget`` resource units (all that is left when None)."""
        hs = list(handles)
        if self._scoped_only.intersection(hs):  # its formula is not in the incremental solver
            raise InternalError("a lemma handle is for scoped checks only")
        return self._run(self.solver, [*(self._lits[h] for h in hs), *extra], budget)

    def check_scoped(self, handles: Iterable[int], *, budget: int | None = None) -> Outcome:
        """As ``check``, in a fresh z3 solver holding only the selected formulas, the ranges and
        the division definitions those formulas use. The incremental solver carries every
        definition and selector ever created, and with non-linear terms among them z3's
        arithmetic works on all of them in every check; a scoped check does not."""
        hs = list(handles)
        forms = list(self._ranges_z3)
        keys: dict[PairKey, None] = {}
        for h in hs:
            t = self._lit_terms[h]
            if t is None:
                raise InternalError("a scoped check needs selectors built from IR terms")
            for k in self.enc.pairs_of(t):
                keys[k] = None
            forms.append(self._lit_impl[h])
        for k in keys:
            d = self._defs_z3.get(k)
            if d is None:
                f = self.enc.pair_def.get(k)
                if f is None:
                    continue
                d = self._defs_z3[k] = self.conv.convert(f)
            forms.append(d)
        cost = CHECK_COST + ASSUMPTION_COST * len(hs) + SCOPED_COST + FORMULA_COST * len(forms)
        if not self.deadline.admits(budget, cost):  # not worth building the solver
            self.checks += 1
            self.deadline.ensure_time()
            return Outcome(UNKNOWN, reason="resource")
        s = z3.Solver(ctx=self.ctx)
        for f in forms:
            _assert(s, f)
        return self._run(s, [self._lits[h] for h in hs], budget, cost)

    def _run(self, s: z3.Solver, lits: list[z3.BoolRef], budget: int | None,
             cost: int | None = None) -> Outcome:
        self.checks += 1
        spent = self.deadline.spent
        t0 = time.perf_counter()
        try:
            if cost is None:
                cost = CHECK_COST + ASSUMPTION_COST * len(lits)
            r, ran_out = self.deadline.run(s, budget, [self._on, *lits], cost)
        except Z3Failed as e:
            return Outcome(UNKNOWN, reason=e.reason)
        finally:
            self.solver_ms += (time.perf_counter() - t0) * 1000
            self.units += self.deadline.spent - spent
        if r is None or ran_out:  # the effort ran out (the wall clock raises OutOfTime instead)
            return Outcome(UNKNOWN, reason="resource")
        if r == z3.sat:
            return Outcome(SAT, model=self._model(s.model()))
        if r == z3.unsat:
            core = tuple(sorted(self._by_zid[c.get_id()] for c in s.unsat_core()
                                if c.get_id() in self._by_zid))
            return Outcome(UNSAT, core=core)
        return Outcome(UNKNOWN, reason=_reason(s.reason_unknown()))

    def _model(self, m: z3.ModelRef) -> dict[str, int | bool]:
        out: dict[str, int | bool] = {}
        for name, v in self._sym_z3.items():
            val = m.eval(v, model_completion=True)
            out[name] = z3.is_true(val) if z3.is_bool(val) else val.as_long()
        return out

    def z3_term(self, t: Term) -> z3.ExprRef:
        """The z3 expression of an IR term (definitions it needs are asserted)."""
        e = self.conv.convert(self.enc.formula(t))
        self._sync_definitions(t)
        return e

    def z3_symbol(self, name: str) -> z3.ExprRef:
        return self._sym_z3[name]

    def literal(self, handle: int) -> z3.BoolRef:
        """The z3 literal behind a selector handle (to hand the same switch to z3.Optimize)."""
        return self._lits[handle]


def _reason(text: str) -> str:
    """Why z3 gave up by itself (the units and the wall clock are told apart by ``Deadline.run``)."""
    low = text.lower()
    if "memory" in low or "resource" in low or "max." in low:
        return "resource"
    return "incomplete"
