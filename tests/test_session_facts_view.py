"""``FactsView``: the facts of a context held by another process (the server) answer an ``evaluate``
question exactly as the context itself does — the same result document but ``elapsed_ms`` — or
decline it; built from a pickled payload, it never parses the context."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest
from deadline_helpers import library_held
from guard_grammar import boxes, conds, terms
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from symguard.solver import InvalidProblemError
from symguard.solver.session import Context, FactsPayload, FactsView
from symguard.solver.syntax import document

SESSIONS = sorted((Path(__file__).resolve().parents[1] / "smt2_corpus" / "sessions").glob("*.json"))
TRACE = {"symbols": {"s0": {"min": 2, "hint": 96}, "s1": {"min": 2, "hint": 3}},
         "guards": ["Eq(Mod(s0, 16), 0)", "s0 >= 32", "Ne(s1, 1)"]}


def wire(payload: FactsPayload) -> FactsPayload:
    """What crosses from a worker process to the server."""
    out = pickle.loads(pickle.dumps(payload))
    assert isinstance(out, FactsPayload)
    return out


def view_of(ctx: Context, parent: tuple[Context, FactsView] | None = None) -> FactsView:
    view = FactsView.of(wire(ctx.facts_payload(parent[0] if parent else None)), parent[1] if parent else None)
    assert view is not None and view.key == ctx.key
    return view


def same_document(got: dict[str, Any] | None, want: dict[str, Any]) -> bool:
    """Byte-identical result documents, but the time each took."""
    assert got is not None
    strip = [{k: v for k, v in r.items() if k != "elapsed_ms"} for r in (got, want)]
    return json.dumps(strip[0]) == json.dumps(strip[1])


def _session_param(path: Path) -> Any:
    data = json.loads(path.read_text())
    big = sum(e["kind"] == "guard" for e in data["events"]) > 60
    return pytest.param(path, id=path.stem, marks=[pytest.mark.slow] if big else [])


@pytest.mark.parametrize("path", [_session_param(p) for p in SESSIONS])
def test_recorded_sessions_replayed_both_ways(path: Path) -> None:
    """Each recorded ShapeEnv, replayed as the server sees it: the view follows the context by
    payloads (whole at registration, the added conditions at each extension) and every
    question it answers has the worker's answer, byte for byte."""
    data = json.loads(path.read_text())
    ctx = Context({"symbols": data["symbols"], "options": {"timeout_ms": 1000, "on_unsupported": "skip"}})
    view = view_of(ctx)
    pending: dict[str, list[str]] = {"asserts": [], "guards": []}
    asked = answered = 0
    for e in data["events"]:
        if e["kind"] in ("guard", "assert"):
            pending["guards" if e["kind"] == "guard" else "asserts"].append(e["expr"])
            continue
        if pending["asserts"] or pending["guards"]:
            new = ctx.extend({k: v for k, v in pending.items() if v})
            view, ctx = view_of(new, (ctx, view)), new
            pending = {"asserts": [], "guards": []}
        delta = {"queries": [e["expr"]]}
        try:
            want = ctx.run("evaluate", delta)
        except InvalidProblemError:  # an unsupported question: the view refuses it the same way
            with pytest.raises(InvalidProblemError):
                view.evaluate(delta)
            continue
        got = view.evaluate(delta)
        asked += 1
        if got is not None:
            answered += 1
            assert same_document(got, want), (e["expr"], got, want)
        view.sat = view.sat or ctx._state.known_sat()  # what a worker's answer tells the server
    assert asked == 0 or answered > 0


@st.composite
def growing(draw: st.DrawFn) -> tuple[dict[str, Any], list[dict[str, Any]], list[Any]]:
    box = draw(boxes())
    names = list(box["symbols"])
    steps = [{"guards": draw(st.lists(conds(names), min_size=1, max_size=2))}
             for _ in range(draw(st.integers(0, 3)))]
    return box, steps, draw(st.lists(st.one_of(conds(names), terms(names)), min_size=1, max_size=4))


@settings(max_examples=40, deadline=None, phases=[Phase.explicit, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow])
@given(growing())
def test_a_view_answers_as_its_context(case: tuple[dict[str, Any], list[dict[str, Any]], list[Any]]) -> None:
    """Whole or followed step by step, a view's answer (when it gives one) is the context's, and
    a view answers every question the context decides by facts."""
    box, steps, queries = case
    ctx = Context(box)
    stepwise = view_of(ctx)
    for step in steps:
        new = ctx.extend(step)
        stepwise, ctx = view_of(new, (ctx, stepwise)), new
    whole = view_of(Context(ctx.document, key=ctx.key))
    for q in queries:
        delta = {"queries": [q]}
        got = [v.evaluate(delta) for v in (stepwise, whole)]
        want = ctx.run("evaluate", delta)
        for g in got:
            if g is not None:
                assert same_document(g, want)
        assert (got[0] is None) == (got[1] is None)
        if whole.sat and ctx._state.facts().decide(ctx._merge(delta)[0].queries[0]) is not None:
            assert got[0] is not None


