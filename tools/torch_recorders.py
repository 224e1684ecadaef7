"""Recorders that watch PyTorch's symbolic-shape machinery while a model compiles.

Shared by ``capture_simplify.py`` (what Inductor asks its ``SizeVarAllocator`` to simplify or
decide) and ``capture_sessions.py`` (the order in which a ``ShapeEnv`` grows and the static
questions asked in between). Both work by wrapping methods on PyTorch's classes for the duration
of a ``with`` block and restoring them afterwards, so nothing of PyTorch is modified on disk and a
failure inside a wrapper never changes what PyTorch computes: every wrapper calls the original
with the original arguments and returns its result unchanged.

Expressions are converted with ``str()`` (PyTorch's own printing, the syntax symguard reads) and
kept only when every free symbol is an integer size symbol of the ShapeEnv (backed ``s*`` or
unbacked ``u*``) or a loop variable whose range is recorded with it; everything else is counted
under a reason (``skipped``), never silently dropped. Each kept text is parsed by symguard; texts it
rejects are counted per function name (``unparsed``), which is the list of constructs symguard
still lacks.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SIZE = re.compile(r"[su]\d+\Z")


def parse_error(text: str, extra_symbols: dict[str, str] | None = None) -> str | None:
    """None when symguard reads ``text`` (with the loop variables of ``extra_symbols``), else the
    construct it rejected: the function name from the error, or the error class."""
    from symguard.solver import SymguardError, load_problem

    asserts = [f"{v} < {b}" for v, b in (extra_symbols or {}).items()]
    try:
        load_problem({"asserts": asserts, "queries": [text]})
    except SymguardError as e:
        msg = str(e)
        m = re.search(r"(?:function|construct|name)\s+'?([A-Za-z_][A-Za-z0-9_.]*)", msg)
        return m.group(1) if m else f"{type(e).__name__}: {msg[:60]}"
    return None


def size_symbol(sym: Any, env: Any) -> bool:
    """An integer size symbol of ``env``: backed ``s*`` or unbacked ``u*`` with an integer range."""
    name = str(sym)
    if not _SIZE.match(name):
        return False
    rng = env.var_to_range.get(sym) if env is not None else None
    return rng is None or bool(getattr(rng, "is_int", True))


def to_text(value: Any) -> str:
    """PyTorch's printing of a sympy value or Python scalar (``True``/``False``/``7``)."""
    if isinstance(value, bool):
        return "True" if value else "False"
    return str(value)


class _Patches:
    """Set attributes on classes and put the originals back, in reverse order."""

    def __init__(self) -> None:
        self._saved: list[tuple[Any, str, Any]] = []

    def wrap(self, owner: Any, name: str, make: Callable[[Any], Any]) -> None:
        orig = owner.__dict__[name]
        self._saved.append((owner, name, orig))
        new = make(orig)
        for attr in ("cache_clear", "cache_info"):  # ShapeEnv clears its lru caches by name
            if hasattr(orig, attr):
                setattr(new, attr, getattr(orig, attr))
        setattr(owner, name, new)

    def restore(self) -> None:
        while self._saved:
            owner, name, orig = self._saved.pop()
            setattr(owner, name, orig)


# ------------------------------------------------------------------ A: Inductor's size questions

# (method, how to build the expression PyTorch decides from the call's arguments)
_BINARY = {
    "statically_known_equals": "Eq",
    "statically_known_leq": "Le",
    "statically_known_geq": "Ge",
    "statically_known_lt": "Lt",
    "statically_known_gt": "Gt",
}


