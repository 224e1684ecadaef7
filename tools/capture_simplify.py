"""Record what Inductor simplifies: every size expression a corpus model's ``torch.compile(dynamic=True)``
with the Inductor backend (CPU) passes to ``SizeVarAllocator`` (``simplify``,
``simplify_with_ranges``, ``statically_known_*``, ``evaluate_*``/``guard_or_*``,
``combine_modular_indexing_pairs``) plus the loop bounds and index expressions of the generated C++
kernels, with PyTorch's answer, its time, and the ShapeEnv context.

The corpus under ``smt2_corpus/simplify/`` is the reference for symguard's ``simplify`` operation:
the same context and expression, and what PyTorch made of it. Format:
``smt2_corpus/simplify/README.md``.

Each model runs in its own process (time-limited)::

    python tools/capture_simplify.py                         # every model
    python tools/capture_simplify.py gpt2 unet --sessions    # also write smt2_corpus/sessions/<model>.json
    python tools/capture_simplify.py --cap 3000 --out smt2_corpus/simplify
    python tools/capture_simplify.py --families              # the generated families (families.json)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "smt2_corpus" / "simplify"
DEFAULT_CAP = 3000


def simplify_doc(name: str, rec: Any, initial_ranges: Any, cap: int, seconds: float) -> dict[str, Any]:
    """The problem of the ShapeEnv Inductor worked in: its context (symbols with the ranges before
    guards narrowed them, asserts, guards in the order added) and the distinct expressions."""
    from torch_recorders import main_env, parse_error, source_of

    from symguard.service import torch_bridge as tb

    key = main_env(rec.envs, Counter(r["env"] for r in rec.records))
    if key is None:
        raise RuntimeError("Inductor asked nothing about sizes")
    env = rec.envs[key]
    ctx = tb.problem_from_shape_env(env, initial_ranges=initial_ranges)
    asserts = list(ctx["asserts"])
    for mod in sorted((str(d) for d in env.divisible), key=str):
        fact = f"Eq({mod}, 0)"
        if fact not in asserts and parse_error(fact) is None:
            asserts.append(fact)
    # guards in the order PyTorch added them, deduplicated: a raw prefix length -> distinct prefix
    distinct_at: list[int] = [0]
    seen: set[str] = set()
    for g in env.guards:
        seen.add(str(g.expr))
        distinct_at.append(len(seen))
    unparsed: Counter[str] = Counter()
    examples: dict[str, list[str]] = {}
    rows: dict[tuple[str, str, str], dict[str, Any]] = {}
    for r in rec.records:
        if r["env"] != key:
            continue
        k = (r["method"], r["expr"], json.dumps(r["ranges"], sort_keys=True))
        if k in rows:
            rows[k]["calls"] += 1
            continue
        bad = parse_error(r["expr"], r["ranges"]) or parse_error(r["result"], r["ranges"])
        if bad is None:
            bad = next((e for e in (parse_error(b) for b in r["ranges"].values()) if e), None)
        if bad is not None:
            unparsed[bad] += 1
            if len(examples.setdefault(bad, [])) < 3:
                examples[bad].append(r["expr"])
            continue
        n = distinct_at[min(r["n_guards"], len(distinct_at) - 1)]
        row: dict[str, Any] = {"expr": r["expr"]}
        if r["ranges"]:
            row["ranges"] = r["ranges"]
        row.update({"guards_known": n, "calls": 1,
                    "pytorch": {"result": r["result"], "method": r["method"], "us": r["us"]}})
        rows[k] = row
    ordered = [rows[k] for k in sorted(rows)]
    per_method = Counter(row["pytorch"]["method"] for row in ordered)
    kept = _cap(ordered, cap)
    for i, row in enumerate(kept):
        row["id"] = f"e{i}"
    exprs = [{"id": row.pop("id"), **row} for row in kept]
    source = source_of(name, "inductor")
    source.update({
        "seconds": round(seconds, 1),
        "counts": {"exprs": len(exprs), "distinct": len(ordered), "calls": sum(r["calls"] for r in ordered),
                   "per_method": dict(sorted(per_method.items())),
                   "changed": sum(r["pytorch"]["result"] != r["expr"] for r in exprs)},
        "cap": cap, "truncated": len(ordered) - len(exprs),
        "skipped": dict(sorted(rec.skipped.items())),
        "unparsed": dict(sorted(unparsed.items())),
        "unparsed_examples": dict(sorted(examples.items())),
        "other_shape_envs": len(rec.envs) - 1,
    })
    return {"source": source, "symbols": ctx["symbols"], "asserts": asserts, "guards": ctx["guards"],
            "meta": ctx["meta"], "exprs": exprs}


# ------------------------------------------------------------------ generated families

# (name, hint) of the sizes of the generated families' context: distinct symbols (no duck sizing)
FAMILY_SIZES = [("p", 24), ("q", 24), ("r", 24), ("t", 48), ("h", 56), ("w", 63), ("m", 64), ("n", 40),
                ("u", 12), ("v", 20)]


def families_doc() -> dict[str, Any]:
    """The classes of issue 24 that the recorded models do not exercise — equality classes,
    divisibility, digit sums, comparisons of divisions, Min/Max, conjunctions — as generated
    families of one context, each expression asked of PyTorch's own ``SizeVarAllocator``
    (``simplify``, or ``simplify_with_ranges`` with loop variables) on a ``ShapeEnv`` that holds
    the guards (its replacements and divisibility facts), with PyTorch's answer and time. The
    corpus format of the recorded models (smt2_corpus/simplify/README.md)."""
    import sympy
    from torch._dynamo.source import ConstantSource
    from torch._inductor.sizevars import SizeVarAllocator
    from torch.fx.experimental.symbolic_shapes import ShapeEnv
    from torch.utils._sympy.functions import CeilDiv, FloorDiv, Mod, ModularIndexing

    env = ShapeEnv(duck_shape=False)
    S = {k: env.create_symbol(h, ConstantSource(k)) for k, h in FAMILY_SIZES}
    p, q, r, t, h, w, m, n, u, v = (S[k] for k, _ in FAMILY_SIZES)
    for g in (sympy.Eq(p, q), sympy.Eq(q, r), sympy.Eq(t, 2 * p), sympy.Eq(Mod(h, 7), 0), sympy.Eq(Mod(w, 7), 0),
              sympy.Eq(Mod(m, 8), 0), sympy.Eq(Mod(n, 8), 0)):
        env.evaluate_expr(g)
    sv = SizeVarAllocator(env)
    x0, x1 = (sympy.Symbol(f"x{i}", integer=True, nonnegative=True) for i in range(2))
    asks: list[tuple[Any, dict[Any, Any]]] = []
    # equality classes
    asks += [(p - q, {}), (p + q - 2 * r, {}), (FloorDiv(t, 2) - p, {}), (sympy.Max(p, q) * q - p**2, {})]
    for k in (1, 2, 3):
        asks += [(k * p - k * q + r, {}), (FloorDiv(t + 2 * k, 2) - q, {}), (sympy.Max(p, r) + k, {})]
    # divisibility
    for s, d in ((m, 8), (n, 8), (h, 7), (w, 7)):
        for rr in (1, 3, d - 1):
            asks += [(FloorDiv(s + rr, d) * d, {}), (Mod(s + rr, d), {})]
        asks.append((CeilDiv(s, d) * d - s, {}))
    asks += [(FloorDiv(h * w, 49) - FloorDiv(h, 7) * FloorDiv(w, 7), {}), (49 * FloorDiv(h * w, 49), {}),
             (Mod(h * w + 50, 49), {}), (FloorDiv(m * n, 64) - FloorDiv(m, 8) * FloorDiv(n, 8), {})]
    # digit sums of a loop variable (index algebra)
    big = {x0: 64 * u}
    for a, b in ((4, 32), (2, 16), (8, 64), (1, 8)):
        asks.append((ModularIndexing(x0, a, b // a) + (b // a) * FloorDiv(x0, b), big))
    asks += [(FloorDiv(ModularIndexing(x0, 1, 64), 8), big), (FloorDiv(ModularIndexing(x0, 2, 32), 4), big),
             (Mod(x0, 4) + 4 * ModularIndexing(x0, 4, 8) + 32 * FloorDiv(x0, 32), big),
             (3 * ModularIndexing(x0, 2, 3) + 9 * ModularIndexing(x0, 6, 5) + 45 * FloorDiv(x0, 30), big)]
    # comparisons of divisions, quotient pairs, residues
    for k in (3, 5):
        asks += [(sympy.Lt(FloorDiv(x0, 2), k), big), (sympy.Lt(8 * x0 + x1, 8 * k), {x0: 64 * u, x1: 8})]
    asks += [(FloorDiv(x0 + 1, 2) - FloorDiv(x0, 2), big), (FloorDiv(8 * x0 + 7, 16), big),
             (Mod(x0 - Mod(x0, u), u), big), (FloorDiv(x0 + 3, 2) - FloorDiv(x0, 2), big)]
    # Min / Max and conjunctions
    asks += [(sympy.Max(u, v) + sympy.Min(u, v), {}), (sympy.Min(u, v) * sympy.Max(u, v), {}),
             (sympy.Max(u + 1, v + 1), {}), (sympy.Max(u, sympy.Min(u, v)), {}),
             (sympy.And(sympy.Eq(x0, 1), sympy.Ne(x0, 2)), big),
             (sympy.And(sympy.Eq(FloorDiv(x0, 8), 3), sympy.Eq(Mod(x0, 8), 4)), big)]
    rows: dict[tuple[str, str, str], dict[str, Any]] = {}
    for e, ranges in asks:
        t0 = time.perf_counter()
        try:
            out, method = (sv.simplify_with_ranges(e, ranges), "simplify_with_ranges") if ranges else (sv.simplify(e), "simplify")
        except Exception:
            if not isinstance(e, sympy.And):
                raise
            out, method = sympy.And(*(sv.simplify_with_ranges(a, ranges) for a in e.args)), "simplify_with_ranges"
        us = (time.perf_counter() - t0) * 1e6
        rng = {str(k): str(b) for k, b in ranges.items()}
        row: dict[str, Any] = {"expr": str(e)}
        if rng:
            row["ranges"] = rng
        row.update({"guards_known": len(env.guards), "calls": 1,
                    "pytorch": {"result": str(out), "method": method, "us": round(us, 1)}})
        rows.setdefault((method, str(e), json.dumps(rng, sort_keys=True)), row)
    exprs = [{"id": f"e{i}", **rows[k]} for i, k in enumerate(sorted(rows))]
    names = {str(S[k]): k for k, _ in FAMILY_SIZES}
    symbols = {str(S[k]): {"min": 2, "hint": hint} for k, hint in FAMILY_SIZES}
    guards = list(dict.fromkeys(str(g.expr) for g in env.guards))
    asserts = [f"Eq({d}, 0)" for d in sorted(str(x) for x in env.divisible) if f"Eq({d}, 0)" not in guards]
    import torch

    return {"source": {"model": "families", "generated": True, "torch": torch.__version__,
                       "how": "generated families of issue 24's classes, each asked of PyTorch's SizeVarAllocator "
                              "on a ShapeEnv holding the guards (tools/capture_simplify.py --families)",
                       "names": names, "seconds": 0.0,
                       "counts": {"exprs": len(exprs), "distinct": len(exprs), "calls": len(exprs),
                                  "changed": sum(r["pytorch"]["result"] != r["expr"] for r in exprs)}},
            "symbols": symbols, "asserts": asserts, "guards": guards, "exprs": exprs}


def _cap(rows: list[dict[str, Any]], cap: int) -> list[dict[str, Any]]:
    """At most ``cap`` rows, shared fairly between methods (a method with fewer rows than its share
    keeps them all), each method's rows in sorted order: deterministic and no method crowded out."""
    if len(rows) <= cap:
        return rows
    by: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by.setdefault(row["pytorch"]["method"], []).append(row)
    quota: dict[str, int] = {}
    left, methods = cap, sorted(by, key=lambda m: len(by[m]))
    for i, m in enumerate(methods):
        quota[m] = min(len(by[m]), left // (len(methods) - i))
        left -= quota[m]
    keep = {id(row) for m in by for row in by[m][:quota[m]]}
    return [row for row in rows if id(row) in keep]


def _child(name: str, out: Path, cap: int, sessions: Path | None, session_cap: int) -> int:
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "tools"))
    from capture_sessions import session_doc
    from capture_sessions import write as write_doc
    from torch_recorders import SessionRecorder, SimplifyRecorder, compile_model

    from symguard.service import torch_bridge as tb

    rec, sess = SimplifyRecorder(), SessionRecorder()
    with contextlib.ExitStack() as stack:
        _, run = compile_model(name, "inductor", stack)
        initial = stack.enter_context(tb.record_ranges())
        stack.enter_context(rec.installed())
        if sessions is not None:
            stack.enter_context(sess.installed())
        t0 = time.monotonic()
        run()
        seconds = time.monotonic() - t0
    doc = simplify_doc(name, rec, initial, cap, seconds)
    write_doc(out / f"{name}.json", doc)
    info: dict[str, Any] = {"file": f"{name}.json", **doc["source"]["counts"], "seconds": doc["source"]["seconds"]}
    if sessions is not None:
        sdoc = session_doc(name, "inductor", sess, initial, session_cap, seconds)
        write_doc(sessions / f"{name}.json", sdoc)
        info["session"] = sdoc["source"]["counts"]
    print(json.dumps(info))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("only", nargs="*", help="model names (default: all of gen_corpus_models)")
    ap.add_argument("--out", default=str(DEFAULT_OUT))
    ap.add_argument("--cap", type=int, default=DEFAULT_CAP, help="distinct expressions kept per model")
    ap.add_argument("--sessions", nargs="?", const=str(ROOT / "smt2_corpus" / "sessions"), default=None,
                    metavar="DIR", help="also write the session of the same run (capture_sessions.py format)")
    ap.add_argument("--session-cap", type=int, default=3000)
    ap.add_argument("--timeout", type=float, default=900, help="seconds per model")
    ap.add_argument("--child", metavar="MODEL", help=argparse.SUPPRESS)
    ap.add_argument("--families", action="store_true", help="write the generated families (families.json) only")
    a = ap.parse_args(argv)
    out = Path(a.out)
    if a.families:
        sys.path.insert(0, str(ROOT / "tools"))
        from capture_sessions import write as write_doc

        doc = families_doc()
        write_doc(out / "families.json", doc)
        print(json.dumps({"file": "families.json", **doc["source"]["counts"]}))
        return 0
    sessions = Path(a.sessions) if a.sessions else None
    if a.child:
        return _child(a.child, out, a.cap, sessions, a.session_cap)
    sys.path.insert(0, str(ROOT / "tools"))
    import gen_corpus_models
    from torch_recorders import run_children

    names = [n for n in gen_corpus_models.MODELS if not a.only or n in a.only]
    extra = ["--out", str(out), "--cap", str(a.cap), "--session-cap", str(a.session_cap)]
    if sessions is not None:
        extra += ["--sessions", str(sessions)]
    return run_children(__file__, names, extra, a.timeout)


if __name__ == "__main__":
    sys.exit(main())
