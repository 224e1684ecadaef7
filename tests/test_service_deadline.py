"""The server keeps the deadline itself (issue 33): a request is answered by its deadline, counted
from its arrival, whatever its worker does — blocked while reading, blocked while solving, or not
free at all — with the sound timeout answer, never cached; the worker then goes back to the pool
or is replaced, cleanly.

The mechanism is tested, not the machine's speed: workers are made to block far past the deadline
(seconds against a deadline of tens of milliseconds), and the tests look at what was answered and
what became of the workers, never at how long it took.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from deadline_helpers import library_held
from deadline_helpers import library_unread as _library_unread
from deadline_helpers import same_answer as _same
from service_helpers import idle_workers, post_late_body, running_server
from service_helpers import metric as _metric
from service_helpers import wait_until as _wait

from symguard.service.runtime import deadline as dl
from symguard.service.settings import Settings
from symguard.solver import api
from symguard.solver.smt.checker import outer_ms

# The real worker, except: a body containing SLOW_READ blocks 3 s while it is being read; a problem
# with timeout_ms 2000 blocks 5 s before solving (then solves, its deadline long gone: within
# grace_ms); 2001 blocks 600 s (it is killed at timeout_ms + grace_ms). Deadlines of a second or
# two leave a worker ample time to read these small problems before the server's cut (the cut may
# come early by the server's recent lag, at most 100 ms): the stage a test expects is certain.
BLOCKING_WORKER = (sys.executable, "-c", """
import time
import symguard.solver.api as api
import symguard.service.runtime.child as child

real_read = child._read
def _read(source):
    if source[0] == "body" and b"SLOW_READ" in source[1]:
        time.sleep(3)
    return real_read(source)
child._read = _read

real = api.compute
def compute(op, canon, **kw):
    if canon.options.timeout_ms == 2000:
        time.sleep(5)
    if canon.options.timeout_ms == 2001:
        time.sleep(600)
    return real(op, canon, **kw)
