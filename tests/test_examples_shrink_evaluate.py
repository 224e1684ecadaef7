"""The bundled examples' shrink and evaluate answers (``smt2_corpus/examples/expected.json``).

Only the fields that do not depend on which optimal model z3 picks are pinned: status, objective
values and optimality for shrink; every row without its witness models for evaluate. The chosen
model is checked for consistency instead.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from symguard.solver import run

EXAMPLES = Path(__file__).resolve().parent.parent / "smt2_corpus" / "examples"


def _cases(op: str) -> list[tuple[str, dict[str, Any]]]:
    path = EXAMPLES / "expected.json"
    expected = json.loads(path.read_text()) if path.exists() else {}
    return sorted((name, e[op]) for name, e in expected.items() if op in e)


@pytest.mark.parametrize(("name", "want"), _cases("shrink"))
def test_shrink_example(name: str, want: dict[str, Any]) -> None:
    doc = json.loads((EXAMPLES / name).read_text())
    res = run("shrink", doc)
    assert {k: res.get(k) for k in want} == want
    hints = {n: d.get("hint") for n, d in doc.get("symbols", {}).items()}
    model = res["model"]
    for a in model:
        for b in model:
            if a < b and hints.get(a) is not None and hints.get(b) is not None and hints[a] != hints[b]:
                assert model[a] != model[b]


@pytest.mark.parametrize(("name", "want"), _cases("evaluate"))
def test_evaluate_example(name: str, want: dict[str, Any]) -> None:
    res = run("evaluate", json.loads((EXAMPLES / name).read_text()))
    assert res["status"] == want["status"]
    rows = [{k: v for k, v in q.items() if k not in ("when_true", "when_false")} for q in res["queries"]]
    assert rows == want["queries"]
    for q in res["queries"]:
        assert (q.get("value") == "depends") == ("when_true" in q and "when_false" in q)
