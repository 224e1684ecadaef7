"""A pool of worker processes (``child``) driven from an asyncio event loop.

Each worker answers one task at a time over its stdin/stdout pipes, read with asyncio streams, so
the loop never blocks on a worker. The rules, the same for the server and for ``batch``:

- **the deadline kept by the server** (a request with a ``deadline.Clock``): at the cut the
  caller gets the sound timeout answer whatever the worker is doing, and the task ends in the
  background (``run``, ``cut.Cutter``);
- **budget enforced from outside**: a task has ``timeout_ms`` plus ``grace_ms`` (from the
  request's arrival, or from dispatch without a clock); past that its worker is killed, replaced,
  and the task gets the operation's sound ``unknown`` answer (reason ``timeout``) the worker
  prepared in advance;
- **no request lost to a dead worker**: an idle worker that dies is noticed (and replaced) at
  once and never handed a task; a worker that dies during a task (killed from outside, OOM,
  a crash) is replaced and the task runs again once on another worker. A second death is
  ``WorkerCrashed`` (carrying the ready ``unknown`` answer when the problem was read);
- **bounded waiting line**: with no idle worker and ``queue_size`` tasks waiting, ``run`` raises
  ``Overloaded`` (503 with Retry-After);
- **recycling** after ``recycle_after`` tasks (pysmt's tables only grow in a long-lived process);
- **graceful close**: tasks in flight finish, then idle workers stop;
- **cancellation**: a task whose caller goes away (a client that hung up) kills its worker.

This module is where the runtime's foreign exceptions become symguard errors: broken pipes, OS
errors, truncated streams and unreadable frames mean "the worker died" (``worker.Died``), nothing
else; a second death is ``WorkerCrashed``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from symguard.solver.errors import InternalError, TooLargeError

from ..errors import Overloaded, error_from_body
from ..metrics import Metrics
from .cut import Ahead, Cutter, Turn
from .deadline import UNREAD_ON_LOOP_BYTES, Clock, Lag, unread_answer, unread_answer_now
from .worker import DEFAULT_ARGV, FOREIGN, Died, Worker, child_env

__all__ = ["DEFAULT_ARGV", "Done", "Limits", "WorkerCrashed", "WorkerPool", "child_env"]
log = logging.getLogger("symguard.runtime")
Lookup = Callable[[str, str], Awaitable[tuple[str, dict[str, Any]] | None]]  # -> (layer, canonical result)


@dataclass(frozen=True)
class Limits:
    """The pool's knobs (the server builds them from ``Settings``, batch from its arguments)."""

    workers: int = 2
    queue_size: int = 64
    retry_after_s: int = 1
    recycle_after: int = 500
    grace_ms: int = 2000
    prepare_limit_ms: int = 30_000
    max_timeout_ms: int | None = None  # the server's cap on options.timeout_ms
    worker_nice: int = 0  # workers run this much below this process's priority (deadline.WORKER_NICE)
    boot_limit_s: float = 120.0


@dataclass(frozen=True)
class Done:
    """A finished task: the caller's result and, when fresh and final, the canonical one to cache."""

    result: dict[str, Any]
    fresh: dict[str, Any] | None
    key: str | None
    layer: str | None  # "local"/"redis"/"coalesced" when a cache answered, None when computed or timed out
    rejected: bool = False  # a cached entry failed its check and was computed afresh


class WorkerCrashed(InternalError):
    """The task's worker died twice. ``fallback`` is the sound unknown answer, when it was read."""

    def __init__(self, message: str, *, exitcode: int | None, fallback: dict[str, Any] | None) -> None:
        super().__init__(message)
        self.exitcode = exitcode
        self.fallback = fallback


@dataclass
class _Turn(Turn):
    """``cut.Turn`` with what the pool's timeout answer needs: the worker held (None in line),
    the problem's key and the worker's ready ``unknown`` once it has read the problem."""

    worker: Worker | None = None
    key: str | None = None
    fallback: dict[str, Any] | None = None


