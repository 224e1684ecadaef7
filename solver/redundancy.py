"""SPEC §2 ``redundancy``: a verdict per guard and a minimal equivalent guard set.

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

Levers before z3 (each sound on its own, counted in ``stats.levers``):

* ``rewrite``: every term is first put in ``rewrite``'s canonical form under the ranges and the
  asserts' facts; a guard that becomes a constant is decided, two guards with one canonical form
  are duplicates, and z3 only ever sees the (smaller, division-light) canonical forms;
* ``points``: ``sampling.Pool`` points of ``ranges & A`` (hints, moves from them, z3 models):
  one where ``g`` fails refutes ``always_true``; one where ``g`` fails and the rest of the kept set
  holds proves ``required`` — re-checked on the original terms first;
* ``facts``: ``g`` rewritten under the atoms of the asserts and of the other kept guards becomes
  ``True``: redundant, implied by the guards whose facts were consulted.
"""

from __future__ import annotations

from typing import Any

from . import cheap, facts, ir, rewrite
from .checker import SAT, UNSAT, Checker, Deadline
from .problem import Problem
from .sampling import Pool

SEED_POINTS = 48

ALWAYS_TRUE, ALWAYS_FALSE, REDUNDANT, REQUIRED, UNKNOWN, UNSUPPORTED = (
    "always_true", "always_false", "redundant", "required", "unknown", "unsupported")

MIN_CHECK_MS = 50


def cost(t: ir.Term) -> int:
    """Run-time cost of evaluating a guard: divisions and products weigh more."""
    w = 0
    for n in ir.iter_dag(t):
        w += 4 if n.kind in ir.DIV_KINDS else 3 if n.kind == ir.MUL and len(n.args) > 1 and \
            n.args[0].kind != ir.CONST else 2 if n.kind in (ir.MAX, ir.MIN, ir.ITE) else 1
    return w


def redundancy(problem: Problem, deadline: Deadline) -> dict[str, Any]:
    return _Run(problem, deadline).run()


