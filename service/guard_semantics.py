"""Which shape guards Dynamo *executes* with their exact integer value (docs/torch_guards.md).

symguard proves facts about exact integers. Dynamo runs each shape guard as code printed from its
sympy expression: Python (``torch.utils._sympy.printers.PythonPrinter``: ``/`` and
``math.floor``/``math.ceil`` in IEEE doubles, ``x if c else y``, short-circuit ``and``/``or``) or,
with ``torch._dynamo.config.enable_cpp_symbolic_shape_guards``, C++ (``CppPrinter``: int64
arithmetic that overflows, C's ``%`` for sympy's ``Mod``, doubles for true division). Where the
executed value can differ from the exact one, a pruned guard set could accept an input the stock
set rejects. ``executed_exactly`` answers, per guard, whether the printed code computes the exact
value at every point of the ranges Dynamo enforces; a guard for which it says False is *opaque*
to the pruner: emitted as it is and never used to imply another.

The check is syntactic plus interval arithmetic over the enforced ranges, so it is conservative:
a False may be a guard that would have been fine. Every node kind not listed here is opaque, and
so is every ``Piecewise``/``Where``: PythonPrinter prints ``Piecewise((a, c), (b, d))`` as
``a if c else b`` (``d`` never read) and evaluates only the branch taken.
Pure functions over sympy expressions; sympy and torch are imported by the caller's objects only.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Mapping
from typing import Any

from symguard.service.guard_float_exact import FloatWalk
from symguard.solver.syntax import float_literal, float_log2, float_sqrt
from symguard.solver.syntax.float_affine import decimal_exact

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1
FLOAT_EXACT = 1 << 53  # |n| <= 2**53: an integer a double holds exactly

Interval = tuple[float, float]  # ints, or -inf/inf for an unbounded side
_ANY: Interval = (-math.inf, math.inf)

# The printers' output for these kinds is exact integer (or boolean) code in Python.
_ARITH = {"Add", "Mul", "Pow", "PowByNatural", "FloorDiv", "CleanDiv", "Mod", "PythonMod",
          "ModularIndexing", "Max", "Min", "Abs", "Identity"}
_REL = {"Equality", "Unequality", "StrictLessThan", "LessThan", "StrictGreaterThan", "GreaterThan"}
# float rounding of a true division: exact when |a| + |b| < 2**53 (docs/torch_guards.md)
_ROUNDING = {"FloorToInt", "CeilToInt", "floor", "ceiling", "TruncToInt"}


def _kind(e: Any) -> str:
    return type(e).__name__


def _mul(a: Interval, b: Interval) -> Interval:
    """Product interval; 0 times an unbounded side is 0 (the product of integers)."""
    ps = [0 if x == 0 or y == 0 else x * y for x in a for y in b]
    return (min(ps), max(ps))


def _within(iv: Interval, lo: float, hi: float) -> bool:
    return lo <= iv[0] and iv[1] <= hi


class _Walk:
    """One guard's walk: the interval of every subterm, and whether its code is exact."""

    def __init__(self, ranges: Mapping[Any, Interval], lang: str) -> None:
        self.ranges = ranges
        self.cpp = lang == "cpp"
        self.memo: dict[Any, Interval | None] = {}

    def fits(self, iv: Interval) -> bool:
        """Whether a value computed by the printed code lies where it is computed exactly."""
        return not self.cpp or _within(iv, INT64_MIN, INT64_MAX)

    def term(self, e: Any) -> Interval | None:
        """The interval of integer term ``e``, or None when its executed value may not be exact."""
        try:
            return self.memo[e]
        except KeyError:
            pass
        except TypeError:  # unhashable: walk it unmemoized
            return self._term(e)
        out = self.memo[e] = self._term(e)
        return out

    def _term(self, e: Any) -> Interval | None:
        k = _kind(e)
        if getattr(e, "is_Integer", False):
            v = int(e)
            return (v, v) if self.fits((v, v)) else None
        if getattr(e, "is_Symbol", False):
            if not getattr(e, "is_integer", False):
                return None
            iv = self.ranges.get(e, _ANY)
            if self.cpp:  # a size or int argument read into an int64
                iv = (max(iv[0], INT64_MIN), min(iv[1], INT64_MAX))
            return iv
        if k in _ROUNDING or k == "RoundToInt":
            return self._rounded(e)
        if k in ("Pow", "PowByNatural") and (power := _log2_power(e)) is not None:
            return self._log2_power(*power)
        if k not in _ARITH:
            return None
        args = [self.term(a) for a in e.args]
        if any(a is None for a in args):
            return None
        ivs: list[Interval] = [a for a in args if a is not None]
        out = self._arith(k, e, ivs)
        return out if out is not None and self.fits(out) else None

    def _arith(self, k: str, e: Any, ivs: list[Interval]) -> Interval | None:
        if k in ("Add", "Mul"):
            # evaluated left to right in the printed order: every partial result must fit
            acc = ivs[0]
            for iv in ivs[1:]:
                acc = (acc[0] + iv[0], acc[1] + iv[1]) if k == "Add" else _mul(acc, iv)
                if not self.fits(acc):
                    return None
            return acc
        if k in ("Pow", "PowByNatural"):
            b, x = ivs
            if x[0] != x[1] or x[0] < 0 or x[0] > 64:
                return None  # a symbolic or huge exponent: not followed (C++ prints only 2**x)
            if self.cpp and k == "PowByNatural":
                return None  # CppPrinter supports only 2**x, as a shift: not modelled
            acc = (1, 1)
            for _ in range(int(x[0])):
                acc = _mul(acc, b)
                if not self.fits(acc):
                    return None
            return acc
        if k in ("FloorDiv", "CleanDiv", "Mod", "PythonMod", "ModularIndexing"):
            return self._division(k, e, ivs)
        if k in ("Max", "Min"):
            f = max if k == "Max" else min
            return (f(iv[0] for iv in ivs), f(iv[1] for iv in ivs))
        if k == "Abs":
            lo, hi = ivs[0]
            if lo >= 0:
                return (lo, hi)
            if hi <= 0:
                return (-hi, -lo)
            return (0, max(-lo, hi))
        if k == "Identity":
            return ivs[0]
        return None

    def _division(self, k: str, e: Any, ivs: list[Interval]) -> Interval | None:
        """Floor division and modulus: a divisor must be a non-zero literal or kept away from 0
        by the ranges in C++ (a zero divisor there is undefined behaviour, not a rejection); C++
        prints sympy's ``Mod`` as C's ``%``, which is Python's only for operands >= 0."""
        if k == "ModularIndexing":
            x, d, m = ivs
            if not (d[0] > 0 and m[0] > 0):
                return None  # PyTorch's ModularIndexing assumes positive divisors
            q = _floordiv_iv(x, d)
            if self.cpp and q[0] < 0:
                return None  # C's % of a negative quotient
            return (0, m[1] - 1)
        a, d = ivs
        if d[0] <= 0 <= d[1]:
            if self.cpp:
                return None
            if d[0] == d[1]:
                return None  # a literal 0: always raises
        if self.cpp and k == "Mod" and not (a[0] >= 0 and d[0] > 0):
            return None
        if self.cpp and a[0] <= INT64_MIN and d[0] <= -1 <= d[1]:
            return None  # INT64_MIN // -1 overflows
        if k in ("FloorDiv", "CleanDiv"):
            return _floordiv_iv(a, d)
        # Python's modulus takes the divisor's sign, |r| < |d|
        hi = max(abs(d[0]), abs(d[1])) - 1
        lo = -hi if d[0] < 0 else 0
        if d[1] < 0:
            hi = 0
        return (lo, hi)

    def _rounded(self, e: Any) -> Interval | None:
        """A rounding function: of a size times a literal that is not its double (``float_literal``:
        Python's and C++'s value is the one read within the literal's proven bound), of a square
        root (``_isqrt``), of an exactly computed float (``guard_float_exact``: then the rounding
        sees the exact value), else of one true division (``_rounded_division``)."""
        root = _sqrt_operand(e.args[0]) if len(e.args) == 1 else None
        if root is not None:
            return self._isqrt(e, root)
        if len(e.args) == 1 and inexact_literals(e.args[0]):
            return self._scaled(e) if _kind(e) in _ROUNDING_NAMES else None
        r = FloatWalk(self.term).value(e.args[0]) if len(e.args) == 1 else None
        if r is not None:
            out = (math.floor(r[0]), math.ceil(r[1]))
            return out if self.fits(out) else None
        if _kind(e) == "RoundToInt":
            return None  # round of an inexact quotient: not modelled
        return self._rounded_division(e)

    def _scaled(self, e: Any) -> Interval | None:
        """``R(c*float(n))`` for a literal ``c`` that is not its double: the reader's ``R(q*n)``
        (``float_literal.scaled``) is what Python computes for ``n`` within the proven bounds,
        and C++ too: ``static_cast<double>(n)`` is exact there (``|n| <= 2**53``), one product
        is one correctly rounded operation (nothing to contract), and the rounding is
        ``std::trunc``/``floor``/``ceil`` or ``std::lrint`` (half to even) of the same double."""
        arg = e.args[0]
        if _kind(arg) != "Mul" or len(arg.args) != 2:
            return None
        lits = [a for a in arg.args if getattr(a, "is_Float", False)]
        if len(lits) != 1:
            return None
        (lit,) = lits
        x = arg.args[1] if arg.args[0] is lit else arg.args[0]
        if _kind(x) == "ToFloat":
            x = x.args[0]
        elif _floaty(x) or not getattr(x, "is_integer", False):
            return None
        c = float(lit)
        bound = float_literal.scaled(c, _kind(e))
        iv = self.term(x)
        if bound is None or iv is None or min(bound.lo_bound, bound.hi_bound) < float_literal.MIN_BOUND:
            return None
        if not _within(iv, -bound.lo_bound, bound.hi_bound):
            return None
        ends = sorted(float_literal.rounded(_kind(e), bound.q * int(v)) for v in iv)
        out = (ends[0], ends[1])
        return out if self.fits(out) else None

    def _isqrt(self, e: Any, root: tuple[Any, str]) -> Interval | None:
        """``TruncToInt``/``FloorToInt`` of ``OpaqueUnaryFn_sqrt(ToFloat(n))``, read as ``isqrt(n)``:
        Python's ``math.trunc(math.sqrt(float(n)))`` (``torch._sym_sqrt`` of a float is
        ``math.sqrt``) and C++'s ``static_cast<int64_t>(std::trunc(std::sqrt(static_cast<double>(n))))``
        are that value for ``0 <= n <= float_sqrt.BOUND`` (both conversions exact there, and
        ``sqrt`` is one correctly rounded IEEE operation in both; a negative ``n`` raises in
        Python and is undefined behaviour in C++: kept out by the ranges). Of
        ``FloatPow(ToFloat(n), 0.5)`` (``int(n ** 0.5)``: the C library's ``pow`` in both, or a
        ``sqrt`` a C++ compiler put in its place) for ``0 <= n <= float_sqrt.POW_BOUND``, where a
        faithful ``pow`` and ``sqrt`` both round to ``isqrt(n)`` (``float_sqrt``). ``CeilToInt``
        and ``RoundToInt`` (``std::ceil``, ``std::nearbyint``: no tie, the root is never a
        half-integer) likewise within their own ``float_sqrt.bound`` (2**48 … 2**52), read as
        ``float_sqrt.integer_value``; each is monotone in ``n``. ``root``: the operand and the
        form ``_sqrt_operand`` found."""
        name = _kind(e)
        if name not in float_sqrt.INTEGER_ROUNDINGS:
            return None
        iv = self.term(root[0])
        if iv is None or not _within(iv, 0, float_sqrt.bound(root[1], name)):
            return None
        return (float_sqrt.integer_value(name, int(iv[0])), float_sqrt.integer_value(name, int(iv[1])))

    def _log2_power(self, name: str, a: Any, c: int) -> Interval | None:
        """``2 ** R(log2(a / c))`` (``PowByNatural(2, TruncToInt(OpaqueUnaryFn_log2(IntTrueDiv(a,
        c))))``), read as ``bit_floor(a // c)`` where the exponent is ``>= 0``: Python's ``2 **
        math.trunc(math.log2(a / c))`` and C++'s ``(1 << (static_cast<int64_t>(std::trunc(std::log2(
        static_cast<double>(a) / static_cast<double>(c))))))`` are that power for ``1 <= a <=
        float_log2.BOUND`` (the same correctly rounded division and a faithful ``log2``: the
        exponent is exact there, ``float_log2``). Claimed only where the ranges keep the exponent
        ``>= 0`` (``a > c/2``; ``a >= c`` for ``FloorToInt``): below, Python's power is a float (a
        guard's arithmetic on it rounds past ``2**53``) and C++ shifts by a negative count
        (undefined). In C++ the ``1`` shifted is an ``int``: the exponent must stay below 31."""
        if name not in float_log2.ROUNDINGS or not 1 <= c <= float_log2.MAX_DIVISOR:
            return None
        iv = self.term(a)
        if iv is None or not _within(iv, 1, float_log2.BOUND):
            return None
        lo, hi = (float_log2.exponent(name, int(v), c) for v in iv)
        if lo < 0 or (self.cpp and hi > 30):
            return None
        return (1 << lo, 1 << hi)

    def _sqrt_relation(self, e: Any) -> bool | None:
        """A rounded square root compared with a number literal (``math.trunc(math.sqrt(float(n)))
        >= 24``), which symguard reads as Python computes it at any size (``float_sqrt.compare``;
        ``ValueError``/``OverflowError`` in the domain): exact in Python when ``n``'s code is. C++
        computes the same doubles where ``static_cast<double>(n)`` is exact (``0 <= n <= 2**53``:
        one correctly rounded ``std::sqrt`` remains, and no NaN), and its rounding fits int64 there.
        The power form ``float(n) ** 0.5`` is the C library's ``pow`` in Python, the function the
        reader's bisection calls; a C++ compiler may put ``sqrt`` in its place, which rounds the
        same only as the exact rounding of the root (within ``float_sqrt.bound(POW, rounding)``).
        None for another shape."""
        for rnd, lit in (e.args, reversed(e.args)):
            if _kind(rnd) not in _ROUNDING_NAMES or len(rnd.args) != 1:
                continue
            root = _sqrt_operand(rnd.args[0])
            if root is None:
                continue
            if not (getattr(lit, "is_Integer", False) or getattr(lit, "is_Float", False)):
                return None
            iv = self.term(root[0])
            if iv is None:
                return False
            if not self.cpp:
                return True
            if root[1] == float_sqrt.POW:
                name = _kind(rnd)
                return name in float_sqrt.INTEGER_ROUNDINGS and _within(iv, 0, float_sqrt.bound(float_sqrt.POW, name))
            if getattr(lit, "is_Integer", False) and abs(int(lit)) > FLOAT_EXACT:
                return False
            return _within(iv, 0, FLOAT_EXACT)
        return None

    def _log2_relation(self, e: Any) -> bool | None:
        """A rounded logarithm compared with a number literal (``math.trunc(math.log2(a / 8)) >= 0``,
        what PyTorch guards before ``2 ** e``), which symguard reads as a threshold on ``a`` that is
        Python's value at any size (``float_log2.compare``, within bounds on the divisor and the
        literal; ``a <= 0`` and an overflow in the domain). C++ converts ``a`` to a double first
        (monotone, and exact near every threshold, which is below ``2**47``); ``a`` must be kept
        ``>= 1`` there (``std::log2`` of 0 or less cast to int64 is undefined). None for another
        shape."""
        for rnd, lit in (e.args, reversed(e.args)):
            if _kind(rnd) not in _ROUNDING_NAMES or len(rnd.args) != 1 or _kind(rnd.args[0]) != "OpaqueUnaryFn_log2":
                continue
            got = _log2_operand(rnd.args[0].args[0])
            if got is None or not (getattr(lit, "is_Integer", False) or getattr(lit, "is_Float", False)):
                return None
            a, c = got
            v = float(lit)
            if not math.isfinite(v) or _kind(rnd) not in float_log2.ROUNDINGS or any(
                    float_log2.threshold(_kind(rnd), k, c) is None
                    for k in {math.ceil(v), math.floor(v), math.floor(v) + 1}):
                return False
            iv = self.term(a)
            if iv is None:
                return False
            return not self.cpp or _within(iv, 1, INT64_MAX)
        return None

    def _rounded_relation(self, e: Any) -> bool | None:
        """A rounding of arithmetic with a literal that is not its double compared with a number
        literal (``Eq(TruncToInt(0.4*ToFloat(n)), 21)``), which symguard reads as Python computes
        it at any size (``float_compare.rounded_chain``): exact in Python when the chain's one
        operand is (``_chain``). C++ computes the same doubles only for one product or sum (no
        contraction; a division is left out: with ``-freciprocal-math`` a compiler may multiply
        by the reciprocal instead) of an operand within ``±2**53``, and the int64 cast needs the
        rounded value to fit. None for another shape."""
        for rnd, lit in (e.args, reversed(e.args)):
            k = _kind(rnd)
            if k not in _ROUNDING_NAMES or len(rnd.args) != 1 or not inexact_literals(rnd.args[0]):
                continue
            if not (getattr(lit, "is_Integer", False) or getattr(lit, "is_Float", False)):
                return None
            arg = rnd.args[0]
            if _kind(arg) not in ("Add", "Mul", "FloatTrueDiv") or not self._chain(arg):
                return False
            if not self.cpp:
                return True
            if not getattr(lit, "is_Integer", False) or not _within((int(lit), int(lit)), INT64_MIN, INT64_MAX):
                return False
            x = next(a for a in arg.args if not (getattr(a, "is_Float", False) or getattr(a, "is_Integer", False)))
            if _kind(x) in ("Add", "Mul", "FloatTrueDiv") and _floaty(x):
                return False  # more than one step: C++ may contract or reorder them
            if _kind(arg) == "FloatTrueDiv":
                return False  # a division by a constant may become a product by its reciprocal
            base = x.args[0] if _kind(x) == "ToFloat" else x
            iv = self.term(base)
            if iv is None or not _within(iv, -FLOAT_EXACT, FLOAT_EXACT) or not self._float_value(x):
                return False
            rounded = [_py_eval_rounded(k, arg, x, int(v)) for v in iv]
            return all(r is not None and INT64_MIN <= r <= INT64_MAX for r in rounded)
        return None

    def _rounded_division(self, e: Any) -> Interval | None:
        """``FloorToInt(IntTrueDiv(a, b))`` and kin: exact when ``|a| + |b| < 2**53``.

        Both operands are then doubles exactly, the quotient is correctly rounded, and its
        distance to the nearest other integer (at least ``1/|b|``) exceeds half an ulp of the
        result, so the rounding function sees the exact quotient's side of every integer."""
        (arg,) = e.args
        if _kind(arg) != "IntTrueDiv":
            return None
        a, b = (self.term(x) for x in arg.args)
        if a is None or b is None or b[0] <= 0 <= b[1]:
            return None
        if max(abs(a[0]), abs(a[1])) + max(abs(b[0]), abs(b[1])) >= FLOAT_EXACT:
            return None
        lo, hi = _floordiv_iv(a, b)
        return (lo, hi + 1)  # ceiling and truncation are at most one above the floor

    def cond(self, e: Any) -> bool:
        """Whether condition ``e``'s code computes its exact truth value."""
        k = _kind(e)
        if k in ("BooleanTrue", "BooleanFalse"):
            return True
        if k in _REL:
            if any(_floaty(a) for a in e.args):
                return self._float_relation(e)
            rounded = self._rounded_relation(e)
            if rounded is not None:
                return rounded
            root = self._sqrt_relation(e)
            if root is not None:
                return root
            log = self._log2_relation(e)
            if log is not None:
                return log
            return all(self.term(a) is not None for a in e.args)
        if k in ("And", "Or", "Not"):
            # symguard reads ``&``/``|`` as Python's ``and``/``or``, left to right (a divisor after
            # a deciding operand is not evaluated), and both printers print ``expr.args`` in order;
            # in C++ every divisor is kept away from 0 (``_division``), so evaluation is total there
            return all(self.cond(a) for a in e.args) and not _reordered(e)
        return False

    def guard(self, e: Any) -> bool:
        return self.cond(e)

    def _float_relation(self, e: Any) -> bool:
        """A float compared with a number literal (``IntTrueDiv(a, b) >= 1.0``), which symguard reads
        exactly (docs/pytorch-functions.md): exact code when the float is (``_float_value``) and, in
        C++, an integer literal converts to a double exactly."""
        lhs, rhs = e.args
        for val, lit in ((lhs, rhs), (rhs, lhs)):
            if getattr(lit, "is_Float", False) or getattr(lit, "is_Integer", False):
                if self.cpp and getattr(lit, "is_Integer", False) and abs(int(lit)) > FLOAT_EXACT:
                    return False
                return self._float_value(val)
        return False

    def _float_value(self, e: Any) -> bool:
        """Whether the printed code computes float ``e`` as symguard reads it.

        Python: ``a / b`` on ints is the correctly rounded quotient at any size and ``float(a)``
        the correctly rounded int (a zero divisor or an overflow raises: the reader's domain), so
        ``IntTrueDiv``/``ToFloat`` of exact integer code is exact; ``max``/``min``/``abs`` return
        an argument (ints unconverted). C++: ``static_cast<double>`` is exact only for
        ``|n| <= 2**53`` (then the division rounds once, as Python's), a zero divisor is not an
        error, and ``std::max<double>`` converts its integer arguments too."""
        k = _kind(e)
        if getattr(e, "is_Float", False):
            return bool(e.is_finite)
        if k in ("IntTrueDiv", "ToFloat"):
            ivs = [self.term(a) for a in e.args]
            if any(iv is None for iv in ivs):
                return False
            if not self.cpp:
                return True
            if k == "IntTrueDiv" and ivs[1][0] <= 0 <= ivs[1][1]:  # type: ignore[index]
                return False
            return all(_within(iv, -FLOAT_EXACT, FLOAT_EXACT) for iv in ivs)  # type: ignore[arg-type]
        if k in ("Max", "Min", "Abs", "Identity"):
            return all(self._float_value(a) for a in e.args)
        if k in ("Add", "Mul", "FloatTrueDiv") and _floaty(e):
            if self.cpp:  # C++ may contract or reorder rounded steps: only where none rounds
                return FloatWalk(self.term).value(e) is not None
            return self._chain(e)
        if _floaty(e):
            return False  # float arithmetic, FloatTrueDiv, a float function: more than one rounding
        iv = self.term(e)  # an integer among floats
        return iv is not None and (not self.cpp or _within(iv, -FLOAT_EXACT, FLOAT_EXACT))


    def _chain(self, e: Any) -> bool:
        """Python's double arithmetic of one float with literals (``-0.5 + float(n)``), which symguard
        reads step by step as Python rounds it (``float_compare.Chain``): exact at any size when the
        one non-literal operand is (``printed_as_read`` checks the steps are the ones read)."""
        k = _kind(e)
        lits = [a for a in e.args if getattr(a, "is_Float", False) or getattr(a, "is_Integer", False)]
        rest = [a for a in e.args if a not in lits]
        if len(rest) != 1 or len(e.args) != 2 or (k == "FloatTrueDiv" and rest[0] is not e.args[0]):
            return False
        if not all(math.isfinite(float(c)) and float(c) != 0 for c in lits):
            return False
        x = rest[0]
        if _kind(x) in ("Add", "Mul", "FloatTrueDiv") and _floaty(x):
            return self._chain(x)
        return self._float_value(x)


