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
"""

from __future__ import annotations

import contextlib
import math
import re
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from typing import Any

from . import torch_fast
from .guard_semantics import compares_floats, executed_exactly, may_divide_by_zero

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


# ------------------------------------------------------------------ pruning Dynamo's shape guards
#
# Dynamo turns a ShapeEnv into guard code in one call, ``ShapeEnv.produce_guards_verbose``, made
# from ``GuardBuilder.SHAPE_ENV`` (torch/_dynamo/guards.py). That call emits, in order:
#   1. ``source == expr`` for every input size/stride/offset whose value is not its own symbol
#      (duck sizing, replacements, derived strides);
#   2. every guard of ``ShapeEnv.guards`` not decided by the ranges, after ``ShapeEnv.simplify``;
#   3. ``lo <= s <= hi`` for every symbol bound to an input, with its *current* range;
#   4. NaN and automatic-dynamic exclusion guards.
# Its ``guards=`` parameter replaces only part 2. The hook below hands it the subset symguard
# proves sufficient (and drops exact repeats of a check, ``drop_duplicates``); parts 1, 3 and 4 and every non-shape guard (TENSOR_MATCH: dtype, device,
# static sizes) stay as they are. symguard is told exactly what part 3 checks -- the ranges as
# they stand when the guards are produced, for symbols bound to an input, and nothing else (no
# runtime asserts: they run inside the graph, not in the guard) -- so "ranges and kept guards
# imply each dropped guard" makes the pruned check accept exactly the inputs the stock check
# accepts (docs/torch_guards.md).

class Record(dict[str, Any]):
    """One compiled graph's entry in ``GuardPruner.history``: a plain dict (docs/torch_guards.md,
    "The pruner's record", lists its keys) whose ``repr`` is a one-line summary, not the whole
    problem and guard code it carries."""

    _SHOWN = ("guards", "kept", "passthrough", "opaque", "status", "seconds", "error")

    def __repr__(self) -> str:
        parts = []
        for k in self._SHOWN:
            v = self.get(k)
            if v is not None:
                parts.append(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v!r}")
        return f"Record({', '.join(parts)})"


class GuardPruner:
    """Decides, per ShapeEnv, which of part 2's guards Dynamo must still emit.

    ``client`` (a ``service.client.Client``) asks a running server; without one symguard runs
    in-process. ``timeout_ms`` bounds the redundancy question. Every decision is recorded in
    ``history`` (a list of dicts: ``guards`` asked about and ``kept`` of them, ``passthrough``
    (decided by the ranges or not asked about, handed on untouched), ``seconds`` with its ``prepare_seconds``
    and ``solve_seconds``, ``status``, ``error``), so a
    caller can report what was pruned and what it cost. Any failure returns ``None``: stock guards.
    """

    def __init__(self, *, client: Any = None, timeout_ms: int = 60_000, prune: bool = True,
                 forms: bool = True) -> None:
        self.client = client
        self.timeout_ms = timeout_ms
        self.prune = prune  # False: observe only (record what stock emits, change nothing)
        self.forms = forms  # False: no cheaper forms (one question per graph instead of up to three)
        self.history: list[dict[str, Any]] = []
        self.fast_token: Any = None  # torch_fast.enable()'s token while fast tracing is on

    def ask(self, doc: Doc, op: str = "redundancy") -> dict[str, Any]:
        """symguard's answer for one problem: through the client, else in-process with the
        process-local cache (``cached_run``)."""
        if self.client is not None:
            return dict(getattr(self.client, op)(doc))
        return cached_run(op, doc)

    def kept_guards(self, env: Any, placeholders: Any, langs: tuple[str, ...] = ("python",)) -> list[Any] | None:
        """The ShapeGuards of ``env.guards`` to emit, or None for all of them (stock).

        ``langs`` are the languages Dynamo will run the guards in (``python``, ``cpp``): a guard
        whose code there may not compute its exact value is kept and used as no premise.
        Some of them may be new ShapeGuards whose expression is a cheaper form of the kept guard
        (``cheaper_forms``), with the original's source location."""
        import time

        t0 = time.perf_counter()
        rec: dict[str, Any] = Record(guards=0, kept=None, seconds=0.0, status=None, error=None)
        self.history.append(rec)
        try:
            doc, groups, passthrough, exprs, rec["opaque"] = shape_guard_problem(env, placeholders, langs)
            rec["guards"], rec["passthrough"] = len(groups), len(passthrough)
            rec["problem"] = doc
            if not self.prune or not groups:
                return None
            doc["options"]["timeout_ms"] = self.timeout_ms
            t1 = time.perf_counter()
            rec["prepare_seconds"] = t1 - t0  # simplify/evaluate_static: cached, Dynamo reuses them
            res = self.ask(doc)
            rec["solve_seconds"] = time.perf_counter() - t1
            rec["status"], rec["cached"] = res.get("status"), res.get("cached")
            keep_ids = minimal_ids(res, [f"g{i}" for i in range(len(groups))])
            if keep_ids is None:
                return None
            keep = {i for i in range(len(groups)) if f"g{i}" in keep_ids}
            t2 = time.perf_counter()
            forms: dict[int, Any] = {}
            try:
                if self.forms:
                    forms, keep = cheaper_forms(self, env, doc, exprs, res, keep, langs)
            except Exception as e:  # noqa: BLE001 - no cheaper forms: the kept guards as they are
                rec["forms_error"] = f"{type(e).__name__}: {e}"
                forms = {}
            rec["forms_seconds"] = time.perf_counter() - t2
            rec["rewritten"] = sum(1 for f in forms.values() if f is not True)
            rec["proven_true"] = sum(1 for f in forms.values() if f is True)
            order = {id(g): k for k, g in enumerate(env.guards)}
            kept: list[tuple[int, Any]] = [(order.get(id(g), len(order)), g) for g in passthrough]
            for i, members in enumerate(groups):
                if i not in keep:
                    continue
                if i in forms:
                    if forms[i] is not True:
                        g = members[0]
                        kept.append((order.get(id(g), len(order)), type(g)(forms[i], g.sloc, g.size_oblivious)))
                else:
                    kept.extend((order.get(id(g), len(order)), g) for g in members)
            rec["kept"] = sum(1 for i in keep if forms.get(i) is not True)
            return [g for _, g in sorted(kept, key=lambda kg: kg[0])]
        except Exception as e:  # noqa: BLE001 - any failure: the stock guards, never a failed compile
            rec["error"] = f"{type(e).__name__}: {e}"
            return None
        finally:
            rec["seconds"] = time.perf_counter() - t0


