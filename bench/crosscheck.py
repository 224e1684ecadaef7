"""Soundness cross-check: re-decide symguard's answers on independent second paths.

Every ``solve`` model and unsat answer and every ``redundancy`` verdict is turned into an
entailment question and asked again of

* **cvc5** (through pysmt's cvc5 backend), over two encodings of the IR:
  ``ref`` — an encoding written here from docs/problem-format.md §1.2, independent of ``solver/smt/encode.py``
  (``a // b`` as ``ite(b > 0, div(a, b), div(-a, -b))`` with SMT-LIB's Euclidean ``div``, no
  fresh quotient variables), which tests our encoding *and* z3; and ``ours`` — the very pysmt
  formulas ``solver.smt.encode.Encoding`` builds, which tests the solver alone;
* **brute force** over every point of a bounded box, with an oracle that is either Python
  closures built from the text independently of the parser (generated problems) or
  ``solver.ir.pyeval`` (corpus problems clipped to a small box around their hints).

The entailments checked (A = asserts, G = guards, M = minimal):
status ``sat``/``unsat`` = sat(A ∧ G); ``always_true`` g: unsat(A ∧ ¬g); ``always_false`` g:
unsat(A ∧ g); ``redundant`` g: unsat(A ∧ implied_by ∧ ¬g) and implied_by ⊆ M; ``required`` g:
sat(A ∧ (M − g) ∧ ¬g) with the witness re-evaluated in Python; equivalence: A ∧ M ⇔ A ∧ G;
solve models satisfy every range, assert and guard; an unsat core is unsat on its own.
cvc5 answering ``unknown`` (non-linear) is counted apart, never as a disagreement.

Run ``python bench/crosscheck.py [--generated N]`` for the table over the corpus.
"""

from __future__ import annotations

import argparse
import itertools
import json
import multiprocessing
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pysmt.environment import Environment
from pysmt.exceptions import SolverReturnedUnknownResultError
from pysmt.fnode import FNode
from pysmt.typing import BOOL, INT

from symguard.solver import load_problem, run
from symguard.solver.ir import terms as ir
from symguard.solver.ir.problem import Problem
from symguard.solver.ir.pyeval import holds as py_holds
from symguard.solver.ir.terms import Term
from symguard.solver.smt.encode import Encoding

ROOT = Path(__file__).resolve().parents[1]


def _shared() -> Path:
    """The shared corpus sample: $SYMGUARD_SHARED, else ``shared/`` beside the checkout or beside
    the folder of git worktrees the checkout sits in (a worktree one level deeper finds it too)."""
    env = os.environ.get("SYMGUARD_SHARED")
    if env:
        return Path(env)
    for base in (ROOT.parent, ROOT.parent.parent):
        if (base / "shared").is_dir():
            return base / "shared"
    return ROOT.parent / "shared"


SHARED = _shared()

Env = Mapping[str, int | bool]
Holds = Callable[[str, Env], bool]  # (constraint id, point) -> truth, for brute force


# ------------------------------------------------------------------ the reference encoding

