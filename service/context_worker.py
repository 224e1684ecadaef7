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

import gc
from collections import OrderedDict
from typing import Any

# Per process; a context's session is rebuilt from its document when evicted. Bounded by count
# and by bytes: each context's own (``Context.nbytes``, an over-estimate re-weighed after every
# use: it grows while it answers, within the caps of ``solver.session``) plus each z3 session
# once (``Context.session_nbytes``: ~24 MiB each, an over-estimate; shared by a family of
# extensions). 64 unrelated contexts with sessions held 2.6 GB; this bound keeps about 20.
HOT_CONTEXTS = 64
HOT_BYTES = 512 << 20
_HOT: OrderedDict[str, Any] = OrderedDict()
_WEIGHT: dict[str, tuple[int, int, int]] = {}  # key -> (own bytes, session id, session bytes)
COLLECT_AFTER = 4  # z3 sessions let go between two full collections
_UNCOLLECTED = 0


def _weight() -> int:
    sessions = {sid: n for _, sid, n in _WEIGHT.values()}
    return sum(w for w, _, _ in _WEIGHT.values()) + sum(sessions.values())
_FINAL_FIELDS = ("status", "reason", "queries", "guards", "exprs", "optimal", "incomplete")


def _keep(ctx: Any) -> Any:
    """Hold ``ctx`` as the most recent, re-weighed; evict the least recent past either bound (an
    extension holds no strong link to its parent: evicting one frees it, ``solver.session``)."""
    _HOT[ctx.key] = ctx
    _HOT.move_to_end(ctx.key)
    _WEIGHT[ctx.key] = (ctx.nbytes(), *ctx.session_nbytes())
    dropped: set[int] = set()
    while len(_HOT) > 1 and (len(_HOT) > HOT_CONTEXTS or _weight() > HOT_BYTES):
        old, _ = _HOT.popitem(last=False)
        _, sid, _ = _WEIGHT.pop(old, (0, 0, 0))
        dropped.add(sid)
    global _UNCOLLECTED
    _UNCOLLECTED += len(dropped - {0} - {sid for _, sid, _ in _WEIGHT.values()})
    if _UNCOLLECTED >= COLLECT_AFTER:
        # z3 sessions no hot context shares were let go: they sit in reference cycles (z3 objects
        # and their owners), which only the cyclic collector frees; left to its own schedule, 100
        # unrelated contexts took a worker to 1.1 GB while 10 were held. A full collection costs
        # tens of milliseconds: one per few sessions let go, at most that many left waiting.
        _UNCOLLECTED = 0
        gc.collect()
    return ctx


def _context(key: str, doc: dict[str, Any] | None) -> Any:
    from symguard.solver.session import Context

    ctx = _HOT.get(key)
    if ctx is not None:
        _HOT.move_to_end(key)
        return ctx
    if doc is None:
        return None
    return _keep(Context(doc, key=key))


def _counts(ctx: Any) -> dict[str, int]:
    p = ctx.problem
    return {"symbols": ctx._frame.n_declared, "asserts": len(p.asserts), "guards": len(p.guards)}


def _error(e: Exception) -> tuple[str, dict[str, Any], int]:
    from .errors import error_body, http_status

    return ("error", error_body(e), http_status(e))


def is_final(op: str, res: dict[str, Any]) -> bool:
    """Whether a context's result may be cached by its body (nothing in it ran out of time)."""
    from symguard.solver import api

    return api.is_final(op, {k: v for k, v in res.items() if k in _FINAL_FIELDS})


def warm() -> int:
    """Import the solver before the first request (returns the process id)."""
    import os

    import symguard.solver.session  # noqa: F401
    from symguard.solver.ops import load_all

    load_all()  # each operation's module is imported on its first use: pay it here

    return os.getpid()


def register(doc: Any) -> tuple[Any, ...]:
    """Read a context document: ``("done", key, document, counts, facts payload)``."""
    from symguard.solver.session import Context

    try:
        ctx = _keep(Context(doc))
        return ("done", ctx.key, ctx.document, _counts(ctx), ctx.facts_payload())
    except Exception as e:  # noqa: BLE001 - a §5 body, never a traceback
        return _error(e)


def extend(key: str, delta: dict[str, Any], have_view: bool, whole: bool,
           doc: dict[str, Any] | None) -> tuple[Any, ...]:
    """``("done", new key, part, is whole, counts, facts payload)`` or ``("need",)`` when the
    context is not held here. ``part`` is what the server stores for the new key: the delta it
    adds (ids assigned: ``Context.delta``), or with ``whole`` its whole document (a checkpoint);
    None when the delta adds nothing (the same key). With ``have_view`` (the server holds this
    context's facts) the payload holds only the conditions the delta adds."""
    try:
        ctx = _context(key, doc)
        if ctx is None:
            return ("need",)
        new = ctx.extend(delta)
        if new is ctx:  # nothing added: the same context
            return ("done", new.key, None, False, _counts(new), None if have_view else new.facts_payload())
        _keep(new)
        part = new.document if whole else new.delta
        return ("done", new.key, part, whole, _counts(new), new.facts_payload(ctx if have_view else None))
    except Exception as e:  # noqa: BLE001
        return _error(e)


def run(key: str, op: str, delta: dict[str, Any], want_view: bool, doc: dict[str, Any] | None,
        spent_ms: float = 0.0) -> tuple[Any, ...]:
    """``("done", result, final, facts payload or None, known satisfiable)`` or ``("need",)`` when
    the context is not held here. The payload only when asked (``want_view``) and the context is
    known satisfiable (a view answers nothing before). ``spent_ms``: what the request spent
    before this call (the library's deadline counts from the request's arrival)."""
    try:
        ctx = _context(key, doc)
        if ctx is None:
            return ("need",)
        res = ctx.run(op, delta, spent_ms=spent_ms)
        _keep(ctx)  # re-weighed: it learned while answering
        sat = ctx.known_sat()
        payload = ctx.facts_payload() if want_view and sat else None
        return ("done", res, is_final(op, res), payload, sat)
    except Exception as e:  # noqa: BLE001
        return _error(e)
