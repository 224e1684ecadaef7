"""checker: budgets in z3 resource units (deterministic), the wall clock only as the outer limit."""

from __future__ import annotations

import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symguard.solver import prepare
from symguard.solver.api import compute
from symguard.solver.errors import InternalError
from symguard.solver.ir import terms as ir
from symguard.solver.ir.problem import DEFAULT_EFFORT, Problem
from symguard.solver.smt import checker
from symguard.solver.smt.checker import (
    CHECK_COST,
    SAT,
    UNKNOWN,
    UNSAT,
    Checker,
    Deadline,
    OutOfEffort,
    OutOfTime,
    outer_ms,
    plan_units,
    units,
)

# x^3 + y^3 = z^3 has no solution in positive integers, and z3 does not find that out quickly:
# a check that spends whatever it is given
HARD = {"symbols": {"x": {"min": 1}, "y": {"min": 1}, "z": {"min": 1}},
        "guards": ["x*x*x + y*y*y - z*z*z == 0"]}
EASY = {"symbols": {"s0": {"min": 2}, "s1": {"min": 2}},
        "guards": ["Eq(Mod(s0, 8), 0)", "s1 < s0", "s0*s1 >= 100"]}


def problem(doc: dict) -> Problem:
    return prepare(doc)[1].problem


def all_guards(ch: Checker, p: Problem) -> list[int]:
    return [ch.selector(c.term) for c in p.guards if c.term is not None]


def test_units_and_outer_limit_follow_timeout_ms() -> None:
    assert units(2000) == 2000 * checker.UNITS_PER_MS
    assert outer_ms(2000) > 2000
    d = Deadline(2000)
    assert d.units == units(2000) and d.remaining() == d.units and not d.expired
    # the outer limit: wall clock, timeout_ms + 10 % + 50 ms from the start (within the
    # timeout_ms + 20 % + 100 ms promised to callers)
    assert 2000 < outer_ms(2000) <= 2000 * 1.2 + 100
    assert 2.0 < d.wall_end - time.monotonic() <= outer_ms(2000) / 1000
    assert abs(Deadline(2000, started=10.0).wall_end - (10.0 + outer_ms(2000) / 1000)) < 1e-9


def test_a_check_is_charged_what_it_used() -> None:
    p = problem(EASY)
    d = Deadline(2000)
    ch = Checker(p, d)
    out = ch.check(all_guards(ch, p))
    assert out.status == SAT and 0 < d.spent == ch.units < d.units


@settings(max_examples=8, deadline=None)
@given(st.integers(min_value=200, max_value=20_000))
def test_same_grant_same_outcome_and_units(grant: int) -> None:
    """The whole point: a check's outcome and cost are functions of its input and its grant."""
    p = problem(HARD)
    runs = []
    for _ in range(2):
        d = Deadline(2000)
        ch = Checker(p, d)
        out = ch.check(all_guards(ch, p), budget=grant)
        runs.append((out.status, out.reason, d.spent))
    assert runs[0] == runs[1]
    status, reason, spent = runs[0]
    if status == UNKNOWN:  # ran out: charged at least the grant, and says why
        assert reason == "resource" and spent >= grant


def test_running_out_of_units_is_unknown_not_an_exception() -> None:
    p = problem(HARD)
    d = Deadline(10_000, budget_units=5_000)
    ch = Checker(p, d)
    out = ch.check(all_guards(ch, p))
    assert out.status == UNKNOWN and out.reason == "resource" and d.expired
    again = ch.check(all_guards(ch, p))  # nothing left: answered without z3
    assert again.status == UNKNOWN and again.reason == "resource"


def test_a_cap_below_the_plan_stops_the_operation_where_the_plan_goes_on() -> None:
    """The effort as a cap on the default's plan: a check it cuts short that runs out raises
    ``OutOfEffort`` (the plan would have gone on), one the plan itself cuts is ``unknown``; a check
    that finishes within the cap answers as under the whole plan, charged the same units."""
    p = problem(HARD)
    d = Deadline(10_000, budget_units=10**9, cap=5_000)
    ch = Checker(p, d)
    with pytest.raises(OutOfEffort):
        ch.check(all_guards(ch, p))
    assert d.cut
    d = Deadline(10_000, budget_units=5_000, cap=10**9)  # the plan's own end: an answer, go on
    ch = Checker(p, d)
    assert ch.check(all_guards(ch, p)).reason == "resource" and not d.cut
    runs = []
    for cap in (10**9, 2_000_000):
        d = Deadline(10_000, budget_units=10**9, cap=cap)
        ch = Checker(problem(EASY), d)
        out = ch.check(all_guards(ch, problem(EASY)))
        runs.append((out.status, d.spent, d.cut))
    assert runs[0] == runs[1] and runs[0][0] == SAT


def test_charged_python_work_past_the_cap_stops_before_it() -> None:
    d = Deadline(10_000, budget_units=10**6, cap=100)
    d.pay(60)
    assert d.affords(60)  # the plan affords it ...
    with pytest.raises(OutOfEffort):  # ... the cap does not: nothing charged
        d.pay(60)
    assert d.spent == 60 and d.cut
    with pytest.raises(OutOfEffort):  # nor a check's setup
        d.admits(None, CHECK_COST + 50)