class RefEncoding:
    """IR -> pysmt written from docs/problem-format.md §1.2 alone; shares nothing with ``solver.smt.encode``."""

    def __init__(self, env: Environment) -> None:
        self.mgr = env.formula_manager
        self._memo: dict[Term, FNode] = {}
        self._fresh = 0
        self.definitions: list[FNode] = []  # isqrt's fresh roots (divisions need none here)

    def symbol(self, name: str, is_bool: bool = False) -> FNode:
        return self.mgr.Symbol(name, BOOL if is_bool else INT)

    def formula(self, t: Term) -> FNode:
        for n in ir.iter_dag(t):
            if n not in self._memo:
                self._memo[n] = self._one(n, [self._memo[a] for a in n.args])
        return self._memo[t]

    def _floordiv(self, a: FNode, b: FNode, tb: Term) -> FNode:
        m = self.mgr
        if tb.kind == ir.CONST:
            if tb.value == 0:  # undefined: the parsers' domain already requires b != 0
                self._fresh += 1
                return m.Symbol(f"__undef{self._fresh}", INT)
            if tb.value > 0:
                return m.Div(a, b)
            return m.Div(m.Times(m.Int(-1), a), m.Int(-tb.value))
        neg = m.Div(m.Times(m.Int(-1), a), m.Times(m.Int(-1), b))
        return m.Ite(m.GT(b, m.Int(0)), m.Div(a, b), neg)

    def _one(self, n: Term, a: list[FNode]) -> FNode:
        m, k = self.mgr, n.kind
        if k == ir.CONST:
            return m.Int(n.value)
        if k in (ir.SYM, ir.BSYM):
            return self.symbol(n.value, k == ir.BSYM)
        if k == ir.BCONST:
            return m.Bool(n.value)
        if k == ir.ADD:
            return m.Plus(a)
        if k == ir.MUL:
            return m.Times(a)
        if k in (ir.FLOORDIV, ir.MOD):
            q = self._floordiv(a[0], a[1], n.args[1])
            return q if k == ir.FLOORDIV else m.Minus(a[0], m.Times(a[1], q))
        if k in (ir.EDIV, ir.EMOD):
            if n.args[1].kind == ir.CONST and n.args[1].value == 0:
                self._fresh += 1
                q = m.Symbol(f"__undef{self._fresh}", INT)
            else:
                q = m.Div(a[0], a[1])
            return q if k == ir.EDIV else m.Minus(a[0], m.Times(a[1], q))
        if k in (ir.MAX, ir.MIN):
            acc = a[0]
            for x in a[1:]:
                acc = m.Ite(m.GE(x, acc) if k == ir.MAX else m.LE(x, acc), x, acc)
            return acc
        if k == ir.ITE:
            return m.Ite(a[0], a[1], a[2])
        if k == ir.ISQRT:  # the r with r >= 0, r**2 <= n < (r + 1)**2, where n >= 0 (else undefined)
            self._fresh += 1
            r = m.Symbol(f"__isqrt{self._fresh}", INT)
            r1 = m.Plus(r, m.Int(1))
            self.definitions.append(m.Implies(m.GE(a[0], m.Int(0)), m.And(
                m.GE(r, m.Int(0)), m.LE(m.Times(r, r), a[0]), m.LT(a[0], m.Times(r1, r1)))))
            return r
        if k == ir.BITFLOOR:  # a chain of thresholds 2**62, ..., 2, else 1; past 2**63 some p <= n < 2p
            self._fresh += 1
            big = m.Symbol(f"__bitfloor{self._fresh}", INT)
            self.definitions.append(m.Implies(m.GE(a[0], m.Int(1 << 63)), m.And(
                m.LE(big, a[0]), m.LT(a[0], m.Times(m.Int(2), big)))))
            acc = m.Int(1)
            for e in range(1, 63):
                acc = m.Ite(m.GE(a[0], m.Int(1 << e)), m.Int(1 << e), acc)
            return m.Ite(m.GE(a[0], m.Int(1 << 63)), big, acc)
        if k == ir.LE:
            return m.LE(a[0], m.Int(0))
        if k == ir.EQ:
            return m.Equals(a[0], m.Int(0))
        if k == ir.NOT:
            return m.Not(a[0])
        if k == ir.AND:
            return m.And(a)
        if k == ir.OR:
            return m.Or(a)
        if k == ir.IFF:
            return m.Iff(a[0], a[1])
        raise AssertionError(k)


class Cvc5:
    """Entailment questions about one problem, asked of cvc5 over one encoding."""

    def __init__(self, problem: Problem, *, encoding: str = "ref", timeout_ms: int = 5000) -> None:
        self.p = problem
        self.env = Environment()
        self.enc: Any = RefEncoding(self.env) if encoding == "ref" else Encoding(self.env)
        self.timeout_ms = timeout_ms
        m = self.env.formula_manager
        self.ranges = []
        for s in problem.symbols:
            if s.is_bool:
                continue
            v = self.enc.symbol(s.name)
            if s.lo is not None:
                self.ranges.append(m.LE(m.Int(s.lo), v))
            if s.hi is not None:
                self.ranges.append(m.LE(v, m.Int(s.hi)))

    def check(self, conds: Sequence[Term], *, negated: Term | None = None) -> tuple[str, dict[str, Any]]:
        """sat/unsat/unknown of ranges ∧ conds (∧ ¬negated), with a model when sat."""
        m = self.env.formula_manager
        parts = [self.enc.formula(c) for c in conds]
        if negated is not None:
            parts.append(m.Not(self.enc.formula(negated)))
        parts += self.ranges + list(self.enc.definitions)
        s = self.env.factory.Solver(name="cvc5", logic="QF_NIA",
                                    solver_options={"tlimit-per": self.timeout_ms})
        try:
            s.add_assertion(m.And(parts))
            try:
                ok = s.solve()
            except SolverReturnedUnknownResultError:
                return "unknown", {}
            if not ok:
                return "unsat", {}
            model: dict[str, Any] = {}
            for sym in self.p.symbols:
                val = s.get_value(self.enc.symbol(sym.name, sym.is_bool))
                model[sym.name] = val.is_true() if sym.is_bool else int(val.constant_value())
            return "sat", model
        finally:
            s.exit()


