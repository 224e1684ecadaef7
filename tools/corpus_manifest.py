"""Check every problem of the PyTorch corpus with symguard and write ``MANIFEST.json``.

Per file: counts (symbols, guards, asserts, unbacked symbols), whether every entry parses, whether
the hints (the traced sizes) satisfy every assert and guard (Python integers, ``solver.ir.pyeval``),
the ``solve`` status, the ``redundancy`` verdict counts and minimal size, and how long redundancy
took (``tests/test_corpus_torch.py`` uses it to mark slow instances). A problem symguard rejects
as a whole (a construct the parser does not read) gets ``parse_error`` and the rest of its entry
from a run with ``on_unsupported: "skip"`` (those guards count as ``unsupported``). No torch needed::

    python tools/corpus_manifest.py [DIR] [--all]   # default smt2_corpus/torch; --all: re-check
                                                    # unchanged files too (after a solver change)
    python tools/corpus_manifest.py smt2_corpus/validation
"""

from __future__ import annotations

import collections
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from symguard.solver import BadInput, load_problem, run
from symguard.solver.ir.pyeval import holds

TIMEOUT_MS = 60_000


def problem_of(path: Path) -> dict[str, Any]:
    """The problem of a corpus file, with a generous budget so verdicts are final."""
    doc = json.loads(path.read_text())
    doc.pop("meta", None)
    doc["options"] = {**doc.get("options", {}), "timeout_ms": TIMEOUT_MS}
    return doc


def hints_violated(doc: dict[str, Any]) -> list[str] | None:
    """Ids false at the hints, or None when some symbol (an unbacked one) has no hint."""
    p = load_problem(doc)
    env = p.hints
    if env is None:
        return None
    return [c.id for c in (*p.asserts, *p.guards) if c.term is not None and not holds(c.term, env)]


def entry(path: Path) -> dict[str, Any]:
    doc = problem_of(path)
    syms = doc.get("symbols", {})
    e: dict[str, Any] = {"symbols": len(syms), "unbacked": sum("hint" not in s for s in syms.values()),
                         "guards": len(doc.get("guards", [])), "asserts": len(doc.get("asserts", []))}
    try:
        load_problem(doc)
    except BadInput as err:
        e["parse_error"] = str(err)
        doc["options"]["on_unsupported"] = "skip"
    bad = hints_violated(doc)
    e["hints_satisfy"] = None if bad is None else not bad
    if bad:
        e["hints_violate"] = bad
    t0 = time.monotonic()
    solve = run("solve", doc)
    e["solve"] = solve["status"]
    t1 = time.monotonic()
    red = run("redundancy", doc)
    e["redundancy_seconds"] = round(time.monotonic() - t1, 2)
    e["solve_seconds"] = round(t1 - t0, 2)
    e["redundancy_status"] = red["status"]
    e["verdicts"] = dict(sorted(collections.Counter(g["verdict"] for g in red["guards"]).items()))
    e["minimal"] = len(red["minimal"])
    return e


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    again = "--all" in args
    args = [a for a in args if a != "--all"]
    folder = Path(args[0]) if args else ROOT / "smt2_corpus" / "torch"
    mpath = folder / "MANIFEST.json"
    old = json.loads(mpath.read_text()) if mpath.exists() else {}
    manifest: dict[str, Any] = {}
    for path in sorted(folder.glob("*.json")):
        if path.name == "MANIFEST.json":
            continue
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        if not again and old.get(path.name, {}).get("sha256") == digest:  # unchanged file: keep its entry
            manifest[path.name] = old[path.name]
            continue
        manifest[path.name] = {**entry(path), "sha256": digest}
        print(path.name, json.dumps(manifest[path.name]), flush=True)
    mpath.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
