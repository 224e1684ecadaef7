"""``pyeval`` is Python's own arithmetic: floor division and modulo for every sign; a zero divisor
makes a value undefined where Python evaluates it (a guard that divides by zero does not hold),
never in a branch not taken or after a short circuit."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lazy_grammar import GRID, NAMES, lazy_pairs, python_value

from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import defined, evaluate, holds, value
from symguard.solver.syntax.sympy_reader import parse_sympy
from symguard.solver.syntax.sympy_writer import to_sympy

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


# ------------------------------------------------------------------ Python's order (issue 31)

_INTS, _CONDS = lazy_pairs()
POINTS = st.fixed_dictionaries({n: st.sampled_from(GRID) for n in NAMES})


@settings(max_examples=300, deadline=None)
@given(st.one_of(_INTS, _CONDS), POINTS)
def test_lazy_like_python(pair: tuple[str, str], env: dict[str, int]) -> None:
    """Wherever Python's evaluation of the printed text is defined, ``pyeval`` gives its value
    (a branch not taken, an operand after a short circuit never divide); a condition with its
    domain holds exactly where Python's text is True; ``defined`` implies ``value`` is."""
    text, py = pair
    p = parse_sympy(text)
    want = python_value(py, env)
    got = value(p.term, env)
    if want is not None:
        assert got == want, (text, py, env)
    if holds(defined(p.term), env):  # the printed form's domain: stricter, never looser
        assert got is not None, (text, env)
    if p.term.is_bool:
        assert holds(p.as_condition(), env) == bool(want), (text, py, env)


def test_branch_not_taken_and_short_circuit() -> None:
    env = {"k": 0, "n": 3}
    assert evaluate(parse_sympy("Piecewise((n//k, k > 5), (n//2, True))").term, env) == 1
    assert holds(parse_sympy("And(Ne(k, 0), n//k >= 1) | (n > 2)").term, env)
    assert not holds(parse_sympy("And(Ne(k, 0), n//k >= 1)").term, env)
    with pytest.raises(ZeroDivisionError):
        evaluate(parse_sympy("Piecewise((n//k, k < 5), (n//2, True))").term, env)
    both = ir.mk_and(parse_sympy("n // k > 0").term, parse_sympy("Eq(k, 0)").term)
    assert value(ir.mk_not(both), env) is None  # n//k undefined, k == 0 true: undefined
    assert value(ir.mk_not(ir.mk_and(parse_sympy("n // k > 0").term, parse_sympy("Ne(k, 0)").term)), env) is True


@settings(max_examples=300, deadline=None)
@given(st.one_of(_INTS, _CONDS), POINTS)
def test_defined_is_the_domain_of_the_printed_form(pair: tuple[str, str], env: dict[str, int]) -> None:
    """``defined(t)`` is exactly where the text ``sympy_writer`` prints for ``t`` divides by no zero
    when read back (its and/or operands that cannot divide first), and there it is ``t``."""
    t = parse_sympy(pair[0]).term
    back = parse_sympy(to_sympy(t))
    assert holds(back.domain, env) == holds(defined(t), env), (pair[0], to_sympy(t), env)
    if holds(back.domain, env):
        assert value(back.term, env) == value(t, env)


def test_a_printed_and_tests_before_it_divides() -> None:
    t = parse_sympy("And(Ne(zz, 0), Eq(Mod(n, zz), 0))").term
    assert to_sympy(t).index("Ne(zz, 0)") < to_sympy(t).index("Mod(n, zz)")
    assert defined(t) is ir.TRUE


def test_a_printed_and_puts_divisions_by_literals_before_symbolic_divisors() -> None:
    """A division by a non-zero literal cannot raise, so its operand guards the ones after it: a
    simplified ``And`` keeps the input's domain even when the rewriting reordered the operands."""
    t = ir.mk_and(parse_sympy("4*x <= y//z").term, parse_sympy("x//2 < Mod(x, 2)").term)
    text = to_sympy(t)
    assert text.index("Mod(x, 2)") < text.index("y//z"), text
    env = {"x": 2, "y": 1, "z": 0}  # the first operand is false: the division by z is never evaluated
    assert holds(defined(t), env) and holds(parse_sympy(text).domain, env)
    assert holds(parse_sympy("And(FloorDiv(x, 2) < Mod(x, 2), 2*x <= FloorDiv(FloorDiv(y, z), 2))").domain, env)
