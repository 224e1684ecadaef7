"""Worker pools for ``symguard batch``: many inputs at once, and no input can take the run down.

z3 is not thread-safe and pysmt's z3 backend uses one global context, so in-process solving runs
in worker *processes* started with ``spawn`` (a fresh interpreter: no inherited z3 state, no
inherited threads such as the progress bar's). Each worker answers one input at a time over its
own pipe, which lets the parent see exactly which input a worker holds. That is what makes the
two promises of docs/problem-format.md §4 cheap to keep:

- a worker that dies (segfault in a native library, ``os._exit``, out of memory) yields an error
  line for the input it held, and a fresh worker replaces it;
- a worker that hangs is killed from outside once the input's wall limit passes — the problem's
  own ``options.timeout_ms`` plus a grace period, counted from when the worker has read the
  problem — then replaced in the same way.

With ``--remote`` no z3 runs here, so a thread pool calling the HTTP client is enough
(``ThreadPool``); the server enforces its own limits.

Both pools have one interface: ``submit(task)`` while ``idle()``, then ``poll(timeout)`` returns
the finished ``Answer`` values. The caller never blocks longer than ``timeout`` seconds, so it
can react to Ctrl-C / SIGTERM between answers.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing as mp
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any

from solver import Options
from solver.errors import BadInput, InternalError, SymguardError

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


def problem_timeout_ms(doc: dict[str, Any]) -> int:
    """``options.timeout_ms`` of a problem document, robust to garbage (validation is the solver's job)."""
    opts = doc.get("options")
    t = opts.get("timeout_ms") if isinstance(opts, dict) else None
    if isinstance(t, int) and not isinstance(t, bool) and 0 < t:
        return t
    return DEFAULT_TIMEOUT_MS


# ------------------------------------------------------------------ worker processes

def _worker_main(conn: Connection, runner: Runner) -> None:
    """Child loop: ``("start", index, timeout_ms)`` once the problem is read, then ``("done", ...)``."""
    from .documents import read_problem

    conn.send(("ready",))
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        if task is None:
            return
        index, op, path = task
        try:
            doc = read_problem(path)
        except SymguardError as e:
            conn.send(("done", index, error_body(e), "bad_input" if isinstance(e, BadInput) else "failure"))
            continue
        except Exception as e:  # noqa: BLE001 - becomes this input's error line
            conn.send(("done", index, error_body(e), "failure"))
            continue
        conn.send(("start", index, problem_timeout_ms(doc)))
        try:
            body, kind = runner(op, doc), "ok"
        except BadInput as e:
            body, kind = error_body(e), "bad_input"
        except Exception as e:  # noqa: BLE001 - becomes this input's error line
            body, kind = error_body(e), "failure"
        conn.send(("done", index, body, kind))


@contextmanager
def _sigint_ignored() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _ignore_sigint() -> None:
    """Workers leave Ctrl-C to the parent, which stops them in order (the file stays valid)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _worker_entry(conn: Connection, runner: Runner) -> None:
    _ignore_sigint()
    _worker_main(conn, runner)


@dataclass
class _Slot:
    proc: Any
    conn: Connection
    task: Task | None = None
    started: float = 0.0
    deadline: float = 0.0
    ready: bool = False


class ProcessPool:
    """``jobs`` spawned worker processes; kills and replaces one that crashes or overruns its input."""

    def __init__(self, runner: Runner, jobs: int, *, grace_s: float) -> None:
        self._runner = runner
        self._grace_s = grace_s
        self._ctx = mp.get_context("spawn")
        self._slots = [self._start() for _ in range(max(1, jobs))]

    def _start(self) -> _Slot:
        parent, child = self._ctx.Pipe(duplex=True)
        proc = self._ctx.Process(target=_worker_entry, args=(child, self._runner), daemon=True)
        with _sigint_ignored():  # inherited through exec: Ctrl-C never reaches a booting worker
            proc.start()
        child.close()
        return _Slot(proc=proc, conn=parent)

    def idle(self) -> int:
        return sum(1 for s in self._slots if s.task is None)

    def busy(self) -> int:
        return len(self._slots) - self.idle()

    def submit(self, task: Task) -> None:
        slot = next(s for s in self._slots if s.task is None)
        now = time.monotonic()
        slot.task, slot.started = task, now
        slot.deadline = self._reading_deadline(now) if slot.ready else now + BOOT_LIMIT_S
        slot.conn.send((task.index, task.op, task.path))

    def poll(self, timeout: float) -> list[Answer]:
        busy = [s for s in self._slots if s.task is not None]
        if not busy:
            return []
        now = time.monotonic()
        wait_s = max(0.0, min(timeout, min(s.deadline for s in busy) - now))
        ready = set(wait([s.conn for s in busy] + [s.proc.sentinel for s in busy], timeout=wait_s))
        out: list[Answer] = []
        for i, slot in enumerate(self._slots):
            if slot.task is None:
                continue
            if slot.conn in ready or slot.proc.sentinel in ready:
                out.extend(self._drain(i))
        now = time.monotonic()
        for i, slot in enumerate(self._slots):
            if slot.task is not None and now >= slot.deadline:
                limit = slot.deadline - slot.started
                out.append(self._replace(i, f"no answer within the wall limit of {limit:.1f} s "
                                            "(timeout_ms plus grace); the worker was killed"))
        return out

    def _reading_deadline(self, now: float) -> float:
        """Until the worker has read the problem its timeout is unknown: assume the default."""
        return now + DEFAULT_TIMEOUT_MS / 1000 + self._grace_s

    def _drain(self, i: int) -> list[Answer]:
        slot = self._slots[i]
        task = slot.task
        assert task is not None
        try:
            while slot.conn.poll():
                msg = slot.conn.recv()
                if msg[0] == "ready":  # the clock starts once the worker can work
                    slot.ready = True
                    slot.started = time.monotonic()
                    slot.deadline = self._reading_deadline(slot.started)
                    continue
                if msg[0] == "start":
                    slot.deadline = time.monotonic() + msg[2] / 1000 + self._grace_s
                    continue
                _, _, body, kind = msg
                slot.task = None
                return [Answer(task, body, kind, time.monotonic() - slot.started)]
        except (EOFError, OSError):
            pass
        if slot.proc.is_alive():
            return []
        code = slot.proc.exitcode
        answer = self._replace(i, f"the worker died (exit code {code}) while answering this input")
        if code is not None and -code in STOP_SIGNALS:  # stopped from outside, not by the input
            answer = Answer(answer.task, answer.body, "interrupted", answer.wall_s)
        return [answer]

    def _replace(self, i: int, why: str) -> Answer:
        slot = self._slots[i]
        task = slot.task
        assert task is not None
        wall = time.monotonic() - slot.started
        self._kill(slot)
        self._slots[i] = self._start()
        body = InternalError(why, where=task.path).to_json()
        return Answer(task, body, "failure", wall)

    @staticmethod
    def _kill(slot: _Slot) -> None:
        try:
            slot.conn.close()
        except OSError:
            pass
        if slot.proc.is_alive():
            slot.proc.kill()
        slot.proc.join(timeout=5)

    def close(self) -> None:
        """Stop every worker now (an interrupted run does not wait for the inputs in flight)."""
        for slot in self._slots:
            if slot.task is None:
                try:
                    slot.conn.send(None)
                except OSError:
                    pass
        deadline = time.monotonic() + 1.0
        for slot in self._slots:
            if slot.task is None:
                slot.proc.join(timeout=max(0.0, deadline - time.monotonic()))
            self._kill(slot)


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
