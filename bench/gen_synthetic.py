"""Generate a deterministic 500-guard redundancy problem with PyTorch-like guard shapes.

    python bench/gen_synthetic.py [--guards 500] [--symbols 24] [--seed 0] [--out PATH]

Writes ``smt2_corpus/synthetic/synthetic_500.json`` (docs/problem-format.md §1 problem, sympy syntax). Every guard
holds at the hints, as in a trace: relations are chosen from the values at the hints. Shapes are
those Dynamo/Inductor emit: size bounds and 0/1 specialization (``s >= 2``, ``Ne(s, 1)``), duck-
sizing equalities, guards relating the sizes of one tensor (three symbols) and now and then of
two, conv/pool output sizes (``(s + 2p - k)//st + 1``), window padding
(``Mod(4 - Mod(s, 4), 4)``, ``(s - Mod(s, 4))//4``), ``Max(1, …)`` products, reshape numels
(``c*s*t``), ceil divisions, and the mirrored or repeated spellings of one guard.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solver import load_problem
from solver.ir.pyeval import evaluate


def _value(text: str, hints: dict[str, int]) -> int | None:
    doc = {"symbols": {k: {"min": 2} for k in hints}, "queries": [text]}
    try:
        v = evaluate(load_problem(doc).queries[0].term, hints)
    except ZeroDivisionError:
        return None
    return int(v)


class Gen:
    def __init__(self, n_symbols: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.syms = [f"s{i}" for i in range(n_symbols)]
        r = self.rng
        # hints like real batches/sequence lengths/image sizes; a few symbols are duck-equal
        self.hints = {s: r.choice([3, 5, 7, 9, 12, 16, 17, 24, 31, 32, 37, 45, 64, 77, 128, 224])
                      for s in self.syms}
        for _ in range(n_symbols // 6):
            a, b = r.sample(self.syms, 2)
            self.hints[b] = self.hints[a]

    def group(self) -> list[str]:
        """The dims of one tensor (3 consecutive symbols): guards relate a tensor's own sizes."""
        k = self.rng.randrange(0, len(self.syms), 3)
        return self.syms[k:k + 3]

    def expr(self, group: list[str]) -> str:
        r = self.rng
        s, t, u = (r.choice(group) for _ in range(3))
        c = r.choice([2, 4, 8, 16])
        k, p, st = r.choice([1, 3, 5, 7]), r.choice([0, 1, 2, 3]), r.choice([1, 2, 4])
        shapes = [
            s, f"{s}*{t}", f"{s}*{t}*{u}", f"{r.choice([3, 16, 64, 768])}*{s}*{t}",
            f"(({s})//{c})", f"Mod({s}, {c})", f"{s} - (Mod({s}, {c}))",
            f"((({s} - (Mod({s}, {c})))//{c})) + 1", f"{c}*(({s})//{c})",
            f"Max(1, (({s})//{c}))", f"Max(1, {s} - {k})*Max(1, {t})",
            f"(({s} + {2 * p} - {k})//{st}) + 1", f"-((-{s})//{c})",
            f"Mod({c} - (Mod({s}, {c})), {c})",
            f"{s} + (Mod({c} - (Mod({s}, {c})), {c}))",
            f"((({s} + (Mod({c} - (Mod({s}, {c})), {c})))//{c}))*{t}",
        ]
        return r.choice(shapes)

    def guard(self) -> str:
        r = self.rng
        while True:
            g = self.group()
            lhs = self.expr(g)
            other = g if r.random() < 0.9 else self.group()  # now and then across tensors
            rhs = self.expr(other) if r.random() < 0.4 else str(r.choice([0, 1, 2, 4, 16]))
            a, b = _value(lhs, self.hints), _value(rhs, self.hints)
            if a is None or b is None:
                continue
            if a == b:
                rel = r.choice(["Eq", ">=", "<="])
            elif a > b:
                rel = r.choice([">", ">=", "Ne"])
            else:
                rel = r.choice(["<", "<=", "Ne"])
            if rel in ("Eq", "Ne"):
                return f"{rel}({lhs}, {rhs})"
            return f"{lhs} {rel} {rhs}"

    def problem(self, n_guards: int) -> dict:
        r = self.rng
        guards: list[str] = []
        for s in self.syms:  # 0/1 specialization, as every trace has
            guards += [f"{s} >= 2", f"Ne({s}, 1)"]
        for a in self.syms:  # duck sizing
            for b in self.syms:
                if a < b and self.hints[a] == self.hints[b] and r.random() < 0.7:
                    guards.append(f"Eq({a}, {b})")
        while len(guards) < n_guards:
            x = r.random()
            if x < 0.08 and guards:  # the same guard spelled again or mirrored
                g = r.choice(guards)
                guards.append(g if " " not in g or r.random() < 0.5 else _mirror(g))
            else:
                guards.append(self.guard())
        guards = guards[:n_guards]
        asserts = [f"{s} <= 65536" for s in self.syms[:4]]
        return {
            "name": f"synthetic_{n_guards}",
            "description": "bench/gen_synthetic.py: PyTorch-like guard shapes, all true at the hints",
            "symbols": {s: {"min": 2, "hint": self.hints[s]} for s in self.syms},
            "asserts": asserts,
            "guards": guards,
        }


def _mirror(g: str) -> str:
    for op, back in ((" >= ", " <= "), (" <= ", " >= "), (" > ", " < "), (" < ", " > ")):
        if op in g:
            lhs, rhs = g.split(op, 1)
            return f"{rhs}{back}{lhs}"
    return g


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--guards", type=int, default=500)
    ap.add_argument("--symbols", type=int, default=24)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args()
    out = a.out or ROOT / "smt2_corpus" / "synthetic" / f"synthetic_{a.guards}.json"
    doc = Gen(a.symbols, a.seed).problem(a.guards)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}: "
          f"{len(doc['guards'])} guards, {len(doc['symbols'])} symbols")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
