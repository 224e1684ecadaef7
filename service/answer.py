"""One operation on one request body: exact cache → worker (canonical caches inside) → metrics.

The routes call ``Answerer.answer`` and nothing else; it returns the caller's SPEC §2 result with
``cached`` and ``elapsed_ms`` (wall time in this server, queueing included) filled in, or raises a
``SymguardError`` that ``service.errors`` turns into the §5 response.
"""

from __future__ import annotations

import time
from typing import Any

from .cache import ResultCache, exact_key
from .metrics import Metrics
from .workers import WorkerPool

Result = dict[str, Any]
EXACT_MAX_BODY = 256 * 1024  # larger requests skip the exact layer: it counts entries, not bytes


class Answerer:
    def __init__(self, pool: WorkerPool, cache: ResultCache, metrics: Metrics) -> None:
        self.pool = pool
        self.cache = cache
        self._m = metrics

    async def answer(self, op: str, body: bytes, *, bounded: bool = True) -> Result:
        t0 = time.perf_counter()
        ek = exact_key(op, body)
        hit = self.cache.get_exact(ek)
        if hit is not None:
            self._m.cache_hits.labels("exact").inc()
            out = {**hit, "cached": True, "elapsed_ms": _ms(t0)}
        else:
            done = await self.pool.run(op, body, self.cache.lookup, bounded=bounded)
            if done.layer is not None:
                self._m.cache_hits.labels(done.layer).inc()
            else:
                self._m.cache_misses.inc()
            if done.fresh is not None:
                self.cache.put(op, done.key, done.fresh)
            out = done.result
            out["elapsed_ms"] = _ms(t0)
            final = done.fresh is not None or done.layer is not None  # safe to replay verbatim
            if final and len(body) <= EXACT_MAX_BODY:
                self.cache.put_exact(ek, dict(out))
        self._m.outcomes.labels(op, str(out.get("status"))).inc()
        return out


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 3)
