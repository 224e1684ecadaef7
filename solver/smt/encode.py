"""Translate IR into pysmt formulas with exact integer encodings (docs/problem-format.md §1.2).

pysmt has no integer floor division or modulus, and its Int ``Div`` is z3's Euclidean ``div``,
which differs from Python's ``//`` for negative divisors. So every distinct pair ``(a, b)`` under
a division gets one fresh quotient ``q`` and remainder ``r`` (shared by ``a // b`` and ``a % b``)
and the defining constraint, guarded by ``b != 0`` (the parsers conjoin ``b != 0`` to the
formula that contains the division, so the guard here only keeps the definitions vacuous when
a caller asks about points where ``b = 0``):

    floor (Python):  b != 0 -> a = b*q + r  &  (b > 0 -> 0 <= r < b)  &  (b < 0 -> b < r <= 0)
    Euclidean:       b != 0 -> a = b*q + r  &  0 <= r < |b|

For a literal ``b`` the case split disappears and the definition is linear. ``isqrt(n)``
(``ISQRT``, undefined for ``n < 0``) gets one fresh ``s`` per distinct ``n``, defined likewise
only where it is defined (non-linear: the levers before z3 know ``ISQRT`` and decide most guards
with it):

    isqrt:           n >= 0 -> s >= 0  &  s*s <= n  &  n <= s*s + 2*s

and ``bit_floor(n)`` (``BITFLOOR``, undefined for ``n < 1``) a fresh ``p``, linear (a case split
over the exponents below 64, exact there; past ``2**64`` only ``p <= n < 2p``, weaker, sound):

    bit_floor:       n >= 1 -> p <= n  &  n < 2*p  &  (p = 1 | p = 2 | ... | p = 2**63 | p >= 2**64)

Each ``Encoding`` owns its own pysmt ``Environment`` (no global state, no unbounded formula
table).
"""

from __future__ import annotations

from collections.abc import Callable

from pysmt.environment import Environment
from pysmt.fnode import FNode
from pysmt.typing import BOOL, INT

from symguard.solver.ir import terms as ir
from symguard.solver.ir.problem import Symbol
from symguard.solver.ir.terms import Term

FRESH_PREFIX = "."  # SMT-LIB reserves symbols starting with '.' for solvers: no clash with users
ISQRT_TAG = "isqrt"  # the first field of an ISQRT's definition key, (floor?, a, b) for a division
BITFLOOR_TAG = "bitfloor"  # the same for a BITFLOOR
BITFLOOR_EXPONENTS = 64  # p = 2**k spelled out for k below this; above, p <= n < 2p only
PairKey = tuple[bool | str, Term, Term]


def _no_type_check(formula: FNode) -> None:
    return None


