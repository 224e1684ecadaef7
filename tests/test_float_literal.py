"""Float literals that are not their double (``0.4``), under a rounding function: what symguard reads
is what Python computes.

- ``float_literal.scaled``: ``R(fl(c*n)) == R(q*n)`` for every ``n`` within the proven bounds, by
  brute force on small sizes (and tight: the next size disagrees), and by hypothesis next to the
  bounds, the binade edges and the critical multiples;
- ``R(c*ToFloat(n))`` used as an integer reads as ``R(q*n)``, Python's value within the bounds;
- a rounded chain compared with a literal is Python's truth value at any size (``2**53``,
  ``2**63``, overflow), with the overflow in the domain;
- what stays refused names the literal.

Every accepted form here was ``unsupported`` before (the literal rule refused ``0.4``)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symguard.solver import run
from symguard.solver.errors import UnsupportedError
from symguard.solver.ir.pyeval import evaluate
from symguard.solver.syntax import float_literal as fl
from symguard.solver.syntax.float_affine import decimal_exact
from symguard.solver.syntax.sympy_reader import parse_sympy

PY = {"FloorToInt": "math.floor", "CeilToInt": "math.ceil", "TruncToInt": "math.trunc", "RoundToInt": "round"}
LITERALS = [0.4, 0.1, 0.3, 0.6, 0.7, 0.9, 0.57, 1.1, 2.2, 0.35, 0.15, -0.4, -0.7, 0.7071, 0.333, 1.9, 3.3, 1e-3]


def _agrees(c: float, name: str, n: int) -> bool:
    return fl.rounded(name, c * float(n)) == fl.rounded(name, Fraction(repr(c)) * n)


@pytest.mark.parametrize("c", LITERALS)
@pytest.mark.parametrize("name", fl.ROUNDINGS)
def test_the_bound_is_sound_and_tight_on_small_sizes(c: float, name: str) -> None:
    """Every size up to 20,000 either side: agreement inside the bounds, and where a bound is
    smaller, Python parts from ``R(q*n)`` at the very next size (the bound is the first one)."""
    s = fl.scaled(c, name)
    assert s is not None and s.q == Fraction(repr(c))
    for n in range(-min(s.lo_bound, 20_000), min(s.hi_bound, 20_000) + 1):
        assert _agrees(c, name, n), (c, name, n)
    if s.hi_bound < 20_000:
        assert not _agrees(c, name, s.hi_bound + 1)
    if s.lo_bound < 20_000:
        assert not _agrees(c, name, -s.lo_bound - 1)


def test_the_mae_ratio_agrees_far_past_any_size() -> None:
    """``int(0.4 * n)`` is ``2n // 5`` (truncated) for |n| < 2**51: the gap argument of the module."""
    for name in fl.ROUNDINGS:
        s = fl.scaled(0.4, name)
        assert s is not None and min(s.lo_bound, s.hi_bound) >= 2**50
    seven = fl.scaled(0.7, "TruncToInt")
    assert seven is not None and seven.hi_bound == 89  # int(0.7 * 90) is 62, not 63
    assert math.trunc(0.7 * 90) == 62
    assert fl.scaled(0.0, "TruncToInt") is None and fl.scaled(5e-324, "FloorToInt") is None


