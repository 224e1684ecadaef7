"""What pruning saves at run time: the per-call cost of checking the full and the minimal guard set.

    python bench/guard_cost.py [PATH …] [--calls 20000]

PyTorch re-checks the shape guards on every call of compiled code. Per instance (default:
``smt2_corpus/torch/*.json``), this compiles the full guard set and symguard's minimal set each
into one Python function of the sizes (``solver.ir.pycode.compile_check``: one boolean expression,
as Dynamo checks its shape guards), checks that both accept the traced sizes (the hints), and
times a call at that point — the common case, every guard holding, so every guard is evaluated.
The ratio full/minimal is what pruning buys per call. Both functions come from the same printer,
so the ratio is the guards' cost, not a difference in spelling. Figures: BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from symguard.solver import load_problem, run
from symguard.solver.ir.pycode import compile_check


def measure(path: Path, calls: int) -> dict[str, object] | None:
    doc = json.loads(path.read_text())
    problem = load_problem(doc)
    hints = problem.hints
    if hints is None or not problem.guards:
        return None
    res = run("redundancy", doc)
    kept = set(res["minimal"])
    names = [s.name for s in problem.symbols if not s.is_bool]
    full = [g.term for g in problem.guards if g.term is not None]
    minimal = [g.term for g in problem.guards if g.term is not None and g.id in kept]
    # asserts are facts PyTorch established elsewhere; both checks get them, like the ranges
    args = tuple(hints[n] for n in names)
    f_full, f_min = compile_check(full, names), compile_check(minimal, names)
    if not (f_full(*args) and f_min(*args)):
        raise AssertionError(f"{path.name}: the traced sizes fail a compiled guard check")
    t_full = min(timeit.repeat(lambda: f_full(*args), number=calls, repeat=3)) / calls
    t_min = min(timeit.repeat(lambda: f_min(*args), number=calls, repeat=3)) / calls
    return {"instance": path.stem, "guards": len(full), "minimal": len(minimal),
            "full_us": t_full * 1e6, "minimal_us": t_min * 1e6, "ratio": t_full / max(t_min, 1e-12)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="*", type=Path)
    ap.add_argument("--calls", type=int, default=20_000, help="calls per timing (best of 3)")
    args = ap.parse_args(argv)
    paths = args.paths or sorted((ROOT / "smt2_corpus" / "torch").glob("*.json"))
    files = [f for p in paths for f in (sorted(p.glob("*.json")) if p.is_dir() else [p])]
    rows = [r for f in files if f.name != "MANIFEST.json" and (r := measure(f, args.calls))]
    print("| instance | guards | minimal | full µs/call | minimal µs/call | full/minimal |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['instance']} | {r['guards']} | {r['minimal']} | {r['full_us']:.2f} | "
              f"{r['minimal_us']:.2f} | {r['ratio']:.1f}× |")
    tf = sum(float(r["full_us"]) for r in rows)  # type: ignore[arg-type]
    tm = sum(float(r["minimal_us"]) for r in rows)  # type: ignore[arg-type]
    if rows:
        print(f"| **all {len(rows)}** | {sum(int(r['guards']) for r in rows)} | "  # type: ignore[call-overload]
              f"{sum(int(r['minimal']) for r in rows)} | {tf:.2f} | {tm:.2f} | {tf / max(tm, 1e-12):.1f}× |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
