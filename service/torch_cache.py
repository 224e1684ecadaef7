"""symguard's answers kept in-process for the guard pruner (``cached_run``, ``clear_cache``).

torch is never imported here.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from .torch_bridge import Doc

# A model recompiled (a new ShapeEnv for the same frame, or the same module compiled again) asks
# the same question: the process-local cache answers it without solving again. Two levels: the
# exact document (no parsing at all), then symguard's canonical key (the same problem under other
# symbol names), as the service's cache does (solver.prepare / compute / finish). Only final
# answers are kept (nothing that ran out of time), at most ``CACHE_SIZE`` of each.

CACHE_SIZE = 256
_cache_lock = threading.Lock()
_by_doc: OrderedDict[tuple[str, str], dict[str, Any]] = OrderedDict()
_by_key: OrderedDict[tuple[str, str], dict[str, Any]] = OrderedDict()


def _remember(table: OrderedDict[tuple[str, str], Any], key: tuple[str, str], value: Any) -> None:
    with _cache_lock:
        table[key] = value
        table.move_to_end(key)
        while len(table) > CACHE_SIZE:
            table.popitem(last=False)


def _recall(table: OrderedDict[tuple[str, str], Any], key: tuple[str, str]) -> Any:
    with _cache_lock:
        hit = table.get(key)
        if hit is not None:
            table.move_to_end(key)
        return hit


def clear_cache() -> None:
    """Forget every cached answer (tests, or a process that wants to measure a cold solve)."""
    with _cache_lock:
        _by_doc.clear()
        _by_key.clear()


def cached_run(op: str, doc: Doc) -> dict[str, Any]:
    """``solver.run(op, doc)`` through the process-local cache (``cached`` says whether it hit)."""
    import json
    import time

    from symguard.solver import compute, finish, is_final, prepare

    t0, c0 = time.monotonic(), time.perf_counter()
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"))
    hit = _recall(_by_doc, (op, text))
    if hit is not None:
        return {**hit, "cached": True, "elapsed_ms": round((time.perf_counter() - c0) * 1000, 3)}
    p, canon = prepare(doc)
    res = _recall(_by_key, (op, canon.key))
    cached = res is not None
    if res is None:
        res = compute(op, canon.problem, started=t0)
        if is_final(op, res):
            _remember(_by_key, (op, canon.key), res)
    out = dict(finish(op, res, p, canon, cached=cached, elapsed_ms=(time.perf_counter() - c0) * 1000))
    if is_final(op, res):
        _remember(_by_doc, (op, text), out)
    return out

