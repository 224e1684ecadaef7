"""Immutable, hash-consed IR for integer size expressions and conditions.

Every term is built through the ``mk_*`` constructors below, which normalize once so that
every later pass (translation, intervals, canonical keys, Python evaluation) sees a small
closed set of kinds:

    integer:  CONST SYM ADD MUL FLOORDIV MOD EDIV EMOD MAX MIN ITE ISQRT BITFLOOR
    boolean:  BCONST BSYM LE EQ NOT AND OR IFF

* ``LE(e)`` means ``e <= 0`` and ``EQ(e)`` means ``e == 0``: every comparison is moved to one
  side, so ``a < b``, ``b > a``, ``Lt(a, b)`` and ``a + 1 <= b`` are the same node. Linear parts
  are divided by the gcd of their coefficients (integer tightening: ``2x <= 3`` is ``x <= 1``).
* ``ADD`` is a linear combination of distinct monomials (``MUL(c, m)`` or ``m``) plus a constant;
  ``MUL`` is a constant coefficient (first, when != 1) times factors sorted by structure.
* ``FLOORDIV``/``MOD`` are Python's ``//``/``%``; ``EDIV``/``EMOD`` SMT-LIB's Euclidean ones.
  CeilDiv, TruncDiv, TruncMod, ModularIndexing, Abs and Piecewise are derived forms built from these.
* ``ISQRT(n)`` is ``math.isqrt(n)``, undefined for ``n < 0`` (Python's ``math.sqrt`` raises
  there): how ``int(math.sqrt(n))`` of a size reads (docs/pytorch-functions.md). Like a division
  it may be undefined, so ``has_div`` ("may be undefined") is set on it and on its ancestors.
* ``BITFLOOR(n)`` is the largest power of two not above ``n`` (C++20's ``bit_floor``,
  ``1 << (n.bit_length() - 1)``), undefined for ``n < 1`` (Python's ``math.log2`` raises there):
  how ``2 ** int(math.log2(a / c))`` of a size reads (docs/pytorch-functions.md); partial like
  ``ISQRT``.
* Simplification may drop a division (``0 * (x // y)``); the implicit ``divisor != 0`` of the
  source text is therefore not left to the IR: the parsers conjoin it explicitly (``domain``).

Nodes are interned (weakly), so structurally equal terms are the same object: equality is
identity and hashing is O(1). Child order is by a name-dependent structural digest (``skey``),
stable across processes (no ``hash()`` randomization).
"""

from __future__ import annotations

import functools
import hashlib
import math
import operator
import weakref
from _weakref import _remove_dead_weakref  # type: ignore[attr-defined]  # the atomic removal WeakValueDictionary uses
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from symguard.solver.errors import TooLargeError

# kinds
CONST, SYM, ADD, MUL, FLOORDIV, MOD, EDIV, EMOD, MAX, MIN, ITE, ISQRT, BITFLOOR = (
    "const", "sym", "add", "mul", "floordiv", "mod", "ediv", "emod", "max", "min", "ite", "isqrt", "bitfloor",
)
BCONST, BSYM, LE, EQ, NOT, AND, OR, IFF = "bconst", "bsym", "le", "eq", "not", "and", "or", "iff"

INT_KINDS = frozenset({CONST, SYM, ADD, MUL, FLOORDIV, MOD, EDIV, EMOD, MAX, MIN, ITE, ISQRT, BITFLOOR})
BOOL_KINDS = frozenset({BCONST, BSYM, LE, EQ, NOT, AND, OR, IFF})
DIV_KINDS = frozenset({FLOORDIV, MOD, EDIV, EMOD})
UNARY_PARTIAL = frozenset({ISQRT, BITFLOOR})  # one argument, undefined below a least value
PARTIAL_KINDS = DIV_KINDS | UNARY_PARTIAL  # the kinds that may be undefined (``Term.has_div``)
LEAST_DEFINED = {ISQRT: 0, BITFLOOR: 1}  # the least argument at which each of them is defined

