"""The differential harness of the PyTorch bridge's tests (tests/test_guard_semantics*.py): ranges
of ``x`` and ``y`` drawn from chosen ends, the corners of such a range with chosen sizes, and
symguard's own reading of a guard, to compare with what the printed code computes."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import sympy
from cpp_model import cpp
from hypothesis import strategies as st

from symguard.service.guard_semantics import INT64_MAX, INT64_MIN, executed_exactly
from symguard.solver.ir.pyeval import holds
from symguard.solver.syntax.sympy_reader import parse_sympy

x, y = sympy.symbols("x y", integer=True)
inf = math.inf


def uneval(f: Any, *args: Any) -> Any:
    """``f(*args)`` as written: PyTorch's function unevaluated (sympy would fold it)."""
    return f(*args, evaluate=False)


@st.composite
def ranges(draw: Any, ends: st.SearchStrategy[float]) -> dict[Any, tuple[float, float]]:
    """A range for ``x`` and ``y`` from two drawn ends (an infinite end only on its own side)."""
    out = {}
    for s in (x, y):
        a, b = draw(ends), draw(ends)
        lo, hi = min(a, b), max(a, b)
        out[s] = (-inf if lo == inf else lo, inf if hi == -inf else hi)
    return out


def corners(r: dict[Any, tuple[float, float]], sizes: Iterable[int]) -> list[dict[Any, int]]:
    """Every pair of ``x`` and ``y`` values among each range's two ends, the sizes next to them
    and ``sizes``, as far as they lie in the range (an infinite end is int64's)."""
    sizes = list(sizes)

    def vals(lo: float, hi: float) -> set[int]:
        lo_i = INT64_MIN if lo == -inf else int(lo)
        hi_i = INT64_MAX if hi == inf else int(hi)
        return {v for v in (lo_i, hi_i, lo_i + 1, hi_i - 1, *sizes) if lo_i <= v <= hi_i}
    return [{x: a, y: b} for a in vals(*r[x]) for b in vals(*r[y])]


def read(g: Any, env: dict[Any, int]) -> bool | None:
    """symguard's reading of ``str(g)`` at ``env``: None outside its domain (a zero divisor, an
    overflow, a root or logarithm of a negative: Python raises there), else its truth value."""
    p = parse_sympy(str(g))
    e = {str(k): v for k, v in env.items()}
    return holds(p.term, e) if holds(p.domain, e) else None


def check_claims(g: Any, r: dict[Any, tuple[float, float]], sizes: Iterable[int], torch: object) -> None:
    """Where the bridge calls ``g`` exact on the ranges ``r``, what its printed code computes is
    symguard's reading at every corner: the Python code (``torch`` the namespace its ``torch.*``
    calls resolve in; an exception is the reading's domain failing) and the C++ code
    (``cpp_model``; undefined behaviour is never claimed exact)."""
    from torch.utils._sympy.printers import PythonPrinter

    py_ok, cpp_ok = executed_exactly(g, r, "python"), executed_exactly(g, r, "cpp")
    code = PythonPrinter().doprint(g)
    for env in corners(r, sizes):
        want = read(g, env)
        if py_ok:
            try:
                got: bool | None = bool(eval(code, {"math": math, "torch": torch}, {"x": env[x], "y": env[y]}))
            except (ValueError, OverflowError, ZeroDivisionError, TypeError):  # TypeError: trunc of a complex root
                got = None
            assert got == want, (code, env)
        if cpp_ok:
            assert want is not None, (g, env)
            assert cpp(g, env) == want, (g, env)
