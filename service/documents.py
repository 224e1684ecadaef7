"""Problem documents in, result JSON out: the one reader of problem files and the one JSON spelling.

Shared by the CLI, batch and the HTTP app, so that a result prints the same everywhere. Text is
checked at this edge: a file that is not UTF-8, or JSON whose ``\\uD800``-style escapes leave a
lone surrogate in a string, is an ``invalid_problem`` naming where — never an encoding error
when the answer (which echoes ids and names) is printed later.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from solver.errors import InvalidProblemError


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
        from solver.syntax.smtlib_script import script_problem

        doc = script_problem(text)
        check_text(doc)
        return doc
    if not text.strip():
        raise InvalidProblemError(f"empty file: {p} holds no problem (expected a JSON object such as "
                                  '{"guards": ["s0 >= 2"]})', where=str(p))
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise InvalidProblemError(f"invalid JSON: {e.msg} (line {e.lineno}, column {e.colno})",
                                  where=str(p), offset=e.pos) from None
    if not isinstance(doc, dict):
        raise InvalidProblemError("a problem file must hold a JSON object", where=str(p))
    check_text(doc)
    return doc


def check_text(obj: Any, where: str = "") -> None:
    """Raise ``invalid_problem`` at the first string (key or value) that is not valid Unicode.

    JSON may spell a lone UTF-16 surrogate (``"\\ud800"``); Python decodes it into a ``str`` that
    no UTF-8 stream can print. ``where`` is the path to it (``guards[0].id``), ``offset`` the
    character within the string.
    """
    if isinstance(obj, str):
        _check_str(obj, where or "$")
    elif isinstance(obj, dict):
        for k, v in obj.items():
            key = str(k)
            _check_str(key, f"{where}.<key>" if where else "<key>")
            check_text(v, f"{where}.{key}" if where else key)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            check_text(v, f"{where}[{i}]")


def _check_str(s: str, where: str) -> None:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError as e:
        raise InvalidProblemError(f"not valid Unicode text: a lone surrogate U+{ord(s[e.start]):04X} at character "
                                  f"{e.start} (JSON \\u escapes must pair surrogates)", where=where,
                                  offset=e.start) from None


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
