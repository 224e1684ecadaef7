"""docs/problem-format.md §2 ``shrink``: the smallest assignment that satisfies every assert, guard and range.

"Smallest" is measured on absolute values: ``sum`` minimizes ``Σ|s|``, ``max`` minimizes
``max|s|`` (ties broken by ``Σ|s|``), ``lex`` minimizes ``|s|`` symbol by symbol in declaration
order. For sizes (``min >= 0``, the usual case) that is the plain value; for symbols that may be
negative it keeps the objective bounded below (by 0) so that a smallest model always exists
when any model does, and means "closest to zero", which is what a small repro wants.

``preserve_distinct``: symbols whose hints differ must differ in the model (PyTorch duck-sizes
equal sizes into one symbol, so merging them would trace a different program). When the hints
satisfy the problem they are themselves a model of this constraint, and the descent starts
there — so a model is known before the first solver call. When the problem has models but none
keeps the hinted symbols apart (only possible when the hints violate the problem), the
constraint is dropped with a warning rather than answering "unsat".

``optimal`` is true only when minimality is proven: by exhaustion in Python (``shrink_search``:
every point that sorts below the answer fails a guard) or by the solver's descent
(``optimize.Session.descend``: ``objective < best`` unsat). Anytime: when the operation's
resource units run out, the best model seen so far — z3 Optimize's best before it stopped
included, once re-checked in Python — is returned with ``optimal: false``, never the starting
point when a better model was seen. The wall-clock deadline (a load-dependent event,
``checker.OutOfTime``) once a valid model is known answers that model, ``optimal: false`` and
``incomplete: true`` (never cached); before one is known, ``unknown``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from symguard.solver.errors import InternalError
from symguard.solver.ir.problem import Problem, Symbol
from symguard.solver.ir.pyeval import Value, evaluate
from symguard.solver.ops.operation import Back, Operation, Result, timeout_unknown
from symguard.solver.ops.selfcheck import hint_model, hint_warnings, verify_model, violations
from symguard.solver.ops.shrink_search import search
from symguard.solver.smt.checker import SAT, UNSAT, Deadline, OutOfTime
from symguard.solver.smt.objectives import Lit, distinct_literal, levels, objectives
from symguard.solver.smt.optimize import Model, Objective, Session

METHODS = ("auto", "descend", "optimize")
DEFAULT_METHOD = "auto"
# "auto" first walks the smallest points in Python (``shrink_search``: on the torch corpus it
# settles every set, focalnet_37x45_export included, which no solver method proved within 2 s),
# then hands what is left to a solver method picked by size. bench/shrink_methods.py: z3's
# Optimize wins on the corpus' small and mid-size sets (ViT patchify 23 vs 50 ms), bisection on
# one incremental solver on the large non-linear ones (Swin, ~300 guards: 114 vs 807 ms).
DESCEND_FROM = 200  # asserts + guards
OPTIMIZE_SHARE = 0.6  # of the remaining budget z3 Optimize may use before the descent proves it


def shrink(problem: Problem, deadline: Deadline, objective: str | None = None, *,
           method: str = DEFAULT_METHOD) -> dict[str, Any]:
    """The docs/problem-format.md §2 shrink result for a (canonical) problem.

    ``method``: "descend" and "optimize" are the solver methods alone (``optimize.Session``);
    "auto" runs the Python search first and then the one that suits the problem's size."""
    if method not in METHODS:
        raise ValueError(f"unknown shrink method {method!r}")
    kind = objective or problem.options.objective
    ints = [s for s in problem.symbols if not s.is_bool]
    key = levels(kind, ints)
    warnings: list[str] = []
    pairs = distinct_pairs(problem) if problem.preserve_distinct else []

    def accept(m: Mapping[str, Value]) -> None:
        verify_model(problem, m)
        clash = [(a, b) for a, b in pairs if m[a] == m[b]]
        if clash:  # pragma: no cover - would be a translation bug
            raise InternalError(f"self-check failed: the model {dict(m)} merges {clash[0]}, whose hints "
                                "differ; please report this problem")

    def fits(m: Mapping[str, Value]) -> bool:
        """``accept`` without raising: for a model z3 handed over without a verdict."""
        return not violations(problem, m) and all(m[a] != m[b] for a, b in pairs)

    def result(model: Model, optimal: bool) -> dict[str, Any]:
        res: dict[str, Any] = {"status": SAT, "model": model, "objective": kind,
                               "objective_value": objective_value(kind, ints, model), "optimal": optimal}
        if problem.inputs:
            res["input_shapes"] = input_shapes(problem, model)
        if warnings:
            res["warnings"] = warnings
        return res

    # (hints come checked by hint_model, and differ on every distinct pair by construction:
    # re-evaluating 300 guards in Python would cost a Swin set a few hundred ms)
    start: Model | None = hint_model(problem)
    from_hints = start is not None
    sess: Session | None = None
    dl: list[Lit] = []
    if start is None:
        sess = Session(problem, deadline)
        dl = [distinct_literal(sess, pairs)] if pairs else []
        try:
            out = sess.check(lits=dl)
            if out.status == UNSAT and dl:
                out = sess.check()
                if out.status == SAT:
                    warnings.append("preserve_distinct was dropped: no model keeps the symbols with "
                                    "different hints apart")
                    pairs, dl = [], []
        except OutOfTime:  # no model yet: nothing to answer but unknown (a loaded machine reaches this)
            return {"status": "unknown", "reason": "timeout", "warnings": warnings}
        if out.status == UNSAT:
            return {"status": UNSAT, "core": sess.core_ids(out), "warnings": warnings}
        if out.status != SAT:
            return {"status": "unknown", "reason": out.reason, "warnings": warnings}
        start = out.model
        accept(start)
    try:
        return _improve(problem, deadline, method, kind, ints, key, start, from_hints, sess, dl, pairs,
                        accept, fits, result)
    except OutOfTime:  # the wall-clock deadline: the start model is valid, its optimality unknown
        res = result(start, False)
        res["incomplete"] = True
        return res


