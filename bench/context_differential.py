"""Contexts against the stateless call against brute force, on random problems and random questions.

A random problem on a small integer box is registered as a context; a random sequence of steps
follows — extensions (guards, asserts, symbols, options such as ``default_min``; sometimes re-read
from the extension's own document, as a worker without the session does) and questions of every
operation (``solve``, ``redundancy``, ``evaluate`` with boolean and integer queries, ``shrink``,
``simplify``), some with a delta of their own. Every answer is checked three ways:

* the context's answer (in-process ``solver.Context``, or over HTTP: ``--http URL``, or a server
  this script starts on 127.0.0.1),
* the stateless answer (``solver.run``) for the merged document,
* brute force over the whole box, with Python's own integer operations (strict: a zero divisor
  anywhere in a condition makes it false; a query is evaluated where it is defined).

Verdicts must agree (statuses, boolean values, integer ranges, always-true/false verdicts,
optimal objective values); witnesses and models must be points of the merged problem. An
answer the solver left undecided (``unknown``, ``exact: false``) is counted, not compared.

``tests/test_context_differential.py`` runs a seeded subset in CI; this prints a table for a
longer run: ``python bench/context_differential.py [--problems N] [--steps N] [--seed S] [--http]``.
"""

from __future__ import annotations

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

import argparse
import itertools
import random
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

Env = dict[str, int]
Fn = Callable[[Env], Any]
TIMEOUT_MS = 20000


@dataclass(frozen=True)
class Expr:
    text: str
    fn: Fn  # strict: raises ZeroDivisionError where a divisor is zero


# ------------------------------------------------------------------ random expressions

def _leaf(rng: random.Random, names: list[str]) -> Expr:
    if rng.random() < 0.65:
        n = rng.choice(names)
        return Expr(n, lambda e, n=n: e[n])  # type: ignore[misc]
    c = rng.randint(-4, 6)
    return Expr(str(c) if c >= 0 else f"({c})", lambda e, c=c: c)  # type: ignore[misc]


