"""PyTorch's functions of ``torch.utils._sympy.functions`` against PyTorch itself.

Each construct is built with PyTorch's own classes, printed with ``str()`` (what a guard holds),
read by symguard, and compared on a grid with negatives and zero: PyTorch's value (the sympy
expression with integers substituted), symguard's Python evaluation of the IR, and a z3 model
check of the exact encoding (the value is the only one the encoding allows). A zero divisor
raises in PyTorch; symguard's domain excludes the point. The float-exactness bound of
docs/pytorch-functions.md is pinned at its boundary without torch.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest
import z3
from hypothesis import given
from hypothesis import strategies as st
from pysmt.solvers.z3 import Z3Converter

from symguard.solver.ir.pyeval import evaluate, holds
from symguard.solver.ir.terms import Term
from symguard.solver.smt.encode import Encoding
from symguard.solver.syntax.sympy_reader import parse_sympy

GRID_A = [-9, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 9]
GRID_B = [-4, -3, -2, -1, 0, 1, 2, 3, 4]
Z3_A = [-7, -5, -2, -1, 0, 1, 3, 5, 6]  # the model check runs on a coarser grid
Z3_B = [-3, -2, -1, 0, 1, 2, 4]


# ---------------------------------------------------------------- the float bound, without torch

TWO53 = 2**53


def _trunc(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _exact(name: str, a: int, b: int) -> int:
    if name == "ceil":
        return -((-a) // b)
    if name == "floor":
        return a // b
    if name == "trunc":
        return _trunc(a, b)
    return round(Fraction(a, b))  # Python's round of a rational: half to even


_FLOAT = {"ceil": math.ceil, "floor": math.floor, "trunc": math.trunc, "round": round}
_DIVISORS = st.integers(1, TWO53) | st.integers(1, 64)


@given(st.integers(-TWO53, TWO53), _DIVISORS, st.booleans(), st.sampled_from(["ceil", "floor", "trunc"]))
def test_one_rounding_is_exact_up_to_2_53(a: int, b: int, neg: bool, name: str) -> None:
    # Python's a / b (correctly rounded) and C++'s double(a) / double(b) (both exact conversions)
    b = -b if neg else b
    assert _FLOAT[name](a / b) == _exact(name, a, b)
    assert _FLOAT[name](float(a) / float(b)) == _exact(name, a, b)


@given(st.integers(-TWO53 // 2, TWO53 // 2), _DIVISORS, st.booleans())
def test_round_half_to_even_is_exact_up_to_2_52(a: int, b: int, neg: bool) -> None:
    b = -b if neg else b
    assert round(a / b) == _exact("round", a, b)
    assert round(float(a) / float(b)) == _exact("round", a, b)


@pytest.mark.parametrize("name", ["ceil", "floor", "trunc", "round"])
def test_the_bounds_are_tight(name: str) -> None:
    # one past the bound, PyTorch's float division already differs from the exact quotient
    a = TWO53 + 1
    assert _FLOAT[name](a / 1) != _exact(name, a, 1)
    assert _FLOAT[name]((-a) / 1) != _exact(name, -a, 1)
    for a, b in ((TWO53, 1), (-TWO53, 1), (TWO53 - 1, 2), (TWO53 - 1, -TWO53), (1, TWO53)):
        if name != "round" or abs(a) <= TWO53 // 2:
            assert _FLOAT[name](a / b) == _exact(name, a, b), (a, b)
    # rounding to nearest just above 2**52 leaves a quotient's half: round is exact only below
    assert round(9007199254540993 / 5) != _exact("round", 9007199254540993, 5)
    # a tiny quotient underflows to 0.0 only for |b| beyond 2**1074 (far outside the bound)
    assert math.ceil(1 / 2**1075) == 0 != _exact("ceil", 1, 2**1075)


def test_symguard_reads_the_exact_quotient() -> None:
    env = {"a": TWO53 + 1, "b": 1}
    assert evaluate(parse_sympy("CeilToInt(IntTrueDiv(a, b))").term, env) == TWO53 + 1
    assert evaluate(parse_sympy("RoundToInt(IntTrueDiv(a, 2))").term, {"a": 5}) == 2
    assert evaluate(parse_sympy("RoundToInt(IntTrueDiv(a, 2))").term, {"a": -7}) == -4


# ---------------------------------------------------------------- a real model's guards

# torch.compile of a transformers MobileViT (random init, 2x3x72x80 input): the guards on the
# width symbol. Before PyTorch's functions were read, 12 of these 20 (61 of the model's 84) were
# unsupported and the problem was rejected whole.
MOBILEVIT_S4 = [
    "Ne((((s4 - 1)//2)) + 1, 1)", "Ne((((s4 - 1)//4)) + 1, 1)", "Ne((((s4 - 1)//8)) + 1, 1)",
    "Eq(2*CeilToInt(IntTrueDiv((((s4 - 1)//8)) + 1, 2)), (((s4 - 1)//8)) + 1)",
    "Ne(Max(1, 2*CeilToInt(IntTrueDiv((((s4 - 1)//8)) + 1, 2))), 2)",
    "Ne(CeilToInt(IntTrueDiv((((s4 - 1)//8)) + 1, 2)), 1)",
    "Ne(Mod(CeilToInt(IntTrueDiv((((s4 - 1)//8)) + 1, 2)), 2*CeilToInt(IntTrueDiv((((s4 - 1)//8)) + 1, 2))), 0)",
    "(((s4 - 1)//8)) + 1 >= 2",
] + [g for k in (16, 32) for g in (
    f"Ne((((s4 - 1)//{k})) + 1, 1)",
    f"Ne(2*CeilToInt(IntTrueDiv((((s4 - 1)//{k})) + 1, 2)), (((s4 - 1)//{k})) + 1)",
    f"Ne(Max(1, 2*CeilToInt(IntTrueDiv((((s4 - 1)//{k})) + 1, 2))), 2)",
    f"Ne(CeilToInt(IntTrueDiv((((s4 - 1)//{k})) + 1, 2)), 1)",
    f"Ne(Mod(CeilToInt(IntTrueDiv((((s4 - 1)//{k})) + 1, 2)), 2*CeilToInt(IntTrueDiv((((s4 - 1)//{k})) + 1, 2))), 0)",
    f"(((s4 - 1)//{k})) + 1 >= 2",
)]


def _as_pytorch_runs_it(text: str, s4: int) -> bool:
    """The guard as PyTorch's Python guard code computes it (math.ceil of a float division)."""
    env = {"CeilToInt": math.ceil, "IntTrueDiv": lambda a, b: a / b, "Eq": lambda a, b: a == b,
           "Ne": lambda a, b: a != b, "Max": max, "Mod": lambda a, b: a % b, "s4": s4}
    return bool(eval(text, {"__builtins__": {}}, env))  # our own literal test text


