"""``solve`` and ``redundancy`` against brute-force enumeration on small bounded boxes.

Random guards from a small grammar (``//``, ``%``, Max, Min, products, negative divisors) over
2–3 symbols with explicit small ranges: every verdict, model, core and minimal set is re-checked
point by point with Python's own integers (``pyeval``). Also: tables of known answers.
"""

from __future__ import annotations

from typing import Any

import pytest
from guard_grammar import Box, boxes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symguard.solver import load_problem, run
from symguard.solver.ir.pyeval import holds


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
    # FocalNet's reshape sizes: w*w // (2*w) with w = s//4 is s//8 (the shared w cancels), so
    # g3 is g2 spelled twice over and g4 (s >= 16) follows from s = 0 mod 16
    ("shared_factor", {"symbols": {"s": {"min": 2, "hint": 64}},
                       "guards": ["Eq(Mod(s, 4), 0)", "Eq(Mod(s//4, 2), 0)", "Eq(Mod(s//8, 2), 0)",
                                  "Eq(Mod(((s//4)*(s//4))//(2*(s//4)), 2), 0)", "((s//4)*(s//4))//(2*(s//4)) >= 2"]},
     {"g0": "required", "g1": "required", "g2": "required", "g3": "redundant", "g4": "redundant"},
     ["g0", "g1", "g2"]),
    # a product of sizes with a factor >= 2 is never 1; CeilDiv's -((-s)//4) within one period
    ("never_one", {"symbols": {"s": {"min": 2, "hint": 8}, "t": {"min": 2, "hint": 40}},
                   "guards": ["Ne(s*(t//20 - 1), 1)", "Ne(Mod(-1, -s), 0)", "t >= 40"]},
     {"g0": "always_true", "g1": "always_true", "g2": "required"}, ["g2"]),
]


@pytest.mark.parametrize(("name", "doc", "verdicts", "minimal"), KNOWN, ids=[k[0] for k in KNOWN])
def test_known_answers(name: str, doc: dict[str, Any], verdicts: dict[str, str], minimal: list[str]) -> None:
    res = run("redundancy", dict(doc, options={"prefer": "order"}))
    assert {g["id"]: g["verdict"] for g in res["guards"]} == verdicts
    if res["status"] == "sat":
        assert res["minimal"] == minimal


def test_products_and_small_dividends_settle_without_z3() -> None:
    """The shapes above need no solver call: their canonical forms are constants."""
    doc = {"symbols": {"s": {"min": 16, "hint": 64}, "t": {"min": 16, "hint": 64}},
           "guards": ["Ne(s*(t//20 - 1), 1)", "Eq((-6*((-s)//4) - 1)//(-2*((-s)//4)), 2)", "s >= 64"]}
    res = run("redundancy", doc)
    assert [g["verdict"] for g in res["guards"]] == ["always_true", "always_true", "required"]
    assert res["stats"]["checks"] == 0


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


def test_implied_by_never_names_a_guard_outside_minimal() -> None:
    # regression: g0 repeats the assert and shares its selector; the removal core of g2 held that
    # selector and implied_by named g0 (always_true, not kept) instead of the assert
    res = run("redundancy", {"asserts": ["s0 >= s1"], "guards": ["s0 >= s1", "s1 >= 5", "s0 >= 5"],
                             "options": {"prefer": "order"}})
    assert [g["verdict"] for g in res["guards"]] == ["always_true", "required", "redundant"]
    assert res["guards"][2]["implied_by"] == ["g1"] and res["minimal"] == ["g1"]


def test_unsat_box() -> None:
    doc = {"symbols": {"x": {"min": -3, "max": 3}, "y": {"min": -3, "max": 3}},
           "asserts": ["x + y >= 5"], "guards": ["x // -2 >= 0", "y % -3 == 0", "x > y"]}
    _check_redundancy(doc, Box(doc))


