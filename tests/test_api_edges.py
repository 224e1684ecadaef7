"""The library's edge (``solver.api.prepare``): what a Python caller hands ``solver.run`` is checked
as the service checks a request body, with the place named (issue 14)."""

from __future__ import annotations

from typing import Any

import pytest

from symguard.solver import InvalidProblemError, TooLargeError, run


@pytest.mark.parametrize(("doc", "where"), [
    ({"guards": [{"id": "\ud800", "expr": "s0 >= 7"}, "s0 >= 0"]}, "guards[0].id"),
    ({"guards": ["s0 >= 7 \udfff"]}, "guards[0]"),
    ({"symbols": {"s\udc00": {"min": 1}}, "guards": ["s0 >= 1"]}, "symbols"),
    ({"guards": ["s0 >= 1"], "inputs": {"x": ["s0", "\ud83d"]}}, "inputs.x[1]"),
])
def test_text_that_is_not_valid_unicode_is_refused_with_its_place(doc: dict[str, Any], where: str) -> None:
    with pytest.raises(InvalidProblemError) as e:
        run("solve", doc)
    assert e.value.where == where
    e.value.to_json()["error"]["message"].encode("utf-8")  # the message itself can be written out


@pytest.mark.parametrize("op", ["solve", "redundancy", "evaluate", "shrink"])
def test_unbounded_integers(op: str) -> None:
    for v in (10**300, 10**309):
        res = run(op, {"symbols": {"s0": {"min": v}}, "guards": ["s0*s0 >= 4"], "queries": ["s0 + 1"]})
        assert res["status"] == "sat"
    with pytest.raises(TooLargeError) as e:
        run(op, {"symbols": {"s0": {"min": 10**5000}}, "guards": ["s0 >= 4"]})
    assert e.value.where == "symbols.s0.min"


def test_a_document_nested_past_the_limit_is_too_large() -> None:
    deep: Any = "s0 >= 1"
    for _ in range(100):
        deep = [deep]
    with pytest.raises(TooLargeError):
        run("solve", {"guards": deep})
