"""``simplify`` (solver/ops/simplify.py): the forms users expect, canonical forms, soundness.

Every form returned here is re-checked against its input: by enumerating bounded boxes with
Python's integers (hypothesis) and, for the hand-written cases, by the form reading back through
``sympy_reader`` and through sympy with PyTorch's functions (``test_simplify_writer``).
"""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
from guard_grammar import conds, terms
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symguard.solver import load_problem, run
from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import evaluate, holds
from symguard.solver.ops import simplify as simplify_op
from symguard.solver.ops import simplify_evidence, simplify_facts, simplify_values
from symguard.solver.reason.facts import facts_env
from symguard.solver.reason.rewrite import Rewriter
from symguard.solver.reason.simplify_rules import Decider
from symguard.solver.syntax.sympy_reader import parse_sympy


@pytest.fixture(autouse=True)
def _self_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every changed form is re-checked inside the operation too (points and z3): a difference
    raises ``InternalError`` and fails the test."""
    monkeypatch.setattr(simplify_op, "SELF_CHECK", True)

# (context, expression, the form users expect)
EXPECTED = [
    ({"symbols": {"s": {"min": 0}}}, "s - Mod(s, 4)", "4*(s//4)"),
    ({"symbols": {"M": {"min": 1}, "N": {"min": 1}}}, "FloorDiv(M*N, N)", "M"),
    ({"symbols": {"v": {"min": 0}, "N": {"min": 1}}, "guards": ["v < N"]}, "ModularIndexing(v, 1, N)", "v"),
    ({"symbols": {"s": {"min": 2}}, "guards": ["Eq(Mod(s, 8), 0)"]}, "Mod(s, 8)", "0"),
    ({"symbols": {"s0": {"min": 0}}, "guards": ["s0 >= 1"]}, "Max(s0, 1)", "s0"),
    ({"symbols": {"s": {"min": 2}}, "guards": ["Eq(Mod(s, 8), 0)"]}, "CeilDiv(s, 8)*8", "s"),
    ({"symbols": {"x": {"min": 0}}}, "FloorDiv(FloorDiv(x, 4), 8)", "(x//32)"),
    ({"symbols": {"x": {}, "a": {"min": 1}, "b": {"min": 1}}}, "FloorDiv(FloorDiv(x, a), b)", "(x//(a*b))"),
    ({"symbols": {"x": {"min": 0}}}, "Mod(Mod(Mod(x, 64), 16), 4)", "Mod(x, 4)"),
    ({"symbols": {"x": {}, "N": {"min": 1}}}, "Mod(Mod(x, 4*N), N)", "Mod(x, N)"),
    ({"symbols": {"x": {"min": 0}, "y": {}}}, "2*x + 3*y - x + x*1 - 3*y", "2*x"),
    ({"symbols": {"r": {"min": 0}}, "asserts": ["r < 64"]},
     "ModularIndexing(r, 1, 2) + 2*ModularIndexing(r, 2, 2) + 4*ModularIndexing(r, 4, 16)", "r"),
    ({"symbols": {"a": {"min": 1}, "b": {"min": 1}, "x": {"min": 0}}},
     "32*a*b*(x//(a*b + 1)) + 32*(x//(a*b + 1)) + 32*ModularIndexing(x, 1, a*b + 1)", "32*x"),
    ({"symbols": {"s": {"min": 2}}, "guards": ["s >= 16"]}, "s > 8", "True"),
    ({"symbols": {"s": {"min": 2}}, "guards": ["s >= 16"]}, "Eq(s, 3) | (s < 4)", "False"),
    ({"symbols": {"s0": {"min": 2}, "s1": {"min": 2}}, "guards": ["s0 < s1"]}, "Min(s0, s1) + Max(s1, s0 + 1)",
     "s0 + s1"),
    ({"symbols": {"s": {"min": 0}, "N": {"min": 1}}}, "FloorDiv(N*s + 3, N)", None),  # s + 3//N, see below
    ({"symbols": {"s": {"min": 1}}, "guards": ["s <= 7"]}, "Piecewise((s, s < 8), (2*s, True))", "s"),
]


def _one(ctx: dict[str, Any], expr: str) -> dict[str, Any]:
    res = run("simplify", dict(ctx, exprs=[expr]))
    assert res["op"] == "simplify" and res["status"] == "sat"
    (row,) = res["exprs"]
    return row  # type: ignore[no-any-return]


@pytest.mark.parametrize(("ctx", "expr", "want"), EXPECTED)
def test_forms_users_expect(ctx: dict[str, Any], expr: str, want: str | None) -> None:
    row = _one(ctx, expr)
    assert row["id"] == "e0" and row["proved"] is True
    if want is not None:
        assert row["form"] == want
    before, after = row["cost"]["before"], row["cost"]["after"]
    assert (after["divs"], after["ops"]) <= (before["divs"], before["ops"])
    _check_box(ctx, expr, row["form"])


def test_symbolic_divisor_pulls_multiples_out() -> None:
    row = _one({"symbols": {"s": {"min": 0}, "N": {"min": 4}}}, "FloorDiv(N*s + 3, N)")
    assert row["form"] == "s"  # 3//N = 0 once N >= 4


def _check_box(ctx: dict[str, Any], expr: str, form: str, lo: int = -3, span: int = 40) -> None:
    """``form`` equals ``expr`` at every point of a box inside the context (where ``expr`` is defined)."""
    p = load_problem(dict(ctx, exprs=[expr]))
    src, got = parse_sympy(expr), parse_sympy(form)
    names = [s.name for s in p.symbols]
    axes = [range(max(lo, s.lo if s.lo is not None else lo), (s.lo if s.lo is not None else lo) + span)
            if s.hi is None else range(s.lo if s.lo is not None else s.hi - span, s.hi + 1) for s in p.symbols]
    if len(names) > 2:
        axes = [a[:12] for a in axes]
    for vals in itertools.product(*axes):
        env = dict(zip(names, vals))
        if not all(c.term is None or holds(c.term, env) for c in (*p.asserts, *p.guards)):
            continue
        if not holds(src.domain, env):
            continue
        assert evaluate(src.term, env) == evaluate(got.term, env), (expr, form, env)


def test_result_envelope_and_input_order() -> None:
    doc = {"symbols": {"s": {"min": 2}}, "exprs": [{"id": "b", "expr": "s - Mod(s, 4)"}, "Max(s, 1)"]}
    res = run("simplify", doc)
    assert list(res)[:6] == ["op", "status", "key", "cached", "elapsed_ms", "warnings"]
    assert [r["id"] for r in res["exprs"]] == ["b", "e1"]
    assert [r["form"] for r in res["exprs"]] == ["4*(s//4)", "s"]


def test_equal_expressions_get_one_form() -> None:
    """Spellings equal only under the context: one form, so a compiler can CSE them."""
    doc = {"symbols": {"s": {"min": 2}, "t": {"min": 1}}, "guards": ["Eq(Mod(s, 8), 0)"],
           "exprs": ["CeilDiv(s, 8)", "FloorDiv(s, 8)", "FloorDiv(s + 7, 8)", "Max(FloorDiv(s, 8), 1)", "t"]}
    forms = [r["form"] for r in run("simplify", doc)["exprs"]]
    assert forms[0] == forms[1] == forms[2] == forms[3] == "(s//8)"
    assert forms[4] == "t"


def test_form_is_independent_of_names_and_order() -> None:
    a = {"symbols": {"s0": {"min": 2}, "s1": {"min": 1}}, "guards": ["s0 >= s1"],
         "exprs": ["Max(s0, s1) + FloorDiv(s0*s1, s1)", "Mod(s1, 8) + s0 - Mod(s0, 4)"]}
    b = {"symbols": {"q": {"min": 1}, "p": {"min": 2}}, "guards": ["q <= p"],
         "exprs": ["Mod(q, 8) + p - Mod(p, 4)", "FloorDiv(p*q, q) + Max(q, p)"]}
    ra, rb = run("simplify", a), run("simplify", b)
    assert ra["key"] == rb["key"]
    rename = {"s0": "p", "s1": "q"}  # s0 plays p's part in the second spelling
    fa = [re.sub(r"\bs[01]\b", lambda m: rename[m.group(0)], r["form"]) for r in ra["exprs"]]
    assert fa == [r["form"] for r in reversed(rb["exprs"])]


def test_unproven_rewrite_returns_the_input() -> None:
    """A side condition z3 cannot decide in time leaves the expression as written."""
    doc = {"symbols": {"a": {"min": 1}, "b": {"min": 1}, "c": {"min": 1}},
           "guards": ["a*b*c - a*a*b*b <= 0"], "exprs": ["Mod(a*b, 7*c + a*a*b*b)"],
           "options": {"timeout_ms": 50}}
    row = run("simplify", doc)["exprs"][0]
    if not row["proved"]:
        assert row["form"] == "Mod(a*b, 7*c + a*a*b*b)"
        assert row["cost"]["before"] == row["cost"]["after"]


def test_unsat_context_leaves_every_expression() -> None:
    res = run("simplify", {"symbols": {"s": {"min": 2}}, "guards": ["s < 1"], "exprs": ["Max(s, 1)"]})
    assert res["status"] == "unsat"
    assert res["exprs"][0]["form"] == "Max(s, 1)" and res["exprs"][0]["proved"] is False


def test_exprs_are_part_of_the_key_and_default_ids() -> None:
    base = {"symbols": {"s": {"min": 2}}}
    k1 = run("simplify", dict(base, exprs=["s + 1"]))["key"]
    k2 = run("simplify", dict(base, exprs=["s + 2"]))["key"]
    assert k1 != k2
    assert run("solve", base)["key"] == run("solve", dict(base))["key"]


# ------------------------------------------------------------------ properties

@st.composite
def contexts(draw: st.DrawFn) -> tuple[dict[str, Any], list[str]]:
    names = ["x", "y"]
    symbols = {}
    for s in names:
        lo = draw(st.integers(-3, 3))
        symbols[s] = {"min": lo, "max": lo + draw(st.integers(0, 12))}
    guards = draw(st.lists(conds(names), max_size=2))
    exprs = draw(st.lists(st.one_of(terms(names), conds(names), torchy(names)), min_size=1, max_size=3))
    return {"symbols": symbols, "guards": guards, "options": {"timeout_ms": 20_000}}, exprs


def torchy(names: list[str]) -> st.SearchStrategy[str]:
    """What Inductor writes: Mod chains, nested FloorDiv, CeilDiv, ModularIndexing, Max with 1."""
    n = st.sampled_from(names)
    c = st.sampled_from(["1", "2", "3", "4", "8"])
    return st.one_of(
        st.tuples(n, c, c).map(lambda p: f"Mod(Mod({p[0]}, {p[1]}*{p[2]}), {p[2]})"),
        st.tuples(n, c, c).map(lambda p: f"FloorDiv(FloorDiv({p[0]}, {p[1]}), {p[2]})"),
        st.tuples(n, c).map(lambda p: f"CeilDiv({p[0]}, {p[1]})*{p[1]}"),
        st.tuples(n, c, n).map(lambda p: f"ModularIndexing({p[0]} + {p[2]}, {p[1]}, {p[1]} + 5)"),
        st.tuples(n, c).map(lambda p: f"{p[0]} - Mod({p[0]}, {p[1]})"),
        st.tuples(n, n).map(lambda p: f"Max({p[0]}, 1) + Min({p[1]}, {p[0]})"),
        st.tuples(n, n).map(lambda p: f"FloorDiv({p[0]}*{p[1]} + {p[1]}, {p[1]})"),
        # mixed-radix digits: Mod(x, 2) + 2*ModularIndexing(x, 2, c) = Mod(x, 2*c)
        st.tuples(n, c, n).map(lambda p: f"{p[2]} + ModularIndexing({p[0]}, 1, 2) + 2*ModularIndexing({p[0]}, 2, {p[1]})"
                                         f" + {2 * int(p[1])}*ModularIndexing({p[0]}, {2 * int(p[1])}, 3)"),
        # cofactors summing to the divisor: 4*x*(y//(x + 1)) + 4*(y//(x + 1)) + 4*Mod(y, x + 1) = 4*y
        st.tuples(n, n, c).map(lambda p: f"{p[2]}*{p[0]}*({p[1]}//({p[0]} + 1)) + {p[2]}*({p[1]}//({p[0]} + 1))"
                                         f" + {p[2]}*ModularIndexing({p[1]}, 1, {p[0]} + 1)"),
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(contexts())
def test_every_form_equals_its_input_on_the_whole_box(case: tuple[dict[str, Any], list[str]]) -> None:
    ctx, exprs = case
    res = run("simplify", dict(ctx, exprs=exprs))
    if res["status"] == "unsat":
        return
    p = load_problem(dict(ctx, exprs=exprs))
    names = [s.name for s in p.symbols]
    box = [range(s.lo, s.hi + 1) for s in p.symbols]  # type: ignore[operator]
    for q, row in zip(p.exprs, res["exprs"]):
        got = parse_sympy(row["form"]).term
        after = row["cost"]["after"]
        before = row["cost"]["before"]
        assert (after["divs"], after["ops"]) <= (before["divs"], before["ops"]), (q.text, row)
        for vals in itertools.product(*box):
            env = dict(zip(names, vals))
            if all(c.term is None or holds(c.term, env) for c in p.guards) and holds(q.domain, env):
                assert evaluate(q.term, env) == evaluate(got, env), (q.text, row["form"], env)


# ------------------------------------------------------------------ the structural decider

@st.composite
def decider_cases(draw: st.DrawFn) -> tuple[dict[str, tuple[int, int]], list[str], str]:
    """Ranges, asserts and a condition shaped like the ones ``Decider`` answers: comparisons of
    products with a common factor (``x < x*y``), of ``x//d`` with loop bounds (``x < d*m``) and of
    ``Mod(x, d)`` with its divisor."""
    names = ["x", "d", "m"]
    ranges = {}
    for n in names:
        lo = draw(st.integers(-3, 4))
        ranges[n] = (lo, lo + draw(st.integers(0, 9)))
    asserts = draw(st.lists(st.sampled_from(["x < d*m", "0 <= x", "x <= d*m", "d >= 1", "m >= 2"]), max_size=3))
    n = st.sampled_from(names)
    k = st.integers(-2, 3).map(str)
    cond = draw(st.one_of(
        st.tuples(n, n, k).map(lambda p: f"{p[0]} + {p[2]} < {p[0]}*{p[1]}"),
        st.tuples(n, n, k).map(lambda p: f"Eq({p[0]}*{p[1]} - {p[0]}, {p[2]})"),
        st.tuples(n, n, k).map(lambda p: f"{p[0]}*{p[0]} - {p[0]}*{p[1]} + {p[2]} <= 0"),
        st.tuples(n, n, k).map(lambda p: f"{p[0]}*{p[1]} - x*{p[0]}*{p[1]} - x + {p[2]} <= 0"),
        st.tuples(n, n, k).map(lambda p: f"(x//{p[0]}) + {p[2]} < {p[1]}"),
        st.tuples(n, n, k).map(lambda p: f"(x//{p[0]}) >= {p[1]} + {p[2]}"),
        st.tuples(n, n).map(lambda p: f"(0 <= (x//{p[0]})) & ((x//{p[0]}) < {p[1]})"),
        # a remainder by a symbolic divisor against the divisor (``_remainder_bounds``)
        st.tuples(n, n, k, st.integers(-3, 3)).map(lambda p: f"{p[3]}*Mod(x, {p[0]}) + {p[2]} <= {p[0]} + {p[1]}"),
        st.tuples(n, k).map(lambda p: f"Mod({p[0]}, d) < d + {p[1]}"),
        st.tuples(n, k).map(lambda p: f"Mod({p[0]}, d) > d + {p[1]}"),
    ))
    return ranges, asserts, cond


@settings(max_examples=300, deadline=None)
@given(decider_cases())
def test_decider_answers_only_what_holds_on_the_whole_box(
        case: tuple[dict[str, tuple[int, int]], list[str], str]) -> None:
    """``Decider.decide``'s True (False) is the condition's value at every point of the context
    where its divisors are non-zero: the common-factor interval, the floor-division elimination
    and the remainder's bounds are claims about every integer point, checked here on whole boxes."""
    ranges, asserts, text = case
    parse = [parse_sympy(a).term for a in asserts]
    plain = Rewriter(facts_env(ranges, []))
    decider = Decider(Rewriter(facts_env(ranges, [(plain.rewrite(t), None) for t in parse])))
    cond = parse_sympy(text).term
    got = decider.decide(cond)
    if got is None:
        return
    names = sorted(ranges)
    for vals in itertools.product(*(range(lo, hi + 1) for lo, hi in (ranges[n] for n in names))):
        env = dict(zip(names, vals))
        if not all(holds(t, env) for t in parse) or not all(
                holds(ir.mk_ne(dv.args[1], ir.ZERO), env) for dv in ir.divisions_of(cond)):
            continue
        assert holds(cond, env) is got, (text, asserts, env)


