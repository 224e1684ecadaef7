"""A worker process never outlives the process that started it.

A worker can miss every orderly stop: its parent may be killed with SIGKILL, crash, or exit
while the worker is inside a long z3 call that reads no pipe; a forked worker also inherits the
parent's Python signal handlers (uvicorn's SIGTERM handler only sets a flag), so SIGTERM alone
does not stop it. Left alone, such a worker is re-parented to PID 1 and holds its memory for ever.

``watch_parent`` closes that gap from inside the worker: a daemon thread compares ``os.getppid()``
with the parent it started under and ends the process (``os._exit``, no cleanup to hang on) within
``PERIOD_S`` of the parent's death. The thread sleeps between looks and holds no lock, so it costs
nothing while the parent lives; z3 releases the GIL during search, so the thread runs even then.
``default_signals`` undoes the inherited handlers: SIGTERM terminates, SIGINT (a terminal's
Ctrl-C reaches the whole process group) is left to the parent, which stops its workers in order.
"""

from __future__ import annotations

import os
import signal
import threading
import time

PERIOD_S = 0.5  # how soon a worker notices that its parent is gone


def default_signals() -> None:
    """SIGTERM terminates this process (not an inherited handler); SIGINT is the parent's to handle."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def watch_parent(period_s: float = PERIOD_S) -> threading.Thread:
    """Exit this process soon after its parent dies (checked every ``period_s`` seconds)."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(period_s)
        os._exit(1)

    t = threading.Thread(target=watch, name="symguard-lifeline", daemon=True)
    t.start()
    return t


def init_worker() -> None:
    """The initializer of a worker process: default signals, and it dies with its parent."""
    default_signals()
    watch_parent()
