"""IR terms as Python source: a guard set becomes one boolean expression, the way Dynamo checks it.

PyTorch re-checks the shape guards on every call of compiled code, as Python expressions over the
sizes (``L['x'].size()[0] % 8 == 0``). Printing symguard's terms the same way lets a caller — and
``bench/guard_cost.py`` — compile the full and the minimal guard set and measure what pruning saves
per call. The text has Python's integer semantics exactly (``//`` and ``%`` floor, as the IR does),
so ``eval`` of it agrees with ``pyeval.evaluate`` everywhere: it raises ``ZeroDivisionError``
exactly where ``pyeval`` says the value is undefined (a guard that divides by zero where it is
evaluated fails, as ``pyeval.holds`` says). That is Python's own laziness: an ``ITE`` prints as
``(a if c else b)`` and evaluates one branch; ``AND``/``OR`` print as ``and``/``or`` with the
operands that cannot divide first and at most one that can last, and two or more that can go
through ``_and``/``_or``, which evaluate every one of them (the IR's operand order is not the
printed one: any operand that decides the junction decides it, as in ``pyeval``).
"""

from __future__ import annotations

import keyword
from collections.abc import Callable, Sequence

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

# Euclidean division (SMT-LIB ``div``/``mod``: remainder in [0, |b|)), for terms read from .smt2;
# and/or of operands that may each divide by zero (``pyeval.step``: any decisive operand decides)
EUCLID_HELPERS = (
    "import math as _math\n"
    "def _isqrt(n):\n"
    "    if n < 0:\n"
    "        raise ZeroDivisionError('the square root of a negative number')\n"
    "    return _math.isqrt(n)\n"
    "def _bit_floor(n):\n"
    "    if n < 1:\n"
    "        raise ZeroDivisionError('the logarithm of a number below 1')\n"
    "    return 1 << (n.bit_length() - 1)\n"
    "def _ediv(a, b):\n"
    "    q = a // abs(b)\n"
    "    return q if b > 0 else -q\n"
    "def _emod(a, b):\n"
    "    return a % abs(b)\n"
    "def _junction(fs, decisive):\n"
    "    undefined = False\n"
    "    for f in fs:\n"
    "        try:\n"
    "            if bool(f()) is decisive:\n"
    "                return decisive\n"
    "        except ZeroDivisionError:\n"
    "            undefined = True\n"
    "    if undefined:\n"
    "        raise ZeroDivisionError('a divisor is zero where the value is needed')\n"
    "    return not decisive\n"
    "def _and(*fs):\n"
    "    return _junction(fs, False)\n"
    "def _or(*fs):\n"
    "    return _junction(fs, True)\n"
)


def to_python(t: Term) -> str:
    """Python source for ``t``, fully parenthesized (no reliance on operator precedence)."""
    memo: dict[int, str] = {}
    for n in iter_dag(t):
        memo[id(n)] = _one(n, [memo[id(a)] for a in n.args])
    return memo[id(t)]


def _strict_part(t: Term) -> set[int]:
    """The nodes that may divide by zero and are evaluated whenever ``t`` is (through arithmetic,
    comparisons, ``not``, an ITE's condition; not an ITE's branches nor and/or operands)."""
    out: set[int] = set()
    stack = [t]
    while stack:
        n = stack.pop()
        if not n.has_div or id(n) in out:
            continue
        out.add(id(n))
        if n.kind == ITE:
            stack.append(n.args[0])
        elif n.kind not in (AND, OR):
            stack.extend(n.args)
    return out


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

    A term fails exactly when ``pyeval.holds`` says so. A node is computed on its own line (once
    for all terms) when it cannot divide by zero, or when the conjunct being tested evaluates it
    anyway (``_strict_part``): a zero divisor there fails the term. A node that can divide and
    sits in an ITE branch or an and/or operand is printed inside its parent, lazily, as
    ``to_python`` prints it. The conjuncts of a term are tested one by one (a term fails when one
    does); the terms after the first failing one are not evaluated. The count returned includes
    every node printed inline (each time it is)."""
    for name in names:
        _identifier(name)
    var: dict[int, str] = {}
    inline: dict[int, tuple[str, int]] = {}  # a lazily printed node: its text and its node count
    lines: list[str] = []
    keep: list[Term] = []  # the nodes named in ``var`` or ``inline`` stay alive while their ids are keys
    computed = 0

    def ref(n: Term) -> tuple[str, int]:
        got = var.get(id(n))
        if got is not None:
            return got, 0
        hit = inline.get(id(n))
        if hit is None:
            subs = [ref(a) for a in n.args]
            hit = inline[id(n)] = (_one(n, [x for x, _ in subs]), 1 + sum(c for _, c in subs))
            keep.append(n)
        return hit

    for i, t in enumerate(terms):
        lines.append(f"        _t = {i}")
        for c in t.args if t.kind == AND else (t,):
            strict = _strict_part(c)
            for n in iter_dag(c):
                if id(n) in var or (n.has_div and id(n) not in strict):
                    continue
                keep.append(n)
                subs = [ref(a) for a in n.args]
                text = _one(n, [x for x, _ in subs])
                if n.args:
                    computed += 1 + sum(k for _, k in subs)
                    var[id(n)] = f"_{len(lines)}"
                    lines.append(f"        _{len(lines)} = {text}")
                else:
                    var[id(n)] = text
            lines.append(f"        if not {var[id(c)]}:\n            return {i}")
    body = "\n".join(lines) if lines else "        pass"
    src = (EUCLID_HELPERS + f"def check({', '.join(names)}):\n    _t = -1\n    try:\n{body}\n"
           "    except ZeroDivisionError:\n        return _t\n    return -1\n")
    scope: dict[str, object] = {}
    # as in compile_check: names are checked identifiers, literals are integers
    exec(compile(src, "<symguard guards>", "exec"), scope)  # noqa: S102
    return scope["check"], computed  # type: ignore[return-value]


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
    if k == ISQRT:
        return f"_isqrt({a[0]})"
    if k == BITFLOOR:
        return f"_bit_floor({a[0]})"
    if k == MAX:
        return f"max({', '.join(a)})"
    if k == MIN:
        return f"min({', '.join(a)})"
    if k == ITE:  # lazy, like pyeval: only the branch taken is evaluated
        return f"({a[1]} if {a[0]} else {a[2]})"
    if k == LE:
        return f"({a[0]} <= 0)"
    if k == EQ:
        return f"({a[0]} == 0)"
    if k == NOT:
        return f"(not {a[0]})"
    if k in (AND, OR):
        return _junction(n, a)
    if k == IFF:
        return f"(bool({a[0]}) == bool({a[1]}))"
    raise AssertionError(k)


def _junction(n: Term, a: list[str]) -> str:
    """``AND``/``OR`` with ``pyeval``'s rule (any decisive operand decides, even when another
    divides by zero): Python's ``and``/``or`` over the operands that cannot raise, then the one
    that can (its value, or its error, is the junction's when no other decides); two or more
    that can raise go through ``_and``/``_or``, which try each."""
    word = " and " if n.kind == AND else " or "
    safe = [x for x, c in zip(a, n.args) if not c.has_div]
    risky = [x for x, c in zip(a, n.args) if c.has_div]
    if len(risky) > 1:
        fn = "_and" if n.kind == AND else "_or"
        risky = [f"{fn}({', '.join(f'lambda: {x}' for x in risky)})"]
    return "(" + word.join(safe + risky) + ")"
