"""A pool of solver worker processes driven from the event loop (z3 never runs in the server).

Each worker (``service.worker_proc``) answers one task at a time over its stdin/stdout pipes,
read with asyncio streams, so the event loop never blocks on a worker. The pool keeps the
promises of the service:

- **budget enforced from outside**: once a worker has read a problem it has ``timeout_ms`` plus
  ``grace_ms``; past that it is killed, replaced, and the request gets the ``unknown``/``timeout``
  answer the worker prepared in advance (a valid result in the caller's names);
- **bounded queue**: with no idle worker and ``queue_size`` requests already waiting, ``acquire``
  raises ``Overloaded`` (503 with Retry-After);
- **recycling**: a worker is retired after ``recycle_after`` tasks (pysmt's formula tables only
  grow in a long-lived process);
- **graceful shutdown**: ``close`` waits for the tasks in flight, then stops the idle workers.

Restarts are counted by reason in the metrics.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import pickle
import struct
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from solver.errors import InternalError, TooLargeError

from .errors import Overloaded, error_from_body
from .metrics import Metrics
from .settings import Settings

log = logging.getLogger("symguard.workers")
_HEADER = struct.Struct(">Q")
Lookup = Callable[[str, str], Awaitable[tuple[str, dict[str, Any]] | None]]  # -> (layer, canonical result)
DEFAULT_ARGV = (sys.executable, "-m", "service.worker_proc")


@dataclass(frozen=True)
class Done:
    """A finished task: the caller's result and, when fresh and final, the canonical one to cache."""

    result: dict[str, Any]
    fresh: dict[str, Any] | None
    key: str
    layer: str | None  # "local"/"redis" when a cache answered, None when computed or timed out


class _Worker:
    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.tasks = 0
        self.lost = False  # killed mid-task: never goes back to the idle queue

    async def send(self, obj: Any) -> None:
        assert self.proc.stdin is not None
        data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        self.proc.stdin.write(_HEADER.pack(len(data)) + data)
        await self.proc.stdin.drain()

    async def recv(self) -> Any:
        assert self.proc.stdout is not None
        (n,) = _HEADER.unpack(await self.proc.stdout.readexactly(_HEADER.size))
        return pickle.loads(await self.proc.stdout.readexactly(n))

    async def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        await self.proc.wait()

    async def stop(self, timeout: float = 2.0) -> None:
        with contextlib.suppress(Exception):
            await self.send(None)
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        try:
            await asyncio.wait_for(self.proc.wait(), timeout)
        except asyncio.TimeoutError:
            await self.kill()


