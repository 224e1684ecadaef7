"""The processes this test run started, found by a mark every one of them inherits.

``conftest`` puts ``MARK`` into the environment when the run starts, so every process a test
starts (servers, workers, hogs, their children) carries it, even once it is orphaned and its
parent is PID 1, where a walk of the process tree no longer finds it.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

MARK = "SYMGUARD_TEST_RUN"


def marked(value: str, *, exclude: frozenset[int] = frozenset()) -> list[int]:
    """PIDs of live processes whose environment has ``MARK=value`` (zombies excluded)."""
    needle = f"{MARK}={value}\0".encode()
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit() or int(d.name) in exclude:
            continue
        try:
            if needle in (d / "environ").read_bytes() and " Z " not in (d / "stat").read_text():
                found.append(int(d.name))
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return sorted(found)


def wait_gone(value: str, timeout_s: float, *, exclude: frozenset[int] = frozenset()) -> list[int]:
    """Wait up to ``timeout_s`` for the marked processes to exit; the ones still alive."""
    deadline = time.monotonic() + timeout_s
    while (left := marked(value, exclude=exclude)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def kill(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
