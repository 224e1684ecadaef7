"""The solver side of contexts, run in a context worker process (``service.contexts``).

Each process keeps its hot contexts (``solver.session.Context``: parsed problem, facts, z3
session, learned answers) in an LRU. The server routes every request for one key to the same
process, so a follow-up question finds its session here; a process that does not hold the key
answers ``("need",)`` and the server sends the stored document, which is read once and kept.
Every function returns plain data (pickled back to the server); errors become §5 bodies.

Registering and extending also hand back the context's facts (``solver.session.FactsPayload``:
plain data, no z3 object) — whole, or only the conditions an extension adds when the server holds
the parent's — so that the server answers facts-decided questions itself (``FactsView``);
``run`` hands them back when the server asks (it holds none for the key, e.g. another replica
registered it) and says whether the context is now known satisfiable.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

HOT_CONTEXTS = 64  # per process; a context's session is rebuilt from its document when evicted
_HOT: OrderedDict[str, Any] = OrderedDict()
_FINAL_FIELDS = ("status", "reason", "queries", "guards", "exprs", "optimal")


def _keep(ctx: Any) -> Any:
    _HOT[ctx.key] = ctx
    _HOT.move_to_end(ctx.key)
    while len(_HOT) > HOT_CONTEXTS:
        _HOT.popitem(last=False)
    return ctx


def _context(key: str, doc: dict[str, Any] | None) -> Any:
    from solver.session import Context

    ctx = _HOT.get(key)
    if ctx is not None:
        _HOT.move_to_end(key)
        return ctx
    if doc is None:
        return None
    return _keep(Context(doc, key=key))


def _error(e: Exception) -> tuple[str, dict[str, Any], int]:
    from .errors import error_body, http_status

    return ("error", error_body(e), http_status(e))


def is_final(op: str, res: dict[str, Any]) -> bool:
    """Whether a context's result may be cached by its body (nothing in it ran out of time)."""
    from solver import api

    return api.is_final(op, {k: v for k, v in res.items() if k in _FINAL_FIELDS})


def warm() -> int:
    """Import the solver before the first request (returns the process id)."""
    import os

    import solver.session  # noqa: F401

    return os.getpid()


def register(doc: Any) -> tuple[Any, ...]:
    """Read a context document: ``("done", key, document, facts payload)``."""
    from solver.session import Context

    try:
        ctx = _keep(Context(doc))
        return ("done", ctx.key, ctx.document, ctx.facts_payload())
    except Exception as e:  # noqa: BLE001 - a §5 body, never a traceback
        return _error(e)


def extend(key: str, delta: dict[str, Any], have_view: bool, doc: dict[str, Any] | None) -> tuple[Any, ...]:
    """``("done", new key, new document, facts payload)`` or ``("need",)`` when the context is not
    held here. With ``have_view`` (the server holds this context's facts) the payload holds only
    the conditions the delta adds."""
    try:
        ctx = _context(key, doc)
        if ctx is None:
            return ("need",)
        new = _keep(ctx.extend(delta))
        if new is ctx:  # nothing added: the same context
            return ("done", new.key, new.document, None if have_view else new.facts_payload())
        return ("done", new.key, new.document, new.facts_payload(ctx if have_view else None))
    except Exception as e:  # noqa: BLE001
        return _error(e)


def run(key: str, op: str, delta: dict[str, Any], want_view: bool, doc: dict[str, Any] | None) -> tuple[Any, ...]:
    """``("done", result, final, facts payload or None, known satisfiable)`` or ``("need",)`` when
    the context is not held here. The payload only when asked (``want_view``) and the context is
    known satisfiable (a view answers nothing before)."""
    try:
        ctx = _context(key, doc)
        if ctx is None:
            return ("need",)
        res = ctx.run(op, delta)
        sat = ctx.known_sat()
        payload = ctx.facts_payload() if want_view and sat else None
        return ("done", res, is_final(op, res), payload, sat)
    except Exception as e:  # noqa: BLE001
        return _error(e)
