"""Worker pools for ``symguard batch``: many inputs at once, and no input can take the run down.

In-process solving runs in the one worker runtime the HTTP server uses (``service.runtime``):
worker processes (z3 is not thread-safe; a process can be killed), each holding one input at a
time, with the runtime's rules:

- an input that overruns its budget (``options.timeout_ms`` plus a grace period, counted from
  when the worker has read the problem) is killed and answered with the operation's sound
  ``unknown`` (reason ``timeout``), exactly as the server answers it;
- a worker that dies is replaced and its input runs again once; a second death is an error line
  for that input (``interrupted`` when a stop signal killed it, so a stopping run leaves it to
  ``--resume``), and the run goes on.

``ProcessPool`` drives the runtime's asyncio pool from a private event-loop thread behind the
synchronous interface batch's loop uses. With ``--remote`` no z3 runs here, so a thread pool
calling the HTTP client is enough (``ThreadPool``); the server enforces its own limits.

Both pools have one interface: ``submit(task)`` while ``idle()``, then ``poll(timeout)`` returns
the finished ``Answer`` values. The caller never blocks longer than ``timeout`` seconds, so it
can react to Ctrl-C / SIGTERM between answers.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import contextlib
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from symguard.solver import Options
from symguard.solver.errors import BadInput, InternalError, SymguardError

from .errors import error_body

Runner = Callable[[str, dict[str, Any]], dict[str, Any]]
DEFAULT_TIMEOUT_MS = Options().timeout_ms  # sizes the wall limit of an input that sets none
STOP_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
BOOT_LIMIT_S = 120.0  # a fresh interpreter importing z3 on a loaded machine: generous


@dataclass(frozen=True)
class Task:
    index: int
    op: str
    path: str


@dataclass(frozen=True)
class Answer:
    """One finished input: the JSON body (a result or a §5 error body) and how it ended."""

    task: Task
    body: dict[str, Any]
    kind: str  # "ok" | "bad_input" | "failure" | "interrupted" (worker stopped by a signal from outside)
    wall_s: float


def answer(op: str, path: str, runner: Runner) -> tuple[dict[str, Any], str]:
    """Read one input file and run ``op`` on it; every exception becomes a §5 error body."""
    from .documents import read_problem

    try:
        return runner(op, read_problem(path)), "ok"
    except BadInput as e:
        return error_body(e), "bad_input"
    except SymguardError as e:
        return error_body(e), "failure"
    except Exception as e:  # noqa: BLE001 - a bug must not lose the other inputs' answers
        return error_body(e), "failure"


# ------------------------------------------------------------------ worker processes

class ProcessPool:
    """``jobs`` runtime workers behind batch's synchronous interface (see the module docstring).

    ``runner`` is ``solver.run`` (the workers' own cache-free path) or any function importable by
    name (a test's misbehaving runner), which the workers then call on each document.
    """

    def __init__(self, runner: Runner, jobs: int, *, grace_s: float) -> None:
        from symguard.solver import run

        from .metrics import Metrics
        from .runtime.pool import DEFAULT_ARGV, Limits, WorkerPool, child_env

        argv: tuple[str, ...] = DEFAULT_ARGV
        env = None
        if runner is not run:
            argv = (*DEFAULT_ARGV, "--runner", f"{runner.__module__}:{runner.__qualname__}")
            env = child_env()
        jobs = max(1, jobs)
        limits = Limits(workers=jobs, queue_size=1 << 30, recycle_after=1 << 30, grace_ms=int(grace_s * 1000),
                        prepare_limit_ms=DEFAULT_TIMEOUT_MS + int(grace_s * 1000) + 60_000,
                        boot_limit_s=BOOT_LIMIT_S)
        self._jobs = jobs
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="symguard-batch-runtime", daemon=True)
        self._thread.start()
        self._pool = WorkerPool(limits, Metrics(), argv=argv, env=env)
        self._call(self._pool.start()).result()  # workers ignore SIGINT: Ctrl-C is ours to handle
        self._running: dict[cf.Future[Any], tuple[Task, float]] = {}

    def _call(self, coro: Any) -> cf.Future[Any]:
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    def idle(self) -> int:
        return self._jobs - len(self._running)

    def busy(self) -> int:
        return len(self._running)

    def submit(self, task: Task) -> None:
        fut = self._call(self._pool.run(task.op, ("path", task.path), bounded=False))
        self._running[fut] = (task, time.monotonic())

    def poll(self, timeout: float) -> list[Answer]:
        if not self._running:
            return []
        done, _ = cf.wait(list(self._running), timeout=timeout, return_when=cf.FIRST_COMPLETED)
        out = []
        for fut in done:
            task, t0 = self._running.pop(fut)
            out.append(self._answer(task, fut, time.monotonic() - t0))
        return out

    @staticmethod
    def _answer(task: Task, fut: cf.Future[Any], wall_s: float) -> Answer:
        from .runtime.pool import WorkerCrashed

        try:
            done = fut.result()
        except WorkerCrashed as e:
            body = InternalError(e.message, where=task.path).to_json()
            stopped = e.exitcode is not None and -e.exitcode in STOP_SIGNALS  # from outside, not the input
            return Answer(task, body, "interrupted" if stopped else "failure", wall_s)
        except BadInput as e:
            return Answer(task, error_body(e), "bad_input", wall_s)
        except Exception as e:  # noqa: BLE001 - one input's failure is its error line
            return Answer(task, error_body(e), "failure", wall_s)
        result = dict(done.result)
        if "elapsed_ms" in result:
            result["elapsed_ms"] = round(wall_s * 1000, 3)
        return Answer(task, result, "ok", wall_s)

    def close(self) -> None:
        """Stop every worker now (an interrupted run does not wait for the inputs in flight)."""
        for fut in self._running:
            fut.cancel()  # the runtime kills a worker whose task is cancelled
        with contextlib.suppress(Exception):  # closing must not hide the run's own outcome
            self._call(self._pool.close(timeout=1.0)).result(timeout=30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        if not self._thread.is_alive():
            self._loop.close()


# ------------------------------------------------------------------ threads (--remote)

class ThreadPool:
    """For ``--remote``: the server solves; here threads only wait on HTTP."""

    def __init__(self, runner: Runner, jobs: int) -> None:
        self._runner = runner
        self._jobs = max(1, jobs)
        self._ex = cf.ThreadPoolExecutor(max_workers=self._jobs, thread_name_prefix="symguard-batch")
        self._running: dict[cf.Future[tuple[dict[str, Any], str]], tuple[Task, float]] = {}

    def idle(self) -> int:
        return self._jobs - len(self._running)

    def busy(self) -> int:
        return len(self._running)

    def submit(self, task: Task) -> None:
        fut = self._ex.submit(answer, task.op, task.path, self._runner)
        self._running[fut] = (task, time.monotonic())

    def poll(self, timeout: float) -> list[Answer]:
        if not self._running:
            return []
        done, _ = cf.wait(list(self._running), timeout=timeout, return_when=cf.FIRST_COMPLETED)
        out = []
        for fut in done:
            task, t0 = self._running.pop(fut)
            body, kind = fut.result()  # answer() never raises
            out.append(Answer(task, body, kind, time.monotonic() - t0))
        return out

    def close(self) -> None:
        self._ex.shutdown(wait=False, cancel_futures=True)
