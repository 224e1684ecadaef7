"""An outside check of sympy's exact ``/`` (docs/problem-format.md §1.1, the ``a / b`` row of §1.2):
each case is a guard over a small box of symbols of both signs and zero, written twice — as the
text PyTorch's dim-constraint solver prints and as a Python function over ``Fraction`` (Python's
own exact division and evaluation order; a ``ZeroDivisionError`` is the undefined point).

For each case, the whole box is brute-forced and symguard is asked three questions whose answers
tie every point to Python's: the guard holds nowhere outside the points where Python says true
(an undefined point is false, §1.2 "Division by zero"), it is satisfiable exactly when one such
point exists, and, restricted to the defined points, the guard equals its truth table. The
cases are the most varied of ~8,000 random problems (nested and symbolic divisors of both signs
that can be zero, sums, products, powers, ``Max``/``Min``/``Abs``, ``Piecewise`` guarding a zero
divisor, ``Rational`` literals, ``floor``/``ceiling`` of rational sums) none of which disagreed.
A chained comparison with a divisor past its first comparison (``a < 0 < 1/a``) is left out: the
reader evaluates every operand of a chain, where Python stops at the first false link."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from fractions import Fraction as Fr

import pytest

from symguard.solver import run
from symguard.solver.errors import UnsupportedError

Point = dict[str, int]


def _pw(*pairs: tuple[Callable[[], Fr | int], bool]) -> Fr | int:
    """``Piecewise`` as Python runs it: only the taken branch's value is computed."""
    for value, cond in pairs:
        if cond:
            return value()
    raise ZeroDivisionError  # no branch holds: undefined, like a zero divisor


def _floor(x: Fr | int) -> int:
    return Fr(x).numerator // Fr(x).denominator


def _ceil(x: Fr | int) -> int:
    return -_floor(-Fr(x))


