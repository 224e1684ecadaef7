"""symguard: SMT-backed guard entailment for dynamic tensor shapes -- the public import.

``import symguard`` is the library's front door; it re-exports the solving library
(``symguard.solver``) and never imports torch::

    import symguard
    symguard.run("redundancy", {"guards": ["s0 >= 16", "s0 >= 8"]})
    ctx = symguard.Context({"guards": ["Eq(Mod(s0, 16), 0)"]})

``symguard.torch`` is the switch that makes ``torch.compile`` install only the shape guards
symguard does not prove redundant (docs/torch_guards.md); it is imported on first use::

    with symguard.torch.prune_guards():
        compiled = torch.compile(model, dynamic=True)
        compiled(x)

It is the one package symguard installs: ``symguard.solver`` (the pure library) and
``symguard.service`` (HTTP, CLI, workers, the torch bridge) live inside it, so a user's own
``solver`` or ``service`` package never meets them. In the repository they stay at the top
(``solver/``, ``service/``) and ``symguard/solver``, ``symguard/service`` are symlinks to them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from symguard.solver import (
    BadInput,
    InternalError,
    InvalidProblemError,
    ParseError,
    Problem,
    SymguardError,
    TooLargeError,
    UnsupportedError,
    load_problem,
    run,
)

if TYPE_CHECKING:
    from symguard.solver.session import Context

__all__ = [
    "BadInput",
    "Context",
    "InternalError",
    "InvalidProblemError",
    "ParseError",
    "Problem",
    "SymguardError",
    "TooLargeError",
    "UnsupportedError",
    "load_problem",
    "run",
]  # not "torch": a star import would rebind the user's own ``torch`` (``symguard.torch`` is an attribute)


def __getattr__(name: str) -> Any:
    """``symguard.torch`` on first use, so that ``import symguard`` never needs PyTorch; ``Context``
    on first use, so that a one-shot ``run`` does not load the session machinery."""
    if name == "torch":
        return importlib.import_module("symguard.torch")
    if name == "Context":  # on first use, as in ``symguard.solver``
        from symguard.solver import Context

        return Context
    raise AttributeError(f"module 'symguard' has no attribute {name!r}")
