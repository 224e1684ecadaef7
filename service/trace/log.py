"""Reading a ``TORCH_TRACE`` directory: PyTorch 2.13's structured trace log, the one ``tlparse`` reads.

Each process writes ``dedicated_log_torch_trace_*.log``: one record per line, a glog prefix
(``V1126 13:52:48.307000 5597 torch/_dynamo/utils.py:2350]``) then a JSON object whose first key
names the event, plus ``frame_id``/``frame_compile_id``/``attempt`` (``compiled_autograd_id``
under compiled autograd) when it belongs to a compile; a record with ``has_payload`` is followed
by its payload, one tab-indented line each. ``{"str": [text, n]}`` interns file names that stack
frames then cite by ``n``.

What a report needs, per compile (a frame's first compile and each recompile):

- ``dynamo_start``: the user frame being compiled (the last frame of its stack);
- ``create_symbol``: each size symbol, its source (``L['x'].size()[1]``), its value while tracing
  (the hint) and its range when created;
- ``guard_added_fast``: every guard the ShapeEnv recorded while tracing (this event also fires
  for suppressed guards and runtime asserts; ``guard_added``, only under ``TORCH_DTRACE``, says
  which, by its ``prefix``);
- ``dynamo_cpp_guards_str``: the guard tree Dynamo installed; its top-level ``LAMBDA_GUARD``
  lines are the shape guards exactly as checked on every call (``produce_guards``' verbose
  Python, sources instead of symbols, ``  # `` then where each came from), and its last line the
  guard latency Dynamo measured;
- ``artifact`` named ``recompile_reasons`` (carrying the new compile's id): the guards that
  failed, hence the recompile;
- ``compilation_metrics``: the code object, compile time, failure.

A compile restarted by Dynamo (``attempt`` > 0) traced again from scratch: only the last
attempt's symbols and guards count. Lines that are not records are counted and reported, never
fatal while the file holds records at all (a process killed mid-write leaves half a line).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

_RECORD = re.compile(r"[A-Z]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ [^\]]*\] (\{.*)\Z")
_LATENCY = re.compile(r"Guard latency = ([0-9.]+) us")
_IDENTITY = re.compile(r"\bis\b")  # `G['F'] is G['torch']`: an object-identity check, never a shape guard
SHAPE_GUARD = "+- LAMBDA_GUARD: "  # a top-level (epilogue) lambda guard of the tree: the shape guards
_METRICS = ("entire_frame_compile_time_s", "backend_compile_time_s", "guard_count", "shape_env_guard_count",
            "graph_op_count", "graph_input_count", "fail_type", "fail_reason", "restart_reasons", "cache_size")


@dataclass(frozen=True)
class Record:
    """One event: its name, its JSON object, the payload text (or None), its line in the file."""

    name: str
    data: dict[str, Any]
    payload: str | None
    line: int


@dataclass(frozen=True)
class Symbol:
    """A ShapeEnv symbol as ``create_symbol`` logged it."""

    name: str
    source: str
    value: str  # repr of the traced value: "37", "2.5"
    range: str  # "[2, int_oo]" when created (before any guard narrowed it)

    @property
    def hint(self) -> int | None:
        try:
            return int(self.value)
        except ValueError:
            return None


@dataclass(frozen=True)
class EmittedGuard:
    """One shape-guard line Dynamo checks per call: the Python code and where it came from."""

    code: str
    origin: str


@dataclass
class Compile:
    """Everything the log says about one compile of one frame."""

    file: str
    frame_id: int
    frame_compile_id: int
    autograd_id: int | None = None
    file_index: int | None = None  # the file's place in a directory of several (one per process)
    attempt: int = 0
    co_name: str | None = None
    co_filename: str | None = None
    co_firstlineno: int | None = None
    symbols: list[Symbol] = field(default_factory=list)
    recorded_guards: list[str] = field(default_factory=list)  # guard_added_fast, in order
    suppressed: int | None = None  # of recorded_guards not installed (known only from guard_added)
    specializations: list[dict[str, str]] = field(default_factory=list)
    emitted: list[EmittedGuard] | None = None  # None: no guard tree was logged (a failed compile)
    identity_guards: list[EmittedGuard] = field(default_factory=list)  # top-level, but not shape guards
    guard_latency_us: float | None = None
    recompile_reasons: list[str] = field(default_factory=list)
    metrics: dict[str, Any] = field(default_factory=dict)

    @property
    def compile_id(self) -> str:
        """PyTorch's spelling: ``0/1`` (frame 0, its second compile); ``!2/0/1`` under compiled autograd."""
        base = f"{self.frame_id}/{self.frame_compile_id}"
        return base if self.autograd_id is None else f"!{self.autograd_id}/{base}"


