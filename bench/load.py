"""Bounded loopback load test of ``symguard serve``: N concurrent clients for T seconds (or R requests).

The server runs as its own process (uvicorn + solver workers, settings from ``SYMGUARD_*``);
clients are threads with one persistent connection each, sending a mix of

- ``hit``: real corpus problems again and again (cache hits after the first time),
- ``miss``: a fresh small problem each time (a new canonical key: solved by a worker),
- ``bad``: malformed problems (400 expected): broken JSON, lone surrogates (``\\ud800`` in ids,
  keys, expressions), bytes that are not UTF-8, 5,000-digit integers, deep nesting, a
  ``timeout_ms`` past the documented range,
- ``fuzz``: corpus problems mutated at random (bytes flipped, cut, duplicated, surrogate escapes
  and huge integers spliced in): 200 or 400, never a 5xx,

over solve/redundancy/evaluate/shrink. It checks the service's promises under load: no 5xx
other than the documented 503 with ``Retry-After``; memory (RSS of the server and its workers,
from /proc) stable over the run; latency percentiles. Prints a table; exit 1 on a broken promise.

    python bench/load.py --clients 8 --seconds 60 --requests 10000 --workers 2
"""

from __future__ import annotations

import os
import sys

# run as a script, bench/ comes first on sys.path; import from the checkout root instead
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