# (box: symbol -> (min, max), guard text, the guard in Python over Fractions)
CASES: list[tuple[dict[str, tuple[int, int]], str, Callable[..., object]]] = [
    ({"s": (-3, 9)}, "s/2 >= 2", lambda s: Fr(s) / 2 >= 2),
    ({"s": (-3, 9)}, "Ne(s/2, 1)", lambda s: Fr(s) / 2 != 1),
    ({"s": (-20, 20)}, "3*s/2 < 24", lambda s: Fr(3 * s) / 2 < 24),
    ({"a": (-3, 4), "b": (-2, 3)}, "a/(5*b) <= 1", lambda a, b: Fr(a) / (5 * b) <= 1),
    ({"a": (-4, 6), "b": (-2, 3)}, "Eq(a/3, b)", lambda a, b: Fr(a) / 3 == b),
    ({"a": (-3, 3), "b": (-2, 2), "c": (-2, 2)}, "a/b + c/3 > 1",
     lambda a, b, c: Fr(a) / b + Fr(c) / 3 > 1),
    ({"a": (-7, 7)}, "(a/2)/3 < 1", lambda a: Fr(a) / 2 / 3 < 1),
    ({"a": (-3, 4), "b": (-2, 3)}, "a/(b/(a/b)) >= 1", lambda a, b: Fr(a) / (Fr(b) / (Fr(a) / b)) >= 1),
    ({"a": (-3, 3), "b": (-2, 2)}, "(a/b)**0 == 1", lambda a, b: (Fr(a) / b) ** 0 == 1),
    ({"a": (-3, 3), "b": (-2, 2)}, "0*(a/b) == 0", lambda a, b: 0 * (Fr(a) / b) == 0),
    ({"a": (-3, 3), "b": (-2, 2)}, "(a/b)**2 <= 4", lambda a, b: (Fr(a) / b) ** 2 <= 4),
    ({"a": (-3, 3), "b": (-2, 2)}, "(a - b)/(a + b) != -1", lambda a, b: Fr(a - b) / (a + b) != -1),
    ({"a": (-3, 5), "b": (-3, 5)}, "Max(a/2, b/3) > 1", lambda a, b: max(Fr(a) / 2, Fr(b) / 3) > 1),
    ({"a": (-3, 3), "b": (-2, 3)}, "Min(a/b, b/2, 1) >= 0", lambda a, b: min(Fr(a) / b, Fr(b) / 2, 1) >= 0),
    ({"a": (-3, 3), "b": (-2, 2)}, "Abs(a/b - 1) < 1", lambda a, b: abs(Fr(a) / b - 1) < 1),
    ({"a": (-3, 3), "b": (-3, 2)}, "Max(a/b, a) <= Min(b/2, 2)",
     lambda a, b: max(Fr(a) / b, a) <= min(Fr(b) / 2, 2)),
    ({"s": (-2, 8), "t": (-2, 4)}, "Piecewise((s/2, s > 4), (t, True)) >= 2",
     lambda s, t: _pw((lambda: Fr(s) / 2, s > 4), (lambda: t, True)) >= 2),
    ({"a": (-3, 3), "b": (-2, 2)}, "Piecewise((a/b, Ne(b, 0)), (a, True)) > 1",
     lambda a, b: _pw((lambda: Fr(a) / b, b != 0), (lambda: a, True)) > 1),
    ({"a": (-3, 3), "b": (-2, 2)}, "Piecewise((a/b, b > 0), (-a, b < 0)) < 1",
     lambda a, b: _pw((lambda: Fr(a) / b, b > 0), (lambda: -a, b < 0)) < 1),
    ({"s": (-6, 6)}, "Rational(3, 2)*s >= 3", lambda s: Fr(3, 2) * s >= 3),
    ({"s": (-6, 6)}, "Rational(-5, 3)*(s + 1) < Rational(1, -2)", lambda s: Fr(-5, 3) * (s + 1) < Fr(1, -2)),
    ({"a": (-5, 5), "b": (-2, 3)}, "floor((a + 1)/2/b) == 1", lambda a, b: _floor(Fr(a + 1) / 2 / b) == 1),
    ({"a": (-4, 4), "b": (-2, 2), "c": (-2, 2)}, "ceiling(a/b + c/3) >= 1",
     lambda a, b, c: _ceil(Fr(a) / b + Fr(c) / 3) >= 1),
    ({"a": (-4, 4), "b": (-2, 3)}, "floor(Max(a/3, b/2) + Rational(-3, 2)) <= -1",
     lambda a, b: _floor(max(Fr(a) / 3, Fr(b) / 2) + Fr(-3, 2)) <= -1),
    ({"a": (-3, 3), "b": (-2, 2)}, "(b != 0) & (a/b >= 1)", lambda a, b: b != 0 and Fr(a) / b >= 1),
    ({"a": (-3, 3), "b": (-2, 2)}, "Or(Eq(b, 0), a/b < -1)", lambda a, b: b == 0 or Fr(a) / b < -1),
    ({"a": (-3, 3), "b": (-2, 2)}, "And(a/b > 0, Ne(b, 0))", lambda a, b: Fr(a) / b > 0 and b != 0),
    ({"a": (-3, 3), "b": (-2, 2)}, "Not(a/b > 0) | (b == 0)", lambda a, b: (not Fr(a) / b > 0) or b == 0),
    ({"a": (-3, 3), "b": (-2, 2)}, "Implies(b != 0, a/b >= -2)", lambda a, b: b == 0 or Fr(a) / b >= -2),
    ({"a": (-2, 4), "b": (-2, 3)}, "-1 <= a/b < 2", lambda a, b: -1 <= Fr(a) / b < 2),
    ({"a": (-3, 3), "b": (-2, 2), "c": (-1, 2)}, "(a/b)*(c/2) + (b/c)**2 > 1",
     lambda a, b, c: (Fr(a) / b) * (Fr(c) / 2) + (Fr(b) / c) ** 2 > 1),
    ({"a": (-3, 3), "b": (-2, 2)}, "Eq(Abs(a)/b, Abs(a/b))", lambda a, b: abs(a) / Fr(b) == abs(Fr(a) / b)),
]


def _truth(box: dict[str, tuple[int, int]], f: Callable[..., object]) -> tuple[list[Point], list[Point], int]:
    names = list(box)
    true: list[Point] = []
    false: list[Point] = []
    undefined = 0
    for vals in itertools.product(*(range(lo, hi + 1) for lo, hi in box.values())):
        try:
            v = f(*vals)
        except ZeroDivisionError:
            undefined += 1
            continue
        (true if v else false).append(dict(zip(names, vals)))
    return true, false, undefined


