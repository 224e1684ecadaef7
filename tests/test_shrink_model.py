"""``symguard shrink-model``: a model spec in, a passing pytest file out.

The end-to-end test exports a tiny model, shrinks it and runs the emitted file with pytest in a
subprocess (it needs torch). The rest checks the model spec contract errors and the emitted file's
guard checks without torch.
"""

from __future__ import annotations

import ast
import difflib
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symguard.service.cli import main, shrink_model_template
from symguard.service.cli.shrink_model import (
    ModelSpec,
    ShrinkOutcome,
    load_spec,
    numel,
    render_test,
    shrink_model,
    tie_break,
)
from symguard.solver import InvalidProblemError, run

ROOT = Path(__file__).resolve().parents[1]

TINY_SPEC = '''
import torch
from torch import nn
from torch.export import Dim

NAME = "tiny_view"


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)

    def forward(self, x):
        b, m = x.shape
        return self.lin(x.view(b, m // 4, 4)).sum(1)


def build_model():
    return Tiny()


def example_inputs():
    return (torch.randn(3, 24),)


dynamic_shapes = ({0: Dim.AUTO(min=1, max=64), 1: Dim.AUTO(min=2, max=4096)},)
'''


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


def test_end_to_end_tiny_model(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    spec = _write(tmp_path, "tiny_spec.py", TINY_SPEC)
    calls: list[str] = []

    def runner(op: str, problem: dict[str, Any]) -> dict[str, Any]:  # stands in for --remote
        calls.append(op)
        return run(op, problem)

    out = tmp_path / "gen" / "test_tiny_view.py"
    o = shrink_model(spec, out=out, runner=runner)
    # shrink, a second shrink that breaks ties between equally small optima (when the first is
    # proven optimal over several symbols), then redundancy for the guards to keep
    assert calls in (["shrink", "redundancy"], ["shrink", "shrink", "redundancy"])
    assert (calls.count("shrink") == 2) == (o.shrink.get("optimal") is True and len(o.shrink["model"]) >= 2)
    assert o.test_path == out and out.exists()
    assert o.original_shapes == [[3, 24]]
    (b, m), = o.small_shapes
    assert m % 4 == 0 and 2 <= b < 3 and m < 24, o.small_shapes  # the view needs m divisible by 4
    assert numel(o.small_shapes) < numel(o.original_shapes)
    assert o.shrink["optimal"] is True and len(o.minimal) <= len(o.problem["guards"])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-W", "error", "-p", "no:cacheprovider", str(out)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "4 passed" in proc.stdout


def test_cli_writes_the_test_and_prints_a_summary(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    spec = _write(tmp_path, "tiny_spec.py", TINY_SPEC)
    out, buf = tmp_path / "t.py", io.StringIO()
    assert main(["shrink-model", str(spec), "--out", str(out), "--objective", "lex"], buf) == 0
    line = json.loads(buf.getvalue())
    assert line["op"] == "shrink-model" and line["objective"] == "lex" and line["test"] == str(out)
    assert line["numel"]["small"] < line["numel"]["original"]
    assert "def test_small_shapes_satisfy_every_guard" in out.read_text()


@pytest.mark.parametrize(("text", "message"), [
    ("x = 1\n", "missing: build_model, example_inputs, dynamic_shapes"),
    ("raise RuntimeError('boom')\n", "importing"),
    ("NAME = 'a-b'\nbuild_model = example_inputs = dynamic_shapes = None\n", "identifier"),
    ("REQUIRES = 'numpy'\nbuild_model = example_inputs = dynamic_shapes = None\n", "REQUIRES"),
])
def test_spec_contract_errors(tmp_path: Path, text: str, message: str) -> None:
    spec = _write(tmp_path, "bad_spec.py", text)
    with pytest.raises(InvalidProblemError, match=message):
        load_spec(spec)


def test_cli_bad_spec_is_bad_input(tmp_path: Path) -> None:
    buf = io.StringIO()
    assert main(["shrink-model", str(tmp_path / "absent.py")], buf) == 2
    assert json.loads(buf.getvalue())["error"]["code"] == "invalid_problem"
    assert main(["shrink-model", str(tmp_path / "absent.py"), "--objective", "median"], io.StringIO()) == 2


def _outcome(tmp_path: Path, model: dict[str, int], small: list[list[int]]) -> ShrinkOutcome:
    spec_path = _write(tmp_path, "s.py", "build_model = example_inputs = dynamic_shapes = None\n")
    problem = {"symbols": {"s0": {"min": 2, "max": 64, "hint": 24}, "s1": {"min": 2, "hint": 3}},
               "asserts": [], "guards": ["Eq(Mod(s0, 4), 0)", "Ne(s0//4, 1)", "s1 < 16"],
               "inputs": {"x": ["s1", "s0", 7]}}
    res = {"status": "sat", "model": model, "objective": "sum", "optimal": True}
    return ShrinkOutcome(load_spec(spec_path), problem, res, ["g0", "g1", "g2"], ["x"], [[3, 24, 7]], small)


def _guard_tests(tmp_path: Path, o: ShrinkOutcome) -> Any:
    path = tmp_path / "test_emitted.py"
    path.write_text(render_test(o, path))
    spec = importlib.util.spec_from_file_location("emitted_under_test", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_emitted_guard_checks_pass_on_a_model(tmp_path: Path) -> None:
    mod = _guard_tests(tmp_path, _outcome(tmp_path, {"s0": 8, "s1": 2}, [[2, 8, 7]]))
    assert mod.MODEL_PATH.resolve() == (tmp_path / "s.py").resolve()
    mod.test_small_shapes_satisfy_every_guard()
    mod.test_small_shapes_match_the_symbolic_input_shapes()


def test_emitted_guard_checks_catch_a_violation(tmp_path: Path) -> None:
    mod = _guard_tests(tmp_path, _outcome(tmp_path, {"s0": 4, "s1": 2}, [[2, 4, 7]]))  # breaks Ne(s0//4, 1)
    with pytest.raises(AssertionError, match="Ne"):
        mod.test_small_shapes_satisfy_every_guard()
    mod = _guard_tests(tmp_path, _outcome(tmp_path, {"s0": 8, "s1": 2}, [[2, 12, 7]]))
    with pytest.raises(AssertionError):
        mod.test_small_shapes_match_the_symbolic_input_shapes()


def test_spec_defaults(tmp_path: Path) -> None:
    spec = load_spec(_write(tmp_path, "my_model.py", "build_model = example_inputs = dynamic_shapes = None\n"))
    assert isinstance(spec, ModelSpec)
    assert (spec.name, spec.seed, spec.atol, spec.rtol, spec.requires) == ("my_model", 0, 1e-5, 1e-4, ())


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=30),
                     lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner, max_size=6),
                     max_leaves=40)


