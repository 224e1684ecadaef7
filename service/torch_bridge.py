"""PyTorch bridge: a problem document (docs/problem-format.md §1) from a live ShapeEnv, an ExportedProgram or a
``torch.compile`` backend.

torch is imported lazily (inside the functions), so importing this module never needs the
optional ``torch`` extra.

PyTorch's assumptions, made explicit in the document rather than hidden:

- **0/1 specialization**: a backed size symbol starts with the range ``[2, oo)`` (sizes 0 and 1
  are specialized to constants); the document says ``min: 2``.
- **duck sizing**: dims with equal example sizes share one symbol (no assert is needed; the
  merge is already in the expressions). ``shrink``'s ``preserve_distinct`` keeps symbols with
  different hints different so a small repro is not merged further.
- **unbacked symbols** (``.item()``, ``nonzero``) have no hint; size-like ones are ``>= 0``.
- **ranges are the ones known before any guard.** PyTorch narrows ``var_to_range`` every time
  a guard like ``s0 < 16`` is evaluated; using the narrowed range would make that guard look
  implied by the ranges ("always_true") and a pruned guard set would drop a check PyTorch really
  needs. ``record_ranges()`` remembers each symbol's range before its first guard-derived
  narrowing; facts (``Dim`` min/max constraints, ``constrain_range``/size-like bounds) are kept.
  Without it the current (possibly narrowed) ranges are used and ``meta.ranges`` says so.
- **replacements** (``s1 -> s0``) come from ``Eq`` guards or from runtime asserts; one becomes an
  assert ``Eq(s1, s0)`` only when no guard mentions ``s1`` (otherwise the guard carries it and
  asserting it would make the guard look redundant); all are listed in ``meta.replacements``.
- **deferred runtime asserts** (``torch._check`` on unbacked values) are asserts: PyTorch checks
  them at run time.
- **one odd guard never rejects the problem**: documents carry ``options.on_unsupported: "skip"``,
  so a guard symguard cannot read exactly (a float function, a bitwise op of two symbols, …) is
  reported as ``unsupported`` in the answer and kept in ``minimal``, never assumed
  (docs/pytorch-functions.md lists what is read exactly).

The guard-pruning switch built on these documents (``symguard.torch``) is in ``torch_hook``
(Dynamo's call), ``torch_prune`` (the decision per ShapeEnv), ``torch_guards`` (the guards as a
problem), ``torch_forms`` (cheaper forms of the kept guards) and ``torch_cache`` (answers kept
in-process).
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterator, Mapping
from typing import Any

Doc = dict[str, Any]

# every bridge document: a guard outside what symguard reads exactly is skipped and reported
# (docs/problem-format.md §1.1), never a reason to reject the whole problem
OPTIONS: dict[str, Any] = {"on_unsupported": "skip"}

_local = threading.local()


# ------------------------------------------------------------------ ranges before guards

@contextlib.contextmanager
def record_ranges() -> Iterator[dict[Any, Any]]:
    """Remember every symbol's range before guards narrow it (while tracing in this block).

    Yields the mapping ``symbol -> ValueRanges`` (pass it as ``initial_ranges``). Patches
    ``ShapeEnv._update_var_to_range`` and ``ShapeEnv.constrain_symbol_range`` for the duration.
    """
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    initial: dict[Any, Any] = {}
    orig_update = ShapeEnv._update_var_to_range
    orig_constrain = ShapeEnv.constrain_symbol_range

    def update(self: Any, symbol: Any, vr: Any, vr_sloc: Any = None, *, is_constraint: bool = False) -> None:
        fact = is_constraint or getattr(_local, "fact", 0) > 0
        old = self.var_to_range.get(symbol)
        if not fact and symbol not in initial and old is not None:
            initial[symbol] = old
        orig_update(self, symbol, vr, vr_sloc, is_constraint=is_constraint)
        if fact:
            initial[symbol] = (initial[symbol] & vr) if symbol in initial else self.var_to_range[symbol]

    def constrain(self: Any, *args: Any, **kwargs: Any) -> Any:
        _local.fact = getattr(_local, "fact", 0) + 1
        try:
            return orig_constrain(self, *args, **kwargs)
        finally:
            _local.fact -= 1

    ShapeEnv._update_var_to_range = update  # type: ignore[method-assign]
    ShapeEnv.constrain_symbol_range = constrain  # type: ignore[method-assign,assignment]
    try:
        yield initial
    finally:
        ShapeEnv._update_var_to_range = orig_update  # type: ignore[method-assign]
        ShapeEnv.constrain_symbol_range = orig_constrain  # type: ignore[method-assign,assignment]


def _bound(b: Any) -> int | None:
    """A ValueRanges bound as a JSON int; sympy ``oo`` and PyTorch's ``int_oo`` become null."""
    from torch.utils._sympy.numbers import IntInfinity, NegativeIntInfinity

    if isinstance(b, (IntInfinity, NegativeIntInfinity)):
        return None
    try:
        if getattr(b, "is_finite", True) is False or getattr(b, "is_infinite", False):
            return None
        return int(b)
    except (TypeError, ValueError, OverflowError):
        return None


