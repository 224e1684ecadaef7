"""Brute-force checks of ``tests/simplify_outside2_cases.py``: an evaluator of docs/problem-format.md
§1.2 with Python's integers, apart from symguard's reader (an expected form is checked by a
different reading than the one ``simplify`` uses), over a grid of each case's symbols and loop
variables (negatives and zero where the context allows) plus random large points.
``bench/simplify_outside2.py --check`` runs the full grid; the test a smaller one (``scale``)."""

from __future__ import annotations

import ast
import itertools
import math
import random
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

from symguard.solver.ops.simplify_cost import no_costlier
from symguard.solver.reason.simplify_terms import DIV_WEIGHT
from symguard.solver.syntax.sympy_writer import cost

Case = tuple[str, str, dict[str, tuple[int | None, int | None]], tuple[str, ...], dict[str, object], str, str]


def weighted(c: dict[str, int]) -> int:
    return c["ops"] + DIV_WEIGHT * c["divs"]




def _truncdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _piecewise(*pairs: tuple[Any, Any]) -> Any:
    for v, c in pairs:
        if c:
            return v
    raise ZeroDivisionError("no branch holds")  # undefined, like a zero divisor


def _nonzero(b: Any) -> Any:
    if b == 0:
        raise ZeroDivisionError
    return b


_ENV: dict[str, Any] = {
    "Mod": lambda a, b: a % _nonzero(b),
    "PythonMod": lambda a, b: a % _nonzero(b),
    "FloorDiv": lambda a, b: a // _nonzero(b),
    "CeilDiv": lambda a, b: -((-a) // _nonzero(b)),
    "ModularIndexing": lambda x, d, m: (x // _nonzero(d)) % _nonzero(m),
    "TruncDiv": lambda a, b: _truncdiv(a, _nonzero(b)),
    "TruncMod": lambda a, b: a - b * _truncdiv(a, _nonzero(b)),
    "Max": max, "Min": min, "Abs": abs,
    "Piecewise": _piecewise,
    "Eq": lambda a, b: a == b, "Ne": lambda a, b: a != b,
    "Lt": lambda a, b: a < b, "Le": lambda a, b: a <= b, "Gt": lambda a, b: a > b, "Ge": lambda a, b: a >= b,
    "And": lambda *a: all(a), "Or": lambda *a: any(a), "Not": lambda a: not a,
    "Implies": lambda p, q: (not p) or q,
    "floor": math.floor, "ceiling": math.ceil,
    "_Q": lambda a, b: Fraction(a, _nonzero(b)),
    "True": True, "False": False,
}


class _ExactDiv(ast.NodeTransformer):
    """``a / b`` as an exact ``Fraction`` (only under ``floor``/``ceiling`` in these cases)."""

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Div):
            return ast.copy_location(ast.Call(ast.Name("_Q", ast.Load()), [node.left, node.right], []), node)
        return node


def compile_text(text: str, names: list[str]) -> Callable[..., Any]:
    tree = ast.parse(text.strip(), mode="eval")
    if any(isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Invert) for n in ast.walk(tree)):
        raise ValueError(f"{text!r}: ~ on a Python bool is not Not")
    body = ast.fix_missing_locations(_ExactDiv().visit(tree)).body
    lam = ast.Expression(ast.Lambda(ast.arguments([], [ast.arg(n) for n in names], None, [], [], None, []), body))
    return eval(compile(ast.fix_missing_locations(lam), "<case>", "eval"), dict(_ENV))


def _window(lo: int | None, hi: int | None, w: int) -> list[int]:
    if lo is None and hi is None:
        return list(range(-w // 2, w // 2 + 1))
    if lo is None:
        assert hi is not None
        return list(range(hi - w, hi + 1))
    top = lo + w if hi is None else min(hi, lo + w)
    return list(range(lo, top + 1))


def _random_value(lo: int | None, hi: int | None, rng: random.Random) -> int:
    mag = int(10 ** rng.uniform(0, 7))
    if lo is None and hi is None:
        return rng.choice((-1, 1)) * mag
    if hi is None:
        assert lo is not None
        return lo + mag
    if lo is None:
        return hi - mag
    return rng.randint(lo, hi)


_WIDTH = {1: 600, 2: 160, 3: 22, 4: 10}


def points(case: Case, seed: int = 0, scale: float = 1.0) -> Iterator[dict[str, int]]:
    """The grid (and random points) of a case's context symbols and loop variables; ``scale``
    shrinks the grid's width and the number of random points."""
    _, _, syms, _, ranges, _, _ = case
    names = list(syms)
    w = max(4, int(_WIDTH.get(len(names), 6) * scale))
    bounds = {v: compile_text(str(b), names) for v, b in ranges.items()}
    loop = list(ranges)
    grid = [_window(*syms[n], w) for n in names]

    def with_loops(base: dict[str, int], rng: random.Random | None) -> Iterator[dict[str, int]]:
        tops = [bounds[v](*base.values()) for v in loop]
        if any(t <= 0 for t in tops):
            return
        if rng is None:
            capped = [range(min(t, 40)) if t <= 40 else [0, 1, t // 2, t - 2, t - 1] for t in tops]
            for vals in itertools.product(*capped):
                yield {**base, **dict(zip(loop, vals, strict=True))}
        else:
            yield {**base, **{v: rng.randrange(t) for v, t in zip(loop, tops, strict=True)}}

    for vals in itertools.product(*grid):
        base = dict(zip(names, vals, strict=True))
        if loop and any(abs(x) > 60 for x in vals):
            continue
        yield from with_loops(base, None)
    rng = random.Random(seed)
    for _ in range(int(3000 * scale)):
        base = {n: _random_value(*syms[n], rng) for n in names}
        yield from with_loops(base, rng)


def check(case: Case, scale: float = 1.0) -> tuple[bool, str]:
    """(ok, why): the expected form equals the input wherever the context holds and the input is
    defined, at enough points, and costs no more than the input."""
    _cid, _, syms, asserts, ranges, expr, want = case
    names = list(syms) + list(ranges)
    f, g = compile_text(expr, names), compile_text(want, names)
    facts = [compile_text(a, names) for a in asserts]
    seen = 0
    for p in points(case, scale=scale):
        args = [p[n] for n in names]
        try:
            if not all(a(*args) for a in facts):
                continue
        except ZeroDivisionError:
            continue
        try:
            v = f(*args)
        except ZeroDivisionError:
            continue
        try:
            u = g(*args)
        except ZeroDivisionError:
            return False, f"want undefined at {p} where the input is {v}"
        if isinstance(v, bool) != isinstance(u, bool) or v != u:
            return False, f"at {p}: input {v!r}, want {u!r}"
        seen += 1
    if seen < (20 if scale >= 1 else 3):
        return False, f"only {seen} points"
    ci, cw = cost(expr), cost(want)
    if not no_costlier(cw, ci):
        return False, f"want costs {cw}, input {ci}"
    return True, f"{seen} points, cost {weighted(ci)} -> {weighted(cw)}"