class SimplifyRecorder:
    """Records every expression Inductor's ``SizeVarAllocator`` simplifies or decides, the loop
    bounds and index expressions of the C++ kernels, PyTorch's answer and the time it took.

    ``records`` holds dicts ``{method, expr, result, us, ranges, n_guards, env}`` in call order
    (only the outermost of nested calls: ``statically_known_leq`` calls ``statically_known_true``,
    and only the first is what Inductor asked).
    """

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        self.skipped: Counter[str] = Counter()
        self.envs: dict[int, Any] = {}
        self._local = threading.local()
        self._patches = _Patches()

    # ---------------------------------------------------------------- install / remove
    @contextlib.contextmanager
    def installed(self) -> Iterator[SimplifyRecorder]:
        from torch._inductor import sizevars
        from torch._inductor.codegen import common, cpp

        sva = sizevars.SizeVarAllocator
        p = self._patches
        p.wrap(sva, "simplify", lambda f: self._hook(f, "simplify", lambda s, e: (e, None)))
        p.wrap(sva, "statically_known_true", lambda f: self._hook(f, "statically_known_true", lambda s, e: (e, None)))
        for name, rel in _BINARY.items():
            p.wrap(sva, name, lambda f, name=name, rel=rel: self._hook(f, name, self._binary(rel)))
        p.wrap(sva, "statically_known_multiple_of",
               lambda f: self._hook(f, "statically_known_multiple_of", self._multiple_of))
        p.wrap(sva, "evaluate_expr", lambda f: self._hook(f, "evaluate_expr", lambda s, e, *a, **k: (e, None)))
        p.wrap(sva, "guard_or_false", lambda f: self._hook(f, "guard_or_false", lambda s, e: (e, None)))
        p.wrap(sva, "guard_or_true", lambda f: self._hook(f, "guard_or_true", lambda s, e: (e, None)))
        p.wrap(sva, "evaluate_min", lambda f: self._hook(f, "evaluate_min", self._minmax("Min")))
        p.wrap(sva, "evaluate_max", lambda f: self._hook(f, "evaluate_max", self._minmax("Max")))
        p.wrap(sva, "combine_modular_indexing_pairs",
               lambda f: self._hook(f, "combine_modular_indexing_pairs", lambda s, e: (e, None)))
        p.wrap(sva, "make_simplify_with_ranges_cache", self._wrap_ranges_cache)
        p.wrap(common.Kernel, "rename_indexing", self._wrap_rename_indexing)
        p.wrap(cpp.CppKernel, "set_ranges", self._wrap_set_ranges)
        try:
            yield self
        finally:
            p.restore()

    # ---------------------------------------------------------------- argument -> expression
    @staticmethod
    def _binary(rel: str) -> Callable[..., tuple[Any, None]]:
        def build(self: Any, left: Any, right: Any) -> tuple[Any, None]:
            import sympy
            return getattr(sympy, rel)(left, right), None
        return build

    @staticmethod
    def _multiple_of(_sv: Any, num: Any, den: Any) -> tuple[Any, None]:
        import sympy
        from torch.utils._sympy.functions import Mod
        return sympy.Eq(Mod(num, den), 0), None

    @staticmethod
    def _minmax(fn: str) -> Callable[..., tuple[Any, None]]:
        def build(self: Any, left: Any, right: Any) -> tuple[Any, None]:
            import sympy
            return getattr(sympy, fn)(left, right), None
        return build

    # ---------------------------------------------------------------- the wrappers
    def _hook(self, orig: Callable[..., Any], method: str, build: Callable[..., tuple[Any, Any]]) -> Callable[..., Any]:
        rec = self

        def wrapper(sv: Any, *args: Any, **kwargs: Any) -> Any:
            depth = getattr(rec._local, "depth", 0)
            rec._local.depth = depth + 1
            t0 = time.perf_counter()
            try:
                out = orig(sv, *args, **kwargs)
            finally:
                rec._local.depth = depth
            us = (time.perf_counter() - t0) * 1e6
            if depth == 0:
                try:
                    expr, ranges = build(sv, *args, **kwargs)
                except (TypeError, ValueError, AttributeError) as e:  # our own copy of the question
                    rec.skipped[f"unbuildable ({type(e).__name__})"] += 1
                else:
                    rec.add(sv, method, expr, out, us, ranges)
            return out

        return wrapper

    def _wrap_ranges_cache(self, orig: Callable[..., Any]) -> Callable[..., Any]:
        rec = self

        def make(sv: Any) -> Callable[..., Any]:
            inner = orig(sv)

            def simplify_with_ranges(expr: Any, var_ranges: Any) -> Any:
                depth = getattr(rec._local, "depth", 0)
                rec._local.depth = depth + 1
                t0 = time.perf_counter()
                try:
                    out = inner(expr, var_ranges)
                finally:
                    rec._local.depth = depth
                us = (time.perf_counter() - t0) * 1e6
                if depth == 0:
                    rec.add(sv, "simplify_with_ranges", expr, out, us, dict(var_ranges))
                return out

            return simplify_with_ranges

        return make

    def _wrap_rename_indexing(self, orig: Callable[..., Any]) -> Callable[..., Any]:
        """Every index expression a kernel prints goes through ``rename_indexing`` (which applies
        ``sizevars.simplify`` and renames ``s0`` to the kernel argument ``ks0``)."""
        rec = self

        def rename_indexing(kernel: Any, index: Any) -> Any:
            depth = getattr(rec._local, "depth", 0)
            rec._local.depth = depth + 1
            try:
                out = orig(kernel, index)
            finally:
                rec._local.depth = depth
            if depth == 0 and not isinstance(index, (list, tuple)):
                from torch._inductor.virtualized import V
                sv = V.graph.sizevars
                simplified, us = rec._quiet_simplify(sv, index)
                rec.add(sv, "kernel_index", index, simplified, us, None)
            return out

        return rename_indexing

    def _wrap_set_ranges(self, orig: Callable[..., Any]) -> Callable[..., Any]:
        rec = self

        def set_ranges(kernel: Any, lengths: Any, reduction_lengths: Any) -> Any:
            depth = getattr(rec._local, "depth", 0)
            rec._local.depth = depth + 1
            try:
                out = orig(kernel, lengths, reduction_lengths)
            finally:
                rec._local.depth = depth
            from torch._inductor.virtualized import V
            sv = V.graph.sizevars
            for n in (*lengths, *reduction_lengths):
                simplified, us = rec._quiet_simplify(sv, n)
                rec.add(sv, "kernel_range", n, simplified, us, None)
            return out

        return set_ranges

    def _quiet_simplify(self, sv: Any, expr: Any) -> tuple[Any, float]:
        """``sv.simplify(expr)`` (what the kernel's printer applies first) and its time in µs,
        without recording it as a ``simplify`` call Inductor made."""
        depth = getattr(self._local, "depth", 0)
        self._local.depth = depth + 1
        t0 = time.perf_counter()
        try:
            return sv.simplify(expr), (time.perf_counter() - t0) * 1e6
        finally:
            self._local.depth = depth

    # ---------------------------------------------------------------- one observation
    def add(self, sv: Any, method: str, expr: Any, result: Any, us: float,
            ranges: dict[Any, Any] | None) -> None:
        """Keep one observation if it is an integer/boolean expression over size symbols."""
        import sympy

        env = getattr(sv, "shape_env", None)
        inv = {str(k): v for k, v in (getattr(sv, "inv_precomputed_replacements", {}) or {}).items()}
        if ranges is None:
            ranges, ks = _kernel_context()
            inv.update(ks)
        try:
            expr = sympy.sympify(expr)
            result = sympy.sympify(result) if not isinstance(result, bool) else result
            if inv:
                expr = _by_name(expr, inv)
                if isinstance(result, sympy.Basic):
                    result = _by_name(result, inv)
                if ranges:
                    ranges = {k: _by_name(sympy.sympify(v), inv) for k, v in ranges.items()}
        except (sympy.SympifyError, TypeError, AttributeError):
            self.skipped["not a sympy expression"] += 1
            return
        if not isinstance(expr, sympy.Basic) or not expr.free_symbols:
            self.skipped["constant"] += 1
            return
        if any(getattr(a, "is_Float", False) for a in expr.atoms(sympy.Number)):
            self.skipped["float"] += 1
            return
        loopvars = {str(k) for k in (ranges or {})}
        syms = set(expr.free_symbols)
        if isinstance(result, sympy.Basic):
            syms |= result.free_symbols
        for v in (ranges or {}).values():
            syms |= getattr(v, "free_symbols", set())
        foreign = sorted(str(s) for s in syms if str(s) not in loopvars and not size_symbol(s, env))
        if foreign:
            kind = re.match(r"[A-Za-z_]+", foreign[0])
            self.skipped[f"symbol {kind.group(0) if kind else foreign[0]}* outside the context"] += 1
            return
        used = {str(s) for s in expr.free_symbols}
        if isinstance(result, sympy.Basic):
            used |= {str(s) for s in result.free_symbols}
        rng = {str(k): to_text(v) for k, v in sorted((ranges or {}).items(), key=lambda kv: str(kv[0]))
               if str(k) in used}
        if env is not None:
            self.envs.setdefault(id(env), env)
        self.records.append({
            "method": method, "expr": to_text(expr), "result": to_text(result),
            "us": round(us, 1), "ranges": rng,
            "n_guards": len(env.guards) if env is not None else 0, "env": id(env),
        })


