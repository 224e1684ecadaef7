"""``reason.restate``: guards restated under the other kept guards' facts, as lemmas of z3 checks.

The memo hands out a restatement only where every source it used is allowed; ``simpler`` keeps the
ones with fewer divisions; and redundancy with the restated forms in its scoped checks stays exact:
every verdict re-checked point by point on small boxes, with the levers before z3 switched off so
that z3 (and the lemmas) decide everything.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import pytest
from guard_grammar import Box, boxes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_redundancy import _check_redundancy

from symguard.solver import run
from symguard.solver.errors import InternalError
from symguard.solver.ir import terms as ir
from symguard.solver.ops import redundancy as red
from symguard.solver.reason.restate import Restater, simpler
from symguard.solver.smt.checker import Checker

X, Y = ir.mk_sym("x"), ir.mk_sym("y")
QX = ir.mk_floordiv(X, ir.mk_int(4))


def test_a_restatement_is_reused_while_its_sources_are_allowed() -> None:
    calls: list[tuple[int, frozenset[int]]] = []
    forms = {0: (ir.mk_le(QX, ir.mk_int(3)), frozenset({1, 2})), 1: (ir.mk_le(X, ir.mk_int(9)), frozenset())}

    def rewrite(j: int, banned: frozenset[int]) -> tuple[ir.Term, frozenset[int]]:
        calls.append((j, banned))
        t, used = forms[j]
        return (t, used) if not used & banned else (ir.mk_le(X, ir.mk_int(15)), frozenset())

    r = Restater(rewrite)
    assert r.get(0, {1, 2, 3}, frozenset({0})) == forms[0]
    assert r.get(0, {1, 2}, frozenset({0, 3})) == forms[0]  # still allowed: from the memo
    assert r.rewrites == 1
    # guard 2 is the goal now (or was dropped): made again without it, then both are kept
    assert r.get(0, {1, 3}, frozenset({0, 2})) == (ir.mk_le(X, ir.mk_int(15)), frozenset())
    assert r.get(0, {1, 2, 3}, frozenset({0})) == forms[0]  # the first one, first
    assert r.rewrites == 2 and [j for j, _ in calls] == [0, 0]


def test_a_restatement_using_a_source_outside_the_allowed_ones_is_refused() -> None:
    r = Restater(lambda j, banned: (ir.TRUE, frozenset({j, 5})))
    with pytest.raises(InternalError):
        r.get(1, {5}, frozenset({1}))
    with pytest.raises(InternalError):
        Restater(lambda j, banned: (ir.TRUE, frozenset({7}))).get(1, {5}, frozenset({1}))


@pytest.mark.parametrize(("new", "old", "want"), [
    (ir.mk_le(X, ir.mk_int(3)), ir.mk_le(QX, ir.mk_int(3)), True),  # a division gone
    (ir.TRUE, ir.mk_le(QX, ir.mk_int(3)), True),
    (ir.mk_le(QX, ir.mk_int(2)), ir.mk_le(QX, ir.mk_int(3)), False),  # as many: only moved around
    (ir.mk_le(ir.mk_add(QX, ir.mk_floordiv(Y, ir.mk_int(2))), ir.mk_int(3)), ir.mk_le(QX, ir.mk_int(3)), False),
    (ir.mk_le(X, Y), ir.mk_le(X, ir.mk_int(3)), False),  # no division to lose
])
def test_simpler_means_fewer_divisions(new: ir.Term, old: ir.Term, want: bool) -> None:
    assert simpler(new, old) is want


@contextmanager
def z3_only() -> Iterator[list[int]]:
    """Redundancy with every check scoped (so restated forms may join it) and no lever before z3:
    z3 decides each guard. Yields the lemma handles made."""
    made: list[int] = []
    real = Checker.lemma

    def lemma(self: Checker, t: ir.Term, *, negated: bool = False) -> int:
        h = real(self, t, negated=negated)
        made.append(h)
        return h

    with mock.patch.object(red, "SCOPED_MIN_GUARDS", 0), \
            mock.patch.object(red._Run, "decide_free", lambda self, i: None), \
            mock.patch.object(Checker, "lemma", lemma):
        yield made


def test_a_pinned_division_is_restated_away_and_the_core_names_its_sources() -> None:
    """``16 <= v <= 19`` makes ``(v + 8)//16`` and ``(v + 12)//16`` one: both products restate to
    ``w != 3``, and the core of the check that drops one (the first, in removal order) names the
    bound and the other."""
    doc = {"symbols": {"v": {"min": 16, "max": 40}, "w": {"min": 1, "max": 50}},
           "guards": ["v <= 19", "Ne(w*((v + 8)//16), 3)", "Ne(w*((v + 12)//16), 3)"]}
    with z3_only() as made:
        res = run("redundancy", doc)
    assert made
    rows = {g["id"]: g for g in res["guards"]}
    assert rows["g1"]["verdict"] == "redundant" and rows["g1"]["implied_by"] == ["g0", "g2"]
    assert res["minimal"] == ["g0", "g2"]


def test_without_restating_the_same_verdicts() -> None:
    doc = {"symbols": {"v": {"min": 16, "max": 40}, "w": {"min": 1, "max": 50}},
           "guards": ["v <= 19", "Ne(w*((v + 8)//16), 3)", "Ne(w*((v + 12)//16), 3)"]}
    with z3_only() as made, mock.patch.object(red, "RESTATE", False):
        res = run("redundancy", doc)
    assert not made
    assert [g["verdict"] for g in res["guards"]] == ["required", "redundant", "required"]


@st.composite
def pinned(draw: st.DrawFn) -> dict[str, Any]:
    """Boxes whose bound guards pin divisions of the other guards (what restating removes):
    ``x`` in a window of a few values, quotients ``(x + k)//d`` in products with ``y``."""
    lo = draw(st.integers(-6, 6))
    symbols = {"x": {"min": lo, "max": lo + 10}, "y": {"min": -3, "max": 4}}
    bound = st.tuples(st.sampled_from(["<=", ">=", "<", ">"]), st.integers(lo, lo + 10)).map(
        lambda p: f"x {p[0]} {p[1]}")
    quotient = st.tuples(st.integers(-3, 3), st.sampled_from([2, 3, 4, 8, -4])).map(
        lambda p: f"((x + {p[0]})//{p[1]})")
    product = st.tuples(quotient, st.sampled_from(["y", "(y + 1)", "x"])).map(lambda p: f"{p[0]}*{p[1]}")
    side = st.one_of(product, quotient, st.tuples(product, quotient).map(lambda p: f"{p[0]} + {p[1]}"))
    rel = st.tuples(side, st.sampled_from(["<", "<=", ">=", "==", "!="]), st.integers(-4, 6)).map(
        lambda p: f"{p[0]} {p[1]} {p[2]}")
    guards = draw(st.lists(bound, min_size=1, max_size=2)) + draw(st.lists(rel, min_size=2, max_size=4))
    return {"symbols": symbols, "asserts": [], "guards": draw(st.permutations(guards)),
            "options": {"timeout_ms": 30_000}}


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(pinned(), pinned(), pinned(), boxes()))
def test_verdicts_with_restated_lemmas_hold_on_every_point(doc: dict[str, Any]) -> None:
    with z3_only():
        _check_redundancy(doc, Box(doc))


