"""``symguard prune-guards MODEL.py``: Dynamo's stock shape guards against symguard's minimal ones.

The model spec is the ``shrink-model`` one (docs/shrink_model.md), plus an optional
``DYNAMO_CONFIG`` dict (``torch._dynamo.config`` settings for the compile, e.g.
``capture_scalar_outputs`` for a model with unbacked symbols). The model is compiled twice with
``torch.compile(dynamic=True)``: stock, and inside ``prune_guards()`` (service.torch_hook).
Each compile gets its own code object, so the two cache entries never see each other.

The differential: candidate shapes within the dynamic dims' ranges (the example, one dim at a
time to its range ends, +-1 and +-2, the multiples of 2..64 around the example -- the pad and
merge boundaries --, halves and doubles, and random points) are classified by the stock guard
check on cheap empty tensors; ``N`` of them are picked half accepted, half rejected (as far as
there are). For each it counts three kinds of disagreement (docs/torch_guards.md, "The
differential"): the pruned compile's emitted guard code against its *own* unpruned guard code
(a pruning bug), the stock and the pruned guard managers' verdicts (the two compiles accept
differently), and every compiled function that accepts against eager (a wrong kernel). Each
compile sees the same on-disk cache state (``cache``: a fresh empty dir each, or each its own
copy of one primed dir), so a graph the stock compile cached is never what the pruned one loads.
The per-call guard cost is the median over batches of many ``check`` calls on the example.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO

from symguard.solver.errors import InvalidProblemError

from . import guard_diff as gd
from .oneline import summary_line
from .shrink_model import ModelSpec, load_spec

Dims = dict[int, dict[int, tuple[int, int]]]  # positional arg -> dim -> (min, max)
Shape = tuple[tuple[int, ...], ...]  # one shape per positional arg
DEFAULT_SHAPES = 200


@dataclass
class Target:
    """What to compile and how to vary it."""

    name: str
    model: Any
    example: tuple[Any, ...]
    dims: Dims
    make_inputs: Callable[[Shape], tuple[Any, ...]]
    atol: float = 1e-5
    rtol: float = 1e-4
    dynamo_config: dict[str, Any] = field(default_factory=dict)


@dataclass
class Compiled:
    """One compile: the function to call, its cache entry's guard manager, what the hook saw."""

    fn: Callable[..., Any]
    guard_manager: Any
    compile_s: float
    history: list[dict[str, Any]]
    arg_names: list[str]

    def locals_for(self, model: Any, args: tuple[Any, ...]) -> dict[str, Any]:
        return {"m": model, **dict(zip(self.arg_names, args))}

    def shape_guard(self) -> Any:
        """The lambda guard holding the shape guards (Python shape guards), or None."""
        emitted = [h.get("verbose") for h in self.history if h.get("verbose")]
        if not emitted:
            return None
        want = emitted[-1]
        for g in self.guard_manager.root.get_epilogue_lambda_guards():
            if list(g.verbose_code_parts()) == want:
                return g
        return None

    def shape_guard_count(self) -> int:
        """Expressions in the shape-guard code Dynamo emitted (all four parts, see torch_bridge)."""
        counts = [int(h["emitted"]) for h in self.history if h.get("emitted") is not None]
        return counts[-1] if counts else 0

    def symguard_s(self) -> float:
        """Time inside the hook (observing, for a stock compile: not part of its compile time)."""
        return sum(float(h.get("seconds") or 0.0) for h in self.history)

    def produce_s(self) -> float:
        """Time in Dynamo's own ``produce_guards_verbose`` (with the pruned list when pruning)."""
        return sum(float(h.get("produce_seconds") or 0.0) for h in self.history)

    def sum_of(self, key: str) -> float:
        return sum(float(h.get(key) or 0.0) for h in self.history)


# ------------------------------------------------------------------ targets