# ------------------------------------------------------------------ B: how a ShapeEnv grows

class SessionRecorder:
    """Records, per ShapeEnv and in order, the guards and runtime asserts as they are added, the
    replacements, divisibility facts and range refinements, and the static questions
    (``ShapeEnv._maybe_evaluate_static``, outermost calls only) with PyTorch's answer and time.

    Guards and deferred asserts are picked up by comparing the ShapeEnv's lists after every call
    that can append to them (no recording object is stored on the ShapeEnv, which PyTorch copies).
    """

    def __init__(self) -> None:
        self.events: dict[int, list[dict[str, Any]]] = {}
        self.envs: dict[int, Any] = {}
        self.skipped: Counter[str] = Counter()
        self._seen_guards: dict[int, int] = {}
        self._seen_asserts: dict[int, set[int]] = {}
        self._local = threading.local()
        self._patches = _Patches()

    @contextlib.contextmanager
    def installed(self) -> Iterator[SessionRecorder]:
        from torch.fx.experimental.symbolic_shapes import ShapeEnv

        p = self._patches
        p.wrap(ShapeEnv, "_maybe_evaluate_static", self._wrap_question)
        p.wrap(ShapeEnv, "_evaluate_expr", self._wrap_sync)
        p.wrap(ShapeEnv, "guard_or_defer_runtime_assert", self._wrap_sync)
        p.wrap(ShapeEnv, "_set_replacement", self._wrap_replacement)
        p.wrap(ShapeEnv, "_add_divisible", self._wrap_divisible)
        p.wrap(ShapeEnv, "_update_var_to_range", self._wrap_range)
        try:
            yield self
        finally:
            p.restore()
            for env in self.envs.values():
                self.sync(env)

    # ---------------------------------------------------------------- guards and asserts
    def sync(self, env: Any) -> None:
        """Emit the guards and deferred runtime asserts added to ``env`` since the last sync."""
        key = id(env)
        self.envs.setdefault(key, env)
        start = self._seen_guards.get(key, 0)
        guards = env.guards
        for g in guards[start:]:
            self._emit(env, "guard", g.expr, None, None)
        self._seen_guards[key] = len(guards)
        seen = self._seen_asserts.setdefault(key, set())
        for ras in list(env.deferred_runtime_asserts.values()):
            for ra in ras:
                if id(ra) not in seen:
                    seen.add(id(ra))
                    self._emit(env, "assert", ra.expr, None, None, why="runtime_assert")

    def _wrap_sync(self, orig: Callable[..., Any]) -> Callable[..., Any]:
        rec = self

        def wrapper(env: Any, *args: Any, **kwargs: Any) -> Any:
            rec.sync(env)
            try:
                return orig(env, *args, **kwargs)
            finally:
                rec.sync(env)

        return wrapper

    def _wrap_replacement(self, orig: Callable[..., Any]) -> Callable[..., Any]:
        rec = self

        def wrapper(env: Any, a: Any, tgt: Any, msg: str) -> Any:
            before = env.replacements.get(a)
            out = orig(env, a, tgt, msg)
            after = env.replacements.get(a)
            if after is not None and after != before:
                import sympy
                rec.sync(env)
                rec._emit(env, "assert", sympy.Eq(a, after, evaluate=False), None, None, why="replacement")
            return out

        return wrapper

    def _wrap_divisible(self, orig: Callable[..., Any]) -> Callable[..., Any]:
        rec = self

        def wrapper(env: Any, expr: Any) -> Any:
            new = expr not in env.divisible
            out = orig(env, expr)
            if new:
                import sympy
                rec.sync(env)
                rec._emit(env, "assert", sympy.Eq(expr, 0, evaluate=False), None, None, why="divisible")
            return out

        return wrapper

    def _wrap_range(self, orig: Callable[..., Any]) -> Callable[..., Any]:
        rec = self

        def wrapper(env: Any, symbol: Any, vr: Any, vr_sloc: Any = None, *, is_constraint: bool = False) -> Any:
            old = env.var_to_range.get(symbol)
            out = orig(env, symbol, vr, vr_sloc, is_constraint=is_constraint)
            new = env.var_to_range.get(symbol)
            if old is not None and new is not None and new != old and getattr(new, "is_int", True):
                rec.sync(env)
                for bound, rel, was in ((new.lower, ">=", old.lower), (new.upper, "<=", old.upper)):
                    if bound != was and _finite(bound):
                        rec._emit(env, "assert", f"{symbol} {rel} {int(bound)}", None, None,
                                  why="constraint" if is_constraint else "range")
            return out

        return wrapper

    # ---------------------------------------------------------------- questions
    def _wrap_question(self, orig: Callable[..., Any]) -> Callable[..., Any]:
        rec = self

        def wrapper(env: Any, expr: Any, **kwargs: Any) -> Any:
            depth = getattr(rec._local, "depth", 0)
            if depth == 0:
                rec.sync(env)
            rec._local.depth = depth + 1
            t0 = time.perf_counter()
            try:
                out = orig(env, expr, **kwargs)
            finally:
                rec._local.depth = depth
            us = (time.perf_counter() - t0) * 1e6
            if depth == 0:
                if kwargs.get("compute_hint"):
                    rec.skipped["compute_hint (answers at the hints, not static)"] += 1
                elif kwargs.get("var_to_range") is not None or kwargs.get("axioms") is not None:
                    rec.skipped["caller-supplied ranges/axioms (Inductor loop variables)"] += 1
                else:
                    flags = {k: True for k in ("size_oblivious", "unbacked_only") if kwargs.get(k)}
                    rec._emit(env, "question", expr, out, us, **flags)
            return out

        return wrapper

    # ---------------------------------------------------------------- one event
    def _emit(self, env: Any, kind: str, expr: Any, answer: Any, us: float | None, **extra: Any) -> None:
        import sympy

        key = id(env)
        self.envs.setdefault(key, env)
        if not isinstance(expr, str):
            if not isinstance(expr, sympy.Basic) or not expr.free_symbols:
                self.skipped[f"{kind}: constant"] += 1
                return
            if any(getattr(a, "is_Float", False) for a in expr.atoms(sympy.Number)):
                self.skipped[f"{kind}: float"] += 1
                return
            foreign = [s for s in expr.free_symbols if not size_symbol(s, env)]
            if foreign:
                self.skipped[f"{kind}: non-size symbol {re.match(r'[A-Za-z_]+', str(foreign[0])).group(0)}*"] += 1  # type: ignore[union-attr]
                return
        ev: dict[str, Any] = {"kind": kind, "expr": to_text(expr),
                              "pytorch": None if answer is None else to_text(answer),
                              "us": 0.0 if us is None else round(us, 1)}
        ev.update(extra)
        self.events.setdefault(key, []).append(ev)


