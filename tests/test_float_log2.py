"""``b // 2 ** int(math.log2(a / c))`` of sizes (solver/syntax/float_log2.py): the exponent's
bound on this machine's ``math.log2`` (at every critical size up to the bound and by hypothesis
below it), the reading against Python's own evaluation of the printed text (small sizes, ``c/2``,
``c``, powers of two and their neighbours, zero and negatives: the domain), every home of the new
IR kind ``BITFLOOR``, and redundancy verdicts on small boxes against brute force."""

from __future__ import annotations

import math

import pytest
import z3
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from unary_kinds import (
    Kind,
    check_encoding_admits_only_its_value,
    check_homes,
    check_interval,
    check_verdicts,
    encoded,
)

from symguard.solver import run
from symguard.solver.errors import UnsupportedError
from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import holds, value
from symguard.solver.reason.facts import Env
from symguard.solver.reason.intervals import bitfloor_iv
from symguard.solver.reason.rewrite import Rewriter
from symguard.solver.syntax import float_log2 as flg
from symguard.solver.syntax.smtlib_writer import to_smtlib
from symguard.solver.syntax.sympy_reader import parse_sympy

ROUNDINGS = ("TruncToInt", "FloorToInt")
DIVISORS = (1, 2, 3, 5, 7, 8, 10, 16, 1000, 3**20, (1 << 20) + 1, (1 << 46) - 3, flg.MAX_DIVISOR)
POWER = "PowByNatural(2, {r}(OpaqueUnaryFn_log2({x})))"


def _x(c: int, a: str = "a") -> str:
    return f"ToFloat({a})" if c == 1 else f"IntTrueDiv({a}, {c})"


def python_power(name: str, a: int, c: int) -> int | float:
    """``2 ** R(math.log2(a / c))`` as Python computes it (``ValueError`` for ``a <= 0``)."""
    x = math.log2(a / c) if c != 1 else math.log2(float(a))
    e = math.trunc(x) if name == "TruncToInt" else math.floor(x)
    return 2**e


def _exact_ok(name: str, a: int, c: int) -> bool:
    """Python's power (``python_power``) is the exact one."""
    e = flg.exponent(name, a, c)
    p = python_power(name, a, c)
    return p == 2**e and isinstance(p, int) == (e >= 0)


# ---------------------------------------------------------------- the exponent's bound

@pytest.mark.parametrize("c", DIVISORS)
def test_the_exponent_at_every_critical_size_below_the_bound(c: int) -> None:
    """Next to every ``2**k * c`` (where ``a / c`` crosses a power of two from below: the only
    place ``log2`` can round up to the next integer) and every ``c / 2**j`` (the same from above,
    for ``a < c``), up to the bound."""
    for name in ROUNDINGS:
        for k in range(64):
            for a in ((c << k) - 1, c << k, (c << k) + 1):
                if 1 <= a <= flg.BOUND:
                    assert _exact_ok(name, a, c), (name, a, c)
        for j in range(c.bit_length() + 1):
            for a in (c >> j) - 1, c >> j, (c >> j) + 1, -(-c >> j):
                if 1 <= a <= flg.BOUND:
                    assert _exact_ok(name, a, c), (name, a, c)


@settings(max_examples=400)
@given(st.integers(1, flg.BOUND), st.sampled_from(DIVISORS) | st.integers(1, flg.MAX_DIVISOR),
       st.sampled_from(ROUNDINGS))
def test_the_exponent_anywhere_below_the_bound(a: int, c: int, name: str) -> None:
    assert _exact_ok(name, a, c)


def test_small_sizes_exhaustively() -> None:
    for c in range(1, 70):
        for a in range(1, 5000):
            for name in ROUNDINGS:
                assert _exact_ok(name, a, c), (name, a, c)


# ---------------------------------------------------------------- the reading against Python

_PY: dict[str, object] = {
    "PowByNatural": lambda b, e: b ** e, "OpaqueUnaryFn_log2": math.log2, "IntTrueDiv": lambda a, b: a / b,
    "ToFloat": float, "TruncToInt": math.trunc, "FloorToInt": math.floor, "FloorDiv": lambda a, b: a // b,
    "Mod": lambda a, b: a % b, "Max": max, "Eq": lambda a, b: a == b, "Ne": lambda a, b: a != b,
}


def _python(text: str, env: dict[str, int]) -> object:
    """The text as Python computes it (``2 ** -1`` is the float 0.5); None where it raises."""
    try:
        return eval(text, {"__builtins__": {}}, {**_PY, **env})
    except (ValueError, ZeroDivisionError):
        return None


