"""``int(math.sqrt(n))`` of a size (``TruncToInt(OpaqueUnaryFn_sqrt(ToFloat(n)))``): what symguard
reads is what Python computes.

- the bound of ``float_sqrt``: ``int(math.sqrt(float(n))) == math.isqrt(n)`` for
  ``0 <= n <= BOUND`` (exhaustively on small sizes, next to every square ``k**2`` and ``k**2 - 1``
  at both ends of every binade of ``k`` up to ``2**27``, by hypothesis anywhere below), and not
  at ``BOUND + 1``;
- the integer reading is ``ISQRT``, undefined (the domain) below 0, in every home of the op:
  ``pyeval``, ``pycode``, the printers, the SMT encoding, intervals and the rewriter;
- any rounding of it compared with a literal is Python's truth value at any size, up to the
  overflow of ``float(n)`` (the domain);
- guards of a square-grid model are decided: the dropped ones are implied (brute force);
- the power form ``int(n ** 0.5)`` (``FloatPow(ToFloat(n), 0.5)``, the C library's ``pow``) is the
  same ``isqrt`` within ``POW_BOUND`` on this platform's ``pow`` (next to every square below
  ``2**20``, at the ends of every binade and anywhere below by hypothesis), and compared with a
  literal it is Python's value at any size."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from unary_kinds import Kind, check_encoding_admits_only_its_value, check_homes, check_interval, check_verdicts

from symguard.solver import run
from symguard.solver.errors import UnsupportedError
from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import evaluate, holds, value
from symguard.solver.reason.facts import Env
from symguard.solver.reason.intervals import isqrt_iv
from symguard.solver.reason.rewrite import Rewriter
from symguard.solver.syntax import float_sqrt as fsq
from symguard.solver.syntax.smtlib_writer import to_smtlib
from symguard.solver.syntax.sympy_reader import parse_sympy

SIDE = "TruncToInt(OpaqueUnaryFn_sqrt(ToFloat({})))"
ROUNDINGS = ("TruncToInt", "FloorToInt", "CeilToInt", "RoundToInt")
_RND: dict[str, Callable[[float], int]] = {"TruncToInt": math.trunc, "FloorToInt": math.floor,
                                           "CeilToInt": math.ceil, "RoundToInt": round}
_OPS: dict[str, tuple[str, Callable[[int, float], bool]]] = {
    "<": ("<", lambda a, b: a < b), "<=": ("<=", lambda a, b: a <= b), ">": (">", lambda a, b: a > b),
    ">=": (">=", lambda a, b: a >= b), "==": ("Eq", lambda a, b: a == b), "!=": ("Ne", lambda a, b: a != b)}


def _python(n: int) -> int:
    return int(math.sqrt(float(n)))  # what the model's own code computes


# ---------------------------------------------------------------- the bound

def test_the_bound_is_exact_on_small_sizes() -> None:
    for n in range(300_000):
        assert _python(n) == math.isqrt(n), n


def test_the_bound_is_tight() -> None:
    m = (1 << 26) + 1
    assert fsq.BOUND == m * m - 2 < 2**53
    assert _python(fsq.BOUND) == math.isqrt(fsq.BOUND)
    assert _python(fsq.BOUND + 1) == m != math.isqrt(fsq.BOUND + 1)  # sqrt(m**2 - 1) rounds up to m
    assert math.floor(math.sqrt(float(fsq.BOUND + 1))) == m  # FloorToInt alike


def test_next_to_every_square_at_the_ends_of_each_binade() -> None:
    """The proof's only candidates: ``m**2 - 1`` (and ``m**2``) for every ``m``; at the ends of each
    binade of ``m`` up to ``2**27`` (the spacing of doubles is constant within a binade), and
    every ``m`` near ``2**26`` where the first failure is."""
    ms = set(range((1 << 26) - 3000, (1 << 26) + 1))
    for e in range(1, 27):
        ms |= set(range(1 << e, min((1 << e) + 200, 1 << (e + 1))))
        ms |= set(range(max(1 << e, (1 << (e + 1)) - 200), 1 << (e + 1)))
    for m in sorted(ms):
        for n in (m * m - 1, m * m, m * m + 1):
            if n <= fsq.BOUND:
                assert _python(n) == math.isqrt(n), n
    # and past the bound Python does part from isqrt (the reading is not claimed there)
    assert any(_python(m * m - 1) != m - 1 for m in range((1 << 26) + 1, (1 << 26) + 50))


@given(st.integers(0, fsq.BOUND))
def test_the_bound_anywhere_below(n: int) -> None:
    assert _python(n) == math.isqrt(n)
    assert math.floor(math.sqrt(float(n))) == math.isqrt(n)


def test_max_convertible_is_the_overflow_edge() -> None:
    float(fsq.MAX_CONVERTIBLE)
    with pytest.raises(OverflowError):
        float(fsq.MAX_CONVERTIBLE + 1)


# ---------------------------------------------------------------- the integer reading

@given(st.integers(-50, 2**40), st.integers(-50, 50))
def test_read_as_isqrt_where_python_agrees(n: int, m: int) -> None:
    for name in ("TruncToInt", "FloorToInt"):
        text = f"{name}(OpaqueUnaryFn_sqrt(ToFloat(a*b + c))) + 2*d"
        p = parse_sympy(text)
        env = {"a": n, "b": 1, "c": m, "d": 3}
        x = n + m
        if x < 0:
            with pytest.raises(ValueError):
                math.sqrt(float(x))
            assert not holds(p.domain, env)
            assert value(p.term, env) is None
            continue
        assert holds(p.domain, env)
        assert evaluate(p.term, env) == _python(x) + 6


_ROUND = {"CeilToInt": math.ceil, "RoundToInt": round}


def _rounded(name: str, n: int, form: str = fsq.SQRT) -> int:
    """What the model's ``math.ceil(math.sqrt(n))`` / ``round(n ** 0.5)`` computes."""
    return int(_ROUND[name](math.sqrt(float(n)) if form == fsq.SQRT else float(n) ** 0.5))


