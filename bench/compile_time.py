"""Compile time of ``torch.compile(dynamic=True)``: stock against symguard's switch, on zoo models.

Every compile runs in a fresh subprocess (imports, sympy's caches and Dynamo's state start cold),
with its own ``TORCHINDUCTOR_CACHE_DIR``: ``inductor-cold`` in an empty one, ``inductor-warm`` in
the one its variant's cold compile just filled. The variants of one (model, mode) are measured
back to back, their order alternating between repeats, so a busy machine slows both alike. Each
child reports wall and CPU seconds of the first call (the compile) and a digest of the shape
guards Dynamo emitted, so the table also says whether the switch changed any guard.

Variants: ``stock``; ``fast`` (``fast_trace`` only: ``prune_guards(prune=False)``, which observes
the guards and changes none); ``symguard`` (the whole switch, ``prune_guards()``: pruning too).

    PYTHONPATH=. python bench/compile_time.py --models swin_window,reshape_heads --modes eager
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "examples" / "models"
DEFAULT_MODELS = "swin_hf,swin_window,swinv2_hf,vit_patchify,reshape_heads,cnn_strided"
VARIANTS = ("stock", "fast", "symguard")
MODES = ("eager", "inductor-cold", "inductor-warm")


def child(spec_path: str, variant: str, backend: str) -> dict[str, Any]:
    """One compile in this (fresh) process: seconds, CPU seconds, guard digest."""
    import torch

    from symguard.service import torch_fast
    from symguard.service.cli.shrink_model import load_spec
    from symguard.service.torch_hook import prune_guards

    spec = load_spec(spec_path)
    torch.manual_seed(spec.seed)
    model = spec.module.build_model().eval()
    args = spec.module.example_inputs()
    with contextlib.ExitStack() as stack:
        if variant != "stock":
            pruner = stack.enter_context(prune_guards(prune=variant == "symguard", fast_trace=True))
        else:  # observe only, fast trace off: Dynamo's own guards, recorded for the digest
            pruner = stack.enter_context(prune_guards(prune=False, fast_trace=False))
        stack.enter_context(torch.no_grad())
        compiled = torch.compile(model, dynamic=True, backend=backend)
        t0, c0 = time.perf_counter(), time.process_time()
        compiled(*args)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        stats = torch_fast.stats() if variant != "stock" else {}
    # stock and fast only observe: the observing hook's own time is no part of their compile
    hook = sum(float(h.get("seconds") or 0.0) for h in pruner.history) if variant != "symguard" else 0.0
    verbose = [line for h in pruner.history for line in (h.get("verbose") or [])]
    return {"wall_s": wall - hook, "cpu_s": cpu - hook, "guards": len(verbose),
            "digest": hashlib.sha256("\n".join(verbose).encode()).hexdigest()[:12],
            "memo": {k: v for k, v in stats.items() if k.endswith("_hit")}}


def differential(name: str, shapes: int, seed: int = 0) -> dict[str, Any]:
    """Stock against ``fast_trace`` alone: guard verdicts and outputs on ``shapes`` shapes."""
    from symguard.service import torch_fast
    from symguard.service.cli import prune_guards as pg
    from symguard.service.cli.shrink_model import load_spec

    target = pg.target_from_spec(load_spec(MODELS / f"{name}.py"))
    stock = pg.compile_target(target, prune=False, backend="eager", fast_trace=False)
    fast = pg.compile_target(target, prune=False, backend="eager", fast_trace=True)
    same = [h.get("verbose") for h in stock.history] == [h.get("verbose") for h in fast.history]
    out = pg.differential(target, shapes=shapes, seed=seed, stock=stock, pruned=fast, backend="eager")
    return {"model": name, "same_guard_text": same, "shapes": out["shapes"], "disagreements": out["disagreements"],
            "examples": out["examples"], "compile_s": {"stock": round(stock.compile_s, 1),
                                                      "fast": round(fast.compile_s, 1)},
            "fast_trace_error": torch_fast.error()}


def run_child(spec: Path, variant: str, mode: str, cache_dir: str, timeout_s: float) -> dict[str, Any]:
    backend = "eager" if mode == "eager" else "inductor"
    env = {k: v for k, v in os.environ.items() if k != "TORCH_LOGS"}
    env.update({"TORCHINDUCTOR_CACHE_DIR": cache_dir, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"})
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", str(spec), variant, backend]
    try:
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout_s:.0f} s"}
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
    if out.returncode != 0 or not lines:
        return {"error": (out.stderr.strip().splitlines() or ["no output"])[-1][:200]}
    return dict(json.loads(lines[-1]))


def measure(models: list[str], modes: list[str], variants: list[str], repeats: int,
            timeout_s: float) -> list[dict[str, Any]]:
    rows = []
    for name in models:
        spec = MODELS / f"{name}.py"
        for mode in [m for m in modes if m != "inductor-warm"]:
            runs: dict[str, list[dict[str, Any]]] = {v: [] for v in variants}
            warm: dict[str, list[dict[str, Any]]] = {v: [] for v in variants}
            for rep in range(repeats):
                order = variants if rep % 2 == 0 else variants[::-1]
                for v in order:
                    with tempfile.TemporaryDirectory(prefix="symguard-inductor-") as cache:
                        r = run_child(spec, v, mode, cache, timeout_s)
                        runs[v].append(r)
                        print(f"  {name} {mode} {v}: {_short(r)}", file=sys.stderr, flush=True)
                        if mode == "inductor-cold" and "inductor-warm" in modes and "error" not in r:
                            w = run_child(spec, v, "inductor-warm", cache, timeout_s)
                            warm[v].append(w)
                            print(f"  {name} inductor-warm {v}: {_short(w)}", file=sys.stderr, flush=True)
            rows.append(_row(name, mode, runs))
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
            if any(warm.values()):
                rows.append(_row(name, "inductor-warm", warm))
                print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    return rows


def _short(r: dict[str, Any]) -> str:
    return r["error"] if "error" in r else f"{r['wall_s']:.1f} s wall, {r['cpu_s']:.1f} s cpu, {r['guards']} guards"


def _row(name: str, mode: str, runs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    row: dict[str, Any] = {"model": name, "mode": mode}
    for v, rs in runs.items():
        ok = [r for r in rs if "error" not in r]
        row[v] = ({"wall_s": round(statistics.median(r["wall_s"] for r in ok), 2),
                   "cpu_s": round(statistics.median(r["cpu_s"] for r in ok), 2),
                   "guards": ok[0]["guards"], "digest": ok[0]["digest"], "n": len(ok)}
                  if ok else {"error": rs[0].get("error") if rs else "not run"})
    return row


def table(rows: list[dict[str, Any]], variants: list[str]) -> str:
    others = [v for v in variants if v != "stock"]
    head = ["model", "mode", "stock wall / cpu s"] + [f"{v} wall / cpu s" for v in others] + \
        [f"{v} speedup (cpu)" for v in others] + ["same guards"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        s = r.get("stock", {})
        cells = [r["model"], r["mode"], _cell(s)]
        cells += [_cell(r.get(v, {})) for v in others]
        for v in others:
            o = r.get(v, {})
            cells.append(f"{s['cpu_s'] / o['cpu_s']:.2f}x" if "cpu_s" in s and o.get("cpu_s") else "-")
        fast = r.get("fast", {})
        cells.append(("yes" if fast.get("digest") == s.get("digest") else "NO") if "digest" in fast else "-")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _cell(c: dict[str, Any]) -> str:
    return c["error"] if "error" in c else f"{c['wall_s']:.1f} / {c['cpu_s']:.1f}" if c else "-"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--models", default=DEFAULT_MODELS, help="comma-separated names in examples/models")
    p.add_argument("--modes", default=",".join(MODES), help=f"comma-separated, of {', '.join(MODES)}")
    p.add_argument("--inductor-models", default=None,
                   help="models to run the inductor modes on (default: all of --models)")
    p.add_argument("--variants", default=",".join(VARIANTS))
    p.add_argument("--inductor-variants", default=None, help="variants for the inductor modes (default: --variants)")
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--timeout", type=float, default=1800.0, help="seconds per compile")
    p.add_argument("--json", default=None, help="also write the rows to this file")
    p.add_argument("--differential", type=int, default=0, metavar="N",
                   help="instead: compare stock and fast_trace on N shapes per model (guard verdicts, outputs)")
    p.add_argument("--child", nargs=3, metavar=("SPEC", "VARIANT", "BACKEND"), help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        print(json.dumps(child(*a.child)))
        return 0
    models = a.models.split(",")
    if a.differential:
        for name in models:
            print(json.dumps(differential(name, a.differential)), flush=True)
        return 0
    modes = a.modes.split(",")
    variants = a.variants.split(",")
    ind = a.inductor_models.split(",") if a.inductor_models is not None else models
    rows = measure(models, [m for m in modes if m == "eager"], variants, a.repeats, a.timeout)
    ind_modes = [m for m in modes if m != "eager"]
    if ind_modes:
        ind_variants = a.inductor_variants.split(",") if a.inductor_variants else variants
        rows += measure([m for m in models if m in ind], ind_modes, ind_variants, a.repeats, a.timeout)
    print(table(rows, variants))
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
