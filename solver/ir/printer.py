"""Print IR terms back as sympy-syntax text (debugging, exports, canonical keys).

The text re-parses to the same term: ``parse(to_text(t)) is t`` (a property test pins it).
"""

from __future__ import annotations

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


def to_text(t: Term) -> str:
    """sympy-syntax text for ``t`` (Euclidean division prints as ``EDiv``/``EMod``)."""
    memo: dict[int, str] = {}
    for n in iter_dag(t):
        memo[id(n)] = _one(n, [memo[id(a)] for a in n.args])
    return memo[id(t)]


def _one(n: Term, a: list[str]) -> str:
    k = n.kind
    if k == CONST:
        return str(n.value) if n.value >= 0 else f"({n.value})"
    if k in (SYM, BSYM):
        return str(n.value)
    if k == BCONST:
        return "True" if n.value else "False"
    if k == ADD:
        return "(" + " + ".join(a) + ")"
    if k == MUL:
        return "(" + "*".join(a) + ")"
    if k == FLOORDIV:
        return f"FloorDiv({a[0]}, {a[1]})"
    if k == MOD:
        return f"Mod({a[0]}, {a[1]})"
    if k == EDIV:
        return f"EDiv({a[0]}, {a[1]})"
    if k == EMOD:
        return f"EMod({a[0]}, {a[1]})"
    if k in (MAX, MIN):
        return f"{k.capitalize()}({', '.join(a)})"
    if k == ITE:
        return f"Piecewise(({a[1]}, {a[0]}), ({a[2]}, True))"
    if k == LE:
        return f"{a[0]} <= 0"
    if k == EQ:
        return f"Eq({a[0]}, 0)"
    if k == NOT:
        return f"Not({a[0]})"
    if k == AND:
        return f"And({', '.join(a)})"
    if k == OR:
        return f"Or({', '.join(a)})"
    if k == IFF:
        return f"Eq({a[0]}, {a[1]})"
    raise AssertionError(k)
