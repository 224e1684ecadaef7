"""A deadline the tests control: partial answers are tested at every step, not at a lucky time."""

from __future__ import annotations

from symguard.solver.ir.problem import DEFAULT_EFFORT
from symguard.solver.smt.checker import Deadline, OutOfTime


class StopsAfter(Deadline):
    """A deadline whose wall clock 'passes' at the ``after``-th time check."""

    def __init__(self, after: int) -> None:
        super().__init__(60_000, budget_units=DEFAULT_EFFORT)
        self.after = after
        self.calls = 0

    def ensure_time(self) -> None:
        self.calls += 1
        if self.calls >= self.after:
            raise OutOfTime