MAX_INT_DIGITS = 4000  # integer literals / folded constants with more decimal digits are `too_large`
# |v| < 10**4000 exactly: the bit length alone (3.32 bits a digit) let 4,009-digit literals pass
_INT_LIMIT = 10**MAX_INT_DIGITS
_INT_LIMIT_BITS = _INT_LIMIT.bit_length()
# ``Term.size`` is the tree size (a shared child counted once per parent), saturating here. It is
# not a limit: what costs memory and time is the DAG, and the DAG of a parsed expression is linear
# in its text (bounded by the reader's character limit). A tree limit refused real PyTorch guard
# sets whose sub-chains are shared (a 3-stage Swinv2 set, rewritten: past 200,000 tree nodes).
SIZE_CAP = 1 << 40
# What a reader accepts as one expression's tree (``size``). The DAG a reader builds is linear in
# the text, but ``Abs(a)`` is ``Max(a, -a)``, ``TruncDiv`` a select of two quotients, a ``Max`` of
# rationals over symbolic denominators compares each argument with every other, and SMT-LIB's
# ``let`` names a term used twice: nested, the tree doubles (or more) per level, and the
# canonical key, SMT-LIB text and z3's translation write it out (40 nested ``Abs`` exhausted the
# memory). Reading and canonicalizing are not cut short by the deadline; at the limit (19 nested
# ``Abs``: 4.2 million nodes) every operation answers in about a second and 400 MB. The largest
# expression of the corpus is ~12,000 nodes as read (rewriting shares more: see ``SIZE_CAP``).
MAX_READ_TREE = 4_000_000
READ_TREE_MESSAGE = (f"the expression written out has more than {MAX_READ_TREE:,} nodes (Abs, TruncDiv, a Max/Min "
                     "of rationals and a let repeat what they name, and nested they multiply)")
MEMO_SIZE = 1 << 16  # memoized constructors (terms are interned: arguments hash by identity)
# symbolic factors in one product: z3 expands powers of sums when a formula is asserted, outside
# its time limit ((s0+1)**4096 took 14 s in Z3_solver_assert with a 1 s budget)
MAX_FACTORS = 256


def too_many_digits(v: int) -> bool:
    """Whether ``v`` has more than ``MAX_INT_DIGITS`` decimal digits (exact; no string conversion)."""
    b = v.bit_length()
    return b >= _INT_LIMIT_BITS and abs(v) >= _INT_LIMIT


class Term:
    """One interned IR node. Build with the ``mk_*`` functions, never directly."""

    __slots__ = ("__weakref__", "_syms", "args", "has_div", "kind", "size", "skey", "value")

    kind: str
    _syms: frozenset[str] | None
    args: tuple[Term, ...]
    value: Any
    skey: bytes
    size: int
    has_div: bool

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Term is immutable")

    @property
    def is_bool(self) -> bool:
        return self.kind in BOOL_KINDS

    def __repr__(self) -> str:
        # Prefix form, built here so that the IR needs no printer (``ir.printer`` prints sympy text).
        memo: dict[int, str] = {}
        for n in iter_dag(self):
            if n.args:
                memo[id(n)] = f"({n.kind} {' '.join(memo[id(a)] for a in n.args)})"
            else:
                memo[id(n)] = repr(n.value) if n.kind in (CONST, BCONST) else str(n.value)
        return f"Term{memo[id(self)]}" if self.args else f"Term({memo[id(self)]})"

    def __lt__(self, other: Term) -> bool:
        return self.skey < other.skey


# The intern table: key -> weak reference to the one node with that key. A plain dict read inline
# (``WeakValueDictionary.get`` is a Python-level call on the hottest path of every constructor);
# a dead entry is removed by its reference's callback with the stdlib's own atomic helper, so a
# node interned again under the same key in between is never dropped.
class _Ref(weakref.ref):  # type: ignore[type-arg]
    """A weak reference that knows its key (``weakref.KeyedRef`` without its Python-level
    ``__new__``/``__init__``: one reference per new node)."""

    __slots__ = ("key",)
    key: tuple[Any, ...]


_table: dict[tuple[Any, ...], _Ref] = {}
_skey = operator.attrgetter("skey")  # the sort key of children (Term.__lt__ compares it, one Python call per comparison)
_blake2b = hashlib.blake2b
_new = object.__new__
_set = object.__setattr__


