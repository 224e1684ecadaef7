"""``simplify``, round 5: the rules of docs/simplify.md "A compiler simplifier's identities" on
random instances — Mod coefficients reduced, a remainder by a symbolic divisor, floor and
ceiling halves, selects under their own condition and summands moved into them, absorption and
De Morgan, nested quotients with a sum and a divisor of either sign, Min/Max of quotients by one
divisor, a common factor of proven sign out of a comparison, divisibility past a symbolic rest,
common symbol factors collected — and the rule functions themselves against Python's integers.

Every form goes through ``simplified`` (round 3's helper): the operation runs with its
self-check on, the form is compared with its input by Python's integer evaluation at every
point of a box with negatives and zero, and its cost is never above the input's."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_simplify_round3 import CMP, _key, _weighted, divs, simplified

from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import evaluate
from symguard.solver.ops import simplify as simplify_op
from symguard.solver.reason import simplify_identities as ident
from symguard.solver.reason.simplify_sums import collect
from symguard.solver.syntax.sympy_reader import parse_sympy
from symguard.solver.syntax.sympy_writer import cost, to_sympy

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
BOX = {"x": (-9, 9), "y": (-4, 4)}


@pytest.fixture(autouse=True)
def _self_check(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(simplify_op, "SELF_CHECK", True)


def _cheaper(form: str, text: str) -> bool:
    return _weighted(cost(form)) < _weighted(cost(text))


def _same(a: ir.Term, b: ir.Term, names: tuple[str, ...], reach: int = 6) -> None:
    """``a`` and ``b`` (without symbolic divisors) agree at every point of ``[-reach, reach]^n``."""
    for v in itertools.product(range(-reach, reach + 1), repeat=len(names)):
        pt = dict(zip(names, v))
        assert evaluate(b, pt) == evaluate(a, pt), (to_sympy(a), to_sympy(b), pt)


# ------------------------------------------------------------------ Mod coefficients

@settings(max_examples=200, deadline=None)
@given(st.integers(-9, 9), st.integers(-9, 9), st.integers(-20, 20), st.integers(2, 7))
def test_mod_coefficients_is_an_identity(a: int, b: int, k: int, d: int) -> None:
    """``Mod(a*x + b*y + k, d)`` with each coefficient reduced modulo ``d``: equal everywhere,
    never costlier (only taken when cheaper)."""
    m = ir.mk_mod(ir.from_linear({t: v for t, v in ((ir.mk_sym("x"), a), (ir.mk_sym("y"), b)) if v}, k), ir.mk_int(d))
    if m.kind != ir.MOD:
        return
    got = ident.mod_coefficients(m)
    if got is None:
        return
    _same(m, got, ("x", "y"))
    assert _key(cost(to_sympy(got))) < _key(cost(to_sympy(m))) or _weighted(cost(to_sympy(got))) < _weighted(cost(to_sympy(m)))


@SETTINGS
@given(st.integers(2, 5), st.sampled_from([-1, 3, 5, -3]), st.integers(-6, 6))
def test_mod_coefficient_reduced_by_the_operation(d: int, c: int, k: int) -> None:
    text = f"Mod({c + d}*x + {k}, {d})"  # the coefficient is c modulo d, the constant k
    form, = simplified(BOX, [text])
    assert _weighted(cost(form)) <= _weighted(cost(text))


# ------------------------------------------------------------------ a remainder by a symbolic divisor

@SETTINGS
@given(st.integers(-3, 3).filter(bool), st.sampled_from(["x", "x + y", "2*x - 1"]), st.sampled_from(["p", "p*q", "p + 1"]),
       st.sampled_from(["", " + y", " - 3"]))
def test_remainder_of_a_symbolic_divisor(c: int, x: str, p: str, rest: str) -> None:
    """``c*X - c*P*(X//P) + R`` is ``c*Mod(X, P) + R`` wherever ``P != 0`` (any sign)."""
    text = f"{c}*({x}) - {c}*({p})*(({x})//({p})){rest}"
    form, = simplified({"x": (-6, 6), "y": (-2, 2), "p": (-3, 3), "q": (-2, 2)}, [text])
    assert "//" not in form and _cheaper(form, text), (text, form)


# ------------------------------------------------------------------ floor and ceiling halves

@SETTINGS
@given(st.sampled_from(["x", "x + y", "3*x - y + 1"]), st.integers(-3, 3).filter(bool), st.booleans())
def test_floor_and_ceiling_halves(a: str, u: int, plus: bool) -> None:
    """``u*(A//2) ± u*CeilDiv(A, 2)``: ``u*A`` and ``u*Mod(A, 2)``."""
    text = f"{u}*(({a})//2) {'+' if plus else '-'} {u}*CeilDiv({a}, 2)"
    form, = simplified(BOX, [text])
    assert divs(form) == (0 if plus else 1) and _cheaper(form, text), (text, form)


# ------------------------------------------------------------------ selects

CONDS = ["y > 0", "x < y", "Eq(Mod(x, 3), 1)", "And(x > 0, y < 2)"]


@SETTINGS
@given(st.sampled_from(CONDS), st.sampled_from(["x", "x + 1", "y*x"]), st.sampled_from(["y", "2*y"]),
       st.sampled_from(["x - y", "3"]), st.booleans())
def test_a_select_under_its_own_condition(c: str, a: str, b: str, e: str, inner_then: bool) -> None:
    """``ITE(c, ITE(c, a, b), e)`` is ``ITE(c, a, e)``; ``ITE(c, e, ITE(c, a, b))`` is ``ITE(c, e, b)``."""
    inner = f"Piecewise(({a}, {c}), ({b}, True))"
    text = f"Piecewise(({inner}, {c}), ({e}, True))" if inner_then else f"Piecewise(({e}, {c}), ({inner}, True))"
    form, = simplified(BOX, [text])
    assert form.count("Piecewise") <= 1 and _cheaper(form, text), (text, form)


@SETTINGS
@given(st.integers(-4, 4), st.integers(1, 4), st.sampled_from(["x", "x + y", "2*x"]), st.sampled_from(["y", "x - y"]))
def test_adjacent_branches_of_one_value_joined(lo: int, width: int, a: str, z: str) -> None:
    """``Piecewise((a, y < lo), (a, y < lo + width), (z, True))`` is one branch on ``y < lo + width``."""
    text = f"Piecewise(({a}, y < {lo}), ({a}, y < {lo + width}), ({z}, True))"
    form, = simplified(BOX, [text])
    assert _cheaper(form, text), (text, form)


@SETTINGS
@given(st.sampled_from(CONDS), st.integers(-3, 3), st.sampled_from(["x", "y"]), st.sampled_from(["", "x"]))
def test_a_summand_cancelling_in_a_branch(c: str, k: int, t: str, b: str) -> None:
    """``Piecewise((a + t + k, c), (b + t + k, True)) - t - k`` is ``Piecewise((a, c), (b, True))``."""
    bb = b or "0"
    text = f"Piecewise((y*x + {t} + {k}, {c}), ({bb} + {t} + {k}, True)) - {t} - {k}"
    form, = simplified(BOX, [text])
    assert _weighted(cost(form)) <= _weighted(cost(f"Piecewise((y*x, {c}), ({bb}, True))")), (text, form)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 3).filter(bool), st.sampled_from(["x", "y", "x*y", "1"])), min_size=1, max_size=3),
       st.sampled_from(CONDS), st.integers(-3, 3).filter(bool))