_ROUNDING_NAMES = {"FloorToInt", "CeilToInt", "TruncToInt", "RoundToInt"}


def inexact_literals(e: Any) -> bool:
    """Whether float arithmetic ``e`` has a literal whose decimal is not its double (``0.4``)."""
    stack = [e]
    while stack:
        x = stack.pop()
        if getattr(x, "is_Float", False):
            v = float(x)
            if math.isfinite(v) and not decimal_exact(v):
                return True
        stack.extend(getattr(x, "args", ()))
    return False


def _sqrt_operand(e: Any) -> tuple[Any, str] | None:
    """``n`` of ``OpaqueUnaryFn_sqrt(ToFloat(n))`` or ``FloatPow(ToFloat(n), 0.5)`` for an integer
    ``n``, with the root's form (``float_sqrt.SQRT`` or ``POW``), else None."""
    if _kind(e) == "OpaqueUnaryFn_sqrt" and len(e.args) == 1:
        form = float_sqrt.SQRT
    elif _kind(e) == "FloatPow" and len(e.args) == 2 and getattr(e.args[1], "is_number", False) \
            and e.args[1] == 0.5:
        form = float_sqrt.POW
    else:
        return None
    if _kind(e.args[0]) != "ToFloat":
        return None
    x = e.args[0].args[0]
    return (x, form) if getattr(x, "is_integer", False) and not _floaty(x) else None


