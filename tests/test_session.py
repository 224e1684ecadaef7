"""Contexts: an answer for a context plus a delta is the stateless answer for the merged problem,
however the context was built (registered whole or extended step by step) and whatever was asked
before; a follow-up question never re-parses the context."""

from __future__ import annotations

from typing import Any

import pytest
from guard_grammar import boxes, conds, terms
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from symguard.solver import InvalidProblemError, TooLargeError, prepare, run
from symguard.solver.ir.pyeval import holds
from symguard.solver.session import Context
from symguard.solver.syntax import document

VOLATILE = ("key", "elapsed_ms", "cached")


def merged(ctx: dict[str, Any], *deltas: dict[str, Any]) -> dict[str, Any]:
    """The stateless document: the context's lists followed by every delta's."""
    out = {k: (list(v) if isinstance(v, list) else v) for k, v in ctx.items()}
    for d in deltas:
        for k, v in d.items():
            if k in ("asserts", "guards"):
                out[k] = list(out.get(k, [])) + list(v)
            elif k in ("symbols", "options"):
                out[k] = {**out.get(k, {}), **v}
            else:
                out[k] = v
    return out


def same_answer(op: str, got: dict[str, Any], want: dict[str, Any], doc: dict[str, Any]) -> None:
    """Equal but for the key, timing and which witness points, models and cores z3 found (the
    stateless engine's own z3 runs differ in those within one process: they share z3's state)."""
    g = {k: v for k, v in got.items() if k not in VOLATILE}
    w = {k: v for k, v in want.items() if k not in VOLATILE}
    for r in (g, w):
        if "stats" in r:
            r["stats"] = {k: v for k, v in r["stats"].items() if k != "solver_ms"}
    if op == "solve" and w["status"] == "unsat":  # any small unsat core is an answer (docs/problem-format.md §2)
        ids = {e["id"] if isinstance(e, dict) else f"{sec[0]}{i}" for sec in ("asserts", "guards")
               for i, e in enumerate(doc.get(sec, []))}
        assert set(g.pop("core")) <= ids and w.pop("core")
    if op == "solve" and w["status"] == "sat":  # z3's model may differ between runs: any model is one
        p = document.load_problem(doc)
        m = g.pop("model")
        w.pop("model")
        assert all(holds(c.term, m) for c in (*p.asserts, *p.guards) if c.term is not None)
    if op == "redundancy" and g != w:  # the greedy pass's z3 checks may differ between runs in one process
        assert g["status"] == w["status"]
        fixed = ("always_true", "always_false")
        assert [(r["id"], r["verdict"]) for r in g["guards"] if r["verdict"] in fixed] == \
            [(r["id"], r["verdict"]) for r in w["guards"] if r["verdict"] in fixed]
        return
    if op != "evaluate":
        assert g == w
        return
    assert g["status"] == w["status"] and len(g["queries"]) == len(w["queries"])
    p = document.load_problem(doc)
    for rg, rw, q in zip(g["queries"], w["queries"], p.queries):
        if rw.get("value") == "unknown" or rw.get("exact") is False:
            continue  # the stateless run ran out of budget: nothing to compare
        for k in ("id", "kind", "value", "min", "max", "exact"):
            assert rg.get(k) == rw.get(k), (k, q.text, rg, rw)
        for side, truth in (("when_true", True), ("when_false", False)):
            if side in rg:  # a witness: a point of the merged problem where the query has that value
                m = rg[side]
                assert all(holds(c.term, m) for c in (*p.asserts, *p.guards) if c.term is not None)
                assert holds(q.term, m) is truth


@st.composite
def sessions(draw: st.DrawFn) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    box = draw(boxes())
    names = list(box["symbols"])
    steps = [{"guards": draw(st.lists(conds(names), min_size=1, max_size=2))}
             for _ in range(draw(st.integers(0, 3)))]
    queries = draw(st.lists(st.one_of(conds(names), terms(names)), min_size=1, max_size=3))
    return box, steps, {"queries": queries}


