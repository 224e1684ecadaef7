"""Keeping a request's deadline: its work raced against its ``deadline.Clock``.

The work runs as a task that records how far it got in a ``Turn`` (``stage``: in line for a
worker, with a worker still reading, with a worker solving). If it ends before the clock's cut,
its answer is the caller's. Else, at the cut, the caller gets the sound timeout answer the owner
builds for that stage (``late``: the worker's ready ``unknown``, or the answer for a problem
nobody has read, built off the event loop) and the work goes on in the background, its outcome
nobody's — or is cancelled when it is still in line, so it never takes a worker. A request whose
clock leaves a worker no time at all is answered at once (stage ``arrival``).

One ``Cutter`` per server: the stateless pool (``pool.WorkerPool.run``) and contexts
(``service.contexts``) share its ``Lag``, since both answer from one event loop.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from ..metrics import Metrics
from .deadline import Clock, Lag

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


async def _quietly(work: asyncio.Task[Any]) -> None:
    """Let a task whose caller was answered at the deadline end; its outcome is nobody's."""
    try:
        await asyncio.wait({work})
    except asyncio.CancelledError:  # its owner is closing
        work.cancel()
        raise
    if not work.cancelled() and work.exception() is not None:  # a death or an error after the answer went out
        log.info("a task answered at its deadline ended with %r", work.exception())
