"""Unboundedness certificates (solver/smt/unbounded.py): found where they exist, never for a bounded set."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from small_problems import Expr, conditions, int_exprs, small_problems

from symguard.solver import prepare
from symguard.solver.ir.problem import Problem
from symguard.solver.smt.checker import SAT, Checker, Deadline, units
from symguard.solver.smt.unbounded import period, unbounded


def _model(p: Problem) -> dict[str, int | bool] | None:
    ch = Checker(p, Deadline(5000))
    out = ch.check([ch.selector(c.term) for c in (*p.asserts, *p.guards) if c.term is not None])
    return out.model if out.status == SAT else None


def test_certifies_vit_like_growth() -> None:
    doc = {"symbols": {"a": {"min": 2}, "b": {"min": 2}},
           "guards": ["Ne(a*b*(a - Mod(a, 4)), 0)", "Ne(a*b, b*(a - Mod(a, 4)))", "4 < a - Mod(a, 4)"],
           "queries": ["a*b", "a - Mod(a, 4)", "Mod(a, 4)"]}
    _, canon = prepare(doc)
    p = canon.problem
    m = _model(p)
    assert m is not None
    by_text = {q.text.split(" | ")[0]: q for q in p.queries}
    assert len(by_text) == 3
    grows = {t: unbounded(p, q.term, q.domain, "max", [m], Deadline(5000), units(5000)) for t, q in by_text.items()}
    assert sorted(grows.values()) == [False, True, True]  # Mod(a, 4) stays below 4
    assert all(not unbounded(p, q.term, q.domain, "min", [m], Deadline(5000), units(5000)) for q in p.queries)


def test_period_is_the_lcm_of_constant_divisors() -> None:
    _, canon = prepare({"guards": ["Eq(Mod(s0, 4), 0)", "s1 // 6 >= 1", "s0 // s1 >= 0"]})
    assert period([c.term for c in canon.problem.guards]) == 12


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_never_certifies_a_bounded_set(data: st.DataObject) -> None:
    """Upper ranges moved into guards (invisible to the range filter): every ray must fail."""
    small = data.draw(small_problems(hints=False))
    names = tuple(small.boxes)
    q: Expr = data.draw(st.one_of(int_exprs(names), conditions(names).map(
        lambda c: Expr(f"Piecewise((1, {c.text}), (0, True))", c.fn))))
    doc = {"symbols": {n: {"min": lo} for n, (lo, _) in small.boxes.items()},
           "guards": small.doc["guards"] + [f"{n} <= {hi}" for n, (_, hi) in small.boxes.items()],
           "queries": [q.text]}
    _, canon = prepare(doc)
    p = canon.problem
    m = _model(p)
    if m is None:
        return
    query = p.queries[0]
    for sense in ("min", "max"):
        assert not unbounded(p, query.term, query.domain, sense, [m, m], Deadline(5000), units(2000))
