"""Replay recorded compiler sessions (``smt2_corpus/sessions/``) against symguard, one run.

Each file is a ShapeEnv growing in PyTorch's order: guards and asserts arrive one by one and
questions (``_maybe_evaluate_static``) are asked in between. A question is answered three ways:

(a) stateless: ``POST /v1/evaluate`` with the whole problem so far (everything resent);
(b) contexts over HTTP: the context is extended by each new guard/assert, a question is
    ``{"context": KEY, "queries": [q]}``;
(c) in-process: ``solver.Context`` extended the same way (what the Oracle does).

Printed: p50/p99 per question of each, PyTorch's own times from the trace, the no-op FastAPI
floor (``bench/http_latency.py``'s endpoint) measured in the same run, counts of questions
PyTorch decided (True/False), symguard decided, identical answers and how many more symguard
decides; then a follow-up question on a 400-guard context decided by known facts, over HTTP,
and ``simplify`` follow-ups on the same context against ``evaluate`` ones (over HTTP and in
process: the context keeps its simplify engine, solver/ops/simplify.py ``Engine``).

Usage: ``python bench/compiler_session.py [--http-sessions N] [--followup-only] [--followups N]``.
Not a test.
"""

from __future__ import annotations

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

import argparse
import glob
import json
import threading
import time
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI, Request, Response

from symguard.service.app import create_app
from symguard.service.settings import Settings
from symguard.solver import Context

ROOT = os.path.dirname(_HERE)


def _pct(xs: list[float], p: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def _serve(app: Any, port: int) -> uvicorn.Server:
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False))
    threading.Thread(target=server.run, daemon=True).start()
    end = time.monotonic() + 120
    while not server.started and time.monotonic() < end:
        time.sleep(0.05)
    return server


def _noop_app() -> FastAPI:
    app = FastAPI()

    @app.post("/noop")
    async def noop(request: Request) -> Response:
        await request.body()
        return Response(b"{}", media_type="application/json")

    return app


def _value(res: dict[str, Any]) -> Any:
    row = res["queries"][0]
    return row.get("value") if row.get("kind") == "bool" else None


def _pytorch(ans: Any) -> bool | None:
    return {"True": True, "False": False}.get(ans) if isinstance(ans, str) else None


def replay(path: str, http: httpx.Client | None, stats: dict[str, Any]) -> None:
    with open(path) as fh:
        data = json.load(fh)
    opts = {"timeout_ms": 1000, "on_unsupported": "skip"}
    doc: dict[str, Any] = {"symbols": data["symbols"], "asserts": [], "guards": [], "options": opts}
    ctx = Context(doc)
    key = http.post("/v1/contexts", json=doc).json()["context"] if http else None
    pending: dict[str, list[str]] = {"asserts": [], "guards": []}
    for e in data["events"]:
        if e["kind"] in ("guard", "assert"):
            sec = "guards" if e["kind"] == "guard" else "asserts"
            doc[sec].append(e["expr"])
            pending[sec].append(e["expr"])
            continue
        q = e["expr"]
        if pending["asserts"] or pending["guards"]:
            delta = {k: v for k, v in pending.items() if v}
            t0 = time.perf_counter()
            ctx = ctx.extend(delta)
            stats["extend_ms"].append((time.perf_counter() - t0) * 1000)
            if http:
                t0 = time.perf_counter()
                key = http.post("/v1/contexts", json={"context": key, **delta}).json()["context"]
                stats["ctx_http_extend_ms"].append((time.perf_counter() - t0) * 1000)
            pending = {"asserts": [], "guards": []}
        t0 = time.perf_counter()
        try:
            res = ctx.run("evaluate", {"queries": [q]})
        except Exception as err:  # noqa: BLE001 - an unsupported question: counted, not decided
            stats["errors"].append(f"{os.path.basename(path)}: {q[:60]}: {err}"[:160])
            continue
        stats["inproc_ms"].append((time.perf_counter() - t0) * 1000)
        mine = _value(res)
        if http:
            t0 = time.perf_counter()
            r = http.post("/v1/evaluate", json={"context": key, "queries": [q]}).json()
            stats["ctx_http_ms"].append((time.perf_counter() - t0) * 1000)
            assert _value(r) == mine, (q, r, mine)
            t0 = time.perf_counter()
            http.post("/v1/evaluate", json={**doc, "queries": [q]})
            stats["stateless_http_ms"].append((time.perf_counter() - t0) * 1000)
        stats["pytorch_us"].append(e["us"])
        theirs = _pytorch(e["pytorch"])
        decided = mine in (True, False)
        stats["questions"] += 1
        stats["pytorch_decided"] += theirs is not None
        stats["symguard_decided"] += decided
        if theirs is not None:
            stats["identical"] += mine is theirs
            if mine is not theirs:
                stats["disagree"].append((os.path.basename(path), q, e["pytorch"], mine))
        elif decided:
            stats["more"] += 1


