"""docs/problem-format.md §2 ``redundancy``: a verdict per guard and a minimal equivalent guard set.

Algorithm (one incremental solver, selectors for every guard and its negation):

1. Decide without z3 what needs no search (``cheap``): unsupported entries, constant guards,
   guards that repeat an assert or an earlier guard, interval facts.
2. ``always_true``: ``A & ~g`` unsat. Every model found on the way is evaluated in Python
   against the other pending guards: a model of ``A`` that violates ``h`` proves ``h`` is not
   always true, and saves its check.
3. Greedy deletion over the rest, in removal order (``prefer``): drop ``g`` when
   ``A & (K - {g}) & ~g`` is unsat. Removals only weaken ``K``, so a guard that was required
   against a larger ``K`` stays required: the result is irredundant, and by induction on the
   removal order ``A & K_final`` implies every dropped guard (equivalence).
4. ``implied_by`` comes from the unsat core of the removal check, re-derived against the final
   set when the core named a guard that was dropped later.

If ``A & G`` is unsat, step 3 becomes deletion-based unsat-core minimization instead.
An ``unknown`` check keeps the guard: never a guess.

Budgets are z3 resource units (``checker.Deadline``): every split between checks is computed from
the units left, so the verdicts and ``minimal`` are the same on any machine and under any load.

Levers before z3 (each sound on its own, counted in ``stats.levers``):

* ``rewrite``: every term is first put in ``rewrite``'s canonical form under the ranges and the
  asserts' facts; a guard that becomes a constant is decided, two guards with one canonical form
  are duplicates, and z3 only ever sees the (smaller, division-light) canonical forms;
* ``points``: ``reason.points.Pool`` points of ``ranges & A`` (hints, moves from them, z3 models,
  and before a z3 check a targeted search moving ``g``'s own symbols from the hints): one where
  ``g`` fails refutes ``always_true``; one where ``g`` fails and the rest of the kept set holds
  proves ``required`` — re-checked on the original terms first;
* ``facts``: ``g`` rewritten under the atoms of the asserts and of the other kept guards becomes
  ``True``: redundant, implied by the guards whose facts were consulted;
* ``equalities``: union-find over the kept ``Eq(s, t)``/``Eq(s, k)`` guards (``reason.equalities``):
  an equality whose sides the others connect is implied by the path's guards; any other guard is
  rewritten with class representatives under the substituted facts (sources: the equalities used
  plus the facts consulted);
* quotient variables (before any lever, per pass): a size every occurrence of which is a
  quotient ``(s + a)//b`` of one chain (``B | b``, one ``a mod B``) becomes the symbol
  ``u = (s + a mod B)//B`` (``reason.quotient_vars``:
  onto its range, so every verdict is one of the original); SAM2's padded ``ceil(s/4)``, not ``s``,
  is what the guards make a multiple of, and the ``multiples`` lever then climbs it;
* ``multiples``: where the kept guards make a symbol a multiple of ``m`` (``reason.multiples``:
  stated, or climbed prime power by prime power on residue walks, with the guards that show it),
  ``s = m*k`` is substituted into the guard and the kept guards' facts before rewriting (tried
  before ``facts``): ``s//(8*(s//16))`` is 2 where ``32 | s``; sources: the facts consulted
  plus the guards behind each multiple used;
* ``residues``: a guard comparing periodic terms (``Mod`` of integer polynomials in the symbols,
  ``Eq(Mod(s0*s1 + 3, 6), 3)``) decided on residue classes against the kept guards of that form
  (``reason.residues``: implied when no class of the facts fails it; a class where it fails, at
  points near the hints, re-checked against everything, proves ``required``);
* ``extremes``: a comparison split at its ``Max``/``Min`` into an and/or tree of comparisons of
  their arguments, each needed leaf rewritten to True under the facts (``reason.extremes``); the
  kept guards' own conjuncts (``Min(a, b) >= c``: ``a >= c``) are facts too; a nest the split
  leaves open is searched on its linear regions (``reason.regions``: Fourier-Motzkin over the
  relaxed rows; implied when every region contradicts, a verified point makes it ``required``);
* ``boxes``: where the kept guards pin the sizes to a small finite box (``Eq(2*(s//10), 10)``:
  ``s`` in ``[50, 59]``; ``reason.boxes``: HC4 narrowing through ``+``, ``*``, ``//``, Max/Min,
  then exact projection of the equalities), a guard that divides by a size expression (RF-DETR's
  windows, quotients of quotients) over at most ``boxes.MAX_POINTS`` points of it is evaluated at
  each: implied by the guards that narrowed the box and the facts that exclude its failing
  points, or a point where it fails, verified on the original terms, makes it ``required``;
* restated forms (``reason.restate``): a guard rewritten under the facts of the kept one-size
  guards, which can take a size out of it (SAM 2 Hiera: ``16 <= w <= 19``, ``4 | w`` make every
  quotient of ``w`` one), is walked like ``multivariate`` against the kept guards restated alike
  (``by_restated``, before the walk on the guard as written); a scoped z3 check assumes the kept
  guards and the goal restated under the other kept guards' facts too (``implication``);
* ``repair``: for a guard every other step left open, a local search from pool points for a
  counterexample (``reason.repair``), verified like any point;
* ``periodic``: when z3 leaves a check open, residue splitting (``reason.periodic``): with
  ``s = L*q + r`` every division by a literal on ``g``'s paths vanishes; each residue case is
  refuted by rewriting under its own facts or by one exact z3 call on the division-free case, and
  a case's model (tied back by ``s == L*q + r``, re-checked in Python) proves ``required``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, cast

from symguard.solver.ir import terms as ir
from symguard.solver.ir.problem import Problem
from symguard.solver.ops.operation import Audit, Back, Operation, Result, undecided
from symguard.solver.reason import (
    boxes,
    equalities,
    extremes,
    facts,
    meter,
    multiples,
    multivariate,
    periodic,
    quasilinear,
    quotient_vars,
    regions,
    repair,
    residues,
    restate,
    rewrite,
)
from symguard.solver.reason import intervals as cheap
from symguard.solver.reason.points import Pool
from symguard.solver.reason.points import _base as points_base
from symguard.solver.smt.checker import (
    SAT,
    SETUP_SHARE,
    UNSAT,
    Checker,
    Deadline,
    Outcome,
    OutOfEffort,
    OutOfTime,
    units,
)
from symguard.solver.smt.optimize import is_linear

SEED_POINTS = 48
SCOPED = True  # z3 checks in a fresh solver with only what they select (Checker.check_scoped)

ALWAYS_TRUE, ALWAYS_FALSE, REDUNDANT, REQUIRED, UNKNOWN, UNSUPPORTED = (
    "always_true", "always_false", "redundant", "required", "unknown", "unsupported")

# per-check budgets in resource units, written as the milliseconds of timeout_ms they stand for
MIN_CHECK = units(50)
FIRST_MIN, FIRST_MAX = units(10), units(200)
SLICE_ROUNDS = 6
ALWAYS_TRUE_SHARE = 0.25
SCOPED_MIN_GUARDS = 200  # below this a problem's checks all go to the incremental solver
SCOPED_MAX = 48  # larger full checks go to the incremental solver (building a fresh one costs more)
PERIODIC_CASES = 64  # residue cases a check may split into when each case is settled by rewriting
PERIODIC_Z3_CASES = 16  # ... and when each case may cost a (division-free) z3 call
QUASILINEAR = True  # one-symbol guards decided residue by residue against the kept guards over that symbol
QUASILINEAR_WITNESSES = 4
MULTIVARIATE = True  # guards over one to three symbols decided cell of residue classes by cell
MULTIVARIATE_PAIRS = 2  # groups of symbols tried per guard (its own, then those of wider kept guards)
# the first pass collapses one-symbol chains (a bench lever): with the residue walk over two
# symbols (now up to three, ``by_multivariate``) it decides every Swin-class set alone (swinv2_s3 warm 1.87 -> 0.68 s, no
# second pass) and the synthetic lattices better (stress_lattice_1 58 -> 47 unknown); before it,
# collapsing first left 2 unknown on swin_compile
COLLAPSE_FIRST = True
FIRST_SHARE = 0.5  # of the effort, at most, for the first pass
PORTFOLIO = True  # ... and a second pass without, when the first leaves guards unknown  # counterexample points (closest to the hint, one per residue class) tried
# Python work of a residue split, charged in units (``units(ms)`` at ``SETUP_SHARE``, like a check's
# setup): planning a split ~1 ms, substituting and rewriting one case ~1.5 ms (swin_s3 at effort 1,
# where every guard reached the split: 1,239 cases in 2.8 s)
PERIODIC_SPLIT_COST = units(1 * SETUP_SHARE)
PERIODIC_CASE_COST = units(1.5 * SETUP_SHARE)
# a second pass, per guard the first took past the cheap step: its levers before z3 cost about
# 2-5 ms of Python per such guard on the Swin and synthetic sets (charged at ``SETUP_SHARE``)
PASS_GUARD_COST = units(4 * SETUP_SHARE)
# the repair walk (``reason.repair``) for a guard left open: point evaluations per guard and per pass
REPAIR = True
REPAIR_EVALS = 200
REPAIR_TOTAL = 2_000
EXTREMES = True  # comparisons split at their Max/Min (``reason.extremes``), leaves decided by rewriting
# ... and then on their relaxed linear regions (``reason.regions``): row combinations per guard and per pass
REGION_WORK = 20_000
REGION_MIN = 2_000
REGION_TOTAL = 300_000
# residue lattices over several symbols (``reason.residues``): atom evaluations per guard and per pass.
# The per-guard share decides: at 20,000 per guard within 200,000 per pass, searches over 6 of 12
# symbols spent the pass's share on a few guards (held-out-style lattice of 300 guards: 147
# unknown; 6,000 within 600,000: 82, same CPU); the pass total only bounds a worst case (~2 s)
RESIDUES = True
RESIDUE_WALK = 6_000
RESIDUE_TOTAL = 600_000
EQ_REBUILDS = 4  # substituted fact sets built per greedy pass (one more each time an equality is dropped)
# multiples (``reason.multiples``): ``s = m*k`` where the kept guards make ``m | s``, derived once
# per greedy pass; their residue walks have a budget of their own in comparisons (apart from
# ``by_multivariate``'s, so neither starves the other): Hiera's two sizes need ~200 to climb to 32
MULTIPLES = True
MULT_WALK = 10_000
# derivations again per pass, once a source was dropped (each reuses the steps still proven:
# ``multiples.Cache``); past them a dropped source stands for the guards its removal named
MULT_REBUILDS = 16
# the box the kept guards pin the sizes to (``reason.boxes``): evaluations per pass, boxes built per
# pass; it takes guards that divide by a size expression only (``_size_divisor``, RF-DETR: 25 -> 0 unknown)
BOXES = True
BOX_TOTAL = 400_000
BOX_GUARD = 16_000  # ... and per guard decided on it (synthetic lattices pin a dozen sizes loosely: 287,000
# evaluations of their guards' boxes for one verdict without this share)
BOX_REBUILDS = 8
# a size seen only through one quotient ``(s + a)//b`` is replaced by it (``reason.quotient_vars``:
# onto, so every verdict carries over); SAM2's padded ``ceil(s/4)`` is then what the multiples climb
QUOTIENT_VARS = True
# scoped checks assume the kept guards and the goal restated under the other kept guards' facts
# too (``reason.restate``): SAM 2 Hiera's five hard checks 28,000-94,000 units -> ~8,000 each
RESTATE = True


def _divides(small: dict[str, int], big: dict[str, int]) -> bool:
    return all(big.get(x, 1) % p == 0 for x, p in small.items())


def _size_divisor(t: ir.Term) -> bool:
    """A division by a non-constant (``x//(2*(s//10))``, ``Mod(a*b, c*d)``): the class of issue 33,
    where z3's non-linear search over the whole range runs out and the box the kept guards pin the
    sizes to decides. Products of sizes under constant moduli are left to the residue levers and
    z3: deciding them on the box (3 guards of modlattice_4, 4 of synthetic_400_mixed) changed the
    kept set z3 then saw, and two guards its last round decided at effort 100,000 stayed unknown at
    300,000 (tests/test_effort.py); synthetic_400_mixed's loose boxes also took the pass' whole
    400,000 evaluations for its 4 verdicts."""
    return any(n.kind in ir.DIV_KINDS and n.args[1].kind != ir.CONST for n in ir.iter_dag(t))


def cost(t: ir.Term) -> int:
    """Run-time cost of evaluating a guard: divisions and products weigh more."""
    w = 0
    for n in ir.iter_dag(t):
        w += 4 if n.kind in ir.DIV_KINDS else 3 if n.kind == ir.MUL and len(n.args) > 1 and \
            n.args[0].kind != ir.CONST else 2 if n.kind in (ir.MAX, ir.MIN, ir.ITE) else 1
    return w


def redundancy(problem: Problem, deadline: Deadline) -> dict[str, Any]:
    """Two canonical forms, one effort: first with every one-symbol division chain collapsed
    (``Rewriter(collapse=True)``: equal quantities spelled differently become one term, so a
    product divided by one of its own factors cancels — the Swin class), then, only when guards
    are left ``unknown``, on the units the first pass left, with the chains as written (the facts
    other guards state about their sub-terms stay visible; ``COLLAPSE_FIRST`` swaps the order).
    The answer that settled satisfiability, then with fewer ``unknown`` guards (then the smaller
    ``minimal``, then the first) is returned: each is sound on its own, and the choice depends on the effort alone. A second
    pass cut by the deadline makes the answer ``incomplete`` (another machine might have
    finished it). The first pass' ``unknown`` guards first get a last round (``_Run.last_round``)
    on the units it left (half of them when a second pass follows), and the chosen answer keeps
    the other pass' verdicts that hold against its own kept set (``_merged``): both only where
    guards are left unknown, so a set decided in one pass takes the same path at every effort.

    The second pass repeats the first one's Python work (its levers before z3), so it is paid
    for like any check: ``PASS_GUARD_COST`` per guard the first pass took past the cheap step,
    and only when the share of the effort set aside for it covers that. Without the charge a
    small effort, whose first pass leaves guards unknown, ran both passes where the default
    effort decides everything in one (swin_s3 537 guards: 4.5 s of CPU at effort 1,000 against
    0.4 s at the default)."""
    if QUOTIENT_VARS:  # once for both passes: same ids, same verdicts, only terms and ranges change
        problem = quotient_vars.substituted(problem)[0]
    total = deadline.units
    second_share = total - deadline.spent
    if PORTFOLIO:  # the first pass may spend a share of the effort; the second gets the rest
        deadline.units = deadline.spent + int(deadline.remaining() * FIRST_SHARE)
        second_share -= deadline.units - deadline.spent

    def last_round(run: _Run, res: dict[str, Any]) -> dict[str, Any]:
        """The first pass' unknown guards retried on the units it left, where no second pass
        will take them: the retry round of a pass whose first round spent its share never ran,
        and a larger effort's larger first checks spent it sooner, in a different z3 history
        (held_modlattice_11 g82: unsat in 446 units at effort 100,000, unknown in three checks of
        25,100 at 300,000, with 150,000 units left unused)."""
        deadline.units = total
        if not _unknowns(res) or res.get("incomplete") or res["status"] != SAT or deadline.expired:
            return res
        cost = PASS_GUARD_COST * run.hard
        if PORTFOLIO and second_share >= cost and deadline.affords(cost):
            # a second pass will follow: the last round takes half of what is left (without one at
            # a larger effort, held_modlattice_22's g34, decided at 100,000, was unknown at 300,000)
            deadline.units = deadline.spent + deadline.remaining() // 2
        try:
            return run.last_round()
        finally:
            deadline.units = total

    try:
        first, first_run = _collapsed(problem, deadline, COLLAPSE_FIRST, last_round)
    finally:
        deadline.units = total
    if not PORTFOLIO or first.get("incomplete") or not _unknowns(first) or deadline.expired:
        return _spent(first, deadline, 1)
    cost = PASS_GUARD_COST * first_run.hard
    if second_share < cost or not deadline.affords(cost):  # the first test depends on the effort alone
        return _spent(first, deadline, 1)
    try:
        deadline.pay(cost)
    except OutOfEffort:  # the effort ends before the second pass: the first pass' answer
        return _spent(first, deadline, 1)
    second, second_run = _collapsed(problem, deadline, not COLLAPSE_FIRST)
    if second.get("incomplete"):  # the deadline, or the effort, stopped it: the first pass' answer
        return _spent({**first, "incomplete": True}, deadline, 2)
    # the second pass' answer only where it decides every guard the first did (a smaller effort
    # that stopped in the second pass answered the first's: effort never decides less), and then
    # settles satisfiability where the first did not, or leaves fewer unknown, or keeps fewer
    key = [(r["status"] == UNKNOWN, _unknowns(r), len(r["minimal"])) for r in (first, second)]
    best, other = (second, first) if undecided(second) <= undecided(first) and key[1] < key[0] else (first, second)
    walk = first["stats"]["walk"] + second["stats"]["walk"]
    best = _merged(problem, best, other, [first_run.pool, second_run.pool])
    return _spent({**best, "stats": {**best["stats"], "walk": walk}}, deadline, 2)


def _merged(problem: Problem, best: dict[str, Any], other: dict[str, Any], pools: list[Pool]) -> dict[str, Any]:
    """``best`` with its ``unknown`` guards decided where the other pass' verdict holds against
    ``best``'s own kept set: ``always_true`` (the asserts alone imply it); ``redundant`` when its
    ``implied_by``, each guard ``best`` dropped read as that guard's own ``implied_by``
    (``_through``), names only guards ``best`` keeps, not itself (then the guards ``best`` dropped
    citing it cite those); ``required`` at a point of either pass that fails it while every other kept guard
    holds (verified on the original terms). Each such step is one step of the greedy argument of
    ``_Run.run``: the kept set only shrinks. The passes decide differently as the effort grows (a
    second pass starts at some effort), and the pass chosen alone had left guards unknown that a
    smaller effort's single pass decided."""
    if best["status"] != SAT or other["status"] != SAT or not _unknowns(best):
        return best
    ids = [c.id for c in problem.guards]
    at = {x: i for i, x in enumerate(ids)}
    rows = [dict(r) for r in best["guards"]]
    kept = {at[x] for x in best["minimal"]}
    live = {i for i in kept if rows[i]["verdict"] != UNSUPPORTED}

    def cite(i: int, proof: list[str]) -> None:  # the rows citing i cite its proof instead
        for r in rows:
            if r["verdict"] == REDUNDANT and ids[i] in r["implied_by"]:
                got = {at[x] for x in r["implied_by"] if x != ids[i]} | {at[x] for x in proof}
                r["implied_by"] = [ids[j] for j in sorted(got)]
                if not got:  # implied by the asserts alone
                    r["verdict"] = ALWAYS_TRUE

    for i, row in enumerate(rows):
        if row["verdict"] != UNKNOWN:
            continue
        theirs = other["guards"][i]
        proof = _through(rows, at, [at[x] for x in theirs["implied_by"]])
        if theirs["verdict"] == ALWAYS_TRUE or (theirs["verdict"] == REDUNDANT and
                                               all(j in live and j != i for j in proof)):
            verdict = REDUNDANT if theirs["verdict"] == REDUNDANT and proof else ALWAYS_TRUE
            cited = [ids[j] for j in sorted(proof)] if verdict == REDUNDANT else []
            rows[i] = {"id": ids[i], "verdict": verdict, "implied_by": cited}
            kept.discard(i)
            live.discard(i)
            cite(i, cited)
            continue
        mask = sum(1 << j for j in live)
        if any(pool.refuting(i, mask) is not None for pool in pools):
            rows[i] = {"id": ids[i], "verdict": REQUIRED, "implied_by": []}
    return {**best, "guards": rows, "minimal": [x for x in best["minimal"] if at[x] in kept]}


def _through(rows: list[dict[str, Any]], at: dict[str, int], proof: list[int]) -> set[int]:
    """``proof`` (guards that imply one) in terms of the guards ``rows`` keep: a guard they
    dropped stands for its own ``implied_by`` (kept guards, ``fix_implied``), one always true for
    nothing (the asserts imply it)."""
    out: set[int] = set()
    for j in proof:
        v = rows[j]["verdict"]
        if v == REDUNDANT:
            out |= {at[x] for x in rows[j]["implied_by"]}
        elif v != ALWAYS_TRUE:
            out.add(j)
    return out


def _spent(res: dict[str, Any], deadline: Deadline, passes: int) -> dict[str, Any]:
    """``stats.units``: the effort the operation spent (z3's counted units plus the setup and
    Python work charged), ``stats.passes``: the canonical forms tried. With ``stats.walk`` (the
    comparisons of the residue walks) deterministic measures of its cost: tests compare them
    across efforts, where CPU time would be noise."""
    res["stats"] = {**res["stats"], "units": deadline.spent, "passes": passes}
    return res


def _collapsed(problem: Problem, deadline: Deadline, collapse: bool,
               then: Callable[[_Run, dict[str, Any]], dict[str, Any]] | None = None) -> tuple[dict[str, Any], _Run]:
    """One pass' answer (``then`` may go on with the pass before its solver is closed), and the
    pass (its ``hard`` guards, its points)."""
    run = _Run(problem, deadline, collapse)
    try:
        res = run.run()
        return run.refuted_at_end(res if then is None else then(run, res)), run
    finally:
        if run.ch is not None:  # the second pass shares the z3 context: release at a fixed step
            run.ch.close()


def _unknowns(res: dict[str, Any]) -> int:
    return sum(1 for g in res["guards"] if g["verdict"] == UNKNOWN)



class _Run:
    def __init__(self, problem: Problem, deadline: Deadline, collapse: bool = COLLAPSE_FIRST) -> None:
        self.collapse = collapse  # every Rewriter of the pass rebuilds one-symbol chains as one division
        self.p = problem
        self.deadline = deadline
        self.guards = problem.guards
        n = len(self.guards)
        self.verdict: list[str | None] = [None] * n
        self.why: list[str] = ["resource"] * n  # per unknown guard: what stopped it (docs §2 ``reason``)
        self.implied: list[list[int]] = [[] for _ in range(n)]
        self.rep = list(range(n))
        self.avoided = 0
        self.hard = 0  # guards taken past the cheap step (what a second pass would work on again)
        self.levers = {"duplicate": 0, "rewrite": 0, "points": 0, "facts": 0, "equalities": 0, "quasilinear": 0,
                       "multivariate": 0, "periodic": 0, "repair": 0, "residues": 0, "extremes": 0,
                       "multiples": 0, "boxes": 0, "z3": 0}
        self.residue_meter = residues.Meter(RESIDUE_TOTAL, tick=deadline.ensure_time)
        self.region_meter = meter.Meter(REGION_TOTAL, tick=deadline.ensure_time)
        # no wall-clock tick: its walks are bounded by ``MULT_WALK`` comparisons alone (~0.1 s), and a
        # memo holding the deadline kept it (and, intermittently, a z3 context) in a reference cycle
        # past the operation (test_determinism's cycle-collector check failed 1 run in 6 with it)
        self.mult_memo = multivariate.Memo(MULT_WALK, 0)
        # (the multiples, the facts substituted with them, the substitution) of ``by_multiples``
        self._mult: tuple[multiples.Multiples, facts.Env, Callable[[ir.Term], ir.Term]] | None = None
        self._mult_cache = multiples.Cache()
        self._mult_builds = 0
        self.box_meter = meter.Meter(BOX_TOTAL, tick=deadline.ensure_time)
        self.box_compiled = boxes.Compiled()
        self._box: boxes.Box | None = None
        self._box_builds = 0
        self.restater: restate.Restater | None = None  # guards restated under the others' facts (``implication``)
        self._restating_rw: rewrite.Rewriter | None = None  # ... under the one-size guards' facts (``by_restated``)
        self.repairer: repair.Repair | None = None
        self.free_repairer: repair.Repair | None = None
        self.free_points = 0  # the pool's points before any z3 model: the same at every effort
        self.repair_left = [REPAIR_TOTAL]  # evaluations of the walks from the points before z3
        self.repair_more_left = [REPAIR_TOTAL]  # ... and of those from the points z3 models added
        self.ch: Checker | None = None
        self.later: list[dict[str, int | bool]] = []  # z3 models pooled once the levers before z3 are done
        self.fails: set[int] = set()  # guards a point of the ranges and asserts refutes (not always true)
        self._by_term: dict[ir.Term, int] | None = None
        ranges = cheap.Facts.from_problem(problem)
        # asserts: canonical under the declared ranges only (under their own facts they are True)
        plain = rewrite.Rewriter(rewrite.Env({s.name: (s.lo, s.hi) for s in problem.symbols if not s.is_bool}),
                                 collapse=collapse)
        self.can_asserts = [plain.rewrite(c.term) for c in problem.asserts if c.term is not None]
        self.base_env = facts.facts_env(ranges.ranges, [(t, None) for t in self.can_asserts])
        self.region_cache = regions.Cache(  # relaxed formulas of the facts, auxiliary variables
            {x: lo for x, (lo, _) in self.base_env.ranges.items() if lo is not None})
        self.env: facts.Env | None = None  # base facts plus those of every greedy candidate
        rw = rewrite.Rewriter(self.base_env, collapse=collapse)
        self.can: list[ir.Term | None] = [None if c.term is None else rw.rewrite(c.term) for c in self.guards]
        self.pool = Pool(problem, self.can)
        # each symbol's value where a lever's point leaves it open (its hint, else a range end):
        # the residue, region and box searches fill their own symbols in over it
        self.base_point = {s.name: points_base(s.lo, s.hi, s.hint) for s in problem.symbols}
        self._periods: dict[ir.Term, dict[str, int]] = {}
        self.walk_memo = multivariate.Memo(tick=deadline.ensure_time)  # the pass' comparisons, class by class (reason.multivariate)
        self.restated_memo = multivariate.Memo(tick=deadline.ensure_time)  # ... and those of ``by_restated``
        self.syms = [frozenset() if t is None else frozenset(ir.symbols_of(t)) for t in self.can]
        self.assert_syms: set[str] = set().union(*(ir.symbols_of(t) for t in self.can_asserts))
        # Scoped solvers pay off where z3's non-linear arithmetic would drag hundreds of definitions
        # into every check (swin_compile 487 -> 306 ms, synthetic_500 123 -> 95 unknown); on linear
        # or smaller sets the one incremental solver is 10-40 % faster (the corpus' CNN/ViT sets)
        # ... and wherever a bit_floor is read: its definition, a case split over 64 exponents, and
        # the divisions by it would weigh on every check of the incremental solver (DepthPro's
        # compile set, 194 guards: 5 unknown -> 0)
        terms = [*self.can_asserts, *(t for t in self.can if t is not None)]
        self.scoped = SCOPED and (n >= SCOPED_MIN_GUARDS or _has_kind(terms, ir.BITFLOOR)) and not is_linear(terms)

    # -------------------------------------------------------------- plumbing
    def checker(self) -> Checker:
        if self.ch is None:
            self.ch = Checker(self.p, self.deadline)
            self._A = [self.ch.selector(t) for t in self.can_asserts]
        return self.ch

    @property
    def A(self) -> list[int]:
        self.checker()
        return self._A

    def sel(self, i: int) -> int:
        return self.checker().selector(self.can[i])  # type: ignore[arg-type]

    def neg(self, i: int) -> int:
        return self.checker().negation(self.can[i])  # type: ignore[arg-type]

    def z3check(self, handles: list[int], budget: int | None = None, *, scoped: bool = True) -> Outcome:
        ch = self.checker()
        if self.scoped and scoped:
            return ch.check_scoped(handles, budget=budget)
        return ch.check(handles, budget=budget)

    def learn(self, model: dict[str, int | bool]) -> None:
        self.pool.add(dict(model))

    def budget(self, pending: int) -> int:
        """Resource units for a second-pass check: three times its share of what is left.
        (Both budget functions run once per decision, solver or not: there the outer wall-clock
        limit is enforced, ``OutOfTime``, also across stretches of pure Python work.)"""
        self.deadline.ensure_time()
        rem = self.deadline.remaining()
        return max(MIN_CHECK, rem // max(1, pending) * 3)

    def first_budget(self, pending: int) -> int:
        """A first pass spends at most its share of what is left: hard checks get a second pass."""
        self.deadline.ensure_time()
        rem = self.deadline.remaining()
        return max(FIRST_MIN, min(FIRST_MAX, rem // max(1, pending)))

    # -------------------------------------------------------------- main
    def run(self) -> dict[str, Any]:
        """The answer; past the wall-clock deadline (``OutOfTime``) the sound partial one: every
        verdict reached so far kept, the rest ``unknown`` (kept in ``minimal``), ``incomplete``.
        Sound because a verdict never depends on a later step: ``always_true`` and ``required``
        hold whatever is dropped later, and each ``redundant`` guard is implied by the guards
        kept when it was dropped, all of them dropped later (implied in turn) or kept."""
        self.status = UNKNOWN
        self.status_reason = "resource"
        self.settled: set[int] = set()  # unknown guards no later step of the run would have retried
        self.phase = "cheap"
        try:
            return self.report(self._run())
        except OutOfTime:
            return self.partial()

    def last_round(self) -> dict[str, Any]:
        """Every guard the greedy pass left ``unknown`` decided once more (``decide``'s last
        chance, in removal order, each check sized by the guards still to go) on the units the
        caller made available. The kept set only shrinks, so the greedy argument of ``run``
        holds; past the wall-clock deadline the answer is the partial one."""
        try:
            rest = [i for i in self.removal_order(list(self.kept)) if self.verdict[i] == UNKNOWN]
            for k, i in enumerate(rest):
                self.settled.discard(i)
                self.decide(i, max(MIN_CHECK, self.deadline.remaining() // (len(rest) - k)), last=True)
                self.settled.add(i)
            self.fix_implied()
            return self.report(self.status)
        except OutOfTime:
            return self.partial()

    def partial(self) -> dict[str, Any]:
        if self.phase == "unsat":
            live = self._unsat_live
            for i in live:
                if self.verdict[i] is None or (self.verdict[i] == UNKNOWN and i not in self.settled):
                    self.undecided(i, "timeout")
            self.minimal_unsat: set[int] = {i for i in live if self.verdict[i] != ALWAYS_TRUE}
            for i in live:
                self.implied[i] = []
        else:
            for i in range(len(self.guards)):
                if self.rep[i] == i and (self.verdict[i] is None or
                                         (self.verdict[i] == UNKNOWN and i not in self.settled)):
                    self.undecided(i, "timeout")  # the deadline came before its (next) check
            if self.phase == "greedy":
                self.fix_implied()
        if self.status == UNKNOWN:
            self.status_reason = "timeout"
        res = self.report(self.status)
        res["incomplete"] = True
        return res

    def _run(self) -> str:
        g = self.guards
        asserts = [c.term for c in self.p.asserts if c.term is not None]
        facts = cheap.Facts.from_problem(self.p)
        first = self.representatives()
        for i, c in enumerate(g):
            t = self.can[i]
            if c.term is None or t is None:
                self.verdict[i] = UNSUPPORTED
                continue
            decided = bool(t.value) if t.kind == ir.BCONST else None
            if decided is None and first.get(t, i) != i:
                self.rep[i] = first[t]
                self.avoided += 1
                self.levers["duplicate"] += 1
                continue
            if decided is None:
                decided = cheap.decide(c.term, facts, asserts)
            if decided is not None:
                self.verdict[i] = ALWAYS_TRUE if decided else ALWAYS_FALSE
                self.avoided += 1
                self.levers["rewrite"] += 1
        live = [i for i in range(len(g)) if self.rep[i] == i and self.verdict[i] != UNSUPPORTED]
        if any(self.verdict[i] == ALWAYS_FALSE for i in live):
            status = UNSAT
        else:
            pending = [i for i in live if self.verdict[i] is None]
            self.hard = len(pending)
            self.pool.seed_points(SEED_POINTS)
            mask = sum(1 << i for i in pending)
            if any(m & mask == 0 and self.pool.holds_all(pt, pending)
                   for pt, m in zip(self.pool.points, self.pool.masks)):
                status = SAT  # a point (the hints, usually) satisfies everything: no solver needed
                self.avoided += 1
            else:
                out = self.z3check(self.A + [self.sel(i) for i in pending])
                status = out.status
                self.status_reason = out.reason or "resource"
                if status == SAT:
                    self.later.append(out.model)  # pooled after the levers before z3 (``greedy``)
                elif status != UNSAT and self.unsat_by_cells(pending, multivariate.Memo(tick=self.deadline.ensure_time)):
                    status = UNSAT  # (its own walk budget: the greedy pass's is the same at every effort)
        self.status = status
        if status == UNSAT:
            self.phase, self._unsat_live = "unsat", live
            self.unsat_minimize(live)
        else:
            self.phase = "always_true"
            self.always_true(live)
            self.greedy(live)
        return status

    def representatives(self) -> dict[ir.Term, int]:
        """Per canonical form shared by several guards, the one kept for all (the others are its
        duplicates): with ``prefer: "cheap"`` the cheapest to evaluate as written (the canonical
        form can make ``s0//2 >= 8`` and ``s0 >= 16`` one guard: keep the latter), else the first."""
        groups: dict[ir.Term, list[int]] = {}
        for i, c in enumerate(self.guards):
            t = self.can[i]
            if c.term is not None and t is not None and t.kind != ir.BCONST:
                groups.setdefault(t, []).append(i)
        cheap_first = self.p.options.prefer == "cheap"
        return {t: (min(idx, key=lambda j: (cost(self.guards[j].term), j))  # type: ignore[arg-type]
                    if cheap_first and len(idx) > 1 else idx[0]) for t, idx in groups.items()}

    def always_true(self, live: list[int]) -> None:
        """The pending guards shown not always true by a point (``fails``) or always true over
        one symbol (``quasilinear``): no z3, so the same at every effort. The z3 checks come after
        the levers before z3 (``always_true_z3``)."""
        for i in live:
            if self.verdict[i] is not None:
                continue
            self.deadline.ensure_time()
            if self.pool.fails_somewhere(i, verified=True) or self.pool.search(i, self.syms[i], None):
                self.avoided += 1
                self.levers["points"] += 1
                self.fails.add(i)
                continue
            chain = self.chain_counterexample(i)
            if chain is not None:
                self.avoided += 1
                if chain:
                    self.fails.add(i)  # some point of the ranges and asserts fails it
                else:
                    self.verdict[i] = ALWAYS_TRUE
                    self.levers["quasilinear"] += 1

    def always_true_z3(self, live: list[int]) -> None:
        """``A & ~g`` unsat by z3 for the guards no point refutes: first those the levers before
        z3 left open (an always-true one leaves the kept set for ``at_true``), then those they
        dropped (only the label changes: ``always_true`` instead of ``redundant``). Telling
        always_true from redundant only labels a guard that greedy drops anyway: solver units
        for it are capped (``ALWAYS_TRUE_SHARE``) so the deletion pass keeps most of the budget."""
        cands = [i for i in live if i not in self.fails and self.verdict[i] is None]
        cands += [i for i in live if i not in self.fails and self.verdict[i] == REDUNDANT]
        # each check is sized by every guard still to settle (as greedy sizes its own) and never
        # past what is left of the share: one hard candidate must not take greedy's units (a Swin
        # trace: one check took twice the share, greedy then left 19 guards unknown instead of 3)
        pending = sum(1 for i in live if self.verdict[i] in (None, REDUNDANT))
        floor = self.deadline.remaining() * (1 - ALWAYS_TRUE_SHARE)
        for k, i in enumerate(cands):
            if self.pool.fails_somewhere(i, verified=True):  # a z3 model since refutes it
                self.avoided += 1
                self.levers["points"] += 1
                continue
            share = int(self.deadline.remaining() - floor)
            if share <= 0 or self.deadline.expired:
                return  # greedy decides the rest (or labels it unknown)
            budget = min(share, self.first_budget(max(1, pending - k)))
            before = self.deadline.spent
            out = self.z3check(self.A + [self.neg(i)], budget=budget)
            self.levers["z3"] += 1
            if out.status == UNSAT:
                self.now_true(i)
            elif out.status == SAT:
                self.learn(out.model)
            elif self.deadline.spent == before:
                # what is left of the share cannot pay for a check: the stage ends here, as it does
                # when a check spends the share. Going on with the split alone made an effort whose
                # share never paid for one (1,000) decide guards a larger one, whose first checks
                # spent its share, did not (stress_maxmin_2: 4 guards at 1,000, unknown at 10,000)
                return
            elif self.by_extremes(i, None) is not None:  # z3 left it open: split its Max/Min
                self.now_true(i)
                self.levers["extremes"] += 1
            elif self.by_periodic(i, [], z3_budget=budget) is not None:
                self.now_true(i)
                self.levers["periodic"] += 1

    def now_true(self, i: int) -> None:
        """Guard ``i`` is implied by the asserts alone: out of the kept set, still a premise of
        every later step (``at_true``); a guard already dropped only changes its label (the
        guards whose removal it justified are implied by the asserts and their other sources)."""
        if self.verdict[i] == REDUNDANT:
            self.removed_core.pop(i, None)
            self.implied[i] = []
        else:
            self.kept.discard(i)
            self.kept_mask &= ~(1 << i)
        self.candidates.discard(i)  # its facts are premises again (``banned`` spares it)
        self.at_true.add(i)
        self.verdict[i] = ALWAYS_TRUE
        self.new_true.add(i)

    def removal_order(self, idx: list[int]) -> list[int]:
        if self.p.options.prefer == "order":
            return sorted(idx, reverse=True)
        return sorted(idx, key=lambda i: (-cost(self.guards[i].term), -i))  # type: ignore[arg-type]

    def greedy(self, live: list[int]) -> None:
        keep = [i for i in live if self.verdict[i] != ALWAYS_TRUE]
        # guards proven always true are implied by the asserts: premises for the levers before z3
        # like the kept guards (never named in ``implied_by``), so a larger effort, which proves
        # more of them always true, never takes a premise away from those levers
        self.at_true = {i for i in live if self.verdict[i] == ALWAYS_TRUE}
        self.kept = set(keep)
        self.kept_mask = sum(1 << i for i in keep)
        conds: list[tuple[ir.Term, int | None]] = [(t, None) for t in self.can_asserts]
        for j in sorted(self.kept | self.at_true):
            conds.append((self.can[j], j))  # type: ignore[arg-type]
            if EXTREMES:  # Min(a, b) >= c: also a >= c and b >= c, facts of their own (same source)
                conds += [(c, j) for c in extremes.conjuncts(self.can[j])]  # type: ignore[arg-type]
        self.env = facts.facts_env(self.base_env.ranges, conds)
        self.candidates = set(keep)
        self.eqp = [None if self.rep[j] != j else equalities.eq_pair(t) for j, t in enumerate(self.can)]
        self._eq_syms: set[str] = set()
        for j in keep:
            pair = self.eqp[j]
            if pair is not None:
                self._eq_syms |= {x for x in pair if isinstance(x, str)}
        self._eq_env: tuple[tuple[int, ...], facts.Env, dict[str, periodic.Poly],
                            dict[str, frozenset[int]]] | None = None
        self._eq_builds = 0
        self.removed_core: dict[int, list[int]] = {}
        self.phase = "greedy"
        order = self.removal_order(keep)
        # first every guard in removal order with the levers before z3 alone: what they decide is
        # the same at every effort (their budgets are counted comparisons, not units), so a larger
        # effort only adds z3 verdicts on top; then z3 on what is left, in the same order, and a
        # second chance for the checks that ran out of their first budget. The kept set only
        # shrinks throughout, so earlier ``required`` verdicts still hold and each removal is
        # justified by the guards kept when it is made (the greedy argument of the module doc)
        rest = [i for i in order if self.decide_free(i) is None]
        # the box last, on what all of them left: a guard it drops during their sweep took its
        # facts from the guards after it (stress_products_2: the facts lever 118 -> 97 verdicts,
        # 128 -> 137 unknown); only before z3, so what it decides is the same at every effort
        rest = [i for i in rest if self.decide_on_box(i) is None]
        self.free_points = len(self.pool.points)
        # z3 from here on: its models and always-true guards only reach the steps after the levers
        # before z3, so what those decide is the same at every effort (a guard proven always true
        # at a larger effort no longer widens a residue search past its share, modlattice dev sets)
        for model in self.later:
            self.learn(model)
        self.new_true: set[int] = set()
        self.always_true_z3(live)
        rest = [i for i in rest if self.verdict[i] is None]
        if self.new_true:  # a second turn for the levers before z3 where z3 brought new premises
            near = frozenset().union(*(self.syms[j] for j in self.new_true))
            rest = [i for i in rest if not self.syms[i] & near or self.decide_free(i) is None]
        retry = [i for k, i in enumerate(rest) if self.decide(i, self.first_budget(len(rest) - k)) == UNKNOWN]
        for k, i in enumerate(retry):
            self.decide(i, self.budget(len(retry) - k), last=True)
            self.settled.add(i)
        self.fix_implied()

    def fix_implied(self) -> None:
        """Each dropped guard's ``implied_by`` in terms of the guards kept at the end."""
        # implied_by: a guard named in a removal proof but dropped later is replaced by what implied
        # it (its own proof used guards kept at its removal, i.e. dropped later still or kept at the end)
        kept = self.kept
        for i in reversed(list(self.removed_core)):
            out_set: set[int] = set()
            for j in self.removed_core[i]:
                out_set |= {j} if j in kept else set(self.implied[j])
            self.implied[i] = sorted(out_set)

    def decide_free(self, i: int) -> str | None:
        """Guard ``i`` decided by the levers before z3 (its verdict), or None. These run at every
        effort: their budgets are counted in comparisons of their own, fixed, so a small effort
        never skips one of them to fall through to z3."""
        self.deadline.ensure_time()
        if self.pool.refuting(i, self.kept_mask) is not None:
            self.levers["points"] += 1
            self.avoided += 1
            self.verdict[i] = REQUIRED
            return REQUIRED
        # multiples first where a divisor is not a literal (a size's own quotient: the class it is
        # for, where the substituted guard is small); elsewhere the facts first, whose proofs name
        # fewer guards (``n//2 != n`` from ``n >= 2`` alone, not also from ``2 | n``)
        early = any(n.kind in ir.DIV_KINDS and n.args[1].kind != ir.CONST
                    for n in ir.iter_dag(self.can[i]))  # type: ignore[arg-type]
        by_mult = self.by_multiples(i) if early else None
        if by_mult is not None:
            self.levers["multiples"] += 1
            self.avoided += 1
            return self.drop(i, by_mult)
        by_facts = self.implied_by_facts(i, self.kept)
        if by_facts is not None:
            self.levers["facts"] += 1
            self.avoided += 1
            return self.drop(i, by_facts)
        by_mult = None if early else self.by_multiples(i)
        if by_mult is not None:
            self.levers["multiples"] += 1
            self.avoided += 1
            return self.drop(i, by_mult)
        by_ext = self.by_extremes(i, self.kept)
        if by_ext is not None:
            self.levers["extremes"] += 1
            self.avoided += 1
            return self.drop(i, by_ext)
        by_eqs = self.by_equalities(i)
        if by_eqs is not None:
            self.levers["equalities"] += 1
            self.avoided += 1
            return self.drop(i, by_eqs)
        by_chain = self.by_quasilinear(i, self.kept | self.at_true)
        if by_chain is not None or self.verdict[i] == REQUIRED:
            self.levers["quasilinear"] += 1
            self.avoided += 1
            return REQUIRED if by_chain is None else self.drop(i, by_chain)
        # the walk on the forms the one-size guards' facts leave first: where it applies it walks
        # fewer sizes than the walk on the guard as written, which then need not run
        by_cells = self.by_restated(i)
        if by_cells is None and self.verdict[i] != REQUIRED:
            by_cells = self.by_multivariate(i)
        if by_cells is not None or self.verdict[i] == REQUIRED:
            self.levers["multivariate"] += 1
            self.avoided += 1
            return REQUIRED if by_cells is None else self.drop(i, by_cells)
        by_res = self.by_residues(i)
        if by_res is not None or self.verdict[i] == REQUIRED:
            self.levers["residues"] += 1
            self.avoided += 1
            return REQUIRED if by_res is None else self.drop(i, by_res)
        if self.pool.search(i, self.syms[i], self.kept_mask) is not None:
            self.levers["points"] += 1
            self.avoided += 1
            self.verdict[i] = REQUIRED
            return REQUIRED
        by_reg = self.by_regions(i, self.kept)  # a Max/Min nest on its linear regions (``reason.regions``)
        if by_reg is not None or self.verdict[i] == REQUIRED:
            self.levers["extremes"] += 1
            self.avoided += 1
            return REQUIRED if by_reg is None else self.drop(i, by_reg)
        return None

    def decide_on_box(self, i: int) -> str | None:
        """Guard ``i``, which every other lever before z3 left open, decided on its box (its
        verdict), or None."""
        by_box = self.by_boxes(i)
        if by_box is not None or self.verdict[i] == REQUIRED:
            self.levers["boxes"] += 1
            self.avoided += 1
            return REQUIRED if by_box is None else self.drop(i, by_box)
        return None

    def by_boxes(self, i: int) -> list[int] | None:
        """Guard ``i`` decided on the box the asserts and the other kept guards pin its symbols to
        (``reason.boxes``): the guards the proof used, or None (a point it finds, verified on the
        original terms, makes it ``required``). The box of every premise is built once a pass; a
        guard that narrowed it (or whose removal named such a guard) is decided on a box built
        without it (at most ``BOX_REBUILDS`` a pass), and the box of every premise stays for the
        guards after it (kept instead, RF-DETR compile's box without one pin closed one size
        fewer and 18 guards went to z3). Only before z3: what it decides is the same at every
        effort."""
        if not BOXES or self.box_meter.left <= 0 or \
                any(s.is_bool for s in self.p.symbols) or not _size_divisor(self.can[i]):  # type: ignore[arg-type]
            return None
        premises = self.kept | self.at_true
        fs = [(t, -1) for t in self.can_asserts] + \
            [(self.can[j], j) for j in sorted(premises) if self.can[j] is not None]
        box = self._box
        if box is None:
            box = self._box = boxes.contract(fs, self.base_env.ranges, self.box_meter, self.box_compiled)  # type: ignore[arg-type]
            if box is None:
                self.box_meter.left = 0  # nothing finite to enumerate (or no work left): off for the pass
                return None
        fs = [(t, j) for t, j in fs if j != i]
        if self._standing(box.used, i) is None:
            if self._box_builds >= BOX_REBUILDS:
                return None
            self._box_builds += 1
            box = boxes.contract(fs, self.base_env.ranges, self.box_meter, self.box_compiled)  # type: ignore[arg-type]
            if box is None:
                return None
        base = self.base_point
        share = meter.Meter(min(BOX_GUARD, self.box_meter.left), self.box_meter.tick)
        got = box.decide(self.can[i], fs, share,  # type: ignore[arg-type]
                         lambda pt: self.required_at(i, {**base, **pt}))
        self.box_meter.left -= min(BOX_GUARD, self.box_meter.left) - share.left
        if got is None or got[0]:
            return None
        proof = self._standing(got[1], i)
        return None if proof is None else sorted(proof)

    def _standing(self, sources: Any, i: int) -> set[int] | None:
        """The kept guards ``sources`` stand for (``_sources``, the always-true ones left out);
        None when that reaches ``i`` itself (a proof of ``i`` may not rest on it) or a guard it
        cannot account for."""
        got = self._sources(frozenset(sources))
        return None if got is None or i in got else got & self.kept

    def by_residues(self, i: int) -> list[int] | None:
        """Guard ``i`` decided on residue classes (``reason.residues``) against the asserts and
        the kept guards that compare periodic terms: the kept guards of the search when they
        imply it (None otherwise; a residue point where it fails, completed with the hints and
        verified on the original terms, makes it ``required``). Work in atom evaluations: at most
        ``RESIDUE_WALK`` per guard and ``RESIDUE_TOTAL`` per pass, the same at every effort."""
        if not RESIDUES or self.residue_meter.left <= 0 or any(s.is_bool for s in self.p.symbols):
            return None
        facts = [(t, -1) for t in self.can_asserts] + [(self.can[j], j) for j in sorted(self.kept | self.at_true)
                                                         if j != i and self.can[j] is not None]  # type: ignore[misc]
        hints = {s.name: s.hint for s in self.p.symbols if s.hint is not None}
        base = self.base_point
        got = residues.counterexample(self.can[i], facts, self.base_env.ranges,  # type: ignore[arg-type]
                                      hints, RESIDUE_WALK, self.residue_meter,
                                      accept=lambda pt: self.required_at(i, {**base, **pt}))
        if got is None or got[0]:
            return None  # undecided, or required (``required_at`` set the verdict)
        return [j for j in got[1] if isinstance(j, int) and j in self.kept]  # type: ignore[union-attr]

    def decide(self, i: int, budget: int, *, last: bool = False) -> str:
        """Is guard ``i`` implied by the asserts and the other kept guards? Drops it if so (z3,
        then residue splitting on the last chance; ``decide_free`` has had its turn)."""
        if self.pool.refuting(i, self.kept_mask) is not None:  # a z3 model since may refute it
            self.levers["points"] += 1
            self.avoided += 1
            self.verdict[i] = REQUIRED
            return REQUIRED
        if self.deadline.expired:  # no check can run: do not build the selectors of a doomed one
            if last and self.by_repair(i):
                return REQUIRED
            return self.undecided(i, "resource")
        others = sorted(self.kept - {i})
        # lazy slicing: check against the kept guards over g's own symbols, then add the kept
        # guards a model violates (once extended with the hints), until unsat, a verified
        # refutation, or the slice stops growing; unsat of a slice is unsat of the whole
        near = [j for j in others if self.syms[j] <= self.syms[i]]
        for _ in range(SLICE_ROUNDS):
            if len(near) == len(others):
                break
            out, core = self.implication(i, near, budget)
            if out.status == UNSAT:
                return self.drop(i, core)
            if out.status != SAT:
                self.why[i] = out.reason or "resource"
                break
            pt = self.extend(out.model, near, i)
            if self.required_at(i, pt):
                return REQUIRED
            bad = [j for j in others if j not in near and self.pool.mask_of(pt) >> j & 1]
            if not bad:
                break
            near = sorted(set(near) | set(bad))
        out, core = self.implication(i, others, budget, scoped=len(others) <= SCOPED_MAX)
        if out.status == UNSAT:
            return self.drop(i, core)
        if out.status == SAT and self.required_at(i, out.model):
            return REQUIRED
        if out.status != SAT:
            self.why[i] = out.reason or "resource"
        if not last:  # the retry pass's larger budget settles most first-pass unknowns (cheaper)
            return self.undecided(i)
        near = [j for j in others if self.syms[j] <= self.syms[i]]
        # residue splitting only on the retry pass: on the first pass its rewriting per case cost
        # stress_lattice_1 three quarters of its z3 checks, and residue z3 calls cost
        # segformer_64x64_compile 29 checks instead of 19
        by_residues = self.by_periodic(i, near, z3_budget=budget, prove_required=True)
        if by_residues is not None:
            self.levers["periodic"] += 1
            return self.drop(i, by_residues)
        if self.verdict[i] == REQUIRED:
            self.levers["periodic"] += 1
            return REQUIRED
        if self.by_repair(i):  # the last resort: only a guard otherwise left unknown pays for it
            return REQUIRED
        return self.undecided(i)  # out of units, or a model Python disagrees with: decides nothing

    def implication(self, i: int, premises: list[int], budget: int, *, scoped: bool = True) -> tuple[Outcome, list[int]]:
        """z3 on ``A & premises & ~g_i``: the outcome, and on unsat the guards its core names. A
        scoped check (``RESTATE``) also assumes each guard restated under the facts of the others
        (``reason.restate``), its goal restated alike; a core naming a restated form names its
        guard and the guards whose facts restated it."""
        lemmas: dict[int, frozenset[int]] = {}  # handle of a restated form -> the guards behind it
        sels = [*self.A, *(self.sel(j) for j in premises)]  # made in this order: z3's history depends on it
        goal = self.neg(i)
        if RESTATE and self.scoped and scoped and self.env is not None:
            ch = self.checker()
            allowed = (self.kept | self.at_true) - {i}
            banned = frozenset((self.candidates - self.kept) | {i})
            restater = self._restater()
            for j in [*premises, i]:
                t, used = restater.get(j, allowed, banned | {j})
                if not restate.simpler(t, self.can[j]) or (t is ir.TRUE and j != i):  # type: ignore[arg-type]
                    continue  # (a premise restated as True says nothing)
                h = ch.lemma(t, negated=j == i)
                lemmas[h] = lemmas.get(h, frozenset()) | used | ({j} if j != i else frozenset())
                if j == i:
                    goal = h
        lemma_handles = [h for h in lemmas if h != goal]
        out = self.z3check([*sels, *lemma_handles, goal], budget=budget, scoped=scoped)
        self.levers["z3"] += 1
        if out.status != UNSAT:
            return out, []
        core = set(self.core_guards(out.core, exclude=i)) & set(premises)
        for h in out.core:
            core |= lemmas.get(h, frozenset())
        return out, sorted(core - {i})

    def _restated(self, j: int, banned: frozenset[int]) -> tuple[ir.Term, frozenset[int]]:
        """Guard ``j`` rewritten under the pass' facts but those of ``banned``, and the sources used."""
        assert self.env is not None
        rw = rewrite.Rewriter(self.env, banned=banned, collapse=self.collapse)
        return rw.rewrite(self.can[j]), frozenset(rw.used)  # type: ignore[arg-type]

    def by_repair(self, i: int) -> bool:
        """A counterexample by the repair walk (``reason.repair``) for a guard every other step
        left open: at most ``REPAIR_EVALS`` point evaluations per walk, ``REPAIR_TOTAL`` per pass
        for each kind of start (counted, like the residue walks, never charged to the effort: it
        runs only where the answer would otherwise be ``unknown``)."""
        if not REPAIR:
            return False
        if self.repairer is None:
            self.repairer = repair.Repair(self.pool, self.syms)
            self.free_repairer = repair.Repair(cast(Pool, _Prefix(self.pool, self.free_points)), self.syms)
        # first from the points the levers before z3 pooled (the same at every effort): a z3
        # model pooled at a larger effort, where the guard fails, took the walk's starts and its
        # evaluations (synthetic_400_mixed g341: required at effort 1 and 100,000 from the hints,
        # unknown at the default from a model); then from every point when a later one fails it,
        # on a budget of its own (the models are many more at a larger effort: sharing one total,
        # their walks spent the first walks' evaluations)
        assert self.free_repairer is not None
        pt = self._repair_walk(self.free_repairer, i, self.repair_left)
        if pt is None and any(m >> i & 1 for m in self.pool.masks[self.free_points:]):
            pt = self._repair_walk(self.repairer, i, self.repair_more_left)
        if pt is None:
            return False
        self.verdict[i] = REQUIRED
        self.levers["repair"] += 1
        return True

    def _repair_walk(self, walker: repair.Repair, i: int, left: list[int]) -> dict[str, Any] | None:
        """``walker``'s search for guard ``i``, charged to the evaluations ``left[0]``."""
        if left[0] <= 0:
            return None
        before = walker.evals
        pt = walker.find(i, self.kept_mask, min(REPAIR_EVALS, left[0]))
        left[0] -= walker.evals - before
        return pt

    def undecided(self, i: int, why: str | None = None) -> str:
        """Guard ``i`` stays ``unknown`` (kept); ``why`` (else the last check's) is its reason."""
        self.verdict[i] = UNKNOWN
        if why is not None:
            self.why[i] = why
        return UNKNOWN

    def chain_counterexample(self, i: int) -> bool | None:
        """Whether a one-symbol guard fails somewhere in the ranges and the asserts (``reason.
        quasilinear``, exact, on the asserts over its symbol alone); None when that procedure
        does not apply or cannot tell. A failing point proves it is not ``always_true`` without a
        z3 model only when no assert ties the symbol to another (the asserts without it are
        satisfiable, since A & G is, and never restrict it); else it only proves the guard true."""
        if not QUASILINEAR or len(self.syms[i]) != 1:
            return None
        x = next(iter(self.syms[i]))
        facts = [t for t in self.can_asserts if ir.symbols_of(t) <= {x}]
        lo, hi = self.base_env.ranges.get(x, (None, None))
        got = quasilinear.counterexamples(self.can[i], facts, lo, hi, None, 0)  # type: ignore[arg-type]
        if got is None:
            return None
        tied = any(x in ir.symbols_of(t) and len(ir.symbols_of(t)) > 1 for t in self.can_asserts)
        return None if got[1] and tied else got[1]

    def by_quasilinear(self, i: int, kept: set[int] | None) -> list[int] | None:
        """A guard over one symbol ``x`` implied by the asserts and the kept guards over ``x``
        alone (``kept`` None: by the asserts alone), decided exactly residue class by residue
        class (``reason.quasilinear.implied``). Returns those guards, or None."""
        if not QUASILINEAR or len(self.syms[i]) != 1:
            return None
        x = next(iter(self.syms[i]))
        near = [] if kept is None else [j for j in sorted(kept) if j != i and self.syms[j] == self.syms[i]]
        facts = [t for t in self.can_asserts if ir.symbols_of(t) <= {x}]
        facts += [self.can[j] for j in near]  # type: ignore[misc]
        lo, hi = self.base_env.ranges.get(x, (None, None))
        hints = self.p.hints
        want = QUASILINEAR_WITNESSES if kept is not None and hints else 0
        got = quasilinear.counterexamples(self.can[i], facts, lo, hi,  # type: ignore[arg-type]
                                          None if not hints else hints.get(x), want)
        if got is None:
            return None
        points, found = got
        if not found:
            return near
        for v in points:  # the other symbols at their hints: Python decides whether it refutes g
            if hints and self.required_at(i, {**hints, x: v}):
                break
        return None

    def by_multivariate(self, i: int) -> list[int] | None:
        """A guard over one to three symbols implied by the asserts and the kept guards over those
        symbols, decided cell of residue classes by cell (``reason.multivariate``; a dynamic batch
        times two sizes' window counts is the three-symbol case); a one-symbol guard is tried with
        each symbol a kept guard relates it to. Returns those guards, or None (a counterexample
        the procedure names, confirmed in Python, sets ``required``)."""
        syms = self.syms[i]
        if not MULTIVARIATE or not 1 <= len(syms) <= multivariate.MAX_SYMBOLS:
            return None
        # a guard's own symbols first, then the symbols of kept guards over more sizes that
        # include them (a divisibility guard over one size is implied by a product over three)
        premises = self.kept | self.at_true
        wider = sorted({self.syms[j] for j in premises if j != i and syms < self.syms[j] and
                        len(self.syms[j]) <= multivariate.MAX_SYMBOLS}, key=lambda g: (len(g), sorted(g)))
        groups = ([syms] if len(syms) >= 2 else []) + wider
        hints = self.p.hints
        mine = self.periods(self.can[i])  # type: ignore[arg-type]
        for group in groups[:MULTIVARIATE_PAIRS]:
            near = [j for j in sorted(premises) if j != i and self.syms[j] and self.syms[j] <= group]
            fs = [t for t in self.can_asserts if ir.symbols_of(t) <= group]
            # first the facts whose division chains keep the guard's own periods: a fact of a
            # longer period multiplies the cells of the walk (pooling at strides 4, 8, 16 and 32
            # over two sizes: 1,024 cells where the guard's own 8 x 8 decide it)
            short = [j for j in near if _divides(self.periods(self.can[j]), mine)]  # type: ignore[arg-type]
            stages = ([short] if len(short) < len(near) else []) + [near]
            # a conjunction's parts one by one: a part the short facts imply is not walked again
            # with the longer periods of all of them (DepthPro: parts decided on 32 x 32 classes
            # were walked again on 96 x 96, 18,000 comparisons, before a third part ran out)
            goal = self.can[i]
            parts = list(goal.args) if goal.kind == ir.AND else [goal]  # type: ignore[union-attr]
            used: list[int] = []
            for kept in stages:
                fkept = fs + [self.can[j] for j in kept]
                for part in list(parts):
                    got = multivariate.counterexample(part, fkept, self.base_env.ranges,  # type: ignore[arg-type]
                                                      hints, self.walk_memo)
                    if got is None:
                        break  # undecided here: the next stage (as the walk of the whole conjunction)
                    found, pt = got
                    if not found:
                        parts.remove(part)
                        used = kept
                        continue
                    # a point where a part fails fails the guard
                    if pt is not None and hints and self.required_at(i, {**hints, **pt}):
                        return None
                    if kept is near:
                        return None
                    break  # the short facts allow a failing point: the longer ones may not
                if not parts:
                    return used
            return None
        return None

    def by_restated(self, i: int) -> list[int] | None:
        """``by_multivariate`` on guard ``i`` restated under the facts of the kept guards over one
        size, against the other kept guards over its symbols restated alike: the facts that pin a
        size's divisions (SAM 2 Hiera: ``16 <= w <= 19``, ``4 | w``) take the size out of the
        restated forms, and a walk over two sizes decides what the one over three could not (the
        restated forms are implied by the kept guards, and the goal's is equivalent to it there).
        The guards behind the walk's facts and the restatements, or None (a counterexample,
        verified on the original terms with the hints for the sizes restating took out:
        ``required``). Its walks have a budget of their own (``restated_memo``, in ``stats.walk``)."""
        if not (RESTATE and MULTIVARIATE) or len(self.syms[i]) < 2:
            return None
        # restated under the facts of the kept guards over one size (its bounds and divisibility:
        # what pins a size's divisions) and of the guards the asserts imply, each of the others as
        # written: one rewriter for the goal and every premise, its work shared from goal to goal
        # while that set stays (a rewriter per premise and goal: 570 rewrites for 9 goals)
        single = {j for j in self.kept if len(self.syms[j]) <= 1}
        if not any(self.syms[j] <= self.syms[i] for j in single):
            return None  # no fact of this kind about the guard's sizes: nothing to take out
        rw = self._restating(frozenset((self.candidates - single) | {i}))
        t = rw.rewrite(self.can[i])  # type: ignore[arg-type]
        syms = ir.symbols_of(t)
        if not 1 <= len(syms) < len(self.syms[i]) or len(syms) > multivariate.MAX_SYMBOLS:
            return None  # no size taken out: the walk ``by_multivariate`` made, or one as open
        facts = [a for a in self.can_asserts if ir.symbols_of(a) <= syms]
        sources: set[int] = set()
        for j in sorted(self.kept | self.at_true):
            if j == i or not self.syms[j] <= self.syms[i]:
                continue
            tj = self.can[j]
            assert tj is not None  # kept and always-true guards have terms
            if j in self.kept and j not in single:
                tj = rw.rewrite(tj)
            if tj is not ir.TRUE and ir.symbols_of(tj) <= syms:
                facts.append(tj)
                sources.add(j)
        sources |= rw.used
        hints = self.p.hints
        got = multivariate.counterexample(t, facts, self.base_env.ranges, hints, self.restated_memo)
        if got is None:
            return None
        found, pt = got
        if not found:
            return sorted(sources)
        if pt is not None and hints:
            self.required_at(i, {**hints, **pt})  # sets REQUIRED when Python agrees
        return None

    def _restating(self, banned: frozenset[int]) -> rewrite.Rewriter:
        """The rewriter of ``by_restated`` for ``banned``, kept while the next call bans the same."""
        assert self.env is not None
        if self._restating_rw is None or self._restating_rw.banned != banned:
            self._restating_rw = rewrite.Rewriter(self.env, banned=banned, collapse=self.collapse)
        return self._restating_rw

    def _restater(self) -> restate.Restater:
        if self.restater is None:
            self.restater = restate.Restater(self._restated)
        return self.restater

    def periods(self, t: ir.Term) -> dict[str, int]:
        """Per symbol, the lcm of the periods of ``t``'s one-symbol division chains (1: none)."""
        got = self._periods.get(t)
        if got is None:
            got = {}
            for n in ir.iter_dag(t):
                sh = quasilinear.shape(n) if n.kind in ir.DIV_KINDS else None
                if sh is not None:
                    got[sh[0]] = math.lcm(got.get(sh[0], 1), sh[1])
            self._periods[t] = got
        return got

    def by_equalities(self, i: int) -> list[int] | None:
        """Union-find over the kept ``Eq(s, t)``/``Eq(s, k)`` guards (``equalities``), then decide.

        An equality guard is implied when the other kept equalities connect its two sides (the
        guards on the path are its proof). Any other guard is rewritten with every symbol replaced
        by its class representative, under the facts of the kept guards substituted alike (each
        fact's sources gain the equalities its substitution used): True means implied by the
        equalities used and the facts consulted."""
        eqs = [j for j in sorted(self.kept) if j != i and self.eqp[j] is not None]
        if not eqs:
            return None
        pair = self.eqp[i]
        if pair is not None:
            return equalities.Graph((*self.eqp[j], j) for j in eqs).path(*pair)  # type: ignore[misc]
        if not self.syms[i] & self._eq_syms:
            return None
        if self._eq_env is None or not set(self._eq_env[0]) <= self.kept:
            if self._eq_builds >= EQ_REBUILDS:
                return None
            self._eq_builds += 1
            self._eq_env = (tuple(eqs), *self._substituted_env(eqs))
        _, env, sub, srcs = self._eq_env
        mine = frozenset().union(*(srcs[s] for s in self.syms[i] if s in srcs))
        if not mine <= self.kept:
            return None
        rw = rewrite.Rewriter(env, banned=(self.candidates - self.kept) | {i}, collapse=self.collapse)
        if rw.rewrite(periodic.substitute(self.can[i], sub)) is not ir.TRUE:  # type: ignore[arg-type]
            return None
        return sorted(rw.used | mine)

    def _substituted_env(self, eqs: list[int]) -> tuple[facts.Env, dict[str, periodic.Poly],
                                                        dict[str, frozenset[int]]]:
        sub, contra = equalities.Graph((*self.eqp[j], j) for j in eqs).substitution()  # type: ignore[misc]
        if contra is not None:
            sub = {}  # the kept guards contradict each other: SAT status says this cannot happen
        polys: dict[str, periodic.Poly] = {
            s: ({(): rep} if rep else {}) if isinstance(rep, int) else {(ir.mk_sym(rep),): 1}
            for s, (rep, _) in sub.items()}
        srcs = {s: src for s, (_, src) in sub.items()}
        env = facts.Env(dict(self.base_env.ranges))
        for t in self.can_asserts:
            env.add(periodic.substitute(t, polys), frozenset().union(
                *(srcs[s] for s in ir.symbols_of(t) if s in srcs)))
        for j in sorted(self.kept):
            g = self.can[j]
            assert g is not None
            env.add(periodic.substitute(g, polys), frozenset((j,)).union(
                *(srcs[s] for s in self.syms[j] if s in srcs)))
        return env, polys, srcs

    def by_multiples(self, i: int) -> list[int] | None:
        """Guard ``i`` with every symbol ``s`` the kept guards make a multiple of ``m`` replaced by
        ``m*k`` (``reason.multiples``), rewritten under the kept guards' facts substituted alike:
        True means implied by the facts consulted and the guards that show ``m | s`` for each
        symbol of ``i`` and of those facts. The multiples are derived once a pass; a source
        dropped since stands for the guards that implied it (``_sources``), and a multiple whose
        proof needs ``i`` itself proves nothing about ``i``."""
        if not MULTIPLES or not self.syms[i] or any(s.is_bool for s in self.p.symbols):
            return None
        if self._mult is None:
            self._mult = self._multiples_env(self.kept | self.at_true, None, self._mult_cache)
        mult, env, sub = self._mult
        if not self.syms[i] & mult.keys():
            return None
        rw = rewrite.Rewriter(env, banned=(self.candidates - self.kept) | {i}, collapse=self.collapse)
        if rw.rewrite(sub(self.can[i])) is not ir.TRUE:  # type: ignore[arg-type]
            return None
        # the multiples the proof relied on: those of the guard's symbols and of every fact used
        # (facts carry their own guard only: an assert's symbols count whenever one may be used)
        need = set(self.syms[i]).union(self.assert_syms, *(self.syms[j] for j in rw.used)) & mult.keys()
        proof = self._multiples_proof(i, need, mult)
        if proof is None and self._mult_builds < MULT_REBUILDS:
            # derived again from the premises but i (a source is i itself, or was dropped and its
            # removal named i): adopted only when it shows the same multiples, so the facts
            # substituted and the rewrite above stand (and no later guard sees weaker ones)
            self._mult_builds += 1
            cache = multiples.Cache(dict(self._mult_cache.facts), dict(self._mult_cache.steps))
            got = self._multiples_env((self.kept | self.at_true) - {i}, self._mult, cache)
            if got[1] is env:
                self._mult, self._mult_cache = got, cache
                proof = self._multiples_proof(i, need, got[0])
        return None if proof is None else sorted(proof | rw.used)

    def _multiples_proof(self, i: int, need: set[str], mult: multiples.Multiples) -> set[int] | None:
        """The premises that show each multiple of ``need`` (``_sources``), None if one needs ``i``."""
        proof: set[int] = set()
        for s in sorted(need):
            src = self._sources(mult[s][1])
            if src is None or i in src:
                return None
            proof |= src
        return proof

    def _sources(self, src: frozenset[int]) -> set[int] | None:
        """``src`` in terms of the premises now: a guard dropped since is replaced by the guards
        its removal named (``removed_core``, kept then: dropped later or kept now), so the set
        still implies what ``src`` did; None when some guard is neither."""
        premises = self.kept | self.at_true
        out: set[int] = set()
        todo, seen = list(src), set(src)
        while todo:
            j = todo.pop()
            if j in premises:
                out.add(j)
            elif j in self.removed_core:
                more = [x for x in self.removed_core[j] if x not in seen]
                seen.update(more)
                todo += more
            else:
                return None
        return out

    def _multiples_env(self, premises: set[int], last: tuple[multiples.Multiples, facts.Env, Callable[[ir.Term], ir.Term]]
                       | None, cache: multiples.Cache) -> tuple[multiples.Multiples, facts.Env, Callable[[ir.Term], ir.Term]]:
        """The multiples the asserts and the guards ``premises`` show, and the facts of both with
        each such symbol replaced (each fact with its own guard as source: ``by_multiples`` adds
        the multiples' sources); the ``last`` facts again when the multiples are the same."""
        given = [multiples.Fact(t, frozenset()) for t in self.can_asserts]
        given += [multiples.Fact(self.can[j], frozenset((j,))) for j in sorted(premises)]  # type: ignore[arg-type]
        hints = {s.name: s.hint for s in self.p.symbols if s.hint is not None}
        mask = sum(1 << j for j in premises)  # pool points where every premise holds bound each m
        witnesses = [pt for pt, bad in zip(self.pool.points, self.pool.masks) if not bad & mask]
        mult = multiples.derive(given, self.base_env.ranges, hints, self.mult_memo, cache=cache,
                                witnesses=witnesses)  # type: ignore[arg-type]
        if last is not None and {s: m for s, (m, _) in mult.items()} == {s: m for s, (m, _) in last[0].items()}:
            return mult, last[1], last[2]
        sub = multiples.substituter(mult)
        env = facts.Env(multiples.ranges_of(self.base_env.ranges, mult))
        if mult:
            for f in given:
                env.add(sub(f.term), f.src)
        return mult, env, sub

    def by_periodic(self, i: int, near: list[int], *, z3_budget: int | None,
                    prove_required: bool = False) -> list[int] | None:
        """Residue splitting (``periodic``): is ``A & near & ~g_i`` unsatisfiable in every residue
        class of the periodic symbols? Each case is first rewritten under the facts of its own
        conditions (no solver); with ``z3_budget`` (resource units) a case left open costs one exact z3 call on its
        (division-free where the split reached every division) formula. Returns the kept guards
        the proof used, or None when some case stays open (a refutation decides nothing here:
        verified points and z3 models prove ``required``; with ``prove_required`` a case's model
        that Python confirms violates ``g`` and satisfies the kept guards sets ``required``)."""
        if not self.deadline.affords(PERIODIC_SPLIT_COST + PERIODIC_CASE_COST):
            return None
        goal = ir.mk_not(self.can[i])  # type: ignore[arg-type]
        conds: list[ir.Term] = [*self.can_asserts, *(self.can[j] for j in near), goal]  # type: ignore[list-item]
        srcs: list[int | None] = [*(None for _ in self.can_asserts), *near, None]
        ranges = self.base_env.ranges
        # periods of the guard (and asserts) only: the kept guards' own divisions need not vanish,
        # they are facts, and their deeper chains would make every split too large to try
        split = periodic.plan([*self.can_asserts, goal], ranges,
                              PERIODIC_CASES if z3_budget is None else PERIODIC_Z3_CASES)
        if not split or not any(s in self.syms[i] for s, _ in split):
            return None  # only a split of the guard's own symbols changes what its check sees
        self.deadline.pay(PERIODIC_SPLIT_COST)
        used: set[int] = set()
        seen: set[tuple[tuple[ir.Term, ...], tuple[tuple[str, periodic.Interval], ...]]] = set()
        for case in periodic.cases(conds, ranges, split):
            # each case is Python work (substituting, rewriting): paid in units like a check's
            # setup, so a small effort never spends more on splits than the default does
            self.deadline.ensure_time()
            if not self.deadline.affords(PERIODIC_CASE_COST):
                return None
            self.deadline.pay(PERIODIC_CASE_COST)
            if case.conds[-1] is ir.FALSE:
                continue  # g holds throughout the case
            false_at = [k for k, c in enumerate(case.conds) if c is ir.FALSE]
            if false_at:  # an assert or a kept guard has no point in the case: it is a source
                used |= {j for j in (srcs[k] for k in false_at[:1]) if j is not None}
                continue
            key = (case.conds, tuple(sorted(case.ranges.items())))
            if key in seen:
                continue  # residues the formula cannot tell apart: one answer for all of them
            seen.add(key)
            env = facts.facts_env({**ranges, **case.ranges},
                                  [(c, j) for c, j in zip(case.conds[:-1], srcs[:-1])])
            rw = rewrite.Rewriter(env, collapse=self.collapse)
            if rw.rewrite(case.conds[-1]) is ir.FALSE:
                used |= rw.used
                continue
            if z3_budget is None or self.deadline.expired:
                return None
            bounds = [ir.mk_and(*(b for b in (None if lo is None else ir.mk_ge(ir.mk_sym(q), ir.mk_int(lo)),
                                               None if hi is None else ir.mk_le(ir.mk_sym(q), ir.mk_int(hi)))
                                   if b is not None)) for q, (lo, hi) in case.ranges.items()]
            # s == L*q + r ties each split symbol to its case, so a model names a point of the
            # original symbols (checked in Python before it proves anything)
            links = [ir.mk_eq(ir.mk_sym(sym), ir.mk_add(ir.mk_mul(ir.mk_int(L), ir.mk_sym(periodic.q_name(sym))),
                                                        ir.mk_int(r))) for sym, L, r in case.residues]
            whole = ir.mk_and(*bounds, *links, *case.conds)
            if whole is ir.FALSE:  # contradictory atoms of the case: the slice's guards are its proof
                used |= set(near)
                continue
            out = self.checker().check_scoped([self.checker().selector(whole)], budget=z3_budget)
            self.levers["z3"] += 1
            if out.status == SAT:
                pt = self.extend(out.model, near, i)
                if prove_required:
                    self.required_at(i, pt)  # sets REQUIRED when Python agrees
                else:
                    self.learn(pt)
            if out.status != UNSAT:
                return None
            used |= set(near)
        return sorted(used)

    def drop(self, i: int, proof: list[int]) -> str:
        self.kept.discard(i)
        self.kept_mask &= ~(1 << i)
        self.verdict[i] = REDUNDANT
        self.removed_core[i] = proof
        return REDUNDANT

    def required_at(self, i: int, point: dict[str, int | bool]) -> bool:
        """Guard ``i`` is ``required``, shown at ``point``: in the ranges and the asserts, every
        kept guard but ``i`` holds there and ``i`` fails (Python, on the original terms). The
        levers build points from the hints and a value their own facts allow (one symbol, a walk's
        cell): such a point can break an assert that ties its symbols to others, and then it
        proves nothing (a check of a guard against a kept set given as asserts said ``required``
        for a guard the asserts imply)."""
        if not self.pool.admits(point):
            return False
        self.learn(point)
        if self.pool.verify(point, i, self.kept_mask):
            self.verdict[i] = REQUIRED
            return True
        return False

    def extend(self, model: dict[str, int | bool], near: list[int], i: int) -> dict[str, int | bool]:
        """A model of a slice, with the hints for the symbols the slice does not mention."""
        hints = self.p.hints
        if not hints:
            return model
        used = set(self.syms[i]).union(*(self.syms[j] for j in near), self.assert_syms)
        return {k: (v if k in used or k not in hints else hints[k]) for k, v in model.items()}

    def by_extremes(self, i: int, kept: set[int] | None) -> list[int] | None:
        """Guard ``i`` split at its ``Max``/``Min`` into an and/or tree of comparisons of their
        arguments (``reason.extremes``), every needed leaf rewritten to True under the facts of
        the asserts and (``kept`` not None) of the other kept guards: those guards, or None."""
        if not EXTREMES:
            return None
        tree = extremes.split(self.can[i])  # type: ignore[arg-type]
        if tree is None:
            return None
        if kept is None:
            rw = rewrite.Rewriter(self.base_env, collapse=self.collapse)
        else:
            assert self.env is not None
            rw = rewrite.Rewriter(self.env, banned=(self.candidates - kept) | {i}, collapse=self.collapse)
        if not extremes.proves(tree, lambda a: self._leaf_true(rw, a)):
            return None
        return sorted(rw.used)

    def by_regions(self, i: int, kept: set[int]) -> list[int] | None:
        """``reason.regions`` on the relaxed regions of guard ``i`` and the kept guards: the guards
        its proof used, or None (a point it finds, verified on the original terms: ``required``)."""
        if not EXTREMES or any(s.is_bool for s in self.p.symbols) or \
                not any(n.kind in (ir.MAX, ir.MIN) for n in ir.iter_dag(self.can[i])):  # type: ignore[arg-type]
            return None  # integer points only (the base point below has no Boolean values)
        base = self.base_point
        facts = [(t, -1) for t in self.can_asserts] + [(self.can[j], j) for j in sorted(kept | self.at_true) if j != i]
        # the pass' work split over its guards, twice over: most stop long before their share
        share = min(REGION_WORK, max(REGION_MIN, 2 * REGION_TOTAL // max(1, self.hard)))
        got = regions.decide(self.can[i], facts, self.base_env.ranges, base, share,  # type: ignore[arg-type]
                             self.region_meter, lambda pt: self.required_at(i, {**base, **pt}), self.region_cache)
        return None if got is None or got[0] else sorted(j for j in got[1] if j in kept)  # type: ignore[union-attr]

    def _leaf_true(self, rw: rewrite.Rewriter, a: ir.Term) -> bool:
        """A leaf of a split comparison proven: rewritten to True, or over one symbol and true on
        its whole range, residue class by residue class (``quasilinear.implied``: the rewriter
        does not walk a sum of two chains, ``-2*(x//2) + (x + 2)//3 + 1 <= 0``)."""
        r = rw.rewrite(a)
        if r is ir.TRUE:
            return True
        syms = ir.symbols_of(r)
        if len(syms) != 1 or r.kind not in (ir.LE, ir.EQ, ir.NOT):
            return False
        lo, hi = self.base_env.ranges.get(next(iter(syms)), (None, None))
        return quasilinear.implied(r, [], lo, hi) is True

    def implied_by_facts(self, i: int, kept: set[int]) -> list[int] | None:
        """The kept guards (not ``i``) whose facts rewrite guard ``i`` to True, or None."""
        assert self.env is not None
        rw = rewrite.Rewriter(self.env, banned=(self.candidates - kept) | {i}, collapse=self.collapse)
        if rw.rewrite(self.can[i]) is not ir.TRUE:  # type: ignore[arg-type]
            return None
        return sorted(rw.used)

    def unsat_minimize(self, live: list[int]) -> None:
        """Deletion-based minimal unsat core. A guard is ``required`` only when the rest was proven
        satisfiable without it; a check that times out keeps the guard as ``unknown``."""
        ch = self.checker()
        pts = self.pool.points  # each satisfies the ranges and the asserts
        if not any(self.verdict[i] == ALWAYS_FALSE for i in live):
            if not pts and ch.check(self.A).status == UNSAT:
                for i in live:
                    self.verdict[i] = ALWAYS_FALSE
                self.minimal_unsat = set()
                return
            for i in live:
                if self.verdict[i] is None and not any(self.pool.holds_all(pt, [i]) for pt in pts) and \
                        (self.unsat_by_cells([i]) or ch.check(self.A + [self.sel(i)],
                                                              budget=self.budget(len(live))).status == UNSAT):
                    self.verdict[i] = ALWAYS_FALSE
                    break  # one contradiction explains the conflict: the rest need no check
                elif self.verdict[i] is None and not self.pool.fails_somewhere(i) and \
                        ch.check(self.A + [self.neg(i)], budget=self.budget(len(live))).status == UNSAT:
                    self.verdict[i] = ALWAYS_TRUE  # docs/problem-format.md §2: implied by the asserts alone, even when A & G is unsat
        cands = [i for i in live if self.verdict[i] != ALWAYS_TRUE]
        false = [i for i in self.removal_order(cands) if self.verdict[i] == ALWAYS_FALSE]
        if false:  # A & f is unsat on its own: {f} is a minimal core and implies every other guard
            kept = {false[-1]}
        else:
            kept = set(cands)
            for i in self.removal_order(cands):
                rest = sorted(kept - {i})
                if not rest:
                    break
                # a point of the pool satisfying the rest, or the rest contradicting itself over one
                # to three sizes (``unsat_by_cells``), decides without z3
                if any(self.pool.holds_all(pt, rest) for pt in pts):
                    out = Outcome(SAT)
                elif self.unsat_by_cells(rest):
                    out = Outcome(UNSAT)
                else:
                    out = ch.check(self.A + [self.sel(j) for j in rest], budget=self.budget(len(cands)))
                if out.status == UNSAT:
                    kept.discard(i)
                elif out.status != SAT:
                    self.undecided(i, out.reason)  # kept, undecided: never a guessed "required"
                    self.settled.add(i)
        for i in cands:
            if self.verdict[i] is None:
                self.verdict[i] = REQUIRED if i in kept else REDUNDANT
            if i not in kept:
                self.implied[i] = sorted(kept)
        self.minimal_unsat = kept

    def unsat_by_cells(self, idx: list[int], memo: multivariate.Memo | None = None) -> bool:
        """Whether the asserts and the guards ``idx`` contradict each other, shown without z3: some
        guard over one to three sizes whose negation the asserts and the other guards of ``idx``
        over its sizes imply, cell of residue classes by cell (``reason.multivariate``; fewer
        facts than the whole set, so a contradiction found is one of the whole). VitDet's padded
        window counts against a kept divisibility guard are this case: z3 leaves the product
        of quotients open."""
        if not MULTIVARIATE:
            return False
        for i in idx:
            syms = self.syms[i]
            if not 1 <= len(syms) <= multivariate.MAX_SYMBOLS:
                continue
            near = [j for j in idx if j != i and self.syms[j] and self.syms[j] <= syms]
            fs = [t for t in self.can_asserts if ir.symbols_of(t) <= syms]
            fs += [self.can[j] for j in near]  # type: ignore[misc]
            got = multivariate.counterexample(ir.mk_not(self.can[i]), fs,  # type: ignore[arg-type]
                                              self.base_env.ranges, None, memo or self.walk_memo)
            if got is not None and not got[0]:
                return True
        return False

    def core_guards(self, core: tuple[int, ...], exclude: int) -> list[int]:
        """The guards whose selectors an unsat core names (read back from the handles: building
        a selector for every guard to invert the map would translate guards no check needs)."""
        if self._by_term is None:  # canonical term -> its representative guard (duplicates share one)
            self._by_term = {t: j for j, t in enumerate(self.can) if t is not None and self.rep[j] == j}
        ch = self.checker()
        # a guard spelled like an assert shares its selector: that handle is the assert's, not the guard's
        asserted = set(self.A)
        out = set()
        for h in core:
            t = ch.selected(h)
            j = None if t is None or h in asserted else self._by_term.get(t)
            if j is not None and j != exclude:
                out.add(j)
        return sorted(out)

    # -------------------------------------------------------------- result
    def refuted_at_end(self, res: dict[str, Any]) -> dict[str, Any]:
        """``res`` with each guard it left ``unknown`` that a point found before any z3 check
        refutes against the final kept set (``required``). Run at the end of every pass, complete
        or stopped by the effort: a larger effort's pass extends a smaller one's, its kept set only
        smaller, so a point that refutes a guard here refutes it there too (the points before z3
        are the same at every effort): a small effort that stopped early still labels what those
        points show, and a larger one labels it too."""
        if res["status"] != SAT or self.phase != "greedy" or not self.free_points or not _unknowns(res):
            return res
        view = _Prefix(self.pool, self.free_points)
        rows = list(res["guards"])
        for i in sorted(self.kept):
            if rows[i]["verdict"] == UNKNOWN and view.refuting(i, self.kept_mask) is not None:
                rows[i] = {"id": rows[i]["id"], "verdict": REQUIRED, "implied_by": []}
                self.verdict[i] = REQUIRED
                self.levers["points"] += 1
        return {**res, "guards": rows}

    def report(self, status: str) -> dict[str, Any]:
        g = self.guards
        kept_states = (REQUIRED, UNKNOWN, UNSUPPORTED)
        if status == UNSAT:
            kept: set[int] = getattr(self, "minimal_unsat", set())
            in_min = {i for i in range(len(g)) if i in kept or self.verdict[i] == UNSUPPORTED}
        else:
            in_min = {i for i in range(len(g)) if self.rep[i] == i and
                      (self.verdict[i] in kept_states or self.verdict[i] is None)}
        rows = []
        for i, c in enumerate(g):
            r = self.rep[i]
            if r != i:  # a syntactic duplicate follows its representative
                v = self.verdict[r]
                if v in (ALWAYS_TRUE, ALWAYS_FALSE, UNSUPPORTED):
                    verdict, implied = v, self.implied[r]
                else:
                    verdict = REDUNDANT
                    implied = [r] if r in in_min else self.implied[r]
            else:
                verdict = self.verdict[i] or UNKNOWN
                implied = self.implied[i] if verdict == REDUNDANT else []
            row = {"id": c.id, "verdict": verdict, "implied_by": [g[j].id for j in implied]}
            if verdict == UNKNOWN:
                row["reason"] = self.why[i]
            rows.append(row)
        ch = self.ch
        out: dict[str, Any] = {"status": status}
        if status == UNKNOWN:
            out["reason"] = self.status_reason
        return {
            **out,
            "guards": rows,
            "minimal": [g[i].id for i in sorted(in_min)],
            "stats": {"checks": ch.checks if ch else 0, "avoided": self.avoided,
                      "solver_ms": round(ch.solver_ms, 3) if ch else 0.0, "levers": dict(self.levers),
                      "walk": sum(multivariate.MAX_TOTAL + multivariate.MAX_TOTAL_WIDE - m.left - m.left_wide
                                  for m in (self.walk_memo, self.restated_memo)),
                      "points": len(self.pool.points)},
        }


class _Prefix:
    """A pool seen through its first ``n`` points (those found before any z3 model, the same at
    every effort); points the walk finds go to the pool itself."""

    def __init__(self, pool: Pool, n: int) -> None:
        self._pool = pool
        self.points = pool.points[:n]
        self.masks = pool.masks[:n]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pool, name)


# ------------------------------------------------------------------ the operation

def _unknown(problem: Problem) -> dict[str, Any]:
    return {"status": "unknown", "reason": "timeout",
            "guards": [{"id": g.id, "verdict": "unknown", "implied_by": [], "reason": "timeout"}
                       for g in problem.guards],
            "minimal": [g.id for g in problem.guards]}


def _final(res: dict[str, Any]) -> bool:
    return not any(g["verdict"] == "unknown" for g in res.get("guards", ()))


def _map_back(res: Result, back: Back) -> Result:
    """Verdicts per input guard (repeats of one canonical guard included), ids in input order."""
    problem, canon, g_first, cid = back.problem, back.canon, back.g_first, back.cid
    rows = res["guards"]
    minimal = {int(i[1:]) for i in res["minimal"]}
    out_rows = []
    for i, (g, j) in enumerate(zip(problem.guards, canon.guards)):
        row = rows[j]
        # canonical guards are sorted by text: give implied_by back in the caller's input order
        by_input = sorted(row["implied_by"], key=lambda x: (x[0] != "a", g_first.get(int(x[1:]), 0)))
        verdict, implied = row["verdict"], [cid(x) for x in by_input]
        if g_first[j] != i and verdict not in ("always_true", "always_false", "unsupported"):
            # a repeat of an earlier guard is implied by that guard (or by what implies it)
            verdict = "redundant"
            implied = [problem.guards[g_first[j]].id] if j in minimal else implied
        out_row = {"id": g.id, "verdict": verdict, "implied_by": implied}
        if verdict == "unknown" and "reason" in row:
            out_row["reason"] = row["reason"]
        out_rows.append(out_row)
    kept = sorted(g_first[j] for j in minimal)
    return {"guards": out_rows, "minimal": [problem.guards[i].id for i in kept]}


def _tally(res: dict[str, Any]) -> list[str]:
    return [str(row.get("verdict")) for row in res.get("guards", ())]


_VERDICTS = frozenset({ALWAYS_TRUE, ALWAYS_FALSE, REDUNDANT, REQUIRED, UNKNOWN, UNSUPPORTED})


def _audit(res: dict[str, Any], audit: Audit) -> None:
    for r in audit.rows(res, "guards", audit.guard_ids):
        if r.get("verdict") not in _VERDICTS:
            raise audit.bad(f"unknown verdict for {r.get('id')}")
        audit.ids(r.get("implied_by"), audit.guard_ids, "implied_by")
    audit.ids(res.get("minimal"), audit.guard_ids, "minimal")


def _carry(problem: Problem, other: dict[str, Any], res: dict[str, Any]) -> dict[str, Any]:
    """``res`` with ``other``'s verdicts carried over where they hold against its kept set
    (``_merged`` without points: always true, or implied by guards it keeps)."""
    return _merged(problem, res, other, [])


OPERATION = Operation("redundancy", redundancy, _unknown, is_final=_final, map_back=_map_back, tally=_tally,
                      audit=_audit, carry=_carry)


def _has_kind(terms: list[ir.Term], kind: str) -> bool:
    """Whether a node of ``kind`` is below one of ``terms`` (only partial terms can hold one of
    the partial kinds: ``has_div``)."""
    return any(n.kind == kind for t in terms if t.has_div for n in ir.iter_dag(t))
