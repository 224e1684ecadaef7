"""Synthetic stress classes: symguard at default options against a plain z3 pass given
``--factor`` (default 100) times symguard's own cold CPU time, on the same set.

    python bench/synthetic_vs_z3.py [PATH …] [--factor 100] [--per-check-share 0.0333]
                                    [--json OUT.json] [--no-plain]

Per set:

- **symguard**: ``symguard redundancy`` in a fresh process at default options (``effort``
  decides every verdict; the wall-clock ``timeout_ms`` is raised to an hour so a loaded machine
  cannot cut the answer short), imports included. Its CPU time (the child's user + system) is
  the figure the plain pass is scaled by: on a shared machine wall time says more about the
  neighbours than about either program.
- **plain z3**: our parser, then z3's Python API directly (``bench.baselines.Z3Problem``): one
  incremental solver with assumption literals, the textbook always-true pass, then greedy
  deletion in symguard's removal order. Its budget is ``factor`` × symguard's cold CPU time,
  **in CPU time of this process** (a watchdog thread interrupts z3 when a check or the pass
  runs past its share, so load does not shrink what z3 gets); each check may use at most
  ``per-check-share`` of the budget (1/30 by default: bench/redundancy.py's 2 s per check of
  60 s). Guards the pass never reached count as unknown.

Columns: dropped (always_true + redundant) / unknown / kept and CPU seconds of each, plain's
checks cut by the per-check cap, and **gaps**: guards plain z3 decided (dropped, or kept with a
counterexample) that symguard left ``unknown`` (their texts go to ``--json``). ``ok`` when
symguard drops at least as many guards and leaves at most as many unknown.
``required`` from symguard is a verified counterexample: a guard plain z3 calls always-true
there would be a disagreement and is printed as such.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

import z3

from bench.redundancy import COLD_CPU_MS, symguard_cold, textbook_encoding, textbook_verdicts
from symguard.solver import load_problem

DEADLINE_MS = 3_600_000


class CpuWatchdog:
    """Interrupts z3 once this process's CPU time passes ``mark`` (set around each check):
    a budget in CPU seconds, which a busy machine stretches in wall time but never shrinks."""

    def __init__(self, ctx: z3.Context) -> None:
        self.ctx = ctx
        self.mark = float("inf")
        self.fired = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stop.wait(0.005):
            with self._lock:
                if time.process_time() >= self.mark:
                    self.fired = True
                    self.mark = float("inf")
                    self.ctx.interrupt()

    def check(self, s: z3.Solver, assumptions: list[Any], cpu_limit: float) -> Any:
        with self._lock:
            self.fired = False
            self.mark = time.process_time() + cpu_limit
        try:
            return s.check(assumptions)
        finally:
            with self._lock:
                self.mark = float("inf")

    def close(self) -> None:
        self._stop.set()
        self._thread.join()


def plain_pass(doc: dict[str, Any], budget_s: float, per_check_s: float) -> dict[str, Any]:
    """The loop a z3 user writes, given ``budget_s`` CPU seconds in all and ``per_check_s`` per check."""
    c0 = time.process_time()
    p = load_problem(doc)
    zp, s, sel, neg = textbook_encoding(p)
    n = len(zp.guards)
    end = c0 + budget_s
    dog = CpuWatchdog(zp.ctx)
    checks = capped = 0

    def check(assumptions: list[Any]) -> Any:
        nonlocal checks, capped
        left = end - time.process_time()
        if left <= 0:
            return None  # never reached
        checks += 1
        r = dog.check(s, assumptions, min(per_check_s, left))
        capped += r == z3.unknown and dog.fired and left > per_check_s
        return r

    try:
        live = [i for i in range(n) if zp.guards[i] is not None]
        first = check([sel[i] for i in live])
        if first == z3.unsat:  # unknown: go on, the always-true checks do not depend on it
            return {"status": "unsat", "verdicts": {}, "cpu_s": time.process_time() - c0, "checks": checks,
                    "capped": capped}
        verdict = textbook_verdicts(p, live, sel, neg, check)
        return {"status": str(first), "verdicts": verdict, "cpu_s": time.process_time() - c0, "checks": checks,
                "capped": capped}
    finally:
        dog.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--factor", type=float, default=100, help="plain z3's CPU budget over symguard's cold CPU")
    ap.add_argument("--per-check-share", type=float, default=1 / 30,
                    help="the most one plain check may use, as a share of the pass's budget")
    ap.add_argument("--json", type=Path, default=None, help="per-set details, the gap guards' texts included")
    ap.add_argument("--no-plain", action="store_true", help="symguard's column only")
    a = ap.parse_args()
    paths = [Path(p) for p in a.paths] or sorted((ROOT / "smt2_corpus" / "synthetic").glob("*.json"))
    print("| set | guards | symguard dropped / unknown / kept | symguard CPU s (cold) | plain budget s (per check) "
          "| plain dropped / unknown / kept | plain CPU s | checks (capped) | gaps | |", flush=True)
    print("|---|---|---|---|---|---|---|---|---|---|", flush=True)
    details, worse = [], 0
    with tempfile.TemporaryDirectory(prefix="symguard-pycache-") as pycache:
        warm = {"symbols": {"x": {"min": 2, "hint": 3}}, "guards": ["x >= 2"]}
        symguard_cold(ROOT / "bench" / "none.json", pycache, warm)  # write the bytecode once, untimed
        for path in paths:
            doc = json.loads(path.read_text())
            doc["options"] = {**doc.get("options", {}), "timeout_ms": DEADLINE_MS}
            _, res = symguard_cold(path, pycache, doc)
            cpu = COLD_CPU_MS[-1] / 1000
            sv = [g["verdict"] for g in res["guards"]]
            c = Counter(sv)
            dropped = c["always_true"] + c["redundant"]
            row = {"set": path.stem, "guards": len(sv), "symguard": {"dropped": dropped, "unknown": c["unknown"],
                                                                      "kept": len(res["minimal"]), "cpu_s": cpu,
                                                                      "incomplete": bool(res.get("incomplete"))}}
            line = f"| {path.stem} | {len(sv)} | {dropped} / {c['unknown']} / {len(res['minimal'])} | {cpu:.2f} | "
            if a.no_plain:
                print(line + "| | | | | |", flush=True)
                details.append(row)
                continue
            budget = a.factor * cpu
            per_check = budget * a.per_check_share
            plain = plain_pass(doc, budget, per_check)
            pv = plain["verdicts"]
            pc = Counter(pv.values())
            pd = pc["always_true"] + pc["redundant"]
            p_unknown = len(sv) - pd - pc["required"]  # never reached counts as unknown
            gaps = [i for i, v in pv.items() if v != "unknown" and sv[i] == "unknown"]
            clash = [i for i, v in pv.items() if v == "always_true" and sv[i] == "required"]
            ok = dropped >= pd and c["unknown"] <= p_unknown and not clash
            worse += not ok
            texts = doc["guards"]
            row["plain"] = {"budget_s": budget, "per_check_s": per_check, "dropped": pd, "unknown": p_unknown,
                            "kept": len(sv) - pd, "cpu_s": plain["cpu_s"], "checks": plain["checks"],
                            "capped": plain["capped"], "status": plain["status"]}
            row["gaps"] = [{"index": i, "plain": pv[i], "guard": texts[i]} for i in sorted(gaps)]
            row["clash"] = [{"index": i, "guard": texts[i]} for i in clash]
            details.append(row)
            verdict = "ok" if ok else ("DISAGREE" if clash else "plain z3 decides more")
            print(line + f"{budget:.0f} ({per_check:.1f}) | {pd} / {p_unknown} / {len(sv) - pd} | "
                  f"{plain['cpu_s']:.0f} | {plain['checks']} ({plain['capped']}) | {len(gaps)} | {verdict} |",
                  flush=True)
            if a.json:
                a.json.write_text(json.dumps(details, indent=1) + "\n")
    if a.json:
        a.json.write_text(json.dumps(details, indent=1) + "\n")
    return 1 if worse else 0


if __name__ == "__main__":
    raise SystemExit(main())