# ------------------------------------------------------------------ the tally

@dataclass
class Tally:
    problems: int = 0
    checks: Counter[str] = field(default_factory=Counter)
    unknown: Counter[str] = field(default_factory=Counter)  # second path could not decide
    skipped: Counter[str] = field(default_factory=Counter)  # symguard said unknown/unsupported
    disagreements: list[str] = field(default_factory=list)
    killed: int = 0  # cvc5 checks killed from outside (also counted in ``unknown``)

    def agree(self, kind: str, ok: bool, what: str) -> None:
        self.checks[kind] += 1
        if not ok:
            self.disagreements.append(f"{kind}: {what}")

    def add(self, other: Tally) -> None:
        self.problems += other.problems
        self.checks.update(other.checks)
        self.unknown.update(other.unknown)
        self.skipped.update(other.skipped)
        self.disagreements += other.disagreements
        self.killed += other.killed


# ------------------------------------------------------------------ one problem, one path

class _Path:
    """Answers 'is this conjunction satisfiable?' for a problem (cvc5 or brute force)."""

    name = "?"

    def sat(self, conds: Sequence[str], negated: str | Sequence[str] | None = None) -> tuple[str, Env | None]:
        """Is there a point where every ``conds`` holds and (not all of) ``negated`` fails?"""
        raise NotImplementedError


def _ids(negated: str | Sequence[str] | None) -> list[str] | None:
    return None if negated is None else [negated] if isinstance(negated, str) else list(negated)


