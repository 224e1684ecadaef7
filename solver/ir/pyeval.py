"""Evaluate IR terms with Python's own integers: the reference semantics and the self-check.

A zero divisor (or an ``ISQRT`` of a negative number: ``math.sqrt`` raises; a ``BITFLOOR`` of
a number below 1: ``math.log2`` raises) makes a value undefined, and undefinedness follows Python's evaluation of the text PyTorch runs
(docs/problem-format.md §1.2): arithmetic, comparisons, ``Max``/``Min``, ``not`` and ``==``
between conditions are strict (undefined when an argument is); an ``ITE`` (``a if c else b``:
Piecewise, Where) is the branch its condition picks, whatever the other one is; ``AND``/``OR``
are decided by any operand that decides them (a false one, a true one), even when another is
undefined. The IR keeps ``AND``/``OR`` operands in a canonical order, not the
printed one, so this order-free rule is the one that agrees with Python's ``x and y`` wherever
Python's own evaluation is defined (it may be defined in more places); the readers' lazy
domains say exactly where Python's is. ``evaluate`` raises ``ZeroDivisionError`` where the
value is undefined; ``step`` is one node of it, with None for undefined.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from symguard.solver.ir.terms import (
    ADD,
    AND,
    BCONST,
    BITFLOOR,
    BSYM,
    CONST,
    DIV_KINDS,
    EDIV,
    EMOD,
    EQ,
    FLOORDIV,
    IFF,
    ISQRT,
    ITE,
    LE,
    LEAST_DEFINED,
    MAX,
    MIN,
    MOD,
    MUL,
    NOT,
    OR,
    SYM,
    TRUE,
    UNARY_PARTIAL,
    ZERO,
    Term,
    bit_floor,
    iter_dag,
    mk_and,
    mk_ge,
    mk_implies,
    mk_int,
    mk_ne,
    mk_not,
    mk_or,
    print_order,
)

Value = int | bool


def evaluate(t: Term, env: Mapping[str, Value]) -> Value:
    """Value of ``t`` under ``env``; raises ZeroDivisionError where it is undefined, KeyError for
    an unbound symbol."""
    if not t.has_div:  # nothing can be undefined: the strict walk
        memo: dict[int, Value] = {}
        for n in iter_dag(t):
            memo[id(n)] = _one(n, [memo[id(a)] for a in n.args], env)
        return memo[id(t)]
    got = value(t, env)
    if got is None:
        raise ZeroDivisionError("a divisor is zero where the value is needed")
    return got


def value(t: Term, env: Mapping[str, Value]) -> Value | None:
    """Value of ``t`` under ``env``, None where it is undefined (a zero divisor it needs)."""
    memo: dict[int, Value | None] = {}
    for n in iter_dag(t):
        memo[id(n)] = step(n, [memo[id(a)] for a in n.args], env)
    return memo[id(t)]


def holds(t: Term, env: Mapping[str, Value]) -> bool:
    """A condition's truth; undefined (a zero divisor it needs) is false: it cannot pass."""
    return bool(value(t, env)) if t.has_div else bool(evaluate(t, env))


def defined(t: Term) -> Term:
    """Where ``t`` as printed (``sympy_writer``; docs/problem-format.md §1.2) divides by no zero,
    as a term: an ITE (``Piecewise``) needs its condition and the branch it takes; an AND/OR is
    evaluated left to right in ``print_order`` (the operands that cannot divide first), each
    operand only where the ones before it do not decide. Stricter than where ``value`` is defined
    (its and/or are decided by any decisive operand): what a printed form must satisfy wherever
    the expression it replaces is defined."""
    memo: dict[int, Term] = {}
    for n in iter_dag(t):
        if not n.has_div:
            memo[id(n)] = TRUE
            continue
        k = n.kind
        if k in DIV_KINDS:
            memo[id(n)] = mk_and(*(memo[id(a)] for a in n.args), mk_ne(n.args[1], ZERO))
        elif k in UNARY_PARTIAL:
            memo[id(n)] = mk_and(memo[id(n.args[0])], mk_ge(n.args[0], mk_int(LEAST_DEFINED[k])))
        elif k == ITE:
            c = n.args[0]
            ds = [memo[id(a)] for a in n.args]
            memo[id(n)] = mk_and(ds[0], mk_implies(c, ds[1]), mk_implies(mk_not(c), ds[2]))
        elif k in (AND, OR):
            parts: list[Term] = []
            before: list[Term] = []
            for x in print_order(n.args):
                d = memo[id(x)]
                if d is not TRUE:  # evaluated only where the operands before do not decide
                    parts.append(mk_or(*(mk_not(b) for b in before), d) if k == AND else mk_or(*before, d))
                before.append(x)
            memo[id(n)] = mk_and(*parts)
        else:
            memo[id(n)] = mk_and(*(memo[id(a)] for a in n.args))
    return memo[id(t)]


def step(n: Term, a: list[Value | None], env: Mapping[str, Value]) -> Value | None:
    """One node from its arguments' values, None standing for undefined (see the module doc)."""
    k = n.kind
    if k == ITE:
        c = a[0]
        return None if c is None else a[1] if c else a[2]
    if k == AND:
        if any(x is not None and not x for x in a):
            return False
        return None if None in a else True
    if k == OR:
        if any(x is not None and x for x in a):
            return True
        return None if None in a else False
    if None in a:
        return None
    try:
        return _one(n, a, env)  # type: ignore[arg-type]
    except ZeroDivisionError:
        return None


def _one(n: Term, a: list[Value], env: Mapping[str, Value]) -> Value:
    k = n.kind
    if k in (CONST, BCONST):
        return n.value  # type: ignore[no-any-return]
    if k in (SYM, BSYM):
        return env[n.value]
    if k == ADD:
        return sum(a)  # type: ignore[arg-type]
    if k == MUL:
        r = 1
        for x in a:
            r *= x
        return r
    if k == FLOORDIV:
        return a[0] // a[1]
    if k == MOD:
        return a[0] % a[1]
    if k in (EDIV, EMOD):
        x, y = a
        if y == 0:
            raise ZeroDivisionError
        q = x // abs(y) * (1 if y > 0 else -1)
        return q if k == EDIV else x - y * q
    if k == ISQRT:
        if a[0] < 0:  # type: ignore[operator]
            raise ZeroDivisionError  # Python's math.sqrt raises: undefined, as a zero divisor
        return math.isqrt(a[0])  # type: ignore[arg-type]
    if k == BITFLOOR:
        if a[0] < 1:  # type: ignore[operator]
            raise ZeroDivisionError  # Python's math.log2 raises: undefined, as a zero divisor
        return bit_floor(a[0])  # type: ignore[arg-type]
    if k == MAX:
        return max(a)
    if k == MIN:
        return min(a)
    if k == ITE:
        return a[1] if a[0] else a[2]
    if k == LE:
        return a[0] <= 0
    if k == EQ:
        return a[0] == 0
    if k == NOT:
        return not a[0]
    if k == AND:
        return all(a)
    if k == OR:
        return any(a)
    if k == IFF:
        return bool(a[0]) == bool(a[1])
    raise AssertionError(k)
