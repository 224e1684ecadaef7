"""``symguard trace DIR``: a report on the shape guards of every compile in a ``TORCH_TRACE`` directory.

Reads the directory's ``*.log`` files (PyTorch's structured trace, ``service.trace.log``), asks
``redundancy`` about each compile's shape guards (in-process, or ``--remote``), and writes
``--out``/``index.html`` (static and offline: no script, no URL outside the page),
``report.json`` (the same content) and ``problems/<compile>.json`` (each question, to rerun
with ``symguard redundancy``). stdout gets one JSON line: where the report is, and the totals.

Errors follow the CLI's mapping (docs/problem-format.md §4, §5): a missing directory, one without
logs, empty logs or text that holds no trace record is ``invalid_problem`` (exit 2) naming the
path; an unwritable ``--out`` likewise (``where: "--out"``). A compile symguard could not answer
(``--remote`` down: ``unavailable``) keeps all its lines, says so in the report, and makes the
exit status that error's (1); the other compiles are answered all the same.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from symguard.solver.errors import InvalidProblemError

from ..errors import EXIT_OK
from .oneline import summary_line

if TYPE_CHECKING:  # the report's modules load when a trace is read, not for every CLI call's parser
    from ..trace.analyze import Runner
    from ..trace.log import Compile

DEFAULT_OUT = "symguard_trace"
COST_MODEL = (
    "A compile's shape guards are the top-level LAMBDA_GUARD lines of the guard tree Dynamo logged "
    "(dynamo_cpp_guards_str): what it checks on every call, sources in place of symbols. Each source becomes "
    "an integer symbol (the ShapeEnv's name and traced value where create_symbol logged it) and each line a "
    "guard; the only facts assumed are that sizes, strides and storage offsets are never negative, so the "
    "kept lines accept exactly the inputs all lines accept. A line reading a float, or one symguard cannot "
    "parse, is not asked about and is kept. Per-call cost, before (all lines) and after (kept lines): the "
    "number of lines, their characters of Python, and the operations and divisions/moduli evaluating them "
    "takes (each source lookup counted as one name). It is an estimate from the code, not a timing: the "
    "guard latency shown per compile is Dynamo's own measurement of the frame's whole guard tree (every "
    "guard kind) when it was installed; bench/torch_guards.py times stock against pruned guard checks."
)


def add_parser(sub: Any, remote: Callable[[argparse.ArgumentParser], None]) -> None:
    """Register ``symguard trace`` on the CLI's subcommands."""
    p = sub.add_parser("trace", help="read a TORCH_TRACE directory and write an HTML+JSON report of each "
                       "compile's shape guards: which are needed and why the others are not")
    p.add_argument("dir", metavar="DIR", help="the directory TORCH_TRACE=DIR wrote (or one of its .log files)")
    p.add_argument("--out", metavar="OUTDIR", default=DEFAULT_OUT,
                   help=f"where index.html, report.json and problems/ go (default: ./{DEFAULT_OUT})")
    p.add_argument("--timeout-ms", type=int, default=60_000, help="budget of the redundancy question per compile "
                   "(default 60000)")
    remote(p)
    p.set_defaults(func=_cmd)


def _cmd(args: argparse.Namespace, out: TextIO) -> int:
    def compute(client: Any) -> tuple[dict[str, Any], int]:
        if args.timeout_ms < 1:
            raise InvalidProblemError("--timeout-ms must be at least 1", where="--timeout-ms")
        runner: Runner
        if client is not None:
            runner = client.run
        else:
            from symguard.solver import run

            runner = run
        return run_trace(args.dir, Path(args.out), runner, timeout_ms=args.timeout_ms, progress=sys.stderr.isatty())

    return summary_line(args, out, compute, pad_s=30)


def log_files(path: str) -> list[Path]:
    """The log files of a trace directory (or the one file given); bad input when there are none."""
    p = Path(path)
    if p.is_file():
        return [p]
    if not p.exists():
        raise InvalidProblemError(f"no such directory: {path} (run the program with TORCH_TRACE={path} first)",
                                  where=path)
    if not p.is_dir():
        raise InvalidProblemError(f"{path} is neither a directory nor a file", where=path)
    files = sorted(f for f in p.glob("*.log") if f.is_file())
    if not files:
        raise InvalidProblemError(f"no TORCH_TRACE log in {path}: expected dedicated_log_torch_trace_*.log files, "
                                  f"as a program run with TORCH_TRACE={path} writes", where=path)
    return files