# ------------------------------------------------------------------ ShapeEnv -> problem

def problem_from_shape_env(env: Any, *, inputs: Mapping[str, list[int | str]] | None = None,
                           initial_ranges: Mapping[Any, Any] | None = None,
                           source: str | None = None) -> Doc:
    """The problem of a ShapeEnv: symbols (ranges, hints), asserts, guards, inputs."""
    hints = getattr(env, "backed_var_to_val", None)
    if hints is None:
        hints = env.var_to_val
    guards: list[str] = []
    seen: set[str] = set()
    for g in env.guards:
        text = str(g.expr)
        if text not in seen:
            seen.add(text)
            guards.append(text)
    symbols: dict[str, dict[str, int | None]] = {}
    for s, r in sorted(env.var_to_range.items(), key=lambda kv: _sym_key(str(kv[0]))):
        name = str(s)
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            continue
        rng = initial_ranges.get(s, r) if initial_ranges is not None else r
        if not getattr(rng, "is_int", True):
            continue  # float symbols (unbacked floats) are outside symguard's integer problems
        entry: dict[str, int | None] = {"min": _bound(rng.lower), "max": _bound(rng.upper)}
        if s in hints:
            try:
                entry["hint"] = int(hints[s])
            except (TypeError, ValueError):
                pass
        symbols[name] = entry
    asserts: list[str] = []
    mentioned = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", " ".join(guards)))
    replacements: dict[str, str] = {}
    for s, e in env.replacements.items():
        if str(s) == str(e):
            continue
        replacements[str(s)] = str(e)
        if str(s) not in mentioned:
            asserts.append(f"Eq({s}, {e})")
    for ras in getattr(env, "deferred_runtime_asserts", {}).values():
        for ra in ras:
            asserts.append(str(ra.expr))
    asserts = list(dict.fromkeys(asserts))
    doc: Doc = {}
    if source:
        doc["source"] = source
    doc.update({"symbols": symbols, "asserts": asserts, "guards": guards, "options": dict(OPTIONS)})
    if inputs:
        doc["inputs"] = {k: list(v) for k, v in inputs.items()}
    doc["meta"] = {
        "ranges": "before guards" if initial_ranges is not None else "as narrowed by guards (no record_ranges)",
        "replacements": replacements,
        "unbacked": sorted((n for n in symbols if "hint" not in symbols[n]), key=_sym_key),
    }
    return doc


def _sym_key(name: str) -> tuple[str, int]:
    m = re.fullmatch(r"([A-Za-z_]+)(\d*)", name)
    return (m.group(1), int(m.group(2) or -1)) if m else (name, -1)


