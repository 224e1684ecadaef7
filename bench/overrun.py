"""How far past ``options.timeout_ms`` does an answer come? Two modes.

Hostile and fuzzed problems, in-process (``solver.run``, as the CLI without ``--remote`` and a
library caller) and over HTTP (loopback, one client, so no queueing is counted)::

    python bench/overrun.py --fuzz 80 --http

The promise (README "Deterministic budgets, bounded calls"): answered within ``timeout_ms`` + 10 %
+ 50 ms, or refused at once as ``too_large``. Prints the worst overruns and every call past the
promise; exit 1 if any.

``--deadline``: small deadlines over HTTP (issue 33). Corpus problems of four sizes, ``timeout_ms``
1, 10, 50, 120 and 250, each request a new canonical problem (its ``effort`` differs by a unit, so
no cache answers), quiet and next to ``--hogs`` busy-loop processes (normal priority, each ended
after ``--hog-s`` seconds), with one client and with ``--clients`` concurrent ones (more than the
workers: requests wait in line). Prints, per deadline, the client's wall time (send to last byte)
and the server's ``elapsed_ms`` (arrival to answer), p50/p99/worst against the promise, the
load average, and the floor: a ``GET /healthz`` after each request on the same connection (what
the client, the loopback and uvicorn cost under that load, outside the promise); exit status 0
(a measurement, not a test)::

    python bench/overrun.py --deadline --hogs 8 --clients 4 [--library | --contexts | --batch N]

``--contexts``: the same questions asked of contexts (each set registered once; a question's delta
sets ``timeout_ms`` and its ``effort``, so it runs the engine on the merged problem). ``--batch N``:
``/v1/batch`` requests of ``N`` items each (all one deadline, different problems; with ``--contexts``
questions to contexts); the server's time is the batch's slowest item. ``--loaded-only``: only the
run with ``--hogs`` and ``--clients``. With ``--library`` it also counts the late calls that had a
pause of Python's cyclic collector at least as long as their lateness (a process-wide pause the
library does not control).
"""

from __future__ import annotations

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

import argparse
import contextlib
import json
import random
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import load  # the checkout root first

OPS = ("solve", "redundancy", "evaluate", "shrink")
N4000 = 10**3999 + 7
P, Q = 1000000000000000003, 1000000000000000009


def hostile() -> list[tuple[str, dict[str, Any]]]:
    """The issue's bombs (now refused) and the worst problems still inside the limits."""
    docs: list[tuple[str, dict[str, Any]]] = []
    for k in (2, 3, 4, 8):  # issue 14: 42 s, ?, 152 s, 576 s with a 1 s budget
        docs.append((f"s0**{k} vs 4000 digits", {"guards": [f"s0 <= {N4000}", f"s0**{k} >= {N4000}"]}))
    for k, d in ((2, 325), (3, 216), (4, 162), (8, 81)):  # digits x degree = the limit (650)
        n = 10 ** (d - 1) + 7
        docs.append((f"s0**{k} vs {d} digits", {"guards": [f"s0 <= {n}", f"s0**{k} >= {n}"]}))
    docs += [
        ("linear 4000 digits", {"guards": [f"s0 <= {N4000}", f"s0 >= {N4000 - 5}", "Eq(Mod(s0, 7), 3)"]}),
        ("factor 2x19 digits", {"guards": [f"s0*s1 == {P * Q}", "s0 > 1", "s1 > 1", "s0 < s1"]}),
        ("fermat cubes", {"guards": ["s0**3 + s1**3 == s2**3", "s0 >= 1", "s1 >= 1"]}),
        ("300 products", {"guards": [f"s{i % 7}*s{(i * 3 + 1) % 7} >= {i * 37 + 5}" for i in range(300)]}),
        ("nested Max", {"guards": ["Max(" * 150 + "s0" + ", s1)" * 150 + " >= 7", "s0*s1 <= 10**30"]}),
        ("mod chains", {"guards": [f"Eq(Mod(s0*s1 + {i}, {97 + i}), {i % 5})" for i in range(40)]}),
    ]
    return docs


