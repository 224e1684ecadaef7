"""Hypothesis strategy for one-symbol division chains (the quasi-linear terms the residue walks
of ``reason.quasilinear`` and ``reason.multivariate`` follow), shared by their tests."""

from __future__ import annotations

from hypothesis import strategies as st

from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term


@st.composite
def chains(draw: st.DrawFn, name: str = "x", min_steps: int = 1, max_steps: int = 4) -> Term:
    """Chains of ``name``: sums with literals and other chains, literal multiples, ``//`` and
    ``Mod`` by positive literals (padding, ceilings, halving)."""
    x = ir.mk_sym(name)
    t: Term = x
    for _ in range(draw(st.integers(min_steps, max_steps))):
        op = draw(st.sampled_from(["add", "mul", "floor", "mod", "ceil", "pad", "sum"]))
        c = draw(st.integers(1, 7))
        if op == "add":
            t = ir.mk_add(t, ir.mk_int(draw(st.integers(-5, 5))))
        elif op == "mul":
            t = ir.mk_mul(ir.mk_int(draw(st.sampled_from([-2, -1, 2, 3]))), t)
        elif op == "floor":
            t = ir.mk_floordiv(t, ir.mk_int(c))
        elif op == "mod":
            t = ir.mk_mod(t, ir.mk_int(c))
        elif op == "ceil":
            t = ir.mk_ceildiv(t, ir.mk_int(c))
        elif op == "pad":  # t + Mod(-t, c): up to a multiple of c
            t = ir.mk_add(t, ir.mk_mod(ir.mk_neg(t), ir.mk_int(c)))
        else:
            t = ir.mk_add(t, ir.mk_floordiv(ir.mk_add(x, ir.mk_int(draw(st.integers(0, 3)))), ir.mk_int(c)))
    return t
