"""The switch: Dynamo's ``ShapeEnv.produce_guards_verbose`` replaced, for Dynamo's own call only,
by the stock production followed by the pruned one (``install``, ``uninstall``, ``prune_guards``).

The stock list is always produced first (what a compile raises never changes) and is what Dynamo
gets on any failure; the pruned list leaves out the guards the innermost ``GuardPruner`` drops and
exact repeats of a check (``drop_duplicates``). torch is imported inside the functions.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Mapping
from typing import Any

from . import torch_fast
from .torch_prune import GuardPruner

_hook_lock = threading.RLock()
_active: list[GuardPruner] = []  # a stack: the innermost prune_guards() block decides
_original: Any = None


def _called_by_dynamo() -> bool:
    """Whether the caller is Dynamo's ``GuardBuilder.SHAPE_ENV`` (not export, not a test helper)."""
    import sys

    f = sys._getframe(2)
    return f.f_code.co_name == "_get_code_parts" and f.f_globals.get("__name__") == "torch._dynamo.guards"


def _executed_langs(kwargs: Mapping[str, Any]) -> tuple[str, ...]:
    """The languages the produced guards will run in: C++ when Dynamo asked for ``cpp`` code
    (``enable_cpp_symbolic_shape_guards``), Python always (its fallback, and export's)."""
    langs = kwargs.get("langs") or ("python",)
    return ("python", "cpp") if "cpp" in langs else ("python",)


def _code(out: Any) -> dict[str, list[str]]:
    """The shape-guard code of ``produce_guards_verbose``'s result, by language."""
    names = ("python", "verbose_python", "cpp")
    got: dict[str, list[str]] = {}
    for i, h in enumerate(out):
        name = "cpp" if hasattr(h, "source_to_symbol") else names[min(i, 1)]
        got[name] = list(h.exprs)
    return got


def _produce_guards_verbose(self: Any, placeholders: Any, sources: Any, *args: Any, **kwargs: Any) -> Any:
    """Dynamo's own call, then the pruned one.

    The stock production always runs first, with everything it checks and raises
    (``ConstraintViolationError`` for a ``mark_dynamic`` range the guards contradict, export's
    specialization errors): pruning never changes what a compile raises, because the error
    comes from the stock list before any guard is dropped. Its result is what Dynamo gets on any
    failure of the pruned production, and its code is recorded (``stock_code``) so that a
    differential can compare each compile with its own unpruned guards."""
    import time

    orig = _original
    pruner = _active[-1] if _active else None
    if (pruner is None or args or kwargs.get("guards") is not None or not kwargs.get("ignore_static", True)
            or not _called_by_dynamo()):
        return orig(self, placeholders, sources, *args, **kwargs)
    t0 = time.perf_counter()
    stock = orig(self, placeholders, sources, *args, **kwargs)  # raises exactly what stock raises
    produced = time.perf_counter() - t0
    stock_constraints = getattr(self, "dim_constraints", None)
    kept = pruner.kept_guards(self, placeholders, _executed_langs(kwargs))
    rec = pruner.history[-1]
    rec["stock_produce_seconds"] = produced
    rec["stock_code"] = _code(stock)
    _note_emitted(rec, stock)
    if not pruner.prune or kept is None:  # observing, or nothing to prune: the stock result
        rec["produce_seconds"] = produced
        rec["pruned_code"] = rec["stock_code"]
        return stock
    before = dict(self.var_to_range)
    t0 = time.perf_counter()
    try:
        out = orig(self, placeholders, sources, *args, **{**kwargs, "guards": kept})
        if dict(self.var_to_range) == before:
            rec["duplicates"] = drop_duplicates(out)
            rec["produce_seconds"] = time.perf_counter() - t0
            rec["pruned_code"] = _code(out)
            _note_emitted(rec, out)
            return out
        rec["error"] = "ranges changed while producing guards"
    except Exception as e:  # noqa: BLE001 - pruned guards Dynamo could not emit: emit the stock ones
        rec["error"] = f"{type(e).__name__}: {e}"
    finally:
        if stock_constraints is not None:
            self.dim_constraints = stock_constraints  # what the stock list recorded, for export's solver
    rec["kept"] = None
    rec["pruned_code"] = rec["stock_code"]
    return stock


def drop_duplicates(out: Any) -> int:
    """Drop repeated checks from ``produce_guards_verbose``'s result, in every language at once.

    The same source can be tracked twice (a module's float attribute read by two calls gives two
    ``source == value`` lines of part 1). Each language gets exactly one line per check, in the
    same order, so the i-th lines of all helpers are one check; a check whose Python text was seen
    before is the same pure expression and removing it changes no verdict. Returns how many went.
    """
    helpers = list(out)
    n = len(helpers[0].exprs)
    if any(len(h.exprs) != n for h in helpers):
        return 0  # not the one-line-per-check shape this relies on: leave it as it is
    seen: set[str] = set()
    keep = []
    for i, text in enumerate(helpers[0].exprs):
        if text not in seen:
            seen.add(text)
            keep.append(i)
    if len(keep) == n:
        return 0
    for h in helpers:
        h.exprs[:] = [h.exprs[i] for i in keep]
    return n - len(keep)


def _note_emitted(rec: dict[str, Any], out: Any) -> None:
    """What Dynamo will check: the count of shape-guard expressions and their verbose text."""
    try:
        rec["emitted"] = len(out[0].exprs)
        rec["verbose"] = list(out[1].exprs)
    except (AttributeError, IndexError, TypeError):
        pass


def install(pruner: GuardPruner, *, fast_trace: bool = True) -> None:
    """Make Dynamo consult ``pruner`` for every shape guard set it produces (until ``uninstall``);
    ``fast_trace`` also turns on ``service.torch_fast`` for as long."""
    global _original
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    with _hook_lock:
        if _original is None:
            _original = ShapeEnv.produce_guards_verbose
            ShapeEnv.produce_guards_verbose = _produce_guards_verbose  # type: ignore[method-assign]
        _active.append(pruner)
        if fast_trace:
            pruner.fast_token = torch_fast.enable()


def uninstall(pruner: GuardPruner | None = None) -> None:
    """Undo one ``install`` (``pruner``'s, or the latest); the last one restores PyTorch's method."""
    global _original
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    with _hook_lock:
        if pruner is None and _active:
            pruner = _active.pop()
        elif pruner is not None:
            for i in range(len(_active) - 1, -1, -1):
                if _active[i] is pruner:
                    del _active[i]
                    break
        if pruner is not None and pruner.fast_token is not None:
            torch_fast.disable(pruner.fast_token)
            pruner.fast_token = None
        if not _active and _original is not None:
            ShapeEnv.produce_guards_verbose = _original  # type: ignore[method-assign]
            _original = None


@contextlib.contextmanager
def prune_guards(*, client: Any = None, timeout_ms: int = 60_000, prune: bool = True,
                 forms: bool = True, fast_trace: bool = True) -> Iterator[GuardPruner]:
    """While this block runs, Dynamo emits only the shape guards symguard does not prove redundant
    (``fast_trace``: and traces with ``service.torch_fast`` on)."""
    pruner = GuardPruner(client=client, timeout_ms=timeout_ms, prune=prune, forms=forms)
    install(pruner, fast_trace=fast_trace)
    try:
        yield pruner
    finally:
        uninstall(pruner)