def _at(p: Point) -> str:
    """The point as a condition: ``And(Eq(a, 1), Eq(b, -2))``."""
    return "And(" + ", ".join(f"Eq({k}, {v})" for k, v in p.items()) + ")"


def _any(points: list[Point]) -> str:
    return "Or(" + ", ".join(_at(p) for p in points) + ")" if points else "False"


@pytest.mark.parametrize(("box", "text", "f"), CASES, ids=[c[1] for c in CASES])
def test_guard_matches_fraction_brute_force(box: dict[str, tuple[int, int]], text: str, f: Callable[..., object]) -> None:
    true, false, undefined = _truth(box, f)
    assert true and (false or undefined), "a case that decides something"
    symbols = {k: {"min": lo, "max": hi} for k, (lo, hi) in box.items()}
    # Nowhere outside Python's true points (undefined points included) does the guard hold.
    out = run("solve", {"symbols": symbols, "guards": [text, f"Not({_any(true)})"]})
    assert out["status"] == "unsat", out.get("model")
    # It holds somewhere, and its model is one of Python's true points.
    got = run("solve", {"symbols": symbols, "guards": [text]})
    assert got["status"] == "sat" and got["model"] in true
    # On the defined points, its truth table is Python's (lazy And: each point's value read there).
    table = ", ".join([f"And({_at(p)}, {text})" for p in true] + [f"And({_at(p)}, Not({text}))" for p in false])
    ev = run("evaluate", {"symbols": symbols, "asserts": [_any(true + false)], "queries": [f"Or({table})"]})
    assert ev["queries"][0]["value"] is True, ev


INT_QUERIES: list[tuple[dict[str, tuple[int, int]], str, Callable[..., int]]] = [
    ({"a": (-4, 4), "b": (-2, 2), "c": (-2, 2)}, "floor(a/b + c/3)", lambda a, b, c: _floor(Fr(a) / b + Fr(c) / 3)),
    ({"a": (-5, 5), "b": (-3, 3)}, "ceiling(Max(a/2, b/(a + 1)) - Rational(1, 3))",
     lambda a, b: _ceil(max(Fr(a) / 2, Fr(b) / (a + 1)) - Fr(1, 3))),
    ({"a": (-5, 5), "b": (-3, 3)}, "floor(Piecewise((a/b, b > 0), (Abs(a)/3, True)))",
     lambda a, b: _floor(Fr(a) / b if b > 0 else Fr(abs(a)) / 3)),
]


@pytest.mark.parametrize(("box", "text", "f"), INT_QUERIES, ids=[c[1] for c in INT_QUERIES])
def test_rounded_rational_query_bounds(box: dict[str, tuple[int, int]], text: str, f: Callable[..., int]) -> None:
    values = []
    for vals in itertools.product(*(range(lo, hi + 1) for lo, hi in box.values())):
        try:
            values.append(f(*vals))
        except ZeroDivisionError:
            pass
    symbols = {k: {"min": lo, "max": hi} for k, (lo, hi) in box.items()}
    q = run("evaluate", {"symbols": symbols, "queries": [text]})["queries"][0]
    assert (q["min"], q["max"], q["exact"]) == (min(values), max(values), True)


@pytest.mark.parametrize("text", [
    "Mod(a/2, 3) >= 0", "(a/2) // 2 >= 1", "a // (b/2) >= 1", "Max(a/2, 1) // 2 >= 0",
    "Piecewise((a/2, a > 1), (1, True)) // 2 >= 0", "a**(b/2) > 1", "CeilToInt(a/2) > 0", "a/2",
])
def test_rational_used_as_integer_is_refused_with_its_position(text: str) -> None:
    with pytest.raises(UnsupportedError) as e:
        run("evaluate", {"symbols": {"a": {"min": 1, "max": 9}, "b": {"min": 1, "max": 9}}, "queries": [text]})
    assert "queries[0]" in str(e.value) and "offset" in str(e.value)
