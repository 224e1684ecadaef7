"""API fuzzing with schemathesis against the service's own OpenAPI schema: never a 5xx.

Cases are generated from the schema (valid bodies, and with ``negative`` mode bodies that break
it) and sent to a real server on loopback. The only 5xx allowed is the documented 503 with
``Retry-After``. Bounded: a few dozen examples per operation, and the server caps every
``timeout_ms`` so no generated problem can hold a worker long.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from service_helpers import running_server

from symguard.service.app import create_app
from symguard.service.settings import Settings

schemathesis = pytest.importorskip("schemathesis", reason="API fuzzing needs schemathesis")

SETTINGS = Settings(workers=2, max_timeout_ms=300, grace_ms=1000, queue_size=64, batch_max_items=20)
SCHEMA = schemathesis.openapi.from_dict(create_app(SETTINGS).openapi())  # no lifespan: no workers
OPERATIONS = [(path, method.upper()) for path, item in SCHEMA.raw_schema["paths"].items() for method in item]
# negative cases only where there is an input to break (the GET routes take none)
CASES = [(p, m, mode) for p, m in OPERATIONS for mode in ("positive", "negative") if m == "POST" or mode == "positive"]
EXAMPLES = 40


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with running_server(SETTINGS) as u:
        yield u


@pytest.mark.timeout(300)
@pytest.mark.parametrize(("path", "method", "mode"), CASES, ids=[f"{m} {p} {mode}" for p, m, mode in CASES])
def test_no_server_errors(url: str, path: str, method: str, mode: str) -> None:
    strategy = SCHEMA[path][method].as_strategy(generation_mode=schemathesis.GenerationMode(mode))

    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def one(case: schemathesis.Case) -> None:
        r = case.call(base_url=url, timeout=60)
        if r.status_code == 503:
            assert "retry-after" in {k.lower() for k in r.headers}, r.text
        else:
            assert r.status_code < 500, (case.body, r.status_code, r.text[:500])
        if r.status_code in (400, 413) and path.startswith("/v1/"):
            err = r.json()["error"]
            assert err["code"] and err["message"] and "Traceback" not in err["message"]

    one()


def _escape_lone(cp: int) -> str:
    return f"\\u{cp:04x}"


@pytest.mark.timeout(300)
@pytest.mark.parametrize("path", ["/v1/solve", "/v1/redundancy", "/v1/evaluate", "/v1/shrink", "/v1/batch"])
def test_invalid_unicode_anywhere_is_a_400_never_a_5xx(url: str, path: str) -> None:
    """Issue 14: a lone surrogate in an id was a 500 that dropped the connection. Here one goes
    into a random string (value or key) of a valid problem, spelled as a JSON escape."""
    import json

    import httpx
    from hypothesis import strategies as st

    base = {"symbols": {"s0": {"min": 2, "hint": 8}}, "asserts": [{"id": "a", "expr": "s0 <= 64"}],
            "guards": [{"id": "g", "expr": "s0 >= 4"}, "Ne(s0, 3)"], "queries": ["s0 > 5"],
            "inputs": {"x": ["s0", 3]}, "syntax": "sympy", "options": {"timeout_ms": 300}}
    text = json.dumps(base)
    spots = [i + 1 for i, ch in enumerate(text) if ch == '"']  # just after an opening or closing quote

    @settings(max_examples=30, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(st.sampled_from(spots), st.integers(0xD800, 0xDFFF), st.booleans())
    def one(spot: int, cp: int, twice: bool) -> None:
        body = text[:spot] + _escape_lone(cp) * (2 if twice else 1) + text[spot:]
        try:
            json.loads(body)
        except ValueError:
            return  # the escape landed between strings: not a document
        if path == "/v1/batch":
            body = '{"items": [{"op": "solve", "problem": ' + body + "}]}"
        with httpx.Client(base_url=url, timeout=60) as c:
            r = c.post(path, content=body.encode(), headers={"content-type": "application/json"})
            assert r.status_code < 500 or (r.status_code == 503 and "retry-after" in r.headers), r.text[:300]
            if r.status_code == 400:
                assert r.json()["error"]["where"]
            assert c.get("/healthz").status_code == 200  # the connection is still usable

    one()
