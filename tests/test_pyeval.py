"""``pyeval`` is Python's own arithmetic: floor division and modulo for every sign, strictness
on zero divisors (a guard that divides by zero does not hold)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from solver.ir import terms as ir
from solver.ir.pyeval import evaluate, holds
from solver.syntax.sympy_reader import parse_sympy

A, B = ir.mk_sym("a"), ir.mk_sym("b")


@given(st.integers(-10**30, 10**30), st.integers(-10**6, 10**6).filter(bool))
def test_floor_div_and_mod_are_pythons(a: int, b: int) -> None:
    env = {"a": a, "b": b}
    assert evaluate(ir.mk_floordiv(A, B), env) == a // b
    assert evaluate(ir.mk_mod(A, B), env) == a % b
    assert evaluate(ir.mk_ceildiv(A, B), env) == -((-a) // b)


def test_zero_divisor_does_not_hold() -> None:
    t = parse_sympy("FloorDiv(a, b) >= 0").term
    assert not holds(t, {"a": 1, "b": 0})
    assert not holds(ir.mk_not(t), {"a": 1, "b": 0})  # neither the guard nor its negation


def test_booleans() -> None:
    t = parse_sympy("Eq(a > 0, b > 0) & Implies(a > 2, b > 2)").term
    assert holds(t, {"a": 3, "b": 4}) and not holds(t, {"a": 3, "b": 1}) and holds(t, {"a": 0, "b": 0})