def test_summand_into_select_is_an_identity(parts: list[tuple[int, str]], c: str, v: int) -> None:
    text = f"{v}*Piecewise((x - y, {c}), (2*x + 1, True)) + " + " + ".join(f"({w})*({t})" for w, t in parts)
    t = parse_sympy(text).term
    coefs, const = ir.linear(t)
    got = ident.summand_into_select(coefs, const)
    if got is not None:
        _same(t, got, ("x", "y"))


# ------------------------------------------------------------------ connectives

ATOMS = ["x < 3", "y >= 1", "Eq(x, y)", "Ne(x, 2)", "x + y <= 4"]


@SETTINGS
@given(st.sampled_from(ATOMS), st.sampled_from(ATOMS), st.sampled_from(["And", "Or"]))
def test_absorption(a: str, b: str, outer: str) -> None:
    inner = "Or" if outer == "And" else "And"
    text = f"{outer}({a}, {inner}({a}, {b}))"
    form, = simplified(BOX, [text])
    assert _weighted(cost(form)) <= _weighted(cost(a)), (text, form)


@SETTINGS
@given(st.lists(st.sampled_from(ATOMS), min_size=2, max_size=3, unique=True), st.sampled_from(["And", "Or"]))
def test_de_morgan(atoms: list[str], inner: str) -> None:
    """``Not(And(a, b))`` of comparisons is a disjunction of comparisons: no ``Not`` left."""
    text = f"Not({inner}({', '.join(atoms)}))"
    form, = simplified(BOX, [text])
    assert not form.startswith("Not(") and _weighted(cost(form)) < _weighted(cost(text)), (text, form)