def _kernel_context() -> tuple[dict[Any, Any] | None, dict[str, Any]]:
    """Inside a C++ kernel: its loop variables with their bounds, and the kernel's size
    arguments (``ks0``) mapped back to the expressions they stand for."""
    import sympy
    from torch._inductor.virtualized import V

    try:
        kernel = V.kernel
    except (AttributeError, AssertionError):
        return None, {}
    itervars = getattr(kernel, "itervars", None)
    call_ranges = getattr(kernel, "call_ranges", None)
    ranges = dict(zip(itervars, call_ranges)) if itervars and call_ranges else None
    args = getattr(kernel, "args", None)
    sizevars = getattr(args, "sizevars", None) or {}
    return ranges, {name: e for e, name in sizevars.items() if isinstance(e, sympy.Expr)}


def _by_name(expr: Any, names: dict[str, Any]) -> Any:
    """``expr`` with the symbols named in ``names`` replaced (matching by name: the kernel's
    ``ks0`` and ``ps0`` symbols carry assumptions we do not know)."""
    sub = {s: names[str(s)] for s in getattr(expr, "free_symbols", ()) if str(s) in names}
    return expr.xreplace(sub) if sub else expr


def _finite(b: Any) -> bool:
    try:
        int(b)
    except (TypeError, ValueError, OverflowError):
        return False
    return bool(getattr(b, "is_finite", True))


