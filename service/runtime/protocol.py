"""Frames between the pool and a worker: ``8-byte big-endian length + pickle``.

One task, as the pool sees it::

    pool   → ("task", op, source, cap_ms, spent_ms)   source: ("body", bytes) or ("path", str);
                                                  cap_ms: the server's timeout cap, or None;
                                                  spent_ms: what the request already spent of its
                                                  deadline (deadline.Clock), or None: start now
    worker → ("start", key, timeout_ms, fallback)  the problem is read. fallback: the caller's
                                                  sound unknown answer (None when a custom
                                                  runner reads the problem)
             or ("error", §5 body, http status)   bad input or a failure, never a traceback
    pool   → ("cached", canonical, layer) | ("compute",) | ("drop",)    only when key is not None;
                                                  drop: the caller was answered at the deadline,
                                                  the worker answers nothing and takes the next task
    worker → ("done", caller_result, fresh_final_canonical_or_None, rejected_cache_entry)
             or ("error", §5 body, http status)

``None`` in place of a task stops the worker.
"""

from __future__ import annotations

import asyncio
import pickle
import struct
from typing import IO, Any

HEADER = struct.Struct(">Q")
MAX_FRAME = 1 << 31  # a length past this is a corrupt stream, not a message


def encode(obj: Any) -> bytes:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(data)) + data


def write_frame(stream: IO[bytes], obj: Any) -> None:
    stream.write(encode(obj))
    stream.flush()


def read_frame(stream: IO[bytes]) -> Any:
    head = stream.read(HEADER.size)
    if len(head) < HEADER.size:
        raise EOFError
    (n,) = HEADER.unpack(head)
    data = stream.read(n)
    if len(data) < n:
        raise EOFError
    return pickle.loads(data)


async def read_frame_async(stream: asyncio.StreamReader) -> Any:
    (n,) = HEADER.unpack(await stream.readexactly(HEADER.size))
    if n > MAX_FRAME:
        raise EOFError(f"frame of {n} bytes")
    return pickle.loads(await stream.readexactly(n))