def test_what_a_view_declines() -> None:
    ctx = Context(TRACE)
    view = view_of(ctx)
    assert view.sat  # the hints hold
    res = view.evaluate({"queries": ["Eq(Mod(s0, 8), 0)", "s0 >= 16"]})
    assert res is not None and [r["value"] for r in res["queries"]] == [True, True]
    assert view.evaluate({"queries": ["s1 > 5"]}) is None  # depends: z3 finds the witnesses
    for delta in ({"queries": ["s0 > 1"], "guards": ["s1 >= 4"]},  # new guards: another problem
                  {"queries": ["s2 > 1"]},  # a new symbol
                  {"queries": ["s0 > 1"], "symbols": {"s0": {"min": 3}}},
                  {"queries": ["s0 > 1"], "options": {"timeout_ms": 10}},  # other options
                  {"queries": ["s0 > 1"], "exprs": ["s0 + 1"]}):
        assert view.evaluate(delta) is None, delta
    with pytest.raises(InvalidProblemError, match="duplicate id"):  # as the context: an error body
        view.evaluate({"queries": [{"id": "g1", "expr": "s0 > 3"}]})
    view.sat = False  # not known satisfiable: every answer could be vacuous
    assert view.evaluate({"queries": ["s0 >= 16"]}) is None


def test_no_view_before_satisfiability_is_known() -> None:
    ctx = Context({"symbols": {"s0": {"min": 2}}, "guards": ["Eq(Mod(s0, 16), 0)"]})  # no hints
    payload = ctx.facts_payload()
    assert not payload.sat
    ctx.run("evaluate", {"queries": ["s0 >= 16"]})  # z3 has checked the context: sat
    assert ctx.facts_payload().sat


def test_a_patch_needs_its_parent() -> None:
    ctx = Context(TRACE)
    ext = ctx.extend({"guards": ["s1 >= 3"]})
    patch = wire(ext.facts_payload(ctx))
    assert patch.parent == ctx.key
    assert FactsView.of(patch) is None
    assert FactsView.of(patch, view_of(Context({"guards": ["s0 >= 3"]}))) is None  # another context's view
    child = FactsView.of(patch, view_of(ctx))
    assert child is not None and child.key == ext.key
    res = child.evaluate({"queries": ["s1 > 2"]})
    assert res is not None and res["queries"][0]["value"] is True
    unsat_hints = FactsView.of(wire(ctx.extend({"guards": ["s1 >= 4"]}).facts_payload(ctx)), view_of(ctx))
    assert unsat_hints is not None and not unsat_hints.sat  # the hint s1 = 3 fails it: z3 must say sat
    assert patch.frame.symbols == () and patch.frame.ids == {"g3"}  # only what changed travels
    assert child.frame == view_of(ext).frame


def test_a_patch_that_adds_symbols() -> None:
    ctx = Context(TRACE)
    delta = {"symbols": {"s2": {"min": 1, "hint": 5}}, "guards": ["s2 >= 3", "s2 <= s0"]}
    ext = ctx.extend(delta)
    patch = wire(ext.facts_payload(ctx))
    assert [s.name for s in patch.frame.symbols] == ["s0", "s1", "s2"]
    child = FactsView.of(patch, view_of(ctx))
    assert child is not None and child.frame == view_of(ext).frame
    for q in ("s2 >= 2", "s2 <= 4", "Max(s2, 3) >= 3"):
        got = child.evaluate({"queries": [q]})
        want = ext.run("evaluate", {"queries": [q]})
        if got is not None:
            assert same_document(got, want), q
    assert child.evaluate({"queries": ["s2 >= 2"]}) is not None


def test_a_view_never_parses_the_context(monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = Context(TRACE)
    payload = wire(ctx.extend({"guards": ["s1 >= 3"]}).facts_payload())
    parsed: list[str] = []
    real = document.parse_sympy

    def spy(text: str) -> Any:
        parsed.append(text)
        return real(text)

    monkeypatch.setattr(document, "parse_sympy", spy)
    view = FactsView.of(payload)
    assert view is not None and parsed == []
    assert view.evaluate({"queries": ["s1 > 2"]}) is not None
    assert parsed == ["s1 > 2"]


def test_a_view_waits_for_no_thread() -> None:
    """Terms are interned process-wide: a view is built, and answers, only while no other thread is
    in the library; meanwhile building yields False and a question is declined (never waited for)."""
    payload = wire(Context(TRACE).facts_payload())
    ready = FactsView.of(payload)
    assert ready is not None
    with library_held():
        steps = FactsView.build(payload)
        assert next(steps) is False  # busy: the caller tries again later
        assert ready.evaluate({"queries": ["s0 >= 16"]}) is None
    view = FactsView.of(payload)
    assert view is not None
    assert view.evaluate({"queries": ["s0 >= 16"]}) is not None
