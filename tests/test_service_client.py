"""The client and ``symguard … --remote``: same JSON and exit codes as a local run; the token."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from service_helpers import cli, comparable, running_server, write

from symguard.service.client import AsyncClient, Client, RemoteError
from symguard.service.settings import Settings
from symguard.solver.errors import ParseError, TooLargeError

TOKEN = "s3cret-token"
PROBLEM: dict[str, Any] = {"symbols": {"s0": {"min": 2, "hint": 64}, "s1": {"min": 2, "hint": 3}},
                           "asserts": ["Eq(Mod(s0, 8), 0)"], "guards": ["s0 >= 16", "s0 >= 8", "Ne(s1, 1)"],
                           "queries": ["s0 > s1"]}


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with running_server(Settings(workers=1, api_token=TOKEN, max_body_bytes=4096)) as u:
        yield u


def test_token_is_required_on_the_api(url: str) -> None:
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Basic {TOKEN}"}):
        r = httpx.post(f"{url}/v1/solve", json=PROBLEM, headers=headers)
        assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"
        assert r.headers["www-authenticate"] == "Bearer"
    r = httpx.post(f"{url}/v1/batch", json={"items": []})
    assert r.status_code == 401
    ok = httpx.post(f"{url}/v1/solve", json=PROBLEM, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60)
    assert ok.status_code == 200
    assert httpx.get(f"{url}/healthz").status_code == 200  # probes need no token


def test_client_ops_and_batch(url: str) -> None:
    from symguard.solver import OPS, run

    with Client(url, token=TOKEN) as c:
        for op in OPS:
            res = getattr(c, op)(PROBLEM)
            assert comparable(res) == comparable(run(op, PROBLEM)) or op == "solve"
        out = c.batch([("redundancy", PROBLEM), ("solve", {"guards": ["s0 >"]})])
        assert out[0]["op"] == "redundancy" and out[1]["error"]["code"] == "parse_error"


def test_client_rebuilds_bad_input_errors(url: str) -> None:
    with Client(url, token=TOKEN) as c:
        with pytest.raises(ParseError) as e:
            c.solve({"guards": ["s0 >= 16", "s1 +* 2 > 0"]})
        assert e.value.where == "guards[1]" and e.value.offset is not None
        with pytest.raises(TooLargeError):  # 413 from the body limit
            c.solve({"guards": ["s0 > 1"] * 1000})


def test_client_without_token_and_unreachable_server(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SYMGUARD_API_TOKEN", raising=False)
    with Client(url) as c, pytest.raises(RemoteError, match="401"):
        c.solve(PROBLEM)
    with Client("http://127.0.0.1:9", retries=0) as c, pytest.raises(RemoteError, match="no symguard server answers at http://127.0.0.1:9"):
        c.solve(PROBLEM)


def test_token_defaults_to_the_environment(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SYMGUARD_API_TOKEN", TOKEN)
    with Client(url) as c:
        assert c.solve(PROBLEM)["status"] == "sat"


def test_async_client(url: str) -> None:
    async def go() -> list[dict[str, Any]]:
        async with AsyncClient(url, token=TOKEN) as c:
            return list(await asyncio.gather(c.redundancy(PROBLEM), c.evaluate(PROBLEM)))

    red, ev = asyncio.run(go())
    assert red["op"] == "redundancy" and ev["op"] == "evaluate"


@pytest.mark.parametrize("op", ["solve", "redundancy", "evaluate", "shrink"])
def test_cli_remote_prints_what_the_local_cli_prints(url: str, tmp_path: Path, op: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SYMGUARD_API_TOKEN", TOKEN)
    good = write(tmp_path, "good.json", PROBLEM)
    bad = write(tmp_path, "bad.json", {"guards": ["s0 >= 16", "Foo(s0) > 1"]})
    local_code, local = cli([op, str(good), str(bad)])
    remote_code, remote = cli([op, str(good), str(bad), "--remote", url])
    assert remote_code == local_code == 2
    assert remote[1] == local[1]  # the §5 error JSON, identical
    if op != "solve":
        assert comparable(remote[0]) == comparable(local[0])
    else:
        assert remote[0]["status"] == local[0]["status"] == "sat"
