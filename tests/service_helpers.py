"""A real symguard server on 127.0.0.1 (uvicorn in a thread, workers as processes) for tests."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import httpx
import uvicorn

from symguard.service.app import create_app
from symguard.service.cli import main
from symguard.service.runtime.pool import DEFAULT_ARGV
from symguard.service.settings import Settings


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def running_server(settings: Settings, *, worker_argv: Sequence[str] = DEFAULT_ARGV) -> Iterator[str]:
    """Yield the base URL of a server that is up (lifespan done: workers ready)."""
    port = free_port()
    config = uvicorn.Config(create_app(settings, worker_argv=worker_argv), host="127.0.0.1", port=port,
                            log_level="warning", access_log=False, timeout_graceful_shutdown=30)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name=f"uvicorn-{port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + 120
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=60)


@contextlib.contextmanager
def redis_url() -> Iterator[str | None]:
    """CI's Redis (SYMGUARD_TEST_REDIS_URL), else a private redis-server from PATH, else None."""
    import os

    url = os.environ.get("SYMGUARD_TEST_REDIS_URL")
    if url:
        yield url
        return
    exe = shutil.which("redis-server")
    if exe is None:
        yield None
        return
    port = free_port()
    proc = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
            if time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def cli(argv: list[str]) -> tuple[int, list[dict[str, Any]]]:
    out = io.StringIO()
    code = main(argv, out=out)
    return code, [json.loads(line) for line in out.getvalue().splitlines()]


def comparable(res: dict[str, Any], *, strict: bool = True) -> dict[str, Any]:
    """A result without what legitimately differs between two runs (timings, cache flag, and which
    model z3 picks for a plain ``solve``: any model is right, checked by ``model_ok``).

    ``strict=False`` also drops redundancy's ``implied_by`` and solver statistics: on large
    problems the library's choice of implying guards depends on what the process solved before
    (z3's global context), so a long-lived server and a fresh CLI may name different, equally
    valid, subsets (verdicts and ``minimal`` still agree).
    """
    out = {k: v for k, v in res.items() if k not in ("elapsed_ms", "cached")}
    if not strict:
        out.pop("stats", None)
        if "guards" in out:
            out["guards"] = [{k: v for k, v in g.items() if k != "implied_by"} for g in out["guards"]]
    if res.get("op") == "solve" and res.get("status") == "sat" and "optimal" not in res:
        out["model"] = sorted(res["model"])
    if isinstance(out.get("stats"), dict):
        out["stats"] = {k: v for k, v in out["stats"].items() if not k.endswith("_ms")}
    return out


def model_ok(doc: dict[str, Any], res: dict[str, Any]) -> bool:
    """Whether a ``sat`` result's model satisfies the problem (Python integers, no solver)."""
    from symguard.solver import load_problem
    from symguard.solver.ops.selfcheck import violations

    return "model" not in res or not violations(load_problem(doc), res["model"])


def write(tmp: Path, name: str, doc: dict[str, Any]) -> Path:
    p = tmp / name
    p.write_text(json.dumps(doc))
    return p


def post(client: httpx.Client, op: str, doc: Any) -> httpx.Response:
    return client.post(f"/v1/{op}", json=doc)


def metric(url: str, name: str, label: str = "") -> float:
    """The sum of a Prometheus metric's samples (those whose line contains ``label``)."""
    return sum(float(line.rsplit(" ", 1)[1]) for line in httpx.get(url + "/metrics").text.splitlines()
               if line.startswith(name) and label in line and not line.startswith("#"))


def wait_until(cond: Any, what: str, limit_s: float = 120) -> None:
    """Poll ``cond()`` until it holds; past ``limit_s`` fail naming ``what`` (a bound, not a timing)."""
    end = time.monotonic() + limit_s
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def idle_workers(url: str, n: int = 2, *, get: Any = httpx.get, interval_s: float = 0.05, limit_s: float = 120) -> None:
    """Wait until the server's ``n`` workers are up and idle and nothing waits in line (the test
    sends nothing meanwhile; ``get`` is the HTTP call, injectable for the test of this function).

    The order of the reads is what makes it true on return: first one ``/metrics`` snapshot (no
    worker busy, no request waiting), then ``/readyz`` (``n`` workers). A worker that leaves the
    pool (killed at ``timeout_ms`` + grace, recycled, dead) leaves it before or as it is released,
    so once none is busy every worker ``/readyz`` counts is idle. The other order (``/readyz``
    first) can pass with one worker and the other's replacement still booting: ``/readyz`` counted
    a worker busy with what an earlier test left, which was killed before ``/metrics`` saw it
    released; requests then sent expecting ``n`` free workers wait, or meet a full line (503)."""
    end = time.monotonic() + limit_s
    while True:
        text = get(url + "/metrics").text
        quiet = all(gauge(text, name) == 0 for name in ("symguard_workers_busy", "symguard_queue_depth"))
        if quiet and get(url + "/readyz").json().get("workers") == n:
            return
        if time.monotonic() > end:
            raise AssertionError(f"the {n} workers never came back idle: readyz {get(url + '/readyz').text}, "
                                 f"busy {gauge(text, 'symguard_workers_busy')}, "
                                 f"waiting {gauge(text, 'symguard_queue_depth')}")
        time.sleep(interval_s)


def gauge(metrics_text: str, name: str) -> float:
    """One unlabelled sample of a Prometheus text snapshot (``nan`` when absent)."""
    for line in metrics_text.splitlines():
        if line.startswith(name + " "):
            return float(line.rsplit(" ", 1)[1])
    return float("nan")


def post_late_body(url: str, path: str, body: bytes, delay_s: float = 1.0) -> tuple[bytes, bytes]:
    """POST ``body`` to ``path`` on a raw socket, the body ``delay_s`` after the headers (a slow
    client): the response's head and payload."""
    u = urlparse(url)
    with socket.create_connection((u.hostname, u.port), timeout=60) as s:
        s.sendall(b"POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: %d\r\n\r\n" % (path.encode(), len(body)))
        time.sleep(delay_s)
        s.sendall(body)
        raw = b""
        while b"\r\n\r\n" not in raw or len(raw.split(b"\r\n\r\n", 1)[1]) < int(
                raw.split(b"content-length: ", 1)[1].split(b"\r\n", 1)[0]):
            chunk = s.recv(65536)
            assert chunk, raw
            raw += chunk
    head, payload = raw.split(b"\r\n\r\n", 1)
    return head, payload
