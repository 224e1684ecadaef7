"""Past the wall-clock deadline ``redundancy`` answers the sound partial result (issue 25): every
verdict reached so far kept, the rest ``unknown`` and kept, ``incomplete: true``, never cached —
never all-unknown. The deadline is made to pass after a chosen number of steps (deterministic),
and the partial answers are checked against the complete one: each verdict either agrees with
it or is ``unknown``, and ``implied_by`` only names guards kept in ``minimal``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from deadline_helpers import StopsAfter

from symguard.solver import api, load_problem
from symguard.solver.ir.canonical import canonicalize
from symguard.solver.ir.problem import DEFAULT_EFFORT, Options
from symguard.solver.ops.redundancy import _Run
from symguard.solver.smt.checker import Deadline, OutOfTime

CORPUS = Path(__file__).resolve().parent.parent / "smt2_corpus" / "torch"


def _canon(name: str) -> Any:
    return canonicalize(load_problem(json.loads((CORPUS / name).read_text()))).problem


@pytest.fixture(scope="module")
def swin() -> tuple[Any, dict[str, Any]]:
    p = _canon("swin_compile.json")
    return p, _Run(p, Deadline(60_000, budget_units=DEFAULT_EFFORT)).run()


def _sound_part_of(part: dict[str, Any], full: dict[str, Any]) -> None:
    assert part["incomplete"] is True
    minimal = set(part["minimal"])
    for a, b in zip(part["guards"], full["guards"]):
        assert a["id"] == b["id"]
        if a["verdict"] != "unknown":
            assert a["verdict"] == b["verdict"], (a, b)
        if a["verdict"] in ("unknown", "required"):
            assert a["id"] in minimal
        if a["verdict"] == "redundant":
            assert a["id"] not in minimal and set(a["implied_by"]) <= minimal, a
    assert not api.is_final("redundancy", part)


@pytest.mark.parametrize("after", [1, 3, 10, 40, 120])
def test_a_deadline_at_any_step_keeps_every_verdict_reached(swin: tuple[Any, dict[str, Any]], after: int) -> None:
    p, full = swin
    stop = StopsAfter(after)
    part = _Run(p, stop).run()
    if stop.calls < after:  # the run needed fewer time checks: it is the complete answer
        assert "incomplete" not in part and part["guards"] == full["guards"]
        return
    _sound_part_of(part, full)
    decided = sum(g["verdict"] != "unknown" for g in part["guards"])
    assert decided > 0  # the rewrite and duplicate levers need no time check: never all-unknown
    if after >= 40:
        assert decided > sum(g["verdict"] == "always_true" for g in part["guards"])


def test_partial_answers_grow_with_the_time_given(swin: tuple[Any, dict[str, Any]]) -> None:
    p, _ = swin
    counts = [sum(g["verdict"] != "unknown" for g in _Run(p, StopsAfter(k)).run()["guards"])
              for k in (2, 20, 200)]
    assert counts == sorted(counts)


def test_the_effort_alone_decides_not_the_deadline() -> None:
    doc = json.loads((CORPUS / "vit_patchify_compile.json").read_text())
    a = api.run("redundancy", {**doc, "options": {"timeout_ms": 20_000}})
    b = api.run("redundancy", {**doc, "options": {"timeout_ms": 60_000}})
    assert [g["verdict"] for g in a["guards"]] == [g["verdict"] for g in b["guards"]]
    assert "incomplete" not in a and api.is_final("redundancy", {k: v for k, v in a.items()})


def test_effort_is_an_option_with_its_default_in_one_place() -> None:
    assert Options().effort == DEFAULT_EFFORT
    p = load_problem({"guards": ["x > 1"], "options": {"effort": 1234}})
    assert p.options.effort == 1234
    d = Deadline.for_options(p.options)
    assert (d.units, d.cap) == (DEFAULT_EFFORT, 1234)  # the default's plan, capped at the effort
    from symguard.solver.errors import InvalidProblemError
    for bad in (0, -1, "1", 10**10, True):
        with pytest.raises(InvalidProblemError):
            load_problem({"guards": ["x > 1"], "options": {"effort": bad}})


def test_a_small_effort_gives_unknowns_not_a_partial_answer() -> None:
    doc = json.loads((CORPUS / "swin_compile.json").read_text())
    res = api.run("redundancy", {**doc, "options": {"effort": 1}})
    assert "incomplete" not in res
    assert api.is_final("redundancy", res) == all(g["verdict"] != "unknown" for g in res["guards"])


class _ShrinkStops(Deadline):
    """The wall clock 'passes' at the first time check after the start model is known."""

    def __init__(self) -> None:
        super().__init__(60_000, budget_units=DEFAULT_EFFORT)

    def ensure_time(self) -> None:
        raise OutOfTime


def test_shrink_past_the_deadline_answers_its_valid_start_model_not_unknown() -> None:
    """A hard objective (the Python search cannot exhaust it): the deadline after the start
    model is known answers that model, ``optimal: false``, ``incomplete``."""
    from symguard.solver.ops.selfcheck import violations
    from symguard.solver.ops.shrink import shrink
    v = (100003 * 99991 * 7 + 100003) % 1000003
    doc = {"symbols": {"a": {"min": 1, "hint": 100003}, "b": {"min": 1, "hint": 99991}},
           "guards": [f"Eq(Mod(7*a*b + a, 1000003), {v})"]}
    p = canonicalize(load_problem(doc)).problem
    res = shrink(p, _ShrinkStops())
    assert res["status"] == "sat" and res["optimal"] is False and res["incomplete"] is True
    assert not violations(p, res["model"])
    assert not api.is_final("shrink", res)