def test_the_plan_up_to_the_default_then_rungs_of_four() -> None:
    assert [plan_units(e) for e in (1, DEFAULT_EFFORT, 4 * DEFAULT_EFFORT - 1, 4 * DEFAULT_EFFORT, 10**9)] == \
        [DEFAULT_EFFORT, DEFAULT_EFFORT, DEFAULT_EFFORT, 4 * DEFAULT_EFFORT, DEFAULT_EFFORT * 4 ** 5]


def test_scoped_check_needs_units_for_its_setup() -> None:
    p = problem(EASY)
    d = Deadline(2000)
    ch = Checker(p, d)
    hs = all_guards(ch, p)
    assert ch.check_scoped(hs, budget=1).status == UNKNOWN
    assert d.spent == 0  # refused before building a solver
    assert ch.check_scoped(hs).status == SAT


def test_unsat_core_through_the_operation_context() -> None:
    p = problem({"guards": ["s0 >= 16", "s0 < 8", "s1 >= 0"]})
    ch = Checker(p, Deadline(2000))
    out = ch.check(all_guards(ch, p))
    assert out.status == UNSAT and len(out.core) == 2


def test_each_deadline_has_its_own_context() -> None:
    a, b = Deadline(100), Deadline(100)
    assert a.ctx is a.ctx and a.ctx is not b.ctx


def test_outer_limit_raises_out_of_time() -> None:
    p = problem(HARD)
    d = Deadline(10_000, budget_units=10**12, limit_ms=150)  # time ends it, not the units
    ch = Checker(p, d)
    t0 = time.monotonic()
    with pytest.raises(OutOfTime):
        ch.check(all_guards(ch, p))
    assert time.monotonic() - t0 < 5
    with pytest.raises(OutOfTime):  # and every later check
        ch.check([])


def test_interrupt_from_another_thread_raises_out_of_time() -> None:
    p = problem(HARD)
    d = Deadline(10_000, budget_units=10**12, limit_ms=60_000)
    ch = Checker(p, d)
    hs = all_guards(ch, p)
    timer = threading.Timer(0.2, d.interrupt)
    timer.start()
    t0 = time.monotonic()
    try:
        with pytest.raises(OutOfTime):
            ch.check(hs)
    finally:
        timer.cancel()
    assert time.monotonic() - t0 < 10 and d.out_of_time


def test_compute_answers_unknown_when_the_outer_limit_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    """api.compute turns OutOfTime into the operation's sound unknown result (never cached)."""
    monkeypatch.setattr(checker, "WALL_SHARE", -1)
    monkeypatch.setattr(checker, "WALL_SLACK_MS", 0)
    canon = prepare({**HARD, "guards": HARD["guards"] + ["x >= 2"]})[1].problem
    res = compute("redundancy", canon)
    assert res["status"] == "unknown" and res["reason"] == "timeout"
    assert all(g["verdict"] == "unknown" for g in res["guards"])
    assert res["minimal"] == [g.id for g in canon.guards]


def test_close_releases_what_the_checker_built_and_the_context_goes_on() -> None:
    """Two checkers in one context (redundancy's two passes): the first gives its z3 ASTs back at
    ``close``, not when the cycle collector runs, and the second answers as a fresh one would."""
    p = problem(EASY)
    d = Deadline(2000)
    first = Checker(p, d)
    out = first.check(all_guards(first, p))
    assert out.status == SAT
    assert first.conv.memoization
    first.close()
    assert not first.conv.memoization and not first.conv.functions  # no cycle left to collect
    second = Checker(p, d)
    again = second.check(all_guards(second, p))
    assert again.status == SAT


def test_a_lemma_is_for_scoped_checks_and_stays_out_of_the_incremental_solver() -> None:
    """``Checker.lemma``: switched on in a scoped check like a selector, never asserted in the
    incremental solver (nor the division definitions only it needs), whose history it must not
    change; a selector made later over the same division brings the definition in."""
    p = problem({"symbols": {"x": {"min": 0, "max": 100}, "y": {"min": 1, "max": 10}}, "guards": ["x >= 0"]})
    ch = Checker(p, Deadline(2000))
    before = len(ch.solver.assertions())
    big = {s.hi: s.name for s in p.symbols}  # the problem's own (canonical) symbol names
    x, y = ir.mk_sym(big[100]), ir.mk_sym(big[10])
    q = ir.mk_floordiv(x, y)
    lem = ch.lemma(ir.mk_le(ir.mk_int(3), q))  # x//y >= 3
    assert len(ch.solver.assertions()) == before
    with pytest.raises(InternalError):
        ch.check([lem])
    less = ch.selector(ir.mk_lt(x, ir.mk_mul(ir.mk_int(3), y)))  # x < 3*y, no division
    assert ch.check_scoped([lem, less]).status == UNSAT
    assert ch.check([less]).status == SAT
    assert ch.lemma(ir.mk_lt(x, ir.mk_mul(ir.mk_int(3), y))) == less  # a selector already there serves
    # a selector over the same division: its definition now goes into the incremental solver too
    sel = ch.selector(ir.mk_le(ir.mk_int(3), q))
    assert sel != lem
    assert ch.check([sel, less]).status == UNSAT
    neg = ch.lemma(ir.mk_le(ir.mk_int(3), q), negated=True)  # x//y < 3
    assert ch.check_scoped([neg, sel]).status == UNSAT
