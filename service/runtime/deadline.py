"""The server's deadline for one request: a call answers within ``timeout_ms`` + 10 % + 50 ms
(``checker.outer_ms``) of the request's arrival at the app, whatever the workers are doing.

Two clocks, one origin. The **worker's** clock (the library's deadline, which cuts z3 and reading)
is started in the past: the pool sends the milliseconds already spent since arrival
(``Clock.spent_ms``: an elapsed time, not an instant, so no two processes need to share a clock),
plus ``SEND_RESERVE_MS + RETURN_RESERVE_MS``, so the worker's own limit ends early enough for its
answer — the partial one when the operation has it — to come back in time. The **server's**
cut (``Clock.cut``, ``SEND_RESERVE_MS`` before the promise) is the guarantee: past it the server
answers by itself and never waits for a worker that is late, still reading, or not yet free
(``pool.WorkerPool.run``). Its answer is the worker's ready ``unknown`` when the worker had read
the problem, else ``unread_answer``: what the library answers when its deadline passes while
the entries are being read. Either is the sound timeout answer, never cached.

The deadline decides nothing: every verdict comes from ``effort`` units; a cut only replaces an
answer that would have come too late by the sound ``unknown``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeGuard

from symguard.solver.ir.problem import Options
from symguard.solver.smt.checker import outer_ms

# The server answers this long before the promise: encoding the answer (a 500-guard ``unknown``
# is ~1 ms of JSON) and the event loop's own lag on a loaded host.
SEND_RESERVE_MS = 15
# The worker's clock ends this long before the server's cut: the worker turns its result into the
# caller's (ids, names), pickles it and the pipe carries it back before the server gives up on it.
RETURN_RESERVE_MS = 25
# The server starts building a request's unread answer this long before its cut when no worker has
# read the problem by then (``cut.Ahead``): the build is ~14 us of CPU per KB of body (2 ms for a
# 150 KB problem) on a quiet core, but at load 8 on 2 cores it took 30-180 ms of wall, waiting for
# the CPU; built after the cut, the answer came that late (bench/overrun.py --deadline).
UNREAD_LEAD_MS = 250
# An unread answer that must be built at once (the cut has come: a request with no time for a
# worker at all, or one whose lead was missed) is built on the event loop for bodies up to this
# size (at most ~4 ms of CPU), when the library's lock is free: on a loaded host the hop to a
# thread and back cost more than that (one run at load 8: cut to answer p50 39 -> 28 ms, p90 96 -> 69).
UNREAD_ON_LOOP_BYTES = 256 * 1024
# The server's workers run this much below the server's priority: the server's event loop keeps
# every request's deadline and needs little CPU, but needs it on time; on a host whose cores the
# workers saturate it would otherwise wait its turn behind them. Alone on a host a niced worker
# runs as fast as any: niceness only orders processes that compete for a core.
WORKER_NICE = 5
MAX_TIMEOUT_MS = 3_600_000  # options.timeout_ms range (docs/problem-format.md §1.3): larger values are refused, never capped
DEFAULT_TIMEOUT_MS = Options.timeout_ms  # when a body does not say
JSON_ON_LOOP_BYTES = 1 << 20  # larger bodies are decoded off the event loop (~2 ms per MB)


def valid_timeout(t: Any) -> TypeGuard[int]:
    return isinstance(t, int) and not isinstance(t, bool) and 0 < t <= MAX_TIMEOUT_MS


def cap_timeout(doc: Any, cap_ms: int | None) -> list[str]:
    """Lower a valid ``options.timeout_ms`` to the server's cap (in place) and say so; invalid values
    (above the documented range too) are left to the validator, so every entry point refuses them alike."""
    opts = doc.get("options") if isinstance(doc, dict) else None
    if cap_ms is None or not isinstance(opts, dict):
        return []
    t = opts.get("timeout_ms")
    if valid_timeout(t) and cap_ms < t:
        opts["timeout_ms"] = cap_ms
        return [f"options.timeout_ms {t} was capped at {cap_ms} by the server"]
    return []


def timeout_of(doc: Any, cap_ms: int | None = None) -> int:
    """The ``timeout_ms`` a worker will apply to ``doc`` (the default when it says none, or an
    invalid one: the worker refuses those at once)."""
    opts = doc.get("options") if isinstance(doc, dict) else None
    t = opts.get("timeout_ms") if isinstance(opts, dict) else None
    t = t if valid_timeout(t) else DEFAULT_TIMEOUT_MS
    return t if cap_ms is None else min(t, cap_ms)


def body_timeout(body: bytes, cap_ms: int | None) -> int:
    """``timeout_of`` a request body, decoded leniently: a body the worker will refuse (not JSON,
    integers past Python's limit, too deep) gets the default, and the worker's error answers first."""
    try:
        doc = json.loads(body)
    except (ValueError, RecursionError):
        doc = None
    return timeout_of(doc, cap_ms)


@dataclass(frozen=True)
class Clock:
    """One request's deadline: ``arrival`` (``time.monotonic()`` in this process), the
    ``timeout_ms`` its worker will apply, and ``early_ms``: how much earlier than the reserves say
    the server cuts, because its own answers have lately come that late after their cut (``Lag``)."""

    arrival: float
    timeout_ms: int
    early_ms: float = 0.0

    @property
    def cut(self) -> float:
        """When the server stops waiting for the worker (monotonic seconds)."""
        return self.arrival + (outer_ms(self.timeout_ms) - SEND_RESERVE_MS - self.early_ms) / 1000

    def cut_in(self) -> float:
        """Seconds left before the cut (0 once it has passed)."""
        return max(0.0, self.cut - time.monotonic())

    def worker_ms(self) -> float:
        """The time a worker taking the request now would have before its own limit: when none is
        left it could only answer the unread ``unknown``, and the server answers that itself."""
        return outer_ms(self.timeout_ms) - self.spent_ms()

    def spent_ms(self) -> float:
        """What the worker counts as already spent when it starts its clock now: the time since
        arrival plus both reserves, so that its own limit ends ``RETURN_RESERVE_MS`` before the cut."""
        return (time.monotonic() - self.arrival) * 1000 + SEND_RESERVE_MS + RETURN_RESERVE_MS + self.early_ms


class Lag:
    """How late the server's own answers have come after their cut lately: a maximum that halves
    every ``HALF_LIFE_S``. On a loaded host the event loop gets the CPU late and building the
    timeout answer takes longer; the next cuts come that much earlier (at most ``MAX_EARLY_MS``,
    and at most half the promise), so the answers leave in time. Quiet, it decays to nothing."""

    HALF_LIFE_S = 5.0
    MAX_EARLY_MS = 100.0

    def __init__(self, now: Callable[[], float] = time.monotonic) -> None:
        self._now = now
        self._ms = 0.0
        self._at = now()

    def now_ms(self) -> float:
        return self._ms * 0.5 ** ((self._now() - self._at) / self.HALF_LIFE_S)

    def observe(self, late_ms: float) -> None:
        self._ms, self._at = max(late_ms, self.now_ms()), self._now()

    def clock(self, arrival: float, timeout_ms: int) -> Clock:
        """A request's clock, cut earlier by the recent lag."""
        early = min(self.now_ms(), self.MAX_EARLY_MS, outer_ms(timeout_ms) / 2)
        return Clock(arrival, timeout_ms, early)


def unread_answer(op: str, body: bytes, cap_ms: int | None, note: str | None = None) -> dict[str, Any]:
    """The caller's timeout answer for a request body no worker has read (``unread_result``)."""
    from ..documents import loads

    return unread_result(op, loads(body), cap_ms, note)


def unread_answer_now(op: str, body: bytes, cap_ms: int | None) -> dict[str, Any] | None:
    """``unread_answer`` at once, or None when the library's lock is held (by a thread building
    another): for the event loop, which must never wait for the lock."""
    from symguard.solver import api

    if not api.SERIAL.acquire(blocking=False):
        return None
    try:  # the lock is reentrant: unread_result takes it again
        return unread_answer(op, body, cap_ms)
    finally:
        api.SERIAL.release()


def unread_result(op: str, doc: Any, cap_ms: int | None, note: str | None = None) -> dict[str, Any]:
    """The caller's timeout answer for a problem no worker has read: the library's answer when its
    deadline passes while the entries are being read (``solver.api.unread``: every guard and
    query ``unknown``, reason ``timeout``, the caller's ids). Bad input the document shows without
    reading its asserts and guards raises the same ``BadInput`` a worker would.

    Safe in any thread (the server builds it in one: ~5 ms for a 150 KB problem, more for larger,
    which would stall every other request on the event loop): it holds the library's lock while it
    builds IR, as the server's facts views do (``solver.session.FactsView``)."""
    from symguard.solver import api
    from symguard.solver.ir.canonical import canonicalize

    extra = cap_timeout(doc, cap_ms)
    with api.SERIAL:
        if not isinstance(doc, dict):
            api.prepare(doc)  # raises the library's own error for a document that is not an object
        problem = api.unread(doc)
        canon = canonicalize(problem)
        out = api.finish(op, api.unknown(op, canon.problem), problem, canon, cached=False, elapsed_ms=0)
    out["warnings"] += [*extra, *([note] if note else [])]
    return out