def term(rng: random.Random, names: list[str], depth: int) -> Expr:
    """A random integer expression (sympy text and its Python meaning)."""
    if depth <= 0 or rng.random() < 0.3:
        return _leaf(rng, names)
    op = rng.choice(["+", "-", "*", "//", "%", "Max", "Min", "CeilDiv", "Mod", "Where", "Abs", "+c", "*c"])
    a, b = term(rng, names, depth - 1), term(rng, names, depth - 1)
    x, y = a.fn, b.fn
    if op == "+":
        return Expr(f"({a.text} + {b.text})", lambda e: x(e) + y(e))
    if op == "-":
        return Expr(f"({a.text} - {b.text})", lambda e: x(e) - y(e))
    if op == "*":
        return Expr(f"({a.text})*({b.text})", lambda e: x(e) * y(e))
    if op == "+c":
        k = rng.randint(-8, 8)
        return Expr(f"({a.text} + ({k}))", lambda e: x(e) + k)
    if op == "*c":
        k = rng.choice([-3, -2, 2, 3, 4])
        return Expr(f"({k})*({a.text})", lambda e: k * x(e))
    if op in ("//", "%", "CeilDiv", "Mod") and rng.random() < 0.6:  # mostly constant divisors
        d = rng.choice([-3, -2, 2, 3, 4, 8])
        b, y = Expr(f"({d})" if d < 0 else str(d), lambda e: d), (lambda e: d)
    if op == "//":
        return Expr(f"(({a.text})//({b.text}))", lambda e: x(e) // y(e))
    if op == "%":
        return Expr(f"(({a.text}) % ({b.text}))", lambda e: x(e) % y(e))
    if op == "Mod":
        return Expr(f"Mod({a.text}, {b.text})", lambda e: x(e) % y(e))
    if op == "CeilDiv":
        return Expr(f"CeilDiv({a.text}, {b.text})", lambda e: -((-x(e)) // y(e)))
    if op == "Max":
        return Expr(f"Max({a.text}, {b.text})", lambda e: max(x(e), y(e)))
    if op == "Min":
        return Expr(f"Min({a.text}, {b.text})", lambda e: min(x(e), y(e)))
    if op == "Abs":
        return Expr(f"Abs({a.text})", lambda e: abs(x(e)))
    w = cond(rng, names, 0)
    z = w.fn

    def where(e: Env) -> int:
        t, u, v = z(e), x(e), y(e)  # strict: every branch's divisors count
        return u if t else v

    return Expr(f"Where({w.text}, {a.text}, {b.text})", where)


def cond(rng: random.Random, names: list[str], depth: int) -> Expr:
    """A random condition."""
    if depth > 0 and rng.random() < 0.3:
        k = rng.choice(["And", "Or", "Not"])
        a = cond(rng, names, depth - 1)
        if k == "Not":
            return Expr(f"Not({a.text})", lambda e: not a.fn(e))
        b = cond(rng, names, depth - 1)
        if k == "And":
            return Expr(f"And({a.text}, {b.text})", lambda e: bool(a.fn(e)) & bool(b.fn(e)))
        return Expr(f"Or({a.text}, {b.text})", lambda e: bool(a.fn(e)) | bool(b.fn(e)))
    a = term(rng, names, rng.randint(0, 2))
    b = _leaf(rng, names) if rng.random() < 0.6 else term(rng, names, 1)
    x, y = a.fn, b.fn
    op = rng.choice(["<", "<=", ">", ">=", "Eq", "Ne"])
    if op == "Eq":
        return Expr(f"Eq({a.text}, {b.text})", lambda e: x(e) == y(e))
    if op == "Ne":
        return Expr(f"Ne({a.text}, {b.text})", lambda e: x(e) != y(e))
    fns = {"<": lambda u, v: u < v, "<=": lambda u, v: u <= v, ">": lambda u, v: u > v, ">=": lambda u, v: u >= v}
    f = fns[op]
    return Expr(f"{a.text} {op} {b.text}", lambda e: f(x(e), y(e)))


def holds(c: Expr, env: Env) -> bool:
    try:
        return bool(c.fn(env))
    except ZeroDivisionError:
        return False


def value(t: Expr, env: Env) -> Any:
    try:
        return t.fn(env)
    except ZeroDivisionError:
        return None


# ------------------------------------------------------------------ a case: problem and steps

@dataclass
class World:
    """The merged document so far and what brute force needs: every symbol's box and the
    meaning of every assert and guard by id."""

    doc: dict[str, Any]
    meaning: dict[str, Expr] = field(default_factory=dict)
    upper: dict[str, int] = field(default_factory=dict)  # bounds of undeclared symbols (asserted)
    n_asserts: int = 0
    n_guards: int = 0

    def box(self, default_min: int) -> dict[str, tuple[int, int]]:
        out = {}
        decl = self.doc.get("symbols") or {}
        for n in NAMES:
            d = decl.get(n)
            if d is not None:
                lo = d.get("min", default_min)
                out[n] = (lo, d["max"])
            else:
                out[n] = (default_min, self.upper[n])
        return out

    def default_min(self, delta: dict[str, Any] | None = None) -> int:
        opts = {**(self.doc.get("options") or {}), **((delta or {}).get("options") or {})}
        return int(opts.get("default_min", 0))

    def points(self, extra: list[Expr] = (), default_min: int | None = None) -> list[Env]:  # type: ignore[assignment]
        dm = self.default_min() if default_min is None else default_min
        box = self.box(dm)
        conds = list(self.meaning.values()) + list(extra)
        out = []
        for vals in itertools.product(*(range(lo, hi + 1) for lo, hi in box.values())):
            env = dict(zip(box, vals))
            if all(holds(c, env) for c in conds):
                out.append(env)
        return out


NAMES = ["s0", "s1", "s2"]


def new_problem(rng: random.Random) -> World:
    """Symbols s0..s2 on boxes of at most 8 values; some declared without a min (they follow
    ``default_min``), s2 sometimes undeclared (bounded by an assert)."""
    symbols: dict[str, Any] = {}
    w = World({})
    asserts: list[Any] = []
    for n in NAMES[:2]:
        lo = rng.randint(-3, 3)
        d: dict[str, Any] = {"max": lo + rng.randint(0, 6)}
        if rng.random() < 0.75:
            d["min"] = lo
        else:
            d["max"] = max(d["max"], 3)
        if rng.random() < 0.6:
            d["hint"] = rng.randint(d.get("min", 0), d["max"])
        symbols[n] = d
    if rng.random() < 0.5:
        symbols["s2"] = {"min": 0, "max": rng.randint(0, 4)}
    else:
        hi = rng.randint(1, 4)
        w.upper["s2"] = hi
        asserts.append(f"s2 <= {hi}")
    w.doc = {"symbols": symbols, "options": {"timeout_ms": TIMEOUT_MS}}
    if rng.random() < 0.3:
        w.doc["options"]["default_min"] = rng.choice([-2, 1])
    guards = [cond(rng, NAMES, 1) for _ in range(rng.randint(0, 3))]
    more = [cond(rng, NAMES, 1) for _ in range(rng.randint(0, 1))]
    for a in asserts:
        hi = w.upper["s2"]
        w.meaning[f"a{w.n_asserts}"] = Expr(a, _at_most("s2", hi))
        w.n_asserts += 1
    for a in more:
        w.meaning[f"a{w.n_asserts}"] = a
        w.n_asserts += 1
    for g in guards:
        w.meaning[f"g{w.n_guards}"] = g
        w.n_guards += 1
    w.doc["asserts"] = asserts + [a.text for a in more]
    w.doc["guards"] = [g.text for g in guards]
    return w


def _at_most(name: str, hi: int) -> Fn:
    return lambda e: e[name] <= hi


def merged(doc: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {k: (list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v) for k, v in doc.items()}
    for k, v in delta.items():
        if k in ("asserts", "guards"):
            out[k] = list(out.get(k, [])) + list(v)
        elif k in ("symbols", "options"):
            out[k] = {**out.get(k, {}), **v}
        else:
            out[k] = v
    return out


def extension(rng: random.Random, w: World) -> tuple[dict[str, Any], dict[str, Expr]]:
    """A random delta that extends the context (and the meaning of what it adds, by id)."""
    delta: dict[str, Any] = {}
    meaning: dict[str, Expr] = {}
    if rng.random() < 0.8:
        gs = [cond(rng, NAMES, 1) for _ in range(rng.randint(1, 2))]
        delta["guards"] = [g.text for g in gs]
        meaning.update({f"g{w.n_guards + i}": g for i, g in enumerate(gs)})
    if rng.random() < 0.3:
        a = cond(rng, NAMES, 0)
        delta["asserts"] = [a.text]
        meaning[f"a{w.n_asserts}"] = a
    if rng.random() < 0.15:
        delta["options"] = {"default_min": rng.choice([-2, 0, 1])}
    if not delta:
        delta["guards"] = ["s0 >= -100"]
        meaning[f"g{w.n_guards}"] = Expr("s0 >= -100", lambda e: e["s0"] >= -100)
    return delta, meaning


def apply(w: World, delta: dict[str, Any], meaning: dict[str, Expr]) -> World:
    return World(merged(w.doc, delta), {**w.meaning, **meaning}, dict(w.upper),
                 w.n_asserts + len(delta.get("asserts", ())), w.n_guards + len(delta.get("guards", ())))


def question(rng: random.Random, w: World) -> tuple[str, dict[str, Any], dict[str, Expr], list[Expr]]:
    """(op, delta, meaning of the delta's asserts/guards, its queries or exprs)."""
    op = rng.choice(["evaluate", "evaluate", "evaluate", "solve", "redundancy", "shrink", "simplify"])
    delta: dict[str, Any] = {}
    meaning: dict[str, Expr] = {}
    if rng.random() < 0.25:  # a question that brings its own guard (the stateless engine on the merged problem)
        g = cond(rng, NAMES, 0)
        delta["guards"] = [g.text]
        meaning[f"g{w.n_guards}"] = g
    if rng.random() < 0.15:
        delta["options"] = {"default_min": rng.choice([-2, 0, 1])}
    qs: list[Expr] = []
    if op == "evaluate":
        qs = [cond(rng, NAMES, 1) if rng.random() < 0.5 else term(rng, NAMES, 2) for _ in range(rng.randint(1, 3))]
        delta["queries"] = [q.text for q in qs]
    elif op == "simplify":
        qs = [cond(rng, NAMES, 0) if rng.random() < 0.4 else term(rng, NAMES, 2) for _ in range(rng.randint(1, 2))]
        delta["exprs"] = [q.text for q in qs]
    elif op == "shrink" and rng.random() < 0.5:
        delta.setdefault("options", {})["preserve_distinct"] = False
    return op, delta, meaning, qs


# ------------------------------------------------------------------ checking one answer

class Disagreement(AssertionError):
    pass


def _is_bool(text: str) -> bool:
    from symguard.solver import load_problem

    return load_problem({"queries": [text]}).queries[0].is_bool


def check(op: str, got: dict[str, Any], want: dict[str, Any], w: World, delta: dict[str, Any],
          meaning: dict[str, Expr], qs: list[Expr], tally: Counter[str]) -> None:
    """``got`` (the context's) against ``want`` (stateless) and brute force; raises ``Disagreement``."""
    world = apply(w, delta, meaning)
    dm = w.default_min(delta)
    pts = world.points(default_min=dm)
    sat = "sat" if pts else "unsat"

    def fail(what: str) -> None:
        raise Disagreement(f"{op} {what}\n  document: {merged(w.doc, delta)}\n  context: {got}\n  stateless: {want}")

    for who, res in (("context", got), ("stateless", want)):
        st = res["status"]
        if st == "unknown":
            tally["unknown"] += 1
            continue
        if st != sat:
            fail(f"status: {who} says {st}, brute force {sat}")
    if got["status"] != "unknown" and want["status"] != "unknown" and got["status"] != want["status"]:
        fail("status differs")
    tally[f"{op}"] += 1
    if sat == "unsat":
        return
    box = world.box(dm)

    def is_point(m: dict[str, Any]) -> bool:
        full = {n: m.get(n, box[n][0]) for n in box}  # a symbol no expression uses is not in a model
        return all(box[n][0] <= full[n] <= box[n][1] for n in box) and all(holds(c, full) for c in world.meaning.values())

    if op == "solve":
        for res in (got, want):
            if res["status"] == "sat" and not is_point(res["model"]):
                fail("model is not a point of the problem")
    elif op == "evaluate":
        for i, q in enumerate(qs):
            vals = [v for v in (value(q, p) for p in pts) if v is not None]
            is_bool = _is_bool(q.text)
            for who, res in (("context", got), ("stateless", want)):
                row = res["queries"][i]
                if row.get("value") == "unknown" or row.get("exact") is False:
                    tally["undecided"] += 1
                    continue
                if not vals:
                    if row.get("value") is not None:
                        fail(f"{who} row {i} {q.text}: a value where the query is defined nowhere")
                    continue
                if is_bool:
                    truth = True if all(vals) else False if not any(vals) else "depends"
                    if row["value"] != truth:
                        fail(f"{who} row {i} {q.text}: {row['value']} where brute force says {truth}")
                    for side, t in (("when_true", True), ("when_false", False)):
                        if side in row:
                            m = {n: row[side].get(n, box[n][0]) for n in box}
                            if not is_point(m) or bool(value(q, m)) is not t:
                                fail(f"{who} row {i}: {side} {row[side]} is not a witness")
                    tally["bool"] += 1
                else:
                    lo, hi = min(vals), max(vals)
                    rng_ = (row["value"], row["value"]) if "value" in row else (row.get("min"), row.get("max"))
                    if rng_ != (lo, hi):
                        fail(f"{who} row {i} {q.text}: range {rng_} where brute force says {(lo, hi)}")
                    tally["int"] += 1
    elif op == "redundancy":
        asserts_only = World(world.doc, {k: v for k, v in world.meaning.items() if k.startswith("a")}, world.upper)
        base = asserts_only.points(default_min=dm)
        for who, res in (("context", got), ("stateless", want)):
            verdicts = {r["id"]: r["verdict"] for r in res["guards"]}
            for gid, v in verdicts.items():
                g = world.meaning[gid]
                if v == "always_true" and not all(holds(g, p) for p in base):
                    fail(f"{who}: {gid} always_true but fails somewhere")
            kept = [world.meaning[g] for g in res["minimal"]]
            reduced = [p for p in base if all(holds(c, p) for c in kept)]
            if sorted(tuple(p.values()) for p in reduced) != sorted(tuple(p.values()) for p in pts):
                fail(f"{who}: minimal {res['minimal']} is not equivalent to every guard")
        fixed = ("always_true", "always_false")
        if [(r["id"], r["verdict"]) for r in got["guards"] if r["verdict"] in fixed] != \
                [(r["id"], r["verdict"]) for r in want["guards"] if r["verdict"] in fixed]:
            fail("always_true/always_false verdicts differ")
    elif op == "shrink":
        for res in (got, want):
            if res["status"] == "sat" and not is_point(res["model"]):
                fail("shrink model is not a point")
        if got.get("optimal") and want.get("optimal") and got["objective_value"] != want["objective_value"]:
            fail("objective values differ")
        if (merged(w.doc, delta).get("options") or {}).get("preserve_distinct") is False and want.get("optimal") \
                and (got.get("objective", "sum") == "sum"):
            best = min(sum(abs(p[n]) for n in NAMES if n in p) for p in pts)
            if want["objective_value"] != best:
                fail(f"optimal objective {want['objective_value']} where brute force says {best}")
    elif op == "simplify":
        from symguard.solver import load_problem
        from symguard.solver.ir.pyeval import evaluate as py_eval

        for who, res in (("context", got), ("stateless", want)):
            for i, (row, q) in enumerate(zip(res["exprs"], qs)):
                if not row["proved"]:
                    continue
                form = load_problem({"queries": [row["form"]]}).queries[0].term
                for p in pts:
                    v = value(q, p)
                    if v is None:
                        continue
                    try:
                        fv = py_eval(form, p)
                    except ZeroDivisionError:
                        fv = None
                    if fv != v and not (isinstance(v, bool) and fv == v):
                        fail(f"{who} row {i}: form {row['form']} is {fv} at {p}, {q.text} is {v}")


# ------------------------------------------------------------------ the three ways

class InProcess:
    """Contexts as ``solver.Context`` objects."""

    name = "in-process"

    def __init__(self) -> None:
        from symguard.solver import Context

        self.Context = Context

    def register(self, doc: dict[str, Any]) -> Any:
        return self.Context(doc)

    def extend(self, ctx: Any, delta: dict[str, Any], rng: random.Random) -> Any:
        new = ctx.extend(delta)
        if rng.random() < 0.3:  # as a worker that never held it: re-read from its own document
            new = self.Context(new.document, key=new.key)
        return new

    def ask(self, ctx: Any, op: str, delta: dict[str, Any]) -> dict[str, Any]:
        return ctx.run(op, delta)  # type: ignore[no-any-return]


class OverHTTP:
    """Contexts over a server's HTTP API."""

    name = "http"

    def __init__(self, url: str) -> None:
        import httpx

        self.http = httpx.Client(base_url=url, timeout=120)

    def register(self, doc: dict[str, Any]) -> Any:
        r = self.http.post("/v1/contexts", json=doc)
        assert r.status_code == 200, r.text[:300]
        return r.json()["context"]

    def extend(self, key: Any, delta: dict[str, Any], rng: random.Random) -> Any:
        r = self.http.post("/v1/contexts", json={"context": key, **delta})
        assert r.status_code == 200, r.text[:300]
        return r.json()["context"]

    def ask(self, key: Any, op: str, delta: dict[str, Any]) -> dict[str, Any]:
        r = self.http.post(f"/v1/{op}", json={"context": key, **delta})
        assert r.status_code == 200, r.text[:300]
        return r.json()  # type: ignore[no-any-return]

    def close(self) -> None:
        self.http.close()


def run_case(seed: int, steps: int, way: Any, tally: Counter[str]) -> None:
    """One random problem and ``steps`` random steps; raises ``Disagreement`` on the first."""
    from symguard.solver import run

    rng = random.Random(seed)
    w = new_problem(rng)
    ctx = way.register(w.doc)
    for _ in range(steps):
        if rng.random() < 0.35:
            delta, meaning = extension(rng, w)
            ctx = way.extend(ctx, delta, rng)
            w = apply(w, delta, meaning)
            tally["extensions"] += 1
            continue
        op, delta, meaning, qs = question(rng, w)
        got = way.ask(ctx, op, delta)
        want = run(op, merged(w.doc, delta))
        try:
            check(op, got, want, w, delta, meaning, qs, tally)
        except Disagreement as e:
            raise Disagreement(f"seed {seed} ({way.name}): {e}") from None
        tally["questions"] += 1


@dataclass
class Report:
    way: str
    problems: int
    tally: Counter[str]
    disagreements: list[str]
    seconds: float


def campaign(seeds: Iterator[int] | range, steps: int, way: Any) -> Report:
    tally: Counter[str] = Counter()
    bad: list[str] = []
    t0 = time.perf_counter()
    n = 0
    for seed in seeds:
        n += 1
        try:
            run_case(seed, steps, way, tally)
        except Disagreement as e:
            bad.append(str(e))
    return Report(way.name, n, tally, bad, time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", type=int, default=300)
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--http", action="store_true", help="also over HTTP (a server on 127.0.0.1)")
    ap.add_argument("--http-problems", type=int, default=None)
    a = ap.parse_args(argv)
    reports = [campaign(range(a.seed, a.seed + a.problems), a.steps, InProcess())]
    if a.http:
        sys.path.insert(0, os.path.join(os.path.dirname(_HERE), "tests"))
        from service_helpers import running_server

        from symguard.service.settings import Settings

        n = a.http_problems if a.http_problems is not None else a.problems
        with running_server(Settings(workers=2)) as url:
            way = OverHTTP(url)
            try:
                reports.append(campaign(range(a.seed, a.seed + n), a.steps, way))
            finally:
                way.close()
    cols = ["questions", "extensions", "bool", "int", "evaluate", "solve", "redundancy", "shrink", "simplify",
            "undecided", "unknown"]
    print(f"{'way':<11} {'problems':>8} " + " ".join(f"{c:>10}" for c in cols) + f" {'disagree':>9} {'s':>7}")
    for r in reports:
        print(f"{r.way:<11} {r.problems:>8} " + " ".join(f"{r.tally[c]:>10}" for c in cols)
              + f" {len(r.disagreements):>9} {r.seconds:>7.1f}")
    for r in reports:
        for d in r.disagreements:
            print("\n" + d)
    return 1 if any(r.disagreements for r in reports) else 0


if __name__ == "__main__":
    raise SystemExit(main())
