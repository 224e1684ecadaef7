"""The worker runtime over real HTTP (issue 14): no request is lost to a dead worker, and no
input a client can send turns into a 500.

Workers are killed with SIGKILL while idle, while reading a problem and while solving; every
request is still answered. Then the edge cases that were 500s: a lone surrogate, bounds past
10**308, integers past 4,300 digits, deep nesting, ``timeout_ms`` past the documented range, and a
client that abandons ``/v1/batch``.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from service_helpers import running_server
from service_helpers import wait_until as _wait

from symguard.service.settings import Settings

# The real worker, except: a body containing KILL_WHILE_READING announces the worker's pid in
# $SYMGUARD_TEST_PIDFILE and sleeps while "reading", once (a flag file); a problem with
# timeout_ms == 40779 (a deadline far past the test's kill) does the same while solving;
# timeout_ms == 30777 solves "forever" (a deadline far past the client's patience: the client
# leaves before the server would answer at the cut).
MARKED_WORKER = (sys.executable, "-c", """
import os, time
import symguard.solver.api as api
import symguard.service.runtime.child as child

def _once():
    flag = os.environ.get("SYMGUARD_TEST_PIDFILE")
    if not flag or os.path.exists(flag):
        return
    with open(flag + ".tmp", "w") as f:
        f.write(str(os.getpid()))
    os.replace(flag + ".tmp", flag)
    time.sleep(600)

real_read = child._read
def _read(source):
    if source[0] == "body" and b"KILL_WHILE_READING" in source[1]:
        _once()
    return real_read(source)
child._read = _read

real = api.compute
def compute(op, canon, **kw):
    if canon.options.timeout_ms == 40779:
        _once()
    if canon.options.timeout_ms == 30777:
        time.sleep(600)
    return real(op, canon, **kw)
