"""SPEC §2 ``shrink``: the smallest assignment that satisfies every assert, guard and range.

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

``optimal`` is true only when the descent proved the bound (see ``optimum``); on timeout the
best model found is returned with ``optimal: false``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import z3

from .checker import SAT, UNSAT, Deadline
from .errors import InternalError
from .optimum import Model, Objective, Session
from .problem import Problem, Symbol
from .pyeval import Value, evaluate
from .selfcheck import hint_model, verify_model

METHODS = ("auto", "descend", "optimize")
DEFAULT_METHOD = "auto"
# bench/shrink_methods.py: z3's Optimize wins on the corpus' small and mid-size sets (ViT patchify
# 23 vs 50 ms), bisection on one incremental solver on the large non-linear ones (Swin, ~300
# guards: 114 vs 807 ms); "auto" picks by size
DESCEND_FROM = 200  # asserts + guards
OPTIMIZE_SHARE = 0.6  # of the remaining budget z3 Optimize may use before the descent proves it


def shrink(problem: Problem, deadline: Deadline, objective: str | None = None, *,
           method: str = DEFAULT_METHOD) -> dict[str, Any]:
    """The SPEC §2 shrink result for a (canonical) problem."""
    if method not in METHODS:
        raise ValueError(f"unknown shrink method {method!r}")
    if method == "auto":
        method = "descend" if len(problem.asserts) + len(problem.guards) >= DESCEND_FROM else "optimize"
    kind = objective or problem.options.objective
    sess = Session(problem, deadline)
    ints = [s for s in problem.symbols if not s.is_bool]
    warnings: list[str] = []
    pairs = distinct_pairs(problem) if problem.preserve_distinct else []
    dl = [sess.lit(_distinct(sess, pairs))] if pairs else []

    def accept(m: Mapping[str, Value]) -> None:
        verify_model(problem, m)
        clash = [(a, b) for a, b in pairs if m[a] == m[b]]
        if clash:  # pragma: no cover - would be a translation bug
            raise InternalError(f"self-check failed: the model {dict(m)} merges {clash[0]}, whose hints "
                                "differ; please report this problem")

    start: Model | None = hint_model(problem)
    if start is None:
        out = sess.check(lits=dl)
        if out.status == UNSAT and dl:
            out = sess.check()
            if out.status == SAT:
                warnings.append("preserve_distinct was dropped: no model keeps the symbols with "
                                "different hints apart")
                pairs, dl = [], []
        if out.status == UNSAT:
            return {"status": UNSAT, "core": sess.core_ids(out), "warnings": warnings}
        if out.status != SAT:
            return {"status": "unknown", "reason": out.reason, "warnings": warnings}
        start = out.model
    accept(start)
    objs = objectives(kind, ints, sess)
    if method == "optimize":
        model, optimal = _with_optimize(sess, objs, start, dl, accept)
    else:
        model, optimal = sess.descend(objs, start, dl, accept=accept)
    res: dict[str, Any] = {"status": SAT, "model": model, "objective": kind,
                           "objective_value": objective_value(kind, ints, model), "optimal": optimal}
    if problem.inputs:
        res["input_shapes"] = input_shapes(problem, model)
    if warnings:
        res["warnings"] = warnings
    return res


def _with_optimize(sess: Session, objs: Sequence[Objective], start: Model, dl: list[z3.BoolRef],
                   accept: Any) -> tuple[Model, bool]:
    """z3 Optimize proposes; the descent (first probe just below the proposal) proves."""
    budget = int(sess.deadline.remaining_ms() * OPTIMIZE_SHARE)
    status, m, _ = sess.optimize([("min", o.term) for o in objs], lits=dl, budget_ms=budget)
    if status == SAT and m is not None:
        accept(m)
        start = m
    return sess.descend(objs, start, dl, accept=accept, probe_first=True)


# ------------------------------------------------------------------ objectives

def _abs(z: z3.ArithRef, s: Symbol) -> z3.ArithRef:
    if s.lo is not None and s.lo >= 0:
        return z
    if s.hi is not None and s.hi <= 0:
        return -z
    return z3.If(z >= 0, z, -z)


def _lowest_abs(s: Symbol) -> int:
    """min |v| over the symbol's range."""
    if s.lo is not None and s.lo > 0:
        return s.lo
    if s.hi is not None and s.hi < 0:
        return -s.hi
    return 0


def objectives(kind: str, ints: Sequence[Symbol], sess: Session) -> list[Objective]:
    """The lexicographic levels of an objective, as z3 terms and Python functions."""
    if not ints:
        return []
    zs = {s.name: sess.ch.z3_symbol(s.name) for s in ints}
    absz = {s.name: _abs(zs[s.name], s) for s in ints}
    names = [s.name for s in ints]
    total = z3.Sum(list(absz.values())) if len(ints) > 1 else absz[names[0]]
    sum_obj = Objective(total, lambda b: total <= b,
                        lambda m: sum(abs(int(m[n])) for n in names),
                        sum(_lowest_abs(s) for s in ints))
    if kind == "sum":
        return [sum_obj]
    if kind == "max":
        top = absz[names[0]]
        for n in names[1:]:
            top = z3.If(absz[n] > top, absz[n], top)
        max_obj = Objective(top, lambda b: z3.And([z3.And(zs[n] <= b, zs[n] >= -b) for n in names]),
                            lambda m: max(abs(int(m[n])) for n in names),
                            max(_lowest_abs(s) for s in ints))
        return [max_obj, sum_obj]
    if kind == "lex":
        return [_single(absz[s.name], zs[s.name], s) for s in ints]
    raise ValueError(f"unknown objective {kind!r}")


def _single(a: z3.ArithRef, z: z3.ArithRef, s: Symbol) -> Objective:
    name = s.name
    return Objective(a, lambda b: z3.And(z <= b, z >= -b), lambda m: abs(int(m[name])), _lowest_abs(s))


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


def _distinct(sess: Session, pairs: Sequence[tuple[str, str]]) -> z3.BoolRef:
    z = sess.ch.z3_symbol
    return z3.And([z(a) != z(b) for a, b in pairs])


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
