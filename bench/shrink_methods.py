"""Compare the two shrink methods on the same problems, in the same run, and print a table.

    python bench/shrink_methods.py [FILE.json ...] [--repeat N] [--objective sum|max|lex]

Without files it uses ``smt2_corpus/examples/*.json``. ``descend`` is bisection on the objective
bound on one incremental solver; ``optimize`` lets z3's Optimize propose the optimum and the
descent prove it (see ``solver/smt/optimize.py``). Times are the median of ``--repeat`` runs of
``solver.ops.shrink.shrink`` on the canonical problem (parsing excluded), in milliseconds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solver import prepare
from solver.ops.shrink import METHODS, shrink
from solver.smt.checker import Deadline


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--objective", choices=("sum", "max", "lex"), default=None)
    ap.add_argument("--timeout-ms", type=int, default=10000)
    args = ap.parse_args(argv)
    files = [Path(f) for f in args.files] or sorted((ROOT / "smt2_corpus" / "examples").glob("*.json"))
    files = [f for f in files if f.name != "expected.json"]
    head = f"{'problem':34} {'guards':>6} {'objective':>9}"
    head += "".join(f" {m + ' ms':>12} {'value':>8} {'opt':>5}" for m in METHODS)
    print(head)
    print("-" * len(head))
    totals = {m: 0.0 for m in METHODS}
    for f in files:
        doc = json.loads(f.read_text())
        if args.objective:
            doc = {**doc, "options": {**doc.get("options", {}), "objective": args.objective}}
        _, canon = prepare(doc)
        p = canon.problem
        line = f"{f.stem[:34]:34} {len(p.guards):>6} {p.options.objective if not args.objective else args.objective:>9}"
        for m in METHODS:
            times, res = [], {}
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                res = shrink(p, Deadline(args.timeout_ms), args.objective, method=m)
                times.append((time.perf_counter() - t0) * 1000)
            ms = statistics.median(times)
            totals[m] += ms
            value = res.get("objective_value", res["status"])
            if isinstance(value, list):
                value = ",".join(map(str, value))
            line += f" {ms:>12.1f} {value!s:>8} {res.get('optimal', '-')!s:>5}"
        print(line)
    print("-" * len(head))
    print(f"{'total':34} {'':>6} {'':>9}" + "".join(f" {totals[m]:>12.1f} {'':>8} {'':>5}" for m in METHODS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
