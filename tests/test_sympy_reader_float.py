"""A float PyTorch computes with one rounding, compared with a literal (``IntTrueDiv(a, b) >= 1.0``,
``Max(1.0, IntTrueDiv(a, b)) > 2``, ``Eq(ToFloat(a), 0.5)``): symguard's reading, evaluated by its
own evaluator, is Python's evaluation of the code PyTorch prints, at every point, ties, subnormals
and overflow included; a redundancy answer over such guards is right by brute force."""

from __future__ import annotations

import math
import sys
from fractions import Fraction
from itertools import product
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symguard.solver import run
from symguard.solver.errors import UnsupportedError
from symguard.solver.ir.pyeval import evaluate
from symguard.solver.ir.terms import iter_dag
from symguard.solver.syntax import float_compare as fc
from symguard.solver.syntax.sympy_reader import parse_sympy

DBL_MAX = sys.float_info.max
OPS = ["<", "<=", ">", ">=", "==", "!="]
CALLS = {"<": "Lt", "<=": "Le", ">": "Gt", ">=": "Ge", "==": "Eq", "!=": "Ne"}
PY = {"max": max, "min": min, "abs": abs, "float": float, "__builtins__": {}}


def python(code: str, env: dict[str, int]) -> bool | None:
    """Python's value of the printed guard; None where it raises (the guard fails)."""
    try:
        return bool(eval(code, PY, dict(env)))
    except (ZeroDivisionError, OverflowError):
        return None


def symguard(text: str, env: dict[str, int]) -> bool | None:
    """symguard's reading: None outside the domain, else the term's value."""
    p = parse_sympy(text)
    if not evaluate(p.domain, env):
        return None
    return bool(evaluate(p.term, env))


# ------------------------------------------------------------------ the rounding boundaries, pinned

BASE = [0.0, 0.5, 1.0, 1.5, 0.3, 2 / 3, 3.0, 2.0**53, 2.0**53 + 2, 2.0**-1022, 5e-324, 1e-310, 1e308, DBL_MAX, 7e22]
NEAR = sorted({v for b in BASE for s in (1.0, -1.0) for v in (s * b, math.nextafter(s * b, math.inf),
                                                               math.nextafter(s * b, -math.inf))}
              - {math.inf, -math.inf})


def _midpoints(c: float) -> list[Fraction]:
    """The rationals where rounding near ``c`` changes: midpoints to c's neighbours, and c."""
    out = [Fraction(c)]
    for d in (c, math.nextafter(c, math.inf), math.nextafter(c, -math.inf)):
        for e in (math.nextafter(d, math.inf), math.nextafter(d, -math.inf)):
            if math.isfinite(d) and math.isfinite(e):
                out.append((Fraction(d) + Fraction(e)) / 2)
    return out


@pytest.mark.parametrize("c", NEAR + [-0.0])
def test_ties_and_neighbours_round_as_python_does(c: float) -> None:
    """``a / b`` exactly at each midpoint near ``c`` (round half to even decides), one above and
    one below, both signs of the divisor: the reading agrees with Python for every operator."""
    lit = repr(c)
    texts = {op: f"IntTrueDiv(a, b) {op} {lit}" for op in OPS}
    texts |= {"r" + op: f"{lit} {op} IntTrueDiv(a, b)" for op in OPS}
    for m in _midpoints(c):
        for k, s in product((-1, 0, 1), (1, -1, 3)):
            a, b = s * (m.numerator * 4 + k), s * m.denominator * 4
            env = {"a": a, "b": b}
            for key, text in texts.items():
                op = key.lstrip("r")
                code = f"a / b {op} {lit}" if key == op else f"{lit} {op} a / b"
                assert symguard(text, env) == python(code, env), (text, a, b)


