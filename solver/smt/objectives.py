"""What ``shrink`` minimizes, as z3 terms: Σ|s|, max|s| or |s| lexicographically, and distinctness.

Each objective comes with its Python twin (the value on a model) and its floor (the lowest value
the ranges allow), so the descent can stop as soon as it reaches a proven bound.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TypeAlias

import z3

from symguard.solver.ir.problem import Symbol
from symguard.solver.ir.pyeval import Value
from symguard.solver.smt.optimize import Objective, Session

Lit: TypeAlias = z3.BoolRef


def _abs(z: z3.ArithRef, s: Symbol) -> z3.ArithRef:
    if s.lo is not None and s.lo >= 0:
        return z
    if s.hi is not None and s.hi <= 0:
        return -z
    return z3.If(z >= 0, z, -z)


def _lowest_abs(s: Symbol) -> int:
    """min |v| over the symbol's range."""
    if s.lo is not None and s.lo > 0:
        return s.lo
    if s.hi is not None and s.hi < 0:
        return -s.hi
    return 0


def levels(kind: str, ints: Sequence[Symbol]) -> Callable[[Mapping[str, Value]], list[int]]:
    """The objective's levels at a model, in Python (``[o.value(m) for o in objectives(...)]``
    without a solver): what a search compares lexicographically. Every level is non-decreasing
    in each ``|s|``."""
    names = [s.name for s in ints]
    if kind not in ("sum", "max", "lex"):
        raise ValueError(f"unknown objective {kind!r}")
    if not names:
        return lambda m: []

    def key(m: Mapping[str, Value]) -> list[int]:
        vals = [abs(int(m[n])) for n in names]
        if kind == "sum":
            return [sum(vals)]
        if kind == "max":
            return [max(vals), sum(vals)]
        return vals

    return key


def objectives(kind: str, ints: Sequence[Symbol], sess: Session) -> list[Objective]:
    """The lexicographic levels of an objective, as z3 terms and Python functions."""
    if not ints:
        return []
    zs = {s.name: sess.ch.z3_symbol(s.name) for s in ints}
    absz = {s.name: _abs(zs[s.name], s) for s in ints}
    names = [s.name for s in ints]
    total = z3.Sum(list(absz.values())) if len(ints) > 1 else absz[names[0]]
    sum_obj = Objective(total, lambda b: total <= b,
                        lambda m: sum(abs(int(m[n])) for n in names),
                        sum(_lowest_abs(s) for s in ints))
    if kind == "sum":
        return [sum_obj]
    if kind == "max":
        top = absz[names[0]]
        for n in names[1:]:
            top = z3.If(absz[n] > top, absz[n], top)
        max_obj = Objective(top, lambda b: z3.And([z3.And(zs[n] <= b, zs[n] >= -b) for n in names]),
                            lambda m: max(abs(int(m[n])) for n in names),
                            max(_lowest_abs(s) for s in ints))
        return [max_obj, sum_obj]
    if kind == "lex":
        return [_single(absz[s.name], zs[s.name], s) for s in ints]
    raise ValueError(f"unknown objective {kind!r}")


def _single(a: z3.ArithRef, z: z3.ArithRef, s: Symbol) -> Objective:
    name = s.name
    return Objective(a, lambda b: z3.And(z <= b, z >= -b), lambda m: abs(int(m[name])), _lowest_abs(s))


def distinct_literal(sess: Session, pairs: Sequence[tuple[str, str]]) -> Lit:
    """An assumption literal that keeps each pair of symbols apart (``preserve_distinct``)."""
    z = sess.ch.z3_symbol
    return sess.lit(z3.And([z(a) != z(b) for a, b in pairs]))