import argparse
import contextlib
import json
import random
import signal
import socket
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
OPS = ("solve", "redundancy", "evaluate", "shrink")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serving(workers: int, env: dict[str, str]) -> Iterator[tuple[str, subprocess.Popen[bytes]] | None]:
    """``symguard serve`` on a free loopback port with ``env`` on top of this process's: its URL
    and process once ready, None (said on stderr) if it never is; stopped on the way out (SIGTERM,
    killed after 60 s)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen([sys.executable, "-m", "symguard.service.cli", "serve", "--host", "127.0.0.1",
                               "--port", str(port), "--workers", str(workers)],
                              cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), **env},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                if httpx.get(url + "/readyz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or server.poll() is not None:
                print("the server did not start", file=sys.stderr)
                yield None
                return
            time.sleep(0.2)
        yield url, server
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(60)
        except subprocess.TimeoutExpired:
            server.kill()


def rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_rss_kb(root: int) -> tuple[int, int]:
    """RSS of ``root`` and all its descendants (kB), and how many processes that is."""
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d.name))
    total, n, todo = 0, 0, [root]
    while todo:
        pid = todo.pop()
        total += rss_kb(pid)
        n += 1
        todo += children.get(pid, [])
    return total, n


def corpus_problems() -> list[dict[str, Any]]:
    out = []
    for f in sorted(SHARED.glob("corpus_sample/*.json")) + sorted((ROOT / "smt2_corpus" / "examples").glob("*.json")):
        doc = json.loads(f.read_text())
        if isinstance(doc, dict) and "guards" in doc:
            out.append({k: v for k, v in doc.items() if k in ("symbols", "asserts", "guards", "queries", "inputs")})
    return out or [{"symbols": {"s0": {"min": 2, "hint": 64}}, "guards": ["s0 >= 16", "Eq(Mod(s0, 8), 0)"]}]


def fresh_problem(rng: random.Random) -> dict[str, Any]:
    a, b, c = rng.randrange(2, 10**6), rng.randrange(2, 64), rng.randrange(1, 9)
    return {"symbols": {"s0": {"min": 2, "hint": a + 8}, "s1": {"min": 2, "hint": b}},
            "guards": [f"s0 >= {a}", f"Eq(Mod(s0, {c}), 0)", f"s1*{c} <= s0", "Ne(s1, 1)", f"s0 >= {a - 1}"],
            "queries": ["s0 > s1", f"FloorDiv(s0, {c})"], "options": {"timeout_ms": 1000}}


BAD = [b"{", b'{"guards": ["s0 >="]}', b'{"guards": ["sqrt(s0) > 1"]}', b'{"symbols": 3}', b"[]",
       b'{"guards": ["' + b"(" * 5000 + b's0"]}',
       b'{"guards": [{"id": "\\ud800", "expr": "s0 >= 7"}, "s0 >= 0"]}',
       b'{"symbols": {"\\udc00": {"min": 1}}, "guards": ["s0 >= 1"]}',
       b'{"guards": ["s0 >= \\udbff"]}', b'{"guards": ["s0 >= 1"], "syntax": "\\ud800"}',
       b'{"guards": ["s0 \xff\xfe >= 1"]}',
       b'{"symbols": {"s0": {"min": 1' + b"0" * 5000 + b'}}, "guards": ["s0 >= 1"]}',
       b"[" * 100_000 + b"]" * 100_000,
       b'{"guards": ["s0 >= 1"], "options": {"timeout_ms": 1000000000000}}']
SPLICE = [b"\\ud800", b"\\udfff", b"1" + b"0" * 4400, b"\xff", b"[[[[[[", b'"', b"null", b"-", b"**64"]


def mutate(rng: random.Random, body: bytes) -> bytes:
    """A corpus body with a few random byte-level edits."""
    b = bytearray(body)
    for _ in range(rng.randint(1, 4)):
        if not b:
            break
        i = rng.randrange(len(b))
        how = rng.randrange(4)
        if how == 0:
            b[i] = rng.randrange(256)
        elif how == 1:
            del b[i:i + rng.randint(1, 20)]
        elif how == 2:
            b[i:i] = rng.choice(SPLICE)
        else:
            j = rng.randrange(len(b))
            b[i:i] = b[j:j + rng.randint(1, 30)]
    return bytes(b)


class Stats:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.codes: Counter[str] = Counter()
        self.lat: dict[str, list[float]] = {"hit": [], "miss": [], "bad": [], "fuzz": []}
        self.broken: list[str] = []
        self.n = 0

    def add(self, kind: str, r: httpx.Response | None, dt: float, err: str | None = None) -> None:
        with self.lock:
            self.n += 1
            if r is None:
                self.codes["error"] += 1
                self.broken.append(f"{kind}: {err}")
                return
            self.codes[str(r.status_code)] += 1
            self.lat[kind].append(dt)
            if r.status_code >= 500 and not (r.status_code == 503 and "retry-after" in r.headers):
                self.broken.append(f"{kind}: HTTP {r.status_code} {r.text[:200]}")
            elif kind == "bad" and r.status_code != 400 and r.status_code != 503:
                self.broken.append(f"bad input answered {r.status_code}")


def client(url: str, stats: Stats, stop: threading.Event, limit: int, seed: int, corpus: list[dict[str, Any]]) -> None:
    rng = random.Random(seed)
    with httpx.Client(base_url=url, timeout=120) as c:
        while not stop.is_set():
            with stats.lock:
                if stats.n >= limit:
                    return
            kind = rng.choices(["hit", "miss", "bad", "fuzz"], [0.60, 0.20, 0.10, 0.10])[0]
            op = rng.choice(OPS)
            body = (json.dumps(rng.choice(corpus)).encode() if kind == "hit" else
                    json.dumps(fresh_problem(rng)).encode() if kind == "miss" else
                    rng.choice(BAD) if kind == "bad" else mutate(rng, json.dumps(rng.choice(corpus)).encode()))
            t0 = time.perf_counter()
            try:
                r = c.post(f"/v1/{op}", content=body, headers={"content-type": "application/json"})
            except httpx.HTTPError as e:
                stats.add(kind, None, 0.0, repr(e))
                continue
            stats.add(kind, r, time.perf_counter() - t0)
            if r.status_code == 503:
                time.sleep(float(r.headers.get("retry-after", "1")) / 10)


def pct(xs: list[float], p: float) -> str:
    if not xs:
        return "-"
    xs = sorted(xs)
    return f"{xs[min(len(xs) - 1, int(p / 100 * len(xs)))] * 1000:.1f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="bounded loopback load test of symguard serve")
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--requests", type=int, default=10_000, help="stop after this many requests")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--recycle-after", type=int, default=500)
    ap.add_argument("--queue-size", type=int, default=64, help="small values exercise the 503 path")
    args = ap.parse_args(argv)

    env = {"SYMGUARD_RECYCLE_AFTER": str(args.recycle_after), "SYMGUARD_QUEUE_SIZE": str(args.queue_size)}
    with serving(args.workers, env) as up:
        if up is None:
            return 1
        url, server = up
        corpus = corpus_problems()
        stats, stop = Stats(), threading.Event()
        rss0, procs0 = tree_rss_kb(server.pid)
        samples = [(0, rss0)]
        threads = [threading.Thread(target=client, args=(url, stats, stop, args.requests, i, corpus), daemon=True)
                   for i in range(args.clients)]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        next_sample = 1000
        while any(t.is_alive() for t in threads) and time.monotonic() - t0 < args.seconds:
            time.sleep(0.2)
            if stats.n >= next_sample:
                samples.append((stats.n, tree_rss_kb(server.pid)[0]))
                next_sample += 1000
        stop.set()
        for t in threads:
            t.join(130)
        wall = time.monotonic() - t0
        rss1, procs1 = tree_rss_kb(server.pid)
        samples.append((stats.n, rss1))
        healthy = httpx.get(url + "/healthz", timeout=5).status_code == 200

    allv = [x for xs in stats.lat.values() for x in xs]
    print(f"## load: {args.clients} clients, {args.workers} workers, queue {args.queue_size}, loopback, {wall:.1f} s\n")
    print(f"requests {stats.n}   throughput {stats.n / wall:.1f} req/s   status codes "
          + ", ".join(f"{k}={v}" for k, v in sorted(stats.codes.items())))
    print(f"\n{'kind':6} {'n':>7} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for kind, xs in [*stats.lat.items(), ("all", allv)]:
        print(f"{kind:6} {len(xs):>7} {pct(xs, 50):>8} {pct(xs, 90):>8} {pct(xs, 99):>8} {pct(xs, 100):>8}")
    print(f"\nRSS server+workers: start {rss0 / 1024:.0f} MiB ({procs0} procs), end {rss1 / 1024:.0f} MiB "
          f"({procs1} procs), max {max(r for _, r in samples) / 1024:.0f} MiB, growth {(rss1 - rss0) / 1024:+.0f} MiB")
    print("RSS by requests: " + ", ".join(f"{n}:{r / 1024:.0f}" for n, r in samples))
    print(f"healthy after the run: {healthy}")
    if stats.broken:
        print(f"\nBROKEN PROMISES ({len(stats.broken)}):")
        for b in stats.broken[:20]:
            print("  " + b)
    return 0 if healthy and not stats.broken else 1


if __name__ == "__main__":
    sys.exit(main())
