"""The side conditions of the simplifier's rules, answered for one expression domain.

``reason.simplify_rules.Simplifier`` asks its oracle whether a condition holds (after its own
``Decider`` could not tell), what value a term takes everywhere, whether a predicate fails
somewhere: answered from the sample points' value vectors (the first ``HEAD_POINTS`` first) and,
for a proof, by ``simplify_evidence``'s refutation search and z3.
"""

from __future__ import annotations

from collections.abc import Callable

from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import Value
from symguard.solver.ops.simplify_evidence import _Evidence
from symguard.solver.ops.simplify_values import HEAD_POINTS, MAX_POINTS


class _Oracle:
    """Side conditions for one expression domain: proven under the context and the domain.

    The questions about sample points look at the first ``HEAD_POINTS`` points first and at the
    others only when those do not answer (``_Values.head``): the answers are those of all points."""

    def __init__(self, run: _Evidence, domain: ir.Term) -> None:
        self.run = run
        self.domain = domain
        self.memo: dict[ir.Term, bool] = {}
        # answers that later points cannot change (a point found since only adds values): terms
        # seen to take two values, and (predicate, terms) seen false
        self.varied: set[ir.Term] = set()
        self.failed: set[tuple[Callable[..., bool], tuple[ir.Term, ...]]] = set()

    def holds(self, cond: ir.Term) -> bool:
        """Only z3 proves a condition here (``Decider`` came first): one it is not asked (not
        linear) is not searched for a counterexample either."""
        hit = self.memo.get(cond)
        if hit is None:
            hit = self.run.linear(cond) and not self.refuted(cond) and self.run.prove(cond, self.domain) is True
            self.memo[cond] = hit
        return hit

    def refuted(self, cond: ir.Term) -> bool:
        """False at a point of the domain: sampled, found before, or found now by ``refute``."""
        return self.false_seen(cond) or self.run.refute(cond, self.domain)

    def _defined(self, t: ir.Term, k: int) -> list[Value]:
        """``t``'s values at the first ``k`` points (at least) where the domain holds and ``t`` is defined."""
        vals = self.run.values
        if self.domain is ir.TRUE:
            return [v for v in vals.head(t, k) if v is not None]
        return [v for v, d in zip(vals.head(t, k), vals.head(self.domain, k)) if d and v is not None]

    def seen(self, cond: ir.Term) -> frozenset[bool]:
        """The values ``cond`` takes at the sample points (and the points found since) where the
        domain holds: value vectors, no search."""
        got = frozenset(v for v in self._defined(cond, HEAD_POINTS) if isinstance(v, bool))
        if len(got) == 2:
            return got
        return frozenset(v for v in self._defined(cond, MAX_POINTS) if isinstance(v, bool))

    def false_seen(self, cond: ir.Term) -> bool:
        """``False in seen(cond)``, stopping at the first points that show it."""
        return False in self._defined(cond, HEAD_POINTS) or False in self._defined(cond, MAX_POINTS)

    def fails(self, pred: Callable[..., bool], terms: tuple[ir.Term, ...]) -> bool:
        """``pred`` of the terms' values is false at a known point of the domain where each is
        defined (the first ``HEAD_POINTS`` points first)."""
        if (pred, terms) in self.failed:
            return True
        vals = self.run.values
        start = 0
        for k in (HEAD_POINTS, MAX_POINTS):
            cols = [vals.head(t, k) for t in terms]
            dom = None if self.domain is ir.TRUE else vals.head(self.domain, k)
            end = min(k, len(vals.points))
            for i in range(start, end):
                if dom is not None and not dom[i]:
                    continue
                vs = [c[i] for c in cols]
                if None not in vs and not pred(*vs):
                    self.failed.add((pred, terms))
                    return True
            start = end
        return False

    def varies(self, cond: ir.Term) -> bool:
        """``len(seen(cond)) == 2``: true at one known point of the domain, false at another."""
        return len(self.seen(cond)) == 2

    def guess(self, t: ir.Term, least: int = 2) -> int | bool | None:
        """The value ``t`` takes at every sample point of the domain, when there are ``least`` or
        more and they agree (a proposal: ``holds`` must still prove it; one point is enough for a
        rule whose proof is cheap: a narrow context, ``2*y <= x < 3*y``, may have a single one).
        ``c*x + k`` (``c != 0``) varies where ``x`` does, defined at the same points: known without
        its values."""
        varied = self.varied
        if t in varied:
            return None
        if t.kind in (ir.ADD, ir.MUL):
            coefs, _ = ir.linear(t)
            if len(coefs) == 1 and next(iter(coefs)) in varied:
                varied.add(t)
                return None
        first = self._defined(t, HEAD_POINTS)
        if len(set(first)) >= 2:
            varied.add(t)
            return None
        seen = self._defined(t, MAX_POINTS)
        if len(set(seen)) >= 2:
            varied.add(t)
            return None
        return seen[0] if len(seen) >= least else None
