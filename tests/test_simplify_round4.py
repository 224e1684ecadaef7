"""``simplify``, round 4: the eight classes of docs/simplify.md (§ Round 3) on fresh instances,
with the pieces round 3 left out — symbolic divisors of either proven sign, a coefficient on a
symbolic quotient with a symbolic rest, ``TruncDiv`` by a symbolic divisor, a quotient equation
to a symbolic value joined with its remainder's bounds — and a property over random expressions
of every operator the reader accepts: the answer is never costlier than the input.

Every form goes through ``simplified`` (round 3's helper): the operation runs with its
self-check on, the form is compared with its input by Python's integer evaluation at every
point of a box with negatives and zero, and its cost is never above the input's (divisions
first, and with a division weighed as three operations)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_simplify_round3 import CMP, _key, _weighted, divs, simplified, spelled

from symguard.solver import load_problem, run
from symguard.solver.ir.pyeval import evaluate, holds
from symguard.solver.ops import simplify as simplify_op
from symguard.solver.syntax.sympy_reader import parse_sympy
from symguard.solver.syntax.sympy_writer import cost

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(autouse=True)
def _self_check(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(simplify_op, "SELF_CHECK", True)


# a divisor and how its sign is known: (text, range of p, guards, sign)
DIVISORS = [
    ("p", (1, 4), (), 1), ("p", (-3, 4), ("p >= 1",), 1), ("p + 2", (-1, 2), (), 1), ("3*p", (1, 2), (), 1),
    ("p", (-4, -1), (), -1), ("p", (-4, 3), ("p < 0",), -1), ("-p - 1", (0, 3), (), -1), ("p - 5", (1, 3), (), -1),
]


def _box(prange: tuple[int, int], **more: tuple[int, int]) -> dict[str, tuple[int, int]]:
    return {"x": (-13, 13), "p": prange, **more}


# ------------------------------------------------------------------ 1. quotient bounds multiplied out

@SETTINGS
@given(st.sampled_from(CMP), st.sampled_from(DIVISORS), st.sampled_from(["c", "-c", "c + 2", "2*c - 1", "3"]))
def test_quotient_bound_for_either_sign_of_the_divisor(op: str, divisor: tuple[Any, ...], bound: str) -> None:
    """``x//d OP z`` with ``d``'s sign proven (range or guard), ``z`` literal or symbolic: no division."""
    d, prange, guards, _ = divisor
    form, = simplified(_box(prange, c=(-3, 3)), [f"(x//({d})) {op} {bound}"], guards)
    if d == "p" or bound == "3":  # a product to expand costs operations the division may not repay
        assert divs(form) == 0 or form in ("True", "False"), form


@SETTINGS
@given(st.sampled_from([2, 3, -2, -3]), st.sampled_from(CMP), st.sampled_from(DIVISORS), st.integers(-2, 2),
       st.booleans(), st.sampled_from(["c", "c - b", "2*b"]))
def test_coefficient_on_a_symbolic_quotient_with_a_symbolic_rest(k: int, op: str, divisor: tuple[Any, ...],
                                                                 j: int, by_guard: bool, s: str) -> None:
    """``k*(x//d) + k*S + y OP 0`` with ``y`` in one block of ``|k|`` (``|k|*j < y <= |k|*j + |k|``,
    by range or by guard): ``floor(-y/k)`` (``k > 0``; ``ceil(y/|k|)`` for ``k < 0``) is one number,
    so the comparison is ``x//d + S`` against it, then multiplied out — no division."""
    d, prange, guards, _ = divisor
    lo = _block(k, op, j)
    box = _box(prange, c=(-2, 2), b=(-2, 2), y=(lo, lo + abs(k) - 1))
    if by_guard:
        box["y"] = (lo - 2, lo + abs(k) + 1)
        guards = (*guards, f"y >= {lo}", f"y <= {lo + abs(k) - 1}")
    text = f"{k}*(x//({d})) + {k}*({s}) + y {op} 0"
    form, = simplified(box, [text], guards)
    assert "y" not in form and _key(cost(form)) < _key(cost(text)), (text, form)
    if d == "p" and s == "c":  # then multiplied out costs less, also weighed
        assert divs(form) == 0 or form in ("True", "False"), (text, form)


