"""Memory a client can make the server keep is bounded (docs/service.md, "Memory"; issue 22.5).

A real server in its own process on 127.0.0.1 (``bench/context_memory.py``'s), its resident
memory read from /proc before and after thousands of chained extensions and of distinct
registrations. Before the bounds, 2,000 one-guard extensions took the server alone from about
70 MiB to 800 MiB (every intermediate document kept whole, every view a deep copy), and 100
distinct contexts asked a question each took the context worker to 1.1 GB (64 z3 sessions hot,
evicted ones left to the cyclic collector's schedule)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from scripts import load_script

# docs/service.md: the context data a server keeps (documents 32 MiB, views 64 MiB by estimate,
# answers 16 MiB) plus the interpreter's own slack; server and workers together
SERVER_GROWTH_MIB = 160
TOTAL_GROWTH_MIB = 512


cm = load_script("bench/context_memory.py")


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads resident memory from /proc")
@pytest.mark.timeout(600)
def test_thousands_of_chained_and_distinct_contexts_stay_within_the_bound() -> None:
    with cm.server(1) as (url, pid), httpx.Client(base_url=url, timeout=120) as c:
        base = cm.memory(pid)
        key = c.post("/v1/contexts", json={**cm.BOX, "guards": ["s0 >= 2"]}).json()["context"]
        for i in range(1, 2001):  # the Oracle's pattern: extend, sometimes ask
            r = c.post("/v1/contexts", json={"context": key, "guards": [f"Ne(s0, {i + 4096})"]})
            assert r.status_code == 200, r.text[:200]
            key = r.json()["context"]
            if i % 100 == 0:
                a = c.post("/v1/evaluate", json={"context": key, "queries": ["s0 >= 2", "s0 + s1 >= 10"]})
                assert a.status_code == 200 and a.json()["queries"][0]["value"] is True
        chained = cm.memory(pid)
        for i in range(1500):
            doc = {**cm.BOX, "guards": [f"s0 >= {i % 997 + 2}", f"Ne(s1, {i})", f"s0 + s1 <= {10**6 + i}"]}
            r = c.post("/v1/contexts", json=doc)
            assert r.status_code == 200
            if i % 20 == 0:  # a question the facts leave open: each of these contexts gets a z3 session
                a = c.post("/v1/evaluate", json={"context": r.json()["context"], "queries": ["s0 > s1"]})
                assert a.json()["queries"][0]["value"] == "depends"
        # the chain's tip is still answered (its document rebuilt from checkpoints and links if needed)
        a = c.post("/v1/evaluate", json={"context": key, "queries": ["Ne(s0, 4100)"]})
        assert a.status_code == 200 and a.json()["queries"][0]["value"] is True
        after = cm.memory(pid)
    for label, (own, total) in (("chained", chained), ("chained and distinct", after)):
        assert own - base[0] < SERVER_GROWTH_MIB, (label, base, own)
        assert total - base[1] < TOTAL_GROWTH_MIB, (label, base, total)
