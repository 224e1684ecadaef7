"""A deadline the tests control: partial answers are tested at every step, not at a lucky time."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

from symguard.solver import api
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


def library_unread(op: str, doc: dict[str, Any]) -> dict[str, Any]:
    """What the library answers when its deadline passes while ``doc`` is being read."""
    gone = time.monotonic() - 3600
    problem, canon = api.prepare(doc, started=gone)
    return api.finish(op, api.compute(op, canon.problem, started=gone), problem, canon, cached=False, elapsed_ms=0)


def same_answer(got: dict[str, Any], want: dict[str, Any]) -> bool:
    """Equal answers, but for their timing and warnings (a server's cut adds a note)."""
    drop = ("elapsed_ms", "warnings")
    return {k: v for k, v in got.items() if k not in drop} == {k: v for k, v in want.items() if k not in drop}


@contextlib.contextmanager
def library_held() -> Iterator[None]:
    """The library's lock held by another thread for the body of the ``with`` (a server's thread
    busy in the library), released and joined on the way out."""
    held, free = threading.Event(), threading.Event()

    def hold() -> None:
        with api.SERIAL:
            held.set()
            free.wait(60)

    t = threading.Thread(target=hold)
    t.start()
    held.wait(60)
    try:
        yield
    finally:
        free.set()
        t.join(60)
