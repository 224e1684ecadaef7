"""``simplify``, round 3: the cheaper canonical forms of the eight classes in docs/simplify.md
(§ Round 3). Each rule has a property test over many instances (literal and symbolic), checked
against brute-force evaluation on a box with negatives and zero, with the cost of the answer
never above the input's (divisions first, and with a division weighed as three operations);
the operation runs with its self-check on (points and z3 inside)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from symguard.solver import load_problem, run
from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import evaluate, holds
from symguard.solver.ops import simplify as simplify_op
from symguard.solver.reason import simplify_intervals as one_term
from symguard.solver.reason.simplify_sums import collect
from symguard.solver.syntax.sympy_reader import parse_sympy
from symguard.solver.syntax.sympy_writer import cost, to_sympy

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(autouse=True)
def _self_check(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(simplify_op, "SELF_CHECK", True)


def _key(c: dict[str, int]) -> tuple[int, int]:
    return (c["divs"], c["ops"])


def _weighted(c: dict[str, int]) -> int:
    return 3 * c["divs"] + c["ops"]


def simplified(symbols: dict[str, tuple[int, int]], exprs: list[str], guards: tuple[str, ...] = ()) -> list[str]:
    """The forms of ``exprs`` under the box ``symbols`` and ``guards``, each checked at every point
    of the box (where its text is defined) against the text, and never costlier."""
    ctx: dict[str, Any] = {"symbols": {n: {"min": lo, "max": hi} for n, (lo, hi) in symbols.items()},
                           "guards": list(guards)}
    res = run("simplify", dict(ctx, exprs=exprs))
    assert res["status"] == "sat", res
    p = load_problem(dict(ctx, exprs=exprs))
    names = list(symbols)
    pts = [dict(zip(names, v)) for v in itertools.product(*(range(lo, hi + 1) for lo, hi in symbols.values()))]
    pts = [pt for pt in pts if all(c.term is None or holds(c.term, pt) for c in p.guards)]
    forms = []
    for q, row in zip(p.exprs, res["exprs"]):
        assert row["proved"], row
        before, after = row["cost"]["before"], row["cost"]["after"]
        assert after == cost(row["form"]) and before == cost(q.text)
        assert _key(after) <= _key(before) and _weighted(after) <= _weighted(before), (q.text, row)
        got = parse_sympy(row["form"]).term
        for pt in pts:
            if holds(q.domain, pt):
                assert evaluate(q.term, pt) == evaluate(got, pt), (q.text, row["form"], pt)
        forms.append(row["form"])
    return forms


def spelled(forms: list[str], wants: list[str]) -> bool:
    """Each form is its wanted text up to the order of sums and products (the canonical names of
    a request decide that order): the same normalized term, and the same cost."""
    return all(parse_sympy(f).term is parse_sympy(w).term and cost(f) == cost(w) for f, w in zip(forms, wants, strict=True))


def divs(form: str) -> int:
    return cost(form)["divs"]


CMP = ["<", "<=", ">", ">="]


# ------------------------------------------------------------------ 1. quotient by a positive divisor

@pytest.mark.parametrize(("expr", "want"), [
    ("x//4 >= 3", "12 <= x"), ("x//4 > 3", "16 <= x"), ("x//4 < 3", "x <= 11"), ("x//4 <= 3", "x <= 15"),
    ("x//p >= c", "c*p <= x"), ("x//p > c", "c*p + p <= x"), ("x//p < c", "x < c*p"), ("x//p <= c", "x < c*p + p"),
    ("x//p >= 3", "3*p <= x"), ("x//p < 2", "x < 2*p"),
])
def test_a_quotient_compared_with_a_bound_is_multiplied_out(expr: str, want: str) -> None:
    assert spelled(simplified({"x": (-30, 30), "p": (1, 6), "c": (-4, 4)}, [expr]), [want])


@SETTINGS
@given(st.sampled_from(CMP), st.integers(-5, 5), st.sampled_from(["c", "2*c", "c + 1", "-c", None]),
       st.sampled_from([("p", (1, 5), ()), ("p", (-3, 5), ("p > 0",)), ("p + 1", (0, 4), ()), ("2*p", (1, 3), ())]))
def test_symbolic_positive_divisors(op: str, k: int, bound: str | None, divisor: tuple[Any, ...]) -> None:
    """``x//p OP c`` for a divisor the context (ranges or a guard) proves positive: no division."""
    d, prange, guards = divisor
    rhs = str(k) if bound is None else bound
    form, = simplified({"x": (-14, 14), "p": prange, "c": (-3, 3)}, [f"(x//({d})) {op} {rhs}"], guards)
    assert divs(form) == 0 or form in ("True", "False"), form


