"""What users have today: PyTorch-style static evaluation of guards with sympy (bench only).

PyTorch decides a guard statically in ``ShapeEnv._maybe_evaluate_static``: it rewrites the
expression with the *axioms* (the other guards and the runtime asserts, each also giving its
trivial implications: ``a < b`` true means ``b > a`` true and ``a >= b`` false), then bounds it
over the symbols' value ranges (``bound_sympy``); when the bound of a condition is the single
value true, the guard is statically true. This module does the same, in two ways:

- with torch importable: the real thing, a ``ShapeEnv`` with our symbols and ranges, the guards
  built from torch's own sympy functions (``FloorDiv``, ``PythonMod``, …) and its
  ``_maybe_evaluate_static(expr, axioms=…)``;
- without torch: an equivalent on plain sympy — sympy's own automatic evaluation under the
  assumptions ``integer`` / ``nonnegative`` / ``positive``, the same axiom substitution, and an
  interval evaluator standing in for ``bound_sympy``.

Guard text is read with ``sympy.parse_expr`` and a fixed dictionary of sympy functions (corpus
files are our own; sympy is never used by ``solver/``). A guard that sympy cannot read counts as
not proven. ``redundancy`` is greedy like ours: always-true under the asserts alone, then a
guard is dropped (last first) when it is statically true with the asserts and the kept guards
as axioms.
"""

from __future__ import annotations

import ast
import logging
import re
from fractions import Fraction
from typing import Any

import sympy
from sympy.parsing.sympy_parser import parse_expr

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

try:  # torch is optional
    import torch  # noqa: F401

    # value-range analysis logs every operation it cannot bound; that is data, not news
    logging.getLogger("torch.utils._sympy.interp").setLevel(logging.ERROR)
    HAVE_TORCH = True
except ImportError as e:  # say why in the table header: a half-installed torch is not "no torch"
    HAVE_TORCH = False
    TORCH_ERROR = f"{type(e).__name__}: {e}"[:200]
else:
    TORCH_ERROR = ""


def _funcs() -> dict[str, Any]:
    S = sympy
    if HAVE_TORCH:
        from torch.utils._sympy import functions as F

        fd, pm = F.FloorDiv, F.PythonMod
        extra = {"CeilDiv": F.CeilDiv if hasattr(F, "CeilDiv") else (lambda a, b: -F.FloorDiv(-a, b)),
                 "CleanDiv": getattr(F, "CleanDiv", F.FloorDiv), "ModularIndexing": F.ModularIndexing,
                 "PowByNatural": F.PowByNatural, "pow_by_natural": F.PowByNatural,
                 "TruncDiv": getattr(F, "IntTrueDiv", None)}
        extra = {k: v for k, v in extra.items() if v is not None}
    else:
        def fd(a: Any, b: Any) -> Any:
            return S.floor(a / b)

        pm = S.Mod
        extra = {"CeilDiv": lambda a, b: S.ceiling(a / b), "CleanDiv": fd,
                 "ModularIndexing": lambda x, d, m: S.Mod(S.floor(x / d), m),
                 "PowByNatural": S.Pow, "pow_by_natural": S.Pow}
    return {"FloorDiv": fd, "Mod": pm, "PythonMod": pm, "Eq": S.Eq, "Ne": S.Ne, "Lt": S.Lt, "Le": S.Le,
            "Gt": S.Gt, "Ge": S.Ge, "And": S.And, "Or": S.Or, "Not": S.Not, "Implies": S.Implies,
            "Max": S.Max, "Min": S.Min, "Abs": S.Abs, "Piecewise": S.Piecewise, "floor": S.floor,
            "ceiling": S.ceiling, "True": S.true, "False": S.false, **extra}