def fuzzed(rng: random.Random, n: int) -> list[tuple[str, dict[str, Any]]]:
    """Random non-linear problems with long constants (digits x degree up to the limit)."""
    out = []
    for i in range(n):
        nsym = rng.randint(1, 3)
        syms = [f"s{j}" for j in range(nsym)]
        guards = []
        for _ in range(rng.randint(1, 5)):
            deg = rng.randint(1, 4)
            digits = rng.randint(1, max(1, 600 // deg // 2))
            c = rng.randrange(10 ** (digits - 1), 10**digits)
            mono = "*".join(rng.choice(syms) for _ in range(deg))
            shape = rng.choice(["{m} >= {c}", "{m} <= {c}", "Eq(Mod({m}, {k}), {r})", "FloorDiv({m}, {k}) >= {c}",
                                "Ne({m}, {c})", "{m} - {c} >= s0"])
            k = rng.randint(2, 10**6)
            guards.append(shape.format(m=mono, c=c, k=k, r=rng.randrange(k)))
        doc = {"guards": guards, "queries": [rng.choice(syms) + " + 1", f"{syms[0]} > 5"],
               "options": {"timeout_ms": rng.choice([200, 500, 1000])}}
        out.append((f"fuzz {i}", doc))
    return out


def _dumps(doc: Any) -> bytes:
    sys.set_int_max_str_digits(0)  # the bench writes 4,000-digit constants as JSON
    return json.dumps(doc).encode()


def measure(cases: list[tuple[str, dict[str, Any]]], call: Any) -> list[tuple[float, float, str, str, str]]:
    rows = []
    for name, doc in cases:
        doc = {**doc, "options": {"timeout_ms": 1000, **doc.get("options", {})}}
        budget = doc["options"]["timeout_ms"] / 1000
        for op in OPS:
            t0 = time.monotonic()
            outcome = call(op, doc)
            wall = time.monotonic() - t0
            rows.append((wall - budget, budget, name, op, outcome))
    return rows


FAILURES: list[str] = []


def in_process(op: str, doc: dict[str, Any]) -> str:
    from symguard.solver import BadInput, SymguardError, run

    try:
        r = run(op, doc)
    except BadInput as e:
        return e.code
    except SymguardError as e:  # a failed self-check: never a wrong answer, but a bug to report
        FAILURES.append(f"{op} {str(e)[:200]} on {_dumps(doc)[:2000]!r}")
        return e.code
    return f"{r['status']}{'/' + r['reason'] if r.get('reason') else ''}"


def promise_s(budget_s: float) -> float:
    """The documented promise for a ``timeout_ms`` of ``budget_s`` seconds (checker.outer_ms)."""
    from symguard.solver.smt.checker import outer_ms

    return outer_ms(round(budget_s * 1000)) / 1000


def report(title: str, rows: list[tuple[float, float, str, str, str]]) -> int:
    answered = [r for r in rows if r[4] != "too_large"]
    refused = [r for r in rows if r[4] == "too_large"]
    late = [r for r in answered if r[0] + r[1] > promise_s(r[1])]
    print(f"\n## {title}: {len(rows)} calls, {len(refused)} refused too_large "
          f"(slowest refusal {max((r[0] + r[1] for r in refused), default=0) * 1000:.0f} ms)")
    print(f"worst overrun past timeout_ms: {max((r[0] for r in answered), default=0) * 1000:+.0f} ms; "
          f"past the promise (timeout_ms + 10 % + 50 ms): {len(late)}")
    for over, budget, name, op, outcome in sorted(answered, reverse=True)[:8]:
        print(f"  {over * 1000:+7.0f} ms  budget {budget * 1000:.0f}  {op:10} {name:26} {outcome}")
    return len(late)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fuzz", type=int, default=60, help="fuzzed problems (each x 4 operations)")
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--http", action="store_true", help="also over HTTP (starts symguard serve on loopback)")
    ap.add_argument("--deadline", action="store_true", help="only the small deadlines over HTTP (see above)")
    ap.add_argument("--hogs", type=int, default=8, help="--deadline: busy-loop processes for the loaded runs")
    ap.add_argument("--hog-s", type=float, default=240, help="--deadline: each hog ends after this many seconds")
    ap.add_argument("--clients", type=int, default=4, help="--deadline: concurrent clients of the last run")
    ap.add_argument("--rounds", type=int, default=5, help="--deadline: rounds over problems x ops x deadlines")
    ap.add_argument("--library", action="store_true", help="--deadline: in-process (solver.run) instead of over HTTP, quiet and loaded")
    ap.add_argument("--contexts", action="store_true", help="--deadline: questions to registered contexts")
    ap.add_argument("--batch", type=int, default=0, help="--deadline: /v1/batch requests of this many items "
                    "(with --contexts: of context questions)")
    ap.add_argument("--loaded-only", action="store_true", help="--deadline: only the last run (hogs, --clients)")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    if args.deadline:
        return small_deadlines(args)
    cases = hostile() + fuzzed(random.Random(args.seed), args.fuzz)
    late = report("in-process (solver.run)", measure(cases, in_process))
    for f in FAILURES:
        print("FAILURE", f)
    late += len(FAILURES)
    if args.http:
        late += over_http(cases)
    return 1 if late else 0


@contextlib.contextmanager
def serving(env: dict[str, str]) -> Iterator[str | None]:
    """``symguard serve`` (2 workers) on a free loopback port (``bench.load.serving``): its URL
    once ready, None if it never is."""
    with load.serving(2, env) as up:
        yield None if up is None else up[0]


def over_http(cases: list[tuple[str, dict[str, Any]]]) -> int:
    import httpx

    with serving({"SYMGUARD_GRACE_MS": "200"}) as url:
        if url is None:
            return 1
        with httpx.Client(base_url=url, timeout=600) as c:
            def call(op: str, doc: dict[str, Any]) -> str:
                r = c.post(f"/v1/{op}", content=_dumps(doc), headers={"content-type": "application/json"})
                if r.status_code != 200:
                    return str(r.json().get("error", {}).get("code", r.status_code))
                b = r.json()
                return f"{b['status']}{'/' + b['reason'] if b.get('reason') else ''}"

            return report("over HTTP (2 workers, grace 200 ms, loopback, one client)", measure(cases, call))


# ------------------------------------------------------------------ --deadline: small deadlines over HTTP

DEADLINES_MS = (1, 10, 50, 120, 250)
SIZES = ("torch/vit_export.json", "torch/focalnet_64x64_compile.json", "torch/mobilenet_v2_67x45_compile.json",
         "torch/swin_compile.json")  # 1 KB, 8 KB, 38 KB, 154 KB of JSON
DEADLINE_OPS = ("redundancy", "solve")
HOG = "import time\nend = time.monotonic() + {s}\nwhile time.monotonic() < end:\n    pass\n"


def _corpus_doc(rel: str) -> dict[str, Any]:
    doc = json.loads((ROOT / "smt2_corpus" / rel).read_text())
    return {k: v for k, v in doc.items() if k not in ("source", "meta", "expected", "name", "description")}


@contextlib.contextmanager
def hogs(n: int, seconds: float) -> Iterator[None]:
    """``n`` busy-loop processes at normal priority, each ending by itself after ``seconds``."""
    procs = [subprocess.Popen([sys.executable, "-c", HOG.format(s=seconds)]) for _ in range(n)]
    try:
        time.sleep(1.0 if n else 0)  # let the load average notice them
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


def _drive(url: str, jobs: list[tuple[str, int, str, bytes]], clients: int) -> list[tuple[int, str, float, float, str]]:
    """Post every job over ``clients`` concurrent keep-alive connections (a thread each, the standard
    library's client: the lightest there is, since a starved client's own delays land in its
    wall time): (timeout_ms, size, client wall ms, server elapsed_ms, outcome) per request."""
    import http.client
    import threading
    from urllib.parse import urlparse

    u = urlparse(url)
    rows: list[tuple[int, str, float, float, str]] = []
    todo = iter(jobs)
    lock = threading.Lock()

    def client() -> None:
        conn = http.client.HTTPConnection(u.hostname or "127.0.0.1", u.port, timeout=600)
        while True:
            with lock:
                job = next(todo, None)
            if job is None:
                break
            size, t_ms, op, body = job
            t0 = time.perf_counter()
            conn.request("POST", f"/v1/{op}", body=body, headers={"content-type": "application/json"})
            r = conn.getresponse()
            raw = r.read()
            wall = (time.perf_counter() - t0) * 1000
            b = json.loads(raw)
            if r.status != 200:
                row = (t_ms, size, wall, float("nan"), str(b.get("error", {}).get("code", r.status)))
            elif "results" in b:  # a batch: its slowest item, and every outcome
                items = b["results"]
                row = (t_ms, size, wall, max(x.get("elapsed_ms", float("nan")) for x in items),
                       "+".join(sorted({_outcome(x) for x in items})))
            else:
                row = (t_ms, size, wall, b["elapsed_ms"], _outcome(b))
            t0 = time.perf_counter()  # the floor: a request the app answers at once, on the same connection
            conn.request("GET", "/healthz")
            conn.getresponse().read()
            probe = (time.perf_counter() - t0) * 1000
            with lock:
                rows.append(row)
                FLOOR.append(probe)
        conn.close()

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return rows


def _in_process(jobs: list[tuple[str, int, str, bytes]]) -> list[tuple[int, str, float, float, str]]:
    """The same requests through ``solver.run`` in this process (the body decoded first, outside the
    timing, as a library caller holds a dict): wall time of the call, twice (no server here)."""
    import gc

    from symguard.solver import run

    run("solve", json.loads(jobs[0][3]))  # pay the imports and the first z3 context outside the timing
    pauses: list[float] = []
    began = [0.0]

    def collector(phase: str, info: dict[str, Any]) -> None:  # Python's cyclic collector, inside a call
        if phase == "start":
            began[0] = time.perf_counter()
        else:
            pauses.append((time.perf_counter() - began[0]) * 1000)

    gc.callbacks.append(collector)
    rows = []
    try:
        for size, t_ms, op, body in jobs:
            doc = json.loads(body)
            pauses.clear()
            t0 = time.perf_counter()
            r = run(op, doc)
            wall = (time.perf_counter() - t0) * 1000
            rows.append((t_ms, size, wall, wall, f"{r['status']}{'/' + r['reason'] if r.get('reason') else ''}"))
            GC.append((t_ms, wall - promise_s(t_ms / 1000) * 1000, max(pauses, default=0.0)))
    finally:
        gc.callbacks.remove(collector)
    return rows


def _outcome(b: dict[str, Any]) -> str:
    if "error" in b:
        return str(b["error"].get("code"))
    return f"{b['status']}{'/' + b['reason'] if b.get('reason') else ''}"


GC: list[tuple[int, float, float]] = []  # library calls: (timeout_ms, ms past the promise, longest collector pause)


def _gc_line() -> None:
    """How many late library calls had a collector pause at least as long as their lateness."""
    late = [g for g in GC if g[1] > 0]
    if late:
        print(f"\nlate library calls: {len(late)}, of which {sum(p >= over for _, over, p in late)} with a pause of "
              f"Python's cyclic collector at least as long as the lateness (longest pause in any call "
              f"{max(p for _, _, p in GC):.0f} ms)")
    GC.clear()


FLOOR: list[float] = []  # GET /healthz round trips next to the run's requests (client and HTTP, no work)


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def _cuts(url: str) -> dict[str, float]:
    """The server's deadline cuts so far, by stage (none before the server kept the deadline itself)."""
    import httpx

    out: dict[str, float] = {}
    for line in httpx.get(url + "/metrics", timeout=60).text.splitlines():
        if line.startswith("symguard_deadline_cuts_total{"):
            out[line.split('stage="', 1)[1].split('"', 1)[0]] = float(line.rsplit(" ", 1)[1])
    return out


def _table(title: str, rows: list[tuple[int, str, float, float, str]], load: tuple[float, float],
           cuts: dict[str, float]) -> None:
    print(f"\n### {title} (load average {load[0]:.1f} before, {load[1]:.1f} after; {os.cpu_count()} cores)\n")
    print("| timeout_ms | promise | calls | client p50 | client p99 | client worst | server p50 | server p99 "
          "| server worst | late (client) | late (server) | outcomes |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for t in DEADLINES_MS:
        mine = [r for r in rows if r[0] == t]
        if not mine:
            continue
        p = promise_s(t / 1000) * 1000
        walls, inner = [r[2] for r in mine], [r[3] for r in mine]
        kinds: dict[str, int] = {}
        for r in mine:
            kinds[r[4]] = kinds.get(r[4], 0) + 1
        print(f"| {t} | {p:.0f} | {len(mine)} | {_pct(walls, 0.5):.0f} | {_pct(walls, 0.99):.0f} | {max(walls):.0f} "
              f"| {_pct(inner, 0.5):.0f} | {_pct(inner, 0.99):.0f} | {max(inner):.0f} | {sum(w > p for w in walls)} | {sum(x > p for x in inner)} "
              f"| {', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))} |")
    if FLOOR:
        print(f"\nGET /healthz on the same connections (the client, the loopback and uvicorn, no work): "
              f"p50 {_pct(FLOOR, 0.5):.0f} ms, p99 {_pct(FLOOR, 0.99):.0f} ms, worst {max(FLOOR):.0f} ms")
    FLOOR.clear()
    if cuts:
        print("\nanswered by the server at the deadline: " + ", ".join(f"{k} {v:.0f}" for k, v in sorted(cuts.items())))
    worst = sorted(rows, key=lambda r: r[2] - promise_s(r[0] / 1000) * 1000, reverse=True)[:3]
    print("\nworst past the promise (client): " + "; ".join(
        f"{r[2] - promise_s(r[0] / 1000) * 1000:+.0f} ms ({r[0]} ms, {r[1]}, {r[4]})" for r in worst))


def small_deadlines(args: argparse.Namespace) -> int:
    docs = {rel.split("/")[-1].split("_compile")[0].split("_export")[0]: _corpus_doc(rel) for rel in SIZES}
    effort = iter(range(600_000, 10**9))

    def jobs() -> list[tuple[str, int, str, bytes]]:
        out = []
        for _ in range(args.rounds):
            for t in DEADLINES_MS:
                for name, doc in docs.items():
                    for op in DEADLINE_OPS:
                        opts = {**doc.get("options", {}), "timeout_ms": t, "effort": next(effort)}
                        body = _dumps({**doc, "options": opts})
                        out.append((name, t, op, body))
        return out

    if args.library:
        for title, n in (("library (solver.run), quiet", 0), (f"library (solver.run), {args.hogs} busy-loop processes", args.hogs)):
            with hogs(n, args.hog_s):
                before = os.getloadavg()[0]
                rows = _in_process(jobs())
                _table(title, rows, (before, os.getloadavg()[0]), {})
                _gc_line()
        return 0
    with serving({}) as url:
        if url is None:
            return 1
        if args.contexts:
            jobs = _as_contexts(url, docs, jobs)
        if args.batch:
            jobs = _as_batches(args.batch, jobs)
        _drive(url, jobs()[:20], 1)  # warm the workers
        FLOOR.clear()
        runs = [("quiet, 1 client", 0, 1), (f"{args.hogs} busy-loop processes, 1 client", args.hogs, 1),
                (f"{args.hogs} busy-loop processes, {args.clients} clients", args.hogs, args.clients)]
        for title, n, clients in runs[-1:] if args.loaded_only else runs:
            with hogs(n, args.hog_s):
                before, cuts = os.getloadavg()[0], _cuts(url)
                rows = _drive(url, jobs(), clients)
                after = _cuts(url)
                _table(title, rows, (before, os.getloadavg()[0]),
                       {k: v - cuts.get(k, 0) for k, v in after.items() if v - cuts.get(k, 0)})
    return 0


def _as_contexts(url: str, docs: dict[str, dict[str, Any]], jobs: Any) -> Any:
    """``jobs`` as questions to contexts: each set registered once, a question's delta its options."""
    import httpx

    keys = {}
    for name, doc in docs.items():
        ctx = {k: v for k, v in doc.items() if k not in ("queries", "exprs")}
        keys[name] = httpx.post(url + "/v1/contexts", content=_dumps(ctx), timeout=600).json()["context"]

    def asked() -> list[tuple[str, int, str, bytes]]:
        return [(name, t, op, _dumps({"context": keys[name], "options": json.loads(body)["options"]}))
                for name, t, op, body in jobs()]

    return asked


def _as_batches(n: int, jobs: Any) -> Any:
    """``jobs`` as ``/v1/batch`` requests of ``n`` items of one deadline each (sizes mixed)."""

    def batched() -> list[tuple[str, int, str, bytes]]:
        by_t: dict[int, list[tuple[str, int, str, bytes]]] = {}
        for job in jobs():
            by_t.setdefault(job[1], []).append(job)
        out = []
        for t, js in by_t.items():
            for i in range(0, len(js) - n + 1, n):
                items = [{"op": op, "problem": json.loads(body)} for _, _, op, body in js[i:i + n]]
                out.append((f"{n} items", t, "batch", _dumps({"items": items})))
        return out

    return batched


if __name__ == "__main__":
    sys.exit(main())
