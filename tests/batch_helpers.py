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
from pathlib import Path
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
    if how in ("sigkill_self_once", "sigkill_self_twice"):  # as the OOM killer does
        flag = doc.pop("flag_file")
        kills = int(Path(flag).read_text() or 0) if os.path.exists(flag) else 0
        if kills < (1 if how == "sigkill_self_once" else 2):
            with open(flag, "w") as f:
                f.write(str(kills + 1))
            os.kill(os.getpid(), signal.SIGKILL)
    if how == "raise":
        raise RuntimeError("a bug")
    from symguard.solver import run

    return run(op, doc)
