"""IR terms as Python source: a guard set becomes one boolean expression, the way Dynamo checks it.

PyTorch re-checks the shape guards on every call of compiled code, as Python expressions over the
sizes (``L['x'].size()[0] % 8 == 0``). Printing symguard's terms the same way lets a caller — and
``bench/guard_cost.py`` — compile the full and the minimal guard set and measure what pruning saves
per call. The text has Python's integer semantics exactly (``//`` and ``%`` floor, as the IR does),
so ``eval`` of it agrees with ``pyeval.evaluate`` everywhere: a zero divisor anywhere in a guard
raises ``ZeroDivisionError`` in both (a guard that divides by zero fails, as ``pyeval.holds`` says),
which is why ``and``/``or``/``if`` short-circuit only over operands that cannot divide.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable, Sequence

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

# Euclidean division (SMT-LIB ``div``/``mod``: remainder in [0, |b|)), for terms read from .smt2
EUCLID_HELPERS = (
    "def _ediv(a, b):\n"
    "    q = a // abs(b)\n"
    "    return q if b > 0 else -q\n"
    "def _emod(a, b):\n"
    "    return a % abs(b)\n"
)


def to_python(t: Term) -> str:
    """Python source for ``t``, fully parenthesized (no reliance on operator precedence)."""
    memo: dict[int, str] = {}
    for n in iter_dag(t):
        memo[id(n)] = _one(n, [memo[id(a)] for a in n.args])
    return memo[id(t)]


def conjunction(terms: Sequence[Term]) -> str:
    """One boolean expression that holds when every term does (``True`` for none)."""
    return " and ".join(to_python(t) for t in terms) if terms else "True"


def compile_check(terms: Sequence[Term], names: Sequence[str]) -> Callable[..., bool]:
    """A Python function of the sizes ``names`` (positional, in order): True when every term holds,
    False when one fails or divides by zero — the guard check Dynamo runs before reusing code."""
    for n in names:
        _identifier(n)
    src = (EUCLID_HELPERS + f"def check({', '.join(names)}):\n    try:\n"
           f"        return bool({conjunction(terms)})\n    except ZeroDivisionError:\n        return False\n")
    scope: dict[str, object] = {}
    # the source is printed from the IR: names are checked identifiers, literals are integers
    exec(compile(src, "<symguard guards>", "exec"), scope)  # noqa: S102
    return scope["check"]  # type: ignore[return-value]


def compile_shared(terms: Sequence[Term], names: Sequence[str]) -> tuple[Callable[..., int], int]:
    """For repeated calls on many terms that share subterms (an exhaustive search evaluates a
    guard set at thousands of points): straight-line code that computes each distinct node once
    and returns the index of the first term that fails, -1 when every term holds (which term
    failed tells a search which symbols are to blame). Also returns the number of nodes computed
    per call at most (the cost of one call, for a caller that budgets its work).

    A term fails exactly when ``pyeval.holds`` says so: every node a term needs is computed
    before the term is tested, so a zero divisor anywhere in it fails that term; the terms after
    the first failing one are not evaluated."""
    for name in names:
        _identifier(name)
    var: dict[int, str] = {}
    lines: list[str] = []
    keep: list[Term] = []  # the nodes named in ``var`` stay alive while their ids are keys
    for i, t in enumerate(terms):
        lines.append(f"        _t = {i}")
        for n in iter_dag(t):
            if id(n) in var:
                continue
            keep.append(n)
            text = _one(n, [var[id(a)] for a in n.args])
            if n.args:
                var[id(n)] = f"_{len(lines)}"
                lines.append(f"        _{len(lines)} = {text}")
            else:
                var[id(n)] = text
        lines.append(f"        if not {var[id(t)]}:\n            return {i}")
    body = "\n".join(lines) if lines else "        pass"
    src = (EUCLID_HELPERS + f"def check({', '.join(names)}):\n    _t = -1\n    try:\n{body}\n"
           "    except ZeroDivisionError:\n        return _t\n    return -1\n")
    scope: dict[str, object] = {}
    # as in compile_check: names are checked identifiers, literals are integers
    exec(compile(src, "<symguard guards>", "exec"), scope)  # noqa: S102
    return scope["check"], sum(1 for n in keep if n.args)  # type: ignore[return-value]


def _identifier(name: str) -> str:
    # SMT-LIB allows quoted symbols (|a b|); only plain identifiers may become Python names
    if not name.isidentifier() or keyword.iskeyword(name) or not name.isascii() or name.startswith("_"):
        raise ValueError(f"{name!r} cannot be a Python name")
    return name


def _one(n: Term, a: list[str]) -> str:
    k = n.kind
    if k == CONST:
        return str(n.value) if n.value >= 0 else f"({n.value})"
    if k in (SYM, BSYM):
        return _identifier(str(n.value))
    if k == BCONST:
        return "True" if n.value else "False"
    if k == ADD:
        return "(" + " + ".join(a) + ")"
    if k == MUL:
        return "(" + "*".join(a) + ")"
    if k == FLOORDIV:
        return f"({a[0]} // {a[1]})"
    if k == MOD:
        return f"({a[0]} % {a[1]})"
    if k == EDIV:
        return f"_ediv({a[0]}, {a[1]})"
    if k == EMOD:
        return f"_emod({a[0]}, {a[1]})"
    if k == MAX:
        return f"max({', '.join(a)})"
    if k == MIN:
        return f"min({', '.join(a)})"
    if k == ITE:  # strict, like pyeval: a zero divisor in either branch fails the guard
        return f"({a[1]} if {a[0]} else {a[2]})" if not n.has_div else f"({a[1]}, {a[2]})[not {a[0]}]"
    if k == LE:
        return f"({a[0]} <= 0)"
    if k == EQ:
        return f"({a[0]} == 0)"
    if k == NOT:
        return f"(not {a[0]})"
    if k == AND:  # short-circuit only where no operand can divide by zero (pyeval is strict)
        return "(" + " and ".join(a) + ")" if not n.has_div else f"all(({', '.join(a)},))"
    if k == OR:
        return "(" + " or ".join(a) + ")" if not n.has_div else f"any(({', '.join(a)},))"
    if k == IFF:
        return f"(bool({a[0]}) == bool({a[1]}))"
    raise AssertionError(k)
