"""Result caches (docs/problem-format.md §3): exact-body fast path, canonical LRU, optional shared Redis L2.

Three layers, all holding only *final* answers (``solver.api.is_final``):

- **exact** — the caller's finished result keyed by ``sha256(op, body bytes)``. A compiler that
  asks the same question again is answered without a worker: no parse, no IPC.
- **local** — canonical results (``solver.api.compute`` output, canonical names ``v0``/``g0``) in a
  ``cachetools.LRUCache`` keyed by ``(op, canonical key)``. A renamed / permuted / duplicated
  problem is parsed and canonicalized in a worker (``prepare``), found here, and mapped back to
  the caller's names there (``finish``): the same code path as a fresh answer.
- **redis** — the same canonical results, shared by replicas (``SYMGUARD_REDIS_URL``). Every call
  has a short timeout; a failure is counted, switches Redis off for ``redis_backoff_s`` and the
  request carries on locally. Redis can make answers faster, never fail them.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import time
from typing import Any

from cachetools import LRUCache

from .metrics import Metrics
from .settings import Settings

log = logging.getLogger("symguard.cache")
Result = dict[str, Any]
_PREFIX = "symguard:v1:"  # bump when the canonical result format changes


def exact_key(op: str, body: bytes) -> str:
    return hashlib.sha256(op.encode() + b"\0" + body).hexdigest()


class ResultCache:
    """The three layers behind one interface; lives on the event loop (no locks needed)."""

    def __init__(self, settings: Settings, metrics: Metrics) -> None:
        self._s = settings
        self._m = metrics
        self._exact: LRUCache[str, Result] | None = LRUCache(settings.exact_cache_size) \
            if settings.exact_cache_size else None
        self._local: LRUCache[tuple[str, str], Result] | None = LRUCache(settings.cache_size) \
            if settings.cache_size else None
        self._redis: Any = None
        self._redis_off_until = 0.0
        self._pending: set[asyncio.Task[None]] = set()
        if settings.redis_url:
            import redis.asyncio as aioredis

            t = settings.redis_timeout_ms / 1000
            self._redis = aioredis.Redis.from_url(settings.redis_url, socket_timeout=t,
                                                  socket_connect_timeout=t, retry_on_timeout=False)

    # -------------------------------------------------------------- exact layer
    def get_exact(self, key: str) -> Result | None:
        return self._exact.get(key) if self._exact is not None else None

    def put_exact(self, key: str, result: Result) -> None:
        if self._exact is not None:
            self._exact[key] = result

    # -------------------------------------------------------------- canonical layers
    async def lookup(self, op: str, key: str) -> tuple[str, Result] | None:
        """``(layer, canonical result)`` from the local LRU, else Redis (which refills the LRU)."""
        if self._local is not None:
            hit = self._local.get((op, key))
            if hit is not None:
                return "local", hit
        raw = await self._redis_call("get", _PREFIX + op + ":" + key)
        if raw is None:
            return None
        try:
            res = json.loads(raw)
        except ValueError:
            self._m.redis_errors.inc()
            return None
        if self._local is not None:
            self._local[(op, key)] = res
        return "redis", res

    def put(self, op: str, key: str, result: Result) -> None:
        """Remember a final canonical result; the Redis write happens in the background."""
        if self._local is not None:
            self._local[(op, key)] = result
        if self._redis is not None and time.monotonic() >= self._redis_off_until:
            data = json.dumps(result, separators=(",", ":"))
            t = asyncio.get_running_loop().create_task(
                self._redis_set(_PREFIX + op + ":" + key, data))
            self._pending.add(t)
            t.add_done_callback(self._pending.discard)

    async def _redis_set(self, name: str, data: str) -> None:
        await self._redis_call("set", name, data, ex=self._s.redis_ttl_s)

    async def _redis_call(self, method: str, *args: Any, **kw: Any) -> Any:
        if self._redis is None or time.monotonic() < self._redis_off_until:
            return None
        try:
            return await asyncio.wait_for(getattr(self._redis, method)(*args, **kw),
                                          self._s.redis_timeout_ms / 1000)
        except Exception as e:  # noqa: BLE001 - the one place Redis errors are converted: to "no answer"
            self._m.redis_errors.inc()
            self._redis_off_until = time.monotonic() + self._s.redis_backoff_s
            log.warning("redis %s failed (%s); local cache only for %.1f s", method, type(e).__name__,
                        self._s.redis_backoff_s)
            return None

    async def ping(self) -> bool | None:
        """None without Redis; else whether it answers (for /readyz, informational)."""
        if self._redis is None:
            return None
        return bool(await self._redis_call("ping"))

    async def close(self) -> None:
        if self._pending:
            await asyncio.wait(list(self._pending), timeout=1.0)
        if self._redis is not None:
            with contextlib.suppress(Exception):
                await self._redis.aclose()
