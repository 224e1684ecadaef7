"""Leave a z3 context usable after a watchdog interrupted it.

``Z3_interrupt`` (``Deadline.interrupt``) is the one z3 entry point that is safe to call from
another thread: it raises the context's cancel counter, and the running check returns ``unknown``
("canceled") at its next resource check. One interrupt that lands between two z3 calls stays
raised and cancels whatever z3 does next in that context, a model evaluation included, which then
returns a model that is not one. Each operation has its own context, thrown away afterwards; a
context kept beyond one call (``solver.session``) is settled before it is used again.
"""

from __future__ import annotations

import z3


def settle(ctx: z3.Context) -> bool:
    """Lower a leftover cancel in ``ctx`` with small checks (a cancelled check still resets it),
    until one answers normally. True when z3 is usable again."""
    for _ in range(5):
        s = z3.Solver(ctx=ctx)
        x = z3.Int("x", ctx)
        s.add(x * x > 3, x < 10)
        if s.check() == z3.sat and s.model().eval(x, model_completion=True).is_int():
            return True
    return False