def _dims(val: Any) -> tuple[list[int | str], Any]:
    """A tensor's (or SymInt's) shape as ints / expression strings, and its ShapeEnv if symbolic."""
    import torch

    env = None
    if isinstance(val, torch.SymInt):
        return [str(val.node.expr)], val.node.shape_env
    dims: list[int | str] = []
    for d in getattr(val, "shape", ()):
        if isinstance(d, torch.SymInt):
            env = d.node.shape_env
            dims.append(str(d.node.expr) if not d.node.expr.is_number else int(d.node.expr))
        else:
            dims.append(int(d))
    if env is None:
        fm = getattr(val, "fake_mode", None)
        env = getattr(fm, "shape_env", None)
    return dims, env


# ------------------------------------------------------------------ ExportedProgram

def problem_from_exported(ep: Any, *, initial_ranges: Mapping[Any, Any] | None = None,
                          source: str | None = None) -> Doc:
    """The problem of an ExportedProgram: its fake-mode ShapeEnv when a placeholder reaches
    it, else its ``range_constraints`` (symbols only). User inputs become ``inputs``."""
    names = list(ep.graph_signature.user_inputs)
    vals = {n.name: n.meta.get("val") for n in ep.graph.nodes if n.op == "placeholder"}
    inputs: dict[str, list[int | str]] = {}
    env = None
    for n in names:
        dims, e = _dims(vals.get(n))
        inputs[n] = dims
        env = env or e
    if env is not None:
        doc = problem_from_shape_env(env, inputs=inputs, initial_ranges=initial_ranges, source=source)
    else:
        doc = {"source": source} if source else {}
        doc.update({"symbols": {}, "asserts": [], "guards": [], "inputs": inputs, "options": dict(OPTIONS)})
    for s, r in ep.range_constraints.items():  # symbols the ShapeEnv did not list
        if str(s) not in doc["symbols"] and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(s)):
            doc["symbols"][str(s)] = {"min": _bound(r.lower), "max": _bound(r.upper)}
    return doc


# ------------------------------------------------------------------ torch.compile

class CaptureBackend:
    """A ``torch.compile`` backend that records the ShapeEnv problem of every graph it is given
    and runs the graph eagerly (``problems[i]`` for the i-th compiled graph)."""

    def __init__(self, *, initial_ranges: Mapping[Any, Any] | None = None, source: str | None = None) -> None:
        self.problems: list[Doc] = []
        self.initial_ranges = initial_ranges
        self.source = source

    def __call__(self, gm: Any, example_inputs: list[Any]) -> Any:
        self.problems.append(problem_from_graph(gm, example_inputs, initial_ranges=self.initial_ranges,
                                                source=self.source))
        return gm.forward


def problem_from_graph(gm: Any, example_inputs: list[Any], *, initial_ranges: Mapping[Any, Any] | None = None,
                       source: str | None = None) -> Doc:
    """Inside a compile backend: the ShapeEnv from the TracingContext or the example inputs."""
    import torch

    env = None
    ctx = torch._guards.TracingContext.try_get()
    if ctx is not None and getattr(ctx, "fake_mode", None) is not None:
        env = getattr(ctx.fake_mode, "shape_env", None)
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    inputs: dict[str, list[int | str]] = {}
    for i, node in enumerate(placeholders):
        val = node.meta.get("example_value", node.meta.get("val"))
        if val is None and i < len(example_inputs):
            val = example_inputs[i]
        if not isinstance(val, (torch.Tensor, torch.SymInt)):
            continue
        dims, e = _dims(val)
        env = env or e
        if any(isinstance(d, str) for d in dims):  # parameters and buffers have static shapes
            inputs[node.name] = dims
    if env is None:
        return {"source": source, "symbols": {}, "asserts": [], "guards": [], "inputs": inputs,
                "options": dict(OPTIONS)}
    return problem_from_shape_env(env, inputs=inputs, initial_ranges=initial_ranges, source=source)


