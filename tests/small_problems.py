"""Random small problems on bounded boxes, with an oracle that never touches the library.

Each expression is generated as a tree and printed twice: as sympy text for the library, and as
a Python closure for brute-force enumeration (Python's own ``//``, ``%``, ``max``, ``min``; a zero
divisor makes the enclosing condition fail, as docs/problem-format.md §1.2 says).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

Env = dict[str, int]
Fn = Callable[[Env], Any]

NAMES = ("s0", "s1", "s2")


@dataclass(frozen=True)
class Expr:
    text: str
    fn: Fn


def _bin(op: str, a: Expr, b: Expr) -> Expr:
    x, y = a.fn, b.fn
    table: dict[str, tuple[str, Fn]] = {
        "+": (f"({a.text} + {b.text})", lambda e: x(e) + y(e)),
        "-": (f"({a.text} - {b.text})", lambda e: x(e) - y(e)),
        "*": (f"({a.text})*({b.text})", lambda e: x(e) * y(e)),
        "//": (f"(({a.text})//({b.text}))", lambda e: x(e) // y(e)),
        "%": (f"Mod({a.text}, {b.text})", lambda e: x(e) % y(e)),
        "Max": (f"Max({a.text}, {b.text})", lambda e: max(x(e), y(e))),
        "Min": (f"Min({a.text}, {b.text})", lambda e: min(x(e), y(e))),
    }
    text, fn = table[op]
    return Expr(text, fn)


def int_exprs(names: tuple[str, ...]) -> st.SearchStrategy[Expr]:
    leaf = st.one_of(
        st.sampled_from(names).map(lambda n: Expr(n, lambda e, n=n: e[n])),
        st.integers(-3, 5).map(lambda c: Expr(str(c) if c >= 0 else f"({c})", lambda e, c=c: c)),
    )
    ops = st.sampled_from(["+", "-", "*", "//", "%", "Max", "Min"])
    return st.recursive(leaf, lambda kids: st.builds(_bin, ops, kids, kids), max_leaves=4)


_CMP: dict[str, tuple[str, Callable[[int, int], bool]]] = {
    "<": ("{} < {}", lambda a, b: a < b), "<=": ("{} <= {}", lambda a, b: a <= b),
    "==": ("Eq({}, {})", lambda a, b: a == b), "!=": ("Ne({}, {})", lambda a, b: a != b),
    ">=": ("{} >= {}", lambda a, b: a >= b),
}


def conditions(names: tuple[str, ...]) -> st.SearchStrategy[Expr]:
    def mk(op: str, a: Expr, b: Expr) -> Expr:
        fmt, rel = _CMP[op]
        return Expr(fmt.format(a.text, b.text), lambda e: rel(a.fn(e), b.fn(e)))
    return st.builds(mk, st.sampled_from(sorted(_CMP)), int_exprs(names), int_exprs(names))


@dataclass(frozen=True)
class Small:
    doc: dict[str, Any]
    boxes: dict[str, tuple[int, int]]
    guards: tuple[Expr, ...]

    def points(self) -> Iterator[Env]:
        names = list(self.boxes)
        for vals in itertools.product(*(range(lo, hi + 1) for lo, hi in self.boxes.values())):
            yield dict(zip(names, vals))

    def feasible(self) -> list[Env]:
        return [e for e in self.points() if all(holds(g.fn, e) for g in self.guards)]


def holds(fn: Fn, env: Env) -> bool:
    try:
        return bool(fn(env))
    except ZeroDivisionError:
        return False


def value(fn: Fn, env: Env) -> int | None:
    try:
        return int(fn(env))
    except ZeroDivisionError:
        return None


def _defined_at(g: Expr, env: Env) -> bool | None:
    try:
        return bool(g.fn(env))
    except ZeroDivisionError:
        return None


def _negate(g: Expr) -> Expr:
    return Expr(f"Not({g.text})", lambda e: not g.fn(e))


@st.composite
def small_problems(draw: st.DrawFn, *, hints: bool = True, timeout_ms: int = 20000) -> Small:
    n = draw(st.integers(1, 3))
    names = NAMES[:n]
    boxes: dict[str, tuple[int, int]] = {}
    symbols: dict[str, Any] = {}
    for s in names:
        lo = draw(st.integers(-3, 3))
        hi = draw(st.integers(lo, lo + 6))
        boxes[s] = (lo, hi)
        symbols[s] = {"min": lo, "max": hi}
        if hints and draw(st.booleans()):
            symbols[s]["hint"] = draw(st.integers(lo, hi))
    guards = list(draw(st.lists(conditions(names), min_size=1, max_size=3)))
    if draw(st.integers(0, 4)):  # mostly: make a random point of the box satisfy the guards
        point = {s: draw(st.integers(*boxes[s])) for s in names}
        guards = [g if _defined_at(g, point) is not False else _negate(g) for g in guards]
    guards = tuple(guards)
    doc = {"symbols": symbols, "guards": [g.text for g in guards], "options": {"timeout_ms": timeout_ms}}
    return Small(doc, boxes, guards)
