"""IR -> SMT-LIB text, and whole problems -> ``.smt2`` scripts (``symguard export --to smt2``).

Python's floor division and modulus are written with SMT-LIB's Euclidean ``div``/``mod`` on a
positive divisor, which is exact:

* For ``b > 0`` the Euclidean remainder lies in ``[0, b)``, so ``div a b = floor(a/b)`` and
  ``mod a b = a % b`` (Python).
* For ``b < 0``: ``floor(a/b) = floor((-a)/(-b))`` and ``-b > 0``, so ``a // b = div (-a) (-b)``.
  Python's ``a % b = a - b*(a//b)``; with ``a//b = (-a)//(-b)`` this is
  ``-((-a) - (-b)*((-a)//(-b))) = -((-a) % (-b))``, and ``(-a) % (-b)`` is again Euclidean
  because ``-b > 0``. Hence

      a // b  =  (ite (> b 0) (div a b) (div (- a) (- b)))
      a %  b  =  (ite (> b 0) (mod a b) (- (mod (- a) (- b))))

  (the textbook ``a - b*floor(a/b)`` is equivalent but introduces a product ``b*q``, which is
  non-linear for a symbolic ``b``; the form above stays linear). ``b = 0`` is excluded by the
  implicit ``b != 0`` of docs/problem-format.md §1.2, which the reader conjoins again for every ``div``/``mod``.

``Max``/``Min`` become ``ite`` chains. The lowering is done on the IR (hash-consed, so ``a`` and
``b`` stay shared nodes), and the printer binds every non-leaf node used more than once with a
``let`` (one ``let`` per dependency level), so the text is linear in the DAG size. Everything is
iterative and memoized.
"""

from __future__ import annotations

import json
import re

from symguard.solver.errors import UnsupportedError
from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term

_SIMPLE = re.compile(r"[A-Za-z~!@$%^&*_\-+=<>.?/][A-Za-z0-9~!@$%^&*_\-+=<>.?/]*\Z")
_RESERVED = {"let", "!", "as", "_", "forall", "exists", "match", "par", "true", "false", "NUMERAL",
             "DECIMAL", "STRING", "BINARY", "HEXADECIMAL"}


def quote_symbol(name: str, *, constant: bool = False) -> str:
    """``name`` as an SMT-LIB symbol, |quoted| when needed. A ``constant`` cannot be named like a
    predefined function: ``|div|`` and ``div`` are the same SMT-LIB symbol."""
    if constant and name in _predefined():
        raise UnsupportedError(f"symbol {name!r} is a predefined SMT-LIB name; rename it to export")
    if _SIMPLE.match(name) and name not in _RESERVED:
        return name
    if "|" in name or "\\" in name:
        raise UnsupportedError(f"name {name!r} cannot be written in SMT-LIB (contains '|' or '\\')")
    return f"|{name}|"


def _predefined() -> frozenset[str]:
    from symguard.solver.syntax.smtlib_terms import _ARITY

    return frozenset(_ARITY) | _RESERVED


def lower(t: Term) -> Term:
    """``t`` with FLOORDIV/MOD/MAX/MIN rewritten into EDIV/EMOD/ITE (same meaning, see above)."""
    memo: dict[Term, Term] = {}
    for n in ir.iter_dag(t):
        a = [memo[x] for x in n.args]
        if n.kind in _LOWERED or any(x is not y for x, y in zip(a, n.args)):
            memo[n] = _lower_one(n, a)
        else:  # nothing to rewrite below: keep the node (rebuilding would only re-normalize it)
            memo[n] = n
    return memo[t]


_LOWERED = frozenset({ir.FLOORDIV, ir.MOD, ir.MAX, ir.MIN, ir.ISQRT, ir.BITFLOOR})


def _lower_one(n: Term, a: list[Term]) -> Term:
    k = n.kind
    if not a:
        return n
    if k == ir.ISQRT:
        raise UnsupportedError("int(math.sqrt(n)) (isqrt) has no SMT-LIB term: a guard with it cannot be exported "
                               "to .smt2")
    if k == ir.BITFLOOR:
        raise UnsupportedError("2 ** int(math.log2(n)) (bit_floor) has no SMT-LIB term: a guard with it cannot be "
                               "exported to .smt2")
    if k in (ir.FLOORDIV, ir.MOD):
        x, y = a
        pos = ir.mk_gt(y, ir.ZERO)
        if k == ir.FLOORDIV:
            return ir.ite_node(pos, ir.mk_ediv(x, y), ir.mk_ediv(ir.mk_neg(x), ir.mk_neg(y)))
        return ir.ite_node(pos, ir.mk_emod(x, y), ir.mk_neg(ir.mk_emod(ir.mk_neg(x), ir.mk_neg(y))))
    if k in (ir.MAX, ir.MIN):
        acc = a[0]
        for x in a[1:]:
            better = ir.mk_gt(x, acc) if k == ir.MAX else ir.mk_lt(x, acc)
            acc = ir.ite_node(better, x, acc)
        return acc
    return _REBUILD[k](a)


