"""Redundancy speed, one table per run: symguard against a plain z3 script and PyTorch today.

    python bench/redundancy.py [PATH …] [--repeat 3] [--torch-limit 30] [--plain-limit 60]
                               [--no-torch] [--no-plain] [--profile] [--shrink] [--skip-unsupported]

Instances (default): ``../shared/corpus_sample/*.json`` when present beside the checkout,
``smt2_corpus/torch/*.json`` and ``smt2_corpus/synthetic/*.json``. Per instance:

- **symguard cold**: ``symguard redundancy FILE`` in a fresh process (wall time, imports
  included; bytecode cached in a temporary ``PYTHONPYCACHEPREFIX`` as an installed package has
  it); **warm**: ``solver.run`` in this process, median of ``--repeat`` (parse and
  canonicalization included). **cold cpu** / **warm cpu**: the same runs' CPU time (the child's
  user + system time; this process's ``time.process_time``, median of the warm runs) —
  on a shared, loaded machine the figure to compare. Dropped, kept, unknown, z3 checks issued, checks avoided and how
  many guards each lever decided (``stats.levers``): ``rewrite`` (canonical form is a constant),
  ``duplicate`` (same canonical form as an earlier guard), ``points`` (refuted by a verified
  point), ``facts`` (rewritten to True under the other kept guards' facts), ``eqs`` (implied
  through the kept equalities, substituted), ``qlin``/``walk`` (one-symbol and two- or three-symbol residue
  walks), ``periodic`` (every residue case refuted), ``z3``. **stable**:
  ``yes`` when the cold runs and ``--stability`` warm runs (at least ``--repeat``) all gave the
  same verdicts and minimal set, else how many distinct answers (run it on a loaded machine too:
  budgets are resource units, so load must not change it).
- **plain z3**: below, in this file — our parser, then z3's Python API directly: one incremental
  solver, assumption literals, the textbook always-true pass and greedy deletion in symguard's
  removal order, up to 2 s per check within ``--plain-limit`` seconds in all.
- **torch**: PyTorch 2.13's ``ShapeEnv._maybe_evaluate_static`` on each guard given the asserts
  and the kept guards as axioms (``bench/sympy_static.py``), greedy like the others, stopped
  after ``--torch-limit`` seconds (then marked ``>``).

- **stable**: whether every cold run (``--cold-runs``, each a fresh process with its own hash
  seed) and every warm repetition gave the same verdicts and minimal set (``yes``), or how many
  distinct answers there were (a budget- or hash-order-dependent answer shows up here).
- ``--shrink``: ``shrink`` in this process, once: ``optimal`` and milliseconds.
- ``--skip-unsupported``: run with ``options.on_unsupported = "skip"`` (a problem the parser
  rejects as a whole is otherwise one ``error`` row); skipped guards count as ``unsup``.

Ratios are measured in the same run on the same machine. ``--profile`` adds a cProfile summary
of symguard's warm run per instance (top functions by own time).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# `python bench/x.py` puts bench/ first on sys.path; import from the checkout root instead, so
# `bench.*`, `solver` and `service` resolve the same way from any working directory
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

import z3

from symguard.solver import load_problem, run
from symguard.solver.ops.redundancy import cost

PER_CHECK_MS = 2000
# ``stats.levers`` keys in table order, and their short column names: guards each lever decided
# (``z3``: the checks issued for a verdict)
LEVERS = ("rewrite", "duplicate", "points", "facts", "equalities", "quasilinear", "multivariate", "periodic", "z3")
LEVER_NAMES = ("rewrite", "dup", "points", "facts", "eqs", "qlin", "walk", "periodic", "z3")


# ------------------------------------------------------------------ the plain z3 script

def textbook_encoding(p: Any) -> tuple[Any, Any, list[Any], list[Any]]:
    """What a z3 user writes: our IR -> z3 translation (``bench.baselines.Z3Problem``), one
    incremental solver, and per guard an assumption literal that it holds (``sel``) and one that
    it fails (``neg``)."""
    from bench.baselines import Z3Problem  # the straightforward IR -> z3 translation

    zp = Z3Problem(p)
    s = z3.Solver(ctx=zp.ctx)
    s.add(zp.background())
    n = len(zp.guards)
    sel = [z3.Bool(f"sel!{i}", zp.ctx) for i in range(n)]
    neg = [z3.Bool(f"neg!{i}", zp.ctx) for i in range(n)]
    for i, g in enumerate(zp.guards):
        if g is not None:
            s.add(z3.Implies(sel[i], g), z3.Implies(neg[i], z3.Not(g)))
    return zp, s, sel, neg


def textbook_verdicts(p: Any, live: list[int], sel: list[Any], neg: list[Any],
                      check: Callable[[list[Any]], Any]) -> dict[int, str]:
    """The textbook pass plain z3 is given: always-true guards first, then greedy deletion in
    symguard's removal order (``prefer``), each check on assumption literals (``sel``: the guard
    holds, ``neg``: it fails)."""
    verdict: dict[int, str] = {}
    for i in live:
        if check([neg[i]]) == z3.unsat:
            verdict[i] = "always_true"
    keep = [i for i in live if i not in verdict]
    if p.options.prefer == "order":
        order = sorted(keep, reverse=True)
    else:
        order = sorted(keep, key=lambda i: (-cost(p.guards[i].term), -i))
    kept = set(keep)
    for i in order:
        r = check([sel[j] for j in sorted(kept) if j != i] + [neg[i]])
        if r == z3.unsat:
            kept.discard(i)
            verdict[i] = "redundant"
        else:
            verdict[i] = "required" if r == z3.sat else "unknown"
    return verdict


def plain_redundancy(doc: dict[str, Any], limit_s: float) -> dict[str, Any]:
    """The loop a z3 user writes: same parser and encoding semantics, nothing else of ours."""
    t0 = time.perf_counter()
    p = load_problem(doc)
    zp, s, sel, neg = textbook_encoding(p)
    n = len(zp.guards)
    end = t0 + limit_s
    checks = 0

    def check(assumptions: list[Any]) -> Any:
        nonlocal checks
        left = int((end - time.perf_counter()) * 1000)
        if left <= 0:
            return z3.unknown
        s.set("timeout", max(1, min(PER_CHECK_MS, left)))
        checks += 1
        return s.check(assumptions)

    live = [i for i in range(n) if zp.guards[i] is not None]
    first = check([sel[i] for i in live])
    if first == z3.unsat:
        return {"ms": (time.perf_counter() - t0) * 1000, "status": "unsat", "dropped": None, "kept": None,
                "unknown": None, "checks": checks}
    verdict = textbook_verdicts(p, live, sel, neg, check)
    kept = {i for i, v in verdict.items() if v != "always_true" and v != "redundant"}
    unknown = sum(1 for v in verdict.values() if v == "unknown")
    return {"ms": (time.perf_counter() - t0) * 1000, "status": str(first), "dropped": len(live) - len(kept),
            "kept": len(kept) + (n - len(live)), "unknown": unknown, "checks": checks}


# ------------------------------------------------------------------ torch today

class _Stop(BaseException):  # not Exception: torch and sympy code catch those
    pass


def torch_redundancy(doc: dict[str, Any], limit_s: float) -> dict[str, Any] | None:
    try:
        from bench import sympy_static
    except ImportError:
        return None
    if not sympy_static.HAVE_TORCH:
        return None
    sympy_static.clear_caches()

    def alarm(*_: Any) -> None:
        raise _Stop

    old = signal.signal(signal.SIGALRM, alarm)
    t0 = time.perf_counter()
    signal.setitimer(signal.ITIMER_REAL, limit_s)
    try:
        res = sympy_static.SympyProblem(doc).redundancy()
        out = {"ms": (time.perf_counter() - t0) * 1000, "dropped": res["always_true"] + res["redundant"],
               "stopped": False}
    except _Stop:
        out = {"ms": limit_s * 1000, "dropped": None, "stopped": True}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return out


# ------------------------------------------------------------------ symguard

def symguard_cold(path: Path, pycache: str, doc: dict[str, Any] | None = None) -> tuple[float, dict[str, Any]]:
    """``symguard redundancy`` in a fresh process; ``doc`` (when given) replaces the file's content.
    Milliseconds of wall time; the child's CPU time is left in ``COLD_CPU_MS[-1]``."""
    if doc is not None:
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as tmp:
            json.dump(doc, tmp)
        try:
            return symguard_cold(Path(tmp.name), pycache)
        finally:
            os.unlink(tmp.name)
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = pycache
    exe = Path(sys.executable).parent / "symguard"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "symguard.service.cli"]
    t0, c0 = time.perf_counter(), _children_cpu()
    out = subprocess.run([*cmd, "redundancy", str(path)], capture_output=True, text=True, env=env, check=False)
    ms = (time.perf_counter() - t0) * 1000
    COLD_CPU_MS.append((_children_cpu() - c0) * 1000)
    return ms, json.loads(out.stdout)


