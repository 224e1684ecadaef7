"""``simplify`` follow-ups on a registered 400-guard context against ``evaluate`` follow-ups, per
expression family, in process and over HTTP, in one run.

The context is the one ``bench/compiler_session.py`` uses (400 sizes ``s_i``, ``s_i >= i % 7 + 2``).
Each family is one expression shape asked of a new symbol each time (``s_i``, and ``s_j`` for
two-symbol shapes): divisions, mods, Max/Min, index algebra, comparisons. The baseline is an
``evaluate`` follow-up on the same context (``s_i >= 1``, decided by its facts), asked interleaved
with the simplify ones so that load drift hits both; printed: p50 per request and the ratio. Over
HTTP a facts-decided ``evaluate`` never leaves the server process (docs/contexts.md) while a
``simplify`` goes to the context's worker, so the same ``evaluate`` is also sent padded past the
server's 512-byte fast-path limit: the cost of reaching the worker, shown as a second baseline.

In process two ways: as served (the context's simplify engine keeps its memos, among them a
form per expression shape up to a renaming of interchangeable symbols, ``_Run.roles``) and
**cold**: that shape memo emptied before every request, so each expression pays its own rules,
sample-point checks and proofs (what a shape never seen before costs).

A worker process's memo cannot be emptied from here, so the first-seen cost over HTTP is measured
on a **twin** context: the same 400 guards, the sizes traced at ``64 + i`` instead of all at 64.
No two sizes then have the same role (range, hint, constraints about it alone), so no form is
ever renamed into another: every follow-up is a shape the engine has not seen. The twin is also
run in process, next to the cold column (the two measure the same thing on slightly different
sample points).

Before the first column a throwaway run warms the process (``warm_up``; ``--no-warm-up`` skips
it): measured first in a fresh process, a column's baseline was a third slower than later ones.

Usage: ``python bench/simplify_followup.py [--n 150] [--no-http] [--no-warm-up]``. Not a test.
"""

from __future__ import annotations

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
sys.path.insert(0, os.path.dirname(_HERE))

import argparse
import json
import threading
import time
from collections.abc import Callable
from typing import Any

FAMILIES: dict[str, str] = {
    "s_i >= 1": "s{i} >= 1",
    "Max(s_i, 1)": "Max(s{i}, 1)",
    "s_i - Mod(s_i, 4)": "s{i} - Mod(s{i}, 4)",
    "(s_i + 7)//8": "(s{i} + 7)//8",
    "CeilDiv(s_i, 8)*8": "CeilDiv(s{i}, 8)*8",
    "FloorDiv(2*s_i, 2)": "FloorDiv(2*s{i}, 2)",
    "MI(s_i,4,8) + 8*(s_i//32)": "ModularIndexing(s{i}, 4, 8) + 8*FloorDiv(s{i}, 32)",
    "FloorDiv(MI(s_i,1,64), 8)": "FloorDiv(ModularIndexing(s{i}, 1, 64), 8)",
    "Max(s_i,s_j) + Min(s_i,s_j)": "Max(s{i}, s{j}) + Min(s{i}, s{j})",
    "s_i//2 < 3": "s{i}//2 < 3",
    "8*s_i + s_j < 16": "8*s{i} + s{j} < 16",
    "(s_i + 1)//2 - s_i//2": "(s{i} + 1)//2 - s{i}//2",
    "Mod(s_i - Mod(s_i, 8), 8)": "Mod(s{i} - Mod(s{i}, 8), 8)",
    "(s_i*s_j)//s_j": "(s{i}*s{j})//s{j}",
}


def context_doc(twin: bool = False) -> dict[str, Any]:
    """The 400-guard context; ``twin``: the sizes traced at ``64 + i`` (no two interchangeable)."""
    guards = [f"s{i} >= {i % 7 + 2}" for i in range(400)]
    return {"symbols": {f"s{i}": {"min": 2, "hint": 64 + i if twin else 64} for i in range(400)}, "guards": guards}


