"""Where symguard errors become HTTP statuses and CLI exit codes: the one mapping.

docs/problem-format.md §5: bad input is HTTP 400 / exit 2; anything else is ours (HTTP 500 / exit 1). Oversized
bodies (413), a missing token (401) and overload (503) are decided by the service before a
problem is ever read; they are ``ServiceError`` subclasses of the one tree. A path no route
serves (404 ``not_found``) or a method a route does not take (405 ``method_not_allowed``, with
``Allow``) is decided by the router; ``HTTP_CODES`` names the code of each such status, and
every status the app sends is in the §5 table (``tests/test_service_edges.py`` holds both)::

    SymguardError (solver.errors)
    └── ServiceError               refused by the HTTP layer, body is still docs/problem-format.md §5
        ├── Unauthorized           401 "unauthorized"
        ├── PayloadTooLarge        413 "too_large"
        ├── Overloaded             503 "overloaded", with Retry-After
        └── Unavailable            "unavailable": the client cannot reach the server (exit 1)

The HTTP handlers are registered by exception class (``install_handlers``); routes only raise.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from symguard.solver.errors import (
    BadInput,
    InternalError,
    InvalidProblemError,
    ParseError,
    SymguardError,
    TooLargeError,
    UnsupportedError,
)

if TYPE_CHECKING:
    from fastapi import FastAPI

EXIT_OK, EXIT_FAILURE, EXIT_BAD_INPUT = 0, 1, 2

# The router's refusals (Starlette raises ``HTTPException`` for these two and no other status).
HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}


class ServiceError(SymguardError):
    """A request the service refuses before solving; ``status`` is its HTTP status."""

    status = 500


class Unauthorized(ServiceError):
    code = "unauthorized"
    status = 401


class PayloadTooLarge(ServiceError):
    code = "too_large"
    status = 413


class Overloaded(ServiceError):
    code = "overloaded"
    status = 503

    def __init__(self, message: str, *, retry_after_s: int = 1, where: str | None = None,
                 offset: int | None = None) -> None:
        super().__init__(message, where=where, offset=offset)
        self.retry_after_s = retry_after_s


class Unavailable(ServiceError):
    """Raised on the client side (``--remote``): no server answers at the URL, so nothing was solved."""

    code = "unavailable"
    status = 503


def http_status(exc: BaseException) -> int:
    if isinstance(exc, ServiceError):
        return exc.status
    return 400 if isinstance(exc, BadInput) else 500


def exit_code(exc: BaseException) -> int:
    return EXIT_BAD_INPUT if isinstance(exc, BadInput) else EXIT_FAILURE


def error_body(exc: BaseException) -> dict[str, Any]:
    """The docs/problem-format.md §5 body for any exception; foreign ones never leak their traceback."""
    if isinstance(exc, SymguardError):
        return exc.to_json()
    return InternalError(f"internal error ({type(exc).__name__}); please report this input").to_json()


_BY_CODE: dict[str, type[SymguardError]] = {
    c.code: c for c in (ParseError, UnsupportedError, InvalidProblemError, TooLargeError, InternalError,
                        Unauthorized, Overloaded, Unavailable)
}


def error_from_body(body: Any, *, status: int | None = None) -> SymguardError:
    """Rebuild the exception a §5 body describes (the client, and answers from a worker).

    A 400 always rebuilds a ``BadInput`` subclass, so the CLI's ``--remote`` prints the same error
    JSON and exits 2 exactly as a local run would.
    """
    err = body.get("error") if isinstance(body, dict) else None
    if not isinstance(err, dict) or not isinstance(err.get("message"), str):
        return InternalError(f"unexpected error response (HTTP {status}): {str(body)[:200]}")
    cls = _BY_CODE.get(str(err.get("code")), InternalError)
    if status == 400 and not issubclass(cls, BadInput):
        cls = InvalidProblemError
    where, offset = err.get("where"), err.get("offset")
    return cls(err["message"], where=where if isinstance(where, str) else None,
               offset=offset if isinstance(offset, int) and not isinstance(offset, bool) else None)


def install_handlers(app: FastAPI) -> None:
    """Every error response of the app, looked up by exception class."""
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse
    from starlette.exceptions import HTTPException
    from starlette.requests import Request

    from .documents import dumps, utf8

    class SafeJSON(JSONResponse):
        """Error bodies may echo a client's invalid text: never let that fail the response."""

        def render(self, content: Any) -> bytes:
            return utf8(dumps(content))

    async def symguard(_: Request, exc: Exception) -> SafeJSON:
        headers = {"Retry-After": str(exc.retry_after_s)} if isinstance(exc, Overloaded) else None
        if isinstance(exc, Unauthorized):
            headers = {"WWW-Authenticate": "Bearer"}
        return SafeJSON(error_body(exc), status_code=http_status(exc), headers=headers)

    async def http(request: Request, exc: Exception) -> SafeJSON:
        assert isinstance(exc, HTTPException)
        code = HTTP_CODES.get(exc.status_code)
        if code is None:  # no route raises one: a status we did not plan is ours, not the client's
            return SafeJSON(InternalError(f"internal error (HTTP {exc.status_code}: {exc.detail})").to_json(),
                            status_code=500)
        headers = getattr(exc, "headers", None)
        if exc.status_code == 405:
            allow = (headers or {}).get("Allow", "")
            message = f"{request.method} is not allowed on {request.url.path} (allowed: {allow or 'none'})"
        else:
            path = request.url.path
            bare = path.rstrip("/")
            known = bare != path and any(getattr(r, "path", None) == bare for r in request.app.routes)
            message = f"no route {path}" + (f" (did you mean {bare}?)" if known else " (the API is under /v1/: see /docs)")
        return SafeJSON({"error": {"code": code, "message": message}}, status_code=exc.status_code,
                        headers=headers)

    async def validation(_: Request, exc: Exception) -> SafeJSON:
        assert isinstance(exc, RequestValidationError)
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(x) for x in first.get("loc", ())) or None
        err = InvalidProblemError(f"invalid request: {first.get('msg', 'validation failed')}", where=where)
        return SafeJSON(err.to_json(), status_code=400)

    async def other(_: Request, exc: Exception) -> SafeJSON:
        return SafeJSON(error_body(exc), status_code=500)

    app.add_exception_handler(SymguardError, symguard)
    app.add_exception_handler(HTTPException, http)
    app.add_exception_handler(RequestValidationError, validation)
    app.add_exception_handler(Exception, other)