def test_overflow_fails_the_guard_like_a_zero_divisor() -> None:
    big = fc.OVERFLOW
    for a, b, ok in [(big - 1, 1, True), (big, 1, False), (2 * big - 1, 2, True), (2 * big, 2, False),
                     (-big, 1, False), (big * 3, 3, False), (big * 3 - 1, 3, True), (1, 0, False)]:
        assert python("a / b >= 1.0", {"a": a, "b": b}) is (True if ok else None)
        assert symguard("IntTrueDiv(a, b) >= 1.0", {"a": a, "b": b}) is (True if ok else None)
    assert symguard("ToFloat(a) < 0.5", {"a": -big}) is None and symguard("ToFloat(a) < 0.5", {"a": 1 - big})
    # an infinite literal (1e309 is Python's inf) is above every finite double
    assert symguard("IntTrueDiv(a, b) < 1e309", {"a": big - 1, "b": 1}) is True
    assert symguard("IntTrueDiv(a, b) == -1e309", {"a": -big + 1, "b": 1}) is False


def test_what_real_sets_print_is_read_as_python_runs_it() -> None:
    """The guards of ``max(k / q, 1.0)`` in HF relative-position code, as ``str()`` prints them."""
    for text, code in [("(IntTrueDiv(s65, s99)) < 1.0", "s65 / s99 < 1.0"),
                       ("(IntTrueDiv(s99, s65)) >= 1.0", "s99 / s65 >= 1.0"),
                       ("(IntTrueDiv(2*s99, s65)) >= 1.0", "(2*s99) / s65 >= 1.0"),
                       ("Eq(IntTrueDiv(s99, s65), 1.5)", "s99 / s65 == 1.5"),
                       ("Ne(IntTrueDiv(s99, s65), 0.29999999999999999)", "s99 / s65 != 0.29999999999999999"),
                       ("ToFloat(s99) > 2.5", "float(s99) > 2.5"),
                       ("Max(1.0, IntTrueDiv(s99, s65)) > 1.0", "max(1.0, s99 / s65) > 1.0")]:
        for v, w in product([1, 2, 3, 5, 7, 2**53 - 1, 2**53 + 1, 2**54, 2**63 - 1], repeat=2):
            env = {"s65": v, "s99": w}
            assert symguard(text, env) == python(code, env), (text, env)
    # a literal divisor multiplies out into a plain bound
    assert str(parse_sympy("IntTrueDiv(s0, 2) >= 1.0").term) == str(parse_sympy("s0 >= 2").term)


def test_pytorchs_own_int_true_division_is_pythons() -> None:
    """The semantics the reader models: PyTorch's ``IntTrueDiv`` of two integers is Python's
    correctly rounded ``a / b`` (it folds to ``sympy.Float(a / b)``), any size of ints."""
    sympy = pytest.importorskip("sympy")
    pytest.importorskip("torch")
    from torch.utils._sympy.functions import IntTrueDiv

    for a, b in [(1, 3), (2**54 - 1, 2**54), (-(2**60) - 1, 7), (10**30 + 1, 10**12), (3, 2**1076)]:
        assert float(IntTrueDiv(sympy.Integer(a), sympy.Integer(b))) == a / b


# ------------------------------------------------------------------ property: any guard of the grammar

_INTS = st.one_of(
    st.integers(-12, 12),
    st.integers(-(2**70), 2**70),
    st.sampled_from([2**53 - 1, 2**53, 2**53 + 1, 2**54 - 1, 2**54, 2**63 - 1, -(2**63), 2**1075, 3 * 2**1074,
                     fc.OVERFLOW - 1, fc.OVERFLOW, 2**1100, -(2**1100)]),
)
_FLOATS = st.one_of(st.sampled_from(NEAR + [-0.0]), st.floats(allow_nan=False, allow_infinity=False),
                    st.integers(-8, 8).map(float))
_LITS = st.one_of(_FLOATS.map(repr), st.integers(-3, 3).map(str), st.just("1e309"), st.just("-1e309"),
                  st.just(str(2**53 + 1)), st.just(str(10**400)))
_INT_EXPRS = st.sampled_from([("a", "a"), ("b", "b"), ("2*a", "(2*a)"), ("a + b", "(a + b)"), ("-b", "(-b)"),
                              ("a*b", "(a*b)"), ("3", "3"), ("0", "0")])


