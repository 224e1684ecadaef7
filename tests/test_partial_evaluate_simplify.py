"""Past the wall-clock deadline ``evaluate`` and ``simplify`` answer the sound partial result
(issue 25, docs/problem-format.md §1.3), as ``redundancy`` does (test_redundancy_partial.py):
every query or expression decided before the deadline keeps the row a complete run gives, the
rest are ``unknown`` (evaluate) or come back as sent, ``proved: false`` (simplify), the answer
says ``incomplete: true`` and is never cached. The deadline is made to pass at a chosen time
check (deterministic), in process, in a context's kept engines, and over HTTP (a worker whose
deadline passes the same way)."""

from __future__ import annotations

import sys
from typing import Any

import httpx
import pytest
from deadline_helpers import StopsAfter
from service_helpers import running_server

from symguard.service.settings import Settings
from symguard.solver import Context, api, load_problem
from symguard.solver.ir.canonical import canonicalize
from symguard.solver.ir.problem import DEFAULT_EFFORT
from symguard.solver.ops import evaluate as ev
from symguard.solver.ops import simplify as simp
from symguard.solver.smt.checker import Deadline, OutOfTime

EVALUATE = {
    "symbols": {"a": {"min": 1, "max": 100, "hint": 8}, "b": {"min": 1, "max": 100, "hint": 6},
                "c": {"min": 0, "hint": 5}},
    "guards": ["a*b >= 12", "Eq(Mod(a, 4), 0)", "c < a + b"],
    "queries": ["a + b >= 7", "Mod(a, 2)", "a + c", "b*c <= 10000", "a >= 4", "a - b", "c//4 <= a"],
}
SIMPLIFY = {
    "symbols": {"s0": {"min": 2, "hint": 64}, "s1": {"min": 2, "hint": 48}, "x": {"min": 0, "hint": 5}},
    "guards": ["Eq(Mod(s0, 16), 0)", "x < 4*s1", "s1 <= s0"],
    "exprs": ["Mod(x, 4*s1)", "s0 - Mod(s0, 8)", "FloorDiv(s0 + 7, 8)*8", "Max(s0, s1)", "(x + 4*s1)//(4*s1)",
              "Min(s0, s1) + Max(s0, s1)", "s0 + s1", "x//(4*s1)", "Mod(x + 1, 2) + 2*(x//2)"],
}


def _full() -> Deadline:
    return Deadline(60_000, budget_units=DEFAULT_EFFORT)


def _decided_query(row: dict[str, Any]) -> bool:
    return row.get("value") != "unknown" and row.get("exact") is not False


def test_evaluate_keeps_every_query_answered_before_the_deadline() -> None:
    p = canonicalize(load_problem(EVALUATE)).problem
    full = ev._Run(p, _full()).run()
    assert "incomplete" not in full and all(_decided_query(r) for r in full["queries"])
    seen = set()
    for after in range(2, 40):
        stop = StopsAfter(after)
        part = ev._Run(p, stop).run()
        if stop.calls < after:  # it needed fewer time checks: the complete answer
            assert part == full
            break
        assert part["incomplete"] is True and part["status"] == "sat"
        assert not api.is_final("evaluate", part)
        decided = [a for a in part["queries"] if _decided_query(a)]
        for a, b in zip(part["queries"], full["queries"]):
            assert a == b if _decided_query(a) else a == ev.unknown_row(next(q for q in p.queries if q.id == a["id"]))
        seen.add(len(decided))
    else:
        pytest.fail("the run never completed")
    assert 0 in seen and len(seen) > 3  # from nothing decided to nearly all: never all-unknown past the start


def test_evaluate_before_satisfiability_is_known_answers_unknown() -> None:
    # without hints (which would show it satisfiable with no solver call)
    doc = {**EVALUATE, "symbols": {k: {x: y for x, y in v.items() if x != "hint"} for k, v in EVALUATE["symbols"].items()}}
    p = canonicalize(load_problem(doc)).problem
    with pytest.raises(OutOfTime):  # api.compute turns it into the all-unknown answer
        ev._Run(p, StopsAfter(1)).run()


def _proved(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in rows if r["proved"]]


def test_simplify_keeps_every_form_settled_before_the_deadline() -> None:
    p = canonicalize(load_problem(SIMPLIFY)).problem
    full = simp._Run(p, _full()).run()
    assert "incomplete" not in full and len(_proved(full["exprs"])) == len(p.exprs)
    counts = []
    for after in range(1, 60):
        stop = StopsAfter(after)
        part = simp._Run(p, stop).run()
        if stop.calls < after:
            assert part["exprs"] == full["exprs"]
            break
        assert part["incomplete"] is True and not api.is_final("simplify", part)
        for a, b in zip(part["exprs"], full["exprs"]):
            assert a == b if a["proved"] else a == {"id": b["id"], "form": None, "proved": False}
        counts.append(len(_proved(part["exprs"])))
    else:
        pytest.fail("the run never completed")
    assert counts[0] == 0 and max(counts) > 0 and counts == sorted(counts)


def test_simplify_partial_answer_gives_the_undecided_expressions_back_as_sent() -> None:
    problem, canon = api.prepare(SIMPLIFY)
    part = simp._Run(canon.problem, StopsAfter(5)).run()
    assert part["incomplete"]
    out = api.finish("simplify", part, problem, canon, cached=False, elapsed_ms=0)
    assert out["incomplete"] is True
    texts = {e["id"]: e["expr"] if isinstance(e, dict) else e
             for e in [{"id": f"e{i}", "expr": x} for i, x in enumerate(SIMPLIFY["exprs"])]}
    undecided = [r for r in out["exprs"] if not r["proved"]]
    assert undecided and any(r["proved"] for r in out["exprs"])
    for r in undecided:
        assert r["form"] == texts[r["id"]] and r["cost"]["before"] == r["cost"]["after"]


