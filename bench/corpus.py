"""symguard against what else one could run, over the whole corpus, side by side in one run.

    python bench/corpus.py [--quick] [--ops solve,redundancy,shrink] [--repeat N] [FILE.json|DIR ...]
    python bench/corpus.py --budgets write|check     # the CI guard's per-set budgets (BUDGETS.json)
    python bench/corpus.py --cold [--repeat N]         # each real set in a fresh process, imports included

Without paths: every problem ``*.json`` under ``smt2_corpus/`` (the torch corpus included as it
appears) and ``../shared/corpus_sample`` next to the checkout when present; identical problems
(the same symbols, asserts and guards under two names) are counted once. ``--quick`` is one
repetition instead of three. Prints markdown tables (they go into BENCHMARKS.md as they are).

Per operation, three approaches on the same problem:

- **symguard**: ``solver.run`` in-process (parse, canonicalize, interval pre-pass, z3, Python
  re-check of every model; no cache);
- **plain z3**: ``bench/baselines.py``, the script a user would write with z3's Python API over
  the same parsed guards (our overhead is the difference);
- **today**: what PyTorch users have — ``redundancy``: sympy static evaluation as in
  ``ShapeEnv._maybe_evaluate_static`` (``bench/sympy_static.py``; the real ShapeEnv when torch is
  importable); ``solve``: the trace-time hints, checked by substitution (sympy); ``shrink``: the
  trace-time shapes themselves (their sum is the repro size a user has without us).

Times are medians over the repetitions, in milliseconds, parsing included for every approach;
sympy's and torch's memo caches are cleared before each sympy repetition (symguard runs without
its cache too).
The redundancy count is how many guards an approach proves unnecessary (always true or implied
by the kept ones). A sympy ``always true`` that symguard does not also prove is flagged as a
disagreement (a soundness tripwire for both sides).
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import signal
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# `python bench/x.py` puts bench/ first on sys.path; import from the checkout root instead, so
# `bench.*`, `solver` and `service` resolve the same way from any working directory
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from bench.baselines import plain_redundancy, plain_shrink, plain_solve
from bench.sympy_static import HAVE_TORCH, TORCH_ERROR, SympyProblem, clear_caches
from symguard.service.cli.batch import collect_inputs
from symguard.solver import run

OPS = ("solve", "redundancy", "shrink")


def corpus(paths: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """(name, problem) for every distinct JSON problem under ``paths``."""
    if not paths:
        paths = [str(ROOT / "smt2_corpus")]
        sample = ROOT.parent / "shared" / "corpus_sample"
        if sample.is_dir():
            paths.append(str(sample))
    seen: set[str] = set()
    out = []
    for f in collect_inputs(paths):
        if not f.endswith(".json"):
            continue
        try:
            doc = json.loads(Path(f).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        ident = hashlib.sha256(json.dumps([doc.get(k) for k in ("symbols", "asserts", "guards", "options")],
                                          sort_keys=True).encode()).hexdigest()
        if ident in seen:
            continue
        seen.add(ident)
        p = Path(f)
        out.append((f"{p.parent.name}/{p.stem}", doc))
    return out


def timed(fn: Callable[[], Any], repeat: int, reset: Callable[[], None] | None = None) -> tuple[float, Any]:
    times, res = [], None
    for _ in range(repeat):
        if reset is not None:
            reset()
        t0 = time.perf_counter()
        res = fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), res


SYMPY_LIMIT_S = 60.0  # sympy has no budget of its own; past this the sympy path counts as "timeout"


class SympyTimeout(BaseException):  # not Exception: sympy and torch code catch those
    pass


def timed_sympy(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """``timed`` for the sympy path; each repetition stopped by SIGALRM after ``SYMPY_LIMIT_S``
    (then the result is None and the time the limit)."""
    def alarm(signum: int, frame: Any) -> None:
        raise SympyTimeout

    def limited() -> Any:
        signal.setitimer(signal.ITIMER_REAL, SYMPY_LIMIT_S)
        try:
            return fn()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)

    old = signal.signal(signal.SIGALRM, alarm)
    try:
        return timed(limited, repeat, clear_caches)
    except SympyTimeout:
        return SYMPY_LIMIT_S * 1000, None
    finally:
        signal.signal(signal.SIGALRM, old)


def timeout_of(doc: dict[str, Any]) -> int:
    return int((doc.get("options") or {}).get("timeout_ms", 2000))


# ------------------------------------------------------------------ one row per problem and op

def row_redundancy(doc: dict[str, Any], repeat: int) -> dict[str, Any]:
    t_sg, r = timed(lambda: run("redundancy", doc), repeat)
    verdicts = [g["verdict"] for g in r["guards"]]
    t_z3, z = timed(lambda: plain_redundancy(doc, timeout_of(doc)), repeat)
    t_sp, s = timed_sympy(lambda: SympyProblem(doc).redundancy(), repeat)
    if s is None:  # timed out: nothing proven
        s = {"always_true": 0, "redundant": 0, "unreadable": 0, "always_ids": [], "timeout": True}
    sg_true = {i for i, v in enumerate(verdicts) if v == "always_true"}
    undecided = {i for i, v in enumerate(verdicts) if v in ("unknown", "unsupported")}
    disagree = len(set(s["always_ids"]) - sg_true - undecided)
    return {"guards": len(verdicts), "sg_ms": t_sg, "z3_ms": t_z3, "sp_ms": t_sp,
            "sg": sum(v in ("always_true", "redundant") for v in verdicts),
            "sg_unknown": sum(v == "unknown" for v in verdicts),
            "z3": z.get("always_true", 0) + z.get("redundant", 0),
            "sp": f">{SYMPY_LIMIT_S:.0f} s" if s.get("timeout") else s["always_true"] + s["redundant"],
            "sp_proven": s["always_true"] + s["redundant"], "sp_unread": s["unreadable"], "disagree": disagree,
            "sp_timeout": int(bool(s.get("timeout")))}


def row_solve(doc: dict[str, Any], repeat: int) -> dict[str, Any]:
    t_sg, r = timed(lambda: run("solve", doc), repeat)
    t_z3, z = timed(lambda: plain_solve(doc, timeout_of(doc)), repeat)
    t_sp, s = timed_sympy(lambda: SympyProblem(doc).hints_hold(), repeat)
    s = s or "timeout"
    return {"guards": len(doc.get("guards") or []), "sg_ms": t_sg, "z3_ms": t_z3, "sp_ms": t_sp,
            "sg": r["status"], "z3": z["status"], "sp": s}


def row_shrink(doc: dict[str, Any], repeat: int) -> dict[str, Any]:
    t_sg, r = timed(lambda: run("shrink", doc), repeat)
    t_z3, z = timed(lambda: plain_shrink(doc, timeout_of(doc)), repeat)
    hints = [v.get("hint") for v in (doc.get("symbols") or {}).values() if isinstance(v, dict)]
    hint_sum = sum(abs(h) for h in hints) if hints and None not in hints else None
    sg_val = r.get("objective_value")
    z_val = z.get("objective_value")
    # symguard claims a proven optimum: plain z3 finding a smaller one would be a bug (ours or its)
    wrong = r.get("optimal") is True and isinstance(z_val, int) and isinstance(sg_val, int) and z_val < sg_val
    return {"guards": len(doc.get("guards") or []), "sg_ms": t_sg, "z3_ms": t_z3 if z_val is not None else None,
            "sp_ms": None, "disagree": int(wrong),
            "sg": f"{sg_val}{'' if r.get('optimal') else '?'}" if sg_val is not None else r["status"],
            "z3": z.get("objective_value", z["status"]), "sp": hint_sum if hint_sum is not None else "-"}


ROWS = {"solve": row_solve, "redundancy": row_redundancy, "shrink": row_shrink}
HEADS = {"solve": ("status", "status", "hints"), "redundancy": ("proven", "proven", "proven"),
         "shrink": ("sum", "sum", "hint sum")}


# ------------------------------------------------------------------ tables

def ratio(a: float | None, b: float) -> float | None:
    return None if a is None or b <= 0 else a / b


def fmt(x: Any, nd: int = 1) -> str:
    if x is None:
        return "-"
    return f"{x:.{nd}f}" if isinstance(x, float) else str(x)


def print_op(op: str, rows: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    h = HEADS[op]
    today = "sympy static" if op == "redundancy" else "hints (sympy)" if op == "solve" else "trace shapes"
    print(f"\n### {op}\n")
    print(f"| problem | guards | symguard ms | {h[0]} | plain z3 ms | {h[1]} | {today} ms | {h[2]} "
          "| z3/symguard | today/symguard |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in rows:
        print(f"| {name} | {r['guards']} | {fmt(r['sg_ms'])} | {r['sg']} | {fmt(r['z3_ms'])} | {r['z3']} "
              f"| {fmt(r['sp_ms'])} | {r['sp']} | {fmt(ratio(r['z3_ms'], r['sg_ms']), 2)} "
              f"| {fmt(ratio(r['sp_ms'], r['sg_ms']), 2)} |")
    tot = {k: sum(r[k] for _, r in rows if r[k] is not None) for k in ("sg_ms", "z3_ms")}
    sp_times = [r["sp_ms"] for _, r in rows if r["sp_ms"] is not None]
    tot["sp_ms"] = sum(sp_times) if sp_times else None
    z3r = [(x, n) for n, r in rows if (x := ratio(r["z3_ms"], r["sg_ms"])) is not None]
    spr = [(ratio(r["sp_ms"], r["sg_ms"]), n) for n, r in rows if r["sp_ms"] is not None]
    summary: dict[str, Any] = {"op": op, "n": len(rows), **tot,
                               "z3_median": statistics.median(x for x, _ in z3r) if z3r else None,
                               "z3_worst": min(z3r) if z3r else None,
                               "z3_slower_on": sum(1 for x, _ in z3r if x is not None and x < 1)}
    if spr:
        summary |= {"sp_median": statistics.median(x for x, _ in spr), "sp_worst": min(spr),
                    "sp_total_ratio": ratio(tot["sp_ms"], tot["sg_ms"])}
    if op == "shrink":
        summary["disagree"] = sum(r["disagree"] for _, r in rows)
    if op == "redundancy":
        summary |= {k: sum(r[k] for _, r in rows) for k in ("guards", "sg", "z3", "sp_proven", "sg_unknown",
                                                                 "sp_unread", "disagree", "sp_timeout")}
    return summary


def print_summary(sums: list[dict[str, Any]]) -> None:
    print("\n### summary\n")
    print("| op | problems | symguard total ms | plain z3 total ms | today total ms | median z3/symguard "
          "| worst z3/symguard (problem) | median today/symguard | worst today/symguard (problem) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for s in sums:
        zw = s["z3_worst"]
        sw = s.get("sp_worst")
        print(f"| {s['op']} | {s['n']} | {s['sg_ms']:.0f} | {s['z3_ms']:.0f} | "
              f"{fmt(s['sp_ms'], 0)} | {fmt(s['z3_median'], 2)} | {fmt(zw[0], 2)} ({zw[1]}) | "
              f"{fmt(s.get('sp_median'), 2)} | {fmt(sw[0], 2) + ' (' + sw[1] + ')' if sw else '-'} |")
    for s in sums:
        if s["op"] == "shrink":
            print(f"\nshrink: proven optima that plain z3 Optimize beat (would be a bug): {s['disagree']}.")
        if s["op"] != "redundancy":
            continue
        g = s["guards"]
        print(f"\n**Guards proven unnecessary** (of {g}): symguard {s['sg']} ({100 * s['sg'] / max(g, 1):.0f}%), "
              f"plain z3 {s['z3']} ({100 * s['z3'] / max(g, 1):.0f}%), "
              f"sympy static evaluation {s['sp_proven']} ({100 * s['sp_proven'] / max(g, 1):.0f}%"
              f"{'; real ShapeEnv' if HAVE_TORCH else '; sympy equivalent, torch not importable'}). "
              f"symguard unknown verdicts: {s['sg_unknown']}; guards sympy could not read: {s['sp_unread']}; "
              f"problems where sympy ran past {SYMPY_LIMIT_S:.0f} s: {s['sp_timeout']}; "
              f"sympy-true guards symguard did not prove: {s['disagree']}.")
        ok10 = (s.get("sp_total_ratio") or 0) >= 10
        print(f"\nTargets: redundancy ≥10× faster than the sympy path over the corpus: "
              f"{'met' if ok10 else 'MISSED'} ({fmt(s.get('sp_total_ratio'), 2)}× in total, median "
              f"{fmt(s.get('sp_median'), 2)}×); faster than plain z3 on every instance: "
              f"{'met' if s['z3_slower_on'] == 0 else 'MISSED on ' + str(s['z3_slower_on']) + ' of ' + str(s['n'])}.")


# --------------------------------------------------------------------------- the CI guard's budgets

BUDGETS = ROOT / "smt2_corpus" / "BUDGETS.json"
# the real sets the guard covers; validation is the held-out slice (measured, never tuned on)
REAL = ("torch", "sessions", "validation")


def real_sets() -> list[tuple[str, dict[str, Any]]]:
    """(``folder/file``, problem) for every real set: a torch or validation problem as it is; a
    compiler session as the problem of its final state (its asserts and guards; the questions
    are replayed by bench/compiler_session.py, not here)."""
    out = []
    for folder in REAL:
        for path in sorted((ROOT / "smt2_corpus" / folder).glob("*.json")):
            if path.name in ("MANIFEST.json", "expected.json"):
                continue
            doc = json.loads(path.read_text())
            if "events" in doc:
                ev = doc["events"]
                doc = {"symbols": doc["symbols"], "asserts": [e["expr"] for e in ev if e["kind"] == "assert"],
                       "guards": [e["expr"] for e in ev if e["kind"] == "guard"]}
            doc.pop("meta", None)
            if not doc.get("guards"):
                continue
            doc["options"] = {"timeout_ms": 600_000, "on_unsupported": "skip"}  # the deadline never decides
            out.append((f"{folder}/{path.name}", doc))
    return out


def measure(doc: dict[str, Any]) -> dict[str, Any]:
    """What the guard records of one cold-ish redundancy run: the unknown count, the deterministic
    counters (z3 checks, effort units spent, residue-walk comparisons, passes) and CPU time.
    The garbage of the sets before is collected first: a collector pause for their objects is not
    this set's cost (it made a 45 ms set read 250 ms after the whole corpus had run before it)."""
    gc.collect()
    c0 = time.process_time()
    res = run("redundancy", doc)
    cpu = time.process_time() - c0
    st = res["stats"]
    return {"unknown": sum(g["verdict"] == "unknown" for g in res["guards"]), "checks": st["checks"],
            "units": st["units"], "walk": st["walk"], "passes": st["passes"], "cpu_ms": round(cpu * 1000)}