def _log2_power(e: Any) -> tuple[str, Any, int] | None:
    """``(R, a, c)`` of ``2 ** R(OpaqueUnaryFn_log2(IntTrueDiv(a, c)))`` (``ToFloat(a)``: ``c`` 1)
    for an integer ``a`` and an integer literal ``c``, else None."""
    if len(e.args) != 2 or not (getattr(e.args[0], "is_Integer", False) and int(e.args[0]) == 2):
        return None
    r = e.args[1]
    if _kind(r) not in _ROUNDING_NAMES or len(r.args) != 1 or _kind(r.args[0]) != "OpaqueUnaryFn_log2":
        return None
    got = _log2_operand(r.args[0].args[0])
    return None if got is None else (_kind(r), *got)


def _log2_operand(x: Any) -> tuple[Any, int] | None:
    """``(a, c)`` of ``IntTrueDiv(a, c)`` (``ToFloat(a)``: ``c`` 1) for an integer ``a`` and an
    integer literal ``c``, the argument of a logarithm; else None."""
    if _kind(x) == "ToFloat":
        a, c = x.args[0], 1
    elif _kind(x) == "IntTrueDiv" and getattr(x.args[1], "is_Integer", False):
        a, c = x.args[0], int(x.args[1])
    else:
        return None
    return (a, c) if getattr(a, "is_integer", False) and not _floaty(a) else None