def _candidates(name: str, k: int) -> tuple[int, ...]:
    """Where each rounding's proof is tight: next to a square for the ceiling, next to
    ``k**2 + k`` (the exact root crossing ``k + 1/2``) for the nearest integer."""
    return (k * k, k * k + 1, (k + 1) ** 2 - 1) if name == "CeilToInt" else (k * k + k, k * k + k + 1, k * k)


@pytest.mark.parametrize("form", [fsq.SQRT, fsq.POW])
@pytest.mark.parametrize("name", ["CeilToInt", "RoundToInt"])
def test_ceiling_and_round_next_to_every_candidate_up_to_their_bounds(name: str, form: str) -> None:
    """``integer_value`` is Python's value next to every candidate of the proof at the ends of each
    binade of ``k`` (the spacing of doubles is constant within one) up to the bound, and the
    sqrt form's bounds are tight: the next candidate past each is where Python parts."""
    top = fsq.bound(form, name)
    ks: set[int] = set()
    for e in range(1, 27):
        ks |= set(range(1 << e, min((1 << e) + 150, 1 << (e + 1))))
        ks |= set(range(max(1 << e, (1 << (e + 1)) - 150), 1 << (e + 1)))
    for k in sorted(ks):
        for n in _candidates(name, k):
            if n <= top:
                assert _rounded(name, n, form) == fsq.integer_value(name, n), (name, form, n)
    if form == fsq.SQRT and name == "CeilToInt":
        assert top == 2**52 and _rounded(name, top + 1) != fsq.integer_value(name, top + 1)
    if form == fsq.SQRT and name == "RoundToInt":
        past = next(n for k in range(1 << 25, (1 << 25) + 5000) for n in _candidates(name, k)
                    if _rounded(name, n) != fsq.integer_value(name, n))
        assert top == 2**50 - 1 < past


@given(st.integers(0, 2**52), st.sampled_from(["CeilToInt", "RoundToInt"]), st.sampled_from([fsq.SQRT, fsq.POW]))
def test_ceiling_and_round_anywhere_below_their_bounds(n: int, name: str, form: str) -> None:
    n = min(n, fsq.bound(form, name))
    assert _rounded(name, n, form) == fsq.integer_value(name, n)


