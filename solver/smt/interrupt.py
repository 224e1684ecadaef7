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


def settle() -> bool:
    """Clear what an ``interrupt`` may leave behind, before the next caller uses z3.

    ``Z3_interrupt`` raises the context's cancel counter; one that lands between two z3 calls of
    the interrupted operation stays raised and cancels whatever z3 does next, a model evaluation
    included, which then returns a model that is not one. A small check lowers it (a cancelled
    check still resets it): the watchdog's caller runs this after an interrupted operation,
    until a check answers normally. True when z3 is usable again.
    """
    for _ in range(5):
        s = z3.Solver()
        x = z3.Int("x")
        s.add(x * x > 3, x < 10)
        if s.check() == z3.sat and s.model().eval(x, model_completion=True).is_int():
            return True
    return False