def test_decider_knows_loop_bounds_and_common_factors() -> None:
    """The two families the corpus sent to z3 before: ``x//d < m`` from the loop bound
    ``x < d*m``, and ``s < s*t`` / ``s != s**2`` from ``s >= 2``, ``t >= 2``."""
    ranges = {"x": (0, None), "d": (1, None), "m": (1, None), "s": (2, None), "t": (2, None)}
    bound = parse_sympy("x < d*m").term
    plain = Rewriter(facts_env(ranges, []))
    decider = Decider(Rewriter(facts_env(ranges, [(plain.rewrite(bound), None)])))
    for text, want in [("(0 <= (x//d)) & ((x//d) < m)", True), ("s < s*t", True), ("Ne(s**2, s)", True),
                       ("s*t <= s", False), ("(x//d) >= m", False), ("x < m", None),
                       ("t*s*s + t > s*s + 1", True), ("s*t*m + m > s*t + 1", None),
                       ("Mod(x, d) < d", True), ("Mod(s, d) + 1 <= d", True), ("Mod(x, d) >= d", False),
                       ("d - Mod(x, d) >= 1", True), ("Mod(x, d) < d - 1", None)]:
        assert decider.decide(parse_sympy(text).term) is want, text


# ------------------------------------------------------------------ facts the context implies together