def _py_eval_rounded(name: str, arg: Any, x: Any, n: int) -> int | None:
    """``R`` of the one-step chain ``arg`` (its operand ``x`` at ``float(n)``) in doubles, or None
    where it is not finite."""
    (lit,) = [a for a in arg.args if a is not x]
    c, v = float(lit), float(n)
    k = _kind(arg)
    r = v * c if k == "Mul" else v + c if k == "Add" else v / c
    return None if not math.isfinite(r) else float_literal.rounded(name, r)


_FLOAT_KINDS = {"IntTrueDiv", "FloatTrueDiv", "ToFloat", "FloatPow", "TruncToFloat", "RoundDecimal"}


def _floaty(e: Any) -> bool:
    """Whether ``e``'s value is a float: a float literal or function in it, not under a rounding
    function that makes it an integer again."""
    stack = [e]
    while stack:
        x = stack.pop()
        k = _kind(x)
        if getattr(x, "is_Float", False) or k in _FLOAT_KINDS or k.startswith("OpaqueUnaryFn_"):
            return True
        if k not in _ROUNDING and k not in ("RoundToInt",):
            stack.extend(getattr(x, "args", ()))
    return False


def _floordiv_iv(a: Interval, d: Interval) -> Interval:
    """Bounds of ``a // d`` over the non-zero divisors of ``d``'s interval (unbounded sides allowed).

    Floor division is monotone in the dividend and, on each sign of the divisor, in the divisor,
    so the extremes are at the dividend's ends and the divisor's ends or its values next to 0."""
    ds = {x for x in (d[0], d[1]) if x != 0}
    ds |= {x for x in (-1, 1) if d[0] <= x <= d[1]}
    qs: list[float] = []
    for x in (a[0], a[1], *((0,) if a[0] <= 0 <= a[1] else ())):
        for y in ds:
            if math.isinf(x) and math.isinf(y):
                return _ANY
            if math.isinf(x):
                qs.append(x if y > 0 else -x)
            elif math.isinf(y):
                qs += [0, -1]  # x // y tends to 0 or -1
            else:
                qs.append(int(x) // int(y))
    return (min(qs), max(qs))


def divisor_terms(e: Any) -> list[Any]:
    """The divisor subterms of ``e`` (its floor divisions, moduli and their kin): where one is 0,
    Python's code raises ``ZeroDivisionError``."""
    out: list[Any] = []
    stack = [e]
    while stack:
        x = stack.pop()
        k = _kind(x)
        if k in ("FloorDiv", "CleanDiv", "Mod", "PythonMod"):
            out.append(x.args[1])
        elif k == "ModularIndexing":
            out.extend(x.args[1:])
        elif k == "IntTrueDiv":
            out.append(x.args[1])
        stack.extend(getattr(x, "args", ()))
    return out


def _reordered(e: Any) -> bool:
    """Whether sympy's ``str`` (what symguard reads) may print ``e``'s operands in another order
    than PyTorch's printers: ``StrPrinter`` moves a relation with ``-oo`` on the right first."""
    return _kind(e) == "And" and any(getattr(a, "is_Relational", False) and _kind(a.rhs) == "NegativeInfinity"
                                     for a in e.args)


def compares_floats(expr: Any) -> bool:
    """Whether some relation in ``expr`` compares a float (``IntTrueDiv(a, b) >= 1.0``). Such a
    guard also fails where Python's ``a / b`` overflows (docs/problem-format.md §1.2), which a
    form checked only for its divisors would not: the bridge keeps these guards as they are."""
    stack = [expr]
    while stack:
        x = stack.pop()
        if getattr(x, "is_Relational", False) and any(_floaty(a) for a in x.args):
            return True
        stack.extend(getattr(x, "args", ()))
    return False


def may_divide_by_zero(expr: Any, ranges: Mapping[Any, Interval]) -> bool:
    """Whether some divisor of ``expr`` may be 0 on ``ranges`` (exact intervals; a divisor whose
    interval is not known counts as possibly 0)."""
    walk = _Walk(ranges, "python")
    for d in divisor_terms(expr):
        iv = walk.term(d)
        if iv is None or iv[0] <= 0 <= iv[1]:
            return True
    return False


FLOAT_FINITE = 2.0**1000  # a bound on a float's magnitude below which no step overflows to inf


def may_raise(expr: Any, ranges: Mapping[Any, Interval], *, divisors: bool = True) -> bool:
    """Whether Python's evaluation of ``expr``'s printed code may raise somewhere on ``ranges``:
    a divisor (of ``//``, ``%``, ``/``) that may be 0, a C ``%`` of ``INT64_MIN`` by ``-1`` (a trap
    in C++, not in Python), a power with a base that may be 0 and an
    exponent that may be negative, ``math.sqrt`` of a value that may be negative, ``math.log2`` of
    one that may be 0 or less, any other float function, or a rounding (``math.floor``, ``round``
    ...) of a float that may overflow to ``inf``. Conservative: anything not followed may raise.

    Dynamo's C++ guard traps on ``%`` by zero (``c10::div_mod``, C's ``%``: SIGFPE; its ``//`` of 0
    is 0), and when it rejects, Dynamo finds the recompile's reason by evaluating the *Python*
    code of the guards in order, where an exception reaches the user (``ZeroDivisionError``
    instead of a recompile): the pruner keeps every guard up to the last emitted one that may
    raise, in place (``docs/torch_guards.md``).
    An integer converted to a float is at most ``2**63`` in magnitude (the C++ guard's int64).
    ``divisors=False`` leaves out the zero divisors of ``divisor_terms`` (a caller proves them
    non-zero itself); every other way to raise still counts."""
    if divisors and may_divide_by_zero(expr, ranges):
        return True
    walk = _Walk(ranges, "python")
    stack = [expr]
    while stack:
        x = stack.pop()
        k = _kind(x)
        if k in ("Mod", "PythonMod", "ModularIndexing") and _may_trap_modulus(x, walk):
            return True
        if k == "FloatTrueDiv":
            d = x.args[1]
            if not (getattr(d, "is_number", False) and _nonzero_literal(d)):
                return True
        elif k in ("Pow", "PowByNatural", "FloatPow"):
            if not _power_defined(x, walk):
                return True
        elif k.startswith("OpaqueUnaryFn_") and not _function_defined(x, walk):
            return True
        elif (k in _ROUNDING or k == "RoundToInt") and len(x.args) == 1 and _floaty(x.args[0]):
            b = _float_bound(x.args[0], walk)
            if b is None or b >= FLOAT_FINITE:
                return True
        stack.extend(getattr(x, "args", ()))
    return False


POW_EXPONENT_LIMIT = 1 << 12  # Python's ``b ** e`` with e at most this: a few thousand bits per bit of b


def may_not_finish(expr: Any, ranges: Mapping[Any, Interval]) -> bool:
    """Whether Python's evaluation of ``expr``'s printed code may take unbounded time and memory
    somewhere on ``ranges``: an integer power whose exponent may exceed ``POW_EXPONENT_LIMIT``.
    ``2 ** k`` at ``k = 2**62`` does not finish in Python (it builds the exact integer; C++'s
    int64 loop is fast), so a guard before it that rejects such a ``k`` is what keeps a stock
    check from running it: Python's guard evaluates part 2 in order (``and``), and with C++ guards
    a rejection's reason is found by the Python code in order too. The pruner keeps every guard up
    to the last emitted one that may not finish, in place (``docs/torch_guards.md``)."""
    walk = _Walk(ranges, "python")
    stack = [expr]
    while stack:
        x = stack.pop()
        if _kind(x) in ("Pow", "PowByNatural") and len(x.args) == 2:
            iv = walk.term(x.args[1])
            if (iv is None or iv[1] > POW_EXPONENT_LIMIT) and not _rounded_log2(x.args[1]):
                return True
        stack.extend(getattr(x, "args", ()))
    return False


def _rounded_log2(e: Any) -> bool:
    """A rounding of ``math.log2`` of anything (``2 ** math.trunc(math.log2(n / 8))``): the log of
    a finite double is at most 1024 in magnitude, so the power it is the exponent of finishes
    (a log2 that raises is ``may_raise``'s concern)."""
    return (_kind(e) in _ROUNDING_NAMES and len(e.args) == 1 and _kind(e.args[0]) == "OpaqueUnaryFn_log2")


def _may_trap_modulus(e: Any, walk: _Walk) -> bool:
    """C's ``%`` (``c10::div_mod``; ``ModularIndexing``'s cast) of ``INT64_MIN`` by ``-1`` overflows
    and traps (SIGFPE) where Python's is 0: a modulus whose divisor may be -1 and whose dividend,
    as int64 code computes it, may be ``INT64_MIN`` (or wrap there)."""
    c = _Walk(walk.ranges, "cpp")  # the dividend as int64 code computes it: None where it may wrap
    if _kind(e) == "ModularIndexing":
        d = e.args[2]
        q, div = c.term(e.args[0]), c.term(e.args[1])
        q = None if q is None or div is None or div[0] <= 0 <= div[1] else _floordiv_iv(q, div)
    else:
        d = e.args[1]
        q = c.term(e.args[0])
    dv = walk.term(d)
    if dv is None or not dv[0] <= -1 <= dv[1]:
        return False  # a divisor not followed was already counted as possibly 0
    return q is None or q[0] <= INT64_MIN


def _power_defined(e: Any, walk: _Walk) -> bool:
    """A power Python evaluates without raising: an exponent literal >= 0, or a base that is a
    non-zero literal (``2 ** e`` of a negative ``e`` is a float); ``float ** 0.5`` of a value >= 0."""
    base, exp = e.args
    if _kind(e) == "FloatPow":
        root = _sqrt_operand(e)
        if root is None:
            return False
        iv = walk.term(root[0])
        return iv is not None and iv[0] >= 0
    if getattr(exp, "is_number", False) and exp >= 0:
        return True
    return bool(getattr(base, "is_number", False) and _nonzero_literal(base))


def _nonzero_literal(c: Any) -> bool:
    """A finite non-zero number literal (``Float(0.0) != 0`` in sympy: compared as a double)."""
    try:
        v = float(c)
    except (TypeError, ValueError):
        return False
    return v != 0 and math.isfinite(v)


def _function_defined(e: Any, walk: _Walk) -> bool:
    """``math.sqrt`` of an integer >= 0, ``math.log2`` of ``a / c`` (or ``float(a)``) with ``a >= 1``
    and a literal ``c >= 1``; every other float function may raise (``inf``, a domain error)."""
    k = _kind(e)
    if k == "OpaqueUnaryFn_sqrt":
        root = _sqrt_operand(e)
        iv = walk.term(root[0]) if root is not None else None
        return iv is not None and iv[0] >= 0
    if k == "OpaqueUnaryFn_log2":
        got = _log2_operand(e.args[0])
        if got is None or got[1] < 1:
            return False
        iv = walk.term(got[0])
        return iv is not None and iv[0] >= 1
    return False


def _float_bound(e: Any, walk: _Walk) -> float | None:
    """A bound on ``|e|`` for float arithmetic ``e`` (None where not followed)."""
    k = _kind(e)
    if getattr(e, "is_Float", False) or getattr(e, "is_Integer", False):
        v = abs(float(e))
        return v if math.isfinite(v) else None
    if k == "ToFloat":
        return _float_bound(e.args[0], walk)
    if k == "IntTrueDiv":  # a non-zero integer divisor (checked apart) has |b| >= 1
        return _float_bound(e.args[0], walk)
    if k == "FloatTrueDiv":
        d = e.args[1]
        x = _float_bound(e.args[0], walk)
        if x is None or not getattr(d, "is_number", False) or not _nonzero_literal(d):
            return None
        return x / abs(float(d))
    if k in ("Add", "Mul", "Max", "Min", "Abs"):
        parts = [_float_bound(a, walk) for a in e.args]
        if any(p is None for p in parts):
            return None
        bs = [p for p in parts if p is not None]
        if k == "Add":
            return sum(bs)
        if k == "Mul":
            return math.prod(bs) if all(b < FLOAT_FINITE for b in bs) else None
        return max(bs)
    if k in _ROUNDING or k == "RoundToInt":
        b = _float_bound(e.args[0], walk)
        return None if b is None else b + 1
    if k == "OpaqueUnaryFn_sqrt":
        b = _float_bound(e.args[0], walk)
        return None if b is None else math.sqrt(b)
    if k == "OpaqueUnaryFn_log2":
        return 1100.0  # log2 of any finite double
    if getattr(e, "is_integer", False) and not _floaty(e):
        iv = walk.term(e)  # the C++ guard's values are int64: no larger magnitude reaches a float
        return None if iv is None else float(min(max(abs(iv[0]), abs(iv[1])), -INT64_MIN))
    return None


_PY_NAMES = {"max": "Max", "min": "Min", "abs": "Abs", "round": "RoundToInt"}
_PY_ATTRS = {("math", "floor"): "FloorToInt", ("math", "ceil"): "CeilToInt", ("math", "trunc"): "TruncToInt",
             ("torch", "sym_float"): "ToFloat", ("torch", "_sym_sqrt"): "OpaqueUnaryFn_sqrt",
             ("math", "log2"): "OpaqueUnaryFn_log2"}
_INT_CALLS = {"Max", "Min", "Abs", "FloorToInt", "CeilToInt", "TruncToInt", "RoundToInt"}
_INT_OPS = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.Pow)


