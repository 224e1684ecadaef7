"""A zoo of functions whose shape guards are where exact integers and the code Dynamo runs part
ways: floats at 2**53, lazy branches over zero divisors, int64 products near 2**63, ``mark_dynamic``
ranges that make the compile fail, unbacked sizes, negative ints and recompiles (issue 31).

Each ``Case`` is compiled with ``torch.compile(dynamic=True)`` stock and inside
``symguard.torch.prune_guards()``; ``differential`` runs both on every input of the case (at least
200, the extremes included) and lists where they differ: the compile error (type and message),
the verdict of the guards (a call with recompiles forbidden either runs or is refused), and,
wherever a compiled function runs, its outcome against eager. It also evaluates the pruned
compile's own unpruned guard code (``stock_code`` in the pruner's history) against the code it
emitted (``pruned_code``) on every input: that compares pruning with the guards of the *same*
compile, whatever the cache state did to it.

Huge sizes cost no memory: a size ``n`` is ``torch.zeros(1).expand(n)`` (stride 0), and every
function touches only ``x[:1]``. Used by tests/test_torch_adversarial.py; importable on its own
(``differential(CASES[0])``) to look at one case.
"""

from __future__ import annotations

import contextlib
import math
import random
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
import torch._dynamo
from torch.fx.experimental.symbolic_shapes import sym_or

from symguard.service.cli.guard_diff import cache_state, guard_globals, own_code, own_verdicts, priming
from symguard.service.torch_hook import prune_guards

Point = tuple[int, ...]
MIN_POINTS = 200

# ------------------------------------------------------------------ inputs


def z(n: int) -> torch.Tensor:
    """A size-``n`` tensor without memory (stride 0)."""
    return torch.zeros(1).expand(n)


def t(v: int) -> torch.Tensor:
    """A one-element int64 tensor holding ``v`` (an ``.item()`` source)."""
    return torch.tensor([v], dtype=torch.int64)


def _near(c: int, k: int = 3) -> list[int]:
    return [c + d for d in range(-k, k + 1)]


# sizes a stride-0 tensor can have (numel fits int64): the 0/1 specialization edge, small
# residues, and the float and int64 cliffs
SIZES: list[int] = sorted({2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 16, 17, 31, 32, 33, 63, 64, 65, 99, 100, 101, 999, 1000,
                           1001, *_near(2**31), *_near(2**32), 2**33, *_near(2**53, 4), *_near(2**54, 2),
                           *_near(2**60, 2), *_near(2**61, 1), *_near(2**62, 2), 2**62 + 2**61, 2**63 - 1})
# ints of both signs, to the ends of int64
INTS: list[int] = sorted({0, 1, -1, -2, -3, *SIZES, *(-s for s in SIZES), -(2**63)})


def _draw(rng: random.Random, col: Sequence[int]) -> int:
    """A value like the column's: one of its own, a small one, one near a power of two, or a
    log-uniform one, with the column's signs and bounds."""
    lo, hi = min(col), max(col)
    r = rng.random()
    if r < 0.3:
        v = rng.choice(list(col))
    elif r < 0.6:
        v = rng.randint(2, 300)
    elif r < 0.8:
        v = 2 ** rng.randint(1, 62) + rng.randint(-3, 3)
    else:
        v = int(2 ** rng.uniform(1, 62.9))
    if lo < 0 and rng.random() < 0.5:
        v = -v
    return min(max(v, lo), hi)


def points(name: str, base: Point, columns: Sequence[Sequence[int]], *, n: int = MIN_POINTS,
           pairs: Sequence[Point] = ()) -> list[Point]:
    """At least ``n`` inputs: the given ``pairs``, every value of each column with the others at
    their ``base`` (example) value, then random rows (``_draw``). Deterministic (seeded by ``name``)."""
    rng = random.Random(name)
    first = list(base)
    out: list[Point] = [tuple(p) for p in pairs]
    for j, col in enumerate(columns):
        for v in col:
            row = list(first)
            row[j] = v
            out.append(tuple(row))
    out = list(dict.fromkeys(out))
    seen = set(out)
    while len(out) < n:
        row = tuple(_draw(rng, col) for col in columns)
        if row not in seen:
            seen.add(row)
            out.append(row)
    return out


# ------------------------------------------------------------------ the zoo


@dataclass(frozen=True)
class Case:
    """One adversarial function: ``make(point)`` builds its arguments, ``example`` is the compile's
    point; ``config`` patches ``torch._dynamo.config``; ``mark`` marks the example's arguments
    (``mark_dynamic`` ranges); ``sequence`` inputs, when given, are called in order with
    recompiles allowed (the compile counts must agree)."""

    name: str
    fn: Callable[..., Any]
    make: Callable[[Point], tuple[Any, ...]]
    example: Point
    points: list[Point]
    config: dict[str, Any] = field(default_factory=dict)
    mark: Callable[[tuple[Any, ...]], None] | None = None
    sequence: list[Point] = field(default_factory=list)
    inductor: bool = False  # cheap enough to compile with inductor too
    cpp: bool = False  # int64/float-sensitive: run with C++ guards in the CI subset
    # False: the *stock* C++ guard kills the process (SIGFPE) on some of the inputs (a PyTorch
    # bug): there is nothing to compare, the case runs with Python guards only
    cpp_runs: bool = True
    # ``torch.compile`` options over ``dynamic=True`` (``dynamic=None`` for automatic dynamic,
    # ``fullgraph=True``); with a ``sequence``, the points are also judged against the cache the
    # sequence left (several entries, each with its own guards)
    options: dict[str, Any] = field(default_factory=dict)


def _one(v: Point) -> tuple[Any, ...]:
    return (z(v[0]),)


def _size_int(v: Point) -> tuple[Any, ...]:
    return (z(v[0]), v[1])


def _int(v: Point) -> tuple[Any, ...]:
    return (z(2), v[0])


def _two(v: Point) -> tuple[Any, ...]:
    return (z(v[0]), z(v[1]))


# floats -------------------------------------------------------------------------------------

def ceil_half(x: torch.Tensor) -> torch.Tensor:
    n = x.shape[0]
    if math.ceil(n / 2) * 2 >= n:
        return x[:1] + 1
    return x[:1] - 1


def floor_half_int(x: torch.Tensor, n: int) -> torch.Tensor:
    if math.floor(n / 2) * 2 <= n:
        return x[:1] + 1
    return x[:1] - 1


def floor_third_int(x: torch.Tensor, n: int) -> torch.Tensor:
    if math.floor(n / 3) * 3 + 2 >= n:
        return x[:1] + 1
    return x[:1] - 1


def truediv_parity(x: torch.Tensor) -> torch.Tensor:
    n = x.shape[0]
    if n / 2 == n // 2:
        return x[:1] + 1
    return x[:1] - 1


