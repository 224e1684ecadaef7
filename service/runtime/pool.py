"""A pool of worker processes (``child``) driven from an asyncio event loop.

Each worker answers one task at a time over its stdin/stdout pipes, read with asyncio streams, so
the loop never blocks on a worker. The rules, the same for the server and for ``batch``:

- **the deadline kept by the server** (a request with a ``deadline.Clock``): at the cut the
  caller gets the sound timeout answer whatever the worker is doing, and the task ends in the
  background (``run``);
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
errors, truncated streams and unreadable frames mean "the worker died" (``_Died``), nothing else.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import pickle
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from symguard.solver.errors import InternalError, TooLargeError

from ..errors import Overloaded, error_from_body
from ..metrics import Metrics
from .deadline import Clock, Lag, unread_answer
from .protocol import encode, read_frame_async

log = logging.getLogger("symguard.runtime")
Lookup = Callable[[str, str], Awaitable[tuple[str, dict[str, Any]] | None]]  # -> (layer, canonical result)
DEFAULT_ARGV: tuple[str, ...] = (sys.executable, "-m", "symguard.service.runtime.child")
# what a dead pipe or a dead process looks like from here
_FOREIGN = (EOFError, OSError, asyncio.IncompleteReadError, pickle.UnpicklingError, ValueError)


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


class _Died(Exception):
    def __init__(self, exitcode: int | None, fallback: dict[str, Any] | None) -> None:
        super().__init__(exitcode)
        self.exitcode = exitcode
        self.fallback = fallback


@dataclass
class _Turn:
    """One request's progress, shared between ``run`` (which may answer at the deadline) and the
    task that talks to the worker (which then finishes in the background)."""

    worker: _Worker | None = None  # the worker it holds, None while it waits in line
    key: str | None = None
    fallback: dict[str, Any] | None = None  # the worker's sound unknown, once it has read the problem
    cut: bool = False  # the caller was answered at the deadline: nobody waits for the rest


async def _quietly(work: asyncio.Task[Done]) -> None:
    """Let a task whose caller was answered at the deadline end; its outcome is nobody's."""
    try:
        await asyncio.wait({work})
    except asyncio.CancelledError:  # the pool is closing
        work.cancel()
        raise
    if not work.cancelled() and work.exception() is not None:  # a death or an error after the answer went out
        log.info("a task answered at its deadline ended with %r", work.exception())


class _Worker:
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