def minimal_ids(res: Mapping[str, Any], ids: list[str]) -> set[str] | None:
    """The ids to keep from a redundancy answer, or None when it cannot be trusted as a whole.

    Only ``always_true`` and ``redundant`` guards are dropped; anything else (``required``,
    ``unknown``, ``unsupported``, a verdict this code does not know, an id the answer does not
    mention) is kept. A status other than ``sat`` keeps everything.
    """
    if res.get("status") != "sat" or not isinstance(res.get("guards"), list):
        return None
    droppable = {g.get("id") for g in res["guards"]
                 if isinstance(g, Mapping) and g.get("verdict") in ("always_true", "redundant")}
    minimal = set(res.get("minimal") or ())
    if droppable & minimal:
        return None  # contradictory answer: trust none of it
    return {i for i in ids if i not in droppable}


# ------------------------------------------------------------------ answers cached in-process
#
# A model recompiled (a new ShapeEnv for the same frame, or the same module compiled again) asks
# the same question: the process-local cache answers it without solving again. Two levels: the
# exact document (no parsing at all), then symguard's canonical key (the same problem under other
# symbol names), as the service's cache does (solver.prepare / compute / finish). Only final
# answers are kept (nothing that ran out of time), at most ``CACHE_SIZE`` of each.

CACHE_SIZE = 256
_cache_lock = threading.Lock()
_by_doc: OrderedDict[tuple[str, str], dict[str, Any]] = OrderedDict()
_by_key: OrderedDict[tuple[str, str], dict[str, Any]] = OrderedDict()


