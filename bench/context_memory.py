"""Memory and time of contexts on a real server: chained extensions and distinct registrations.

A server (uvicorn, ``SYMGUARD_WORKERS`` solver and context workers) runs in its own process on
127.0.0.1; this script is its client. Two runs, each printed as a table of resident memory (the
server process, and the server plus every process it started) and the time per request:

* **chain** — one context extended N times by one guard each, with one question after each
  extension (the ``service.oracle.Oracle`` pattern: extend per question);
* **distinct** — N different contexts registered, each asked one question.

Usage: ``python bench/context_memory.py [--chain N] [--distinct N] [--workers W]``. Not a test
(``tests/test_context_memory.py`` holds the bound the docs state, at a smaller N).
"""

from __future__ import annotations

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

import argparse
import contextlib
import socket
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import httpx

_SERVER = """
import sys, uvicorn
from symguard.service.app import create_app
from symguard.service.settings import Settings
uvicorn.run(create_app(Settings(workers=int(sys.argv[2]))), host="127.0.0.1", port=int(sys.argv[1]),
            log_level="warning", access_log=False)
"""


def rss_mib(pid: int) -> float:
    """Resident memory of one process (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (workers, their helpers)."""
    children: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def memory(pid: int) -> tuple[float, float]:
    """(server MiB, server + descendants MiB)."""
    own = rss_mib(pid)
    return own, own + sum(rss_mib(c) for c in descendants(pid))


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def server(workers: int) -> Iterator[tuple[str, int]]:
    """A real server in its own process; stopped (and every process it started) on exit."""
    port = _port()
    proc = subprocess.Popen([sys.executable, "-c", _SERVER, str(port), str(workers)])
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(url + "/readyz", timeout=2).status_code == 200:
                    break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.2)
        yield url, proc.pid
    finally:
        kids = descendants(proc.pid)
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        for k in kids:  # a worker that outlived its server: never leave one behind
            with contextlib.suppress(ProcessLookupError):
                os.kill(k, 9)


BOX = {"symbols": {"s0": {"min": 2, "max": 1 << 20, "hint": 4096}, "s1": {"min": 2, "hint": 64}}}


def chain(c: httpx.Client, pid: int, n: int, marks: list[int]) -> list[dict[str, Any]]:
    """One context extended ``n`` times by one guard, one question after each extension."""
    key = c.post("/v1/contexts", json={**BOX, "guards": ["s0 >= 2"]}).json()["context"]
    rows, t0 = [], time.perf_counter()
    for i in range(1, n + 1):
        r = c.post("/v1/contexts", json={"context": key, "guards": [f"Ne(s0, {i + 4096})"]})
        key = r.json()["context"]
        a = c.post("/v1/evaluate", json={"context": key, "queries": [f"s0 + s1 >= {i % 50}"]})
        assert a.status_code == 200, a.text[:300]
        if i in marks:
            own, total = memory(pid)
            rows.append({"n": i, "server": own, "total": total, "ms": (time.perf_counter() - t0) * 1000 / i})
    return rows


def distinct(c: httpx.Client, pid: int, n: int, marks: list[int]) -> list[dict[str, Any]]:
    """``n`` different contexts, each registered and asked once."""
    rows, t0 = [], time.perf_counter()
    for i in range(1, n + 1):
        doc = {**BOX, "guards": [f"s0 >= {i % 997 + 2}", f"Ne(s1, {i})", f"s0 + s1 <= {10**6 + i}"]}
        key = c.post("/v1/contexts", json=doc).json()["context"]
        a = c.post("/v1/evaluate", json={"context": key, "queries": ["s0 >= 2", "s0 > s1"]})
        assert a.status_code == 200, a.text[:300]
        if i in marks:
            own, total = memory(pid)
            rows.append({"n": i, "server": own, "total": total, "ms": (time.perf_counter() - t0) * 1000 / i})
    return rows


def table(title: str, base: tuple[float, float], rows: list[dict[str, Any]]) -> None:
    print(f"\n{title} (after start: server {base[0]:.0f} MiB, with workers {base[1]:.0f} MiB)")
    print(f"{'n':>7} {'server MiB':>11} {'+workers MiB':>13} {'ms/step':>8}")
    for r in rows:
        print(f"{r['n']:>7} {r['server']:>11.0f} {r['total']:>13.0f} {r['ms']:>8.2f}")


def marks_of(n: int) -> list[int]:
    return sorted({m for m in (n // 10, n // 4, n // 2, 3 * n // 4, n) if m > 0})


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chain", type=int, default=3000)
    ap.add_argument("--distinct", type=int, default=3000)
    ap.add_argument("--workers", type=int, default=1)
    a = ap.parse_args(argv)
    for name, fn, n in (("chain", chain, a.chain), ("distinct", distinct, a.distinct)):
        if n <= 0:
            continue
        with server(a.workers) as (url, pid), httpx.Client(base_url=url, timeout=120) as c:
            base = memory(pid)
            table(f"{name}: {n} steps", base, fn(c, pid, n, marks_of(n)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
