"""Structural canonicalization of guards under ranges and facts: structure before search.

PyTorch prints one quantity many ways (``s - Mod(s, 4)``, ``4*(s//4)``, ``Max(1, s//4 + 1)`` when
``s >= 0``), and z3 pays for every spelling with fresh quotient/remainder pairs and non-linear
products. ``Rewriter.rewrite`` rebuilds a term bottom-up through the ``ir`` constructors and
applies exact rules, each valid at every point of the symbol ranges (and of the ``Env`` facts)
where the term's divisors are non-zero:

* ``x = c*(x//c) + Mod(x, c)``: a sum over ``x``, ``x//c`` and ``Mod(x, c)`` is rewritten to the
  spelling with fewest monomials (``s - Mod(s, 4)`` -> ``4*(s//4)``, ``x - 4*(x//4)`` -> ``Mod(x, 4)``);
* ``(c*L + R)//c = L + R//c``, ``Mod(c*L + R, c) = Mod(R, c)``, ``Mod(y, k*c) ≡ y (mod c)`` inside
  ``Mod(·, c)``, ``(x//a)//b = x//(a*b)`` for positive literals, ``(k*d)//d = k``, ``Mod(k*d, d) = 0``;
* a factor shared by dividend and divisor cancels: ``(g*a)//(g*b) = a//b``, ``Mod(g*a, g*b) =
  g*Mod(a, b)`` (``(x*x)//(2*x) = x//2``: exact rationals, any sign of ``g``); multiples of a
  symbolic divisor leave the floor, ``(b*q + r)//b = q + r//b``, ``Mod(b*q + r, b) = Mod(r, b)``;
  a dividend within one period of the divisor, either sign (``-b <= a < 0``: ``a//b = -1``);
* ``f*Q + k == 0`` is false where a factor ``f`` of every monomial but the literal ``k`` has
  ``|f| > |k|`` (``f`` would divide ``k``);
* the content of a sum inside a product is pulled into the coefficient (``(16q + 16) = 16*(q + 1)``);
* interval facts: a term whose interval is one point is that constant, a ``Max``/``Min`` argument
  dominated by another is dropped, a comparison decided by its interval is a constant.

Why it is sound where divisors vanish: the parsers conjoin ``divisor != 0`` for every division
(``ir``), so at a point where some divisor is 0 the original condition is false, and so is the
rewritten one (the innermost vanishing divisor's own ``!= 0`` conjunct contains no division and
is rewritten exactly). ``Env`` facts must hold wherever the rewritten term is used: symbol ranges
and asserts always, guard facts only in checks that assume those guards (``redundancy``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term
from symguard.solver.reason import quasilinear
from symguard.solver.reason.facts import FULL, Env, Interval, Src
from symguard.solver.reason.intervals import bitfloor_iv, floordiv_iv, isqrt_iv, mod_iv
from symguard.solver.reason.polynomials import common_factor, content, div_linear, divide, fold_add, mul, mul_iv

__all__ = ["Env", "Rewriter", "divide", "mul_iv"]

QUASILINEAR = True  # one-symbol chains: comparisons decided residue by residue (issue 25; a bench lever)
COLLAPSE = False  # ... and every one-symbol chain rebuilt as one division (off: the bench found it hides
# the sub-terms that other guards state facts about: swin_compile 0 -> 2 unknown, 3x the time)
LINEARIZE = True  # ... and a comparison of a collapsible chain made linear


WALK_BY_CALLS = 64  # a term of at most this many nodes is walked by recursion (``Rewriter._down``)


class Rewriter:
    """Rewrites terms under one ``Env``; results and intervals are memoized per instance."""

    def __init__(self, env: Env, banned: Iterable[int] = (), *, collapse: bool | None = None) -> None:
        """``collapse``: rebuild one-symbol chains as one division (default ``COLLAPSE``). A choice
        of the instance, not a module flag flipped around a call: two operations in one process
        (threads) would see each other's setting."""
        self.env = env
        self.collapse = COLLAPSE if collapse is None else collapse
        self.banned = frozenset(banned)
        self.memo: dict[Term, Term] = {}
        self.iv: dict[Term, Interval] = {}
        self.off = env.empty()  # empty ranges: no point to reason about, rewrite nothing
        self.used: set[int] = set()  # sources of the facts consulted
        self._mod_facts: dict[Term, list[tuple[Src, int]]] | None = None  # x -> (src, d): d | x
        # ``below(u, v, k)``: a known point where every fact holds and ``u - v < k`` (or False when
        # none is known). There no interval of ``u - v`` starts at ``k`` or above, so the
        # comparisons that look for one (``_extreme``, ``_below``) need not build and rewrite
        # the difference: a speed hook, the same answers (simplify's sample points).
        self.below: Callable[[Term, Term, int], bool] | None = None

    def _ok(self, src: Src) -> bool:
        if src & self.banned:
            return False
        self.used |= src
        return True

    # -------------------------------------------------------------- entry points
    def rewrite(self, t: Term) -> Term:
        if self.off:
            return t
        memo = self.memo
        got = memo.get(t)
        if got is not None:
            return got
        if all(a in memo for a in t.args):  # children rewritten (most calls): no walk
            got = memo[t] = self._one(t, [memo[a] for a in t.args])
            return got
        if t.size <= WALK_BY_CALLS:
            self._down(t)
            return memo[t]
        stack: list[tuple[Term, bool]] = [(t, False)]
        while stack:
            n, ready = stack.pop()
            if n in memo:
                continue
            if ready:
                memo[n] = self._one(n, [memo[a] for a in n.args])
                continue
            stack.append((n, True))
            stack.extend((a, False) for a in n.args if a not in memo)
        return memo[t]

    def _down(self, n: Term) -> None:
        """``rewrite``'s walk by recursion, for a small term (its depth is at most its size): the
        same order (the last child first), without a stack of pairs."""
        memo = self.memo
        for a in reversed(n.args):
            if a not in memo:
                self._down(a)
        memo[n] = self._one(n, [memo[a] for a in n.args])

    def truth(self, t: Term) -> bool | None:
        r = self.rewrite(t)
        return bool(r.value) if r.kind == ir.BCONST else None

    def interval(self, t: Term) -> Interval:
        """Over-approximation of a (rewritten) integer term's values."""
        iv = self.iv
        got = iv.get(t)
        if got is not None:
            return got
        for a in t.args:  # children known (most calls): no walk
            if a not in iv and not a.is_bool:
                break
        else:
            got = iv[t] = self._restrict(t, self._iv_one(t))
            return got
        stack: list[tuple[Term, bool]] = [(t, False)]
        while stack:
            n, ready = stack.pop()
            if n in iv:
                continue
            if ready:
                iv[n] = self._restrict(n, self._iv_one(n))
                continue
            stack.append((n, True))
            stack.extend((a, False) for a in n.args if a not in iv and not a.is_bool)
        return iv[t]

    # -------------------------------------------------------------- intervals
    def _restrict(self, n: Term, v: Interval) -> Interval:
        lo, hi = v
        env = self.env
        if n in env.bounds:
            for src, (blo, bhi) in env.bounds[n]:
                if self._ok(src):
                    lo = blo if lo is None else lo if blo is None else max(lo, blo)
                    hi = bhi if hi is None else hi if bhi is None else min(hi, bhi)
        ex = self.excluded(n) if n in env.excluded else None  # (most terms have no fact)
        if ex:
            while lo is not None and lo in ex:
                lo += 1
            while hi is not None and hi in ex:
                hi -= 1
        if lo is not None and hi is not None and lo > hi:
            return FULL  # contradictory facts about this term: claim nothing
        return (lo, hi)

    def excluded(self, n: Term) -> set[int]:
        return {v for src, v in self.env.excluded.get(n, ()) if self._ok(src)}

    def _iv_one(self, n: Term) -> Interval:
        k = n.kind
        if k == ir.CONST:
            return (n.value, n.value)
        if k == ir.SYM:
            return self.env.ranges.get(n.value, FULL)
        if k == ir.ADD:
            lo: int | None = 0
            hi: int | None = 0
            for x in n.args:
                a, b = self.iv[x]
                lo = None if lo is None or a is None else lo + a
                hi = None if hi is None or b is None else hi + b
            return (lo, hi)
        if k == ir.MUL:
            acc = self.iv[n.args[0]]
            for x in n.args[1:]:
                acc = mul_iv(acc, self.iv[x])
            return acc
        if k == ir.FLOORDIV:
            return floordiv_iv(self.iv[n.args[0]], self.iv[n.args[1]])
        if k == ir.MOD:
            return mod_iv(self.iv[n.args[0]], self.iv[n.args[1]])
        if k in (ir.MAX, ir.MIN):
            los = [self.iv[x][0] for x in n.args]
            his = [self.iv[x][1] for x in n.args]
            if k == ir.MAX:
                known = [x for x in los if x is not None]
                return (max(known) if known else None, None if None in his else max(his))  # type: ignore[type-var]
            known = [x for x in his if x is not None]
            return (None if None in los else min(los), min(known) if known else None)  # type: ignore[type-var]
        if k == ir.ITE:
            (l1, h1), (l2, h2) = self.iv[n.args[1]], self.iv[n.args[2]]
            return (None if l1 is None or l2 is None else min(l1, l2),
                    None if h1 is None or h2 is None else max(h1, h2))
        if k == ir.EMOD:
            bl, bh = self.iv[n.args[1]]
            return (0, None) if bl is None or bh is None else (0, max(abs(bl), abs(bh)) - 1)
        if k == ir.ISQRT:
            return isqrt_iv(self.iv[n.args[0]])
        if k == ir.BITFLOOR:
            return bitfloor_iv(self.iv[n.args[0]])
        return FULL

    # -------------------------------------------------------------- rules
    def _one(self, n: Term, a: list[Term]) -> Term:
        k = n.kind
        if k in (ir.CONST, ir.BCONST, ir.BSYM):
            return n
        if k == ir.SYM:
            r = n
        elif k == ir.ADD:
            r = fold_add(ir.mk_add(*a))
        elif k == ir.MUL:
            r = mul(a)
        elif k == ir.FLOORDIV:
            r = self._floordiv(a[0], a[1])
        elif k == ir.MOD:
            r = self._mod(a[0], a[1])
        elif k == ir.EDIV:
            r = ir.mk_ediv(a[0], a[1])
        elif k == ir.EMOD:
            r = ir.mk_emod(a[0], a[1])
        elif k in (ir.MAX, ir.MIN):
            r = self._extreme(k, a)
        elif k == ir.ITE:
            r = a[1] if a[0] is ir.TRUE else a[2] if a[0] is ir.FALSE else ir.mk_ite(a[0], a[1], a[2])
        elif k == ir.ISQRT:
            r = self._isqrt(a[0])
        elif k == ir.BITFLOOR:
            r = ir.mk_bitfloor(a[0])
        else:
            return self._bool(n, a)
        if QUASILINEAR and self.collapse and r.has_div and r.kind in (ir.FLOORDIV, ir.MOD, ir.ADD, ir.MUL):
            c = quasilinear.collapse(r)  # a one-symbol chain: one division (or none)
            if c is not None:
                r = c
        return self._settle(r)

    def _isqrt(self, x: Term) -> Term:
        """``isqrt(c**2 * y**2 * …)`` (each factor ``>= 0`` on its interval) is ``c * y * …``."""
        coefs, const = ir.linear(x)
        if const == 0 and len(coefs) == 1:
            ((m, c),) = coefs.items()
            r = math.isqrt(c) if c > 0 else -1
            factors = m.args if m.kind == ir.MUL else (m,)
            counts: dict[Term, int] = {}
            for f in factors:
                counts[f] = counts.get(f, 0) + 1
            if r * r == c and all(v % 2 == 0 for v in counts.values()) and \
                    all(self._nonnegative(f) for f in counts):
                return ir.mk_mul(ir.mk_int(r), *(f for f, v in counts.items() for _ in range(v // 2)))
        return ir.mk_isqrt(x)

    def _root_interval(self, e: Term) -> Interval:
        """``e``'s interval, narrowed where ``e = c*(s*s - x) + rest`` for ``s = isqrt(x)``:
        ``s*s <= x <= s*s + 2s`` (``isqrt(n)**2 <= n < (isqrt(n) + 1)**2``) puts ``e`` between
        ``rest`` and ``rest - 2c*s``, which the interval of the sum, adding ``s*s`` and ``-x``
        apart, does not see."""
        iv = self.interval(e)
        for m, c in ir.linear(e)[0].items():
            if not (m.kind == ir.MUL and len(m.args) == 2 and m.args[0] is m.args[1] and m.args[0].kind == ir.ISQRT):
                continue
            s = m.args[0]
            rest = ir.mk_sub(e, ir.mk_mul(ir.mk_int(c), ir.mk_sub(m, s.args[0])))
            if m in ir.linear(rest)[0]:
                continue  # x itself has s*s in it
            far = ir.mk_sub(rest, ir.mk_mul(ir.mk_int(2 * c), s))
            lo = self.interval(far if c > 0 else rest)[0]
            hi = self.interval(rest if c > 0 else far)[1]
            iv = (lo if iv[0] is None else iv[0] if lo is None else max(iv[0], lo),
                  hi if iv[1] is None else iv[1] if hi is None else min(iv[1], hi))
            if iv[0] is not None and iv[1] is not None and iv[0] > iv[1]:
                return FULL  # where nothing is defined: claim nothing
        return iv

    def _nonnegative(self, t: Term) -> bool:
        lo = self.interval(t)[0]
        return lo is not None and lo >= 0

    def _settle(self, r: Term) -> Term:
        """Facts about the finished integer term: a known value, a point interval."""
        if r.kind != ir.CONST:
            lo, hi = self.interval(r)
            if lo is not None and lo == hi:
                return ir.mk_int(lo)
        return r

    def _bool(self, n: Term, a: list[Term]) -> Term:
        k = n.kind
        if k == ir.LE:
            r = ir.mk_le(a[0], ir.ZERO)
        elif k == ir.EQ:
            r = ir.mk_eq(a[0], ir.ZERO)
        elif k == ir.NOT:
            r = ir.mk_not(a[0])
        elif k == ir.AND:
            r = ir.mk_and(*a)
        elif k == ir.OR:
            r = ir.mk_or(*a)
        elif k == ir.IFF:
            r = ir.mk_iff(a[0], a[1])
        else:
            raise AssertionError(k)
        if r.kind in (ir.LE, ir.EQ):
            r = self._cancel_factor(r)
        if QUASILINEAR and r.kind in (ir.LE, ir.EQ) and r.args[0].has_div:
            r = self._quasilinear(r)
        if r.kind in (ir.LE, ir.EQ):
            lo, hi = self._root_interval(r.args[0]) if r.args[0].has_div else self.interval(r.args[0])
            if r.kind == ir.LE:
                if hi is not None and hi <= 0:
                    return ir.TRUE
                if lo is not None and lo > 0:
                    return ir.FALSE
            else:
                if lo == 0 and hi == 0:
                    return ir.TRUE
                if (lo is not None and lo > 0) or (hi is not None and hi < 0) or self._excluded_zero(r.args[0]):
                    return ir.FALSE
        atoms = self.env.atoms
        if atoms:
            if any(self._ok(src) for src in atoms.get(r, ())):
                return ir.TRUE
            neg = self._negation_atom(r)
            if neg is not None and any(self._ok(src) for src in atoms.get(neg, ())):
                return ir.FALSE
        return r

    def _negation_atom(self, r: Term) -> Term | None:
        """``mk_not(r)``, or None when it cannot be an atom: the negation of ``e <= 0`` (``e``'s
        coefficients coprime, as ``mk_le`` leaves them) is ``-e + 1 <= 0`` exactly, so its
        linear form tells without building it; a ``Not`` node no one holds is no atom."""
        if r.kind == ir.LE:
            coefs, k = ir.linear(r.args[0])
            if math.gcd(*coefs.values()) == 1 and \
                    (frozenset((m, -c) for m, c in coefs.items()), 1 - k) not in self.env.le_forms():
                return None
        elif r.kind not in (ir.NOT, ir.BCONST):
            return ir.existing(ir.NOT, (r,))
        return ir.mk_not(r)

    def _quasilinear(self, r: Term) -> Term:
        """``f <= 0`` / ``f == 0`` for a one-symbol chain ``f``: decided residue class by residue
        class over the symbol's interval, else made linear when ``f = (s*x + k)//P + b``
        (``y//P <= m`` iff ``y <= P*m + P - 1``; ``y//P == m`` iff ``P*m <= y <= P*m + P - 1``)."""
        e = r.args[0]
        sh = quasilinear.shape(e)
        if sh is None:
            return r
        lo, hi = self.interval(ir.mk_sym(sh[0]))
        got = quasilinear.value_range(e, lo, hi)
        if got is not None:
            le, gt, zero = got
            if r.kind == ir.LE and le != gt:
                return ir.TRUE if le else ir.FALSE
            if r.kind == ir.EQ and not zero:
                return ir.FALSE
        c = quasilinear.collapse(e) if LINEARIZE else None
        if c is None:
            return r
        coefs, b = ir.linear(c)
        if len(coefs) != 1:
            return r
        (q, one), = coefs.items()
        if one != 1 or q.kind != ir.FLOORDIV or q.args[1].kind != ir.CONST:
            return r
        y, p = q.args[0], q.args[1].value
        m = -b
        if r.kind == ir.LE:  # y//p <= m
            return self.rewrite(ir.mk_le(ir.mk_add(y, ir.mk_int(-(p * m + p - 1))), ir.ZERO))
        return self.rewrite(ir.mk_and(ir.mk_le(ir.mk_int(p * m), y), ir.mk_le(y, ir.mk_int(p * m + p - 1))))

    def _cancel_factor(self, r: Term) -> Term:
        """Sign reasoning for products: ``f*Q == 0`` is ``Q == 0`` where ``f != 0``, and ``f*Q <= 0``
        is ``Q <= 0`` where ``f >= 1`` (``Q >= 0`` where ``f <= -1``). ``Ne(a*b, a)`` with ``a >= 1``
        becomes ``Ne(b, 1)``. ``f`` is a non-constant factor of a product monomial of the
        comparison's sum, and ``e = f*Q`` is checked as polynomials (``factor_out``)."""
        e = r.args[0]
        split: tuple[Term, Term] | None = None
        for f in _candidate_factors(e):
            lo, hi = self.interval(f)
            pos, negative = lo is not None and lo >= 1, hi is not None and hi <= -1
            if not (pos or negative or (r.kind == ir.EQ and 0 in self.excluded(f))):
                if r.kind == ir.EQ and split is None:
                    q = factor_out(e, f)
                    split = None if q is None else (f, q)
                continue
            q = factor_out(e, f)
            if q is None:
                continue
            if r.kind == ir.EQ:
                return self.rewrite(ir.mk_eq(q, ir.ZERO))
            if pos or negative:
                return self.rewrite(ir.mk_le(q, ir.ZERO) if pos else ir.mk_ge(q, ir.ZERO))
        if split is not None:
            # integers: f*Q == 0 iff f == 0 or Q == 0; taken when a side is decided by its interval
            # (f's can be 0: ``s//4`` with s >= 2), so the product becomes a plain comparison
            f, q = split
            zf, zq = self.rewrite(ir.mk_eq(f, ir.ZERO)), self.rewrite(ir.mk_eq(q, ir.ZERO))
            if ir.BCONST in (zf.kind, zq.kind):
                return ir.mk_or(zf, zq)
        if r.kind == ir.EQ and self._no_divisor(e):
            return ir.FALSE
        return r

    def _no_divisor(self, e: Term) -> bool:
        """``f*Q + k == 0`` (``k`` a non-zero literal, ``f`` a factor of every other monomial) has
        no integer point when ``|f| > |k|`` everywhere: ``f`` would divide ``k``. (``v1*(s//20 - 1)
        == 1`` with ``v1 >= 2``: a product of sizes is never 1 when one factor is at least 2.)"""
        coefs, k = ir.linear(e)
        if k == 0 or not coefs:
            return False
        body = ir.from_linear(coefs, 0)
        for f in _candidate_factors(e):
            lo, hi = self.interval(f)
            if ((lo is not None and lo > abs(k)) or (hi is not None and hi < -abs(k))) and \
                    factor_out(body, f) is not None:
                return True
        return False

    def _excluded_zero(self, e: Term) -> bool:
        """``c*m + k == 0`` where ``m != -k/c`` is a fact."""
        coefs, k = ir.linear(e)
        if len(coefs) != 1:
            return False
        (m, c), = coefs.items()
        return (-k) % c == 0 and (-k) // c in self.excluded(m)

    def _floordiv(self, a: Term, b: Term) -> Term:
        if b.kind == ir.CONST and b.value != 0:
            c = b.value
            coefs, const = ir.linear(a)
            g = math.gcd(content(coefs, const), c)
            if g > 1:  # (g*a')//(g*c') = a'//c'
                return self._floordiv(div_linear(coefs, const, g), ir.mk_int(c // g))
            pull = {m: v // c for m, v in coefs.items() if v % c == 0}
            t0, r0 = divmod(const, c)
            if pull or t0:
                rest = ir.from_linear({m: v for m, v in coefs.items() if m not in pull}, r0)
                return self._settle(ir.mk_add(ir.from_linear(pull, t0), self._floordiv(rest, b)))
            if a.kind == ir.FLOORDIV and a.args[1].kind == ir.CONST and a.args[1].value > 0 and c > 0:
                return self._floordiv(a.args[0], ir.mk_int(a.args[1].value * c))
            return self._settle(ir.mk_floordiv(a, b))
        a = self._squared(a, b)
        q = divide(a, b)
        if q is not None:
            return q
        shared = common_factor(a, b)
        if shared is not None:  # (g*a')//(g*b') = a'//b'
            return self._floordiv(shared[1], shared[2])
        split = _split_multiples(a, b)
        if split is not None:  # (b*q + r)//b = q + r//b
            return self._settle(fold_add(ir.mk_add(split[0], self._floordiv(split[1], b))))
        period = self._one_period(a, b)
        if period is not None:
            return ir.mk_int(period)
        return self._settle(ir.mk_floordiv(a, b))

    def _mod(self, a: Term, b: Term) -> Term:
        if b.kind == ir.CONST and b.value != 0:
            c = b.value
            coefs, const = ir.linear(a)
            out: dict[Term, int] = {}
            for m, v in coefs.items():
                inner = m.args[1] if m.kind == ir.MOD else None
                if inner is not None and inner.kind == ir.CONST and inner.value % c == 0:
                    ycoefs, yconst = ir.linear(m.args[0])  # Mod(y, k*c) ≡ y (mod c)
                    for y, w in ycoefs.items():
                        out[y] = out.get(y, 0) + v * w
                    const += v * yconst
                else:
                    out[m] = out.get(m, 0) + v
            kept = {m: v for m, v in out.items() if v % c != 0}
            const %= c
            if kept and const == 0 and all((v * self.divisor(m)) % c == 0 for m, v in kept.items()):
                return ir.ZERO  # every monomial is a known multiple of c (Mod(x, 8) == 0 facts)
            g = math.gcd(content(kept, const), c)
            if g > 1 and kept:  # Mod(g*a', g*c') = g*Mod(a', c')
                inner_mod = self._mod(div_linear(kept, const, g), ir.mk_int(c // g))
                return self._settle(ir.mk_mul(ir.mk_int(g), inner_mod))
            return self._settle(ir.mk_mod(ir.from_linear(kept, const), b))
        a = self._squared(a, b)
        if divide(a, b) is not None:
            return ir.ZERO
        shared = common_factor(a, b)
        if shared is not None:  # Mod(g*a', g*b') = g*Mod(a', b')
            return self._settle(mul([shared[0], self._mod(shared[1], shared[2])]))
        split = _split_multiples(a, b)
        if split is not None:  # Mod(b*q + r, b) = Mod(r, b)
            return self._mod(split[1], b)
        period = self._one_period(a, b)
        if period is not None:  # a = b*(a//b) + Mod(a, b)
            return a if period == 0 else self._settle(fold_add(ir.mk_add(a, b)))
        return self._settle(ir.mk_mod(a, b))

    def _squared(self, a: Term, b: Term) -> Term:
        """``a`` with ``x`` written ``s*s`` where ``s = isqrt(x)`` is a factor of the divisor ``b``
        and a fact says ``Eq(x, s**2)`` (a square grid's ``n`` tokens): ``a = v*s*s + (a - v*x)``,
        ``v`` the multiple of ``x`` that cancels one of its monomials in ``a``. Then the division
        rules see the multiples of ``s`` (``Mod(n, isqrt(n))`` is 0 there)."""
        roots = [f for f in (b.args if b.kind == ir.MUL else (b,)) if f.kind == ir.ISQRT]
        if not roots or not self.env.atoms:
            return a
        for s in roots:
            x = s.args[0]
            sq = ir.mk_mul(s, s)
            xc, _ = ir.linear(x)
            if not xc:
                continue
            m0 = min(xc, key=lambda m: m.skey)
            coefs, _ = ir.linear(a)
            v, r = divmod(coefs.get(m0, 0), xc[m0])
            if v and not r and any(self._ok(src) for src in self.env.atoms.get(ir.mk_eq(x, sq), ())):
                a = ir.mk_add(a, ir.mk_mul(ir.mk_int(v), ir.mk_sub(sq, x)))
        return a

    def divisor(self, m: Term) -> int:
        """A positive integer known to divide every value of ``m``: facts ``Mod(x, d) == 0`` for its
        factors (d | x, so the product of the factors' divisors divides the product)."""
        if m.kind == ir.CONST:
            return abs(m.value) or 1
        if m.kind == ir.MUL:
            d = 1
            for f in m.args:
                d *= self.divisor(f)
            return d
        if self._mod_facts is None:
            self._mod_facts = {}
            for key, facts in self.env.bounds.items():
                if key.kind == ir.MOD and key.args[1].kind == ir.CONST and key.args[1].value != 0:
                    for src, iv in facts:
                        if iv == (0, 0):
                            self._mod_facts.setdefault(key.args[0], []).append((src, abs(key.args[1].value)))
        best = 1
        for src, d in self._mod_facts.get(m, ()):
            lcm = best * d // math.gcd(best, d)
            if lcm != best and self._ok(src):
                best = lcm
        return best

    def _one_period(self, a: Term, b: Term) -> int | None:
        """``a // b`` when ``a`` stays within one period of ``b`` everywhere: 0 for ``0 <= a < b``
        (``b < a <= 0``), -1 for ``-b <= a < 0`` (``0 < a <= -b``); then ``Mod(a, b)`` is ``a``,
        respectively ``a + b``. Python's floor semantics for either sign of ``b``: ``-1 // 8 = -1``,
        ``Mod(-1, 8) = 7``; ``5 // -7 = -1``, ``Mod(5, -7) = -2``."""
        alo, ahi = self.interval(a)
        blo, bhi = self.interval(b)
        if blo is not None and blo >= 1:
            if alo is not None and alo >= 0:
                return 0 if self._below(a, b) else None
            if ahi is not None and ahi <= -1 and _at_least(self.interval(self.rewrite(ir.mk_add(a, b))), 0):
                return -1
        elif bhi is not None and bhi <= -1:
            if ahi is not None and ahi <= 0:
                return 0 if _at_least(self.interval(self.rewrite(ir.mk_sub(a, b))), 1) else None
            if alo is not None and alo >= 1 and _at_least(self.interval(self.rewrite(ir.mk_neg(ir.mk_add(a, b)))), 0):
                return -1
        return None

    def _below(self, a: Term, b: Term) -> bool:
        """``0 <= a < b`` everywhere (then ``a // b = 0`` and ``Mod(a, b) = a``)."""
        lo, _ = self.interval(a)
        if lo is None or lo < 0:
            return False
        r = divide(b, a)
        if r is not None and lo >= 1:  # b = a*r: b - a = a*(r - 1)
            rlo, _ = self.interval(self.rewrite(r))
            return rlo is not None and rlo >= 2
        if self.below is not None and self.below(b, a, 1):
            return False  # b - a < 1 at a point of the facts
        dlo, _ = self.interval(self.rewrite(ir.mk_sub(b, a)))
        return dlo is not None and dlo >= 1

    def _extreme(self, kind: str, a: list[Term]) -> Term:
        args = sorted(set(a))
        keep = []
        for x in args:
            dominated = False
            for y in args:
                if y is x:
                    continue
                if self.below is not None and (self.below(y, x, 0) if kind == ir.MAX else self.below(x, y, 0)):
                    continue  # y < x (Max) or y > x (Min) at a point of the facts: no domination
                lo, hi = self.interval(self.rewrite(ir.mk_sub(y, x)))
                if (kind == ir.MAX and lo is not None and lo >= 0) or (kind == ir.MIN and hi is not None and hi <= 0):
                    # y dominates x; of two equal ones keep the first in term order
                    if lo == hi == 0 and y > x:
                        continue
                    dominated = True
                    break
            if not dominated:
                keep.append(x)
        return ir.mk_max(*keep) if kind == ir.MAX else ir.mk_min(*keep)


def _at_least(iv: Interval, k: int) -> bool:
    return iv[0] is not None and iv[0] >= k


def _split_multiples(a: Term, b: Term) -> tuple[Term, Term] | None:
    """``(q, r)`` with ``a = b*q + r`` as polynomials, ``q`` the quotients of the monomials of ``a``
    that a symbolic ``b`` divides exactly (``r`` keeps the rest), or None when there are none or
    none are left over (exact division is ``divide``'s). Where ``b != 0``, ``b*q/b = q`` is an
    integer, so ``(b*q + r)//b = q + r//b`` and ``Mod(b*q + r, b) = Mod(r, b)``."""
    if b.kind == ir.CONST:
        return None
    coefs, const = ir.linear(a)
    q: list[Term] = []
    rest: dict[Term, int] = {}
    for m, v in coefs.items():
        d = divide(ir.mk_mul(ir.mk_int(v), m), b)
        if d is None:
            rest[m] = v
        else:
            q.append(d)
    if not q or (not rest and const == 0):
        return None
    return ir.mk_add(*q), ir.from_linear(rest, const)


def _candidate_factors(e: Term) -> list[Term]:
    """Non-constant factors of the product monomials of ``e``, in a deterministic order."""
    coefs, _ = ir.linear(e)
    seen: dict[Term, None] = {}
    for m in sorted(coefs, key=lambda t: t.skey):
        if m.kind == ir.MUL:
            for f in m.args:
                if f.kind != ir.CONST:
                    seen.setdefault(f, None)
    return list(seen)


def factor_out(e: Term, f: Term) -> Term | None:
    """``Q`` with ``e = f*Q`` exactly, or None. The monomials having ``f`` as a factor give
    ``f*Q1``; the rest must be ``c*f`` for a literal ``c`` (then ``Q = Q1 + c``)."""
    coefs, const = ir.linear(e)
    parts: list[Term] = []
    rest: dict[Term, int] = {}
    for m, v in coefs.items():
        fs = list(m.args) if m.kind == ir.MUL else [m]
        if m is not f and f in fs:
            fs.remove(f)
            parts.append(ir.mk_mul(ir.mk_int(v), *fs))
        elif m is f:
            parts.append(ir.mk_int(v))
        else:
            rest[m] = v
    if not parts:
        return None
    rest_t = ir.from_linear(rest, const)
    if rest_t is not ir.ZERO:
        fc, _ = ir.linear(f)
        if not fc:
            return None
        m0 = min(fc, key=lambda t: t.skey)
        v0 = (rest.get(m0, 0))
        if v0 % fc[m0]:
            return None
        c = v0 // fc[m0]
        if c == 0 or ir.mk_sub(rest_t, ir.mk_mul(ir.mk_int(c), f)) is not ir.ZERO:
            return None
        parts.append(ir.mk_int(c))
    return ir.mk_add(*parts)
