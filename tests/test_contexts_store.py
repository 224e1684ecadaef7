"""The server's context store (``service.context_store``): byte-bounded LRUs, extensions stored as
(parent key, delta) with checkpoints, documents rebuilt from the chain (issue 22.5)."""

from __future__ import annotations

import asyncio
import json

from symguard.service import context_store as cs
from symguard.service import contexts as cx
from symguard.service.settings import Settings
from symguard.solver import Context, Options


def test_byte_lru_evicts_by_bytes_and_count() -> None:
    lru: cs.ByteLRU[str, str] = cs.ByteLRU(100, max_items=3)
    lru.put("a", "A", 40)
    lru.put("b", "B", 40)
    assert lru.get("a") == "A"  # now b is the least recent
    lru.put("c", "C", 40)
    assert "b" not in lru and "a" in lru and lru.total == 80
    lru.put("huge", "H", 101)  # heavier than the whole bound: not kept
    assert "huge" not in lru
    lru.put("d", "D", 1)
    lru.put("e", "E", 1)
    assert len(lru) == 3 and "a" not in lru  # the count bound
    lru.reweigh("e", 100)  # grown while in use: the others make room
    assert lru.keys() == ["e"] and lru.total == 100


def test_checkpoints_grow_geometrically() -> None:
    root = cs.whole_entry({"guards": ["s0 >= 2"] * 10})
    entry, wholes = root, 0
    for i in range(5000):
        if entry.wants_whole(40):
            entry, wholes = cs.whole_entry({"guards": ["x" * 30] * (i + 1)}), wholes + 1
        else:
            entry = entry.child("k", {"guards": [{"id": f"g{i}", "expr": "s0 >= 3"}]})
        assert entry.depth < cs.CHECKPOINT_DEPTH
    assert 5000 // cs.CHECKPOINT_DEPTH <= wholes <= 5000 // cs.CHECKPOINT_DEPTH + 8


def test_a_chain_rebuilds_the_extensions_document_and_a_lost_link_is_unknown() -> None:
    ctx = Context({"symbols": {"s0": {"min": 2}}, "guards": ["s0 >= 2"]})
    svc = cx.ContextService(Settings(workers=1))

    async def go() -> None:
        await svc.docs.put(ctx.key, cs.whole_entry(ctx.document))
        key, entry, c = ctx.key, svc.docs.lru.get(ctx.key), ctx
        keys = []
        for i in range(20):
            c = c.extend({"guards": [f"Ne(s0, {i + 10})"], **({"symbols": {"s1": {"max": 5}}} if i == 3 else {})})
            assert entry is not None and c.delta is not None
            await svc.docs.put(c.key, entry.child(key, c.delta))
            key, entry = c.key, svc.docs.lru.get(c.key)
            keys.append(key)
        assert await svc.docs.document(key) == c.document
        assert Context(json.loads(json.dumps(c.document))).problem.symbols == c.problem.symbols
        svc.docs.lru.pop(keys[10])  # a link evicted: the keys after it are unknown, the ones before are not
        assert await svc.docs.document(key) is None
        assert await svc.docs.document(keys[9]) is not None

    try:
        asyncio.run(go())
    finally:
        asyncio.run(svc.close())


def test_an_entry_carries_its_context_s_timeout_and_a_question_s_own_wins() -> None:
    """The server's cut needs the ``timeout_ms`` a worker will apply without reading the context:
    the delta's, else the context's own (set on it or inherited from the context it extends)."""
    svc = cx.ContextService(Settings(workers=1))
    root = cs.whole_entry({"guards": ["s0 >= 2"], "options": {"timeout_ms": 700}})
    plain = cs.whole_entry({"guards": ["s0 >= 2"]})
    inherits = root.child("r", {"guards": [{"id": "g1", "expr": "s0 >= 3"}]})
    overrides = inherits.child("i", {"options": {"timeout_ms": 90}})
    assert (root.timeout_ms, plain.timeout_ms, inherits.timeout_ms, overrides.timeout_ms) == (700, None, 700, 90)
    assert cs.Entry.from_json(overrides.to_json()) == overrides
    assert cs.Entry.from_json(json.dumps({**json.loads(root.to_json()), "timeout_ms": 0}).encode()) is None
    assert cs.Entry.from_json(b'{"parent": null, "part": {}, "since": 0, "base": 0, "depth": 0}') is None

    async def go() -> None:
        await svc.docs.put("r", root)
        await svc.docs.put("p", plain)
        assert await svc._timeout("r", {"queries": ["s0 > 1"]}) == 700
        assert await svc._timeout("r", {"options": {"timeout_ms": 5}}) == 5
        assert await svc._timeout("r", {"options": {"timeout_ms": True}}) == 700  # refused by the worker at once
        assert await svc._timeout("p", {}) == await svc._timeout("unknown", {}) == Options().timeout_ms

    try:
        asyncio.run(go())
    finally:
        asyncio.run(svc.close())
