"""The solver worker process: ``python -m service.worker_proc``, one per pool slot.

It owns z3/pysmt (their global context never exists in the server process). Frames are
``8-byte length + pickle`` on stdin (from the server) and on the original stdout; stdout is then
pointed at stderr so a stray ``print`` can never corrupt the channel.

One task, as the server sees it::

    server → ("task", op, body_bytes, timeout_cap_ms)
    worker → ("key", key, timeout_ms, fallback)      after parsing + canonicalizing (prepare)
             or ("error", §5 body)                   bad input, never a traceback
    server → ("cached", canonical_result) | ("compute",)
    worker → ("done", caller_result, canonical_result_if_final_and_fresh)

``prepare`` runs here, not on the event loop: reading a corpus problem costs 4–90 ms of Python
(tokenizing, hash-consing, colour refinement), which would stall every other request. The
``fallback`` is the caller's ``unknown``/``timeout`` answer, ready in case the server has to kill
this process for overrunning its budget.
"""

from __future__ import annotations

import json
import os
import pickle
import signal
import struct
import sys
from typing import IO, Any

_HEADER = struct.Struct(">Q")


def write_frame(stream: IO[bytes], obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def read_frame(stream: IO[bytes]) -> Any:
    head = stream.read(_HEADER.size)
    if len(head) < _HEADER.size:
        raise EOFError
    (n,) = _HEADER.unpack(head)
    data = stream.read(n)
    if len(data) < n:
        raise EOFError
    return pickle.loads(data)


def _decode(body: bytes) -> Any:
    from solver.errors import InvalidProblemError, TooLargeError

    try:
        return json.loads(body)
    except RecursionError:
        raise TooLargeError("the JSON document is nested too deeply", where="$") from None
    except UnicodeDecodeError:
        raise InvalidProblemError("the body is not UTF-8 text", where="$") from None
    except json.JSONDecodeError as e:
        raise InvalidProblemError(f"invalid JSON: {e.msg} (line {e.lineno}, column {e.colno})",
                                  where="$", offset=e.pos) from None


def _cap_timeout(doc: Any, cap_ms: int) -> list[str]:
    """Lower ``options.timeout_ms`` to the server's cap (an invalid value is left to the validator)."""
    opts = doc.get("options") if isinstance(doc, dict) else None
    if not isinstance(opts, dict):
        return []
    t = opts.get("timeout_ms")
    if isinstance(t, int) and not isinstance(t, bool) and t > cap_ms:
        opts["timeout_ms"] = cap_ms
        return [f"options.timeout_ms {t} was capped at {cap_ms} by the server"]
    return []


def handle(msg: tuple[Any, ...], rin: IO[bytes], wout: IO[bytes]) -> None:
    """Answer one task (see the module docstring); every exception becomes a §5 error frame."""
    from solver import OPS, api
    from solver.errors import InvalidProblemError

    from .errors import error_body, http_status

    _, op, body, cap_ms = msg
    try:
        if op not in OPS:
            raise InvalidProblemError(f"unknown operation {op!r} (expected one of {', '.join(OPS)})",
                                      where="op")
        doc = _decode(body)
        extra = _cap_timeout(doc, cap_ms)
        problem, canon = api.prepare(doc)
        fallback = api.finish(op, api.unknown(op, canon.problem), problem, canon, cached=False, elapsed_ms=0)
        fallback["warnings"] += extra
    except Exception as e:  # noqa: BLE001 - becomes the caller's §5 body, never a traceback
        write_frame(wout, ("error", error_body(e), http_status(e)))
        return
    write_frame(wout, ("key", canon.key, canon.problem.options.timeout_ms, fallback))
    reply = read_frame(rin)
    try:
        if reply[0] == "cached":
            res, fresh = reply[1], None
        else:
            res = api.compute(op, canon.problem)
            fresh = res if api.is_final(op, res) else None
        out = api.finish(op, res, problem, canon, cached=reply[0] == "cached", elapsed_ms=0)
        out["warnings"] += extra
    except Exception as e:  # noqa: BLE001
        write_frame(wout, ("error", error_body(e), http_status(e)))
        return
    write_frame(wout, ("done", out, fresh))


def main() -> None:
    """Serve tasks until the server closes stdin or sends ``None``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's: it drains, then stops us
    wout = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # print() now goes to stderr
    sys.stdout = sys.stderr
    rin = sys.stdin.buffer
    import importlib

    for mod in ("solver.api", "solver.ops.solve", "solver.ops.redundancy"):  # pay the imports before "ready"
        importlib.import_module(mod)

    write_frame(wout, ("ready", os.getpid()))
    while True:
        try:
            msg = read_frame(rin)
        except (EOFError, OSError, KeyboardInterrupt):
            return
        if msg is None:
            return
        handle(msg, rin, wout)


if __name__ == "__main__":
    main()
