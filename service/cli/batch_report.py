"""What ``symguard batch`` shows a person: a progress bar while it runs, a summary table at the end.

Both go to stderr so stdout (or ``--out``) holds nothing but JSON lines. The bar is drawn only
on a terminal: when stderr is not a tty (CI logs, pipes, tests) and when the results themselves
stream to the same terminal on stdout (they are the progress then, and a live bar would tear
them). The summary is printed in every case; rich renders it as plain text off a terminal.
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, TextIO

from symguard.solver import tally


@dataclass
class Tally:
    """Everything the summary needs, accumulated one answer at a time (results are not kept)."""

    op: str
    total: int = 0
    skipped: int = 0
    status: Counter[str] = field(default_factory=Counter)
    verdicts: Counter[str] = field(default_factory=Counter)
    walls: list[tuple[float, str]] = field(default_factory=list)

    def add(self, path: str, body: dict[str, Any], wall_s: float) -> None:
        if "error" in body:
            self.status["error: " + str(body["error"].get("code", "?"))] += 1
        else:
            self.status[str(body.get("status", "?"))] += 1
            self.verdicts.update(tally(self.op, body))
        self.walls.append((wall_s, path))

    @property
    def done(self) -> int:
        return len(self.walls)

    @property
    def failed(self) -> int:
        """Inputs that got an error line: done, but not answered (docs/problem-format.md §4)."""
        return sum(v for k, v in self.status.items() if k.startswith("error: "))


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    s = sorted(values)
    k = max(1, math.ceil(q / 100 * len(s)))
    return s[k - 1]


def print_summary(t: Tally, elapsed_s: float, *, interrupted: str | None = None,
                  stream: TextIO | None = None) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(file=stream or sys.stderr, highlight=False, soft_wrap=False)
    title = f"symguard batch --op {t.op}: {t.done - t.failed} answered"
    if t.failed:
        title += f", {t.failed} failed"
    if t.skipped:
        title += f", {t.skipped} skipped (--resume)"
    if t.done + t.skipped < t.total:
        title += f", {t.total - t.done - t.skipped} not run"
    rate = t.done / elapsed_s if elapsed_s > 0 else 0.0
    title += f" in {elapsed_s:.1f} s ({rate:.2f}/s)"
    if interrupted:
        title += f" — interrupted by {interrupted}"

    console.print(title)
    counts = Table()
    counts.add_column("outcome")
    counts.add_column("count", justify="right")
    for k, v in sorted(t.status.items()):
        counts.add_row(k, str(v))
    for k, v in sorted(t.verdicts.items()):
        counts.add_row(f"  {k}", str(v))
    console.print(counts)
    if not t.walls:
        return
    walls = [w for w, _ in t.walls]
    times = Table(title="wall time per input (ms)", title_justify="left")
    for col in ("p50", "p90", "p99", "max"):
        times.add_column(col, justify="right")
    times.add_row(*(f"{1000 * percentile(walls, q):.1f}" for q in (50, 90, 99, 100)))
    console.print(times)
    slow = Table(title="slowest inputs", title_justify="left")
    slow.add_column("ms", justify="right")
    slow.add_column("input", overflow="fold")
    for w, p in sorted(t.walls, key=lambda x: -x[0])[:5]:
        slow.add_row(f"{1000 * w:.1f}", p)
    console.print(slow)


class Progress:
    """A rich progress bar on stderr, or nothing (see the module docstring for when)."""

    def __init__(self, total: int, *, results_on_tty: bool) -> None:
        self._bar: Any = None
        if total and sys.stderr.isatty() and not results_on_tty:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(TextColumn("batch"), BarColumn(), MofNCompleteColumn(),
                                     TimeElapsedColumn(), TimeRemainingColumn(),
                                     console=Console(stderr=True), transient=True,
                                     redirect_stdout=False, redirect_stderr=False)
            self._task = self._bar.add_task("batch", total=total)
            self._bar.start()

    def advance(self) -> None:
        if self._bar is not None:
            self._bar.advance(self._task)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
