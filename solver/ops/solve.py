"""docs/problem-format.md §2 ``solve``: one satisfying assignment, an unsat core of ids, or ``unknown``."""

from __future__ import annotations

from typing import Any

from symguard.solver.ir.problem import Problem
from symguard.solver.ops.operation import Operation, Result, timeout_unknown
from symguard.solver.ops.selfcheck import hint_model, verify_model
from symguard.solver.smt.checker import SAT, UNSAT, Checker, Deadline


def solve(problem: Problem, deadline: Deadline) -> dict[str, Any]:
    if problem.options.minimize:
        from symguard.solver.ops.shrink import shrink

        small = shrink(problem, deadline, objective="sum")
        res: dict[str, Any] = {"status": small["status"]}
        for k in ("model", "core", "reason", "optimal", "warnings"):
            if k in small:
                res[k] = small[k]
        return res
    hinted = hint_model(problem)
    if hinted is not None:  # z3's non-linear search on a 300-guard Swin set can take seconds
        return {"status": SAT, "model": hinted}
    ch = Checker(problem, deadline)
    ids: dict[int, str] = {}
    for c in (*problem.asserts, *problem.guards):
        if c.term is not None:
            # two entries with the same formula share a selector; the core names the first
            ids.setdefault(ch.selector(c.term), c.id)
    out = ch.check(ids)
    if out.status == SAT:
        verify_model(problem, out.model)
        return {"status": SAT, "model": out.model}
    if out.status == UNSAT:
        return {"status": UNSAT, "core": [ids[h] for h in out.core if h in ids]}
    return {"status": "unknown", "reason": out.reason}


def _final(res: Result) -> bool:
    return res.get("optimal") is not False  # options.minimize: a model not proven smallest


OPERATION = Operation("solve", solve, timeout_unknown, is_final=_final)
