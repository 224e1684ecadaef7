"""Shared L2 cache: two servers on one Redis (the docker-compose topology without Docker).

Uses CI's Redis (``SYMGUARD_TEST_REDIS_URL``), else starts ``redis-server`` from PATH, else skips.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from service_helpers import comparable, free_port, redis_url, running_server

from symguard.service.settings import Settings

pytestmark = pytest.mark.redis


@pytest.fixture(scope="module")
def redis() -> Iterator[str]:
    with redis_url() as url:
        if url is None:
            pytest.skip("no Redis: set SYMGUARD_TEST_REDIS_URL or install redis-server (apt-get install -y "
                        "redis-server)")
        yield url


@pytest.fixture(scope="module")
def two_servers(redis: str) -> Iterator[tuple[str, str]]:
    settings = Settings(workers=1, redis_url=redis, redis_timeout_ms=2000)
    with running_server(settings) as a, running_server(settings) as b:
        yield a, b


def _fresh_problem() -> dict[str, Any]:
    """A problem no earlier run can have cached (Redis may be shared across test runs)."""
    n = uuid.uuid4().int % 10_000_000 + 100
    return {"symbols": {"s0": {"min": 2, "hint": 64}}, "guards": [f"s0 >= {n}", f"s0 >= {n // 2}", "Ne(s0, 1)"]}


@pytest.mark.parametrize("op", ["solve", "redundancy"])
def test_answer_computed_by_one_server_is_a_hit_on_the_other(redis: str, two_servers: tuple[str, str],
                                                             op: str) -> None:
    a, b = two_servers
    doc = _fresh_problem()
    first = httpx.post(f"{a}/v1/{op}", json=doc, timeout=60).json()
    assert first["cached"] is False
    import redis as redis_sync

    with redis_sync.Redis.from_url(redis) as r:  # the write to Redis follows the answer: wait for it
        for _ in range(400):
            if r.exists(f"symguard:v1:{op}:{first['key']}"):
                break
            threading.Event().wait(0.01)
    renamed = {"symbols": {"batch": doc["symbols"]["s0"]},
               "guards": [g.replace("s0", "batch") for g in reversed(doc["guards"])]}
    second = httpx.post(f"{b}/v1/{op}", json=renamed, timeout=60).json()
    assert second["cached"] is True and second["key"] == first["key"]
    if op == "solve":
        assert set(second["model"]) == {"batch"}
    else:
        from symguard.solver import run

        assert comparable(second) == comparable(run(op, renamed))
    metrics = httpx.get(f"{b}/metrics").text
    assert 'symguard_cache_hits_total{layer="redis"}' in metrics
    assert httpx.get(f"{b}/readyz").json()["redis"] is True


def test_redis_down_still_answers(redis: str) -> None:
    dead = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    with running_server(Settings(workers=1, redis_url=dead, redis_timeout_ms=50)) as url:
        for _ in range(2):
            r = httpx.post(f"{url}/v1/redundancy", json=_fresh_problem(), timeout=60)
            assert r.status_code == 200 and r.json()["status"] == "sat"
        metrics = httpx.get(f"{url}/metrics").text
        errors = [line for line in metrics.splitlines() if line.startswith("symguard_redis_errors_total")]
        assert errors and float(errors[0].split()[-1]) >= 1
        ready = httpx.get(f"{url}/readyz")
        assert ready.status_code == 200 and ready.json()["redis"] is False


@pytest.mark.parametrize("planted", [
    {"status": "sat", "model": {"v0": 999999}},  # a model outside the range [0, 50]
    {"status": "sat", "model": {"v0": 7, "v9": 1}},  # a symbol the problem does not have
    {"status": "unsat", "core": ["g7"]},  # an id the problem does not have
    {"status": "sat", "model": "999999"},  # the wrong type
    "not json at all {",
    ["a", "list"],
])
def test_a_tampered_or_malformed_redis_entry_is_never_served(redis: str, planted: Any) -> None:
    """Cached entries are data, not truth: checked in the worker, recomputed when they fail."""
    import json

    import redis as redis_sync

    doc = {"symbols": {"y": {"min": 0, "max": 50}}, "guards": [f"y >= {uuid.uuid4().int % 40 + 1}"]}
    with running_server(Settings(workers=1, redis_url=redis, redis_timeout_ms=2000)) as a:
        first = httpx.post(f"{a}/v1/solve", json=doc, timeout=60).json()
    name = f"symguard:v1:solve:{first['key']}"
    with redis_sync.Redis.from_url(redis) as r:
        r.set(name, planted if isinstance(planted, str) else json.dumps(planted))
    with running_server(Settings(workers=1, redis_url=redis, redis_timeout_ms=2000)) as b:  # empty local cache
        res = httpx.post(f"{b}/v1/solve", json=doc, timeout=60)
        assert res.status_code == 200, res.text
        body = res.json()
        assert body["status"] == "sat" and body["cached"] is False
        assert 0 <= body["model"]["y"] <= 50
        metrics = httpx.get(f"{b}/metrics").text
        assert "symguard_cache_rejected_total 1.0" in metrics
    with redis_sync.Redis.from_url(redis) as r:  # the fresh answer replaced the planted one
        for _ in range(400):
            if r.get(name) != (planted if isinstance(planted, str) else json.dumps(planted)).encode():
                break
            threading.Event().wait(0.01)
        assert json.loads(r.get(name))["model"]["v0"] <= 50


def test_redis_with_a_password(tmp_path: Any) -> None:
    """docker-compose runs Redis with ``--requirepass``: the password setting reaches it, and a
    server without the password still answers every request (from its local cache)."""
    import shutil
    import subprocess

    exe = shutil.which("redis-server")
    if exe is None:
        pytest.skip("redis-server is not on PATH")
    port = free_port()
    proc = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--requirepass", "s3cret-for-tests"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        url = f"redis://127.0.0.1:{port}/0"
        import redis as redis_sync

        for _ in range(200):
            try:
                redis_sync.Redis.from_url(url, password="s3cret-for-tests").ping()
                break
            except redis_sync.ConnectionError:
                threading.Event().wait(0.05)
        with running_server(Settings(workers=1, redis_url=url, redis_password="s3cret-for-tests",
                                     redis_timeout_ms=2000)) as a:
            assert httpx.get(f"{a}/readyz").json()["redis"] is True
        with running_server(Settings(workers=1, redis_url=url, redis_timeout_ms=2000)) as b:
            assert httpx.get(f"{b}/readyz").json()["redis"] is False
            r = httpx.post(f"{b}/v1/solve", json=_fresh_problem(), timeout=60)
            assert r.status_code == 200 and r.json()["status"] == "sat"
    finally:
        proc.kill()
        proc.wait(timeout=10)