class Cvc5Path(_Path):
    """cvc5 in a forked helper process: cvc5 does not always honour its own time limit on
    non-linear problems, so a check past ``2 * timeout_ms + 0.5 s`` is killed from outside (unknown)."""

    def __init__(self, doc: Mapping[str, Any], p: Problem, encoding: str, timeout_ms: int) -> None:
        self.doc, self.p, self.encoding, self.timeout_ms = doc, p, encoding, timeout_ms
        self.name = f"cvc5-{encoding}"
        self.terms = {c.id: c.term for c in (*p.asserts, *p.guards) if c.term is not None}
        self.proc: Any = None
        self.conn: Any = None
        self.killed = 0

    def _start(self) -> None:
        ctx = multiprocessing.get_context("fork")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(dict(self.doc), self.encoding, self.timeout_ms, child),
                                daemon=True)
        self.proc.start()
        child.close()

    def close(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.join()
            self.conn.close()
            self.proc = None

    def sat(self, conds: Sequence[str], negated: str | Sequence[str] | None = None) -> tuple[str, Env | None]:
        negated = _ids(negated)
        if self.proc is None:
            self._start()
        self.conn.send((list(conds), negated))
        if not self.conn.poll(2 * self.timeout_ms / 1000 + 0.5):
            self.killed += 1
            self.close()
            return "unknown", None
        st, model = self.conn.recv()
        if st == "sat":  # a witness must be a real one: re-evaluate it in Python
            ok = all(py_holds(self.terms[i], model) for i in conds) and (
                negated is None or not all(py_holds(self.terms[i], model) for i in negated))
            if not ok:
                raise AssertionError(f"cvc5 model {model} does not satisfy {conds} / not {negated}")
        return st, model if st == "sat" else None


def _serve(doc: dict[str, Any], encoding: str, timeout_ms: int, conn: Any) -> None:
    p = load_problem(doc)
    c = Cvc5(p, encoding=encoding, timeout_ms=timeout_ms)
    terms = {x.id: x.term for x in (*p.asserts, *p.guards) if x.term is not None}
    while True:
        try:
            conds, negated = conn.recv()
        except EOFError:
            return
        neg = None if negated is None else ir.mk_and(*(terms[i] for i in negated))
        conn.send(c.check([terms[i] for i in conds], negated=neg))


class BrutePath(_Path):
    name = "brute"

    def __init__(self, boxes: Mapping[str, tuple[int, int]], holds: Holds) -> None:
        names = list(boxes)
        self.points = [dict(zip(names, v)) for v in
                       itertools.product(*(range(lo, hi + 1) for lo, hi in boxes.values()))]
        self.holds = holds
        self._truth: dict[str, list[bool]] = {}

    def truth(self, ident: str) -> list[bool]:
        if ident not in self._truth:
            self._truth[ident] = [self.holds(ident, e) for e in self.points]
        return self._truth[ident]

    def sat(self, conds: Sequence[str], negated: str | Sequence[str] | None = None) -> tuple[str, Env | None]:
        negated = _ids(negated)
        cols = [self.truth(i) for i in conds]
        negs = [self.truth(i) for i in negated] if negated is not None else None
        for k, e in enumerate(self.points):
            if all(c[k] for c in cols) and (negs is None or not all(n[k] for n in negs)):
                return "sat", e
        return "unsat", None


def check_solve(p: Problem, res: Mapping[str, Any], path: _Path, model_ok: Callable[[Env], bool],
                tally: Tally) -> None:
    A = [c.id for c in p.asserts if c.term is not None]
    G = [c.id for c in p.guards if c.term is not None]
    st = res["status"]
    if st == "sat":
        tally.agree("solve.model", model_ok(res["model"]), f"model {res['model']} fails")
    elif st == "unsat":
        got, _ = path.sat(A + G)
        if got == "unknown":
            tally.unknown["solve.unsat"] += 1
        else:
            tally.agree("solve.unsat", got == "unsat", f"{path.name} finds a model")
        if res.get("core"):
            got, _ = path.sat(list(res["core"]))
            if got == "unknown":
                tally.unknown["solve.core"] += 1
            else:
                tally.agree("solve.core", got == "unsat", f"core {res['core']} is satisfiable")
    else:
        tally.skipped["solve.unknown"] += 1


def check_redundancy(p: Problem, res: Mapping[str, Any], path: _Path, tally: Tally,
                     witness: Env | None = None) -> None:
    """``witness``: a point already checked to satisfy A ∧ G (the solve model), proving ``sat``."""
    A = [c.id for c in p.asserts if c.term is not None]
    G = [c.id for c in p.guards if c.term is not None]
    minimal = list(res["minimal"])
    mset = set(minimal)
    kept = [i for i in minimal if i in G]  # skipped (unsupported) guards stay in minimal, formula-less

    def ask(kind: str, want: str, conds: list[str], negated: str | list[str] | None, what: str) -> None:
        got, _ = path.sat(conds, negated)
        if got == "unknown":
            tally.unknown[kind] += 1
        else:
            tally.agree(kind, got == want, f"{what}: {path.name} says {got}")

    if witness is not None:
        tally.agree("redundancy.status", res["status"] == "sat", f"status {res['status']} but solve has a model")
    else:
        ask("redundancy.status", res["status"], A + G, None, "status")
    for row in res["guards"]:
        gid, v, by = row["id"], row["verdict"], list(row["implied_by"])
        if gid not in G:
            tally.agree("redundancy.verdict", v == "unsupported", f"{gid} skipped but {v}")
            continue
        if v == "always_true":
            ask("redundancy.always_true", "unsat", A, gid, f"{gid} always_true")
        elif v == "always_false":
            ask("redundancy.always_false", "unsat", A + [gid], None, f"{gid} always_false")
        elif v == "redundant":
            tally.agree("redundancy.implied_in_minimal", set(by) <= mset and gid not in mset,
                        f"{gid} implied_by {by} not within minimal {minimal}")
            ask("redundancy.redundant", "unsat", A + by, gid, f"{gid} implied by {by}")
        elif v == "required":
            tally.agree("redundancy.required_in_minimal", gid in mset, f"{gid} required, not kept")
            ask("redundancy.required", "sat", A + [i for i in kept if i != gid], gid,
                f"{gid} required against {minimal}")
        else:
            tally.agree("redundancy.kept", gid in mset, f"{gid} {v} but not kept")
            tally.skipped[f"redundancy.{v}"] += 1
    if not G:
        return
    # equivalence in one question: A ∧ M ⇒ every dropped guard (A ∧ G ⇒ M is trivial: M ⊆ G).
    # It follows from the verdicts above when they all agree; asked directly it also covers the
    # verdicts the second path could not decide.
    dropped = [gid for gid in G if gid not in mset]
    if res["status"] == "unsat":
        ask("redundancy.equivalent", "unsat", A + kept, None, "A and minimal")
    elif dropped:
        ask("redundancy.equivalent", "unsat", A + kept, dropped, "A and minimal imply the dropped guards")


# ------------------------------------------------------------------ drivers

def crosscheck_problem(doc: Mapping[str, Any], *, encodings: Iterable[str] = ("ref",),
                       brute: tuple[Mapping[str, tuple[int, int]], Holds | None] | None = None,
                       timeout_ms: int = 5000, ops: Sequence[str] = ("solve", "redundancy")) -> Tally:
    """Cross-check symguard's answers on ``doc`` over cvc5 (each encoding) and, given a box, brute force.

    ``brute`` is ``(boxes, holds)``; ``holds=None`` evaluates with ``solver.ir.pyeval``.
    """
    tally = Tally(problems=1)
    p = load_problem(doc)
    terms = {c.id: c.term for c in (*p.asserts, *p.guards) if c.term is not None}

    def model_ok(model: Env) -> bool:
        for s in p.symbols:
            v = model.get(s.name)
            if v is None or (not s.is_bool and ((s.lo is not None and v < s.lo) or (s.hi is not None and v > s.hi))):
                return False
        if brute is not None and brute[1] is not None:
            if not all(lo <= model[n] <= hi for n, (lo, hi) in brute[0].items()):
                return False
            return all(brute[1](i, model) for i in terms)
        return all(py_holds(t, model) for t in terms.values())

    results = {op: run(op, doc) for op in ops}
    paths: list[_Path] = [Cvc5Path(doc, p, e, timeout_ms) for e in encodings]
    if brute is not None:
        boxes, holds = brute
        paths.append(BrutePath(boxes, holds or (lambda i, e: py_holds(terms[i], e))))
    for path in paths:
        try:
            if "solve" in results:
                check_solve(p, results["solve"], path, model_ok, tally)
            if "redundancy" in results:
                sol = results.get("solve", {})
                witness = sol.get("model") if sol.get("status") == "sat" and model_ok(sol["model"]) else None
                check_redundancy(p, results["redundancy"], path, tally, witness)
        finally:
            if isinstance(path, Cvc5Path):
                path.close()
                tally.killed += path.killed
    return tally


def clip(doc: Mapping[str, Any], points: int = 4000) -> tuple[dict[str, Any], dict[str, tuple[int, int]]]:
    """The problem restricted to a small box around its hints (ranges narrowed), for brute force."""
    p = load_problem(doc)
    ints = [s for s in p.symbols if not s.is_bool]
    width = max(1, int(points ** (1 / max(1, len(ints)))) - 1)
    boxes: dict[str, tuple[int, int]] = {}
    symbols: dict[str, Any] = {}
    for s in ints:
        centre = s.hint if s.hint is not None else (s.lo if s.lo is not None else 0)
        lo = centre - width // 2
        if s.lo is not None:
            lo = max(lo, s.lo)
        hi = lo + width
        if s.hi is not None and hi > s.hi:
            hi, lo = s.hi, max(s.hi - width, s.lo if s.lo is not None else s.hi - width)
        boxes[s.name] = (lo, hi)
        symbols[s.name] = {"min": lo, "max": hi} | ({"hint": s.hint} if s.hint is not None and lo <= s.hint <= hi else {})
    out = {k: v for k, v in doc.items() if k not in ("symbols", "queries", "inputs")}
    out["symbols"] = symbols
    return out, boxes


CORPUS_FOLDERS = ("examples", "torch", "validation")  # smt2_corpus/<folder>; a new folder must be listed


def corpus_files(folders: Sequence[str] = CORPUS_FOLDERS) -> list[Path]:
    """The shared sample, then every JSON problem and ``.smt2`` twin under ``smt2_corpus/<folders>``.

    Not ``synthetic/``: its 500-guard benchmark has 24 symbols, which makes the brute-force box (and
    cvc5 on 500 non-linear guards) take tens of GB and hours; it is generated, not made by PyTorch.
    ``MANIFEST.json`` and ``expected.json`` are not problems (``load_doc`` skips them).
    """
    files = sorted(SHARED.glob("corpus_sample/*.json")) if SHARED.is_dir() else []
    for folder in folders:
        files += sorted(p for p in (ROOT / "smt2_corpus" / folder).rglob("*") if p.suffix in (".json", ".smt2")
                        and p.name not in ("expected.json", "MANIFEST.json"))
    return files


# folders of smt2_corpus that are not re-decided here, and why
NOT_CROSSCHECKED = {
    "synthetic": "24-symbol stress problems: the brute-force box would take tens of GB (see corpus_files)",
    "sessions": "recorded ShapeEnv traces (events), not problems; replayed by bench/compiler_session.py",
    "simplify": "contexts for simplify: every form is verified by z3 and points in bench/simplify.py and "
                "tests/test_simplify*.py",
}


def unlisted_corpus_folders() -> list[str]:
    """Folders of ``smt2_corpus`` that ``corpus_files`` does not read and ``NOT_CROSSCHECKED`` does
    not explain: a new folder must be one or the other."""
    return sorted(p.name for p in (ROOT / "smt2_corpus").iterdir()
                  if p.is_dir() and p.name not in CORPUS_FOLDERS and p.name not in NOT_CROSSCHECKED)


def load_doc(path: Path) -> dict[str, Any] | None:
    """A problem document from a corpus file (None when it is not one or cannot be read yet)."""
    if path.suffix == ".smt2":
        try:
            from symguard.solver.syntax.smtlib_script import script_problem
        except ImportError:
            return None
        return script_problem(path.read_text())  # type: ignore[no-any-return]
    doc = json.loads(path.read_text())
    if not isinstance(doc, dict) or not ("guards" in doc or "asserts" in doc):
        return None
    return {k: v for k, v in doc.items() if k not in ("expected",)}


def crosscheck_corpus(files: Sequence[Path], *, encodings: Sequence[str] = ("ref", "ours"),
                      clip_points: int = 4000, timeout_ms: int = 1000,
                      progress: Callable[[str], None] | None = None) -> Tally:
    total = Tally()
    for f in files:
        doc = load_doc(f)
        if doc is None:
            continue
        t0 = time.perf_counter()
        t = crosscheck_problem(doc, encodings=encodings, timeout_ms=timeout_ms)
        clipped, boxes = clip(doc, clip_points)
        t.add(crosscheck_problem(clipped, encodings=(), brute=(boxes, None)))
        t.problems = 1
        if progress:
            progress(f"{f.parent.name}/{f.name}: {sum(t.checks.values())} checks, {sum(t.unknown.values())} unknown, "
                     f"{len(t.disagreements)} disagreements, {time.perf_counter() - t0:.0f}s")
        for d in t.disagreements:
            total.disagreements.append(f"{f.name}: {d}")
        t.disagreements = []
        total.add(t)
    return total


def table(t: Tally) -> str:
    rows = [f"problems cross-checked: {t.problems}", "", f"{'check':36} {'agreed':>8} {'2nd-path unknown':>17}"]
    for k in sorted(set(t.checks) | set(t.unknown)):
        rows.append(f"{k:36} {t.checks[k]:>8} {t.unknown[k]:>17}")
    rows.append(f"{'total':36} {sum(t.checks.values()):>8} {sum(t.unknown.values()):>17}")
    if t.killed:
        rows.append(f"cvc5 checks killed past twice their time limit (in 2nd-path unknown): {t.killed}")
    if t.skipped:
        rows.append("symguard unknown/unsupported (kept, not checked): " +
                    ", ".join(f"{k}={v}" for k, v in sorted(t.skipped.items())))
    rows.append(f"disagreements: {len(t.disagreements)}")
    rows += [f"  {d}" for d in t.disagreements[:20]]
    return "\n".join(rows)


def generated(n: int, seed: int, kind: str = "small", progress: Callable[[str], None] | None = None,
              budget_s: float | None = None) -> Tally:
    """``n`` random problems through cvc5 (both encodings) and brute force on their whole box.

    ``kind``: ``small`` (random expression trees, tests/small_problems.py ``small_problems``),
    ``size`` (PyTorch-like size chains, ``size_problems``) or ``mixed`` (either). Past ``budget_s``
    seconds no further problem is checked (the rest of the run is skipped, the table still printed).
    """
    sys.path.insert(0, str(ROOT / "tests"))
    from crosscheck_gen import with_asserts  # type: ignore[import-not-found]
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hypothesis_seed
    from hypothesis import strategies as st
    from small_problems import size_problems, small_problems

    strategies = {"small": small_problems(hints=True, timeout_ms=20000), "size": size_problems(hints=True)}
    smalls = st.one_of(*strategies.values()) if kind == "mixed" else strategies[kind]
    total = Tally()
    stop = None if budget_s is None else time.monotonic() + budget_s

    @hypothesis_seed(seed)
    @settings(max_examples=n, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(with_asserts(smalls))
    def one(case: Any) -> None:
        doc, boxes, holds = case
        if stop is not None and time.monotonic() > stop:
            return
        t = crosscheck_problem(doc, encodings=("ref", "ours"), brute=(boxes, holds))
        for d in t.disagreements:
            total.disagreements.append(f"{json.dumps(doc)}: {d}")
            if progress:  # at once: a long run may be cut short
                progress(f"DISAGREEMENT {total.disagreements[-1]}")
        t.disagreements = []
        total.add(t)
        if progress and total.problems % 25 == 0:
            progress(f"generated {total.problems}: {sum(total.checks.values())} checks, "
                     f"{sum(total.unknown.values())} unknown, {len(total.disagreements)} disagreements")

    one()
    return total


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--generated", type=int, default=300, help="random small problems (default 300)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--clip-points", type=int, default=4000)
    ap.add_argument("--cvc5-ms", type=int, default=1000, help="cvc5 time limit per check")
    ap.add_argument("--no-corpus", action="store_true", help="generated problems only")
    ap.add_argument("--encodings", default="ref,ours", help="cvc5 encodings for the corpus (default ref,ours)")
    ap.add_argument("--kind", choices=("small", "size", "mixed"), default="small",
                    help="generated problems: small random trees, PyTorch-like size chains, or both")
    ap.add_argument("--budget-s", type=float, default=None,
                    help="stop checking generated problems after this many seconds (then print the table)")
    ap.add_argument("--only", action="append", default=[],
                    help="corpus files whose path contains this text (repeatable; default all)")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    corpus = Tally()
    if not args.no_corpus:
        files = [f for f in corpus_files() if not args.only or any(o in str(f) for o in args.only)]
        corpus = crosscheck_corpus(files, encodings=tuple(e for e in args.encodings.split(",") if e),
                                   clip_points=args.clip_points, timeout_ms=args.cvc5_ms,
                                   progress=lambda s: print(s, file=sys.stderr))
        print(f"## corpus (cvc5 {args.encodings} encodings; brute force on boxes around the hints)\n")
        print(table(corpus))
    if args.generated:
        gen = generated(args.generated, args.seed, args.kind, progress=lambda s: print(s, file=sys.stderr),
                        budget_s=args.budget_s)
        print(f"\n## generated, {args.kind} (cvc5 ref + ours encodings; brute force on the whole box)\n")
        print(table(gen))
        corpus.add(gen)
    print(f"\nall: {corpus.problems} problems, {sum(corpus.checks.values())} checks, "
          f"{sum(corpus.unknown.values())} second-path unknowns, {len(corpus.disagreements)} disagreements, "
          f"{time.perf_counter() - t0:.1f}s")
    return 1 if corpus.disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
