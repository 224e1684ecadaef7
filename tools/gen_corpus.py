"""Generate the PyTorch corpus: every model of ``gen_corpus_models`` traced with
``torch.export.export(strict=False, Dim.AUTO(min, max))`` and with ``torch.compile(dynamic=True,
fullgraph=True)`` and a capturing backend, each ShapeEnv written as a problem
``smt2_corpus/torch/<model>_<mode>.json`` (plus ``.smt2`` when ``solver.syntax.smtlib_script`` can export).

Needs the ``torch`` extra. Each (model, mode) runs in its own subprocess with a time limit, so a
model that hangs or crashes is skipped with the reason logged and the others still run::

    python tools/gen_corpus.py                 # all models, both modes
    python tools/gen_corpus.py swin:compile    # one
    python tools/gen_corpus.py --timeout 300 --out smt2_corpus/torch
    python tools/gen_corpus.py --smt2-only     # rewrite the .smt2 of every .json (no torch needed)
    python tools/gen_corpus.py --validation    # the held-out models, into smt2_corpus/validation
    python tools/gen_corpus.py --heldout --out DIR   # models kept out of the repository until measured
    python tools/gen_corpus.py swin:hook       # the problem the prune-guards hook asks (only when named)

The ``hook`` mode (never part of "all") compiles as a user does, ``torch.compile(dynamic=True)``
with graph breaks allowed, and writes the problem ``symguard.torch.prune_guards`` asks about the
frame (docs/torch_guards.md): the guards Dynamo would emit, as its ShapeEnv simplifies and prints
them, over the symbols bound to inputs.

Then ``python tools/corpus_manifest.py`` checks every problem with symguard and writes MANIFEST.json.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MODES = ("export", "compile")
NAMED_ONLY = ("hook",)


def trace_one(name: str, mode: str) -> dict[str, Any]:
    """Trace one model in one mode (in this process) and return its problem document."""
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "tools"))
    import torch
    from gen_corpus_models import HELDOUT, MODELS, VALIDATION

    from symguard.service import torch_bridge as tb
    from symguard.service.torch_hook import prune_guards

    desc, build, dims = {**MODELS, **VALIDATION, **HELDOUT}[name]
    torch.manual_seed(0)
    model, args = build()
    model.eval()
    how = {"export": "torch.export.export(strict=False) with Dim.AUTO(min, max)",
           "compile": "torch.compile(dynamic=True, fullgraph=True)",
           "hook": "torch.compile(dynamic=True), the problem symguard's prune-guards hook asks"}[mode]
    source = f"{name}: {desc} | torch {torch.__version__.split('+')[0]} CPU | {how}"
    if mode == "hook":
        with prune_guards(prune=False) as pruner, torch.no_grad():
            torch.compile(model, dynamic=True, backend="eager")(*args)
        asked = [h["problem"] for h in pruner.history if h.get("problem") and h["problem"]["guards"]]
        if not asked:
            raise SystemExit("the hook was asked about no guards")
        doc = max(asked, key=lambda d: len(d["guards"]))
        doc["meta"] = {"source": source}
    elif mode == "export":
        Dim = torch.export.Dim
        shapes = tuple({d: Dim.AUTO(min=lo, max=hi) for d, (lo, hi) in dims.get(i, {}).items()} or None
                       for i in range(len(args)))
        with torch.no_grad():
            doc = tb.capture_export(model, args, dynamic_shapes=shapes, source=source)
    else:
        # dynamo refuses nn.LSTM/GRU unless allowed ("Attempted to wrap RNN, GRU, or LSTM")
        with torch._dynamo.config.patch(allow_rnn=True):
            doc = tb.capture_compile(model, *args, source=source)
    doc["meta"]["example_shapes"] = [list(a.shape) for a in args]
    return doc


def _child(name: str, mode: str, out: Path) -> int:
    t0 = time.monotonic()
    doc = trace_one(name, mode)
    doc["meta"]["trace_seconds"] = round(time.monotonic() - t0, 1)
    path = out / f"{name}_{mode}.json"
    path.write_text(json.dumps(doc, indent=1) + "\n")
    _export_smt2(path)
    print(json.dumps({"file": path.name, "symbols": len(doc["symbols"]), "guards": len(doc["guards"]),
                      "asserts": len(doc["asserts"]), "seconds": doc["meta"]["trace_seconds"]}))
    return 0


def _export_smt2(path: Path) -> None:
    """The equivalent .smt2 through ``symguard export`` when the SMT-LIB printer exists."""
    try:
        from symguard.solver.syntax import smtlib_script as smtlib  # noqa: F401
    except ImportError:
        return
    from io import StringIO

    from symguard.service.cli import main
    buf = StringIO()
    if main(["export", str(path), "--to", "smt2"], buf) == 0:
        path.with_suffix(".smt2").write_text(buf.getvalue())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("only", nargs="*", help="model or model:mode (default: all)")
    ap.add_argument("--validation", action="store_true",
                    help="the held-out models (gen_corpus_models.VALIDATION), default out smt2_corpus/validation")
    ap.add_argument("--heldout", action="store_true",
                    help="gen_corpus_models.HELDOUT: captured outside the repository (needs --out)")
    ap.add_argument("--out", default=None, help="default smt2_corpus/torch (smt2_corpus/validation with --validation)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per model and mode")
    ap.add_argument("--smt2-only", action="store_true", help="only (re)write the .smt2 of every .json (no torch)")
    ap.add_argument("--child", nargs=2, metavar=("MODEL", "MODE"), help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.heldout and not a.out:
        ap.error("--heldout needs --out: held-out sets stay outside the repository until they are measured")
    out = Path(a.out or ROOT / "smt2_corpus" / ("validation" if a.validation else "torch"))
    out.mkdir(parents=True, exist_ok=True)
    if a.child:
        return _child(a.child[0], a.child[1], out)
    if a.smt2_only:
        for path in sorted(out.glob("*.json")):
            if path.name != "MANIFEST.json":
                _export_smt2(path)
        return 0
    sys.path.insert(0, str(ROOT / "tools"))
    import gen_corpus_models

    jobs = []
    models = (gen_corpus_models.HELDOUT if a.heldout else
              gen_corpus_models.VALIDATION if a.validation else gen_corpus_models.MODELS)
    for name in models:
        for mode in MODES + NAMED_ONLY:
            if f"{name}:{mode}" in a.only or (mode in MODES and (not a.only or name in a.only)):
                jobs.append((name, mode))
    if not jobs:
        which = "--heldout" if a.heldout else "--validation" if a.validation else "the tuning models"
        print(f"nothing to capture: no model of {which} matches {' '.join(a.only)} "
              f"(modes {', '.join(MODES + NAMED_ONLY)}; --validation and --heldout pick the other lists)",
              file=sys.stderr)
        return 2
    failed = 0
    for name, mode in jobs:
        t0 = time.monotonic()
        try:
            r = subprocess.run([sys.executable, __file__, "--child", name, mode, "--out", str(out)],
                               check=False, capture_output=True, text=True, timeout=a.timeout)
        except subprocess.TimeoutExpired:
            print(f"SKIP {name}:{mode}: no result within {a.timeout:.0f} s", flush=True)
            failed += 1
            continue
        if r.returncode != 0:
            lines = [ln for ln in r.stderr.strip().splitlines() if ln.strip() and not ln.startswith(" ")]
            print(f"SKIP {name}:{mode}: {' | '.join(lines[-3:])[:600]}", flush=True)
            failed += 1
            continue
        print(f"OK   {name}:{mode} {r.stdout.strip().splitlines()[-1]} ({time.monotonic() - t0:.0f} s wall)",
              flush=True)
    return 1 if failed == len(jobs) else 0


if __name__ == "__main__":
    sys.exit(main())
