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


# ------------------------------------------------------------------ PyTorch-like size arithmetic

# The same guard-set shapes PyTorch emits on vision/audio models (tests/sizegen.py: conv/pool
# output sizes, pad-to-multiple, patch merge, TF SAME padding, clamps, ModularIndexing chains),
# on boxes small enough to enumerate, plus the shapes symguard's special procedures target: the
# pad ``Mod(w - Mod(n, w), w)`` and half ``(n + Mod(n, 2))//2`` chains (residue splitting),
# products of chains and ``Ne(a*b, a)`` (factor cancellation), ``Eq`` between sizes
# (substitution), and guards implied through them. Every guard's meaning is the generator's
# own formula (sizegen), never the library's reading of the string.

_HOLE = "__x__"  # the base symbol of a chain template, replaced by a real name


def _instance(e: Any, name: str) -> Expr:
    """A chain built over ``_HOLE``, applied to the symbol ``name``."""
    fn = e.fn
    return Expr(e.text.replace(_HOLE, name), lambda env: fn({**env, _HOLE: env[name]}))


def _cond(text: str, fn: Fn) -> Expr:
    return Expr(text, fn)


def _par(e: Expr) -> str:
    return e.text if e.text.isidentifier() or e.text.isdigit() else f"({e.text})"


@st.composite
def _chain(draw: st.DrawFn, *, torch_fns: bool) -> Any:
    """A size chain over ``_HOLE``: sizegen's steps, or one of the targeted shapes."""
    import sizegen as sg

    n: Any = sg.sym(_HOLE)
    shape = draw(st.sampled_from(["steps", "steps", "pad", "merge", "pad_merge", "merge_merge", "torch"]))
    if shape == "torch" and torch_fns:
        return _torch_fn(draw, n)
    if shape in ("steps", "torch"):
        spellings = ["CeilDiv", "neg", "ceiling"] + (["torch"] if torch_fns else [])
        for _ in range(draw(st.integers(1, 3))):
            n = sg._step(draw, n, spellings)
        return n
    w = draw(st.sampled_from([2, 3, 4, 7, 8]))
    pad_spelling = draw(st.sampled_from(["swin", "swin", "neg", "python"]))
    if shape == "pad":
        return sg.pad_to_multiple(n, w, pad_spelling)
    if shape == "merge":
        return sg.patch_merge(n)
    if shape == "pad_merge":
        return sg.patch_merge(sg.pad_to_multiple(n, w, pad_spelling))
    return sg.patch_merge(sg.patch_merge(n))


def _torch_fn(draw: st.DrawFn, n: Any) -> Any:
    """One of PyTorch's own size functions (docs/pytorch-functions.md) on a chain, with Python's
    meaning: ``math.ceil(a / k)``, ``a & k``, ``a << k``, … (float division is exact at these sizes)."""
    import math

    import sizegen as sg

    k = draw(st.sampled_from([2, 3, 4, 5, 7, 8]))
    f, t = n.fn, n.text
    op = draw(st.sampled_from(["ceil", "floor", "round", "and", "or", "xor", "lshift", "rshift", "where"]))
    if op in ("ceil", "floor", "round"):
        name = {"ceil": "CeilToInt", "floor": "FloorToInt", "round": "RoundToInt"}[op]
        py = {"ceil": math.ceil, "floor": math.floor, "round": round}[op]
        return sg.SizeExpr(f"{name}(IntTrueDiv({t}, {k}))", lambda env: py(f(env) / k))
    if op in ("and", "or", "xor"):
        m = draw(st.sampled_from([1, 3, 6, 7, 12, -4, -8]))
        py2 = {"and": lambda a: a & m, "or": lambda a: a | m, "xor": lambda a: a ^ m}[op]
        return sg.SizeExpr(f"BitwiseFn_bitwise_{op}({t}, {m})", lambda env: py2(f(env)))
    if op == "lshift":
        j = draw(st.integers(0, 3))
        return sg.SizeExpr(f"LShift({t}, {j})", lambda env: f(env) << j)
    if op == "rshift":
        j = draw(st.integers(0, 3))
        return sg.SizeExpr(f"RShift({t}, {j})", lambda env: f(env) >> j)
    return sg.SizeExpr(f"Where(Eq(Mod({t}, {k}), 0), {t}, {t} + {k})",
                       lambda env: f(env) + (0 if f(env) % k == 0 else k))


def _dense(sizes: list[int], strides: list[int]) -> int:
    """PyTorch's ``eval_is_non_overlapping_and_dense`` (torch/fx/experimental/symbolic_shapes.py)."""
    if len(sizes) == 1:
        return int(strides[0] == 1 or sizes[0] < 2)
    expected = 1
    for length, stride in sorted(zip(sizes, strides), key=lambda p: p[1]):
        if length == 1:
            continue
        if stride != expected:
            return 0
        expected *= length
    return 1