def _near(c: float, name: str) -> st.SearchStrategy[int]:
    """Sizes where a disagreement would be: around the bounds, powers of two of ``q*n`` and ``n``,
    and the critical multiples of the decimal's denominator."""
    s = fl.scaled(c, name)
    assert s is not None
    d = s.q.denominator
    ends = [s.hi_bound, -s.lo_bound]
    pow2 = st.integers(1, 53).map(lambda k: round(2**k / abs(float(s.q))))
    return st.one_of(
        st.tuples(st.sampled_from(ends), st.integers(-3 * d, 0)).map(lambda p: p[0] + (p[1] if p[0] > 0 else -p[1])),
        st.tuples(pow2, st.integers(-2 * d, 2 * d), st.booleans()).map(lambda p: (p[0] + p[1]) * (-1 if p[2] else 1)),
        st.tuples(st.integers(1, 2**53 // d), st.integers(-1, 1)).map(lambda p: p[0] * d + p[1]),
    )


@settings(max_examples=600, deadline=None)
@given(st.data(), st.one_of(st.sampled_from(LITERALS),
                            st.tuples(st.integers(1, 999), st.integers(1, 5), st.booleans()).map(
                                lambda p: (-1 if p[2] else 1) * p[0] / 10 ** p[1])),
       st.sampled_from(fl.ROUNDINGS))
def test_within_the_bounds_python_is_the_decimal_rounded(data: st.DataObject, c: float, name: str) -> None:
    s = fl.scaled(c, name)
    assert s is not None
    n = data.draw(_near(c, name))
    if -s.lo_bound <= n <= s.hi_bound:
        assert _agrees(c, name, n), (c, name, n)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([c for c in LITERALS if min(fl.scaled(c, "FloorToInt").lo_bound,  # type: ignore[union-attr]
                                                   fl.scaled(c, "CeilToInt").lo_bound) >= fl.MIN_BOUND]),  # type: ignore[union-attr]
       st.sampled_from(fl.ROUNDINGS),
       st.one_of(st.integers(-10**6, 10**6), st.integers(1, 51).map(lambda k: 2**k - 1)))
def test_a_scaled_size_reads_as_pythons_integer(c: float, name: str, n: int) -> None:
    """``Eq(R(c*ToFloat(s0)), s1)`` holds exactly at Python's value (within the bounds: up to 2**51
    for these literals)."""
    s = fl.scaled(c, name)
    assert s is not None
    if not -s.lo_bound <= n <= s.hi_bound:
        return
    p = parse_sympy(f"Eq({name}({c!r}*ToFloat(s0)), s1)")
    want = fl.rounded(name, c * float(n))
    assert evaluate(p.term, {"s0": n, "s1": want}) is True
    assert evaluate(p.term, {"s0": n, "s1": want + 1}) is False
    # Python converts an int operand itself: c*s0 reads the same
    assert parse_sympy(f"Eq({name}(s0*{c!r}), s1)").term is p.term


def test_the_vit_mae_guards_read_as_integers() -> None:
    """The held-out ViTMAE guards (``int(0.4 * num_patches)``), unsupported before."""
    n = "((s24//6))*((s58//6))"
    t = f"TruncToInt(0.4*ToFloat({n}))"
    for text in (f"Eq({t}, 21)", f"Ne({t}, 1)", f"({t} >= 0) & ({t} <= {n})", f"Ne(Mod(s4, s4*({t} + 1)), 0)"):
        p = parse_sympy(text)
        for a, b, s4 in ((55, 41, 2), (6, 6, 3), (600, 1200, 5), (12, 1000, 2)):
            env = {"s24": a, "s58": b, "s4": s4}
            m = (a // 6) * (b // 6)
            py = eval(text.replace("TruncToInt", "int").replace("ToFloat", "float").replace("Eq", "_eq")
                      .replace("Ne", "_ne").replace("Mod", "_mod"),
                      {"_eq": lambda u, v: u == v, "_ne": lambda u, v: u != v, "_mod": lambda u, v: u % v}, {
                          "s24": a, "s58": b, "s4": s4})
            assert evaluate(p.term, env) == bool(py), (text, env, m)


def _chain_code(steps: list[tuple[str, float]]) -> tuple[str, str]:
    """The symguard text and the Python code of ``float(s0)`` followed by ``steps``."""
    text, code = "ToFloat(s0)", "float(s0)"
    for op, c in steps:
        if op == "mul":
            text, code = f"{c!r}*({text})", f"({c!r} * {code})"
        elif op == "add":
            text, code = f"({text}) + {c!r}", f"({code} + {c!r})"
        else:
            text, code = f"FloatTrueDiv({text}, {c!r})", f"({code} / {c!r})"
    return text, code


STEP = st.tuples(st.sampled_from(["mul", "add", "div"]),
                 st.sampled_from([0.4, 0.1, -0.3, 0.7, 1.1, 2.5, 1e300, 1e-300, 3.0, -0.6]))
SIZES = st.one_of(st.integers(-300, 300),
                  st.tuples(st.sampled_from([31, 52, 53, 62, 63, 64, 1023, 1024]), st.integers(-3, 3), st.booleans())
                  .map(lambda p: (2 ** p[0] + p[1]) * (-1 if p[2] else 1)))


@settings(max_examples=500, deadline=None)
@given(st.lists(STEP, min_size=1, max_size=3), st.sampled_from(fl.ROUNDINGS),
       st.sampled_from(["==", "!=", "<", "<=", ">", ">="]),
       st.one_of(st.integers(-30, 30), st.sampled_from([2**60, -(2**62), 10**300])), SIZES)
def test_a_rounded_chain_compared_is_pythons_truth_at_any_size(steps: list[tuple[str, float]], name: str, op: str,
                                                              k: int, n: int) -> None:
    if all(decimal_exact(c) for _, c in steps):
        steps = [("mul", 0.4), *steps]
    text, code = _chain_code(steps)
    p = parse_sympy(f"{name}({text}) {op} {k}")
    try:
        want: bool | None = bool(eval(f"{PY[name]}({code}) {op} {k}", {"math": math}, {"s0": n}))
    except OverflowError:  # float(s0) too large, or the rounding of an infinity
        want = None
    got = bool(evaluate(p.term, {"s0": n})) if evaluate(p.domain, {"s0": n}) else None
    assert got == want, (text, op, k, n)


def test_the_compared_forms_agree_with_the_spelled_relations() -> None:
    """``Eq(R(x), k)``, ``R(x) == k`` and ``k == R(x)`` are the same term; ``int(0.4 * n) == 21``
    is the interval ``53 <= n <= 54``."""
    t = "TruncToInt(0.4*ToFloat(s0))"
    a, b, c = parse_sympy(f"Eq({t}, 21)"), parse_sympy(f"{t} == 21"), parse_sympy(f"21 == {t}")
    assert a.term is b.term is c.term
    assert parse_sympy("(s0 >= 53) & (s0 <= 54)").term is a.term
    assert parse_sympy(f"{t} > 3").term is parse_sympy(f"Lt(3, {t})").term is parse_sympy("s0 >= 10").term


@pytest.mark.parametrize(("text", "needle"), [
    ("TruncToInt(0.7*ToFloat(s0)) >= s1", "math.trunc(0.7 * 90) is 62 in Python but 63 for 7/10"),
    ("CeilToInt(0.57*ToFloat(s0)) + s1 >= 3", "float literal 0.57 under CeilToInt"),
    ("FloorToInt(0.1*ToFloat(s0) + 0.3) < s1", "compared with a literal"),
    ("Eq(FloorToInt(0.1*ToFloat(s0)*ToFloat(s1)), 3)", "float literal 0.1 under a rounding function"),
    ("Eq(TruncToInt(0.4*ToFloat(s0) + ToFloat(s1)), 3)", "float literal 0.4 under a rounding function"),
])
def test_what_stays_refused_names_the_literal_or_shape(text: str, needle: str) -> None:
    with pytest.raises(UnsupportedError) as info:
        parse_sympy(text)
    assert needle in str(info.value), str(info.value)


def test_a_redundancy_with_a_scaled_size_matches_brute_force() -> None:
    """``int(0.4 * n) == 21`` pins ``n`` to 53..54, which implies ``n >= 21`` and ``int(0.4*n) <= 30``
    (``int(0.4*n) <= n`` holds for every size: always true);
    brute force over sizes 0..400 with Python's floats agrees with every verdict."""
    t = "TruncToInt(0.4*ToFloat(s0))"
    guards = {"eq": f"Eq({t}, 21)", "ge": "s0 >= 21", "le": f"{t} <= 30", "all": f"{t} <= s0", "ne": f"Ne({t}, 22)"}
    doc = {"symbols": {"s0": {"min": 0, "hint": 53}},
           "guards": [{"id": k, "expr": v} for k, v in guards.items()]}
    ans = {g["id"]: g["verdict"] for g in run("redundancy", doc)["guards"]}
    assert ans == {"eq": "required", "ge": "redundant", "le": "redundant", "all": "always_true", "ne": "redundant"}
    py = {"eq": lambda n: int(0.4 * n) == 21, "ge": lambda n: n >= 21, "le": lambda n: int(0.4 * n) <= 30,
          "ne": lambda n: int(0.4 * n) != 22}
    for n in range(401):
        if py["eq"](n):
            assert py["ge"](n) and py["le"](n) and py["ne"](n)
        assert int(0.4 * n) <= n