def _dim_ranges(dynamic_shapes: Any, example: tuple[Any, ...]) -> Dims:
    """``{arg: {dim: (min, max)}}`` from torch.export-style ``dynamic_shapes`` (Dim, Dim.AUTO, None)."""
    specs = list(dynamic_shapes.values()) if isinstance(dynamic_shapes, dict) else list(dynamic_shapes or ())
    out: Dims = {}
    for i, spec in enumerate(specs):
        if not isinstance(spec, dict) or i >= len(example):
            continue
        for d, hint in spec.items():
            if hint is None or not isinstance(d, int) or d >= example[i].dim():
                continue
            size = int(example[i].shape[d])
            lo_: Any = getattr(hint, "min", None)
            hi_: Any = getattr(hint, "max", None)
            lo = 0 if lo_ is None else int(lo_)
            hi = max(size, 4 * size + 64) if hi_ is None or hi_ > 10**9 else int(hi_)
            out.setdefault(i, {})[d] = (lo, hi)
    return out


def target_from_spec(spec: ModelSpec) -> Target:
    """A shrink-model spec as a differential target (built from its fixed seed, eval mode)."""
    try:
        import torch
    except ImportError:
        raise InvalidProblemError("prune-guards needs PyTorch: pip install 'symguard[torch]'") from None
    mod = spec.module
    sys.modules.setdefault(mod.__name__, mod)  # Dynamo looks the model's globals up by module name
    torch.manual_seed(spec.seed)
    try:
        model = mod.build_model().eval()
        example = tuple(mod.example_inputs())
    except Exception as e:
        raise InvalidProblemError(f"building the model or its example inputs failed: {type(e).__name__}: {e}",
                                  where=str(spec.path)) from e
    if not example or not all(isinstance(a, torch.Tensor) for a in example):
        raise InvalidProblemError("example_inputs() must return a tuple of tensors", where=f"{spec.path}:example_inputs")
    dims = _dim_ranges(mod.dynamic_shapes, example)
    names = _arg_names(model, len(example))

    def make(shapes: Shape) -> tuple[Any, ...]:
        if hasattr(mod, "make_inputs"):
            return tuple(mod.make_inputs(dict(zip(names, shapes))))
        return random_inputs(example, shapes)

    return Target(spec.name, model, example, dims, make, spec.atol, spec.rtol,
                  dict(getattr(mod, "DYNAMO_CONFIG", {}) or {}))