@st.composite
def _size_guard(draw: st.DrawFn, exprs: list[Expr]) -> Expr:
    a = draw(st.sampled_from(exprs))
    b = draw(st.sampled_from(exprs))
    c = draw(st.sampled_from(exprs))
    k = draw(st.sampled_from([1, 2, 3, 4, 8]))
    x, y, z = a.fn, b.fn, c.fn
    kind = draw(st.sampled_from(["divisible", "residue", "not_one", "at_least", "le", "eq", "ne",
                                 "lt_product", "mod_product", "ne_product", "eq_product", "ge_product",
                                 "dense"]))
    pa, pb, pc = _par(a), _par(b), _par(c)
    if kind == "divisible":
        return _cond(f"Eq(Mod({a.text}, {k}), 0)", lambda e: x(e) % k == 0)
    if kind == "residue":
        r = draw(st.integers(0, k - 1))
        return _cond(f"Eq(Mod({a.text}, {k}), {r})", lambda e: x(e) % k == r)
    if kind == "not_one":
        return _cond(f"Ne({a.text}, 1)", lambda e: x(e) != 1)
    if kind == "at_least":
        return _cond(f"{a.text} >= {k}", lambda e: x(e) >= k)
    if kind == "le":
        return _cond(f"{a.text} <= {b.text}", lambda e: x(e) <= y(e))
    if kind == "eq":
        return _cond(f"Eq({a.text}, {b.text})", lambda e: x(e) == y(e))
    if kind == "ne":
        return _cond(f"Ne({a.text}, {b.text})", lambda e: x(e) != y(e))
    if kind == "lt_product":
        return _cond(f"{pa} < {pa}*{pb}", lambda e: x(e) < x(e) * y(e))
    if kind == "mod_product":  # PyTorch's view/stride check
        return _cond(f"Ne(Mod({a.text}, {pa}*{pb}), 0)", lambda e: x(e) % (x(e) * y(e)) != 0)
    if kind == "ne_product":
        return _cond(f"Ne({pa}*{pb}, {a.text})", lambda e: x(e) * y(e) != x(e))
    if kind == "eq_product":
        return _cond(f"Eq({pa}*{pb}, {pa}*{pc})", lambda e: x(e) * y(e) == x(e) * z(e))
    if kind == "dense":  # a contiguity check: sizes (a, b), strides from the sizes or literals
        strides = draw(st.sampled_from([("1", lambda e: 1), (b.text, y), (a.text, x), ("2", lambda e: 2)]))
        other = draw(st.sampled_from([("1", lambda e: 1), (b.text, y), (a.text, x)]))
        want = draw(st.sampled_from([0, 1]))
        (t1, f1), (t2, f2) = (strides, other) if draw(st.booleans()) else (other, strides)
        return _cond(f"Eq(IsNonOverlappingAndDenseIndicator({a.text}, {b.text}, {t1}, {t2}), {want})",
                     lambda e: _dense([x(e), y(e)], [f1(e), f2(e)]) == want)
    return _cond(f"{pa}*{pb} >= {pa}*{pc}", lambda e: x(e) * y(e) >= x(e) * z(e))


