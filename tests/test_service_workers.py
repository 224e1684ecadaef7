"""Worker isolation over real HTTP: a budget overrun is killed and answered ``unknown``; overload is 503."""

from __future__ import annotations

import os
import sys
import tempfile
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from service_helpers import gauge, idle_workers, running_server

from symguard.service.settings import Settings

# A file whose existence opens the gate below (one per test process: xdist runs several).
GATE = f"{tempfile.gettempdir()}/symguard-test-gate-{uuid.uuid4().hex}"
GATED_MS = 60_000
# A worker whose solver ignores its deadline for marked problems (timeout_ms 777): the server
# answers at the deadline and kills the worker at timeout_ms + grace_ms; is slow but within
# budget for another (4778); and holds problems with timeout_ms 60000 until the test opens GATE,
# so that a test can keep workers busy for as long as it needs on however loaded a host.
# Everything else is the real worker.
SLOW_WORKER = (sys.executable, "-c", f"""
import os, time
import symguard.solver.api as api
real = api.compute
def compute(op, canon, **kw):
    if canon.options.timeout_ms == 777:
        time.sleep(600)
    if canon.options.timeout_ms == 4778:
        time.sleep(1.5)
    if canon.options.timeout_ms == {GATED_MS}:
        for _ in range(4000):  # 40 s at most, well before the worker's kill at 60.3 s
            if os.path.exists({GATE!r}):
                break
            time.sleep(0.01)
    return real(op, canon, **kw)
api.compute = compute
from symguard.service.runtime.child import main
main()
""")

PROBLEM: dict[str, Any] = {"symbols": {"s0": {"min": 2}, "s1": {"min": 2}},
                           "guards": ["s0 >= 16", "s0 >= 8", "Ne(s1, 1)"],
                           "queries": ["s0 > 3", "FloorDiv(s0, 2)"]}
SLOW = {**PROBLEM, "options": {"timeout_ms": 777}}


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    settings = Settings(workers=2, grace_ms=300, queue_size=1, recycle_after=3)
    with running_server(settings, worker_argv=SLOW_WORKER) as u:
        yield u


def _metric(url: str, name: str) -> float:
    total = 0.0
    for line in httpx.get(url + "/metrics").text.splitlines():
        if line.startswith(name) and not line.startswith("#"):
            total += float(line.rsplit(" ", 1)[1])
    return total


@pytest.mark.parametrize("op", ["solve", "redundancy", "evaluate", "shrink"])
def test_overrun_is_killed_and_answered_unknown_while_others_are_served(url: str, op: str) -> None:
    idle_workers(url)  # what an earlier test left has ended
    before = _metric(url, 'symguard_worker_restarts_total{reason="timeout"}')
    slow: dict[str, Any] = {}

    def ask_slow() -> None:
        slow["r"] = httpx.post(f"{url}/v1/{op}", json=SLOW, timeout=60)

    t = threading.Thread(target=ask_slow)
    t.start()
    with httpx.Client(base_url=url, timeout=60) as c:  # the other worker keeps answering
        while t.is_alive():
            r = c.post("/v1/solve", json=PROBLEM)
            assert r.status_code in (200, 503)
            t.join(timeout=0.05)
    r = slow["r"]
    assert r.status_code == 200
    res = r.json()
    assert res["op"] == op and res["status"] == "unknown" and res["reason"] == "timeout"
    assert res["cached"] is False and res["elapsed_ms"] >= 777 and len(res["key"]) == 64
    if op == "redundancy":  # sound: nothing dropped
        assert res["minimal"] == ["g0", "g1", "g2"]
        assert {g["verdict"] for g in res["guards"]} == {"unknown"}
    if op == "evaluate":
        assert [q["id"] for q in res["queries"]] == ["q0", "q1"]
    for _ in range(1200):  # the caller had its answer at the deadline; the kill comes at timeout_ms + grace_ms
        if _metric(url, 'symguard_worker_restarts_total{reason="timeout"}') == before + 1:
            break
        threading.Event().wait(0.05)
    assert _metric(url, 'symguard_worker_restarts_total{reason="timeout"}') == before + 1
    again = httpx.post(f"{url}/v1/{op}", json=PROBLEM, timeout=60)  # the replacement works
    assert again.status_code == 200 and again.json()["status"] == "sat"


def test_timeout_answers_are_not_cached(url: str) -> None:
    r = httpx.post(f"{url}/v1/solve", json=SLOW, timeout=60).json()
    assert r["reason"] == "timeout" and r["cached"] is False
    r = httpx.post(f"{url}/v1/solve", json=SLOW, timeout=60).json()
    assert r["reason"] == "timeout" and r["cached"] is False


def _wait_for(url: str, busy: int, waiting: int, threads: list[threading.Thread],
              done: list[httpx.Response]) -> None:
    """Until the pool shows ``busy`` workers busy and ``waiting`` requests in line (one snapshot, bounded)."""
    for _ in range(3000):
        text = httpx.get(url + "/metrics").text
        if gauge(text, "symguard_workers_busy") == busy and gauge(text, "symguard_queue_depth") == waiting:
            return
        assert all(t.is_alive() for t in threads), ([(r.status_code, r.text[:200]) for r in done],
                                                   httpx.get(url + "/readyz").text)
        threading.Event().wait(0.01)
    raise AssertionError(f"never {busy} busy and {waiting} waiting: readyz {httpx.get(url + '/readyz').text}, "
                         f"busy {_metric(url, 'symguard_workers_busy')}, waiting {_metric(url, 'symguard_queue_depth')}")


