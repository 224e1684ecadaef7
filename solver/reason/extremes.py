"""Comparisons with ``Max``/``Min`` split into comparisons of their arguments.

For ``e = c*M + rest`` with ``M = Max(a_1, …, a_n)`` and ``c > 0``:

    e <= 0   <=>   c*a_1 + rest <= 0  and  …  and  c*a_n + rest <= 0     (M <= t iff every a_k <= t)

and with ``c < 0`` it is the disjunction (``M >= t`` iff some ``a_k >= t``); ``Min`` the other way
round. ``Max``/``Min`` under a positive literal multiple, a floor division by a positive literal
or a product with factors non-negative by construction are moved outwards first
(``c*Max(a, b) = Max(c*a, c*b)``, ``Max(a, b)//d = Max(a//d, b//d)``,
``Max(1, a)*Max(1, b) = Max(Max(1, b), a*Max(1, b))``: each map is monotone), and ``e == 0`` is ``e <= 0 and -e <= 0``, ``e != 0`` is
``e <= -1 or -e <= -1``. Repeated until no comparison has a ``Max``/``Min`` at its linear top, the
guard becomes an and/or tree of comparisons of the arguments — nests of any depth, whose
leaves the rewriter's interval facts and one-symbol residue walks decide.

``proves`` is sound by construction: an ``and`` needs every part proven, an ``or`` one part (a
sufficient condition: the disjunction may hold pointwise with no part always true, then the
guard is left to the other levers). Exact equivalence of the tree is checked against Python's
evaluation in tests/test_reason_extremes.py.
"""

from __future__ import annotations

from collections.abc import Callable

from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term

MAX_LEAVES = 64  # comparisons one guard may split into (a deeper nest is left to the other levers)

Tree = Term | tuple[str, tuple["Tree", ...]]  # a comparison, or ("and" | "or", parts)


class _TooLarge(Exception):
    pass


def split(t: Term, limit: int = MAX_LEAVES) -> Tree | None:
    """The and/or tree of comparisons equivalent to the comparison ``t``; None when ``t`` has no
    ``Max``/``Min`` to split at its top or the tree would pass ``limit`` leaves."""
    count = [0]
    try:
        tree = _split(t, count, limit)
    except _TooLarge:
        return None
    return None if isinstance(tree, Term) else tree


def _split(t: Term, count: list[int], limit: int) -> Tree:
    k = t.kind
    if k == ir.NOT and t.args[0].kind == ir.LE:  # e > 0  <=>  1 - e <= 0
        e = t.args[0].args[0]
        return _split_le(ir.mk_sub(ir.ONE, e), count, limit, t)
    if k == ir.LE:
        return _split_le(t.args[0], count, limit, t)
    if k in (ir.EQ, ir.NOT) and (t.args[0].kind == ir.EQ if k == ir.NOT else True):
        e = t.args[0] if k == ir.EQ else t.args[0].args[0]
        if _extreme_at_top(e) is None:
            return _leaf(t, count, limit)
        if k == ir.EQ:  # e <= 0 and -e <= 0
            return ("and", (_split_le(e, count, limit, None), _split_le(ir.mk_neg(e), count, limit, None)))
        # e != 0  <=>  e + 1 <= 0  or  1 - e <= 0
        return ("or", (_split_le(ir.mk_add(e, ir.ONE), count, limit, None),
                       _split_le(ir.mk_sub(ir.ONE, e), count, limit, None)))
    return _leaf(t, count, limit)


def _leaf(t: Term, count: list[int], limit: int) -> Term:
    count[0] += 1
    if count[0] > limit:
        raise _TooLarge
    return t


def _split_le(e: Term, count: list[int], limit: int, orig: Term | None) -> Tree:
    """``e <= 0`` as a tree."""
    found = _extreme_at_top(e)
    if found is None:
        return _leaf(orig if orig is not None else ir.mk_le(e, ir.ZERO), count, limit)
    m, c, rest = found
    conj = (c > 0) == (m.kind == ir.MAX)
    parts = tuple(_split_le(ir.mk_add(ir.mk_mul(ir.mk_int(c), a), rest), count, limit, None) for a in m.args)
    return ("and" if conj else "or", parts)