class SympyProblem:
    """The problem's symbols as sympy integer symbols with PyTorch-like assumptions and ranges."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.funcs = _funcs()
        decl = doc.get("symbols") or {}
        dmin = (doc.get("options") or {}).get("default_min", 0)
        self.ranges: dict[str, tuple[int | None, int | None]] = {}
        self.hints: dict[str, int | None] = {}
        for name, spec in decl.items():
            spec = spec or {}
            self.ranges[name] = (spec.get("min", dmin), spec.get("max"))
            self.hints[name] = spec.get("hint")
        texts = [e["expr"] if isinstance(e, dict) else e for k in ("asserts", "guards") for e in doc.get(k) or []]
        for t in texts:
            for n in NAME.findall(str(t)):
                if n not in self.funcs and n not in self.ranges and not n[0].isdigit():
                    self.ranges[n] = (dmin, None)
        self.syms: dict[str, Any] = {}
        for n, (lo, _) in self.ranges.items():
            kw: dict[str, bool] = {"integer": True}
            if lo is not None and lo >= 1:
                kw["positive"] = True
            elif lo is not None and lo >= 0:
                kw["nonnegative"] = True
            self.syms[n] = sympy.Symbol(n, **kw)
        self.local = {**self.funcs, **self.syms}
        self.asserts = [self.parse(e) for e in doc.get("asserts") or []]
        self.guards = [self.parse(e) for e in doc.get("guards") or []]
        self._torch_env: Any = None

    def parse(self, entry: Any) -> Any:
        text = entry["expr"] if isinstance(entry, dict) else entry
        try:
            return parse_expr(_calls_for_operators(str(text)), local_dict=dict(self.local), evaluate=True)
        except Exception:  # noqa: BLE001 - sympy failing to read a guard is a data point, not a crash
            return None

    # -------------------------------------------------------------- static evaluation
    def static_true(self, e: Any, axioms: list[Any]) -> bool:
        if e is None:
            return False
        if e is sympy.true:
            return True
        if HAVE_TORCH:
            return self._torch_static(e, axioms)
        subst: dict[Any, Any] = {}
        for a in axioms:
            if a is not None:
                subst.update(_implications(a))
        try:
            e2 = e.xreplace(subst) if subst else e
            if e2 is sympy.true:
                return True
            return _bound(e2, self.syms, self.ranges) == (True, True)
        except Exception:  # noqa: BLE001 - sympy giving up is "not proven"
            return False

    def _torch_static(self, e: Any, axioms: list[Any]) -> bool:
        from torch.fx.experimental.symbolic_shapes import ShapeEnv
        from torch.utils._sympy.value_ranges import ValueRanges

        if self._torch_env is None:
            env = ShapeEnv()
            for n, s in self.syms.items():
                lo, hi = self.ranges[n]
                env.var_to_range[s] = ValueRanges(lo if lo is not None else -sympy.oo,
                                                  hi if hi is not None else sympy.oo)
            self._torch_env = env
        try:
            r = self._torch_env._maybe_evaluate_static(e, axioms=tuple(a for a in axioms if a is not None))
        except Exception:  # noqa: BLE001
            return False
        return r is not None and bool(r == sympy.true)

    def redundancy(self) -> dict[str, int]:
        n = len(self.guards)
        always = [self.static_true(g, self.asserts) for g in self.guards]
        kept = [i for i in range(n) if not always[i]]
        for i in reversed(list(kept)):
            axioms = self.asserts + [self.guards[j] for j in kept if j != i]
            if self.static_true(self.guards[i], axioms):
                kept.remove(i)
        return {"always_true": sum(always), "redundant": n - sum(always) - len(kept), "kept": len(kept),
                "unreadable": sum(1 for g in self.guards if g is None),
                "always_ids": [i for i in range(n) if always[i]]}

    def hints_hold(self) -> str:
        """``solve`` as users have it: the trace-time point, if every symbol has a hint."""
        if any(h is None for h in self.hints.values()) or len(self.hints) < len(self.syms):
            return "no hints"
        env = {self.syms[n]: h for n, h in self.hints.items()}
        for e in self.asserts + self.guards:
            try:
                if e is None or e.xreplace(env) is not sympy.true:
                    return "violated"
            except Exception:  # noqa: BLE001
                return "violated"
        return "sat"


class _DivToCalls(ast.NodeTransformer):
    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        name = {ast.FloorDiv: "FloorDiv", ast.Mod: "PythonMod"}.get(type(node.op))
        if name is None:
            return node
        return ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=[node.left, node.right], keywords=[])


def _calls_for_operators(text: str) -> str:
    """``a // b`` -> ``FloorDiv(a, b)``, ``a % b`` -> ``PythonMod(a, b)``: what PyTorch printed.

    Plain sympy would read ``a // b`` as ``floor(a/b)``, a rational that torch's value-range
    analysis cannot bound; PyTorch itself holds ``FloorDiv`` nodes, so we rebuild those.
    """
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return text
    return ast.unparse(_DivToCalls().visit(tree))


def clear_caches() -> None:
    """Forget what sympy and torch memoized, so a repetition is not a cache hit (symguard's
    in-process ``run`` has no cache either)."""
    from sympy.core.cache import clear_cache

    clear_cache()
    if HAVE_TORCH:
        from torch.fx.experimental import symbolic_shapes

        worker = getattr(symbolic_shapes, "_maybe_evaluate_static_worker", None)
        if worker is not None and hasattr(worker, "cache_clear"):
            worker.cache_clear()


def _implications(a: Any) -> dict[Any, Any]:
    """``a`` is true: the trivial consequences PyTorch's ``get_implications`` substitutes."""
    out: dict[Any, Any] = {}
    parts = a.args if isinstance(a, sympy.And) else (a,)
    for p in parts:
        out[p] = sympy.true
        out[sympy.Not(p)] = sympy.false
        if isinstance(p, sympy.Rel):
            lhs, rhs = p.lhs, p.rhs
            out[p.reversed] = sympy.true
            out[p.negated] = sympy.false
            out[p.reversed.negated] = sympy.false
            if isinstance(p, sympy.Eq):
                out[sympy.Ne(lhs, rhs, evaluate=False)] = sympy.false
    return out


