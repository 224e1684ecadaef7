"""Problem documents in, result JSON out: the one reader of problem files and the one JSON spelling.

Shared by the CLI, batch and the HTTP app, so that a result prints the same everywhere.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from solver.errors import InvalidProblemError


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
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise InvalidProblemError(f"invalid JSON: {e.msg} (line {e.lineno}, column {e.colno})",
                                  where=str(p), offset=e.pos) from None
    if not isinstance(doc, dict):
        raise InvalidProblemError("a problem file must hold a JSON object", where=str(p))
    return doc


def dumps(obj: Any) -> str:
    """The one JSON spelling of results, shared with the HTTP service."""
    return json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))
