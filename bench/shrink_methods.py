"""Compare the shrink methods on the same problems, in the same run, and print a table.

    python bench/shrink_methods.py [FILE.json ...] [--repeat N] [--objective sum|max|lex]
                                   [--timeout-ms MS] [--methods auto,descend,optimize]

Without files it uses ``smt2_corpus/examples/*.json`` (``MANIFEST.json`` and ``expected.json``
are skipped). ``descend`` is bisection on the objective bound on one incremental solver;
``optimize`` lets z3's Optimize propose the optimum and the descent prove it (see
``solver/smt/optimize.py``); ``auto`` (the default) first walks the smallest points in Python
(``solver/ops/shrink_search.py``) and hands what is left to one of the two. Per method: CPU
milliseconds (``time.process_time``, median of ``--repeat`` runs of ``solver.ops.shrink.shrink``
on the canonical problem, parsing excluded: a busy machine inflates wall time, not this), the
resource units spent, the objective value and whether it is proven optimal. The budget is each
problem's own ``timeout_ms`` (2000 unless it says otherwise) unless ``--timeout-ms`` is given;
the wall-clock outer limit is widened so that only the units decide.
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

from symguard.solver import prepare
from symguard.solver.ops.shrink import METHODS, shrink
from symguard.solver.smt.checker import Deadline

SKIP = {"expected.json", "MANIFEST.json"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--objective", choices=("sum", "max", "lex"), default=None)
    ap.add_argument("--timeout-ms", type=int, default=None, help="default: each problem's options.timeout_ms")
    ap.add_argument("--methods", default=",".join(METHODS))
    args = ap.parse_args(argv)
    methods = [m for m in args.methods.split(",") if m]
    files = [Path(f) for f in args.files] or sorted((ROOT / "smt2_corpus" / "examples").glob("*.json"))
    files = [f for f in files if f.name not in SKIP]
    head = f"{'problem':40} {'guards':>6} {'obj':>4}"
    head += "".join(f" | {m + ' cpu ms':>15} {'units':>7} {'value':>7} {'opt':>5}" for m in methods)
    print(head)
    print("-" * len(head))
    totals = {m: 0.0 for m in methods}
    proven = {m: 0 for m in methods}
    for f in files:
        doc = json.loads(f.read_text())
        if args.objective:
            doc = {**doc, "options": {**doc.get("options", {}), "objective": args.objective}}
        _, canon = prepare(doc)
        p = canon.problem
        budget = args.timeout_ms if args.timeout_ms is not None else p.options.timeout_ms
        kind = args.objective or p.options.objective
        line = f"{f.parent.name[:8] + '/' + f.stem:40.40} {len(p.asserts) + len(p.guards):>6} {kind:>4}"
        for m in methods:
            times, res, spent = [], {}, 0
            for _ in range(args.repeat):
                dl = Deadline(budget, limit_ms=budget * 20 + 10_000)
                t0 = time.process_time()
                res = shrink(p, dl, args.objective, method=m)
                times.append((time.process_time() - t0) * 1000)
                spent = dl.spent
            ms = statistics.median(times)
            totals[m] += ms
            proven[m] += res.get("optimal") is True
            value = res.get("objective_value", res["status"])
            if isinstance(value, list):
                value = ",".join(map(str, value))
            line += f" | {ms:>15.1f} {spent:>7} {value!s:>7} {res.get('optimal', '-')!s:>5}"
        print(line, flush=True)
    print("-" * len(head))
    print(f"{'total (' + str(len(files)) + ' problems)':40} {'':>6} {'':>4}"
          + "".join(f" | {totals[m]:>15.1f} {'':>7} {'':>7} {proven[m]:>5}" for m in methods))
    return 0


if __name__ == "__main__":
    sys.exit(main())