def _reals(depth: int) -> st.SearchStrategy[tuple[str, str]]:
    """(symguard text, Python code) of a float value."""
    leaf = st.one_of(
        st.tuples(_INT_EXPRS, _INT_EXPRS).map(lambda p: (f"IntTrueDiv({p[0][0]}, {p[1][0]})",
                                                         f"({p[0][1]} / {p[1][1]})")),
        _INT_EXPRS.map(lambda x: (f"ToFloat({x[0]})", f"float({x[1]})")),
    )
    if depth == 0:
        return leaf
    sub = _reals(depth - 1)
    other = st.one_of(sub, _INT_EXPRS, _FLOATS.map(lambda v: (repr(v), repr(v))))
    cond = st.sampled_from([("a > b", "a > b"), ("Eq(b, 0)", "b == 0"), ("a >= 2", "a >= 2")])
    return st.one_of(
        leaf,
        st.tuples(st.sampled_from(["Max", "Min"]), sub, other).map(
            lambda p: (f"{p[0]}({p[1][0]}, {p[2][0]})", f"{p[0].lower()}({p[1][1]}, {p[2][1]})")),
        sub.map(lambda r: (f"Abs({r[0]})", f"abs({r[1]})")),
        sub.map(lambda r: (f"-{r[0]}", f"(-{r[1]})")),
        sub.map(lambda r: (f"Identity({r[0]})", f"({r[1]})")),
        st.tuples(cond, sub, other).map(lambda p: (f"Where({p[0][0]}, {p[1][0]}, {p[2][0]})",
                                                   f"({p[1][1]} if {p[0][1]} else {p[2][1]})")),
    )


@st.composite
def float_guards(draw: st.DrawFn) -> tuple[str, str]:
    r, code = draw(_reals(2))
    lit = draw(_LITS)
    op = draw(st.sampled_from(OPS))
    form = draw(st.sampled_from(["left", "right", "call", "chain"]))
    if form == "left":
        return f"{r} {op} {lit}", f"{code} {op} {lit}"
    if form == "right":
        return f"{lit} {op} {r}", f"{lit} {op} {code}"
    if form == "call":
        return f"{CALLS[op]}({r}, {lit})", f"({code}) {op} ({lit})"
    lit2, op2 = draw(_LITS), draw(st.sampled_from(OPS))
    return f"{lit} {op} {r} {op2} {lit2}", f"{lit} {op} {code} {op2} {lit2}"


@settings(max_examples=500, deadline=None)
@given(float_guards(), _INTS, _INTS)
def test_reading_is_pythons_evaluation(guard: tuple[str, str], a: int, b: int) -> None:
    text, code = guard
    env = {"a": a, "b": b}
    assert symguard(text, env) == python(code, env), (text, code, env)


@settings(max_examples=300, deadline=None)
@given(_INT_EXPRS, _FLOATS, st.sampled_from(OPS), _INTS, _INTS)
def test_an_integer_against_a_float_literal_is_exact(x: tuple[str, str], c: float, op: str, a: int, b: int) -> None:
    """Python compares an int with a float exactly (no rounding of the int)."""
    env = {"a": a, "b": b}
    assert symguard(f"{x[0]} {op} {c!r}", env) == python(f"{x[1]} {op} {c!r}", env)


@pytest.mark.parametrize(("text", "offset"), [
    ("IntTrueDiv(a, b) >= IntTrueDiv(b, a)", 0),  # two roundings
    ("ToFloat(a) + ToFloat(b) > 2.0", 0),
    ("Max(1.0, IntTrueDiv(a, b)) >= b", 0),  # a symbolic bound
    ("2.5 < Min(ToFloat(a), 1.5) < a", 6),
    ("Eq(FloatTrueDiv(ToFloat(a), ToFloat(b)), 1.0)", 3),
    ("Max(1e309, IntTrueDiv(a, b)) > 1.0", 4),
])
def test_more_than_one_rounding_stays_unsupported(text: str, offset: int) -> None:
    with pytest.raises(UnsupportedError) as e:
        parse_sympy(text)
    assert e.value.offset == offset, (text, e.value)


