"""Re-check every model with Python's own integers before it leaves the library.

A model that fails here means a bug in an encoding or in z3: it becomes an ``InternalError``,
never a wrong answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from symguard.solver.errors import InternalError
from symguard.solver.ir.problem import Problem
from symguard.solver.ir.pyeval import Value, holds
from symguard.solver.ir.terms import Term


def violations(problem: Problem, model: Mapping[str, Value], *, guards: bool = True,
               extra: Iterable[tuple[str, Term]] = ()) -> list[str]:
    """Names of the ranges, asserts and guards (and ``extra`` conditions) ``model`` violates."""
    bad = []
    for s in problem.symbols:
        v = model.get(s.name)
        if v is None:
            bad.append(f"{s.name} has no value")
        elif not s.is_bool and ((s.lo is not None and v < s.lo) or (s.hi is not None and v > s.hi)):
            bad.append(f"{s.name}={v} outside its range")
    cons = list(problem.asserts) + (list(problem.guards) if guards else [])
    for c in cons:
        if c.term is not None and not holds(c.term, model):
            bad.append(c.id)
    for name, t in extra:
        if not holds(t, model):
            bad.append(name)
    return bad


def verify_model(problem: Problem, model: Mapping[str, Value], *, guards: bool = True,
                 extra: Iterable[tuple[str, Term]] = ()) -> None:
    bad = violations(problem, model, guards=guards, extra=extra)
    if bad:
        raise InternalError(f"self-check failed: the solver's model {dict(model)} violates "
                            f"{', '.join(bad[:5])}; please report this problem")


def hint_model(problem: Problem) -> dict[str, Value] | None:
    """The trace-time sizes as a model, when every symbol has one and they satisfy the ranges,
    asserts and guards (Python's integers): a model found without a solver."""
    hints = problem.hints
    if hints is None or len(hints) != len(problem.symbols) or violations(problem, hints):
        return None
    return dict(hints)


def hint_warnings(problem: Problem) -> list[str]:
    hints = problem.hints
    if hints is None:
        return []
    env: dict[str, int | bool] = dict(hints)
    bad = violations(problem, env)
    if not bad:
        return []
    return [f"the hints violate the problem: {', '.join(bad[:10])}" + (" …" if len(bad) > 10 else "")]
