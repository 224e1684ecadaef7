"""The HTTP API (docs/problem-format.md §2): ``create_app(settings) -> FastAPI``; nothing happens at import.

Routes are thin: read the body (size-limited), hand it to ``Answerer`` as bytes, write the
result with the CLI's ``dumps``. Errors are only raised here; ``service.errors`` turns them into
responses. ``/healthz`` is liveness, ``/readyz`` says whether workers are up, ``/metrics`` is
Prometheus text; these three need no token.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hmac
import json
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request, Response
from fastapi.openapi.utils import get_openapi
from fastapi_offline import FastAPIOffline
from pydantic.json_schema import models_json_schema

from symguard.solver import OPS
from symguard.solver.errors import InvalidProblemError, SymguardError

from . import contexts as ctx
from . import schemas
from .answer import Answerer
from .cache import ResultCache
from .documents import dumps, loads, utf8
from .errors import PayloadTooLarge, Unauthorized, error_body, install_handlers
from .metrics import Metrics
from .runtime.cut import Cutter
from .runtime.deadline import WORKER_NICE
from .runtime.pool import DEFAULT_ARGV, WorkerPool
from .settings import Settings

_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": schemas.ErrorBody, "description": d} for code, d in (
        (400, "bad input (docs/problem-format.md §5)"), (401, "missing or wrong bearer token"), (413, "body too large"),
        (500, "a failure of symguard itself"), (503, "overloaded; see Retry-After"))}


async def read_body(request: Request, limit: int) -> bytes:
    """The body, refused with 413 as soon as it is known to exceed ``limit`` bytes."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise PayloadTooLarge(f"body of {declared} bytes exceeds the limit of {limit}")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise PayloadTooLarge(f"body exceeds the limit of {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


async def answerer(request: Request) -> Answerer:
    """The app's ``Answerer`` (made by the lifespan), as a FastAPI dependency (async: a plain function
    would cost every request a hop to the threadpool)."""
    return request.app.state.answerer  # type: ignore[no-any-return]


def _json(obj: Any, status: int = 200) -> Response:
    return Response(utf8(dumps(obj)), status_code=status, media_type="application/json")


def create_app(settings: Settings | None = None, *, worker_argv: Sequence[str] = DEFAULT_ARGV) -> FastAPI:
    """A fresh app with its own workers, caches and metrics (started by the ASGI lifespan)."""
    settings = settings or Settings()
    metrics = Metrics()
    cutter = Cutter(metrics)  # keeps every request's deadline, stateless and context alike (runtime.cut)
    secret = settings.api_token.get_secret_value() if settings.api_token else ""
    token = secret.encode() if secret else None  # an empty SYMGUARD_API_TOKEN means no token

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # workers below the server's priority: its event loop keeps every deadline (runtime.deadline)
        pool = WorkerPool(dataclasses.replace(settings.limits(), worker_nice=WORKER_NICE), metrics, argv=worker_argv,
                          cutter=cutter)
        cache = ResultCache(settings, metrics)
        app.state.answerer = Answerer(pool, cache, metrics)
        await pool.start()
        await app.state.contexts.start()  # contexts hook (service/contexts.py)
        try:
            yield
        finally:
            await pool.close()
            await cache.close()
            await app.state.contexts.close()

    # /docs and /redoc with their scripts served from the package, not a CDN: they work offline
    # no 307 to the path without its trailing slash: a JSON client would get an empty body; a 404
    # ``not_found`` names the path to use instead (service.errors)
    app = FastAPIOffline(title="symguard", version="0.1.0", lifespan=lifespan, redirect_slashes=False,
                         description="SMT-backed guard entailment for dynamic tensor shapes "
                                     "(the problem format: docs/problem-format.md).")
    install_handlers(app)

    app.add_middleware(_Measure, metrics=metrics)

    async def authorized(request: Request) -> None:
        if token is None:
            return
        got = request.headers.get("authorization", "")
        scheme, _, value = got.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(value.strip().encode(), token):
            raise Unauthorized("a valid bearer token is required (Authorization: Bearer …)")

    problem_body = {"requestBody": {"required": True, "content": {
        "application/json": {"schema": {"$ref": "#/components/schemas/Problem"}}}}}

    def add_op(op: str) -> None:
        async def endpoint(request: Request, a: Annotated[Answerer, Depends(answerer)]) -> Response:
            body = await read_body(request, settings.max_body_bytes)
            named = ctx.named_context(body)  # contexts hook: {"context": KEY, ...delta}, parsed once
            arrival = request.scope.get(ARRIVAL)
            if named is not None:
                return await request.app.state.contexts.answer(op, body, named, arrival=arrival)  # type: ignore[no-any-return]
            return _json(await a.answer(op, body, arrival=arrival))

        app.post(f"/v1/{op}", response_model=schemas.RESULTS[op], responses=_ERRORS, openapi_extra=problem_body,
                 dependencies=[Depends(authorized)], summary=f"{op} one problem", name=op)(endpoint)

    for op in OPS:
        add_op(op)
    app.state.contexts = ctx.install(app, settings, authorized, read_body, cutter)  # contexts hook

    @app.post("/v1/batch", response_model=schemas.BatchResponse, responses=_ERRORS,
              dependencies=[Depends(authorized)], summary="many operations, results in order",
              openapi_extra={"requestBody": {"required": True, "content": {
                  "application/json": {"schema": {"$ref": "#/components/schemas/BatchRequest"}}}}})
    async def batch(request: Request, a: Annotated[Answerer, Depends(answerer)]) -> Response:
        items = _batch_items(await read_body(request, settings.max_body_bytes), settings.batch_max_items)
        a.pool.check_capacity()  # the batch as a whole is refused (503) when the line is full
        gate = asyncio.Semaphore(settings.workers)  # one batch never floods the waiting line
        arrival = request.scope.get(ARRIVAL)  # every item's deadline counts from the batch's arrival

        async def one(i: int, item: Any) -> dict[str, Any]:
            try:
                op, body = _batch_item(i, item)
                problem = item.get("problem")
                if isinstance(problem, dict) and "context" in problem:  # as POST /v1/{op} with that body
                    return (await request.app.state.contexts.result(  # type: ignore[no-any-return]
                        op, body, problem, arrival=arrival, gate=gate))[0]
                return await a.answer(op, body, bounded=False, arrival=arrival, gate=gate)
            except SymguardError as e:
                return error_body(e)
            except Exception as e:  # noqa: BLE001 - one item's failure does not fail the others
                return error_body(e)

        work = asyncio.ensure_future(asyncio.gather(*(one(i, it) for i, it in enumerate(items))))
        while not (await asyncio.wait({work}, timeout=_DISCONNECT_POLL_S))[0]:
            if await request.is_disconnected():  # the client hung up: free the workers it holds
                work.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await work
                return Response(status_code=499)
        return _json({"results": work.result()})

    @app.get("/healthz", response_model=schemas.Health, summary="liveness")
    async def healthz() -> Response:
        return _json({"status": "ok"})

    @app.get("/readyz", response_model=schemas.Health, summary="readiness: workers are up",
             responses={503: {"model": schemas.Health}})
    async def readyz(a: Annotated[Answerer, Depends(answerer)]) -> Response:
        ready = a.pool.ready()
        body = {"status": "ready" if ready else "not_ready", "workers": a.pool.size(),
                "redis": await a.cache.ping()}
        return _json(body, 200 if ready else 503)

    @app.get("/metrics", summary="Prometheus metrics", response_class=Response)
    async def prometheus() -> Response:
        return Response(metrics.render(), media_type="text/plain; version=0.0.4; charset=utf-8")

    _document(app)
    return app


def _batch_items(raw: bytes, limit: int) -> list[Any]:
    doc = loads(raw)
    items = doc.get("items") if isinstance(doc, dict) else None
    if not isinstance(items, list):
        raise InvalidProblemError('a batch is {"items": [{"op": ..., "problem": {...}}, ...]}',
                                  where="items" if isinstance(doc, dict) else "$")
    other = sorted(set(doc) - {"items"})
    if other:  # a misspelt key is refused, as in a problem (docs/problem-format.md §1)
        raise InvalidProblemError(f'unknown field {other[0]!r}: a batch is {{"items": [...]}}', where=other[0])
    if len(items) > limit:
        raise PayloadTooLarge(f"{len(items)} items exceed the limit of {limit} per batch")
    return items


def _batch_item(i: int, item: Any) -> tuple[str, bytes]:
    if not isinstance(item, dict) or set(item) - {"op", "problem"}:
        raise InvalidProblemError('an item is {"op": ..., "problem": {...}}', where=f"items[{i}]")
    op = item.get("op")
    if op not in OPS:
        raise InvalidProblemError(f"unknown operation {op!a} (expected one of {', '.join(OPS)})",
                                  where=f"items[{i}].op")
    # ASCII escapes: a lone surrogate travels as "\\ud800" and is refused, with its place, by the worker
    return op, json.dumps(item.get("problem"), separators=(",", ":")).encode()


def _document(app: FastAPI) -> None:
    """OpenAPI with the request models the routes read as raw bytes (``schemas`` explains why)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        spec = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
        _, defs = models_json_schema([(schemas.Problem, "validation"), (schemas.BatchRequest, "validation")],
                                     ref_template="#/components/schemas/{model}")
        spec.setdefault("components", {}).setdefault("schemas", {}).update(defs.get("$defs", {}))
        app.openapi_schema = spec
        return spec

    app.openapi = openapi  # type: ignore[method-assign]


ARRIVAL = "symguard.arrival"  # scope key: time.monotonic() when the request reached the app (the deadline's origin)
_DISCONNECT_POLL_S = 0.25  # how often a running /v1/batch checks that its client is still there
_ROUTES = frozenset({*(f"/v1/{op}" for op in OPS), "/v1/batch", "/v1/contexts", "/healthz", "/readyz", "/metrics"})


class _Measure:
    """Pure ASGI middleware: request counts and latency per route (unknown paths share one label),
    and the request's arrival (``scope[ARRIVAL]``), from which its deadline counts: the first thing
    the app does, before the body is read."""

    def __init__(self, app: Any, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        scope[ARRIVAL] = time.monotonic()
        route = scope["path"] if scope["path"] in _ROUTES else "other"
        status = [500]

        async def sending(message: Any) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        t0 = time.perf_counter()
        try:
            await self.app(scope, receive, sending)
        finally:
            self.metrics.latency.labels(route).observe(time.perf_counter() - t0)
            self.metrics.requests.labels(route, str(status[0])).inc()