@settings(max_examples=25, deadline=None, phases=[Phase.explicit, Phase.generate], suppress_health_check=[HealthCheck.too_slow])
@given(sessions())
def test_context_answers_equal_stateless_answers(case: tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]) -> None:
    box, steps, question = case
    ctx = Context(box)
    extended = ctx
    for step in steps:
        extended = extended.extend(step)
    whole = merged(box, *steps)
    fresh = Context(extended.document).problem  # the extended context's document rebuilds it
    assert [(c.id, c.text) for c in fresh.guards] == [(c.id, c.text) for c in extended.problem.guards]
    assert fresh.symbols == extended.problem.symbols
    for op in ("evaluate", "redundancy", "solve"):
        delta = question if op == "evaluate" else {}
        want = run(op, merged(whole, delta))
        for c, d in ((extended, delta), (ctx, merged({}, *steps, delta))):  # the very problem, unparsed
            assert prepare(c._merge(d)[0])[1].key == want["key"]
        same_answer(op, extended.run(op, delta), want, merged(whole, delta))
        same_answer(op, ctx.run(op, merged({}, *steps, delta)), want, merged(whole, delta))  # one big delta
    # asked again, after other questions: the same answer (learned, not recomputed)
    again = extended.run("evaluate", question)
    same_answer("evaluate", again, run("evaluate", merged(whole, question)), merged(whole, question))


TRACE = {"symbols": {"s0": {"min": 2, "hint": 96}, "s1": {"min": 2, "hint": 3}},
         "guards": ["Eq(Mod(s0, 16), 0)", "s0 >= 32", "Ne(s1, 1)"]}