class WorkerPool:
    """``limits.workers`` worker processes behind a bounded waiting line."""

    def __init__(self, limits: Limits, metrics: Metrics, *, argv: Sequence[str] = DEFAULT_ARGV,
                 env: dict[str, str] | None = None, cutter: Cutter | None = None) -> None:
        self._lim = limits
        self._m = metrics
        self._argv = tuple(argv)
        self._env = env
        self._idle: asyncio.Queue[Worker] = asyncio.Queue()
        self._all: set[Worker] = set()
        self._waiting = 0
        self._busy = 0
        self._closing = False
        self._tasks: set[asyncio.Task[Any]] = set()
        self._drained = asyncio.Event()
        self._drained.set()
        self.cutter = cutter or Cutter(metrics)  # keeps the deadline of a request with a clock

    @property
    def lag(self) -> Lag:
        """How late this server's own deadline answers have come lately (``cut.Cutter``)."""
        return self.cutter.lag

    # -------------------------------------------------------------- lifecycle
    async def start(self) -> None:
        """Start every worker and wait until each has imported the solver."""
        await asyncio.gather(*(self._spawn() for _ in range(self._lim.workers)))

    async def _spawn(self) -> None:
        while not self._closing:
            proc = await asyncio.create_subprocess_exec(
                *self._argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=2**20,
                env=self._env)
            w = Worker(proc)
            if self._lim.worker_nice:
                with contextlib.suppress(OSError):  # lowering a child's priority needs no privilege
                    os.setpriority(os.PRIO_PROCESS, proc.pid, os.getpriority(os.PRIO_PROCESS, 0) + self._lim.worker_nice)
            try:
                msg = await asyncio.wait_for(w.recv(), self._lim.boot_limit_s)
                if msg[0] != "ready":
                    raise RuntimeError(f"unexpected first message {msg[0]!r}")
            except (asyncio.TimeoutError, RuntimeError, *FOREIGN) as e:  # retried; the server stays up
                log.error("worker failed to start: %r", e)
                self._m.worker_restarts.labels("boot").inc()
                await w.kill()
                await asyncio.sleep(1.0)
                continue
            except BaseException:  # cancelled while it boots (the pool is closing): it must not outlive us
                await w.kill()
                raise
            if self._closing:
                await w.stop()
                return
            self._all.add(w)
            self._background(self._watch(w))
            self._idle.put_nowait(w)
            return

    async def _watch(self, w: Worker) -> None:
        """An idle worker that dies (killed from outside) is replaced at once."""
        await w.proc.wait()
        if not w.gone and not w.busy:
            w.gone = True
            self._replace(w, "crash")

    def _background(self, coro: Any) -> None:
        t = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(t)
        t.add_done_callback(self._tasks.discard)

    def _replace(self, w: Worker, reason: str) -> None:
        self._all.discard(w)
        self._m.worker_restarts.labels(reason).inc()
        if not self._closing:
            self._background(self._spawn())

    def size(self) -> int:
        """Workers alive (idle or busy); replacements still booting are not counted."""
        return len(self._all)

    def idle(self) -> int:
        return self._idle.qsize()

    def check_capacity(self) -> None:
        """Raise ``Overloaded`` when a new request would have to wait past the queue bound."""
        if self._closing:
            raise Overloaded("the server is shutting down", retry_after_s=self._lim.retry_after_s)
        if self._idle.empty() and self._waiting >= self._lim.queue_size:
            self._m.overloaded.inc()
            raise Overloaded(f"all {self._lim.workers} workers are busy and {self._waiting} requests are "
                             "waiting; retry later", retry_after_s=self._lim.retry_after_s)

    @property
    def max_timeout_ms(self) -> int | None:
        """The server's cap on ``options.timeout_ms`` (None: no cap)."""
        return self._lim.max_timeout_ms

    def ready(self) -> bool:
        return not self._closing and bool(self._all)

    async def close(self, timeout: float = 60.0) -> None:
        """Graceful: tasks in flight finish (up to ``timeout``), then every worker stops."""
        self._closing = True
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._drained.wait(), timeout)
        tasks = list(self._tasks)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)  # a replacement cancelled mid-boot kills its process
        for w in self._all:
            w.gone = True
        await asyncio.gather(*(w.stop() for w in list(self._all)), return_exceptions=True)
        self._all.clear()

    # -------------------------------------------------------------- one task
    async def _acquire(self, bounded: bool) -> Worker:
        if bounded:
            self.check_capacity()
        elif self._closing:
            raise Overloaded("the server is shutting down", retry_after_s=self._lim.retry_after_s)
        self._waiting += 1
        self._m.queue_depth.inc()
        try:
            while True:
                w = await self._idle.get()
                if w.alive and not w.gone:
                    break
                if not w.gone:  # died while idle, and its watcher has not run yet
                    w.gone = True
                    self._replace(w, "crash")
        finally:
            self._waiting -= 1
            self._m.queue_depth.dec()
        w.busy = True
        self._busy += 1
        self._drained.clear()
        self._m.workers_busy.inc()
        return w

    def _release(self, w: Worker) -> None:
        w.busy = False
        self._busy -= 1
        self._m.workers_busy.dec()
        if self._busy == 0:
            self._drained.set()
        if w.gone:
            return
        if not w.alive:  # died just as it answered
            w.gone = True
            self._replace(w, "crash")
            return
        w.tasks += 1
        if w.tasks >= self._lim.recycle_after:
            w.gone = True
            self._all.discard(w)
            self._background(w.stop())
            self._replace(w, "recycle")
        else:
            self._idle.put_nowait(w)

    async def run(self, op: str, source: tuple[str, Any], lookup: Lookup | None = None, *,
                  bounded: bool = True, clock: Clock | None = None, gate: asyncio.Semaphore | None = None) -> Done:
        """Answer ``op`` on ``source`` (``("body", bytes)`` or ``("path", str)``) in a worker;
        ``lookup(op, key)`` consults the caches. A worker death costs one retry, not the answer.
        ``gate`` (a ``/v1/batch``'s): held while the task waits for and holds its worker.

        With a ``clock`` (a request body over HTTP) the answer comes by ``clock.cut`` whatever the
        workers do (``cut.Cutter``): past it, a request still waiting in line leaves the line, one
        whose worker has not read it (or that comes too late for a worker to start) gets
        ``deadline.unread_answer`` (built in a thread ahead of the cut when no worker has read the
        problem ``deadline.UNREAD_LEAD_MS`` before it, else at the cut, on the event loop for a
        small body: ``cut.Ahead``), one whose worker is
        solving gets the worker's ready ``unknown``; the worker finishes in the background (dropping the task when
        it has not started solving) and goes back to the pool, or is killed at ``timeout_ms`` +
        ``grace_ms`` as always."""
        turn = _Turn()
        if clock is None:
            return await self._attempts(op, source, lookup, bounded, None, turn, gate)
        # the unread answer, built ahead of the cut if no worker has read the problem by then (cut.Ahead)
        body, cap = source[1], self._lim.max_timeout_ms
        ahead = Ahead(clock, lambda: asyncio.to_thread(unread_answer, op, body, cap), lambda: turn.fallback is None,
                      now=(lambda: unread_answer_now(op, body, cap)) if len(body) <= UNREAD_ON_LOOP_BYTES else None)

        async def late(stage: str) -> Done:
            if turn.fallback is not None:  # read by a worker: its ready unknown
                return Done(turn.fallback, None, turn.key, None)
            out = await ahead.result()
            if stage == "arrival":
                out["warnings"].append("the deadline passed before the request could reach a worker")
            elif stage == "queued":
                out["warnings"].append("the deadline passed while the request waited for a worker " + (
                    f"(all {self._lim.workers} busy, or held by earlier items of its batch)" if gate is not None
                    else f"(all {self._lim.workers} busy)"))
            return Done(out, None, None, None)

        try:
            return await self.cutter.keep(clock, turn, lambda: self._attempts(op, source, lookup, bounded, clock, turn,
                                                                              gate), late, self._background)
        finally:
            ahead.cancel()

    async def _attempts(self, op: str, source: tuple[str, Any], lookup: Lookup | None, bounded: bool,
                        clock: Clock | None, turn: _Turn, gate: asyncio.Semaphore | None) -> Done:
        async with gate if gate is not None else contextlib.nullcontext():
            for attempt in (1, 2):
                w = await self._acquire(bounded and attempt == 1)
                turn.worker, turn.stage = w, "reading" if turn.fallback is None else "solving"
                try:
                    return await self._task(w, op, source, lookup, clock, turn)
                except Died as d:
                    if attempt == 2 or turn.cut:  # after the cut nobody waits for a retry
                        raise WorkerCrashed(f"the worker died (exit code {d.exitcode}) while answering this "
                                            "input, twice", exitcode=d.exitcode, fallback=d.fallback) from None
                    log.warning("worker died (exit code %s) during a %s task; retrying it once", d.exitcode, op)
                except asyncio.CancelledError:  # mid-conversation: the worker's state is unknown, replace it
                    if not w.gone:
                        w.gone = True
                        with contextlib.suppress(ProcessLookupError):
                            w.proc.kill()
                        self._replace(w, "cancelled")
                    raise
                finally:
                    turn.worker, turn.stage = None, "queued"
                    self._release(w)
        raise AssertionError("unreachable")

    async def _task(self, w: Worker, op: str, source: tuple[str, Any], lookup: Lookup | None,
                    clock: Clock | None, turn: _Turn) -> Done:
        t_read = time.monotonic()
        try:
            await w.send(("task", op, source, self._lim.max_timeout_ms, None if clock is None else clock.spent_ms()))
            msg = await asyncio.wait_for(w.recv(), self._lim.prepare_limit_ms / 1000)
        except asyncio.TimeoutError:
            await self._lost(w, "timeout")
            raise TooLargeError(f"the problem took more than {self._lim.prepare_limit_ms} ms to read; "
                                "split it or simplify its expressions") from None
        except FOREIGN:
            raise Died(await self._lost(w, "crash"), None) from None
        if msg[0] == "error":
            raise error_from_body(msg[1], status=msg[2])
        _, key, timeout_ms, fallback = msg
        turn.key, turn.fallback = key, fallback
        if fallback is not None:
            turn.stage = "solving"
        cached = None
        if key is not None and lookup is not None and not turn.cut:
            try:
                cached = await lookup(op, key)
            except Exception:  # noqa: BLE001 - a cache fault must not cost the answer
                cached = None
        # the budget covers the whole task, reading included, as in the worker: from the request's arrival
        t0 = t_read if clock is None else clock.arrival
        limit = (timeout_ms + self._lim.grace_ms) / 1000
        try:
            if key is not None:
                if turn.cut:  # answered at the deadline already: the worker skips the solving
                    await w.send(("drop",))
                    return Done(fallback, None, key, None)
                await w.send(("cached", cached[1], cached[0]) if cached else ("compute",))
            reply = await asyncio.wait_for(w.recv(), max(0.0, limit - (time.monotonic() - t0)))
        except asyncio.TimeoutError:
            await self._lost(w, "timeout")
            if fallback is None:  # a custom runner's document: there is no sound unknown to give
                raise InternalError(f"no answer within the wall limit of {time.monotonic() - t_read:.1f} s "
                                    "(timeout_ms plus grace); the worker was killed") from None
            return Done(fallback, None, key, None)
        except FOREIGN:
            raise Died(await self._lost(w, "crash"), fallback) from None
        if reply[0] == "error":
            raise error_from_body(reply[1], status=reply[2])
        _, result, fresh, rejected = reply
        layer = cached[0] if cached and not rejected else None
        return Done(result, fresh, key, layer, rejected)

    async def _lost(self, w: Worker, reason: str) -> int | None:
        w.gone = True
        code = await w.kill()
        self._replace(w, reason)
        return code

