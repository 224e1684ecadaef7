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
import ast
import itertools
import math
import random
import sys
import time
from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "tests"))

from simplify_outside2_cases import CASES, HELD_OUT

from symguard.solver import run
from symguard.solver.ops.simplify_cost import no_costlier
from symguard.solver.reason.simplify_terms import DIV_WEIGHT
from symguard.solver.syntax.sympy_writer import cost

Case = tuple[str, str, dict[str, tuple[int | None, int | None]], tuple[str, ...], dict[str, object], str, str]


# ------------------------------------------------------------------ an evaluator of §1.2, apart from symguard


def _truncdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _piecewise(*pairs: tuple[Any, Any]) -> Any:
    for v, c in pairs:
        if c:
            return v
    raise ZeroDivisionError("no branch holds")  # undefined, like a zero divisor


def _nonzero(b: Any) -> Any:
    if b == 0:
        raise ZeroDivisionError
    return b


_ENV: dict[str, Any] = {
    "Mod": lambda a, b: a % _nonzero(b),
    "PythonMod": lambda a, b: a % _nonzero(b),
    "FloorDiv": lambda a, b: a // _nonzero(b),
    "CeilDiv": lambda a, b: -((-a) // _nonzero(b)),
    "ModularIndexing": lambda x, d, m: (x // _nonzero(d)) % _nonzero(m),
    "TruncDiv": lambda a, b: _truncdiv(a, _nonzero(b)),
    "TruncMod": lambda a, b: a - b * _truncdiv(a, _nonzero(b)),
    "Max": max, "Min": min, "Abs": abs,
    "Piecewise": _piecewise,
    "Eq": lambda a, b: a == b, "Ne": lambda a, b: a != b,
    "Lt": lambda a, b: a < b, "Le": lambda a, b: a <= b, "Gt": lambda a, b: a > b, "Ge": lambda a, b: a >= b,
    "And": lambda *a: all(a), "Or": lambda *a: any(a), "Not": lambda a: not a,
    "Implies": lambda p, q: (not p) or q,
    "floor": math.floor, "ceiling": math.ceil,
    "_Q": lambda a, b: Fraction(a, _nonzero(b)),
    "True": True, "False": False,
}


class _ExactDiv(ast.NodeTransformer):
    """``a / b`` as an exact ``Fraction`` (only under ``floor``/``ceiling`` in these cases)."""

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Div):
            return ast.copy_location(ast.Call(ast.Name("_Q", ast.Load()), [node.left, node.right], []), node)
        return node


def compile_text(text: str, names: list[str]) -> Callable[..., Any]:
    tree = ast.parse(text.strip(), mode="eval")
    if any(isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Invert) for n in ast.walk(tree)):
        raise ValueError(f"{text!r}: ~ on a Python bool is not Not")
    body = ast.fix_missing_locations(_ExactDiv().visit(tree)).body
    lam = ast.Expression(ast.Lambda(ast.arguments([], [ast.arg(n) for n in names], None, [], [], None, []), body))
    return eval(compile(ast.fix_missing_locations(lam), "<case>", "eval"), dict(_ENV))


def _window(lo: int | None, hi: int | None, w: int) -> list[int]:
    if lo is None and hi is None:
        return list(range(-w // 2, w // 2 + 1))
    if lo is None:
        assert hi is not None
        return list(range(hi - w, hi + 1))
    top = lo + w if hi is None else min(hi, lo + w)
    return list(range(lo, top + 1))


def _random_value(lo: int | None, hi: int | None, rng: random.Random) -> int:
    mag = int(10 ** rng.uniform(0, 7))
    if lo is None and hi is None:
        return rng.choice((-1, 1)) * mag
    if hi is None:
        assert lo is not None
        return lo + mag
    if lo is None:
        return hi - mag
    return rng.randint(lo, hi)


_WIDTH = {1: 600, 2: 160, 3: 22, 4: 10}


def points(case: Case, seed: int = 0) -> Iterator[dict[str, int]]:
    """The grid (and random points) of a case's context symbols and loop variables."""
    _, _, syms, _, ranges, _, _ = case
    names = list(syms)
    w = _WIDTH.get(len(names), 6)
    bounds = {v: compile_text(str(b), names) for v, b in ranges.items()}
    loop = list(ranges)
    grid = [_window(*syms[n], w) for n in names]

    def with_loops(base: dict[str, int], rng: random.Random | None) -> Iterator[dict[str, int]]:
        tops = [bounds[v](*base.values()) for v in loop]
        if any(t <= 0 for t in tops):
            return
        if rng is None:
            capped = [range(min(t, 40)) if t <= 40 else [0, 1, t // 2, t - 2, t - 1] for t in tops]
            for vals in itertools.product(*capped):
                yield {**base, **dict(zip(loop, vals, strict=True))}
        else:
            yield {**base, **{v: rng.randrange(t) for v, t in zip(loop, tops, strict=True)}}

    for vals in itertools.product(*grid):
        base = dict(zip(names, vals, strict=True))
        if loop and any(abs(x) > 60 for x in vals):
            continue
        yield from with_loops(base, None)
    rng = random.Random(seed)
    for _ in range(3000):
        base = {n: _random_value(*syms[n], rng) for n in names}
        yield from with_loops(base, rng)


def check(case: Case) -> tuple[bool, str]:
    """(ok, why): the expected form equals the input wherever the context holds and the input is
    defined, at enough points, and costs no more than the input."""
    _cid, _, syms, asserts, ranges, expr, want = case
    names = list(syms) + list(ranges)
    f, g = compile_text(expr, names), compile_text(want, names)
    facts = [compile_text(a, names) for a in asserts]
    seen = 0
    for p in points(case):
        args = [p[n] for n in names]
        try:
            if not all(a(*args) for a in facts):
                continue
        except ZeroDivisionError:
            continue
        try:
            v = f(*args)
        except ZeroDivisionError:
            continue
        try:
            u = g(*args)
        except ZeroDivisionError:
            return False, f"want undefined at {p} where the input is {v}"
        if isinstance(v, bool) != isinstance(u, bool) or v != u:
            return False, f"at {p}: input {v!r}, want {u!r}"
        seen += 1
    if seen < 20:
        return False, f"only {seen} points"
    ci, cw = cost(expr), cost(want)
    if not no_costlier(cw, ci):
        return False, f"want costs {cw}, input {ci}"
    return True, f"{seen} points, cost {weighted(ci)} -> {weighted(cw)}"


def weighted(c: dict[str, int]) -> int:
    return c["ops"] + DIV_WEIGHT * c["divs"]


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
        s, nc, pr = (sum(r[1][i] for r in rows) for i in (1, 2, 3))
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
