"""``solve`` and ``redundancy`` against brute-force enumeration on small bounded boxes.

Random guards from a small grammar (``//``, ``%``, Max, Min, products, negative divisors) over
2–3 symbols with explicit small ranges: every verdict, model, core and minimal set is re-checked
point by point with Python's own integers (``pyeval``). Also: tables of known answers.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver import load_problem, run
from solver.pyeval import holds

NAMES = ["x", "y", "z"]


# ------------------------------------------------------------------ generators

def _terms(names: list[str]) -> st.SearchStrategy[str]:
    leaf = st.one_of(st.sampled_from(names), st.integers(-4, 6).map(str))

    def extend(t: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        div = st.sampled_from(["-3", "-2", "2", "3"])
        return st.one_of(
            st.tuples(t, t).map(lambda p: f"({p[0]} + {p[1]})"),
            st.tuples(t, t).map(lambda p: f"({p[0]} - {p[1]})"),
            st.tuples(t, t).map(lambda p: f"({p[0]})*({p[1]})"),
            st.tuples(t, div).map(lambda p: f"({p[0]}) // {p[1]}"),
            st.tuples(t, div).map(lambda p: f"({p[0]}) % {p[1]}"),
            st.tuples(t, st.sampled_from(names)).map(lambda p: f"FloorDiv({p[0]}, {p[1]})"),
            st.tuples(t, t).map(lambda p: f"Max({p[0]}, {p[1]})"),
            st.tuples(t, t).map(lambda p: f"Min({p[0]}, {p[1]})"),
        )

    return st.recursive(leaf, extend, max_leaves=4)


def _conds(names: list[str]) -> st.SearchStrategy[str]:
    t = _terms(names)
    rel = st.sampled_from(["<", "<=", ">", ">=", "==", "!="])
    atom = st.tuples(t, rel, t).map(lambda p: f"{p[0]} {p[1]} {p[2]}")
    return st.one_of(atom, atom, st.tuples(atom, atom).map(lambda p: f"({p[0]}) | ({p[1]})"))


@st.composite
def boxes(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(2, 3))
    names = NAMES[:n]
    symbols = {}
    for s in names:
        lo = draw(st.integers(-4, 3))
        symbols[s] = {"min": lo, "max": lo + draw(st.integers(0, 5))}
    asserts = draw(st.lists(_conds(names), max_size=2))
    guards = draw(st.lists(_conds(names), min_size=1, max_size=5))
    prefer = draw(st.sampled_from(["cheap", "order"]))
    return {"symbols": symbols, "asserts": asserts, "guards": guards,
            "options": {"prefer": prefer, "timeout_ms": 30_000}}


# ------------------------------------------------------------------ brute force

def _points(doc: dict[str, Any]) -> list[dict[str, int]]:
    names = list(doc["symbols"])
    ranges = [range(d["min"], d["max"] + 1) for d in doc["symbols"].values()]
    return [dict(zip(names, vals)) for vals in itertools.product(*ranges)]


class Box:
    """The problem's constraints as Python predicates over the box's points."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.p = load_problem(doc)
        self.points = _points(doc)
        self.asserts = [c.term for c in self.p.asserts]
        self.guard = {c.id: c.term for c in self.p.guards}

    def sat(self, pt: dict[str, int], ids: list[str], *, with_asserts: bool = True) -> bool:
        terms = (self.asserts if with_asserts else []) + [self.guard[i] for i in ids]
        return all(holds(t, pt) for t in terms)

    def where(self, ids: list[str]) -> list[dict[str, int]]:
        return [pt for pt in self.points if self.sat(pt, ids)]

    def implies(self, ids: list[str], target: str) -> bool:
        return all(holds(self.guard[target], pt) for pt in self.where(ids))


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


def _check_redundancy(doc: dict[str, Any], box: Box) -> dict[str, Any]:
    res = run("redundancy", doc)
    ids = list(box.guard)
    assert [g["id"] for g in res["guards"]] == ids
    status = "sat" if box.where(ids) else "unsat"
    assert res["status"] == status
    minimal = res["minimal"]
    assert minimal == [i for i in ids if i in set(minimal)], "minimal is in input order"
    base = box.where([])
    for row in res["guards"]:
        g, v = row["id"], row["verdict"]
        if v == "always_true":
            assert all(holds(box.guard[g], pt) for pt in base), row
        elif v == "always_false":
            assert not any(holds(box.guard[g], pt) for pt in base), row
        elif v == "redundant" and status == "sat":
            assert g not in minimal
            assert set(row["implied_by"]) <= set(minimal), row
            assert box.implies(row["implied_by"], g), row
            assert row["implied_by"] == [i for i in ids if i in set(row["implied_by"])], "input order"
        elif v in ("required", "unknown", "unsupported"):
            assert g in minimal, row
    if status == "sat":
        # equivalent: the same points; irredundant: no kept guard implied by the others
        assert box.where(minimal) == box.where(ids)
        verdict = {r["id"]: r["verdict"] for r in res["guards"]}
        for g in minimal:
            if verdict[g] != "unknown":
                assert not box.implies([h for h in minimal if h != g], g), (g, minimal)
    else:
        assert not box.where(minimal), "an unsat minimal set stays unsat"
    return res


