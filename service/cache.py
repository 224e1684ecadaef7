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

Both local layers hold JSON *bytes* and are bounded by bytes (``cache_bytes``,
``exact_cache_bytes``), not by entries: one 54 KB request can have a 6.6 MB answer, and counting
entries let the server grow by megabytes per distinct request. An entry larger than its whole
layer is not kept. Entries read from Redis are data, not truth: the worker checks each one
(``solver.api.check_cached``: shape, ids, and the self-check of every model) before using it,
and computes afresh when it fails (``symguard_cache_rejected_total``).
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


def _dump(result: Result) -> bytes:
    return json.dumps(result, separators=(",", ":"), ensure_ascii=False).encode()


def exact_key(op: str, body: bytes) -> str:
    return hashlib.sha256(op.encode() + b"\0" + body).hexdigest()


def _nbytes(value: bytes) -> int:
    return len(value)


def _layer(max_bytes: int) -> LRUCache[Any, bytes] | None:
    return LRUCache(max_bytes, getsizeof=_nbytes) if max_bytes else None


def _keep(layer: LRUCache[Any, bytes] | None, key: Any, data: bytes) -> None:
    if layer is not None and len(data) <= layer.maxsize:
        layer[key] = data


class ResultCache:
    """The three layers behind one interface; lives on the event loop (no locks needed)."""

    def __init__(self, settings: Settings, metrics: Metrics) -> None:
        self._s = settings
        self._m = metrics
        self._exact = _layer(settings.exact_cache_bytes)
        self._local = _layer(settings.cache_bytes)
        self._redis: Any = None
        self._redis_off_until = 0.0
        self._pending: set[asyncio.Task[None]] = set()
        if settings.redis_url:
            import redis.asyncio as aioredis

            t = settings.redis_timeout_ms / 1000
            password = settings.redis_password.get_secret_value() if settings.redis_password else None
            self._redis = aioredis.Redis.from_url(settings.redis_url, socket_timeout=t, password=password,
                                                  socket_connect_timeout=t, retry_on_timeout=False)

    # -------------------------------------------------------------- exact layer
    def get_exact(self, key: str) -> Result | None:
        data = self._exact.get(key) if self._exact is not None else None
        return json.loads(data) if data is not None else None

    def put_exact(self, key: str, result: Result) -> None:
        if self._exact is not None:
            _keep(self._exact, key, _dump(result))

    # -------------------------------------------------------------- canonical layers
    async def lookup(self, op: str, key: str) -> tuple[str, Result] | None:
        """``(layer, canonical result)`` from the local LRU, else Redis (which refills the LRU)."""
        if self._local is not None:
            hit = self._local.get((op, key))
            if hit is not None:
                return "local", json.loads(hit)
        raw = await self._redis_call("get", _PREFIX + op + ":" + key)
        if raw is None:
            return None
        try:  # the worker checks the content; here only that it is a JSON object at all
            res = json.loads(raw)
        except (ValueError, UnicodeDecodeError, RecursionError):
            res = None
        if not isinstance(res, dict):
            self._m.cache_rejected.inc()
            return None
        return "redis", res  # not kept locally: only a result the worker accepted is (``put``)

    def put(self, op: str, key: str, result: Result) -> None:
        """Remember a final canonical result; the Redis write happens in the background."""
        data = _dump(result)
        _keep(self._local, (op, key), data)
        if self._redis is not None and time.monotonic() >= self._redis_off_until:
            t = asyncio.get_running_loop().create_task(
                self._redis_set(_PREFIX + op + ":" + key, data))
            self._pending.add(t)
            t.add_done_callback(self._pending.discard)

    def remember(self, op: str, key: str, result: Result) -> None:
        """Keep in the local LRU a Redis entry the worker accepted (no write back to Redis)."""
        _keep(self._local, (op, key), _dump(result))

    async def _redis_set(self, name: str, data: bytes) -> None:
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
