"""Faster guards in torch.compile: Dynamo's per-call guard check, stock vs symguard's minimal shape guards.

    python bench/torch_guards.py [NAME …] [--shapes 1000] [--backend inductor|eager] [--out FILE.jsonl]

For every model that compiles dynamically -- the model specs ``examples/models/*.py`` and the
corpus models of ``tools/gen_corpus_models.py`` (``corpus:NAME``) -- this runs the
``symguard prune-guards`` differential (service/cli/prune_guards.py): compile stock and pruned
with ``torch.compile(dynamic=True)``, ``--shapes`` shapes accepted and rejected by stock (the
verdicts must agree, the outputs where accepted must match), and the per-call cost of the whole
guard check and of the shape-guard part alone, stock and pruned timed in alternating rounds on
the same inputs (medians). ``--warmup`` compiles each model once first (discarded): the first
compile in a process pays for lazy imports and caches, which would make the second look cheap
and symguard's share of it large. It prints one table row per model (ratios stock/pruned, the time
in the hook, and what pruning adds to the compile -- the hook plus Dynamo's guard production on the
pruned list minus Dynamo's on the stock list -- with its share of the stock compile) and writes
each JSON line to ``--out``; a model that fails to
compile is a row saying so, never a stop. Exit 1 on any disagreement. Figures: BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from symguard.service.cli.prune_guards import (
    Compiled,
    Target,
    compile_target,
    differential,
    random_inputs,
    target_from_spec,
)
from symguard.service.cli.shrink_model import load_spec


def spec_targets() -> dict[str, Callable[[], Target]]:
    """``examples/models/*.py`` by NAME (a spec whose REQUIRES are missing is left out)."""
    import importlib.util

    out: dict[str, Callable[[], Target]] = {}
    for path in sorted((ROOT / "examples" / "models").glob("*.py")):
        spec = load_spec(path)
        if all(importlib.util.find_spec(m) is not None for m in spec.requires):
            out[spec.name] = lambda spec=spec: target_from_spec(spec)
    return out


def corpus_targets() -> dict[str, Callable[[], Target]]:
    """``tools/gen_corpus_models.py``'s models as ``corpus:NAME`` (their ``dims`` are the ranges)."""
    sys.path.insert(0, str(ROOT / "tools"))
    import torch
    from gen_corpus_models import MODELS, VALIDATION

    def build(name: str, make: Any, dims: dict[int, dict[int, tuple[int, int]]]) -> Target:
        torch.manual_seed(0)
        model, args = make()
        model.eval()
        extra = {"capture_scalar_outputs": True, "capture_dynamic_output_shape_ops": True} \
            if name == "data_dependent" else {}
        return Target(f"corpus:{name}", model, tuple(args), dims, lambda s: random_inputs(tuple(args), s),
                      dynamo_config=extra)

    return {f"corpus:{n}": (lambda n=n, e=e: build(n, e[1], e[2])) for n, e in {**MODELS, **VALIDATION}.items()}


def row(out: dict[str, Any]) -> list[str]:
    c, s, g, k = out["check_us"], out.get("shape_check_us") or {}, out["guards"], out["compile_s"]
    return [out["model"], f"{g['stock']} → {g['pruned']}", f"{c['stock']:.1f}", f"{c['pruned']:.1f}",
            f"{c['ratio']:.1f}x" if c.get("ratio") else "-",
            f"{s['stock']:.1f} → {s['pruned']:.1f} ({s['ratio']:.1f}x)" if s.get("ratio") else "-",
            f"{out['shapes']['accepted']}/{out['shapes']['rejected']}", str(out["disagreements"]),
            f"{k['stock']:.1f}", f"{k['symguard']:.2f}",
            f"{k['added']:.2f} ({100 * (k.get('added_share') or 0):.1f}%)"]


HEAD = ["model", "shape guards", "check µs stock", "pruned", "ratio", "shape part µs", "acc/rej", "disagree",
        "compile s", "hook s", "added s (share)"]


# ------------------------------------------------------------------ --parts: where the shape-guard time goes

@contextlib.contextmanager
def captured_lambdas() -> Iterator[list[tuple[list[str], list[str], dict[str, Any]]]]:
    """Record the code parts and closure of every Python lambda guard Dynamo installs meanwhile."""
    from torch._dynamo import guards

    seen: list[tuple[list[str], list[str], dict[str, Any]]] = []
    orig = guards.GuardBuilder.add_python_lambda_leaf_guard_to_root

    def wrap(self: Any, code_parts: list[str], verbose: list[str], closure_vars: Any = None,
             is_epilogue: bool = True) -> Any:
        seen.append((list(code_parts), list(verbose), dict(closure_vars or {})))
        return orig(self, code_parts, verbose, closure_vars, is_epilogue)

    guards.GuardBuilder.add_python_lambda_leaf_guard_to_root = wrap  # type: ignore[method-assign,assignment]
    try:
        yield seen
    finally:
        guards.GuardBuilder.add_python_lambda_leaf_guard_to_root = orig  # type: ignore[method-assign]


_SOURCE = r"L\[\S+"  # a guard source: no spaces (L['x'].size()[2], L['m']._modules['norm'].eps)


def classify(lines: list[str]) -> list[str]:
    """The part of produce_guards_verbose each line comes from (docs/torch_guards.md): it emits
    ``source == expr`` input equalities first, the guards, then range checks, then NaN and
    exclusion checks; read by position and shape (a guard ``Eq(s, e)`` printed first would count as
    an input equality)."""
    kinds = ["guard"] * len(lines)
    i = 0
    while i < len(lines) and re.match(_SOURCE + " == ", lines[i]):
        kinds[i] = "input equality"
        i += 1
    j = len(lines) - 1
    while j >= i:
        if lines[j].startswith("not math.isnan") or lines[j].startswith("("):
            kinds[j] = "nan/exclusion" if lines[j].startswith("not math.isnan") else kinds[j]
            if kinds[j] == "guard":
                break
        elif re.fullmatch(r"(-?\d+ <= )?" + _SOURCE + r"( <= -?\d+)?", lines[j]):
            kinds[j] = "range"
        else:
            break
        j -= 1
    return kinds


def _per_call_us(fn: Callable[[Any], Any], local: Any, calls: int = 200, rounds: int = 9) -> float:
    per = []
    for _ in range(rounds):
        t0 = time.perf_counter_ns()
        for _ in range(calls):
            fn(local)
        per.append((time.perf_counter_ns() - t0) / calls / 1000)
    return statistics.median(per)


def _lambda(code_parts: list[str], closure: dict[str, Any]) -> Callable[[Any], Any]:
    """The guard function Dynamo builds from ``code_parts`` (its own builder, with its CSE)."""
    from torch._dynamo import guards

    _, pycode = guards.build_guard_function(code_parts or ["True"], ", ".join(closure))
    out: dict[str, Any] = {}
    exec(pycode, {"G": {}}, out)  # noqa: S102 - Dynamo's own generated guard code
    return out["___make_guard_fn"](*closure.values())  # type: ignore[no-any-return]


def parts_table(target: Target, compiled: dict[str, tuple[Compiled, Any]]) -> list[str]:
    """Markdown lines: per part of the shape-guard lambda, its lines and cost alone, stock and pruned
    (timed alternately), then the costliest pruned lines."""
    import torch

    costly: list[tuple[float, str, str]] = []
    built: dict[str, dict[str, Callable[[Any], Any]]] = {}
    counts: dict[str, dict[str, int]] = {}
    times: dict[tuple[str, str], list[float]] = {}
    with torch.no_grad():
        local = compiled["stock"][0].locals_for(target.model, target.example)
        for mode, (_, (code, _verbose, closure)) in compiled.items():
            kinds = classify(code)
            built[mode], counts[mode] = {"whole": _lambda(code, closure)}, {"whole": len(code)}
            for k in dict.fromkeys(kinds):
                sub = [c for c, kk in zip(code, kinds) if kk == k]
                built[mode][k], counts[mode][k] = _lambda(sub, closure), len(sub)
            if mode == "pruned":
                empty = _per_call_us(_lambda(["True"], closure), local)
                costly = sorted(((_per_call_us(_lambda([c], closure), local, rounds=5) - empty, k, c)
                                 for c, k in zip(code, kinds)), reverse=True)[:4]
        for k in dict.fromkeys([*built["stock"], *built["pruned"]]):
            for _ in range(3):  # stock and pruned alternately, median of three
                for mode in ("stock", "pruned"):
                    if k in built[mode]:
                        times.setdefault((k, mode), []).append(_per_call_us(built[mode][k], local))
    out = [f"{target.name}: part | lines stock | µs alone | lines pruned | µs alone"]
    for k in dict.fromkeys([*built["stock"], *built["pruned"]]):
        cells = []
        for mode in ("stock", "pruned"):
            t = times.get((k, mode))
            cells += [str(counts[mode].get(k, 0)), f"{statistics.median(t):.2f}" if t else "-"]
        out.append(f"  {k} | " + " | ".join(cells))
    for c, k, code in costly:
        out.append(f"  costliest pruned line: {c:.2f} µs ({k}, {len(code)} chars): {code[:100]}")
    return out


def compile_with_parts(target: Target, backend: str, timeout_ms: int) -> dict[str, tuple[Compiled, Any]]:
    """Stock and pruned compiles with the code of their shape-guard lambdas."""
    out: dict[str, tuple[Compiled, Any]] = {}
    for mode in ("stock", "pruned"):
        with captured_lambdas() as seen:
            c = compile_target(target, prune=mode == "pruned", backend=backend, timeout_ms=timeout_ms)
        want = [h.get("verbose") for h in c.history if h.get("verbose")]
        lam = [x for x in seen if want and x[1] == want[-1]]
        if not lam:
            raise RuntimeError("no Python shape-guard lambda (C++ shape guards?)")
        out[mode] = (c, lam[-1])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="*", help="spec NAMEs and corpus:NAMEs (default: all)")
    ap.add_argument("--shapes", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--backend", default="inductor")
    ap.add_argument("--timeout-ms", type=int, default=60_000)
    ap.add_argument("--out", type=Path, help="append each model's JSON line here")
    ap.add_argument("--warmup", action="store_true",
                    help="compile each model once before (discarded), so stock and pruned compile equally warm "
                    "and symguard's share is against a like-for-like compile")
    ap.add_argument("--parts", action="store_true",
                    help="also print, per model, the shape-guard lambda split by part (input equalities, guards, "
                    "ranges, NaN/exclusion): lines and cost alone, stock and pruned, and the costliest pruned lines")
    args = ap.parse_args(argv)
    targets = {**spec_targets(), **corpus_targets()}
    names = args.names or list(targets)
    unknown = [n for n in names if n not in targets]
    if unknown:
        ap.error(f"unknown models: {unknown}; known: {sorted(targets)}")
    print("| " + " | ".join(HEAD) + " |\n|" + "---|" * len(HEAD), flush=True)
    bad = 0
    parts: list[str] = []
    for name in names:
        t0 = time.perf_counter()
        try:
            target = targets[name]()
            if args.warmup:
                compile_target(target, prune=False, backend=args.backend)
            both = compile_with_parts(target, args.backend, args.timeout_ms) if args.parts else None
            out = differential(target, shapes=args.shapes, seed=args.seed, backend=args.backend,
                               timeout_ms=args.timeout_ms, progress=sys.stderr.isatty(),
                               stock=both["stock"][0] if both else None, pruned=both["pruned"][0] if both else None)
            if both:
                parts.extend(parts_table(target, both))
        except Exception as e:  # noqa: BLE001 - a model that does not compile is a row, not a stop
            print(f"| {name} | does not compile dynamically: {type(e).__name__}: {str(e).splitlines()[0][:120]} |",
                  flush=True)
            continue
        out["wall_s"] = round(time.perf_counter() - t0, 1)
        bad += out["disagreements"]
        print("| " + " | ".join(row(out)) + " |", flush=True)
        if args.out:
            with args.out.open("a", encoding="utf-8") as f:
                f.write(json.dumps(out) + "\n")
    if parts:
        print("\n" + "\n".join(parts), flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
