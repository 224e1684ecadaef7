"""One operation on one request body: exact cache → worker (canonical caches inside) → metrics.

Concurrent requests for one canonical problem are coalesced: while a worker computes a key, a
second request for it (renamed, permuted, …) waits for that answer instead of computing it again
(its worker idles meanwhile; CPU, not worker slots, is what a 2-core host lacks). If the first
computation does not end final (timeout, error), the waiter computes for itself.

The routes call ``Answerer.answer`` and nothing else; it returns the caller's docs/problem-format.md §2 result with
``cached`` and ``elapsed_ms`` (wall time in this server, queueing included) filled in, or raises a
``SymguardError`` that ``service.errors`` turns into the §5 response.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from .cache import ResultCache, exact_key
from .metrics import Metrics
from .workers import Done, WorkerPool

Result = dict[str, Any]
EXACT_MAX_BODY = 256 * 1024  # larger requests skip the exact layer: it counts entries, not bytes


class Answerer:
    def __init__(self, pool: WorkerPool, cache: ResultCache, metrics: Metrics) -> None:
        self.pool = pool
        self.cache = cache
        self._m = metrics
        self._inflight: dict[tuple[str, str], asyncio.Future[Result | None]] = {}

    async def answer(self, op: str, body: bytes, *, bounded: bool = True) -> Result:
        t0 = time.perf_counter()
        ek = exact_key(op, body)
        hit = self.cache.get_exact(ek)
        if hit is not None:
            self._m.cache_hits.labels("exact").inc()
            out = {**hit, "cached": True, "elapsed_ms": _ms(t0)}
        else:
            done = await self._run(op, body, bounded)
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

    async def _run(self, op: str, body: bytes, bounded: bool) -> Done:
        mine: list[tuple[str, str]] = []

        async def lookup(op: str, key: str) -> tuple[str, Result] | None:
            hit = await self.cache.lookup(op, key)
            if hit is not None:
                return hit
            other = self._inflight.get((op, key))
            if other is not None:
                res = await asyncio.shield(other)
                return ("coalesced", res) if res is not None else None
            self._inflight[(op, key)] = asyncio.get_running_loop().create_future()
            mine.append((op, key))
            return None

        done: Done | None = None
        try:
            done = await self.pool.run(op, body, lookup, bounded=bounded)
            return done
        finally:
            for k in mine:
                self._inflight.pop(k).set_result(done.fresh if done is not None else None)


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 3)
