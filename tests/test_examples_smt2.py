"""The bundled ``.smt2`` examples: their ``solve``/``redundancy`` answers pinned in
``smt2_corpus/examples/expected.json``, and ``solve --smtlib`` agreeing with z3 on every check-sat."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import z3

from symguard.solver import run
from symguard.solver.ops.smtlib_run import run_script
from symguard.solver.syntax.smtlib_script import script_problem

EXAMPLES = Path(__file__).resolve().parent.parent / "smt2_corpus" / "examples"
SCRIPTS = sorted(p.name for p in EXAMPLES.glob("*.smt2"))


def _cases(op: str) -> list[tuple[str, dict[str, Any]]]:
    expected = json.loads((EXAMPLES / "expected.json").read_text())
    return sorted((name, e[op]) for name, e in expected.items() if name.endswith(".smt2") and op in e)


def test_every_script_has_an_expectation() -> None:
    expected = json.loads((EXAMPLES / "expected.json").read_text())
    assert SCRIPTS and all(name in expected for name in SCRIPTS)


@pytest.mark.parametrize(("name", "want"), _cases("solve"))
def test_solve_example(name: str, want: dict[str, Any]) -> None:
    res = run("solve", script_problem((EXAMPLES / name).read_text()))
    assert res["status"] == want["status"]
    if "core" in want:
        assert sorted(res["core"]) == sorted(want["core"])


@pytest.mark.parametrize(("name", "want"), _cases("redundancy"))
def test_redundancy_example(name: str, want: dict[str, Any]) -> None:
    res = run("redundancy", script_problem((EXAMPLES / name).read_text()))
    assert res["status"] == want["status"]
    assert res["minimal"] == want["minimal"]
    assert {g["id"]: g["verdict"] for g in res["guards"]} == want["verdicts"]


def _z3_statuses(text: str) -> list[str]:
    ctx = z3.Context()  # kept alive for the call: a temporary's ref() would dangle
    try:
        out = str(z3.Z3_eval_smtlib2_string(ctx.ref(), text))
    except z3.Z3Exception as e:
        out = e.value.decode() if isinstance(e.value, bytes) else str(e.value)
    return [ln for ln in out.splitlines() if ln in ("sat", "unsat", "unknown")]


@pytest.mark.parametrize("name", SCRIPTS)
def test_smtlib_mode_agrees_with_z3(name: str) -> None:
    text = (EXAMPLES / name).read_text()
    ours = run_script(text, timeout_ms=10_000)
    assert "(error" not in ours
    mine = [ln for ln in ours.splitlines() if ln in ("sat", "unsat", "unknown")]
    theirs = _z3_statuses(text)
    assert len(mine) == len(theirs)
    for a, b in zip(mine, theirs):
        assert a == b or "unknown" in (a, b)
