"""The server answers a facts-decided follow-up itself (``service.contexts``, the contexts' views):
the same document the context worker gives, for a registered and an extended context, a replica
that shares only Redis learns the view from its worker, and anything the facts do not decide —
or an error — still comes from the worker."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from service_helpers import redis_url

from symguard.service.app import create_app
from symguard.service.contexts import ContextService
from symguard.service.settings import Settings
from symguard.solver.session import Context

TRACE = {"symbols": {"s0": {"min": 2, "hint": 96}, "s1": {"min": 2, "hint": 3}},
         "guards": ["Eq(Mod(s0, 16), 0)", "s0 >= 32", "Ne(s1, 1)"]}
SESSION = Path(__file__).resolve().parents[1] / "smt2_corpus" / "sessions" / "unet.json"



@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(workers=1))) as c:
        yield c


def service(c: TestClient) -> ContextService:
    return c.app.state.contexts  # type: ignore[attr-defined,no-any-return]


def ask(c: TestClient, body: dict[str, Any], op: str = "evaluate") -> tuple[dict[str, Any], bool]:
    """The answer and whether the server's view gave it (no hop to the worker)."""
    before = service(c).fast_answers
    r = c.post(f"/v1/{op}", content=json.dumps(body))
    return r.json(), service(c).fast_answers > before


def without_time(res: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in res.items() if k != "elapsed_ms"})


def wait_for_view(c: TestClient, key: str) -> None:
    end = time.monotonic() + 30
    while key not in service(c).views:
        assert time.monotonic() < end, "the worker's facts never reached the server"
        time.sleep(0.01)


def test_a_follow_up_decided_by_facts_never_leaves_the_server(client: TestClient) -> None:
    key = client.post("/v1/contexts", json=TRACE).json()["context"]
    assert key in service(client).views  # handed back with the registration
    res, fast = ask(client, {"context": key, "queries": ["Eq(Mod(s0, 8), 0)", "s0 >= 16"]})
    assert fast and [r["value"] for r in res["queries"]] == [True, True]
    assert res["cached"] is False and res["elapsed_ms"] >= 0
    want = Context(TRACE).run("evaluate", {"queries": ["Eq(Mod(s0, 8), 0)", "s0 >= 16"]})  # the worker's code
    assert without_time(res) == without_time(want)
    again, _ = ask(client, {"context": key, "queries": ["Eq(Mod(s0, 8), 0)", "s0 >= 16"]})
    assert again["cached"] is True  # final: kept by body as the worker's answers are


def test_what_the_facts_do_not_decide_goes_to_the_worker(client: TestClient) -> None:
    key = client.post("/v1/contexts", json=TRACE).json()["context"]
    res, fast = ask(client, {"context": key, "queries": ["s1 > 5"]})
    assert not fast and res["queries"][0]["value"] == "depends"
    res, fast = ask(client, {"context": key, "guards": ["s1 >= 8"], "queries": ["s1 > 5"]})
    assert not fast and res["queries"][0]["value"] is True
    res, fast = ask(client, {"context": key, "guards": ["s0 >= 16"]}, op="redundancy")
    assert not fast and res["guards"][-1]["verdict"] == "redundant"
    many = {"context": key, "queries": [f"s0 >= {k}" for k in range(2, 20)]}  # too many to read on the loop
    res, fast = ask(client, many)
    assert not fast and all(r["value"] is True for r in res["queries"])
    long = {"context": key, "queries": [" + ".join(["s0"] * 120) + " >= 240"]}  # too long to read on the loop
    res, fast = ask(client, long)
    assert not fast and res["queries"][0]["value"] is True
    r = client.post("/v1/evaluate", json={"context": key, "queries": [{"id": "g1", "expr": "s0 > 3"}]})
    assert r.status_code == 400 and "duplicate id" in r.json()["error"]["message"]  # the worker's error body


def test_an_extended_context_gets_its_view_from_the_added_guards(client: TestClient) -> None:
    key = client.post("/v1/contexts", json=TRACE).json()["context"]
    key2 = client.post("/v1/contexts", json={"context": key, "guards": ["s1 >= 3"]}).json()["context"]
    assert key2 in service(client).views
    res, fast = ask(client, {"context": key2, "queries": ["s1 > 2", "Ne(s1, 1)"]})
    assert fast and [r["value"] for r in res["queries"]] == [True, True]
    # not satisfied by the hints (s1 = 3): the view waits until the worker's z3 says sat
    key3 = client.post("/v1/contexts", json={"context": key, "guards": ["s1 >= 4"]}).json()["context"]
    res, fast = ask(client, {"context": key3, "queries": ["s1 > 3"]})
    assert not fast and res["queries"][0]["value"] is True
    res, fast = ask(client, {"context": key3, "queries": ["s1 > 2"]})
    assert fast and res["queries"][0]["value"] is True


def test_a_recorded_session_over_http_answers_as_in_process(client: TestClient) -> None:
    """A ShapeEnv's trace replayed over HTTP (extend, ask): every answer the byte-for-byte
    document of the in-process context, most of them from the server's view."""
    data = json.loads(SESSION.read_text())
    doc = {"symbols": data["symbols"], "options": {"timeout_ms": 1000, "on_unsupported": "skip"}}
    ctx = Context(doc)
    key = client.post("/v1/contexts", json=doc).json()["context"]
    assert key == ctx.key
    pending: dict[str, list[str]] = {"asserts": [], "guards": []}
    fast_count = asked = 0
    for e in data["events"]:
        if e["kind"] in ("guard", "assert"):
            pending["guards" if e["kind"] == "guard" else "asserts"].append(e["expr"])
            continue
        if pending["asserts"] or pending["guards"]:
            delta = {k: v for k, v in pending.items() if v}
            ctx = ctx.extend(delta)
            key = client.post("/v1/contexts", json={"context": key, **delta}).json()["context"]
            assert key == ctx.key
            pending = {"asserts": [], "guards": []}
        res, fast = ask(client, {"context": key, "queries": [e["expr"]]})
        want = ctx.run("evaluate", {"queries": [e["expr"]]})
        if res.get("cached"):
            res = {**res, "cached": False}
        assert json.dumps(res["queries"]) == json.dumps(want["queries"]), e["expr"]
        assert without_time(res) == without_time(want)
        asked += 1
        fast_count += fast
    assert fast_count > asked // 2


@pytest.mark.redis
def test_a_replica_sharing_only_redis_learns_the_view_from_its_worker() -> None:
    with redis_url() as url:
        if url is None:
            pytest.skip("no Redis: set SYMGUARD_TEST_REDIS_URL or install redis-server")
        settings = Settings(workers=1, redis_url=url, redis_timeout_ms=2000)
        fresh = {**TRACE, "guards": [*TRACE["guards"], f"s0 <= {time.time_ns() % 10**9 + 10**9}"]}
        with TestClient(create_app(settings)) as a, TestClient(create_app(settings)) as b:
            key = a.post("/v1/contexts", json=fresh).json()["context"]
            assert key not in service(b).views
            res, fast = ask(b, {"context": key, "queries": ["s0 >= 16"]})  # B's worker reads the stored document
            assert not fast and res["queries"][0]["value"] is True
            wait_for_view(b, key)
            res, fast = ask(b, {"context": key, "queries": ["s0 >= 17"]})
            assert fast and res["queries"][0]["value"] is True
            want, _ = ask(a, {"context": key, "queries": ["s0 >= 17"]})
            assert without_time(res) == without_time(want)