def _remember(table: OrderedDict[tuple[str, str], Any], key: tuple[str, str], value: Any) -> None:
    with _cache_lock:
        table[key] = value
        table.move_to_end(key)
        while len(table) > CACHE_SIZE:
            table.popitem(last=False)


def _recall(table: OrderedDict[tuple[str, str], Any], key: tuple[str, str]) -> Any:
    with _cache_lock:
        hit = table.get(key)
        if hit is not None:
            table.move_to_end(key)
        return hit


def clear_cache() -> None:
    """Forget every cached answer (tests, or a process that wants to measure a cold solve)."""
    with _cache_lock:
        _by_doc.clear()
        _by_key.clear()


def cached_run(op: str, doc: Doc) -> dict[str, Any]:
    """``solver.run(op, doc)`` through the process-local cache (``cached`` says whether it hit)."""
    import json
    import time

    from symguard.solver import compute, finish, is_final, prepare

    t0, c0 = time.monotonic(), time.perf_counter()
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"))
    hit = _recall(_by_doc, (op, text))
    if hit is not None:
        return {**hit, "cached": True, "elapsed_ms": round((time.perf_counter() - c0) * 1000, 3)}
    p, canon = prepare(doc)
    res = _recall(_by_key, (op, canon.key))
    cached = res is not None
    if res is None:
        res = compute(op, canon.problem, started=t0)
        if is_final(op, res):
            _remember(_by_key, (op, canon.key), res)
    out = dict(finish(op, res, p, canon, cached=cached, elapsed_ms=(time.perf_counter() - c0) * 1000))
    if is_final(op, res):
        _remember(_by_doc, (op, text), out)
    return out


# ------------------------------------------------------------------ cheaper forms of the kept guards
#
# A kept guard may be far costlier to evaluate than it needs to be: HF Swin keeps two window-
# partition equalities of 20,000 characters each (40 µs per call apiece). symguard's `simplify`
# gives each a form proven equal to it under a context, and Dynamo emits the form instead.
# Soundness (docs/torch_guards.md, "Cheaper forms"):
#   - the context is part 3's ranges R and the kept guards symguard called `required`, K_req,
#     emitted verbatim; a form f of a kept guard g is proven f == g at every point of R and K_req
#     where g is defined (its divisors non-zero), so R, K_req and the forms accept exactly where
#     R, K_req and the originals do -- wherever the originals are defined;
#   - a second question proves every non-constant divisor of every rewritten guard non-zero under
#     R and everything emitted: where the pruned check accepts, the originals are all defined (a
#     zero divisor makes the stock check raise, which Dynamo reads as a rejection). A divisor not
#     proven non-zero puts its guard back, verbatim. (Guards `redundancy` dropped need no such
#     question: it drops a guard's divisor conditions with it, docs/problem-format.md §1.2.) A form
#     is defined wherever its original is (it equals it there); what Dynamo emits for it (sympy
#     folds some divisions, ``x//x`` is 1, and ShapeEnv simplifies it) may be defined at more
#     points, so that emitted version, not the form's text, is what the second question assumes;
#   - a form that is `True` drops its guard; a form that does not read back, or is not true at the
#     compile's own example (the hints), keeps the original.

_DIVIDING: dict[str, tuple[int, ...]] = {  # function name -> the argument positions that divide
    "FloorDiv": (1,), "CleanDiv": (1,), "CeilDiv": (1,), "PythonMod": (1,), "Mod": (1,), "IntTrueDiv": (1,),
    "FloatTrueDiv": (1,), "TruncDiv": (1,), "ModularIndexing": (1, 2), "Div": (1,),
}