def _int_code(n: ast.AST) -> bool:
    """Whether Python code ``n`` of a guard is an int (sizes are ints): names, int literals, and
    ``+ - * // % **``, ``max``/``min``/``abs`` of ints, ``math.floor``/``ceil``/``trunc``."""
    if isinstance(n, ast.Name):
        return True
    if isinstance(n, ast.Constant):
        return isinstance(n.value, int) and not isinstance(n.value, bool)
    if isinstance(n, ast.BinOp):
        return isinstance(n.op, _INT_OPS) and _int_code(n.left) and _int_code(n.right)
    if isinstance(n, ast.UnaryOp):
        return isinstance(n.op, (ast.USub, ast.UAdd)) and _int_code(n.operand)
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _INT_CALLS:
        return n.func.id not in ("Max", "Min", "Abs") or all(_int_code(a) for a in n.args)
    return False


class _AsRead(ast.NodeTransformer):
    """PythonPrinter's code spelled in symguard's syntax, as Python runs it: ``/`` on two ints is
    ``IntTrueDiv`` (Python's correctly rounded float division), on a float ``FloatTrueDiv``;
    ``torch.sym_float`` is ``ToFloat``, ``math.floor`` is ``FloorToInt``, ``max`` is ``Max``; ``**``
    with a float literal exponent is ``FloatPow``."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        f = node.func
        name = None
        if isinstance(f, ast.Name):
            name = _PY_NAMES.get(f.id)
        elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
            name = _PY_ATTRS.get((f.value.id, f.attr))
        if name is not None:
            node.func = ast.Name(name, ast.Load())
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Pow) and isinstance(node.right, ast.Constant) \
                and isinstance(node.right.value, float):  # float ** float: the C library's pow
            return ast.Call(ast.Name("FloatPow", ast.Load()), [node.left, node.right], [])
        if not isinstance(node.op, ast.Div):
            return node
        name = "IntTrueDiv" if _int_code(node.left) and _int_code(node.right) else "FloatTrueDiv"
        return ast.Call(ast.Name(name, ast.Load()), [node.left, node.right], [])


def printed_as_read(expr: Any) -> bool:
    """Whether PyTorch's printer writes ``expr`` as code that parses back to the term symguard
    reads from ``str(expr)``.

    The printers parenthesize by sympy's precedences, and a sympy ``Mod`` factor of a product
    with a negative coefficient loses its brackets: ``3 - Mod(s0, 4)`` is printed
    ``3 + ((-1)*s0 % 4)``, which Python (and C++: ``*`` and ``%`` bind alike) reads as
    ``((-1)*s0) % 4`` — 4 at s0 = 7, where the guard's value is 0. Reading both texts with
    symguard's reader and comparing the interned terms catches every such misprint, not just
    this one. The code is read as Python parses it (``_AsRead``): a float literal as the double
    it prints (17 digits; ``str`` prints 15, so a literal that does not round-trip there reads
    as another term and the guard is opaque)."""
    from torch.utils._sympy.printers import PythonPrinter

    from symguard.solver.errors import SymguardError
    from symguard.solver.syntax.sympy_reader import parse_sympy

    try:
        code = PythonPrinter().doprint(expr)
        tree = _AsRead().visit(ast.parse(code.strip(), mode="eval"))
        text = ast.unparse(ast.fix_missing_locations(tree))
        return parse_sympy(text).term is parse_sympy(str(expr)).term
    except (SymguardError, SyntaxError, NotImplementedError, TypeError, ValueError, AssertionError,
            RecursionError):
        return False


def executed_exactly(expr: Any, ranges: Mapping[Any, Interval], lang: str = "python") -> bool:
    """Whether the guard ``expr`` (a sympy condition) evaluates, as Dynamo's printed ``lang``
    code (``"python"`` or ``"cpp"``), to its exact truth value at every point of ``ranges``
    (symbol -> (lo, hi), -inf/inf unbounded; a symbol missing is unbounded)."""
    return _Walk(ranges, lang).guard(expr) and printed_as_read(expr)


def opaque_guards(exprs: list[Any], ranges: Mapping[Any, Interval], langs: tuple[str, ...],
                  check: Callable[[Any, Mapping[Any, Interval], str], bool] = executed_exactly) -> list[bool]:
    """Per expression, whether it is opaque under any of the executed languages ``langs``."""
    return [not all(check(e, ranges, lang) for lang in langs) for e in exprs]
