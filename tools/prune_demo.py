"""Guard pruning demo: symguard's ``minimal`` guard set accepts exactly the shapes the full set does.

For every corpus problem (``smt2_corpus/torch/*.json``, or the shared sample of real PyTorch guard
sets while the project corpus does not exist yet) this runs ``redundancy``, then evaluates, with
Python's own integers (``solver.ir.pyeval``), ``asserts ∧ ranges ∧ all guards`` and ``asserts ∧ ranges
∧ minimal`` on a sample of shapes and counts disagreements — which docs/problem-format.md §2 says never happen.

The sample must contain accepted shapes as well as rejected ones, or the check proves nothing:
random points alone are mostly rejected by guards like ``Eq(Mod(s0, 8), 0)``. So it mixes
(a) the trace-time hints, (b) a grid over each symbol's boundary and near-hint values (``lo``,
``lo+1``, ``hint±1``, multiples of small powers of two around the hint, ``hi-1``, ``hi``),
(c) one-symbol-at-a-time moves away from the hint (one guard at a time flips), and (d) uniform
random points in each range (unbounded ranges are capped at a few times the hint).

Run ``python tools/prune_demo.py [FILES…] [--points N] [--seed S]``; it prints one table row per
problem and exits 1 if any shape is judged differently. A ``.py`` FILE is a shrink-model spec
(``docs/shrink_model.md``), exported first: ``python tools/prune_demo.py examples/models/*.py``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import re
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

from symguard.solver import Problem, SymguardError, load_problem, run
from symguard.solver.ir.pyeval import evaluate, holds
from symguard.solver.ir.terms import SYM, Term, iter_dag
from symguard.solver.syntax.sympy_reader import parse_sympy

Point = dict[str, int]
GRID_LIMIT = 4096  # a full product grid up to this many points, else a random subset of it
_EQ_DEF = re.compile(r"Eq\((\w+), (.+)\)\Z")


def corpus_files(root: Path = ROOT) -> list[Path]:
    """The project's torch corpus when it exists, else the shared sample of real guard sets."""
    own = sorted(f for f in (root / "smt2_corpus" / "torch").glob("*.json") if f.name != "MANIFEST.json")
    if own:
        return own
    return sorted((root.parent / "shared" / "corpus_sample").glob("*.json"))


@dataclass
class PruneReport:
    name: str
    guards: int
    minimal: int
    points: int = 0
    accepted: int = 0
    mismatches: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    status: str = "sat"
    note: str = ""


def _box(problem: Problem, cap_factor: int = 4) -> dict[str, tuple[int, int]]:
    """A finite sampling box per integer symbol: its range, capped when unbounded above."""
    box = {}
    for s in problem.symbols:
        if s.is_bool:
            continue
        lo = s.lo if s.lo is not None else min(0, (s.hint or 0) - 64)
        hint = s.hint if s.hint is not None else lo
        hi = s.hi if s.hi is not None else max(lo + 64, cap_factor * max(hint, 1) + 16)
        box[s.name] = (lo, max(lo, hi))
    return box


def _candidates(lo: int, hi: int, hint: int | None) -> list[int]:
    """Boundary and near-hint values of one symbol, inside [lo, hi]."""
    vals = {lo, lo + 1, lo + 2, hi - 1, hi}
    if hint is not None:
        vals |= {hint - 1, hint, hint + 1, 2 * hint}
        for k in (2, 4, 8, 16, 32):  # divisibility guards: the multiples of k around the hint
            vals |= {hint - hint % k, hint - hint % k + k}
    return sorted(v for v in vals if lo <= v <= hi)


def sample_points(problem: Problem, *, n_random: int = 200, seed: int = 0) -> list[Point]:
    """Hints, a boundary grid, one-at-a-time moves from the hint and random points (deduplicated)."""
    rng = random.Random(seed)
    box = _box(problem)
    names = list(box)
    hint = {s.name: s.hint for s in problem.symbols if s.name in box}
    cands = {n: _candidates(*box[n], hint[n]) for n in names}
    base: Point = {}
    for n in names:
        h = hint[n]
        base[n] = h if h is not None and box[n][0] <= h <= box[n][1] else box[n][0]
    pts: list[Point] = [dict(base)]
    grid_size = 1
    for n in names:
        grid_size *= len(cands[n])
    if grid_size <= GRID_LIMIT:
        pts += [dict(zip(names, vs)) for vs in itertools.product(*(cands[n] for n in names))]
    else:
        pts += [{n: rng.choice(cands[n]) for n in names} for _ in range(GRID_LIMIT)]
    for n in names:
        for v in cands[n]:
            pts.append({**base, n: v})
    for _ in range(n_random):
        pts.append({n: rng.randint(*box[n]) for n in names})
    defs = _definitions(problem)
    seen: set[tuple[int, ...]] = set()
    out = []
    for p in pts + [_define(p, defs) for p in pts if defs]:
        key = tuple(p[n] for n in names)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


def _definitions(problem: Problem) -> list[tuple[str, Term]]:
    """Asserts and guards ``Eq(s, expr)`` defining a symbol (PyTorch's replacements, ``s27 -> s12``).

    Points drawn independently almost never satisfy them, so every sampled point is also tried
    with such symbols recomputed from the others (only more points: the check stays the same).
    """
    names = {s.name for s in problem.symbols}
    out: list[tuple[str, Term]] = []
    for c in (*problem.asserts, *problem.guards):
        m = _EQ_DEF.match(c.text.strip())
        if m and m.group(1) in names and m.group(1) not in {n for n, _ in out}:
            try:
                rhs = parse_sympy(m.group(2)).term
            except SymguardError:
                continue
            if m.group(1) not in {t.value for t in iter_dag(rhs) if t.kind == SYM}:
                out.append((m.group(1), rhs))
    return out


