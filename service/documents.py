"""Problem documents in, result JSON out: the one reader of problem files and the one JSON spelling.

Shared by the CLI, batch and the HTTP app, so that a result prints the same everywhere.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from solver.errors import InvalidProblemError, TooLargeError

MAX_INT_DIGITS = 4000  # as the expression readers: longer integer literals are `too_large`


def _parse_int(text: str) -> int:
    """JSON integers, refused *before* conversion past the literal limit (Python's own limit
    of 4,300 digits would raise a bare ValueError, and conversion is quadratic)."""
    digits = len(text) - (text[0] == "-")
    if digits > MAX_INT_DIGITS:
        raise TooLargeError(f"integer of {digits} digits (more than {MAX_INT_DIGITS})", where="$")
    return int(text)


def loads(text: str | bytes, where: str = "$") -> Any:
    """Decode JSON from a client or a file: every way it can fail is a §5 error naming ``where``.

    Decoding limits live here: nesting (``RecursionError`` in the decoder is ``too_large``),
    integers past ``MAX_INT_DIGITS`` (``too_large``), bytes that are not UTF-8. Text that is not
    valid Unicode (a ``\\ud800`` escape) decodes, and is refused with its place by
    ``solver.api.prepare``, the library's edge, which every problem passes.
    """
    try:
        return json.loads(text, parse_int=_parse_int)
    except TooLargeError as e:
        e.where = where
        raise
    except RecursionError:
        raise TooLargeError("the JSON document is nested too deeply", where=where) from None
    except UnicodeDecodeError:
        raise InvalidProblemError("the document is not UTF-8 text", where=where) from None
    except json.JSONDecodeError as e:
        raise InvalidProblemError(f"invalid JSON: {e.msg} (line {e.lineno}, column {e.colno})",
                                  where=where, offset=e.pos) from None
    except ValueError as e:  # anything else the decoder refuses
        raise InvalidProblemError(f"invalid JSON: {e}"[:300], where=where) from None


def read_problem(path: str | Path) -> dict[str, Any]:
    """A SPEC §1 problem document from a ``.json`` or ``.smt2`` file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InvalidProblemError(f"no such file: {p}", where=str(p)) from None
    except (OSError, UnicodeDecodeError) as e:
        raise InvalidProblemError(f"cannot read {p}: {e}", where=str(p)) from None
    if p.suffix == ".smt2":
        from solver.syntax.smtlib_script import script_problem

        return script_problem(text)
    doc = loads(text, where=str(p))
    if not isinstance(doc, dict):
        raise InvalidProblemError("a problem file must hold a JSON object", where=str(p))
    return doc


def dumps(obj: Any) -> str:
    """The one JSON spelling of results, shared with the HTTP service."""
    return json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))


def utf8(text: str) -> bytes:
    """UTF-8 bytes of JSON text that may hold a lone surrogate echoed from a client: written as
    the JSON escape ``\\udXXX`` (still valid JSON) instead of failing the whole response."""
    return text.encode("utf-8", "backslashreplace")
