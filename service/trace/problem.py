"""One compile's emitted shape guards as a symguard problem (docs/problem-format.md §1).

The question is the one a per-call check asks: which of the lines Dynamo checks on every call
(``log.EmittedGuard``) are implied by the others? So every line is a guard, and the only facts
are what holds for any input at all: a size, stride or storage offset is ``>= 0``. Range lines
(``2 <= L['x'].size()[0]``, the 0/1 specialization) are guards like the rest, never assumed:
they are what enforces the range. A minimal set symguard answers is then, with sizes ``>= 0``,
equivalent to all the lines: the same inputs pass.

Each line is Python over *sources* (``L['x'].size()[1]``, ``L['x'].stride()[0]``). A source
becomes a symbol: the ShapeEnv's own name when ``create_symbol`` logged it (``s27``, with its
traced value as the hint), else ``src0``, ``src1``, … . Python spellings become symguard's
(``max(`` → ``Max(``; ``//`` and ``%`` are floor division and Python's modulus in both, §1.2;
``and``/``or`` short-circuit in both). A line is left out of the question, and kept, when symguard
cannot read it as Python runs it: it fails to parse (a ternary, a ``___`` helper), it computes in
floats (a true division ``/``, ``math.floor``/``math.ceil``, a float literal: Python rounds to
doubles, and past 2**53 ``2*math.ceil(n / 2) >= n`` is false although the exact value holds), or
it reads a source that is not known to be an integer (a float attribute such as a LayerNorm's
``eps``, a SymFloat): over the integers such a line could look implied when it is not, or imply
what it does not (docs/torch_guards.md, "One semantics").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from symguard.solver.errors import SymguardError
from symguard.solver.syntax.sympy_reader import parse_sympy

from ..torch_bridge import OPTIONS as BRIDGE_OPTIONS
from .log import Compile

# a guard source: L['x'] / G['y'] then attributes, subscripts and calls: L['x'].size()[1]
SOURCE = re.compile(r"\b[LG]\['(?:[^'\\]|\\.)*'\](?:\.[A-Za-z_]\w*|\[(?:'(?:[^'\\]|\\.)*'|-?\d+)\]|\(\))*")
_SIZE_LIKE = re.compile(r"\.(?:size\(\)\[\d+\]|stride\(\)\[\d+\]|storage_offset\(\))\Z")
_CALLS = ((re.compile(r"(?<![\w.])max\("), "Max("), (re.compile(r"(?<![\w.])min\("), "Min("),
          (re.compile(r"(?<![\w.])abs\("), "Abs("))
# what Python computes in doubles: a true division, the math module's rounding, a float literal
_FLOATS = re.compile(r"(?<!/)/(?!/)|\bmath\.|\b\d+\.\d*|\b\d+e[-+]?\d+")
# the bridge's options (an unreadable guard is skipped and kept, never a rejected problem), and no
# implicit lower bound: a symbol's only bound is the one its source really has
OPTIONS: dict[str, Any] = {**BRIDGE_OPTIONS, "default_min": None}


@dataclass(frozen=True)
class Line:
    """One emitted line: ``id`` (``g{i}``, its position), the symguard text, or why there is none."""

    id: str
    code: str
    origin: str
    text: str | None
    unread: str | None


def translate(code: str, names: Mapping[str, str], integer: Mapping[str, bool]) -> tuple[str | None, str | None]:
    """``(text, None)``: the line in symguard's sympy syntax; ``(None, why)`` when it cannot be read."""
    bad: list[str] = []

    def sub(m: re.Match[str]) -> str:
        src = m.group(0)
        if not integer.get(src, False):
            bad.append(src)
        return names.get(src, src)

    text = SOURCE.sub(sub, code)
    if bad:
        return None, f"reads {bad[0]}, not known to be an integer"
    if _FLOATS.search(SOURCE.sub("s", code)):
        return None, "computes in floats (Python's doubles differ from exact values past 2**53)"
    for pat, repl in _CALLS:
        text = pat.sub(repl, text)
    try:
        parse_sympy(text)
    except SymguardError as e:
        return None, f"{e.code}: {e.message}"[:300]
    return text, None


def build(c: Compile) -> tuple[dict[str, Any], list[Line]]:
    """The problem of ``c``'s emitted lines (``c.emitted`` must not be None) and every line's fate."""
    assert c.emitted is not None
    names: dict[str, str] = {}
    integer: dict[str, bool] = {}
    hints: dict[str, int] = {}
    taken = {s.name for s in c.symbols}
    for s in c.symbols:
        if s.source not in names:
            names[s.source] = s.name
            integer[s.source] = s.hint is not None
            if s.hint is not None:
                hints[s.name] = s.hint
    fresh = 0
    sources = sorted({m.group(0) for g in c.emitted for m in SOURCE.finditer(g.code)})
    for src in sources:
        if src in names or not _SIZE_LIKE.search(src):
            continue  # named already, or of unknown type: its lines stay unread
        while f"src{fresh}" in taken:
            fresh += 1
        names[src] = f"src{fresh}"
        taken.add(names[src])
        integer[src] = True  # sizes, strides and storage offsets are integers
    lines = []
    used: set[str] = set()
    for i, g in enumerate(c.emitted):
        text, why = translate(g.code, names, integer)
        lines.append(Line(f"g{i}", g.code, g.origin, text, why))
        if text is not None:
            used |= {names[m.group(0)] for m in SOURCE.finditer(g.code)}
    symbols: dict[str, dict[str, int | None]] = {}
    for src, name in sorted(names.items(), key=lambda kv: kv[1]):
        if name not in used:
            continue
        entry: dict[str, int | None] = {"min": 0 if _SIZE_LIKE.search(src) else None}
        if name in hints:
            entry["hint"] = hints[name]
        symbols[name] = entry
    doc: dict[str, Any] = {
        "source": f"TORCH_TRACE {c.file} compile {c.compile_id} ({c.co_name})",
        "symbols": symbols,
        "guards": [{"id": ln.id, "expr": ln.text} for ln in lines if ln.text is not None],
        "options": dict(OPTIONS),
        "meta": {"sources": {name: src for src, name in names.items() if name in used}},
    }
    return doc, lines
