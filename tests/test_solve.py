"""``solve`` against brute-force enumeration on small bounded boxes: sat agreement, model
validity, and an unsat core that is really unsat (every point of the box violates it)."""

from __future__ import annotations

from typing import Any

from guard_grammar import Box, boxes
from hypothesis import HealthCheck, given, settings

from symguard.solver import run
from symguard.solver.ir.pyeval import holds


def _check_solve(doc: dict[str, Any], box: Box) -> None:
    res = run("solve", doc)
    all_ids = list(box.guard)
    witnesses = box.where(all_ids)
    assert res["status"] == ("sat" if witnesses else "unsat"), res
    if res["status"] == "sat":
        assert box.sat(res["model"], all_ids)
        assert set(res["model"]) == set(doc["symbols"])
    else:
        core = res["core"]
        a_ids = {c.id for c in box.p.asserts}
        core_a = [box.p.asserts[[c.id for c in box.p.asserts].index(i)].term for i in core if i in a_ids]
        core_g = [box.guard[i] for i in core if i not in a_ids]
        assert not any(all(holds(t, pt) for t in core_a + core_g) for pt in box.points), core


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boxes())
def test_solve_agrees_with_enumeration(doc: dict[str, Any]) -> None:
    _check_solve(doc, Box(doc))


def test_unsat_core_names_the_conflict() -> None:
    doc = {"symbols": {"x": {"min": -3, "max": 3}, "y": {"min": -3, "max": 3}},
           "asserts": [{"id": "sum", "expr": "x + y >= 5"}],
           "guards": ["x // -2 >= 0", {"id": "lt", "expr": "x < 2"}, "y % -3 == 0"]}
    res = run("solve", doc)
    assert res["status"] == "unsat"
    _check_solve(doc, Box(doc))
    assert set(res["core"]) <= {"sum", "g0", "lt", "g2"} and "sum" in res["core"]


def test_model_covers_undeclared_symbols() -> None:
    res = run("solve", {"symbols": {"s1": {"min": 2}}, "guards": ["s0 >= s1 + 3", "Eq(s0 % 4, 1)"]})
    assert res["status"] == "sat" and list(res["model"]) == ["s1", "s0"]
    m = res["model"]
    assert m["s0"] >= m["s1"] + 3 and m["s0"] % 4 == 1 and m["s1"] >= 2


def test_core_is_in_input_order() -> None:
    doc = {"symbols": {"s0": {"min": 0, "max": 100}},
           "guards": [{"id": "zz", "expr": "s0 >= 50"}, {"id": "aa", "expr": "s0 <= 10"}]}
    assert run("solve", doc)["core"] == ["zz", "aa"]