# ``by_restated``: the walk on the restated forms, where one-size guards pin another size's divisions
PINNED = {"symbols": {"b": {"min": 1, "max": 8, "hint": 2}, "h": {"min": 20, "max": 200, "hint": 32},
                      "w": {"min": 8, "max": 64, "hint": 16}},
          "guards": ["w <= 19", "w >= 16", "Ne((b*((h + 12)//16))//(((w + 8)//16)*((h + 8)//16)), 0)",
                     "(b*((h + 12)//16))//(((w + 8)//16)*((h + 8)//16)) >= b + 1"]}


def test_the_walk_on_restated_forms_takes_the_pinned_size_out() -> None:
    """On ``16 <= w <= 19`` every quotient of ``w`` is one: the goal the restated walk gets is
    over ``b`` and ``h`` alone, its facts too, and every verdict holds point by point."""
    walked: list[tuple[int, int]] = []
    real = red._Run.by_restated
    walk = red.multivariate.counterexample

    def spy(self: red._Run, i: int) -> list[int] | None:
        def counted(goal: ir.Term, facts: list[ir.Term], *a: Any) -> Any:
            walked.append((len(ir.symbols_of(goal)), len(self.syms[i])))
            assert all(ir.symbols_of(f) <= ir.symbols_of(goal) for f in facts)
            return walk(goal, facts, *a)

        with mock.patch.object(red.multivariate, "counterexample", counted):
            return real(self, i)

    with mock.patch.object(red._Run, "by_multivariate", lambda self, i: None), \
            mock.patch.object(red._Run, "by_restated", spy):
        _check_redundancy(PINNED, Box(PINNED))
    assert walked and all(mine < theirs for mine, theirs in walked)


