"""Problem documents in, result JSON out: the one reader of problem files and the one JSON spelling.

Shared by the CLI, batch and the HTTP app, so that a result prints the same everywhere. A file
that is not UTF-8 is an ``invalid_problem`` naming the file; the decoded document then goes
through ``solver.api.check_document`` (the one check of lone surrogates, huge integers and deep
nesting), so a file is refused exactly as the same JSON sent to the library or over HTTP.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from symguard.solver.api import check_document
from symguard.solver.errors import InvalidProblemError, TooLargeError
from symguard.solver.ir.terms import MAX_INT_DIGITS


def _digits(text: str) -> int:
    return len(text) - (text[0] == "-")


def _parse_int(text: str) -> int:
    """JSON integers, refused *before* conversion past the literal limit (Python's own limit
    of 4,300 digits would raise a bare ValueError, and conversion is quadratic)."""
    digits = _digits(text)
    if digits > MAX_INT_DIGITS:
        raise TooLargeError(f"integer of {digits} digits (more than {MAX_INT_DIGITS})")
    return int(text)


class _Huge:
    """Stands for an integer past the limit while ``_huge_path`` looks for where it is."""


def _huge_path(text: str | bytes) -> str | None:
    """The path of the first integer past the limit, spelt as ``solver.api.check_document``
    spells it (``symbols.s0.min``, ``guards[2]``; ``$`` for the document itself), so a number
    is refused at the same place whether it comes as JSON text or from a Python caller.

    Runs only once decoding has failed on such a number: the text is decoded again with every
    integer left unconverted (so again linear), then walked in document order. None when that
    decoding fails further on (nesting, malformed text after the number)."""
    try:
        doc = json.loads(text, parse_int=lambda t: _Huge() if _digits(t) > MAX_INT_DIGITS else 0)
    except (ValueError, RecursionError):
        return None
    stack: list[tuple[Any, str]] = [(doc, "")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, _Huge):
            return (path or "$").encode("utf-8", "backslashreplace").decode("utf-8")  # a key may be a lone surrogate
        if isinstance(node, dict):
            stack.extend((v, f"{path}.{k}" if path else str(k)) for k, v in reversed(node.items()))
        elif isinstance(node, list):
            stack.extend((v, f"{path}[{i}]") for i, v in reversed(list(enumerate(node))))
    return None  # pragma: no cover - only called when there is such a number


def loads(text: str | bytes, where: str = "$") -> Any:
    """Decode JSON from a client or a file: every way it can fail is a §5 error naming ``where``.

    Decoding limits live here: nesting (``RecursionError`` in the decoder is ``too_large``),
    integers past ``MAX_INT_DIGITS`` (``too_large`` at the path of the number, not ``where``:
    the place in the document says more than the file), bytes that are not UTF-8. Text that is not
    valid Unicode (a ``\\ud800`` escape) decodes, and is refused with its place by
    ``solver.api.prepare``, the library's edge, which every problem passes.
    """
    try:
        return json.loads(text, parse_int=_parse_int)
    except TooLargeError as e:
        e.where = _huge_path(text) or where
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
    """A problem document (docs/problem-format.md §1) from a ``.json`` or ``.smt2`` file."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise InvalidProblemError(f"no such file: {p}", where=str(p)) from None
    except OSError as e:
        raise InvalidProblemError(f"cannot read {p}: {e.strerror or e}", where=str(p)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InvalidProblemError(f"{p} is not UTF-8 text: byte 0x{data[e.start]:02x} at offset {e.start}",
                                  where=str(p), offset=e.start) from None
    if p.suffix == ".smt2":
        from symguard.solver.syntax.smtlib_script import script_problem

        doc = script_problem(text)
        check_document(doc)
        return doc
    if not text.strip():
        raise InvalidProblemError(f"empty file: {p} holds no problem (expected a JSON object such as "
                                  '{"guards": ["s0 >= 2"]})', where=str(p))
    doc = loads(text, where=str(p))
    if not isinstance(doc, dict):
        raise InvalidProblemError("a problem file must hold a JSON object", where=str(p))
    check_document(doc)
    return doc


def dumps(obj: Any) -> str:
    """The one JSON spelling of results, shared with the HTTP service.

    UTF-8 text as itself; anything no UTF-8 stream can carry (a lone surrogate from a file name
    that is not UTF-8, say) falls back to ``\\u`` escapes, so writing a line never fails.
    """
    text = json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(obj, ensure_ascii=True, separators=(", ", ": "))
    return text


def utf8(text: str) -> bytes:
    """UTF-8 bytes of JSON text that may hold a lone surrogate echoed from a client: written as
    the JSON escape ``\\udXXX`` (still valid JSON) instead of failing the whole response."""
    return text.encode("utf-8", "backslashreplace")