def _divisors(e: Any) -> list[Any] | None:
    """The non-constant divisors in a sympy expression, or None when it divides in a way not read here."""
    import sympy

    out: list[Any] = []
    for node in sympy.preorder_traversal(e):
        name = type(node).__name__
        if isinstance(node, sympy.Pow):
            if node.exp.is_negative is not False:
                if not node.base.is_number:
                    out.append(node.base)
                elif not node.exp.is_integer:
                    return None
            continue
        if isinstance(node, sympy.Rational) and not isinstance(node, sympy.Integer):
            return None  # a fraction in an integer guard: not a shape this code reads
        if name in _DIVIDING:
            out.extend(node.args[k] for k in _DIVIDING[name] if not node.args[k].is_number)
        elif "Div" in name or "Mod" in name:
            return None
    return out


def cheaper_forms(pruner: GuardPruner, env: Any, doc: Doc, exprs: list[Any], res: Mapping[str, Any],
                  keep: set[int], langs: tuple[str, ...] = ("python",)) -> tuple[dict[int, Any], set[int]]:
    """Forms of the kept guards proven equal under the ranges and the required guards, each
    original proven defined wherever the pruned check accepts (see the comment above), and each
    form's code in every executed language ``langs`` computing its exact value (a C++ product
    the original did not have may overflow). Returns ``({guard index: sympy form, or True to
    drop it}, keep)``."""
    verdict = {g.get("id"): g.get("verdict") for g in res.get("guards") or () if isinstance(g, Mapping)}
    texts = [g["expr"] for g in doc["guards"]]
    req = sorted(i for i in keep if verdict.get(f"g{i}") == "required")
    cands = sorted(i for i in keep if verdict.get(f"g{i}") not in ("required", "unsupported")
                   and not compares_floats(exprs[i]))  # a float guard may also overflow: kept as it is
    base = {"symbols": doc["symbols"], "asserts": [], "options": dict(doc["options"])}
    forms: dict[int, Any] = {}
    form_text: dict[int, str] = {}
    ranges = enforced_ranges(env)
    context = [{"id": f"g{i}", "expr": texts[i]} for i in req]
    if cands:
        ans = pruner.ask({**base, "guards": context, "exprs": [{"id": f"g{i}", "expr": texts[i]} for i in cands]},
                         "simplify")
        if ans.get("status") == "sat":
            symbols = {str(s): s for e in exprs for s in e.free_symbols}
            hints = getattr(env, "backed_var_to_val", None) or env.var_to_val
            for item in ans.get("exprs") or ():
                i = int(str(item.get("id"))[1:])
                if item.get("proved") is not True or i not in cands or item.get("form") == texts[i]:
                    continue
                form = form_to_sympy(str(item["form"]), symbols)
                if form is not None and form is not True:
                    # what Dynamo will print: its own simplification of the form (cached, reused)
                    emitted = env.simplify(form) if hasattr(env, "simplify") else form
                    if not _true_at(emitted, hints):
                        continue
                    if not all(executed_exactly(emitted, ranges, lang) for lang in langs):
                        _note(pruner, "form not executed exactly", str(emitted))
                        continue
                    form_text[i] = str(emitted)
                if form is not None:
                    forms[i] = form
    # every rewritten original must be defined wherever the pruned check accepts (a guard that
    # redundancy dropped needs no such check: its divisors' conditions went with it, §1.2)
    divs: dict[str, set[int]] = {}
    for i in list(forms):
        ds = _divisors(exprs[i])
        if ds is None:
            del forms[i]
            continue
        for d in ds:
            if not _nonzero_on_ranges(env, d):
                divs.setdefault(str(d), set()).add(i)
    if divs:
        emitted = [texts[i] for i in sorted(keep) if i not in forms] + \
                  [form_text[i] for i, f in sorted(forms.items()) if f is not True]
        ans = pruner.ask({**base, "guards": [{"id": f"k{j}", "expr": t} for j, t in enumerate(emitted)],
                          "exprs": [{"id": f"d{j}", "expr": f"Ne({d}, 0)"} for j, d in enumerate(divs)]}, "simplify")
        ok = _proven_true(ans)
        for j, (d, members) in enumerate(divs.items()):
            if f"d{j}" not in ok:
                _note(pruner, "divisor not proven non-zero", d)
                for i in members:
                    forms.pop(i, None)
    return forms, keep


