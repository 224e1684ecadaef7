"""Dynamo's shape guards as a symguard problem: the part-2 guards ``produce_guards`` would emit.

Which guards are asked about and which are handed on untouched (decided by the ranges, about a
symbol not bound to an input, or *opaque*: code that may not compute the exact value,
``guard_semantics``), printed as ``produce_guards`` prints them, with the ranges part 3 checks.
torch and sympy are imported inside the functions.
"""

from __future__ import annotations

import math
import re
from typing import Any

from .guard_semantics import divisor_terms, executed_exactly, may_not_finish, may_raise
from .torch_bridge import OPTIONS, Doc, _bound, _sym_key

# Dynamo turns a ShapeEnv into guard code in one call, ``ShapeEnv.produce_guards_verbose``, made
# from ``GuardBuilder.SHAPE_ENV`` (torch/_dynamo/guards.py). That call emits, in order:
#   1. ``source == expr`` for every input size/stride/offset whose value is not its own symbol
#      (duck sizing, replacements, derived strides);
#   2. every guard of ``ShapeEnv.guards`` not decided by the ranges, after ``ShapeEnv.simplify``;
#   3. ``lo <= s <= hi`` for every symbol bound to an input, with its *current* range;
#   4. NaN and automatic-dynamic exclusion guards.
# Its ``guards=`` parameter replaces only part 2. The hook (``torch_hook``) hands it the subset symguard
# proves sufficient (and drops exact repeats of a check, ``drop_duplicates``); parts 1, 3 and 4 and every non-shape guard (TENSOR_MATCH: dtype, device,
# static sizes) stay as they are. symguard is told exactly what part 3 checks -- the ranges as
# they stand when the guards are produced, for symbols bound to an input, and nothing else (no
# runtime asserts: they run inside the graph, not in the guard) -- so "ranges and kept guards
# imply each dropped guard" makes the pruned check accept exactly the inputs the stock check
# accepts (docs/torch_guards.md).


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


def entry_ranges(placeholders: Any) -> dict[Any, tuple[float, float]]:
    """Each input symbol's range when part 2 runs, before part 3 checks any range: a plain
    tensor's size, stride or storage offset is ``>= 0`` (0 and 1 included: 0/1 specialization
    is a part-3 check), anything else (a SymInt argument) unbounded and so left out."""
    import sympy
    import torch
    from torch.utils._python_dispatch import is_traceable_wrapper_subclass

    sizes: set[Any] = set()
    others: set[Any] = set()
    for t in placeholders:
        if isinstance(t, torch.Tensor) and not is_traceable_wrapper_subclass(t):
            vals: tuple[Any, ...] = (*t.size(), *(() if t.is_sparse else (*t.stride(), t.storage_offset())))
            sizes |= {v.node.expr for v in vals if isinstance(v, torch.SymInt) and isinstance(v.node.expr, sympy.Symbol)}
        elif isinstance(t, (torch.SymInt, torch.SymFloat)):
            others.add(t.node.expr)
    return {s: (0, math.inf) for s in sizes - others}


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
                        ) -> tuple[Doc, list[list[Any]], list[Any], list[Any], int, set[int]]:
    """The problem whose minimal set is the part-2 guards to emit.

    Returns the document (guard ``g{i}`` is the i-th distinct simplified guard, as
    ``produce_guards`` prints it), the ShapeGuards behind each id, the ShapeGuards passed
    through untouched (decided by the ranges, which ``produce_guards`` skips itself, guards
    symguard is not asked about: a symbol that is not an integer bound to an input, and *opaque*
    guards: code in one of the executed ``langs`` that may compute another value than the exact
    one, ``guard_semantics``), the simplified sympy expression of each id, and how many of the
    passed-through guards are opaque, and (with C++ guards) the ``id`` of every ShapeGuard whose
    Python code may raise (``guard_semantics.may_raise``).
    """
    bound = input_symbols(placeholders)
    text = guard_printer()
    ranges = enforced_ranges(env)
    groups: dict[str, list[Any]] = {}
    simplified: dict[str, Any] = {}
    passthrough: list[Any] = []
    opaque = 0
    syms: set[Any] = set()
    # When a C++ guard rejects, Dynamo evaluates the guards' Python code in order to name the
    # reason, and an exception there (a zero divisor) reaches the caller: the guards that may
    # raise are listed, and the pruner emits every guard before the last of them it keeps, in
    # place (torch_prune). "May raise" is judged on the inputs part 2 sees, before part 3 checks
    # the ranges (a size may be 0, an int anything), not on the ranges narrowed by guards.
    # The same holds, in both languages, for a guard whose Python code may not finish (a power
    # ``2 ** k`` of an unbounded ``k``): Python's guard runs part 2 in order, and a guard before it
    # that rejects a huge ``k`` must stay before it (``may_not_finish``).
    raising: set[int] = set()
    unchecked = entry_ranges(placeholders)
    for g in env.guards:
        if _static(env, g):
            passthrough.append(g)  # produce_guards skips it itself
            continue
        e = env.simplify(g.expr)
        if ("cpp" in langs and may_raise(e, unchecked)) or may_not_finish(e, unchecked):
            raising.add(id(g))
        if not _over_inputs(e, bound):
            passthrough.append(g)
            continue
        if not all(executed_exactly(e, ranges, lang) for lang in langs):
            passthrough.append(g)  # opaque: emitted as it is, a premise for nothing
            opaque += 1
            continue
        t = text(e)
        groups.setdefault(t, []).append(g)
        simplified.setdefault(t, e)
        syms |= e.free_symbols
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
    return doc, list(groups.values()), passthrough, list(simplified.values()), opaque, raising


