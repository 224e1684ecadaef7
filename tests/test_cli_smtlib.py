"""The CLI over ``.smt2`` files: solve/redundancy, export both ways, ``solve --smtlib``, errors."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from symguard.service.cli import main
from symguard.solver.syntax.smtlib_script import script_problem

EXAMPLES = Path(__file__).resolve().parent.parent / "smt2_corpus" / "examples"

SCRIPT = """(set-logic QF_LIA)
(declare-const s0 Int)
(declare-const s1 Int)
(assert (>= s0 2))
(assert (! (>= s0 16) :named g16))
(assert (! (>= s0 8) :named g8))
(assert (! (< (div s0 (- 4)) s1) :named g_div))
(check-sat)
(get-model)
(get-value ((div s0 (- 4))))
"""


def _out(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    code = main(argv, out=out)
    return code, out.getvalue()


def _json(argv: list[str]) -> tuple[int, list[dict[str, Any]]]:
    code, text = _out(argv)
    return code, [json.loads(line) for line in text.splitlines()]


def _file(tmp_path: Path, name: str, text: str) -> str:
    f = tmp_path / name
    f.write_text(text)
    return str(f)


def test_solve_and_redundancy_on_smt2(tmp_path: Path) -> None:
    f = _file(tmp_path, "p.smt2", SCRIPT)
    code, [res] = _json(["solve", f])
    assert code == 0 and res["status"] == "sat"
    m = res["model"]
    assert m["s0"] >= 16 and -(m["s0"] // 4) < m["s1"]  # (div s0 -4) = -(s0 // 4) for s0 >= 0
    code, [red] = _json(["redundancy", f])
    assert code == 0 and red["minimal"] == ["g16", "g_div"]
    assert {g["id"]: g["verdict"] for g in red["guards"]}["g8"] == "redundant"


def test_solve_smtlib_mode_prints_like_z3(tmp_path: Path) -> None:
    code, text = _out(["solve", "--smtlib", _file(tmp_path, "p.smt2", SCRIPT)])
    assert code == 0
    lines = text.splitlines()
    assert lines[0] == "sat" and lines[1] == "(model" and lines[-1].startswith("(((div s0 (- 4)) ")
    code, text = _out(["solve", "--smtlib", str(EXAMPLES / "push_pop.smt2")])
    assert code == 0 and text.splitlines()[:3] == ["sat", "unsat", "sat"]


def test_export_smt2_to_json_and_back(tmp_path: Path) -> None:
    code, text = _out(["export", _file(tmp_path, "p.smt2", SCRIPT), "--to", "json"])
    assert code == 0
    doc = json.loads(text)
    assert doc["syntax"] == "smtlib" and [g["id"] for g in doc["guards"]] == ["g16", "g8", "g_div"]
    j = _file(tmp_path, "p.json", json.dumps(doc))
    code, smt2 = _out(["export", j, "--to", "smt2"])
    assert code == 0 and ":named g_div" in smt2
    again = _file(tmp_path, "again.smt2", smt2)
    _, [a] = _json(["redundancy", j])
    _, [b] = _json(["redundancy", again])
    assert a["minimal"] == b["minimal"] and a["guards"] == b["guards"]


def test_export_sympy_json_to_smt2_keeps_meaning(tmp_path: Path) -> None:
    doc = {"symbols": {"s0": {"min": -20, "max": 20}, "s1": {"min": -4, "max": 4}},
           "guards": [{"id": "floor", "expr": "FloorDiv(s0, s1) == -3"}, {"id": "mod", "expr": "Mod(s0, s1) == 1"}]}
    j = _file(tmp_path, "p.json", json.dumps(doc))
    code, smt2 = _out(["export", j, "--to", "smt2"])
    assert code == 0
    _, [res] = _json(["solve", _file(tmp_path, "p.smt2", smt2)])
    m = res["model"]
    assert res["status"] == "sat" and m["s0"] // m["s1"] == -3 and m["s0"] % m["s1"] == 1
    assert script_problem(smt2)["guards"][0]["id"] == "floor"


def test_export_round_trips_the_queries(tmp_path: Path) -> None:
    doc = {"symbols": {"s0": {"min": -20, "max": 20, "hint": 8}, "s1": {"min": 1, "max": 4}},
           "guards": ["s0 >= s1"],
           "queries": ["FloorDiv(s0, -3)", {"id": "big", "expr": "Mod(s0, s1) + 1 > s1"}, "Max(s0, 2*s1)"]}
    j = _file(tmp_path, "p.json", json.dumps(doc))
    code, smt2 = _out(["export", j, "--to", "smt2"])
    assert code == 0 and "; symguard: queries = " in smt2
    back = _file(tmp_path, "p.smt2", smt2)
    _, [a] = _json(["evaluate", j])
    _, [b] = _json(["evaluate", back])
    assert [q["id"] for q in b["queries"]] == ["q0", "big", "q2"]
    drop = ("when_true", "when_false")  # witnesses may differ; values, kinds and bounds may not
    assert [{k: v for k, v in q.items() if k not in drop} for q in a["queries"]] == \
        [{k: v for k, v in q.items() if k not in drop} for q in b["queries"]]


def test_export_round_trips_the_exprs_of_simplify(tmp_path: Path) -> None:
    doc = {"symbols": {"s0": {"min": 1, "hint": 8}}, "exprs": ["FloorDiv(4*s0, 2)", {"id": "pos", "expr": "s0 >= 0"}]}
    _, smt2 = _out(["export", _file(tmp_path, "p.json", json.dumps(doc)), "--to", "smt2"])
    _, [a] = _json(["simplify", _file(tmp_path, "p.json", json.dumps(doc))])
    _, [b] = _json(["simplify", _file(tmp_path, "p.smt2", smt2)])
    assert [(e["id"], e["form"], e["proved"]) for e in b["exprs"]] == \
        [(e["id"], e["form"], e["proved"]) for e in a["exprs"]] == [("e0", "2*s0", True), ("pos", "True", True)]


def test_bad_smt2_is_exit_2_with_where(tmp_path: Path) -> None:
    text = "(declare-const x Int)\n(assert (> x 1.5))\n"
    f = _file(tmp_path, "bad.smt2", text)
    code, [res] = _json(["solve", f])
    assert code == 2
    assert res["error"]["code"] == "unsupported" and res["error"]["where"] == "line 2"
    assert res["error"]["offset"] == text.index("1.5")
    code, [res] = _json(["export", _file(tmp_path, "bad2.smt2", "(assert (> x"), "--to", "json"])
    assert code == 2 and res["error"]["code"] == "parse_error"


def test_smtlib_mode_reports_errors_in_the_transcript(tmp_path: Path) -> None:
    code, text = _out(["solve", "--smtlib", _file(tmp_path, "e.smt2", "(assert (> x 1))\n(check-sat)\n")])
    assert code == 0
    assert text.splitlines() == ['(error "line 1 column 12: unknown symbol \'x\' (declare it with declare-const)")', "sat"]