def _extreme_at_top(e: Term) -> tuple[Term, int, Term] | None:
    """``(M, c, rest)`` with ``e = c*M + rest`` and ``M`` a ``Max``/``Min`` (a literal multiple or a
    floor division by a positive literal of one moved outwards), or None."""
    coefs, const = ir.linear(e)
    for mono, c in sorted(coefs.items(), key=lambda mc: mc[0].skey):
        m = _outward(mono)
        if m is None or c == 0:
            continue
        rest = ir.from_linear({x: v for x, v in coefs.items() if x is not mono}, const)
        return m, c, rest
    return None


def _outward(t: Term) -> Term | None:
    """``t`` as a ``Max``/``Min`` when it is one, or a floor division of one by a positive literal
    (``Max(a, b)//d = Max(a//d, b//d)``), or a product of one with positive literals; else None."""
    if t.kind in (ir.MAX, ir.MIN):
        return t
    if t.kind == ir.FLOORDIV and t.args[1].kind == ir.CONST and t.args[1].value > 0:
        inner = _outward(t.args[0]) if t.args[0].kind != ir.ADD else None
        if inner is None:
            found = _extreme_at_top(t.args[0]) if t.args[0].kind == ir.ADD else None
            if found is None:
                return None
            m, c, rest = found  # (c*M + rest)//d with M moved out: monotone when c > 0
            if c < 0:
                m = ir.mk_min(*m.args) if m.kind == ir.MAX else ir.mk_max(*m.args)
                c = -c
                args = [ir.mk_add(ir.mk_mul(ir.mk_int(-c), a), rest) for a in m.args]
            else:
                args = [ir.mk_add(ir.mk_mul(ir.mk_int(c), a), rest) for a in m.args]
            kind = m.kind
        else:
            args, kind = list(inner.args), inner.kind
        d = t.args[1]
        parts = [ir.mk_floordiv(a, d) for a in args]
        return ir.mk_max(*parts) if kind == ir.MAX else ir.mk_min(*parts)
    if t.kind == ir.MUL:  # c*M*F with c > 0 and F >= 0 by construction: M*F = Max(a_k*F)
        consts = [a for a in t.args if a.kind == ir.CONST]
        if any(a.value <= 0 for a in consts):
            return None
        factors = [a for a in t.args if a.kind != ir.CONST]
        for k, m in enumerate(factors):
            if m.kind not in (ir.MAX, ir.MIN):
                continue
            others = consts + factors[:k] + factors[k + 1:]
            if all(_nonneg(f) for f in others):
                parts = [ir.mk_mul(a, *others) for a in m.args]
                return ir.mk_max(*parts) if m.kind == ir.MAX else ir.mk_min(*parts)
        return None
    return None


def _nonneg(t: Term) -> bool:
    """``t >= 0`` at every point, by its construction alone (``Max(1, x)``, ``Mod(x, 4)``, …)."""
    k = t.kind
    if k == ir.CONST:
        return bool(t.value >= 0)
    if k == ir.MAX:
        return any(_nonneg(a) for a in t.args)
    if k in (ir.MIN, ir.MUL, ir.ADD):
        return all(_nonneg(a) for a in t.args)
    if k == ir.FLOORDIV:
        return _nonneg(t.args[0]) and t.args[1].kind == ir.CONST and t.args[1].value > 0
    if k == ir.MOD:
        return t.args[1].kind == ir.CONST and t.args[1].value > 0
    return False


def conjuncts(t: Term, limit: int = MAX_LEAVES) -> list[Term]:
    """The comparisons ``t`` implies through the ``and`` nodes of its tree from the root (each a
    consequence of ``t``: ``Min(a, b) >= c`` gives ``a >= c`` and ``b >= c``); an ``or`` part
    gives none. Empty when ``t`` does not split."""
    tree = split(t, limit)
    out: list[Term] = []
    stack = [] if tree is None else [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, Term):
            out.append(node)
        elif node[0] == "and":
            stack.extend(reversed(node[1]))
    return out


def proves(tree: Tree, leaf: Callable[[Term], bool]) -> bool:
    """Whether ``tree`` holds everywhere, given ``leaf`` (a comparison proven, e.g. rewritten to
    True): every part of an ``and``, one part of an ``or``."""
    if isinstance(tree, Term):
        return leaf(tree)
    kind, parts = tree
    if kind == "and":
        return all(proves(p, leaf) for p in parts)
    return any(proves(p, leaf) for p in parts)


def holds(tree: Tree, value: Callable[[Term], bool]) -> bool:
    """The tree's truth value from its leaves' (for the equivalence tests)."""
    if isinstance(tree, Term):
        return value(tree)
    kind, parts = tree
    return all(holds(p, value) for p in parts) if kind == "and" else any(holds(p, value) for p in parts)
