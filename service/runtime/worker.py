"""One worker process as the pool sees it: a ``child`` behind its stdin/stdout pipes, read with
asyncio streams (the event loop never blocks on a worker), and what its death looks like.

Broken pipes, OS errors, truncated streams and unreadable frames (``FOREIGN``) mean "the worker
died" (``Died``), nothing else; ``pool`` turns a death into a retry or ``WorkerCrashed``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pickle
import sys
from collections.abc import Sequence
from typing import Any

from .protocol import encode, read_frame_async

DEFAULT_ARGV: tuple[str, ...] = (sys.executable, "-m", "symguard.service.runtime.child")
# what a dead pipe or a dead process looks like from here
FOREIGN = (EOFError, OSError, asyncio.IncompleteReadError, pickle.UnpicklingError, ValueError)


class Died(Exception):
    """The worker died during a task; ``fallback`` is its sound unknown answer, once it had read the problem."""

    def __init__(self, exitcode: int | None, fallback: dict[str, Any] | None) -> None:
        super().__init__(exitcode)
        self.exitcode = exitcode
        self.fallback = fallback


class Worker:
    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.tasks = 0
        self.busy = False
        self.gone = False  # killed, retired or dead: never goes back to the idle queue

    @property
    def alive(self) -> bool:
        return self.proc.returncode is None

    async def send(self, obj: Any) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(encode(obj))
        await self.proc.stdin.drain()

    async def recv(self) -> Any:
        assert self.proc.stdout is not None
        return await read_frame_async(self.proc.stdout)

    async def kill(self) -> int | None:
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        return await self.proc.wait()

    async def stop(self, timeout: float = 2.0) -> None:
        with contextlib.suppress(Exception):
            await self.send(None)
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        try:
            await asyncio.wait_for(self.proc.wait(), timeout)
        except asyncio.TimeoutError:
            await self.kill()


def child_env(extra_path: Sequence[str] = ()) -> dict[str, str]:
    """The environment of a worker that must import what this process imports (a test's runner)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*extra_path, *(p for p in sys.path if p)])
    return env
