"""Rebuilding a term with new children through the normalizing constructors: shared by the
``simplify`` rules, the equality classes and the algebra (a module of its own, so that they do
not import one another)."""

from __future__ import annotations

import functools
from collections.abc import Callable

from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term
from symguard.solver.syntax.sympy_writer import cost, to_sympy


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
    ir.EMOD: ir.mk_emod, ir.ISQRT: ir.mk_isqrt, ir.BITFLOOR: ir.mk_bitfloor, ir.NOT: ir.mk_not, ir.IFF: ir.mk_iff,
}


@functools.lru_cache(maxsize=1 << 12)
def printed_cost(t: Term) -> tuple[int, int]:
    """``(divisions, operations)`` of ``t`` as ``simplify`` prints it: the order forms are
    compared in (divisions first)."""
    c = cost(to_sympy(t))
    return c["divs"], c["ops"]


DIV_WEIGHT = 3  # a division against an operation, in the weighted cost a rule must not raise


def cheaper(new: Term, old: Term) -> bool:
    """``new`` prints strictly cheaper than ``old`` (divisions first), and no costlier with a
    division weighed as ``DIV_WEIGHT`` operations: the gate of a rule that is an identity in
    both directions (taking it at equal cost could undo another rule's step)."""
    (nd, no), (od, oo) = printed_cost(new), printed_cost(old)
    return (nd, no) < (od, oo) and DIV_WEIGHT * nd + no <= DIV_WEIGHT * od + oo