@given(st.integers(-50, 2**40), st.sampled_from(["CeilToInt", "RoundToInt"]))
def test_ceiling_and_round_read_as_python_computes(n: int, name: str) -> None:
    """``CeilToInt``/``RoundToInt`` of a size's root used as an integer (issue 33: they were
    refused): ``isqrt(n)`` plus one past a square (ceiling) or past ``k**2 + k`` (nearest)."""
    for form in ("OpaqueUnaryFn_sqrt(ToFloat(a + c))", "FloatPow(ToFloat(a + c), 0.5)"):
        p = parse_sympy(f"{name}({form}) - d")
        env = {"a": n, "c": 0, "d": 3}
        if n < 0:
            assert not holds(p.domain, env)
            continue
        assert holds(p.domain, env)
        assert evaluate(p.term, env) == _rounded(name, n) - 3


def test_an_unrounded_square_root_is_refused() -> None:
    with pytest.raises(UnsupportedError):  # an unrounded square root is still a float function
        parse_sympy("OpaqueUnaryFn_sqrt(ToFloat(a)) + 1 > b")


ISQRT = Kind(ir.mk_isqrt, math.isqrt, 0, "isqrt", isqrt_iv)


@given(st.integers(-20, 10**6))
def test_every_home_of_the_op_agrees(n: int) -> None:
    check_homes(ISQRT, n)


def test_the_smt_encoding_allows_only_isqrt() -> None:
    check_encoding_admits_only_its_value(ISQRT, [0, 1, 2, 3, 4, 8, 9, 10, 99, 100, 101, 2**52 - 1, 2**52,
                                                 fsq.BOUND + 1, 10**30 + 7])


def test_no_smtlib_term() -> None:
    with pytest.raises(UnsupportedError, match="isqrt"):
        to_smtlib(ir.mk_le(ir.mk_isqrt(ir.mk_sym("a")), ir.ONE))


@given(st.integers(-10, 10**5), st.integers(0, 10**5))
def test_the_interval_is_sound(lo: int, width: int) -> None:
    check_interval(ISQRT, lo, width)


@given(st.integers(1, 40), st.integers(0, 300), st.integers(0, 300))
def test_the_rewriter_takes_the_root_of_a_square(c: int, a: int, b: int) -> None:
    x, y = ir.mk_sym("x"), ir.mk_sym("y")
    env = Env({"x": (0, None), "y": (0, None)})
    t = ir.mk_isqrt(ir.mk_mul(ir.mk_int(c * c), x, x, y, y))
    r = Rewriter(env).rewrite(t)
    assert r is ir.mk_mul(ir.mk_int(c), x, y)
    assert evaluate(r, {"x": a, "y": b}) == evaluate(t, {"x": a, "y": b})
    # a sign not known: no root taken (isqrt(x*x) is |x|)
    assert Rewriter(Env({"x": (None, None)})).rewrite(ir.mk_isqrt(ir.mk_mul(x, x))).kind == ir.ISQRT


@given(st.integers(1, 3000), st.integers(-5, 5), st.integers(-20, 20), st.integers(1, 3))
def test_the_square_fact_makes_n_a_multiple_of_its_root(m: int, c: int, k: int, e: int) -> None:
    """Under ``Eq(n, isqrt(n)**2)`` the rewriter writes ``c*n + k`` over ``isqrt(n)**e`` with
    ``n = s*s``: its result is the original's value at every square ``n``."""
    x, y = ir.mk_sym("x"), ir.mk_sym("y")
    n = ir.mk_mul(x, y)
    s = ir.mk_isqrt(n)
    env = Env({"x": (1, None), "y": (1, None)})
    env.add(ir.mk_eq(n, ir.mk_mul(s, s)))
    a, b = ir.mk_add(ir.mk_mul(ir.mk_int(c), n), ir.mk_int(k)), ir.mk_pow(s, e)
    rw = Rewriter(env)
    for t in (ir.mk_floordiv(a, b), ir.mk_mod(a, b)):
        r = rw.rewrite(t)
        for xv, yv in ((m * m, 1), (1, m * m), (m, m)):
            pt = {"x": xv, "y": yv}
            assert evaluate(r, pt) == evaluate(t, pt), (t, r, pt)
    assert rw.rewrite(ir.mk_mod(n, s)) is ir.ZERO


