"""Fast tracing: take repeated sympy work off the hot path of a dynamic-shape ``torch.compile``.

Profiled on Swin-class models (BENCHMARKS.md, "Compile time"), nearly all of a dynamic compile's
time is PyTorch re-deriving the same symbolic facts about the same few sub-terms: ``sympy.simplify``
re-run from scratch on one expression thousands of times (FloorDiv's gcd rule simplifies the
quotients, and ``simplify`` recursively re-simplifies every function argument, rebuilding FloorDivs
that simplify again), and ``bound_sympy`` re-walking every shared sub-term of a size expression
for each static evaluation. While the switch is on, those are answered from memo tables:

* ``sympy.simplify`` by the result the same call returned before (same expression, same options);
* the value-range analysis behind ``bound_sympy`` by the range computed before for the same
  sub-term, valid only while the ranges of the sub-term's own symbols are unchanged (each entry
  records them and is checked on every hit).

Both are exact: PyTorch gets the object its own code computed for an equal input, so guards,
graphs, recompiles and errors stay as stock (an exception is never memoized; it is raised again).
``enable()`` returns a token, ``disable(token)`` undoes it; the first enable patches, the last
disable restores PyTorch's and sympy's own functions and drops the tables. Thread-safe, re-entrant.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Token", "active", "disable", "enable", "error", "stats"]

_MEMO_LIMIT = 1 << 15  # entries per table; a compile of the Swin models uses a few thousand


@dataclass(frozen=True)
class Token:
    """One ``enable()``; hand it back to ``disable`` exactly once."""

    serial: int


@dataclass
class _State:
    depth: int = 0
    serial: int = 0
    live: set[int] = field(default_factory=set)
    saved: list[tuple[Any, str, Any]] = field(default_factory=list)  # (owner, name, original)
    counts: dict[str, int] = field(default_factory=dict)
    error: str | None = None  # why the last installation was abandoned (PyTorch left as stock)


_lock = threading.RLock()
_state = _State()
_simplify_memo: OrderedDict[Any, Any] = OrderedDict()
_ranges_memo: dict[Any, tuple[Any, tuple[tuple[Any, Any], ...]]] = {}
_expand_memo: dict[Any, Any] = {}
_xreplace_memo: OrderedDict[Any, dict[Any, tuple[Any, bool]]] = OrderedDict()
_free_memo: dict[Any, set[Any]] = {}
_relational_memo: dict[Any, Any] = {}
_XREPLACE_RULE_LIMIT = 16  # rules with more entries (the ShapeEnv's axioms) are not memoized


def active() -> bool:
    """Whether the memo tables are in place (some ``enable()`` not yet disabled, and it fit)."""
    return bool(_state.saved)


def error() -> str | None:
    """Why the last ``enable`` left PyTorch as stock (a function it patches was not found)."""
    return _state.error


def stats() -> dict[str, int]:
    """Memo hits and misses since the switch was last turned on (for the bench and tests)."""
    with _lock:
        return dict(_state.counts)


def _count(key: str) -> None:
    _state.counts[key] = _state.counts.get(key, 0) + 1


def enable() -> Token:
    """Turn fast tracing on (nested calls share one installation); returns the token to disable."""
    with _lock:
        if _state.depth == 0:
            try:
                _install()
                _state.error = None
            except Exception as e:  # noqa: BLE001 - a PyTorch/sympy this does not fit: stay stock
                _uninstall()
                _state.error = f"{type(e).__name__}: {e}"
        _state.depth += 1
        _state.serial += 1
        _state.live.add(_state.serial)
        return Token(_state.serial)


def disable(token: Token) -> None:
    """Undo one ``enable``; the last one restores PyTorch exactly. A token counts once."""
    with _lock:
        if token.serial not in _state.live:
            return
        _state.live.discard(token.serial)
        _state.depth -= 1
        if _state.depth == 0:
            _uninstall()


def _patch(owner: Any, name: str, new: Any) -> None:
    _state.saved.append((owner, name, owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)))
    setattr(owner, name, new)


def _install() -> None:
    import sympy
    import torch.utils._sympy.value_ranges as vr
    from sympy.core.parameters import global_parameters

    _GP[:] = [global_parameters]
    _state.counts = {}
    simp_mod = sys.modules["sympy.simplify.simplify"]
    orig_simplify = simp_mod.simplify
    fast_simplify = _memo_simplify(orig_simplify)
    # sympy.simplify is the function (re-exported by the package); the recursion inside
    # sympy.simplify.simplify looks it up as a module global, so both names are patched.
    _patch(simp_mod, "simplify", fast_simplify)
    _patch(sys.modules["sympy"], "simplify", fast_simplify)
    if sys.modules["sympy.simplify"].__dict__.get("simplify") is orig_simplify:
        _patch(sys.modules["sympy.simplify"], "simplify", fast_simplify)
    _patch(vr, "sympy_interp", _memo_interp(vr.sympy_interp, vr.SymPyValueRangeAnalysis))
    import torch.fx.experimental.symbolic_shapes as shapes

    # safe_expand and its own recursion look _fast_expand up as a module global
    _patch(shapes, "_fast_expand", _memo_expand(shapes._fast_expand))
    _patch(sympy.Basic, "xreplace", _memo_xreplace(sympy.Basic.xreplace, sympy.Basic))
    _patch(sympy.Basic, "atoms", _shared_atoms(sympy.Basic.atoms, sympy.Basic))
    _patch(sympy.Basic, "free_symbols", _memo_free_symbols(sympy.Basic.__dict__["free_symbols"]))
    from sympy.core.relational import Equality, Unequality, _Inequality

    for rel in (Equality, Unequality, _Inequality):
        _patch(rel, "__new__", _memo_relational(rel.__dict__["__new__"]))


def _uninstall() -> None:
    while _state.saved:
        owner, name, orig = _state.saved.pop()
        setattr(owner, name, orig)
    _simplify_memo.clear()
    _ranges_memo.clear()
    _expand_memo.clear()
    _xreplace_memo.clear()
    _free_memo.clear()
    _relational_memo.clear()


def _evaluating() -> bool:
    """sympy's global construction switches at their defaults (a memo entry was built under them)."""
    gp = _GP[0]
    return bool(gp.evaluate) and bool(gp.distribute) and not gp.exp_is_pow