def budgets(mode: str) -> int:
    """``write``: record every real set's figures in BUDGETS.json. ``check``: compare a fresh run
    with them (CPU within 2x + 100 ms, the counters as tests/test_corpus_budget.py does); exit 1 on
    any set over."""
    warm = {"symbols": {"s0": {"min": 2, "max": 8, "hint": 4}}, "guards": ["s0 >= 3", "Eq(Mod(s0, 2), 0)"]}
    run("redundancy", warm)
    old = json.loads(BUDGETS.read_text()) if BUDGETS.exists() else {}
    new, over = {}, []
    print("| set | unknown | checks | units | walk | passes | CPU ms | recorded CPU ms |")
    print("|---|---|---|---|---|---|---|---|")
    for name, doc in real_sets():
        m = new[name] = measure(doc)
        was = old.get(name, {})
        print(f"| {name} | {m['unknown']} | {m['checks']} | {m['units']:,} | {m['walk']:,} | {m['passes']} | "
              f"{m['cpu_ms']:,} | {was.get('cpu_ms', '-')} |")
        if was and (m["unknown"] > was["unknown"] or m["cpu_ms"] > 2 * was["cpu_ms"] + 100):
            over.append(name)
    if mode == "write":
        BUDGETS.write_text(json.dumps(new, indent=1, sort_keys=True) + "\n")
        print(f"\nwrote {BUDGETS.relative_to(ROOT)} ({len(new)} sets)")
        return 0
    if over:
        print("\nover budget: " + ", ".join(over))
    return 1 if over else 0