# ------------------------------------------------------------------ nested quotients

DIVISORS = [("2", (1, 1)), ("-3", (1, 1)), ("p", (1, 3)), ("p", (-3, -1))]


@SETTINGS
@given(st.sampled_from(DIVISORS), st.sampled_from(["3", "b", "2*b"]), st.sampled_from(["", "1", "-2", "y", "y + 1"]))
def test_nested_quotient_with_a_sum(inner: tuple[str, tuple[int, int]], outer: str, r: str) -> None:
    """``(x//c + R)//b`` for ``c`` of either sign and ``b > 0`` (literal or a range): one quotient."""
    c, prange = inner
    text = f"((x//({c})) + {r})//({outer})" if r else f"(x//({c}))//({outer})"
    form, = simplified({"x": (-13, 13), "y": (-2, 2), "p": prange, "b": (1, 3)}, [text])
    assert divs(form) <= 1 and _weighted(cost(form)) <= _weighted(cost(text)), (text, form)


def test_nested_quotient_by_a_divisor_of_unknown_sign_is_kept() -> None:
    """``floor(floor(q)/b) = floor(q/b)`` needs ``b > 0``: ``(x//3)//b`` with ``b`` of either sign stays."""
    form, = simplified({"x": (-9, 9), "b": (-2, 2)}, ["(x//3)//b"])
    assert divs(form) == 2, form


# ------------------------------------------------------------------ Min/Max of quotients

@SETTINGS
@given(st.sampled_from(["Max", "Min"]), st.sampled_from(DIVISORS), st.sampled_from([1, -1, 2, -3]),
       st.sampled_from(["x", "x + 1", "2*x"]), st.sampled_from(["y", "y - x", "3"]), st.booleans())
def test_extreme_of_quotients(kind: str, divisor: tuple[str, tuple[int, int]], v: int, a: str, b: str, third: bool) -> None:
    """``Max(v*(A//d), v*(B//d)[, z])`` with ``d``'s sign proven: one quotient of a Max or Min."""
    d, prange = divisor
    extra = ", z" if third else ""
    text = f"{kind}({v}*(({a})//({d})), {v}*(({b})//({d})){extra})"
    form, = simplified({"x": (-7, 7), "y": (-3, 3), "z": (-2, 2), "p": prange}, [text])
    assert divs(form) <= 1 and _cheaper(form, text), (text, form)


# ------------------------------------------------------------------ a common factor of a comparison

@SETTINGS
@given(st.sampled_from([*CMP, "==", "!="]), st.sampled_from([("c", (1, 3)), ("c", (-3, -1)), ("2*c", (-2, -1)), ("c*d", (1, 2))]),
       st.sampled_from(["x", "x + y", "2*x - y"]), st.sampled_from(["y", "0", "x*y"]))
def test_a_common_factor_of_proven_sign(op: str, factor: tuple[str, tuple[int, int]], a: str, b: str) -> None:
    """``(A)*f OP (B)*f`` with ``f`` a monomial of proven sign: the comparison of ``A`` and ``B``
    (turned over for ``f < 0``), without ``f``. (A factor that is a sum, ``(c + 2)``, is not
    found: the sides are read expanded.)"""
    f, crange = factor
    rel = {"==": "Eq", "!=": "Ne"}.get(op)
    lhs, rhs = f"({a})*({f})", f"({b})*({f})"
    text = f"{rel}({lhs}, {rhs})" if rel else f"{lhs} {op} {rhs}"
    form, = simplified({"x": (-4, 4), "y": (-3, 3), "c": crange, "d": (1, 2)}, [text])
    assert "c" not in form, (text, form)