def _forget(ref: _Ref) -> None:
    _remove_dead_weakref(_table, ref.key)


def _node(kind: str, args: tuple[Term, ...] = (), value: Any = None) -> Term:
    key = (kind, value, args)
    ref = _table.get(key)
    if ref is not None:
        t = ref()
        if t is not None:
            return t
    size = 1
    has_div = kind in PARTIAL_KINDS
    parts = [kind.encode(), b"\x00", repr(value).encode(), b"\x00"]
    for a in args:
        parts.append(a.skey)
        size += a.size
        if a.has_div:
            has_div = True
    if size > SIZE_CAP:  # noqa: PLR1730 - a comparison, not a call, on the hottest path
        size = SIZE_CAP
    t = _new(Term)
    _set(t, "kind", kind)
    _set(t, "args", args)
    _set(t, "value", value)
    _set(t, "skey", _blake2b(b"".join(parts), digest_size=12).digest())  # the digest of kind, value, children
    _set(t, "size", size)
    _set(t, "has_div", has_div)
    _set(t, "_syms", None)  # symbols_of, filled on first use
    ref = _Ref(t, _forget)
    ref.key = key
    _table[key] = ref
    return t


def existing(kind: str, args: tuple[Term, ...], value: Any = None) -> Term | None:
    """The live node with exactly this key, or None: a lookup that builds nothing (a term no one
    holds is in no sum's coefficients either)."""
    ref = _table.get((kind, value, args))
    return None if ref is None else ref()


def interned(kind: str, args: tuple[Term, ...]) -> Term:
    """The node ``kind(args)`` exactly as given, not normalized: for passes that keep a
    normalized term normalized (renaming symbols changes nothing but the children's order,
    ``ir.canonical``); everything else builds with the ``mk_*`` constructors."""
    return _node(kind, args)


# ---------------------------------------------------------------- leaves

_SMALL_INTS: dict[int, Term] = {}  # the constants most terms use, held (the intern table is weak)
SMALL_INT = 4096


def mk_int(v: int) -> Term:
    t = _SMALL_INTS.get(v)
    if t is not None:
        return t
    if too_many_digits(v):
        raise TooLargeError(f"integer with more than {MAX_INT_DIGITS} digits")
    t = _node(CONST, (), int(v))
    if -SMALL_INT <= v <= SMALL_INT:
        _SMALL_INTS[int(v)] = t
    return t


def mk_sym(name: str) -> Term:
    return _node(SYM, (), name)


def mk_bool(v: bool) -> Term:
    return TRUE if v else FALSE


def mk_bsym(name: str) -> Term:
    return _node(BSYM, (), name)


ZERO = mk_int(0)
ONE = mk_int(1)
TRUE = _node(BCONST, (), True)
FALSE = _node(BCONST, (), False)


# ---------------------------------------------------------------- linear arithmetic

def linear(t: Term) -> tuple[dict[Term, int], int]:
    """Split an integer term into {monomial: coefficient} and a constant."""
    kind = t.kind
    if kind == CONST:
        return {}, t.value
    if kind == ADD:
        coefs: dict[Term, int] = {}
        const = 0
        for a in t.args:  # the parts of a sum, read inline (``linear`` of each, without the calls)
            k = a.kind
            if k == CONST:
                const += a.value
            elif k == MUL and a.args[0].kind == CONST:
                rest = a.args[1:]
                mono = rest[0] if len(rest) == 1 else _node(MUL, rest)
                coefs[mono] = coefs.get(mono, 0) + a.args[0].value
            elif k == ADD:
                m, c = linear(a)
                const += c
                for x, v in m.items():
                    coefs[x] = coefs.get(x, 0) + v
            else:
                coefs[a] = coefs.get(a, 0) + 1
        return coefs, const
    if t.kind == MUL and t.args[0].kind == CONST:
        rest = t.args[1:]
        mono = rest[0] if len(rest) == 1 else _node(MUL, rest)
        return {mono: t.args[0].value}, 0
    return {t: 1}, 0