def test_a_divisor_not_proven_positive_is_kept() -> None:
    form, = simplified({"x": (-14, 14), "p": (-3, 3)}, ["x//p >= 2"])
    assert divs(form) == 1


# ------------------------------------------------------------------ 2. a numerator term that cannot carry

def test_a_rest_below_the_radix_is_dropped() -> None:
    forms = simplified({"x": (0, 63), "y": (-130, 130)}, ["(x + 64*y)//4096", "Mod(x + 64*y, 4096)"])
    assert spelled(forms, ["(y//64)", "x + 64*Mod(y, 64)"])
    forms = simplified({"x": (-70, 70), "y": (-130, 130)}, ["(x + 64*y)//4096"], ("x >= 0", "x < 64"))
    assert forms == ["(y//64)"]


@SETTINGS
@given(st.sampled_from([2, 3, 4, 8]), st.sampled_from([2, 3, 5]), st.integers(-3, 3), st.booleans(),
       st.sampled_from(["y", "y + z", "2*y - z"]))
def test_rest_that_cannot_carry_family(k: int, m: int, block: int, as_guard: bool, a: str) -> None:
    """``(r + k*A)//(k*m)`` with ``r`` in one block ``[k*j, k*j + k - 1]`` is ``(A + j)//m``; the
    ``Mod`` counterpart equals its input and costs no more."""
    lo, hi = k * block, k * block + k - 1
    syms = {"r": (lo, hi), "y": (-9, 9), "z": (-4, 4)}
    guards: tuple[str, ...] = ()
    if as_guard:
        syms["r"] = (lo - 3, hi + 3)
        guards = (f"r >= {lo}", f"r <= {hi}")
    forms = simplified(syms, [f"(r + {k}*({a}))//{k * m}", f"Mod(r + {k}*({a}), {k * m})"], guards)
    assert "r" not in forms[0], forms


@SETTINGS
@given(st.sampled_from(["s*t", "t*s", "2*s*t", "s*(t + 1)"]), st.sampled_from(["y", "y + t", "2*y"]),
       st.sampled_from([("r < s", (0, 4)), ("r <= s - 1", (0, 3)), ("r < s", (-2, 4))]))
def test_symbolic_rest_that_cannot_carry(divisor: str, q: str, rest: tuple[str, tuple[int, int]]) -> None:
    """``(r + s*Q)//(s*g)`` with ``0 <= r < s`` and ``g > 0`` proven is ``Q//g`` (``Mod``: ``s*Mod(Q, g) + r``)."""
    guard, rrange = rest
    guards = (guard, "r >= 0") if rrange[0] < 0 else (guard,)
    forms = simplified({"r": rrange, "s": (1, 4), "t": (1, 3), "y": (-6, 6)},
                       [f"(r + s*({q}))//({divisor})", f"Mod(r + s*({q}), {divisor})"], guards)
    assert "r" not in forms[0], forms


def test_symbolic_rest_is_kept_when_it_may_carry() -> None:
    forms = simplified({"r": (0, 4), "s": (1, 4), "t": (1, 3), "y": (-6, 6)}, ["(r + s*y)//(s*t)"])
    assert divs(forms[0]) == 1 and "r" in forms[0], forms


def test_literal_rest_is_kept_when_it_may_carry() -> None:
    forms = simplified({"x": (0, 64), "y": (-20, 20)}, ["(x + 64*y)//4096"])
    assert spelled(forms, ["(x + 64*y)//4096"])


# ------------------------------------------------------------------ 3. a summand that cancels in a Min/Max

@pytest.mark.parametrize(("expr", "want"), [
    ("Min(a, b - c) + c", "Min(c + a, b)"),
    ("Max(0, 3 - 2*x) + 2*x", "Max(3, 2*x)"),
    ("2*Max(a, b - c) + 2*c", "2*Max(c + a, b)"),
])
def test_a_summand_moves_into_an_extreme_where_it_cancels(expr: str, want: str) -> None:
    assert spelled(simplified({"a": (-4, 4), "b": (-4, 4), "c": (-4, 4), "x": (-4, 4)}, [expr]), [want])


