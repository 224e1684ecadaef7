"""The operations users call: solve, redundancy, evaluate, shrink, simplify, and the SMT-LIB script runner.

In: a canonical ``Problem`` and a deadline. Out: the JSON-ready result of each operation, every
model re-checked with Python integers (``selfcheck``) before it leaves. They combine
``solver.reason`` (no search) with ``solver.smt`` (search). ``OPERATIONS`` is the registry: what
each operation is lives in its own module (``operation.Operation``), imported when the operation
is first asked for, so that a process that runs one operation (a cold CLI or library call) does
not load the others' engines (simplify's rule tables, shrink's search).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping

from symguard.solver.ops.operation import Operation

OPS: tuple[str, ...] = ("solve", "redundancy", "evaluate", "shrink", "simplify")


class _Registry(MutableMapping[str, Operation]):
    """``OPS`` name -> its module's ``OPERATION``, the module imported on first use (assignable,
    so a test can stand an operation in for another)."""

    def __init__(self) -> None:
        self._loaded: dict[str, Operation] = {}

    def __getitem__(self, name: str) -> Operation:
        got = self._loaded.get(name)
        if got is None:
            if name not in OPS:
                raise KeyError(name)
            got = self._loaded[name] = importlib.import_module(f"symguard.solver.ops.{name}").OPERATION
        return got

    def __setitem__(self, name: str, op: Operation) -> None:
        if name not in OPS:
            raise KeyError(name)
        self._loaded[name] = op

    def __delitem__(self, name: str) -> None:
        del self._loaded[name]  # the module's own ``OPERATION`` again on next use

    def __iter__(self) -> Iterator[str]:
        return iter(OPS)

    def __len__(self) -> int:
        return len(OPS)


OPERATIONS: MutableMapping[str, Operation] = _Registry()


def load_all() -> None:
    """Import every operation's module now: a worker pays its imports before it says "ready"."""
    for name in OPS:
        OPERATIONS[name]


__all__ = ["OPERATIONS", "OPS", "Operation", "load_all"]
