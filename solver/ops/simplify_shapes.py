"""Forms kept per expression shape, up to a renaming of interchangeable symbols.

In a registered context the same index expression comes again over another loop variable. A
permutation of *free* symbols (no constraint relates them to another symbol) that keeps each
one's role (range, hint, the constraints about it alone) maps the context onto itself, hence a
proven form onto a proven form of the renamed expression: ``roles`` finds the roles, ``_names``
an expression's outline, ``_shape`` its key; ``_ShapeMemo`` and ``_Shapes`` keep the forms.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from symguard.solver.ir import terms as ir
from symguard.solver.ir.printer import to_text
from symguard.solver.ir.problem import Problem, Query
from symguard.solver.reason import simplify_equalities as eqs

_OUTLINE_SKIPS = frozenset({ir.MUL, ir.CONST})  # kinds left out of an outline (``_Run._names``)
_PLACE = "_\u03c3"  # placeholders of ``_Run._shape``: no symbol name has this prefix (§1)


class _Renaming:
    """The renaming of free symbols in ``simplify._Run`` (a mixin: the state is set by its ``__init__``)."""

    p: Problem
    context: list[ir.Term]
    sub: dict[str, ir.Term]
    _roles: dict[str, tuple[Any, ...]] | None

    def roles(self) -> dict[str, tuple[Any, ...]]:
        """Each **free** symbol's role: its declaration (range, hint) and the texts of the
        constraints about it alone, with the symbol written as a placeholder. A symbol is free when
        no constraint mentions it with another symbol and no equality class holds it. Any
        permutation of free symbols that keeps every role maps the context onto itself (each
        constraint onto one of the same role's), so it maps a proven form of an expression onto a
        proven form of the renamed expression: the loop variables of two kernels with the same
        bound, sizes guarded alike (``_shape``)."""
        if self._roles is None:
            shared = set(self.sub) | {n for e in self.sub.values() for n in ir.symbols_of(e)}
            alone: dict[str, list[ir.Term]] = {}
            for t in self.context:
                syms = ir.symbols_of(t)
                if len(syms) == 1:
                    alone.setdefault(next(iter(syms)), []).append(t)
                else:
                    shared |= syms
            place = ir.mk_sym(_PLACE + "x")
            self._roles = {
                s.name: (s.lo, s.hi, s.hint, tuple(sorted(to_text(eqs.substitute(t, {s.name: place}))
                                                          for t in alone.get(s.name, ()))))
                for s in self.p.symbols if not s.is_bool and s.name not in shared}
        return self._roles

    def _names(self, q: Query) -> tuple[list[str], tuple[Any, ...]] | None:
        """The expression's symbols in order of first occurrence and its **outline**: the kinds of
        its nodes and its domain's, sorted, but for products and literals (normalizing a renamed
        sum may move a sign between its terms). A renaming of symbols keeps the outline, so two
        expressions of different outlines never share a key of ``shapes`` (a plain walk: no new
        term). None unless every symbol is free (``roles``)."""
        roles = self.roles()
        names: list[str] = []
        outline: list[str] = []
        for t in (q.term, q.domain):
            for n in ir.iter_dag(t):
                k = n.kind
                if k == ir.SYM:
                    if n.value not in roles:
                        return None
                    if n.value not in names:
                        names.append(n.value)
                elif k == ir.BSYM:
                    return None
                if k not in _OUTLINE_SKIPS:
                    outline.append(k)
            outline.append("|")
        return names, tuple(sorted(outline))

    @staticmethod
    def _shape(term: ir.Term, domain: ir.Term, names: Sequence[str]) -> tuple[ir.Term, ir.Term]:
        """The expression with its symbols (``names``) renamed to placeholders in that order: the
        key of a form within its bucket of ``shapes``. The placeholders' terms are normalized
        again, so two spellings whose children the names sorted apart (``x0`` and ``x1`` in one
        sum) share a key."""
        to = {x: ir.mk_sym(f"{_PLACE}{k}") for k, x in enumerate(names)}
        memo: dict[ir.Term, ir.Term] = {}
        return eqs.substitute(term, to, memo), eqs.substitute(domain, to, memo)


class _ShapeMemo(dict[tuple[Any, ...], "_Shapes"]):
    """``_Run.shapes``: (roles, outline) -> the forms of that bucket; ``size`` counts the forms of
    all buckets (``memo_size``, without a walk over them)."""

    size = 0

    def clear(self) -> None:
        super().clear()
        self.size = 0


class _Shapes:
    """The forms of one bucket of ``_Run.shapes``: keyed by the renamed expression, and those not
    keyed yet (expression, domain, its symbols in order, form), keyed on the bucket's first lookup."""

    __slots__ = ("keyed", "pending")

    def __init__(self) -> None:
        self.keyed: dict[tuple[ir.Term, ir.Term], tuple[ir.Term, tuple[str, ...]]] = {}
        self.pending: list[tuple[ir.Term, ir.Term, tuple[str, ...], ir.Term]] = []

    def __len__(self) -> int:
        return len(self.keyed) + len(self.pending)

    def get(self, key: tuple[ir.Term, ir.Term]) -> tuple[ir.Term, tuple[str, ...]] | None:
        """The form kept under ``key``, the pending ones keyed first (in the order they came)."""
        if self.pending:
            for term, domain, names, form in self.pending:
                self.keyed.setdefault(_Renaming._shape(term, domain, names), (form, names))
            self.pending.clear()
        return self.keyed.get(key)