def main_env(envs: dict[int, Any], weight: dict[int, int]) -> int | None:
    """The ShapeEnv that saw the most: with ``fullgraph=True`` the one Dynamo traced the model in."""
    if not envs:
        return None
    return max(envs, key=lambda k: (weight.get(k, 0), -list(envs).index(k)))


# ------------------------------------------------------------------ running one model

def compile_model(name: str, backend: str, stack: contextlib.ExitStack) -> tuple[Any, Callable[[], Any]]:
    """Build corpus model ``name`` (random init, seed 0) and return ``(model, run)`` where ``run()``
    compiles it with ``torch.compile(dynamic=True, fullgraph=True)`` on ``backend`` and calls it once.

    Inductor's caches are disabled so every run really compiles (a cache hit would skip the
    questions being recorded) and with one compile thread so the order is the same every time.
    Float module attributes are specialized (as in the guard corpus) so no float symbols appear.
    """
    import torch
    import torch._inductor.config as inductor_config
    from gen_corpus_models import MODELS

    torch.manual_seed(0)
    _, build, _ = MODELS[name]
    model, args = build()
    model.eval()
    torch._dynamo.reset()
    stack.enter_context(inductor_config.patch(force_disable_caches=True, compile_threads=1))
    stack.enter_context(torch._dynamo.config.patch(specialize_float=True, allow_rnn=True))
    stack.enter_context(torch.no_grad())
    if backend == "capture":
        from symguard.service.torch_bridge import CaptureBackend
        compiled = torch.compile(model, dynamic=True, fullgraph=True, backend=CaptureBackend())
    else:
        compiled = torch.compile(model, dynamic=True, fullgraph=True, backend=backend)
    return model, lambda: compiled(*args)


