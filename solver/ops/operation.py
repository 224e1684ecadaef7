"""What one operation is, in one place: its engine, its sound ``unknown`` result, when a result may
be cached, how it maps back to the caller's names, and what a batch summary counts of it.

Each operation module (``solve``, ``redundancy``, ``evaluate``, ``shrink``, ``simplify``) defines
one ``Operation``; ``solver.ops.OPERATIONS`` collects them. The library front door, the worker
processes, the batch report and the HTTP schema all read this registry, so adding an operation
touches its own module and the registry, nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from symguard.solver.errors import InternalError
from symguard.solver.ir.canonical import Canonical
from symguard.solver.ir.problem import Problem
from symguard.solver.ops.selfcheck import violations
from symguard.solver.smt.checker import Deadline

Result = dict[str, Any]


class Back:
    """Canonical names and ids -> the caller's, for one problem (shared by every ``map_back``)."""

    def __init__(self, problem: Problem, canon: Canonical) -> None:
        self.problem, self.canon = problem, canon  # (no list of all symbols: only ``model`` needs their order)
        # the first input position of each canonical guard (duplicates share one canonical guard)
        self.g_first: dict[int, int] = {}
        for i, j in enumerate(canon.guards):
            self.g_first.setdefault(j, i)

    def model(self, m: Mapping[str, Any]) -> dict[str, Any]:
        """A canonical model in the caller's symbol names, in declaration order."""
        names = self.canon.names
        user = {names[k]: v for k, v in m.items() if k in names}
        return {s.name: user[s.name] for s in self.problem.symbols if s.name in user}

    def cid(self, ident: str) -> str:
        """A canonical assert/guard id (``a3``, ``g7``) as the caller's id."""
        sec, idx = ident[0], int(ident[1:])
        if sec == "a":
            return self.canon.asserts[idx][0]
        return self.problem.guards[self.g_first[idx]].id


class Audit:
    """Checks of one result read from a cache outside this process (Redis holds data, not truth:
    anyone who can write to it could plant ``{"model": {"v0": 999999}}``). Each raises
    ``InternalError``; the caller then computes afresh."""

    def __init__(self, op: str, problem: Problem) -> None:
        self.op, self.problem = op, problem
        self.symbols = {s.name: s for s in problem.symbols}
        self.guard_ids = [g.id for g in problem.guards]

    def bad(self, why: str) -> InternalError:
        return InternalError(f"cached {self.op} result rejected: {why}")

    def model(self, m: Any, where: str) -> None:
        """``m`` assigns exactly the problem's symbols, with the right types, and satisfies the
        problem under Python's integers (what a fresh model passes before it leaves)."""
        if not isinstance(m, dict) or set(m) != set(self.symbols):
            raise self.bad(f"{where} does not assign exactly the problem's symbols")
        for k, v in m.items():
            if type(v) is not (bool if self.symbols[k].is_bool else int):
                raise self.bad(f"{where}.{k} has the wrong type")
        broken = violations(self.problem, m)
        if broken:
            raise self.bad(f"{where} violates {', '.join(broken[:5])}")

    def ids(self, v: Any, allowed: set[str] | list[str], where: str) -> None:
        if not isinstance(v, list) or any(not isinstance(x, str) or x not in allowed for x in v):
            raise self.bad(f"{where} names ids the problem does not have")

    def rows(self, result: Result, field: str, ids: list[str]) -> list[dict[str, Any]]:
        """``result[field]``: one object per id, in order."""
        rows = result.get(field)
        if not isinstance(rows, list) or [r.get("id") if isinstance(r, dict) else None for r in rows] != ids:
            raise self.bad(f"{field} do not match the problem's {field}")
        return rows


def _always_final(_res: Result) -> bool:
    return True


def _no_mapping(res: Result, _back: Back) -> Result:
    return {}


def _no_tally(_res: Result) -> list[str]:
    return []


def _no_audit(_res: Result, _audit: Audit) -> None:
    return None


def _no_carry(_problem: Problem, _other: Result, res: Result) -> Result:
    return res


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
    # the checks of the operation's own fields in a result read from a shared cache (models and
    # cores are checked for every op by ``solver.api.check_cached``)
    audit: Callable[[Result, Audit], None] = _no_audit
    # a result (the third argument) with what another one (the second) decided carried over where
    # it still holds (``solver.api.compute``'s rungs above the default effort)
    carry: Callable[[Problem, Result, Result], Result] = _no_carry


def undecided(result: Result) -> frozenset[str]:
    """What a result leaves open, item by item: its status, each guard left ``unknown``, each
    query without its value (or an integer's exact range), each expression without a proven form,
    a model not proven smallest. ``solver.api.compute`` keeps a larger effort's answer only where
    it leaves open a subset of this (effort never decides less)."""
    out = set()
    if result.get("status") == "unknown":  # no model yet: not a smallest one either
        out |= {"status", "optimal"}
    if result.get("optimal") is False:
        out.add("optimal")
    for row in result.get("guards", ()):
        if row.get("verdict") == "unknown":
            out.add(f"guards:{row.get('id')}")
    for row in result.get("queries", ()):
        if open_query(row):
            out.add(f"queries:{row.get('id')}")
    for row in result.get("exprs", ()):
        if not row.get("proved"):
            out.add(f"exprs:{row.get('id')}")
    return frozenset(out)


def open_query(row: Result) -> bool:
    """An ``evaluate`` row without its answer: no value, or an integer's range not proven exact."""
    return row.get("value") == "unknown" or row.get("exact") is False


def settled(result: Result, deadline: Deadline) -> Result:
    """A result the effort stopped (``Deadline.cut``, ``OutOfEffort``) is deterministic: what its
    partial answer marks ``timeout`` ran out of effort (``resource``), and it is not
    ``incomplete`` (another machine would stop at the same step)."""
    return _relabeled(result) if deadline.cut else result


def _relabeled(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: "resource" if k == "reason" and x == "timeout" else _relabeled(x)
                for k, x in v.items() if k != "incomplete"}
    if isinstance(v, list):
        return [_relabeled(x) for x in v]
    return v


def timeout_unknown(_problem: Problem) -> Result:
    return {"status": "unknown", "reason": "timeout"}