@SETTINGS
@given(st.sampled_from(["Max", "Min"]), st.integers(-3, 3).filter(bool), st.integers(1, 3), st.integers(-4, 4),
       st.sampled_from(["a", "0", "a + b", "3"]), st.booleans())
def test_summands_into_extremes_family(kind: str, v: int, n: int, k: int, other: str, extra: bool) -> None:
    """``v*Ext(other, b - n*c + k) + v*n*c [+ a]``: strictly cheaper, equal everywhere."""
    text = f"{v}*{kind}({other}, b - {n}*c + {k}) + {v * n}*c" + (" + a" if extra else "")
    before = cost(text)
    form, = simplified({"a": (-3, 3), "b": (-3, 3), "c": (-3, 3)}, [text])
    assert _key(cost(form)) < _key(before), (text, form)


# ------------------------------------------------------------------ 4. common factors

@SETTINGS
@given(st.sampled_from(["Mod(x, {d})", "(x//{d})", "ModularIndexing(x, 2, {d})", "Max(x, z)"]),
       st.integers(2, 6), st.integers(-4, 4).filter(bool), st.sampled_from(["y", "2*y", "y*z"]))
def test_a_costly_factor_is_written_once(factor: str, d: int, k: int, cof: str) -> None:
    f = factor.format(d=d)
    text = f"{cof}*{f} + {k}*{f}"
    form, = simplified({"x": (-12, 12), "y": (-3, 3), "z": (-2, 2)}, [text])
    assert form.count(f.split("(")[0] or "//") < text.count(f.split("(")[0] or "//") or _key(cost(form)) < _key(cost(text))


def test_common_factor_example() -> None:
    assert spelled(simplified({"x": (-12, 12), "y": (-3, 3)}, ["y*Mod(x, 6) + 4*Mod(x, 6)"]), ["(y + 4)*Mod(x, 6)"])


FACTORS = ["1", "y", "Mod(x, 3)", "x//2", "(-x)//4", "Max(x, y)", "Max(x, -x)", "ModularIndexing(x, 2, 3)",
           "Piecewise((x, y < 1), (y, True))", "(x + 1)//3", "(x - 1)//2"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 3), st.sampled_from(["x", *FACTORS]), st.sampled_from(FACTORS)),
                min_size=1, max_size=5), st.integers(-4, 4))
def test_collect_is_an_identity_and_never_costlier(parts: list[tuple[int, str, str]], k: int) -> None:
    """``collect`` (run on every form) prints no costlier than the sum it is given, whatever the
    factors and signs: its steps are taken by counting, not by printing."""
    text = " + ".join(f"({c})*({a})*({b})" for c, a, b in parts) + f" + {k}"
    t = parse_sympy(text).term
    got = collect(t, {})
    before, after = cost(to_sympy(t)), cost(to_sympy(got))
    assert _key(after) <= _key(before) and _weighted(after) <= _weighted(before), (to_sympy(t), to_sympy(got))
    for x, y in itertools.product(range(-5, 6), repeat=2):
        assert evaluate(got, {"x": x, "y": y}) == evaluate(t, {"x": x, "y": y})


# ------------------------------------------------------------------ 5. quotient and remainder pairs

@pytest.mark.parametrize(("expr", "want_divs"), [
    ("(Mod(x, 3) + 5)//3 + x//3", 1), ("y - 7*((y + z)//7)", 1), ("(2*Mod(x, 4) + y)//4 + 2*(x//4)", 1),
])
def test_quotient_and_remainder_pairs_merge(expr: str, want_divs: int) -> None:
    form, = simplified({"x": (-12, 12), "y": (-5, 5), "z": (-5, 5)}, [expr])
    assert divs(form) == want_divs and _key(cost(form)) < _key(cost(expr)), form


def test_quotient_remainder_examples() -> None:
    assert spelled(simplified({"y": (-9, 9), "z": (-9, 9)}, ["y - 7*((y + z)//7)"]), ["Mod(y + z, 7) - z"])


@SETTINGS
@given(st.integers(2, 7), st.integers(-6, 6), st.integers(-2, 2).filter(bool), st.integers(1, 2),
       st.sampled_from(["y", "2*y", "y - 3"]))