def _nonzero_on_ranges(env: Any, d: Any) -> bool:
    """Whether PyTorch's own range analysis proves ``d != 0`` on the ranges alone (part 3 checks
    them), so symguard need not be asked: the test ``produce_guards`` itself uses to skip a guard."""
    import sympy

    try:
        return bool(env._maybe_evaluate_static(sympy.Ne(d, 0), axioms=()) is sympy.true)
    except Exception:  # noqa: BLE001 - undecided: ask symguard
        return False


def _note(pruner: GuardPruner, why: str, what: str) -> None:
    """Record in the current history entry why a form was not used (``forms_refused``)."""
    if pruner.history:
        pruner.history[-1].setdefault("forms_refused", []).append(f"{why}: {what[:200]}")


def _proven_true(ans: Mapping[str, Any]) -> set[str]:
    """The ids of a ``simplify`` answer whose expression is proven ``True`` under its context."""
    if ans.get("status") != "sat":
        return set()
    return {str(item.get("id")) for item in ans.get("exprs") or ()
            if item.get("proved") is True and item.get("form") == "True"}


def _true_at(form: Any, hints: Mapping[Any, Any]) -> bool:
    try:
        return bool(form.xreplace({s: hints[s] for s in form.free_symbols})) is True
    except (KeyError, TypeError, ZeroDivisionError):
        return False


