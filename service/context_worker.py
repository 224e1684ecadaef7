"""The solver side of contexts, run in a context worker process (``service.contexts``).

Each process keeps its hot contexts (``solver.session.Context``: parsed problem, facts, z3
session, learned answers) in an LRU. The server routes every request for one key to the same
process, so a follow-up question finds its session here; a process that does not hold the key
answers ``("need",)`` and the server sends the stored document, which is read once and kept.
Every function returns plain data (pickled back to the server); errors become §5 bodies.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

HOT_CONTEXTS = 64  # per process; a context's session is rebuilt from its document when evicted
_HOT: OrderedDict[str, Any] = OrderedDict()


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


def warm() -> int:
    """Import the solver before the first request (returns the process id)."""
    import os

    import solver.session  # noqa: F401

    return os.getpid()


def register(doc: Any) -> tuple[Any, ...]:
    """Read a context document: ``("done", key, document)``."""
    from solver.session import Context

    try:
        ctx = _keep(Context(doc))
    except Exception as e:  # noqa: BLE001 - a §5 body, never a traceback
        return _error(e)
    return ("done", ctx.key, ctx.document)


def extend(key: str, delta: dict[str, Any], doc: dict[str, Any] | None) -> tuple[Any, ...]:
    """``("done", new key, new document)`` or ``("need",)`` when the context is not held here."""
    try:
        ctx = _context(key, doc)
        if ctx is None:
            return ("need",)
        new = _keep(ctx.extend(delta))
    except Exception as e:  # noqa: BLE001
        return _error(e)
    return ("done", new.key, new.document)


def run(key: str, op: str, delta: dict[str, Any], doc: dict[str, Any] | None) -> tuple[Any, ...]:
    """``("done", result, final)`` or ``("need",)`` when the context is not held here."""
    from solver import api

    try:
        ctx = _context(key, doc)
        if ctx is None:
            return ("need",)
        res = ctx.run(op, delta)
        final = api.is_final(op, {k: v for k, v in res.items() if k in ("status", "reason", "queries",
                                                                           "guards", "exprs", "optimal")})
    except Exception as e:  # noqa: BLE001
        return _error(e)
    return ("done", res, final)
