"""One operation on one request body: exact cache → worker (canonical caches inside) → metrics.

Concurrent requests for one canonical problem are coalesced: while a worker computes a key, a
second request for it (renamed, permuted, …) waits for that answer instead of computing it again
(its worker idles meanwhile; CPU, not worker slots, is what a 2-core host lacks). If the first
computation does not end final (timeout, error), the waiter computes for itself.

The routes call ``Answerer.answer`` and nothing else; it returns the caller's docs/problem-format.md §2 result with
``cached`` and ``elapsed_ms`` (wall time in this server since the request's arrival, queueing
included) filled in, or raises a ``SymguardError`` that ``service.errors`` turns into the §5
response. Given the request's ``arrival``, the answer comes by its deadline (``runtime.deadline``).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from .cache import ResultCache, exact_key
from .metrics import Metrics
from .runtime.deadline import JSON_ON_LOOP_BYTES, Clock, body_timeout
from .runtime.pool import Done, WorkerCrashed, WorkerPool

Result = dict[str, Any]
EXACT_MAX_BODY = 256 * 1024  # larger requests skip the exact layer (a big body is rarely sent twice)


class Answerer:
    def __init__(self, pool: WorkerPool, cache: ResultCache, metrics: Metrics) -> None:
        self.pool = pool
        self.cache = cache
        self._m = metrics
        self._inflight: dict[tuple[str, str], asyncio.Future[Result | None]] = {}

    async def answer(self, op: str, body: bytes, *, bounded: bool = True, arrival: float | None = None,
                     gate: asyncio.Semaphore | None = None) -> Result:
        """``arrival`` (``time.monotonic()`` when the request reached the app, a ``/v1/batch``
        item's included): the deadline counts from there and the server keeps it; None (a caller
        without a deadline of its own): the worker's clock starts when it takes the task, and the
        server waits for it up to ``timeout_ms`` + ``grace_ms``. ``gate``: a batch's limit on the
        workers it holds at once (``pool.WorkerPool.run``)."""
        t0 = time.monotonic() if arrival is None else arrival
        ek = exact_key(op, body)
        hit = self.cache.get_exact(ek)
        if hit is not None:
            self._m.cache_hits.labels("exact").inc()
            out = {**hit, "cached": True, "elapsed_ms": _ms(t0)}
        else:
            clock = None
            if arrival is not None:
                cap = self.pool.max_timeout_ms
                t_ms = body_timeout(body, cap) if len(body) <= JSON_ON_LOOP_BYTES else \
                    await asyncio.to_thread(body_timeout, body, cap)
                clock = self.pool.lag.clock(arrival, t_ms)
            done = await self._run(op, body, bounded, clock, gate)
            if done.rejected:
                self._m.cache_rejected.inc()
            if done.layer is not None:
                self._m.cache_hits.labels(done.layer).inc()
            else:
                self._m.cache_misses.inc()
            if done.fresh is not None and done.key is not None:
                self.cache.put(op, done.key, done.fresh)
            out = done.result
            out["elapsed_ms"] = _ms(t0)
            final = done.fresh is not None or done.layer is not None  # safe to replay verbatim
            if final and len(body) <= EXACT_MAX_BODY:
                self.cache.put_exact(ek, dict(out))
        self._m.outcomes.labels(op, str(out.get("status"))).inc()
        return out

    async def _run(self, op: str, body: bytes, bounded: bool, clock: Clock | None,
                   gate: asyncio.Semaphore | None) -> Done:
        mine: list[tuple[str, str]] = []
        from_redis: list[tuple[str, str, Result]] = []
        answered = False  # once the caller has its answer (at the deadline), a late task claims nothing

        async def lookup(op: str, key: str) -> tuple[str, Result] | None:
            if answered:
                return None
            hit = await self.cache.lookup(op, key)
            if hit is not None:
                if hit[0] == "redis":
                    from_redis.append((op, key, hit[1]))
                return hit
            if answered or (op, key) in mine:  # our own computation, retried after its worker died
                return None
            other = self._inflight.get((op, key))
            if other is not None:
                res = await asyncio.shield(other)
                return ("coalesced", res) if res is not None else None
            self._inflight[(op, key)] = asyncio.get_running_loop().create_future()
            mine.append((op, key))
            return None

        done: Done | None = None
        try:
            try:
                done = await self.pool.run(op, ("body", body), lookup, bounded=bounded, clock=clock, gate=gate)
            except WorkerCrashed as e:
                if e.fallback is None:  # it died twice reading this problem: a bug of ours (500)
                    raise
                # killed twice mid-solve (OOM killer, an operator): the sound answer is unknown
                note = "the worker solving this problem died twice; answered unknown (retrying may succeed)"
                died = {**e.fallback, "reason": "resource", "warnings": [*e.fallback.get("warnings", ()), note]}
                done = Done(died, None, None, None)
            if done.layer == "redis" and from_redis:  # the worker accepted it: keep it locally too
                self.cache.remember(*from_redis[0])
            return done
        finally:
            answered = True
            for k in mine:
                self._inflight.pop(k).set_result(done.fresh if done is not None else None)


def _ms(t0: float) -> float:
    return round((time.monotonic() - t0) * 1000, 3)
