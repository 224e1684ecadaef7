"""A solver worker process: ``python -m symguard.service.runtime.child [--runner MODULE:NAME]``.

It owns z3/pysmt (never imported by the server process). Frames (``protocol``) arrive on stdin
and leave on the original stdout; stdout is then pointed at stderr so a stray ``print`` can
never corrupt the channel. SIGINT is ignored: Ctrl-C is for the parent, which stops its workers
in order (a batch's output file stays valid, a server drains its requests). A worker whose parent
dies without stopping it exits by itself (``lifeline``).

Reading runs here, not in the parent: ``prepare`` costs 4–90 ms of Python per corpus problem
(tokenizing, hash-consing, colour refinement), which would stall a server's event loop. The
``fallback`` sent with the key is the caller's sound ``unknown``/``timeout`` answer, ready in
case the server answers at its deadline (``deadline``) or has to kill this process for
overrunning its budget. A task carries the milliseconds its request already spent in the
server: the library's clock starts that much in the past, so the whole call keeps one deadline.

With ``--runner`` (``symguard batch`` given a runner other than ``solver.run``, e.g. a test's),
the problem is handed to that function instead of the cache-aware path.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
import time
from collections.abc import Callable
from typing import IO, Any

from . import lifeline
from .deadline import cap_timeout, timeout_of
from .protocol import read_frame, write_frame

Runner = Callable[[str, dict[str, Any]], dict[str, Any]]


def _read(source: tuple[str, Any]) -> Any:
    from ..documents import loads, read_problem

    kind, value = source
    return read_problem(value) if kind == "path" else loads(value)


def _error(wout: IO[bytes], e: BaseException) -> None:
    from ..errors import error_body, http_status

    write_frame(wout, ("error", error_body(e), http_status(e)))


def handle(msg: tuple[Any, ...], rin: IO[bytes], wout: IO[bytes], runner: Runner | None = None) -> None:
    """Answer one task (see ``protocol``); every exception becomes a §5 error frame."""
    from symguard.solver import OPS, api
    from symguard.solver.errors import InvalidProblemError

    _, op, source, cap_ms, spent_ms = msg
    # timeout_ms bounds the whole task, reading included (docs/problem-format.md §2), and over HTTP
    # it counts from the request's arrival at the server: spent_ms is what went before (deadline.Clock)
    started = time.monotonic() - (spent_ms or 0) / 1000
    try:
        if op not in OPS:
            raise InvalidProblemError(f"unknown operation {op!a} (expected one of {', '.join(OPS)})", where="op")
        doc = _read(source)
        extra = cap_timeout(doc, cap_ms)
        if runner is not None:
            _run_custom(op, doc, runner, wout)
            return
        problem, canon = api.prepare(doc, started=started)  # reading counts against timeout_ms too
        fallback = api.finish(op, api.unknown(op, canon.problem), problem, canon, cached=False, elapsed_ms=0)
        fallback["warnings"] += extra
    except Exception as e:  # noqa: BLE001 - becomes the caller's §5 body, never a traceback
        _error(wout, e)
        return
    write_frame(wout, ("start", canon.key, canon.problem.options.timeout_ms, fallback))
    reply = read_frame(rin)
    if reply[0] == "drop":  # the server answered the caller at its deadline: nobody waits for this
        return
    rejected = False
    out: dict[str, Any] | None = None
    fresh = None
    try:
        if reply[0] == "cached":
            try:  # a cached entry is data, not truth: checked, else computed afresh
                api.check_cached(op, canon.problem, reply[1])
                out = api.finish(op, reply[1], problem, canon, cached=True, elapsed_ms=0)
            except Exception:  # noqa: BLE001 - any fault in a cached entry: compute instead
                rejected = True
        if out is None:
            res = api.compute(op, canon.problem, started=started)
            fresh = res if api.is_final(op, res) else None
            out = api.finish(op, res, problem, canon, cached=False, elapsed_ms=0)
        out["warnings"] += extra
    except Exception as e:  # noqa: BLE001
        _error(wout, e)
        return
    write_frame(wout, ("done", out, fresh, rejected))


def _run_custom(op: str, doc: Any, runner: Runner, wout: IO[bytes]) -> None:
    from symguard.solver import api

    try:  # the sound unknown answer, when the document is a plain problem
        problem, canon = api.prepare(doc)
        fallback: dict[str, Any] | None = api.finish(op, api.unknown(op, canon.problem), problem, canon,
                                                     cached=False, elapsed_ms=0)
    except Exception:  # noqa: BLE001 - the runner reads the document its own way
        fallback = None
    write_frame(wout, ("start", None, timeout_of(doc), fallback))
    try:
        out = runner(op, doc)
    except Exception as e:  # noqa: BLE001
        _error(wout, e)
        return
    write_frame(wout, ("done", out, None, False))


def _load_runner(ref: str) -> Runner:
    module, _, name = ref.partition(":")
    obj: Any = importlib.import_module(module)
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> None:
    """Serve tasks until the pool closes stdin or sends ``None``."""
    args = sys.argv[1:] if argv is None else argv
    lifeline.init_worker()  # Ctrl-C is the parent's (it stops us in order); we die with the parent
    wout = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # print() now goes to stderr
    sys.stdout = sys.stderr
    rin = sys.stdin.buffer
    runner = _load_runner(args[args.index("--runner") + 1]) if "--runner" in args else None
    importlib.import_module("symguard.solver.api")  # pay the imports before "ready", every
    importlib.import_module("symguard.solver.ops").load_all()  # operation's (loaded on first use)
    # what the imports built lives as long as the process: out of the collector's sight, so a full
    # collection in the middle of a request scans only what requests made (pauses of 45-250 ms
    # were measured in long runs, charged to whichever request was running)
    gc.freeze()

    write_frame(wout, ("ready", os.getpid()))
    while True:
        try:
            msg = read_frame(rin)
        except (EOFError, OSError, KeyboardInterrupt):
            return
        if msg is None:
            return
        handle(msg, rin, wout, runner)


if __name__ == "__main__":
    main()