def test_mobilevit_guards_are_read_and_the_minimal_set_is_equivalent() -> None:
    from symguard.solver import run

    res = run("redundancy", {"symbols": {"s4": {"min": 2, "hint": 80}}, "guards": MOBILEVIT_S4})
    verdicts = [g["verdict"] for g in res["guards"]]
    assert res["status"] == "sat" and "unsupported" not in verdicts and "unknown" not in verdicts
    keep = {int(i[1:]) for i in res["minimal"]}
    assert len(keep) < len(MOBILEVIT_S4) // 3
    for s4 in range(2, 3000):  # PyTorch's own arithmetic: the kept guards decide exactly as all of them
        every = all(_as_pytorch_runs_it(g, s4) for g in MOBILEVIT_S4)
        kept = all(_as_pytorch_runs_it(g, s4) for i, g in enumerate(MOBILEVIT_S4) if i in keep)
        assert every == kept, s4
    assert _as_pytorch_runs_it(MOBILEVIT_S4[3], 80) and holds(parse_sympy(MOBILEVIT_S4[3]).as_condition(), {"s4": 80})


# ---------------------------------------------------------------- against PyTorch

torch = pytest.importorskip("torch")
F = pytest.importorskip("torch.utils._sympy.functions")
sympy = pytest.importorskip("sympy")

