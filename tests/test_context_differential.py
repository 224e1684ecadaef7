"""Contexts answer what the stateless call answers, and both what brute force says (issue 22).

Random problems on small boxes and random sequences of questions — every operation, boolean
and integer queries, extensions with and without options, extensions re-read from their own
document — answered by a context (in-process, and over HTTP on a real server on 127.0.0.1), by
the stateless call on the merged document, and by brute force over the whole box
(``bench/context_differential.py``, which runs the longer campaign). Seeded: a failure names
its seed, and the seed replays it."""

from __future__ import annotations

from collections import Counter

import pytest
from scripts import load_script
from service_helpers import running_server

from symguard.service.settings import Settings

cd = load_script("bench/context_differential.py")


@pytest.mark.parametrize("block", range(4))
def test_in_process_contexts_agree_with_stateless_and_brute_force(block: int) -> None:
    tally: Counter[str] = Counter()
    for seed in range(block * 8, block * 8 + 8):
        cd.run_case(seed, 6, cd.InProcess(), tally)
    assert tally["questions"] > 0 and tally["extensions"] > 0


@pytest.mark.slow  # it starts a server (tests/conftest.py: the fast loop starts none)
def test_contexts_over_http_agree_with_stateless_and_brute_force() -> None:
    tally: Counter[str] = Counter()
    with running_server(Settings(workers=2)) as url:
        way = cd.OverHTTP(url)
        try:
            for seed in range(1000, 1006):
                cd.run_case(seed, 6, way, tally)
        finally:
            way.close()
    assert tally["questions"] > 0 and tally["extensions"] > 0


def test_the_check_catches_a_wrong_answer() -> None:
    """The comparison is not vacuous: a context answer with a range too narrow is a disagreement."""
    w = cd.World({"symbols": {"s0": {"min": -1, "max": 6}, "s1": {"min": 0, "max": 8}}}, upper={"s2": 0})
    w.doc["asserts"] = ["s2 <= 0"]
    w.meaning["a0"] = cd.Expr("s2 <= 0", lambda e: e["s2"] <= 0)
    q = cd.Expr("(Where(Ge(s1, s0), s0, s1) * (s1 % -3))",
                lambda e: min(e["s0"], e["s1"]) * (e["s1"] % -3))
    truth = {"status": "sat", "queries": [{"id": "q0", "kind": "int", "min": -12, "max": 2, "exact": True}]}
    wrong = {"status": "sat", "queries": [{"id": "q0", "kind": "int", "min": 0, "max": 2, "exact": True}]}
    cd.check("evaluate", truth, truth, w, {"queries": [q.text]}, {}, [q], Counter())
    with pytest.raises(cd.Disagreement, match="range"):
        cd.check("evaluate", wrong, truth, w, {"queries": [q.text]}, {}, [q], Counter())
