"""The checks every partial IR kind of one integer argument must pass (``ISQRT``, defined from 0;
``BITFLOOR``, from 1), shared by tests/test_float_sqrt.py and tests/test_float_log2.py: every home
of the kind computes it (evaluation, the printed Python code, both printers read back, folding,
the points lever's evaluator), the SMT encoding admits only its value, and its interval holds it."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import z3
from pysmt.solvers.z3 import Z3Converter

from symguard.solver.ir import terms as ir
from symguard.solver.ir.printer import to_text
from symguard.solver.ir.pycode import EUCLID_HELPERS, to_python
from symguard.solver.ir.pyeval import holds, value
from symguard.solver.reason import points
from symguard.solver.smt.encode import Encoding
from symguard.solver.syntax.sympy_reader import parse_sympy
from symguard.solver.syntax.sympy_writer import to_sympy

Interval = tuple[int | None, int | None]


@dataclass(frozen=True)
class Kind:
    mk: Callable[[ir.Term], ir.Term]  # the IR constructor
    ref: Callable[[int], int]  # Python's value where defined
    least: int  # defined from here on (below: the domain fails, as for a zero divisor)
    tag: str  # the key of its definition in the encoding
    interval: Callable[[Interval], Interval]  # reason.intervals' image of an interval


def check_homes(kind: Kind, n: int) -> None:
    """At ``a = n``, ``kind(a - 3)`` is the same value (or the same failing domain) in every home."""
    t = kind.mk(ir.mk_add(ir.mk_sym("a"), ir.mk_int(-3)))
    x = n - 3
    want = kind.ref(x) if x >= kind.least else None
    assert value(t, {"a": n}) == want
    scope: dict[str, object] = {}
    exec(EUCLID_HELPERS, scope)  # noqa: S102 - the helpers printed terms call
    try:
        got = eval(to_python(t), scope, {"a": n})
    except ZeroDivisionError:
        got = None
    assert got == want
    for text in (to_text(t), to_sympy(t)):
        p = parse_sympy(text)
        assert p.term is t
        assert holds(p.domain, {"a": n}) == (x >= kind.least)
    assert kind.mk(ir.mk_int(n)) is (ir.mk_int(kind.ref(n)) if n >= kind.least else kind.mk(ir.mk_int(n)))
    g = ir.mk_le(t, ir.mk_int(5))  # the points lever's compiled evaluator: bit 0 set where g fails
    f = points._compile(list(ir.iter_dag(g)), [g], ["a"])
    try:
        fails: bool | None = bool(f([n]) & 1)
    except ZeroDivisionError:
        fails = None
    assert fails == (None if want is None else want > 5)


def encoded(kind: Kind) -> tuple[z3.Solver, Any, Any]:
    """A z3 solver holding the encoding's definitions of ``kind(a)``, with ``a`` and the term."""
    enc = Encoding()
    t = kind.mk(ir.mk_sym("a"))
    f = enc.formula(t)
    conv = Z3Converter(enc.env, z3.Context())
    s = z3.Solver(ctx=conv.ctx)
    for d in enc.definitions:
        s.add(conv.convert(d))
    assert enc.pairs_of(ir.mk_le(t, ir.ONE)) == [(kind.tag, ir.mk_sym("a"), ir.mk_sym("a"))]
    return s, conv.convert(enc.symbol("a")), conv.convert(f)


def check_encoding_admits_only_its_value(kind: Kind, sizes: Iterable[int]) -> None:
    s, za, zf = encoded(kind)
    for n in sizes:
        assert s.check(za == n, zf == kind.ref(n)) == z3.sat
        assert s.check(za == n, zf != kind.ref(n)) == z3.unsat


def check_interval(kind: Kind, lo: int, width: int) -> None:
    """The image of ``[lo, lo + width]`` holds the value at its defined ends, middle and next
    to its least end; of the whole line, it starts at the kind's least value."""
    hi = lo + width
    got = kind.interval((lo, hi))
    first = max(lo, kind.least)
    for x in {first, hi, (first + hi) // 2, first + 1}:
        if kind.least <= x and lo <= x <= hi:
            assert got[0] is not None and got[1] is not None and got[0] <= kind.ref(x) <= got[1]
    assert kind.interval((None, None))[0] == kind.ref(kind.least)


def check_verdicts(res: dict[str, Any], table: dict[str, list[bool]], texts: list[str]) -> None:
    """Every verdict of the ``redundancy`` answer ``res`` holds on ``table``: each guard's truth at
    every point of a box (Python's own evaluation of its text ``texts[i]``, False where it raises)."""
    n = len(next(iter(table.values()))) if table else 0
    minimal = res["minimal"]

    def where(ids: list[str]) -> list[bool]:
        return [all(table[g][k] for g in ids) for k in range(n)]

    everything = where(list(table))
    assert res["status"] == ("sat" if any(everything) else "unsat")
    for row in res["guards"]:
        g, v = row["id"], row["verdict"]
        assert v != "unsupported", (texts[int(g[1:])], row)
        if v == "always_true":
            assert all(table[g])
        elif v == "always_false":
            assert not any(table[g])
        elif v == "redundant" and res["status"] == "sat":
            assert all(table[g][k] for k, ok in enumerate(where(minimal)) if ok), (g, texts)
        elif v == "required":
            others = where([h for h in minimal if h != g])
            assert any(ok and not table[g][k] for k, ok in enumerate(others)), (g, texts)
    if res["status"] == "sat":
        assert where(minimal) == everything