def _sizes(c: int) -> list[int]:
    out = {-3, -1, 0, 1, 2, 3, c // 2 - 1, c // 2, c // 2 + 1, c - 1, c, c + 1, 2 * c - 1, 2 * c, 5 * c + 3}
    out |= {(c << k) + d for k in range(12) for d in (-1, 0, 1)}
    out |= {(c >> j) + d for j in range(12) for d in (-1, 0, 1)}
    return sorted(out)


@pytest.mark.parametrize("c", [1, 2, 3, 7, 8, 10, 1000])
@pytest.mark.parametrize("name", ROUNDINGS)
@pytest.mark.parametrize("op", ["//", "%"])
def test_the_divisor_reads_as_python_computes_it(c: int, name: str, op: str) -> None:
    expr = f"(b {op} {POWER.format(r=name, x=_x(c))})"
    p = parse_sympy(f"Eq({expr}, v)")
    for a in _sizes(c):
        for b in (-(1 << 40) - 3, -7, -1, 0, 1, 2, 13, 1000, (1 << 40) + 3):
            want = _python(expr, {"a": a, "b": b})
            env = {"a": a, "b": b}
            if want is None:
                assert not holds(p.domain, env), (expr, a, b)
                continue
            assert holds(p.domain, env), (expr, a, b)
            assert want == int(want)  # a float only where it is an integer's exact value
            assert holds(p.term, {**env, "v": int(want)}), (expr, a, b, want)
            assert not holds(p.term, {**env, "v": int(want) + 1})


@settings(max_examples=300)
@given(st.integers(-5, 1 << 40), st.integers(-(1 << 45), 1 << 45), st.integers(1, 5000), st.sampled_from(ROUNDINGS))
def test_the_divisor_reads_as_python_anywhere(a: int, b: int, c: int, name: str) -> None:
    expr = f"(b // {POWER.format(r=name, x=_x(c))})"
    p = parse_sympy(expr + " >= 0")
    env = {"a": a, "b": b}
    want = _python(expr, env)
    assert holds(p.domain, env) == (want is not None)
    if want is not None:
        assert holds(p.term, env) == (want >= 0)


def test_python_spelling_reads_the_same() -> None:
    """PyTorch's Python printer writes ``b // 2 ** math.trunc(math.log2(a / 8))``; read back in
    symguard's names (``service.guard_semantics``) it is the same term as ``str`` of the guard."""
    a = parse_sympy("(b//(PowByNatural(2, TruncToInt(OpaqueUnaryFn_log2(IntTrueDiv(a, 8)))))) >= 2").term
    b = parse_sympy("b // 2 ** TruncToInt(OpaqueUnaryFn_log2(IntTrueDiv(a, 8))) >= 2").term
    assert a is b


def test_the_power_alone_and_the_refusals() -> None:
    p = parse_sympy(POWER.format(r="TruncToInt", x="ToFloat(a)") + " >= 4")
    assert p.term is ir.mk_ge(ir.mk_bitfloor(ir.mk_sym("a")), ir.mk_int(4))
    for a in range(-2, 300):
        want = _python(POWER.format(r="TruncToInt", x="ToFloat(a)"), {"a": a})
        assert holds(p.domain, {"a": a}) == (want is not None)
        if want is not None:
            assert holds(p.term, {"a": a}) == (want >= 4)
    with pytest.raises(UnsupportedError, match="divisor of // or %"):
        parse_sympy(POWER.format(r="TruncToInt", x="IntTrueDiv(a, 8)") + " >= 4")  # a float where a < 8
    with pytest.raises(UnsupportedError, match="CeilToInt"):
        parse_sympy("b // " + POWER.format(r="CeilToInt", x="IntTrueDiv(a, 8)") + " >= 4")
    with pytest.raises(UnsupportedError, match="divisor outside"):
        parse_sympy("b // " + POWER.format(r="TruncToInt", x=f"IntTrueDiv(a, {flg.MAX_DIVISOR + 1})") + " >= 4")
    with pytest.raises(UnsupportedError):  # a rounded logarithm used as an integer is still refused
        parse_sympy("TruncToInt(OpaqueUnaryFn_log2(ToFloat(a))) + 1 >= b")


@given(st.integers(1, 10**4), st.integers(1, 3000), st.sampled_from(ROUNDINGS))
def test_the_step_function_is_the_inverse_power(a: int, c: int, name: str) -> None:
    if a >= c:
        return
    e = flg.exponent(name, a, c)
    assert value(flg.inverse_power(name, ir.mk_sym("a"), c), {"a": a}) == 2 ** -e


@pytest.mark.parametrize("name", ROUNDINGS)
@pytest.mark.parametrize("c", [1, 3, 8, 1000, (1 << 40) + 1])
def test_the_threshold_is_the_least_size_that_reaches(name: str, c: int) -> None:
    """At the threshold and one below, and far above (any size: a faithful ``log2`` is at least
    ``k`` wherever ``x >= 2**k``)."""
    for k in range(-flg.MAX_COMPARED_EXPONENT, flg.MAX_COMPARED_EXPONENT + 1):
        t = flg.threshold(name, k, c)
        if t is None:
            assert c << max(k, 0) > flg.BOUND
            continue
        for a in {t - 1, t, t + 1, 2 * t + 5, (1 << 62) + 3, 10**200}:
            if a >= 1:
                x = math.log2(a / c) if c != 1 else math.log2(float(a))
                assert ((math.trunc(x) if name == "TruncToInt" else math.floor(x)) >= k) == (a >= t), (k, a, t)


@settings(max_examples=300)
@given(st.integers(-5, 1 << 60) | st.sampled_from([(1 << 47) - 1, 1 << 47, (1 << 49) - 1, 10**307]),
       st.sampled_from([1, 2, 3, 8, 10, 1000]), st.sampled_from(ROUNDINGS),
       st.sampled_from(["<", "<=", ">", ">=", "==", "!="]),
       st.sampled_from(["0", "1", "-1", "3", "-3", "2.5", "-0.5", "40", "0.0"]))
def test_compared_with_a_literal_is_python_at_any_size(a: int, c: int, name: str, op: str, lit: str) -> None:
    text = f"{name}(OpaqueUnaryFn_log2({_x(c)})) {op} {lit}"
    try:
        p = parse_sympy(text)
    except UnsupportedError:  # c * 2**k past the bound: refused, never read inexactly
        assert any(flg.threshold(name, k, c) is None for k in (int(float(lit)), int(float(lit)) + 1))
        return
    try:
        want: object = eval(text, {"__builtins__": {}}, {**_PY, "a": a})
    except (ValueError, OverflowError):
        want = None
    env = {"a": a}
    assert holds(p.domain, env) == (want is not None), (text, a)
    if want is not None:
        assert holds(p.term, env) == want, (text, a)


def test_compared_past_the_bounds_is_refused() -> None:
    with pytest.raises(UnsupportedError, match="compared"):
        parse_sympy("TruncToInt(OpaqueUnaryFn_log2(IntTrueDiv(a, 8))) >= 46")  # 8 * 2**46 > 2**47
    with pytest.raises(UnsupportedError, match="compared"):
        parse_sympy("CeilToInt(OpaqueUnaryFn_log2(IntTrueDiv(a, 8))) >= 1")


# ---------------------------------------------------------------- every home of BITFLOOR

BITFLOOR = Kind(ir.mk_bitfloor, ir.bit_floor, 1, "bitfloor", bitfloor_iv)


@given(st.integers(-20, 10**6))
def test_every_home_of_the_op_agrees(n: int) -> None:
    check_homes(BITFLOOR, n)


def test_the_smt_encoding_allows_only_bit_floor() -> None:
    check_encoding_admits_only_its_value(BITFLOOR, [1, 2, 3, 4, 5, 7, 8, 9, 1000, 1023, 1024, (1 << 47) - 1,
                                                    1 << 47, (1 << 63) - 1, 1 << 63, (1 << 64) - 1])
    s, za, zf = encoded(BITFLOOR)
    big = (1 << 70) + 5  # past the spelled-out exponents: only p <= n < 2p, a weaker (sound) definition
    assert s.check(za == big, zf == ir.bit_floor(big)) == z3.sat
    assert s.check(za == big, zf > big) == z3.unsat


def test_no_smtlib_term() -> None:
    with pytest.raises(UnsupportedError, match="bit_floor"):
        to_smtlib(ir.mk_le(ir.mk_bitfloor(ir.mk_sym("a")), ir.ONE))


@given(st.integers(-10, 10**6), st.integers(0, 10**6))
def test_the_interval_is_sound(lo: int, width: int) -> None:
    check_interval(BITFLOOR, lo, width)


@given(st.integers(1, 5000), st.integers(0, 5000))
def test_the_rewriter_folds_a_power_fixed_by_the_ranges(lo: int, width: int) -> None:
    """Within one binade of its argument the power is a literal, and the division by it linear."""
    a, b = ir.mk_sym("a"), ir.mk_sym("b")
    rw = Rewriter(Env({"a": (lo, lo + width), "b": (0, None)}))
    t = rw.rewrite(ir.mk_le(ir.mk_floordiv(b, ir.mk_bitfloor(a)), ir.mk_int(3)))
    if ir.bit_floor(lo) == ir.bit_floor(lo + width):
        assert not any(n.kind == ir.BITFLOOR for n in ir.iter_dag(t))
    for av in {lo, lo + width}:
        for bv in (0, 5, 77):
            assert holds(t, {"a": av, "b": bv}) == (bv // ir.bit_floor(av) <= 3)


# ---------------------------------------------------------------- redundancy against brute force

def _depth_pro_like(c: int, name: str) -> list[str]:
    p = POWER.format(r=name, x=f"IntTrueDiv(w, {c})")
    return [f"w >= {c}", f"(h//({p})) >= 2", f"Ne((h//({p})), 0)", f"Ne((h//({p})), 1)",
            f"2*((h//({p}))) >= 2", f"((w//({p}))) >= 1", f"Eq(Max(1, 2*((w//({p})))), 2*((w//({p}))))",
            f"Mod(h, {p}) >= 0", f"16*((w//({p})))*((h//({p}))) >= 2"]


@pytest.mark.parametrize("c", [1, 8])
@pytest.mark.parametrize("name", ROUNDINGS)
def test_a_halving_set_is_decided_and_sound(c: int, name: str) -> None:
    guards = _depth_pro_like(c, name)
    res = run("redundancy", {"symbols": {"h": {"min": 1, "max": 300}, "w": {"min": 1, "max": 300}},
                             "guards": guards})
    verdicts = [g["verdict"] for g in res["guards"]]
    assert "unknown" not in verdicts and "unsupported" not in verdicts
    kept = [guards[int(i[1:])] for i in res["minimal"]]
    dropped = [g for i, g in enumerate(guards) if f"g{i}" not in res["minimal"]]
    assert dropped

    def passes(g: str, env: dict[str, int]) -> bool:
        v = _python(g, env)
        return bool(v) if v is not None else False

    for h in range(1, 301, 7):
        for w in range(1, 301):
            env = {"h": h, "w": w}
            if all(passes(g, env) for g in kept):
                assert all(passes(g, env) for g in dropped), env


def _terms() -> st.SearchStrategy[str]:
    leaf = st.one_of(st.sampled_from(["x", "y"]), st.integers(-3, 9).map(str))

    def extend(t: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.tuples(t, t).map(lambda p: f"({p[0]} + {p[1]})"),
            st.tuples(t, t).map(lambda p: f"Max({p[0]}, {p[1]})"),
            st.tuples(t, t, st.sampled_from(ROUNDINGS), st.sampled_from(["1", "2", "3", "8"]),
                      st.sampled_from(["//", "%"])).map(
                lambda p: f"(({p[0]}) {p[4]} {POWER.format(r=p[2], x=_x(int(p[3]), p[1]))})"),
        )

    return st.recursive(leaf, extend, max_leaves=3)


@st.composite
def _boxes(draw: st.DrawFn) -> dict[str, object]:
    t = _terms()
    rel = st.sampled_from(["<", "<=", ">", ">=", "==", "!="])
    atom = st.tuples(t, rel, t).map(lambda p: f"{p[0]} {p[1]} {p[2]}")
    symbols = {}
    for s in ("x", "y"):
        lo = draw(st.integers(-3, 6))
        symbols[s] = {"min": lo, "max": lo + draw(st.integers(0, 30))}
    return {"symbols": symbols, "guards": draw(st.lists(atom, min_size=1, max_size=5)),
            "options": {"timeout_ms": 30_000}}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_boxes())
def test_verdicts_hold_on_every_point_of_a_box(doc: dict[str, object]) -> None:
    res = run("redundancy", doc)
    guards = doc["guards"]
    assert isinstance(guards, list)
    syms = doc["symbols"]
    assert isinstance(syms, dict)
    pts = [{"x": a, "y": b} for a in range(syms["x"]["min"], syms["x"]["max"] + 1)
           for b in range(syms["y"]["min"], syms["y"]["max"] + 1)]

    def passes(g: str, pt: dict[str, int]) -> bool:
        v = _python(g, pt)
        return bool(v) if v is not None else False

    table = {f"g{i}": [passes(g, pt) for pt in pts] for i, g in enumerate(guards)}
    check_verdicts(res, table, guards)


def test_evaluate_takes_the_hints_as_a_witness_where_z3_is_undecided() -> None:
    """A set with a power's division is non-linear: where z3 runs out of effort on the problem's
    own satisfiability, the trace-time sizes (which pass every guard) show it, as in ``solve``."""
    doc = {"symbols": {"h": {"min": 1, "hint": 131}, "w": {"min": 1, "hint": 137}},
           "guards": ["(h // " + POWER.format(r="TruncToInt", x="IntTrueDiv(w, 8)") + ") >= 2", "h*w >= 7"],
           "options": {"effort": 1}, "queries": [{"id": "q", "expr": "h >= 2"}]}
    assert run("evaluate", doc)["status"] == "sat"
    doc["symbols"] = {"h": {"min": 1, "hint": 3}, "w": {"min": 1, "hint": 137}}  # 3 // 16 fails a guard
    assert run("evaluate", doc)["status"] == "unknown"  # no witness: undecided, never a guessed sat
