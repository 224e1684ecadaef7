"""Exact integer lowerings of PyTorch's own sympy functions (``torch.utils._sympy.functions``).

Each is written with existing IR kinds wherever that is exact: ``CeilToInt(IntTrueDiv(a, b))`` is
ceiling division (``_round_ratio``, Python's half-to-even ``round`` included), a bitwise and/or/xor
with a constant operand is a sum of ``Mod``/``FloorDiv`` bit fields (``_bitwise``), and
``IsNonOverlappingAndDenseIndicator`` is a case split over the order of the strides
(``_dense_indicator``). What has no exact lowering returns None and the reader refuses it.
"""

from __future__ import annotations

import itertools

from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term
from symguard.solver.syntax import float_compare as fc

MAX_MASK_RUNS = 64  # bit fields in one constant mask of a bitwise and/or/xor
MAX_SHIFT = 4096  # literal shift counts (2**k is built as a constant)
MAX_DENSE_DIMS = 4  # IsNonOverlappingAndDenseIndicator: n! stride orders are spelled out


def _round_ratio(name: str, a: Term, b: Term) -> Term:
    """The exact integer ``name`` of the rational ``a / b`` (``b != 0`` is the caller's domain)."""
    if b is ir.ONE:
        return a
    if name == "CeilToInt":
        return ir.mk_ceildiv(a, b)
    if name == "FloorToInt":
        return ir.mk_floordiv(a, b)
    if name == "TruncToInt":
        return ir.mk_truncdiv(a, b)
    # Python's round: half to even. h = floor(a/b + 1/2) = (2a + b) // 2b rounds halves up; a half
    # (2a + b divisible by 2b) whose h is odd goes down to the even neighbour.
    two_b = ir.mk_mul(ir.mk_int(2), b)
    num = ir.mk_add(ir.mk_mul(ir.mk_int(2), a), b)
    h = ir.mk_floordiv(num, two_b)
    tie = ir.mk_and(ir.mk_eq(ir.mk_mod(num, two_b), ir.ZERO), ir.mk_eq(ir.mk_mod(h, ir.mk_int(2)), ir.ONE))
    return ir.mk_ite(tie, ir.mk_sub(h, ir.ONE), h)


def _round_real(name: str, r: fc.Value) -> Term:
    """The integer ``name`` of a float value: each leaf's exact rational rounded, through the
    branches of a ``Where`` and the arguments of a ``Max``/``Min`` (the rounding functions are
    monotone, so ``ceil(max(x, y)) = max(ceil(x), ceil(y))``)."""
    if isinstance(r, fc.Rounded):
        return _round_ratio(name, r.num, r.den)
    if isinstance(r, fc.Exact):
        return _round_ratio(name, r.num, ir.mk_int(r.den))
    if isinstance(r, fc.Pick):
        return ir.mk_ite(r.cond, _round_real(name, r.then), _round_real(name, r.other))
    if isinstance(r, fc.Chain):  # built only for a comparison (sympy_float reads arithmetic affinely here)
        raise TypeError("a compared float chain under a rounding function")
    parts = [_round_real(name, a) for a in r.args]
    return ir.mk_max(*parts) if r.kind == "max" else ir.mk_min(*parts)


def _bit_runs(c: int) -> list[tuple[int, int]]:
    """The maximal runs of one bits of ``c >= 0``: ``[(lowest bit, width), ...]``."""
    runs: list[tuple[int, int]] = []
    i = 0
    while c >> i:
        if (c >> i) & 1:
            j = i
            while (c >> j) & 1:
                j += 1
            runs.append((i, j - i))
            i = j
        else:
            i += 1
    return runs


def _and_const(x: Term, c: int) -> Term | None:
    """``x & c`` for a constant ``c`` in Python's two's complement (any sign of ``x`` and ``c``).

    For ``c >= 0`` each run of one bits ``[i, i + w)`` contributes ``((x // 2**i) % 2**w) * 2**i``
    (the bits of ``x`` there); for ``c < 0``, ``x & c = x - (x & ~c)`` with ``~c >= 0``. None when
    ``c`` has more than ``MAX_MASK_RUNS`` runs.
    """
    if c < 0:
        rest = _and_const(x, ~c)
        return None if rest is None else ir.mk_sub(x, rest)
    runs = _bit_runs(c)
    if len(runs) > MAX_MASK_RUNS:
        return None
    parts = [ir.mk_mul(ir.mk_mod(ir.mk_floordiv(x, ir.mk_int(1 << i)), ir.mk_int(1 << w)), ir.mk_int(1 << i))
             for i, w in runs]
    return ir.mk_add(*parts) if parts else ir.ZERO


def _bitwise(op: str, x: Term, y: Term) -> Term | None:
    """``x & y``, ``x | y`` or ``x ^ y`` on Python integers when one operand is a constant
    (``a | c = a + c - (a & c)``, ``a ^ c = a + c - 2 (a & c)``); None otherwise."""
    if x.kind == ir.CONST and y.kind == ir.CONST:
        return ir.mk_int(x.value & y.value if op == "and" else x.value | y.value if op == "or"
                         else x.value ^ y.value)
    if x.kind == ir.CONST:
        x, y = y, x
    if y.kind != ir.CONST:
        return None
    both = _and_const(x, y.value)
    if both is None:
        return None
    if op == "and":
        return both
    k = 1 if op == "or" else 2
    return ir.mk_sub(ir.mk_add(x, y), ir.mk_mul(ir.mk_int(k), both))



def _dense_indicator(sizes: list[Term], strides: list[Term]) -> Term:
    """PyTorch's ``_eval_is_non_overlapping_and_dense(sizes, strides)`` as 0/1 (the caller bounds
    the dimensions by ``MAX_DENSE_DIMS``): the (stable) order of the strides is one of the n!
    permutations; in that order every dimension of size != 1 must have the stride
    ``prod(sizes before it)``."""
    n = len(sizes)
    if n == 1:
        dense = ir.mk_or(ir.mk_eq(strides[0], ir.ONE), ir.mk_lt(sizes[0], ir.mk_int(2)))
        return ir.mk_ite(dense, ir.ONE, ir.ZERO)
    cases: list[Term] = []
    for perm in itertools.permutations(range(n)):
        order = [ir.mk_lt(strides[i], strides[j]) if i > j
                 else ir.mk_le(strides[i], strides[j]) for i, j in itertools.pairwise(perm)]
        expected: Term = ir.ONE
        checks: list[Term] = []
        for i in perm:
            checks.append(ir.mk_or(ir.mk_eq(sizes[i], ir.ONE), ir.mk_eq(strides[i], expected)))
            expected = ir.mk_mul(expected, sizes[i])
        cases.append(ir.mk_and(*order, *checks))
    return ir.mk_ite(ir.mk_or(*cases), ir.ONE, ir.ZERO)