def _p50(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else float("nan")


def _j(i: int) -> int:
    return (i * 7 + 3) % 400 or 1


def measure(ask: Callable[[str, dict[str, Any]], Any], n: int, before: Callable[[], None] | None = None
            ) -> dict[str, float]:
    """p50 ms per family and of the evaluate baseline, interleaved, each expression over a new symbol."""
    times: dict[str, list[float]] = {"evaluate": [], "evaluate_worker": [], **{k: [] for k in FAMILIES}}
    for i in range(1, n + 1):
        t0 = time.perf_counter()
        ask("evaluate", {"queries": [f"s{i} >= 1"]})
        times["evaluate"].append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        ask("evaluate_worker", {"queries": [f"s{i} >= 1"]})
        times["evaluate_worker"].append((time.perf_counter() - t0) * 1000)
        for name, shape in FAMILIES.items():
            if before is not None:
                before()
            t0 = time.perf_counter()
            ask("simplify", {"exprs": [shape.format(i=i, j=_j(i))]})
            times[name].append((time.perf_counter() - t0) * 1000)
    return {k: _p50(v) for k, v in times.items()}


def warm_up(n: int) -> None:
    """The first in-process column of a fresh process measured its ``evaluate`` baseline about a
    third slower than the later ones (0.25 against 0.18 ms: caches, allocator and branch
    predictors still cold) and flattered its ratios: a throwaway context asked the same questions
    first makes every column start warm."""
    in_process(n, cold=False, twin=True)


def in_process(n: int, cold: bool, twin: bool = False) -> tuple[dict[str, float], dict[str, str]]:
    from symguard.solver import Context

    ctx = Context(context_doc(twin))
    ctx.run("evaluate", {"queries": ["s0 >= 1"]})
    ctx.run("simplify", {"exprs": ["s0 - Mod(s0, 4)"]})  # the first one builds the context's engine
    forms = {name: ctx.run("simplify", {"exprs": [shape.format(i=n + 1, j=_j(n + 1))]})["exprs"][0]["form"]
             for name, shape in FAMILIES.items()}

    def forget() -> None:
        run = ctx._state.simplify_engine._run
        if run is not None and getattr(run, "shapes", None) is not None:  # (a tree without the memo: nothing)
            run.shapes.clear()

    return measure(lambda op, d: ctx.run("evaluate" if op == "evaluate_worker" else op, d), n,
                   forget if cold else None), forms


def over_http(n: int, twin: bool = False) -> dict[str, float]:
    import httpx
    import uvicorn

    from symguard.service.app import create_app
    from symguard.service.settings import Settings

    port = 18772 if twin else 18771
    server = uvicorn.Server(uvicorn.Config(create_app(Settings(workers=2)), host="127.0.0.1", port=port,
                                           log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    end = time.monotonic() + 120
    while not server.started and time.monotonic() < end:
        time.sleep(0.05)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120) as http:
            key = http.post("/v1/contexts", json=context_doc(twin)).json()["context"]
            http.post("/v1/evaluate", json={"context": key, "queries": ["s0 >= 1"]})
            http.post("/v1/simplify", json={"context": key, "exprs": ["s0 - Mod(s0, 4)"]})
            time.sleep(0.5)

            def ask(op: str, d: dict[str, Any]) -> Any:
                body = json.dumps({"context": key, **d})
                if op == "evaluate_worker":  # the same question, padded past the server's fast-path limit
                    op, body = "evaluate", body + " " * 600
                r = http.post(f"/v1/{op}", content=body, headers={"content-type": "application/json"})
                assert r.status_code == 200, r.text
                return r.json()

            return measure(ask, n)
    finally:
        server.should_exit = True
        thread.join(timeout=60)  # its context workers stopped with it


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=150, help="follow-ups per family (each over a new symbol)")
    ap.add_argument("--no-http", action="store_true")
    ap.add_argument("--no-warm-up", action="store_true", help="measure the first column in a cold process")
    args = ap.parse_args(argv)
    if not args.no_warm_up:
        warm_up(args.n)
    served, forms = in_process(args.n, cold=False)
    cold, _ = in_process(args.n, cold=True)
    twin, _ = in_process(args.n, cold=False, twin=True)
    cols = [("in process", served), ("cold shape", cold), ("twin (first seen)", twin)]
    if not args.no_http:
        http = over_http(args.n)
        cols += [("over HTTP", http), ("HTTP twin", over_http(args.n, twin=True))]
    print(f"400-guard context, {args.n} follow-ups per family, p50 ms (ratio to the evaluate follow-up of the same run)")
    print(f"{'expression':30s}" + "".join(f" {name:>17s}" for name, _ in cols) + "  form")
    rows = [("evaluate s_i >= 1 (baseline)", "evaluate"), ("the same, in the worker", "evaluate_worker")]
    rows += [(k, k) for k in FAMILIES]
    for label, k in rows:
        line = f"{label:30s}" + "".join(f" {c[k]:8.3f} ({c[k] / c['evaluate']:5.2f}x)" for _, c in cols)
        print(line + (f"  {forms[k]}" if k in forms else ""))
    worst = {name: max(c[k] / c["evaluate"] for k in FAMILIES) for name, c in cols}
    print("worst ratio: " + ", ".join(f"{k} {v:.2f}x" for k, v in worst.items()))
    for name, c in cols[3:]:
        print(f"{name}: a facts-decided evaluate is answered in the server process; sent to the context's "
              f"worker (a body past the server's 512 bytes) it costs {c['evaluate_worker']:.3f} ms: the worst "
              f"simplify is {max(c[k] for k in FAMILIES) / c['evaluate_worker']:.2f}x that")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