def records(text: str) -> tuple[list[Record], int]:
    """The records of one log file's text, and how many lines were neither record nor payload."""
    out: list[Record] = []
    bad = 0
    lines = text.split("\n")
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        i += 1
        if not line:
            continue
        m = _RECORD.match(line)
        data = _json_object(m.group(1)) if m else None
        if data is None or not data:
            bad += not line.startswith("\t")  # a payload whose record was unreadable is not counted twice
            continue
        start = i
        payload: list[str] = []
        while i < n and lines[i].startswith("\t"):
            payload.append(lines[i][1:])
            i += 1
        name = next(iter(data))
        out.append(Record(name, data, "\n".join(payload) if "has_payload" in data else None, start))
    return out, bad


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        d = json.loads(text)
    except ValueError:
        return None
    return d if isinstance(d, dict) else None


def _key(data: dict[str, Any]) -> tuple[int | None, int, int] | None:
    fid, fcid = data.get("frame_id"), data.get("frame_compile_id")
    if not isinstance(fid, int) or not isinstance(fcid, int):
        return None
    ca = data.get("compiled_autograd_id")
    return (ca if isinstance(ca, int) else None, fid, fcid)


def compiles(file: str, recs: Iterable[Record], file_index: int | None = None) -> Iterator[Compile]:
    """The compiles of one file's records, in the order their first record appears."""
    strings: dict[int, str] = {}
    by_key: dict[tuple[int | None, int, int], Compile] = {}
    prefixes: dict[tuple[int | None, int, int], list[str]] = {}
    for r in recs:
        body = r.data.get(r.name)
        if r.name == "str" and isinstance(body, list) and len(body) == 2 and isinstance(body[1], int):
            strings[body[1]] = str(body[0])
            continue
        key = _key(r.data)
        if key is None:
            continue
        c = by_key.get(key)
        if c is None:
            c = by_key[key] = Compile(file, key[1], key[2], key[0], file_index)
        attempt = r.data.get("attempt")
        if isinstance(attempt, int) and attempt > c.attempt:  # Dynamo restarted: a fresh trace
            c.attempt = attempt
            c.symbols, c.recorded_guards, c.specializations = [], [], []
            prefixes.pop(key, None)
        if not isinstance(body, dict):
            body = {}
        if r.name == "dynamo_start":
            stack = body.get("stack")
            if isinstance(stack, list) and stack and isinstance(stack[-1], dict):
                top = stack[-1]
                c.co_name = c.co_name or str(top.get("name"))
                fn = top.get("filename")
                c.co_filename = c.co_filename or (strings.get(fn, str(fn)) if isinstance(fn, int) else str(fn))
                c.co_firstlineno = c.co_firstlineno or _int(top.get("line"))
        elif r.name == "create_symbol":
            c.symbols.append(Symbol(str(body.get("symbol")), str(body.get("source")), str(body.get("val")),
                                    str(body.get("vr"))))
        elif r.name == "guard_added_fast":
            c.recorded_guards.append(str(body.get("expr")))
        elif r.name == "guard_added":
            prefixes.setdefault(key, []).append(str(body.get("prefix")))
            c.suppressed = sum(p != "eval" for p in prefixes[key])
        elif r.name == "symbolic_shape_specialization":
            c.specializations.append({k: str(body.get(k)) for k in ("symbol", "value", "reason")}
                                     | {"sources": ", ".join(map(str, body.get("sources") or []))})
        elif r.name == "dynamo_cpp_guards_str" and r.payload is not None:
            c.emitted, c.identity_guards, c.guard_latency_us = shape_guards(r.payload)
        elif r.name == "artifact" and body.get("name") == "recompile_reasons" and r.payload is not None:
            c.recompile_reasons = _reasons(r.payload)
        elif r.name == "compilation_metrics":
            c.co_name = body.get("co_name") or c.co_name
            c.co_filename = body.get("co_filename") or c.co_filename
            c.co_firstlineno = _int(body.get("co_firstlineno")) or c.co_firstlineno
            c.metrics = {k: body[k] for k in _METRICS if body.get(k) not in (None, [], "")}
    yield from by_key.values()


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def shape_guards(tree: str) -> tuple[list[EmittedGuard], list[EmittedGuard], float | None]:
    """The shape-guard lines of a ``dynamo_cpp_guards_str`` payload, the other top-level lambda
    guards (object identity checks Dynamo also puts last), and the measured latency."""
    out: list[EmittedGuard] = []
    other: list[EmittedGuard] = []
    latency = None
    for line in tree.split("\n"):
        if line.startswith(SHAPE_GUARD):
            code, _, origin = line[len(SHAPE_GUARD):].partition("  # ")
            g = EmittedGuard(code.strip(), origin.strip())
            (other if _IDENTITY.search(g.code) else out).append(g)
        elif m := _LATENCY.search(line):
            latency = float(m.group(1))
    return out, other, latency


def _reasons(payload: str) -> list[str]:
    """``recompile_reasons`` is one string, or a JSON list of them (one per cache entry tried)."""
    try:
        got = json.loads(payload)
    except ValueError:
        return [payload.strip()]
    if isinstance(got, list):
        return [str(x) for x in got]
    return [str(got)]