def source_of(name: str, backend: str) -> dict[str, Any]:
    """Where a recording comes from: model, its description, torch version, how it was compiled."""
    import torch
    from gen_corpus_models import MODELS

    return {"model": name, "description": MODELS[name][0], "torch": torch.__version__.split("+")[0],
            "how": f"torch.compile(dynamic=True, fullgraph=True, backend={backend!r}) on CPU, "
                   "inductor caches disabled, specialize_float=True"}


def run_children(script: str, names: list[str], extra: list[str], timeout: float) -> int:
    """Run ``script --child NAME extra…`` for each model in its own process (one at a time, each
    time-limited); a model that fails or hangs is reported and skipped. Exit 1 if all failed."""
    import subprocess
    import sys

    failed = 0
    for name in names:
        t0 = time.monotonic()
        try:
            r = subprocess.run([sys.executable, script, "--child", name, *extra], check=False,
                               capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            print(f"SKIP {name}: no result within {timeout:.0f} s", flush=True)
            failed += 1
            continue
        if r.returncode != 0:
            lines = [ln for ln in r.stderr.strip().splitlines() if ln.strip() and not ln.startswith(" ")]
            print(f"SKIP {name}: {' | '.join(lines[-3:])[:600]}", flush=True)
            failed += 1
            continue
        last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
        print(f"OK   {name} {last} ({time.monotonic() - t0:.0f} s wall)", flush=True)
    return 1 if names and failed == len(names) else 0