def form_to_sympy(text: str, symbols: Mapping[str, Any]) -> Any:
    """A ``simplify`` form (docs/simplify.md: sympy syntax, Python's ``//`` and ``Mod``) as the
    sympy expression Dynamo prints: ``//`` is PyTorch's ``FloorDiv``, ``Mod`` its ``PythonMod``
    (Python's ``%`` in every printer, C++ included), ``CeilDiv(a, b)`` is ``-((-a)//b)``. ``True``
    for a form that is true; None for anything this reader does not know (the guard is then kept).

    PyTorch's division functions rewrite themselves as they are built, assuming positive
    divisors (``FloorDiv(FloorDiv(x, a), b)`` becomes ``FloorDiv(x, a*b)``, ``CeilDiv(a, b)``
    becomes ``FloorDiv(a + b - 1, b)``): they are built unevaluated here, so the printed code
    computes what the text says for divisors of any sign. ``ModularIndexing`` is read only with a
    positive literal modulus."""
    import ast

    import sympy
    from torch.utils._sympy import functions as tf

    def floordiv(a: Any, b: Any) -> Any:
        return tf.FloorDiv(a, b, evaluate=False)

    def mod(a: Any, b: Any) -> Any:
        return tf.PythonMod(a, b, evaluate=False)

    def ceildiv(a: Any, b: Any) -> Any:
        return -tf.FloorDiv(-a, b, evaluate=False)

    def modular_indexing(x: Any, d: Any, m: Any) -> Any:
        if not (m.is_Integer and m > 0):
            raise ValueError("ModularIndexing with a modulus that is not a positive literal")
        return mod(floordiv(x, d), m)

    calls: dict[str, Any] = {"Eq": sympy.Eq, "Ne": sympy.Ne, "Lt": sympy.Lt, "Le": sympy.Le, "Gt": sympy.Gt,
                             "Ge": sympy.Ge, "Mod": mod, "PythonMod": mod, "FloorDiv": floordiv,
                             "CeilDiv": ceildiv, "ModularIndexing": modular_indexing, "Max": tf.Max, "Min": tf.Min,
                             "And": sympy.And, "Or": sympy.Or, "Not": sympy.Not}
    cmp = {ast.Eq: sympy.Eq, ast.NotEq: sympy.Ne, ast.Lt: sympy.Lt, ast.LtE: sympy.Le, ast.Gt: sympy.Gt,
           ast.GtE: sympy.Ge}

    def conv(n: ast.AST) -> Any:
        if isinstance(n, ast.Constant) and type(n.value) is bool:
            return sympy.true if n.value else sympy.false
        if isinstance(n, ast.Constant) and type(n.value) is int:
            return sympy.Integer(n.value)
        if isinstance(n, ast.Name):
            if n.id in ("True", "False"):
                return sympy.true if n.id == "True" else sympy.false
            return symbols[n.id]
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return -conv(n.operand)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.Invert, ast.Not)):
            return sympy.Not(conv(n.operand))
        if isinstance(n, ast.BinOp):
            x, y = conv(n.left), conv(n.right)
            ops: dict[type, Any] = {ast.Add: lambda: x + y, ast.Sub: lambda: x - y, ast.Mult: lambda: x * y,
                                    ast.FloorDiv: lambda: floordiv(x, y), ast.Mod: lambda: mod(x, y),
                                    ast.BitAnd: lambda: sympy.And(x, y), ast.BitOr: lambda: sympy.Or(x, y)}
            if isinstance(n.op, ast.Pow) and y.is_Integer and y >= 0:
                return x**y
            if type(n.op) in ops:
                return ops[type(n.op)]()
        if isinstance(n, ast.BoolOp):
            return (sympy.And if isinstance(n.op, ast.And) else sympy.Or)(*(conv(v) for v in n.values))
        if isinstance(n, ast.Compare):
            parts, left = [], conv(n.left)
            for op, right_node in zip(n.ops, n.comparators):
                right = conv(right_node)
                parts.append(cmp[type(op)](left, right))
                left = right
            return sympy.And(*parts)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in calls and not n.keywords:
            return calls[n.func.id](*(conv(a) for a in n.args))
        raise ValueError(ast.dump(n)[:80])

    try:
        e = conv(ast.parse(text, mode="eval").body)
    except (SyntaxError, ValueError, KeyError, TypeError, ZeroDivisionError, RecursionError):
        return None
    if e is sympy.true:
        return True
    return e if isinstance(e, sympy.logic.boolalg.Boolean) and e is not sympy.false else None



def input_symbols(placeholders: Any) -> set[Any]:
    """Symbols ``produce_guards`` binds to an input (its ``symbol_to_source``), hence range-checks.

    A plain tensor's sizes, strides and storage offset and a SymInt/SymFloat argument whose
    expression is a bare symbol. Tensor subclasses are skipped: a symbol seen only there gets no
    range from this set, which can only keep more guards.
    """
    import sympy
    import torch
    from torch.utils._python_dispatch import is_traceable_wrapper_subclass

    out: set[Any] = set()

    def add(v: Any) -> None:
        if isinstance(v, (torch.SymInt, torch.SymFloat)):
            e = v.node.expr
            if isinstance(e, sympy.Symbol):
                out.add(e)

    for t in placeholders:
        if isinstance(t, (torch.SymInt, torch.SymFloat)):
            add(t)
        elif isinstance(t, torch.Tensor) and not is_traceable_wrapper_subclass(t):
            for v in (*t.size(), *(() if t.is_sparse else t.stride()),
                      *(() if t.is_sparse else (t.storage_offset(),))):
                add(v)
    return out


def guard_printer() -> Any:
    """``str`` for guard expressions, fast: sympy's printer without term ordering (the text reads
    the same) and with every subexpression printed once. The window-partition guards of a Swin
    model repeat the same subterms hundreds of times; ``str`` took seconds on them."""
    from sympy.printing.str import StrPrinter

    class _Printer(StrPrinter):
        def __init__(self) -> None:
            super().__init__({"order": "none"})
            self.memo: dict[Any, str] = {}

        def _print(self, expr: Any, **kwargs: Any) -> str:
            if kwargs:
                return str(super()._print(expr, **kwargs))
            try:
                return self.memo[expr]
            except KeyError:
                out = self.memo[expr] = str(super()._print(expr))
                return out
            except TypeError:  # unhashable: print it as it is
                return str(super()._print(expr))

    return _Printer().doprint


