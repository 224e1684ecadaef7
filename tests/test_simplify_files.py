"""The capture files of ``smt2_corpus/simplify/`` run as they are (issue 34): an ``exprs`` entry's
``ranges`` hold for that entry only (docs/problem-format.md §1), the capture's notes are read by
nothing, any other key is still refused, and ``symguard batch`` counts error lines as failures."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from service_helpers import cli

from symguard.service.cli import main
from symguard.service.cli.batch_report import Tally, print_summary
from symguard.solver import InvalidProblemError, load_problem, run
from symguard.solver.ir.pyeval import evaluate
from symguard.solver.syntax.export import problem_to_smt2
from symguard.solver.syntax.smtlib_script import script_problem
from symguard.solver.syntax.sympy_reader import parse_sympy

ROOT = Path(__file__).resolve().parents[1]
SIMPLIFY = ROOT / "smt2_corpus" / "simplify"
DIGITS = "64*r0 + ModularIndexing(r1, 1, 2) + 2*ModularIndexing(r1, 2, 2) + 4*ModularIndexing(r1, 4, 16)"


def test_a_capture_file_runs_as_it_is() -> None:
    code, [line] = cli(["simplify", str(SIMPLIFY / "bert.json")])
    assert code == 0 and line["status"] == "sat", line
    doc = json.loads((SIMPLIFY / "bert.json").read_text())
    assert [r["id"] for r in line["exprs"]] == [e["id"] for e in doc["exprs"]]


def test_the_notes_change_nothing() -> None:
    ctx = {"symbols": {"s0": {"min": 2}}, "guards": ["s0 >= 16"]}
    plain = run("simplify", {**ctx, "exprs": [{"id": "e0", "expr": "Max(s0, 8)"}]})
    noted = run("simplify", {**ctx, "exprs": [{"id": "e0", "expr": "Max(s0, 8)", "calls": 3, "guards_known": 1,
                                                "pytorch": {"result": "s0", "method": "simplify", "us": 3.5},
                                                "expected": "s0", "rule": "a dominated Max"}]})
    assert noted["key"] == plain["key"] and noted["exprs"] == plain["exprs"] and plain["exprs"][0]["form"] == "s0"


def test_ranges_hold_for_their_entry_only() -> None:
    doc = {"exprs": [{"id": "in", "expr": DIGITS, "ranges": {"r0": "s1", "r1": 64}}, {"id": "out", "expr": DIGITS}],
           "symbols": {"s1": {"min": 1}}}
    rows = {r["id"]: r for r in run("simplify", doc)["exprs"]}
    assert rows["in"]["form"] in ("64*r0 + r1", "r1 + 64*r0") and rows["in"]["cost"]["after"]["divs"] == 0
    assert "Mod(r1, 64)" in rows["out"]["form"] and rows["out"]["cost"]["after"]["divs"] == 1  # r1 may be >= 64
    alone = {**doc, "exprs": doc["exprs"][1:]}
    assert run("simplify", alone)["key"] != run("simplify", {**doc, "exprs": doc["exprs"][:1]})["key"]


@pytest.mark.parametrize(("entry", "where", "says"), [
    ({"expr": "r0", "ranges": [4]}, "exprs[0].ranges", "object"),
    ({"expr": "r0", "ranges": {"r 0": 4}}, "exprs[0].ranges.r 0", "symbol name"),
    ({"expr": "r0", "ranges": {"r0": 4.5}}, "exprs[0].ranges.r0", "integer"),
    ({"expr": "r0", "ranges": {"r0": True}}, "exprs[0].ranges.r0", "integer"),
    ({"expr": "r0", "ranges": {"r0": "s0 > 2"}}, "exprs[0].ranges.r0", "integer expression"),
    ({"expr": "r0", "range": {"r0": 4}}, "exprs[0]", "'range'"),
    ({"expr": "r0", "pytroch": {}}, "exprs[0]", "'pytroch'"),
])
def test_a_wrong_ranges_or_a_misspelt_key_is_refused_at_its_place(entry: dict[str, Any], where: str,
                                                                     says: str) -> None:
    with pytest.raises(InvalidProblemError) as e:
        load_problem({"exprs": [entry]})
    assert e.value.where == where and says in e.value.message


@pytest.mark.parametrize("section", ["queries", "guards", "asserts"])
def test_only_exprs_entries_take_ranges_and_notes(section: str) -> None:
    for extra in ({"ranges": {"r0": 4}}, {"pytorch": {}}):
        with pytest.raises(InvalidProblemError) as e:
            load_problem({section: [{"expr": "r0 >= 0", **extra}]})
        assert e.value.where == f"{section}[0]"


def test_export_keeps_the_ranges() -> None:
    doc = {"symbols": {"s1": {"min": 1, "hint": 3}},
           "exprs": [{"id": "in", "expr": DIGITS, "ranges": {"r0": "s1", "r1": 64}}, {"id": "out", "expr": DIGITS}]}
    back = script_problem(problem_to_smt2(doc))
    assert [e.get("ranges") if isinstance(e, dict) else None for e in back["exprs"]] == [{"r0": "s1", "r1": "64"}, None]
    assert [r["form"] for r in run("simplify", back)["exprs"]] == [r["form"] for r in run("simplify", doc)["exprs"]]


# a loop index: digit extractions, quotients and remainders of one loop variable, and a second loop
_PART = st.one_of(
    st.tuples(st.sampled_from(["ModularIndexing(r, {d}, {m})"]), st.sampled_from([1, 2, 4, 8]), st.sampled_from([2, 4, 16])),
    st.tuples(st.sampled_from(["FloorDiv(r, {d})", "Mod(r, {m})", "FloorDiv(Mod(r, {m}), {d})"]),
              st.sampled_from([1, 2, 3, 4]), st.sampled_from([2, 4, 8, 12])),
    st.tuples(st.sampled_from(["q", "FloorDiv(q*{m}, {d})", "Max(r, {m})"]), st.sampled_from([1, 2]), st.sampled_from([2, 8])),
)


@settings(max_examples=30, deadline=None)
@given(parts=st.lists(st.tuples(st.integers(1, 9), _PART), min_size=1, max_size=3),
       bound=st.integers(1, 70), qbound=st.sampled_from(["s0", "2", "FloorDiv(s0, 2)"]))
def test_a_form_equals_its_expression_at_every_point_of_its_ranges(parts: list[tuple[int, Any]], bound: int,
                                                                   qbound: str) -> None:
    """Differential against Python's own evaluation: every (r, q, s0) with ``0 <= r < bound``,
    ``0 <= q < qbound`` and ``2 <= s0 <= 6`` gives the form the expression's value."""
    text = " + ".join(f"{c}*{tpl.format(d=d, m=m)}" for c, (tpl, d, m) in parts)
    doc = {"symbols": {"s0": {"min": 2, "max": 6}}, "exprs": [{"expr": text, "ranges": {"r": bound, "q": qbound}}]}
    [row] = run("simplify", doc)["exprs"]
    if not row["proved"]:
        return
    expr, form = parse_sympy(text).term, parse_sympy(row["form"]).term
    for s0 in range(2, 7):
        qmax = evaluate(parse_sympy(qbound).term, {"s0": s0})
        for r in range(bound):
            for q in range(qmax):
                env = {"r": r, "q": q, "s0": s0}
                assert evaluate(form, env) == evaluate(expr, env), (text, row["form"], env)


def test_the_summary_counts_error_lines_as_failed() -> None:
    t = Tally(op="simplify", total=3)
    t.add("a.json", {"op": "simplify", "status": "sat", "exprs": []}, 0.1)
    t.add("b.json", {"error": {"code": "invalid_problem", "message": "x"}}, 0.1)
    t.add("c.json", {"error": {"code": "internal_error", "message": "y"}}, 0.1)
    out = io.StringIO()
    print_summary(t, 1.0, stream=out)
    assert "1 answered, 2 failed" in out.getvalue()


@pytest.mark.slow
def test_batch_answers_every_bundled_simplify_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.jsonl"
    code = main(["batch", str(SIMPLIFY), "--op", "simplify", "--jobs", "2", "--out", str(out)])
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    files = sorted(p for p in SIMPLIFY.glob("*.json"))
    assert code == 0 and len(lines) == len(files)
    assert not [x["input"] for x in lines if "error" in x]
    assert f"{len(files)} answered in" in capsys.readouterr().err
