"""Synthetic stress classes: symguard at default options against a plain z3 pass given
``--factor`` (default 100) times symguard's own time, on the same set.

    python bench/synthetic_vs_z3.py [PATH …] [--factor 100] [--cap 120]

Per set: symguard's dropped (always_true + redundant), unknown and kept guards and its wall time
(in this process, warm); the plain pass (``bench.baselines.plain_redundancy``: our parser, z3's
API, the textbook always-true pass and greedy deletion) with ``factor`` × that time (at most
``--cap`` seconds): dropped and kept. ``ok`` when symguard drops at least as many guards.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from bench.baselines import plain_redundancy
from solver import run


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--factor", type=float, default=100)
    ap.add_argument("--cap", type=float, default=120, help="seconds at most for one plain pass")
    a = ap.parse_args()
    paths = [Path(p) for p in a.paths] or sorted((ROOT / "smt2_corpus" / "synthetic").glob("*.json"))
    print("| set | guards | symguard dropped | unknown | kept | ms | plain z3 ms | plain dropped | plain kept | |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    worse = 0
    for p in paths:
        doc = json.loads(p.read_text())
        run("redundancy", doc)  # warm the parser's memo like the other benches
        t0 = time.perf_counter()
        res = run("redundancy", doc)
        ms = (time.perf_counter() - t0) * 1000
        c = Counter(g["verdict"] for g in res["guards"])
        dropped = c["always_true"] + c["redundant"]
        limit = min(a.cap * 1000, max(1.0, ms * a.factor))
        t0 = time.perf_counter()
        plain = plain_redundancy(doc, timeout_ms=int(limit))
        pms = (time.perf_counter() - t0) * 1000
        pd = plain.get("always_true", 0) + plain.get("redundant", 0)
        ok = dropped >= pd
        worse += not ok
        print(f"| {p.stem} | {len(doc['guards'])} | {dropped} | {c['unknown']} | {len(res['minimal'])} | {ms:.0f} | "
              f"{pms:.0f} | {pd} | {plain.get('kept')} | {'ok' if ok else 'plain z3 drops more'} |", flush=True)
    return 1 if worse else 0


if __name__ == "__main__":
    raise SystemExit(main())
