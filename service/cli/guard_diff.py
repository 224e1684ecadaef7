"""What ``prune-guards``' differential compares, besides the two guard managers (issue 31, item 5).

- **The same cache state for every compile.** Inductor's FX graph and autograd caches bring back,
  with a cached graph, the guards it added while lowering. Compiled one after the other in one
  cache dir, the pruned compile loads the graph the stock compile just stored: the two compiles
  then have different unpruned guard lists, and comparing them compares unlike compiles.
  ``cache_state`` gives every compile its own directory: ``cold``, a fresh empty one; ``warm``,
  a fresh copy of one directory primed by an earlier compile of the same model. In-memory caches
  are cleared before each. (Turning the FX graph and autograd caches off would also make the
  compiles alike, but would no longer test the cached path users run.)
- **Pruning against the compile's own guards.** The pruner's history records, per graph, the
  stock ``produce_guards_verbose`` Python code (``stock_code``) and what was emitted
  (``pruned_code``). ``own_verdicts`` evaluates both on the frame's locals the way Dynamo's lambda
  guard does (its closure globals, ``L`` the locals, a guard that raises rejects): a difference
  there is a pruning bug, whatever the cache did.
- **Outputs against eager.** ``outcome`` turns a call into comparable values (tensors, or the
  exception's type), so wherever a compiled function accepts it is checked against eager.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from typing import Any

CACHE_MODES = ("cold", "warm")


@contextlib.contextmanager
def cache_state(mode: str, root: str) -> Iterator[str]:
    """Point ``TORCHINDUCTOR_CACHE_DIR`` at a directory of this compile's own under ``root``
    (kept until ``root`` is removed: compiled code may load from it later) and clear the
    in-memory caches. ``warm`` copies ``root/primed`` (see ``prime``)."""
    from torch._inductor.utils import clear_caches

    clear_caches()
    d = tempfile.mkdtemp(prefix=f"{mode}-", dir=root)
    if mode == "warm":
        primed = os.path.join(root, "primed")
        if os.path.isdir(primed):
            shutil.rmtree(d)
            shutil.copytree(primed, d)
    with _cache_dir(d):
        yield d


@contextlib.contextmanager
def _cache_dir(d: str) -> Iterator[None]:
    """``TORCHINDUCTOR_CACHE_DIR`` set to ``d`` for the block, then as it was."""
    old = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = d
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("TORCHINDUCTOR_CACHE_DIR", None)
        else:
            os.environ["TORCHINDUCTOR_CACHE_DIR"] = old


@contextlib.contextmanager
def priming(root: str) -> Iterator[str]:
    """The directory a priming compile fills, for ``warm`` compiles to copy."""
    from torch._inductor.utils import clear_caches

    clear_caches()
    d = os.path.join(root, "primed")
    os.makedirs(d, exist_ok=True)
    with _cache_dir(d):
        yield d


def guard_globals(extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The globals Dynamo's shape-guard lambda runs with (SYMPY_INTERP and its closure vars)."""
    from torch._dynamo.guards import _get_closure_vars
    from torch.fx.experimental.symbolic_shapes import SYMPY_INTERP

    return {**SYMPY_INTERP, **_get_closure_vars(), **(extra or {})}


def code_holds(code: Sequence[str], local: dict[str, Any], glb: dict[str, Any]) -> bool | None:
    """Shape-guard Python code as Dynamo runs it; a guard that raises rejects. None when the code
    names a local this frame does not have (the code of another frame)."""
    try:
        for c in code:
            if not eval(c, glb, {"L": local}):
                return False
    except KeyError:
        return None
    except Exception:  # noqa: BLE001 - a guard that raises rejects, as in Dynamo
        return False
    return True


def _python(code: Any) -> list[str] | None:
    """The Python lines of a recorded guard code: a list, or ``{"python": [...], ...}`` by language."""
    if isinstance(code, dict):
        code = code.get("python")
    return [str(c) for c in code] if isinstance(code, list) else None


def own_code(history: Sequence[dict[str, Any]]) -> list[tuple[list[str], list[str]]]:
    """Per graph, the Python (stock_code, pruned_code) where the pruner recorded both (an older
    bridge did not, and then nothing is compared). The C++ lines are the same checks printed for
    int64; they are exercised end to end, through the guard manager."""
    out = []
    for h in history:
        s, p = _python(h.get("stock_code")), _python(h.get("pruned_code"))
        if s is not None and p is not None:
            out.append((s, p))
    return out


def own_verdicts(codes: Sequence[tuple[list[str], list[str]]], local: dict[str, Any],
                 glb: dict[str, Any]) -> list[tuple[int, bool, bool]]:
    """(graph, stock_code verdict, pruned_code verdict) for every graph whose code is this frame's."""
    out = []
    for i, (s, p) in enumerate(codes):
        vs, vp = code_holds(s, local, glb), code_holds(p, local, glb)
        if vs is not None and vp is not None:
            out.append((i, vs, vp))
    return out


def outcome(f: Callable[..., Any], *args: Any) -> tuple[str, Any]:
    """``("value", leaves)`` with the tensors ``f(*args)`` returns, or ``("raises", type name)``."""
    import torch

    try:
        out = f(*args)
    except Exception as e:  # noqa: BLE001 - an exception is an outcome to compare
        return ("raises", type(e).__name__)
    return ("value", [t for t in torch.utils._pytree.tree_leaves(out)])


def same_outcome(a: tuple[str, Any], b: tuple[str, Any], atol: float, rtol: float) -> bool:
    """Both raise the same type, or both return tensors (and other leaves) that match."""
    import torch

    if a[0] != b[0]:
        return False
    if a[0] == "raises":
        return bool(a[1] == b[1])
    xs, ys = a[1], b[1]
    if len(xs) != len(ys):
        return False
    for x, y in zip(xs, ys):
        if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor):
            if x.shape != y.shape or not torch.allclose(x, y, atol=atol, rtol=rtol, equal_nan=True):
                return False
        elif isinstance(x, torch.Tensor) or isinstance(y, torch.Tensor) or x != y:
            return False
    return True