def _arg_names(model: Any, n: int) -> list[str]:
    """The forward's first ``n`` positional parameter names (what ``make_inputs`` is keyed by, as in
    shrink-model), else ``a0``, ``a1``, …."""
    import inspect

    try:
        params = [p.name for p in inspect.signature(model.forward).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    return params[:n] if len(params) >= n else [f"a{i}" for i in range(n)]


def random_inputs(example: tuple[Any, ...], shapes: Shape, seed: int = 1) -> tuple[Any, ...]:
    """Random inputs shaped like ``shapes`` and typed like the examples (integers keep their range)."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    out = []
    for ex, shape in zip(example, shapes):
        if ex.dtype == torch.bool:
            out.append(torch.rand(shape, generator=gen) < 0.5)
        elif ex.is_floating_point():
            out.append(torch.randn(shape, dtype=ex.dtype, generator=gen))
        else:
            lo, hi = (int(ex.min()), int(ex.max())) if ex.numel() else (0, 0)
            out.append(torch.randint(lo, hi + 1, shape, dtype=ex.dtype, generator=gen))
    return tuple(out)


# ------------------------------------------------------------------ compiling

def _fresh_forward(n_args: int, tag: str) -> tuple[Callable[..., Any], list[str]]:
    """``def _fwd(m, a0, …): return m(a0, …)`` with a code object of its own (its own Dynamo cache)."""
    names = [f"a{i}" for i in range(n_args)]
    src = f"def _fwd(m, {', '.join(names)}):\n    return m({', '.join(names)})\n"
    ns: dict[str, Any] = {}
    exec(compile(src, f"<symguard prune-guards {tag}>", "exec"), ns)  # noqa: S102 - our own fixed text
    return ns["_fwd"], names


def compile_target(target: Target, *, prune: bool, backend: str = "inductor", client: Any = None,
                   timeout_ms: int = 60_000, fast_trace: bool | None = None, cache: Any = None) -> Compiled:
    """Compile once at the example, stock (``prune=False``: the hook only observes) or pruned;
    ``fast_trace`` (default: as ``prune``) traces with ``service.torch_fast`` on. ``cache``, a
    context manager, sets the on-disk cache state the compile sees (``guard_diff``)."""
    import torch
    from torch._C._dynamo.eval_frame import _debug_get_cache_entry_list

    from ..torch_hook import prune_guards

    fn, names = _fresh_forward(len(target.example), "pruned" if prune else "stock")
    t0 = time.perf_counter()
    with contextlib.ExitStack() as stack:
        if cache is not None:
            stack.enter_context(cache)
        stack.enter_context(torch._dynamo.config.patch(**target.dynamo_config))
        pruner = stack.enter_context(prune_guards(client=client, timeout_ms=timeout_ms, prune=prune,
                                                      fast_trace=prune if fast_trace is None else fast_trace))
        stack.enter_context(torch.no_grad())
        compiled = torch.compile(fn, dynamic=True, backend=backend)
        compiled(target.model, *target.example)
    seconds = time.perf_counter() - t0
    if not prune:  # the observing hook's own time is no part of a stock compile
        seconds -= sum(float(h.get("seconds") or 0.0) for h in pruner.history)
    entries = _debug_get_cache_entry_list(fn.__code__)
    if not entries:
        raise InvalidProblemError("torch.compile installed no guards for the model's frame", where=target.name)
    return Compiled(compiled, entries[0].guard_manager, seconds, pruner.history, names)


# ------------------------------------------------------------------ shapes

def candidate_shapes(target: Target, *, seed: int = 0, n_random: int = 400) -> list[Shape]:
    """Deterministic candidates inside the dynamic dims' ranges (see the module docstring)."""
    rng = random.Random(seed)
    base = tuple(tuple(int(s) for s in a.shape) for a in target.example)
    dims = [(i, d, lo, hi) for i, per in sorted(target.dims.items()) for d, (lo, hi) in sorted(per.items())]

    def near(lo: int, hi: int, e: int) -> list[int]:
        vals = {lo, lo + 1, lo + 2, hi, e, e - 1, e + 1, e - 2, e + 2, e // 2, 2 * e, 2 * e + 1, 3 * e}
        for k in (2, 3, 4, 7, 8, 14, 16, 28, 32, 56, 64):
            r = e - e % k
            vals |= {r, r + k, r - 1, r + 1, r + k - 1, r + k + 1, r + 2 * k}
        for k in (4, 8, 16, 32, 64, 128):  # the example's residues kept: shapes the stock guards tend to accept
            vals |= {e + j * k for j in (-3, -2, -1, 1, 2, 3)}
        return sorted(v for v in vals if lo <= v <= hi)

    cands = {(i, d): near(lo, hi, base[i][d]) for i, d, lo, hi in dims}

    def with_values(vals: dict[tuple[int, int], int]) -> Shape:
        return tuple(tuple(vals.get((i, d), s) for d, s in enumerate(shape)) for i, shape in enumerate(base))

    out: list[Shape] = [base]
    for i, d, _, _ in dims:  # one dim at a time
        out += [with_values({(i, d): v}) for v in cands[(i, d)]]
    for _ in range(n_random):  # every dim from its near-example values, then uniform
        out.append(with_values({k: rng.choice(v) for k, v in cands.items()}))
    for _ in range(n_random):
        out.append(with_values({(i, d): rng.randint(lo, min(hi, 4 * max(base[i][d], 2) + 64))
                                for i, d, lo, hi in dims}))
    # duck sizing: dims with equal example sizes share a symbol, so the shapes that keep them
    # equal are the ones the guards can accept (shapes where they differ were tried above)
    groups: dict[int, list[tuple[int, int]]] = {}
    for i, d, _, _ in dims:
        groups.setdefault(base[i][d], []).append((i, d))
    tied = [g for g in groups.values() if len(g) > 1]
    if tied:
        def together(pick: Callable[[tuple[int, int]], int]) -> Shape:
            vals = {k: pick(k) for k in cands}
            for g in tied:
                for k in g[1:]:
                    vals[k] = vals[g[0]]
            return with_values(vals)

        def one_group(g: list[tuple[int, int]], v: int) -> Callable[[tuple[int, int]], int]:
            return lambda k: v if k in g else base[k[0]][k[1]]

        for g in tied:
            out += [together(one_group(g, v)) for v in cands[g[0]]]
        for _ in range(n_random):
            out.append(together(lambda k: rng.choice(cands[k])))
    seen: set[Shape] = set()
    uniq = []
    for s in out:
        if s not in seen:
            seen.add(s)
            uniq.append(s)
    return uniq


def _empty_like(target: Target, shape: Shape) -> tuple[Any, ...]:
    import torch

    return tuple(torch.empty(s, dtype=ex.dtype) for ex, s in zip(target.example, shape))


def pick_shapes(target: Target, stock: Compiled, n: int, *, seed: int = 0) -> list[Shape]:
    """``n`` candidates, half accepted and half rejected by the stock guards where possible."""
    rng = random.Random(seed)
    cands = candidate_shapes(target, seed=seed, n_random=max(400, 2 * n))
    acc: list[Shape] = []
    rej: list[Shape] = []
    import torch

    with torch.no_grad():  # grad mode is part of the guards: judge as the compiled calls run
        for s in cands:
            (acc if stock.guard_manager.check(stock.locals_for(target.model, _empty_like(target, s))) else rej).append(s)
    rng.shuffle(acc)
    rng.shuffle(rej)
    k = min(len(acc), max(n // 2, n - len(rej)))
    chosen = acc[:k] + rej[: n - k]
    chosen.sort(key=lambda s: (s != tuple(tuple(a.shape) for a in target.example), cands.index(s)))
    return chosen


# ------------------------------------------------------------------ timing and the differential

def check_us(manager: Any, local: dict[str, Any], *, calls: int = 200, rounds: int = 21) -> float:
    """Median over ``rounds`` of the mean per-call time of ``calls`` guard checks, in microseconds."""
    per = []
    for _ in range(rounds):
        t0 = time.perf_counter_ns()
        for _ in range(calls):
            manager.check(local)
        per.append((time.perf_counter_ns() - t0) / calls / 1000)
    return statistics.median(per)


def paired_us(a: Callable[[], Any], b: Callable[[], Any], *, calls: int = 200, rounds: int = 21) -> tuple[float, float]:
    """Medians of ``a`` and ``b`` per call, timed in alternating rounds (same machine state for both)."""
    ta: list[float] = []
    tb: list[float] = []
    for _ in range(rounds):
        for f, acc in ((a, ta), (b, tb)):
            t0 = time.perf_counter_ns()
            for _ in range(calls):
                f()
            acc.append((time.perf_counter_ns() - t0) / calls / 1000)
    return statistics.median(ta), statistics.median(tb)


def _outputs_match(x: Any, y: Any, atol: float, rtol: float) -> bool:
    import torch

    xs = [t for t in torch.utils._pytree.tree_leaves(x) if isinstance(t, torch.Tensor)]
    ys = [t for t in torch.utils._pytree.tree_leaves(y) if isinstance(t, torch.Tensor)]
    return len(xs) == len(ys) and all(a.shape == b.shape and torch.allclose(a, b, atol=atol, rtol=rtol, equal_nan=True)
                                      for a, b in zip(xs, ys))


@contextlib.contextmanager
def _progress(total: int, label: str, enabled: bool) -> Iterator[Callable[[], None]]:
    if not enabled:
        yield lambda: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=total)
        yield lambda: bar.advance(task)


def _compile_or_error(target: Target, **kw: Any) -> Compiled | str:
    """The compile, or its exception as ``"Type: message"`` (compared between stock and pruned)."""
    try:
        return compile_target(target, **kw)
    except InvalidProblemError:
        raise
    except Exception as e:  # noqa: BLE001 - a compile error is an outcome: pruning must not change it
        return f"{type(e).__name__}: {e}"


STOCK_TRACES = ("stock", "fast")


def compile_pair(target: Target, *, backend: str, client: Any, timeout_ms: int, cache: str,
                 root: str, stock_trace: str = "stock") -> tuple[Compiled | str, Compiled | str]:
    """Stock and pruned, each in the same cache state (``guard_diff.cache_state``); ``warm``
    first primes the cache with a compile of its own. ``stock_trace="fast"`` traces the stock
    (and priming) compiles with ``service.torch_fast`` too: the same guards (its own differential,
    docs/torch_guards.md), in minutes where stock sympy takes hours (inductor on ``swin_window``);
    the pruning is then the only difference between the two compiles."""
    if cache not in gd.CACHE_MODES:
        raise InvalidProblemError(f"--cache must be one of {', '.join(gd.CACHE_MODES)}", where="--cache")
    if stock_trace not in STOCK_TRACES:
        raise InvalidProblemError(f"--stock-trace must be one of {', '.join(STOCK_TRACES)}", where="--stock-trace")
    fast = stock_trace == "fast"
    if cache == "warm":
        _compile_or_error(target, prune=False, backend=backend, cache=gd.priming(root), fast_trace=fast)
    stock = _compile_or_error(target, prune=False, backend=backend, client=client, timeout_ms=timeout_ms,
                              cache=gd.cache_state(cache, root), fast_trace=fast)
    pruned = _compile_or_error(target, prune=True, backend=backend, client=client, timeout_ms=timeout_ms,
                               cache=gd.cache_state(cache, root))
    return stock, pruned


def differential(target: Target, *, shapes: int = DEFAULT_SHAPES, seed: int = 0, backend: str = "inductor",
                 client: Any = None, timeout_ms: int = 60_000, progress: bool = False,
                 stock: Compiled | None = None, pruned: Compiled | None = None,
                 cache: str = "cold", stock_trace: str = "stock") -> dict[str, Any]:
    """Compile (unless given) stock and pruned, compare them on ``shapes`` shapes; the JSON summary.

    Disagreements come in kinds (``by_kind``): ``compile_error`` (the compiles fail differently),
    ``own_guards`` (the pruned compile's emitted guards judge a shape unlike its own unpruned
    guards: a pruning bug), ``acceptance`` (the stock and the pruned compile accept differently),
    ``output`` (a compiled function that accepts disagrees with eager: a wrong kernel). Every one
    is listed in ``examples`` with its input shapes."""
    root = tempfile.mkdtemp(prefix="symguard-prune-guards-")
    try:
        if stock is None or pruned is None:
            s, p = compile_pair(target, backend=backend, client=client, timeout_ms=timeout_ms, cache=cache,
                                root=root, stock_trace=stock_trace)
            if isinstance(s, str) or isinstance(p, str):
                return {**_compile_errors(target, s, p, backend, cache), "stock_trace": stock_trace}
            stock, pruned = stock or s, pruned or p
        return {**_compare(target, stock, pruned, shapes=shapes, seed=seed, backend=backend, progress=progress,
                           cache=cache), "stock_trace": stock_trace}
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _compile_errors(target: Target, stock: Compiled | str, pruned: Compiled | str, backend: str,
                    cache: str) -> dict[str, Any]:
    """The summary when a compile raised: a disagreement unless both raised the same error."""
    def err(c: Compiled | str) -> str | None:
        return c if isinstance(c, str) else None

    bad = [] if err(stock) == err(pruned) else [{"kind": "compile_error", "stock": err(stock), "pruned": err(pruned)}]
    return {"model": target.name, "compile_error": {"stock": err(stock), "pruned": err(pruned)},
            "disagreements": len(bad), "by_kind": _kinds(bad), "examples": bad, "backend": backend, "cache": cache,
            "cpp_guards": bool(target.dynamo_config.get("enable_cpp_symbolic_shape_guards"))}


def _kinds(bad: list[dict[str, Any]]) -> dict[str, int]:
    out = {k: 0 for k in ("compile_error", "own_guards", "acceptance", "output")}
    for b in bad:
        out[b["kind"]] = out.get(b["kind"], 0) + 1
    return out


def _compare(target: Target, stock: Compiled, pruned: Compiled, *, shapes: int, seed: int, backend: str,
             progress: bool, cache: str) -> dict[str, Any]:
    import torch

    picked = pick_shapes(target, stock, shapes, seed=seed)
    bad: list[dict[str, Any]] = []
    accepted = rejected = 0
    codes = gd.own_code(pruned.history)
    glb = gd.guard_globals({"G": pruned.fn.__globals__} if hasattr(pruned.fn, "__globals__") else None)
    own_checked = 0
    with _progress(len(picked), f"prune-guards {target.name}", progress) as tick, torch.no_grad(), \
            torch.compiler.set_stance("fail_on_recompile"):
        for shape in picked:
            args = target.make_inputs(shape)
            where = [list(s) for s in shape]
            for graph, own_s, own_p in gd.own_verdicts(codes, pruned.locals_for(target.model, args), glb):
                own_checked += 1
                if own_s != own_p:
                    bad.append({"kind": "own_guards", "shape": where, "graph": graph, "stock_code": own_s,
                                "pruned_code": own_p})
            vs = bool(stock.guard_manager.check(stock.locals_for(target.model, args)))
            vp = bool(pruned.guard_manager.check(pruned.locals_for(target.model, args)))
            ref = gd.outcome(target.model, *args) if vs or vp else None
            runs: dict[str, bool] = {}
            for who, c, ok in (("stock", stock, vs), ("pruned", pruned, vp)):
                if ok and ref is not None:
                    got = gd.outcome(c.fn, target.model, *args)
                    runs[who] = gd.same_outcome(got, ref, target.atol, target.rtol)
                    if not runs[who]:
                        bad.append({"kind": "output", "shape": where, "compiled": who,
                                    "got": got[1] if got[0] == "raises" else "values differ from eager",
                                    "eager": ref[1] if ref[0] == "raises" else "values"})
            if vs != vp:
                bad.append({"kind": "acceptance", "shape": where, "stock": vs, "pruned": vp,
                            "accepting_matches_eager": runs.get("stock" if vs else "pruned")})
            elif vs:
                accepted += 1
            else:
                rejected += 1
            tick()
    with torch.no_grad():
        ls = stock.locals_for(target.model, target.example)
        lp = pruned.locals_for(target.model, target.example)
        whole = paired_us(lambda: stock.guard_manager.check(ls), lambda: pruned.guard_manager.check(lp))
        gs, gp = stock.shape_guard(), pruned.shape_guard()
        part = paired_us(lambda: gs(ls), lambda: gp(lp)) if gs is not None and gp is not None else None
    kept = [h for h in pruned.history if h.get("kept") is not None]
    stock_codes = [c for c, _ in gd.own_code(stock.history)]
    return {
        "model": target.name,
        "guards": {"stock": stock.shape_guard_count(), "pruned": pruned.shape_guard_count(),
                   "decided_stock": sum(int(h.get("guards") or 0) for h in stock.history),
                   "decided_kept": sum(int(h["kept"]) for h in kept) if kept else None,
                   "rewritten": sum(int(h.get("rewritten") or 0) for h in kept),
                   "proven_true": sum(int(h.get("proven_true") or 0) for h in kept)},
        "check_us": {"stock": round(whole[0], 2), "pruned": round(whole[1], 2),
                     "ratio": round(whole[0] / whole[1], 2) if whole[1] else None},
        "shape_check_us": ({"stock": round(part[0], 2), "pruned": round(part[1], 2),
                            "ratio": round(part[0] / part[1], 2) if part[1] else None} if part else None),
        "shapes": {"tried": len(picked), "accepted": accepted, "rejected": rejected},
        "disagreements": len(bad),
        "by_kind": _kinds(bad),
        "examples": bad,
        "own_guards_checked": own_checked,
        # whether both compiles started from the same unpruned guards (None: not recorded)
        "same_unpruned": ([c for c, _ in codes] == stock_codes) if codes and stock_codes else None,
        "compile_s": compile_summary(stock, pruned),
        "symguard_status": [h.get("status") for h in pruned.history],
        "errors": [h["error"] for h in pruned.history if h.get("error")],
        "forms_errors": [h["forms_error"] for h in pruned.history if h.get("forms_error")],
        "backend": backend,
        "cache": cache,
        "cpp_guards": bool(target.dynamo_config.get("enable_cpp_symbolic_shape_guards")),
    }


def compile_summary(stock: Compiled, pruned: Compiled) -> dict[str, Any]:
    """Compile times and symguard's part of them.

    ``symguard`` is the time in the hook (building the problem, ``symguard_solve`` the redundancy
    answer, ``symguard_forms`` the cheaper forms); ``added`` is what pruning adds to the compile:
    the hook plus Dynamo's guard production on the stock and on the pruned list, minus Dynamo's
    guard production on the stock list in the stock compile (the hook's ShapeEnv simplification
    is cached, and Dynamo reuses it), and
    ``added_share`` that over the stock compile. ``symguard_share`` is the hook's time over the
    pruned compile."""
    # the pruned compile runs Dynamo's stock production too (first, for its errors and its
    # unpruned code): that is part of what pruning adds
    added = pruned.symguard_s() + pruned.produce_s() + pruned.sum_of("stock_produce_seconds") - stock.produce_s()
    return {"stock": round(stock.compile_s, 3), "pruned": round(pruned.compile_s, 3),
            "symguard": round(pruned.symguard_s(), 3), "symguard_solve": round(pruned.sum_of("solve_seconds"), 3),
            "symguard_forms": round(pruned.sum_of("forms_seconds"), 3),
            "produce_stock": round(stock.produce_s(), 3), "produce_pruned": round(pruned.produce_s(), 3),
            "added": round(added, 3), "added_share": round(added / stock.compile_s, 4) if stock.compile_s > 0 else None,
            "symguard_share": round(pruned.symguard_s() / pruned.compile_s, 4) if pruned.compile_s else None}


def run_spec(path: str, *, shapes: int = DEFAULT_SHAPES, seed: int = 0, backend: str = "inductor",
             client: Any = None, timeout_ms: int = 60_000, progress: bool = False, cache: str = "cold",
             cpp_guards: bool = False, stock_trace: str = "stock") -> dict[str, Any]:
    """The whole command on one model spec file."""
    target = target_from_spec(load_spec(path))
    if cpp_guards:
        target.dynamo_config["enable_cpp_symbolic_shape_guards"] = True
    return differential(target, shapes=shapes, seed=seed, backend=backend, client=client, timeout_ms=timeout_ms,
                        progress=progress, cache=cache, stock_trace=stock_trace)


def add_parser(sub: Any, remote: Callable[[argparse.ArgumentParser], None]) -> None:
    """Register ``symguard prune-guards`` on the CLI's subcommands."""
    p = sub.add_parser("prune-guards", help="compile a PyTorch model described by MODEL.py with Dynamo's stock "
                       "and with symguard's minimal shape guards; a differential and the per-call guard cost "
                       "(docs/torch_guards.md)")
    p.add_argument("model", metavar="MODEL.py", help="a model spec: build_model, example_inputs, dynamic_shapes")
    p.add_argument("--shapes", type=int, default=DEFAULT_SHAPES, help=f"input shapes tried (default {DEFAULT_SHAPES})")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--backend", default="inductor", help="torch.compile backend (default inductor)")
    p.add_argument("--timeout-ms", type=int, default=60_000, help="budget of the redundancy question per graph")
    p.add_argument("--cache", choices=gd.CACHE_MODES, default="cold",
                   help="on-disk inductor caches each compile sees: cold (a fresh empty dir each, default) or "
                        "warm (each its own copy of a dir primed by one more compile)")
    p.add_argument("--cpp-guards", action="store_true",
                   help="C++ shape guards (torch._dynamo.config.enable_cpp_symbolic_shape_guards)")
    p.add_argument("--stock-trace", choices=STOCK_TRACES, default="stock",
                   help="how the stock compile traces: stock sympy (default) or with symguard's memo tables "
                        "(fast_trace: the same guards, for models whose stock inductor compile takes hours)")
    remote(p)
    p.set_defaults(func=_cmd)


def _cmd(args: argparse.Namespace, out: TextIO) -> int:
    return summary_line(args, out, lambda client: main_args(args, client), pad_s=5)


def main_args(args: Any, client: Any = None) -> tuple[dict[str, Any], int]:
    """The CLI's summary line and exit status (1 on any disagreement)."""
    if args.shapes < 1:
        raise InvalidProblemError("--shapes must be at least 1", where="--shapes")
    out = run_spec(args.model, shapes=args.shapes, seed=args.seed, backend=args.backend, client=client,
                   timeout_ms=args.timeout_ms, progress=sys.stderr.isatty() and args.shapes >= 50,
                   cache=getattr(args, "cache", "cold"), cpp_guards=bool(getattr(args, "cpp_guards", False)),
                   stock_trace=getattr(args, "stock_trace", "stock"))
    return out, (1 if out["disagreements"] else 0)
