"""``symguard batch PATH… --op OP [--jobs N] [--out FILE] [--resume]`` (docs/problem-format.md §4).

Inputs: a PATH that is a file is taken as given; a folder is searched recursively for ``*.smt2``
and ``*.json`` in sorted order. In folders, JSON files that are not problems are skipped: files
named ``expected.json`` / ``manifest.json`` (any case; corpus answer keys and indexes) and JSON
documents that parse but are not an object with at least one of ``symbols``, ``asserts``,
``guards``, ``queries``, ``exprs``, ``inputs``. Malformed JSON is *not* skipped: it is an input and gets its error line.

Inputs are dispatched largest file first (a cheap proxy for the slowest ones), so with
``--jobs N`` no long input is left running alone at the end; lines arrive in completion order.

Output: one JSON line per input as soon as it is answered: ``"input": PATH``, ``"sha256"`` (of
the input file's bytes), ``"op"``, then the result (docs/problem-format.md §2) or the error body
(§5). With ``--out`` each line is appended, flushed and fsynced before the next one, so the file
is valid JSON lines at every instant. Without ``--resume`` an existing ``--out`` is started
afresh. With ``--resume`` (``load_previous``) an input is skipped when a result line with its
``sha256`` is already there — inputs are recognized by content, so moving the folder, renaming
it or resuming from another working directory still works, and an edited input runs again.
Error lines are removed and their inputs run again; a file of another ``--op`` is refused
(exit 2); a truncated last line, left by a power cut, is cut off and that input runs again.

Never loses a result: see ``batch_pool`` for crashes and hangs. Ctrl-C or SIGTERM stops the
run between two lines: workers are killed, the summary says so, the exit status is 128+signal
and ``--resume`` continues where it stopped.

Exit status: 0 when every input was answered (sat, unsat and unknown are answers), 2 when some
input was bad input (§5) or ``--out`` cannot be used, 1 for any other failure (a worker that
crashed or hung).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import pickle
import signal
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from symguard.solver.errors import InvalidProblemError

from ..batch_pool import Answer, ProcessPool, Runner, Task, ThreadPool
from ..errors import EXIT_BAD_INPUT, EXIT_FAILURE, EXIT_OK
from .batch_report import Progress, Tally, print_summary

SKIP_NAMES = frozenset({"expected.json", "manifest.json"})
PROBLEM_KEYS = ("symbols", "asserts", "guards", "queries", "exprs", "inputs")  # a problem has one of them
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
        try:
            # a dangling symlink is an input too: its error line says so, as when it is named
            found = [p for p in root.rglob("*") if p.suffix in (".smt2", ".json")
                     and (p.is_file() or (p.is_symlink() and not p.exists()))]
        except OSError:  # an unreadable folder: it becomes an input, and its error line says why
            add(root)
            continue
        for p in sorted(found):
            if p.suffix == ".smt2" or _is_problem_json(p):
                add(p)
    return out


# ------------------------------------------------------------------ --out and --resume

def input_key(path: str) -> str | None:
    """The SHA-256 of an input file's bytes (its ``sha256`` field), or None when it cannot be read.

    ``--resume`` recognizes inputs by this key, not by their path: an answer depends only on the
    bytes and the op, so a folder that was moved, renamed or reached from another working
    directory is still recognized, and an input edited since is run again.
    """
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    except OSError:
        return None
    return h.hexdigest()


class OtherOpError(InvalidProblemError):
    """``--resume`` into a results file of another ``--op``: refused (exit 2), nothing is written."""


@dataclass
class Previous:
    """What an existing ``--out`` already answers (see ``load_previous``)."""

    keys: Counter[str] = field(default_factory=Counter)  # sha256 -> answered lines with it
    paths: set[str] = field(default_factory=set)  # inputs of answered lines without sha256 (older files)
    errors_dropped: int = 0  # error lines removed so their inputs run again

    def take(self, path: str, key: str | None) -> bool:
        """True (and the line is used up) when an answered line covers this input."""
        if path in self.paths or os.path.realpath(path) in self.paths:
            return True
        if key is not None and self.keys[key] > 0:
            self.keys[key] -= 1
            return True
        return False


def load_previous(path: Path, op: str) -> Previous:
    """Read an existing ``--out`` for ``--resume`` and leave in it only what stays answered.

    - A result line (``status`` present) answers its input: by ``sha256`` when it has one, else by
      its ``input`` path (as written, or the same real path).
    - An error line answers nothing: it is removed from the file and its input runs again (the
      input may have been fixed; the worker may have been killed by the OOM killer).
    - A result line of another op refuses the resume (``OtherOpError``): mixing ops in one file
      would make ``--resume`` skip inputs the new op never answered.
    - A truncated last line (a power cut mid-write) is cut off; a final line missing only its
      newline gets it. Other lines (not JSON objects, foreign) are kept and ignored.

    The file is rewritten only when lines are removed, to a temporary file renamed over it, so
    an interruption leaves either the old or the new file, both valid.
    """
    prev = Previous()
    if not path.exists():
        return prev
    data = path.read_bytes()
    lines = data.split(b"\n")
    complete = lines[-1] == b""
    if complete:
        lines.pop()
    elif lines:  # no final newline: the last line was cut mid-write, unless it is complete JSON
        try:
            json.loads(lines[-1])
        except ValueError:
            lines.pop()
    keep: list[bytes] = []
    for n, line in enumerate(lines, 1):
        try:
            obj = json.loads(line)
        except ValueError:
            keep.append(line)
            continue
        if not isinstance(obj, dict) or not isinstance(obj.get("input"), str):
            keep.append(line)
            continue
        if "error" in obj:
            prev.errors_dropped += 1
            continue
        if "status" not in obj:  # not one of our lines: keep it, it answers nothing
            keep.append(line)
            continue
        if obj.get("op") not in (None, op):
            raise OtherOpError(f"--out {path} holds results of --op {obj['op']} (line {n}), not {op}; "
                               "resume with the same --op or write to another --out", where="--out")
        key = obj.get("sha256")
        if isinstance(key, str):
            prev.keys[key] += 1
        else:
            prev.paths.update((obj["input"], os.path.realpath(obj["input"])))
        keep.append(line)
    new = b"".join(x + b"\n" for x in keep)
    if new == data + b"\n":  # only the final newline was missing: append it
        with open(path, "ab") as f:
            f.write(b"\n")
    elif new != data:
        _replace_file(path, new)
    return prev


def _replace_file(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, fsync it, rename it over ``path``."""
    tmp = path.with_name(f".{path.name}.resume-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    with contextlib.suppress(OSError):  # make the rename itself durable
        fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


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
            try:
                self._out.write(line + "\n")
            except UnicodeEncodeError:  # a stdout that cannot carry the text (a non-UTF-8 locale): escapes
                self._out.write(json.dumps(json.loads(line), ensure_ascii=True, separators=(", ", ": ")) + "\n")
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
        prev = load_previous(Path(out_path), args.op) if out_path and args.resume else Previous()
        sink = Sink(out, out_path, resume=bool(args.resume))
    except OtherOpError as e:
        out.write(dumps(e.to_json()) + "\n")
        return EXIT_BAD_INPUT
    except OSError as e:
        out.write(dumps(InvalidProblemError(f"cannot use --out {out_path}: {e}", where="--out").to_json()) + "\n")
        return EXIT_BAD_INPUT  # a wrong command line (docs/problem-format.md §4)
    keys = {p: input_key(p) for p in inputs}
    todo = [p for p in inputs if not prev.take(p, keys[p])]
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
                        sink.write(dumps(_line(a, keys.get(a.task.path))))
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


def _line(a: Answer, key: str | None) -> dict[str, Any]:
    """``input`` first, then the input's ``sha256`` (what ``--resume`` recognizes) and ``op``, then the body."""
    line: dict[str, Any] = {"input": a.task.path}
    if key is not None:
        line["sha256"] = key
    return {**line, "op": a.task.op, **a.body}


def _worse(status: int, kind: str) -> int:
    """Bad input outranks other failures, as in ``main.run_files``."""
    if kind == "bad_input":
        return EXIT_BAD_INPUT
    if kind in ("failure", "interrupted") and status != EXIT_BAD_INPUT:
        return EXIT_FAILURE
    return status
