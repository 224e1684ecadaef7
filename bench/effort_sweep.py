"""Effort sweep: ``redundancy`` on guard sets at several efforts, and where more effort decided less.

    python bench/effort_sweep.py run OUT.jsonl FILE.json ... [--efforts 1,1000,100000,default,2000000]
    python bench/effort_sweep.py report OUT.jsonl [BEFORE.jsonl]

``run`` appends one JSON line per (set, effort): unknown guard ids, ``minimal`` size, the
deterministic counters (z3 checks, units, walk comparisons) and the CPU seconds of the call.
``report`` prints the unknown count per set and effort (with a second file: before -> after) and
lists every pair of efforts where a guard the smaller one decided is ``unknown`` at the larger
(docs/problem-format.md, ``effort``: that must never happen).
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from symguard.solver import run
from symguard.solver.ir.problem import DEFAULT_EFFORT


def _effort(text: str) -> int:
    return DEFAULT_EFFORT if text == "default" else int(text.replace("_", ""))


def sweep(out: Path, files: list[str], efforts: list[int]) -> None:
    with out.open("a") as fh:
        for name in files:
            doc = json.loads(Path(name).read_text())
            doc.pop("meta", None)
            for effort in efforts:
                opts = {**doc.get("options", {}), "timeout_ms": 600_000, "effort": effort}
                cpu = time.process_time()
                res = run("redundancy", {**doc, "options": opts})
                cpu = time.process_time() - cpu
                st = res.get("stats", {})
                fh.write(json.dumps({
                    "set": Path(name).stem, "effort": effort, "cpu": round(cpu, 3),
                    "unknown": sorted(g["id"] for g in res["guards"] if g["verdict"] == "unknown"),
                    "minimal": len(res["minimal"]), "checks": st.get("checks"), "units": st.get("units"),
                    "walk": st.get("walk"), "passes": st.get("passes")}) + "\n")
                fh.flush()


def _load(path: str) -> dict[str, dict[int, dict[str, Any]]]:
    rows: dict[str, dict[int, dict[str, Any]]] = defaultdict(dict)
    for line in Path(path).read_text().splitlines():
        r = json.loads(line)
        rows[r["set"]][r["effort"]] = r
    return rows


def report(after: str, before: str | None) -> None:
    new = _load(after)
    old = _load(before) if before else {}
    efforts = sorted({e for sets in new.values() for e in sets})
    print("| set | " + " | ".join(f"{e:,}" for e in efforts) + " | CPU s at the default |")
    print("|---|" + "---|" * (len(efforts) + 1))
    bad = []
    for name in sorted(new):
        cells = []
        for e in efforts:
            r = new[name].get(e)
            o = old.get(name, {}).get(e)
            now = "" if r is None else str(len(r["unknown"]))
            cells.append(now if o is None else f"{len(o['unknown'])} → {now}")
        d, od = new[name].get(DEFAULT_EFFORT), old.get(name, {}).get(DEFAULT_EFFORT)
        cpu = "" if d is None else f"{d['cpu']:.2f}" if od is None else f"{od['cpu']:.2f} → {d['cpu']:.2f}"
        print(f"| {name} | " + " | ".join(cells) + f" | {cpu} |")
        done = [e for e in efforts if e in new[name]]
        for i, small in enumerate(done):
            for large in done[i + 1:]:
                lost = set(new[name][large]["unknown"]) - set(new[name][small]["unknown"])
                if lost:
                    bad.append(f"{name}: {sorted(lost)} decided at {small:,}, unknown at {large:,}")
    print(f"\nsets where more effort decided less: {len({b.split(':')[0] for b in bad})}")
    for b in bad:
        print("  " + b)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("out")
    r.add_argument("files", nargs="+")
    r.add_argument("--efforts", default="1,1000,100000,default,2000000")
    p = sub.add_parser("report")
    p.add_argument("after")
    p.add_argument("before", nargs="?")
    args = ap.parse_args()
    if args.cmd == "run":
        sweep(Path(args.out), args.files, [_effort(e) for e in args.efforts.split(",")])
    else:
        report(args.after, args.before)


if __name__ == "__main__":
    main()
