"""The outside measurement set of ``tests/simplify_outside_cases.py`` is sound: every expected form
equals its input at every point of a box with negatives and zero (within the case's context,
where the input is defined) and costs no more than the input. ``simplify``'s own form of every
case is proved, equal to the input at the same points (self-check on) and never costlier."""

from __future__ import annotations

import pytest
from simplify_outside_cases import CASES, EXTRA
from simplify_peer_cases import Case
from test_simplify_peer_cases import agree, names_of

from symguard.solver import run
from symguard.solver.ops import simplify as simplify_op
from symguard.solver.ops.simplify_cost import no_costlier
from symguard.solver.syntax.sympy_writer import cost

ALL = CASES + EXTRA
IDS = [f"{c.family}-{c.index}" for c in ALL]


@pytest.mark.parametrize("case", ALL, ids=IDS)
def test_expected_form_is_equal_and_no_costlier(case: Case) -> None:
    agree(case, case.want)
    assert no_costlier(cost(case.want), cost(case.text)), (case.text, case.want)


@pytest.mark.parametrize("case", ALL, ids=IDS)
def test_simplify_form_is_proved_equal_and_no_costlier(case: Case, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(simplify_op, "SELF_CHECK", True)
    row = run("simplify", case.problem(names_of(case)))["exprs"][0]
    assert row["proved"], row
    agree(case, row["form"])
    assert no_costlier(cost(row["form"]), cost(case.text)), (case.text, row["form"])
