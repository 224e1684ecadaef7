"""Ask ``redundancy`` about each compile's shape guards and gather the report's JSON.

A line is **kept** unless symguard proves it ``redundant`` (implied by the kept lines it names
in ``implied_by``) or ``always_true`` (implied by sizes being ``>= 0`` alone); every other
outcome keeps it: ``required``, ``unknown`` (undecided within the budget), ``unsupported``,
``unread`` (not sent, see ``problem``), and all lines when the answer is not ``sat`` or the
call failed (``service.torch_prune.minimal_ids``, the rule the guard pruner itself follows).

The per-call cost is estimated from the guard code itself, before (every line) and after (the
kept lines): how many lines, their characters of Python, and what evaluating them takes
(``solver.syntax.sympy_writer.cost``: operations, and divisions/moduli counted apart, with each
source lookup as one name). It counts the shape guards alone; Dynamo's own measured latency of
the frame's whole guard tree (every guard kind, at compile time) is reported beside it as logged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symguard.solver.errors import SymguardError
from symguard.solver.syntax.sympy_writer import cost as text_cost

from ..errors import error_body, exit_code
from ..torch_prune import minimal_ids
from .log import Compile
from .problem import SOURCE, Line, build

Runner = Callable[[str, dict[str, Any]], dict[str, Any]]

WHY = {
    "required": "kept: some input that passes every other line fails this one",
    "unknown": "kept: not decided within the budget (sound: undecided lines stay)",
    "unsupported": "kept: symguard does not read this line exactly",
    "always_true": "dropped: holds for every input (sizes are never negative)",
    "redundant": "dropped: implied by the kept lines it links to",
    "always_false": "kept: contradicts what every input satisfies",
}


def line_cost(code: str) -> dict[str, int]:
    """``{"chars", "ops", "divs"}`` of one Python guard line (each source counted as a name)."""
    try:
        c = text_cost(SOURCE.sub("v", code))
    except (SyntaxError, ValueError, RecursionError):
        c = {"ops": 0, "divs": 0}
    return {"chars": len(code), **c}


def _total(rows: list[dict[str, Any]]) -> dict[str, int]:
    out = {"lines": len(rows), "chars": 0, "ops": 0, "divs": 0}
    for r in rows:
        for k in ("chars", "ops", "divs"):
            out[k] += r["cost"][k]
    return out


def analyze(c: Compile, runner: Runner, *, timeout_ms: int | None = None) -> dict[str, Any]:
    """The report entry of one compile; never raises for a problem symguard refuses (it is kept whole)."""
    entry: dict[str, Any] = {
        "compile_id": c.compile_id, "file": c.file, "file_index": c.file_index, "frame_id": c.frame_id,
        "frame_compile_id": c.frame_compile_id, "attempt": c.attempt,
        "anchor": "c-" + "-".join(str(x) for x in (c.file_index, c.autograd_id, c.frame_id, c.frame_compile_id)
                                  if x is not None),
        "co_name": c.co_name, "co_filename": c.co_filename, "co_firstlineno": c.co_firstlineno,
        "recompile_reasons": c.recompile_reasons, "metrics": c.metrics,
        "guard_latency_us": c.guard_latency_us,
        "symbols": [{"symbol": s.name, "source": s.source, "value": s.value, "range_at_creation": s.range}
                    for s in c.symbols],
        "specializations": c.specializations,
        "shape_env_guards_recorded": len(c.recorded_guards),
        "shape_env_guards": c.recorded_guards,
        "shape_env_guards_suppressed": c.suppressed,
        "identity_guards": [{"code": g.code, "origin": g.origin} for g in c.identity_guards],
    }
    if c.emitted is None:
        entry.update(status="no_guards", guards=[], minimal=[], result=None,
                     cost={"before": _total([]), "after": _total([])})
        return entry
    doc, lines = build(c)
    if timeout_ms is not None:
        doc["options"]["timeout_ms"] = timeout_ms
    res: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    if doc["guards"]:
        try:
            res = runner("redundancy", doc)
        except SymguardError as e:
            error = {**error_body(e), "exit": exit_code(e)}
        except Exception as e:  # noqa: BLE001 - one compile's failure never loses the others
            error = {**error_body(e), "exit": exit_code(e)}
    rows = _rows(lines, res)
    kept = [r for r in rows if r["kept"]]
    entry.update(
        status="error" if error else (res or {}).get("status", "no_question"),
        error=error, problem=doc, guards=rows, minimal=[r["id"] for r in kept],
        result={k: (res or {}).get(k) for k in ("status", "reason", "key", "elapsed_ms", "incomplete", "warnings")
                if (res or {}).get(k) is not None},
        cost={"before": _total(rows), "after": _total(kept)},
    )
    return entry


def _rows(lines: list[Line], res: dict[str, Any] | None) -> list[dict[str, Any]]:
    verdicts: dict[str, dict[str, Any]] = {}
    keep: set[str] | None = None
    if res is not None:
        verdicts = {g["id"]: g for g in res.get("guards") or [] if isinstance(g, dict) and "id" in g}
        keep = minimal_ids(res, [ln.id for ln in lines if ln.text is not None])
    rows = []
    for ln in lines:
        v = verdicts.get(ln.id, {})
        verdict = "unread" if ln.unread else str(v.get("verdict", "not_asked"))
        kept = ln.unread is not None or keep is None or ln.id in keep
        implied_by = [str(x) for x in v.get("implied_by") or []] if not kept else []
        if ln.unread:
            why = f"kept: not read by symguard ({ln.unread})"
        elif keep is None:
            why = "kept: the redundancy answer was not sat, so every line stays"
        else:
            why = WHY.get(verdict, "kept")
        rows.append({"id": ln.id, "code": ln.code, "origin": ln.origin, "symguard": ln.text,
                     "verdict": verdict, "kept": kept, "implied_by": implied_by, "why": why,
                     "cost": line_cost(ln.code)})
    return rows


def totals(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """Sums over the compiles, and the share of each cost measure the kept lines keep."""
    out: dict[str, Any] = {"compiles": len(entries), "recompiles": sum(e["frame_compile_id"] > 0 for e in entries)}
    for side in ("before", "after"):
        out[side] = {k: sum(e["cost"][side][k] for e in entries) for k in ("lines", "chars", "ops", "divs")}
    out["kept_share"] = {k: (round(out["after"][k] / out["before"][k], 4) if out["before"][k] else None)
                         for k in ("lines", "chars", "ops", "divs")}
    return out