def test_one_contradicting_guard_is_the_whole_minimal_set() -> None:
    """A & g unsat for one guard: {g} is a minimal core, every other guard is implied (vacuously).
    The others must not be reported `required` (they are not needed to make the set unsat)."""
    res = run("redundancy", {"symbols": {"s0": {"min": 2}, "s1": {"min": 2}},
                             "guards": ["s0*s1 >= 7", "Eq(Mod(s0*s1, 3), 1)", "s0 < 2", "s1 >= 4"]})
    assert res["status"] == "unsat"
    assert res["minimal"] == ["g2"]
    assert {g["id"]: g["verdict"] for g in res["guards"]}["g2"] == "always_false"
    assert all(g["verdict"] == "redundant" and g["implied_by"] == ["g2"] for g in res["guards"] if g["id"] != "g2")


# ------------------------------------------------------------------ equalities and residues

@st.composite
def with_equalities(draw: st.DrawFn) -> dict[str, Any]:
    """A box problem plus duck-sizing equalities (``Eq(x, y)``, ``Eq(x, k)``) and periodic guards
    (padding, patch merging): the ``equalities`` and ``periodic`` levers get work."""
    doc = draw(boxes())
    names = list(doc["symbols"])
    extra = draw(st.lists(st.one_of(
        st.tuples(st.sampled_from(names), st.sampled_from(names)).map(lambda p: f"Eq({p[0]}, {p[1]})"),
        st.tuples(st.sampled_from(names), st.integers(-2, 3)).map(lambda p: f"Eq({p[0]}, {p[1]})"),
        st.tuples(st.sampled_from(names), st.sampled_from([2, 4])).map(
            lambda p: f"Mod({p[1]} - Mod({p[0]}, {p[1]}), {p[1]}) + {p[0]} >= {p[0]}"),
        st.tuples(st.sampled_from(names), st.sampled_from(names)).map(
            lambda p: f"Ne(({p[0]}//2 + 1)*({p[1]}//2 + 1), {p[0]}//2 + 1)"),
        st.sampled_from(names).map(lambda s: f"Eq((({s}//4) + Mod(({s}//4) + 1, 2) + 1)//2, "
                                             f"((({s}//4) + Mod(({s}//4) + 1, 2))//2) + 1)"),
    ), min_size=1, max_size=4))
    for g in extra:
        doc["guards"].insert(draw(st.integers(0, len(doc["guards"]))), g)
    return doc


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(with_equalities())
def test_equalities_and_residue_verdicts_hold_on_every_point(doc: dict[str, Any]) -> None:
    _check_redundancy(doc, Box(doc))


@st.composite
def with_hints_and_ties(draw: st.DrawFn) -> dict[str, Any]:
    """A box problem whose symbols have hints and an assert that ties two of them: the levers build
    points from the hints and one value their own facts allow, which such an assert can refuse."""
    doc = draw(boxes())
    names = list(doc["symbols"])
    for s in names:
        r = doc["symbols"][s]
        r["hint"] = draw(st.integers(r["min"], r["max"]))
    x, y = draw(st.permutations(names))[:2]
    k, c = draw(st.integers(2, 3)), draw(st.integers(-2, 2))
    r = draw(st.integers(0, k - 1).filter(lambda r: r != c % k))  # the assert makes the guard true
    doc["asserts"] = [*doc["asserts"], f"Eq({x}, {k}*{y} + {c})"]
    doc["guards"].insert(draw(st.integers(0, len(doc["guards"]))), f"Ne(Mod({x}, {k}), {r})")
    return doc


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(with_hints_and_ties())
def test_a_required_verdict_holds_under_asserts_that_tie_symbols(doc: dict[str, Any]) -> None:
    _check_redundancy(doc, Box(doc))


def test_a_point_that_breaks_an_assert_proves_nothing() -> None:
    """``x = 3*y + 1`` makes ``x % 3`` one: the one-symbol lever's counterexample ``x = 3`` (with
    ``y`` at its hint) breaks the assert, and once made the guard ``required``."""
    doc = {"symbols": {"x": {"min": 1, "max": 100, "hint": 4}, "y": {"min": 1, "max": 30, "hint": 1}},
           "asserts": ["Eq(x, 3*y + 1)"], "guards": ["Ne(Mod(x, 3), 0)", "x >= 1"]}
    assert [g["verdict"] for g in run("redundancy", doc)["guards"]] == ["always_true", "always_true"]