def ceil_ratio(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    n, m = x.shape[0], y.shape[0]
    if math.ceil(n / m) * m >= n:
        return x[:1] + 1
    return x[:1] - 1


def float_threshold(x: torch.Tensor) -> torch.Tensor:
    n = x.shape[0]
    if n < 2**60:
        r = x[:1] + 1
    else:
        r = x[:1] + 2
    if n / 4 < 2.0**58:
        return r * 10
    return r * 20


def rotary_grid(x: torch.Tensor) -> torch.Tensor:
    """A 2-D rotary position grid's sizes (DINOv3-style ``ceil(n // p - 0.5)``): float arithmetic
    on a converted size, rounded back. Below the ``2**50`` bound every step is exact, so the three
    guards are premises (two are redundant)."""
    n = x.shape[0]
    if n > 2**50:
        return x[:1] * 0
    h = math.ceil((n // 7 - 0.5) / 1.0)
    r = x[:1] + 1 if h >= 2 else x[:1] - 1
    if h != 1:
        r = r * 2
    if math.floor(n * 0.5 + 0.25) >= 3:
        r = r + 5
    return r


def rotary_grid_unbounded(x: torch.Tensor) -> torch.Tensor:
    """The same without a bound: ``n // 7 - 0.5`` rounds past ``2**52`` (``n`` near ``7 * 2**52``),
    so the guards are opaque and kept."""
    n = x.shape[0]
    h = math.ceil((n // 7 - 0.5) / 1.0)
    r = x[:1] + 1 if h >= 2 else x[:1] - 1
    if math.floor(n * 0.5 + 0.25) >= 3:
        r = r + 5
    return r


def rotary_compare(x: torch.Tensor) -> torch.Tensor:
    """Float arithmetic on a size compared with a literal: symguard rounds each step as Python
    does, so with Python guards these are premises at any size."""
    n = x.shape[0]
    r = x[:1] + 1 if n // 7 - 0.5 >= 1.0 else x[:1] - 1
    if n < 10**18:
        r = r * 2
    if n * 0.5 + 0.25 < 1e18:  # implied by n < 10**18; its own boundary is near 2 * 10**18
        r = r + 5
    return r


def square_grid(x: torch.Tensor) -> torch.Tensor:
    """A token sequence viewed as a square grid (CLIPSeg's decoder, ViT position-embedding
    interpolation): ``side = int(math.sqrt(n))``. Below ``float_sqrt.BOUND`` (about 2**52) Python's
    and C++'s value is ``isqrt(n)``, so with ``n <= 2**40`` the guards are premises and the square's
    consequences (``n % side == 0``, ``n // side == side``) are dropped."""
    n = x.shape[0]
    if n > 2**40:
        return x[:1] * 0
    return _grid(x, n)


def square_grid_unbounded(x: torch.Tensor) -> torch.Tensor:
    """The same without a bound: past 2**52 ``int(math.sqrt(n))`` is not ``isqrt(n)``
    (``(2**26 + 1)**2 - 1`` rounds up to a square), so the integer guards are opaque and kept; the
    comparison with a literal (``side >= 24``) is exact at any size in Python."""
    return _grid(x, x.shape[0])


def square_grid_pow(x: torch.Tensor) -> torch.Tensor:
    """The same grid with ``side = int(n ** 0.5)`` (the C library's ``pow``, which is not correctly
    rounded): ``isqrt(n)`` below ``float_sqrt.POW_BOUND`` (2**50), so with ``n <= 2**40`` the
    square's consequences are dropped as for ``math.sqrt``."""
    n = x.shape[0]
    if n > 2**40:
        return x[:1] * 0
    return _grid(x, n, power=True)


def octave_halving(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """A size halved once per octave of another (DepthPro's fusion stages): ``h // 2 **
    int(math.log2(w / 8))``. With ``8 <= w <= 2**33`` the exponent is 0 to 30, where Python's and
    C++'s power (``1 << e``, an ``int``) is ``bit_floor(w // 8)``: the guards are premises and
    ``2*(h // p) >= 2``, ``h // p != 0`` (implied by ``h // p >= 2``) are dropped."""
    h, w = x.shape[0], y.shape[0]
    if w > 2**33 or w < 8:
        return x[:1] * 0
    return _halved(x, h, w)


def octave_halving_unbounded(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """The same for any ``w >= 2``: below 8 the exponent is negative (PyTorch guards
    ``math.trunc(math.log2(w / 8)) >= 0``, read exactly at any size), past 2**47 the proven bound
    ends: the power's guards are opaque and kept."""
    return _halved(x, x.shape[0], y.shape[0])


def _halved(x: torch.Tensor, h: int, w: int) -> torch.Tensor:
    k = 2 ** int(math.log2(w / 8))
    side = h // k
    r = x[:1] + 1 if side >= 2 else x[:1] - 1
    if h % k == 0:
        r = r * 2
    if 2 * side >= 2:
        r = r + 1
    if side != 0:
        r = r + 3
    return r


def _grid(x: torch.Tensor, n: int, power: bool = False) -> torch.Tensor:
    side = int(n**0.5) if power else int(math.sqrt(n))
    r = x[:1] + 1 if side >= 24 else x[:1] - 1
    if side * side == n:  # the grid view's own check; its consequences below
        g = x.reshape(side, side)[:1, 0]
        r = r + g
        if n % side == 0:
            r = r * 2
        if n // side == side:
            r = r + 5
        if n // side > 1:
            r = r + 7
    return r


# lazy branches and zero divisors -----------------------------------------------------------

def lazy_ite(x: torch.Tensor, k: int) -> torch.Tensor:
    n = x.shape[0]
    r = x[:1] + 1 if k != 0 else x[:1]
    if torch.sym_ite(k > 5, n // k, n // 2) >= 1:
        return r + 10
    return r + 20


def mask_ratio(x: torch.Tensor) -> torch.Tensor:
    """MAE-style random masking keeps ``int(0.4 * n)`` patches (ViTMAE, VideoMAE): ``0.4`` is not its
    double, so Python's ``int`` of the rounded product is read per literal. Compared with a literal
    it is exact at any size; as an integer next to a symbol (``k <= n - 3``) only below the
    literal's proven bound (about 2**51), which ``n <= 2**50`` gives."""
    n = x.shape[0]
    if n > 2**50:
        return x[:1] * 0
    return _masked(x, n)


def mask_ratio_unbounded(x: torch.Tensor) -> torch.Tensor:
    """The same without a bound: the comparisons with literals stay premises in Python (at any size);
    ``k <= n - 3`` is opaque (past 2**51 Python's product rounds across an integer)."""
    return _masked(x, x.shape[0])


def _masked(x: torch.Tensor, n: int) -> torch.Tensor:
    """The branches on ``k = int(0.4 * n)`` both masking functions take."""
    k = int(0.4 * n)
    r = x[:1] + 1 if k != 1 else x[:1] - 1
    if k <= n - 3:
        r = r * 2
    if k >= 3:
        r = r + 5
    return r


def lazy_or(x: torch.Tensor, k: int) -> torch.Tensor:
    n = x.shape[0]
    r = x[:1] + 1 if k != 0 else x[:1]
    if sym_or(k == 0, n % k == 0):
        return r + 10
    return r + 20


def and_divisor(x: torch.Tensor, k: int) -> torch.Tensor:
    n = x.shape[0]
    if k > 0 and n // k > 2:
        return x[:1] + 1
    return x[:1] - 1


def signed_divisor(x: torch.Tensor, k: int) -> torch.Tensor:
    n = x.shape[0]
    if (n // k) // 2 >= 1:
        return x[:1] + 1
    return x[:1] - 1


# C++ int64 -----------------------------------------------------------------------------------

def mod_then_product(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    n, m = x.shape[0], y.shape[0]
    r = x[:1] + 1 if n % 1000 == n else x[:1] + 2
    if n * m <= 100:
        return r + 10
    return r + 20


def mod_then_square(x: torch.Tensor) -> torch.Tensor:
    n = x.shape[0]
    r = x[:1] + 1 if n % 1000 == n else x[:1] + 2
    if n * n <= 10**4:
        return r + 10
    return r + 20


def double_near_2_62(x: torch.Tensor) -> torch.Tensor:
    n = x.shape[0]
    r = x[:1] + 1 if n < 2**62 else x[:1] + 2
    if 2 * n <= 2**62:
        return r + 10
    return r + 20


def size_times_int(x: torch.Tensor, k: int) -> torch.Tensor:
    n = x.shape[0]
    r = x[:1] + 1 if -(2**40) < k < 2**40 else x[:1] + 2
    if n * k > 2**61:
        return r + 10
    return r + 20


# mark_dynamic ranges ---------------------------------------------------------------------------

def _mark_both(args: tuple[Any, ...]) -> None:
    for a in args:
        torch._dynamo.mark_dynamic(a, 0, min=2, max=64)


def _mark_first(args: tuple[Any, ...]) -> None:
    torch._dynamo.mark_dynamic(args[0], 0, min=2, max=64)


def constrained_parity(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    n, m = x.shape[0], y.shape[0]
    if n % 2 == 0:  # noqa: SIM102 - two guards, the issue's repro
        if n % (2 * m) == 0:
            return x[:1] + 1
    return x[:1] - 1


def ranged_threshold(x: torch.Tensor) -> torch.Tensor:
    n = x.shape[0]  # within [2, 64] both tests are decided by the range: only the range is checked
    r = x[:1] + 1 if n < 100 else x[:1] + 2
    if (n * 3) // 2 <= 96:
        return r + 10
    return r + 20


# unbacked -------------------------------------------------------------------------------------

def nonzero_count(x: torch.Tensor) -> torch.Tensor:
    u = x.nonzero().shape[0]
    n = x.shape[0]
    r = x[:1] + 1 if n % 4 == 0 else x[:1] + 2
    return r + torch.ones(u).sum()


def item_scale(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    k = s.item()
    n = x.shape[0]
    r = x[:1] + 1 if n >= 8 else x[:1] + 2
    return r * k


def _nonzero(v: Point) -> tuple[Any, ...]:
    return (torch.arange(v[0], dtype=torch.float32) % v[1],)


def _item(v: Point) -> tuple[Any, ...]:
    return (z(v[0]), t(v[1]))


# negative ints --------------------------------------------------------------------------------

def negative_floordiv(x: torch.Tensor, k: int) -> torch.Tensor:
    r = x[:1] + 1 if k // 3 < -5 else x[:1] + 2
    if k < -100:
        return r + 10
    return r + 20


def negative_mod(x: torch.Tensor, k: int) -> torch.Tensor:
    n = x.shape[0]
    r = x[:1] + 1 if k % 4 == 3 else x[:1] + 2
    if (n + k) % 4 == (n + 3) % 4:
        return r + 10
    return r + 20


def ceildiv_negative(x: torch.Tensor, k: int) -> torch.Tensor:
    n = x.shape[0]
    r = x[:1] + 1 if k < 0 else x[:1] + 2
    if -(-n // k) <= -2:
        return r + 10
    return r + 20


# shapes models have: pad to a multiple, max/min ----------------------------------------------

def pad_to_window(x: torch.Tensor) -> torch.Tensor:
    n = x.shape[0]
    pad = (7 - n % 7) % 7
    r = x[:1] + 1 if (n + pad) // 7 >= 2 else x[:1] + 2
    if (n + pad) % 7 == 0 and n > 7:
        return r + 10
    return r + 20


def max_min_gap(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    n, m = x.shape[0], y.shape[0]
    if max(n, m) - min(n, m) < 8:
        return x[:1] + 1
    return x[:1] - 1


def nested_thresholds(x: torch.Tensor) -> torch.Tensor:
    n = x.shape[0]
    r = x[:1]
    if n >= 12:
        r = r * 2
    if n >= 8:
        r = r + 1
    if n // 4 >= 2:
        r = r - 1
    return r


def reshape_pad(x: torch.Tensor) -> torch.Tensor:
    n = x.shape[0]
    y = torch.nn.functional.pad(x, (0, (4 - n % 4) % 4))
    return y.view(-1, 4)[:1].sum(-1, keepdim=True) + (1 if n > 16 else 2)


# shape code of real models: interpolate, pooling, chunk/slice/view, round, ranged products ----

_HALF_BOUND = 2**50  # below it the float steps of the bounded functions are exact: their guards are read


def narrowed_divisor(x: torch.Tensor, k: int) -> torch.Tensor:
    """A divisor the *narrowed* range keeps away from 0 (``k >= 1``), but part 3 checks that range
    only after part 2: at ``(2, 0)`` stock rejects on ``2*n - k >= 5`` before reaching ``n // k``.
    Dropping that guard (implied by ``n // k >= 3``) made C++ guards' recompile reason, found by
    running the Python code in order, raise ``ZeroDivisionError`` (``guard_semantics.may_raise``)."""
    n = x.shape[0]
    if n <= 2**40 and k >= 1:
        r = x[:1] + 1 if 2 * n - k >= 5 else x[:1] - 1
        if n // k >= 3:
            r = r * 2
        return r
    return x[:1]


def narrowed_size_divisor(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """The same with a size as divisor: a size-0 input reaches part 2 (0/1 specialization is a
    part-3 check)."""
    n, m = x.shape[0], y.shape[0]
    if n <= 2**40 and m <= 2**40:
        r = x[:1] + 1 if 2 * n - m >= 5 else x[:1] - 1
        if n // m >= 3:
            r = r * 2
        return r
    return x[:1]


def narrowed_modulus(x: torch.Tensor, k: int) -> torch.Tensor:
    """The same with ``%``, which C++ computes with C's ``%``: a zero divisor kills the process
    (SIGFPE). At ``(0, 0)`` stock rejects on ``2*n - k >= 2``; dropping it (implied by ``n % k ==
    0`` on the narrowed ranges) made the pruned C++ guard die there. The points leave out ``k = 0``
    with ``n >= 1``: there stock's own C++ guard reaches ``n % 0``."""
    n = x.shape[0]
    if n <= 2**40 and k >= 1:
        r = x[:1] + 1 if 2 * n - k >= 2 else x[:1] - 1
        if n % k == 0:
            r = r * 2
        return r
    return x[:1]


def round_half(x: torch.Tensor) -> torch.Tensor:
    """Python's ``round(n / 2)`` (half to even: ``round(2.5) == 2``), exact below the bound: with
    ``round(n / 2) == 3`` only ``n == 6`` is left, so ``n != 5`` and the others go."""
    n = x.shape[0]
    if n > _HALF_BOUND:
        return x[:1] * 0
    h = round(n / 2)
    r = x[:1] + 1 if h * 2 >= n else x[:1] - 1
    if h % 2 == 0:
        r = r * 2
    if h != 3:
        r = r + 5
    if n != 5:
        r = r + 7
    return r


def round_scaled(x: torch.Tensor) -> torch.Tensor:
    """``round(0.3 * n)``: a literal that is not its double under Python's ``round`` (half to even
    at ``0.3 * n = k + 1/2``)."""
    n = x.shape[0]
    if n > _HALF_BOUND:
        return x[:1] * 0
    h = round(n * 0.3)
    r = x[:1] + 1 if h == 9 else x[:1] - 1
    if h * 10 <= 3 * n + 5:
        r = r * 2
    if n != 31:
        r = r + 5
    if n >= 29:
        r = r + 7
    return r


def interpolate_scale(x: torch.Tensor) -> torch.Tensor:
    """``F.interpolate(scale_factor=1.5)``'s output size ``floor(float(n) * 1.5)``, bounded."""
    n = x.shape[0]
    if n > _HALF_BOUND:
        return x[:1] * 0
    out = math.floor(float(n) * 1.5)
    r = x[:1] + 1 if out >= 2 * n - 5 else x[:1] - 1
    if out % 2 == 0:
        r = r * 2
    if out >= 15:
        r = r + 3
    if n >= 10:
        r = r + 5
    return r


def interpolate_nearest(x: torch.Tensor) -> torch.Tensor:
    """The real op: PyTorch's own ``math.trunc(0.7 * float(n))`` guards (``!= 1`` is dropped)."""
    y = torch.nn.functional.interpolate(x.view(1, 1, -1), scale_factor=0.7, mode="nearest")
    return y.sum().reshape(1) + y.shape[-1]


def adaptive_bins(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Adaptive pooling's bins ``[floor(i*n/out), ceil((i+1)*n/out))`` of two sizes."""
    n, out = x.shape[0], y.shape[0]
    r = x[:1]
    for i in (0, 1):
        r = r + (-((-(i + 1) * n) // out) - (i * n) // out)
    if n % out == 0:
        r = r * 2
    return r


def chunk_count(x: torch.Tensor) -> torch.Tensor:
    """``x.chunk(3)``: pieces of ``ceil(n/3)``, their count a floor division by that quotient."""
    parts = x.chunk(3)
    return parts[-1][:1].sum().reshape(1) + len(parts) + parts[0].shape[0]


def slice_window(x: torch.Tensor, k: int) -> torch.Tensor:
    """``x[-k:k]`` with an int of either sign, beyond the ends too: conjunctions of clamps."""
    y = x[-k:k]
    return y[:1].sum().reshape(1) + y.shape[0]


def view_infer(x: torch.Tensor) -> torch.Tensor:
    """``view(-1, 4)``: a modulus by a symbolic quotient (``n % (n // 4) == 0``)."""
    y = x.view(-1, 4)
    return y[:1, :1].sum().reshape(1) + y.shape[0]


def three_way_max(x: torch.Tensor, y: torch.Tensor, k: int) -> torch.Tensor:
    """``max`` of three (C++: ``std::max<int64_t>({...})``) with an int of either sign."""
    n, m = x.shape[0], y.shape[0]
    r = x[:1] + 1 if max(n, m, k) - k >= 4 else x[:1] - 1
    if n - k >= 4:
        r = r * 2
    return r


def roll_shift(x: torch.Tensor, k: int) -> torch.Tensor:
    """A roll's shift ``k % n`` of a negative int, and a modulus of it by the size again."""
    n = x.shape[0]
    s = k % n
    r = x[:1] + 1 if s >= n // 2 else x[:1] - 1
    if (n - s) % n == 0:
        r = r * 2
    return r


def negative_modulus(x: torch.Tensor, k: int) -> torch.Tensor:
    """``%`` of ints of either sign by literals of either sign (``k % -3``)."""
    n = x.shape[0]
    r = x[:1] + 1 if k % 7 == 3 else x[:1] - 1
    if (k - n) % 5 == 0:
        r = r * 2
    if k % -3 == -1:
        r = r + 7
    return r


def _mark_2_31(args: tuple[Any, ...]) -> None:
    for a in args:
        torch._dynamo.mark_dynamic(a, 0, min=2, max=2**31)


def ranged_product(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """``mark_dynamic(max=2**31)`` keeps ``n*m`` inside int64: C++ guards prune it (``n*m > 2**30``
    goes), ``n*n*m`` stays opaque."""
    n, m = x.shape[0], y.shape[0]
    r = x[:1] + 1 if n * m > 2**40 else x[:1] - 1
    if n * m > 2**30:
        r = r * 2
    if n * n * m > 2**50:
        r = r + 5
    return r


def pell_unknown(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """A guard symguard calls ``unknown`` next to a Pell equation: the cheaper-forms question."""
    n, m = x.shape[0], y.shape[0]
    r = x[:1] + 1 if n * n - 2 * m * m == 1 else x[:1] - 1
    if n % 2 == 1:
        r = r * 2
    if (n * m) % 6 == 0:
        r = r + 5
    return r


def _three(v: Point) -> tuple[Any, ...]:
    return (z(v[0]), z(v[1]), v[2])


# recompiles -----------------------------------------------------------------------------------

def recompile_threshold(x: torch.Tensor) -> torch.Tensor:
    n = x.shape[0]
    if n > 100:
        return x[:1] + 1
    if n > 50:
        return x[:1] + 2
    return x[:1] + 3


def recompile_int(x: torch.Tensor, k: int) -> torch.Tensor:
    if k * k < 50:
        return x[:1] + k
    return x[:1] - k


def _small_dense(v: Point) -> tuple[Any, ...]:
    return (torch.arange(v[0], dtype=torch.float32),)


_P2 = [(2**32, 2**32), (2**33, 2**31), (2**31, 2**33), (2**32 + 1, 2**32 - 1), (3037000500, 3037000500),
       (3037000499, 3037000499), (2**62, 2), (2, 2**62), (2**61, 4), (10, 10), (7, 14), (100, 1), (2, 50)]
_SMALL = [v for v in SIZES if v <= 1001]
_M = 2**26 + 1  # (2**26 + 1)**2 - 1 is the first size where int(math.sqrt(n)) is not isqrt(n)
_GRID_SIZES = sorted({*SIZES, 36, 35, 37, 575, 576, 577, 2**40, *_near(2**40 + 2**21), *_near(2**52, 2),
                      _M * _M - 2, _M * _M - 1, _M * _M, *_near(2**31 * 2**31), 3037000499**2, 2**62 + 2**32})

_OCTAVES = sorted({2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 131, 137, 1000, *_near(2**33, 2), *_near(2**40, 1),
                   *_near(2**47, 1), 2**49 - 1, *_near(2**53, 1), 2**62, 2**63 - 1,
                   *(8 * 2**k + d for k in (1, 2, 5, 10, 20, 29, 30) for d in (-1, 0, 1))})

_DENSE_SIZES = sorted({*SIZES, *range(2, 260), *_near(_HALF_BOUND, 2)})
_S01 = [0, 1, *SIZES]
_BIG31 = sorted({2, 3, 4, 5, 7, 8, 16, 17, 100, 1000, 2**20, 2**30, 2**31 - 1, 2**31, 2**31 + 1, 2**32, 2**40, 2**62})

CASES: list[Case] = [
    Case("ceil_half", ceil_half, _one, (10,), points("ceil_half", (10,), [SIZES]), cpp=True, inductor=True),
    Case("floor_half_int", floor_half_int, _int, (10,), points("floor_half_int", (10,), [INTS]), cpp=True),
    Case("floor_third_int", floor_third_int, _int, (10,), points("floor_third_int", (10,), [INTS]), cpp=True),
    Case("truediv_parity", truediv_parity, _one, (10,), points("truediv_parity", (10,), [SIZES]), cpp=True),
    Case("ceil_ratio", ceil_ratio, _two, (10, 3), points("ceil_ratio", (10, 3), [SIZES, SIZES], pairs=_P2)),
    Case("float_threshold", float_threshold, _one, (10,), points("float_threshold", (10,), [SIZES])),
    Case("rotary_grid", rotary_grid, _one, (30,), points("rotary_grid", (30,), [[*SIZES, *_near(2**50)]]), cpp=True),
    Case("rotary_grid_unbounded", rotary_grid_unbounded, _one, (30,),
         points("rotary_grid_unbounded", (30,), [[*SIZES, *_near(7 * 2**52, 8), *_near(2**52)]]), cpp=True),
    Case("rotary_compare", rotary_compare, _one, (30,),
         points("rotary_compare", (30,), [[*SIZES, *_near(10**18, 3), *_near(2 * 10**18, 3)]]), cpp=True),
    Case("mask_ratio", mask_ratio, _one, (30,), points("mask_ratio", (30,), [[*SIZES, *_near(2**50)]]), cpp=True),
    Case("mask_ratio_unbounded", mask_ratio_unbounded, _one, (30,),
         points("mask_ratio_unbounded", (30,), [[*SIZES, *_near(2**51, 8), *_near(5 * 2**51, 8)]]), cpp=True),
    Case("square_grid", square_grid, _one, (36,), points("square_grid", (36,), [_GRID_SIZES]), cpp=True),
    Case("square_grid_pow", square_grid_pow, _one, (36,), points("square_grid_pow", (36,), [_GRID_SIZES]), cpp=True),
    Case("square_grid_unbounded", square_grid_unbounded, _one, (36,),
         points("square_grid_unbounded", (36,), [_GRID_SIZES]), cpp=True),
    Case("octave_halving", octave_halving, _two, (131, 137),
         points("octave_halving", (131, 137), [SIZES, _OCTAVES]), cpp=True),
    Case("octave_halving_unbounded", octave_halving_unbounded, _two, (131, 137),
         points("octave_halving_unbounded", (131, 137), [SIZES, _OCTAVES]), cpp=True),
    Case("lazy_ite", lazy_ite, _size_int, (10, 7), points("lazy_ite", (10, 7), [SIZES, INTS])),
    Case("lazy_or", lazy_or, _size_int, (12, 3), points("lazy_or", (12, 3), [SIZES, INTS])),
    Case("and_divisor", and_divisor, _size_int, (12, 3), points("and_divisor", (12, 3), [SIZES, INTS])),
    Case("signed_divisor", signed_divisor, _size_int, (12, 3), points("signed_divisor", (12, 3), [SIZES, INTS]),
         cpp_runs=False),
    Case("mod_then_product", mod_then_product, _two, (4, 5),
         points("mod_then_product", (4, 5), [SIZES, SIZES], pairs=_P2), cpp=True, inductor=True),
    Case("mod_then_square", mod_then_square, _one, (4,), points("mod_then_square", (4,), [SIZES]), cpp=True),
    Case("double_near_2_62", double_near_2_62, _one, (10,), points("double_near_2_62", (10,), [SIZES]), cpp=True),
    Case("size_times_int", size_times_int, _size_int, (10, 3), points("size_times_int", (10, 3), [SIZES, INTS]), cpp=True),
    Case("constrained_parity", constrained_parity, _two, (8, 2), points("constrained_parity", (8, 2), [_SMALL, _SMALL]),
         mark=_mark_both),
    Case("ranged_threshold", ranged_threshold, _one, (20,), points("ranged_threshold", (20,), [SIZES]), mark=_mark_first),
    Case("nonzero_count", nonzero_count, _nonzero, (12, 3),
         points("nonzero_count", (12, 3), [[v for v in _SMALL if v <= 65], [1, 2, 3, 4, 5, 7, 64, 1000]]),
         config={"capture_dynamic_output_shape_ops": True}),
    Case("item_scale", item_scale, _item, (10, 3), points("item_scale", (10, 3), [SIZES, INTS]),
         config={"capture_scalar_outputs": True}),
    Case("negative_floordiv", negative_floordiv, _int, (-30,), points("negative_floordiv", (-30,), [INTS])),
    Case("negative_mod", negative_mod, _size_int, (10, -1), points("negative_mod", (10, -1), [SIZES, INTS])),
    Case("ceildiv_negative", ceildiv_negative, _size_int, (10, -3), points("ceildiv_negative", (10, -3), [SIZES, INTS])),
    Case("pad_to_window", pad_to_window, _one, (20,), points("pad_to_window", (20,), [SIZES]), inductor=True),
    Case("max_min_gap", max_min_gap, _two, (10, 12), points("max_min_gap", (10, 12), [SIZES, SIZES], pairs=_P2)),
    Case("nested_thresholds", nested_thresholds, _one, (21,), points("nested_thresholds", (21,), [SIZES])),
    Case("reshape_pad", reshape_pad, _small_dense, (21,), points("reshape_pad", (21,), [_SMALL])),
    Case("recompile_threshold", recompile_threshold, _one, (10,), points("recompile_threshold", (10,), [SIZES]),
         sequence=[(10,), (20,), (60,), (70,), (200,), (300,), (2**62,), (5,), (55,)]),
    Case("recompile_int", recompile_int, _int, (3,), points("recompile_int", (3,), [INTS]),
         sequence=[(3,), (4,), (-5,), (8,), (20,), (-20,), (0,), (1,), (2**62,), (-7,)]),
    Case("narrowed_divisor", narrowed_divisor, _size_int, (10, 2),
         points("narrowed_divisor", (10, 2), [SIZES, INTS], pairs=[(2, 0), (3, 0), (4, 0), (10, 0), (2, -1)]), cpp=True),
    Case("narrowed_size_divisor", narrowed_size_divisor, _two, (10, 2),
         points("narrowed_size_divisor", (10, 2), [_S01, _S01], pairs=[(2, 0), (3, 0), (10, 0), (0, 0), (1, 0)]),
         cpp=True),
    Case("narrowed_modulus", narrowed_modulus, _size_int, (10, 2),
         [p for p in points("narrowed_modulus", (10, 2), [_S01, INTS], n=260) if p[1] != 0] + [(0, 0)], cpp=True),
    Case("round_half", round_half, _one, (6,), points("round_half", (6,), [_DENSE_SIZES]), cpp=True, inductor=True),
    Case("round_scaled", round_scaled, _one, (30,), points("round_scaled", (30,), [_DENSE_SIZES]), cpp=True),
    Case("interpolate_scale", interpolate_scale, _one, (10,), points("interpolate_scale", (10,), [_DENSE_SIZES]),
         cpp=True),
    Case("interpolate_nearest", interpolate_nearest, _small_dense, (21,),
         points("interpolate_nearest", (21,), [[*range(2, 200), 1001, 4096, 10007]])),
    Case("adaptive_bins", adaptive_bins, _two, (100, 7),
         points("adaptive_bins", (100, 7), [_DENSE_SIZES, _DENSE_SIZES], pairs=_P2, n=400), cpp=True),
    Case("chunk_count", chunk_count, _one, (10,), points("chunk_count", (10,), [_DENSE_SIZES]), cpp=True,
         inductor=True),
    Case("slice_window", slice_window, _size_int, (10, 3), points("slice_window", (10, 3), [SIZES, INTS]), cpp=True),
    Case("view_infer", view_infer, _one, (12,), points("view_infer", (12,), [_DENSE_SIZES]), cpp=True),
    Case("three_way_max", three_way_max, _three, (10, 12, 3),
         points("three_way_max", (10, 12, 3), [SIZES, SIZES, INTS], n=400), cpp=True),
    Case("roll_shift", roll_shift, _size_int, (10, -3), points("roll_shift", (10, -3), [SIZES, INTS]), cpp=True),
    Case("negative_modulus", negative_modulus, _size_int, (10, -4), points("negative_modulus", (10, -4), [SIZES, INTS]),
         cpp=True),
    Case("ranged_product", ranged_product, _two, (2**20, 2**21),
         points("ranged_product", (2**20, 2**21), [_BIG31, _BIG31], pairs=[(2**31, 2**31), (2**15 + 1, 2**15)]),
         mark=_mark_2_31, cpp=True),
    Case("pell_unknown", pell_unknown, _two, (3, 2),
         points("pell_unknown", (3, 2), [_DENSE_SIZES, _DENSE_SIZES], pairs=[(17, 12), (99, 70), (577, 408), (5, 3)],
                n=400)),
]


# compile errors, unbacked sizes, recompile chains, several tensors ---------------------------

def _meta(n: int, s: int, off: int = 0) -> torch.Tensor:
    """A size-``n`` view with stride ``s`` and storage offset ``off`` on the meta device (no memory,
    any int64 size and stride)."""
    return torch.empty(0, device="meta").as_strided((n,), (s,), off)


def _meta2(n: int, m: int, s0: int, s1: int) -> torch.Tensor:
    return torch.empty(0, device="meta").as_strided((n, m), (s0, s1))


def ranged_check(x: torch.Tensor) -> torch.Tensor:
    """``torch._check`` narrowing a ``mark_dynamic`` range (``max=2**40``) the code does not allow:
    the compile fails (ConstraintViolationError) before any guard is produced."""
    n = x.shape[0]
    torch._check(n <= 1000)
    return x[:1] + 1 if n > 10 else x[:1] + 2


def _mark_2_40(args: tuple[Any, ...]) -> None:
    torch._dynamo.mark_dynamic(args[0], 0, min=2, max=2**40)


def ranged_one(x: torch.Tensor) -> torch.Tensor:
    """The 0/1 edge inside a ``mark_dynamic`` range (``min=1``): ``n == 1`` specializes."""
    n = x.shape[0]
    if n == 1:
        return x[:1] + 5
    return x[:1] + 1 if n * 2 > 7 else x[:1] + 2


def _mark_1_64(args: tuple[Any, ...]) -> None:
    torch._dynamo.mark_dynamic(args[0], 0, min=1, max=64)


def checked_backed(x: torch.Tensor, k: int) -> torch.Tensor:
    """``torch._check`` on backed values is a guard; the division after it is defined only past it."""
    n = x.shape[0]
    torch._check(k >= 1)
    torch._check(n >= 2 * k)
    r = x[:1] + 1 if n // k >= 2 else x[:1] + 2  # implied by the check
    if n - k >= k:  # implied by the check too
        r = r * 3
    return r


def item_bounds(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    """An unbacked ``u = s.item()`` checked against a backed size: the deferred runtime asserts
    (``u >= 5``, ``u < n``) run in the graph; the guard ``n > 3`` they would imply must stay."""
    u = s.item()
    n = x.shape[0]
    torch._check(u >= 5)
    torch._check(u < n)
    r = x[:1] + 1 if n > 3 else x[:1] + 2
    return r + x[u:u + 1].sum()


def item_is_size(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    """``torch._check_is_size`` and a narrow by an unbacked length, next to backed guards."""
    u = s.item()
    torch._check_is_size(u)
    n = x.shape[0]
    torch._check(u <= n)
    y = x.narrow(0, 0, u)
    r = x[:1] + 1 if n % 3 == 0 else x[:1] + 2
    if n >= 6:
        r = r * 2
    return r + y[:1].sum()


def nonzero_vs_size(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """A data-dependent count checked against a second input's size (``u <= m``, a runtime
    assert) next to guards over both backed sizes; the assert is no premise for them."""
    u = x.nonzero().shape[0]
    n, m = x.shape[0], y.shape[0]
    torch._check(u <= m)
    r = x[:1] + 1 if n > m else x[:1] + 2
    if n + 1 > m:  # implied by n > m
        r = r * 3
    return r + torch.ones(u).sum()


def _half_nonzero(v: Point) -> tuple[Any, ...]:
    x = torch.zeros(v[0])
    x[: v[2]] = 1.0
    return (x, z(v[1]))


def unbacked_marked(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """``mark_unbacked`` on ``x``: its size is never guarded (runtime asserts instead); ``y``'s
    backed guards stay as they are."""
    u = x.shape[0]
    torch._check(u % 2 == 0)
    m = y.shape[0]
    r = y[:1] + 1 if m > 5 else y[:1] + 2
    if m * 2 > 10:
        r = r * 2
    return r + x.view(-1, 2)[:1, 0]


def _mark_unbacked(args: tuple[Any, ...]) -> None:
    torch._dynamo.decorators.mark_unbacked(args[0], 0)


def fullgraph_break(x: torch.Tensor) -> torch.Tensor:
    """``fullgraph=True`` with a graph break only past a threshold: any other input must recompile
    (and fail), never run the example's graph."""
    n = x.shape[0]
    if n > 100:
        torch._dynamo.graph_break()
    r = x[:1] + 1 if n > 10 else x[:1] + 2
    if n * 3 > 30:
        r = r * 2
    return r


def data_dependent_branch(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    """A branch on an unbacked value under ``fullgraph=True``: the compile fails (data-dependent)."""
    u = s.item()
    if u > x.shape[0]:
        return x[:1] + 1
    return x[:1] + 2


def broadcast_pair(x: torch.Tensor, y: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """Broadcasting two sizes (meta tensors: no compute): ``Eq(s0, s1)`` (or a size 1,
    specialized), then guards over the shared size and a third one."""
    n, m = x.shape[0], w.shape[0]
    r = w[:1] + (x + y).shape[0] % 7
    if n + m > 20:
        r = r + 1
    if 2 * n + 2 * m > 40:  # the same
        r = r * 2
    if n * m > 30:
        r = r + 3
    return r


def _broadcast(v: Point) -> tuple[Any, ...]:
    return (_meta(v[0], 1), _meta(v[1], 1), z(v[2]))


def broadcast_one(x: torch.Tensor, y: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """The same compiled at a size-1 ``y`` (specialized): ``y`` must stay 1."""
    return broadcast_pair(x, y, w)


def strided_view(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """Guards on a non-contiguous input's stride and storage offset (symbolic under
    ``dynamic=True``) and their products with its size, near int64's end (C++ wraps)."""
    n, s, off = x.shape[0], x.stride(0), x.storage_offset()
    r = c + 1 if s * n + off < 2**62 else c + 2
    if s * n < 2**62:  # implied by the first (off >= 0)
        r = r * 2
    if s * n > 3 * n:  # the same as s > 3 (n >= 2)
        r = r + 5
    if (off + s) % 4 == 0:
        r = r + 7
    return r


def _strided(v: Point) -> tuple[Any, ...]:
    return (_meta(v[0], v[1], v[2]), torch.zeros(1))


def contiguity(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """``is_contiguous`` of a 2-D view with symbolic sizes and strides, then guards over the
    strides and sizes together."""
    r = c + 1 if x.is_contiguous() else c + 2
    if x.stride(0) >= x.size(1) * x.stride(1):
        r = r * 2
    if x.stride(0) + x.stride(1) >= x.size(1) * x.stride(1):  # implied by the one before
        r = r + 5
    if x.t().is_contiguous():
        r = r + 11
    return r


def _strided2(v: Point) -> tuple[Any, ...]:
    return (_meta2(*v), torch.zeros(1))


def shared_product(x: torch.Tensor, y: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """Two inputs of one size (``x * y`` of meta tensors: ``Eq(s0, s1)``), then a square near
    2**63 in C++."""
    n = x.shape[0]
    r = c + (x * y).shape[0] % 7
    if n < 2**31:
        r = r + 1
    if n * n < 2**62:
        r = r * 2
    return r


def _meta_pair(v: Point) -> tuple[Any, ...]:
    return (_meta(v[0], 1), _meta(v[1], 1), torch.zeros(1))


def auto_dynamic(x: torch.Tensor, k: int) -> torch.Tensor:
    """Automatic dynamic (``dynamic=None``): static first, dynamic after the second size."""
    n = x.shape[0]
    r = x[:1] + 1 if n > 100 else x[:1] + 2
    if n * k > 1000:
        r = r * 2
    if n > 50:
        r = r + 3
    return r


def limited_cache(x: torch.Tensor, k: int) -> torch.Tensor:
    """Recompiles past ``recompile_limit``: the later calls run eagerly, the cached entries keep
    their own guards."""
    n = x.shape[0]
    if k > 10:
        return x[:1] + n // k
    if k > 0:
        return x[:1] + k * 2
    return x[:1] - 1


_TRIPLES = [(n, s, off) for n, s, off in ((2, 1, 0), (2, 3, 0), (10, 4, 4), (10, 4, 3), (10, 0, 0), (10, 1, 8),
                                          (2**31, 2**31, 0), (2**31 + 1, 2**31, 0), (2**32, 2**30, 2**62),
                                          (3, 2**61, 2**61), (2, 2**62 - 1, 2**62), (5, 4, 2**62 + 4),
                                          (2**53 + 1, 3, 0), (2**53, 4, 1))]
_SHAPES2 = [(n, m, a, b) for n in (2, 3, 8) for m in (2, 3, 8) for a, b in ((m, 1), (1, n), (m * 2, 1), (0, 0),
                                                                           (m, 2), (1, 1))]
_OFFS = sorted({0, 1, 2, 3, 4, 8, 12, 100, 2**31, 2**32 + 4, 2**53 + 4, 2**62, 2**62 + 3})
_STRIDES = sorted({0, 1, 2, 3, 4, 5, 100, 2**20, 2**31, 2**40 + 1, 2**53 + 1, 2**60})
_SMALLN = [2, 3, 4, 5, 8, 10, 16, 100, 1000, 2**20]

def float_size_product(x: torch.Tensor, a: float) -> torch.Tensor:
    """A float argument kept symbolic (``specialize_float=False``): its guards are over a float
    symbol and pass through; the integer ones beside them are pruned as usual."""
    n = x.shape[0]
    r = x[:1] + 1 if n * a > 10.5 else x[:1] + 2
    if n > 10:
        r = r * 2
    if 2 * n > 21:
        r = r + 3
    return r


def _float_arg(v: Point) -> tuple[Any, ...]:
    return (z(v[0]), v[1] / 4)


def view_pair(x: torch.Tensor, y: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """Two views ``(-1, 2)`` added: ``Eq(n // 2, m // 2)``, then floor-divided sums."""
    n, m = x.shape[0], y.shape[0]
    r = c + (x.view(-1, 2) + y.view(-1, 2)).shape[0] % 5
    if n + m > 20:
        r = r + 1
    if n // 2 + m // 2 > 10:
        r = r * 2
    return r


def matmul_pair(x: torch.Tensor, y: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """A matmul's inner sizes (``Eq(k, k')``) and guards over three sizes."""
    r = c + (x @ y).shape[1] % 7
    if x.shape[0] * y.shape[1] > 100:
        r = r + 1
    if x.shape[1] + y.shape[1] > 10:
        r = r * 2
    if x.shape[1] + y.shape[1] + x.shape[0] > 10:  # implied by the one before
        r = r + 3
    return r


def _matmul(v: Point) -> tuple[Any, ...]:
    return (_meta2(v[0], v[1], v[1], 1), _meta2(v[2], v[3], v[3], 1), torch.zeros(1))


def cat_view(x: torch.Tensor, y: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """``cat`` then ``view(-1, 4)``: ``(n + m) % 4 == 0`` (in C++ past int64 too), implied by the
    two guards after it."""
    w = torch.cat([x, y])
    r = c + w.view(-1, 4).shape[0] % 5
    n, m = x.shape[0], y.shape[0]
    if n % 4 == 0:
        r = r + 1
    if m % 4 == 0:
        r = r * 2
    return r


def item_plus_size(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    """A runtime assert over an unbacked and a backed value (``u + n <= 100``) bounds the backed
    range, which part 3 then checks."""
    u = s.item()
    torch._check(u >= 0)
    n = x.shape[0]
    torch._check(u + n <= 100)
    r = x[:1] + 1 if n > 40 else x[:1] + 2
    if n * 2 > 81:
        r = r * 2
    return r + u


def broadcast_int(x: torch.Tensor, k: int, c: torch.Tensor) -> torch.Tensor:
    """Broadcasting a size against an int (no 0/1 specialization for ints): ``k == 1`` or
    ``k == n``, then guards over both."""
    n = x.shape[0]
    w = torch.empty(k, device="meta") + x
    r = c + w.shape[0] % 7
    if n + k > 20:
        r = r + 1
    if k > 10 or n > 30:
        r = r * 2
    return r


def _size_int_meta(v: Point) -> tuple[Any, ...]:
    return (_meta(v[0], 1), v[1], torch.zeros(1))


_FL = [-40, -1, 0, 1, 2, 3, 4, 5, 21, 22, 43, 2**55, -(2**55)]
_EVEN = sorted({0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 14, 16, 20, 22, 100, 101, 2**31, 2**31 + 2, 2**53, 2**53 + 2, 2**62})
_SM = [0, 1, 2, 3, 4, 5, 6, 8, 10, 11, 50, 1000, 2**20, 2**31]
_KS = [-3, -1, 0, 1, 2, 3, 5, 10, 11, 12, 13, 30, 31, 2**31, 2**62, 2**63 - 1]
_SIX = (1, 2, 12, 13, 31, 2**62)

def power_prefix(x: torch.Tensor, k: int) -> torch.Tensor:
    """``2 ** k`` behind a lazy ``and``: stock's guard ``n + 2*k < 140`` comes first and rejects a
    huge ``k`` before Python computes the power (it does not finish at ``k = 2**62``). It is
    implied by the later ``k + n < 60``, but it must stay in place (``may_not_finish``). The
    points keep ``k <= 2**20`` (a regression costs time, not a verdict; the record test sees it)."""
    n = x.shape[0]
    r = x[:1] + 1
    if 2 * k + n < 140 and 2**k > n:
        r = r * 2
    if k + n < 60:
        r = r + 3
    return r


MORE: list[Case] = [
    Case("ranged_check", ranged_check, _one, (20,), points("ranged_check", (20,), [SIZES]), mark=_mark_2_40),
    Case("ranged_one", ranged_one, _one, (5,), points("ranged_one", (5,), [[0, 1, *SIZES]]), mark=_mark_1_64),
    Case("checked_backed", checked_backed, _size_int, (10, 2),
         points("checked_backed", (10, 2), [_S01, INTS], pairs=[(2, 0), (0, 0), (3, 2), (4, 2), (2**62, 2**61)]),
         cpp=True),
    Case("item_bounds", item_bounds, _item, (10, 6),
         points("item_bounds", (10, 6), [[0, 1, *SIZES], [-1, 0, 4, 5, 6, 7, 9, 10, 11, 2**40, 2**62]],
                pairs=[(2, 6), (3, 6), (4, 6), (6, 5), (5, 5)]), config={"capture_scalar_outputs": True}),
    Case("item_is_size", item_is_size, _item, (12, 4),
         points("item_is_size", (12, 4), [[0, 1, *SIZES], [-1, 0, 1, 2, 3, 4, 6, 12, 13, 2**31, 2**62]]),
         config={"capture_scalar_outputs": True}),
    Case("nonzero_vs_size", nonzero_vs_size, _half_nonzero, (12, 7, 3),
         points("nonzero_vs_size", (12, 7, 3), [[v for v in _S01 if v <= 1001], _S01, [0, 1, 2, 3, 5, 8, 50, 501]],
                pairs=[(12, 12, 3), (12, 11, 3), (12, 13, 3), (12, 2, 3), (12, 7, 8), (1, 7, 1), (3, 2**62, 3)]),
         config={"capture_dynamic_output_shape_ops": True}),
    Case("unbacked_marked", unbacked_marked, _two, (8, 8),
         points("unbacked_marked", (8, 8), [[0, 1, 3, *SIZES], [0, 1, *SIZES]]), mark=_mark_unbacked),
    Case("fullgraph_break", fullgraph_break, _one, (20,), points("fullgraph_break", (20,), [_S01]),
         options={"fullgraph": True}),
    Case("data_dependent_branch", data_dependent_branch, _item, (10, 3),
         points("data_dependent_branch", (10, 3), [SIZES, INTS]),
         config={"capture_scalar_outputs": True}, options={"fullgraph": True}),
    Case("broadcast_pair", broadcast_pair, _broadcast, (12, 12, 9),
         points("broadcast_pair", (12, 12, 9), [_S01, _S01, _S01],
                pairs=[(1, 12, 9), (12, 1, 9), (11, 11, 9), (1, 1, 9), *((s, s, m) for s in _S01 for m in (2, 9, 30))]),
         cpp=True),
    Case("broadcast_one", broadcast_one, _broadcast, (12, 1, 9),
         points("broadcast_one", (12, 1, 9), [_S01, _S01, _S01],
                pairs=[(1, 12, 9), (12, 12, 9), (1, 1, 9), *((s, 1, m) for s in _S01 for m in (2, 9, 30))])),
    Case("strided_view", strided_view, _strided, (10, 4, 8),
         points("strided_view", (10, 4, 8), [SIZES, _STRIDES, _OFFS], pairs=_TRIPLES, n=300), cpp=True),
    Case("contiguity", contiguity, _strided2, (3, 4, 9, 2),
         points("contiguity", (3, 4, 9, 2), [_SMALLN, _SMALLN, [0, 1, 2, 3, 4, 8, 16], [0, 1, 2, 3, 4]],
                pairs=_SHAPES2, n=250)),
    Case("shared_product", shared_product, _meta_pair, (10, 10),
         points("shared_product", (10, 10), [SIZES, SIZES], pairs=[(s, s) for s in SIZES]), cpp=True),
    Case("auto_dynamic", auto_dynamic, _size_int, (10, 3), points("auto_dynamic", (10, 3), [SIZES, INTS]),
         options={"dynamic": None},
         sequence=[(10, 3), (10, 3), (20, 3), (200, 3), (200, 10), (60, 10), (5, 1), (2**40, 2**20), (3, -3),
                   (400, 4)]),
    Case("auto_dynamic_unspec", auto_dynamic, _size_int, (10, 3), points("auto_dynamic_unspec", (10, 3),
                                                                         [SIZES, INTS]),
         options={"dynamic": None}, config={"assume_static_by_default": False, "automatic_dynamic_shapes": False},
         sequence=[(10, 3), (20, 3), (200, 3), (200, 10), (60, 10), (5, 1), (2**40, 2**20), (3, -3)]),
    Case("limited_cache", limited_cache, _size_int, (10, 3), points("limited_cache", (10, 3), [SIZES, INTS]),
         config={"recompile_limit": 2},
         sequence=[(10, 3), (10, 20), (10, -1), (30, 20), (4, 1), (2**62, 11), (2**62, -5)]),
    Case("float_size_product", float_size_product, _float_arg, (10, 6),
         points("float_size_product", (10, 6), [SIZES, _FL]), config={"specialize_float": False}),
    Case("view_pair", view_pair, _meta_pair, (12, 12), points("view_pair", (12, 12), [_EVEN, _EVEN],
         pairs=[(a, b) for a in (12, 13, 2, 3, 20, 21) for b in (12, 13, 2, 3, 20, 21)])),
    Case("matmul_pair", matmul_pair, _matmul, (10, 6, 6, 8), points("matmul_pair", (10, 6, 6, 8), [_SM] * 4,
         pairs=[(a, b, b, d) for a in (2, 10, 100) for b in (2, 5, 6, 2**20) for d in (2, 8, 50)])),
    Case("cat_view", cat_view, _meta_pair, (8, 12), points("cat_view", (8, 12), [_EVEN, _EVEN],
         pairs=[(a, b) for a in (4, 6, 8, 10, 2, 2**62) for b in (4, 6, 2, 10, 12, 2**62, 2**62 + 4)]), cpp=True),
    Case("item_plus_size", item_plus_size, _item, (50, 10), points("item_plus_size", (50, 10),
         [[0, 1, *range(2, 110, 3), *SIZES], [-1, 0, 1, 9, 10, 50, 59, 60, 61, 2**40]]),
         config={"capture_scalar_outputs": True}),
    Case("broadcast_int", broadcast_int, _size_int_meta, (12, 12), points("broadcast_int", (12, 12), [_S01, _KS],
         pairs=[(a, b) for a in _SIX for b in _SIX])),
    Case("broadcast_int1", broadcast_int, _size_int_meta, (12, 1), points("broadcast_int1", (12, 1), [_S01, _KS],
         pairs=[(a, b) for a in _SIX for b in _SIX])),
    Case("power_prefix", power_prefix, _size_int, (10, 5),
         points("power_prefix", (10, 5), [SIZES, [-3, -1, 0, 1, 2, 5, 10, 40, 57, 58, 59, 64, 69, 70, 100, 2**20]],
                pairs=[(2, 57), (2, 58), (3, 56), (10, 49), (10, 50), (2**62, 2**20)])),
]

# the forms least like the cases above join the default list; the others (MORE) run only in the
# full matrix (SYMGUARD_ZOO_FULL=1)
_JOIN = {"ranged_check", "item_bounds", "nonzero_vs_size", "unbacked_marked", "fullgraph_break", "broadcast_pair",
         "strided_view", "contiguity", "auto_dynamic", "limited_cache", "power_prefix"}
CASES += [c for c in MORE if c.name in _JOIN]
MORE = [c for c in MORE if c.name not in _JOIN]


# SymFloat ratios, sym_max/min/ite/not, checked divisibility, shape ops with int arguments, a
# dropped guard that raises (hunt3) ---------------------------------------------------------------

def _mc(v: Point) -> tuple[Any, ...]:
    """A meta size-``v[0]`` input and a float64 output tensor (every result is a number)."""
    return (_meta(v[0], 1), torch.zeros(1, dtype=torch.float64))


def _mkc(v: Point) -> tuple[Any, ...]:
    return (_meta(v[0], 1), v[1], torch.zeros(1, dtype=torch.float64))


def _mmc(v: Point) -> tuple[Any, ...]:
    return (_meta(v[0], 1), _meta(v[1], 1), torch.zeros(1, dtype=torch.float64))


def dropped_divisor(x: torch.Tensor, y: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """``n // m >= 1`` is implied by the later ``n - m >= 0`` and dropped. With C++ guards, at
    ``m = 0`` both C++ checks reject (part 3's ``2 <= m``) and the reason walk runs the Python
    code in order: stock's raises ``ZeroDivisionError`` at the dropped guard (eager does not even
    divide there: ``m > 0`` is false); pruned's must too, so a dropped guard that may raise is
    put back with its prefix."""
    n, m = x.shape[0], y.shape[0]
    r = c + 1
    if m > 0 and n // m >= 1:
        r = r + 1
    if n - m >= 0:
        r = r * 2
    if n + m > 7:
        r = r + 3
    return r


def guarded_divisor(x: torch.Tensor, y: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """The same dropped quotient behind ``n * m > 10``: wherever stock's reason walk reaches it,
    ``m != 0`` (symguard proves it from the guard before), so it stays dropped with C++ guards."""
    n, m = x.shape[0], y.shape[0]
    r = c + 1
    if n * m > 10:
        r = r + 1
    if n // m >= 1:
        r = r + 1
    if n - m >= 0:
        r = r * 2
    return r


def float_ratio(x: torch.Tensor, y: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """A true division of two sizes compared with float literals, and its integer twin: near
    ``2**53`` the double quotient rounds (``(3*2**52 + 1) / 2**53`` is 1.5)."""
    n, m = x.shape[0], y.shape[0]
    r = c + 1 if n / m > 1.5 else c + 2
    if n / m > 1.25:
        r = r * 2
    if 2 * n > 3 * m:
        r = r + 5
    return r


def max_min_abs(x: torch.Tensor, y: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """``sym_max``/``sym_min`` of two sizes and ``abs`` of their difference: three spellings of one
    condition."""
    n, m = x.shape[0], y.shape[0]
    a, b = torch.sym_max(n, m), torch.sym_min(n, m)
    r = c + 1 if a - b > 10 else c + 2
    if a >= b + 11:
        r = r * 2
    if abs(n - m) > 10:
        r = r + 3
    return r


def not_residue(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """``sym_not`` of a residue test before a parity test that implies it."""
    n = x.shape[0]
    r = c + 1
    if torch.sym_not(n % 4 == 0) and n > 6:
        r = r * 2
    if n % 2 == 1:
        r = r + 3
    return r


def checked_divisible(x: torch.Tensor, k: int, c: torch.Tensor) -> torch.Tensor:
    """``torch._check`` of a positive int and of divisibility (backed: guards), then a quotient
    the checks bound."""
    n = x.shape[0]
    torch._check(k >= 1)
    torch._check(n % k == 0)
    r = c + 1 if n // k > 2 else c + 2
    if n > 2 * k:
        r = r * 2
    return r


def minmax_divisor(x: torch.Tensor, y: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """A quotient and a residue by ``sym_min`` of two sizes."""
    n, m = x.shape[0], y.shape[0]
    a, b = torch.sym_max(n, m), torch.sym_min(n, m)
    r = c + 1 if a // b >= 2 else c + 2
    if a >= 2 * b:
        r = r * 2
    if a % b == 0:
        r = r + 3
    return r


def sqrt_product(x: torch.Tensor, y: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """``math.floor(math.sqrt(n*m))`` next to the product's own thresholds."""
    n, m = x.shape[0], y.shape[0]
    r = c + 1 if math.floor(math.sqrt(n * m)) > 10 else c + 2
    if n * m > 121:
        r = r * 2
    if n * m >= 121:
        r = r + 3
    return r


def pad_negative(x: torch.Tensor, k: int, c: torch.Tensor) -> torch.Tensor:
    """``F.pad`` by ``-k`` on both sides (a crop): its own size check and a threshold."""
    y = torch.nn.functional.pad(x.view(1, -1), (-k, -k))
    return c + y.shape[-1] % 5 + (2 if y.shape[-1] > 4 else 0)


def narrow_start(x: torch.Tensor, k: int, c: torch.Tensor) -> torch.Tensor:
    """``narrow`` at an int start (negative wraps): its bound checks, then a sum with the size."""
    y = x.narrow(0, k, 2)
    return c + y.shape[0] + (1 if x.shape[0] + k > 10 else 0)


def split_count(x: torch.Tensor, k: int, c: torch.Tensor) -> torch.Tensor:
    """``split`` by an int: the number of parts is a ceiling division, specialized."""
    parts = torch.split(x, k)
    return c + len(parts) % 7 + parts[-1].shape[0] % 3


def third_nearest(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """``interpolate`` by the float scale ``1/3`` (nearest): the output size is a float product
    rounded down."""
    y = torch.nn.functional.interpolate(x.view(1, 1, -1), scale_factor=1 / 3, mode="nearest")
    o = y.shape[-1]
    r = c + o % 5
    if o > 10:
        r = r + 1
    if x.shape[0] > 32:
        r = r * 2
    return r


def ite_quotient(x: torch.Tensor, k: int, c: torch.Tensor) -> torch.Tensor:
    """``sym_ite`` choosing a quotient by ``sym_max(k, 1)`` or the size (a select: opaque)."""
    n = x.shape[0]
    q = torch.sym_ite(k > 0, n // torch.sym_max(k, 1), n)
    r = c + 1 if q > 3 else c + 2
    if k > 0 and n > 3 * k:
        r = r * 2
    return r


def unfold_window(x: torch.Tensor, k: int, s: int, c: torch.Tensor) -> torch.Tensor:
    """``unfold`` by an int size and step (specialized, both)."""
    y = x.unfold(0, k, s)
    return c + y.shape[0] % 7 + (1 if y.shape[0] > 3 else 0)


def _mkkc(v: Point) -> tuple[Any, ...]:
    return (_meta(v[0], 1), v[1], v[2], torch.zeros(1, dtype=torch.float64))


def offset_tail(x: torch.Tensor, k: int, c: torch.Tensor) -> torch.Tensor:
    """A slice from an int start of an input with a symbolic storage offset, and guards on the
    offset and the size together."""
    n, off = x.shape[0], x.storage_offset()
    y = x[k:]
    r = c + y.shape[0] % 7
    if off + n > 100:
        r = r + 1
    if off % 8 == 0:
        r = r * 2
    return r


def _offset(v: Point) -> tuple[Any, ...]:
    return (_meta(v[0], 1, v[2]), v[1], torch.zeros(1, dtype=torch.float64))


def shifted_quotient(x: torch.Tensor, k: int, c: torch.Tensor) -> torch.Tensor:
    """Floor division and modulus of differences with an int of either sign."""
    n = x.shape[0]
    r = c + 1 if (n - k) // k > 2 else c + 2
    if (k - n) % k == 0:
        r = r * 2
    if -n // 3 < -5:
        r = r + 3
    return r


def padded_grid(x: torch.Tensor, y: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """Two sizes padded to multiples of 7 (a window partition): guards symguard has cheaper
    forms of."""
    n, m = x.shape[0], y.shape[0]
    pn, pm = (7 - n % 7) % 7, (7 - m % 7) % 7
    r = c + 1 if (n + pn) * (m + pm) > 49 * 4 else c + 2
    if ((n + pn) // 7) * ((m + pm) // 7) > 4:
        r = r * 2
    if (n + pn) % 7 == 0 and n + m > 10:
        r = r + 3
    return r


def rounded_ratio(x: torch.Tensor, y: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """``round(n / m)`` (half to even of a double quotient: opaque) beside integer bounds."""
    n, m = x.shape[0], y.shape[0]
    r = c + 1 if round(n / m) == 2 else c + 2
    if 2 * n >= 3 * m:
        r = r * 2
    if 2 * n < 5 * m:
        r = r + 3
    return r


def float_at_2_53(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """``sym_float(n) == 2.0**53`` holds at ``2**53 + 1`` too (rounding to even); ``n / 1`` as well."""
    n = x.shape[0]
    r = c + 1 if torch.sym_float(n) == 2.0**53 else c + 2
    if n == 2**53:
        r = r * 2
    if n / 1 > 2.0**53:
        r = r + 3
    if n > 2**53:
        r = r + 7
    return r


def shifted_product(x: torch.Tensor, y: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """``(n - 1)*(m - 1)`` and ``n*m`` against ``2**62``: products C++ computes in int64."""
    n, m = x.shape[0], y.shape[0]
    r = c + 1 if (n - 1) * (m - 1) > 2**62 else c + 2
    if n * m > 2**62:
        r = r * 2
    if n * m - n - m > 2**62 - 1:
        r = r + 3
    return r


_BIG = sorted({*SIZES, *_near(2**21, 2), *_near(2**42, 2), 2**41})
_SMALLI = sorted({*range(-12, 13), *(v for v in INTS if abs(v) < 2**40)})
_S2 = sorted({2, 3, 4, 5, 6, 8, 12, 100, *_near(2**31, 1), 2**40, *_near(2**53, 2), 2**62})
_ZERO_PAIRS = [(2, 0), (5, 0), (0, 0), (20, 0), (0, 3), (1, 1)]

HUNT3: list[Case] = [
    Case("dropped_divisor", dropped_divisor, _mmc, (20, 3),
         points("dropped_divisor", (20, 3), [_S01, _S01], pairs=_ZERO_PAIRS), cpp=True),
    Case("guarded_divisor", guarded_divisor, _mmc, (20, 3),
         points("guarded_divisor", (20, 3), [_S01, _S01], pairs=_ZERO_PAIRS), cpp=True),
    Case("float_ratio", float_ratio, _mmc, (10, 4), points("float_ratio", (10, 4), [_BIG, _BIG], pairs=[
        (3 * 2**52, 2**53), (3 * 2**52 + 1, 2**53), (3 * 2**52 - 1, 2**53), (2**53 + 1, 2**53), (5, 4), (6, 4),
        (7, 4), (3, 2), (4, 3)]), cpp=True),
    Case("max_min_abs", max_min_abs, _mmc, (30, 10), points("max_min_abs", (30, 10), [_BIG, _BIG])),
    Case("not_residue", not_residue, _mc, (9,), points("not_residue", (9,), [sorted({*range(2, 40), *SIZES})])),
    Case("checked_divisible", checked_divisible, _mkc, (12, 3), points("checked_divisible", (12, 3), [_BIG, INTS]),
         cpp_runs=False),
    Case("minmax_divisor", minmax_divisor, _mmc, (20, 6), points("minmax_divisor", (20, 6), [_BIG, _BIG])),
    Case("sqrt_product", sqrt_product, _mmc, (20, 9), points("sqrt_product", (20, 9), [_BIG, _BIG])),
    Case("pad_negative", pad_negative, _mkc, (20, 3), points("pad_negative", (20, 3), [_BIG, _SMALLI])),
    Case("narrow_start", narrow_start, _mkc, (20, 3), points("narrow_start", (20, 3), [_BIG, _SMALLI])),
    Case("split_count", split_count, _mkc, (20, 3), points("split_count", (20, 3), [list(range(2, 40)),
                                                                                    list(range(-3, 40))])),
    Case("third_nearest", third_nearest, _mc, (60,), points("third_nearest", (60,), [sorted({*range(2, 80), *SIZES})])),
    Case("ite_quotient", ite_quotient, _mkc, (20, 3), points("ite_quotient", (20, 3), [_BIG, INTS])),
    Case("unfold_window", unfold_window, _mkkc, (20, 3, 2), points("unfold_window", (20, 3, 2),
                                                                   [_BIG, _SMALLI, _SMALLI])),
    Case("offset_tail", offset_tail, _offset, (20, 3, 8), points("offset_tail", (20, 3, 8), [
        _BIG, _SMALLI, [0, 1, 7, 8, 9, 16, 2**31, 2**53, 2**62]])),
    Case("shifted_quotient", shifted_quotient, _mkc, (20, 3), points("shifted_quotient", (20, 3), [_BIG, INTS])),
    Case("padded_grid", padded_grid, _mmc, (20, 13), points("padded_grid", (20, 13), [
        sorted({*range(2, 40), *SIZES}), sorted({*range(2, 40), *SIZES})])),
    Case("rounded_ratio", rounded_ratio, _mmc, (20, 9), points("rounded_ratio", (20, 9), [_BIG, _BIG], pairs=[
        (5, 2), (15, 10), (25, 10), (3, 2), (2**53 + 1, 2**52)])),
    Case("float_at_2_53", float_at_2_53, _mc, (10,), points("float_at_2_53", (10,), [sorted({*SIZES, *_near(2**53, 4)})]),
         cpp=True),
    Case("shifted_product", shifted_product, _mmc, (2**31 + 5, 2**31 + 7), points(
        "shifted_product", (2**31 + 5, 2**31 + 7), [_S2, _S2],
        pairs=[(2**31 + 1, 2**31 + 1), (2**32, 2**30), (2**31, 2**31), (2**31 + 1, 2**31)]), cpp=True),
]
# the default list gets the cheapest of each family; the rest run in the full matrix
_JOIN3 = {"dropped_divisor", "float_ratio", "max_min_abs", "not_residue", "checked_divisible", "minmax_divisor",
          "pad_negative", "narrow_start", "split_count", "ite_quotient"}
CASES += [c for c in HUNT3 if c.name in _JOIN3]
MORE += [c for c in HUNT3 if c.name not in _JOIN3]


# the ceiling and the nearest integer of a size's root (lead, after hunt3) --------------------------

def ceil_grid(x: torch.Tensor) -> torch.Tensor:
    """Tokens padded up to a square grid (``side = math.ceil(math.sqrt(n))``) beside the nearest
    side (``round(math.sqrt(n))``): within 2**52 / 2**50 Python's and C++'s values are ``isqrt(n)``
    plus one past a square / past ``k**2 + k`` (``float_sqrt``, "Ceiling and round"), so with
    ``n <= 2**40`` the guards are premises and the grid's consequences (the padded square covers
    ``n``, by less than ``2*side``; the two sides differ by at most one) are dropped."""
    n = x.shape[0]
    if n > 2**40:
        return x[:1] * 0
    return _ceil_grid(x, n)


def ceil_grid_unbounded(x: torch.Tensor) -> torch.Tensor:
    """The same for any size: past the bounds the two roundings part from the exact reading
    (``2**52 + 1``'s root rounds down to ``2**26``), so those guards are opaque and kept."""
    return _ceil_grid(x, x.shape[0])


def _ceil_grid(x: torch.Tensor, n: int) -> torch.Tensor:
    side = math.ceil(math.sqrt(n))
    near = round(math.sqrt(n))
    r = x[:1] + 1 if side >= 24 else x[:1] - 1
    if side * side >= n:
        r = r + 2
    if side * side - n <= 2 * side:
        r = r + 3
    if near + 1 >= side:
        r = r + 5
    if near * near <= n + near:
        r = r + 7
    return r


_CEIL_SIZES = sorted({*_GRID_SIZES, 2**52 + 1, 2**50 - 1, 2**50 + 2**25, 2**50 + 2**25 + 1, 1125900007505922,
                      *_near(576 + 24, 1), 553, 552})
CASES += [
    Case("ceil_grid", ceil_grid, _one, (37,), points("ceil_grid", (37,), [_CEIL_SIZES]), cpp=True),
]
MORE += [
    Case("ceil_grid_unbounded", ceil_grid_unbounded, _one, (37,), points("ceil_grid_unbounded", (37,), [_CEIL_SIZES]),
         cpp=True),
]



# shape ops whose sizes are ceilings, floors and products: ceil-mode pooling with dilation, dilated
# convolutions, ``arange`` by a float step, ``interpolate`` with ``align_corners``, ``view(m, -1)``,
# ``repeat_interleave``, stride products, float ratios after arithmetic, unbacked sizes (hunt4) ------

def _meta_big(v: Point) -> tuple[Any, ...]:
    """Two meta sizes, an int, and a float64 output tensor."""
    return (_meta(v[0], 1), _meta(v[1], 1), v[2], torch.zeros(1, dtype=torch.float64))


def _strided_c(v: Point) -> tuple[Any, ...]:
    """A meta size-``v[0]`` view with stride ``v[1]`` (symbolic, any int64)."""
    return (_meta(v[0], v[1]), torch.zeros(1, dtype=torch.float64))


def _item_c(v: Point) -> tuple[Any, ...]:
    return (_meta(v[0], 1), t(v[1]), torch.zeros(1, dtype=torch.float64))


def _three_c(v: Point) -> tuple[Any, ...]:
    return (_meta(v[0], 1), _meta(v[1], 1), _meta(v[2], 1), torch.zeros(1, dtype=torch.float64))


def pool_ceil_rel(x: torch.Tensor, y: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """``max_pool2d(ceil_mode=True)`` with dilation and padding (``max_pool1d`` specializes): the
    output ``n // 2`` comes with the ceil-mode correction guard (the last window starts inside the
    input), compared with a second size."""
    n, m = x.shape[0], y.shape[0]
    o = torch.nn.functional.max_pool2d(x.view(1, 1, 1, -1), (1, 3), stride=(1, 2), padding=(0, 1), dilation=(1, 2),
                                       ceil_mode=True).shape[-1]
    r = c + 1 if o > m else c + 2
    if 2 * o + 4 > m:
        r = r * 2
    if o % 3 == 0:
        r = r + 3
    if n >= 2 * m:
        r = r + 5
    return r


def pool_ceil_bounded(x: torch.Tensor, y: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """``pool_ceil_rel`` below ``2**40`` (an early return narrows both ranges): its products then
    fit int64 and C++ guards prune too (5 guards asked, 2 kept)."""
    if x.shape[0] > 2**40 or y.shape[0] > 2**40:
        return c * 0
    return pool_ceil_rel(x, y, c)


def conv_dilated_rel(x: torch.Tensor, y: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """A dilated, padded, strided ``conv2d``: output ``(n - 5) // 3 + 1`` (a shifted numerator)."""
    m = y.shape[0]
    w = torch.empty(1, 1, 1, 3, device=x.device)
    o = torch.nn.functional.conv2d(x.view(1, 1, 1, -1), w, stride=(1, 3), padding=(0, 2), dilation=(1, 4)).shape[-1]
    r = c + 1 if o > m else c + 2
    if 3 * o + 5 > m:
        r = r * 2
    if o % 2 == 1:
        r = r + 3
    return r


def unfold_im2col(x: torch.Tensor, y: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """``F.unfold`` (im2col) with dilation and padding: PyTorch guards ``1 % ((n - 1) // 2) != 0``,
    a zero divisor at ``n`` = 1, 2 (stock's C++ guard dies of SIGFPE there, its Python guard
    raises). Implied by the ranges, it goes with Python guards; with C++ guards it is put back
    (nothing before it proves the divisor non-zero)."""
    n, m = x.shape[0], y.shape[0]
    o = torch.nn.functional.unfold(x.view(1, 1, 1, -1), (1, 3), dilation=(1, 2), padding=(0, 1), stride=(1, 2)).shape[-1]
    r = c + 1 if o > m else c + 2
    if 2 * o + 3 >= n:
        r = r * 2
    return r


def avgpool_ceil_rel(x: torch.Tensor, y: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """``avg_pool2d(ceil_mode=True)`` with padding: a ceiling division and its correction."""
    n, m = x.shape[0], y.shape[0]
    o = torch.nn.functional.avg_pool2d(x.view(1, 1, 1, -1), (1, 4), stride=(1, 3), padding=(0, 2),
                                       ceil_mode=True).shape[-1]
    r = c + 1 if o >= m else c + 2
    if 3 * o + 3 >= m:
        r = r * 2
    if (o - m) % 2 == 0:
        r = r + 3
    return r + n % 2


def arange_float_step(x: torch.Tensor, y: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """``arange(0, n, 0.5)``: its length ``math.ceil(float(n) / 0.5)`` (a float guard, opaque)
    beside the exact ``2*n > m`` it agrees with."""
    n, m = x.shape[0], y.shape[0]
    o = torch.arange(0, n, 0.5, device=x.device).shape[0]
    r = c + 1 if o > m else c + 2
    if 2 * n > m:
        r = r * 2
    if o + 1 > m:
        r = r + 3
    return r


def interpolate_corners(x: torch.Tensor, y: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """``interpolate(scale_factor=2.5, align_corners=True)``: ``math.trunc(2.5*float(n))``."""
    n, m = x.shape[0], y.shape[0]
    o = torch.nn.functional.interpolate(x.view(1, 1, -1), scale_factor=2.5, mode="linear",
                                        align_corners=True).shape[-1]
    r = c + 1 if o > m else c + 2
    if 3 * n > m:
        r = r * 2
    if o + 1 > m:
        r = r + 3
    return r


def view_by_size(x: torch.Tensor, y: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """``x.view(m, -1)``: ``n % m == 0`` and the inferred ``n // m`` (``n // m > 2`` goes, implied by
    ``n > 2*m`` with the divisibility). Its stock C++ guard traps at ``m = 0`` (SIGFPE)."""
    n, m = x.shape[0], y.shape[0]
    o = x.view(m, -1).shape[1]
    r = c + 1 if o > 2 else c + 2
    if n > 2 * m:
        r = r * 2
    if o % 2 == 0:
        r = r + 3
    return r


def repeat_interleave_rel(x: torch.Tensor, y: torch.Tensor, k: int, c: torch.Tensor) -> torch.Tensor:
    """``repeat_interleave(k)`` by an int: the product ``k*n`` against a second size."""
    m = y.shape[0]
    o = x.repeat_interleave(k).shape[0]
    r = c + 1 if o > m else c + 2
    if o >= m:
        r = r * 2
    if (o - m) % 2 == 0:
        r = r + 3
    return r


def stride_size_product(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """A symbolic stride times the size (``s*n <= 1000``): int64 in C++ wraps at ``2**32 * 2**32``."""
    n, s = x.shape[0], x.stride(0)
    r = c + 1 if s * n <= 1000 else c + 2
    if n <= 1000:
        r = r * 2
    if s * n % 7 == 0:
        r = r + 3
    return r


def triple_product_cpp(x: torch.Tensor, y: torch.Tensor, w: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """``n*m*k <= 10**6`` then its factors' bounds: a three-way product C++ wraps."""
    n, m, k = x.shape[0], y.shape[0], w.shape[0]
    r = c + 1 if n * m * k <= 10**6 else c + 2
    if n * m <= 10**6:
        r = r * 2
    if n <= 10**6:
        r = r + 3
    return r


def int_ratio_threshold(x: torch.Tensor, k: int, c: torch.Tensor) -> torch.Tensor:
    """``n / k > 1.5`` by an int (a correctly rounded quotient against a literal, read exactly):
    ``2*n > 3*k`` and ``n > k`` go with Python guards."""
    n = x.shape[0]
    r = c + 1 if n / k > 1.5 else c + 2
    if 2 * n > 3 * k:
        r = r * 2
    if k > 0 and n > k:
        r = r + 3
    return r


def scaled_ratio(x: torch.Tensor, y: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """``2.0 * (n / m) >= 3.0`` (arithmetic on a rounded quotient, opaque) beside ``2*n >= 3*m``."""
    n, m = x.shape[0], y.shape[0]
    r = c + 1 if (n / m) * 2.0 >= 3.0 else c + 2
    if 2 * n >= 3 * m:
        r = r * 2
    if 2 * n > 3 * m - 1:
        r = r + 3
    return r


def float_plus_one(x: torch.Tensor, y: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """``float(n) + 1.0 > float(m)`` is ``n >= m`` exactly, but not at ``n = m = 2**53``."""
    n, m = x.shape[0], y.shape[0]
    r = c + 1 if torch.sym_float(n) + 1.0 > torch.sym_float(m) else c + 2
    if n >= m:
        r = r * 2
    if n + 1 > m:
        r = r + 3
    return r


def int_roundtrip(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """``int(float(n)) == n`` fails past 2**53 (``math.trunc(torch.sym_float(n))``, opaque)."""
    n = x.shape[0]
    a = torch.sym_int(torch.sym_float(n))
    r = c + 1 if a == n else c + 2
    if a % 2 == 1:
        r = r * 2
    if n % 2 == 1:
        r = r + 3
    return r


def item_halves(x: torch.Tensor, s: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """An unbacked ``u`` (``_check_is_size``, ``2*u <= n``) slicing the input, beside backed guards."""
    u = s.item()
    torch._check_is_size(u)
    n = x.shape[0]
    torch._check(2 * u <= n)
    r = c + 1 if n % 2 == 0 else c + 2
    if n >= 8:
        r = r * 2
    if n + u > 3:
        r = r + 3
    return r + x[: 2 * u].shape[0]


def split_at(x: torch.Tensor, k: int, c: torch.Tensor) -> torch.Tensor:
    """``tensor_split`` at ``k`` and ``2*k`` of either sign: clamped piece lengths."""
    a, b, d = (p.shape[0] for p in torch.tensor_split(x, (k, 2 * k)))
    r = c + a % 7 + b % 5 + d % 3
    if d > a:
        r = r + 1
    return r


_H4 = sorted({*range(70), *SIZES})
_H4_BIG = sorted({*_H4, *_near(2**31, 2), *_near(2**53, 3), *_near(2**54, 2), 2**62, 2**63 - 1})
_H4_RATIOS = [(3 * 2**52 + d, 2**53 + e) for d in (-2, -1, 0, 1, 2, 3) for e in (-1, 0, 1)] + [
    (3 * 2**51 + d, 2**52) for d in (-1, 0, 1)] + [(15, 10), (16, 10), (14, 10), (3, 2), (4, 3), (2**53 + 1, 2**53),
                                                   (2**62 + 2**61, 2**62), (2**62 + 2**61 + 1, 2**62)]
_H4_53 = [(2**53, 2**53), (2**53 + 1, 2**53 + 1), (2**53 + 1, 2**53 + 2), (2**53 + 2, 2**53 + 3),
          (2**62, 2**62 + 1), (2**53, 2**53 + 1)]
_H4_TRI = sorted({2, 3, 4, 7, 100, 1000, 2**20, 2**21 + 1, 2**30, 2**31 - 1, 2**31, 2**31 + 1, 2**32, 2**40, 2**62})
_H4_INTS = sorted({*range(-12, 13), *(v for v in INTS if abs(v) < 2**40)})

HUNT4: list[Case] = [
    Case("pool_ceil_rel", pool_ceil_rel, _mmc, (20, 7), points("pool_ceil_rel", (20, 7), [_H4_BIG, _H4_BIG]), cpp=True),
    Case("pool_ceil_bounded", pool_ceil_bounded, _mmc, (20, 7), points("pool_ceil_bounded", (20, 7), [
        sorted({*_H4_BIG, *_near(2**40, 2), *_near(2**39, 2)}), sorted({*_H4_BIG, *_near(2**40, 2)})]), cpp=True),
    Case("conv_dilated_rel", conv_dilated_rel, _mmc, (30, 7), points("conv_dilated_rel", (30, 7), [_H4_BIG, _H4_BIG])),
    Case("unfold_im2col", unfold_im2col, _mmc, (20, 4), points("unfold_im2col", (20, 4), [_H4[:120], _H4[:120]]),
         cpp_runs=False),
    Case("unfold_im2col_cpp", unfold_im2col, _mmc, (20, 4), points("unfold_im2col_cpp", (20, 4), [
        [v for v in _H4[:120] if v not in (1, 2)], _H4[:120]]), cpp=True),
    Case("avgpool_ceil_rel", avgpool_ceil_rel, _mmc, (20, 7), points("avgpool_ceil_rel", (20, 7), [_H4_BIG, _H4_BIG])),
    Case("arange_float_step", arange_float_step, _mmc, (20, 7),
         points("arange_float_step", (20, 7), [_H4_BIG, _H4_BIG], pairs=_H4_53)),
    Case("interpolate_corners", interpolate_corners, _mmc, (20, 7),
         points("interpolate_corners", (20, 7), [_H4_BIG, _H4_BIG], pairs=_H4_53)),
    Case("view_by_size", view_by_size, _mmc, (24, 4), points("view_by_size", (24, 4), [_H4, _H4], pairs=[
        (2**62, 2**31), (2**62, 2**61), (2**53 + 2, 2), (24, 0), (0, 4)]), cpp_runs=False),
    Case("repeat_interleave_rel", repeat_interleave_rel, _meta_big, (10, 7, 3),
         points("repeat_interleave_rel", (10, 7, 3), [_H4_BIG, _H4_BIG, _H4_INTS])),
    Case("stride_size_product", stride_size_product, _strided_c, (10, 3), points(
        "stride_size_product", (10, 3), [_H4_BIG, _H4_BIG],
        pairs=[(2**32, 2**32), (2**33, 2**31), (2**31, 2**33), (1001, 2**63 - 1)]), cpp=True),
    Case("triple_product_cpp", triple_product_cpp, _three_c, (10, 7, 3), points(
        "triple_product_cpp", (10, 7, 3), [_H4_TRI, _H4_TRI, _H4_TRI],
        pairs=[(2**21, 2**21, 2**22), (2**32, 2**32, 2), (2**31, 2**33, 2**31)]), cpp=True),
    Case("int_ratio_threshold", int_ratio_threshold, _mkc, (16, 10),
         points("int_ratio_threshold", (16, 10), [_H4_BIG, INTS], pairs=_H4_RATIOS)),
    Case("scaled_ratio", scaled_ratio, _mmc, (16, 10),
         points("scaled_ratio", (16, 10), [_H4_BIG, _H4_BIG], pairs=_H4_RATIOS), cpp=True),
    Case("float_plus_one", float_plus_one, _mmc, (10, 7), points("float_plus_one", (10, 7), [_H4_BIG, _H4_BIG],
                                                                 pairs=_H4_53)),
    Case("int_roundtrip", int_roundtrip, _mc, (9,), points("int_roundtrip", (9,), [_H4_BIG])),
    Case("item_halves", item_halves, _item_c, (12, 3), points("item_halves", (12, 3), [
        [0, 1, *SIZES], [-1, 0, 1, 2, 3, 6, 7, 2**31]]), config={"capture_scalar_outputs": True}),
    Case("split_at", split_at, _mkc, (20, 3), points("split_at", (20, 3), [_H4, _H4_INTS])),
]
# the default list gets the cheapest of each family; the rest run in the full matrix
_JOIN4 = {"pool_ceil_rel", "conv_dilated_rel", "view_by_size", "int_ratio_threshold", "unfold_im2col"}
CASES += [c for c in HUNT4 if c.name in _JOIN4]
MORE += [c for c in HUNT4 if c.name not in _JOIN4]


# ------------------------------------------------------------------ running a case


@dataclass
class Run:
    """One compile of a case and its verdicts and outcomes on every point."""

    error: str | None  # the compile's exception, "Type: message"
    verdicts: list[bool]  # whether the compiled function ran without recompiling
    outcomes: list[str | None]  # what it returned (repr) or raised, None where refused
    frames: int  # compiles (the counting backend)
    history: list[dict[str, Any]]
    sequence: list[tuple[int, str]] = field(default_factory=list)  # (compiles so far, outcome) per call
    cached: list[str | None] = field(default_factory=list)  # per point, against the sequence's cache


class CountingBackend:
    """A backend that counts the graphs it is given and hands them to ``backend``."""

    def __init__(self, backend: str) -> None:
        self.backend = backend
        self.frames = 0

    def __call__(self, gm: Any, example_inputs: Any) -> Any:
        self.frames += 1
        if self.backend == "eager":
            return gm.forward
        from torch._dynamo.backends.registry import lookup_backend

        return lookup_backend(self.backend)(gm, example_inputs)


def outcome(f: Callable[[], Any]) -> str:
    """What a call gives, as comparable text: the values (float repr) or the exception type."""
    try:
        out = f()
    except Exception as e:  # noqa: BLE001 - an error is an outcome to compare
        return f"raises {type(e).__name__}"
    return repr([float(v) for v in out.reshape(-1)[:4]]) if isinstance(out, torch.Tensor) else repr(out)


def _refused(e: BaseException) -> bool:
    return "recompile" in str(e) and "fail_on_recompile" in str(e)


def compile_run(case: Case, *, prune: bool, cpp: bool = False, backend: str = "eager", cache: str = "cold",
                root: str | None = None, client: Any = None) -> Run:
    """Compile ``case`` at its example (stock, or inside ``prune_guards()``) and judge every point."""
    root = root or tempfile.gettempdir()
    torch._dynamo.reset()
    counter = CountingBackend(backend)
    cfg = {**case.config, "enable_cpp_symbolic_shape_guards": cpp}
    history: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        stack.enter_context(priming(root) if cache == "prime" else cache_state(cache, root))
        stack.enter_context(torch._dynamo.config.patch(**cfg))
        if prune:
            history = stack.enter_context(prune_guards(client=client)).history
        compiled = torch.compile(case.fn, backend=counter, **{"dynamic": True, **case.options})
        args = case.make(case.example)
        if case.mark is not None:
            case.mark(args)
        try:
            compiled(*args)
        except Exception as e:  # noqa: BLE001 - the compile error is what is compared
            return Run(f"{type(e).__name__}: {e}", [], [], counter.frames, history)
        verdicts: list[bool] = []
        outcomes: list[str | None] = []
        with torch.compiler.set_stance("fail_on_recompile"):
            for p in case.points:
                a = case.make(p)
                try:
                    out = compiled(*a)
                except Exception as e:  # noqa: BLE001
                    if _refused(e):
                        verdicts.append(False)
                        outcomes.append(None)
                        continue
                    verdicts.append(True)
                    outcomes.append(f"raises {type(e).__name__}")
                    continue
                verdicts.append(True)
                outcomes.append(outcome(lambda out=out: out))
        run = Run(None, verdicts, outcomes, counter.frames, history)
        if case.sequence:
            torch._dynamo.reset()
            counter.frames = 0
            compiled = torch.compile(case.fn, backend=counter, **{"dynamic": True, **case.options})
            for p in case.sequence:
                a = case.make(p)
                got = outcome(lambda a=a: compiled(*a))
                run.sequence.append((counter.frames, got))
            with torch.compiler.set_stance("fail_on_recompile"):
                for p in case.points:
                    a = case.make(p)
                    run.cached.append(outcome(lambda a=a: compiled(*a)))  # a refusal is its own outcome
    return run


def eager_outcomes(case: Case) -> list[str]:
    return [outcome(lambda p=p: case.fn(*case.make(p))) for p in case.points]


# ------------------------------------------------------------------ the pruned compile's own guards


def own_guard_disagreements(case: Case, history: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """Points where the pruned compile's emitted guard code and its own stock guard code judge
    differently (Python code); None when the history does not carry both (older bridge)."""
    codes = own_code(history)
    if not codes:
        return None
    import inspect

    names = list(inspect.signature(case.fn).parameters)
    glb = guard_globals()
    bad = []
    for p in case.points:
        for i, s, q in own_verdicts(codes, dict(zip(names, case.make(p))), glb):
            if s != q:
                bad.append({"point": list(p), "graph": i, "stock_code": s, "pruned_code": q})
    return bad


# ------------------------------------------------------------------ the differential


def differential(case: Case, *, cpp: bool = False, backend: str = "eager", cache: str = "cold",
                 root: str | None = None, client: Any = None) -> dict[str, Any]:
    """Stock against pruned on every point of ``case``: every disagreement, with its input.
    ``stock_vs_eager`` lists where Dynamo's own compiled code is not eager (pruning must then do
    what stock does); ``client`` is handed to ``prune_guards`` (a test's fake answers)."""
    root = root or tempfile.mkdtemp(prefix="symguard-zoo-")
    if cache == "warm":  # prime the cache with a compile of its own; each compile gets a copy
        compile_run(case, prune=False, cpp=cpp, backend=backend, cache="prime", root=root)
    stock = compile_run(case, prune=False, cpp=cpp, backend=backend, cache=cache, root=root)
    pruned = compile_run(case, prune=True, cpp=cpp, backend=backend, cache=cache, root=root, client=client)
    eager = eager_outcomes(case)
    bad: list[dict[str, Any]] = []
    stock_wrong: list[dict[str, Any]] = []
    if stock.error != pruned.error:
        bad.append({"kind": "compile error", "stock": stock.error, "pruned": pruned.error})
    if stock.error is None and pruned.error is None:
        for p, vs, vp, os_, op, oe in zip(case.points, stock.verdicts, pruned.verdicts, stock.outcomes,
                                          pruned.outcomes, eager):
            if vs != vp:
                bad.append({"kind": "acceptance", "point": list(p), "stock": vs, "pruned": vp, "eager": oe})
            if os_ is not None and os_ != oe:  # Dynamo's own compiled code is not eager here
                stock_wrong.append({"point": list(p), "compiled": os_, "eager": oe})
            if op is not None and op != oe and op != os_:  # pruning changed what the compile does
                bad.append({"kind": "wrong output", "point": list(p), "compiled": op, "eager": oe, "stock": os_})
        for p, (_, o), (_, o_s) in zip(case.sequence, pruned.sequence, stock.sequence):
            oe = outcome(lambda p=p: case.fn(*case.make(p)))
            if o != oe and o != o_s:
                bad.append({"kind": "wrong output", "who": "pruned (recompiling)", "point": list(p), "compiled": o,
                            "eager": oe})
        for p, cs, cp in zip(case.points, stock.cached, pruned.cached):
            if cs != cp:  # the sequence's cache (several entries) judged the point otherwise
                bad.append({"kind": "cached entries", "point": list(p), "stock": cs, "pruned": cp})
        if stock.sequence != pruned.sequence:
            bad.append({"kind": "recompiles", "inputs": [list(p) for p in case.sequence],
                        "stock": stock.sequence, "pruned": pruned.sequence})
        if stock.frames != 1 or pruned.frames != 1:
            bad.append({"kind": "compiles", "stock": stock.frames, "pruned": pruned.frames})
    own = own_guard_disagreements(case, pruned.history) if pruned.error is None else []
    for d in own or ():
        bad.append({"kind": "own unpruned guards", **d})
    return {"case": case.name, "cpp": cpp, "backend": backend, "cache": cache, "points": len(case.points),
            "accepted": sum(stock.verdicts), "stock_error": stock.error, "own_checked": bool(own is not None and
                                                                                       pruned.error is None),
            "stock_vs_eager": stock_wrong,
            "pruned_guards": [h.get("kept") for h in pruned.history], "disagreements": bad}