def _block(k: int, op: str, j: int) -> int:
    """The least ``lo`` at or above ``|k|*j`` with ``k*Q + y OP 0`` the same set of integers ``Q``
    for every ``y`` in ``[lo, lo + |k| - 1]`` (by brute force)."""
    ref = {"<": int.__lt__, "<=": int.__le__, ">": int.__gt__, ">=": int.__ge__}[op]
    for lo in range(abs(k) * j, abs(k) * j + abs(k)):
        sets = {frozenset(q for q in range(-30, 31) if ref(k * q + y, 0)) for y in range(lo, lo + abs(k))}
        if len(sets) == 1:
            return lo
    raise AssertionError((k, op, j))


def test_coefficient_examples() -> None:
    forms = simplified({"x": (-13, 13), "p": (1, 4), "c": (-3, 3), "y": (-1, 0)},
                       ["2*(x//p) + 2*c + y <= 0", "-3*(x//p) + 3*c + y >= 1"])
    assert spelled(forms, ["p*c + x < p", "x < p*c"])


def test_a_rest_spanning_two_blocks_keeps_the_quotient() -> None:
    """``2*(x//p) >= c`` has no division-free equivalent (it is ``x//p >= ceil(c/2)``): kept."""
    form, = simplified({"x": (-13, 13), "p": (1, 4), "c": (-3, 3)}, ["2*(x//p) >= c"])
    assert divs(form) == 1


# ------------------------------------------------------------------ 2. rests that cannot carry

@SETTINGS
@given(st.sampled_from([2, 4, 8, 16]), st.sampled_from([2, 4, 3]), st.booleans(), st.sampled_from(["y", "-y", "y - 2*z"]),
       st.booleans())
def test_several_terms_below_the_radix(k: int, m: int, by_guard: bool, a: str, tail: bool) -> None:
    """``(r + k*A [+ k*m*z])//(k*m)`` with ``0 <= r < k``: ``r`` cannot carry into the quotient."""
    box = {"r": (0, k - 1), "y": (-7, 7), "z": (-3, 3)}
    guards: tuple[str, ...] = ()
    if by_guard:
        box["r"] = (-2, k + 1)
        guards = ("r >= 0", f"r < {k}")
    text = f"(r + {k}*({a})" + (f" + {k * m}*z" if tail else "") + f")//{k * m}"
    form, = simplified(box, [text], guards)
    assert "r" not in form, (text, form)


# ------------------------------------------------------------------ 3. summands into Min/Max

@SETTINGS
@given(st.sampled_from(["Max", "Min"]), st.sampled_from(["u", "2*u", "-u"]), st.integers(-3, 3), st.sampled_from(["v", "1", "v - w"]))
def test_a_summand_cancelling_in_the_extreme(kind: str, t: str, k: int, other: str) -> None:
    text = f"{kind}({other}, w - ({t}) + {k}) + {t}"
    form, = simplified({"u": (-3, 3), "v": (-3, 3), "w": (-3, 3)}, [text])
    assert _key(cost(form)) < _key(cost(text)), (text, form)


# ------------------------------------------------------------------ 4. common costly factors

@SETTINGS
@given(st.sampled_from(["Mod(x, p)", "(x//p)", "Max(x, p)", "CeilDiv(x, 3)"]), st.sampled_from(["y", "y*p", "-y"]),
       st.integers(-3, 3).filter(bool))
def test_a_costly_factor_collected(factor: str, cof: str, k: int) -> None:
    text = f"({cof})*{factor} + {k}*{factor}"
    form, = simplified({"x": (-9, 9), "y": (-3, 3), "p": (1, 3)}, [text])
    assert _key(cost(form)) < _key(cost(text)), (text, form)


# ------------------------------------------------------------------ 5. quotient and remainder pairs

@SETTINGS
@given(st.integers(2, 6), st.integers(-3, 3).filter(bool), st.sampled_from(["x", "x + y", "2*x - y"]))
def test_quotient_remainder_pair_merges(d: int, c: int, a: str) -> None:
    """``c*d*(A//d) + c*Mod(A, d)`` is ``c*A``."""
    text = f"{c * d}*(({a})//{d}) + {c}*Mod({a}, {d})"
    form, = simplified({"x": (-9, 9), "y": (-4, 4)}, [text])
    assert divs(form) == 0, (text, form)


# ------------------------------------------------------------------ 6. TruncDiv against a bound

@SETTINGS
@given(st.sampled_from(CMP), st.sampled_from(DIVISORS),
       st.sampled_from([("c", (1, 3), ()), ("c", (-3, 0), ()), ("c", (-3, 3), ("c >= 1",)), ("c", (-3, 3), ("c <= -1",)),
                        ("4", None, ()), ("0", None, ()), ("-2", None, ()), ("c + 1", (0, 2), ())]))
