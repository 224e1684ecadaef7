"""The answer of ``simplify`` as the operation hands it on: its rows, mapped back to the caller's
names and order, tallied, and audited when it comes out of a cache.

A form never costs more than what was sent (``_map_back`` gives the caller's own text back
then), and only a complete, proven answer is final (``_final``: cached).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from symguard.solver.errors import BadInput
from symguard.solver.ir import terms as ir
from symguard.solver.ir.problem import Problem, Query
from symguard.solver.ir.pyeval import Value, evaluate, holds
from symguard.solver.ops.operation import Audit, Back, Result
from symguard.solver.ops.selfcheck import hint_model
from symguard.solver.ops.simplify_cost import no_costlier
from symguard.solver.ops.simplify_values import Model
from symguard.solver.reason import simplify_equalities as eqs
from symguard.solver.smt.checker import UNSAT
from symguard.solver.syntax.sympy_reader import parse_sympy
from symguard.solver.syntax.sympy_writer import cost, to_sympy


def _value(t: ir.Term, pt: Model) -> Value | None:
    try:
        return evaluate(t, pt)
    except ZeroDivisionError:
        return None


def _row(q: Query, form: str | None, proved: bool) -> dict[str, Any]:
    row: dict[str, Any] = {"id": q.id, "form": form, "proved": proved}
    if form is not None:
        row["cost"] = cost(form)
    return row


def _unknown(problem: Problem) -> dict[str, Any]:
    return {"status": "unknown", "reason": "timeout", "exprs": [_row(q, None, False) for q in problem.exprs]}


def _final(res: dict[str, Any]) -> bool:
    return not res.get("incomplete") and all(row.get("proved") for row in res.get("exprs", ())) or res.get("status") == UNSAT


_CANON_NAME = re.compile(r"\bv\d+\b")


def _map_back(res: Result, back: Back) -> Result:
    """Rows in the caller's order and ids; forms in the caller's symbol names; an unproven row
    gives the caller's own text back, and so does a form costlier than that text (the IR has no
    truncated division: ``TruncDiv(TruncDiv(x, 2), 3)`` would print as a ``Piecewise`` of eight
    divisions): a form never costs more than what was sent."""
    rows = res["exprs"]
    names = back.canon.names
    reps = res.get("representatives", {})
    # a class of plain symbols is represented by the member PyTorch keeps in the caller's names
    # (eqs.keep_key), whichever the canonical order made its representative
    classes: dict[str, list[str]] = {}
    for x, e in reps.items():
        if _CANON_NAME.fullmatch(e):
            classes.setdefault(e, [e]).append(x)
    if classes:  # (a context's follow-up has hundreds of symbols and, mostly, no class: no copies)
        names = dict(names)
        hints = {s.name: s.hint for s in back.problem.symbols}
        for rep, members in classes.items():
            names[rep] = min((names.get(m, m) for m in members), key=lambda n: eqs.keep_key(n, hints))
    rename = functools.partial(_CANON_NAME.sub, lambda m: names.get(m.group(0), m.group(0)))
    caller = back.canon.names
    representatives = {}
    for x, e in reps.items():
        if caller.get(x, x) != rename(e):
            representatives[caller.get(x, x)] = rename(e)
    for rep in classes:
        if caller.get(rep, rep) != names[rep]:
            representatives[caller.get(rep, rep)] = names[rep]
    syntax = back.problem.syntax
    mapped = []
    for q, j in zip(back.problem.exprs, back.canon.exprs):
        row = dict(rows[j])
        row["id"] = q.id
        before = cost(q.text) if syntax == "sympy" else cost(to_sympy(q.term))
        if row["form"] is None or not row["proved"]:
            row.update(form=q.text, proved=False, cost={"before": before, "after": before})
        elif not no_costlier(row["cost"], before):  # never costlier than the text as sent: the text is its own form
            row.update(form=q.text if syntax == "sympy" else to_sympy(q.term), cost={"before": before, "after": before})
        else:
            row["form"] = rename(row["form"])
            row["cost"] = {"before": before, "after": row["cost"]}
        mapped.append(row)
    return {"exprs": mapped, "warnings": list(res.get("warnings", ())),
            "representatives": dict(sorted(representatives.items()))}


def _tally(res: dict[str, Any]) -> list[str]:
    labels = []
    for row in res.get("exprs", ()):
        if not row.get("proved"):
            labels.append("unproved")
        else:
            c = row.get("cost", {})
            labels.append("simplified" if c.get("after") != c.get("before") else "unchanged")
    return labels


def _audit(res: Result, audit: Audit) -> None:
    """A cached form must read back over the problem's symbols and, when the hints are a point of
    the context, agree with its expression there (a cheap guard against a planted form; the
    proof itself is not redone)."""
    pt = hint_model(audit.problem)
    exprs = audit.problem.exprs
    for r, q in zip(audit.rows(res, "exprs", [q.id for q in exprs]), exprs):
        form, proved = r.get("form"), r.get("proved")
        if type(proved) is not bool or not (form is None or isinstance(form, str)):
            raise audit.bad(f"{q.id} is not a form with a proof flag")
        if not proved or form is None:
            continue
        try:
            got = parse_sympy(form).term
        except BadInput:
            raise audit.bad(f"the form of {q.id} does not read back") from None
        if not ir.symbols_of(got) <= set(audit.symbols) or got.is_bool != q.term.is_bool:
            raise audit.bad(f"the form of {q.id} is not over the problem's symbols")
        if pt is not None and holds(q.domain, pt) and _value(q.term, pt) != _value(got, pt):
            raise audit.bad(f"the form of {q.id} differs from its expression at the hints")