def _memo_simplify(orig: Any) -> Any:
    def simplify(expr: Any, *args: Any, **kwargs: Any) -> Any:
        if not _evaluating():  # sympy's global switches change what gets built: its own path
            return orig(expr, *args, **kwargs)
        try:
            key = (type(expr), expr, args, tuple(sorted(kwargs.items())))
            hit = _simplify_memo.get(key, _MISSING)
        except TypeError:  # unhashable argument: not memoizable
            return orig(expr, *args, **kwargs)
        if hit is not _MISSING:
            _count("simplify_hit")
            return expr if hit is _SAME else hit  # unchanged: this very object, as sympy returns it
        _count("simplify_miss")
        out = orig(expr, *args, **kwargs)
        _simplify_memo[key] = _SAME if _unchanged(out, expr) else out
        if len(_simplify_memo) > _MEMO_LIMIT:
            _simplify_memo.popitem(last=False)
        return out

    simplify.__wrapped__ = orig  # type: ignore[attr-defined]
    return simplify


_MISSING = object()
_GP: list[Any] = []  # sympy's global_parameters, bound at the first install
_SAME = object()  # memo value: the function returned its argument itself (or an equal copy)


def _unchanged(out: Any, expr: Any) -> bool:
    """Whether ``out`` is ``expr`` up to identity. An equal copy is stored as ``_SAME`` too: a
    later hit for another instance equal to ``expr`` must return that instance itself, as the
    stock function would, never the copy built for the first one (PyTorch's recursion rebuilds a
    parent whose argument comes back as another object)."""
    return out is expr or (type(out) is type(expr) and out == expr)