def _define(p: Point, defs: Sequence[tuple[str, Term]]) -> Point:
    q = dict(p)
    for name, rhs in defs:
        try:
            q[name] = int(evaluate(rhs, q))
        except (ZeroDivisionError, KeyError):
            pass
    return q


def accepts(problem: Problem, env: Mapping[str, int], guard_ids: Iterable[str] | None = None) -> bool:
    """Whether a shape passes the ranges, the asserts and the guards (all, or those named).

    A guard skipped as unsupported has no term and is judged by neither side; docs/problem-format.md §1.1 keeps it in
    ``minimal``, which ``check_problem`` verifies, so both sets still contain it.
    """
    wanted = None if guard_ids is None else set(guard_ids)
    for s in problem.symbols:
        if s.is_bool:
            continue
        v = env[s.name]
        if (s.lo is not None and v < s.lo) or (s.hi is not None and v > s.hi):
            return False
    for c in problem.asserts:
        if c.term is not None and not holds(c.term, env):
            return False
    for c in problem.guards:
        if (wanted is None or c.id in wanted) and c.term is not None and not holds(c.term, env):
            return False
    return True


def compare(problem: Problem, kept: Iterable[str], points: Iterable[Point]) -> list[dict[str, Any]]:
    """The sampled shapes that the full guard set and the ``kept`` subset judge differently."""
    kept = list(kept)
    out = []
    for env in points:
        full, pruned = accepts(problem, env), accepts(problem, env, kept)
        if full != pruned:
            out.append({"shape": env, "all_guards": full, "minimal": pruned})
    return out


def check_problem(name: str, doc: Mapping[str, Any], *, n_random: int = 200, seed: int = 0,
                  timeout_ms: int = 10_000) -> PruneReport:
    """Redundancy on one problem, then the full and the minimal set compared on sampled shapes."""
    t0 = time.perf_counter()
    doc = dict(doc)
    doc["options"] = {**doc.get("options", {}), "timeout_ms": timeout_ms}
    problem = load_problem(doc)
    res = run("redundancy", doc)
    minimal = list(res["minimal"])
    rep = PruneReport(name, len(problem.guards), len(minimal), status=res["status"])
    skipped = [c.id for c in problem.guards if c.term is None]
    if set(skipped) - set(minimal):
        rep.mismatches.append({"error": f"unsupported guards missing from minimal: {skipped}"})
    unknown = [g["id"] for g in res["guards"] if g["verdict"] in ("unknown", "unsupported")]
    if unknown:
        rep.note = f"{len(unknown)} undecided (kept)"
    points = sample_points(problem, n_random=n_random, seed=seed)
    rep.points = len(points)
    rep.accepted = sum(accepts(problem, env) for env in points)
    rep.mismatches += compare(problem, minimal, points)
    rep.seconds = time.perf_counter() - t0
    return rep


def check_file(path: Path, **kw: Any) -> PruneReport:
    """A problem ``.json``, or a shrink-model spec ``.py`` exported first (needs torch)."""
    if path.suffix == ".py":
        from symguard.service.cli.shrink_model import export_problem, load_spec

        spec = load_spec(path)
        return check_problem(spec.name, export_problem(spec)[0], **kw)
    doc = json.loads(path.read_text(encoding="utf-8"))
    return check_problem(path.stem, doc, **kw)


def format_table(reports: Sequence[PruneReport]) -> str:
    rows = [("model", "guards", "minimal", "pruned", "shapes", "accepted", "mismatches", "s", "note")]
    for r in reports:
        pct = f"{100 * (r.guards - r.minimal) / r.guards:.0f}%" if r.guards else "-"
        rows.append((r.name, str(r.guards), str(r.minimal), pct, str(r.points), str(r.accepted),
                     str(len(r.mismatches)), f"{r.seconds:.1f}", r.note))
    g = sum(r.guards for r in reports)
    m = sum(r.minimal for r in reports)
    rows.append(("TOTAL", str(g), str(m), f"{100 * (g - m) / g:.0f}%" if g else "-",
                 str(sum(r.points for r in reports)), str(sum(r.accepted for r in reports)),
                 str(sum(len(r.mismatches) for r in reports)), f"{sum(r.seconds for r in reports):.1f}", ""))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip()
             for row in rows]
    lines.insert(1, "-" * len(lines[0]))
    lines.insert(len(lines) - 1, "-" * len(lines[0]))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*", type=Path,
                    help="problem .json files or shrink-model spec .py files (default: the corpus)")
    ap.add_argument("--points", type=int, default=200, help="random shapes per problem (besides the grid)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout-ms", type=int, default=10_000)
    args = ap.parse_args(argv)
    files = args.files or corpus_files()
    if not files:
        print("no corpus files found", file=sys.stderr)
        return 2
    reports = []
    for f in files:
        rep = check_file(f, n_random=args.points, seed=args.seed, timeout_ms=args.timeout_ms)
        reports.append(rep)
        for mm in rep.mismatches[:3]:
            print(f"MISMATCH {rep.name}: {mm}", file=sys.stderr)
    print(format_table(reports))
    return 1 if any(r.mismatches for r in reports) else 0


if __name__ == "__main__":
    sys.exit(main())
