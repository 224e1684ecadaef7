"""symguard's solving library: parse → translate → solve → report. Pure: no I/O, no web.

The public surface is small and pinned by ``tests/test_public_api.py``::

    from symguard.solver import run
    run("redundancy", {"guards": ["s0 >= 16", "s0 >= 8"]})
    ctx = Context({"guards": ["Eq(Mod(s0, 16), 0)"]})     # parsed once; then deltas
    ctx.run("evaluate", {"queries": ["Eq(Mod(s0, 8), 0)"]})

``prepare``/``compute``/``finish`` split ``run`` in three so a cache can sit between them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from symguard.solver.api import compute, finish, is_final, prepare, run, tally, unknown
from symguard.solver.errors import (
                     BadInput,
                     InternalError,
                     InvalidProblemError,
                     ParseError,
                     SymguardError,
                     TooLargeError,
                     UnsupportedError,
)
from symguard.solver.ir.canonical import Canonical
from symguard.solver.ir.problem import Options, Problem
from symguard.solver.ops import OPS
from symguard.solver.syntax.document import load_problem

if TYPE_CHECKING:
    from symguard.solver.session import Context

__all__ = [
                     "OPS",
                     "BadInput",
                     "Canonical",
                     "Context",
                     "InternalError",
                     "InvalidProblemError",
                     "Options",
                     "ParseError",
                     "Problem",
                     "SymguardError",
                     "TooLargeError",
                     "UnsupportedError",
                     "compute",
                     "finish",
                     "is_final",
                     "load_problem",
                     "prepare",
                     "run",
                     "tally",
                     "unknown",
]


def __getattr__(name: str) -> Any:
    """``Context`` on first use: a one-shot ``run`` (a cold CLI call) does not load the session
    machinery, which imports evaluate's and simplify's engines."""
    if name == "Context":
        from symguard.solver.session import Context

        return Context
    raise AttributeError(f"module 'symguard.solver' has no attribute {name!r}")
