"""Contexts over HTTP: register once, send deltas, extend; an unknown key is a 404 the client
turns into ``UnknownContext``; a second server sharing nothing still answers after a resend."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from service_helpers import running_server

from symguard.service.client import Client, UnknownContext
from symguard.service.settings import Settings
from symguard.solver import run

TRACE = {"symbols": {"s0": {"min": 2, "hint": 96}, "s1": {"min": 2, "hint": 3}},
         "guards": ["Eq(Mod(s0, 16), 0)", "s0 >= 32", "Ne(s1, 1)"]}


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with running_server(Settings(workers=2)) as u:
        yield u


def test_register_ask_extend(url: str) -> None:
    with Client(url) as c:
        key = c.context(TRACE)
        assert key != run("solve", TRACE)["key"]  # the canonical key and the document (docs/contexts.md)
        res = c.run("evaluate", {"context": key, "queries": ["Eq(Mod(s0, 8), 0)", "s1 > 5"]})
        want = run("evaluate", {**TRACE, "queries": ["Eq(Mod(s0, 8), 0)", "s1 > 5"]})
        assert [r["value"] for r in res["queries"]] == [r["value"] for r in want["queries"]] == [True, "depends"]
        again = c.run("evaluate", {"context": key, "queries": ["Eq(Mod(s0, 8), 0)", "s1 > 5"]})
        assert again["cached"] is True
        key2 = c.context({"context": key, "guards": ["s1 >= 8"]})
        assert key2 != key
        assert c.run("evaluate", {"context": key2, "queries": ["s1 > 5"]})["queries"][0]["value"] is True
        red = c.run("redundancy", {"context": key2, "guards": ["s0 >= 16"]})
        assert red["guards"][-1] == {"id": "g4", "verdict": "redundant", "implied_by": ["g1"]}
        assert red["minimal"] == ["g0", "g1", "g3"] and red["key"] not in (key, key2)


def test_problems_equal_up_to_names_or_ids_are_two_contexts(url: str) -> None:
    """A canonical key alone would name both (it ignores names and ids): the server would then
    answer one client's question against the other's document — here a wrong True."""
    a = {"symbols": {"s0": {"min": 2}, "s1": {"min": 2}}, "guards": ["s0 >= 8", "s1 >= 2"]}
    b = {"symbols": {"s0": {"min": 2}, "s1": {"min": 2}}, "guards": ["s1 >= 8", "s0 >= 2"]}
    with Client(url) as c:
        ka, kb = c.context(a), c.context(b)
        assert ka != kb
        assert c.run("evaluate", {"context": ka, "queries": ["s1 >= 3"]})["queries"][0]["value"] == "depends"
        assert c.run("evaluate", {"context": kb, "queries": ["s1 >= 3"]})["queries"][0]["value"] is True
        # one context extended by the same guards under swapped ids: two keys, each its own ids
        x = c.context({"context": ka, "guards": [{"id": "p", "expr": "s0 >= 16"}, {"id": "q", "expr": "s0 >= 9"}]})
        y = c.context({"context": ka, "guards": [{"id": "q", "expr": "s0 >= 16"}, {"id": "p", "expr": "s0 >= 9"}]})
        assert x != y
        for key, implied in ((x, "q"), (y, "p")):
            rows = {r["id"]: r for r in c.run("redundancy", {"context": key})["guards"]}
            assert rows[implied]["verdict"] == "redundant"


def test_unknown_context(url: str) -> None:
    with Client(url) as c:
        with pytest.raises(UnknownContext, match="send the whole problem again"):
            c.run("evaluate", {"context": "0" * 64, "queries": ["s0 > 1"]})
        with pytest.raises(UnknownContext):
            c.context({"context": "f" * 64, "guards": ["s0 > 1"]})


def test_contexts_refuse_what_the_stateless_route_refuses(url: str) -> None:
    """issue 22.6 and its smaller items: a lone surrogate, a 100k-deep body and a 5,000-digit
    integer get the stateless route's §5 error on the context routes too (one check, one decoder)."""
    deep = b'{"context": "x", "guards": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    digits = b'{"symbols": {"s0": {"min": ' + b"7" * 5000 + b"}}, \"context\": \"x\"}"
    surrogate = b'{"guards": [{"id": "\\udc00", "expr": "s0 >= 2"}]}'
    with httpx.Client(base_url=url, timeout=60) as c:
        for body, code in ((surrogate, "invalid_problem"), (deep, "too_large"), (digits, "too_large")):
            stateless = c.post("/v1/solve", content=body.replace(b'"context": "x", ', b"")
                               .replace(b', "context": "x"', b""))
            assert stateless.status_code == 400 and stateless.json()["error"]["code"] == code
            for path in ("/v1/contexts", "/v1/solve"):
                r = c.post(path, content=body)
                assert r.status_code == 400 and r.json()["error"]["code"] == code, (path, r.text[:200])
        key = c.post("/v1/contexts", json=TRACE).json()["context"]
        r = c.post("/v1/contexts", content=b'{"context": "%s", "guards": [{"id": "\\ud800", "expr": "s0 > 3"}]}'
                   % key.encode())
        assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_problem"


def test_a_batch_item_may_name_a_context(url: str) -> None:
    """docs/problem-format.md §2: a ``/v1/batch`` item's problem ``{"context": KEY, ...delta}`` is
    answered as the op's route answers that body (it was an "unknown field" error)."""
    with Client(url) as c:
        key = c.context(TRACE)
        items = [("evaluate", {"context": key, "queries": ["s1 > 5", "Eq(Mod(s0, 8), 0)"]}),
                 ("redundancy", {"context": key, "guards": ["s0 >= 16"]}),
                 ("solve", {"context": "0" * 64}), ("solve", TRACE)]
        got = c.batch(items)
    assert [r["value"] for r in got[0]["queries"]] == ["depends", True]
    assert got[1]["guards"][-1]["verdict"] == "redundant"
    assert got[2]["error"]["code"] == "unknown_context"
    assert got[3]["status"] == "sat"