@given(st.integers(-3, 3).filter(bool), st.integers(-6, 6), st.integers(-10, 10), st.booleans())
def test_the_root_bounds_its_square(c: int, a: int, k: int, eq: bool) -> None:
    """``isqrt(x)**2 <= x <= isqrt(x)**2 + 2*isqrt(x)``: a comparison the rewriter decides from it
    holds (or fails) at every size."""
    x = ir.mk_sym("x")
    s = ir.mk_isqrt(x)
    e = ir.mk_add(ir.mk_mul(ir.mk_int(c), ir.mk_sub(ir.mk_mul(s, s), x)), ir.mk_mul(ir.mk_int(a), s), ir.mk_int(k))
    cond = ir.mk_eq(e, ir.ZERO) if eq else ir.mk_le(e, ir.ZERO)
    r = Rewriter(Env({"x": (0, None)})).rewrite(cond)
    if r.kind == ir.BCONST:
        for n in [*range(3000), 10**12 + 7, 10**40]:
            assert holds(cond, {"x": n}) is r.value, (cond, n)


# ---------------------------------------------------------------- compared with a literal

_NS = st.one_of(st.integers(-5, 10**6), st.integers(0, 2**200), st.integers(fsq.BOUND - 10**6, fsq.BOUND + 10**6),
                st.integers(fsq.MAX_CONVERTIBLE - 10, fsq.MAX_CONVERTIBLE + 10))
_LITS = st.one_of(st.integers(-3, 2000), st.floats(-3, 2000, allow_nan=False), st.integers(0, 2**100),
                  st.sampled_from([67108864, 67108865, 2.5, 24.0, 1e154, 1.3407807929942596e154]))


_SIDES = {fsq.SQRT: "{}(OpaqueUnaryFn_sqrt(ToFloat(a)))", fsq.POW: "{}(FloatPow(ToFloat(a), 0.5))"}


def _root(form: str, n: int) -> float | None:
    """What the model's code computes: ``math.sqrt(float(n))`` or ``float(n) ** 0.5``; None where
    Python raises (a negative size, ``float(n)`` past the largest double)."""
    try:
        x = float(n)
    except OverflowError:
        return None
    if x < 0:
        return None
    return math.sqrt(x) if form == fsq.SQRT else x ** 0.5


@pytest.mark.parametrize("form", [fsq.SQRT, fsq.POW])
@given(n=_NS, c=_LITS, name=st.sampled_from(ROUNDINGS), op=st.sampled_from(sorted(_OPS)))
def test_compared_with_a_literal_is_python_at_any_size(form: str, n: int, c: float, name: str, op: str) -> None:
    word, fn = _OPS[op]
    lit = repr(c)
    side = _SIDES[form].format(name)
    text = f"{word}({side}, {lit})" if op in ("==", "!=") else f"{side} {op} {lit}"
    p = parse_sympy(text)
    root = _root(form, n)
    env = {"a": n}
    if root is None:
        assert not holds(p.domain, env)
        return
    assert holds(p.domain, env)
    assert holds(p.term, env) == fn(_RND[name](root), c), (text, n)
    mirrored = f"{word}({lit}, {side})" if op in ("==", "!=") else f"{lit} {_MIRROR[op]} {side}"
    assert parse_sympy(mirrored).term is p.term


_MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


@pytest.mark.parametrize("form", [fsq.SQRT, fsq.POW])
@given(name=st.sampled_from(ROUNDINGS), k=st.integers(-3, 10**6) | st.integers(0, 2**300))
def test_least_is_the_first_size_that_reaches(form: str, name: str, k: int) -> None:
    n = fsq.least(name, k, form)
    if n is None:
        assert fsq.python_value(name, fsq.MAX_CONVERTIBLE, form) < k
        return
    assert fsq.python_value(name, n, form) >= k
    assert n == 0 or fsq.python_value(name, n - 1, form) < k