def from_linear(coefs: dict[Term, int], const: int) -> Term:
    monos = [m for m, c in coefs.items() if c != 0]
    if len(monos) > 1:
        monos.sort(key=_skey)
    terms = [m if coefs[m] == 1 else _scaled(coefs[m], m) for m in monos]
    if const != 0 or not terms:
        terms.append(mk_int(const))
    if len(terms) == 1:
        return terms[0]
    return _node(ADD, tuple(terms))


def _scaled(c: int, m: Term) -> Term:
    factors = m.args if m.kind == MUL else (m,)
    return _node(MUL, (mk_int(c), *factors))


@functools.lru_cache(maxsize=MEMO_SIZE)
def mk_add(*ts: Term) -> Term:
    coefs: dict[Term, int] = {}
    const = 0
    for t in ts:
        m, c = linear(t)
        const += c
        for k, v in m.items():
            coefs[k] = coefs.get(k, 0) + v
    if too_many_digits(const):
        raise TooLargeError(f"integer with more than {MAX_INT_DIGITS} digits")
    return from_linear(coefs, const)


def mk_neg(t: Term) -> Term:
    return mk_mul(mk_int(-1), t)


def mk_sub(a: Term, b: Term) -> Term:
    return mk_add(a, mk_neg(b))


@functools.lru_cache(maxsize=MEMO_SIZE)
def mk_mul(*ts: Term) -> Term:
    c = 1
    factors: list[Term] = []
    for t in ts:
        if t.kind == CONST:
            c *= t.value
        elif t.kind == MUL:
            for a in t.args:
                if a.kind == CONST:
                    c *= a.value
                else:
                    factors.append(a)
        else:
            factors.append(t)
        if too_many_digits(c):
            raise TooLargeError(f"integer with more than {MAX_INT_DIGITS} digits")
    if c == 0:
        return ZERO
    if len(factors) > MAX_FACTORS:
        raise TooLargeError(f"product of more than {MAX_FACTORS} symbolic factors")
    if not factors:
        return mk_int(c)
    if len(factors) == 1:
        f = factors[0]
        if c == 1:
            return f
        if f.kind == ADD and c != 0:  # distribute a constant over a sum: 4*(a+b) = 4a + 4b
            coefs, const = linear(f)
            return from_linear({m: v * c for m, v in coefs.items()}, const * c)
    factors.sort(key=_skey)
    if c == 1:
        return _node(MUL, tuple(factors))
    return _node(MUL, (mk_int(c), *factors))


def mk_pow(base: Term, k: int) -> Term:
    if k < 0:
        raise ValueError("negative exponent")
    if base.kind == CONST:
        # |b|**k has more than k*(bits(b) - 1) bits: past the limit's bits, refuse before computing
        if base.value not in (0, 1, -1) and k * (abs(base.value).bit_length() - 1) >= _INT_LIMIT_BITS:
            raise TooLargeError(f"power with more than {MAX_INT_DIGITS} digits")
        v = base.value**k
        if too_many_digits(v):
            raise TooLargeError(f"power with more than {MAX_INT_DIGITS} digits")
        return mk_int(v)
    if k > 64:
        raise TooLargeError(f"exponent {k} of a symbolic base is larger than 64")
    return mk_mul(*([base] * k)) if k else ONE


# ---------------------------------------------------------------- division family

