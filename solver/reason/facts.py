"""What conditions say about single terms, kept per source so a check can leave sources out.

``redundancy`` asks, for guard ``g``: is ``g`` implied by the asserts and the kept guards other
than ``g``? The kept set shrinks during the greedy pass, so every fact carries the set of guard
indices it was derived from (``Src``; empty for ranges and asserts, which always hold) and a
``rewrite.Rewriter`` built with ``banned`` ignores every fact whose sources meet ``banned``.
One ``Env`` is built once per pass; each check only chooses what it may use.

Facts recorded from a top-level conjunct (an "atom") of a canonical condition:

* ``c*m + k <= 0`` / ``== 0`` with one monomial ``m``: bounds of ``m`` (a point for ``==``);
* ``c*m + k != 0``: a value ``m`` avoids (tightens an interval end);
* the atom itself (a later occurrence of the same condition is true);
* consequences: bounds of ``Min``/``Max``/``x//c`` give bounds of their arguments.

Each fact is implied by its own sources alone, so a proof that uses only facts whose sources
are disjoint from ``banned`` holds for every point of the asserts and the unbanned sources.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term
from symguard.solver.reason.intervals import FULL, Bound, Interval

__all__ = ["FULL", "NONE", "Bound", "Env", "Interval", "Src", "facts_env"]

Src = frozenset[int]
NONE: Src = frozenset()


LinearForm = tuple[frozenset[tuple[Term, int]], int]


def linear_form(t: Term) -> LinearForm:
    """``t``'s monomials with their coefficients, and its constant: hashable, order-free."""
    coefs, k = ir.linear(t)
    return frozenset(coefs.items()), k


@dataclass
class Env:
    """Symbol ranges (always true) plus per-source facts about terms."""

    ranges: dict[str, Interval]
    bounds: dict[Term, list[tuple[Src, Interval]]] = field(default_factory=dict)
    excluded: dict[Term, list[tuple[Src, int]]] = field(default_factory=dict)
    atoms: dict[Term, list[Src]] = field(default_factory=dict)
    _info: dict[Term, tuple[str, Term, int, int] | None] = field(default_factory=dict)
    _le: set[LinearForm] = field(default_factory=set)  # ``le_forms``, of the first ``_le_n`` atoms
    _le_n: int = 0

    def le_forms(self) -> set[LinearForm]:
        """The linear forms (``linear_form``) of the ``<=`` atoms: a negation the rewriter looks
        for is an atom only if its form is one (it need not build the negation to find out).
        Atoms are only added, in order: the new ones are read on the next call."""
        n = len(self.atoms)
        if self._le_n != n:
            for a in itertools.islice(self.atoms, self._le_n, None):
                if a.kind == ir.LE:
                    self._le.add(linear_form(a.args[0]))
            self._le_n = n
        return self._le

    def empty(self) -> bool:
        return any(lo is not None and hi is not None and lo > hi for lo, hi in self.ranges.values())

    def add(self, cond: Term, src: Src = NONE) -> None:
        """Record every top-level conjunct of ``cond`` (a canonical condition) with its sources."""
        for atom in (cond.args if cond.kind == ir.AND else (cond,)):
            self.add_atom(atom, src)

    def add_atom(self, atom: Term, src: Src = NONE) -> None:
        seen = self.atoms.setdefault(atom, [])
        # already known from a subset of these sources? (for none or one source the subsets are
        # the empty set and the source itself: a membership test in C, where an atom many guards
        # state, a set's bound on a size, had the Python loop walk a list of hundreds per addition)
        if (NONE in seen or src in seen) if len(src) <= 1 else any(s <= src for s in seen):
            return
        seen.append(src)
        info = self._analyze(atom)
        if info is None:
            return
        kind, m, c, k = info
        if kind == "ne":
            if (-k) % c == 0:
                self.excluded.setdefault(m, []).append((src, (-k) // c))
            return
        if kind == "eq":
            iv: Interval = (1, 0) if (-k) % c else ((-k) // c, (-k) // c)
        elif c > 0:
            iv = (None, (-k) // c)
        else:
            iv = (ir.ceil_div(k, -c), None)
        self.bounds.setdefault(m, []).append((src, iv))
        for derived in _consequences(m, iv):
            if derived.kind != ir.BCONST:
                self.add_atom(derived, src)

    def _analyze(self, atom: Term) -> tuple[str, Term, int, int] | None:
        if atom in self._info:
            return self._info[atom]
        out: tuple[str, Term, int, int] | None = None
        if atom.kind == ir.NOT and atom.args[0].kind == ir.EQ:
            coefs, k = ir.linear(atom.args[0].args[0])
            if len(coefs) == 1:
                (m, c), = coefs.items()
                out = ("ne", m, c, k)
        elif atom.kind in (ir.LE, ir.EQ):
            coefs, k = ir.linear(atom.args[0])
            if len(coefs) == 1:
                (m, c), = coefs.items()
                out = ("le" if atom.kind == ir.LE else "eq", m, c, k)
        self._info[atom] = out
        return out


def _consequences(m: Term, iv: Interval) -> list[Term]:
    """Bounds of ``Min``/``Max``/``x//c`` imply bounds of their arguments."""
    lo, hi = iv
    if m.kind == ir.MIN and lo is not None:
        return [ir.mk_le(ir.mk_int(lo), x) for x in m.args]
    if m.kind == ir.MAX and hi is not None:
        return [ir.mk_le(x, ir.mk_int(hi)) for x in m.args]
    if m.kind == ir.FLOORDIV and m.args[1].kind == ir.CONST and m.args[1].value > 0:
        c, x = m.args[1].value, m.args[0]
        out = []
        if lo is not None:
            out.append(ir.mk_le(ir.mk_int(c * lo), x))  # x//c >= lo  <=>  x >= c*lo
        if hi is not None:
            out.append(ir.mk_le(x, ir.mk_int(c * hi + c - 1)))
        return out
    return []


def facts_env(ranges: Mapping[str, Interval], conds: Iterable[tuple[Term, int | None]]) -> Env:
    """An ``Env`` over ``ranges`` with the facts of ``conds`` (each with its source index or None)."""
    env = Env(dict(ranges))
    for cond, source in conds:
        env.add(cond, NONE if source is None else frozenset((source,)))
    return env
