"""Simplify against hand-written expectations of a compiler's own simplifier, one table per family.

    python bench/simplify_peer.py [--split dev|validation|all] [--misses]
    python bench/simplify_peer.py --cases outside|extra [--misses]

Cases: ``tests/simplify_peer_cases.py`` (input, context, expected form; every expected form is
checked equal to its input by ``tests/test_simplify_peer_cases.py``). Per family:

- **as simple**: ``simplify``'s form costs no more than the expected one, a division weighed
  as three operations (``ops + 3*divs``, the measure of issue 33);
- **never costlier**: the form costs no more than the input, in both of simplify's orders
  (``simplify_cost.no_costlier``): must be every case;
- **proved**: the form came back ``proved: true``;
- CPU ms of the family (this process, one problem per case, after one warm-up).

``--split dev`` (default) measures the cases the rules were tuned on, ``validation`` the third
kept aside, ``fresh`` the cases written after the first validation measurement (held out from
the round of rules that followed it), ``all`` every case. ``--cases outside`` measures the outside set
``tests/simplify_outside_cases.py`` instead (written apart from the rules), ``--cases extra`` its
cases written after the fixes that followed its first measurement. ``--misses`` prints each case that is not as simple as expected.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "tests"))

import simplify_outside_cases
from simplify_peer_cases import CASES, Case

from symguard.solver import run
from symguard.solver.ir import terms as ir
from symguard.solver.ops.simplify_cost import no_costlier
from symguard.solver.reason.simplify_terms import DIV_WEIGHT
from symguard.solver.syntax.sympy_reader import parse_sympy
from symguard.solver.syntax.sympy_writer import cost


def weighted(c: dict[str, int]) -> int:
    return c["ops"] + DIV_WEIGHT * c["divs"]


def measure(case: Case) -> tuple[str, bool, bool, bool, float]:
    """(form, as simple as expected, never costlier than the input, proved, CPU ms)."""
    names = ir.symbols_of(parse_sympy(case.text).term) | ir.symbols_of(parse_sympy(case.want).term)
    problem = case.problem(names)
    t0 = time.process_time()
    row = run("simplify", problem)["exprs"][0]
    ms = (time.process_time() - t0) * 1000
    form = row["form"]
    return (form, weighted(cost(form)) <= weighted(cost(case.want)), no_costlier(cost(form), cost(case.text)),
            bool(row["proved"]), ms)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--split", choices=["dev", "validation", "fresh", "all"], default="dev")
    ap.add_argument("--cases", choices=["peer", "outside", "extra"], default="peer",
                    help="which set: the peer set (default), the outside set or its extra cases")
    ap.add_argument("--misses", action="store_true", help="print each case not as simple as expected")
    args = ap.parse_args()
    if args.cases == "peer":
        cases = [c for c in CASES if args.split in ("all", c.split)]
    else:
        cases = simplify_outside_cases.CASES if args.cases == "outside" else simplify_outside_cases.EXTRA
    run("simplify", {"symbols": {"x": {}}, "exprs": ["x//2 + x % 2"]})  # warm-up
    fams: dict[str, list[tuple[int, int, int, int, float]]] = {}
    misses: list[tuple[Case, str]] = []
    for c in cases:
        form, simple, never, proved, ms = measure(c)
        fams.setdefault(c.family, []).append((1, int(simple), int(never), int(proved), ms))
        if not simple or not never:
            misses.append((c, form))
    print(f"split: {args.split if args.cases == 'peer' else args.cases}, {len(cases)} cases")
    print(f"{'family':<18} {'cases':>5} {'as simple':>9} {'never costlier':>14} {'proved':>6} {'cpu ms':>8}")
    tot = [0, 0, 0, 0, 0.0]
    for fam, rows in fams.items():
        s = [sum(r[i] for r in rows) for i in range(5)]
        tot = [a + b for a, b in zip(tot, s)]
        print(f"{fam:<18} {s[0]:>5} {s[1]:>9} {s[2]:>14} {s[3]:>6} {s[4]:>8.1f}")
    n = int(tot[0])
    print(f"{'total':<18} {n:>5} {int(tot[1]):>9} {int(tot[2]):>14} {int(tot[3]):>6} {tot[4]:>8.1f}")
    print(f"as simple as expected: {int(tot[1])}/{n} ({100 * tot[1] / n:.0f} %); never costlier: "
          f"{int(tot[2])}/{n}; proved: {int(tot[3])}/{n}; CPU {tot[4] / n:.2f} ms per case")
    if args.misses:
        for c, form in misses:
            ctx = " ".join(filter(None, [c.ranges, *c.guards]))
            print(f"  {c.family}-{c.index}: {c.text}  [{ctx}]  -> {form}   (want {c.want})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