def test_transitive_equalities_name_their_path() -> None:
    doc = {"symbols": {s: {"min": 2, "hint": 8} for s in ("a", "b", "c", "d")},
           "guards": ["Eq(a, b)", "Eq(b, c)", "Eq(c, d)", "Eq(a, d)", "a*d >= 16"],
           "options": {"prefer": "order"}}
    res = run("redundancy", doc)
    rows = {r["id"]: r for r in res["guards"]}
    assert rows["g3"]["verdict"] == "redundant" and rows["g3"]["implied_by"] == ["g0", "g1", "g2"], rows["g3"]
    assert rows["g4"]["verdict"] == "required"
    assert res["stats"]["levers"]["equalities"] >= 1


def test_a_residue_case_closed_by_a_kept_guard_names_that_guard() -> None:
    """``Ne(Mod(x, 4), 1)`` from ``Eq(Mod(x, 2), 0)``: in the case ``x = 4q + 1`` the negated guard
    holds and the kept guard is False, so the kept guard is the proof (found by the stress bench:
    such a case was once skipped as pointless and its guard left out of ``implied_by``)."""
    from symguard.solver.ops.redundancy import _Run
    from symguard.solver.smt.checker import Deadline

    p = load_problem({"symbols": {"x": {"min": 0}}, "guards": ["Eq(Mod(x, 2), 0)", "Ne(Mod(x, 4), 1)"]})
    r = _Run(p, Deadline(10_000))
    assert r.by_periodic(1, [0], z3_budget=None) == [0]
    assert r.by_periodic(1, [], z3_budget=None) is None  # alone it is not always true


def test_a_one_symbol_guard_is_always_true_through_an_assert_over_two_symbols() -> None:
    """Issue 25: the exact one-symbol walk sees only the asserts over that symbol; a failing point
    there is no point of the asserts when one of them ties the symbol to another (s1 > s0 >= 2
    makes s1 >= 3 always true, though s1 = 2 is in s1's range)."""
    res = run("redundancy", {"symbols": {"s0": {"min": 0, "max": 100}, "s1": {"min": 0, "max": 100}},
                             "asserts": ["2 <= s0 < s1 <= 64"], "guards": ["s1 >= 3", "s0 > 4"]})
    assert [g["verdict"] for g in res["guards"]] == ["always_true", "required"]


def test_a_pass_that_settled_satisfiability_beats_one_that_did_not(monkeypatch: pytest.MonkeyPatch) -> None:
    """Of the two passes, one whose status is ``unknown`` (its effort share ran out in the
    satisfiability check) is never the answer when the other settled it, even with as many
    ``unknown`` guards and a smaller ``minimal``: a caller keeps every guard of an answer whose
    status is unknown (a real Swin trace was answered so, every guard kept)."""
    import symguard.solver.ops.redundancy as red

    def answer(status: str, minimal: list[str]) -> dict[str, Any]:
        return {"status": status, "minimal": minimal, "stats": {"walk": 0},
                "guards": [{"id": "g0", "verdict": "unknown"}, {"id": "g1", "verdict": "redundant"},
                           {"id": "g2", "verdict": "required"}]}

    from types import SimpleNamespace

    from symguard.solver.smt.checker import Deadline

    passes = iter([(answer("unknown", ["g0"]), SimpleNamespace(hard=3, pool=None)),
                   (answer("sat", ["g0", "g2"]), SimpleNamespace(hard=3, pool=None))])
    monkeypatch.setattr(red, "_collapsed", lambda problem, deadline, collapse, then=None: next(passes))
    problem = load_problem({"guards": ["s0 >= 1", "s0 >= 2", "s0 >= 3"]})  # the passes are stubbed
    out = red.redundancy(problem, Deadline(60_000, budget_units=600_000))
    assert out["status"] == "sat" and out["minimal"] == ["g0", "g2"] and out["stats"]["passes"] == 2