def enforced_ranges(env: Any) -> dict[Any, tuple[float, float]]:
    """Each symbol's range as part 3 checks it (``var_to_range`` now), unbounded sides infinite."""
    out: dict[Any, tuple[float, float]] = {}
    for s, r in getattr(env, "var_to_range", {}).items():
        lo, hi = _bound(r.lower), _bound(r.upper)
        out[s] = (-math.inf if lo is None else lo, math.inf if hi is None else hi)
    return out


def shape_guard_problem(env: Any, placeholders: Any, langs: tuple[str, ...] = ("python",),
                        ) -> tuple[Doc, list[list[Any]], list[Any], list[Any], int]:
    """The problem whose minimal set is the part-2 guards to emit.

    Returns the document (guard ``g{i}`` is the i-th distinct simplified guard, as
    ``produce_guards`` prints it), the ShapeGuards behind each id, the ShapeGuards passed
    through untouched (decided by the ranges, which ``produce_guards`` skips itself, guards
    symguard is not asked about: a symbol that is not an integer bound to an input, and *opaque*
    guards: code in one of the executed ``langs`` that may compute another value than the exact
    one, ``guard_semantics``), the simplified sympy expression of each id, and how many of the
    passed-through guards are opaque.
    """
    bound = input_symbols(placeholders)
    text = guard_printer()
    ranges = enforced_ranges(env)
    groups: dict[str, list[Any]] = {}
    simplified: dict[str, Any] = {}
    passthrough: list[Any] = []
    opaque = 0
    syms: set[Any] = set()
    # C++ guards run in order and a zero divisor crashes: every guard up to the last one that
    # may divide by zero is kept, so the same checks come first wherever a division is reached
    guarded_upto = -1
    if "cpp" in langs:
        for k, g in enumerate(env.guards):
            if may_divide_by_zero(env.simplify(g.expr), ranges):
                guarded_upto = k
    for k, g in enumerate(env.guards):
        if k <= guarded_upto:
            passthrough.append(g)
            continue
        if env._maybe_evaluate_static(g.expr, axioms=(), size_oblivious=g.size_oblivious) is not None:
            passthrough.append(g)  # produce_guards skips it itself
            continue
        e = env.simplify(g.expr)
        free = getattr(e, "free_symbols", None)
        if (not free or not all(s in bound and s.is_integer and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(s))
                                for s in free)):
            passthrough.append(g)
            continue
        if not all(executed_exactly(e, ranges, lang) for lang in langs):
            passthrough.append(g)  # opaque: emitted as it is, a premise for nothing
            opaque += 1
            continue
        t = text(e)
        groups.setdefault(t, []).append(g)
        simplified.setdefault(t, e)
        syms |= free
    hints = getattr(env, "backed_var_to_val", None)
    if hints is None:
        hints = env.var_to_val
    symbols: dict[str, dict[str, int | None]] = {}
    for s in sorted(syms, key=lambda s: _sym_key(str(s))):
        r = env.var_to_range.get(s)
        entry: dict[str, int | None] = {"min": None, "max": None}
        if r is not None:
            entry = {"min": _bound(r.lower), "max": _bound(r.upper)}
        if s in hints:
            try:
                entry["hint"] = int(hints[s])
            except (TypeError, ValueError):
                pass
        symbols[str(s)] = entry
    doc: Doc = {"symbols": symbols, "asserts": [],
                "guards": [{"id": f"g{i}", "expr": text} for i, text in enumerate(groups)],
                "options": {**OPTIONS, "default_min": None}}
    return doc, list(groups.values()), passthrough, list(simplified.values()), opaque


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