# ------------------------------------------------------------------ end to end: redundancy by brute force

BOX = range(-5, 7)
POOL = [("IntTrueDiv(a, b) >= 1.0", "a / b >= 1.0"), ("a >= b", "a >= b"),
        ("IntTrueDiv(2*a, b) < 1.0", "(2*a) / b < 1.0"), ("Max(1.0, IntTrueDiv(b, a)) > 1.5", "max(1.0, b / a) > 1.5"),
        ("Eq(IntTrueDiv(a, b), 0.5)", "a / b == 0.5"), ("Ne(IntTrueDiv(a, b), 0.3)", "a / b != 0.3"),
        ("ToFloat(a) > 2.5", "float(a) > 2.5"), ("Min(IntTrueDiv(a, b), 2) <= 1.0", "min(a / b, 2) <= 1.0"),
        ("Ne(b, 0)", "b != 0"), ("b > 0", "b > 0"), ("a > 2", "a > 2"), ("2*a >= b", "2*a >= b"),
        ("Abs(IntTrueDiv(a, b)) < 2", "abs(a / b) < 2"), ("Where(a > 3, IntTrueDiv(a, b), 0.5) < 1.0",
                                                          "(a / b if a > 3 else 0.5) < 1.0")]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(POOL), min_size=2, max_size=6, unique=True))
def test_redundancy_over_float_guards_is_right_by_brute_force(guards: list[tuple[str, str]]) -> None:
    doc: dict[str, Any] = {"symbols": {"a": {"min": BOX[0], "max": BOX[-1]}, "b": {"min": BOX[0], "max": BOX[-1]}},
                           "guards": [{"id": f"g{i}", "expr": t} for i, (t, _) in enumerate(guards)]}
    ans = run("redundancy", doc)
    codes = {f"g{i}": c for i, (_, c) in enumerate(guards)}
    passes = {(a, b): {g: python(c, {"a": a, "b": b}) is True for g, c in codes.items()}
              for a in BOX for b in BOX}
    kept = set(ans["minimal"])
    for pt, ok in passes.items():  # the minimal set accepts exactly what the whole set accepts
        assert all(ok[g] for g in kept) == all(ok.values()), (guards, ans["minimal"], pt)
    for g in ans["guards"]:
        if g["verdict"] == "redundant":
            assert g["id"] not in kept


def test_equivalent_float_and_integer_guards_reduce_to_one() -> None:
    doc = {"symbols": {"a": {"min": 1, "max": 2**40}, "b": {"min": 1, "max": 2**40}},
           "guards": ["IntTrueDiv(a, b) >= 1.0", "a >= b", "Max(1.0, IntTrueDiv(a, b)) > 0.5"]}
    ans = run("redundancy", doc)
    assert len(ans["minimal"]) == 1 and ans["minimal"][0] in ("g0", "g1"), ans


def test_every_consumer_of_the_ir_reads_the_float_guards() -> None:
    """The reader leaves only ordinary integer IR: the compiled Python check, the SMT-LIB export
    read back, and the answers on it are the same as on the document."""
    from symguard.solver.ir.pycode import compile_check
    from symguard.solver.syntax.export import problem_to_smt2
    from symguard.solver.syntax.smtlib_script import script_problem

    texts = [t for t, _ in POOL]
    parsed = [parse_sympy(t) for t in texts]
    check = compile_check([p.as_condition() for p in parsed], ["a", "b"])
    for a, b in product(BOX, BOX):
        for p, (_, code) in zip(parsed, POOL):
            assert compile_check([p.as_condition()], ["a", "b"])(a, b) == (python(code, {"a": a, "b": b}) is True)
        assert check(a, b) == all(python(c, {"a": a, "b": b}) is True for _, c in POOL)
    doc = {"symbols": {"a": {"min": 1, "max": 40}, "b": {"min": 1, "max": 40}},
           "guards": [{"id": f"g{i}", "expr": t} for i, t in enumerate(texts)]}
    back = script_problem(problem_to_smt2(doc))
    assert run("redundancy", back)["minimal"] == run("redundancy", doc)["minimal"]


