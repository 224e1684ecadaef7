"""The recorded corpora of ``smt2_corpus/simplify/`` and ``smt2_corpus/sessions/`` are well formed:
every expression parses with symguard, every trace point (the hints) satisfies what PyTorch
recorded, the hand-written expectations are true under their context, and the recordings are
big enough to measure something.

Only the public ``solver`` API is used (``load_problem``, ``run``): the files are an interface for
features still to come and must not depend on where the parser lives today.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from symguard.solver import load_problem, run

CORPUS = Path(__file__).resolve().parent.parent / "smt2_corpus"
SIMPLIFY = sorted(p for p in (CORPUS / "simplify").glob("*.json") if p.name != "handwritten.json")
SESSIONS = sorted((CORPUS / "sessions").glob("*.json"))
HANDWRITTEN = CORPUS / "simplify" / "handwritten.json"
METHODS = {"simplify", "simplify_with_ranges", "statically_known_true", "statically_known_equals",
           "statically_known_leq", "statically_known_geq", "statically_known_lt", "statically_known_gt",
           "statically_known_multiple_of", "evaluate_expr", "guard_or_false", "guard_or_true",
           "evaluate_min", "evaluate_max", "combine_modular_indexing_pairs", "kernel_index", "kernel_range"}


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def _parse_all(symbols: dict[str, Any], texts: list[str]) -> None:
    """Parse every text as a query of one problem (a ParseError names the first bad one)."""
    for i in range(0, len(texts), 10_000):
        load_problem({"symbols": symbols, "queries": texts[i:i + 10_000]})


def _at_hints(symbols: dict[str, Any], asserts: list[str], guards: list[str]) -> dict[str, Any]:
    """``solve`` with every hinted symbol pinned to its hint: sat iff the trace point satisfies
    the asserts and guards (unhinted, unbacked symbols stay free within their ranges)."""
    pinned = {n: ({"min": v["hint"], "max": v["hint"]} if "hint" in v else {k: v[k] for k in ("min", "max") if k in v})
              for n, v in symbols.items()}
    return run("solve", {"symbols": pinned, "asserts": asserts, "guards": guards,
                         "options": {"timeout_ms": 20_000}})


# ------------------------------------------------------------------ simplify corpus

def test_enough_models_recorded() -> None:
    assert len(SIMPLIFY) >= 8, [p.name for p in SIMPLIFY]
    assert len(SESSIONS) >= 6, [p.name for p in SESSIONS]


@pytest.mark.parametrize("path", SIMPLIFY, ids=lambda p: p.stem)
def test_simplify_file(path: Path) -> None:
    doc = _load(path)
    assert {"source", "symbols", "asserts", "guards", "exprs"} <= set(doc)
    exprs = doc["exprs"]
    assert len(exprs) >= 5, "an (almost) empty recording measures nothing"
    assert [e["id"] for e in exprs] == [f"e{i}" for i in range(len(exprs))]
    texts: list[str] = [*doc["asserts"], *doc["guards"]]
    for e in exprs:
        py = e["pytorch"]
        assert py["method"] in METHODS
        assert isinstance(py["us"], float) and py["us"] >= 0
        assert 0 <= e["guards_known"] <= len(doc["guards"])
        assert e["calls"] >= 1
        texts += [e["expr"], py["result"], *e.get("ranges", {}).values()]
        for var in e.get("ranges", {}):
            assert var not in doc["symbols"], f"loop variable {var} shadows a size symbol"
    _parse_all(doc["symbols"], texts)
    assert doc["source"]["counts"]["exprs"] == len(exprs)
    res = _at_hints(doc["symbols"], doc["asserts"], doc["guards"])
    assert res["status"] == "sat", res


def test_simplify_corpus_covers_the_methods() -> None:
    methods: set[str] = set()
    total = changed = 0
    for path in SIMPLIFY:
        exprs = _load(path)["exprs"]
        methods |= {e["pytorch"]["method"] for e in exprs}
        total += len(exprs)
        changed += sum(e["pytorch"]["result"] != e["expr"] for e in exprs)
    assert {"simplify", "simplify_with_ranges", "statically_known_true", "kernel_index", "kernel_range"} <= methods
    assert total >= 500
    assert 0 < changed < total  # PyTorch rewrites some, not all: both kinds are there to compare with


# ------------------------------------------------------------------ hand-written cases

def test_handwritten_expectations_hold() -> None:
    """Each expected form is equivalent to its expression under the context (symguard's
    ``evaluate`` proves ``Eq(expr, expected)`` always true, or the condition true/false)."""
    doc = _load(HANDWRITTEN)
    assert len(doc["exprs"]) >= 10
    base = {k: doc[k] for k in ("symbols", "asserts", "guards")}
    assert _at_hints(doc["symbols"], doc["asserts"], doc["guards"])["status"] == "sat"
    for e in doc["exprs"]:
        asserts = list(doc["asserts"]) + [f"{v} < {b}" for v, b in e.get("ranges", {}).items()]
        if e["expected"] in ("True", "False"):
            query, want = e["expr"], e["expected"] == "True"
        else:
            query, want = f"Eq({e['expr']}, {e['expected']})", True
        res = run("evaluate", {**base, "asserts": asserts, "queries": [query]})
        assert res["queries"][0]["value"] is want, (e["id"], res["queries"][0])


# ------------------------------------------------------------------ sessions

@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.stem)
def test_session_file(path: Path) -> None:
    doc = _load(path)
    assert {"source", "symbols", "events"} <= set(doc)
    events = doc["events"]
    assert len(events) <= doc["source"]["cap"]
    kinds = {ev["kind"] for ev in events}
    assert kinds <= {"guard", "assert", "question"}
    assert "question" in kinds  # some models compile without a single guard (gpt2): still questions
    for ev in events:
        assert isinstance(ev["us"], float) and ev["us"] >= 0
        assert ev["pytorch"] is None or ev["kind"] == "question"
    _parse_all(doc["symbols"], [ev["expr"] for ev in events] + [ev["pytorch"] for ev in events if ev["pytorch"]])
    guards = [ev["expr"] for ev in events if ev["kind"] == "guard"]
    asserts = [ev["expr"] for ev in events if ev["kind"] == "assert"]
    res = _at_hints(doc["symbols"], asserts, guards)
    assert res["status"] == "sat", res


def test_sessions_ask_questions() -> None:
    questions = undecided = guards = 0
    for path in SESSIONS:
        events = _load(path)["events"]
        qs = [ev for ev in events if ev["kind"] == "question"]
        questions += len(qs)
        undecided += sum(ev["pytorch"] is None for ev in qs)
        guards += sum(ev["kind"] == "guard" for ev in events)
    assert questions >= 200
    assert guards >= 50
    assert 0 < undecided < questions
