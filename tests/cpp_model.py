"""What the C++ guard code PyTorch's ``CppPrinter`` prints computes, emulated in Python, for the
tests of ``service.guard_semantics``: int64 arithmetic that raises ``UB`` on overflow, a zero
divisor, the root or logarithm of a negative and a shift out of an ``int``'s range (undefined
behaviour, never claimed exact); C's ``%`` for sympy's ``Mod``, floor semantics
(``c10::div_floor_integer``) for ``FloorDiv``/``PythonMod``; ``static_cast<double>`` of each integer
and the same IEEE operations as Python's floats (``std::sqrt``, C's ``pow`` and ``log2``) where the
printed code rounds a float back to an integer."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

from symguard.service.guard_semantics import INT64_MAX, INT64_MIN

ROUND: dict[str, Callable[[float], int]] = {"TruncToInt": math.trunc, "FloorToInt": math.floor,
                                            "CeilToInt": math.ceil, "RoundToInt": round}
RELATIONS: dict[str, Callable[[Any, Any], bool]] = {
    "Equality": operator.eq, "Unequality": operator.ne, "StrictLessThan": operator.lt, "LessThan": operator.le,
    "StrictGreaterThan": operator.gt, "GreaterThan": operator.ge}


class UB(Exception):
    """C++ undefined behaviour: an int64 overflow, a zero divisor, the square root or logarithm of
    a negative cast to int64, a shift of an ``int`` out of its range."""


def i64(v: int) -> int:
    if not INT64_MIN <= v <= INT64_MAX:
        raise UB(v)
    return v


def _log2_operand(e: Any, env: dict[Any, int]) -> tuple[int, int]:
    """``a`` and ``c`` of ``ToFloat(a)`` or ``IntTrueDiv(a, c)`` under a ``log2``."""
    a, c = (cpp(e.args[0], env), 1) if type(e).__name__ == "ToFloat" else (cpp(e.args[0], env), int(e.args[1]))
    if a <= 0:
        raise UB("log2 of a non-positive number, cast to int64")
    return a, c


def cpp(e: Any, env: dict[Any, int]) -> Any:
    """The value of ``e``'s C++ code at ``env`` (a symbol's value by its sympy symbol)."""
    k = type(e).__name__
    if e.is_Integer:
        return i64(int(e))
    if e.is_Symbol:
        return i64(env[e])
    if e.is_Float:  # a literal compared with a rounded float: C++ compares the int64 with the double
        return float(e)
    if k == "PowByNatural":  # (1 << (exp)), the 1 an int: only 2 ** R(log2(...)) is modelled
        r = e.args[1]
        num, den = _log2_operand(r.args[0].args[0], env)
        ex = ROUND[type(r).__name__](math.log2(float(num) / float(den)))
        if not 0 <= ex <= 30:
            raise UB("shift of an int out of range")
        return 1 << ex
    if k in ROUND:
        inner = type(e.args[0]).__name__
        if inner == "OpaqueUnaryFn_log2":  # static_cast<int64_t>(std::trunc(std::log2(...)))
            num, den = _log2_operand(e.args[0].args[0], env)
            return i64(ROUND[k](math.log2(float(num) / float(den))))
        if inner in ("OpaqueUnaryFn_sqrt", "FloatPow"):
            n = cpp(e.args[0].args[0].args[0], env)
            if n < 0:
                raise UB("sqrt of a negative, cast to int64")
            root = math.sqrt(float(n)) if inner == "OpaqueUnaryFn_sqrt" else float(n) ** 0.5  # std::pow is C's pow
            return i64(ROUND[k](root))
        if inner == "IntTrueDiv":  # std::floor/std::ceil of a double quotient
            n, d = (float(cpp(v, env)) for v in e.args[0].args)
            return i64(ROUND[k](n / d))
        raise AssertionError(e)
    a = [cpp(v, env) for v in e.args]
    if k in ("Add", "Mul"):
        acc = a[0]
        for v in a[1:]:
            acc = i64(acc + v if k == "Add" else acc * v)
        return acc
    if k == "Pow":  # a literal exponent: repeated int64 products
        acc = 1
        for _ in range(a[1]):
            acc = i64(acc * a[0])
        return acc
    if k in ("FloorDiv", "PythonMod", "Mod", "ModularIndexing") and a[1] == 0:
        raise UB("zero divisor")
    if k == "FloorDiv":
        return i64(a[0] // a[1])
    if k == "PythonMod":
        return a[0] % a[1]
    if k == "Mod":  # C's %: the sign of the dividend
        r = abs(a[0]) % abs(a[1])
        return r if a[0] >= 0 else -r
    if k == "ModularIndexing":
        if a[2] == 0:
            raise UB("zero divisor")
        q = i64(a[0] // a[1])
        r = abs(q) % abs(a[2])
        return r if q >= 0 else -r
    if k in ("Max", "Min"):
        return max(a) if k == "Max" else min(a)
    return RELATIONS[k](a[0], a[1])
