"""The second outside set of ``simplify`` cases: check the expectations, then measure.

    python bench/simplify_outside2.py --check                 # every ``want`` equal and no costlier
    python bench/simplify_outside2.py [--split dev|held|all] [--misses]

Cases: ``tests/simplify_outside2_cases.py``. ``--check`` evaluates each input and its expected
form with Python's integers (§1.2 semantics, its own small evaluator: independent of symguard's
reader) over a grid of every symbol and loop variable (negatives and zero where the context
allows, plus random large points), keeping the points where the asserts hold and the input is
defined, and checks the expected form no costlier than the input (``simplify_cost.no_costlier``).
The measurement runs ``simplify`` on one problem per case and counts, per family:

- **as simple**: the form's weighted cost (``ops + 3*divs``) is at most the expected form's;
- **never costlier**: the form costs no more than the input in both of simplify's orders;
- **proved**: the form came back ``proved: true``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "tests"))

from simplify_outside2_cases import CASES, HELD_OUT
from simplify_outside2_check import Case, check, weighted

from symguard.solver import run
from symguard.solver.ops.simplify_cost import no_costlier
from symguard.solver.syntax.sympy_writer import cost

# ------------------------------------------------------------------ the measurement


def problem(case: Case) -> dict[str, Any]:
    _, _, syms, asserts, ranges, expr, _ = case
    symbols = {n: {"min": lo, "max": hi} for n, (lo, hi) in syms.items()}
    entry: dict[str, Any] = {"id": "e", "expr": expr}
    if ranges:
        entry["ranges"] = {v: b for v, b in ranges.items()}
    return {"symbols": symbols, "asserts": list(asserts), "exprs": [entry]}


def measure(case: Case) -> tuple[str, bool, bool, bool, float]:
    """(form, as simple as expected, never costlier than the input, proved, CPU ms)."""
    t0 = time.process_time()
    row = run("simplify", problem(case))["exprs"][0]
    ms = (time.process_time() - t0) * 1000
    form = row["form"]
    want, expr = case[6], case[5]
    return (form, weighted(cost(form)) <= weighted(cost(want)), no_costlier(cost(form), cost(expr)),
            bool(row["proved"]), ms)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="check the expectations by brute force")
    ap.add_argument("--split", choices=("dev", "held", "all"), default="dev")
    ap.add_argument("--misses", action="store_true", help="print each case not as simple as expected")
    args = ap.parse_args()
    if args.check:
        bad = 0
        for case in CASES:
            ok, why = check(case)
            bad += not ok
            if not ok:
                print(f"FAIL {case[0]}: {case[5]}  ->  {case[6]}: {why}")
        print(f"{len(CASES) - bad}/{len(CASES)} expectations hold")
        return 1 if bad else 0
    chosen = [c for c in CASES if args.split == "all" or (c[0] in HELD_OUT) == (args.split == "held")]
    run("simplify", problem(chosen[0]))  # warm-up
    fams: dict[str, list[tuple[Case, tuple[str, bool, bool, bool, float]]]] = {}
    for case in chosen:
        fams.setdefault(case[1], []).append((case, measure(case)))
    print("| family | cases | as simple | never costlier | proved | CPU ms |")
    print("|---|---:|---:|---:|---:|---:|")
    tot = [0, 0, 0, 0, 0.0]
    for fam, rows in fams.items():
        n = len(rows)
        s = sum(r[1][1] for r in rows)
        nc = sum(r[1][2] for r in rows)
        pr = sum(r[1][3] for r in rows)
        ms = sum(r[1][4] for r in rows)
        tot = [tot[0] + n, tot[1] + s, tot[2] + nc, tot[3] + pr, tot[4] + ms]
        print(f"| {fam} | {n} | {s} | {nc} | {pr} | {ms:.0f} |")
    n = int(tot[0])
    print(f"| **all** | {n} | {int(tot[1])} ({100 * tot[1] / n:.1f}%) | {int(tot[2])} | {int(tot[3])} | {tot[4]:.0f} |")
    if args.misses:
        for rows in fams.values():
            for case, (form, simple, nc, pr, _) in rows:
                if not (simple and nc and pr):
                    print(f"  {case[0]}: {case[5]}  ->  {form}   (want {case[6]}; "
                          f"{weighted(cost(form))} vs {weighted(cost(case[6]))}{'' if nc else ', COSTLIER'}"
                          f"{'' if pr else ', unproved'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