# ------------------------------------------------------------------ interval bounds (bound_sympy)

Bound = tuple[Any, Any]  # (lo, hi): Fractions or None for -inf/+inf; for booleans (False|True, …)


def _bound(e: Any, syms: dict[str, Any], ranges: dict[str, tuple[int | None, int | None]]) -> Bound:
    memo: dict[Any, Bound] = {}
    rng = {s: ranges[n] for n, s in syms.items()}

    def go(x: Any) -> Bound:
        if x in memo:
            return memo[x]
        r = _one(x, go, rng)
        memo[x] = r
        return r

    return go(e)


def _mul(a: Bound, b: Bound) -> Bound:
    if None in a or None in b:
        if a[0] is not None and a[0] >= 0 and b[0] is not None and b[0] >= 0:
            return (a[0] * b[0], None if None in (a[1], b[1]) else a[1] * b[1])
        return (None, None)
    ps = [x * y for x in a for y in b]
    return (min(ps), max(ps))


def _one(x: Any, go: Any, rng: dict[Any, tuple[int | None, int | None]]) -> Bound:
    S = sympy
    if x is S.true:
        return (True, True)
    if x is S.false:
        return (False, False)
    if x.is_Integer or x.is_Rational:
        v = Fraction(int(x.p), int(x.q))
        return (v, v)
    if x.is_Symbol:
        lo, hi = rng.get(x, (None, None))
        return (None if lo is None else Fraction(lo), None if hi is None else Fraction(hi))
    args = [go(a) for a in x.args]
    if isinstance(x, S.Add):
        lo = None if any(a[0] is None for a in args) else sum(a[0] for a in args)
        hi = None if any(a[1] is None for a in args) else sum(a[1] for a in args)
        return (lo, hi)
    if isinstance(x, S.Mul):
        acc = args[0]
        for a in args[1:]:
            acc = _mul(acc, a)
        return acc
    if isinstance(x, S.Pow) and x.exp.is_Integer and x.exp >= 0:
        acc: Bound = (Fraction(1), Fraction(1))
        for _ in range(int(x.exp)):
            acc = _mul(acc, args[0])
        return acc
    if isinstance(x, (S.floor, S.ceiling)):
        import math

        f = math.floor if isinstance(x, S.floor) else math.ceil
        lo, hi = args[0]
        return (None if lo is None else Fraction(f(lo)), None if hi is None else Fraction(f(hi)))
    if isinstance(x, (S.Max, S.Min)):
        lows, highs = [a[0] for a in args], [a[1] for a in args]
        if isinstance(x, S.Max):
            lo = max((v for v in lows if v is not None), default=None)
            hi = None if None in highs else max(highs)
        else:
            lo = None if None in lows else min(lows)
            hi = min((v for v in highs if v is not None), default=None)
        return (lo, hi)
    if isinstance(x, S.Mod) or type(x).__name__ in ("PythonMod", "Mod"):
        lo, hi = args[1]
        if lo is not None and lo == hi and lo > 0:
            return (Fraction(0), lo - 1)
        return (None, None)
    if isinstance(x, S.Rel):
        (al, ah), (bl, bh) = args
        op = x.rel_op
        if op in ("<", "<=", ">", ">="):
            if op in (">", ">="):
                (al, ah), (bl, bh) = (bl, bh), (al, ah)
            strict = op in ("<", ">")
            yes = ah is not None and bl is not None and (ah < bl if strict else ah <= bl)
            no = al is not None and bh is not None and (al >= bh if strict else al > bh)
            return (True, True) if yes else (False, False) if no else (False, True)
        disjoint = (ah is not None and bl is not None and ah < bl) or (al is not None and bh is not None and al > bh)
        same = al is not None and al == ah == bl == bh
        if op == "==":
            return (True, True) if same else (False, False) if disjoint else (False, True)
        if op == "!=":
            return (True, True) if disjoint else (False, False) if same else (False, True)
    if isinstance(x, S.And):
        return (all(a[0] is True for a in args), all(a[1] is True for a in args))
    if isinstance(x, S.Or):
        return (any(a[0] is True for a in args), any(a[1] is True for a in args))
    if isinstance(x, S.Not):
        lo, hi = args[0]
        return (not hi, not lo)
    if x.is_Boolean:
        return (False, True)
    return (None, None)
