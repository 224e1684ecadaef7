"""Keeping a request's deadline: its work raced against its ``deadline.Clock``.

The work runs as a task that records how far it got in a ``Turn`` (``stage``: in line for a
worker, with a worker still reading, with a worker solving). If it ends before the clock's cut,
its answer is the caller's. Else, at the cut, the caller gets the sound timeout answer the owner
builds for that stage (``late``: the worker's ready ``unknown``, or the answer for a problem
nobody has read, built ahead of the cut when it can be: ``Ahead``) and the work goes on in the
background, its outcome nobody's — or is cancelled when it is still in line, so it never takes a worker. A request whose
clock leaves a worker no time at all is answered at once (stage ``arrival``).

One ``Cutter`` per server: the stateless pool (``pool.WorkerPool.run``) and contexts
(``service.contexts``) share its ``Lag``, since both answer from one event loop.

``Ahead`` builds a timeout answer before the cut (``deadline.UNREAD_LEAD_MS``) when nobody has
read the problem by then: building it costs milliseconds of CPU, but on a loaded host an answer
begun at the cut waited for the CPU (30-180 ms at load 8 on 2 cores) and came that late.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ..metrics import Metrics
from .deadline import UNREAD_LEAD_MS, Clock, Lag

log = logging.getLogger("symguard.runtime")
R = TypeVar("R")
Background = Callable[[Coroutine[Any, Any, None]], None]  # runs a coroutine as its owner's background task


@dataclass
class Turn:
    """How far a request got, shared between the caller (who may be answered at the cut) and the
    task doing the work (which then finishes for nobody: it checks ``cut`` before doing more)."""

    stage: str = "queued"  # "queued" | "reading" | "solving"; set by the work as it goes
    cut: bool = False


class Cutter:
    """Answers a request by its clock's cut (module docstring); counts the cuts by stage in
    ``symguard_deadline_cuts_total`` and learns from how late its own answers come (``lag``)."""

    def __init__(self, metrics: Metrics) -> None:
        self._m = metrics
        self.lag = Lag()  # how late this server's own deadline answers have come lately

    async def keep(self, clock: Clock, turn: Turn, work: Callable[[], Coroutine[Any, Any, R]],
                   late: Callable[[str], Awaitable[R]], background: Background) -> R:
        """``work()``'s answer if it comes by ``clock.cut``, else ``late(stage)``'s."""
        if clock.worker_ms() <= 0:  # a worker could not even start: it would answer the unread unknown
            return await self._late(clock, "arrival", late)
        task = asyncio.get_running_loop().create_task(work())
        try:
            await asyncio.wait({task}, timeout=clock.cut_in())
        except asyncio.CancelledError:  # the caller went away: the work is cancelled with it
            task.cancel()
            raise
        if task.done():
            return task.result()
        turn.cut = True
        stage = turn.stage
        if stage == "queued":  # still in line: it never takes a worker
            task.cancel()
        background(_quietly(task))
        return await self._late(clock, stage, late)

    async def _late(self, clock: Clock, stage: str, late: Callable[[str], Awaitable[R]]) -> R:
        self._m.deadline_cuts.labels(stage).inc()
        try:
            return await late(stage)
        finally:
            self.lag.observe((time.monotonic() - clock.cut) * 1000)


class Ahead(Generic[R]):
    """A request's timeout answer, built ``lead_ms`` before its clock's cut (at once when the cut
    is nearer) if it is still ``wanted()`` then (a worker has not sent its own), so that the cut
    finds it ready. Made when the request is handed to the pool; ``result()`` at the cut,
    ``cancel()`` when the request ends either way. ``now``: a way to build it at once on the event
    loop, tried first when the cut finds it not begun (None when it cannot: the answer is built
    in ``build``'s thread then)."""

    def __init__(self, clock: Clock, build: Callable[[], Awaitable[R]], wanted: Callable[[], bool], *,
                 now: Callable[[], R | None] | None = None, lead_ms: float = UNREAD_LEAD_MS) -> None:
        self._build = build
        self._now = now
        self._begun = False
        self._task = asyncio.get_running_loop().create_task(self._ahead(clock.cut_in() - lead_ms / 1000, wanted))

    async def _ahead(self, wait_s: float, wanted: Callable[[], bool]) -> R | None:
        if wait_s > 0:
            await asyncio.sleep(wait_s)
        if not wanted():
            return None
        self._begun = True
        return await self._build()

    @property
    def begun(self) -> bool:
        """Whether the answer has been (or is being) built ahead."""
        return self._begun

    async def result(self) -> R:
        """The answer built ahead (waiting for the rest of it if it is being built), else built now;
        the build's error (bad input, found without reading the problem) is raised either way."""
        if self._begun:
            out = await self._task
            if out is not None:
                return out
        self._task.cancel()
        out = self._now() if self._now is not None else None
        return out if out is not None else await self._build()

    def cancel(self) -> None:
        """Not needed: a build not begun never begins (one in a thread ends there, unread), and a
        failed one (bad input, which the worker reports too) is not reported here."""
        self._task.cancel()


async def _quietly(work: asyncio.Task[Any]) -> None:
    """Let a task whose caller was answered at the deadline end; its outcome is nobody's."""
    try:
        await asyncio.wait({work})
    except asyncio.CancelledError:  # its owner is closing
        work.cancel()
        raise
    if not work.cancelled() and work.exception() is not None:  # a death or an error after the answer went out
        log.info("a task answered at its deadline ended with %r", work.exception())
