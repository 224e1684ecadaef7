"""Each real set solved once per test run, its answer shared by every test that checks a claim on it.

Three claims read the same ``redundancy`` answer of a set of smt2_corpus/torch: its work stays
within BUDGETS.json (test_corpus_budget), it gives MANIFEST.json's counts (test_corpus_torch), its
``.smt2`` twin gives the same verdicts (test_corpus_torch). The answer is a function of the problem
and the effort alone (test_determinism: byte-identical in another process, under load, with the
deadline far away), so one run per process serves them all. The tests of one set carry its
``real_set`` mark, and tests/conftest.py puts them next to each other: under ``--dist worksteal``
one worker runs them in a row, so the set is solved once per run, not once per claim (twice only
when a steal splits a set's row between the workers).
"""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest
from scripts import load_script

from symguard.solver import run

# ``folder/file`` -> the problem as bench/corpus.py reads it (the budgets were written from these):
# meta dropped, ``timeout_ms`` far past any run (the deadline never decides), unsupported guards skipped
SETS: dict[str, dict[str, Any]] = dict(load_script("bench/corpus.py").real_sets())


def mark(key: str) -> pytest.MarkDecorator:
    """The mark that puts the tests of one set side by side (tests/conftest.py), on one cached answer."""
    return pytest.mark.real_set(key)


@functools.cache
def _redundancy(key: str) -> str:
    return json.dumps(run("redundancy", SETS[key]))


def redundancy(key: str) -> dict[str, Any]:
    """``run("redundancy", SETS[key])``, computed once per process; a fresh copy per caller."""
    res: dict[str, Any] = json.loads(_redundancy(key))
    return res
