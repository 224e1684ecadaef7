"""Faults the service and the CLI must survive (issue 7): one fault costs at most one answer.

- a worker killed from outside mid-solve, twice: the request is answered ``unknown`` (reason
  ``resource``), the server stays healthy and the workers are replaced (killed once, the request
  is retried and answered: ``test_service_runtime.py``);
- Redis stopped mid-run: answers keep coming from the local cache and the workers, the errors are
  counted in the metrics (a private redis-server: the CI's shared one is never stopped);
- ``batch --out`` on a full disk or an unwritable path: a clear error and exit status, and the
  result lines already in the file stay complete.

z3 ignoring its own timeout (enforced from outside) is ``test_service_workers.py``'s
``test_overrun_is_killed_and_answered_unknown_while_others_are_served``.
"""

from __future__ import annotations

import errno
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from service_helpers import free_port, running_server
from service_helpers import wait_until as _wait

from symguard.service.cli import main
from symguard.service.settings import Settings

# The real worker, except that a problem marked timeout_ms == 40778 (a deadline far past the test's
# kills: the server answers at it by itself) writes the worker's pid to the
# file named in SYMGUARD_TEST_PIDFILE and then solves "forever" (until the test kills it).
PID_WORKER = (sys.executable, "-c", """
import os, time
import symguard.solver.api as api
real = api.compute
def compute(op, canon, **kw):
    if canon.options.timeout_ms == 40778:
        path = os.environ["SYMGUARD_TEST_PIDFILE"]
        with open(path + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.replace(path + ".tmp", path)
        time.sleep(600)
    return real(op, canon, **kw)
api.compute = compute
from symguard.service.runtime.child import main
main()
""")

PROBLEM: dict[str, Any] = {"symbols": {"s0": {"min": 2}, "s1": {"min": 2}},
                           "guards": ["s0 >= 16", "s0 >= 8", "Ne(s1, 1)"]}


def _metric(url: str, name: str, label: str = "") -> float:
    total = 0.0
    for line in httpx.get(url + "/metrics").text.splitlines():
        if line.startswith(name) and label in line and not line.startswith("#"):
            total += float(line.rsplit(" ", 1)[1])
    return total


@pytest.mark.timeout(240)
@pytest.mark.parametrize("op", ["solve", "redundancy"])
def test_worker_killed_mid_solve(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, op: str) -> None:
    pidfile = tmp_path / "pid"
    monkeypatch.setenv("SYMGUARD_TEST_PIDFILE", str(pidfile))
    settings = Settings(workers=2, grace_ms=120_000)  # the kill below is ours, not the budget's
    with running_server(settings, worker_argv=PID_WORKER) as url:
        box: dict[str, httpx.Response] = {}
        doomed = {**PROBLEM, "options": {"timeout_ms": 40778}}
        t = threading.Thread(target=lambda: box.setdefault("r", httpx.post(f"{url}/v1/{op}", json=doomed,
                                                                           timeout=200)))
        t.start()
        _wait(lambda: pidfile.exists() and pidfile.read_text().strip(), "the worker to start solving")
        first = int(pidfile.read_text())
        os.kill(first, signal.SIGKILL)
        # the request is retried once on the other worker (test_service_runtime.py: answered);
        # killed there too, it is answered unknown
        _wait(lambda: pidfile.read_text().strip() not in ("", str(first)), "the retry to start solving")
        os.kill(int(pidfile.read_text()), signal.SIGKILL)
        t.join(200)
        r = box["r"]
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["status"] == "unknown" and body["reason"] == "resource"
        assert any("died twice" in w for w in body["warnings"])
        if op == "redundancy":  # sound: every guard kept
            assert body["minimal"] == ["g0", "g1", "g2"]
        assert httpx.get(f"{url}/healthz").status_code == 200
        _wait(lambda: httpx.get(f"{url}/readyz").json().get("workers") == 2, "the worker to be replaced")
        ok = httpx.post(f"{url}/v1/{op}", json=PROBLEM, timeout=60)
        assert ok.status_code == 200 and ok.json()["status"] == "sat"
        assert _metric(url, "symguard_worker_restarts_total", 'reason="crash"') >= 1


@pytest.fixture()
def private_redis() -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    exe = shutil.which("redis-server")
    if exe is None:
        pytest.skip("redis-server is not on PATH")
    port = free_port()
    proc = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def up() -> bool:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return True
        except OSError:
            return False

    try:
        _wait(up, "redis-server", 20)
        yield f"redis://127.0.0.1:{port}/0", proc
    finally:
        proc.kill()
        proc.wait(timeout=10)


