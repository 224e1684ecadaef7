"""The CI guard over every real set (smt2_corpus/torch, sessions, validation): a fresh redundancy
run keeps its unknown count and stays within its recorded work, per set, in deterministic counters
(z3 checks, effort units spent, residue-walk comparisons, canonical forms tried) — never wall time,
and CPU time only in ``python bench/corpus.py --budgets check`` (same figures, same file).

``smt2_corpus/BUDGETS.json`` is written by ``python bench/corpus.py --budgets write`` on a tree
whose answers were checked; a change that needs more is a change to that file, in review. The
validation folder is the held-out slice: recorded like the rest, never tuned on.

A session is the problem of its final state (its asserts and guards; bench/compiler_session.py
replays its questions).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from corpus_runs import SETS, mark, redundancy

ROOT = Path(__file__).resolve().parent.parent
BUDGETS: dict[str, dict[str, int]] = json.loads((ROOT / "smt2_corpus" / "BUDGETS.json").read_text())
# the counters depend on the problem, the effort and z3's version alone; the slack leaves room for
# small engine changes without rewriting the file for each
SLACK = 1.25

# SETS (corpus_runs): the sets the budgets were written from, read as bench/corpus.py reads them; the
# answer is computed once per run and shared with test_corpus_torch's claims on the same set


def test_every_real_set_has_a_budget() -> None:
    assert set(BUDGETS) == set(SETS)


def _marks(name: str) -> list[Any]:
    return [mark(name), *([pytest.mark.slow] if BUDGETS.get(name, {}).get("cpu_ms", 0) > 1_500 else [])]


@pytest.mark.parametrize("name", [pytest.param(n, marks=_marks(n)) for n in sorted(SETS)])
def test_within_budget(name: str) -> None:
    b = BUDGETS[name]
    res = redundancy(name)
    st = res["stats"]
    unknown = sum(g["verdict"] == "unknown" for g in res["guards"])
    assert unknown <= b["unknown"], f"{name}: {unknown} unknown, budget {b['unknown']}"
    assert st["passes"] <= b["passes"]
    for counter in ("checks", "units", "walk"):
        assert st[counter] <= SLACK * b[counter] + 50, f"{name}: {counter} {st[counter]:,}, budget {b[counter]:,}"
