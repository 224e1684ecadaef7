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

    from service import torch_bridge as tb

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

    from service import torch_bridge as tb

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
    a = ap.parse_args(argv)
    out = Path(a.out)
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
