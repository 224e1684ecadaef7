"""The measurement sets of ``tests/simplify_peer_cases.py`` and ``tests/simplify_outside_cases.py``
(written apart, as an outside check) are sound: every expected form is equal
to its input at every point of a box with negatives and zero (within the case's ranges and
guards, where the input is defined) and costs no more than the input, so that
``bench/simplify_peer.py`` measures ``simplify`` against forms that are right. And ``simplify``'s
own form of every case is proved, equal to the input at the same points (with the operation's
self-check on) and never costlier than the input."""

from __future__ import annotations

import itertools

import pytest
from simplify_outside_cases import CASES as OUTSIDE
from simplify_outside_cases import EXTRA
from simplify_peer_cases import CASES as PEER
from simplify_peer_cases import Case

from symguard.solver import load_problem, run
from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import evaluate, holds
from symguard.solver.ops import simplify as simplify_op
from symguard.solver.ops.simplify_cost import no_costlier
from symguard.solver.syntax.sympy_reader import parse_sympy
from symguard.solver.syntax.sympy_writer import cost


def names_of(case: Case) -> set[str]:
    return ir.symbols_of(parse_sympy(case.text).term) | ir.symbols_of(parse_sympy(case.want).term)


def grid(case: Case, names: set[str]) -> list[dict[str, int]]:
    """The points of a box around zero (wider for fewer symbols) within the case's ranges."""
    reach = {0: 0, 1: 16, 2: 10, 3: 5}.get(len(names), 3)
    b = case.bounds()
    axes = []
    for n in sorted(names):
        lo, hi = b.get(n, (None, None))
        a = max(-reach, lo) if lo is not None else -reach
        z = min(reach, hi) if hi is not None else reach
        if a > z:  # a range wholly outside the box: its first values
            a, z = (lo, lo + 2 * reach) if lo is not None and lo > reach else (hi - 2 * reach, hi)  # type: ignore[operator]
        axes.append(range(a, z + 1))
    return [dict(zip(sorted(names), v)) for v in itertools.product(*axes)]


CASES = [*PEER, *OUTSIDE, *EXTRA]
IDS = [*(f"{c.family}-{c.index}" for c in PEER), *(f"outside-{c.family}-{c.index}" for c in [*OUTSIDE, *EXTRA])]


def agree(case: Case, form: str) -> None:
    """``form`` equals the case's input at every point of ``grid`` inside the context."""
    names = names_of(case) | ir.symbols_of(parse_sympy(form).term)
    p = load_problem(case.problem(names))
    got = parse_sympy(form).term
    q = p.exprs[0]
    seen = 0
    for pt in grid(case, names):
        if all(c.term is None or holds(c.term, pt) for c in p.guards) and holds(q.domain, pt):
            seen += 1
            assert evaluate(q.term, pt) == evaluate(got, pt), (case.text, form, pt)
    assert seen > 0, case


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_expected_form_is_equal_and_no_costlier(case: Case) -> None:
    agree(case, case.want)
    assert no_costlier(cost(case.want), cost(case.text)), (case.text, case.want)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_simplify_form_is_proved_equal_and_no_costlier(case: Case, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(simplify_op, "SELF_CHECK", True)
    row = run("simplify", case.problem(names_of(case)))["exprs"][0]
    assert row["proved"], row
    agree(case, row["form"])
    assert no_costlier(cost(row["form"]), cost(case.text)), (case.text, row["form"])
