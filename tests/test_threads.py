"""``solver.run`` from many threads at once: the same answers as one thread, and no crash.

Issue 14: four threads calling ``solver.run`` ended in SIGSEGV (z3 is not thread-safe and
pysmt's z3 backend uses z3's main context). ``solver.api`` now serializes every call; the
threaded run runs in a child interpreter so that a regression fails this test instead of
killing pytest.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r'''
import json, sys, threading
from symguard.solver import run

PROBLEMS = [
    ("solve", {"guards": ["s0 >= 7", "s0*s1 == 12", "s1 >= 2"]}),
    ("solve", {"guards": ["s0 >= 3", "s0 <= 2"]}),
    ("redundancy", {"guards": ["s0 >= 16", "s0 >= 8", "Eq(Mod(s0, 4), 0)", "Ne(s0, 3)"]}),
    ("redundancy", {"symbols": {"s0": {"min": 2, "hint": 64}, "s1": {"min": 2, "hint": 3}},
                    "guards": ["s0 >= 2*s1", "s0 >= s1", "FloorDiv(s0, s1) >= 1", "s0*s1 >= 4"]}),
    ("shrink", {"symbols": {"s0": {"min": 2, "hint": 64}, "s1": {"min": 2, "hint": 6}},
                "guards": ["Eq(Mod(s0, 8), 0)", "s0 > s1", "Ne(s1, 3)"]}),
    ("evaluate", {"guards": ["s0 >= 4", "s0 <= 10"], "queries": ["s0*2", "s0 > 3", "s0 > 5"]}),
]
ROUNDS = 6

def strip(r):
    out = {k: v for k, v in r.items() if k not in ("elapsed_ms", "cached")}
    if "stats" in out:  # timings in the stats differ from run to run
        out["stats"] = {k: v for k, v in out["stats"].items() if not k.endswith("_ms")}
    return out

serial = [strip(run(op, doc)) for op, doc in PROBLEMS]
errors, seen = [], []

def worker(t):
    for k in range(ROUNDS):
        i = (t + k) % len(PROBLEMS)
        op, doc = PROBLEMS[i]
        try:
            seen.append((i, strip(run(op, doc))))
        except BaseException as e:
            errors.append(repr(e))

threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
for th in threads:
    th.start()
for th in threads:
    th.join()
bad = [i for i, r in seen if r != serial[i]]
print(json.dumps({"calls": len(seen), "errors": errors, "mismatches": bad}))
'''


def test_eight_threads_mixed_operations_match_the_serial_answers() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, env=env, capture_output=True, check=False,
                          text=True, timeout=240)
    assert proc.returncode == 0, f"the threaded run died (exit {proc.returncode}): {proc.stderr[-2000:]}"
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["errors"] == []
    assert out["calls"] == 8 * 6
    assert out["mismatches"] == []


def test_a_call_waiting_for_its_turn_counts_the_wait_against_its_budget() -> None:
    """The deadline starts with the call: a budget spent waiting ends as the sound unknown."""
    import time

    from symguard.solver import api

    _, canon = api.prepare({"guards": ["s0 >= 1", "s0 <= 9"], "options": {"timeout_ms": 50}})
    res = api.compute("redundancy", canon.problem, started=time.monotonic() - 1.0)
    assert res == api.unknown("redundancy", canon.problem)
    assert not api.is_final("redundancy", res)
