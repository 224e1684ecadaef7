"""Print IR terms back as sympy-syntax text (debugging, exports, canonical keys).

The text re-parses to the same term: ``parse(to_text(t)) is t`` (a property test pins it).
"""

from __future__ import annotations

from symguard.solver.ir.terms import (
    ADD,
    AND,
    BCONST,
    BITFLOOR,
    BSYM,
    CONST,
    EDIV,
    EMOD,
    EQ,
    FLOORDIV,
    IFF,
    ISQRT,
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


def to_text(t: Term, memo: dict[Term, str] | None = None) -> str:
    """sympy-syntax text for ``t`` (Euclidean division prints as ``EDiv``/``EMod``). A ``memo``
    shared between calls prints each shared subterm once (``canonicalize`` prints a whole problem)."""
    if memo is None:
        local: dict[int, str] = {}
        for n in iter_dag(t):
            local[id(n)] = _one(n, [local[id(a)] for a in n.args])
        return local[id(t)]
    if t not in memo:
        stack: list[tuple[Term, bool]] = [(t, False)]
        while stack:
            n, ready = stack.pop()
            if n in memo:
                continue
            if ready:
                memo[n] = _one(n, [memo[a] for a in n.args])
                continue
            stack.append((n, True))
            stack.extend((x, False) for x in n.args if x not in memo)
    return memo[t]


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
    if k == ISQRT:  # PyTorch's spelling of int(math.sqrt(n)), which the reader reads as isqrt
        return f"TruncToInt(OpaqueUnaryFn_sqrt(ToFloat({a[0]})))"
    if k == BITFLOOR:  # PyTorch's spelling of 2 ** int(math.log2(n)), which the reader reads as bit_floor
        return f"PowByNatural(2, TruncToInt(OpaqueUnaryFn_log2(ToFloat({a[0]}))))"
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