def capture_compile(fn: Any, *args: Any, initial_ranges: Mapping[Any, Any] | None = None,
                    source: str | None = None, **compile_kwargs: Any) -> Doc:
    """Run ``torch.compile(fn, dynamic=True, fullgraph=True)`` once on ``args``; the last graph's
    problem (one graph with ``fullgraph=True``). Ranges are recorded before guards narrow them."""
    import torch

    torch._dynamo.reset()
    kw = {"dynamic": True, "fullgraph": True, **compile_kwargs}
    with contextlib.ExitStack() as stack:
        # float module attributes (eps, dropout p) would otherwise become float symbols whose
        # guards are outside symguard's integer problems
        stack.enter_context(torch._dynamo.config.patch(specialize_float=True))
        rec = initial_ranges if initial_ranges is not None else stack.enter_context(record_ranges())
        backend = CaptureBackend(initial_ranges=rec, source=source)
        with torch.no_grad():
            torch.compile(fn, backend=backend, **kw)(*args)
    if not backend.problems:
        raise RuntimeError("torch.compile produced no graph")
    return backend.problems[-1]


def capture_export(model: Any, args: tuple[Any, ...], *, dynamic_shapes: Any,
                   source: str | None = None, strict: bool = False) -> Doc:
    """``torch.export.export`` with ranges recorded before guards narrow them."""
    import torch

    with record_ranges() as rec:
        ep = torch.export.export(model, args, dynamic_shapes=dynamic_shapes, strict=strict)
    _apply_dim_hints(ep, dynamic_shapes, rec)
    return problem_from_exported(ep, initial_ranges=rec, source=source)


def _apply_dim_hints(ep: Any, dynamic_shapes: Any, initial: dict[Any, Any]) -> None:
    """``Dim.AUTO(min, max)`` ranges are the input contract, but export applies them after tracing
    by assigning ``var_to_range`` directly (not seen by ``record_ranges``): intersect them in.
    Handles the common case of positional tensor arguments."""
    import torch
    from torch.utils._sympy.numbers import int_oo
    from torch.utils._sympy.value_ranges import ValueRanges

    specs = list(dynamic_shapes.values()) if isinstance(dynamic_shapes, dict) else list(dynamic_shapes or ())
    vals = {n.name: n.meta.get("val") for n in ep.graph.nodes if n.op == "placeholder"}
    for name, spec in zip(ep.graph_signature.user_inputs, specs):
        shape = getattr(vals.get(name), "shape", None)
        if not isinstance(spec, dict) or shape is None:
            continue
        for d, hint in spec.items():
            lo, hi = getattr(hint, "min", None), getattr(hint, "max", None)
            size = shape[d] if isinstance(d, int) and d < len(shape) else None
            if (lo is None and hi is None) or not isinstance(size, torch.SymInt):
                continue
            sym = getattr(size.node, "_expr", size.node.expr)  # before replacements (s40 -> s0)
            if sym.is_Symbol and sym in initial:
                initial[sym] = initial[sym] & ValueRanges(0 if lo is None else lo, int_oo if hi is None else hi)


# ------------------------------------------------------------------ checking with symguard

def parse_failures(doc: Doc) -> list[dict[str, str]]:
    """Entries symguard's parser rejects: ``[{"where", "text", "error"}]`` (empty when all parse)."""
    from symguard.solver.errors import SymguardError
    from symguard.solver.syntax.sympy_reader import parse_sympy

    bad: list[dict[str, str]] = []
    for section in ("asserts", "guards"):
        for i, text in enumerate(doc.get(section, [])):
            try:
                parse_sympy(text)
            except SymguardError as e:
                bad.append({"where": f"{section}[{i}]", "text": text, "error": f"{type(e).__name__}: {e}"})
    return bad


def hints_hold(doc: Doc) -> list[str]:
    """Ids of asserts/guards that are false at the hints (empty when the trace point satisfies all;
    skipped when some symbol, e.g. an unbacked one, has no hint)."""
    from symguard.solver.ir.pyeval import holds
    from symguard.solver.syntax.document import load_problem

    p = load_problem({k: v for k, v in doc.items() if k != "meta"})
    env = p.hints
    if env is None:
        return []
    return [c.id for c in (*p.asserts, *p.guards) if c.term is not None and not holds(c.term, env)]