_REBUILD = {
    ir.ADD: lambda a: ir.mk_add(*a), ir.MUL: lambda a: ir.mk_mul(*a),
    ir.EDIV: lambda a: ir.mk_ediv(*a), ir.EMOD: lambda a: ir.mk_emod(*a),
    ir.ITE: lambda a: ir.ite_node(*a), ir.LE: lambda a: ir.mk_le(a[0], ir.ZERO),
    ir.EQ: lambda a: ir.mk_eq(a[0], ir.ZERO), ir.NOT: lambda a: ir.mk_not(a[0]),
    ir.AND: lambda a: ir.mk_and(*a), ir.OR: lambda a: ir.mk_or(*a), ir.IFF: lambda a: ir.mk_iff(*a),
}


def to_smtlib(t: Term, *, bool_symbols_as: bool = False) -> str:
    """SMT-LIB text of ``t`` (after ``lower``). With ``bool_symbols_as`` a Bool constant ``p`` is
    written ``(as p Bool)`` so a lone term string carries its sort (``parse_term`` reads it)."""
    t = lower(t)
    order = ir.iter_dag(t)
    uses: dict[Term, int] = {}
    for n in order:
        for c in n.args:
            uses[c] = uses.get(c, 0) + 1
    names = {n.value for n in order if n.kind in (ir.SYM, ir.BSYM)}
    prefix = "?x"
    while any(str(s).startswith(prefix) for s in names):
        prefix = "?" + prefix
    text: dict[Term, str] = {}
    level: dict[Term, int] = {}
    lets: list[list[tuple[str, str]]] = []
    for n in order:
        s = _one(n, [text[c] for c in n.args], bool_symbols_as)
        lv = max((level[c] for c in n.args), default=0)
        if n.args and uses.get(n, 0) > 1 and n is not t:
            while len(lets) <= lv:
                lets.append([])
            name = f"{prefix}{sum(map(len, lets))}"
            lets[lv].append((name, s))
            s, lv = name, lv + 1
        text[n] = s
        level[n] = lv
    out = text[t]
    for group in reversed(lets):
        if group:
            binds = " ".join(f"({nm} {val})" for nm, val in group)
            out = f"(let ({binds}) {out})"
    return out


def int_literal(v: int) -> str:
    return str(v) if v >= 0 else f"(- {-v})"


def _one(n: Term, a: list[str], bool_as: bool) -> str:
    k = n.kind
    if k == ir.CONST:
        return int_literal(n.value)
    if k == ir.SYM:
        return quote_symbol(n.value, constant=True)
    if k == ir.BSYM:
        name = quote_symbol(n.value, constant=True)
        return f"(as {name} Bool)" if bool_as else name
    if k == ir.BCONST:
        return "true" if n.value else "false"
    if k == ir.MUL and n.args[0].kind == ir.CONST and n.args[0].value == -1:
        rest = a[1:]
        return f"(- {rest[0]})" if len(rest) == 1 else f"(- (* {' '.join(rest)}))"
    op = {ir.ADD: "+", ir.MUL: "*", ir.EDIV: "div", ir.EMOD: "mod", ir.ITE: "ite", ir.NOT: "not",
          ir.AND: "and", ir.OR: "or", ir.IFF: "="}.get(k)
    if k in (ir.FLOORDIV, ir.MOD) and n.args[1].kind == ir.CONST and n.args[1].value > 0:
        op = "div" if k == ir.FLOORDIV else "mod"  # Euclidean = floor on a positive divisor (ir.mk_ediv)
    if op is not None:
        return f"({op} {' '.join(a)})"
    if k in (ir.LE, ir.EQ):
        return _relation(n, a[0])
    raise AssertionError(k)  # MAX/MIN and FLOORDIV/MOD by a non-constant are gone after lower()


def _relation(n: Term, e: str) -> str:
    """``e <= 0`` / ``e = 0``, written ``(<= x 5)`` rather than ``(<= (+ x (- 5)) 0)`` when ``e``
    is a single monomial plus a constant (the common bound)."""
    op = "<=" if n.kind == ir.LE else "="
    arg = n.args[0]
    if arg.kind == ir.ADD and len(arg.args) == 2 and arg.args[1].kind == ir.CONST and arg.args[0].kind == ir.SYM:
        return f"({op} {quote_symbol(arg.args[0].value)} {int_literal(-arg.args[1].value)})"
    return f"({op} {e} 0)"


def comment_text(*parts: object) -> str:
    """User text inside a ``;`` comment, escaped so that it cannot end the comment line."""
    return " ".join(json.dumps(str(x), ensure_ascii=True) for x in parts)
