"""HTTP latency and throughput of ``symguard serve`` next to a no-op FastAPI endpoint.

Both servers run as separate processes (uvicorn, one event loop each; symguard with its worker
processes). A client process drives them with ``CLIENTS`` concurrent asyncio clients (one
persistent connection each) and prints a table:

- ``no-op``: POST of the same body to an endpoint that returns ``{}`` — the floor of the stack;
- ``hit (exact)``: the same problem again (byte-identical body: answered without a worker);
- ``hit (canonical)``: the problem with symbols renamed each time (a worker parses and
  canonicalizes, the canonical LRU answers, the worker maps names back);
- ``miss``: a new problem each time (solved by a worker).

Usage: ``python bench/http_latency.py [--requests N] [--workers W] [--op redundancy]``. Not a test.
"""

from __future__ import annotations

import os
import sys

# Run as a script, this file's folder comes first on sys.path and "http" would be this file, not
# the standard library's package that httpx needs: drop the folder before importing anything else.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

import argparse
import asyncio
import json
import signal
import socket
import statistics
import subprocess
import time
from collections.abc import Callable
from typing import Any

import httpx

CLIENTS = 4

PROBLEM: dict[str, Any] = {
    "symbols": {"s0": {"min": 2, "max": 4096, "hint": 64}, "s1": {"min": 2, "hint": 3}},
    "asserts": ["Eq(Mod(s0, 8), 0)", {"id": "in_range", "expr": "s0 <= 8*s1"}],
    "guards": ["s0 >= 16", {"id": "g_ne", "expr": "Ne(s1, 1)"}, "s0 >= 8", "FloorDiv(s0, 8) >= 2",
               "s1 >= 2", "Mod(s0*s1, 4) == 0"],
}

NOOP_APP = """
from fastapi import FastAPI, Request, Response
app = FastAPI()
@app.post("/noop")
async def noop(request: Request) -> Response:
    await request.body()
    return Response(b"{}", media_type="application/json")
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_up(url: str, path: str, limit_s: float = 120) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + path, timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{url} did not come up")


def _renamed(i: int) -> dict[str, Any]:
    text = json.dumps(PROBLEM).replace("s0", f"batch{i}").replace("s1", f"chan{i}")
    return json.loads(text)  # type: ignore[no-any-return]


def _fresh(i: int) -> dict[str, Any]:
    return {**PROBLEM, "guards": [*PROBLEM["guards"], f"s0 <= {4096 - i}"]}


async def _drive(url: str, path: str, bodies: Callable[[int], bytes], n: int
                 ) -> tuple[list[float], float, list[float]]:
    """``n`` requests over ``CLIENTS`` concurrent clients: latencies (ms), wall time (s), and the
    server's own ``elapsed_ms`` (its time from request to answer, without HTTP and client)."""
    lat: list[float] = []
    server: list[float] = []
    counter = iter(range(n))

    async def client() -> None:
        async with httpx.AsyncClient(base_url=url, timeout=120,
                                     headers={"content-type": "application/json"}) as c:
            for i in counter:
                body = bodies(i)
                t0 = time.perf_counter()
                r = await c.post(path, content=body)
                lat.append((time.perf_counter() - t0) * 1000)
                if r.status_code != 200:
                    raise RuntimeError(f"{path}: HTTP {r.status_code} {r.text[:200]}")
                if "elapsed_ms" in r.text:
                    server.append(r.json()["elapsed_ms"])

    t0 = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(CLIENTS)))
    return lat, time.perf_counter() - t0, server


def _row(name: str, lat: list[float], wall: float, server: list[float]) -> str:
    q = statistics.quantiles(lat, n=100, method="inclusive")
    inner = f"{statistics.median(server):>8.2f}" if server else f"{'-':>8}"
    return (f"| {name:<17} | {len(lat):>6} | {statistics.median(lat):>8.2f} | {q[98]:>8.2f} | "
            f"{len(lat) / wall:>7.0f} | {inner} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=2000, help="per scenario (misses: a fifth of it)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--op", default="redundancy", choices=("solve", "redundancy"))
    args = ap.parse_args(argv)

    sg_port, noop_port = _free_port(), _free_port()
    env = {**os.environ, "SYMGUARD_QUEUE_SIZE": "1000"}
    env.pop("SYMGUARD_API_TOKEN", None)
    env.pop("SYMGUARD_REDIS_URL", None)
    procs = [
        subprocess.Popen([sys.executable, "-c", ("import sys; from symguard.service.server import serve; "
                                                 f"sys.exit(serve('127.0.0.1', {sg_port}, {args.workers}))")],
                         env=env, stderr=subprocess.DEVNULL),
        subprocess.Popen([sys.executable, "-c", (NOOP_APP + "\nimport uvicorn\n"
                                                 f"uvicorn.run(app, host='127.0.0.1', port={noop_port}, "
                                                 "log_level='warning', access_log=False)")],
                         stderr=subprocess.DEVNULL),
    ]
    try:
        sg, noop = f"http://127.0.0.1:{sg_port}", f"http://127.0.0.1:{noop_port}"
        _wait_up(sg, "/readyz")
        _wait_up(noop, "/docs")
        op, n = f"/v1/{args.op}", args.requests
        same = json.dumps(PROBLEM).encode()
        warm = httpx.post(sg + op, content=same, headers={"content-type": "application/json"}, timeout=120)
        assert warm.status_code == 200, warm.text
        rows = [
            ("no-op FastAPI", *asyncio.run(_drive(noop, "/noop", lambda i: same, n))),
            ("hit (exact)", *asyncio.run(_drive(sg, op, lambda i: same, n))),
            ("hit (canonical)", *asyncio.run(_drive(sg, op, lambda i: json.dumps(_renamed(i)).encode(), n))),
            ("miss", *asyncio.run(_drive(sg, op, lambda i: json.dumps(_fresh(i)).encode(), max(20, n // 5)))),
        ]
        print(f"\n{args.op}, {CLIENTS} concurrent clients, {args.workers} workers, {os.cpu_count()} cores\n")
        print("| scenario          |   reqs | p50 (ms) | p99 (ms) |   req/s | server p50 |")
        print("|-------------------|-------:|---------:|---------:|--------:|---------:|")
        for name, lat, wall, server in rows:
            print(_row(name, lat, wall, server))
    finally:
        for p in procs:
            p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
