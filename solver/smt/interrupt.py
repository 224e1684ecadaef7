"""Stop whatever z3 is doing in this process, from any thread.

z3's ``Z3_interrupt`` is the one z3 entry point that is safe to call from another thread: it
raises the cancel flag of the context, and the running check (or simplification, or
``Optimize``) returns ``unknown`` ("canceled") at its next resource check. symguard's solvers
all live in z3's main context (pysmt's z3 backend uses it), so one call reaches them all. The
library's watchdog (``solver.api``) calls this when an operation overruns its whole budget.
"""

from __future__ import annotations

import z3


def interrupt() -> None:
    """Cancel the z3 call in progress in this process, if any (harmless when z3 is idle)."""
    z3.main_ctx().interrupt()
