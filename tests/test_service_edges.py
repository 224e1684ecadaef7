"""The HTTP edges over real HTTP (issue 34): every refusal the server sends carries a code the
§5 table of docs/problem-format.md lists with that very status, wrong types are 400
``invalid_problem`` naming the key (never a 404), and a number past the literal limit is
``too_large`` at the path of the number, wherever it sits."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from service_helpers import cli, running_server

from symguard.service.errors import HTTP_CODES
from symguard.service.settings import Settings
from symguard.solver import OPS

pytestmark = pytest.mark.slow  # starts a server and its workers (tests/conftest.py: the fast/slow split)

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "edge-token"
HUGE = "7" * 5000


def _table() -> dict[str, str]:
    """code → the HTTP column of the §5 table."""
    text = (ROOT / "docs" / "problem-format.md").read_text(encoding="utf-8")
    section = text.split("## 5.", 1)[1].split("## 6.", 1)[0]
    return {m[1]: m[2] for m in re.finditer(r"^\| `([a-z_]+)` \| [^|]+ \| ([^|]+) \|", section, re.MULTILINE)}


TABLE = _table()


def _error(r: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """The §5 error of a response, checked against the table: documented, with this status."""
    assert r.status_code == status, r.text[:300]
    assert r.headers["content-type"] == "application/json"
    err = r.json()["error"]
    assert err["code"] == code, err
    assert code in TABLE and str(status) in TABLE[code], f"{code} / HTTP {status} is not in the §5 table"
    return err  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with running_server(Settings(workers=1, max_body_bytes=64 * 1024, api_token=TOKEN)) as u:
        yield u


@pytest.fixture
def client(url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=url, timeout=120, headers={"authorization": f"Bearer {TOKEN}"}) as c:
        yield c


def _raw(client: httpx.Client, path: str, body: str) -> httpx.Response:
    return client.post(path, content=body.encode(), headers={"content-type": "application/json"})


# ------------------------------------------------------------------ the router's refusals

@pytest.mark.parametrize(("method", "path", "allow"), [
    *(("GET", f"/v1/{op}", "POST") for op in OPS),
    ("PUT", "/v1/solve", "POST"), ("DELETE", "/v1/batch", "POST"), ("GET", "/v1/contexts", "POST"),
    ("POST", "/healthz", "GET"), ("POST", "/readyz", "GET"), ("POST", "/metrics", "GET"),
])
def test_a_method_a_route_does_not_take_is_405_method_not_allowed(client: httpx.Client, method: str, path: str,
                                                                   allow: str) -> None:
    r = client.request(method, path)
    err = _error(r, 405, "method_not_allowed")
    assert allow in r.headers["allow"] and method in err["message"] and path in err["message"]


@pytest.mark.parametrize("path", ["/", "/v1", "/v1/frobnicate", "/v2/solve", "/v1/solve/extra"])
def test_a_path_no_route_serves_is_404_not_found(client: httpx.Client, path: str) -> None:
    err = _error(client.get(path), 404, "not_found")
    assert path in err["message"]


@pytest.mark.parametrize(("method", "path"), [("POST", "/v1/solve/"), ("GET", "/healthz/"), ("GET", "/docs/")])
def test_a_trailing_slash_is_404_naming_the_route_not_an_empty_307(client: httpx.Client, method: str,
                                                                    path: str) -> None:
    err = _error(client.request(method, path), 404, "not_found")
    assert f"did you mean {path.rstrip('/')}?" in err["message"]


def test_the_other_refusals_carry_documented_codes(client: httpx.Client, url: str) -> None:
    with httpx.Client(base_url=url, timeout=60) as anonymous:
        _error(anonymous.post("/v1/solve", json={"guards": ["s0 > 1"]}), 401, "unauthorized")
    _error(client.post("/v1/solve", json={"guards": ["s0 > 1"] * 10_000}), 413, "too_large")
    _error(client.post("/v1/evaluate", json={"context": "0" * 64, "queries": ["s0 > 1"]}), 404, "unknown_context")
    _error(_raw(client, "/v1/solve", ""), 400, "invalid_problem")


def test_every_code_the_router_and_the_service_send_is_in_both_documents() -> None:
    service_doc = (ROOT / "docs" / "service.md").read_text(encoding="utf-8")
    for status, code in HTTP_CODES.items():
        assert code in TABLE and str(status) in TABLE[code]
    for code, http in TABLE.items():
        if re.search(r"\d{3}", http):  # a code the server sends (the others are the CLI's own)
            assert f"`{code}`" in service_doc, f"docs/service.md does not list {code}"


# ------------------------------------------------------------------ wrong types

BAD_CONTEXTS = [5, None, True, ["k"], {"k": 1}, 1.5]


@pytest.mark.parametrize("key", BAD_CONTEXTS, ids=repr)
def test_a_context_that_is_not_a_string_is_invalid_problem_not_unknown_context(client: httpx.Client,
                                                                                key: Any) -> None:
    for path in ("/v1/evaluate", "/v1/solve", "/v1/contexts"):
        err = _error(client.post(path, json={"context": key, "queries": ["s0 > 1"]}), 400, "invalid_problem")
        assert err["where"] == "context" and "string" in err["message"]
    r = client.post("/v1/batch", json={"items": [{"op": "solve", "problem": {"context": key}}]})
    assert r.status_code == 200
    item = r.json()["results"][0]["error"]
    assert item["code"] == "invalid_problem" and item["where"] == "context"


WRONG_TYPES = [
    ("symbols", []), ("symbols", 5), ("asserts", {}), ("guards", 5), ("guards", "s0 > 1"), ("queries", {}),
    ("exprs", "s0"), ("inputs", []), ("syntax", 5), ("options", 5), ("options", []),
]


@pytest.mark.parametrize(("key", "value"), WRONG_TYPES, ids=lambda v: repr(v))
def test_a_top_level_key_of_the_wrong_type_is_invalid_problem_at_that_key(client: httpx.Client, tmp_path: Path,
                                                                          key: str, value: Any) -> None:
    doc = {"guards": ["s0 >= 1"], "queries": ["s0 + 1"], key: value}
    err = _error(client.post("/v1/evaluate", json=doc), 400, "invalid_problem")
    assert err["where"] == key
    f = tmp_path / "p.json"
    f.write_text(json.dumps(doc))
    code, [line] = cli(["evaluate", str(f)])
    assert code == 2 and line["error"] == err  # the CLI refuses the same file the same way


@pytest.mark.parametrize(("key", "value"), [*WRONG_TYPES, ("guards", 0), ("options", 0), ("asserts", ""),
                                            ("frob", 0)], ids=lambda v: repr(v))
def test_a_context_delta_of_the_wrong_type_is_refused_even_when_it_adds_nothing(client: httpx.Client, key: str,
                                                                                value: Any) -> None:
    """An empty-looking delta (``"symbols": []``, ``"guards": 0``) was taken as no delta and
    answered 200; each is a wrong type (or, for ``queries``, ``exprs`` and ``syntax``, a key a
    context cannot take), refused at its key as the stateless route refuses it."""
    ctx = client.post("/v1/contexts", json={"guards": ["s0 >= 2"]}).json()["context"]
    assert _error(client.post("/v1/contexts", json={"context": ctx, key: value}), 400, "invalid_problem")["where"] == key
    if key not in ("queries", "exprs"):  # as a question's delta
        r = client.post("/v1/evaluate", json={"context": ctx, "queries": ["s0 > 1"], key: value})
        assert _error(r, 400, "invalid_problem")["where"] == key


def test_a_batch_refuses_a_misspelt_key_and_a_body_that_is_not_an_object(client: httpx.Client) -> None:
    err = _error(client.post("/v1/batch", json={"items": [], "itmes": []}), 400, "invalid_problem")
    assert err["where"] == "itmes"
    assert _error(client.post("/v1/batch", json=[1]), 400, "invalid_problem")["where"] == "$"


# ------------------------------------------------------------------ numbers past the limit

HUGE_AT = [
    ('{"symbols": {"s0": {"min": NUM}}}', "symbols.s0.min"),
    ('{"symbols": {"s0": {"min": 1, "max": -NUM}}}', "symbols.s0.max"),
    ('{"symbols": {"s0": {"hint": NUM}}, "guards": ["s0 > 1"]}', "symbols.s0.hint"),
    ('{"guards": ["s0 > 1"], "options": {"timeout_ms": NUM}}', "options.timeout_ms"),
    ('{"guards": ["s0 > 1"], "options": {"effort": NUM}}', "options.effort"),
    ('{"options": {"default_min": -NUM}}', "options.default_min"),
    ('{"guards": ["s0 > 1"], "inputs": {"x": [3, NUM]}}', "inputs.x[1]"),
    ('{"guards": ["s0 > 1"], "meta": {"seen": [1, 2, NUM]}}', "meta.seen[2]"),
    ('NUM', "$"),
]


def _python_int(text: str) -> int:
    """What a Python caller would pass: the integer itself (``10**4999``), not its text."""
    return (-1 if text[0] == "-" else 1) * 10**4999 if len(text) > 4000 else int(text)


@pytest.mark.parametrize(("template", "where"), HUGE_AT, ids=[w for _, w in HUGE_AT])
def test_a_number_past_the_limit_is_too_large_at_its_path(client: httpx.Client, tmp_path: Path, template: str,
                                                          where: str) -> None:
    body = template.replace("NUM", HUGE)
    err = _error(_raw(client, "/v1/solve", body), 400, "too_large")
    assert err["where"] == where and "5000 digits" in err["message"]
    f = tmp_path / "p.json"
    f.write_text(body)
    code, [line] = cli(["solve", str(f)])
    assert code == 2 and line["error"] == err
    if where != "$":
        from symguard.solver import TooLargeError, run

        with pytest.raises(TooLargeError) as e:  # the library names the same place for 10**5000
            run("solve", json.loads(body, parse_int=_python_int))
        assert e.value.where == where


def test_a_number_past_the_limit_in_a_batch_or_a_context_is_at_its_path(client: httpx.Client) -> None:
    item = '{"op": "solve", "problem": {"symbols": {"s0": {"min": NUM}}}}'.replace("NUM", HUGE)
    batch = '{"items": [{"op": "solve", "problem": {}}, ITEM]}'.replace("ITEM", item)
    err = _error(_raw(client, "/v1/batch", batch), 400, "too_large")
    assert err["where"] == "items[1].problem.symbols.s0.min"
    err = _error(_raw(client, "/v1/contexts", '{"symbols": {"s0": {"max": NUM}}}'.replace("NUM", HUGE)),
                 400, "too_large")
    assert err["where"] == "symbols.s0.max"
    ctx = client.post("/v1/contexts", json={"guards": ["s0 >= 2"]}).json()["context"]
    question = json.dumps({"context": ctx, "queries": ["s0"], "options": {"effort": 0}}).replace("0}", HUGE + "}")
    err = _error(_raw(client, "/v1/evaluate", question), 400, "too_large")
    assert err["where"] == "options.effort"