a_, b_ = sympy.symbols("a b", integer=True)


def _constructs() -> list[tuple[str, Any]]:
    """(id, PyTorch expression over a and b)."""
    ex: list[tuple[str, Any]] = []
    for rnd in (F.CeilToInt, F.FloorToInt, F.TruncToInt, F.RoundToInt):
        ex.append((f"{rnd.__name__}(IntTrueDiv)", rnd(F.IntTrueDiv(a_, b_))))
        ex.append((f"{rnd.__name__}(FloatTrueDiv)", rnd(F.FloatTrueDiv(F.ToFloat(a_), F.ToFloat(b_)))))
        ex.append((f"{rnd.__name__}(IntTrueDiv const)", rnd(F.IntTrueDiv(3 * a_ + 1, 4))))
        ex.append((f"{rnd.__name__}(ToFloat)", rnd(F.ToFloat(a_ - b_))))
        ex.append((f"{rnd.__name__}(int)", rnd(a_ * b_)))
        ex.append((f"{rnd.__name__}(Where)", rnd(F.Where(a_ > b_, F.IntTrueDiv(a_, 3), F.ToFloat(b_)))))
    ex.append(("vit", sympy.Eq(2 * F.CeilToInt(F.IntTrueDiv(F.FloorDiv(a_ - 1, 8) + 1, 2)),
                               F.FloorDiv(a_ - 1, 8) + 1)))
    for c in (0, 1, 5, 6, 255, -1, -6, -8, 0x2D):
        ex.append((f"and {c}", F.BitwiseFn_bitwise_and(a_, c)))
        ex.append((f"or {c}", F.BitwiseFn_bitwise_or(a_ + b_, c)))
        ex.append((f"xor {c}", F.BitwiseFn_bitwise_xor(a_, c)))
    ex.append(("and bool", F.BitwiseFn_bitwise_and(a_, sympy.Gt(b_, 0))))
    ex.append(("xor bool", F.BitwiseFn_bitwise_xor(sympy.Lt(a_, 2), b_)))
    for k in (0, 1, 3):
        ex.append((f"LShift {k}", F.LShift(a_ - b_, k)))
        ex.append((f"RShift {k}", F.RShift(a_ - b_, k)))
    ex.append(("Where", F.Where(sympy.Eq(a_, 0), b_, a_ * 2)))
    ex.append(("Where nested", F.Where(a_ > b_, F.Where(b_ > 0, a_, b_), 7)))
    ex.append(("Identity", 2 * F.Identity(a_ + b_)))
    ex.append(("PowByNatural", F.PowByNatural(a_, 3)))
    for args in ((a_, b_), (a_, b_, 1, a_), (a_, 2, b_, 1), (2, a_, b_, 2), (a_, b_, 2, 1), (b_, a_, a_, a_),
                 (a_, 3, 2, b_, 2, 1), (1, a_, b_, b_, 1, a_), (a_, b_, 2, 6, 2, 1)):
        ex.append((f"dense{len(args) // 2} {args}", F.IsNonOverlappingAndDenseIndicator(*args)))
    return ex


CONSTRUCTS = _constructs()


def _torch_value(expr: Any, a: int, b: int) -> int | bool | None:
    """PyTorch's own value at (a, b); None where it raises (a zero divisor)."""
    try:
        v = expr.subs({a_: a, b_: b}).replace(lambda e: isinstance(e, F.Identity), lambda e: e.args[0])
    except ZeroDivisionError:
        return None
    if v in (sympy.true, sympy.false):
        return bool(v)
    if v.is_Boolean:
        raise AssertionError(f"{expr} at {(a, b)} did not evaluate: {v}")
    if not v.is_Integer:
        raise AssertionError(f"{expr} at {(a, b)} is not an integer: {v!r}")
    return int(v)


def _read(expr: Any) -> tuple[str, Term, Term]:
    text = str(expr)
    p = parse_sympy(text)
    return text, p.term, p.domain


