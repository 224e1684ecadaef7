"""``load_problem``: docs/problem-format.md §1 defaults (ids, domains, options) and up-front validation."""

from __future__ import annotations

import pytest

from symguard.solver import InvalidProblemError, load_problem, run
from symguard.solver.ir.problem import Options


def test_default_ids_by_position() -> None:
    p = load_problem({"asserts": ["s0 > 1", {"id": "named", "expr": "s0 > 2"}],
                      "guards": ["s0 > 3", "s0 > 4"], "queries": ["s0 + 1"]})
    assert [c.id for c in p.asserts] == ["a0", "named"]
    assert [c.id for c in p.guards] == ["g0", "g1"]
    assert [q.id for q in p.queries] == ["q0"]
    assert p.guards[1].where == "guards[1]"


def test_symbol_domains() -> None:
    p = load_problem({"symbols": {"a": {"min": None}, "b": {"max": 9}, "c": {"min": -3, "max": 3, "hint": 1}},
                      "guards": ["a + b + c + d > 0"], "options": {"default_min": 2}})
    assert [(s.name, s.lo, s.hi) for s in p.symbols] == [("a", None, None), ("b", 2, 9), ("c", -3, 3), ("d", 2, None)]
    assert p.symbol("c").hint == 1


def test_undeclared_symbols_are_non_negative() -> None:
    res = run("solve", {"guards": ["s0 + s1 <= 0"]})
    assert res["status"] == "sat" and res["model"] == {"s0": 0, "s1": 0}
    assert run("solve", {"guards": ["s0 < 0"]})["status"] == "unsat"
    assert run("solve", {"guards": ["s0 < 0"], "options": {"default_min": None}})["status"] == "sat"


def test_option_defaults() -> None:
    assert load_problem({}).options == Options(timeout_ms=30_000, effort=600_000, default_min=0,
                                               on_unsupported="error", minimize=False, prefer="cheap",
                                               objective="sum")


def test_ranges_are_constraints() -> None:
    res = run("solve", {"symbols": {"s0": {"min": 5, "max": 7}}, "guards": ["s0 != 5", "s0 != 6"]})
    assert res["model"] == {"s0": 7}
    assert run("solve", {"symbols": {"s0": {"min": 5, "max": 7}}, "guards": ["s0 > 7"]})["status"] == "unsat"


def test_syntax_must_be_known() -> None:
    with pytest.raises(InvalidProblemError) as e:
        load_problem({"syntax": "python"})
    assert e.value.where == "syntax"


def test_problem_is_immutable() -> None:
    p = load_problem({"guards": ["s0 > 1"]})
    with pytest.raises(AttributeError):
        p.guards = ()  # type: ignore[misc]


@pytest.mark.parametrize("name", ["True", "False", "None", "lambda", "if", "\uff530", "s\u2080", "\u00e9"])
def test_symbol_names_are_ascii_non_keyword_identifiers(name: str) -> None:
    # True/False/None are values in every expression, and Python's parser NFKC-folds a fullwidth
    # 's0' into 's0': neither can be a symbol of its own
    with pytest.raises(InvalidProblemError) as e:
        load_problem({"symbols": {name: {"min": 2}}, "guards": ["s0 > 1"]})
    assert e.value.where == f"symbols.{name}"


def test_an_expression_never_makes_true_a_symbol() -> None:
    from symguard.solver.errors import ParseError

    assert load_problem({"guards": ["True"]}).guards[0].term.is_bool  # the value, not a symbol
    for text in ("(> True 2)", "(= None 1)"):
        with pytest.raises(ParseError) as e:
            load_problem({"syntax": "smtlib", "guards": [text]})
        assert e.value.where == "guards[0]" and e.value.offset == text.index("N" if "None" in text else "T")
    with pytest.raises(ParseError) as e:
        load_problem({"guards": ["s1 > 0", "Eq(\uff530, 2)"]})
    assert e.value.where == "guards[1]" and e.value.offset == 3
