"""Small pure units of the service: the one error mapping, settings from the environment."""

from __future__ import annotations

import pytest

from symguard.service.errors import (
    Overloaded,
    PayloadTooLarge,
    Unauthorized,
    error_body,
    error_from_body,
    exit_code,
    http_status,
)
from symguard.service.settings import Settings
from symguard.solver.errors import (
    BadInput,
    InternalError,
    InvalidProblemError,
    ParseError,
    TooLargeError,
    UnsupportedError,
)


@pytest.mark.parametrize(("exc", "status"), [
    (ParseError("x"), 400), (UnsupportedError("x"), 400), (TooLargeError("x"), 400), (InvalidProblemError("x"), 400),
    (Unauthorized("x"), 401), (PayloadTooLarge("x"), 413), (Overloaded("x"), 503), (InternalError("x"), 500),
    (ValueError("boom"), 500),
])
def test_http_status(exc: Exception, status: int) -> None:
    assert http_status(exc) == status
    assert exit_code(exc) == (2 if isinstance(exc, BadInput) else 1)


@pytest.mark.parametrize("cls", [ParseError, UnsupportedError, InvalidProblemError, TooLargeError, InternalError])
def test_error_bodies_round_trip(cls: type[Exception]) -> None:
    exc = cls("what to fix", where="guards[3]", offset=12)  # type: ignore[call-arg]
    back = error_from_body(error_body(exc), status=http_status(exc))
    assert type(back) is cls and error_body(back) == error_body(exc)


def test_foreign_errors_never_leak_details() -> None:
    body = error_body(KeyError("/secret/path.py"))
    assert body["error"]["code"] == "internal_error" and "secret" not in body["error"]["message"]
    assert isinstance(error_from_body({"nonsense": 1}, status=502), InternalError)
    assert isinstance(error_from_body({"error": {"code": "internal_error", "message": "m"}}, status=400), BadInput)


def test_settings_come_from_the_environment_when_built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SYMGUARD_WORKERS", "3")
    monkeypatch.setenv("SYMGUARD_API_TOKEN", "zq9-secret")
    monkeypatch.setenv("SYMGUARD_REDIS_URL", "redis://h:1/0")
    s = Settings()
    assert s.workers == 3 and s.redis_url == "redis://h:1/0"
    assert s.api_token is not None and s.api_token.get_secret_value() == "zq9-secret" and "zq9" not in repr(s)
    assert Settings(workers=1).workers == 1  # explicit arguments win (tests, the CLI)


def test_local_caches_are_bounded_by_bytes_not_entries() -> None:
    """A 54 KB request can have a 6.6 MB answer: the layers count bytes (an entry larger than its
    whole layer is not kept)."""
    import json

    from symguard.service.cache import ResultCache
    from symguard.service.metrics import Metrics

    cache = ResultCache(Settings(cache_bytes=10_000, exact_cache_bytes=5_000), Metrics())
    small = {"status": "sat", "model": {"v0": 1}}
    huge = {"status": "sat", "model": {f"v{i}": i for i in range(5_000)}}
    for i in range(1_000):
        cache.put_exact(f"k{i}", small)
    cache.put_exact("huge", huge)
    assert cache.get_exact("huge") is None
    assert cache.get_exact("k999") == small
    assert cache.get_exact("k0") is None  # evicted: the bytes were spent
    exact = cache._exact
    assert exact is not None and exact.currsize <= 5_000
    assert exact.currsize == sum(len(v) for v in exact.values())
    assert len(json.dumps(small, separators=(",", ":"))) * len(exact) == exact.currsize
