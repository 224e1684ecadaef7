"""Equality classes of a ``simplify`` context: one representative per class, substituted first.

PyTorch's ShapeEnv keeps one symbol per class of symbols its guards make equal (its
``replacements``: ``Eq(s0, s1)`` replaces ``s1`` by ``s0``, ``Eq(s1, 2*s0)`` replaces ``s1`` by
``2*s0``) and substitutes it before anything else; so does ``simplify``. With the replacement
``s1 -> s0``, ``s0 - s1`` is ``0`` and ``Max(s0, s1)*s1 - s0**2`` is ``0``: a rewriting under
facts cannot see that ``s0 - s1`` is a term the context pins.

The classes come from the linear equations among the context's top-level conjuncts whose
monomials are all plain symbols (``Eq(a, b)``, ``Eq(a, k*b + c)``, ``Eq(a + b, c)``), by
Gaussian elimination with unit pivots, in the (canonical) order of the context: each equation,
with the replacements found so far substituted, eliminates one symbol whose coefficient is ±1 —
the one PyTorch would replace (``keep_key``: the larger hint, then the larger name; on the
canonical problem the names are ``v0, v1, …``, and the caller's names decide again for classes
of plain symbols when the forms are mapped back, see ``solver/ops/simplify.py``), so a class of
plain symbols is represented by the symbol PyTorch keeps. An equation with no unit coefficient (``Eq(2*a, 3*b)``) is left to
the facts. Every replacement ``x -> e`` holds at every point of the context, so substituting it
keeps every expression's value there: the step is exact.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping

from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term
from symguard.solver.reason.simplify_terms import rebuild


def keep_key(name: str, hints: Mapping[str, int | None]) -> tuple[int, str]:
    """PyTorch's order of preference between equal symbols (``ShapeEnv._maybe_guard_rel``): the
    one with the smaller hint (no hint: last), then the smaller name, is kept; the other is
    replaced. ``Eq(s24, s83), Eq(s83, s9)`` with equal hints keeps ``s24``."""
    h = hints.get(name)
    return (sys.maxsize if h is None else h, name)


def replacements(context: Iterable[Term], hints: Mapping[str, int | None]) -> dict[str, Term]:
    """Each eliminated symbol with its value over the representatives (module docstring)."""
    sub: dict[str, Term] = {}
    for t in context:
        for atom in (t.args if t.kind == ir.AND else (t,)):
            if atom.kind != ir.EQ:
                continue
            coefs, k = ir.linear(substitute(atom.args[0], sub))
            if not coefs or not all(m.kind == ir.SYM for m in coefs):
                continue
            units = [m for m, c in coefs.items() if c in (1, -1)]
            if not units:
                continue
            pivot = max(units, key=lambda m: keep_key(m.value, hints))
            c = coefs[pivot]
            # c*p + rest + k == 0  ->  p = -(rest + k)/c, with c = ±1
            rest = ir.from_linear({m: -v * c for m, v in coefs.items() if m is not pivot}, -k * c)
            sub = {x: substitute(e, {pivot.value: rest}) for x, e in sub.items()}
            sub[pivot.value] = rest
    return sub


def substitute(t: Term, sub: Mapping[str, Term], memo: dict[Term, Term] | None = None) -> Term:
    """``t`` with each symbol of ``sub`` replaced, rebuilt through the normalizing constructors."""
    if not sub:
        return t
    memo = {} if memo is None else memo
    if t in memo:
        return memo[t]
    for n in ir.iter_dag(t):
        if n in memo:
            continue
        if n.kind == ir.SYM:
            memo[n] = sub.get(n.value, n)
        elif not n.args:
            memo[n] = n
        else:
            memo[n] = rebuild(n, [memo[a] for a in n.args])
    return memo[t]


def symbol_classes(sub: Mapping[str, Term]) -> dict[str, str]:
    """The replacements that are a plain symbol (``x -> y``): each member of such a class to its
    representative. These classes are symmetric, so the caller's order may pick the other member."""
    return {x: e.value for x, e in sub.items() if e.kind == ir.SYM}