def test_quotient_remainder_family(d: int, k: int, c: int, u: int, rest: str) -> None:
    exprs = [f"{c}*(({u}*Mod(x, {d}) + {k})//{d}) + {c * u}*(x//{d})",
             f"{rest} - {d}*(({rest} + z)//{d})", f"{c}*({rest}) - {c * d}*(({rest} + z + {k})//{d})"]
    forms = simplified({"x": (-9, 9), "y": (-4, 4), "z": (-4, 4)}, exprs)
    assert divs(forms[0]) <= 1, forms


@SETTINGS
@given(st.integers(-3, 3).filter(bool), st.sampled_from([1, -1, 2]), st.integers(-4, 4), st.sampled_from(["x", "x + y", "2*x - 1"]))
def test_a_two_valued_remainder_joins_its_quotient(c: int, b: int, k: int, a: str) -> None:
    """``c*(A//2) + c*b*Mod(A, 2) + k`` is one quotient ``c*((A + r)//2)`` plus a constant when
    ``(v + r)//2 - b*v`` is one value for ``v`` in ``{0, 1}`` (``b = 1``: ``r = 1``); else it stays."""
    text = f"{c}*(({a})//2) + {c * b}*Mod({a}, 2) + {k}"
    form, = simplified({"x": (-9, 9), "y": (-3, 3)}, [text])
    if b == 1:
        assert divs(form) <= 1, (text, form)


# ------------------------------------------------------------------ 6. truncated division against a constant

@pytest.mark.parametrize(("expr", "want"), [
    ("TruncDiv(x, 4) < 2", "x <= 7"), ("TruncDiv(x, 4) > -2", "-7 <= x"), ("TruncDiv(x, 4) < 0", "x <= -4"),
    ("TruncDiv(x, 4) >= 1", "4 <= x"), ("TruncDiv(x, 4) <= -1", "x <= -4"),
    ("Eq(TruncDiv(x, 4), 0)", "And(x <= 3, -3 <= x)"),
])
def test_truncated_division_compared_with_a_constant(expr: str, want: str) -> None:
    assert spelled(simplified({"x": (-40, 40)}, [expr]), [want])