@settings(max_examples=80, deadline=None)
@given(_json)
def test_emitted_literals_read_back_unchanged(value: Any) -> None:
    """The embedded PROBLEM/MODEL are Python literals of exactly the data symguard solved."""
    assert ast.literal_eval(shrink_model_template.literal(value)) == value


def test_tie_break_picks_one_optimum_whatever_the_solver_met_first() -> None:
    """Equally small models (sum 7) are many; the emitted one keeps smaller-hinted dims smaller."""
    problem = {"symbols": {"a": {"min": 2, "hint": 50}, "b": {"min": 2, "hint": 30}}, "guards": ["a + b >= 7"],
               "inputs": {"x": ["a", "b"]}}
    first = run("shrink", problem)
    assert first["optimal"] and first["objective_value"] == 7
    for met in ({"a": 2, "b": 5}, {"a": 4, "b": 3}, {"b": 5, "a": 2}):
        res = tie_break(problem, {**first, "model": met}, run, 20_000)
        assert res["model"] == {"b": 2, "a": 5} and list(res["model"]) == list(met)
        assert res["input_shapes"] == {"x": [5, 2]} and res["objective_value"] == 7
    unproven = {**first, "model": {"a": 4, "b": 3}, "optimal": False}
    assert tie_break(problem, unproven, run, 20_000) is unproven


GENERATED = sorted((ROOT / "tests" / "generated").glob("test_*.py"))


@pytest.mark.slow
@pytest.mark.torch
@pytest.mark.parametrize("committed", GENERATED, ids=[p.stem for p in GENERATED])
def test_committed_generated_tests_are_current(committed: Path) -> None:
    """Regenerating a committed test gives it byte for byte: generation is deterministic (no
    working directory, clock or machine in it) and nobody forgot to regenerate after a change to
    the bridge, the solver or the template. Fails with the command that refreshes the file."""
    pytest.importorskip("torch")
    text = committed.read_text(encoding="utf-8")
    header = re.search(r"Generated by ``symguard shrink-model (\S+)``", text)
    objective = re.search(r"objective (sum|max|lex), optimal", text)
    assert header and objective, f"{committed.name} was not written by symguard shrink-model"
    spec = load_spec(ROOT / header.group(1))
    for module in spec.requires:
        pytest.importorskip(module)
    outcome = shrink_model(spec.path, out=committed, objective=objective.group(1), write=False)
    fresh = render_test(outcome, committed)
    if fresh != text:
        diff = "".join(list(difflib.unified_diff(text.splitlines(True), fresh.splitlines(True), "committed", "fresh"))[:40])
        pytest.fail(f"{committed.relative_to(ROOT)} is stale; run `symguard shrink-model {header.group(1)}` from the "
                    f"repository root and commit the result:\n{diff}")