def _propagated(ranges: dict[str, tuple[int | None, int | None]], guards: list[str]) -> tuple[Rewriter, list[ir.Term]]:
    parsed = [parse_sympy(g).as_condition() for g in guards]  # as the problem reads a guard
    plain = Rewriter(facts_env(ranges, []))
    env = facts_env(ranges, [(plain.rewrite(t), None) for t in parsed])
    return simplify_op._propagated(env, parsed), parsed


def test_guards_read_under_each_other_give_constants_and_bounds() -> None:
    """ResNet's ``Eq(((s0 + 7)//8)//2, 3)`` and ``Eq(((s0 + 7)//8)//2, (s0 + 15)//16)`` make
    ``(s0 + 7)//8`` the constant 6; a loop bound ``x < u0`` with ``x >= 0`` makes ``u0 != 0`` —
    both without z3 now."""
    rw, _ = _propagated({"s0": (2, None)}, ["Eq(((s0 + 7)//8)//2, 3)", "Eq(((s0 + 7)//8)//2, (s0 + 15)//16)"])
    assert rw.rewrite(parse_sympy("(s0 + 7)//8").term) is ir.mk_int(6)
    rw, _ = _propagated({"x": (0, None), "u0": (0, None)}, ["x < u0"])
    assert rw.truth(parse_sympy("Eq(u0, 0)").term) is False


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 3), st.integers(0, 8)), min_size=3, max_size=3),
       st.lists(st.one_of(conds(["x", "y", "z"]), st.sampled_from(["x < y + z", "x + y <= 2*z", "Eq(x + y, z)"])),
                min_size=1, max_size=3))
