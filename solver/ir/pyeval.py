"""Evaluate IR terms with Python's own integers: the reference semantics and the self-check.

Evaluation is strict: every child is evaluated, so a zero divisor anywhere raises
``ZeroDivisionError`` (the parsers also conjoin ``divisor != 0``, see ``ir``).
"""

from __future__ import annotations

from collections.abc import Mapping

from solver.ir.terms import (
    ADD,
    AND,
    BCONST,
    BSYM,
    CONST,
    EDIV,
    EMOD,
    EQ,
    FLOORDIV,
    IFF,
    ITE,
    LE,
    MAX,
    MIN,
    MOD,
    MUL,
    NOT,
    OR,
    SYM,
    Term,
    iter_dag,
)

Value = int | bool


def evaluate(t: Term, env: Mapping[str, Value]) -> Value:
    """Value of ``t`` under ``env``; raises ZeroDivisionError, KeyError for an unbound symbol."""
    memo: dict[int, Value] = {}
    for n in iter_dag(t):
        memo[id(n)] = _one(n, [memo[id(a)] for a in n.args], env)
    return memo[id(t)]


def holds(t: Term, env: Mapping[str, Value]) -> bool:
    """A condition's truth; a zero divisor makes it false (it cannot pass)."""
    try:
        return bool(evaluate(t, env))
    except ZeroDivisionError:
        return False


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