class Encoding:
    """IR -> pysmt, memoized per node; collects the division definitions it needed."""

    def __init__(self, env: Environment | None = None) -> None:
        self.env = env or Environment()
        self.mgr = self.env.formula_manager
        # IR terms are typed by construction (integer and Boolean kinds never mix), and pysmt
        # type-checks every node it creates with a walk of its own: skipped for this encoding's
        # manager (types are still computed on demand where a converter asks, as for an ite).
        # Building the formulas of a 300-guard set: 5.6 -> 1.5 ms.
        self.mgr._do_type_check = _no_type_check
        self._memo: dict[Term, FNode] = {}
        self._pairs: dict[PairKey, tuple[FNode, FNode]] = {}
        self._pairs_of: dict[Term, list[PairKey]] = {}
        self.definitions: list[FNode] = []
        self.def_keys: list[PairKey] = []  # the ``pair_def`` key of each definition, in order
        self.pair_def: dict[PairKey, FNode] = {}  # the definition of each pair (and of each isqrt)
        self.fresh: dict[str, tuple[str, Term, Term]] = {}  # name -> (kind, a, b), for diagnostics

    # -------------------------------------------------------------- symbols and ranges
    def symbol(self, name: str, is_bool: bool = False) -> FNode:
        return self.mgr.Symbol(name, BOOL if is_bool else INT)

    def range_constraint(self, s: Symbol) -> FNode:
        if s.is_bool:
            return self.mgr.TRUE()
        v = self.symbol(s.name)
        parts = []
        if s.lo is not None:
            parts.append(self.mgr.LE(self.mgr.Int(s.lo), v))
        if s.hi is not None:
            parts.append(self.mgr.LE(v, self.mgr.Int(s.hi)))
        return self.mgr.And(parts)

    # -------------------------------------------------------------- terms
    def formula(self, t: Term) -> FNode:
        hit = self._memo.get(t)
        if hit is not None:
            return hit
        for n in ir.iter_dag(t):
            if n not in self._memo:
                self._memo[n] = self._one(n, [self._memo[a] for a in n.args])
        return self._memo[t]

    def _one(self, n: Term, a: list[FNode]) -> FNode:
        m = self.mgr
        k = n.kind
        if k == ir.CONST:
            return m.Int(n.value)
        if k == ir.SYM:
            return m.Symbol(n.value, INT)
        if k == ir.BSYM:
            return m.Symbol(n.value, BOOL)
        if k == ir.BCONST:
            return m.Bool(n.value)
        if k == ir.ADD:
            return m.Plus(a)
        if k == ir.MUL:
            return m.Times(a)
        if k in ir.DIV_KINDS:
            q, r = self._pair(k in (ir.FLOORDIV, ir.MOD), n.args[0], n.args[1], a[0], a[1])
            return q if k in (ir.FLOORDIV, ir.EDIV) else r
        if k == ir.ISQRT:
            return self._isqrt(n.args[0], a[0])
        if k == ir.BITFLOOR:
            return self._bitfloor(n.args[0], a[0])
        if k in (ir.MAX, ir.MIN):
            acc = a[0]
            for x in a[1:]:
                better = m.GT(x, acc) if k == ir.MAX else m.LT(x, acc)
                acc = m.Ite(better, x, acc)
            return acc
        if k == ir.ITE:
            return m.Ite(a[0], a[1], a[2])
        if k == ir.LE:
            return m.LE(a[0], m.Int(0))
        if k == ir.EQ:
            return m.Equals(a[0], m.Int(0))
        if k == ir.NOT:
            return m.Not(a[0])
        if k == ir.AND:
            return m.And(a)
        if k == ir.OR:
            return m.Or(a)
        if k == ir.IFF:
            return m.Iff(a[0], a[1])
        raise AssertionError(k)

    def pairs_of(self, t: Term) -> list[PairKey]:
        """The quotient/remainder pairs and square roots ``t``'s encoding uses (keys of
        ``pair_def``); kept per term, since every scoped check asks again for each formula it
        selects."""
        got = self._pairs_of.get(t)
        if got is None:
            got = self._pairs_of[t] = [_key(n) for n in ir.partial_of(t)]
        return got

    def _isqrt(self, tn: Term, n: FNode) -> FNode:
        """``s = isqrt(n)``: ``n >= 0 -> 0 <= s & s*s <= n <= s*s + 2s`` (non-linear)."""
        m = self.mgr

        def define(s: FNode) -> FNode:
            sq = m.Times(s, s)
            body = m.And(m.LE(m.Int(0), s), m.LE(sq, n), m.LE(n, m.Plus(sq, m.Times(m.Int(2), s))))
            return m.Implies(m.LE(m.Int(0), n), body)
        return self._unary(ISQRT_TAG, "s", tn, define)

    def _bitfloor(self, tn: Term, n: FNode) -> FNode:
        """``p = bit_floor(n)``: ``n >= 1 -> p <= n < 2p & p`` one of the powers of two (linear)."""
        m = self.mgr

        def define(p: FNode) -> FNode:
            powers = [m.Equals(p, m.Int(1 << e)) for e in range(BITFLOOR_EXPONENTS)]
            powers.append(m.LE(m.Int(1 << BITFLOOR_EXPONENTS), p))
            body = m.And(m.LE(p, n), m.LT(n, m.Times(m.Int(2), p)), m.Or(powers))
            return m.Implies(m.LE(m.Int(1), n), body)
        return self._unary(BITFLOOR_TAG, "p", tn, define)

    def _unary(self, tag: str, prefix: str, tn: Term, define: Callable[[FNode], FNode]) -> FNode:
        """One fresh variable per distinct operand ``tn`` of a partial one-argument kind, defined
        by ``define`` where the operand is in its domain; keyed like a division pair, so scoped
        checks carry its definition."""
        key: PairKey = (tag, tn, tn)
        hit = self._pairs.get(key)
        if hit is not None:
            return hit[0]
        v = self.mgr.Symbol(f"{FRESH_PREFIX}{prefix}{len(self._pairs)}", INT)
        self.fresh[v.symbol_name()] = (prefix, tn, tn)
        self.definitions.append(define(v))
        self.pair_def[key] = self.definitions[-1]
        self.def_keys.append(key)
        self._pairs[key] = (v, v)
        return v

    def _pair(self, floor: bool, ta: Term, tb: Term, a: FNode, b: FNode) -> tuple[FNode, FNode]:
        key: PairKey = (floor, ta, tb)
        hit = self._pairs.get(key)
        if hit is not None:
            return hit
        m = self.mgr
        i = len(self._pairs)
        q = m.Symbol(f"{FRESH_PREFIX}q{i}", INT)
        r = m.Symbol(f"{FRESH_PREFIX}r{i}", INT)
        self.fresh[q.symbol_name()] = ("q", ta, tb)
        self.fresh[r.symbol_name()] = ("r", ta, tb)
        zero = m.Int(0)
        if tb.kind == ir.CONST:
            bv = tb.value
            if bv == 0:  # never defined: the enclosing formula already requires b != 0
                self._pairs[key] = (q, r)
                return q, r
            body = [m.Equals(a, m.Plus(m.Times(m.Int(bv), q), r))]
            if floor and bv < 0:
                body += [m.LT(m.Int(bv), r), m.LE(r, zero)]
            else:
                body += [m.LE(zero, r), m.LT(r, m.Int(abs(bv)))]
            self.definitions.append(m.And(body))
            self.pair_def[key] = self.definitions[-1]
            self.def_keys.append(key)
        else:
            bq = m.Times(b, q)
            eq = m.Equals(a, m.Plus(bq, r))
            pos = m.Implies(m.GT(b, zero), m.And(m.LE(zero, r), m.LT(r, b)))
            if floor:
                neg = m.Implies(m.LT(b, zero), m.And(m.LT(b, r), m.LE(r, zero)))
            else:
                neg = m.Implies(m.LT(b, zero), m.And(m.LE(zero, r), m.LT(r, m.Minus(zero, b))))
            self.definitions.append(m.Implies(m.Not(m.Equals(b, zero)), m.And(eq, pos, neg)))
            self.pair_def[key] = self.definitions[-1]
            self.def_keys.append(key)
        self._pairs[key] = (q, r)
        return q, r


def _key(n: Term) -> PairKey:
    """The ``pair_def`` key of a division, ``ISQRT`` or ``BITFLOOR`` node."""
    if n.kind == ir.ISQRT:
        return (ISQRT_TAG, n.args[0], n.args[0])
    if n.kind == ir.BITFLOOR:
        return (BITFLOOR_TAG, n.args[0], n.args[0])
    return (n.kind in (ir.FLOORDIV, ir.MOD), n.args[0], n.args[1])
