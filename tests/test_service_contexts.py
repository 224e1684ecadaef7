"""Contexts over HTTP: register once, send deltas, extend; an unknown key is a 404 the client
turns into ``UnknownContext``; a second server sharing nothing still answers after a resend."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from service_helpers import running_server

from service.client import Client, UnknownContext
from service.settings import Settings
from solver import run

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
