"""docs/problem-format.md §3: the key is invariant under renaming, permutation, duplication and ids; a result for
the renamed problem is the same result in the caller's own names and ids."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from guard_grammar import boxes, conds, terms
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symguard.solver import load_problem, prepare, run
from symguard.solver.ir.pyeval import holds


def _rename(text: str, names: dict[str, str]) -> str:
    return re.sub(r"\b[a-z]\b", lambda m: names.get(m.group(0), m.group(0)), text)


def _variant(doc: dict[str, Any], perm_a: list[int], perm_g: list[int], dup: bool) -> tuple[dict[str, Any], dict[str, str], dict[str, str]]:
    """Renamed symbols (declared in reverse), permuted and relabelled entries, one guard repeated."""
    names = {s: f"n_{s}{i}" for i, s in enumerate(doc["symbols"])}
    symbols = {names[s]: d for s, d in reversed(list(doc["symbols"].items()))}
    a = [{"id": f"A{i}", "expr": _rename(doc["asserts"][i], names)} for i in perm_a]
    g = [{"id": f"G{i}", "expr": _rename(doc["guards"][i], names)} for i in perm_g]
    if dup and g:
        g.append({"id": "dup", "expr": g[0]["expr"]})
    gid = {f"g{i}": f"G{i}" for i in range(len(doc["guards"]))}
    return {"symbols": symbols, "asserts": a, "guards": g, "options": doc["options"]}, names, gid


@st.composite
def variants(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any], dict[str, str], dict[str, str]]:
    doc = draw(boxes())
    doc["options"] = {"prefer": "cheap", "timeout_ms": 30_000}
    if draw(st.booleans()):  # distinct hints: colour refinement separates every symbol
        for i, d in enumerate(doc["symbols"].values()):
            d["hint"] = 100 + i  # need not lie in the range: only shrink reads hints
    pa = draw(st.permutations(range(len(doc["asserts"]))))
    pg = draw(st.permutations(range(len(doc["guards"]))))
    v, names, gid = _variant(doc, list(pa), list(pg), draw(st.booleans()))
    return doc, v, names, gid


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variants())
def test_key_invariant_and_answers_mapped_back(case: tuple[Any, ...]) -> None:
    doc, var, _names, _gid = case
    if all("hint" in d for d in doc["symbols"].values()):
        # without distinct hints a tie that refinement cannot break falls back to declaration
        # order (canonical docstring): a possible cache miss, never a wrong answer (checked below)
        assert prepare(doc)[1].key == prepare(var)[1].key
    r0, r1 = run("solve", doc), run("solve", var)
    assert r0["status"] == r1["status"]
    if r1["status"] == "sat":  # the renamed model satisfies the renamed problem
        p = load_problem(var)
        assert set(r1["model"]) == set(var["symbols"])
        assert all(holds(c.term, r1["model"]) for c in p.asserts + p.guards)
    else:
        ids = {e["id"] for e in var["asserts"] + var["guards"]}
        assert set(r1["core"]) <= ids
    d0, d1 = run("redundancy", doc), run("redundancy", var)
    assert [g["id"] for g in d1["guards"]] == [g["id"] for g in var["guards"]]
    assert d0["status"] == d1["status"]
    if d0["key"] == d1["key"]:  # one canonical problem: one answer, in each caller's ids
        # guards that share a canonical form are one canonical guard: which of them is kept follows
        # the caller's order, so compare per canonical guard, not per caller id
        assert _per_canonical_guard(doc, d0) == _per_canonical_guard(var, d1)


def _per_canonical_guard(doc: dict[str, Any], res: dict[str, Any]) -> dict[int, tuple[bool, frozenset[str]]]:
    canon = prepare(doc)[1]
    groups: dict[int, list[dict[str, Any]]] = {}
    for k, row in enumerate(res["guards"]):
        groups.setdefault(canon.guards[k], []).append(row)
    out = {}
    for ci, rows in groups.items():
        kept = [r["verdict"] for r in rows if r["id"] in res["minimal"]]
        out[ci] = (bool(kept), frozenset(kept or (r["verdict"] for r in rows)))
    return out


def test_spellings_share_a_key() -> None:
    keys = {prepare({"guards": [g]})[1].key for g in ["s0 < s1", "s1 > s0", "Lt(s0, s1)", "s0 + 1 <= s1"]}
    assert len(keys) == 1


def test_options_and_ranges_are_part_of_the_key() -> None:
    base = {"symbols": {"s0": {"min": 2}}, "guards": ["s0 > 3"]}
    k = prepare(base)[1].key
    assert prepare({**base, "symbols": {"s0": {"min": 3}}})[1].key != k
    assert prepare({**base, "options": {"prefer": "order"}})[1].key != k
    assert prepare({**base, "guards": ["s0 > 4"]})[1].key != k


def test_cached_answer_in_callers_names() -> None:
    from symguard.solver import compute, finish

    a = {"symbols": {"s0": {"min": 2, "max": 9}, "s1": {"min": 0}}, "guards": ["s1 >= 2*s0 + 1", "s1 >= 3"]}
    b = {"symbols": {"w": {"min": 0}, "h": {"min": 2, "max": 9}},
         "guards": [{"id": "big", "expr": "w >= 3"}, {"id": "rel", "expr": "w >= 2*h + 1"}]}
    _pa, ca = prepare(a)
    pb, cb = prepare(b)
    assert ca.key == cb.key
    canon = compute("redundancy", ca.problem)  # computed for a, served to b
    out = finish("redundancy", canon, pb, cb, cached=True, elapsed_ms=0.0)
    fresh = run("redundancy", b)
    for k in ("status", "key", "guards", "minimal", "warnings"):
        assert out[k] == fresh[k], k
    assert out["minimal"] == ["rel"] and out["guards"][0] == {"id": "big", "verdict": "redundant", "implied_by": ["rel"]}


def _rebuilt_by_constructors(t: Any, names: dict[str, str]) -> Any:
    """The reference renaming: every node rebuilt through the ``mk_*`` constructors."""
    from symguard.solver.ir import canonical
    from symguard.solver.ir import terms as ir

    memo: dict[Any, Any] = {}
    for n in ir.iter_dag(t):
        if n.kind == ir.SYM:
            memo[n] = ir.mk_sym(names.get(n.value, n.value))
        elif n.kind in (ir.CONST, ir.BCONST, ir.BSYM):
            memo[n] = n
        else:
            memo[n] = canonical._BUILD[n.kind](*(memo[a] for a in n.args))
    return memo[t]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(terms(["x", "y", "z"]), conds(["x", "y", "z"]), st.sampled_from([
    "Piecewise((x, x > y), (z, True))", "Abs(x - y) + Max(x, 3, y*z)", "Eq(x < y, z > 2)", "TruncDiv(x, y)",
    "Eq(2*x - 4*y, 6*z)", "Eq(y - x, 0) | Ne(x*y, z)", "Min(-x, 2*y) <= 3", "CeilDiv(x*y + 2*z, y)"])),
                min_size=1, max_size=4),
       st.permutations(["a0", "q", "zz"]))
def test_renaming_rebuilds_what_the_constructors_build(texts: list[str], new: list[str]) -> None:
    """``substitute``'s renaming without the constructors (children re-sorted, sums ordered by
    their monomials, equations' signs through ``mk_eq``) is the constructors' result, node for node."""
    from symguard.solver.ir.canonical import substitute
    from symguard.solver.syntax.sympy_reader import parse_sympy

    names = dict(zip(["x", "y", "z"], new))
    memo: dict[Any, Any] = {}
    for text in texts:
        p = parse_sympy(text)
        for t in (p.term, p.domain):
            assert substitute(t, names, memo) is _rebuilt_by_constructors(t, names), text


@given(st.sampled_from(["add", "mul", "const", "bconst", "max"]), st.one_of(st.none(), st.integers(), st.booleans()),
       st.lists(st.text("0123456789abcdef", min_size=20, max_size=20), max_size=4))
def test_node_digests_are_the_generic_digest(kind: str, value: Any, kids: list[str]) -> None:
    """Colour refinement's spelled-out digests are ``_h`` of the same parts (canonical keys and
    symbol orders must not move)."""
    from symguard.solver.ir.canonical import _h, _h_node, _h_pair

    assert _h_node(kind, value, kids) == _h(kind, value, kids)
    for k in kids:
        assert _h_pair("s", k) == _h("s", k)


@pytest.mark.parametrize("name", ["evaluate_spec_example.json", "evaluate_unet_export.json",
                                  "evaluate_vit_patchify.json", "sympy_lazy_piecewise.json"])
def test_queries_change_neither_the_constraints_canonical_form_nor_redundancy(name: str) -> None:
    """Queries only order the symbols the asserts and guards leave tied: ``redundancy``, which
    does not read them, gives a document with queries the answer it gives without (it once
    differed on evaluate_vit_patchify: the queries reordered the symbols, and z3 took another path)."""
    doc = json.loads((Path(__file__).parent.parent / "smt2_corpus" / "examples" / name).read_text())
    assert doc.get("queries")
    bare = {k: v for k, v in doc.items() if k != "queries"}
    a, b = prepare(doc)[1].problem, prepare(bare)[1].problem
    assert (a.symbols, a.asserts, a.guards) == (b.symbols, b.asserts, b.guards)
    with_q, without = run("redundancy", doc), run("redundancy", bare)
    assert with_q["guards"] == without["guards"] and with_q["minimal"] == without["minimal"]
