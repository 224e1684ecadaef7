"""Simplify, one table per run: symguard against PyTorch's own result and sympy's ``simplify``.

    python bench/simplify.py [DIR_OR_FILE …] [--no-sympy] [--sympy-limit 5] [--rows]

Input (default ``smt2_corpus/simplify/*.json``): the corpus format of
``smt2_corpus/simplify/README.md`` — a context (symbols, asserts, guards) plus ``exprs`` entries
with ``ranges`` (loop variables ``0 <= v < bound``), and ``pytorch``: PyTorch's result, method
and time. Entries with the same ``ranges`` are one problem (loop variables declared with
``min: 0`` plus the asserts ``v < bound``); entries without ranges share the plain context.

Per expression and in total:

- **symguard**: ``solver.run("simplify", …)`` in this process after one warm-up problem (cold
  process excluded): wall time of each problem (``speedup`` is PyTorch's recorded time over it)
  and its CPU time (``cpu ms``: the process's own, what a loaded shared machine does not inflate).
  Cost of the form.
- **PyTorch**: the recorded result and time. The ``statically_known_*`` / ``guard_or_*`` methods
  answer ``True`` when proven, and ``False`` also for "could not tell": then PyTorch's equivalent
  form is the question itself (its cost is the input's).
- **sympy**: ``sympy.simplify`` of the expression read by sympy with PyTorch's functions, its
  time and the cost of ``str()`` of the result (skipped with ``--no-sympy``; an expression that
  takes longer than ``--sympy-limit`` seconds stops the sympy column for the rest of the file).

Every form is verified independently of the operation: evaluated against its input with Python
integers at points of the context (hints, moves, the loop ranges) and handed to z3 as
``context ∧ domain ∧ form != input`` (must not be sat; ``unknown`` after a second, ten times longer
look is counted). Costs are
``(divisions, operations)`` compared lexicographically (``syntax.sympy_writer.cost``).
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import re
import signal
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from symguard.solver import load_problem, run
from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import evaluate, holds
from symguard.solver.smt.checker import SAT, UNSAT, Checker, Deadline
from symguard.solver.syntax.sympy_reader import parse_sympy
from symguard.solver.syntax.sympy_writer import cost

DECIDING = ("statically_known", "guard_or")
DIVISION_MARKS = ("//", "%", "Mod(", "ModularIndexing(")
# the verification's z3 budgets, in resource units (not ms: the checker's units-per-ms calibration
# may change, the verification must not): a first look, and a ten times longer second one
VERIFY_UNITS, VERIFY_AGAIN_UNITS = 60_000, 600_000


def key(c: dict[str, int]) -> tuple[int, int]:
    return (c["divs"], c["ops"])


def problems(doc: dict[str, Any]) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """The whole file as one problem, as a compiler would ask: one context, every expression.

    Loop variables are per entry (``x0`` is another loop elsewhere): each distinct ``ranges`` gets
    its own copies, renamed ``x0_r3`` with ``min: 0`` and the assert ``x0_r3 < bound``, so an
    assert only concerns the expressions of its group. ``unrename`` maps forms back."""
    groups: dict[str, int] = {}
    symbols = dict(doc.get("symbols", {}))
    asserts = list(doc.get("asserts", []))
    exprs = []
    for e in doc["exprs"]:
        ranges = e.get("ranges", {})
        g = groups.setdefault(json.dumps(ranges, sort_keys=True), len(groups))
        text = e["expr"]
        for v, b in ranges.items():
            symbols[f"{v}_r{g}"] = {"min": 0}
            asserts.append(f"{v}_r{g} < {b}")
            text = re.sub(rf"\b{v}\b", f"{v}_r{g}", text)
        exprs.append({"id": e["id"], "expr": text})
    asserts = list(dict.fromkeys(asserts))
    return [({"symbols": symbols, "asserts": asserts, "guards": list(doc.get("guards", [])), "exprs": exprs,
              "options": {"timeout_ms": 60_000}}, list(doc["exprs"]))]


def unrename(form: str) -> str:
    return re.sub(r"\b(\w+)_r\d+\b", r"\1", form)


def pytorch_form(entry: dict[str, Any]) -> str | None:
    p = entry.get("pytorch")
    if not p:
        return None
    if p["method"].startswith(DECIDING) and p["result"] != "True":
        return str(entry["expr"])  # "could not prove" is no form: the question stands
    return str(p["result"])


# ------------------------------------------------------------------ independent verification

def points(problem: Any, n: int = 40, seed: int = 0) -> list[dict[str, int]]:
    rng = random.Random(seed)
    ints = [s for s in problem.symbols if not s.is_bool]
    base = {s.name: s.hint if s.hint is not None else (s.lo if s.lo is not None else 0) for s in ints}
    out = []
    for _ in range(n * 20):
        pt = dict(base)
        for s in rng.sample(ints, min(len(ints), 3)):
            lo = s.lo if s.lo is not None else -16
            pt[s.name] = rng.choice([lo, lo + 1, lo + 2, base[s.name] * 2, base[s.name] + rng.randint(-8, 8),
                                     rng.randint(lo, lo + 64)])
        if any(s.lo is not None and pt[s.name] < s.lo or s.hi is not None and pt[s.name] > s.hi for s in ints):
            continue
        if all(c.term is None or holds(c.term, pt) for c in (*problem.asserts, *problem.guards)):
            out.append(pt)
            if len(out) >= n:
                break
    return out


def verify(doc: dict[str, Any], result: dict[str, Any]) -> tuple[int, int, int]:
    """(failures, z3 unknown, points checked) over one problem's forms."""
    p = load_problem(doc)
    pts = points(p)
    ch = Checker(p, Deadline(600_000, budget_units=10**12))
    base = [ch.selector(c.term) for c in (*p.asserts, *p.guards) if c.term is not None]
    fails = unknown = checked = 0
    for q, row in zip(p.exprs, result["exprs"]):
        form = parse_sympy(row["form"]).term
        if form is q.term:
            continue
        for pt in pts:
            if holds(q.domain, pt):
                checked += 1
                if evaluate(q.term, pt) != evaluate(form, pt):
                    fails += 1
                    print(f"  FAIL at {pt}: {q.text} -> {row['form']}", file=sys.stderr)
                    break
        same = ir.mk_iff(q.term, form) if q.term.is_bool else ir.mk_eq(q.term, form)
        hs = [*base, ch.selector(q.domain), ch.negation(same)]
        out = ch.check(hs, budget=VERIFY_UNITS)
        if out.status not in (SAT, UNSAT):  # products of floor divisions: a longer look settles many
            out = ch.check(hs, budget=VERIFY_AGAIN_UNITS)
        if out.status == SAT:
            fails += 1
            print(f"  FAIL (z3) at {out.model}: {q.text} -> {row['form']}", file=sys.stderr)
        elif out.status != UNSAT:
            unknown += 1
    return fails, unknown, checked