COLD_CPU_MS: list[float] = []


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime





def symguard_warm(doc: dict[str, Any], repeat: int) -> tuple[float, float, dict[str, Any], list[dict[str, Any]]]:
    """Median wall and CPU milliseconds (CPU: this process's ``time.process_time``, what a loaded
    machine does not inflate), the last result and every result (for the stability column)."""
    times, cpu, runs = [], [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        runs.append(run("redundancy", doc))
        times.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    return statistics.median(times), statistics.median(cpu), runs[-1], runs


def stability(results: list[dict[str, Any]]) -> str:
    """``yes`` when every run gave the same verdicts and minimal set, else ``N answers`` with the
    range of ``unknown`` counts (a difference without unknowns is a determinism bug)."""
    answers = {(tuple(g["verdict"] for g in r["guards"]), tuple(r["minimal"])) for r in results}
    if len(answers) == 1:
        return "yes"
    unknown = sorted(sum(g["verdict"] == "unknown" for g in r["guards"]) for r in results)
    return f"{len(answers)} answers (unknown {unknown[0]}-{unknown[-1]})"


def symguard_shrink(doc: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    t0 = time.perf_counter()
    res = run("shrink", doc)
    return (time.perf_counter() - t0) * 1000, res


def summary(res: dict[str, Any]) -> dict[str, Any]:
    rows = res["guards"]
    v = [r["verdict"] for r in rows]
    st = res.get("stats", {})
    return {"guards": len(rows), "dropped": len(rows) - len(res["minimal"]), "kept": len(res["minimal"]),
            "unknown": v.count("unknown"), "unsupported": v.count("unsupported"), "checks": st.get("checks"),
            "avoided": st.get("avoided"),
            "levers": st.get("levers", {})}


def profile(doc: dict[str, Any], top: int = 12) -> str:
    pr = cProfile.Profile()
    pr.enable()
    run("redundancy", doc)
    pr.disable()
    buf = io.StringIO()
    pstats.Stats(pr, stream=buf).sort_stats("tottime").print_stats(top)
    keep = [ln for ln in buf.getvalue().splitlines() if ln.strip() and ("/" in ln or "{" in ln or "ncalls" in ln)]
    return "\n".join(ln.replace(str(ROOT) + "/", "") for ln in keep)


# ------------------------------------------------------------------ main

def instances(paths: list[str]) -> list[Path]:
    if paths:
        out: list[Path] = []
        for p in map(Path, paths):
            out += sorted(p.glob("*.json")) if p.is_dir() else [p]
        return [f for f in out if f.name != "MANIFEST.json"]  # a corpus folder's index, not a problem
    shared = ROOT.parent / "shared" / "corpus_sample"
    found = sorted(shared.glob("*.json")) if shared.is_dir() else []
    found += sorted((ROOT / "smt2_corpus" / "torch").glob("*.json"))
    found += sorted((ROOT / "smt2_corpus" / "synthetic").glob("*.json"))
    return [f for f in found if f.name != "MANIFEST.json"]


def fmt(x: Any, nd: int = 0) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.{nd}f}"
    return str(x)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--stability", type=int, default=5, help="warm runs compared for the 'stable' column")
    ap.add_argument("--torch-limit", type=float, default=60.0)
    ap.add_argument("--plain-limit", type=float, default=60.0)
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--no-plain", action="store_true")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--cold-runs", type=int, default=1, help="fresh processes per instance (cold ms: the first)")
    ap.add_argument("--shrink", action="store_true", help="also shrink each instance once (optimal, ms)")
    ap.add_argument("--skip-unsupported", action="store_true", help='options.on_unsupported = "skip"')
    a = ap.parse_args(argv)
    files = instances(a.paths)
    print(f"{len(files)} instances; python {sys.version.split()[0]}, z3 {z3.get_version_string()}, "
          f"{os.cpu_count()} cpus")
    head = ("| instance | guards | dropped | kept | unknown | unsup | cold ms | warm ms | cold cpu | warm cpu | stable | "
            "checks | avoided | "
            f"{'/'.join(LEVER_NAMES)} | plain z3 ms | plain dropped | plain unknown | plain checks | "
            "torch ms | torch dropped | plain/warm | torch/warm |" + (" shrink optimal | shrink ms |" if a.shrink else ""))
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    tot = {"cold": 0.0, "warm": 0.0, "cold_cpu": 0.0, "warm_cpu": 0.0, "plain": 0.0, "torch": 0.0}
    profiles = []
    with tempfile.TemporaryDirectory() as pycache:
        symguard_cold(files[0], pycache) if files else None  # fill the bytecode cache once
        for f in files:
            doc = json.loads(f.read_text())
            if a.skip_unsupported:
                doc["options"] = {**doc.get("options", {}), "on_unsupported": "skip"}
            cold_ms, cold = symguard_cold(f, pycache, doc if a.skip_unsupported else None)
            cold_cpu = COLD_CPU_MS[-1]
            colds = [cold] + [symguard_cold(f, pycache, doc if a.skip_unsupported else None)[1]
                              for _ in range(a.cold_runs - 1)]
            name = f"{f.parent.name}/{f.stem}"
            if "error" in cold:
                err = cold["error"]
                print(f"| {name} | error: {err['code']} at {err.get('where')}: {err['message'][:80]} |", flush=True)
                continue
            warm_ms, warm_cpu, warm, runs = symguard_warm(doc, max(a.repeat, a.stability))
            s = summary(warm)
            if cold["minimal"] != warm["minimal"] and not (s["unknown"] or summary(cold)["unknown"]):
                print(f"NOTE: {f.name}: cold and warm minimal sets differ")  # would be a determinism bug
            lv = s["levers"]
            levers = "/".join(str(lv.get(k, 0)) for k in LEVERS)
            plain = None if a.no_plain else plain_redundancy(doc, a.plain_limit)
            tr = None if a.no_torch else torch_redundancy(doc, a.torch_limit)
            tms = None if tr is None else (">" if tr["stopped"] else "") + fmt(tr["ms"])
            shrink = ""
            if a.shrink:
                sh_ms, sh = symguard_shrink(doc)
                shrink = f" {sh.get('optimal', sh['status'])} | {sh_ms:.0f} |"
            print(f"| {name} | {s['guards']} | {s['dropped']} | {s['kept']} | {s['unknown']} | {s['unsupported']} | "
                  f"{cold_ms:.0f} | {warm_ms:.0f} | {cold_cpu:.0f} | {warm_cpu:.0f} | {stability([*colds, *runs])} | "
                  f"{s['checks']} | {s['avoided']} | "
                  f"{levers} | "
                  f"{fmt(plain and plain['ms'])} | {fmt(plain and plain['dropped'])} | "
                  f"{fmt(plain and plain['unknown'])} | {fmt(plain and plain['checks'])} | {fmt(tms)} | "
                  f"{fmt(tr and tr['dropped'])} | "
                  f"{fmt(plain and plain['ms'] / warm_ms, 1)} | {fmt(tr and tr['ms'] / warm_ms, 1)} |{shrink}",
                  flush=True)
            tot["cold"] += cold_ms
            tot["warm"] += warm_ms
            tot["cold_cpu"] += cold_cpu
            tot["warm_cpu"] += warm_cpu
            tot["plain"] += plain["ms"] if plain else 0.0
            tot["torch"] += tr["ms"] if tr else 0.0
            if a.profile:
                profiles.append(f"### {name}\n{profile(doc)}")
    print(f"\ntotals ms: symguard cold {tot['cold']:.0f}, warm {tot['warm']:.0f} (CPU: cold {tot['cold_cpu']:.0f}, "
          f"warm {tot['warm_cpu']:.0f}); plain z3 {tot['plain']:.0f}; "
          f"torch {tot['torch']:.0f} (torch stopped runs count as their limit)")
    for p in profiles:
        print("\n" + p)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
