"""Every bundled example in ``smt2_corpus/examples/`` against ``expected.json``.

``expected.json`` maps a file name to ``{op: expected}`` for the ops it pins; only the fields
present in an expectation are checked (``verdicts`` is ``{guard id: verdict}``, ``core`` is
compared as a set, rows of a list are matched field by field), so any helper's example with an
entry is tested here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from symguard.solver import run
from symguard.solver.syntax.smtlib_script import script_problem

EXAMPLES = Path(__file__).resolve().parents[1] / "smt2_corpus" / "examples"
EXPECTED: dict[str, dict[str, Any]] = json.loads((EXAMPLES / "expected.json").read_text())
CASES = sorted((name, op) for name, ops in EXPECTED.items() for op in ops)


def _doc(name: str) -> dict[str, Any]:
    text = (EXAMPLES / name).read_text()
    return script_problem(text) if name.endswith(".smt2") else json.loads(text)


def _matches(want: Any, got: Any, path: str) -> None:
    if isinstance(want, dict):
        assert isinstance(got, dict), path
        for k, v in want.items():
            assert k in got, f"{path}.{k} missing"
            _matches(v, got[k], f"{path}.{k}")
    elif isinstance(want, list) and want and isinstance(want[0], dict):
        assert isinstance(got, list) and len(got) == len(want), path
        for i, (w, g) in enumerate(zip(want, got)):
            _matches(w, g, f"{path}[{i}]")
    else:
        assert got == want, f"{path}: {got!r} != {want!r}"


def test_every_example_file_is_pinned() -> None:
    files = sorted(p.name for p in EXAMPLES.iterdir() if p.suffix in (".json", ".smt2") and p.name != "expected.json")
    assert set(EXPECTED) <= set(files), "expected.json names a missing file"
    assert [f for f in files if f.startswith("sympy_")] and all(f in EXPECTED for f in files if f.startswith("sympy_"))


@pytest.mark.parametrize(("name", "op"), CASES)
def test_example(name: str, op: str) -> None:
    want = dict(EXPECTED[name][op])
    res = run(op, _doc(name))
    if "verdicts" in want:
        assert {g["id"]: g["verdict"] for g in res["guards"]} == want.pop("verdicts")
    if "core" in want:
        assert sorted(res["core"]) == sorted(want.pop("core"))
    _matches(want, res, op)