class WorkerPool:
    """``limits.workers`` worker processes behind a bounded waiting line."""

    def __init__(self, limits: Limits, metrics: Metrics, *, argv: Sequence[str] = DEFAULT_ARGV,
                 env: dict[str, str] | None = None) -> None:
        self._lim = limits
        self._m = metrics
        self._argv = tuple(argv)
        self._env = env
        self._idle: asyncio.Queue[_Worker] = asyncio.Queue()
        self._all: set[_Worker] = set()
        self._waiting = 0
        self._busy = 0
        self._closing = False
        self._tasks: set[asyncio.Task[Any]] = set()
        self._drained = asyncio.Event()
        self._drained.set()
        self.lag = Lag()  # how late this server's own deadline answers have come lately

    # -------------------------------------------------------------- lifecycle
    async def start(self) -> None:
        """Start every worker and wait until each has imported the solver."""
        await asyncio.gather(*(self._spawn() for _ in range(self._lim.workers)))

    async def _spawn(self) -> None:
        while not self._closing:
            proc = await asyncio.create_subprocess_exec(
                *self._argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=2**20,
                env=self._env)
            w = _Worker(proc)
            if self._lim.worker_nice:
                with contextlib.suppress(OSError):  # lowering a child's priority needs no privilege
                    os.setpriority(os.PRIO_PROCESS, proc.pid, os.getpriority(os.PRIO_PROCESS, 0) + self._lim.worker_nice)
            try:
                msg = await asyncio.wait_for(w.recv(), self._lim.boot_limit_s)
                if msg[0] != "ready":
                    raise RuntimeError(f"unexpected first message {msg[0]!r}")
            except (asyncio.TimeoutError, RuntimeError, *_FOREIGN) as e:  # retried; the server stays up
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

    async def _watch(self, w: _Worker) -> None:
        """An idle worker that dies (killed from outside) is replaced at once."""
        await w.proc.wait()
        if not w.gone and not w.busy:
            w.gone = True
            self._replace(w, "crash")

    def _background(self, coro: Any) -> None:
        t = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(t)
        t.add_done_callback(self._tasks.discard)

    def _replace(self, w: _Worker, reason: str) -> None:
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
    async def _acquire(self, bounded: bool) -> _Worker:
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

    def _release(self, w: _Worker) -> None:
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
                  bounded: bool = True, clock: Clock | None = None) -> Done:
        """Answer ``op`` on ``source`` (``("body", bytes)`` or ``("path", str)``) in a worker;
        ``lookup(op, key)`` consults the caches. A worker death costs one retry, not the answer.

        With a ``clock`` (a request body over HTTP) the answer comes by ``clock.cut`` whatever the
        workers do (``deadline``): past it, a request still waiting in line leaves the line, one
        whose worker has not read it (or that comes too late for a worker to start) gets
        ``deadline.unread_answer``, one whose worker is solving
        gets the worker's ready ``unknown``; the worker finishes in the background (dropping the
        task when it has not started solving) and goes back to the pool, or is killed at
        ``timeout_ms`` + ``grace_ms`` as always."""
        if clock is None:
            return await self._attempts(op, source, lookup, bounded, None, _Turn())
        if clock.worker_ms() <= 0:  # a worker could not even start reading: it would answer this
            self._m.deadline_cuts.labels("arrival").inc()
            out = unread_answer(op, source[1], self._lim.max_timeout_ms,
                                "the deadline passed before the request could reach a worker")
            self.lag.observe((time.monotonic() - clock.cut) * 1000)
            return Done(out, None, None, None)
        turn = _Turn()
        work = asyncio.get_running_loop().create_task(self._attempts(op, source, lookup, bounded, clock, turn))
        try:
            await asyncio.wait({work}, timeout=clock.cut_in())
        except asyncio.CancelledError:  # the caller went away: as without a clock (its worker is killed)
            work.cancel()
            raise
        if work.done():
            return work.result()
        turn.cut = True
        waited = turn.worker is None
        if waited:  # still in line: it never takes a worker
            work.cancel()
        self._background(_quietly(work))
        self._m.deadline_cuts.labels("queued" if waited else "reading" if turn.fallback is None else "solving").inc()
        if turn.fallback is not None:
            out = turn.fallback
        else:
            note = (f"the deadline passed while the request waited for a worker (all {self._lim.workers} busy)"
                    if waited else None)
            out = unread_answer(op, source[1], self._lim.max_timeout_ms, note)
        self.lag.observe((time.monotonic() - clock.cut) * 1000)
        return Done(out, None, turn.key if turn.fallback is not None else None, None)

    async def _attempts(self, op: str, source: tuple[str, Any], lookup: Lookup | None, bounded: bool,
                        clock: Clock | None, turn: _Turn) -> Done:
        for attempt in (1, 2):
            w = await self._acquire(bounded and attempt == 1)
            turn.worker = w
            try:
                return await self._task(w, op, source, lookup, clock, turn)
            except _Died as d:
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
                turn.worker = None
                self._release(w)
        raise AssertionError("unreachable")

    async def _task(self, w: _Worker, op: str, source: tuple[str, Any], lookup: Lookup | None,
                    clock: Clock | None, turn: _Turn) -> Done:
        t_read = time.monotonic()
        try:
            await w.send(("task", op, source, self._lim.max_timeout_ms, None if clock is None else clock.spent_ms()))
            msg = await asyncio.wait_for(w.recv(), self._lim.prepare_limit_ms / 1000)
        except asyncio.TimeoutError:
            await self._lost(w, "timeout")
            raise TooLargeError(f"the problem took more than {self._lim.prepare_limit_ms} ms to read; "
                                "split it or simplify its expressions") from None
        except _FOREIGN:
            raise _Died(await self._lost(w, "crash"), None) from None
        if msg[0] == "error":
            raise error_from_body(msg[1], status=msg[2])
        _, key, timeout_ms, fallback = msg
        turn.key, turn.fallback = key, fallback
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
        except _FOREIGN:
            raise _Died(await self._lost(w, "crash"), fallback) from None
        if reply[0] == "error":
            raise error_from_body(reply[1], status=reply[2])
        _, result, fresh, rejected = reply
        layer = cached[0] if cached and not rejected else None
        return Done(result, fresh, key, layer, rejected)

    async def _lost(self, w: _Worker, reason: str) -> int | None:
        w.gone = True
        code = await w.kill()
        self._replace(w, reason)
        return code


def child_env(extra_path: Sequence[str] = ()) -> dict[str, str]:
    """The environment of a worker that must import what this process imports (a test's runner)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*extra_path, *(p for p in sys.path if p)])
    return env