class WorkerPool:
    """``settings.workers`` worker processes behind a bounded waiting line."""

    def __init__(self, settings: Settings, metrics: Metrics, *, argv: Sequence[str] = DEFAULT_ARGV) -> None:
        self._s = settings
        self._m = metrics
        self._argv = tuple(argv)
        self._idle: asyncio.Queue[_Worker] = asyncio.Queue()
        self._all: set[_Worker] = set()
        self._waiting = 0
        self._busy = 0
        self._closing = False
        self._spawns: set[asyncio.Task[None]] = set()
        self._drained = asyncio.Event()
        self._drained.set()

    # -------------------------------------------------------------- lifecycle
    async def start(self) -> None:
        """Start every worker and wait until each has imported the solver."""
        await asyncio.gather(*(self._spawn() for _ in range(self._s.workers)))

    async def _spawn(self) -> None:
        while not self._closing:
            proc = await asyncio.create_subprocess_exec(
                *self._argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=2**20)
            w = _Worker(proc)
            try:
                msg = await asyncio.wait_for(w.recv(), self._s.boot_limit_s)
                if msg[0] != "ready":
                    raise RuntimeError(f"unexpected first message {msg[0]!r}")
            except Exception as e:  # noqa: BLE001 - a broken boot is retried, the server stays up
                log.error("worker failed to start: %r", e)
                self._m.worker_restarts.labels("boot").inc()
                await w.kill()
                await asyncio.sleep(1.0)
                continue
            if self._closing:
                await w.stop()
                return
            self._all.add(w)
            self._idle.put_nowait(w)
            return

    def _replace(self, w: _Worker, reason: str) -> None:
        self._all.discard(w)
        self._m.worker_restarts.labels(reason).inc()
        if not self._closing:
            t = asyncio.get_running_loop().create_task(self._spawn())
            self._spawns.add(t)
            t.add_done_callback(self._spawns.discard)

    def size(self) -> int:
        """Workers alive (idle or busy); replacements still booting are not counted."""
        return len(self._all)

    def check_capacity(self) -> None:
        """Raise ``Overloaded`` when a new request would have to wait past the queue bound."""
        if self._closing:
            raise Overloaded("the server is shutting down", retry_after_s=self._s.retry_after_s)
        if self._idle.empty() and self._waiting >= self._s.queue_size:
            self._m.overloaded.inc()
            raise Overloaded(f"all {self._s.workers} workers are busy and {self._waiting} requests are "
                             "waiting; retry later", retry_after_s=self._s.retry_after_s)

    def ready(self) -> bool:
        return not self._closing and bool(self._all)

    async def close(self, timeout: float = 60.0) -> None:
        """Graceful: tasks in flight finish (up to ``timeout``), then every worker stops."""
        self._closing = True
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._drained.wait(), timeout)
        for t in list(self._spawns):
            t.cancel()
        await asyncio.gather(*(w.stop() for w in list(self._all)), return_exceptions=True)
        self._all.clear()

    # -------------------------------------------------------------- one task
    async def _acquire(self, bounded: bool) -> _Worker:
        if bounded:
            self.check_capacity()
        elif self._closing:
            raise Overloaded("the server is shutting down", retry_after_s=self._s.retry_after_s)
        self._waiting += 1
        self._m.queue_depth.inc()
        try:
            w = await self._idle.get()
        finally:
            self._waiting -= 1
            self._m.queue_depth.dec()
        self._busy += 1
        self._drained.clear()
        self._m.workers_busy.inc()
        return w

    def _release(self, w: _Worker | None) -> None:
        self._busy -= 1
        self._m.workers_busy.dec()
        if self._busy == 0:
            self._drained.set()
        if w is None:
            return
        w.tasks += 1
        if w.tasks >= self._s.recycle_after:
            self._all.discard(w)
            asyncio.get_running_loop().create_task(w.stop())
            self._replace(w, "recycle")
        else:
            self._idle.put_nowait(w)

    async def run(self, op: str, body: bytes, lookup: Lookup, *, bounded: bool = True) -> Done:
        """Answer ``op`` on a JSON body in a worker; ``lookup(op, key)`` consults the caches."""
        w = await self._acquire(bounded)
        try:
            return await self._task(w, op, body, lookup)
        except asyncio.CancelledError:  # mid-conversation: the worker's state is unknown, replace it
            if not w.lost:
                w.lost = True
                with contextlib.suppress(ProcessLookupError):
                    w.proc.kill()
                self._replace(w, "cancelled")
            raise
        finally:
            self._release(None if w.lost else w)

    async def _task(self, w: _Worker, op: str, body: bytes, lookup: Lookup) -> Done:
        try:
            await w.send(("task", op, body, self._s.max_timeout_ms))
            msg = await asyncio.wait_for(w.recv(), self._s.prepare_limit_ms / 1000)
        except asyncio.TimeoutError:
            await self._lost(w, "timeout")
            raise TooLargeError(f"the problem took more than {self._s.prepare_limit_ms} ms to read; "
                                "split it or simplify its expressions") from None
        except (EOFError, OSError, asyncio.IncompleteReadError):
            await self._lost(w, "crash")
            raise InternalError("the worker died while reading this problem; please report it") from None
        if msg[0] == "error":
            raise error_from_body(msg[1], status=msg[2])
        _, key, timeout_ms, fallback = msg
        try:
            cached = await lookup(op, key)
        except Exception:  # noqa: BLE001 - a cache fault must not cost the answer
            cached = None
        t0 = time.monotonic()
        try:
            await w.send(("cached", cached[1]) if cached else ("compute",))
            limit = (timeout_ms + self._s.grace_ms) / 1000
            reply = await asyncio.wait_for(w.recv(), max(0.0, limit - (time.monotonic() - t0)))
        except asyncio.TimeoutError:
            await self._lost(w, "timeout")
            return Done(fallback, None, key, None)
        except (EOFError, OSError, asyncio.IncompleteReadError):
            # killed from outside (OOM killer, an operator) or crashed mid-solve: the sound answer
            # is still unknown (issue 7: a fault costs one answer, never a 500 or the server)
            await self._lost(w, "crash")
            note = "the worker solving this problem died; answered unknown (retrying may succeed)"
            died = {**fallback, "reason": "resource", "warnings": [*fallback.get("warnings", ()), note]}
            return Done(died, None, key, None)
        if reply[0] == "error":
            raise error_from_body(reply[1], status=reply[2])
        return Done(reply[1], reply[2], key, cached[0] if cached else None)

    async def _lost(self, w: _Worker, reason: str) -> None:
        w.lost = True
        await w.kill()
        self._replace(w, reason)