class _Run:
    def __init__(self, problem: Problem, deadline: Deadline) -> None:
        self.p = problem
        self.deadline = deadline
        self.guards = problem.guards
        n = len(self.guards)
        self.verdict: list[str | None] = [None] * n
        self.implied: list[list[int]] = [[] for _ in range(n)]
        self.rep = list(range(n))
        self.avoided = 0
        self.levers = {"duplicate": 0, "rewrite": 0, "points": 0, "facts": 0, "z3": 0}
        self.ch: Checker | None = None
        ranges = cheap.Facts.from_problem(problem)
        # asserts: canonical under the declared ranges only (under their own facts they are True)
        plain = rewrite.Rewriter(rewrite.Env({s.name: (s.lo, s.hi) for s in problem.symbols if not s.is_bool}))
        self.can_asserts = [plain.rewrite(c.term) for c in problem.asserts if c.term is not None]
        self.base_env = facts.facts_env(ranges.ranges, [(t, None) for t in self.can_asserts])
        self.env: facts.Env | None = None  # base facts plus those of every greedy candidate
        rw = rewrite.Rewriter(self.base_env)
        self.can: list[ir.Term | None] = [None if c.term is None else rw.rewrite(c.term) for c in self.guards]
        self.pool = Pool(problem, self.can)

    # -------------------------------------------------------------- plumbing
    def checker(self) -> Checker:
        if self.ch is None:
            self.ch = Checker(self.p, self.deadline)
            self.A = [self.ch.selector(t) for t in self.can_asserts]
        return self.ch

    def sel(self, i: int) -> int:
        return self.checker().selector(self.can[i])  # type: ignore[arg-type]

    def neg(self, i: int) -> int:
        return self.checker().negation(self.can[i])  # type: ignore[arg-type]

    def learn(self, model: dict[str, int | bool]) -> None:
        self.pool.add(dict(model))

    def budget(self, pending: int) -> int:
        rem = self.deadline.remaining_ms()
        return max(MIN_CHECK_MS, rem // max(1, pending) * 3)

    # -------------------------------------------------------------- main
    def run(self) -> dict[str, Any]:
        g = self.guards
        asserts = [c.term for c in self.p.asserts if c.term is not None]
        facts = cheap.Facts.from_problem(self.p)
        first: dict[ir.Term, int] = {}
        for i, c in enumerate(g):
            t = self.can[i]
            if c.term is None or t is None:
                self.verdict[i] = UNSUPPORTED
                continue
            decided = bool(t.value) if t.kind == ir.BCONST else None
            if decided is None and t in first:
                self.rep[i] = first[t]
                self.avoided += 1
                self.levers["duplicate"] += 1
                continue
            first.setdefault(t, i)
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
            self.pool.seed_points(SEED_POINTS)
            mask = sum(1 << i for i in pending)
            if any(m & mask == 0 and self.pool.holds_all(pt, pending)
                   for pt, m in zip(self.pool.points, self.pool.masks)):
                status = SAT  # a point (the hints, usually) satisfies everything: no solver needed
                self.avoided += 1
            else:
                out = self.checker().check(self.A + [self.sel(i) for i in pending])
                status = out.status
                if status == SAT:
                    self.learn(out.model)
        if status == UNSAT:
            self.unsat_minimize(live)
        else:
            self.always_true(live)
            self.greedy(live)
        return self.report(status)

    def always_true(self, live: list[int]) -> None:
        pending = [i for i in live if self.verdict[i] is None]
        ch = self.checker()
        for k, i in enumerate(pending):
            if self.pool.fails_somewhere(i, verified=True):
                self.avoided += 1
                self.levers["points"] += 1
                continue
            out = ch.check(self.A + [self.neg(i)], budget_ms=self.budget(len(pending) - k))
            self.levers["z3"] += 1
            if out.status == UNSAT:
                self.verdict[i] = ALWAYS_TRUE
            elif out.status == SAT:
                self.learn(out.model)

    def removal_order(self, idx: list[int]) -> list[int]:
        if self.p.options.prefer == "order":
            return sorted(idx, reverse=True)
        return sorted(idx, key=lambda i: (-cost(self.guards[i].term), -i))  # type: ignore[arg-type]

    def greedy(self, live: list[int]) -> None:
        ch = self.checker()
        keep = [i for i in live if self.verdict[i] != ALWAYS_TRUE]
        kept = set(keep)
        kept_mask = sum(1 << i for i in keep)
        self.env = facts.facts_env(self.base_env.ranges, [(t, None) for t in self.can_asserts] +
                                   [(self.can[j], j) for j in keep])  # type: ignore[misc]
        self.candidates = set(keep)
        removed_core: dict[int, list[int]] = {}
        order = self.removal_order(keep)
        for k, i in enumerate(order):
            if self.pool.refuting(i, kept_mask) is not None:
                self.verdict[i] = REQUIRED
                self.avoided += 1
                self.levers["points"] += 1
                continue
            by_facts = self.implied_by_facts(i, kept)
            if by_facts is not None:
                kept.discard(i)
                kept_mask &= ~(1 << i)
                self.verdict[i] = REDUNDANT
                removed_core[i] = by_facts
                self.avoided += 1
                self.levers["facts"] += 1
                continue
            others = [self.sel(j) for j in sorted(kept) if j != i]
            out = ch.check(self.A + others + [self.neg(i)], budget_ms=self.budget(len(order) - k))
            self.levers["z3"] += 1
            if out.status == UNSAT:
                kept.discard(i)
                kept_mask &= ~(1 << i)
                self.verdict[i] = REDUNDANT
                removed_core[i] = self.core_guards(out.core, exclude=i)
            elif out.status == SAT:
                self.learn(out.model)
                ok = self.pool.verify(out.model, i, kept_mask)
                self.verdict[i] = REQUIRED if ok else UNKNOWN  # a model Python disagrees with decides nothing
            else:
                self.verdict[i] = UNKNOWN
        # implied_by: a guard named in a removal proof but dropped later is replaced by what implied
        # it (its own proof used guards kept at its removal, i.e. dropped later still or kept at the end)
        for i in reversed(list(removed_core)):
            out_set: set[int] = set()
            for j in removed_core[i]:
                out_set |= {j} if j in kept else set(self.implied[j])
            self.implied[i] = sorted(out_set)

    def implied_by_facts(self, i: int, kept: set[int]) -> list[int] | None:
        """The kept guards (not ``i``) whose facts rewrite guard ``i`` to True, or None."""
        assert self.env is not None
        rw = rewrite.Rewriter(self.env, banned=(self.candidates - kept) | {i})
        if rw.rewrite(self.can[i]) is not ir.TRUE:  # type: ignore[arg-type]
            return None
        return sorted(rw.used)

    def unsat_minimize(self, live: list[int]) -> None:
        ch = self.checker()
        if ch.check(self.A).status == UNSAT:
            for i in live:
                self.verdict[i] = ALWAYS_FALSE
            self.minimal_unsat: set[int] = set()
            return
        for i in live:
            if self.verdict[i] is None and ch.check(self.A + [self.sel(i)], budget_ms=self.budget(len(live))).status == UNSAT:
                self.verdict[i] = ALWAYS_FALSE
            elif self.verdict[i] is None and ch.check(self.A + [self.neg(i)],
                                                      budget_ms=self.budget(len(live))).status == UNSAT:
                self.verdict[i] = ALWAYS_TRUE  # SPEC: implied by the asserts alone, even when A & G is unsat
        cands = [i for i in live if self.verdict[i] != ALWAYS_TRUE]
        # always_false guards are the last to go: one of them alone explains the conflict
        order = sorted(self.removal_order(cands), key=lambda i: self.verdict[i] == ALWAYS_FALSE)
        kept = set(cands)
        for i in order:
            rest = sorted(kept - {i})
            if not rest:
                break
            if ch.check(self.A + [self.sel(j) for j in rest], budget_ms=self.budget(len(order))).status == UNSAT:
                kept.discard(i)
        for i in cands:
            if self.verdict[i] is None:
                self.verdict[i] = REQUIRED if i in kept else REDUNDANT
            if i not in kept:
                self.implied[i] = sorted(kept)
        self.minimal_unsat = kept

    def core_guards(self, core: tuple[int, ...], exclude: int) -> list[int]:
        by_handle = {self.sel(j): j for j in range(len(self.guards))
                     if self.can[j] is not None and self.rep[j] == j and j != exclude}
        # a guard spelled like an assert shares its selector: that handle is the assert's, not the guard's
        asserted = set(self.A)
        return sorted(by_handle[h] for h in core if h in by_handle and h not in asserted)

    # -------------------------------------------------------------- result
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
            rows.append({"id": c.id, "verdict": verdict, "implied_by": [g[j].id for j in implied]})
        ch = self.ch
        return {
            "status": status,
            "guards": rows,
            "minimal": [g[i].id for i in sorted(in_min)],
            "stats": {"checks": ch.checks if ch else 0, "avoided": self.avoided,
                      "solver_ms": round(ch.solver_ms, 3) if ch else 0.0, "levers": dict(self.levers),
                      "points": len(self.pool.points)},
        }
