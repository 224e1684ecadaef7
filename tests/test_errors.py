"""docs/problem-format.md §5 bad input: every error code with its ``where`` and ``offset``; code is never run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from symguard.solver import (
    BadInput,
    InvalidProblemError,
    ParseError,
    TooLargeError,
    UnsupportedError,
    load_problem,
    run,
)


def _err(doc: dict[str, Any], op: str = "solve") -> BadInput:
    with pytest.raises(BadInput) as e:
        run(op, doc)
    return e.value


PARSE = [
    ("s0 >=", "parse_error"),
    ("s0 >= 2)", "parse_error"),
    ("Eq(s0)", "parse_error"),
    ("(1, 2)", "parse_error"),
    ("", "parse_error"),
]


@pytest.mark.parametrize(("expr", "code"), PARSE)
def test_parse_errors_name_the_guard(expr: str, code: str) -> None:
    e = _err({"guards": ["s0 > 1", expr]})
    assert e.code == code and e.where == "guards[1]"
    assert e.offset is None or 0 <= e.offset <= len(expr)


UNSUPPORTED = [
    ("s0*1.5 + s1 >= 1", "1.5"),  # float arithmetic of two sizes (one size with literals is read: §1.2)
    ("sqrt(s0) >= 2", "sqrt"),
    ("ToFloat(s0) >= s1", "ToFloat"),
    ("OpaqueUnaryFn_exp(s0) >= 2", "OpaqueUnaryFn_exp"),
    ("Mod(s0 / 2, 3) >= 1", "/"),  # '/' compared is exact (§1.2); its value used as an integer is not
    ("s0 >= oo", "oo"),
    ("s0 ** s1 >= 2", "**"),
]


@pytest.mark.parametrize(("expr", "construct"), UNSUPPORTED)
def test_unsupported_constructs_are_named(expr: str, construct: str) -> None:
    e = _err({"asserts": ["s1 >= 0"], "guards": [expr]})
    assert isinstance(e, UnsupportedError) and e.where == "guards[0]"
    assert e.offset is not None and 0 <= e.offset < len(expr)


def test_offset_points_at_the_construct() -> None:
    e = _err({"guards": ["s0 + 1 >= sqrt(s0)"]})
    assert e.offset == len("s0 + 1 >= ")


@pytest.mark.parametrize("op", ["solve", "redundancy"])
def test_on_unsupported_skip(op: str) -> None:
    doc = {"guards": ["s0 >= 4", {"id": "f", "expr": "ToFloat(s0) > s1"}, "s0 >= 2"],
           "options": {"on_unsupported": "skip"}}
    res = run(op, doc)
    assert any("f" in w and "unsupported" in w for w in res["warnings"])
    if op == "redundancy":
        v = {g["id"]: g["verdict"] for g in res["guards"]}
        assert v == {"g0": "required", "f": "unsupported", "g2": "redundant"}
        assert res["minimal"] == ["g0", "f"]
    else:
        assert res["status"] == "sat" and res["model"]["s0"] >= 4


INVALID = [
    ({"symbols": []}, "symbols"),
    ({"symbols": {"s0": {"min": "1"}}}, "symbols.s0.min"),
    ({"symbols": {"s0": {"min": 5, "max": 4}}}, "symbols.s0"),
    ({"symbols": {"s0": {"lo": 1}}}, "symbols.s0"),
    ({"symbols": {"1x": {}}}, "symbols.1x"),
    ({"symbols": {"s0": {"min": True}}}, "symbols.s0.min"),
    ({"guards": [{"id": "g", "expr": "s0 > 1"}, {"id": "g", "expr": "s0 > 2"}]}, "guards[1]"),
    ({"asserts": [{"id": "x", "expr": "s0 > 1"}], "guards": [{"id": "x", "expr": "s0 > 2"}]}, "guards[0]"),
    ({"guards": ["s0 + 1"]}, "guards[0]"),
    ({"guards": [3]}, "guards[0]"),
    ({"guards": "s0 > 1"}, "guards"),
    ({"guards": [{"expr": "s0 > 1", "why": 1}]}, "guards[0]"),
    ({"options": {"prefer": "fast"}}, "options.prefer"),
    ({"options": {"timeout_ms": 0}}, "options.timeout_ms"),
    ({"options": {"colour": 1}}, "options.colour"),
]


@pytest.mark.parametrize(("doc", "where"), INVALID, ids=[w for _, w in INVALID])
def test_invalid_problem(doc: dict[str, Any], where: str) -> None:
    e = _err(doc)
    assert isinstance(e, InvalidProblemError) and e.where == where, e


def test_unknown_top_level_field() -> None:
    e = _err({"guards": [], "gaurds": ["s0 > 1"]})
    assert isinstance(e, InvalidProblemError) and "gaurds" in str(e)


def test_unknown_operation() -> None:
    with pytest.raises(InvalidProblemError):
        run("optimize", {})


TOO_LARGE = [
    "s0**10**10 > 1",
    "s0 ** 100000 > 1",
    "(" * 500 + "s0" + ")" * 500 + " > 1",
    "s0 > " + "9" * 10_000,
    "s0 > " + " + ".join(["s0"] * 40_000),
]


@pytest.mark.parametrize("expr", TOO_LARGE, ids=["tower", "exp", "deep", "digits", "long"])
def test_too_large(expr: str) -> None:
    with pytest.raises((TooLargeError, UnsupportedError)) as e:  # s0**10**10: a non-literal exponent
        run("solve", {"guards": [expr]})
    assert e.value.where == "guards[0]"


def test_huge_integers_in_json_are_too_large() -> None:
    with pytest.raises(TooLargeError):
        load_problem({"symbols": {"s0": {"max": 10**20000}}})


INJECTIONS = [
    "__import__('os').system('touch {p}')",
    "().__class__.__bases__[0].__subclasses__()",
    "(lambda: open('{p}', 'w'))() > 0",
    "s0.real > 0",
    "[s0][0] > 0",
    "f'{{s0}}' > 0",
    "open('{p}', 'w') > 0",
    "exec('open(\"{p}\", \"w\")')",
    "s0 if s0 else s0",
    "[x for x in range(10**9)]",
    "{{1: 2}}",
    "s0 := 3",
]


@pytest.mark.parametrize("template", INJECTIONS)
def test_code_is_never_run(template: str, tmp_path: Path) -> None:
    sentinel = tmp_path / "sentinel"
    expr = template.format(p=sentinel)
    with pytest.raises((ParseError, UnsupportedError)) as e:
        run("solve", {"guards": [expr]})
    assert e.value.where == "guards[0]"
    assert not sentinel.exists()