def _trunc(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


@settings(max_examples=120, deadline=None)
@given(st.integers(-6, 6).filter(bool), st.integers(-9, 9), st.sampled_from([*CMP, "==", "!="]))
def test_truncated_division_bounds_by_brute_force(d: int, c: int, op: str) -> None:
    """The interval ``solve`` derives is exactly the set of ``x`` where the comparison holds
    (Python's own arithmetic as the reference, every sign of ``x``, ``d`` and ``c``)."""
    text = f"TruncDiv(x, {d}) {op} {c}" if op not in ("==", "!=") else \
        (f"Eq(TruncDiv(x, {d}), {c})" if op == "==" else f"Ne(TruncDiv(x, {d}), {c})")
    got = one_term.solve(parse_sympy(text).term)
    assert got is not None and got[0] is ir.mk_sym("x")
    spans = got[1]
    ref = {"<": int.__lt__, "<=": int.__le__, ">": int.__gt__, ">=": int.__ge__, "==": int.__eq__, "!=": int.__ne__}[op]
    for x in range(-80, 81):
        inside = any((lo is None or lo <= x) and (hi is None or x <= hi) for lo, hi in spans)
        assert inside == ref(_trunc(x, d), c), (text, x, spans)


@SETTINGS
@given(st.integers(-5, 5).filter(bool), st.integers(-6, 6), st.sampled_from(CMP), st.sampled_from([(-30, 30), (0, 30)]))
def test_truncated_division_comparisons_lose_the_division(d: int, c: int, op: str, box: tuple[int, int]) -> None:
    form, = simplified({"x": box}, [f"TruncDiv(x, {d}) {op} {c}"])
    assert divs(form) == 0, form


# ------------------------------------------------------------------ 7. quotient equality and remainder bound

@SETTINGS
@given(st.integers(2, 9), st.integers(-3, 3), st.integers(0, 9), st.sampled_from(CMP))
def test_quotient_and_remainder_bound_join_into_an_interval(d: int, q: int, r: int, op: str) -> None:
    form, = simplified({"x": (-40, 40)}, [f"And(Eq(x//{d}, {q}), Mod(x, {d}) {op} {r})"])
    assert divs(form) == 0, form


def test_quotient_and_remainder_example() -> None:
    assert spelled(simplified({"x": (-40, 40)}, ["And(Eq(x//8, 3), Mod(x, 8) < 5)"]), ["And(24 <= x, x < 29)"])


# ------------------------------------------------------------------ 8. Piecewise with one condition

def test_piecewise_sum_example() -> None:
    got, = simplified({"x": (-4, 4), "a": (-3, 3), "b": (-3, 3), "d": (-3, 3)},
                      ["Piecewise((a, x < 3), (b, True)) + Piecewise((1, x < 3), (d, True))"])
    assert spelled([got], ["Piecewise((a + 1, x < 3), (b + d, True))"])


@SETTINGS
@given(st.sampled_from([1, 1, 2, -1]), st.sampled_from([1, 1, 3, -2]), st.integers(-3, 3),
       st.sampled_from(["+", "*"]), st.booleans())
def test_piecewise_under_one_condition_family(v: int, w: int, k: int, op: str, chain: bool) -> None:
    cond = "x < 1"
    p1 = f"Piecewise((a, {cond}), (b + {k}, x < 3), (d, True))" if chain else f"Piecewise((a, {cond}), (b + {k}, True))"
    p2 = f"Piecewise((2, {cond}), (d, x < 3), (a, True))" if chain else f"Piecewise((2, {cond}), (d, True))"
    text = f"{v}*{p1} + {w}*{p2}" if op == "+" else f"({p1})*({p2})"
    form, = simplified({"x": (-3, 4), "a": (-2, 2), "b": (-2, 2), "d": (-2, 2)}, [text])
    if op == "*" or v == w == 1:  # (scaled branches may cost what the two Piecewise did: then kept)
        assert form.count("Piecewise") <= 1, (text, form)


# ------------------------------------------------------------------ the interval procedure itself

def _conds() -> st.SearchStrategy[str]:
    k = st.integers(-6, 6).map(str)
    d = st.sampled_from(["2", "3", "-2", "5"])
    ints = st.recursive(st.just("x"), lambda t: st.one_of(
        st.tuples(t, d).map(lambda p: f"(({p[0]})//{p[1]})"),
        st.tuples(t, d).map(lambda p: f"TruncDiv({p[0]}, {p[1]})"),
        st.tuples(st.integers(-3, 3).filter(bool), t, k).map(lambda p: f"({p[0]}*({p[1]}) + {p[2]})"),
        st.tuples(t, k, t, t).map(lambda p: f"Piecewise(({p[0]}, x < {p[1]}), ({p[2]}, True))")), max_leaves=3)
    atom = st.tuples(ints, st.sampled_from([*CMP, "==", "!="]), k).map(lambda p: f"({p[0]}) {p[1]} {p[2]}")
    return st.recursive(atom, lambda b: st.one_of(st.tuples(b, b).map(lambda p: f"And({p[0]}, {p[1]})"),
                                                  st.tuples(b, b).map(lambda p: f"Or({p[0]}, {p[1]})"),
                                                  b.map(lambda a: f"Not({a})")), max_leaves=3)


@settings(max_examples=300, deadline=None)
@given(_conds(), st.sampled_from([(None, None), (-5, 20), (0, None)]))
@example("(Piecewise((x, x < 0), ((-1*(x) + 0), True))) < 0", (None, None))  # the term is Min(x, -x)
def test_one_term_sets_are_exact(text: str, known: tuple[int | None, int | None]) -> None:
    """``solve``'s set is exactly where the condition holds, and ``render`` of it agrees with the
    condition wherever ``x`` is in the known interval."""
    c = parse_sympy(text).term
    got = one_term.solve(c)
    if got is None:
        return
    t, spans = got
    # the term is ``x`` unless the reader folded a Piecewise into another (``Min(x, -x)``): then
    # ``known`` is not about it, and the render is checked where ``x`` is the term
    assert ir.symbols_of(t) == {"x"}
    form = one_term.render(t, spans, known) if t is ir.mk_sym("x") else None
    for x in range(-60, 61):
        v = evaluate(t, {"x": x})
        inside = any((lo is None or lo <= v) and (hi is None or v <= hi) for lo, hi in spans)
        assert inside == evaluate(c, {"x": x}), (text, x, spans)
        if form is not None and (known[0] is None or known[0] <= x) and (known[1] is None or x <= known[1]):
            assert evaluate(form, {"x": x}) == inside, (text, x, to_sympy(form))
