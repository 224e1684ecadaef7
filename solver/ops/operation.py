"""What one operation is, in one place: its engine, its sound ``unknown`` result, when a result may
be cached, how it maps back to the caller's names, and what a batch summary counts of it.

Each operation module (``solve``, ``redundancy``, ``evaluate``, ``shrink``) defines one
``Operation``; ``solver.ops.OPERATIONS`` collects them. The library front door, the worker
processes, the batch report and the HTTP schema all read this registry, so adding an operation
touches its own module and the registry, nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from solver.ir.canonical import Canonical
from solver.ir.problem import Problem
from solver.smt.checker import Deadline

Result = dict[str, Any]


class Back:
    """Canonical names and ids -> the caller's, for one problem (shared by every ``map_back``)."""

    def __init__(self, problem: Problem, canon: Canonical) -> None:
        self.problem, self.canon = problem, canon
        self._order = [s.name for s in problem.symbols]
        # the first input position of each canonical guard (duplicates share one canonical guard)
        self.g_first: dict[int, int] = {}
        for i, j in enumerate(canon.guards):
            self.g_first.setdefault(j, i)

    def model(self, m: Mapping[str, Any]) -> dict[str, Any]:
        """A canonical model in the caller's symbol names, in declaration order."""
        names = self.canon.names
        user = {names[k]: v for k, v in m.items() if k in names}
        return {n: user[n] for n in self._order if n in user}

    def cid(self, ident: str) -> str:
        """A canonical assert/guard id (``a3``, ``g7``) as the caller's id."""
        sec, idx = ident[0], int(ident[1:])
        if sec == "a":
            return self.canon.asserts[idx][0]
        return self.problem.guards[self.g_first[idx]].id


def _always_final(_res: Result) -> bool:
    return True


def _no_mapping(res: Result, _back: Back) -> Result:
    return {}


def _no_tally(_res: Result) -> list[str]:
    return []


@dataclass(frozen=True)
class Operation:
    name: str
    compute: Callable[[Problem, Deadline], Result]
    # the canonical result when time ran out before an answer: sound (every guard kept, no value)
    unknown: Callable[[Problem], Result]
    # whether a canonical result may be cached: nothing in it ran out of time
    is_final: Callable[[Result], bool] = _always_final
    # the operation's own fields in the caller's names (models and cores are mapped for every op)
    map_back: Callable[[Result, Back], Result] = _no_mapping
    # the labels a batch summary counts for one result
    tally: Callable[[Result], list[str]] = _no_tally


def timeout_unknown(_problem: Problem) -> Result:
    return {"status": "unknown", "reason": "timeout"}
