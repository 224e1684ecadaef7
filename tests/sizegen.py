"""Hypothesis strategies for the size arithmetic PyTorch emits on vision and audio models.

Real guard sets are built from a few size formulas composed many times: strided conv/pool output
sizes (``((n + 2*p - d*(k - 1) - 1)//s) + 1``, ceil mode), padding up to a window multiple
(``n + Mod(w - Mod(n, w), w)``), patch merging (``((n + Mod(n, 2))//2)``), TF "SAME" padding
(``Max(0, ...ceiling...)``), ``Max(1, …)`` clamps, window counts, reshape splits and
``ModularIndexing`` index chains, over two or three symbols with the ranges PyTorch gives them.
``size_exprs`` composes those chains and returns each as a ``SizeExpr``: the string in sympy
syntax as PyTorch prints it, and a Python evaluator of the same quantity written independently
(the textbook formula, not a re-reading of the string), so a test can compare symguard's reading
of the string against what the formula means.

Only the spellings symguard's parser reads are produced by default; ``torch_fns=True`` also
spells ceilings as PyTorch 2.x's ``CeilToInt(IntTrueDiv(a, b))``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from hypothesis import strategies as st

Env = Mapping[str, int]

# PyTorch-like symbol roles: (min, max) as Dim ranges / 0-1 specialization give them
ROLES: dict[str, tuple[int, int]] = {"batch": (2, 64), "spatial": (16, 1024), "seq": (2, 4096), "frames": (16, 4000)}


@dataclass(frozen=True)
class SizeExpr:
    """A size (or condition) as PyTorch prints it, with its meaning as a Python function."""

    text: str
    fn: Callable[[Env], int | bool]
    atomic: bool = False  # a name or literal: no parentheses needed around it

    def __call__(self, env: Env) -> int | bool:
        return self.fn(env)

    def par(self) -> str:
        return self.text if self.atomic else f"({self.text})"


def sym(name: str) -> SizeExpr:
    return SizeExpr(name, lambda env: env[name], atomic=True)


def _ceil(a: int, b: int) -> int:
    q, r = divmod(a, b)
    return q + (r != 0 and (r > 0) == (b > 0))  # independent of the -((-a)//b) spelling


def _offset(text: str, c: int) -> str:
    return text if c == 0 else f"{text} + {c}" if c > 0 else f"{text} - {-c}"


# ------------------------------------------------------------------ one size formula each

def conv_out(n: SizeExpr, k: int, s: int, p: int, d: int) -> SizeExpr:
    """nn.Conv/MaxPool output size (floor mode)."""
    c = 2 * p - d * (k - 1) - 1
    return SizeExpr(f"((({_offset(n.text, c)})//{s})) + 1",
                    lambda env: (n(env) + 2 * p - d * (k - 1) - 1) // s + 1)


def pool_ceil_out(n: SizeExpr, k: int, s: int, p: int, spelling: str) -> SizeExpr:
    """Pooling output size with ``ceil_mode=True``: the last window must start inside the input
    (or its left padding), which PyTorch applies as a Piecewise when there is padding."""
    x = _offset(n.text, 2 * p - (k - 1) - 1)
    ceil = {"CeilDiv": f"CeilDiv({x}, {s})", "neg": f"-((-({x}))//{s})", "ceiling": f"ceiling(({x})/{s})",
            "torch": f"CeilToInt(IntTrueDiv({x}, {s}))"}[spelling]
    o = f"{ceil} + 1"

    def fn(env: Env) -> int:
        v = n(env)
        out = _ceil(v + 2 * p - (k - 1) - 1, s) + 1
        if p and (out - 1) * s >= v + p:
            out -= 1
        return out

    if not p:
        return SizeExpr(o, fn)
    return SizeExpr(f"Piecewise(({ceil}, ({ceil})*{s} >= {_offset(n.text, p)}), ({o}, True))", fn)


def pad_to_multiple(n: SizeExpr, w: int, spelling: str) -> SizeExpr:
    """Pad up to a multiple of the window (Swin-style ``maybe_pad``, window attention)."""
    pad = {"swin": f"Mod({w} - Mod({n.text}, {w}), {w})", "neg": f"Mod(-{n.par()}, {w})",
           "python": f"(-{n.par()}) % {w}"}[spelling]
    return SizeExpr(f"{n.text} + {pad}", lambda env: _ceil(n(env), w) * w)


def patch_merge(n: SizeExpr) -> SizeExpr:
    """Pad to even and halve (patch merging, stride-2 downsample with pad)."""
    return SizeExpr(f"((({n.text} + Mod({n.text}, 2))//2))", lambda env: _ceil(n(env), 2))


def tf_same_pad(n: SizeExpr, k: int, s: int, d: int, spelling: str) -> SizeExpr:
    """Total TF "SAME" padding (BiT's ``DynamicPad2d``, MobileNet's ``apply_tf_padding``)."""
    keff = (k - 1) * d + 1
    ceil = {"CeilDiv": f"CeilDiv({n.text}, {s})", "ceiling": f"ceiling({n.par()}/{s})",
            "torch": f"CeilToInt(IntTrueDiv({n.text}, {s}))"}[spelling]

    def fn(env: Env) -> int:  # MobileNet's branchy formulation of the same quantity
        v = n(env)
        return max(keff - s, 0) if v % s == 0 else max(keff - v % s, 0)

    return SizeExpr(f"Max(0, {s}*({ceil} - 1) - {n.par()} + {keff})", fn)


def same_conv_out(n: SizeExpr, k: int, s: int, d: int, spelling: str) -> SizeExpr:
    """Output of a conv after TF "SAME" padding: ``ceil(n / s)`` spelled as PyTorch computes it."""
    pad = tf_same_pad(n, k, s, d, spelling)
    padded = SizeExpr(f"{n.text} + {pad.text}", lambda env: n(env) + pad(env))
    return conv_out(padded, k, s, 0, d)


def clamp1(n: SizeExpr) -> SizeExpr:
    return SizeExpr(f"Max(1, {n.text})", lambda env: max(1, n(env)))


def floordiv(n: SizeExpr, k: int, spelling: str) -> SizeExpr:
    """Window count / reshape split by a constant."""
    text = f"FloorDiv({n.text}, {k})" if spelling == "FloorDiv" else f"(({n.par()}//{k}))"
    return SizeExpr(text, lambda env: n(env) // k)


def modular_index(n: SizeExpr, d: int, m: int) -> SizeExpr:
    return SizeExpr(f"ModularIndexing({n.text}, {d}, {m})", lambda env: (n(env) // d) % m)


def product(a: SizeExpr, b: SizeExpr) -> SizeExpr:
    return SizeExpr(f"{a.par()}*{b.par()}", lambda env: a(env) * b(env))


def scaled(n: SizeExpr, k: int) -> SizeExpr:
    return SizeExpr(f"{k}*{n.par()}", lambda env: k * n(env))


# ------------------------------------------------------------------ strategies

def symbol_sets(max_symbols: int = 3) -> st.SearchStrategy[dict[str, tuple[int, int]]]:
    """PyTorch-named symbols (``s0``, ``s27``…) with the range of a role (batch, H/W, seq…)."""
    def build(picks: list[tuple[int, str]]) -> dict[str, tuple[int, int]]:
        return {f"s{num}": ROLES[role] for num, role in picks}

    pick = st.tuples(st.integers(0, 99), st.sampled_from(sorted(ROLES)))
    return st.lists(pick, min_size=1, max_size=max_symbols, unique_by=lambda p: p[0]).map(build)


def _step(draw: st.DrawFn, n: SizeExpr, spellings: list[str]) -> SizeExpr:
    op = draw(st.sampled_from(["conv", "pool_ceil", "pad", "merge", "same", "same_out", "clamp", "div", "scale"]))
    small = st.integers(1, 4)
    if op == "conv":
        k = draw(st.sampled_from([1, 2, 3, 4, 5, 7, 10]))
        return conv_out(n, k, draw(small), draw(st.integers(0, k // 2)), draw(st.sampled_from([1, 1, 2])))
    if op == "pool_ceil":
        k = draw(st.sampled_from([2, 3]))
        return pool_ceil_out(n, k, draw(st.integers(1, 3)), draw(st.integers(0, k // 2)),
                             draw(st.sampled_from(spellings)))
    if op == "pad":
        return pad_to_multiple(n, draw(st.sampled_from([2, 4, 7, 8, 12, 16])), draw(st.sampled_from(["swin", "neg",
                                                                                                     "python"])))
    if op == "merge":
        return patch_merge(n)
    if op in ("same", "same_out"):
        ceil = draw(st.sampled_from([s for s in spellings if s != "neg"]))
        k, s, d = draw(st.sampled_from([1, 3, 5, 7])), draw(st.integers(1, 4)), draw(st.sampled_from([1, 1, 2]))
        return tf_same_pad(n, k, s, d, ceil) if op == "same" else same_conv_out(n, k, s, d, ceil)
    if op == "clamp":
        return clamp1(n)
    if op == "div":
        return floordiv(n, draw(st.sampled_from([2, 4, 7, 8, 16, 32])), draw(st.sampled_from(["FloorDiv", "//"])))
    return scaled(n, draw(st.sampled_from([2, 3, 4])))


@st.composite
def size_exprs(draw: st.DrawFn, names: list[str], *, max_steps: int = 4, torch_fns: bool = False) -> SizeExpr:
    """A chain of size formulas applied to one symbol, sometimes multiplied by another chain or
    read through ``ModularIndexing`` (index arithmetic of a flattened window)."""
    spellings = ["CeilDiv", "neg", "ceiling"] + (["torch"] if torch_fns else [])

    def chain() -> SizeExpr:
        n = sym(draw(st.sampled_from(names)))
        for _ in range(draw(st.integers(1, max_steps))):
            n = _step(draw, n, spellings)
        return n

    e = chain()
    shape = draw(st.sampled_from(["one", "one", "product", "index"]))
    if shape == "product":
        e = product(e, chain())
    elif shape == "index":
        w = draw(st.sampled_from([2, 4, 7, 8]))
        e = SizeExpr(f"{modular_index(e, 1, w).text} + {w}*{modular_index(e, w, 3).text}",
                     lambda env, e=e, w=w: (e(env) // 1) % w + w * ((e(env) // w) % 3))
    return e


@st.composite
def guard_exprs(draw: st.DrawFn, names: list[str], *, torch_fns: bool = False) -> SizeExpr:
    """A guard over size expressions, in the shapes PyTorch's guards take."""
    a = draw(size_exprs(names, torch_fns=torch_fns))
    kind = draw(st.sampled_from(["divisible", "not_one", "at_least", "lt_product", "mod_product", "eq"]))
    k = draw(st.sampled_from([2, 4, 8, 16]))
    if kind == "divisible":
        return SizeExpr(f"Eq(Mod({a.text}, {k}), 0)", lambda env: a(env) % k == 0)
    if kind == "not_one":
        return SizeExpr(f"Ne({a.text}, 1)", lambda env: a(env) != 1)
    if kind == "at_least":
        return SizeExpr(f"{a.text} >= {k}", lambda env: a(env) >= k)
    b = draw(size_exprs(names, torch_fns=torch_fns))
    if kind == "lt_product":
        return SizeExpr(f"{a.par()} < {a.par()}*{b.par()}", lambda env: a(env) < a(env) * b(env))
    if kind == "mod_product":  # the view/stride check PyTorch emits for flattening
        return SizeExpr(f"Ne(Mod({a.text}, {a.par()}*{b.par()}), 0)", lambda env: a(env) % (a(env) * b(env)) != 0)
    return SizeExpr(f"Eq({a.text}, {b.text})", lambda env: a(env) == b(env))


@st.composite
def points(draw: st.DrawFn, symbols: Mapping[str, tuple[int, int]]) -> dict[str, int]:
    """A point in the symbols' ranges, biased to the edges and to multiples of small powers of 2."""
    out = {}
    for name, (lo, hi) in symbols.items():
        out[name] = draw(st.one_of(st.integers(lo, hi), st.sampled_from([lo, lo + 1, hi]),
                                   st.integers(max(1, lo // 8), hi // 8).map(lambda v: 8 * v)))
    return out
