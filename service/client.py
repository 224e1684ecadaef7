"""Clients for a running symguard server: ``Client`` (sync) and ``AsyncClient`` (httpx).

For a compiler process: one persistent connection pool per client, ``run(op, problem)`` returns
the result dict of docs/problem-format.md §2. A 503 is retried after its ``Retry-After`` (bounded);
a 400/413 raises the ``solver.errors`` class its error body names (with ``where``/``offset``), so
``symguard … --remote URL`` prints the same error JSON and exit status as a local run. A server
that cannot be reached (nothing listening, DNS, a connect timeout) raises ``ServerUnavailable``,
code ``unavailable`` with the URL; anything else — 401, 500 — raises ``RemoteError`` with a
message saying what happened. ``ServerUnavailable`` is a ``RemoteError`` too.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from typing import TYPE_CHECKING, Any

import httpx

from symguard.solver import OPS
from symguard.solver.errors import InternalError

from .errors import Unavailable, error_from_body

if TYPE_CHECKING:
    from typing_extensions import Self

Result = dict[str, Any]
MAX_RETRY_WAIT_S = 10.0


class RemoteError(InternalError):
    """The server could not answer (unreachable, refused, overloaded for too long, or broken)."""


class ServerUnavailable(Unavailable, RemoteError):
    """No symguard server answers at the URL: code ``unavailable`` (exit status 1), nothing was solved."""


def _unreachable(url: str, e: httpx.HTTPError) -> ServerUnavailable:
    """A connection that cannot be made says ``unavailable`` and the URL; ``where`` is the URL too."""
    why = str(e) or type(e).__name__
    return ServerUnavailable(f"no symguard server answers at {url} ({why}); start one with `symguard serve` "
                             "or check the URL", where=url)


def _headers(token: str | None) -> dict[str, str]:
    token = token if token is not None else os.environ.get("SYMGUARD_API_TOKEN") or None
    return {"Authorization": f"Bearer {token}"} if token else {}


def _retry_after(r: httpx.Response) -> float:
    try:
        return min(MAX_RETRY_WAIT_S, max(0.05, float(r.headers.get("retry-after", "1"))))
    except ValueError:
        return 1.0


def _decode(r: httpx.Response, url: str) -> Any:
    """The body of a final response, or the exception it stands for."""
    try:
        body = r.json()
    except ValueError:
        body = None
    if r.status_code == 200 and isinstance(body, dict):
        return body
    if r.status_code in (400, 413) and body is not None:
        raise error_from_body(body, status=r.status_code)
    if r.status_code == 404 and isinstance(body, dict) and body.get("error", {}).get("code") == "unknown_context":
        raise UnknownContext(body["error"].get("message", "unknown context"))
    detail = body["error"].get("message") if isinstance(body, dict) and isinstance(body.get("error"), dict) \
        else r.text[:200]
    raise RemoteError(f"symguard server {url} answered HTTP {r.status_code}: {detail}")


class UnknownContext(RemoteError):
    """The server does not know the context key (expired, another deployment): resend the problem."""


def _check_op(op: str) -> str:
    if op not in OPS:
        raise ValueError(f"unknown operation {op!r} (expected one of {', '.join(OPS)})")
    return op


class Client:
    """Synchronous client; safe to share between threads (httpx.Client is)."""

    def __init__(self, url: str, token: str | None = None, *, timeout_s: float = 600.0, retries: int = 5) -> None:
        self.url = url.rstrip("/")
        self.retries = retries
        self._http = httpx.Client(base_url=self.url, headers=_headers(token), timeout=timeout_s)

    def _post(self, path: str, doc: Any) -> Any:
        for attempt in range(self.retries + 1):
            try:
                r = self._http.post(path, json=doc)
            except (httpx.ConnectError, httpx.ConnectTimeout) as e:
                raise _unreachable(self.url, e) from None
            except httpx.HTTPError as e:
                raise RemoteError(f"cannot reach symguard server {self.url}: {e}") from None
            if r.status_code != 503 or attempt == self.retries:
                return _decode(r, self.url)
            time.sleep(_retry_after(r))
        raise AssertionError("unreachable")

    def run(self, op: str, problem: dict[str, Any]) -> Result:
        return self._post(f"/v1/{_check_op(op)}", problem)  # type: ignore[no-any-return]

    def context(self, problem: dict[str, Any]) -> str:
        """Register a context (or extend one: ``{"context": KEY, ...delta}``); its key.
        Then ``run(op, {"context": KEY, ...delta})``; an unknown key raises ``UnknownContext``."""
        return self._post("/v1/contexts", problem)["context"]  # type: ignore[no-any-return]

    def solve(self, problem: dict[str, Any]) -> Result:
        return self.run("solve", problem)

    def redundancy(self, problem: dict[str, Any]) -> Result:
        return self.run("redundancy", problem)

    def evaluate(self, problem: dict[str, Any]) -> Result:
        return self.run("evaluate", problem)

    def shrink(self, problem: dict[str, Any]) -> Result:
        return self.run("shrink", problem)

    def simplify(self, problem: dict[str, Any]) -> Result:
        return self.run("simplify", problem)

    def batch(self, items: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
        """Results (or §5 error bodies) in the order of ``items`` = ``[(op, problem), …]``."""
        doc = {"items": [{"op": _check_op(op), "problem": p} for op, p in items]}
        return self._post("/v1/batch", doc)["results"]  # type: ignore[no-any-return]

    def close(self) -> None:
        self._http.close()

    def __del__(self) -> None:  # the CLI's --remote runner holds a Client for the whole run
        with contextlib.suppress(Exception):  # interpreter teardown
            self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncClient:
    """The same over ``httpx.AsyncClient``, for asyncio callers."""

    def __init__(self, url: str, token: str | None = None, *, timeout_s: float = 600.0, retries: int = 5) -> None:
        self.url = url.rstrip("/")
        self.retries = retries
        self._http = httpx.AsyncClient(base_url=self.url, headers=_headers(token), timeout=timeout_s)

    async def _post(self, path: str, doc: Any) -> Any:
        for attempt in range(self.retries + 1):
            try:
                r = await self._http.post(path, json=doc)
            except (httpx.ConnectError, httpx.ConnectTimeout) as e:
                raise _unreachable(self.url, e) from None
            except httpx.HTTPError as e:
                raise RemoteError(f"cannot reach symguard server {self.url}: {e}") from None
            if r.status_code != 503 or attempt == self.retries:
                return _decode(r, self.url)
            await asyncio.sleep(_retry_after(r))
        raise AssertionError("unreachable")

    async def run(self, op: str, problem: dict[str, Any]) -> Result:
        return await self._post(f"/v1/{_check_op(op)}", problem)  # type: ignore[no-any-return]

    async def solve(self, problem: dict[str, Any]) -> Result:
        return await self.run("solve", problem)

    async def redundancy(self, problem: dict[str, Any]) -> Result:
        return await self.run("redundancy", problem)

    async def evaluate(self, problem: dict[str, Any]) -> Result:
        return await self.run("evaluate", problem)

    async def shrink(self, problem: dict[str, Any]) -> Result:
        return await self.run("shrink", problem)

    async def simplify(self, problem: dict[str, Any]) -> Result:
        return await self.run("simplify", problem)

    async def batch(self, items: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
        doc = {"items": [{"op": _check_op(op), "problem": p} for op, p in items]}
        return (await self._post("/v1/batch", doc))["results"]  # type: ignore[no-any-return]

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