def test_a_factor_of_unknown_sign_is_kept() -> None:
    form, = simplified({"x": (-4, 4), "y": (-3, 3), "c": (-2, 2)}, ["x*c < y*c"])
    assert "c" in form, form


# ------------------------------------------------------------------ divisibility past a symbolic rest

@SETTINGS
@given(st.sampled_from([2, 3, 4]), st.sampled_from(["x", "x + 1", "2*x - y"]), st.integers(1, 3))
def test_divisible_part_of_a_mod_dropped(d: int, rest: str, k: int) -> None:
    """``Mod(k*n + R, d)`` with ``d | n`` (a guard) is ``Mod(R, d)`` for a symbolic ``R``."""
    text = f"Mod({k}*n + {rest}, {d})"
    form, = simplified({"x": (-5, 5), "y": (-2, 2), "n": (-8, 8)}, [text], (f"Eq(Mod(n, {d}), 0)",))
    assert "n" not in form, (text, form)


# ------------------------------------------------------------------ symbol factors collected

@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 3), st.sampled_from(["x", "y", "z", "x*y", "1"]),
                          st.sampled_from(["x", "y", "z", "1", "Mod(x, 3)"])), min_size=1, max_size=5),
       st.integers(-4, 4))
def test_symbol_factors_collected_never_costlier(parts: list[tuple[int, str, str]], k: int) -> None:
    """``collect`` with symbol factors: an identity, never costlier, and cheaper when two monomials
    each print a multiplication besides the shared symbol."""
    text = " + ".join(f"({c})*({a})*({b})" for c, a, b in parts) + f" + {k}"
    t = parse_sympy(text).term
    got = collect(t, {})
    before, after = cost(to_sympy(t)), cost(to_sympy(got))
    assert _key(after) <= _key(before) and _weighted(after) <= _weighted(before), (to_sympy(t), to_sympy(got))
    for x, y, z in itertools.product(range(-3, 4), repeat=3):
        pt = {"x": x, "y": y, "z": z}
        assert evaluate(got, pt) == evaluate(t, pt)


@pytest.mark.parametrize(("expr", "want"), [
    ("x*y + x*z", 2), ("x*y - x*z + 3", 3), ("2*x*y + 2*x*z", 3), ("x*y + x", 2), ("4*x*y + 6*x*z", 4),
])
def test_symbol_factor_examples(expr: str, want: int) -> None:
    form, = simplified({"x": (-4, 4), "y": (-4, 4), "z": (-4, 4)}, [expr])
    assert cost(form)["ops"] == want, (expr, form)


# ------------------------------------------------------------------ round B: Min/Max, squares, bounds of a sum

@SETTINGS
@given(st.sampled_from(["Max", "Min"]), st.sampled_from(["x", "x + 1", "2*x"]), st.sampled_from(["y", "y - 2"]),
       st.sampled_from(["", ", -z"]))
def test_negation_out_of_an_extreme(kind: str, a: str, b: str, third: str) -> None:
    """``Max(-a, -b, …)`` is ``-Min(a, b, …)``: never costlier, and cheaper for two plain negations."""
    text = f"{kind}(-({a}), -({b}){third})"
    form, = simplified({"x": (-5, 5), "y": (-4, 4), "z": (-2, 2)}, [text])
    if a == "x" and b == "y":
        assert _cheaper(form, text), (text, form)


@SETTINGS
@given(st.sampled_from(["Max", "Min"]), st.sampled_from(["x", "x + 1", "Mod(x, 3)"]),
       st.lists(st.sampled_from(["y", "z", "2*y", "y - z", "3"]), min_size=2, max_size=3, unique=True))
def test_distributive_lattice(kind: str, c: str, others: list[str]) -> None:
    """``Max(Min(c, a1), Min(c, a2), …)`` is ``Min(c, Max(a1, a2, …))`` (``Min``/``Max`` dually)."""
    dual = "Min" if kind == "Max" else "Max"
    text = f"{kind}(" + ", ".join(f"{dual}({c}, {o})" for o in others) + ")"
    form, = simplified({"x": (-5, 5), "y": (-3, 3), "z": (-3, 3)}, [text])
    assert _cheaper(form, text), (text, form)


