"""The library's front door: load → canonicalize → compute → map back to the caller.

``run`` does it all in one call. A cache (the service's) splits it in three: ``prepare`` gives the
canonical problem and its key, ``compute`` the canonical result (what gets cached), ``finish`` the
caller's result. A cached answer and a fresh one go through the same ``finish``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from solver.errors import InvalidProblemError
from solver.ir.canonical import Canonical, canonicalize
from solver.ir.problem import Problem
from solver.ops import OPERATIONS, OPS, Operation
from solver.ops.operation import Back, Result
from solver.smt.checker import Deadline, OutOfTime
from solver.syntax.document import load_problem


def prepare(problem: Problem | Mapping[str, Any]) -> tuple[Problem, Canonical]:
    p = problem if isinstance(problem, Problem) else load_problem(problem)
    return p, canonicalize(p)


def _operation(op: str) -> Operation:
    try:
        return OPERATIONS[op]
    except (KeyError, TypeError):
        raise InvalidProblemError(f"unknown operation {op!r} (expected one of {', '.join(OPS)})",
                                  where="op") from None


def compute(op: str, canon: Problem) -> Result:
    """The result for a canonical problem (ids ``a0, g0, q0``, symbols ``v0, …``)."""
    operation = _operation(op)
    try:
        return operation.compute(canon, Deadline(canon.options.timeout_ms))
    except OutOfTime:  # the outer wall-clock limit: a partial answer would depend on the load
        return operation.unknown(canon)


def unknown(op: str, canon: Problem) -> Result:
    """The sound canonical result of ``op`` when its time ran out: every guard kept, no value."""
    return _operation(op).unknown(canon)


def is_final(op: str, result: Result) -> bool:
    """Whether a canonical result may be cached: nothing in it ran out of time."""
    if result.get("status") == "unknown" and result.get("reason") == "timeout":
        return False
    return _operation(op).is_final(result)


def finish(op: str, result: Result, problem: Problem, canon: Canonical, *,
           cached: bool, elapsed_ms: float) -> Result:
    """The caller's result: their symbol names and ids, the docs/problem-format.md §2 envelope first."""
    back = Back(problem, canon)
    body = dict(result)
    if "model" in body:
        body["model"] = back.model(body["model"])
    if "core" in body:  # in the caller's order: asserts, then guards, each by input position
        pos = {c.id: k for k, c in enumerate((*problem.asserts, *problem.guards))}
        body["core"] = sorted((back.cid(i) for i in body["core"]), key=lambda x: pos.get(x, len(pos)))
    body.update(_operation(op).map_back(result, back))
    warnings = list(problem.warnings) + list(body.pop("warnings", ()))
    out: Result = {"op": op, "status": body.pop("status"), "key": canon.key, "cached": cached,
                   "elapsed_ms": round(elapsed_ms, 3), "warnings": warnings}
    out.update(body)
    return out


def tally(op: str, result: Result) -> list[str]:
    """What a batch summary counts of one result (verdicts, query kinds, optimality)."""
    return _operation(op).tally(result)


def run(op: str, problem: Problem | Mapping[str, Any]) -> Result:
    """Answer one operation on one problem, in-process, without a cache."""
    t0 = time.perf_counter()
    _operation(op)
    p, canon = prepare(problem)
    res = compute(op, canon.problem)
    return finish(op, res, p, canon, cached=False, elapsed_ms=(time.perf_counter() - t0) * 1000)