def test_propagated_facts_hold_on_the_whole_box(bounds: list[tuple[int, int]], guards: list[str]) -> None:
    """Every fact the propagation adds is true at every point of the context (guards read under
    the others' facts, bounds carried through linear facts)."""
    ranges = {n: (lo, lo + w) for n, (lo, w) in zip("xyz", bounds)}
    rw, parsed = _propagated(ranges, guards)
    box = [dict(zip("xyz", v)) for v in itertools.product(*(range(lo, hi + 1) for lo, hi in ranges.values()))]
    pts = [pt for pt in box if all(holds(t, pt) for t in parsed)]
    for atom in rw.env.atoms:
        for pt in pts:
            if all(holds(ir.mk_ne(d.args[1], ir.ZERO), pt) for d in ir.divisions_of(atom)):
                assert holds(atom, pt), (guards, atom, pt)


def test_no_z3_where_a_point_of_the_slice_refutes() -> None:
    """``Mod(u0, 4096)`` asks ``u0 < 4096``: true at every sample point (``u0 <= s*t = 35``), and
    z3 on the linear slice (``u1 == u0``, the ranges; not the product) could only find a model
    outside the context. The refutation search met one (``u0 = u1 = 4096``: tied symbols move
    together), so no z3 check is made and the form stays."""
    from symguard.solver.smt.checker import Deadline

    doc = {"symbols": {"u0": {"min": 0}, "u1": {"min": 0}, "s": {"min": 2, "hint": 5}, "t": {"min": 2, "hint": 7}},
           "guards": ["Eq(u1, u0)", "u0 < s*t + 1"], "exprs": ["Mod(u0, 4096)"]}
    r = simplify_op._Run(load_problem(doc), Deadline(20_000))
    res = r.run()
    assert res["exprs"][0]["form"] == "Mod(u0, 4096)"
    assert r.checks == 0 and r._slice_sess is None
    assert simplify_facts._tied_symbols(r.context) == {"u0": ("u0", "u1"), "u1": ("u0", "u1")}


