"""The switch: ``torch.compile`` installs only the shape guards symguard does not prove redundant.

::

    import symguard
    with symguard.torch.prune_guards():                 # or prune_guards(client=Client(url))
        compiled = torch.compile(model, dynamic=True)
        compiled(x)                                      # guards produced here are pruned

Or globally: ``symguard.torch.install()`` / ``symguard.torch.uninstall()``. The hook replaces, for
Dynamo's own call only, the guard list ``ShapeEnv.produce_guards_verbose`` emits with the subset
symguard keeps; the range checks, duck-sizing equalities and every non-shape guard stay. Any
failure (server down, timeout, an error in symguard or the hook) keeps the stock guards; the
compile never fails because of it. Why the pruned guards accept exactly the shapes the stock
ones accept: docs/torch_guards.md.

The same switch makes dynamic-shape tracing faster (``fast_trace=True``, the default): while it
is on, the sympy work PyTorch repeats on the same terms (``simplify``, expansion, substitution,
value ranges, atoms and free symbols) is answered from memo tables of PyTorch's own results, so
the compile makes the same decisions (``service/torch_fast.py``; BENCHMARKS.md, "Compile time").

PyTorch is imported when the switch is used, not when this module is.
"""

from __future__ import annotations

from typing import Any

from symguard.service.torch_hook import install as _install
from symguard.service.torch_hook import prune_guards
from symguard.service.torch_hook import uninstall as _uninstall
from symguard.service.torch_prune import GuardPruner

__all__ = ["GuardPruner", "install", "prune_guards", "uninstall"]


def install(*, client: Any = None, timeout_ms: int = 60_000, forms: bool = True,
            fast_trace: bool = True) -> GuardPruner:
    """Prune every compile from now on (until ``uninstall``); returns the pruner (its ``history``).
    ``forms=False`` skips the cheaper forms of the kept guards (less compile time, costlier checks);
    ``fast_trace=False`` leaves PyTorch's symbolic reasoning as stock (see below)."""
    pruner = GuardPruner(client=client, timeout_ms=timeout_ms, forms=forms)
    _install(pruner, fast_trace=fast_trace)
    return pruner


def uninstall(pruner: GuardPruner | None = None) -> None:
    """Undo ``install`` (the given pruner's, else the latest)."""
    _uninstall(pruner)