def _worker_cpu_s() -> float:
    """CPU seconds used so far by this process's multiprocessing children (the context workers);
    NaN where /proc is not there."""
    import multiprocessing

    tick, total = os.sysconf("SC_CLK_TCK"), 0.0
    for p in multiprocessing.active_children():
        try:
            with open(f"/proc/{p.pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            return float("nan")
        total += (int(fields[11]) + int(fields[12])) / tick  # utime + stime
    return total


def floor_and_followup(http: httpx.Client, noop: httpx.Client, n: int = 200) -> dict[str, float]:
    """The no-op floor and a facts-decided follow-up question on a 400-guard context.

    Wall time per request, interleaved (noop, follow-up, noop, ...) so that load drift hits both;
    CPU per request of this process (client and server threads, ``time.process_time``) and of the
    context worker processes (``/proc``, clock ticks summed over the whole loop)."""
    guards = [f"s{i} >= {i % 7 + 2}" for i in range(400)]
    doc = {"symbols": {f"s{i}": {"min": 2, "hint": 64} for i in range(400)}, "guards": guards}
    t0 = time.perf_counter()
    key = http.post("/v1/contexts", json=doc).json()["context"]
    register_ms = (time.perf_counter() - t0) * 1000
    body = {"context": key, "queries": ["s17 >= 2"]}
    noop_ms, ctx_ms, fresh_ms, noop_cpu, fresh_cpu = [], [], [], [], []
    time.sleep(0.5)  # let the server finish with the registration
    w0 = _worker_cpu_s()
    for i in range(n):
        t0, c0 = time.perf_counter(), time.process_time()
        noop.post("/noop", json=body)
        noop_ms.append((time.perf_counter() - t0) * 1000)
        noop_cpu.append((time.process_time() - c0) * 1000)
        t0, c0 = time.perf_counter(), time.process_time()
        r = http.post("/v1/evaluate", json={"context": key, "queries": [f"s{i % 400} >= 1"]}).json()
        ms, cpu = (time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000
        if r.get("cached"):
            ctx_ms.append(ms)
        else:
            fresh_ms.append(ms)
            fresh_cpu.append(cpu)
        assert r["queries"][0]["value"] is True, r
    worker_cpu = (_worker_cpu_s() - w0) * 1000 / max(1, n)
    # the same context asked to simplify (each expression new, decided by the facts: Max(s_i, 1) is
    # s_i), interleaved with evaluate follow-ups of the same shape, so that load drift hits both
    simp_ms, ev_ms = [], []
    for i in range(n):
        t0 = time.perf_counter()
        r = http.post("/v1/simplify", json={"context": key, "exprs": [f"Max(s{i % 400}, 1)"]}).json()
        simp_ms.append((time.perf_counter() - t0) * 1000)
        assert r["exprs"][0]["form"] == f"s{i % 400}", r
        t0 = time.perf_counter()
        http.post("/v1/evaluate", json={"context": key, "queries": [f"s{i % 400} >= 0"]}).json()
        ev_ms.append((time.perf_counter() - t0) * 1000)
    t0 = time.perf_counter()
    http.post("/v1/evaluate", json={**doc, "queries": ["s399 >= 1"]})
    return {"simplify_p50": _pct(simp_ms, 0.5), "simplify_p99": _pct(simp_ms, 0.99),
            "evaluate_p50": _pct(ev_ms, 0.5), "evaluate_p99": _pct(ev_ms, 0.99),
            **inprocess_simplify_followup(doc, n),
            "noop_p50": _pct(noop_ms, 0.5), "noop_p99": _pct(noop_ms, 0.99), "noop_cpu_p50": _pct(noop_cpu, 0.5),
            "fresh_p50": _pct(fresh_ms, 0.5), "fresh_p99": _pct(fresh_ms, 0.99), "fresh_n": len(fresh_ms),
            "fresh_cpu_p50": _pct(fresh_cpu, 0.5), "worker_cpu_ms": worker_cpu,
            "cached_p50": _pct(ctx_ms, 0.5), "cached_n": len(ctx_ms), "register_ms": register_ms,
            "stateless_ms": (time.perf_counter() - t0) * 1000}


def inprocess_simplify_followup(doc: dict[str, Any], n: int) -> dict[str, float]:
    """``simplify`` against ``evaluate`` follow-ups on one in-process ``Context``, interleaved:
    facts-decided expressions (``Max(s_i, 1)`` is ``s_i``, ``s_i >= 1`` is ``True``) and one that
    needs the rules and the sample points (``s_i - Mod(s_i, 4)`` is ``4*(s_i//4)``), each new. A
    shape asked before of a symbol of the same role is answered from that form, renamed (the
    context's shape memo); ``bench/simplify_followup.py`` also measures each shape cold."""
    ctx = Context(doc)
    ctx.run("evaluate", {"queries": ["s0 >= 1"]})
    ctx.run("simplify", {"exprs": ["s0 - Mod(s0, 4)"]})  # the first one builds the context's engine
    asks = {"evaluate": lambda i: ("evaluate", {"queries": [f"s{i} >= 1"]}),
            "simplify_bool": lambda i: ("simplify", {"exprs": [f"s{i} >= 1"]}),
            "simplify_max": lambda i: ("simplify", {"exprs": [f"Max(s{i}, 1)"]}),
            "simplify_mod": lambda i: ("simplify", {"exprs": [f"s{i} - Mod(s{i}, 4)"]})}
    times: dict[str, list[float]] = {k: [] for k in asks}
    for i in range(min(n, 400)):
        for name, ask in asks.items():
            op, delta = ask(i)
            t0 = time.perf_counter()
            ctx.run(op, delta)
            times[name].append((time.perf_counter() - t0) * 1000)
    return {f"inproc_{k}_p50": _pct(v, 0.5) for k, v in times.items()}


def _print_followup(fl: dict[str, float]) -> None:
    print("400-guard context, facts-decided follow-up over HTTP:")
    print(f"  no-op floor     wall p50 {fl['noop_p50']:7.3f} ms  p99 {fl['noop_p99']:7.3f} ms  "
          f"CPU p50 {fl['noop_cpu_p50']:.3f} ms (client + server)")
    print(f"  first ask       wall p50 {fl['fresh_p50']:7.3f} ms  p99 {fl['fresh_p99']:7.3f} ms  "
          f"CPU p50 {fl['fresh_cpu_p50']:.3f} ms (client + server) + {fl['worker_cpu_ms']:.3f} ms "
          f"(context workers, mean)  n={fl['fresh_n']}")
    print(f"  ratio to floor  wall p50 {fl['fresh_p50'] / fl['noop_p50']:.2f}x  "
          f"CPU p50 {fl['fresh_cpu_p50'] / fl['noop_cpu_p50']:.2f}x (server process only)")
    print(f"  repeat (cached) wall p50 {fl['cached_p50']:7.3f} ms  n={fl['cached_n']}; "
          f"stateless 400-guard ask {fl['stateless_ms']:.1f} ms; registering the context {fl['register_ms']:.1f} ms")
    print(f"  simplify follow-up over HTTP (Max(s_i, 1), interleaved with evaluate): wall p50 "
          f"{fl['simplify_p50']:.3f} ms p99 {fl['simplify_p99']:.3f} ms against evaluate p50 {fl['evaluate_p50']:.3f} ms "
          f"p99 {fl['evaluate_p99']:.3f} ms: {fl['simplify_p50'] / fl['evaluate_p50']:.2f}x")
    ev = fl["inproc_evaluate_p50"]
    print(f"  in process (Context.run, p50): evaluate s_i >= 1 {ev:.3f} ms; simplify s_i >= 1 "
          f"{fl['inproc_simplify_bool_p50']:.3f} ms ({fl['inproc_simplify_bool_p50'] / ev:.2f}x), Max(s_i, 1) "
          f"{fl['inproc_simplify_max_p50']:.3f} ms ({fl['inproc_simplify_max_p50'] / ev:.2f}x), s_i - Mod(s_i, 4) "
          f"{fl['inproc_simplify_mod_p50']:.3f} ms ({fl['inproc_simplify_mod_p50'] / ev:.2f}x)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--http-sessions", type=int, default=3, help="sessions also replayed over HTTP (a, b)")
    ap.add_argument("--followup-only", action="store_true", help="only the 400-guard follow-up against the floor")
    ap.add_argument("--followups", type=int, default=200, help="follow-up questions asked (each new)")
    args = ap.parse_args(argv)
    stats: dict[str, Any] = {k: [] for k in ("extend_ms", "inproc_ms", "ctx_http_ms", "ctx_http_extend_ms",
                                             "stateless_http_ms", "pytorch_us", "errors", "disagree")}
    stats.update(questions=0, pytorch_decided=0, symguard_decided=0, identical=0, more=0)
    files = sorted(glob.glob(os.path.join(ROOT, "smt2_corpus", "sessions", "*.json")))
    s_port, n_port = 18761, 18762
    server = _serve(create_app(Settings(workers=2)), s_port)
    nserver = _serve(_noop_app(), n_port)
    with httpx.Client(base_url=f"http://127.0.0.1:{s_port}", timeout=120) as http, \
            httpx.Client(base_url=f"http://127.0.0.1:{n_port}", timeout=60) as noop:
        if not args.followup_only:
            for i, f in enumerate(files):
                replay(f, http if i < args.http_sessions else None, stats)
        fl = floor_and_followup(http, noop, args.followups)
    server.should_exit = nserver.should_exit = True
    if args.followup_only:
        _print_followup(fl)
        return 0
    print(f"sessions: {len(files)} (HTTP a/b: first {args.http_sessions}), questions: {stats['questions']}")
    for name, xs, unit in (("PyTorch _maybe_evaluate_static (recorded)", [u / 1000 for u in stats["pytorch_us"]], "ms"),
                           ("(c) in-process context, per question", stats["inproc_ms"], "ms"),
                           ("(c) in-process extend, per guard batch", stats["extend_ms"], "ms"),
                           ("(b) contexts over HTTP, per question", stats["ctx_http_ms"], "ms"),
                           ("(b) contexts over HTTP, extend per guard batch", stats["ctx_http_extend_ms"], "ms"),
                           ("(a) stateless over HTTP, per question", stats["stateless_http_ms"], "ms")):
        print(f"{name:47s} n={len(xs):5d}  p50 {_pct(xs, .5):8.3f} {unit}  p99 {_pct(xs, .99):8.3f} {unit}")
    print(f"PyTorch decided {stats['pytorch_decided']}, symguard decided {stats['symguard_decided']}, "
          f"identical {stats['identical']}, symguard decides {stats['more']} more; "
          f"disagreements {len(stats['disagree'])}, errors {len(stats['errors'])}")
    for d in stats["disagree"][:10]:
        print("  disagree:", d)
    for e in stats["errors"][:10]:
        print("  error:", e)
    _print_followup(fl)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
