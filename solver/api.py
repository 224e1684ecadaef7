"""The library's front door: load → canonicalize → compute → map back to the caller.

``run`` does it all in one call. A cache (the service's) splits it in three: ``prepare`` gives the
canonical problem and its key, ``compute`` the canonical result (what gets cached), ``finish`` the
caller's result. A cached answer and a fresh one go through the same ``finish``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from .canonical import Canonical, canonicalize
from .checker import Deadline
from .errors import InvalidProblemError
from .problem import OPS, Problem, load_problem

Result = dict[str, Any]


def prepare(problem: Problem | Mapping[str, Any]) -> tuple[Problem, Canonical]:
    p = problem if isinstance(problem, Problem) else load_problem(problem)
    return p, canonicalize(p)


def compute(op: str, canon: Problem) -> Result:
    """The result for a canonical problem (ids ``a0, g0, q0``, symbols ``v0, …``)."""
    deadline = Deadline(canon.options.timeout_ms)
    if op == "solve":
        from .solve import solve

        return solve(canon, deadline)
    if op == "redundancy":
        from .redundancy import redundancy

        return redundancy(canon, deadline)
    if op == "evaluate":
        from .evaluate import evaluate

        return evaluate(canon, deadline)
    if op == "shrink":
        from .shrink import shrink

        return shrink(canon, deadline)
    raise InvalidProblemError(f"unknown operation {op!r} (expected one of {', '.join(OPS)})", where="op")


def is_final(op: str, result: Result) -> bool:
    """Whether a canonical result may be cached: nothing in it ran out of time."""
    if result.get("status") == "unknown" and result.get("reason") == "timeout":
        return False
    if op == "redundancy" and any(g["verdict"] == "unknown" for g in result.get("guards", ())):
        return False
    if op in ("shrink", "solve") and result.get("optimal") is False:  # solve: options.minimize
        return False
    if op == "evaluate" and any(q.get("value") == "unknown" or q.get("exact") is False
                                for q in result.get("queries", ())):
        return False
    return True


def finish(op: str, result: Result, problem: Problem, canon: Canonical, *,
           cached: bool, elapsed_ms: float) -> Result:
    """The caller's result: their symbol names and ids, the SPEC §2 envelope first."""
    body = _map_back(op, result, problem, canon)
    warnings = list(problem.warnings) + list(body.pop("warnings", ()))
    if op == "shrink":
        warnings += hint_warnings(problem)
    out: Result = {"op": op, "status": body.pop("status"), "key": canon.key, "cached": cached,
                   "elapsed_ms": round(elapsed_ms, 3), "warnings": warnings}
    out.update(body)
    return out


def run(op: str, problem: Problem | Mapping[str, Any]) -> Result:
    """Answer one operation on one problem, in-process, without a cache."""
    t0 = time.perf_counter()
    if op not in OPS:
        raise InvalidProblemError(f"unknown operation {op!r} (expected one of {', '.join(OPS)})", where="op")
    p, canon = prepare(problem)
    res = compute(op, canon.problem)
    return finish(op, res, p, canon, cached=False, elapsed_ms=(time.perf_counter() - t0) * 1000)


def hint_warnings(problem: Problem) -> list[str]:
    from .selfcheck import violations

    hints = problem.hints
    if hints is None:
        return []
    env: dict[str, int | bool] = dict(hints)
    bad = violations(problem, env)
    if not bad:
        return []
    return [f"the hints violate the problem: {', '.join(bad[:10])}" + (" …" if len(bad) > 10 else "")]


# ------------------------------------------------------------------ mapping back

def _map_back(op: str, res: Result, problem: Problem, canon: Canonical) -> Result:
    names = canon.names
    order = [s.name for s in problem.symbols]

    def model(m: Mapping[str, Any]) -> dict[str, Any]:
        user = {names[k]: v for k, v in m.items() if k in names}
        return {n: user[n] for n in order if n in user}

    g_first: dict[int, int] = {}
    for i, j in enumerate(canon.guards):
        g_first.setdefault(j, i)

    def cid(ident: str) -> str:
        sec, idx = ident[0], int(ident[1:])
        if sec == "a":
            return canon.asserts[idx][0]
        return problem.guards[g_first[idx]].id

    out = dict(res)
    if "model" in out:
        out["model"] = model(out["model"])
    if "core" in out:  # in the caller's order: asserts, then guards, each by input position
        pos = {c.id: k for k, c in enumerate((*problem.asserts, *problem.guards))}
        out["core"] = sorted((cid(i) for i in out["core"]), key=lambda x: pos.get(x, len(pos)))
    if op == "redundancy":
        out.update(_map_redundancy(res, problem, canon, g_first, cid))
    if op == "evaluate":
        rows = res["queries"]
        mapped = []
        for q, j in zip(problem.queries, canon.queries):
            row = dict(rows[j])
            row["id"] = q.id
            if row.pop("partial", False):  # its domain (divisors != 0, a Piecewise branch holds) fails somewhere
                nowhere = "value" in row and row["value"] is None
                out["warnings"] = [*out.get("warnings", ()), f"query {q.id} is undefined (a zero divisor or no "
                                   "Piecewise branch holding) at "
                                   + ("every point of the problem: it has no value" if nowhere else
                                      "some points of the problem; it is evaluated where it is defined")]
            for w in ("when_true", "when_false"):
                if w in row:
                    row[w] = model(row[w])
            mapped.append(row)
        out["queries"] = mapped
    if "input_shapes" in out:  # canonical inputs are sorted by name: back to the caller's order
        out["input_shapes"] = {n: res["input_shapes"][n] for n, _ in problem.inputs}
    return out


def _map_redundancy(res: Result, problem: Problem, canon: Canonical, g_first: dict[int, int],
                    cid: Any) -> Result:
    rows = res["guards"]
    minimal = {int(i[1:]) for i in res["minimal"]}
    out_rows = []
    for i, (g, j) in enumerate(zip(problem.guards, canon.guards)):
        row = rows[j]
        # canonical guards are sorted by text: give implied_by back in the caller's input order
        by_input = sorted(row["implied_by"], key=lambda x: (x[0] != "a", g_first.get(int(x[1:]), 0)))
        verdict, implied = row["verdict"], [cid(x) for x in by_input]
        if g_first[j] != i and verdict not in ("always_true", "always_false", "unsupported"):
            # a repeat of an earlier guard is implied by that guard (or by what implies it)
            verdict = "redundant"
            implied = [problem.guards[g_first[j]].id] if j in minimal else implied
        out_rows.append({"id": g.id, "verdict": verdict, "implied_by": implied})
    kept = sorted(g_first[j] for j in minimal)
    return {"guards": out_rows, "minimal": [problem.guards[i].id for i in kept]}