def test_a_merge_cut_short_only_keeps_forms_it_cannot_change() -> None:
    """Equal expressions share a form (``merge``): past the deadline, a form is kept only when no
    other expression agrees with it at every sample point (merge changes a form only to an equal
    one's) or its group was merged already; an expression not computed counts by its input."""
    from symguard.solver.ir import terms as ir

    doc = {"symbols": {"a": {"min": 0, "hint": 3}, "b": {"min": 0, "hint": 4}},
           "exprs": ["a + b", "Max(a, b) + Min(a, b)", "a*b", "Mod(a, 1) + 7", "b - a"]}
    p = load_problem(doc)  # the engine reads any problem; in input order here
    run = simp._Run(p, _full())
    plus, maxmin, const, diff = 0, 1, 3, 4
    terms: list[ir.Term | None] = [q.term for q in p.exprs]
    terms[const] = ir.mk_int(7)
    terms[diff] = None  # not computed before the deadline
    assert sorted(run.unsettled(terms, set(), set())) == sorted([plus, maxmin, diff])
    assert sorted(run.unsettled(terms, set(), {plus, maxmin})) == [diff]  # their group was done


def _context_engine_stops(ctx: Context, delta: dict[str, Any], after: int) -> dict[str, Any]:
    merged, _, fast = ctx._merge(delta)
    assert fast
    return ctx._state.simplify_engine.answer(merged, StopsAfter(after))


def test_a_context_engine_answers_partially_and_stays_usable() -> None:
    ctx = Context({k: v for k, v in SIMPLIFY.items() if k != "exprs"})
    delta = {"exprs": SIMPLIFY["exprs"]}
    part = _context_engine_stops(ctx, delta, 4)
    assert part["incomplete"] is True
    whole = ctx.run("simplify", delta)  # the same engine, a deadline that does not pass
    assert "incomplete" not in whole and all(r["proved"] for r in whole["exprs"])
    forms = {r["id"]: r["form"] for r in whole["exprs"]}
    stateless = api.run("simplify", SIMPLIFY)
    assert forms.keys() == {r["id"] for r in stateless["exprs"]}
    for r in part["exprs"]:
        if r["proved"]:
            assert r["form"] is not None


def test_a_context_evaluate_answers_partially_and_learns_only_final_rows() -> None:
    ctx = Context({k: v for k, v in EVALUATE.items() if k != "queries"})
    merged, key, _ = ctx._merge({"queries": EVALUATE["queries"]})
    full = api.run("evaluate", EVALUATE)
    st = ctx._state
    from symguard.solver import session

    real = session.Deadline.for_options
    try:
        session.Deadline.for_options = classmethod(lambda cls, o, started=None, entries=0: StopsAfter(4))  # type: ignore[method-assign, assignment, misc]
        part = st.evaluate(merged, key)
    finally:
        session.Deadline.for_options = real  # type: ignore[method-assign]
    assert part is not None and part["incomplete"] is True
    decided = [r for r in part["queries"] if _decided_query(r)]
    assert 0 < len(decided) < len(EVALUATE["queries"])
    for a, b in zip(part["queries"], full["queries"]):
        if _decided_query(a) and a.get("value") != "depends":  # witnesses may differ in a context
            assert a == b
    again = ctx.run("evaluate", {"queries": EVALUATE["queries"]})
    assert "incomplete" not in again
    assert [r.get("value") for r in again["queries"]] == [r.get("value") for r in full["queries"]]


# a worker whose every deadline 'passes' at its AFTER-th time check (deterministic, as above)
_AFTER = 6
STOPPING_WORKER = (sys.executable, "-c", f"""
import symguard.solver.smt.checker as ck
import symguard.service.runtime.child as child

def ensure_time(self):
    self._test_calls = getattr(self, "_test_calls", 0) + 1
    if self._test_calls >= {_AFTER}:
        raise ck.OutOfTime

ck.Deadline.ensure_time = ensure_time
child.main()
""")


def test_partial_answers_over_http_are_the_library_s_and_never_cached() -> None:
    with running_server(Settings(workers=1), worker_argv=STOPPING_WORKER) as url:
        for op, doc, field in (("evaluate", EVALUATE, "queries"), ("simplify", SIMPLIFY, "exprs")):
            problem, canon = api.prepare(doc)
            compute = ev._Run if op == "evaluate" else simp._Run
            mine = api.finish(op, compute(canon.problem, StopsAfter(_AFTER)).run(), problem, canon,
                              cached=False, elapsed_ms=0)
            first = httpx.post(f"{url}/v1/{op}", json=doc, timeout=60).json()
            second = httpx.post(f"{url}/v1/{op}", json=doc, timeout=60).json()
            for got in (first, second):
                assert got["incomplete"] is True and got["cached"] is False, got
                assert got[field] == mine[field]


def test_a_context_worker_never_caches_an_incomplete_answer() -> None:
    """The context worker decides what the server may cache from a few fields of the result;
    ``incomplete`` is one of them (a partial ``redundancy`` can be ``sat`` with every row final-looking)."""
    from symguard.service import context_worker

    rows = {"status": "sat", "guards": [{"id": "g0", "verdict": "required", "implied_by": []}], "minimal": ["g0"]}
    assert context_worker.is_final("redundancy", rows)
    assert not context_worker.is_final("redundancy", {**rows, "incomplete": True})
    part = {"status": "sat", "exprs": [{"id": "e0", "form": "x", "proved": True}], "incomplete": True}
    assert not context_worker.is_final("simplify", part)
