"""Generate a deterministic 500-guard redundancy problem with PyTorch-like guard shapes.

    python bench/gen_synthetic.py [--guards 500] [--symbols 24] [--seed 0] [--out PATH]
    python bench/gen_synthetic.py --kind lattice|maxmin|products|chains --guards 300 --seed 1
    python bench/gen_synthetic.py --kind modlattice|nestmaxmin --guards 120 --seed 3 [--symbols 6]

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

from symguard.solver import load_problem
from symguard.solver.ir.pyeval import evaluate


def _value(text: str, hints: dict[str, int]) -> int | None:
    doc = {"symbols": {k: {"min": 2} for k in hints}, "queries": [text]}
    try:
        v = evaluate(load_problem(doc).queries[0].term, hints)
    except ZeroDivisionError:
        return None
    return int(v)


def _document(name: str, description: str, hints: dict[str, int], asserts: list[str], guards: list[str]) -> dict:
    """The problem document every kind writes: each symbol at least 2, hinted at its traced size."""
    return {"name": name, "description": description,
            "symbols": {s: {"min": 2, "hint": v} for s, v in hints.items()}, "asserts": asserts, "guards": guards}


def _relation(r: random.Random, lhs: str, rhs: str, a: int, b: int) -> str:
    """A relation between ``lhs`` and ``rhs`` that holds at the hints (values ``a`` and ``b``)."""
    if a == b:
        rel = r.choice(["Eq", ">=", "<="])
    elif a > b:
        rel = r.choice([">", ">=", "Ne"])
    else:
        rel = r.choice(["<", "<=", "Ne"])
    return f"{rel}({lhs}, {rhs})" if rel in ("Eq", "Ne") else f"{lhs} {rel} {rhs}"


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
        return _document(f"synthetic_{n_guards}", "bench/gen_synthetic.py: PyTorch-like guard shapes, all true at the "
                         "hints", self.hints, asserts, guards)


class Stress:
    """Stress sets of one family each (``--kind``), over 3-4 symbols like a vision model's trace:
    ``lattice`` (window padding, patch merging and strided sizes chained and nested),
    ``maxmin`` (``Max(1, …)``/``Min`` clamps of those, nested), ``products`` (products of stage
    sizes: ``Ne(a*b, a)``, ``Eq(Mod(a*b, c), 0)``), ``chains`` (floor and ceiling divisions,
    padding and rounding down of those stage sizes, compared with each other). Deterministic per seed; every guard holds at
    the hints, as in a trace."""

    def __init__(self, kind: str, seed: int) -> None:
        self.kind = kind
        self.rng = random.Random(f"{kind}:{seed}")
        r = self.rng
        self.syms = ["s0", "s1", "s2", "s3"][: r.choice([3, 4])]
        self.hints = {s: r.choice([7, 13, 31, 37, 45, 56, 64, 97, 100, 224]) for s in self.syms}
        self.pool: list[str] = []
        for s in self.syms:
            self.pool += self.stages(s)

    def stages(self, s: str) -> list[str]:
        """The sizes a stack of stages computes from one input size ``s``."""
        r = self.rng
        w = r.choice([2, 4, 7, 8])
        x = f"(({s} - Mod({s}, 4))//4)"  # patch embedding
        out = [x, f"Mod({s}, 4)"]
        cur = x
        for _ in range(3):
            pad = f"({cur} + Mod({w} - Mod({cur}, {w}), {w}))"
            merged = f"(({cur} + Mod({cur}, 2))//2)"
            k, st = r.choice([1, 3]), r.choice([1, 2])
            conv = f"(({cur} + {k - 1} - {k})//{st} + 1)" if st > 1 else f"({cur} + 1)"
            out += [f"Mod({w} - Mod({cur}, {w}), {w})", f"({pad}//{w})", merged, conv,
                    f"(({cur} + 1)//2)", f"({cur} + Mod({cur} + 1, 2))"]
            cur = r.choice([merged, f"({pad}//{w})", f"(({cur} + Mod({cur} + 1, 2) + 1)//2)"])
            out.append(cur)
        return out

    def expr(self) -> str:
        r = self.rng
        a, b, c = (r.choice(self.pool) for _ in range(3))
        if self.kind == "lattice":
            return r.choice([a, f"{a} + {b}", f"2*{a}", f"Mod({a}, {r.choice([2, 4, 8])})", f"({a})//{r.choice([2, 4])}"])
        if self.kind == "chains":  # floor/ceil chains of one size, compared with each other
            d = r.choice([2, 3, 4, 7, 8])
            return r.choice([a, f"({a})//{d}", f"CeilDiv({a}, {d})", f"({a} + Mod(-({a}), {d}))//{d}",
                             f"{a} - Mod({a}, {d})", f"{a} + {b}"])
        if self.kind == "maxmin":
            return r.choice([f"Max(1, {a})", f"Min({a}, {r.choice([7, 8, 16])})", f"Max(1, Min({a}, {b}))",
                             f"Max(1, {a} - {r.choice([1, 2, 3])})*Max(1, {b})", f"Max({a}, {b}) - Min({a}, {b})",
                             f"Min(Max(1, {a}), {r.choice([4, 8])})"])
        return r.choice([f"{a}*{b}", f"{a}*{b}*{c}", f"({a} + 1)*({b} + 1)", f"{a}*({b} + 1)",
                         f"{r.choice([16, 32, 96])}*{a}*{b}", a])

    def guard(self) -> str:
        r = self.rng
        while True:
            lhs = self.expr()
            if self.kind == "products" and r.random() < 0.3:
                a = r.choice(self.pool)
                cand = r.choice([f"Ne({lhs}, {a})", f"Eq(Mod({lhs}, {a}), 0)", f"{lhs} >= {a}",
                                 f"Ne(({a} + 1)*({lhs}), {a} + 1)"])
                doc = {"symbols": {k: {"min": 2} for k in self.hints}, "queries": [cand]}
                try:
                    holds = evaluate(load_problem(doc).queries[0].term, self.hints)
                except ZeroDivisionError:
                    continue
                if holds:
                    return cand
                continue
            rhs = self.expr() if r.random() < 0.6 else str(r.choice([0, 1, 2, 4, 8, 16]))
            a, b = _value(lhs, self.hints), _value(rhs, self.hints)
            if a is None or b is None:
                continue
            return _relation(r, lhs, rhs, a, b)

    def problem(self, n_guards: int) -> dict:
        guards = [f"{s} >= 2" for s in self.syms]
        seen = set(guards)
        while len(guards) < n_guards:
            g = self.guard()
            if g not in seen:
                seen.add(g)
                guards.append(g)
        return _document(f"stress_{self.kind}", f"bench/gen_synthetic.py --kind {self.kind}: PyTorch-like stress "
                         "set, all true at the hints", self.hints, [], guards)


class Held:
    """Wider families than ``Stress`` (``--kind modlattice|nestmaxmin``), written independently of
    it so the two do not share blind spots: 2-12 symbols, any guard count, moduli and nesting
    drawn per seed. ``modlattice``: divisibility and residue guards (``Eq(Mod(s0, 6), 0)``,
    ``Eq(Mod(2*s1 + 3, 4), 1)``, ``Eq(Mod(s0*s1, 8), 0)``, residues of sums and of quotients
    ``(s - Mod(s, k))//k``, their lcm/CRT consequences) next to bounds on those terms.
    ``nestmaxmin``: ``Max``/``Min`` trees of depth 2-4 over linear terms and floor divisions,
    compared with each other, with constants and with atoms, and ``Max(1, …)`` products. Hints are
    drawn with small factors (as real sizes), and every guard holds at them."""

    def __init__(self, kind: str, seed: int, n_symbols: int | None = None) -> None:
        self.kind = kind
        self.rng = r = random.Random(f"held:{kind}:{seed}")
        n = n_symbols or r.randint(2, 12)
        self.syms = [f"s{i}" for i in range(n)]
        base = r.choice([2, 3, 4, 6, 8, 12, 16])
        self.hints = {s: base * r.randint(1, 40) + (r.choice([0, 0, 0, 1, 3]) if r.random() < 0.4 else 0)
                      for s in self.syms}
        for s in self.syms:
            self.hints[s] = max(self.hints[s], 2)
        self.moduli = sorted(set(r.sample([2, 3, 4, 5, 6, 8, 9, 10, 12, 16, 24, 32, 48, 64], r.randint(3, 7))))

    def val(self, text: str) -> int | None:
        return _value(text, self.hints)

    def sym(self) -> str:
        return self.rng.choice(self.syms)

    # -- modular lattices
    def mod_term(self) -> str:
        r = self.rng
        s, t = self.sym(), self.sym()
        k = r.choice(self.moduli)
        a, b = r.randint(1, 5), r.randint(-7, 7)
        q = f"(({s} - Mod({s}, {k}))//{k})"
        return r.choice([
            s, f"{a}*{s} + {b}", f"{s}*{t}", f"{s} + {t}", f"{a}*{s} + {r.randint(1, 3)}*{t} + {b}",
            q, f"{s}//{k}", f"{q} + {b}", f"{s}*{t} + {b}", f"Mod({s}, {k})", f"{s} - Mod({s}, {k})",
        ])

    def mod_guard(self) -> str:
        r = self.rng
        m = r.choice(self.moduli)
        x = self.mod_term()
        v = self.val(x)
        if v is None:
            return ""
        res = v % m
        roll = r.random()
        if roll < 0.55:
            return f"Eq(Mod({x}, {m}), {res})"
        if roll < 0.7:
            other = r.choice([c for c in range(m) if c != res] or [res])
            return f"Ne(Mod({x}, {m}), {other})" if other != res else ""
        if roll < 0.8:  # bounds on a residue
            return f"Mod({x}, {m}) <= {res + r.randint(0, 2)}" if r.random() < 0.5 else f"Mod({x}, {m}) >= {max(0, res - r.randint(0, 2))}"
        if roll < 0.9:  # bounds on a quotient or a term
            y = r.choice([f"({x})//{m}", x])
            w = self.val(y)
            if w is None:
                return ""
            return f"{y} >= {w - r.randint(0, 3)}" if r.random() < 0.5 else f"{y} <= {w + r.randint(0, 3)}"
        # two terms with one residue
        y = self.mod_term()
        w = self.val(y)
        if w is None:
            return ""
        if v % m == w % m:
            return f"Eq(Mod({x}, {m}), Mod({y}, {m}))"
        return f"Ne(Mod({x}, {m}), Mod({y}, {m}))"

    # -- nested Max/Min
    def atom(self) -> str:
        r = self.rng
        s, t = self.sym(), self.sym()
        k = r.choice([2, 3, 4, 8, 16])
        a, b = r.randint(1, 4), r.randint(-8, 8)
        return r.choice([s, f"{a}*{s} + {b}", f"{s}//{k}", f"({s} + {r.randint(1, k)})//{k}",
                         f"{s} - {t}", f"{s} + {t}", f"{a}*{s} - {t}", str(r.randint(-4, 64)),
                         f"{s}//{k} + {b}", f"{k}*({s}//{k})"])

    def nest(self, depth: int) -> str:
        r = self.rng
        if depth <= 1:
            return self.atom()
        op = r.choice(["Max", "Min"])
        args = [self.nest(depth - 1) if r.random() < 0.7 else self.atom() for _ in range(r.choice([2, 2, 3]))]
        return f"{op}({', '.join(args)})"

    def mm_term(self) -> str:
        r = self.rng
        d = r.randint(2, 4)
        x = self.nest(d)
        return r.choice([x, x, f"Max(1, {x})*Max(1, {self.atom()})", f"{x} + {self.atom()}",
                         f"{r.randint(2, 4)}*{x}", f"Max(1, {self.nest(2)})*Max(1, {self.nest(2)})", f"({x})//{r.choice([2, 4])}"])

    def mm_guard(self) -> str:
        r = self.rng
        lhs = self.mm_term()
        roll = r.random()
        rhs = self.mm_term() if roll < 0.45 else self.atom() if roll < 0.7 else str(r.randint(-2, 64))
        a, b = self.val(lhs), self.val(rhs)
        if a is None or b is None:
            return ""
        return _relation(r, lhs, rhs, a, b)

    def problem(self, n_guards: int) -> dict:
        guards = [f"{s} >= 2" for s in self.syms]
        seen = set(guards)
        make = self.mod_guard if self.kind == "modlattice" else self.mm_guard
        tries = 0
        while len(guards) < n_guards and tries < 100 * n_guards:
            tries += 1
            g = make()
            if g and g not in seen:
                seen.add(g)
                guards.append(g)
        return _document(f"held_{self.kind}", f"bench/gen_synthetic.py --kind {self.kind}: held-out-style stress "
                         "set, all true at the hints", self.hints, [], guards)


def _mirror(g: str) -> str:
    for op, back in ((" >= ", " <= "), (" <= ", " >= "), (" > ", " < "), (" < ", " > ")):
        if op in g:
            lhs, rhs = g.split(op, 1)
            return f"{rhs}{back}{lhs}"
    return g


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--guards", type=int, default=500)
    ap.add_argument("--symbols", type=int, default=None, help="mixed: 24 unless given; held kinds: 2-12 drawn per seed")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--kind", choices=["mixed", "lattice", "maxmin", "products", "chains", "modlattice", "nestmaxmin"],
                    default="mixed", help="mixed: the 24-symbol trace-like set; lattice … chains: Stress families "
                    "(3-4 symbols); modlattice, nestmaxmin: Held families (2-12 symbols, see --symbols)")
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args()
    if a.kind == "mixed":
        out = a.out or ROOT / "smt2_corpus" / "synthetic" / f"synthetic_{a.guards}.json"
        doc = Gen(a.symbols or 24, a.seed).problem(a.guards)
    elif a.kind in ("modlattice", "nestmaxmin"):
        out = a.out or ROOT / "smt2_corpus" / "synthetic" / f"held_{a.kind}_{a.seed}.json"
        doc = Held(a.kind, a.seed, a.symbols).problem(a.guards)
    else:
        out = a.out or ROOT / "smt2_corpus" / "synthetic" / f"stress_{a.kind}_{a.seed}.json"
        doc = Stress(a.kind, a.seed).problem(a.guards)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}: "
          f"{len(doc['guards'])} guards, {len(doc['symbols'])} symbols")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
