"""objectives: the Python twin ``levels`` computes the same levels as the solver's objectives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from symguard.solver import load_problem
from symguard.solver.smt.checker import Deadline
from symguard.solver.smt.objectives import levels, objectives
from symguard.solver.smt.optimize import Session

RANGES = [(None, None), (2, None), (None, -1), (-5, 5), (0, 9)]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(RANGES), min_size=1, max_size=4), st.sampled_from(["sum", "max", "lex"]),
       st.data())
def test_levels_are_the_objectives_values(ranges: list[tuple[int | None, int | None]], kind: str,
                                          data: st.DataObject) -> None:
    doc = {"symbols": {f"s{i}": {"min": lo, "max": hi} for i, (lo, hi) in enumerate(ranges)}, "guards": []}
    p = load_problem(doc)
    ints = list(p.symbols)
    objs = objectives(kind, ints, Session(p, Deadline(1000)))
    model = {s.name: data.draw(st.integers(s.lo if s.lo is not None else -20, s.hi if s.hi is not None else 20))
             for s in ints}
    key = levels(kind, ints)
    assert key(model) == [o.value(model) for o in objs]
    assert all(o.lower <= v for o, v in zip(objs, key(model)))


def test_no_symbols_no_levels() -> None:
    assert levels("sum", [])({}) == []
