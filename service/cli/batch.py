"""``symguard batch PATH… --op OP [--jobs N] [--out FILE] [--resume]`` (SPEC §4).

Inputs: a PATH that is a file is taken as given; a folder is searched recursively for ``*.smt2``
and ``*.json`` in sorted order. In folders, JSON files that are not problems are skipped: files
named ``expected.json`` / ``manifest.json`` (any case; corpus answer keys and indexes) and JSON
documents that parse but are not an object with at least one of ``symbols``, ``asserts``,
``guards``, ``queries``. Malformed JSON is *not* skipped: it is an input and gets its error line.

Inputs are dispatched largest file first (a cheap proxy for the slowest ones), so with
``--jobs N`` no long input is left running alone at the end; lines arrive in completion order.

Output: one JSON line per input as soon as it is answered — the SPEC §2 result, or the §5 error
body, with ``"input": PATH`` first. With ``--out`` each line is appended, flushed and fsynced
before the next one, so the file is valid JSON lines at every instant. Without ``--resume`` an
existing ``--out`` is started afresh; with ``--resume`` the inputs already in it are skipped
(a truncated last line, left by a power cut, is cut off and that input runs again).

Never loses a result: see ``batch_pool`` for crashes and hangs. Ctrl-C or SIGTERM stops the
run between two lines: workers are killed, the summary says so, the exit status is 128+signal
and ``--resume`` continues where it stopped.

Exit status: 0 when every input was answered (sat, unsat and unknown are answers), 2 when some
input was bad input (§5) or ``--out`` cannot be written, 1 for any other failure (a worker that
crashed or hung).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pickle
import signal
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from ..batch_pool import Answer, ProcessPool, Runner, Task, ThreadPool
from ..errors import EXIT_BAD_INPUT, EXIT_FAILURE, EXIT_OK
from .batch_report import Progress, Tally, print_summary

SKIP_NAMES = frozenset({"expected.json", "manifest.json"})
PROBLEM_KEYS = ("symbols", "asserts", "guards", "queries")
DEFAULT_GRACE_MS = 10_000  # on top of a problem's timeout_ms before its worker is killed
POLL_S = 0.2  # how often the loop looks at signals while waiting for answers


# ------------------------------------------------------------------ inputs

def _is_problem_json(p: Path) -> bool:
    """False only for JSON that parses and is clearly not a problem; broken files stay inputs."""
    if p.name.lower() in SKIP_NAMES:
        return False
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return True
    return isinstance(doc, dict) and any(k in doc for k in PROBLEM_KEYS)


def collect_inputs(paths: Iterable[str]) -> list[str]:
    """The input files, in a stable order, each once (a missing PATH stays: it gets an error line)."""
    seen: set[str] = set()
    out: list[str] = []

    def add(p: Path) -> None:
        key = os.path.realpath(p)
        if key not in seen:
            seen.add(key)
            out.append(str(p))

    for raw in paths:
        root = Path(raw)
        if not root.is_dir():
            add(root)
            continue
        found = [p for p in root.rglob("*") if p.suffix in (".smt2", ".json") and p.is_file()]
        for p in sorted(found):
            if p.suffix == ".smt2" or _is_problem_json(p):
                add(p)
    return out


# ------------------------------------------------------------------ --out and --resume

def answered_inputs(path: Path) -> set[str]:
    """Inputs that already have a line in ``path``; cuts off a truncated last line in place.

    Lines that are not JSON objects with an ``input`` are ignored (they answer nothing), so a
    hand-edited or foreign file does not stop a resume. Only the *last* line can be truncated by
    an interruption, and only it is removed from the file.
    """
    if not path.exists():
        return set()
    data = path.read_bytes()
    done: set[str] = set()
    keep = len(data)
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    elif lines:  # no final newline: the last line was cut mid-write, unless it is complete JSON
        try:
            json.loads(lines[-1])
            keep = len(data) + 1  # complete: just add the newline
        except ValueError:
            keep = len(data) - len(lines[-1])
            lines.pop()
    for line in lines:
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict) and isinstance(obj.get("input"), str):
            done.add(obj["input"])
    if keep < len(data):
        with open(path, "r+b") as f:
            f.truncate(keep)
    elif keep > len(data):
        with open(path, "ab") as f:
            f.write(b"\n")
    return done


class Sink:
    """Where result lines go: stdout, or a file made durable line by line."""

    def __init__(self, out: TextIO, path: str | None, *, resume: bool) -> None:
        # held open for the whole run, closed by close(); unbuffered, so a failed write leaves
        # nothing pending that a later flush or close could half-write
        self._file = open(path, "ab" if resume else "wb", buffering=0) if path else None  # noqa: SIM115
        self._out = out

    def write(self, line: str) -> None:
        """Append one line durably, or raise OSError with the file as it was (disk full, I/O error)."""
        if self._file is not None:
            fd = self._file.fileno()
            start = os.fstat(fd).st_size
            data = (line + "\n").encode("utf-8")
            try:
                while data:
                    n = self._file.write(data)
                    data = data[n or 0:]
                os.fsync(fd)
            except OSError:
                with contextlib.suppress(OSError):  # cut a partial line (not possible on e.g. /dev/full)
                    os.ftruncate(fd, start)
                raise
        else:
            self._out.write(line + "\n")
            self._out.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()


# ------------------------------------------------------------------ signals

class _Stop:
    """Ctrl-C / SIGTERM set a flag the loop checks between lines: no line is ever half-written."""

    def __init__(self) -> None:
        self.signum: int | None = None

    def __call__(self, signum: int, frame: Any) -> None:
        self.signum = signum


@contextmanager
def _stop_on_signals() -> Iterator[_Stop]:
    stop = _Stop()
    if threading.current_thread() is not threading.main_thread():
        yield stop  # signal handlers can only be installed from the main thread
        return
    old = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for s, h in old.items():
            signal.signal(s, h)


# ------------------------------------------------------------------ the run

def _is_tty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def run_batch(args: argparse.Namespace, runner: Runner, out: TextIO) -> int:
    """Run ``args.op`` over every input of ``args.paths``; see the module docstring."""
    from ..documents import dumps

    t0 = time.monotonic()
    jobs = max(1, int(getattr(args, "jobs", 1) or 1))
    grace_s = float(getattr(args, "grace_ms", None) or DEFAULT_GRACE_MS) / 1000
    inputs = collect_inputs(args.paths)
    tally = Tally(op=args.op, total=len(inputs))
    out_path = getattr(args, "out", None)
    try:
        done = answered_inputs(Path(out_path)) if out_path and args.resume else set()
        sink = Sink(out, out_path, resume=bool(args.resume))
    except OSError as e:
        from solver.errors import InvalidProblemError

        out.write(dumps(InvalidProblemError(f"cannot use --out {out_path}: {e}", where="--out").to_json()) + "\n")
        return EXIT_BAD_INPUT  # a wrong command line (SPEC §4)
    # `dir/a.json` and `./dir/a.json` are the same input: compare real paths as well
    done_real = {os.path.realpath(d) for d in done}
    todo = [p for p in inputs if p not in done and os.path.realpath(p) not in done_real]
    tally.skipped = len(inputs) - len(todo)
    worst = EXIT_OK
    progress = Progress(len(todo), results_on_tty=not out_path and _is_tty(out))
    pool: ProcessPool | ThreadPool | None = None
    interrupted: str | None = None
    write_failed: OSError | None = None
    try:
        with _stop_on_signals() as stop:
            if todo:
                pool = _pool(runner, jobs, len(todo), remote=bool(getattr(args, "remote", None)), grace_s=grace_s)
            queue = [Task(i, args.op, p) for i, p in enumerate(_largest_first(todo))][::-1]
            retried: set[int] = set()
            while pool is not None and (queue or pool.busy()) and stop.signum is None and write_failed is None:
                while queue and pool.idle():
                    pool.submit(queue.pop())
                for a in pool.poll(POLL_S):
                    if a.kind == "interrupted" and (stop.signum is not None or a.task.index not in retried):
                        # killed by Ctrl-C/SIGTERM aimed at us all, or by someone else: not the input's
                        # fault; run it again once (or leave it to --resume when we are stopping)
                        retried.add(a.task.index)
                        queue.append(a.task)
                        continue
                    try:
                        sink.write(dumps(_line(a)))
                    except OSError as e:  # disk full, I/O error: stop; the lines written stay valid
                        write_failed = e
                        break
                    tally.add(a.task.path, a.body, a.wall_s)
                    progress.advance()
                    worst = _worse(worst, a.kind)
            if stop.signum is not None:
                interrupted = signal.Signals(stop.signum).name
    finally:
        progress.close()
        if pool is not None:
            pool.close()
        sink.close()
    print_summary(tally, time.monotonic() - t0, interrupted=interrupted)
    if write_failed is not None:
        out.write(dumps({"error": {"code": "io_error", "where": "--out", "message": (
            f"cannot write to {out_path}: {write_failed.strerror or write_failed}; the lines already in it are "
            "complete, run again with --resume to finish")}}) + "\n")
        return EXIT_FAILURE
    if stop.signum is not None:
        return 128 + stop.signum
    return worst


def _pool(runner: Runner, jobs: int, n: int, *, remote: bool, grace_s: float) -> ProcessPool | ThreadPool:
    """Threads for ``--remote`` (no z3 here); else worker processes, which need a runner they can
    import by name. A runner that cannot be pickled (a closure, in a test or an embedding) runs
    on one thread: strictly serialized, so z3 stays safe, but without crash or hang isolation."""
    if remote:
        return ThreadPool(runner, jobs)
    try:
        pickle.dumps(runner)
    except (pickle.PicklingError, AttributeError, TypeError):
        return ThreadPool(runner, 1)
    return ProcessPool(runner, min(jobs, n), grace_s=grace_s)


def _largest_first(paths: list[str]) -> list[str]:
    """Dispatch order: big files first (a proxy for slow inputs), so no long one runs alone at the end."""
    def size(p: str) -> int:
        try:
            return os.path.getsize(p)
        except OSError:
            return 0

    return sorted(paths, key=lambda p: -size(p))  # stable: equal sizes keep the sorted path order


def _line(a: Answer) -> dict[str, Any]:
    return {"input": a.task.path, **a.body}


def _worse(status: int, kind: str) -> int:
    """Bad input outranks other failures, as in ``main.run_files``."""
    if kind == "bad_input":
        return EXIT_BAD_INPUT
    if kind in ("failure", "interrupted") and status != EXIT_BAD_INPUT:
        return EXIT_FAILURE
    return status