def _memo_interp(orig: Any, analysis_cls: Any) -> Any:
    """``sympy_interp`` with a memo for ``bound_sympy``'s range analysis (other analyses: as is).

    The range of a sub-term is a function of the sub-term and of the ranges of its free symbols
    (a symbol missing from the environment gets a range from its assumptions alone), so an entry
    keeps the ranges it was computed under and is reused only when all of them are unchanged.
    """
    import sympy
    import torch
    from sympy.logic.boolalg import BooleanAtom
    from torch.utils._sympy.interp import _run_sympy_handler

    int64 = torch.int64
    Symbol, Integer, Number = sympy.Symbol, sympy.Integer, sympy.Number

    def interp(analysis: Any, env: Any, expr: Any, *, index_dtype: Any = int64,
               missing_handler: Any = None) -> Any:
        if (analysis is not analysis_cls or index_dtype is not int64
                or (missing_handler is not None
                    and getattr(missing_handler, "__qualname__", "") != "bound_sympy.<locals>.missing_handler")):
            return orig(analysis, env, expr, index_dtype=index_dtype, missing_handler=missing_handler)
        return walk(expr, env, missing_handler)[0]

    def walk(expr: Any, env: Any, missing: Any) -> tuple[Any, tuple[tuple[Any, Any], ...]]:
        if isinstance(expr, BooleanAtom):
            return analysis_cls.constant(expr, torch.bool), ()
        if isinstance(expr, Integer):
            return analysis_cls.constant(expr, int64), ()
        if isinstance(expr, Number):
            return analysis_cls.constant(expr, torch.double), ()
        if isinstance(expr, Symbol):
            r = env.get(expr, _MISSING)
            if r is _MISSING:
                if missing is None:
                    raise KeyError(expr)
                return missing(expr), ((expr, _MISSING),)
            return r, ((expr, r),)
        hit = _ranges_memo.get(expr)
        if hit is not None:
            res, deps = hit
            if all(env.get(s, _MISSING) == r for s, r in deps):
                _count("ranges_hit")
                return hit
        _count("ranges_miss")
        vals = []
        seen: dict[Any, Any] = {}
        for arg in expr.args:
            v, d = walk(arg, env, missing)
            vals.append(v)
            for s, r in d:
                seen[s] = r
        res = _run_sympy_handler(analysis_cls, vals, expr, index_dtype=int64)
        entry = (res, tuple(seen.items()))
        if len(_ranges_memo) >= _MEMO_LIMIT:
            _ranges_memo.clear()
        _ranges_memo[expr] = entry
        return entry

    interp.__wrapped__ = orig  # type: ignore[attr-defined]
    return interp


def _memo_expand(orig: Any) -> Any:
    """PyTorch's ``_fast_expand`` (a pure function of the expression), computed once per term."""

    def fast_expand(expr: Any) -> Any:
        if not _evaluating():
            return orig(expr)
        hit = _expand_memo.get(expr, _MISSING)
        if hit is not _MISSING:
            _count("expand_hit")
            # an unchanged term comes back as the very object passed in: PyTorch's recursion
            # tests ``arg is not new_arg`` to decide whether to rebuild (an equal copy loops)
            return expr if hit is _SAME else hit
        _count("expand_miss")
        out = orig(expr)
        if len(_expand_memo) >= _MEMO_LIMIT:
            _expand_memo.clear()
        _expand_memo[expr] = _SAME if _unchanged(out, expr) else out
        return out

    fast_expand.__wrapped__ = orig  # type: ignore[attr-defined]
    return fast_expand


def _memo_xreplace(orig: Any, basic: Any) -> Any:
    """``Basic.xreplace`` that, for a small rule, rebuilds each distinct sub-term once per rule.

    The walk is sympy's own ``Basic._xreplace`` (a node in the rule is replaced; otherwise its
    arguments are, and the node is rebuilt with ``func(*args)`` only if one changed), with the
    result of every compound sub-term kept for the next call with an equal rule: the same
    substitution of shifted symbols is applied to the same shared sub-terms again and again.
    """
    base_xreplace = basic.__dict__["_xreplace"]

    def xreplace(self: Any, rule: Any, *args: Any, **kwargs: Any) -> Any:
        if (args or kwargs or type(rule) is not dict or not rule or len(rule) > _XREPLACE_RULE_LIMIT
                or type(self)._xreplace is not base_xreplace or not _evaluating()):
            return orig(self, rule, *args, **kwargs)
        try:
            key = frozenset(rule.items())
        except TypeError:
            return orig(self, rule)
        memo = _xreplace_memo.get(key)
        if memo is None:
            memo = _xreplace_memo[key] = {}
            if len(_xreplace_memo) > 256:
                _xreplace_memo.popitem(last=False)
        return walk(self, rule, memo)[0]

    def walk(node: Any, rule: Any, memo: dict[Any, tuple[Any, bool]]) -> tuple[Any, bool]:
        if node in rule:
            return rule[node], True
        nargs = node.args
        if not nargs:
            return node, False
        hit = memo.get(node)
        if hit is not None:
            _count("xreplace_hit")
            return hit if hit[1] else (node, False)  # unchanged: this very object, as sympy does
        out = []
        changed = False
        for a in nargs:
            sub = getattr(a, "_xreplace", None)
            if sub is None:
                out.append(a)
                continue
            if type(a)._xreplace is base_xreplace:
                v, c = walk(a, rule, memo)
            else:
                v, c = sub(rule)
            out.append(v)
            changed |= c
        res = (node.func(*out), True) if changed else (node, False)
        if len(memo) >= _MEMO_LIMIT // 8:
            memo.clear()
        memo[node] = res
        return res

    xreplace.__wrapped__ = orig  # type: ignore[attr-defined]
    return xreplace


