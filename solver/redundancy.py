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
"""

from __future__ import annotations

from typing import Any

from . import cheap, ir
from .checker import SAT, UNSAT, Checker, Deadline
from .problem import Problem
from .pyeval import holds

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
        self.ch: Checker | None = None

    # -------------------------------------------------------------- plumbing
    def checker(self) -> Checker:
        if self.ch is None:
            self.ch = Checker(self.p, self.deadline)
            self.A = [self.ch.selector(c.term) for c in self.p.asserts if c.term is not None]
        return self.ch

    def sel(self, i: int) -> int:
        return self.checker().selector(self.guards[i].term)  # type: ignore[arg-type]

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
            if c.term is None:
                self.verdict[i] = UNSUPPORTED
                continue
            if c.term in first:
                self.rep[i] = first[c.term]
                self.avoided += 1
                continue
            first[c.term] = i
            decided = cheap.decide(c.term, facts, asserts)
            if decided is not None:
                self.verdict[i] = ALWAYS_TRUE if decided else ALWAYS_FALSE
                self.avoided += 1
        live = [i for i in range(len(g)) if self.rep[i] == i and self.verdict[i] != UNSUPPORTED]
        if any(self.verdict[i] == ALWAYS_FALSE for i in live):
            status = UNSAT
        else:
            pending = [i for i in live if self.verdict[i] is None]
            out = self.checker().check(self.A + [self.sel(i) for i in pending])
            status = out.status
        if status == UNSAT:
            self.unsat_minimize(live)
        else:
            self.always_true(live)
            self.greedy(live)
        return self.report(status)

    def always_true(self, live: list[int]) -> None:
        pending = [i for i in live if self.verdict[i] is None]
        refuted: set[int] = set()
        ch = self.checker()
        for k, i in enumerate(pending):
            if i in refuted:
                self.avoided += 1
                continue
            out = ch.check(self.A + [ch.negation(self.guards[i].term)],  # type: ignore[arg-type]
                           budget_ms=self.budget(len(pending) - k))
            if out.status == UNSAT:
                self.verdict[i] = ALWAYS_TRUE
            elif out.status == SAT:
                for j in pending[k + 1:]:
                    if j not in refuted and not holds(self.guards[j].term, out.model):  # type: ignore[arg-type]
                        refuted.add(j)

    def removal_order(self, idx: list[int]) -> list[int]:
        if self.p.options.prefer == "order":
            return sorted(idx, reverse=True)
        return sorted(idx, key=lambda i: (-cost(self.guards[i].term), -i))  # type: ignore[arg-type]

    def greedy(self, live: list[int]) -> None:
        ch = self.checker()
        keep = [i for i in live if self.verdict[i] != ALWAYS_TRUE]
        kept = set(keep)
        removed_core: dict[int, list[int]] = {}
        order = self.removal_order(keep)
        for k, i in enumerate(order):
            others = [self.sel(j) for j in sorted(kept) if j != i]
            out = ch.check(self.A + others + [ch.negation(self.guards[i].term)],  # type: ignore[arg-type]
                           budget_ms=self.budget(len(order) - k))
            if out.status == UNSAT:
                kept.discard(i)
                self.verdict[i] = REDUNDANT
                removed_core[i] = self.core_guards(out.core, exclude=i)
            elif out.status == SAT:
                self.verdict[i] = REQUIRED
            else:
                self.verdict[i] = UNKNOWN
        for i, core in removed_core.items():
            if set(core) <= kept:
                self.implied[i] = core
                continue
            out = ch.check(self.A + [self.sel(j) for j in sorted(kept)] +
                           [ch.negation(self.guards[i].term)],  # type: ignore[arg-type]
                           budget_ms=self.budget(1))
            self.implied[i] = self.core_guards(out.core, exclude=i) if out.status == UNSAT else sorted(kept)

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
            elif self.verdict[i] is None and ch.check(self.A + [ch.negation(self.guards[i].term)],  # type: ignore[arg-type]
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
                     if self.guards[j].term is not None and self.rep[j] == j and j != exclude}
        # a guard spelled like an assert shares its selector: that handle is the assert's, not the guard's
        asserted = set(self.A)
        return sorted(by_handle[h] for h in core if h in by_handle and h not in asserted)

    # -------------------------------------------------------------- result
    def report(self, status: str) -> dict[str, Any]:
        g = self.guards
        kept_states = (REQUIRED, UNKNOWN, UNSUPPORTED)
        if status == UNSAT:
            kept = getattr(self, "minimal_unsat", set())
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
                      "solver_ms": round(ch.solver_ms, 3) if ch else 0.0},
        }