def test_compared_reads_are_linear() -> None:
    assert parse_sympy(f"{SIDE.format('a')} >= 24").term is ir.mk_ge(ir.mk_sym("a"), ir.mk_int(576))
    big = parse_sympy(f"Eq({SIDE.format('a')}, {(1 << 26) + 1})").term  # past the bound: Python's interval
    lo = fsq.least("TruncToInt", (1 << 26) + 1)
    assert lo == fsq.BOUND + 1  # not (2**26 + 1)**2: Python reaches it one size early
    assert holds(big, {"a": lo}) and not holds(big, {"a": lo - 1})


# ---------------------------------------------------------------- a square-grid model's guards

def _grid_guards(side: str, n: str) -> list[str]:
    """Guards of the shape a model that views ``n`` tokens as a ``side x side`` grid leaves."""
    return [
        f"Eq({n}, {side}**2)",
        f"Ne({side}, {n})",
        f"Eq(Mod({n}, {side}), 0)",
        f"Ne(({n})//({side}), 0)",
        f"{side} >= 2",
        f"({n})//({side}) > 1",
        f"Eq(Max(1, 4*(({n})//({side}))), 4*(({n})//({side})))",
        f"3*({n}) + 3 >= 3*(({n})//({side}))*{side}",
    ]


@pytest.mark.parametrize("n", ["h*w", "(h//2)*(w//2)", "h*w + h"])
@pytest.mark.parametrize("top", [60, None])
def test_a_square_grid_set_is_decided_and_sound(n: str, top: int | None) -> None:
    """Decided without ``unknown`` (the square fact ``Eq(n, isqrt(n)**2)`` makes ``n`` a multiple
    of its root for the rewriter), and every dropped guard holds wherever the kept ones do."""
    side = SIDE.format(n)
    guards = ["h >= 2", "w >= 2", *_grid_guards(side, n)]
    res = run("redundancy", {"symbols": {"h": {"min": 1, "max": top}, "w": {"min": 1, "max": top}},
                             "guards": guards})
    verdicts = {g["id"]: g["verdict"] for g in res["guards"]}
    assert "unknown" not in verdicts.values() and "unsupported" not in verdicts.values()
    kept = [guards[int(i[1:])] for i in res["minimal"]]
    dropped = [g for i, g in enumerate(guards) if f"g{i}" not in res["minimal"]]
    assert dropped  # the square's consequences go
    terms = {g: parse_sympy(g) for g in guards}

    def passes(g: str, env: dict[str, int]) -> bool:
        p = terms[g]
        return holds(p.domain, env) and holds(p.term, env)

    for h in range(1, 61):
        for w in range(1, 61):
            env = {"h": h, "w": w}
            if all(passes(g, env) for g in kept):
                assert all(passes(g, env) for g in dropped), env


# ---------------------------------------------------------------- a differential on small boxes

def _sq_terms() -> st.SearchStrategy[str]:
    leaf = st.one_of(st.sampled_from(["x", "y"]), st.integers(-3, 9).map(str))

    def extend(t: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.tuples(t, t).map(lambda p: f"({p[0]} + {p[1]})"),
            st.tuples(t, t).map(lambda p: f"({p[0]})*({p[1]})"),
            st.tuples(t, st.sampled_from(["2", "3"])).map(lambda p: f"({p[0]}) // {p[1]}"),
            st.tuples(t, t).map(lambda p: f"Max({p[0]}, {p[1]})"),
            t.map(lambda a: SIDE.format(a)),
            t.map(lambda a: f"FloorToInt(OpaqueUnaryFn_sqrt(ToFloat({a})))"),
        )

    return st.recursive(leaf, extend, max_leaves=3)


@st.composite
def _sq_boxes(draw: st.DrawFn) -> dict[str, object]:
    t = _sq_terms()
    rel = st.sampled_from(["<", "<=", ">", ">=", "==", "!="])
    atom = st.one_of(st.tuples(t, rel, t).map(lambda p: f"{p[0]} {p[1]} {p[2]}"),
                     st.tuples(st.sampled_from(ROUNDINGS), t, rel, st.integers(-1, 7)).map(
                         lambda p: f"{p[0]}(OpaqueUnaryFn_sqrt(ToFloat({p[1]}))) {p[2]} {p[3]}"),
                     st.tuples(t, t).map(lambda p: f"Eq(Mod({p[0]}, {SIDE.format(p[1])}), 0)"))
    symbols = {}
    for s in ("x", "y"):
        lo = draw(st.integers(-3, 6))
        symbols[s] = {"min": lo, "max": lo + draw(st.integers(0, 30))}
    return {"symbols": symbols, "guards": draw(st.lists(atom, min_size=1, max_size=5)),
            "options": {"timeout_ms": 30_000}}