def _implied(draw: st.DrawFn, g: Expr, exprs: list[Expr], names: tuple[str, ...],
             templates: list[Any], point: dict[str, int], boxes: dict[str, tuple[int, int]]) -> list[Expr]:
    """Guards that some engine lever should find redundant given ``g`` (or given nothing).
    ``point`` (the one the guards are made to hold at) is moved onto the equalities drawn here."""
    out: list[Expr] = []
    kind = draw(st.sampled_from(["pad_divisible", "coarser", "subst", "cancel", "eq_chain", "none"]))
    if kind == "pad_divisible":  # always true: a padded size is a multiple of its window
        import sizegen as sg
        w = draw(st.sampled_from([2, 4, 7, 8]))
        p = _instance(sg.pad_to_multiple(sg.sym(_HOLE), w, draw(st.sampled_from(["swin", "neg", "python"]))),
                      draw(st.sampled_from(names)))
        out.append(_cond(f"Eq(Mod({p.text}, {w}), 0)", lambda e, f=p.fn: f(e) % w == 0))
    elif kind == "coarser":  # Mod(a, 2k) == 0 implies Mod(a, k) == 0
        a = draw(st.sampled_from(exprs))
        k = draw(st.sampled_from([2, 3, 4]))
        out.append(_cond(f"Eq(Mod({a.text}, {2 * k}), 0)", lambda e, f=a.fn: f(e) % (2 * k) == 0))
        out.append(_cond(f"Eq(Mod({a.text}, {k}), 0)", lambda e, f=a.fn: f(e) % k == 0))
    elif kind == "subst" and len(names) > 1:  # Eq(s_i, s_j) and a chain on s_i: the same chain on s_j
        i, j = draw(st.permutations(names))[:2]
        t = draw(st.sampled_from(templates))
        a, b = _instance(t, i), _instance(t, j)
        m = draw(st.sampled_from([1, 2, 4]))
        out.append(_cond(f"Eq({i}, {j})", lambda e: e[i] == e[j]))
        out.append(_cond(f"Eq(Mod({a.text}, {m}), 0)" if m > 1 else f"{a.text} >= 2",
                         (lambda e, f=a.fn: f(e) % m == 0) if m > 1 else (lambda e, f=a.fn: f(e) >= 2)))
        out.append(_cond(f"Eq(Mod({b.text}, {m}), 0)" if m > 1 else f"{b.text} >= 2",
                         (lambda e, f=b.fn: f(e) % m == 0) if m > 1 else (lambda e, f=b.fn: f(e) >= 2)))
    elif kind == "eq_chain" and len(names) > 1:  # duck sizing: Eq(a, b), Eq(b, c or k), then what they imply
        order = draw(st.permutations(names))
        i, j = order[0], order[1]
        for x in order[1:]:
            point[x] = min(max(point[i], boxes[x][0]), boxes[x][1])
        out.append(_cond(f"Eq({i}, {j})", lambda e: e[i] == e[j]))
        if len(order) > 2:
            m = order[2]
            out.append(_cond(f"Eq({j}, {m})", lambda e: e[j] == e[m]))
            out.append(_cond(f"Eq({m}, {i})", lambda e: e[m] == e[i]))
        else:
            v = point[i] if draw(st.integers(0, 3)) else draw(st.integers(1, 12))
            out.append(_cond(f"Eq({j}, {v})", lambda e: e[j] == v))
            out.append(_cond(f"Eq({i}, {v})", lambda e: e[i] == v))
        t = draw(st.sampled_from(templates))
        a, b = _instance(t, i), _instance(t, j)
        out.append(_cond(f"Eq({a.text}, {b.text})", lambda e, f=a.fn, h=b.fn: f(e) == h(e)))
    elif kind == "cancel":  # a >= 1 and Ne(b, 1) give Ne(a*b, a)
        a, b = draw(st.sampled_from(exprs)), draw(st.sampled_from(exprs))
        out.append(_cond(f"{a.text} >= 1", lambda e, f=a.fn: f(e) >= 1))
        out.append(_cond(f"Ne({b.text}, 1)", lambda e, f=b.fn: f(e) != 1))
        out.append(_cond(f"Ne({_par(a)}*{_par(b)}, {a.text})", lambda e, f=a.fn, h=b.fn: f(e) * h(e) != f(e)))
    return out


@st.composite
def size_problems(draw: st.DrawFn, *, hints: bool = True, timeout_ms: int = 10000,
                  torch_fns: bool = True, max_points: int = 5000) -> Small:
    """Guard sets of PyTorch-like size arithmetic on a box small enough to enumerate (≤ ``max_points``)."""
    n = draw(st.integers(1, 3))
    names = tuple(f"s{i}" for i in sorted(draw(st.lists(st.integers(0, 40), min_size=n, max_size=n,
                                                          unique=True))))
    width = {1: 150, 2: 60, 3: 16}[n]
    boxes: dict[str, tuple[int, int]] = {}
    symbols: dict[str, Any] = {}
    for s in names:
        lo = draw(st.sampled_from([0, 1, 2, 2, 3, 8]))
        hi = lo + draw(st.integers(3, width))
        boxes[s] = (lo, hi)
        symbols[s] = {"min": lo, "max": hi}
        if hints and draw(st.booleans()):
            symbols[s]["hint"] = draw(st.integers(lo, hi))
    templates = [draw(_chain(torch_fns=torch_fns)) for _ in range(draw(st.integers(1, 3)))]
    exprs = [_instance(t, draw(st.sampled_from(names))) for t in templates]
    if draw(st.booleans()):  # a product of chains, as flattened sizes are
        a, b = draw(st.sampled_from(exprs)), draw(st.sampled_from(exprs))
        exprs.append(Expr(f"{_par(a)}*{_par(b)}", lambda e, f=a.fn, h=b.fn: f(e) * h(e)))
    exprs += [Expr(s, lambda e, s=s: e[s]) for s in names]
    guards = list(draw(st.lists(_size_guard(exprs), min_size=1, max_size=4)))
    point = {s: draw(st.integers(*boxes[s])) for s in names}
    guards += _implied(draw, guards[0], exprs, names, templates, point, boxes)
    if draw(st.integers(0, 4)):  # mostly: make a random point of the box satisfy the guards
        guards = [g if _defined_at(g, point) is not False else _negate(g) for g in guards]
    points = 1
    for lo, hi in boxes.values():
        points *= hi - lo + 1
    assert points <= max_points or n == 1, boxes
    doc = {"symbols": symbols, "guards": [g.text for g in guards], "options": {"timeout_ms": timeout_ms}}
    return Small(doc, boxes, tuple(guards))
