"""Record compiler sessions: the order in which a ShapeEnv grows while ``torch.compile(dynamic=True)``
compiles a corpus model, and the static questions asked in between, with PyTorch's answers.

The corpus under ``smt2_corpus/sessions/`` is what a context-aware service (one context per
compilation, extended guard by guard) and a ShapeEnv oracle are measured against: replaying the
events in order, every ``question`` has to be answered from the guards and asserts before it, and
PyTorch's own answer (``null`` when it could not decide) is the baseline. Format:
``smt2_corpus/sessions/README.md``.

Each model runs in its own process (time-limited)::

    python tools/capture_sessions.py                       # every model, Inductor backend
    python tools/capture_sessions.py gpt2 unet --backend capture
    python tools/capture_sessions.py --cap 3000 --out smt2_corpus/sessions

``tools/capture_simplify.py --sessions`` writes the same files from its Inductor run (one compile
for both corpora).
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
DEFAULT_OUT = ROOT / "smt2_corpus" / "sessions"
DEFAULT_CAP = 3000


def session_doc(name: str, backend: str, rec: Any, initial_ranges: Any, cap: int, seconds: float) -> dict[str, Any]:
    """The session document of the ShapeEnv that saw the most events (the model's trace)."""
    from torch_recorders import main_env, parse_error, source_of

    from symguard.service import torch_bridge as tb

    key = main_env(rec.envs, {k: len(v) for k, v in rec.events.items()})
    if key is None:
        raise RuntimeError("no ShapeEnv was seen")
    env = rec.envs[key]
    ctx = tb.problem_from_shape_env(env, initial_ranges=initial_ranges)
    unparsed: Counter[str] = Counter()
    examples: dict[str, list[str]] = {}
    events: list[dict[str, Any]] = []
    dropped = 0
    for ev in rec.events.get(key, []):
        bad = parse_error(ev["expr"]) or (parse_error(ev["pytorch"]) if ev["pytorch"] is not None else None)
        if bad is not None:
            unparsed[bad] += 1
            if len(examples.setdefault(bad, [])) < 3:
                examples[bad].append(ev["expr"])
            continue
        if len(events) >= cap:
            dropped += 1
            continue
        events.append(ev)
    symbols = ctx["symbols"]
    kinds = Counter(ev["kind"] for ev in events)
    questions = [ev for ev in events if ev["kind"] == "question"]
    source = source_of(name, backend)
    source.update({
        "seconds": round(seconds, 1),
        "counts": {"events": len(events), **dict(sorted(kinds.items())),
                   "undecided": sum(ev["pytorch"] is None for ev in questions),
                   "question_us_total": round(sum(ev["us"] for ev in questions), 1)},
        "cap": cap, "truncated": dropped,
        "skipped": dict(sorted(rec.skipped.items())),
        "unparsed": dict(sorted(unparsed.items())),
        "unparsed_examples": dict(sorted(examples.items())),
        "other_shape_envs": len(rec.envs) - 1,
    })
    return {"source": source, "symbols": symbols, "events": events}


def _child(name: str, backend: str, out: Path, cap: int) -> int:
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "tools"))
    from torch_recorders import SessionRecorder, compile_model

    from symguard.service import torch_bridge as tb

    rec = SessionRecorder()
    with contextlib.ExitStack() as stack:
        _, run = compile_model(name, backend, stack)
        initial = stack.enter_context(tb.record_ranges())
        stack.enter_context(rec.installed())
        t0 = time.monotonic()
        run()
        seconds = time.monotonic() - t0
    doc = session_doc(name, backend, rec, initial, cap, seconds)
    write(out / f"{name}.json", doc)
    print(json.dumps({"file": f"{name}.json", **doc["source"]["counts"], "seconds": doc["source"]["seconds"]}))
    return 0


def write(path: Path, doc: dict[str, Any]) -> None:
    """One JSON file, one event (or expression) per line: reviewable diffs, modest size."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ["{"]
    keys = list(doc)
    for i, k in enumerate(keys):
        v = doc[k]
        sep = "," if i < len(keys) - 1 else ""
        if isinstance(v, list):
            body = ",\n".join(f"  {json.dumps(x, sort_keys=False)}" for x in v)
            lines.append(f" {json.dumps(k)}: [\n{body}\n ]{sep}" if v else f" {json.dumps(k)}: []{sep}")
        else:
            lines.append(f" {json.dumps(k)}: {json.dumps(v)}{sep}")
    lines.append("}")
    path.write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("only", nargs="*", help="model names (default: all of gen_corpus_models)")
    ap.add_argument("--backend", default="inductor", choices=("inductor", "capture"),
                    help="'capture' is service.torch_bridge.CaptureBackend (Dynamo only, no Inductor)")
    ap.add_argument("--out", default=str(DEFAULT_OUT))
    ap.add_argument("--cap", type=int, default=DEFAULT_CAP, help="events kept per model (the first ones)")
    ap.add_argument("--timeout", type=float, default=900, help="seconds per model")
    ap.add_argument("--child", metavar="MODEL", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    out = Path(a.out)
    if a.child:
        return _child(a.child, a.backend, out, a.cap)
    sys.path.insert(0, str(ROOT / "tools"))
    import gen_corpus_models
    from torch_recorders import run_children

    names = [n for n in gen_corpus_models.MODELS if not a.only or n in a.only]
    return run_children(__file__, names, ["--backend", a.backend, "--out", str(out), "--cap", str(a.cap)],
                        a.timeout)


if __name__ == "__main__":
    sys.exit(main())