def test_follow_up_never_reparses_the_context(monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = Context(TRACE)
    parsed: list[str] = []
    real = document.parse_sympy

    def spy(text: str) -> Any:
        parsed.append(text)
        return real(text)

    monkeypatch.setattr(document, "parse_sympy", spy)
    res = ctx.run("evaluate", {"queries": ["Eq(Mod(s0, 8), 0)", "s0 >= 16"]})
    assert [r["value"] for r in res["queries"]] == [True, True]
    ext = ctx.extend({"guards": ["s1 >= 4"]})
    ext.run("evaluate", {"queries": ["s1 > 3"]})
    assert parsed == ["Eq(Mod(s0, 8), 0)", "s0 >= 16", "s1 >= 4", "s1 > 3"]


def test_keys() -> None:
    ctx = Context(TRACE)
    assert ctx.key == Context(dict(reversed(TRACE.items()))).key  # a registered context: its document
    assert ctx.key != run("solve", TRACE)["key"]  # not the canonical key alone: it ignores names and ids
    a = ctx.extend({"guards": ["s1 >= 4"]})
    b = Context(TRACE).extend({"guards": [{"id": f"g{len(TRACE['guards'])}", "expr": "4 <= s1"}]})
    c = Context(TRACE).extend({"guards": [{"id": "mine", "expr": "4 <= s1"}]})
    assert a.key == b.key != ctx.key  # derived: the same context and delta, any spelling
    assert c.key not in (a.key, ctx.key)  # but the ids are the caller's meaning (minimal names them)
    q1 = ctx.run("evaluate", {"queries": ["s0 > 1", "s1 > 1"]})["key"]
    q2 = ctx.run("evaluate", {"queries": ["1 < s1", "s0 > 1", "s0 > 1"]})["key"]
    assert q1 == q2 != ctx.key
    assert ctx.extend({}) is ctx


def test_deltas_take_the_merged_documents_ids_and_symbols() -> None:
    ctx = Context(TRACE)
    res = ctx.run("redundancy", {"guards": ["s0 >= 16"], "symbols": {"s2": {"min": 5}}, "asserts": ["s2 <= s1"]})
    assert [g["id"] for g in res["guards"]] == ["g0", "g1", "g2", "g3"]
    assert res["guards"][3]["verdict"] == "redundant"
    assert ctx.run("solve", {"guards": ["s1 >= 10"]})["model"]["s1"] >= 10
    unsat = ctx.run("evaluate", {"guards": ["s0 < 8"], "queries": ["s1 > 0"]})
    assert unsat["status"] == "unsat" and unsat["queries"][0]["value"] is None


def test_bad_deltas() -> None:
    ctx = Context(TRACE)
    with pytest.raises(InvalidProblemError, match="duplicate id"):
        ctx.run("solve", {"guards": [{"id": "g1", "expr": "s0 > 3"}]})
    with pytest.raises(InvalidProblemError, match="unknown field"):
        ctx.run("solve", {"syntax": "smtlib"})
    with pytest.raises(InvalidProblemError, match="no queries"):
        ctx.extend({"queries": ["s0 > 1"]})
    with pytest.raises(InvalidProblemError, match="no queries"):
        Context({**TRACE, "queries": ["s0 > 1"]})


def test_a_question_past_the_outer_limit_is_unknown_not_an_exception(monkeypatch: pytest.MonkeyPatch) -> None:
    """The session's own z3 path and the engine share one outer limit per request; past it the
    answer is the sound partial one (a loaded machine once made ``OutOfTime`` escape ``Context.run``):
    the context is known satisfiable (its hints hold), the query is ``unknown``, ``incomplete``."""
    from symguard.solver.smt.checker import Deadline

    ctx = Context(TRACE)
    monkeypatch.setattr(Deadline, "out_of_time", property(lambda self: True))
    res = ctx.run("evaluate", {"queries": ["s0*s1 >= 200"]})  # not decided by the facts: needs z3
    assert (res["status"], res.get("reason"), res["queries"][0]["value"]) == ("sat", None, "unknown")
    assert res["incomplete"] is True
    again = ctx.run("evaluate", {"queries": ["s1 >= 1"]})  # decided by the facts: no clock asked
    assert again["queries"][0]["value"] is True and "incomplete" not in again


def test_a_question_counts_its_deadline_from_the_requests_start(monkeypatch: pytest.MonkeyPatch) -> None:
    """``spent_ms`` (a server's queue before the worker took the question) starts the library's
    clock that much earlier: the deadline is the request's, not the worker's. Under a frozen
    clock: a question that already spent its whole outer limit is the timeout answer, the same
    question with nothing spent is decided."""
    from symguard.solver.smt.checker import Deadline, outer_ms

    monkeypatch.setattr(Deadline, "clock", staticmethod(lambda: 1000.0))
    ctx = Context({**TRACE, "options": {"timeout_ms": 200}})
    late = ctx.run("evaluate", {"queries": ["s0*s1 >= 200"]}, spent_ms=outer_ms(200) + 1)
    assert late["queries"][0]["value"] == "unknown" and late["queries"][0]["reason"] == "timeout"
    ctx = Context({**TRACE, "options": {"timeout_ms": 200}})
    on_time = ctx.run("evaluate", {"queries": ["s0*s1 >= 200"]}, spent_ms=0)
    assert on_time["queries"][0]["value"] != "unknown" and "incomplete" not in on_time


def test_a_later_integer_question_never_reuses_an_earlier_bound_literal() -> None:
    """issue 22.1: the views of one z3 session each numbered their bound literals from zero, so a
    later question's ``.o0`` was the earlier question's too, with its implication still asserted:
    the range came out too narrow and "exact"."""
    box = {"symbols": {"s0": {"min": -1, "max": 6, "hint": 2}, "s1": {"min": 0, "max": 8, "hint": 4}}}
    ctx = Context(box)
    ctx.run("evaluate", {"queries": ["CeilDiv(Mod(s0, 3), s1)"]})
    q = "(Where(Ge(s1, s0), s0, s1) * (s1 % -3))"
    got = ctx.run("evaluate", {"queries": [q]})["queries"][0]
    assert (got["min"], got["max"], got["exact"]) == (-12, 2, True)
    assert run("evaluate", {**box, "queries": [q]})["queries"][0] == got


def test_a_deltas_default_min_reaches_the_symbols_the_context_never_declared() -> None:
    """issue 22.2: the merged problem kept the context's ranges for symbols declared without a min
    or not at all, so ``s1 >= 0`` was ``true`` where the merged document says ``depends``; an
    extension made with the option answered one way in memory and the other re-read from its
    document."""
    box = {"symbols": {"s0": {"max": 9}}, "guards": ["s1 < 5"]}
    d = {"queries": ["s1 >= 0", "s0 >= 0"], "options": {"default_min": None}}
    want = [r["value"] for r in run("evaluate", {**box, **d})["queries"]]
    assert want == ["depends", "depends"]
    assert [r["value"] for r in Context(box).run("evaluate", d)["queries"]] == want
    ext = Context(box).extend({"options": {"default_min": -3}, "guards": ["s0 < 8"]})
    assert ext.problem.symbols == Context(ext.document).problem.symbols
    q = {"queries": ["s1 >= -3", "s1 >= -2", "s0 >= -3"]}
    got = [r["value"] for r in ext.run("evaluate", q)["queries"]]
    assert got == [r["value"] for r in Context(ext.document).run("evaluate", q)["queries"]] == [True, "depends", True]


def test_contexts_refuse_lone_surrogates_as_the_stateless_call_does() -> None:
    """issue 22.6: ``solver.Context`` accepted a guard id ``"\\udc00"`` that ``solver.run`` refuses."""
    bad = {"guards": [{"id": "\udc00", "expr": "s0 >= 2"}]}
    with pytest.raises(InvalidProblemError, match="lone surrogate"):
        run("solve", bad)
    with pytest.raises(InvalidProblemError, match="lone surrogate"):
        Context(bad)
    for delta in (bad, {"queries": ["s0 >= 2\ud800"]}, {"symbols": {"s9": {"min": 10**5000}}}):
        with pytest.raises((InvalidProblemError, TooLargeError)):
            Context(TRACE).run("evaluate", delta)
        with pytest.raises((InvalidProblemError, TooLargeError)):
            Context(TRACE).extend({k: v for k, v in delta.items() if k != "queries"} or {"guards": ["s0 > 1\udc00"]})


def test_an_extension_knows_the_same_whether_its_parent_lives_or_not() -> None:
    """issue 22.5: an extension holds its delta and what its ancestors had learned when it was
    made, never the ancestors: a long chain frees them, and the hints verdict still follows
    every range a link changed."""
    import gc
    import weakref

    ctx = Context({"symbols": {"s0": {"min": 2, "hint": 8}}, "guards": ["s0 >= 2"]})
    assert ctx.run("evaluate", {"queries": ["s0 >= 1", "s0 * s0 >= 9"]})["queries"][0]["value"] is True
    first = weakref.ref(ctx._state)
    for i in range(200):
        ctx = ctx.extend({"guards": [f"Ne(s0, {i + 100})"]})
    gc.collect()
    assert first() is None  # the root is not kept alive by its descendants
    whole = merged({"symbols": {"s0": {"min": 2, "hint": 8}}, "guards": ["s0 >= 2"]},
                   *({"guards": [f"Ne(s0, {i + 100})"]} for i in range(200)))
    assert document.load_problem(ctx.document) == document.load_problem(whole)
    assert [(c.id, c.term) for c in ctx.problem.guards] == [(c.id, c.term) for c in document.load_problem(whole).guards]
    assert ctx.known_sat()
    # a link that declares a symbol whose hint violates its range: the hints no longer prove sat
    bad = ctx.extend({"symbols": {"s1": {"min": 5, "hint": 3}}}).extend({"guards": ["s1 >= 1"]})
    assert not bad._state.hints_hold()
    again = Context(bad.document).problem
    assert again.symbols == bad.problem.symbols
    assert [(c.id, c.term) for c in again.guards] == [(c.id, c.term) for c in bad.problem.guards]