def test_the_sample_gives_each_size_both_parities() -> None:
    """Sizes traced alike (400 at 64, lower bounds 2..8) were moved by four spread moves that
    were often all even: ``Mod(s_i, 2)`` looked constant at every point for 230 of 400 sizes and
    each of its follow-ups paid a decision and a search to refute the guess. The moves tried
    alone now include the hint's neighbours, so (almost) every size is odd at some point."""
    from symguard.solver.smt.checker import Deadline

    doc = {"symbols": {f"s{i}": {"min": 2, "hint": 64} for i in range(400)},
           "guards": [f"s{i} >= {i % 7 + 2}" for i in range(400)]}
    r = simplify_op._Run(load_problem(doc), Deadline(20_000))
    pts = r.values.points
    both = sum(len({pt[f"s{i}"] % 2 for pt in pts}) == 2 for i in range(400))
    assert both >= 380  # (170 before)
    assert {63, 65} <= set(simplify_evidence._safe_tries([2, 3, 9, 40, 63, 65, 80], 64))
    assert r.values.points == pts and all(all(holds(t, pt) for t in r.context) for pt in pts)


@pytest.mark.parametrize("problem", [
    {"asserts": ["s0 < 0"], "exprs": ["s0 >= 100"]},
    {"symbols": {"s0": {"hint": 3}}, "guards": ["s0 < 0"], "exprs": ["s0 + 1"]},
])
def test_asserts_contradicting_the_ranges_are_unsat_as_in_every_operation(problem: dict[str, Any]) -> None:
    """issue 22.3: the sample points satisfied the asserts but not the ranges, and proved the
    context satisfiable: ``sat`` with the form ``False`` "proved", where the other operations say
    ``unsat``."""
    res = run("simplify", problem)
    assert res["status"] == run("solve", problem)["status"] == "unsat"
    assert [r["proved"] for r in res["exprs"]] == [False]