def _fold_div(kind: str, a: Term, b: Term) -> Term | None:
    if a.kind == CONST and b.kind == CONST and b.value != 0:
        x, y = a.value, b.value
        if kind == FLOORDIV:
            return mk_int(x // y)
        if kind == MOD:
            return mk_int(x % y)
        q = x // abs(y) * (1 if y > 0 else -1)  # Euclidean: remainder in [0, |y|)
        r = x - y * q
        return mk_int(q if kind == EDIV else r)
    if b.kind == CONST and b.value == 1:
        return a if kind in (FLOORDIV, EDIV) else ZERO
    return None


def mk_floordiv(a: Term, b: Term) -> Term:
    return _fold_div(FLOORDIV, a, b) or _node(FLOORDIV, (a, b))


def mk_mod(a: Term, b: Term) -> Term:
    return _fold_div(MOD, a, b) or _node(MOD, (a, b))


def mk_ediv(a: Term, b: Term) -> Term:
    # on a positive divisor Euclidean and floor division coincide: one kind for the rewriter
    if b.kind == CONST and b.value > 0:
        return mk_floordiv(a, b)
    return _fold_div(EDIV, a, b) or _node(EDIV, (a, b))


def mk_emod(a: Term, b: Term) -> Term:
    if b.kind == CONST and b.value > 0:
        return mk_mod(a, b)
    return _fold_div(EMOD, a, b) or _node(EMOD, (a, b))


def ceil_div(a: int, b: int) -> int:
    """ceil(a/b) for integers, exactly (no float): the one home of ``-((-a) // b)``."""
    return -((-a) // b)


def mk_ceildiv(a: Term, b: Term) -> Term:
    """ceil(a/b) = -((-a) // b)."""
    return mk_neg(mk_floordiv(mk_neg(a), b))


def mk_truncdiv(a: Term, b: Term) -> Term:
    """a/b rounded toward zero: floor when a/b >= 0, ceiling otherwise."""
    nonneg = mk_or(mk_and(mk_ge(a, ZERO), mk_gt(b, ZERO)), mk_and(mk_le(a, ZERO), mk_lt(b, ZERO)))
    return mk_ite(nonneg, mk_floordiv(a, b), mk_ceildiv(a, b))


def truncdiv_args(n: Term) -> tuple[Term, Term] | None:
    """``(a, b)`` when ``n`` is ``mk_truncdiv(a, b)`` itself (rebuilt from a floor division branch
    and compared by identity), so a printer or a rule can treat the select as the one operation."""
    if n.kind != ITE:
        return None
    for x in n.args[1:]:
        if x.kind == FLOORDIV and mk_truncdiv(*x.args) is n:
            return x.args[0], x.args[1]
    return None


def mk_truncmod(a: Term, b: Term) -> Term:
    """C's remainder ``a - b*trunc(a/b)``: the sign of ``a``, the remainder of ``mk_truncdiv``."""
    return mk_sub(a, mk_mul(b, mk_truncdiv(a, b)))


def mk_modular_indexing(x: Term, d: Term, m: Term) -> Term:
    return mk_mod(mk_floordiv(x, d), m)


def mk_isqrt(n: Term) -> Term:
    """``math.isqrt(n)``; a literal ``n < 0`` stays a node (undefined, like a zero divisor)."""
    if n.kind == CONST and n.value >= 0:
        return mk_int(math.isqrt(n.value))
    return _node(ISQRT, (n,))


def bit_floor(n: int) -> int:
    """``BITFLOOR`` of a literal ``n >= 1``."""
    return 1 << (n.bit_length() - 1)


def mk_bitfloor(n: Term) -> Term:
    """The largest power of two ``<= n`` (``bit_floor``); a literal ``n < 1`` stays a node
    (undefined, like a zero divisor)."""
    if n.kind == CONST and n.value >= 1:
        return mk_int(bit_floor(n.value))
    return _node(BITFLOOR, (n,))


# ---------------------------------------------------------------- max / min / ite

def _mk_extreme(kind: str, ts: Sequence[Term]) -> Term:
    flat: list[Term] = []
    consts: list[int] = []
    for t in ts:
        for a in t.args if t.kind == kind else (t,):
            (consts.append(a.value) if a.kind == CONST else flat.append(a))
    if consts:
        flat.append(mk_int(max(consts) if kind == MAX else min(consts)))
    uniq = sorted(set(flat), key=_skey)
    if not uniq:
        raise ValueError(f"{kind} of nothing")
    return uniq[0] if len(uniq) == 1 else _node(kind, tuple(uniq))


def mk_max(*ts: Term) -> Term:
    return _mk_extreme(MAX, ts)


def mk_min(*ts: Term) -> Term:
    return _mk_extreme(MIN, ts)


def mk_abs(a: Term) -> Term:
    if a.kind == CONST:
        return mk_int(abs(a.value))
    return mk_max(a, mk_neg(a))


def mk_ite(c: Term, a: Term, b: Term) -> Term:
    if c.kind == BCONST:
        return a if c.value else b
    if a is b:
        return a
    if a.is_bool:
        return mk_or(mk_and(c, a), mk_and(mk_not(c), b))
    if a.kind in (EDIV, EMOD) and c is mk_gt(a.args[1], ZERO):
        # Python's floor division/modulus as SMT-LIB spells them (smtlib_print.lower): both
        # sides of the ite are the same function wherever the divisor is non-zero
        x, y = a.args
        if a.kind == EDIV and b is mk_ediv(mk_neg(x), mk_neg(y)):
            return mk_floordiv(x, y)
        if a.kind == EMOD and b is mk_neg(mk_emod(mk_neg(x), mk_neg(y))):
            return mk_mod(x, y)
    if c.kind == LE:  # a branch picked by comparing the branches is Max/Min (how SMT-LIB spells them)
        if c is mk_le(b, a) or c is mk_lt(b, a):
            return mk_max(a, b)
        if c is mk_le(a, b) or c is mk_lt(a, b):
            return mk_min(a, b)
    return _node(ITE, (c, a, b))


def ite_node(c: Term, a: Term, b: Term) -> Term:
    """An integer ITE node as given, with no Max/Min recognition: the SMT-LIB printer lowers
    Max/Min to these and must not get Max/Min back."""
    if c.kind == BCONST:
        return a if c.value else b
    return a if a is b else _node(ITE, (c, a, b))


# ---------------------------------------------------------------- comparisons

@functools.lru_cache(maxsize=MEMO_SIZE)
def _normalize_rel(kind: str, e: Term) -> Term:
    coefs, const = linear(e)
    coefs = {m: c for m, c in coefs.items() if c != 0}
    if not coefs:
        return mk_bool(const <= 0 if kind == LE else const == 0)
    g = 0
    for c in coefs.values():
        g = math.gcd(g, c)
    if kind == LE:
        # sum c_i m_i + k <= 0  <=>  sum (c_i/g) m_i <= floor(-k/g)
        if g > 1:
            coefs = {m: c // g for m, c in coefs.items()}
            const = -((-const) // g)
    else:
        if const % g != 0:
            return FALSE
        coefs = {m: c // g for m, c in coefs.items()}
        const //= g
        first = min(coefs, key=lambda m: m.skey)
        if coefs[first] < 0:
            coefs = {m: -c for m, c in coefs.items()}
            const = -const
    return _node(kind, (from_linear(coefs, const),))


def mk_le(a: Term, b: Term) -> Term:
    return _normalize_rel(LE, mk_sub(a, b))


def mk_lt(a: Term, b: Term) -> Term:
    return _normalize_rel(LE, mk_add(mk_sub(a, b), ONE))


def mk_ge(a: Term, b: Term) -> Term:
    return mk_le(b, a)


def mk_gt(a: Term, b: Term) -> Term:
    return mk_lt(b, a)


def mk_eq(a: Term, b: Term) -> Term:
    if a.is_bool or b.is_bool:
        return mk_iff(a, b)
    return _normalize_rel(EQ, mk_sub(a, b))


def mk_ne(a: Term, b: Term) -> Term:
    return mk_not(mk_eq(a, b))


# ---------------------------------------------------------------- boolean connectives

@functools.lru_cache(maxsize=MEMO_SIZE)
def mk_not(a: Term) -> Term:
    if a.kind == BCONST:
        return mk_bool(not a.value)
    if a.kind == NOT:
        return a.args[0]
    if a.kind == LE:  # not (e <= 0)  <=>  -e + 1 <= 0
        return _normalize_rel(LE, mk_add(mk_neg(a.args[0]), ONE))
    return _node(NOT, (a,))


def _mk_junction(kind: str, ts: Iterable[Term]) -> Term:
    unit, zero = (TRUE, FALSE) if kind == AND else (FALSE, TRUE)
    out: set[Term] = set()
    for t in ts:
        for a in t.args if t.kind == kind else (t,):
            if a is zero:
                return zero
            if a is not unit:
                out.add(a)
    if len(out) > 1:  # a pair a, not a
        for a in out:
            if mk_not(a) in out:
                return zero
    if not out:
        return unit
    if len(out) == 1:
        return next(iter(out))
    return _node(kind, tuple(sorted(out, key=_skey)))


def mk_and(*ts: Term) -> Term:
    return _mk_junction(AND, ts)


def print_order(args: Sequence[Term]) -> list[Term]:
    """The operands of an AND/OR in the order printers spell them: those that cannot divide by
    zero first, then the others (each group in the node's order). Printed ``x and y`` evaluates
    left to right (docs/problem-format.md §1.2), so a test like ``Ne(k, 0)`` guards the divisions
    after it; ``pyeval.defined`` is the domain of exactly this order. A division by a non-zero
    literal cannot divide by zero: ``x//2 < 1 and 4*x <= y//z`` keeps the test that guards ``z``
    first wherever the rewriting put it."""
    return sorted(args, key=may_divide_by_zero)


def may_divide_by_zero(t: Term) -> bool:
    """Whether some division below ``t`` has a divisor other than a non-zero literal, or some
    ``ISQRT``/``BITFLOOR`` an argument other than a literal where it is defined."""
    return t.has_div and any(d.kind in UNARY_PARTIAL or not (d.args[1].kind == CONST and d.args[1].value != 0)
                             for d in partial_of(t))


def mk_or(*ts: Term) -> Term:
    return _mk_junction(OR, ts)


def mk_implies(a: Term, b: Term) -> Term:
    return mk_or(mk_not(a), b)


def mk_iff(a: Term, b: Term) -> Term:
    if a is b:
        return TRUE
    if a.kind == BCONST:
        return b if a.value else mk_not(b)
    if b.kind == BCONST:
        return a if b.value else mk_not(a)
    x, y = (a, b) if a.skey <= b.skey else (b, a)
    return _node(IFF, (x, y))


# ---------------------------------------------------------------- traversal helpers

def iter_dag(root: Term) -> list[Term]:
    """Every distinct node below ``root`` (children before parents, left to right), iteratively."""
    if not root.args:
        return [root]
    seen = {root}  # terms hash and compare by identity
    order: list[Term] = []
    stack = [(root, iter(root.args))]
    while stack:
        node, kids = stack[-1]
        for a in kids:
            if a not in seen:
                seen.add(a)
                if a.args:
                    stack.append((a, iter(a.args)))
                    break
                order.append(a)
        else:
            stack.pop()
            order.append(node)
    return order


def iter_unseen(root: Term, memo: Mapping[Term, object]) -> Iterator[Term]:
    """The nodes below ``root`` that are not in ``memo``, children first, each once: the caller
    fills ``memo[n]`` for every node before taking the next (the walk stops at what it holds), so
    a memo shared by the guards of a set walks their shared nodes once."""
    stack = [root]
    while stack:
        n = stack[-1]
        if n in memo:
            stack.pop()
            continue
        todo = [x for x in n.args if x not in memo]
        if todo:
            stack.extend(todo)
            continue
        stack.pop()
        yield n


def symbols_of(root: Term) -> set[str]:
    """The symbol names below ``root`` (a new set each call). Kept on the node after the first
    walk: the passes ask again for the same guards, and each walk cost a whole DAG traversal
    (10,000 calls, 0.8 s on a 557-guard set)."""
    got = root._syms
    if got is None:
        got = frozenset(t.value for t in iter_dag(root) if t.kind in (SYM, BSYM))
        _set(root, "_syms", got)
    return set(got)


def divisions_of(root: Term) -> list[Term]:
    """Every FLOORDIV/MOD/EDIV/EMOD node below ``root``, children first."""
    return [t for t in iter_dag(root) if t.kind in DIV_KINDS]


def partial_of(root: Term) -> list[Term]:
    """Every node below ``root`` that may be undefined (a division, an ``ISQRT``, a ``BITFLOOR``),
    children first."""
    return [t for t in iter_dag(root) if t.kind in PARTIAL_KINDS] if root.has_div else []