def test_the_overflow_condition_keeps_non_linear_problems_solvable() -> None:
    """The overflow bound (2**1024 - 2**970) is never spelled as a 309-digit constant: a
    non-linear problem with unbounded sizes (an export's ranges) is answered, not ``too_large``.
    At s0 = 2**53 + 1, s1 = 2**54 every guard but g2 holds (0.5 + 2**-54 rounds to 0.5), so g2
    is required."""
    doc = {"symbols": {"s0": {"min": 2, "max": None}, "s1": {"min": 2, "max": None}},
           "guards": ["IntTrueDiv(s1, s0) >= 1.0", "s0*s1 >= 64", "Ne(IntTrueDiv(s0, s1), 0.5)", "s1 >= s0",
                      "Max(1.0, IntTrueDiv(s1, s0)) < 2.0", "Eq(Mod(s0*s1, 32), 0)"]}
    env = {"s0": 2**53 + 1, "s1": 2**54}
    assert [symguard(t, env) for t in doc["guards"]] == [True, True, False, True, True, True]
    ans = run("redundancy", doc)
    assert "g2" in ans["minimal"] and not any(g["verdict"] == "unknown" for g in ans["guards"]), ans
    for t in doc["guards"]:
        p = parse_sympy(t)
        assert all(n.kind != "const" or abs(n.value) < 10**20 for root in (p.term, p.domain) for n in iter_dag(root))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["CeilToInt", "FloorToInt", "TruncToInt", "RoundToInt"]), st.sampled_from(["Max", "Min"]),
       st.integers(-(2**20), 2**20), st.integers(-(2**20), 2**20), st.integers(-50, 50), st.booleans())
def test_a_rounded_max_or_min_is_the_extreme_of_the_roundings(fn: str, ext: str, a: int, b: int, c: int,
                                                              absolute: bool) -> None:
    """``CeilToInt(Max(IntTrueDiv(a, b), 1.0))``: rounding is monotone, so it is the Max of the
    roundings; within 2**53 that is Python's ``math.ceil(max(a / b, 1.0))`` (docs/pytorch-functions.md)."""
    inner = f"{ext}(IntTrueDiv(a, b), ToFloat(c), 1.0)"
    inner = f"Abs({inner})" if absolute else inner
    code = f"{ext.lower()}(a / b, float(c), 1.0)"
    code = f"abs({code})" if absolute else code
    py = {"CeilToInt": math.ceil, "FloorToInt": math.floor, "TruncToInt": math.trunc, "RoundToInt": round}[fn]
    p = parse_sympy(f"{fn}({inner}) == k")
    env = {"a": a, "b": b, "c": c}
    if b == 0:
        assert not evaluate(p.domain, {**env, "k": 0})
        return
    want = py(eval(code, PY, dict(env)))
    assert evaluate(p.domain, {**env, "k": want}) and evaluate(p.term, {**env, "k": want})


@given(st.integers(-20, 20), st.one_of(st.integers(-20, 20), st.floats(-20.5, 20.5).map(lambda f: round(f * 4) / 4)),
       st.sampled_from(["<", "<=", ">", ">=", "==", "!="]))
def test_an_integer_compared_with_a_literal_is_pythons_comparison(v: int, c: float, op: str) -> None:
    """``float_compare.integer_compared``: from ``v >= k`` alone, ``v op c`` as Python compares an
    int with a number (integral or not); None wherever a ``k`` it asks is not read."""
    from symguard.solver.ir import terms as ir

    x = ir.mk_sym("v")
    got = fc.integer_compared(op, c, lambda k: ir.mk_ge(x, ir.mk_int(k)))
    assert got is not None and evaluate(got, {"v": v}) == eval(f"{v} {op} {c!r}")
    if op not in ("==", "!=") or float(c).is_integer():  # else no k is asked: it holds nowhere (everywhere)
        assert fc.integer_compared(op, c, lambda k: None) is None