def _improve(problem: Problem, deadline: Deadline, method: str, kind: str, ints: list[Any], key: Any,
             start: Model, from_hints: bool, sess: Session | None, dl: list[Lit], pairs: list[Any],
             accept: Any, fits: Any, result: Any) -> dict[str, Any]:
    """From a valid model to the smallest one (proven when ``optimal``)."""
    lower: list[int] = []
    if method == "auto":
        found = search(problem, key, key(start), pairs, deadline)
        if found.model is not None:
            accept(found.model)
            return result(found.model, True)
        if found.optimal:
            return result(start, True)
        lower = found.lower
        method = "descend" if len(problem.asserts) + len(problem.guards) >= DESCEND_FROM else "optimize"
    if sess is None:
        sess = Session(problem, deadline)
        dl = [distinct_literal(sess, pairs)] if pairs else []
    objs = objectives(kind, ints, sess)
    if method == "optimize":
        model, optimal = _with_optimize(sess, objs, start, dl, accept, fits, lower)
    else:
        # PyTorch's trace-time sizes are often already smallest on large sets (both Swin sets):
        # then the first probe just below them is the proof (swin_export 148k -> 69k units)
        model, optimal = sess.descend(objs, start, dl, accept=accept, probe_first=from_hints, lower=lower)
    return result(model, optimal)


def _with_optimize(sess: Session, objs: Sequence[Objective], start: Model, dl: list[Lit],
                   accept: Any, fits: Any, lower: Sequence[int] = ()) -> tuple[Model, bool]:
    """z3 Optimize proposes; the descent (first probe just below the proposal) proves.

    When Optimize runs out of units its best model so far still becomes the descent's start
    (if Python confirms it and it beats ``start``), so that work is not lost."""
    budget = int(sess.deadline.remaining() * OPTIMIZE_SHARE)
    status, m, _ = sess.optimize([("min", o.term) for o in objs], lits=dl, budget=budget)
    if status == SAT and m is not None:
        accept(m)
        start = m
    elif m is not None and fits(m) and _better(objs, m, start):
        start = m
    return sess.descend(objs, start, dl, accept=accept, probe_first=True, lower=lower)


def _better(objs: Sequence[Objective], a: Model, b: Model) -> bool:
    """``a`` is lexicographically smaller than ``b`` on the objective's levels."""
    return [o.value(a) for o in objs] < [o.value(b) for o in objs]


def objective_value(kind: str, ints: Sequence[Symbol], model: Mapping[str, Value]) -> int | list[int]:
    vals = [abs(int(model[s.name])) for s in ints]
    if kind == "lex":
        return vals
    if kind == "max":
        return max(vals, default=0)
    return sum(vals)


# ------------------------------------------------------------------ distinctness, shapes

def distinct_pairs(problem: Problem) -> list[tuple[str, str]]:
    """Pairs of integer symbols whose hints are given and differ."""
    hinted = [s for s in problem.symbols if not s.is_bool and s.hint is not None]
    return [(a.name, b.name) for i, a in enumerate(hinted) for b in hinted[i + 1:] if a.hint != b.hint]


def input_shapes(problem: Problem, model: Mapping[str, Value]) -> dict[str, list[int | None]]:
    """Each input's dimensions under the model (null where a dimension divides by zero)."""
    out: dict[str, list[int | None]] = {}
    for name, dims in problem.inputs:
        row: list[int | None] = []
        for d in dims:
            try:
                row.append(int(evaluate(d, model)))
            except ZeroDivisionError:
                row.append(None)
        out[name] = row
    return out


# ------------------------------------------------------------------ the operation

def _final(res: dict[str, Any]) -> bool:
    return res.get("optimal") is not False


def _map_back(res: Result, back: Back) -> Result:
    out: Result = {"warnings": [*res.get("warnings", ()), *hint_warnings(back.problem)]}
    if "input_shapes" in res:  # canonical inputs are sorted by name: back to the caller's order
        out["input_shapes"] = {n: res["input_shapes"][n] for n, _ in back.problem.inputs}
    return out


def _tally(res: dict[str, Any]) -> list[str]:
    return ["optimal" if res.get("optimal") else "not proven optimal"]


OPERATION = Operation("shrink", shrink, timeout_unknown, is_final=_final, map_back=_map_back, tally=_tally)
