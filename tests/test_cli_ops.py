"""``symguard shrink|evaluate|solve FILE…`` in-process: one JSON line per file, exit codes."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from symguard.service.cli import main

PROBLEM = {
    "symbols": {"s0": {"min": 2, "max": 4096, "hint": 64}, "s1": {"min": 2, "hint": 3}},
    "asserts": ["Eq(Mod(s0, 8), 0)"],
    "guards": ["s0 >= 16", {"id": "g_ne", "expr": "Ne(s1, 1)"}],
    "queries": ["FloorDiv(s0*4, 2)", "s0 > s1"],
    "inputs": {"x": ["s0", 3, "s1"], "w": ["s1", "FloorDiv(s0, 8)"]},
}


def _run(argv: list[str]) -> tuple[int, list[dict[str, Any]]]:
    out = io.StringIO()
    code = main(argv, out=out)
    return code, [json.loads(line) for line in out.getvalue().splitlines()]


@pytest.fixture
def problem_file(tmp_path: Path) -> Path:
    f = tmp_path / "p.json"
    f.write_text(json.dumps(PROBLEM))
    return f


def test_shrink_file(problem_file: Path) -> None:
    code, [res] = _run(["shrink", str(problem_file)])
    assert code == 0
    assert res["op"] == "shrink" and res["status"] == "sat" and res["optimal"] is True
    assert res["model"] == {"s0": 16, "s1": 2} and res["objective_value"] == 18
    assert res["input_shapes"] == {"x": [16, 3, 2], "w": [2, 2]}


def test_evaluate_file(problem_file: Path) -> None:
    code, [res] = _run(["evaluate", str(problem_file)])
    assert code == 0 and res["status"] == "sat"
    q0, q1 = res["queries"]
    assert q0 == {"id": "q0", "kind": "int", "min": 32, "max": 8192, "exact": True}
    assert q1["value"] == "depends" and set(q1) >= {"when_true", "when_false"}


def test_solve_minimize_file(tmp_path: Path) -> None:
    f = tmp_path / "m.json"
    f.write_text(json.dumps({**PROBLEM, "options": {"minimize": True}}))
    code, [res] = _run(["solve", str(f)])
    assert code == 0 and res["model"] == {"s0": 16, "s1": 2}


def test_several_files_and_a_bad_one(problem_file: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"guards": ["s0 >= "]}))
    code, results = _run(["shrink", str(problem_file), str(bad), str(problem_file)])
    assert code == 2
    assert [r.get("status") for r in results] == ["sat", None, "sat"]
    assert results[1]["error"]["code"] == "parse_error"