def _fresh(i: int) -> dict[str, Any]:
    return {"symbols": {"s0": {"min": 2}}, "guards": [f"s0 >= {i + 3}", f"s0 >= {i + 2}"]}


@pytest.mark.timeout(240)
def test_redis_stopped_mid_run(private_redis: tuple[str, subprocess.Popen[bytes]]) -> None:
    redis, proc = private_redis
    with running_server(Settings(workers=1, redis_url=redis, redis_timeout_ms=50, redis_backoff_s=0)) as url:
        for i in range(3):
            assert httpx.post(f"{url}/v1/redundancy", json=_fresh(i), timeout=60).status_code == 200
        assert httpx.get(f"{url}/readyz").json()["redis"] is True
        before = _metric(url, "symguard_redis_errors_total")
        proc.kill()
        proc.wait(timeout=10)
        for i in range(3, 8):
            r = httpx.post(f"{url}/v1/redundancy", json=_fresh(i), timeout=60)
            assert r.status_code == 200 and r.json()["status"] == "sat"
        again = httpx.post(f"{url}/v1/redundancy", json=_fresh(0), timeout=60)  # the local cache still answers
        assert again.status_code == 200 and again.json()["cached"] is True
        assert _metric(url, "symguard_redis_errors_total") > before
        ready = httpx.get(f"{url}/readyz")
        assert ready.status_code == 200 and ready.json()["redis"] is False
        assert httpx.get(f"{url}/healthz").status_code == 200


# ------------------------------------------------------------------ batch --out


def _inputs(tmp: Path, n: int) -> Path:
    d = tmp / "in"
    d.mkdir()
    for i in range(n):
        (d / f"p{i}.json").write_text(json.dumps(_fresh(i)))
    return d


def _cli(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    code = main(argv, out=out)
    return code, out.getvalue()


def test_batch_out_on_a_full_disk_is_a_clear_error(tmp_path: Path) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    code, text = _cli(["batch", str(_inputs(tmp_path, 2)), "--op", "solve", "--out", "/dev/full"])
    assert code == 1
    err = json.loads(text.strip().splitlines()[-1])["error"]
    assert err["where"] == "--out" and "space" in err["message"].lower()
    assert "Traceback" not in text


def test_batch_out_unwritable_path_is_a_clear_error(tmp_path: Path) -> None:
    code, text = _cli(["batch", str(_inputs(tmp_path, 1)), "--op", "solve", "--out", str(tmp_path / "no" / "r.jsonl")])
    assert code == 2
    assert json.loads(text.strip().splitlines()[-1])["error"]["where"] == "--out"


def test_batch_disk_full_mid_run_keeps_existing_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    inputs = _inputs(tmp_path, 4)
    out = tmp_path / "results.jsonl"
    code, _ = _cli(["batch", str(inputs / "p0.json"), "--op", "solve", "--out", str(out)])
    assert code == 0
    before = out.read_bytes()
    calls = {"n": 0}
    real_fsync = os.fsync

    def fsync(fd: int) -> None:  # the second line reaches the file, then the disk is full
        calls["n"] += 1
        if calls["n"] >= 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    code, text = _cli(["batch", str(inputs), "--op", "solve", "--out", str(out), "--resume", "--jobs", "1"])
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert code == 1 and "--out" in text
    after = out.read_bytes()
    assert after.startswith(before) and after.endswith(b"\n")
    lines = [json.loads(x) for x in after.decode().splitlines()]
    assert len(lines) == 2  # the old line and the one written before the failure, both whole
    # a resume after the disk is freed finishes the job
    code, _ = _cli(["batch", str(inputs), "--op", "solve", "--out", str(out), "--resume"])
    assert code == 0
    assert sorted(Path(x["input"]).name for x in map(json.loads, out.read_text().splitlines())) == \
        [f"p{i}.json" for i in range(4)]


@pytest.mark.parametrize(("text", "where"), [
    ("[" * 100_000 + "]" * 100_000, None),  # was RecursionError, exit 1; nesting: where is the file
    # was ValueError, exit 1; a number too long: where is the path to it inside the file
    ('{"symbols": {"s0": {"min": 1' + "0" * 5000 + '}}, "guards": ["s0*s0 >= 4"]}', "symbols.s0.min"),
])
def test_the_cli_refuses_json_past_the_decoding_limits_as_bad_input(tmp_path: Path, text: str,
                                                                     where: str | None) -> None:
    p = tmp_path / "p.json"
    p.write_text(text, encoding="utf-8")
    buf = io.StringIO()
    assert main(["solve", str(p)], out=buf) == 2
    out = json.loads(buf.getvalue())
    err = out["error"]
    assert err["code"] == "too_large" and err["where"] == (where or str(p))
    assert out.get("file", str(p)) == str(p)
