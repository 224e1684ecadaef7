"""Work units a pass may still spend, shared by its searches.

Budgets are counted work (evaluations, row combinations), never wall-clock: the same problem spends
the same units on a loaded or a quiet machine. ``tick`` is the caller's wall-clock safety net
(``Deadline.ensure_time``), called as work is charged; it may raise.
"""

from __future__ import annotations

from collections.abc import Callable


class Meter:
    """Units ``left`` for a pass; ``spend`` charges (the caller checks ``left``), ``take`` charges
    only what is there."""

    def __init__(self, left: int, tick: Callable[[], None] | None = None) -> None:
        self.left = left
        self.tick = tick

    def spend(self, work: int) -> None:
        """Take ``work`` from what is left, then let the clock speak."""
        self.left -= work
        if self.tick is not None:
            self.tick()

    def take(self, n: int) -> bool:
        """Spend ``n`` if that much is left; ``False`` (nothing spent) otherwise."""
        if n > self.left:
            return False
        self.spend(n)
        return True