@SETTINGS
@given(st.sampled_from(["x*x", "x**2*y**2", "x*x + y*y", "2*x**2 + 3*y**4"]), st.sampled_from(CMP), st.integers(-3, 3))
def test_squares_decided(e: str, op: str, k: int) -> None:
    """A sum of even powers with positive coefficients against a literal on the side it never reaches."""
    text = f"{e} {op} {k}"
    form, = simplified({"x": (-4, 4), "y": (-3, 3)}, [text])
    never = (op in ("<", "<=") and (k < 0 or (k == 0 and op == "<"))) or (op in (">=", ">") and (k < 0 or (k == 0 and op == ">=")))
    if never:
        assert form in ("True", "False"), (text, form)


@SETTINGS
@given(st.integers(-12, 12), st.integers(0, 6), st.sampled_from([3, 4, 8]))
def test_a_mod_within_one_block(lo: int, width: int, d: int) -> None:
    """``Mod(x, d)`` with ``x``'s range inside one block ``[q*d, q*d + d - 1]`` is ``x - q*d``."""
    hi = min(lo + width, lo - lo % d + d - 1)
    form, = simplified({"x": (lo, hi)}, [f"Mod(x, {d})"])
    assert divs(form) == 0, (lo, hi, d, form)


@SETTINGS
@given(st.sampled_from(["x - y", "x + 2*y", "2*x - 2*y"]), st.integers(-3, 3), st.integers(0, 2),
       st.sampled_from(["And", "Or"]))
def test_bounds_on_a_sum_met(t: str, lo: int, width: int, conn: str) -> None:
    """``And(t >= lo, t <= hi)`` on one linear ``t``, an equation when ``lo == hi``; ``Or`` of a bound
    and the next point joined (``Or(x < y, Eq(x, y))`` is ``x <= y``)."""
    if conn == "And":
        text = f"And({t} >= {lo}, {lo + width} >= {t})"
    else:
        text = f"Or({t} < {lo}, Eq({t}, {lo}))"
    form, = simplified({"x": (-5, 5), "y": (-4, 4)}, [text])
    if conn == "Or" or width == 0:
        assert _cheaper(form, text), (text, form)


# ------------------------------------------------------------------ truncated division

@settings(max_examples=60, deadline=None)
@given(st.integers(-6, 6).filter(lambda v: abs(v) >= 2), st.integers(-6, 6).filter(lambda v: abs(v) >= 2),
       st.sampled_from(["x", "x + y", "3*x", "2*x - y"]))
def test_nested_truncdiv_is_one_truncdiv(a: int, b: int, x: str) -> None:
    """``TruncDiv(TruncDiv(X, a), b)`` is ``TruncDiv(X, a*b)`` (truncation composes as floor does;
    the signs multiply): equal at every point of the box; one division where the inner select
    reaches the rule as read (a dividend with a constant or a coefficient the rewriter splits,
    ``(2*x - y)//2`` to ``x + (-y)//2``, is respelled first and keeps its form)."""
    text = f"TruncDiv(TruncDiv({x}, {a}), {b})"
    m = parse_sympy(text).term
    got = ident.nested_truncdiv(m)
    if got is not None:
        _same(m, got, ("x", "y"), reach=13)
    form, = simplified(BOX, [text])
    if x != "2*x - y":
        assert divs(form) <= 1, (text, form)


@pytest.mark.parametrize("text", ["TruncDiv(x, 4)", "TruncDiv(x + 1, -3)", "TruncDiv(x, y)", "TruncMod(x, 3)",
                                  "2*TruncMod(x - y + 2, -4) + 5", "TruncMod(x, y)", "x - 3*TruncDiv(x, 4)"])
def test_truncated_division_prints_as_it_was_read(text: str) -> None:
    """The reader's select for ``TruncDiv(a, b)`` prints ``TruncDiv(a, b)`` again, and
    ``TruncMod`` by a literal ``TruncMod`` (by a symbol its definition ``a - TruncDiv(a, b)*b``):
    the same term read back."""
    t = parse_sympy(text).term
    out = to_sympy(t)
    assert "Piecewise" not in out and "Trunc" in out
    assert parse_sympy(out).term is t
