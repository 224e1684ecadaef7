"""The server's context store: key -> how to rebuild the context's document, in a byte-bounded LRU
and, with ``SYMGUARD_REDIS_URL``, in Redis (``symguard:v3:context:<key>``) where every replica
finds it (docs/contexts.md, "An extension costs its delta").

An entry is a whole document or a link: its parent's key and the delta it adds, until the deltas
since the chain's last whole document outweigh it, or the chain gets too deep: then the extension
is stored whole (a checkpoint), so storing costs O(delta) amortized and rebuilding walks a bounded
chain. Each entry also carries the context's ``timeout_ms``, so the server keeps a question's
deadline without reading the context (``service.contexts``).
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from cachetools import LRUCache

from symguard.solver.session import merge_documents

from .runtime.deadline import valid_timeout
from .settings import Settings

STORE_BYTES = 32 << 20  # the stored documents, JSON bytes
# An extension is stored as (parent key, delta) until the deltas since the last whole document
# outweigh it (and this floor), or the chain since it gets this deep: then whole (a checkpoint).
CHECKPOINT_BYTES = 64 << 10
CHECKPOINT_DEPTH = 512
REDIS_PREFIX = "symguard:v3:context:"  # v2: entries are chain links (``Entry``); v3: with their timeout_ms


K = TypeVar("K")
V = TypeVar("V")


def _weight(hit: tuple[Any, int]) -> int:
    return hit[1]


class ByteLRU(Generic[K, V]):
    """cachetools' LRU bounded by the bytes each entry is said to weigh, and optionally by count.
    An entry heavier than the whole bound is not kept."""

    def __init__(self, max_bytes: int, max_items: int | None = None) -> None:
        self.max_items = max_items
        self._lru: LRUCache[K, tuple[V, int]] = LRUCache(max_bytes, getsizeof=_weight)

    @property
    def total(self) -> int:
        return int(self._lru.currsize)

    def __contains__(self, key: K) -> bool:
        return key in self._lru

    def __len__(self) -> int:
        return len(self._lru)

    def keys(self) -> list[K]:
        """Least recently used first."""
        return list(self._lru.keys())

    def get(self, key: K) -> V | None:
        hit = self._lru.get(key)
        return None if hit is None else hit[0]

    def put(self, key: K, value: V, nbytes: int) -> None:
        self._lru.pop(key, None)
        if nbytes > self._lru.maxsize:
            return
        self._lru[key] = (value, nbytes)
        while self.max_items is not None and len(self._lru) > self.max_items:
            self._lru.popitem()

    def reweigh(self, key: K, nbytes: int) -> None:
        hit = self._lru.get(key)
        if hit is not None:
            self.put(key, hit[0], nbytes)

    def pop(self, key: K) -> V | None:
        hit = self._lru.pop(key, None)
        return None if hit is None else hit[0]


@dataclass(frozen=True)
class Entry:
    """How the server stores a context: a whole document (``parent`` None), or the key of the
    context it extends and its delta (``Context.delta``). ``since``: delta bytes stored since the
    last whole document on the chain, ``base``: that document's bytes, ``depth``: links since it."""

    parent: str | None
    part: bytes  # JSON
    since: int = 0
    base: int = 0
    depth: int = 0
    timeout_ms: int | None = None  # the context's options.timeout_ms (its own, else its parent's); None: the default

    def to_json(self) -> bytes:
        return json.dumps({"parent": self.parent, "part": json.loads(self.part), "since": self.since,
                           "base": self.base, "depth": self.depth, "timeout_ms": self.timeout_ms},
                          separators=(",", ":")).encode()

    @staticmethod
    def from_json(raw: bytes) -> Entry | None:
        try:
            d = json.loads(raw)
            parent, t = d["parent"], d["timeout_ms"]
            if (parent is not None and not isinstance(parent, str)) or not (t is None or valid_timeout(t)):
                return None
            return Entry(parent, json.dumps(d["part"], separators=(",", ":")).encode(),
                          int(d["since"]), int(d["base"]), int(d["depth"]), t)
        except (ValueError, KeyError, TypeError, RecursionError):
            return None  # not ours (Redis is shared): as if absent

    def child(self, parent_key: str, part: dict[str, Any]) -> Entry:
        data = compact(part)
        return Entry(parent_key, data, self.since + len(data), self.base, self.depth + 1,
                      own_timeout(part) or self.timeout_ms)

    def wants_whole(self, delta_bytes: int) -> bool:
        """Whether an extension of this entry by about ``delta_bytes`` is stored whole."""
        return (self.since + delta_bytes > max(self.base, CHECKPOINT_BYTES)
                or self.depth + 1 >= CHECKPOINT_DEPTH)


