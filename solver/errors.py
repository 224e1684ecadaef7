"""The one exception tree of symguard.

    SymguardError                  root; carries code, message, where, offset
    ├── BadInput                   the caller's fault: HTTP 400, CLI exit 2
    │   ├── ParseError             code "parse_error"
    │   ├── UnsupportedError       code "unsupported"
    │   ├── InvalidProblemError    code "invalid_problem"
    │   └── TooLargeError          code "too_large"
    └── InternalError              ours: a failed self-check or a solver crash (HTTP 500, exit 1)

Foreign exceptions (z3, pysmt) are converted to these in exactly one place
(`solver._checker`); everything above the solver only ever sees this tree.
"""

from __future__ import annotations

from typing import Any


class SymguardError(Exception):
    """Root of every error symguard raises on purpose."""

    code: str = "internal_error"

    def __init__(self, message: str, *, where: str | None = None, offset: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.where = where
        self.offset = offset

    def located(self, where: str, base_offset: int = 0) -> SymguardError:
        """Attach the location (e.g. ``guards[3]``) once the caller knows it."""
        if self.where is None:
            self.where = where
        elif not self.where.startswith(where):
            self.where = f"{where}{self.where}" if self.where.startswith("[") else f"{where}.{self.where}"
        if self.offset is not None:
            self.offset += base_offset
        return self

    def to_json(self) -> dict[str, Any]:
        """The docs/problem-format.md §5 error body."""
        err: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.where is not None:
            err["where"] = self.where
        if self.offset is not None:
            err["offset"] = self.offset
        return {"error": err}

    def __str__(self) -> str:
        loc = f" at {self.where}" if self.where else ""
        off = f" (offset {self.offset})" if self.offset is not None else ""
        return f"{self.code}{loc}{off}: {self.message}"


class BadInput(SymguardError):
    """Input the caller must fix; never our bug."""

    code = "invalid_problem"


class ParseError(BadInput):
    code = "parse_error"


class UnsupportedError(BadInput):
    code = "unsupported"


class InvalidProblemError(BadInput):
    code = "invalid_problem"


class TooLargeError(BadInput):
    code = "too_large"


class InternalError(SymguardError):
    """A bug or broken infrastructure: a model that failed its re-check, a solver crash."""

    code = "internal_error"