# ------------------------------------------------------------------ a context's forms up to renaming

def _loop_context() -> dict[str, Any]:
    """Four loop variables of constant bound (free, one role), one bounded by a size (not free),
    and two sizes guarded alike but for their lower bound (free, two roles)."""
    return {"symbols": {**{f"x{i}": {"min": 0, "hint": 5} for i in range(4)}, "s0": {"min": 2, "hint": 64},
                        "s1": {"min": 2, "hint": 64}, "s2": {"min": 2, "hint": 64}},
            "guards": [*(f"x{i} < 4096" for i in range(3)), "x3 < s0", "s1 >= 6", "s2 >= 2"]}


def test_a_context_reuses_a_form_across_interchangeable_symbols() -> None:
    from symguard.solver import Context

    ctx = Context(_loop_context())
    shape = "ModularIndexing({x}, 4, 8) + 8*FloorDiv({x}, 32)"
    first = ctx.run("simplify", {"exprs": [shape.format(x="x0")]})["exprs"][0]
    run_ = ctx._state.simplify_engine._run
    assert run_ is not None and run_.shapes is not None and len(run_.shapes) == 1
    for x in ("x1", "x2"):
        row = ctx.run("simplify", {"exprs": [shape.format(x=x)]})["exprs"][0]
        assert row["proved"] and row["form"] == first["form"].replace("x0", x)
    assert len(run_.shapes) == 1  # answered from the first one's form
    roles = run_.roles()
    assert "x3" not in roles and "s0" not in roles and roles["x0"] == roles["x2"] != roles["s1"]
    # a symbol in a constraint with another symbol is not renamed: its own rules answer
    row = ctx.run("simplify", {"exprs": [shape.format(x="x3")]})["exprs"][0]
    assert row["proved"] and len(run_.shapes) == 1


def test_a_first_seen_outline_is_not_renamed() -> None:
    """A form is kept unkeyed until an expression of its roles and outline is asked again: the
    renaming (new terms, normalized) is paid by the second one, which it answers."""
    from symguard.solver import Context

    ctx = Context(_loop_context())
    ctx.run("simplify", {"exprs": ["ModularIndexing(x0, 4, 8) + 8*FloorDiv(x0, 32)"]})
    ctx.run("simplify", {"exprs": ["(x1 + 1)//2 - x1//2"]})
    run_ = ctx._state.simplify_engine._run
    assert run_ is not None and run_.shapes is not None and len(run_.shapes) == 2 and run_.shapes.size == 2
    assert all(not b.keyed and len(b.pending) == 1 for b in run_.shapes.values())
    row = ctx.run("simplify", {"exprs": ["(x2 + 1)//2 - x2//2"]})["exprs"][0]
    assert row["proved"] and row["form"] == "Mod(x2, 2)"
    assert sorted(len(b.keyed) for b in run_.shapes.values()) == [0, 1] and run_.shapes.size == 2
    run_.shapes.clear()
    assert run_.shapes.size == 0


def test_symbols_of_different_roles_do_not_share_a_form() -> None:
    from symguard.solver import Context

    ctx = Context(_loop_context())
    got = [ctx.run("simplify", {"exprs": [f"{s}//2 < 3"]})["exprs"][0]["form"] for s in ("s1", "s2", "s1")]
    assert got == ["False", "s2 <= 5", "False"]
    stateless = [run("simplify", {**_loop_context(), "exprs": [f"{s}//2 < 3"]})["exprs"][0]["form"] for s in ("s1", "s2")]
    assert stateless == got[:2]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["x0", "x1", "x2"]), st.sampled_from(["x0", "x1", "x2"]), st.sampled_from([
    "Mod({a}, 8) + 8*({a}//8)", "({a} + {b})//4 - {a}//4", "Max({a}, {b}) - Min({a}, {b})",
    "ModularIndexing({a}, 2, 16) + 16*({a}//32)", "({a} + 1)//2 - {a}//2", "{a}*{b}//({b} + 1)"]))
def test_renamed_forms_equal_their_expressions(a: str, b: str, shape: str) -> None:
    """Each shape asked of every pair in turn (most answered by renaming an earlier form): each
    form equals its expression at every point of a grid of the context."""
    from symguard.solver import Context

    ctx = Context(_loop_context())
    for x, y in ((a, b), (b, a), ("x0", "x1"), (a, b)):
        expr = shape.format(a=x, b=y)
        row = ctx.run("simplify", {"exprs": [expr]})["exprs"][0]
        e, f = parse_sympy(expr).term, parse_sympy(row["form"]).term
        for vx in (0, 1, 7, 31, 33, 4095):
            for vy in (0, 2, 9, 64):
                pt = {"x0": 0, "x1": 0, "x2": 0, x: vx}
                pt[y] = vy if y != x else vx
                assert _safe(e, pt) == _safe(f, pt), (expr, row["form"], pt)