# one redundancy run in a fresh interpreter: only symguard is imported (not this script's baselines,
# which pull in sympy), and the CPU of the whole process is read at the end, imports included
COLD = """
import json, resource, sys, time
c0 = time.process_time()
from symguard.solver import run
c1 = time.process_time()
doc = json.load(open(sys.argv[1]))
res = run("redundancy", doc)
c2 = time.process_time()
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"process_ms": round((ru.ru_utime + ru.ru_stime) * 1000), "import_ms": round((c1 - c0) * 1000),
                  "run_ms": round((c2 - c1) * 1000), "checks": res["stats"]["checks"],
                  "unknown": sum(g["verdict"] == "unknown" for g in res["guards"])}))
"""


def cold(repeat: int) -> int:
    """Every real set's cold CPU: a fresh ``python`` per run (interpreter start, imports, reading,
    solving), the best of ``repeat`` runs per set; prints the slowest sets and the maximum. With
    ``PYTHONDONTWRITEBYTECODE`` set (as in CI and in this project's shells) every import compiles
    its module again: about 120 ms more than with cached bytecode, as an installed package has."""
    import os
    import subprocess
    import tempfile

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, doc in real_sets():
            path = Path(tmp) / "problem.json"
            path.write_text(json.dumps(doc))
            runs = [json.loads(subprocess.run([sys.executable, "-c", COLD, str(path)], env=env, cwd=ROOT, check=True,
                                              capture_output=True, text=True).stdout) for _ in range(repeat)]
            rows.append((name, min(runs, key=lambda r: r["process_ms"])))
    rows.sort(key=lambda r: -r[1]["process_ms"])
    bytecode = "not written (PYTHONDONTWRITEBYTECODE)" if sys.flags.dont_write_bytecode else "cached"
    print(f"{len(rows)} real sets, best of {repeat} fresh process(es) each, bytecode {bytecode}\n")
    print("| set | process CPU ms | imports ms | redundancy ms | z3 checks | unknown |")
    print("|---|---|---|---|---|---|")
    for name, r in rows[:12]:
        print(f"| {name} | {r['process_ms']:,} | {r['import_ms']} | {r['run_ms']} | {r['checks']} | {r['unknown']} |")
    over = [name for name, r in rows if r["process_ms"] > 1000]
    print(f"\nmax {rows[0][1]['process_ms']:,} ms ({rows[0][0]}); median {rows[len(rows) // 2][1]['process_ms']:,} ms; "
          f"over 1 s: {', '.join(over) or 'none'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--quick", action="store_true", help="one repetition (default three)")
    ap.add_argument("--repeat", type=int, default=None)
    ap.add_argument("--ops", default=",".join(OPS))
    ap.add_argument("--budgets", choices=("write", "check"),
                    help="only the CI guard: record (write) or compare (check) every real set's unknown count, "
                    "deterministic counters and CPU time in smt2_corpus/BUDGETS.json")
    ap.add_argument("--cold", action="store_true", help="only every real set's redundancy in a fresh process "
                    "(CPU of the whole process, imports included; best of --repeat runs, default 1)")
    args = ap.parse_args(argv)
    if args.budgets:
        return budgets(args.budgets)
    if args.cold:
        return cold(args.repeat or 1)
    repeat = args.repeat or (1 if args.quick else 3)
    ops = [o for o in args.ops.split(",") if o]
    for op in ops:
        if op not in ROWS:
            ap.error(f"unknown op {op!r}")
    problems = corpus(args.paths)
    warm = {"symbols": {"s0": {"min": 2, "max": 8, "hint": 4}}, "guards": ["s0 >= 3", "Eq(Mod(s0, 2), 0)"]}
    for op in ops:  # imports and z3 start-up are not part of any measurement
        ROWS[op](warm, 1)
    print(f"{len(problems)} distinct problems, {repeat} repetition(s), "
          f"today = {'torch ShapeEnv' if HAVE_TORCH else 'sympy equivalent of ShapeEnv static evaluation'}"
          + ("" if HAVE_TORCH else f" (import torch: {TORCH_ERROR or 'not installed'})"))
    sums = []
    for op in ops:
        rows, failed = [], []
        for name, doc in problems:
            try:
                rows.append((name, ROWS[op](doc, repeat)))
            except Exception as e:  # noqa: BLE001 - one broken problem must not sink the whole table
                failed.append(f"{name} ({type(e).__name__}: {str(e)[:120]})")
        sums.append(print_op(op, rows))
        if failed:
            print(f"\nLeft out of the {op} table (an approach raised): " + "; ".join(failed))
    print_summary(sums)
    return 0


if __name__ == "__main__":
    sys.exit(main())