def compact(doc: Any) -> bytes:
    return json.dumps(doc, separators=(",", ":")).encode()


def whole_entry(doc: dict[str, Any]) -> Entry:
    data = compact(doc)
    return Entry(None, data, 0, len(data), 0, own_timeout(doc))


def own_timeout(doc: Any) -> int | None:
    """The valid ``options.timeout_ms`` a document or delta sets itself, else None."""
    opts = doc.get("options") if isinstance(doc, dict) else None
    t = opts.get("timeout_ms") if isinstance(opts, dict) else None
    return t if valid_timeout(t) else None



class ContextStore:
    """key -> ``Entry``, here (an LRU of ``STORE_BYTES``) and in Redis when configured."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.lru: ByteLRU[str, Entry] = ByteLRU(STORE_BYTES)
        self._redis: Any = None
        if settings.redis_url:
            import redis.asyncio as aioredis

            t = settings.redis_timeout_ms / 1000
            password = settings.redis_password.get_secret_value() if settings.redis_password else None
            self._redis = aioredis.Redis.from_url(settings.redis_url, socket_timeout=t, password=password,
                                                  socket_connect_timeout=t)  # as the result cache's (service.cache)

    async def close(self) -> None:
        if self._redis is not None:
            await self._redis.aclose()

    def remember(self, key: str, entry: Entry) -> None:
        self.lru.put(key, entry, len(entry.part) + len(key) + 200)

    async def put(self, key: str, entry: Entry) -> None:
        self.remember(key, entry)
        if self._redis is not None:
            with contextlib.suppress(Exception):  # Redis can make an answer faster, never fail it
                await self._redis.set(REDIS_PREFIX + key, entry.to_json(), ex=self.settings.redis_ttl_s)

    async def entry(self, key: str) -> Entry | None:
        entry = self.lru.get(key)
        if entry is None and self._redis is not None:
            try:
                raw = await self._redis.get(REDIS_PREFIX + key)
            except Exception:  # noqa: BLE001
                raw = None
            entry = Entry.from_json(raw) if raw is not None else None
            if entry is not None:
                self.remember(key, entry)
        return entry

    def local_chain(self, key: str) -> list[Entry] | None:
        """``chain`` from this server's memory alone, at once (for the event loop, which must not
        wait for Redis): None when a link is not here (or is gone)."""
        out: list[Entry] = []
        entry = self.lru.get(key)
        for _ in range(CHECKPOINT_DEPTH + 1):
            if entry is None:
                return None
            out.append(entry)
            if entry.parent is None:
                return out
            entry = self.lru.get(entry.parent)
        return None  # pragma: no cover - a chain deeper than any this server stores

    async def document(self, key: str) -> dict[str, Any] | None:
        """The whole document of a key (``document_of`` its ``chain``). None when a link is gone
        (evicted, expired): the client registers the problem again, as for any unknown key."""
        chain = await self.chain(key)
        return None if chain is None else document_of(chain)

    async def chain(self, key: str) -> list[Entry] | None:
        """A key's entry and its parents' back to a whole one (that one last); None when a link is gone."""
        out: list[Entry] = []
        entry = await self.entry(key)
        for _ in range(CHECKPOINT_DEPTH + 1):
            if entry is None:
                return None
            out.append(entry)
            if entry.parent is None:
                return out
            entry = await self.entry(entry.parent)
        return None  # pragma: no cover - a chain deeper than any this server stores


def document_of(chain: list[Entry]) -> dict[str, Any]:
    """The whole document a ``ContextStore.chain`` stands for: its parts merged
    (``solver.session.merge_documents``). Pure: it can run off the event loop."""
    parts = [json.loads(e.part) for e in chain]
    return merge_documents(parts[-1], parts[-2::-1])