# ------------------------------------------------------------------ properties

@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boxes())
def test_solve_agrees_with_enumeration(doc: dict[str, Any]) -> None:
    _check_solve(doc, Box(doc))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boxes())
def test_redundancy_verdicts_hold_on_every_point(doc: dict[str, Any]) -> None:
    box = Box(doc)
    first = _check_redundancy(doc, box)
    again = run("redundancy", doc)
    for k in ("status", "guards", "minimal", "key"):
        assert again[k] == first[k], "deterministic"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boxes())
def test_prefer_order_and_cheap_are_both_valid(doc: dict[str, Any]) -> None:
    box = Box(doc)
    for prefer in ("cheap", "order"):
        d = dict(doc, options={"prefer": prefer, "timeout_ms": 30_000})
        _check_redundancy(d, box)


# ------------------------------------------------------------------ known answers

KNOWN: list[tuple[str, dict[str, Any], dict[str, str], list[str]]] = [
    ("chain", {"guards": ["s0 >= 16", "s0 >= 8", "s0 >= 4"]},
     {"g0": "required", "g1": "redundant", "g2": "redundant"}, ["g0"]),
    ("assert_implies", {"asserts": ["s0 >= 10"], "guards": ["s0 >= 8", "s0 <= 5"]},
     {"g0": "always_true", "g1": "always_false"}, []),
    # regression: with A & G unsat, a guard implied by the asserts alone was reported "redundant"
    ("unsat_always_true", {"asserts": ["s0 >= 10"], "guards": ["s0 * s0 >= 100", "s0 < 10 * s1", "s1 < 1"]},
     {"g0": "always_true", "g1": "required", "g2": "required"}, []),
    ("duplicate", {"guards": ["s0 > 3", "Lt(3, s0)", "s0 >= 4"]},
     {"g0": "required", "g1": "redundant", "g2": "redundant"}, ["g0"]),
    ("mod_negative", {"symbols": {"s0": {"min": -20, "max": 20}},
                      "guards": ["Eq(s0 % -4, 0)", "Eq(s0 % 2, 0)", "s0 % -4 <= 0"]},
     {"g0": "required", "g1": "redundant", "g2": "always_true"}, ["g0"]),
    ("floordiv_range", {"symbols": {"s0": {"min": 0, "max": 100}},
                        "guards": ["s0 // 8 >= 2", "s0 >= 16", "Max(s0, 3) >= 16"]},
     {"g0": "required", "g1": "redundant", "g2": "redundant"}, ["g0"]),  # s0 // 8 >= 2 <=> s0 >= 16
]


@pytest.mark.parametrize(("name", "doc", "verdicts", "minimal"), KNOWN, ids=[k[0] for k in KNOWN])
def test_known_answers(name: str, doc: dict[str, Any], verdicts: dict[str, str], minimal: list[str]) -> None:
    res = run("redundancy", dict(doc, options={"prefer": "order"}))
    assert {g["id"]: g["verdict"] for g in res["guards"]} == verdicts
    if res["status"] == "sat":
        assert res["minimal"] == minimal


def test_implied_by_is_in_input_order() -> None:
    # canonical order sorts guards by text; the caller's order must come back
    doc = {"symbols": {"b": {"min": 0, "max": 50}, "a": {"min": 0, "max": 50}},
           "guards": [{"id": "z_last", "expr": "a >= 10"}, {"id": "m_mid", "expr": "b >= 10"},
                      {"id": "a_sum", "expr": "a + b >= 20"}]}
    res = run("redundancy", doc)
    rows = {g["id"]: g for g in res["guards"]}
    assert rows["a_sum"]["verdict"] == "redundant"
    assert rows["a_sum"]["implied_by"] == ["z_last", "m_mid"]
    assert res["minimal"] == ["z_last", "m_mid"]


Check = Callable[[dict[str, Any], Box], Any]


@pytest.mark.parametrize("check", [_check_solve, _check_redundancy])
def test_unsat_box(check: Check) -> None:
    doc = {"symbols": {"x": {"min": -3, "max": 3}, "y": {"min": -3, "max": 3}},
           "asserts": ["x + y >= 5"], "guards": ["x // -2 >= 0", "y % -3 == 0", "x > y"]}
    check(doc, Box(doc))
