"""docs/problem-format.md §1.2 through the whole pipeline: parse → encode → z3 model, compared with Python itself.

Each grid point is one ``solve`` problem with the operands pinned (``min == max``) and one free,
unbounded result symbol per construct (``Eq(r_k, expr_k)``): the model must give Python's value.
A zero divisor makes the construct's problem unsat (docs/problem-format.md §1.2: a guard that divides by zero cannot pass).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import pytest

from symguard.solver import run

GRID_A = [-7, -6, -5, -3, -1, 0, 1, 2, 5, 6, 7]
GRID_B = [-4, -3, -2, -1, 0, 1, 2, 3, 4]


def _dense2(a: int, b: int) -> int:
    """PyTorch's is-non-overlapping-and-dense of sizes (a, b), strides (1, a)."""
    pairs = sorted([(a, 1), (b, a)], key=lambda p: p[1])
    expected = 1
    for length, stride in pairs:
        if length != 1:
            if stride != expected:
                return 0
            expected *= length
    return 1


def _trunc(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


# (sympy text over a and b, Python reference); each divides by b
DIVIDING: list[tuple[str, Callable[[int, int], int]]] = [
    ("a // b", lambda a, b: a // b),
    ("FloorDiv(a, b)", lambda a, b: a // b),
    ("floor(a/b)", lambda a, b: a // b),
    ("CleanDiv(a, b)", lambda a, b: a // b),
    ("a % b", lambda a, b: a % b),
    ("Mod(a, b)", lambda a, b: a % b),
    ("PythonMod(a, b)", lambda a, b: a % b),
    ("CeilDiv(a, b)", lambda a, b: -((-a) // b)),
    ("ceiling(a/b)", lambda a, b: -((-a) // b)),
    ("TruncDiv(a, b)", _trunc),
    ("TruncMod(a, b)", lambda a, b: int(math.fmod(a, b))),  # C's % (fmod is exact on these ints)
    ("ModularIndexing(a, b, 3)", lambda a, b: (a // b) % 3),
    ("ModularIndexing(a, 2, b)", lambda a, b: (a // 2) % b),
    ("ModularIndexing(a + 7, b, b)", lambda a, b: ((a + 7) // b) % b),
    ("(2*a - 1) // b + a % b", lambda a, b: (2 * a - 1) // b + a % b),
    ("FloorDiv(a*a, b)", lambda a, b: (a * a) // b),
    ("Mod(a, -b)", lambda a, b: a % -b),
    # PyTorch's math.ceil/floor/trunc/round(a / b) (exact while |a|, |b| <= 2**53)
    ("CeilToInt(IntTrueDiv(a, b))", lambda a, b: -((-a) // b)),
    ("FloorToInt(IntTrueDiv(a, b))", lambda a, b: a // b),
    ("TruncToInt(IntTrueDiv(a, b))", _trunc),
    ("RoundToInt(IntTrueDiv(a, b))", lambda a, b: round(Fraction(a, b))),
    ("RoundToInt(FloatTrueDiv(ToFloat(2*a + 1), ToFloat(2*b)))", lambda a, b: round(Fraction(2 * a + 1, 2 * b))),
    ("CeilToInt(FloatTrueDiv(ToFloat(a), ToFloat(b)))", lambda a, b: -((-a) // b)),
    ("RoundToInt(-IntTrueDiv(a, b)) + CeilToInt(Where(a > 0, IntTrueDiv(a, 2*b), ToFloat(a)))",
     lambda a, b: round(Fraction(-a, b)) + (-((-a) // (2 * b)) if a > 0 else a)),
]

# integer constructs that do not divide
INTEGER: list[tuple[str, Callable[[int, int], int]]] = [
    ("Max(a, b)", max),
    ("Min(a, b)", min),
    ("Max(a, b, 1 - a, -3)", lambda a, b: max(a, b, 1 - a, -3)),
    ("Min(a, b, 1 - a, -3)", lambda a, b: min(a, b, 1 - a, -3)),
    ("Abs(a - b)", lambda a, b: abs(a - b)),
    ("-a + 3*b - 2", lambda a, b: -a + 3 * b - 2),
    ("a*b", lambda a, b: a * b),
    ("a**2", lambda a, b: a**2),
    ("a**3 - b**0", lambda a, b: a**3 - 1),
    ("PowByNatural(a, 3)", lambda a, b: a**3),
    ("pow_by_natural(b, 2)", lambda a, b: b**2),
    ("PowByNatural(a - b, 0)", lambda a, b: 1),
    ("Piecewise((a, a > b), (b, True))", max),
    ("Piecewise((1, Eq(a, 0)), (2, b < 0), (3, True))",
     lambda a, b: 1 if a == 0 else 2 if b < 0 else 3),
    ("Piecewise((a*b, a >= 0), (-b, True)) + 1", lambda a, b: (a * b if a >= 0 else -b) + 1),
    # PyTorch's integer functions (bitwise ops with a constant, literal shifts, Where)
    ("BitwiseFn_bitwise_and(a, 6) + BitwiseFn_bitwise_and(b, -4)", lambda a, b: (a & 6) + (b & -4)),
    ("BitwiseFn_bitwise_or(a - b, 5)", lambda a, b: (a - b) | 5),
    ("BitwiseFn_bitwise_xor(a, -3) - (b ^ 2)", lambda a, b: (a ^ -3) - (b ^ 2)),
    ("~a + (b & 1)", lambda a, b: ~a + (b & 1)),
    ("LShift(a, 2) + RShift(b, 1)", lambda a, b: (a << 2) + (b >> 1)),
    ("(a >> 2) - (b << 3)", lambda a, b: (a >> 2) - (b << 3)),
    ("Where(a > b, a - b, 2*b)", lambda a, b: a - b if a > b else 2 * b),
    ("CeilToInt(a*b) + FloorToInt(ToFloat(b)) + RoundToInt(a)", lambda a, b: a * b + b + a),
    ("IsNonOverlappingAndDenseIndicator(a, b, 1, a)", _dense2),
]

# conditions
BOOLEAN: list[tuple[str, Callable[[int, int], bool]]] = [
    ("a < b", lambda a, b: a < b),
    ("a <= b", lambda a, b: a <= b),
    ("a > b", lambda a, b: a > b),
    ("a >= b", lambda a, b: a >= b),
    ("a == b", lambda a, b: a == b),
    ("a != b", lambda a, b: a != b),
    ("Eq(a, b)", lambda a, b: a == b),
    ("Ne(a, b)", lambda a, b: a != b),
    ("Lt(a, b)", lambda a, b: a < b),
    ("Le(a, b)", lambda a, b: a <= b),
    ("Gt(a, b)", lambda a, b: a > b),
    ("Ge(a, b)", lambda a, b: a >= b),
    ("-3 < a <= b", lambda a, b: -3 < a <= b),
    ("a < b < 2 != a", lambda a, b: a < b < 2 != a),
    ("(a > 0) & (b > 0)", lambda a, b: a > 0 and b > 0),
    ("(a > 0) | (b > 0)", lambda a, b: a > 0 or b > 0),
    ("~(a > 0)", lambda a, b: not a > 0),
    ("a > 0 and b > 0", lambda a, b: a > 0 and b > 0),
    ("a > 0 or not b > 0", lambda a, b: a > 0 or not b > 0),
    ("And(a > 0, b > 0, a < b)", lambda a, b: 0 < a < b and b > 0),
    ("Or(a > 2, b > 2, Eq(a, b))", lambda a, b: a > 2 or b > 2 or a == b),
    ("Not(Eq(a, b))", lambda a, b: a != b),
    ("Implies(a > 0, b > 0)", lambda a, b: a <= 0 or b > 0),
    ("Eq(a > 0, b > 0)", lambda a, b: (a > 0) == (b > 0)),
    ("Ne(a > 0, b > 0)", lambda a, b: (a > 0) != (b > 0)),
    ("Eq(a > 0, True)", lambda a, b: a > 0),
    ("Ne(b < 0, False)", lambda a, b: b < 0),
    ("Piecewise((a > 0, b > 0), (b < -2, True))", lambda a, b: a > 0 if b > 0 else b < -2),
]

# a Piecewise without a True default is only defined where some condition holds
PARTIAL: list[tuple[str, Callable[[int, int], int | None]]] = [
    ("Piecewise((a, a > 0), (b, b > 0))", lambda a, b: a if a > 0 else b if b > 0 else None),
    ("Piecewise((1, Eq(a, b)))", lambda a, b: 1 if a == b else None),
]


def _pinned(a: int, b: int, results: int) -> dict[str, dict[str, int | None]]:
    sy: dict[str, dict[str, int | None]] = {"a": {"min": a, "max": a}, "b": {"min": b, "max": b}}
    for k in range(results):
        sy[f"r{k}"] = {"min": None}
    return sy


def _solve(a: int, b: int, exprs: list[str]) -> dict:
    asserts = [f"Eq(r{k}, {e})" for k, e in enumerate(exprs)]
    return run("solve", {"symbols": _pinned(a, b, len(exprs)), "asserts": asserts,
                         "options": {"timeout_ms": 20_000}})


@pytest.mark.parametrize("a", GRID_A)
@pytest.mark.parametrize("b", [b for b in GRID_B if b != 0])
def test_dividing_constructs_match_python(a: int, b: int) -> None:
    res = _solve(a, b, [e for e, _ in DIVIDING])
    assert res["status"] == "sat"
    got = [res["model"][f"r{k}"] for k in range(len(DIVIDING))]
    assert got == [f(a, b) for _, f in DIVIDING]


@pytest.mark.parametrize(("expr", "_f"), DIVIDING, ids=[e for e, _ in DIVIDING])
def test_zero_divisor_cannot_pass(expr: str, _f: Callable[[int, int], int]) -> None:
    for a in (-3, 0, 5):
        assert _solve(a, 0, [expr])["status"] == "unsat"


@pytest.mark.parametrize("a", GRID_A)
@pytest.mark.parametrize("b", GRID_B)
def test_integer_constructs_match_python(a: int, b: int) -> None:
    res = _solve(a, b, [e for e, _ in INTEGER])
    assert res["status"] == "sat"
    assert [res["model"][f"r{k}"] for k in range(len(INTEGER))] == [f(a, b) for _, f in INTEGER]


@pytest.mark.parametrize("a", GRID_A)
@pytest.mark.parametrize("b", GRID_B)
def test_conditions_match_python(a: int, b: int) -> None:
    # as a 0/1 value through Piecewise, and as asserts of the expected truth (must be sat)
    exprs = [f"Piecewise((1, {e}), (0, True))" for e, _ in BOOLEAN]
    res = _solve(a, b, exprs)
    assert res["status"] == "sat"
    assert [res["model"][f"r{k}"] for k in range(len(BOOLEAN))] == [int(f(a, b)) for _, f in BOOLEAN]
    expected = [e if f(a, b) else f"Not({e})" for e, f in BOOLEAN]
    assert run("solve", {"symbols": _pinned(a, b, 0), "asserts": expected})["status"] == "sat"


@pytest.mark.parametrize(("expr", "f"), PARTIAL, ids=[e for e, _ in PARTIAL])
def test_piecewise_without_default_is_defined_where_a_branch_holds(
        expr: str, f: Callable[[int, int], int | None]) -> None:
    for a in (-2, 0, 3):
        for b in (-1, 0, 3):
            res = _solve(a, b, [expr])
            want = f(a, b)
            if want is None:
                assert res["status"] == "unsat", (a, b)
            else:
                assert res["status"] == "sat" and res["model"]["r0"] == want, (a, b)


def test_big_integers_are_exact() -> None:
    big = 10**40 + 7
    res = run("solve", {"symbols": {"a": {"min": big, "max": big}, "r": {"min": None}, "q": {"min": None}},
                        "asserts": ["Eq(r, a % -97)", "Eq(q, FloorDiv(-a, 13))"]})
    assert res["model"]["r"] == big % -97 and res["model"]["q"] == (-big) // 13


def test_floor_div_identity_holds_for_free_operands() -> None:
    # no point with b != 0 violates a == b*(a//b) + a%b, and 0 <= a%b < b or b < a%b <= 0
    p = {"symbols": {"a": {"min": -50, "max": 50}, "b": {"min": -9, "max": 9}},
         "asserts": ["Ne(b, 0)"],
         "guards": [("Ne(a, b*(a // b) + a % b) | ((b > 0) & ((a % b < 0) | (a % b >= b)))"
                    " | ((b < 0) & ((a % b > 0) | (a % b <= b)))")]}
    assert run("solve", p)["status"] == "unsat"
    assert math.floor(-7 / 2) == -7 // 2  # the reference itself


# exact rationals: '/' compared (PyTorch's export solver prints s/2 >= 2, Eq(s0/3, s1)): issue 33
def _q(f: Callable[[Fraction, Fraction], object]) -> Callable[[int, int], object]:
    def at(a: int, b: int) -> object:
        try:
            return f(Fraction(a), Fraction(b))
        except ZeroDivisionError:
            return None
    return at


RATIONAL: list[tuple[str, Callable[[int, int], object]]] = [
    ("a/b >= 2", _q(lambda a, b: a / b >= 2)),
    ("Ne(a/2, 1)", _q(lambda a, b: a / 2 != 1)),
    ("3*a/2 < 4", _q(lambda a, b: 3 * a / 2 < 4)),
    ("a/(5*b) <= 1", _q(lambda a, b: a / (5 * b) <= 1)),
    ("Eq(a/3, b)", _q(lambda a, b: a / 3 == b)),
    ("a/b + b/2 > 1", _q(lambda a, b: a / b + b / 2 > 1)),
    ("(a/2)/b < 1", _q(lambda a, b: (a / 2) / b < 1)),
    ("a/(b/2) >= -1", _q(lambda a, b: a / (b / 2) >= -1)),
    ("Lt(-a/b, (a - 1)/3)", _q(lambda a, b: -a / b < (a - 1) / 3)),
    ("-2 < a/b <= (b/3)**2", _q(lambda a, b: -2 < a / b <= (b / 3) ** 2)),
    ("floor((a/2 + 1)/b)", _q(lambda a, b: math.floor((a / 2 + 1) / b))),
    ("ceiling(a/3 - b/2)", _q(lambda a, b: math.ceil(a / 3 - b / 2))),
]


# lazy: Python never evaluates a branch not taken or an operand after a short circuit: issue 31
def _py(f: Callable[[int, int], object]) -> Callable[[int, int], object]:
    def at(a: int, b: int) -> object:
        try:
            return f(a, b)
        except ZeroDivisionError:
            return None
    return at


LAZY: list[tuple[str, Callable[[int, int], object]]] = [
    ("Piecewise((a//b, b > 1), (a//2, True))", _py(lambda a, b: a // b if b > 1 else a // 2)),
    ("Where(Ne(b, 0), a % b, -1)", _py(lambda a, b: a % b if b != 0 else -1)),
    ("Piecewise((a//b, b < -1), (a, a > 0))", _py(lambda a, b: a // b if b < -1 else a if a > 0 else 1 // 0)),
    ("And(Ne(b, 0), a//b >= 1)", _py(lambda a, b: b != 0 and a // b >= 1)),
    ("And(a//b >= 1, Ne(b, 0))", _py(lambda a, b: a // b >= 1 and b != 0)),
    ("Or(Eq(b, 0), a//b > 1)", _py(lambda a, b: b == 0 or a // b > 1)),
    ("(b > 0) & (a % b > 0)", _py(lambda a, b: b > 0 and a % b > 0)),
    ("(b >= 0) | (Mod(a, b) > 0) | (a > 2)", _py(lambda a, b: b >= 0 or a % b > 0 or a > 2)),
    ("Implies(Ne(b, 0), Mod(a, b) < 2)", _py(lambda a, b: b == 0 or a % b < 2)),
    ("Not(And(Ne(b, 0), a//b >= 1))", _py(lambda a, b: not (b != 0 and a // b >= 1))),
    ("Max(Piecewise((a//b, b > 0), (0, True)), 1)", _py(lambda a, b: max(a // b if b > 0 else 0, 1))),
]


@pytest.mark.parametrize("a", GRID_A)
@pytest.mark.parametrize("b", GRID_B)
def test_rationals_and_lazy_order_match_python(a: int, b: int) -> None:
    """Through ``evaluate`` at a pinned point: the value Python (over ``Fraction`` for ``/``)
    gives, and no value (null) exactly where Python's own evaluation divides by zero."""
    cases = RATIONAL + LAZY
    res = run("evaluate", {"symbols": _pinned(a, b, 0), "queries": [e for e, _ in cases],
                           "options": {"timeout_ms": 20_000}})
    assert res["status"] == "sat"
    got = [q["value"] for q in res["queries"]]
    assert got == [f(a, b) for _, f in cases], [(e, g, f(a, b)) for (e, f), g in zip(cases, got) if g != f(a, b)]


def test_a_divisor_in_a_branch_not_taken_does_not_imply_it_is_non_zero() -> None:
    """The guard never divides by zero at k = 0 (the branch taken is n//2): Ne(k, 0) is required."""
    doc = {"symbols": {"k": {"min": None}, "n": {"min": None}},
           "guards": ["Ne(k, 0)", "Piecewise((n//k, k > 5), (n//2, True)) >= 1"]}
    res = run("redundancy", doc)
    assert [g["verdict"] for g in res["guards"]] == ["required", "required"]
    doc["guards"] = ["Ne(k, 0)", "n//k + Piecewise((n//k, k > 5), (n//2, True)) >= 1"]  # divides at every k
    assert run("redundancy", doc)["guards"][0]["verdict"] == "redundant"