_PY_ENV: dict[str, object] = {"TruncToInt": math.trunc, "FloorToInt": math.floor, "CeilToInt": math.ceil,
                              "RoundToInt": round, "OpaqueUnaryFn_sqrt": math.sqrt, "ToFloat": float, "Max": max,
                              "Mod": lambda a, b: a % b, "Eq": lambda a, b: a == b}


def _passes(code: object, pt: dict[str, int]) -> bool:
    """The guard as Python computes it from its text (math.sqrt of a float); raising fails it."""
    try:
        return bool(eval(code, {"__builtins__": {}}, {**_PY_ENV, **pt}))  # type: ignore[arg-type]
    except (ValueError, ZeroDivisionError, OverflowError):
        return False


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_sq_boxes())
def test_verdicts_hold_on_every_point_of_a_box(doc: dict[str, object]) -> None:
    res = run("redundancy", doc)
    guards = doc["guards"]
    assert isinstance(guards, list)
    codes = {f"g{i}": compile(g, "<guard>", "eval") for i, g in enumerate(guards)}
    syms = doc["symbols"]
    assert isinstance(syms, dict)
    pts = [{"x": a, "y": b} for a in range(syms["x"]["min"], syms["x"]["max"] + 1)
           for b in range(syms["y"]["min"], syms["y"]["max"] + 1)]
    table = {g: [_passes(c, pt) for pt in pts] for g, c in codes.items()}
    check_verdicts(res, table, guards)


# ---------------------------------------------------------------- the power form: int(n ** 0.5)

POW_SIDE = "TruncToInt(FloatPow(ToFloat({}), 0.5))"


def _power(n: int) -> int:
    return int(float(n) ** 0.5)  # the model's ``int(n ** 0.5)``: the C library's pow


def test_pow_truncates_as_isqrt_next_to_every_small_square() -> None:
    """``pow`` need not be correctly rounded (glibc's differs from ``sqrt`` on thousands of sizes),
    which is why the power form has a smaller bound of its own; no error below one ulp crosses an
    integer below it."""
    assert fsq.POW_BOUND < fsq.BOUND
    for k in range(1, 1 << 20):
        for n in (k * k - 1, k * k, k * k + 1):
            assert _power(n) == math.isqrt(n), n


def test_pow_next_to_the_squares_at_the_ends_of_each_binade_up_to_the_bound() -> None:
    ms: set[int] = set()
    for e in range(1, 26):
        ms |= set(range(1 << e, min((1 << e) + 300, 1 << (e + 1))))
        ms |= set(range(max(1 << e, (1 << (e + 1)) - 300), (1 << (e + 1)) + 1))
    for m in sorted(ms):
        for n in (m * m - 1, m * m, m * m + 1):
            if n <= fsq.POW_BOUND:
                assert _power(n) == math.isqrt(n), n
                assert math.floor(float(n) ** 0.5) == math.isqrt(n), n


@given(st.integers(0, fsq.POW_BOUND) | st.integers(1, 1 << 25).map(lambda k: k * k - 1))
def test_pow_anywhere_below_its_bound(n: int) -> None:
    if n <= fsq.POW_BOUND:
        assert _power(n) == math.isqrt(n)


def test_the_power_form_reads_as_the_same_isqrt() -> None:
    for name in fsq.INTEGER_ROUNDINGS:
        p = parse_sympy(f"{name}(FloatPow(ToFloat(a + 1), 0.5)) >= b")
        q = parse_sympy(f"{name}(OpaqueUnaryFn_sqrt(ToFloat(a + 1))) >= b")
        assert p.term is q.term and p.domain is q.domain
    with pytest.raises(UnsupportedError):  # another exponent is still a float function
        parse_sympy("TruncToInt(FloatPow(ToFloat(a), 0.25)) > b")
