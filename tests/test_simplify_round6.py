"""``simplify``, round 6: the classes the outside measurement set (``tests/simplify_outside_cases.py``)
missed most — a connective's operand another operand implies (or that implies another), a
quotient or remainder by a symbolic divisor fixed by linear bounds, a select whose branch equals
the other where it is taken — on random instances.

Every form goes through ``simplified`` (round 3's helper): self-check on, compared with its input
by Python's integer evaluation at every point of a box with negatives and zero (within the
guards, where the input is defined), never costlier than the input."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_simplify_round3 import simplified

from symguard.solver.ops import simplify as simplify_op
from symguard.solver.syntax.sympy_reader import parse_sympy
from symguard.solver.syntax.sympy_writer import cost

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
BOX = {"x": (-12, 12), "y": (-5, 5)}


@pytest.fixture(autouse=True)
def _self_check(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(simplify_op, "SELF_CHECK", True)


# ------------------------------------------------------------------ implied operands of And / Or

ATOMS = st.one_of(
    st.builds(lambda op, c: f"x {op} {c}", st.sampled_from(["<", "<=", ">", ">="]), st.integers(-8, 8)),
    st.builds(lambda op, c: f"y {op} {c}", st.sampled_from(["<", ">"]), st.integers(-3, 3)),
    st.builds(lambda m, r: f"Eq(x % {m}, {r % m})", st.sampled_from([2, 3, 4, 6, 8]), st.integers(0, 7)),
    st.builds(lambda op, c: f"x + y {op} {c}", st.sampled_from(["<", ">="]), st.integers(-6, 6)),
)


def _junction(draw: st.DrawFn, depth: int) -> str:
    if depth == 0 or draw(st.booleans()):
        return draw(ATOMS)
    f = draw(st.sampled_from(["And", "Or"]))
    parts = [_junction(draw, depth - 1) for _ in range(draw(st.integers(2, 3)))]
    return f"{f}({', '.join(parts)})"


@st.composite
def junctions(draw: st.DrawFn) -> str:
    f = draw(st.sampled_from(["And", "Or"]))
    return f"{f}({', '.join(_junction(draw, 1) for _ in range(draw(st.integers(2, 4))))})"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(junctions())
def test_connectives_with_implied_operands_are_equal(text: str) -> None:
    """Random ``And``/``Or`` of bounds, sums and residues: the form equals the input everywhere
    in the box and is never costlier (operands dropped only where an implication is proven)."""
    simplified(BOX, [text])


@SETTINGS
@given(st.integers(-6, 6), st.integers(1, 5), st.sampled_from(["y > 0", "Eq(x % 2, 1)", "x + y < 3"]),
       st.booleans())
def test_an_implied_operand_goes(a: int, gap: int, other: str, conj: bool) -> None:
    """``And(x < a, Or(x < a + gap, P))`` is ``x < a``; ``Or(x > a, And(x > a + gap, P))`` is ``x > a``."""
    text = (f"And(x < {a}, Or(x < {a + gap}, {other}))" if conj
            else f"Or(x > {a}, And(x > {a + gap}, {other}))")
    form, = simplified(BOX, [text])
    assert parse_sympy(form).term is parse_sympy(f"x < {a}" if conj else f"x > {a}").term, form


@SETTINGS
@given(st.sampled_from([(2, 4), (2, 6), (3, 6), (4, 8), (2, 8)]), st.booleans())
def test_a_residue_implied_by_a_finer_one_goes(mods: tuple[int, int], conj: bool) -> None:
    """``Eq(x % k*m, 0)`` implies ``Eq(x % m, 0)``: ``And`` keeps the finer, ``Or`` the coarser."""
    m, km = mods
    f = "And" if conj else "Or"
    form, = simplified(BOX, [f"{f}(Eq(x % {m}, 0), Eq(x % {km}, 0))"])
    assert cost(form)["divs"] == 1, form


@SETTINGS
@given(st.integers(1, 6), st.integers(1, 4), st.integers(-1, 3))
def test_an_operand_the_others_imply_together_goes(a: int, b: int, e: int) -> None:
    """``And(x < a, y < b, x + y < a + b + e)`` with ``e >= -1``: the sum's bound follows from the
    two others together (``x + y <= a + b - 2``), not from either alone."""
    form, = simplified({"x": (-3, 9), "y": (-3, 6)}, [f"And(x < {a}, y < {b}, x + y < {a + b + e})"])
    assert parse_sympy(form).term is parse_sympy(f"And(x < {a}, y < {b})").term, form


@SETTINGS
@given(st.integers(-3, 3), st.sampled_from(["{v}*y", "{v}*{v} + y", "Max({v}*y, 0)"]))
def test_a_select_equal_after_its_equation_is_substituted(k: int, e: str) -> None:
    """``Piecewise((E[x := k], Eq(x, k)), (E, True))`` is ``E`` also when ``E`` is not linear (the
    equation substituted into both branches gives one term: no solver needed)."""
    a, e = e.format(v=f"({k})"), e.format(v="x")
    form, = simplified(BOX, [f"Piecewise(({a}, Eq(x, {k})), ({e}, True))"])
    assert parse_sympy(form).term is parse_sympy(e).term, form


def test_an_operand_that_may_divide_by_zero_stays() -> None:
    """``And(x < 2, x//y < 9)``: the second operand is also the condition ``y != 0`` of its guard
    (its place in the order decides where the conjunction is defined): not dropped by the rule."""
    simplified({"x": (-6, 6), "y": (-3, 3)}, ["And(x < 2, Or(x < 5, x//y < 9))"])


# ------------------------------------------------------------------ a quotient fixed by linear bounds

@SETTINGS
@given(st.integers(-3, 3).filter(bool), st.booleans(), st.sampled_from(["x//y", "Mod(x, y)", "Mod(x, y) + x//y"]))
def test_a_quotient_fixed_by_bounds(g: int, positive: bool, expr: str) -> None:
    """With ``g*y <= x < (g + 1)*y`` (``y > 0``) or ``(g + 1)*y < x <= g*y`` (``y < 0``), ``x//y``
    is ``g`` and ``Mod(x, y)`` is ``x - g*y`` (cheaper: no division)."""
    box = {"x": (-20, 20), "y": (1, 6) if positive else (-6, -1)}
    guards = ((f"{g}*y <= x", f"x < {g + 1}*y") if positive else (f"{g + 1}*y < x", f"x <= {g}*y"))
    form, = simplified(box, [expr], guards)
    assert cost(form)["divs"] == 0, form


@SETTINGS
@given(st.integers(1, 4), st.integers(0, 3))
def test_a_ceiling_quotient_of_a_bounded_ratio(k: int, lo: int) -> None:
    """``CeilDiv(x, y)`` with ``(k - 1)*y < x <= k*y`` and ``y >= 1`` is the literal ``k``."""
    form, = simplified({"x": (-10, 30), "y": (1, 8)}, ["CeilDiv(x, y)"], (f"{k - 1}*y < x", f"x <= {k}*y", f"y >= {lo + 1}"))
    assert form == str(k), form


# ------------------------------------------------------------------ a select equal to a branch

@SETTINGS
@given(st.integers(-4, 4), st.sampled_from(["{v}", "2*{v} + 1", "{v} % 3", "Max({v}, 0)"]), st.booleans())
def test_a_select_whose_branch_equals_the_other(k: int, e: str, first: bool) -> None:
    """``Piecewise((A, Eq(x, y + k)), (B, True))`` where ``A`` is ``B`` with ``x`` written as
    ``y + k`` is ``B``: the branches agree where the condition holds."""
    a, e = e.format(v=f"(y + {k})"), e.format(v="x")
    text = (f"Piecewise(({a}, Eq(x, y + {k})), ({e}, True))" if first
            else f"Piecewise(({e}, Ne(x, y + {k})), ({a}, True))")
    form, = simplified(BOX, [text])
    assert parse_sympy(form).term is parse_sympy(e).term, form


def test_a_select_over_a_divisor_keeps_its_domain() -> None:
    """``Piecewise((0, Eq(y, 0)), (x - x//y*y - Mod(x, y), True))``: the default branch is 0
    wherever it is taken and the form is 0; ``Piecewise((0, Eq(y, 0)), (x//y, True))`` keeps its
    select (its default branch alone would divide by zero where the input does not)."""
    zero, kept = simplified({"x": (-6, 6), "y": (-3, 3)},
                            ["Piecewise((0, Eq(y, 0)), (x - x//y*y - Mod(x, y), True))", "Piecewise((0, Eq(y, 0)), (x//y, True))"])
    assert zero == "0"
    assert "Piecewise" in kept


def test_a_wide_residue_class_does_not_stop_the_operation() -> None:
    """A conjunction enumerated on one symbol into more spans than the interval rules keep (a
    residue class on ``[-12, 12]``) is left to the other rules: the operation answers (it raised
    an internal exception before)."""
    simplified(BOX, ["And(Or(Eq(x % 3, 0), x < 1), Eq(x % 6, 0), Or(Eq(x % 6, 0), Eq(x % 4, 0)))"])
