"""Runners for ``tests/test_batch.py`` that misbehave on purpose, picklable by reference.

Batch workers are spawned interpreters, so a monkeypatch in the test process would not reach
them; a module-level function passed as the runner does (it is pickled by name). A problem
asks for the misbehaviour with a top-level ``"test_behaviour"`` key, which the runner removes
before handing the rest to the real solver.
"""

from __future__ import annotations

import os
import signal
import time
from typing import Any


def misbehaving_runner(op: str, doc: dict[str, Any]) -> dict[str, Any]:
    doc = dict(doc)
    how = doc.pop("test_behaviour", None)
    if how == "crash":
        os._exit(7)  # like a segfault in native code: no exception, no answer
    if how == "hang":
        time.sleep(3600)
    if how == "sigterm_parent":  # once: as if the user stopped the run while this input ran
        flag = doc.pop("flag_file")
        if not os.path.exists(flag):
            open(flag, "w").close()
            os.kill(os.getppid(), signal.SIGTERM)
    if how == "sigterm_self_once":  # as if an operator killed this worker: not the input's fault
        flag = doc.pop("flag_file")
        if not os.path.exists(flag):
            open(flag, "w").close()
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(60)
    if how == "sigkill_self_once":  # as the OOM killer does: the input is retried by --resume
        flag = doc.pop("flag_file")
        if not os.path.exists(flag):
            open(flag, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
    if how == "raise":
        raise RuntimeError("a bug")
    from solver import run

    return run(op, doc)