def test_truncated_division_by_a_symbolic_divisor(op: str, divisor: tuple[Any, ...], bound: tuple[Any, ...]) -> None:
    """``TruncDiv(x, d) OP z`` with ``d``'s sign proven and ``z`` on a proven side of the threshold
    (``>= 1`` or ``<= 0`` for ``>=``, shifted by one for ``>``): one bound on ``x``. Both signs of
    ``x`` are in the box, so both branches of the truncation are met."""
    d, prange, guards, _ = divisor
    z, crange, zguards = bound
    box = _box(prange, c=crange or (0, 0))
    text = f"TruncDiv(x, {d}) {op} {z}"
    form, = simplified(box, [text], (*guards, *zguards))
    # the threshold of > and <= is one more than that of >= and <: c >= 1 gives c + 1 >= 1 too,
    # c <= 0 gives c + 1 <= 0 only when c <= -1
    undecided = op in (">", "<=") and z == "c" and crange == (-3, 0)
    if not undecided and (d == "p" or z in ("4", "0", "-2")):
        assert divs(form) == 0 or form in ("True", "False"), (text, form)


def test_truncated_division_examples() -> None:
    forms = simplified({"x": (-13, 13), "p": (1, 4), "n": (-4, -1), "c": (1, 3)},
                       ["TruncDiv(x, p) < c", "TruncDiv(x, n) >= c", "TruncDiv(x, p) >= 0", "TruncDiv(x, p) <= -2"])
    assert spelled(forms, ["x < p*c", "x <= n*c", "-p < x", "x + 2*p <= 0"])


def test_truncated_division_by_a_divisor_of_unknown_sign_is_kept() -> None:
    form, = simplified({"x": (-13, 13), "p": (-3, 3)}, ["TruncDiv(x, p) < 2"])
    assert divs(form) == 1


# ------------------------------------------------------------------ 7. quotient equation and remainder bounds

@SETTINGS
@given(st.sampled_from([("p", (2, 4), ()), ("p", (-3, 4), ("p >= 2",)), ("p", (-4, -2), ()), ("4", None, ()), ("-3", None, ())]),
       st.sampled_from(["c", "c + 1", "3", "-c"]), st.sampled_from(CMP), st.integers(0, 1))
@example(("4", None, ()), "3", "<", 1)  # x in [-13, 13] clips the interval [12, 15]: x == 12
def test_quotient_equation_joined_with_a_remainder_bound(divisor: tuple[Any, ...], q: str, op: str, r: int) -> None:
    """``And(Eq(x//d, q), Mod(x, d) OP r)`` with a symbolic ``d`` (sign and ``|d| >= 2`` proven) or a
    symbolic ``q``: one interval of ``x`` when that is cheaper; equal everywhere in any case."""
    d, prange, guards = divisor
    sign = -1 if d.startswith("-") or (prange is not None and prange[1] < 0) else 1
    rr = sign * r  # a remainder bound inside the remainder's range (Mod(x, d) has d's sign)
    text = f"And(Eq(x//({d}), {q}), Mod(x, {d}) {op} {rr})"
    form, = simplified({"x": (-13, 13), "p": prange or (0, 0), "c": (-2, 2)}, [text], guards)
    assert "Mod" not in form, (text, form)
    # a remainder bound the divisor's sign decides leaves the equation alone (``Mod(x, p) <= 0``, ``p < 0``)
    assert divs(form) == 0 or form in ("True", "False") or form.startswith("Eq("), (text, form)


def test_quotient_equation_examples() -> None:
    forms = simplified({"x": (-13, 13), "p": (2, 4), "c": (-2, 2)},
                       ["And(Eq(x//p, c), Mod(x, p) < 2)", "And(Eq(x//4, c), Mod(x, 4) >= 1)"])
    assert spelled(forms, ["And(p*c <= x, x <= p*c + 1)", "And(4*c < x, x <= 4*c + 3)"])


# ------------------------------------------------------------------ 8. Piecewise under one condition

@SETTINGS
@given(st.sampled_from(["x < 0", "x >= 2", "Eq(x, 1)"]), st.integers(-2, 2), st.sampled_from(["+", "-", "*"]))
def test_piecewise_arithmetic_pushed_into_branches(cond: str, k: int, op: str) -> None:
    text = f"Piecewise((a, {cond}), ({k}, True)) {op} Piecewise((b + 1, {cond}), (a, True))"
    form, = simplified({"x": (-3, 3), "a": (-2, 2), "b": (-2, 2)}, [text])
    if op != "*" or k:
        assert form.count("Piecewise") <= 1, (text, form)