# ------------------------------------------------------------------ sympy

class _Slow(Exception):
    pass


def sympy_simplify(text: str, limit_s: float) -> tuple[str | None, float]:
    import sympy
    from torch.utils._sympy import functions as tf

    ns = {"FloorDiv": tf.FloorDiv, "ModularIndexing": tf.ModularIndexing, "CeilDiv": tf.CeilDiv,
          "Mod": sympy.Mod, "PythonMod": tf.PythonMod, "CleanDiv": tf.CleanDiv}
    names = {t for t in re.findall(r"[A-Za-z_]\w*", text)} - set(ns) - set(dir(sympy))
    ns.update({n: sympy.Symbol(n, integer=True) for n in names})

    def alarm(*_: Any) -> None:
        raise _Slow

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, limit_s)
    t0 = time.perf_counter()
    try:
        out = str(sympy.simplify(sympy.parse_expr(text, local_dict=ns)))
    except _Slow:
        return None, limit_s
    except Exception:  # noqa: BLE001 - sympy fails in many ways; the column says so
        return "error", time.perf_counter() - t0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return out, time.perf_counter() - t0


# ------------------------------------------------------------------ the run

def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="*", default=[str(ROOT / "smt2_corpus" / "simplify")])
    ap.add_argument("--no-sympy", action="store_true")
    ap.add_argument("--sympy-limit", type=float, default=5.0)
    ap.add_argument("--rows", action="store_true", help="one line per expression")
    args = ap.parse_args()
    files = []
    for p in map(Path, args.paths):
        files += sorted(p.glob("*.json")) if p.is_dir() else [p]
    run("simplify", {"symbols": {"w": {"min": 1}}, "exprs": ["w - Mod(w, 4)", "Max(w, 1)"]})  # warm-up
    tot: dict[str, float] = {k: 0 for k in ("n", "sg_s", "sg_cpu", "pt_s", "sy_s", "fails", "unknown", "checked",
                                            "costlier", "divs_pt", "cheaper_divs", "cheaper", "not_worse",
                                            "sy_n", "proved")}
    print(f"{'file':22} {'exprs':>5} {'symguard ms':>11} {'cpu ms':>8} {'PyTorch ms':>10} {'speedup':>7} {'sympy ms':>9} "
          f"{'cheaper':>7} {'costlier':>8} {'fails':>5} {'z3 unk':>6}")
    for f in files:
        doc = json.loads(f.read_text())
        row = dict.fromkeys(tot, 0.0)
        sympy_on = not args.no_sympy
        for pdoc, entries in problems(doc):
            gc.collect()  # the verification's garbage (its z3 context) is not the next run's to free
            t0, c0 = time.perf_counter(), time.process_time()
            res = run("simplify", pdoc)
            row["sg_s"] += time.perf_counter() - t0
            row["sg_cpu"] += time.process_time() - c0
            fails, unk, checked = verify(pdoc, res)  # before the forms are renamed back
            row["fails"] += fails
            row["unknown"] += unk
            row["checked"] += checked
            for e, r in zip(entries, res["exprs"]):
                row["n"] += 1
                row["proved"] += r["proved"]
                r["form"] = unrename(r["form"])
                mine = key(r["cost"]["after"])
                theirs_text = pytorch_form(e)
                line = f"  {e['id']:>6} {e['expr'][:60]:60} -> {r['form'][:50]:50} {mine}"
                if theirs_text is not None:
                    row["pt_s"] += e["pytorch"]["us"] / 1e6
                    theirs = key(cost(theirs_text))
                    row["not_worse"] += mine <= theirs
                    row["costlier"] += mine > theirs
                    row["cheaper"] += mine < theirs
                    if any(m in theirs_text for m in DIVISION_MARKS):
                        row["divs_pt"] += 1
                        row["cheaper_divs"] += mine < theirs
                    line += f" | PyTorch {theirs_text[:40]} {theirs}"
                    if mine > theirs:
                        line += "  COSTLIER"
                if sympy_on:
                    out, secs = sympy_simplify(e["expr"], args.sympy_limit)
                    row["sy_s"] += secs
                    row["sy_n"] += 1
                    if out is None:
                        sympy_on = False
                    else:
                        line += f" | sympy {out[:40]}"
                if args.rows:
                    print(line)
        for k in tot:
            tot[k] += row[k]
        _line(f.stem, row)
    _line("total", tot)
    print(f"\nproved {int(tot['proved'])}/{int(tot['n'])}; never costlier than PyTorch: "
          f"{int(tot['not_worse'])}/{int(tot['not_worse'] + tot['costlier'])}; strictly cheaper where PyTorch keeps a "
          f"division: {int(tot['cheaper_divs'])}/{int(tot['divs_pt'])}"
          f" ({100 * tot['cheaper_divs'] / max(1, tot['divs_pt']):.0f} %); verification: {int(tot['fails'])} failures, "
          f"{int(tot['checked'])} point checks, {int(tot['unknown'])} z3 unknown")


def _line(name: str, r: dict[str, float]) -> None:
    speed = r["pt_s"] / r["sg_s"] if r["sg_s"] else 0.0
    sy = f"{r['sy_s'] * 1000:9.0f}" if r["sy_n"] else f"{'-':>9}"
    print(f"{name:22} {int(r['n']):5d} {r['sg_s'] * 1000:11.1f} {r['sg_cpu'] * 1000:8.1f} {r['pt_s'] * 1000:10.1f} "
          f"{speed:6.1f}x {sy} "
          f"{int(r['cheaper']):7d} {int(r['costlier']):8d} {int(r['fails']):5d} {int(r['unknown']):6d}")


if __name__ == "__main__":
    main()