def test_full_queue_is_503_with_retry_after(url: str) -> None:
    idle_workers(url)  # what an earlier test left has ended
    done: list[httpx.Response] = []

    def ask(i: int) -> None:  # distinct problems: none can be answered from a cache; each holds its
        # worker until the gate opens, so the line stays full however slowly this host runs
        done.append(httpx.post(f"{url}/v1/solve", json={**PROBLEM, "guards": [f"s0 >= {i}"],
                                                        "options": {"timeout_ms": GATED_MS}}, timeout=120))

    threads: list[threading.Thread] = []
    try:
        # one at a time, each in place before the next: 2 workers busy, then 1 waiting = the bound
        for i, (busy, waiting) in enumerate([(1, 0), (2, 0), (2, 1)]):
            threads.append(threading.Thread(target=ask, args=(i,)))
            threads[-1].start()
            _wait_for(url, busy, waiting, threads, done)
        refused = httpx.post(f"{url}/v1/solve", json={**PROBLEM, "options": {"timeout_ms": 1998}}, timeout=60)
    finally:
        open(GATE, "w").close()
        for t in threads:
            t.join()
        os.unlink(GATE)
    assert refused.status_code == 503
    assert refused.headers["retry-after"] == "1" and refused.json()["error"]["code"] == "overloaded"
    assert [r.status_code for r in done] == [200, 200, 200]
    assert {r.json()["status"] for r in done} == {"sat"}


# What an earlier test can leave in a pool of 2 workers, as the steps the pool takes (pool.py):
# a busy worker is released back to idle; or recycled as it is released (gone at once, its
# replacement boots later); or killed (gone), then released, then replaced.
_ENDINGS = {"idle": ("release",), "recycle": ("release+gone", "boot"), "kill": ("gone", "release", "boot")}


class _Pool:
    """A pool as ``/metrics`` and ``/readyz`` show it, taking one scripted step after some reads."""

    def __init__(self, steps: list[tuple[int, str]]) -> None:
        self.alive, self.busy = 2, sum(step == "release" or step == "release+gone" for _, step in steps)
        self.steps, self.reads = sorted(steps, key=lambda s: s[0]), 0  # (after how many reads, step)

    def get(self, url: str) -> httpx.Response:
        r = (httpx.Response(200, text=f"symguard_workers_busy {self.busy}.0\nsymguard_queue_depth 0.0\n")
             if url.endswith("/metrics") else httpx.Response(200, json={"workers": self.alive}))
        self.reads += 1
        while self.steps and self.steps[0][0] <= self.reads:
            step = self.steps.pop(0)[1]
            self.busy -= "release" in step
            self.alive += (step == "boot") - ("gone" in step)
        return r


@st.composite
def _leftovers(draw: st.DrawFn) -> list[tuple[int, str]]:
    """Each busy worker's steps, interleaved in any order, any number of reads apart."""
    todo = [list(_ENDINGS[e]) for e in draw(st.lists(st.sampled_from(sorted(_ENDINGS)), min_size=1, max_size=2))]
    steps, at = [], 0
    while any(todo):
        w = draw(st.sampled_from([i for i, t in enumerate(todo) if t]))
        at += draw(st.integers(0, 3))
        steps.append((at, todo[w].pop(0)))
    return steps


@given(_leftovers())
@example([(1, "gone"), (1, "release"), (9, "boot")])  # the loaded run's: killed between the two reads
def test_idle_workers_returns_only_when_every_worker_is_free(steps: list[tuple[int, str]]) -> None:
    """``idle_workers`` returns only when both workers are up and idle, however the end of what an
    earlier test left interleaves with its reads. Reading ``/readyz`` before ``/metrics`` (as this
    module did) returned with one worker and the other's replacement booting: in a loaded run the
    full-queue test's own requests then met a line of one free worker, and one of them got the 503."""
    pool = _Pool(steps)
    idle_workers("http://pool", 2, get=pool.get, interval_s=0, limit_s=60)
    assert (pool.alive, pool.busy) == (2, 0)


def test_workers_are_recycled(url: str) -> None:
    idle_workers(url)  # what an earlier test left has ended
    before = _metric(url, 'symguard_worker_restarts_total{reason="recycle"}')
    with httpx.Client(base_url=url, timeout=60) as c:
        for i in range(8):  # distinct problems: each one reaches a worker
            r = c.post("/v1/solve", json={**PROBLEM, "options": {"timeout_ms": 3000 + i}})
            assert r.status_code == 200
    assert _metric(url, 'symguard_worker_restarts_total{reason="recycle"}') >= before + 2


def test_concurrent_requests_for_one_problem_are_computed_once(url: str) -> None:
    idle_workers(url)  # what an earlier test left has ended
    before = _metric(url, 'symguard_cache_hits_total{layer="coalesced"}')
    doc = {**PROBLEM, "options": {"timeout_ms": 4778}}
    renamed = {"symbols": {"a": {"min": 2}, "b": {"min": 2}},
               "guards": ["Ne(b, 1)", "a >= 8", "a >= 16"], "queries": ["a > 3", "FloorDiv(a, 2)"],
               "options": {"timeout_ms": 4778}}
    out: list[dict[str, Any]] = []
    threads = [threading.Thread(target=lambda d=d: out.append(httpx.post(f"{url}/v1/redundancy", json=d,
                                                                         timeout=60).json()))
               for d in (doc, renamed)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r["cached"] for r in out) == [False, True]
    assert out[0]["key"] == out[1]["key"]
    assert _metric(url, 'symguard_cache_hits_total{layer="coalesced"}') == before + 1