def _shared_atoms(orig: Any, basic: Any) -> Any:
    """``Basic.atoms`` visiting each distinct sub-term once, in sympy's own order.

    sympy walks the expression as a tree (preorder: a LatticeOp's ``_argset``, other nodes'
    ``args``, the items of a non-sympy iterable), so a sub-term shared k times is walked k times;
    the Swin size expressions nest the same padded sizes many levels deep. When a sub-term comes
    round again, everything under it was already seen, so skipping it leaves the sequence of
    first occurrences as it was; the result set is built from that sequence in that order, so it
    even iterates in the same order as sympy's (PyTorch iterates over it).
    """
    from sympy.utilities.iterables import iterable

    def atoms(self: Any, *types: Any) -> Any:
        seen: set[Any] = set()
        order = []
        stack = [self]
        try:
            while stack:
                node = stack.pop()
                if node in seen:
                    continue
                seen.add(node)
                order.append(node)
                if isinstance(node, basic):
                    kids = node._argset if hasattr(node, "_argset") else node.args
                    stack.extend(reversed(list(kids)))
                elif iterable(node):
                    stack.extend(reversed(list(node)))
        except TypeError:  # an unhashable item inside: sympy's own walk
            return orig(self, *types)
        if types:
            types2 = tuple([t if isinstance(t, type) else type(t) for t in types])
            return {node for node in order if isinstance(node, types2)}
        return {node for node in order if not node.args}

    atoms.__wrapped__ = orig  # type: ignore[attr-defined]
    atoms.__doc__ = orig.__doc__
    return atoms


def _memo_free_symbols(orig: Any) -> Any:
    """``Basic.free_symbols``, the union over the arguments, with each argument's set remembered.

    Every call still returns a fresh set built exactly as sympy builds it (``set().union`` of the
    arguments' sets, in argument order), from argument sets that are themselves what sympy would
    build, so it holds the same elements in the same iteration order; only the walk below the
    arguments is saved. The remembered sets are never handed out (callers may mutate theirs).
    """
    prop = None

    def exact(node: Any) -> Any:
        if type(node).free_symbols is not prop:
            return node.free_symbols  # its own definition (a Symbol's {self}, bound variables...)
        hit = _free_memo.get(node)
        if hit is None:
            hit = set().union(*[exact(a) for a in node.args])
            if len(_free_memo) >= _MEMO_LIMIT:
                _free_memo.clear()
            _free_memo[node] = hit
        return hit

    def free_symbols(self: Any) -> Any:
        return set().union(*[exact(a) for a in self.args])

    free_symbols.__doc__ = orig.__doc__
    prop = property(free_symbols)
    return prop


def _memo_relational(orig_new: Any) -> Any:
    """A relational's evaluating constructor (``Eq``, ``Ne``, ``Lt``...), once per operand pair.

    sympy decides ``Eq(a, b)`` at construction by asking the assumptions of ``a - b`` (a new
    term, so nothing is cached on it); PyTorch builds the same comparisons again and again. Only
    the plain evaluating call is memoized (no options, sympy's global ``evaluate`` on).
    """
    orig = orig_new.__func__

    def new(cls: Any, lhs: Any, rhs: Any, **options: Any) -> Any:
        if options or not _evaluating():
            return orig(cls, lhs, rhs, **options)
        key = (cls, type(lhs), lhs, type(rhs), rhs)
        try:
            hit = _relational_memo.get(key, _MISSING)
        except TypeError:
            return orig(cls, lhs, rhs)
        if hit is not _MISSING:
            _count("relational_hit")
            return hit
        out = orig(cls, lhs, rhs)
        if len(_relational_memo) >= _MEMO_LIMIT:
            _relational_memo.clear()
        _relational_memo[key] = out
        return out

    return staticmethod(new)
