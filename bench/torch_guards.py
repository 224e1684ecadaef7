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
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from service.cli.prune_guards import Target, compile_target, differential, random_inputs, target_from_spec
from service.cli.shrink_model import load_spec


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
    args = ap.parse_args(argv)
    targets = {**spec_targets(), **corpus_targets()}
    names = args.names or list(targets)
    unknown = [n for n in names if n not in targets]
    if unknown:
        ap.error(f"unknown models: {unknown}; known: {sorted(targets)}")
    print("| " + " | ".join(HEAD) + " |\n|" + "---|" * len(HEAD), flush=True)
    bad = 0
    for name in names:
        t0 = time.perf_counter()
        try:
            target = targets[name]()
            if args.warmup:
                compile_target(target, prune=False, backend=args.backend)
            out = differential(target, shapes=args.shapes, seed=args.seed, backend=args.backend,
                               timeout_ms=args.timeout_ms, progress=sys.stderr.isatty())
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
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