def _safe(t: ir.Term, pt: dict[str, int]) -> Any:
    try:
        return evaluate(t, pt)
    except ZeroDivisionError:
        return None


# ------------------------------------------------------------------ sample points, a few at a time

def _sampled_run(n_sizes: int = 3) -> simplify_op._Run:
    """A run whose sample is full enough that the first ``HEAD_POINTS`` points are not all of it."""
    from symguard.solver.smt.checker import Deadline

    doc = {"symbols": {**{f"s{i}": {"min": 2, "hint": 64} for i in range(n_sizes)}, "x": {"min": 0, "hint": 5}},
           "guards": [*(f"s{i} >= {i + 2}" for i in range(n_sizes)), "x < s0", "s1 <= 2*s2 + 7"]}
    r = simplify_op._Run(load_problem(doc), Deadline(20_000))
    assert len(r.values.points) > simplify_values.HEAD_POINTS
    return r


_NAMES4 = ["s0", "s1", "s2", "x"]


def _full(r: simplify_op._Run, t: ir.Term) -> list[Any]:
    return [_safe(t, pt) for pt in r.values.points]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(terms(_NAMES4), conds(_NAMES4), st.sampled_from(["TRUE", "x"]))
def test_questions_on_the_first_points_answer_as_on_all(text: str, ctext: str, dom: str) -> None:
    """``guess``, ``seen``, ``false_seen``, ``varies`` and ``fails`` look at the first points
    first (``_Values.head``): each answers exactly as its definition over every point does."""
    r = _sampled_run()
    t, c = parse_sympy(text).term, parse_sympy(ctext).term
    domain = ir.TRUE if dom == "TRUE" else ir.mk_ne(ir.mk_sym("x"), ir.ZERO)
    o = simplify_op._Oracle(r, domain)
    d = [bool(_safe(domain, pt)) for pt in r.values.points]
    vals = [v for v, ok in zip(_full(r, t), d) if ok and v is not None]
    want_guess = vals[0] if len(vals) >= 2 and all(v == vals[0] for v in vals) else None
    assert o.guess(t) == want_guess
    seen = frozenset(v for v, ok in zip(_full(r, c), d) if ok and v is not None)
    assert o.seen(c) == seen and o.false_seen(c) == (False in seen) and o.varies(c) == (len(seen) == 2)
    a, b = parse_sympy(text).term, ir.mk_sym("s1")
    fails = any(ok and u is not None and v is not None and not (0 <= u < v)
                for u, v, ok in zip(_full(r, a), _full(r, b), d))
    assert o.fails(lambda u, v: 0 <= u < v, (a, b)) == fails
    assert r.values.of(t) == _full(r, t)  # a vector computed in part is completed from where it stopped


def test_a_term_the_first_points_tell_apart_pays_for_those_points_only() -> None:
    r = _sampled_run()
    t = parse_sympy("s0 + 2*x").term
    o = simplify_op._Oracle(r, ir.TRUE)
    assert len(set(_full(r, t)[:simplify_values.HEAD_POINTS])) > 1
    assert o.guess(t) is None
    assert len(r.values.memo[t]) == simplify_values.HEAD_POINTS < len(r.values.points)


def test_a_condition_refuted_by_its_parts_is_not_built() -> None:
    """``Simplifier._within`` (``0 <= a < b``) asks the oracle about the parts' values first: refuted
    there, the conjunction is neither built nor proven."""
    from symguard.solver.reason.simplify_rules import Simplifier

    class Refuting:
        def fails(self, pred: Any, terms: Any) -> bool:
            return True

    s = Simplifier(Rewriter(facts_env({"a": (0, 9)}, [])), Refuting())  # type: ignore[arg-type]
    s._proven = lambda cond: pytest.fail("built and proven")  # type: ignore[method-assign]
    assert s._within(ir.mk_sym("a"), ir.mk_int(4)) is False


