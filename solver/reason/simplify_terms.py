"""Rebuilding a term with new children through the normalizing constructors: shared by the
``simplify`` rules, the equality classes and the algebra (a module of its own, so that they do
not import one another)."""

from __future__ import annotations

from collections.abc import Callable

from solver.ir import terms as ir
from solver.ir.terms import Term


def rebuild(n: Term, a: list[Term]) -> Term:
    """``n`` with new children, through the normalizing constructors (``n`` itself when they are
    its own: a constructor's output is its own normal form)."""
    if len(a) == len(n.args) and all(x is y for x, y in zip(a, n.args)):
        return n
    k = n.kind
    if k == ir.ITE:
        return ir.mk_ite(a[0], a[1], a[2])
    if k == ir.LE:
        return ir.mk_le(a[0], ir.ZERO)
    if k == ir.EQ:
        return ir.mk_eq(a[0], ir.ZERO)
    return _BUILD[k](*a)


_BUILD: dict[str, Callable[..., Term]] = {
    ir.ADD: ir.mk_add, ir.MUL: ir.mk_mul, ir.MAX: ir.mk_max, ir.MIN: ir.mk_min, ir.AND: ir.mk_and,
    ir.OR: ir.mk_or, ir.FLOORDIV: ir.mk_floordiv, ir.MOD: ir.mk_mod, ir.EDIV: ir.mk_ediv,
    ir.EMOD: ir.mk_emod, ir.NOT: ir.mk_not, ir.IFF: ir.mk_iff,
}