api.compute = compute
child.main()
""")

PROBLEM: dict[str, Any] = {"symbols": {"s0": {"min": 2}, "s1": {"min": 2}},
                           "guards": ["s0 >= 16", "s0 >= 8", "Ne(s1, 1)"]}


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pidfile = tmp_path_factory.mktemp("pids") / "pid"
    os.environ["SYMGUARD_TEST_PIDFILE"] = str(pidfile)
    try:
        with running_server(Settings(workers=2, grace_ms=120_000), worker_argv=MARKED_WORKER) as u:
            yield u
    finally:
        os.environ.pop("SYMGUARD_TEST_PIDFILE", None)


def _pidfile() -> Path:
    return Path(os.environ["SYMGUARD_TEST_PIDFILE"])


def _workers_up(url: str) -> None:
    _wait(lambda: httpx.get(url + "/readyz").json().get("workers") == 2, "both workers")


def _worker_pids() -> list[int]:
    """This module's workers (children of the test process, whose servers run in threads; other
    modules' servers may still be stopping theirs)."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
            cmd = (d / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == os.getpid() and b"KILL_WHILE_READING" in cmd:
            out.append(int(d.name))
    return out


def _metric(url: str, name: str) -> float:
    return sum(float(line.rsplit(" ", 1)[1]) for line in httpx.get(url + "/metrics").text.splitlines()
               if line.startswith(name) and not line.startswith("#"))


def _post_in_thread(url: str, path: str, body: bytes | dict[str, Any]) -> tuple[threading.Thread, dict[str, Any]]:
    box: dict[str, Any] = {}

    def go() -> None:
        kw: dict[str, Any] = {"content": body} if isinstance(body, bytes) else {"json": body}
        box["r"] = httpx.post(url + path, timeout=200, **kw)

    t = threading.Thread(target=go)
    t.start()
    return t, box


# ------------------------------------------------------------------ dead workers


@pytest.mark.timeout(240)
def test_idle_workers_killed_lose_no_request(url: str) -> None:
    _workers_up(url)
    pids = _worker_pids()
    assert len(pids) == 2
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    rs = [httpx.post(f"{url}/v1/solve", json={**PROBLEM, "guards": [f"s0 >= {i}"]}, timeout=120) for i in range(4)]
    assert [r.status_code for r in rs] == [200] * 4
    assert all(r.json()["status"] == "sat" for r in rs)
    _workers_up(url)


@pytest.mark.timeout(240)
def test_a_worker_killed_while_reading_loses_no_request(url: str) -> None:
    _workers_up(url)
    _pidfile().unlink(missing_ok=True)
    body = json.dumps({**PROBLEM, "guards": [{"id": "KILL_WHILE_READING", "expr": "s0 >= 3"}]}).encode()
    t, box = _post_in_thread(url, "/v1/solve", body)
    _wait(_pidfile().exists, "a worker to start reading")
    os.kill(int(_pidfile().read_text()), signal.SIGKILL)
    t.join(200)
    assert box["r"].status_code == 200, box["r"].text
    assert box["r"].json()["status"] == "sat"


@pytest.mark.timeout(240)
@pytest.mark.parametrize("op", ["solve", "redundancy"])
def test_a_worker_killed_while_solving_loses_no_request(url: str, op: str) -> None:
    _workers_up(url)
    _pidfile().unlink(missing_ok=True)
    t, box = _post_in_thread(url, f"/v1/{op}", {**PROBLEM, "options": {"timeout_ms": 40779}})
    _wait(_pidfile().exists, "a worker to start solving")
    os.kill(int(_pidfile().read_text()), signal.SIGKILL)
    t.join(200)
    r = box["r"]
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "sat"  # answered by the retry, not given up as unknown


# ------------------------------------------------------------------ inputs that were 500s


def test_a_lone_surrogate_is_a_400_naming_its_place_and_the_connection_survives(url: str) -> None:
    with httpx.Client(base_url=url, timeout=60) as c:
        r = c.post("/v1/solve", content=b'{"guards": [{"id": "\\ud800", "expr": "s0 >= 7"}, "s0 >= 0"]}')
        assert r.status_code == 400, r.text
        assert r.json()["error"]["where"] == "guards[0].id"
        assert r.json()["error"]["code"] == "invalid_problem"
        r = c.post("/v1/redundancy", content=b'{"symbols": {"\\udc00x": {"min": 1}}, "guards": ["s0 >= 1"]}')
        assert r.status_code == 400 and r.json()["error"]["where"] == "symbols", r.text
        r = c.post("/v1/solve", content=b'{"guards": ["s0 >= 1"], "syntax": "\\udfff"}')
        assert r.status_code == 400 and r.json()["error"]["where"] == "syntax"
        r = c.post("/v1/batch", content=b'{"items": [{"op": "solve", "problem": {"guards": ["s0 >= \\ud83d"]}},'
                                        b' {"op": "\\ud800", "problem": {}}, {"op": "solve", "problem": PROBLEM}]}'
                   .replace(b"PROBLEM", json.dumps(PROBLEM).encode()))
        assert r.status_code == 200, r.text
        first, second, third = r.json()["results"]
        assert first["error"]["where"] == "guards[0]"
        assert second["error"]["where"] == "items[1].op"
        assert third["status"] == "sat"
        assert c.post("/v1/solve", json=PROBLEM).status_code == 200  # same keep-alive connection


@pytest.mark.parametrize("op", ["solve", "redundancy", "evaluate", "shrink"])
def test_unbounded_integers_end_to_end(url: str, op: str) -> None:
    ok = httpx.post(f"{url}/v1/{op}", content=json.dumps(
        {"symbols": {"s0": {"min": 10**300}}, "guards": ["s0*s0 >= 4"], "queries": ["s0 + 1"]}).encode(), timeout=60)
    assert ok.status_code == 200, ok.text
    if op in ("solve", "shrink"):
        assert ok.json()["model"]["s0"] == 10**300
    big = "1" + "0" * 5000  # as JSON text: Python itself refuses to print an int this long
    for body in ('{"symbols": {"s0": {"min": ' + big + '}}, "guards": ["s0*s0 >= 4"]}',
                 '{"symbols": {"s0": {"min": ' + big[:4302] + '}}, "guards": ["s0 >= 1"]}',
                 '{"guards": ["s0 >= ' + big[:4501] + '"]}'):
        r = httpx.post(f"{url}/v1/{op}", content=body.encode(), timeout=60)
        assert r.status_code == 400 and r.json()["error"]["code"] == "too_large", r.text


def test_a_bound_past_float_range_is_answered(url: str) -> None:
    r = httpx.post(f"{url}/v1/redundancy", content=json.dumps(
        {"symbols": {"s0": {"min": 10**309}}, "guards": ["s0*s0 >= 4"]}).encode(), timeout=60)
    assert r.status_code == 200, r.text
    assert r.json()["guards"][0]["verdict"] == "always_true"


def test_deep_nesting_and_timeout_past_the_spec_range_are_400(url: str) -> None:
    r = httpx.post(f"{url}/v1/solve", content=b"[" * 100_000 + b"]" * 100_000, timeout=60)
    assert r.status_code == 400 and r.json()["error"]["code"] == "too_large"
    r = httpx.post(f"{url}/v1/solve", json={**PROBLEM, "options": {"timeout_ms": 10**12}}, timeout=60)
    assert r.status_code == 400 and r.json()["error"]["where"] == "options.timeout_ms", r.text
    r = httpx.post(f"{url}/v1/solve", json={**PROBLEM, "options": {"timeout_ms": 3_600_000}}, timeout=60)
    assert r.status_code == 200 and any("capped" in w for w in r.json()["warnings"])


@pytest.mark.timeout(240)
def test_an_abandoned_batch_frees_its_workers(url: str) -> None:
    _workers_up(url)
    slow = {**PROBLEM, "options": {"timeout_ms": 30777}}  # the marked worker sleeps 600 s on these
    items = {"items": [{"op": "solve", "problem": slow} for _ in range(4)]}
    with pytest.raises(httpx.TimeoutException):
        httpx.post(f"{url}/v1/batch", json=items, timeout=1.5)
    _wait(lambda: _metric(url, "symguard_workers_busy") == 0, "the abandoned items to be cancelled", 30)
    _workers_up(url)
    assert httpx.post(f"{url}/v1/solve", json=PROBLEM, timeout=60).json()["status"] == "sat"