# ------------------------------------------------------------------ never costlier, on anything

_LEAVES = ["x", "y", "z", "0", "1", "2", "-3"]
_DIV = st.sampled_from(["2", "3", "-2", "z", "y"])


def _ints() -> st.SearchStrategy[str]:
    def grow(t: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        two = st.tuples(t, t)
        return st.one_of(
            two.map(lambda p: f"({p[0]} + {p[1]})"), two.map(lambda p: f"({p[0]})*({p[1]})"),
            st.tuples(st.integers(-3, 3), t).map(lambda p: f"{p[0]}*({p[1]})"),
            st.tuples(t, _DIV, st.sampled_from(["FloorDiv", "Mod", "PythonMod", "CeilDiv", "TruncDiv"]))
            .map(lambda p: f"{p[2]}({p[0]}, {p[1]})"),
            st.tuples(t, st.sampled_from(["1", "2", "4"]), st.sampled_from(["2", "3", "8"]))
            .map(lambda p: f"ModularIndexing({p[0]}, {p[1]}, {p[2]})"),
            st.tuples(st.sampled_from(["Max", "Min"]), t, t).map(lambda p: f"{p[0]}({p[1]}, {p[2]})"),
            st.tuples(_conds(st.sampled_from(_LEAVES)), t, t).map(lambda p: f"Piecewise(({p[1]}, {p[0]}), ({p[2]}, True))"),
        )
    return st.recursive(st.sampled_from(_LEAVES), grow, max_leaves=5)


def _conds(ints: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    atom = st.tuples(ints, st.sampled_from(["<", "<=", ">", ">=", "==", "!="]), ints).map(
        lambda p: f"Eq({p[0]}, {p[2]})" if p[1] == "==" else f"Ne({p[0]}, {p[2]})" if p[1] == "!=" else f"({p[0]}) {p[1]} ({p[2]})")
    return st.recursive(atom, lambda b: st.one_of(
        st.tuples(b, b).map(lambda p: f"And({p[0]}, {p[1]})"), st.tuples(b, b).map(lambda p: f"Or({p[0]}, {p[1]})"),
        b.map(lambda a: f"Not({a})")), max_leaves=3)


_RANGE = st.sampled_from([(-4, 4), (0, 5), (1, 4), (-5, -1), (-2, 0), (2, 6)])
# the symbols that divide stay off zero: a conjunction whose later conjunct divides by zero where an
# earlier one is false is defined (``And`` reads short-circuit), and a form that reorders it is not
# (a known limit of the domain, see the report of round 4); ``x`` still takes negatives and zero
_DIVIDING_RANGE = st.sampled_from([(1, 4), (-5, -1), (2, 6), (-3, -1)])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.lists(st.one_of(_ints(), _conds(_ints())), min_size=1, max_size=3), _RANGE, _DIVIDING_RANGE, _DIVIDING_RANGE)
def test_never_costlier_than_the_input(exprs: list[str], rx: tuple[int, int], ry: tuple[int, int], rz: tuple[int, int]) -> None:
    """Random integer and boolean expressions over every operator the reader accepts, under random
    ranges: each form is equal to its input wherever the input is defined (checked at every
    point of the box) and never costlier (lexicographic and weighted)."""
    box = {"x": rx, "y": ry, "z": rz}
    ctx: dict[str, Any] = {"symbols": {n: {"min": lo, "max": hi} for n, (lo, hi) in box.items()}}
    res = run("simplify", dict(ctx, exprs=exprs))
    assert res["status"] == "sat", res
    p = load_problem(dict(ctx, exprs=exprs))
    pts = [dict(zip(box, v)) for v in itertools.product(*(range(lo, hi + 1) for lo, hi in box.values()))]
    for q, row in zip(p.exprs, res["exprs"]):
        before, after = row["cost"]["before"], row["cost"]["after"]
        assert _key(after) <= _key(before) and _weighted(after) <= _weighted(before), (q.text, row)
        got = parse_sympy(row["form"]).term
        for pt in pts:
            if holds(q.domain, pt):
                assert evaluate(q.term, pt) == evaluate(got, pt), (q.text, row["form"], pt)
