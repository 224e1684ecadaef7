"""Where symguard errors become HTTP statuses and CLI exit codes: the one mapping.

SPEC §5: bad input is HTTP 400 / exit 2; anything else is ours (HTTP 500 / exit 1). Oversized
bodies (413) and overload (503) are decided by the service before a problem is ever read.
"""

from __future__ import annotations

from typing import Any

from solver.errors import BadInput, InternalError, SymguardError

EXIT_OK, EXIT_FAILURE, EXIT_BAD_INPUT = 0, 1, 2


def http_status(exc: BaseException) -> int:
    return 400 if isinstance(exc, BadInput) else 500


def exit_code(exc: BaseException) -> int:
    return EXIT_BAD_INPUT if isinstance(exc, BadInput) else EXIT_FAILURE


def error_body(exc: BaseException) -> dict[str, Any]:
    """The SPEC §5 body for any exception; foreign ones never leak their traceback."""
    if isinstance(exc, SymguardError):
        return exc.to_json()
    return InternalError(f"internal error ({type(exc).__name__}); please report this input").to_json()