api.compute = compute
child.main()
""")

PROBLEM: dict[str, Any] = {"symbols": {"s0": {"min": 2}, "s1": {"min": 2}},
                           "guards": ["s0 >= 16", {"id": "ne", "expr": "Ne(s1, 1)"}, "s0 >= 8"],
                           "queries": ["s0 > 3", "FloorDiv(s0, 2)"], "exprs": ["s0//1 + 0"]}
OPS = ("solve", "redundancy", "evaluate", "shrink", "simplify")


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with running_server(Settings(workers=2, grace_ms=6000, queue_size=8), worker_argv=BLOCKING_WORKER) as u:
        yield u


def _settled(url: str) -> None:
    """Both workers up and idle: what a test left behind has ended (``idle_workers`` reads in the
    order that makes it true on return)."""
    idle_workers(url, 2)


def _doc(timeout_ms: int, **extra: Any) -> dict[str, Any]:
    return {**PROBLEM, **extra, "options": {"timeout_ms": timeout_ms}}


# ------------------------------------------------------------------ the pieces


@pytest.mark.parametrize(("body", "cap", "want"), [
    (b'{"options": {"timeout_ms": 7}}', None, 7),
    (b'{"options": {"timeout_ms": 90000}}', 60_000, 60_000),
    (b'{"guards": ["s0 > 1"]}', None, dl.DEFAULT_TIMEOUT_MS),
    (b'{"guards": ["s0 > 1"]}', 1000, 1000),
    (b'{"options": {"timeout_ms": 0}}', None, dl.DEFAULT_TIMEOUT_MS),  # refused by the worker, at once
    (b'{"options": {"timeout_ms": true}}', None, dl.DEFAULT_TIMEOUT_MS),
    (b'{"options": {"timeout_ms": 4000000}}', 60_000, dl.DEFAULT_TIMEOUT_MS),  # refused by the worker
    (b'{"meta": {"options": {"timeout_ms": 5}}}', None, dl.DEFAULT_TIMEOUT_MS),  # only the document's own options
    (b"[1, 2]", None, dl.DEFAULT_TIMEOUT_MS),
    (b"not json", None, dl.DEFAULT_TIMEOUT_MS),
    (b"[" * 100_000 + b"]" * 100_000, None, dl.DEFAULT_TIMEOUT_MS),
    (b'{"options": {"timeout_ms": 1' + b"0" * 5000 + b"}}", None, dl.DEFAULT_TIMEOUT_MS),
])
def test_the_server_reads_the_timeout_a_worker_will_apply(body: bytes, cap: int | None, want: int) -> None:
    assert dl.body_timeout(body, cap) == want


def test_the_clock_cuts_before_the_promise_and_the_worker_before_the_cut() -> None:
    now = time.monotonic()
    for t in (1, 10, 250, 30_000):
        c = dl.Clock(now, t)
        assert c.cut == pytest.approx(now + (outer_ms(t) - dl.SEND_RESERVE_MS) / 1000)
        spent = c.spent_ms()  # the worker's own limit, outer_ms(t) - spent from now, ends before the cut
        assert spent >= dl.SEND_RESERVE_MS + dl.RETURN_RESERVE_MS
        assert time.monotonic() + (outer_ms(t) - spent) / 1000 <= c.cut
    assert dl.Clock(now - 10, 1).cut_in() == 0.0


def test_the_lag_cuts_earlier_within_bounds_and_fades() -> None:
    now = [1000.0]
    lag = dl.Lag(lambda: now[0])
    assert lag.clock(now[0], 250).early_ms == 0
    lag.observe(30)
    lag.observe(-5)  # an answer in time lowers nothing at once
    assert lag.clock(now[0], 250).early_ms == 30
    assert lag.clock(now[0], 1).early_ms == outer_ms(1) / 2  # never more than half the promise
    lag.observe(10_000)
    assert lag.clock(now[0], 30_000).early_ms == dl.Lag.MAX_EARLY_MS
    now[0] += 10 * dl.Lag.HALF_LIFE_S
    assert lag.clock(now[0], 30_000).early_ms == pytest.approx(10_000 / 2**10)
    c = lag.clock(now[0], 250)
    assert c.cut == pytest.approx(now[0] + (outer_ms(250) - dl.SEND_RESERVE_MS - c.early_ms) / 1000)


def _ahead(clock: dl.Clock, wanted: bool = True, fail: bool = False,
           now: dict[str, Any] | None | bool = False) -> tuple[Any, list[str]]:
    """A ``cut.Ahead`` whose builds say when they ran (no clock read: what is asserted is the order);
    ``now``: what its build on the event loop gives (False: it has none)."""
    from symguard.service.runtime.cut import Ahead

    log: list[str] = []

    async def build() -> dict[str, Any]:
        log.append("built")
        if fail:
            raise ValueError("bad input")
        return {"warnings": []}

    def at_once() -> dict[str, Any] | None:
        log.append("built now")
        return now if isinstance(now, dict) else None

    return Ahead(clock, build, lambda: wanted, now=None if now is False else at_once), log


def test_the_timeout_answer_is_built_ahead_when_the_cut_is_near_and_nobody_has_read_the_problem() -> None:
    async def main() -> None:
        ahead, log = _ahead(dl.Clock(time.monotonic(), 1))  # the cut is nearer than UNREAD_LEAD_MS: at once
        await asyncio.sleep(0)
        assert log == ["built"] and ahead.begun  # before anyone asked for it
        out = await ahead.result()
        assert out == {"warnings": []} and log == ["built"]  # the cut takes it: not built twice
        ahead.cancel()

    asyncio.run(main())


def test_the_timeout_answer_is_not_built_ahead_when_a_worker_has_read_the_problem_or_the_cut_is_far() -> None:
    async def main() -> None:
        read, log = _ahead(dl.Clock(time.monotonic(), 1), wanted=False)  # the worker's own unknown is there
        far, far_log = _ahead(dl.Clock(time.monotonic(), 30_000))  # its lead begins 32 s from now
        for _ in range(3):
            await asyncio.sleep(0)
        assert log == [] and far_log == [] and not read.begun and not far.begun
        assert await far.result() == {"warnings": []} and far_log == ["built"]  # a cut that came anyway: built then
        read.cancel()

    asyncio.run(main())


def test_a_timeout_answer_needed_at_once_is_built_on_the_loop_when_the_library_is_free() -> None:
    async def main() -> None:
        for now, want in (({"warnings": ["on the loop"]}, ["built now"]), (None, ["built now", "built"])):
            ahead, log = _ahead(dl.Clock(time.monotonic(), 1), now=now)
            out = await ahead.result()  # at once, before the lead's task ran: a request with no time for a worker
            assert log == want and out == (now or {"warnings": []})
            ahead.cancel()
            await asyncio.sleep(0)
            assert log == want  # the lead's build never began

    asyncio.run(main())
    body = json.dumps(PROBLEM).encode()
    assert _same(dl.unread_answer_now("solve", body, None), dl.unread_answer("solve", body, None))
    with library_held():
        assert dl.unread_answer_now("solve", body, None) is None  # the loop never waits for the lock


def test_a_timeout_answer_built_ahead_raises_the_build_s_error_at_the_cut_and_never_unseen() -> None:
    import gc

    async def main() -> None:
        unseen: list[str] = []
        asyncio.get_running_loop().set_exception_handler(lambda loop, ctx: unseen.append(ctx["message"]))
        ahead, log = _ahead(dl.Clock(time.monotonic(), 1), fail=True)
        await asyncio.sleep(0)
        with pytest.raises(ValueError, match="bad input"):
            await ahead.result()
        unasked, _ = _ahead(dl.Clock(time.monotonic(), 1), fail=True)  # the worker answered: nobody asks
        await asyncio.sleep(0)
        unasked.cancel()
        del unasked
        gc.collect()
        assert log == ["built"] and unseen == []

    asyncio.run(main())


@pytest.mark.parametrize("op", OPS)
def test_the_server_s_own_timeout_answer_is_the_library_s_for_an_unread_problem(op: str) -> None:
    for doc in (PROBLEM, {**PROBLEM, "syntax": "smtlib", "guards": ["(>= s0 16)"], "queries": ["(> s0 3)"],
                          "exprs": []}):
        got = dl.unread_answer(op, json.dumps(doc).encode(), None, "a note")
        want = _library_unread(op, doc)
        assert _same(got, want), (got, want)
        assert got["status"] == "unknown" and got["reason"] == "timeout"
        assert got["warnings"][-1] == "a note"
        assert not api.is_final(op, got)


def test_the_server_s_own_timeout_answer_refuses_what_the_worker_refuses() -> None:
    from symguard.solver.errors import BadInput

    for body in (b"[1]", b'{"symbols": {"s0": {"min": 5, "max": 1}}}', b'{"gaurds": []}', b'{"syntax": "\\ud800"}'):
        with pytest.raises(BadInput):
            dl.unread_answer("solve", body, None)


def test_a_capped_timeout_is_said_in_the_server_s_own_answer_too() -> None:
    got = dl.unread_answer("solve", json.dumps(_doc(90_000)).encode(), 60_000)
    assert any("capped at 60000" in w for w in got["warnings"])


# ------------------------------------------------------------------ over HTTP


@pytest.mark.timeout(240)
@pytest.mark.parametrize("op", ["redundancy", "evaluate", "simplify"])
def test_a_worker_blocked_while_reading_the_server_answers_and_the_worker_is_reused(url: str, op: str) -> None:
    _settled(url)
    restarts = _metric(url, "symguard_worker_restarts_total")
    cuts = _metric(url, "symguard_deadline_cuts_total", 'stage="reading"')
    doc = _doc(1000, source="SLOW_READ")
    r = httpx.post(f"{url}/v1/{op}", json=doc, timeout=60)
    assert r.status_code == 200, r.text
    got = r.json()
    assert got["status"] == "unknown" and got["reason"] == "timeout" and got["cached"] is False
    assert _same(got, _library_unread(op, doc))  # every guard and query unknown, by the caller's ids
    assert _metric(url, "symguard_deadline_cuts_total", 'stage="reading"') == cuts + 1
    _settled(url)  # the worker finished reading, was told to drop the task, and is idle again
    assert _metric(url, "symguard_worker_restarts_total") == restarts
    again = httpx.post(f"{url}/v1/{op}", json=_doc(30_000), timeout=60).json()
    assert again["status"] == "sat" and not again.get("incomplete")


@pytest.mark.timeout(240)
@pytest.mark.parametrize("op", ["solve", "redundancy"])
def test_a_worker_blocked_while_solving_the_server_answers_the_worker_s_fallback(url: str, op: str) -> None:
    _settled(url)
    restarts = _metric(url, "symguard_worker_restarts_total")
    cuts = _metric(url, "symguard_deadline_cuts_total", 'stage="solving"')
    r = httpx.post(f"{url}/v1/{op}", json=_doc(2000), timeout=60)
    assert r.status_code == 200, r.text
    got = r.json()
    assert got["status"] == "unknown" and got["reason"] == "timeout" and got["cached"] is False
    if op == "redundancy":  # sound: every guard kept
        assert got["minimal"] == ["g0", "ne", "g2"] and {g["verdict"] for g in got["guards"]} == {"unknown"}
    assert _metric(url, "symguard_deadline_cuts_total", 'stage="solving"') == cuts + 1
    _settled(url)  # the worker woke, answered nobody, and went back to the pool
    assert _metric(url, "symguard_worker_restarts_total") == restarts
    for _ in range(1):  # never cached: asked again, the same timeout answer
        again = httpx.post(f"{url}/v1/{op}", json=_doc(2000), timeout=60).json()
        assert again["reason"] == "timeout" and again["cached"] is False
        _settled(url)


@pytest.mark.timeout(240)
def test_a_worker_that_never_answers_is_replaced_after_the_caller_was_answered(url: str) -> None:
    _settled(url)
    killed = _metric(url, "symguard_worker_restarts_total", 'reason="timeout"')
    got = httpx.post(f"{url}/v1/redundancy", json=_doc(2001), timeout=60).json()
    assert got["status"] == "unknown" and got["reason"] == "timeout"
    assert got["minimal"] == ["g0", "ne", "g2"]
    _wait(lambda: _metric(url, "symguard_worker_restarts_total", 'reason="timeout"') == killed + 1,
          "the worker to be killed at timeout_ms + grace_ms")
    _settled(url)
    assert httpx.post(f"{url}/v1/solve", json=_doc(30_000), timeout=60).json()["status"] == "sat"


@pytest.mark.timeout(240)
def test_a_request_waiting_for_a_worker_is_answered_at_its_deadline_and_leaves_the_line(url: str) -> None:
    _settled(url)
    cuts = _metric(url, "symguard_deadline_cuts_total", 'stage="queued"')
    blockers = [threading.Thread(target=httpx.post, args=(f"{url}/v1/solve",),
                                 kwargs={"json": _doc(30_000, source=f"SLOW_READ {i}"), "timeout": 60})
                for i in range(2)]
    for t in blockers:
        t.start()
    _wait(lambda: _metric(url, "symguard_workers_busy") == 2, "both workers to be busy")
    got = httpx.post(f"{url}/v1/evaluate", json=_doc(1000), timeout=60).json()  # cut before the 3 s reads end
    assert got["status"] == "unknown" and got["reason"] == "timeout"
    assert [q["id"] for q in got["queries"]] == ["q0", "q1"]
    assert any("waited for a worker" in w for w in got["warnings"])
    assert _metric(url, "symguard_deadline_cuts_total", 'stage="queued"') == cuts + 1
    assert _metric(url, "symguard_queue_depth") == 0  # it left the line
    for t in blockers:
        t.join(60)
    _settled(url)


@pytest.mark.timeout(240)
def test_a_body_sent_after_the_deadline_is_answered_at_once_without_a_worker(url: str) -> None:
    """The deadline counts from the request's arrival: a client that sends its body late spends its
    own budget (here 1 ms, the body coming a second after the headers)."""
    _settled(url)
    cuts = _metric(url, "symguard_deadline_cuts_total", 'stage="arrival"')
    head, payload = post_late_body(url, "/v1/redundancy", json.dumps(_doc(1)).encode())
    assert head.startswith(b"HTTP/1.1 200"), head
    got = json.loads(payload)
    assert got["status"] == "unknown" and got["reason"] == "timeout"
    assert got["elapsed_ms"] >= 500  # counted from the headers, not from the body
    assert _same(got, _library_unread("redundancy", _doc(1)))
    assert _metric(url, "symguard_deadline_cuts_total", 'stage="arrival"') == cuts + 1


def test_workers_run_below_the_server_s_priority(url: str) -> None:
    _settled(url)
    mine = []
    for d in Path("/proc").iterdir():
        try:
            stat, cmd = (d / "stat").read_text(), (d / "cmdline").read_bytes()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid() and b"SLOW_READ" in cmd:
            mine.append(int(d.name))
    assert len(mine) == 2
    for pid in mine:
        assert os.getpriority(os.PRIO_PROCESS, pid) == os.getpriority(os.PRIO_PROCESS, 0) + dl.WORKER_NICE


@pytest.mark.timeout(240)
def test_a_batch_answers_within_its_items_deadline_counted_from_its_arrival(url: str) -> None:
    """Every item's deadline counts from the batch's arrival (docs/service.md): items that hold a
    worker past it get the worker's ready unknown, items still waiting behind them (a batch holds
    at most ``workers`` at once) the unread one, and the batch answers at the cut."""
    _settled(url)
    queued, solving = (_metric(url, "symguard_deadline_cuts_total", f'stage="{s}"') for s in ("queued", "solving"))
    items = [{"op": "redundancy", "problem": _doc(2000, guards=[f"s0 >= {i}", "s1 >= 2"])} for i in range(4)]
    r = httpx.post(f"{url}/v1/batch", json={"items": items}, timeout=60)
    assert r.status_code == 200, r.text
    got = r.json()["results"]
    assert [(x["status"], x["reason"], x["minimal"]) for x in got] == [("unknown", "timeout", ["g0", "g1"])] * 4
    assert sum(any("waited for a worker (all 2 busy, or held by earlier items of its batch)" in w for w in x["warnings"]) for x in got) == 2
    assert _metric(url, "symguard_deadline_cuts_total", 'stage="solving"') == solving + 2
    assert _metric(url, "symguard_deadline_cuts_total", 'stage="queued"') == queued + 2
    _settled(url)  # the two blocked workers finished for nobody; the two waiting items never ran
    fresh = [{"op": "solve", "problem": _doc(30_000, guards=[f"s0 >= {i}"])} for i in range(3)]
    assert [x["status"] for x in httpx.post(f"{url}/v1/batch", json={"items": fresh}, timeout=60).json()["results"]] \
        == ["sat"] * 3


def test_the_server_s_timeout_answer_is_built_under_the_library_s_lock() -> None:
    """It is built in a thread (a large problem would stall the event loop): while another thread
    holds the library, it waits, and then answers."""
    body = json.dumps(PROBLEM).encode()
    out: list[dict[str, Any]] = []
    with api.SERIAL:
        t = threading.Thread(target=lambda: out.append(dl.unread_answer("solve", body, None)))
        t.start()
        t.join(0.5)
        assert not out  # held up by the lock
    t.join(60)
    assert out and out[0]["reason"] == "timeout"


# ------------------------------------------------------------------ contexts: the timeout answer built ahead

CTX: dict[str, Any] = {"symbols": {"s0": {"min": 2, "hint": 96}}, "guards": ["Eq(Mod(s0, 16), 0)", "s0 >= 32"]}
CTX_KEY = "ab" * 32
CTX_FINAL: dict[str, Any] = {"status": "sat", "reason": None, "warnings": [], "cached": False}


def _ctx_service(monkeypatch: pytest.MonkeyPatch, worker: Any, held: bool = True) -> tuple[Any, list[Any]]:
    """A ``ContextService`` (made inside a running loop) whose one context worker is a thread running
    ``worker`` in place of ``context_worker.run``, with ``CTX_KEY`` stored (``held``: its session is in
    the worker too). Its log, in the order the event loop saw it: ``("cut", stage)`` when the cut
    came, ``"begun"`` when the merged unread answer's build (in a thread) began, ``"on the loop"``
    when it was built on the event loop itself. No clock is read: what is asserted is the order."""
    from concurrent.futures import ThreadPoolExecutor

    from symguard.service import contexts
    from symguard.service.context_store import whole_entry
    from symguard.service.metrics import Metrics
    from symguard.service.runtime.cut import Cutter

    log: list[Any] = []
    service = contexts.ContextService(Settings(workers=1), Cutter(Metrics()))
    service.slots[0].ex.shutdown()  # never started a process
    service.slots[0].ex = ThreadPoolExecutor(1)  # type: ignore[assignment]
    service.docs.remember(CTX_KEY, whole_entry(CTX))
    cutter = service.cutter
    assert cutter is not None
    real_unread, real_answer, real_late = contexts._unread, service._unread_answer, cutter._late

    def unread(*a: Any) -> Any:
        if threading.current_thread() is threading.main_thread():
            log.append("on the loop")
        return real_unread(*a)

    async def unread_answer(*a: Any) -> Any:
        log.append("begun")
        return await real_answer(*a)

    async def late(clock: Any, stage: str, answer: Any) -> Any:
        log.append(("cut", stage))
        return await real_late(clock, stage, answer)

    def run(key: str, op: str, delta: Any, want_view: bool, doc: Any, spent_ms: float = 0.0) -> Any:
        if doc is None and not held:
            return ("need",)
        return worker(doc)

    monkeypatch.setattr(contexts, "_unread", unread)
    monkeypatch.setattr(contexts.context_worker, "run", run)
    monkeypatch.setattr(service, "_unread_answer", unread_answer)
    monkeypatch.setattr(cutter, "_late", late)
    return service, log


def _question(timeout_ms: int) -> tuple[bytes, dict[str, Any]]:
    doc = {"context": CTX_KEY, "guards": ["s0 <= 4096"], "queries": ["s0 > 3"], "options": {"timeout_ms": timeout_ms}}
    return json.dumps(doc).encode(), doc


def _ctx_unread(op: str, doc: dict[str, Any]) -> dict[str, Any]:
    from symguard.service import contexts
    from symguard.service.context_store import whole_entry

    return contexts._unread(op, [whole_entry(CTX)], {k: v for k, v in doc.items() if k != "context"}, 60_000, None)


def test_a_context_question_waiting_in_line_has_its_timeout_answer_built_before_the_cut(monkeypatch) -> None:
    """Nobody holds the question (its context's worker is busy): the merged unread answer is begun
    before the cut (the cut is nearer than ``UNREAD_LEAD_MS``: at once), the cut takes it, and the
    question never reaches the worker."""
    called: list[Any] = []

    async def main() -> None:
        def worker(doc: Any) -> Any:
            called.append(doc)
            return ("done", dict(CTX_FINAL), True, None, True)

        service, log = _ctx_service(monkeypatch, worker)
        body, doc = _question(100)
        async with service.slots[0].turn:  # the worker is busy with another question
            res, status = await service.result("solve", body, doc, arrival=time.monotonic())
        assert status == 200 and log == ["begun", ("cut", "queued")], log
        assert _same(res, _ctx_unread("solve", doc)) and res["reason"] == "timeout"
        assert res["warnings"][-1] == "the deadline passed while the question waited for its context's worker"
        await asyncio.sleep(0.05)
        assert called == []  # taken out of the line at the cut
        await service.close()

    asyncio.run(main())


@pytest.mark.parametrize("library_busy", [False, True])
def test_a_context_question_its_worker_holds_is_built_at_the_cut_and_its_answer_is_still_kept(
        monkeypatch, library_busy: bool) -> None:
    """The worker holds the question when its lead comes (it answers by the cut itself, with its
    partial answer): nothing is built ahead. The cut then builds the merged unread answer on the
    event loop, or in a thread when another thread holds the library's lock (the loop never waits
    for it). The worker is not stopped: its late final answer is kept, and the same question is
    then answered from it."""
    go, lock_held, release_lock = threading.Event(), threading.Event(), threading.Event()

    def worker(doc: Any) -> Any:
        go.wait(60)
        return ("done", dict(CTX_FINAL), True, None, True)

    def hold() -> None:
        with api.SERIAL:
            lock_held.set()
            release_lock.wait(60)

    async def main() -> None:
        service, log = _ctx_service(monkeypatch, worker)
        real_answer = service._unread_answer

        async def begun_then_free(*a: Any) -> Any:  # the thread's build waits for the lock: then let it go
            out = real_answer(*a)
            release_lock.set()
            return await out

        monkeypatch.setattr(service, "_unread_answer", begun_then_free)
        holder = threading.Thread(target=hold)
        if library_busy:
            holder.start()
            lock_held.wait(60)
        body, doc = _question(1000)  # its lead begins ~0.85 s after arrival, when the worker holds it
        res, status = await service.result("solve", body, doc, arrival=time.monotonic())
        want = [("cut", "solving"), "begun"] if library_busy else [("cut", "solving"), "on the loop"]
        assert status == 200 and log == want, log
        assert _same(res, _ctx_unread("solve", doc)) and res["reason"] == "timeout"
        go.set()
        for _ in range(600):
            if not service._tasks:
                break
            await asyncio.sleep(0.05)
        again, _ = await service.result("solve", body, doc, arrival=time.monotonic())
        assert again["cached"] is True and again["status"] == "sat"
        release_lock.set()
        if library_busy:
            holder.join(60)
        await service.close()

    asyncio.run(main())


def test_a_context_question_whose_worker_reads_the_stored_document_has_its_answer_built_ahead(monkeypatch) -> None:
    """A worker without the context's session is sent the stored document, and reading it is not
    under the question's deadline: the question is at stage ``reading``, and its merged unread
    answer is begun at its lead, before the cut."""
    go = threading.Event()
    docs: list[Any] = []

    def worker(doc: Any) -> Any:
        docs.append(doc)
        go.wait(60)
        return ("done", dict(CTX_FINAL), True, None, True)

    async def main() -> None:
        service, log = _ctx_service(monkeypatch, worker, held=False)
        body, doc = _question(1000)
        res, status = await service.result("solve", body, doc, arrival=time.monotonic())
        assert status == 200 and log == ["begun", ("cut", "reading")], log
        assert _same(res, _ctx_unread("solve", doc))
        assert docs == [CTX]  # it was sent the document
        go.set()
        await service.close()

    asyncio.run(main())