def read_trace(files: list[Path], bar: Bar | None = None) -> tuple[list[Compile], list[str]]:
    """Every compile of every file, and warnings (skipped lines, empty files); bad input when no
    file holds a single trace record."""
    from ..trace.log import compiles, records

    found: list[Compile] = []
    warnings: list[str] = []
    seen_records = False
    several = len(files) > 1
    for i, f in enumerate(files):
        try:
            data = f.read_bytes()
        except OSError as e:
            raise InvalidProblemError(f"cannot read {f}: {e.strerror or e}", where=str(f)) from None
        if not data.strip():
            warnings.append(f"{f.name} is empty")
        else:
            recs, bad = records(data.decode("utf-8", errors="replace"))
            if not recs:
                warnings.append(f"{f.name} holds no trace record")
            else:
                seen_records = True
                if bad:
                    warnings.append(f"{f.name}: {bad} line(s) that are not trace records were skipped")
                found.extend(compiles(f.name, recs, i if several else None))
        if bar is not None:
            bar.advance(len(data), f.name)
    if not seen_records:
        what = "is empty" if all(w.endswith("is empty") for w in warnings) else "holds no TORCH_TRACE record"
        where = str(files[0].parent if len(files) > 1 else files[0])
        raise InvalidProblemError(f"the trace {what}: {', '.join(f.name for f in files)} (expected lines such as "
                                  '\'V1126 13:52:48.307000 5597 torch/_dynamo/convert_frame.py:303] {"dynamo_start": '
                                  "...}')", where=where)
    if not found:
        raise InvalidProblemError("the trace holds no compile: the program ran no torch.compile'd frame while "
                                  "TORCH_TRACE was set", where=str(files[0].parent))
    return found, warnings


class Bar:
    """What a long trace shows on stderr: one bar reading the logs (bytes), one answering the
    compiles. Drawn only on a terminal (``enabled``): logs and pipes stay clean."""

    def __init__(self, stack: contextlib.ExitStack, enabled: bool) -> None:
        self.progress: Any = None
        self.task: Any = None
        if enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.progress = stack.enter_context(Progress(
                TextColumn("{task.fields[phase]} {task.description}"), BarColumn(), MofNCompleteColumn(),
                TimeElapsedColumn(), console=Console(stderr=True), transient=True))

    def start(self, phase: str, total: int) -> None:
        if self.progress is not None:
            if self.task is not None:
                self.progress.remove_task(self.task)
            self.task = self.progress.add_task("", total=total, phase=phase)

    def advance(self, n: int, label: str) -> None:
        if self.progress is not None and self.task is not None:
            self.progress.update(self.task, advance=n, description=label)


def run_trace(path: str, out_dir: Path, runner: Runner, *, timeout_ms: int | None = 60_000,
              progress: bool = False) -> tuple[dict[str, Any], int]:
    """Read, answer, write; the summary line and the exit status."""
    from ..trace.analyze import analyze, totals

    files = log_files(path)
    entries = []
    status = EXIT_OK
    with contextlib.ExitStack() as stack:
        bar = Bar(stack, progress)
        bar.start("reading", sum(f.stat().st_size for f in files))
        found, warnings = read_trace(files, bar)
        bar.start("answering", len(found))
        for c in found:
            e = analyze(c, runner, timeout_ms=timeout_ms)
            if e.get("error"):
                status = max(status, int(e["error"].pop("exit")))
                warnings.append(f"compile {e['compile_id']}: {e['error']['error'].get('message')}")
            entries.append(e)
            bar.advance(1, c.compile_id)
    report: dict[str, Any] = {
        "generator": "symguard trace", "trace_dir": str(path), "files": [f.name for f in files],
        "warnings": warnings, "totals": totals(entries), "cost_model": COST_MODEL, "compiles": entries,
    }
    index = write_report(report, out_dir)
    t = report["totals"]
    line = {"report": str(index), "json": str(out_dir / "report.json"), "compiles": t["compiles"],
            "recompiles": t["recompiles"], "lines": {"before": t["before"]["lines"], "after": t["after"]["lines"]},
            "warnings": warnings}
    return line, status


def write_report(report: dict[str, Any], out_dir: Path) -> Path:
    """``index.html``, ``report.json`` and ``problems/``; an unusable ``--out`` is bad input."""
    from ..trace import html

    try:
        (out_dir / "problems").mkdir(parents=True, exist_ok=True)
        for e in report["compiles"]:
            if e.get("problem"):
                (out_dir / "problems" / f"{e['anchor']}.json").write_text(json.dumps(e["problem"], indent=1) + "\n",
                                                                          encoding="utf-8")
        (out_dir / "report.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
        index = out_dir / "index.html"
        index.write_text(html.render(report), encoding="utf-8")
    except OSError as e:
        raise InvalidProblemError(f"cannot write the report to {out_dir}: {e.strerror or e}", where="--out") from None
    return index
