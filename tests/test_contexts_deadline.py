"""A question to a context is under the server's deadline too (issue 33): answered by its cut,
counted from its arrival, with the stateless timeout answer for the merged document, whatever
its context's worker does; the cut never kills that worker nor loses what the question teaches.

The mechanism is tested, not the machine's speed: the context workers (forked from this process)
hold marked questions until the test opens a gate file, seconds against deadlines of about one,
and the tests look at what was answered, which calls reached a worker and what became of the
workers — never at how long anything took.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from deadline_helpers import library_unread as _library_unread
from deadline_helpers import same_answer as _same
from service_helpers import metric as _metric
from service_helpers import post_late_body, running_server
from service_helpers import wait_until as _wait

from symguard.service import context_worker, contexts
from symguard.service.context_store import whole_entry
from symguard.service.settings import Settings

GATE = Path(tempfile.gettempdir()) / f"symguard-test-ctx-gate-{uuid.uuid4().hex}"
CALLS = Path(tempfile.gettempdir()) / f"symguard-test-ctx-calls-{uuid.uuid4().hex}"
GATED_MS = 2000  # a question with this timeout_ms waits in its worker until GATE exists
REAL_RUN = context_worker.run

CONTEXT: dict[str, Any] = {"symbols": {"s0": {"min": 2, "hint": 96}, "s1": {"min": 2, "hint": 3}},
                           "guards": ["Eq(Mod(s0, 16), 0)", "s0 >= 32", {"id": "ne", "expr": "Ne(s1, 1)"}]}


def gated_run(key: str, op: str, delta: dict[str, Any], want_view: bool, doc: dict[str, Any] | None,
              spent_ms: float = 0.0) -> Any:
    """``context_worker.run`` in the context worker, which logs each call's timeout_ms and its
    process id, and holds the gated ones (at most 120 s) until the gate opens."""
    t = (delta.get("options") or {}).get("timeout_ms")
    with CALLS.open("a") as f:
        f.write(f"{t}:{os.getpid()}\n")
    if t == GATED_MS:
        for _ in range(12_000):
            if GATE.exists():
                break
            time.sleep(0.01)
    return REAL_RUN(key, op, delta, want_view, doc, spent_ms)


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    # the context workers are forked at the server's start: they run gated_run (pickled by reference)
    contexts.context_worker.run = gated_run  # type: ignore[assignment]
    try:
        with running_server(Settings(workers=1, grace_ms=120_000)) as u:
            yield u
    finally:
        contexts.context_worker.run = REAL_RUN  # type: ignore[assignment]
        GATE.unlink(missing_ok=True)
        CALLS.unlink(missing_ok=True)


def _log() -> list[tuple[str, str]]:
    """(timeout_ms, worker pid) of every call that reached a context worker, in order."""
    lines = CALLS.read_text().split() if CALLS.exists() else []
    return [(t, pid) for t, pid in (line.split(":") for line in lines)]


def _calls() -> list[str]:
    return [t for t, _ in _log()]


def _register(url: str, doc: dict[str, Any]) -> str:
    return str(httpx.post(url + "/v1/contexts", json=doc, timeout=60).json()["context"])


# ------------------------------------------------------------------ the timeout answer


@pytest.mark.parametrize("op", ["solve", "redundancy", "evaluate", "shrink", "simplify"])
def test_a_context_s_timeout_answer_is_the_stateless_one_for_the_merged_document(op: str) -> None:
    doc = {**CONTEXT, "options": {"timeout_ms": 700}}
    delta = {"guards": ["s0 >= 64", {"id": "big", "expr": "s1 <= 100"}], "symbols": {"s2": {"min": 1}},
             "queries": ["s0 > 3", "s2 + 1"], "exprs": ["s0//1"], "options": {"effort": 1000}}
    merged = {**doc, "symbols": {**CONTEXT["symbols"], "s2": {"min": 1}},
              "guards": [*CONTEXT["guards"], *delta["guards"]], "queries": delta["queries"], "exprs": delta["exprs"],
              "options": {"timeout_ms": 700, "effort": 1000}}
    # the context as stored: a registered document of its first guard, extended by the other two
    root = whole_entry({**doc, "guards": CONTEXT["guards"][:1]})
    chain = [root.child("root", {"guards": [{"id": "g1", "expr": "s0 >= 32"}, CONTEXT["guards"][2]]}), root]
    got = contexts._unread(op, chain, delta, 60_000, "a note")
    assert _same(got, _library_unread(op, merged)), got
    assert got["status"] == "unknown" and got["reason"] == "timeout" and got["warnings"][-1] == "a note"
    if op == "redundancy":  # sound: every guard kept, the delta's numbered after the context's
        assert got["minimal"] == ["g0", "g1", "ne", "g3", "big"]


def test_a_context_s_timeout_answer_refuses_what_the_worker_refuses() -> None:
    from symguard.solver.errors import InvalidProblemError

    for delta, where in (({"syntax": "smtlib"}, "syntax"), ({"guards": "s0 > 1"}, "guards"),
                         ({"options": [1]}, "options"), ({"symbols": ["s0"]}, "symbols")):
        with pytest.raises(InvalidProblemError) as e:
            contexts._unread("solve", [whole_entry(CONTEXT)], delta, 60_000, None)
        assert e.value.where == where


# ------------------------------------------------------------------ over HTTP


@pytest.mark.timeout(240)
def test_a_question_held_by_its_worker_is_answered_at_its_deadline_and_its_answer_is_still_kept(url: str) -> None:
    key = _register(url, CONTEXT)
    cuts = _metric(url, "symguard_deadline_cuts_total", 'stage="solving"')
    question = {"context": key, "queries": ["Eq(Mod(s0, 8), 0)", "s1 > 5"], "options": {"timeout_ms": GATED_MS}}
    try:
        got = httpx.post(url + "/v1/evaluate", json=question, timeout=60).json()
        assert got["status"] == "unknown" and got["reason"] == "timeout" and got["cached"] is False, got
        merged = {**CONTEXT, "queries": question["queries"], "options": question["options"]}
        assert _same(got, _library_unread("evaluate", merged)), got  # every query unknown, by the caller's ids
        stages = {s: _metric(url, "symguard_deadline_cuts_total", f'stage="{s}"') for s in ("arrival", "queued")}
        assert _metric(url, "symguard_deadline_cuts_total", 'stage="solving"') == cuts + 1, (stages, _calls())
    finally:
        GATE.touch()
    try:
        # another question waits for the worker (its options are not the context's: the facts view
        # may not answer it), so by its answer the first one's has come back
        follow = httpx.post(url + "/v1/evaluate", json={**question, "queries": ["s0 >= 32"],
                                                        "options": {"timeout_ms": 29_999}}, timeout=60).json()
        assert [q["value"] for q in follow["queries"]] == [True], follow
        # the worker finished the cut question for nobody; its final answer is kept by body, not lost
        again = httpx.post(url + "/v1/evaluate", json=question, timeout=60).json()
        assert again["cached"] is True and again["status"] == "sat", again
        assert [q["value"] for q in again["queries"]] == [True, "depends"]
        # the cut killed no worker: the held question and the later one ran in one process
        pids = {t: pid for t, pid in _log()}
        assert pids[str(GATED_MS)] == pids["29999"], _log()
    finally:
        GATE.unlink()


@pytest.mark.timeout(240)
def test_a_question_waiting_for_its_context_s_worker_is_answered_at_its_deadline_and_never_runs(url: str) -> None:
    key = _register(url, {**CONTEXT, "guards": [*CONTEXT["guards"], "s1 <= 1000"]})
    cuts = _metric(url, "symguard_deadline_cuts_total", 'stage="queued"')
    n = len(_calls())
    blocker = threading.Thread(target=httpx.post, args=(url + "/v1/solve",), kwargs={
        "json": {"context": key, "options": {"timeout_ms": GATED_MS}}, "timeout": 60})
    blocker.start()
    try:
        _wait(lambda: _calls()[n:] == [str(GATED_MS)], "the worker to hold the first question")
        question = {"context": key, "queries": ["s0 > 3"], "guards": ["s1 >= 4"], "options": {"timeout_ms": 1001}}
        got = httpx.post(url + "/v1/evaluate", json=question, timeout=60).json()
        assert got["status"] == "unknown" and got["reason"] == "timeout"
        assert [q["id"] for q in got["queries"]] == ["q0"]
        assert any("waited for its context's worker" in w for w in got["warnings"])
        assert _metric(url, "symguard_deadline_cuts_total", 'stage="queued"') == cuts + 1
    finally:
        GATE.touch()
        blocker.join(60)
    try:
        # a later question runs after anything still in the slot's line: the cut one never reached it
        after = httpx.post(url + "/v1/evaluate", json={**question, "options": {"timeout_ms": 30_000}}, timeout=60)
        assert after.json()["status"] == "sat"
        assert "1001" not in _calls()[n:] and _calls()[-1] == "30000"
    finally:
        GATE.unlink()


@pytest.mark.timeout(240)
def test_a_batch_s_context_items_keep_the_batch_s_deadline(url: str) -> None:
    """A context item of a ``/v1/batch`` counts from the batch's arrival, like a stateless one:
    the second item waits for the worker the first holds, and both are answered at the cut."""
    key = _register(url, {**CONTEXT, "guards": [*CONTEXT["guards"], "s1 <= 999"]})
    queued, solving = (_metric(url, "symguard_deadline_cuts_total", f'stage="{s}"') for s in ("queued", "solving"))
    items = [{"op": "solve", "problem": {"context": key, "options": {"timeout_ms": GATED_MS}}},
             {"op": "evaluate", "problem": {"context": key, "queries": ["s0 > 9"], "options": {"timeout_ms": GATED_MS}}}]
    try:
        got = httpx.post(url + "/v1/batch", json={"items": items}, timeout=60).json()["results"]
        assert [(r["status"], r["reason"]) for r in got] == [("unknown", "timeout")] * 2
        assert _metric(url, "symguard_deadline_cuts_total", 'stage="solving"') == solving + 1
        assert _metric(url, "symguard_deadline_cuts_total", 'stage="queued"') == queued + 1
    finally:
        GATE.touch()
    try:
        _wait(lambda: httpx.post(url + "/v1/solve", json={"context": key}, timeout=60).json()["status"] == "sat",
              "the worker to be free")
    finally:
        GATE.unlink()



@pytest.mark.timeout(240)
def test_a_question_whose_body_comes_after_its_deadline_is_answered_without_its_worker(url: str) -> None:
    """The deadline counts from the request's arrival (its headers): a body sent a second later
    with ``timeout_ms`` 1 has spent its budget, and the question never reaches the worker."""
    key = _register(url, {**CONTEXT, "guards": [*CONTEXT["guards"], "s1 <= 998"]})
    cuts = _metric(url, "symguard_deadline_cuts_total", 'stage="arrival"')
    n = len(_calls())
    question = {"context": key, "queries": ["s0 > 3"], "options": {"timeout_ms": 1}}
    head, payload = post_late_body(url, "/v1/evaluate", json.dumps(question).encode())
    assert head.startswith(b"HTTP/1.1 200"), head
    got = json.loads(payload)
    assert got["status"] == "unknown" and got["reason"] == "timeout" and got["elapsed_ms"] >= 500
    assert any("before the question could reach a worker" in w for w in got["warnings"])
    assert _metric(url, "symguard_deadline_cuts_total", 'stage="arrival"') == cuts + 1
    httpx.post(url + "/v1/solve", json={"context": key, "options": {"timeout_ms": 30_000}}, timeout=60)
    assert _calls()[n:] == ["30000"]  # only the later question reached the worker