def test_every_construct_prints_as_symguard_reads_it() -> None:
    for name, expr in CONSTRUCTS:
        text = str(expr)
        assert text and parse_sympy(text).term is not None, name


@pytest.mark.parametrize(("name", "expr"), CONSTRUCTS, ids=[n for n, _ in CONSTRUCTS])
def test_python_evaluation_matches_pytorch(name: str, expr: Any) -> None:
    text, term, domain = _read(expr)
    for a in GRID_A:
        for b in GRID_B:
            want = _torch_value(expr, a, b)
            env = {"a": a, "b": b}
            if want is None:
                assert not holds(domain, env), (text, a, b)
                continue
            assert holds(domain, env), (text, a, b)
            got = evaluate(term, env)
            assert got == want and isinstance(got, bool) == isinstance(want, bool), (text, a, b, got, want)


@pytest.mark.parametrize(("name", "expr"), CONSTRUCTS, ids=[n for n, _ in CONSTRUCTS])
def test_z3_encoding_matches_pytorch(name: str, expr: Any) -> None:
    # one solver per construct; each grid point pins (a, b) through assumptions
    text, term, domain = _read(expr)
    enc = Encoding()
    f, dom = enc.formula(term), enc.formula(domain)
    conv = Z3Converter(enc.env, z3.Context())
    s = z3.Solver(ctx=conv.ctx)
    for d in enc.definitions:
        s.add(conv.convert(d))
    zf, zdom = conv.convert(f), conv.convert(dom)
    za, zb = conv.convert(enc.symbol("a")), conv.convert(enc.symbol("b"))
    for a in Z3_A:
        for b in Z3_B:
            want = _torch_value(expr, a, b)
            pin = [za == a, zb == b, zdom]
            if want is None:
                assert s.check(*pin) == z3.unsat, (text, a, b)
                continue
            zwant = z3.BoolVal(want, conv.ctx) if isinstance(want, bool) else z3.IntVal(want, conv.ctx)
            assert s.check(*pin, zf == zwant) == z3.sat, (text, a, b)
            assert s.check(*pin, zf != zwant) == z3.unsat, (text, a, b)


# ---------------------------------------------------------------- what stays unsupported

UNSUPPORTED: list[Callable[[], Any]] = [
    lambda: F.OpaqueUnaryFn_sqrt(a_) > 2,
    lambda: F.OpaqueUnaryFn_log2(F.ToFloat(a_)) > 2,
    lambda: F.FloatPow(F.ToFloat(a_), F.ToFloat(b_)) > 2,
    lambda: F.BitwiseFn_bitwise_and(a_, b_) > 0,
    lambda: F.LShift(a_, b_) > 0,
    lambda: F.RShift(a_, b_) > 0,
    lambda: F.PowByNatural(2, b_) > 0,
    lambda: F.IntTrueDiv(a_, 2) > F.IntTrueDiv(b_, 3),
    lambda: sympy.Ge(F.ToFloat(a_), b_),
    lambda: sympy.Lt(F.IntTrueDiv(a_, 3), b_),  # against a symbol (a literal is read: test_sympy_reader_float)
    lambda: F.CeilToInt(F.FloatTrueDiv(F.IntTrueDiv(a_, 2), F.ToFloat(b_))) > 0,
    lambda: F.TruncToFloat(F.ToFloat(a_)) > 0,
    lambda: F.RoundDecimal(F.ToFloat(a_), 2) > 0,
    lambda: F.IsNonOverlappingAndDenseIndicator(*([a_] * 10)) > 0,
]


@pytest.mark.parametrize("build", UNSUPPORTED)
def test_the_rest_is_unsupported_per_guard(build: Callable[[], Any]) -> None:
    from symguard.solver import run

    text = str(build())
    res = run("redundancy", {"guards": [text, "a >= 2"], "options": {"on_unsupported": "skip"}})
    verdicts = {g["id"]: g["verdict"] for g in res["guards"]}
    assert verdicts["g0"] == "unsupported", text
    assert "g0" in res["minimal"] and res["warnings"]
