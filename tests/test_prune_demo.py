"""The guard pruning demo (``tools/prune_demo.py``) on a few corpus problems, in bounded time.

The claim under test is docs/problem-format.md §2's guarantee: asserts ∧ minimal accepts and rejects exactly the
shapes asserts ∧ all guards does. The sample must be able to catch a wrong ``minimal``: dropping a
required guard must show up as a mismatch.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scripts import load_script

ROOT = Path(__file__).resolve().parents[1]


demo = load_script("tools/prune_demo.py")
FILES = demo.corpus_files(ROOT)
# Quick ones with guards worth pruning, in the project corpus or the shared sample.
PREFERRED = ("resnet_cnn_compile", "wav2vec2_compile", "vit_export", "unet_compile", "vit_patchify_export")


def _few() -> list[Path]:
    """Up to three small corpus files with guards, the known ones first (bounded time)."""
    by_stem = {f.stem: f for f in FILES}
    named = [by_stem[n] for n in PREFERRED if n in by_stem]
    rest = sorted((f for f in FILES if f not in named and json.loads(f.read_text()).get("guards")),
                  key=lambda f: f.stat().st_size)
    return (named + rest)[:3]


@pytest.fixture(scope="module")
def few_files() -> list[Path]:
    files = _few()
    if not files:
        pytest.skip("no corpus files (smt2_corpus/torch/ nor the shared corpus sample)")
    return files


def test_minimal_accepts_exactly_the_same_shapes(few_files: list[Path]) -> None:
    rejected = 0
    for f in few_files:
        rep = demo.check_file(f, n_random=100, seed=1)
        assert rep.mismatches == [], (f.name, rep.mismatches[:3])
        assert rep.minimal <= rep.guards
        problem = demo.load_problem(json.loads(f.read_text()))
        if problem.hints is not None and demo.accepts(problem, problem.hints):
            assert rep.accepted >= 1, "the sample starts at the hints, which pass"
        rejected += rep.points - rep.accepted
    assert rejected > 0, "the sample must also hold rejected shapes"


def test_dropping_a_required_guard_is_caught() -> None:
    doc = {"symbols": {"s0": {"min": 2, "max": 64, "hint": 24}},
           "guards": ["Eq(Mod(s0, 8), 0)", "s0 >= 16", "Ne(s0, 1)", "Eq(Mod(s0, 4), 0)"]}
    problem = demo.load_problem(doc)
    res = demo.run("redundancy", doc)
    assert sorted(res["minimal"]) == ["g0", "g1"]
    points = demo.sample_points(problem, n_random=50, seed=0)
    assert demo.compare(problem, res["minimal"], points) == []
    assert demo.compare(problem, ["g1"], points), "the sample missed a dropped divisibility guard"
    assert demo.compare(problem, ["g0"], points), "the sample missed a dropped lower bound"


def test_samples_stay_in_range_and_include_the_hint() -> None:
    problem = demo.load_problem({"symbols": {"a": {"min": 2, "max": 10, "hint": 7}, "b": {"min": 3, "hint": 5}},
                                 "guards": ["a <= b"]})
    pts = demo.sample_points(problem, n_random=30, seed=3)
    assert pts[0] == {"a": 7, "b": 5}
    assert all(2 <= p["a"] <= 10 and p["b"] >= 3 for p in pts)
    assert {2, 10} <= {p["a"] for p in pts}
    assert len({tuple(sorted(p.items())) for p in pts}) == len(pts)


def test_table_totals() -> None:
    r = [demo.PruneReport("m1", 10, 2, points=5, accepted=3), demo.PruneReport("m2", 30, 6, points=7, accepted=1)]
    table = demo.format_table(r)
    total = next(line for line in table.splitlines() if line.startswith("TOTAL")).split()
    assert total[1:5] == ["40", "8", "80%", "12"]


def test_corpus_files_are_problem_documents() -> None:
    for f in FILES[:20]:
        doc = json.loads(f.read_text())
        assert isinstance(doc.get("guards"), list)


def test_replacements_are_sampled_consistently() -> None:
    """PyTorch replacements (``Eq(s53, 4*s18)``) would reject almost every independent random point."""
    problem = demo.load_problem({"symbols": {"s18": {"min": 2, "max": 256, "hint": 12},
                                             "s53": {"min": 8, "max": 1024, "hint": 48}},
                                 "asserts": ["Eq(s53, 4*s18)"], "guards": ["Ne(s18, 3)"]})
    pts = demo.sample_points(problem, n_random=40, seed=2)
    defined = [p for p in pts if p["s53"] == 4 * p["s18"]]
    assert len(defined) > 20
    assert sum(demo.accepts(problem, p) for p in pts) >= len(defined) - 5
