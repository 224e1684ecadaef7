"""Guards restated under the facts of the other kept guards: lemmas that pose a z3 check better.

A greedy redundancy check asks whether ``A & K' & ~g`` is unsatisfiable (``K'``: the kept guards
other than ``g``). ``rewrite.Rewriter`` over the facts of the kept guards turns a guard ``h`` into
``h'`` with ``A & used(h') |= (h <-> h')``, where ``used(h')`` are the guards whose facts it
consulted. When ``h`` and ``used(h')`` are all in ``K'``, ``h'`` is implied by ``A & K'``:
assuming it as well leaves the check's answer as it was, and an unsat core naming ``h'`` names
``h`` and ``used(h')``. Likewise the goal: ``~g'`` may stand for ``~g`` when ``used(g')`` is in
``K'``.

Why: the facts of some guards settle sub-terms of the others (SAM 2 Hiera: ``16 <= w <= 19`` and
``4 | w`` make every ``(w + 8)//16`` one), which z3 finds only by search, in every check again.
The restated forms lose those divisions (there, a whole symbol): z3 spent 28,000-94,000 units
on each of the set's five hard checks as written, ~8,000 with the restated forms beside them.

A restatement is a pure function of the guard and of the facts the rewriter may consult; it is
memoized per guard with the sources it used, and reused for a later check whenever those sources
are all still allowed there (the kept set only shrinks, so most are).
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Set as AbstractSet

from symguard.solver.errors import InternalError
from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term

__all__ = ["Restater", "simpler"]

# rewrite(j, banned): guard j's term rewritten without the facts of ``banned``, and the sources used
Rewrite = Callable[[int, frozenset[int]], tuple[Term, frozenset[int]]]


class Restater:
    """Per guard, its restatements so far (term, sources used), first computed first."""

    def __init__(self, rewrite: Rewrite) -> None:
        self._rewrite = rewrite
        self._memo: dict[int, list[tuple[Term, frozenset[int]]]] = {}
        self.rewrites = 0  # rewrites run (the rest came from the memo)

    def get(self, j: int, allowed: AbstractSet[int], banned: frozenset[int]) -> tuple[Term, frozenset[int]]:
        """Guard ``j`` restated with facts of ``allowed`` sources only (``j`` itself never among
        them): a memoized restatement whose sources are all allowed, else a new one made with
        ``banned`` (which must hold ``j`` and every source outside ``allowed``)."""
        got = self.known(j, allowed)
        if got is None:
            got = self._new(j, banned)
            if not got[1] <= allowed:  # the caller's banned set left a disallowed source open
                raise InternalError(f"restating guard {j} used sources outside the allowed ones")
        return got

    def known(self, j: int, allowed: AbstractSet[int]) -> tuple[Term, frozenset[int]] | None:
        """A memoized restatement of guard ``j`` whose sources are all ``allowed``, or None."""
        for t, used in self._memo.get(j, ()):
            if used <= allowed and j not in used:
                return t, used
        return None

    def _new(self, j: int, banned: frozenset[int]) -> tuple[Term, frozenset[int]]:
        self.rewrites += 1
        t, used = self._rewrite(j, banned)
        if j in used:
            raise InternalError(f"restating guard {j} used its own facts")
        self._memo.setdefault(j, []).append((t, used))
        return t, used


def simpler(new: Term, old: Term) -> bool:
    """Whether a restatement is worth handing to z3 beside the original: it has fewer distinct
    divisions, what z3's arithmetic pays for (a restatement that only moves terms around adds
    formulas to every check it is in and helps none: it is left out)."""
    return _divisions(new) < _divisions(old)


def _divisions(t: Term) -> int:
    return sum(1 for n in ir.iter_dag(t) if n.kind in ir.DIV_KINDS)