def _static(env: Any, g: Any) -> bool:
    """Whether stock decides guard ``g`` statically (``produce_guards`` skips it: never emitted)."""
    return env._maybe_evaluate_static(g.expr, axioms=(), size_oblivious=g.size_oblivious) is not None


def _over_inputs(e: Any, bound: Any) -> bool:
    """Whether ``e`` has free symbols, each an integer input symbol symguard can name."""
    free = getattr(e, "free_symbols", None) or ()
    return bool(free) and all(s in bound and s.is_integer and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(s))
                              for s in free)


def prefix_defines(env: Any, placeholders: Any, index: int) -> Doc | None:
    """The ``redundancy`` question whose answer shows that stock's guard ``env.guards[index]``
    cannot raise where Dynamo's reason walk reaches it: the walk stops at the first guard that
    is false, so it reaches this one only where every guard before it holds. Its asserts are the
    guards before it (those symguard reads as Python computes them on the inputs part 2 sees:
    sizes ``>= 0``, ints anything, ``entry_ranges``), its guards ``Ne(d, 0)`` for each divisor
    ``d`` of the guard: all ``always_true``, the guard never raises there. None when the guard
    may raise in another way than a zero divisor, or may not finish (not asked: put back)."""
    g = env.guards[index]
    e = env.simplify(g.expr)
    unchecked = entry_ranges(placeholders)
    if may_not_finish(e, unchecked) or may_raise(e, unchecked, divisors=False):
        return None
    divs = divisor_terms(e)
    bound = input_symbols(placeholders)
    if not divs or not _over_inputs(e, bound):
        return None
    text = guard_printer()
    premises: list[str] = []
    syms: set[Any] = set(e.free_symbols)
    for p in env.guards[:index]:
        if _static(env, p):
            continue  # stock does not emit it
        pe = env.simplify(p.expr)
        if not _over_inputs(pe, bound) or not executed_exactly(pe, unchecked, "python"):
            continue  # a premise symguard might read otherwise than Python computes it: left out
        premises.append(text(pe))
        syms |= pe.free_symbols
    symbols: dict[str, dict[str, int | None]] = {}
    for s in sorted(syms, key=lambda s: _sym_key(str(s))):
        lo = unchecked.get(s, (-math.inf, math.inf))[0]
        symbols[str(s)] = {"min": None if lo == -math.inf else int(lo), "max": None}
    return {"symbols": symbols, "asserts": list(dict.fromkeys(premises)),
            "guards": [{"id": f"d{j}", "expr": f"Ne({text(d)}, 0)"} for j, d in enumerate(dict.fromkeys(divs))],
            "options": {**OPTIONS, "default_min": None}}