@st.composite
def pinned3(draw: st.DrawFn) -> dict[str, Any]:
    """Three sizes, one of them held to a window by one-size guards, its quotients in products
    with the other two: what the walk on restated forms is for."""
    lo = draw(st.integers(0, 8))
    symbols = {"x": {"min": lo, "max": lo + 8}, "y": {"min": 0, "max": 4}, "z": {"min": 1, "max": 3}}
    a = draw(st.integers(lo, lo + 8))
    window = [f"x >= {a}", f"x <= {a + draw(st.integers(0, 2))}"]  # (a window that may not pin)
    quotient = st.tuples(st.integers(0, 3), st.sampled_from([2, 4, 8])).map(lambda p: f"((x + {p[0]})//{p[1]})")
    product = st.tuples(quotient, st.sampled_from(["y*z", "(y + 1)*z", "y"])).map(lambda p: f"{p[0]}*{p[1]}")
    rel = st.tuples(product, st.sampled_from(["<", "<=", ">=", "==", "!="]), st.integers(-1, 6)).map(
        lambda p: f"{p[0]} {p[1]} {p[2]}")
    guards = window + draw(st.lists(rel, min_size=2, max_size=4))
    return {"symbols": symbols, "asserts": [], "guards": draw(st.permutations(guards)),
            "options": {"timeout_ms": 30_000}}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pinned3())
def test_verdicts_with_the_restated_walk_hold_on_every_point(doc: dict[str, Any]) -> None:
    with mock.patch.object(red._Run, "by_multivariate", lambda self, i: None):
        _check_redundancy(doc, Box(doc))


def test_on_sam2s_windows_the_restated_walk_decides_guards_of_its_own() -> None:
    """SAM 2's Hiera-Det export set (smt2_corpus/torch, budgeted): there the restated walk is what
    decides some guards (the unit tests above switch the ordinary walk off to see it at all), and
    the answer is the manifest's."""
    import json
    from pathlib import Path

    corpus = Path(__file__).resolve().parent.parent / "smt2_corpus" / "torch"
    name = "sam2_hiera_w4_93x61_export.json"
    doc = json.loads((corpus / name).read_text())
    doc.pop("meta", None)
    decided = []
    by_restated = red._Run.by_restated

    def counting(self: red._Run, i: int) -> list[int] | None:
        got = by_restated(self, i)
        if got is not None:
            decided.append(i)
        return got

    with mock.patch.object(red._Run, "by_restated", counting):
        res = run("redundancy", {**doc, "options": {"timeout_ms": 600_000}})
    assert decided, "the restated walk decided nothing"
    want = json.loads((corpus / "MANIFEST.json").read_text())[name]
    verdicts: dict[str, int] = {}
    for g in res["guards"]:
        verdicts[g["verdict"]] = verdicts.get(g["verdict"], 0) + 1
    assert verdicts == want["verdicts"] and len(res["minimal"]) == want["minimal"]