def test_a_refutation_checks_only_the_constraints_about_what_moved() -> None:
    """On a 400-guard context each candidate of a refutation search moves one size: the search
    starts from a point of the context, so only that size's guards are evaluated, never the
    compiled check of all 400 (which the search used per candidate)."""
    from symguard.solver.smt.checker import Deadline

    doc = {"symbols": {f"s{i}": {"min": 2, "hint": 64} for i in range(400)},
           "guards": [f"s{i} >= {i % 7 + 2}" for i in range(400)]}
    r = simplify_op._Run(load_problem(doc), Deadline(20_000))
    r.values  # noqa: B018 - the sample, and the search's base
    assert r._search is not None and r._base_ok
    names, check, base, moves = r._search
    calls = []
    r._search = (names, lambda *a: calls.append(1) or check(*a), base, moves)
    cond = ir.mk_eq(ir.mk_mod(ir.mk_sym("s123"), ir.mk_int(2)), ir.ZERO)  # s123 even: false at odd moves
    assert r.refute(cond, ir.TRUE) and calls == []
    pt = r.values.points[-1] if len(r.values.points) < simplify_values.MAX_POINTS else None
    if pt is not None:
        assert all(holds(c, pt) for c in r.context) and pt["s123"] % 2 == 1


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(_NAMES4), st.integers(-3, 80), min_size=1, max_size=2))
def test_the_constraints_about_what_moved_decide_as_the_whole_context(moved: dict[str, int]) -> None:
    r = _sampled_run()
    assert r._search is not None and r._base_ok
    names, check, base, _ = r._search
    pt = {**base, **moved}
    assert r._context_at(pt, moved, names, check) == check(*(pt[n] for n in names))


def test_a_sample_point_spares_the_rewrite_of_a_min_max_difference() -> None:
    """``Rewriter.below``: a first-seen ``Max(a, b) + Min(a, b)`` on a context whose sample has a
    point with ``a < b`` and one with ``a > b`` decides "neither dominates" from those points;
    the differences ``b - a`` and ``a - b`` are never built and rewritten (they were, four
    rewrites a request, before)."""
    from symguard.solver import Context

    doc = {"symbols": {f"s{i}": {"min": 2, "hint": 64 + i} for i in range(40)},
           "guards": [f"s{i} >= {i % 7 + 2}" for i in range(40)]}
    ctx = Context(doc)
    ctx.run("simplify", {"exprs": ["s0 - Mod(s0, 4)"]})  # the engine and its sample
    row = ctx.run("simplify", {"exprs": ["Max(s3, s17) + Min(s3, s17)"]})["exprs"][0]
    assert row["proved"] and row["form"] == "s17 + s3"
    run_ = ctx._state.simplify_engine._run
    a, b = ir.mk_sym("s3"), ir.mk_sym("s17")
    assert run_.rw.below is not None and ir.mk_sub(a, b) not in run_.rw.memo and ir.mk_sub(b, a) not in run_.rw.memo
    assert run_._below(a, b, 0) and run_._below(b, a, 0)


_HOOK_SHAPES = ["Max({a}, {b}) + Min({a}, {b})", "Max({a}, {b}) - Min({a}, {b})", "Max({a}, {b} + 1, 3)",
                "Min({a}, 2*{b}, {a} + {b})", "Max({a}//2, {b}) - {b}", "({a} + 1)//2 - {a}//2",
                "Mod({a}, {b} + 4)", "FloorDiv({a}, {b} + 9)", "Min({a}, 4095) + Max({b}, 0)", "{a}//{b} < 3"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["x0", "x1", "x3", "s0", "s1", "s2"]), st.sampled_from(["x0", "x2", "x3", "s0", "s1"]),
       st.lists(st.sampled_from(_HOOK_SHAPES), min_size=1, max_size=4))
def test_the_below_hook_changes_no_form(a: str, b: str, shapes: list[str]) -> None:
    """``Rewriter.below`` is a speed hook: each request's forms are the same with it and with
    it answering "no point known" (every difference rewritten, as before it existed)."""
    from symguard.solver import Context

    got = []
    for hook in (True, False):
        ctx = Context(_loop_context())
        ctx.run("simplify", {"exprs": ["x0 - Mod(x0, 4)"]})
        if not hook:
            ctx._state.simplify_engine._run.rw.below = None
        got.append([ctx.run("simplify", {"exprs": [s.format(a=a, b=b) for s in shapes]})["exprs"]
                    for _ in range(2)])
    assert got[0] == got[1]


def test_a_context_that_writes_out_large_is_compiled_shared() -> None:
    """A guard of 16 nested ``Abs`` (half a million nodes written out): the sample's context check
    computes each shared node once (``compile_shared``) and agrees with ``holds``; the form is
    found and proved (printed as one tree, its source took 2 s to compile and each call 12 ms)."""
    deep = "Abs(" * 16 + "a" + " - 1)" * 16
    guard = parse_sympy(f"{deep} > 2").term
    assert guard.size > simplify_evidence.TREE_CODE
    check = simplify_evidence._context_check([guard, parse_sympy("a > b").term], ["a", "b"])
    for a, b in itertools.product(range(-4, 5), repeat=2):
        assert check(a, b) == (holds(guard, {"a": a, "b": b}) and a > b)
    res = run("simplify", {"symbols": {"a": {}, "b": {}}, "guards": ["a > b", f"{deep} > 2"],
                           "exprs": [f"{deep} > 2"]})
    assert res["exprs"][0]["form"] == "True" and res["exprs"][0]["proved"]
