"""Batch throughput against ``--jobs``: the real CLI, a fresh process per run, over the corpus.

    python bench/batch_scaling.py [--op redundancy] [--jobs 1,2] [--copies 3] [--quick]

The corpus (the distinct problems ``bench/corpus.py`` uses) is copied ``--copies`` times into a
temporary folder so a run lasts long enough for start-up (spawning workers, importing z3) not to
dominate; then ``symguard batch DIR --op OP --jobs N --out FILE`` runs once per ``N`` and the
table gives wall time, throughput and speed-up over ``--jobs 1``. Every input must have exactly
one line in the output (checked). On a 2-core machine shared with others the ideal is 2×.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# `python bench/x.py` puts bench/ first on sys.path; import from the checkout root instead, so
# `bench.*`, `solver` and `service` resolve the same way from any working directory
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from bench.corpus import corpus


def run(folder: Path, op: str, jobs: int, out: Path) -> float:
    cmd = [sys.executable, "-m", "symguard.service.cli", "batch", str(folder), "--op", op, "--jobs", str(jobs),
           "--out", str(out)]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 2):
        raise SystemExit(f"batch failed with exit status {proc.returncode}")
    return wall


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--op", default="redundancy")
    ap.add_argument("--jobs", default="1,2")
    ap.add_argument("--copies", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="one copy of the corpus")
    args = ap.parse_args(argv)
    copies = 1 if args.quick else args.copies
    problems = corpus([])
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "in"
        folder.mkdir()
        for k in range(copies):
            for i, (name, doc) in enumerate(problems):
                (folder / f"{k:02d}_{i:03d}_{name.replace('/', '_')}.json").write_text(json.dumps(doc))
        n = copies * len(problems)
        print(f"{n} inputs ({len(problems)} distinct problems × {copies}), op {args.op}\n")
        print("| --jobs | wall s | inputs/s | speed-up |")
        print("|---:|---:|---:|---:|")
        base = None
        for jobs in (int(j) for j in args.jobs.split(",")):
            out = Path(tmp) / f"out{jobs}.jsonl"
            wall = run(folder, args.op, jobs, out)
            lines = [json.loads(x) for x in out.read_text().splitlines()]
            assert len(lines) == n and len({x["input"] for x in lines}) == n, "lost or repeated results"
            base = base or wall
            print(f"| {jobs} | {wall:.2f} | {n / wall:.2f} | {base / wall:.2f}× |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
