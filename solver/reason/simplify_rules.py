"""Canonical forms of size expressions under a context: the rules behind ``simplify``.

Two kinds of steps, applied bottom-up over the expression's DAG:

1. **By construction** — ``rewrite.Rewriter`` under the context's facts (ranges, asserts and
   guards all hold wherever a form is used): ``s - Mod(s, 4) -> 4*(s//4)``, exact division,
   content, one-period ``Mod``, dominated ``Max``/``Min``, decided comparisons. Plus the identities
   below, true at every point where the divisor ``b`` is non-zero (the expression's domain):

   * ``(b*q + r)//b = q + r//b`` and ``Mod(b*q + r, b) = Mod(r, b)`` for a symbolic ``b``
     (``b*q/b = q`` is an integer, so the floor moves past it);
   * ``Mod(Mod(x, b*k), b) = Mod(x, b)`` (``Mod(x, b*k) = x - b*k*(x//(b*k))`` differs from ``x`` by a
     multiple of ``b``).

2. **Proposed, then proven** — rules that hold only under a side condition about the context.
   The condition goes to ``Oracle.holds`` (facts, then points that may refute it, then z3); the
   step is taken only when it is proven for every point of the context where the expression is
   defined, so the composed form is proven equal to its input:

   * ``Mod(a, b) -> a`` when ``0 <= a < b``; ``a//b -> 0`` likewise;
   * ``(x//a)//b -> x//(a*b)`` when ``a > 0`` and ``b > 0`` (floor(floor(x/a)/b) = floor(x/(ab)));
   * ``k*b*(x//b) -> k*x`` when ``Mod(x, b) == 0`` (``x = b*(x//b) + Mod(x, b)``), which turns
     ``8*CeilDiv(s, 8)`` into ``s`` when ``8 | s``;
   * ``Max(x, y, …) -> Max(y, …)`` when ``x <= y`` (``Min`` dually); ``Piecewise`` with a decided
     condition -> its branch; a condition decided by the context -> ``True``/``False``;
   * any division, ``Max``/``Min``/``Piecewise`` or whole expression that takes one value at every
     sample point -> that constant (``Oracle.guess`` proposes, ``Oracle.holds`` proves ``e == c``).

3. **Round 2** (each in a module of its own, called from the rules above):
   ``simplify_divisibility`` (``d | e`` from the context carried through sums, products and
   exact quotients: ``(e + r)//d``, ``Mod(e + r, d)``, ``(h//7)*(w//7) = (h*w)//49``),
   ``index_algebra`` (mixed-radix digits merged and split), ``simplify_algebra`` (comparisons of
   divisions, bounded rests, common divisors, residues, two-valued quotients, Min/Max, conjunctions).

Every step keeps or lowers the cost, so the result is no costlier than the input (``Simplifier``
returns the input when a cheaper spelling is not found).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import holds
from symguard.solver.ir.terms import Term
from symguard.solver.reason import index_algebra
from symguard.solver.reason import simplify_algebra as alg
from symguard.solver.reason import simplify_equalities as eqs
from symguard.solver.reason import simplify_identities as ident
from symguard.solver.reason import simplify_intervals as one_term
from symguard.solver.reason import simplify_sums as sums
from symguard.solver.reason.facts import Env, Interval
from symguard.solver.reason.intervals import meet
from symguard.solver.reason.polynomials import divide, mul_iv
from symguard.solver.reason.rewrite import WALK_BY_CALLS, Rewriter
from symguard.solver.reason.simplify_divisibility import Divisibility
from symguard.solver.reason.simplify_terms import cheaper, rebuild

MAX_PASSES = 4  # rule rounds per node (each round strictly changes the node; four is ample)
MAX_EXTREME_ARGS = 8  # Max/Min arguments compared pairwise through the oracle
MAX_ENUMERATED = 64  # values of a one-symbol condition's range evaluated by ``_enumerated``
DECIDE_DEPTH = 2  # floor divisions eliminated from one comparison by ``Decider``


class Oracle(Protocol):
    """What the context decides; ``holds`` must only answer True when it is proven."""

    def holds(self, cond: Term) -> bool: ...

    def guess(self, t: Term, least: int = 2) -> int | bool | None:
        """The value ``t`` takes at every known point of the context and the domain, when at least
        ``least`` agree (one is enough for a rule whose proof is cheap)."""
        ...

    def false_seen(self, cond: Term) -> bool:
        """The condition is false at a known point of the context and the domain (a lookup, no
        search): no sound procedure proves it."""
        ...

    def varies(self, cond: Term) -> bool:
        """The condition is true at one known point of the context and the domain and false at another."""
        ...

    def fails(self, pred: Callable[..., bool], terms: tuple[Term, ...]) -> bool:
        """``pred`` of the terms' values is false at a known point of the context and the domain
        where every one is defined: then so is any condition that is ``pred`` of those terms
        (``false_seen``), found without building it."""
        ...


@dataclass
class Outcome:
    term: Term
    proposed: int = 0  # steps that needed the oracle (proven there)


class Simplifier:
    """Simplifies terms under one context (one ``Env`` and one ``Oracle``); memoized."""

    def __init__(self, env: Env | Rewriter, oracle: Oracle, decider: Decider | None = None,
                 div: Divisibility | None = None) -> None:
        self.rw = env if isinstance(env, Rewriter) else Rewriter(env)
        self.decider = decider if decider is not None else Decider(self.rw)
        self.oracle = oracle
        self.div = div if div is not None else Divisibility(())
        self.memo: dict[Term, Term] = {}
        self.proposed = 0
        self._inner = False  # in ``_new_quotients``: no second level

    def simplify(self, t: Term) -> Outcome:
        before = self.proposed
        if t.is_bool:  # as written, before rewriting changes its spelling: a guard asked again
            known = self.decider.fact(t)
            if known is not None:
                return Outcome(ir.TRUE if known else ir.FALSE)
        r = self.rw.rewrite(t)
        memo = self.memo
        if r.size <= WALK_BY_CALLS:
            if r not in memo:
                self._down(r)
            return Outcome(memo[r], self.proposed - before)
        stack: list[tuple[Term, bool]] = [(r, False)]
        while stack:  # children first, stopping at subterms simplified before (this request)
            n, ready = stack.pop()
            if n in memo:
                continue
            if ready:
                memo[n] = self._node(n, [memo[a] for a in n.args])
                continue
            stack.append((n, True))
            stack.extend((a, False) for a in reversed(n.args) if a not in memo)
        return Outcome(memo[r], self.proposed - before)

    def _down(self, n: Term) -> None:
        """``simplify``'s walk by recursion, for a small term: the same order (children first, left
        to right), without a stack of pairs."""
        memo = self.memo
        for a in n.args:
            if a not in memo:
                self._down(a)
        memo[n] = self._node(n, [memo[a] for a in n.args])

    # -------------------------------------------------------------- one node
    def _node(self, n: Term, a: list[Term]) -> Term:
        if n.kind == ir.ITE:  # as read: its children's rewriting respells the selects
            nested = ident.nested_truncdiv(n)
            if nested is not None:
                return self.simplify(nested).term
        m = self.rw.rewrite(rebuild(n, a)) if a else n
        if m.kind in (ir.ADD, ir.MUL) and m is not n and not self._inner:
            m = self._new_quotients(m)
        for _ in range(MAX_PASSES):
            nxt = self._step(m)
            if nxt is m:
                break
            m = self.rw.rewrite(nxt)
            if m.kind in (ir.ADD, ir.MUL) and not self._inner:  # a rule's new quotients (``2*Mod(3*x, 2)``)
                m = self._new_quotients(m)
        return m

    def _new_quotients(self, m: Term) -> Term:
        """A sum or product the rewriter or a rule made of a node (``(s*t + s*y + r)//(s*t)`` is
        ``(s*y + r)//(s*t) + 1``; ``Mod(6*x + 4, 4)`` is ``2*Mod(3*x, 2)``) has quotients no rule
        has seen, as arguments or factors of arguments: each goes through the rules once (not
        recursively)."""
        fresh = {x for a in m.args for x in (a.args if a.kind == ir.MUL else (a,))
                 if x.kind in (ir.FLOORDIV, ir.MOD) and x not in self.memo}
        if not fresh:
            return m
        self._inner = True
        try:
            done = {x: self._node(x, list(x.args)) for x in fresh}
        finally:
            self._inner = False
        if all(done[x] is x for x in fresh):
            return m

        def swap(a: Term) -> Term:
            if a.kind == ir.MUL:
                return rebuild(a, [done.get(x, x) for x in a.args])
            return done.get(a, a)
        return self.rw.rewrite(rebuild(m, [swap(a) for a in m.args]))

    def _step(self, m: Term) -> Term:
        k = m.kind
        if k in (ir.CONST, ir.BCONST, ir.SYM, ir.BSYM):
            return m
        if m.is_bool:
            d = self._decide(m)
            if d is not m:
                return d
            rule = _BOOL_RULES.get(k)
            got = rule(self, m) if rule is not None else None
            return m if got is None else got
        rule = _RULES.get(k)
        if rule is not None:
            r = rule(self, m)
            if r is not m:
                return r
        if k in _GUESSED or (k in (ir.ADD, ir.MUL) and (m.has_div or any(n.kind in _GUESSED for n in m.args))):
            return self._constant(m)
        return m

    def _proven(self, cond: Term) -> bool:
        """Structure first (``Decider``: facts, intervals, factored products, floor divisions
        eliminated — microseconds), the oracle (points, then z3) only when that cannot tell.
        A condition already false at a known point of the context is not proven by anything,
        so it is not asked (the same answer, without the rewriting a decision costs)."""
        if self.oracle.false_seen(cond):
            return False
        got = self.decider.decide(cond)
        if got is not None:
            return got
        ok = self.oracle.holds(cond)
        if ok:
            self.proposed += 1
        return ok

    def _proven_of(self, pred: Callable[..., bool], terms: tuple[Term, ...], cond: Callable[[], Term]) -> bool:
        """``_proven(cond())`` for a condition that is ``pred`` of ``terms``' values: a known point
        where it fails answers False first, before the condition is built (the interning of a
        new conjunction and its normalization cost more than the lookup)."""
        if self.oracle.fails(pred, terms):
            return False
        return self._proven(cond())

    def _within(self, a: Term, b: Term) -> bool:
        """``0 <= a < b`` is proven. Not when the intervals (sound wherever the facts hold) put ``a``
        below 0 or at ``b``'s largest value or above: the decider would find it false after the
        sample points' values were computed to show it (a size's quotient, ``s//2`` with
        ``s >= 2``, asks this of every new size)."""
        alo, ahi = self.rw.interval(a)
        bhi = self.rw.interval(b)[1]
        if (ahi is not None and ahi < 0) or (alo is not None and bhi is not None and alo >= bhi):
            return False
        return self._proven_of(_within, (a, b), lambda: ir.mk_and(ir.mk_le(ir.ZERO, a), ir.mk_lt(a, b)))

    def _decide(self, m: Term) -> Term:
        if m.kind in (ir.LE, ir.EQ, ir.NOT, ir.AND, ir.OR, ir.IFF):
            if self.oracle.varies(m):  # true at one point of the context, false at another
                return m
            got = self.decider.decide(m)
            if got is not None:
                return ir.TRUE if got else ir.FALSE
            g = self.oracle.guess(m)
            if g is True and self._proven(m):
                return ir.TRUE
            if g is False and self._proven(ir.mk_not(m)):
                return ir.FALSE
        return m

    def _constant(self, m: Term) -> Term:
        g = self.oracle.guess(m)
        if isinstance(g, int) and not isinstance(g, bool) and self._proven(ir.mk_eq(m, ir.mk_int(g))):
            return ir.mk_int(g)
        return m

    # -------------------------------------------------------------- rules
    def _le(self, m: Term) -> Term | None:
        return (ident.signed_squares(m) or alg.compare_division(m) or alg.compare_bounded(m, self.rw.interval)
                or self._divided_bound(m)
                or self._trunc_bound(m) or self._one_term(m) or self._common_factor(m))

    def _divided_bound(self, m: Term) -> Term | None:
        """``x//d + r <= 0`` with a symbolic ``d > 0`` (proven): ``x + r*d + 1 <= d`` (``x//d <= -r``
        iff ``x < (1 - r)*d``), and ``r - x//d <= 0`` as ``r*d <= x``; when cheaper. With
        ``d < 0`` (proven) the division turns the inequality: ``x//d <= z`` iff ``x/d < z + 1`` iff
        ``x >= d*z + d + 1``, and ``x//d >= z`` iff ``x <= d*z``."""
        coefs, k = ir.linear(m.args[0])
        for q, c in coefs.items():
            if q.kind != ir.FLOORDIV or c not in (1, -1) or q.args[1].kind == ir.CONST:
                continue
            rest = {n: v for n, v in coefs.items() if n is not q}
            if any(n.has_div for n in rest):
                continue
            x, d = q.args
            rd = expand(ir.mk_mul(ir.from_linear(rest, k), d))
            if self._proven_of(_positive, (d,), lambda: ir.mk_lt(ir.ZERO, d)):  # noqa: B023 - called at once
                new = ir.mk_le(ir.mk_add(x, rd, ir.ONE), d) if c == 1 else ir.mk_le(rd, x)
            elif self._proven_of(_negative, (d,), lambda: ir.mk_lt(d, ir.ZERO)):  # noqa: B023
                # c == 1: x//d <= -r, so x >= -r*d + d + 1; c == -1: x//d >= r, so x <= r*d
                new = ir.mk_le(ir.mk_add(d, ir.ONE), ir.mk_add(x, rd)) if c == 1 else ir.mk_le(x, rd)
            else:
                continue
            if cheaper(new, m):
                return new
        return None

    def _sign(self, d: Term) -> int:
        """1 when ``d > 0`` is proven, -1 when ``d < 0`` is, 0 otherwise."""
        if self._proven_of(_positive, (d,), lambda: ir.mk_lt(ir.ZERO, d)):
            return 1
        if self._proven_of(_negative, (d,), lambda: ir.mk_lt(d, ir.ZERO)):
            return -1
        return 0

    def _trunc_bound(self, m: Term) -> Term | None:
        """``±TruncDiv(x, d) + r <= 0`` (``r`` without divisions) with the sign of ``d`` proven and
        the bound's side of zero proven: one bound on ``x``. ``TruncDiv`` reads as
        ``Piecewise((x//d, x*d >= 0), (CeilDiv(x, d), True))``; it is recognized as that term
        under the context (the rewriter's spelling of ``mk_truncdiv(x, d)``), whatever its
        divisor. ``trunc(x/d) >= z`` is, for ``d > 0``: ``x >= z*d`` when ``z >= 1`` (only the
        floor branch reaches ``z``), ``x > (z - 1)*d`` when ``z <= 0`` (only the ceiling branch can
        fall below it); for ``d < 0`` the same of ``-x`` and ``-d``: ``x <= z*d``, ``x < z*d - d``.
        ``trunc(x/d) <= z`` is the negation of ``trunc(x/d) >= z + 1``."""
        coefs, k = ir.linear(m.args[0])
        for t, c in coefs.items():
            if t.kind != ir.ITE or c not in (1, -1):
                continue
            then = t.args[1]
            if then.kind != ir.FLOORDIV:
                continue
            x, d = then.args
            if self.rw.rewrite(ir.mk_truncdiv(x, d)) is not t:
                continue
            rest = {n: v for n, v in coefs.items() if n is not t}
            if any(n.has_div or n.kind == ir.ITE for n in rest):
                continue
            r = ir.from_linear(rest, k)
            # c == -1: trunc >= r; c == 1: trunc <= -r, the negation of trunc >= 1 - r
            z = r if c == -1 else ir.mk_sub(ir.ONE, r)
            sd = self._sign(d)
            if not sd:
                continue
            if self._proven_of(_positive, (z,), lambda: ir.mk_lt(ir.ZERO, z)):  # noqa: B023
                zd = expand(ir.mk_mul(z, d))
                ge = ir.mk_le(zd, x) if sd > 0 else ir.mk_le(x, zd)
            elif self._proven_of(_non_positive, (z,), lambda: ir.mk_le(z, ir.ZERO)):  # noqa: B023
                zd = expand(ir.mk_mul(ir.mk_sub(z, ir.ONE), d))
                ge = ir.mk_lt(zd, x) if sd > 0 else ir.mk_lt(x, zd)
            else:
                continue
            new = ge if c == -1 else ir.mk_not(ge)
            if new.kind == ir.BCONST or cheaper(new, m):
                return new
        return None

    def _one_term(self, m: Term) -> Term | None:
        """A condition on one term through affine maps, floor divisions by literals and
        ``Piecewise`` (``TruncDiv``): the interval it says, when that prints cheaper
        (``simplify_intervals``)."""
        if not (m.has_div or m.kind in (ir.AND, ir.OR, ir.NOT)):
            return None
        got = one_term.solve(m) or self._enumerated(m)
        if got is None:
            return None
        t, spans = got
        new = one_term.render(t, spans, self.rw.interval(t))
        return new if new is not None and (new.kind == ir.BCONST or cheaper(new, m)) else None

    def _enumerated(self, m: Term) -> tuple[Term, one_term.Spans] | None:
        """A condition on one symbol whose range holds at most ``MAX_ENUMERATED`` values and whose
        divisors are non-zero literals (``And(12 <= x, Mod(x, 4) <= 0)`` on ``[-13, 13]``, where a
        bound the range clipped has left no quotient equation to join): its set, by evaluating it
        at every value of the range (exact: outside the range the symbol never is)."""
        syms = ir.symbols_of(m)
        if len(syms) != 1 or ir.may_divide_by_zero(m):
            return None
        name = next(iter(syms))
        x = ir.mk_sym(name)
        lo, hi = self.rw.interval(x)
        if lo is None or hi is None or hi - lo >= MAX_ENUMERATED:
            return None
        spans: list[tuple[int, int]] = []
        for v in range(lo, hi + 1):
            if holds(m, {name: v}):
                if spans and spans[-1][1] == v - 1:
                    spans[-1] = (spans[-1][0], v)
                else:
                    spans.append((v, v))
        return x, tuple(spans)

    def _bool_rule(self, m: Term) -> Term | None:
        k = m.kind
        if k == ir.AND:
            got = ident.absorbed(m) or alg.conjunction(m) or self._quotient_interval(m) or self._implied_operand(m)
        elif k == ir.OR:
            got = ident.absorbed(m) or alg.disjunction(m) or self._implied_operand(m)
        elif k == ir.EQ:
            got = self._common_factor(m)
        else:
            got = ident.de_morgan(m)
        return got if got is not None else self._one_term(m)

    def _implied_operand(self, m: Term) -> Term | None:
        """An ``And`` operand the others imply goes (``A -> b``: ``A & b = A``), and an ``Or``
        operand that implies the others (``b -> A``: ``A | b = A``): ``Or(x < 10, y > 0)`` under
        ``x < 3``, ``Eq(x % 2, 0)`` under ``Eq(x % 4, 0)``, ``x + y < 10`` under ``x < 4, y < 4`` with
        ``x, y >= 0``. Each implication proven under the context, against the operands still kept
        (of two equivalent operands one stays; what a dropped one implied the kept ones imply).
        Not when an operand may divide by zero: an operand is then also a domain condition, and
        its place in the evaluation order matters."""
        args = m.args
        if len(args) > MAX_IMPLIED_OPERANDS or any(ir.may_divide_by_zero(a) for a in args):
            return None
        conj = m.kind == ir.AND
        keep = list(args)
        for b in args:
            rest = [a for a in keep if a is not b]
            # And: Implies(And(rest), b); Or: Implies(b, Or(rest))
            if self._proven(ir.mk_or(ir.mk_not(ir.mk_and(*rest)), b) if conj else ir.mk_or(ir.mk_not(b), *rest)):
                keep.remove(b)
        if len(keep) == len(args):
            return None
        return ir.mk_and(*keep) if conj else ir.mk_or(*keep)

    def _quotient_interval(self, m: Term) -> Term | None:
        """``Eq(x//d, q)`` with the bounds of ``Mod(x, d)`` in one conjunction, for a symbolic ``d``
        (its sign proven) or a symbolic ``q`` (without divisions): the equation is the interval
        ``d*q <= x <= d*q + d - 1`` (``d > 0``; ``d*q + d + 1 <= x <= d*q`` for ``d < 0``), and
        under it ``Mod(x, d) = x - d*q`` (``x = d*(x//d) + Mod(x, d)``), so each bound of the
        remainder is a bound of ``x``. An end of the interval a remainder bound implies goes
        (proven: the bounds compared under the context). Taken when cheaper."""
        parts = list(m.args)
        for eq in parts:
            if eq.kind != ir.EQ:
                continue
            coefs, k = ir.linear(eq.args[0])
            quot = [(t, c) for t, c in coefs.items() if t.kind == ir.FLOORDIV and c in (1, -1)]
            if len(quot) != 1:
                continue
            t, c = quot[0]
            rest = {n: v for n, v in coefs.items() if n is not t}
            if any(n.has_div for n in rest):
                continue
            x, d = t.args
            if d.kind == ir.CONST and not rest:
                continue  # a literal equation: ``conjunction``'s
            q = ir.from_linear({n: -c * v for n, v in rest.items()}, -c * k)  # x//d == q
            r = ir.mk_mod(x, d)
            mods = [a for a in parts if a is not eq and a.kind == ir.LE and r in ir.linear(a.args[0])[0]]
            if not mods:
                continue
            sd = self._sign(d)
            if not sd:
                continue
            dq = expand(ir.mk_mul(d, q))
            if sd > 0:
                ends = [ir.mk_le(dq, x), ir.mk_le(x, ir.mk_add(dq, d, ir.mk_int(-1)))]
            else:
                ends = [ir.mk_le(ir.mk_add(dq, d, ir.ONE), x), ir.mk_le(x, dq)]
            moved = []
            for a in mods:
                mc, mk = ir.linear(a.args[0])
                v = mc[r]
                other = {n: w for n, w in mc.items() if n is not r}
                moved.append(ir.mk_le(expand(ir.mk_add(ir.from_linear(other, mk), ir.mk_mul(ir.mk_int(v), ir.mk_sub(x, dq)))), ir.ZERO))
            kept = [e for e in ends if not any(self._implies(b, e, x) for b in moved)]
            others = [a for a in parts if a is not eq and a not in mods]
            new = ir.mk_and(*kept, *moved, *others)
            if new.kind == ir.BCONST or cheaper(new, m):
                return new
        return None

    def _implies(self, a: Term, b: Term, x: Term) -> bool:
        """``a`` implies ``b`` for two bounds ``±x + s <= 0`` on the same side of ``x``: the other
        bound's rest is no larger (proven under the context)."""
        if a.kind != ir.LE or b.kind != ir.LE:
            return False
        ac, ak = ir.linear(a.args[0])
        bc, bk = ir.linear(b.args[0])
        ca, cb = ac.get(x), bc.get(x)
        if ca is None or ca != cb or ca not in (1, -1):
            return False
        sa = ir.from_linear({n: v for n, v in ac.items() if n is not x}, ak)
        sb = ir.from_linear({n: v for n, v in bc.items() if n is not x}, bk)
        return self._proven(ir.mk_le(sb, sa))  # x + sa <= 0 and sb <= sa give x + sb <= 0

    def _mod(self, m: Term) -> Term:
        a, b = m.args
        if a is ir.ZERO:  # Mod(0, b) = 0 wherever b != 0
            return a
        got = alg.mod_of_residues(m) or ident.mod_coefficients(m) or ident.polynomial_residue(m)
        if got is not None:
            return got
        got = sums.small_rest(m, self.rw.interval)
        if got is not None:
            return got
        if b.kind == ir.CONST and b.value > 0 and self.div:
            coefs, const = ir.linear(a)
            if coefs and self.div.divides(b.value, ir.from_linear(coefs, 0)):  # Mod(e + r, d) = Mod(r, d) when d | e
                return ir.mk_int(const % b.value)
            keep = {t: v for t, v in coefs.items() if not self.div.divides(b.value, ir.mk_mul(ir.mk_int(v), t))}
            if len(keep) < len(coefs):  # ... for a symbolic r too
                return ir.mk_mod(ir.from_linear(keep, const), b)
        rest = _drop_multiples(a, b)
        if rest is not None:  # Mod(b*q + r, b) = Mod(r, b)
            return ir.mk_mod(rest, b)
        got = self._symbolic_rest(m)
        if got is not None:
            return got
        if a.kind == ir.MOD and exact(a.args[1], b) is not None:  # Mod(Mod(x, b*k), b) = Mod(x, b)
            return ir.mk_mod(a.args[0], b)
        if self._within(a, b):
            return a
        g = self._fixed_quotient(a, b)  # Mod(a, b) = a - b*(a//b)
        if g is not None:
            got = expand(ir.mk_sub(a, ir.mk_mul(ir.mk_int(g), b)))
            if cheaper(got, m):
                return got
        if b.kind == ir.CONST and b.value > 0:  # a within one block [q*d, q*d + d - 1]: Mod(a, d) = a - q*d
            lo, hi = self.rw.interval(a)
            if lo is not None and hi is not None and lo // b.value == hi // b.value:
                got = ir.mk_add(a, ir.mk_int(-(lo // b.value) * b.value))
                if cheaper(got, m):
                    return got
        return m

    def _floordiv(self, m: Term) -> Term:
        a, b = m.args
        if a is ir.ZERO:
            return a
        # FloorDiv(ModularIndexing(x, 1, 64), 8) = ModularIndexing(x, 8, 8); (8*x + 7)//16 = x//2
        got = (index_algebra.split(m) or alg.floordiv_gcd(m) or alg.two_valued(m, self.rw.interval)
               or sums.small_rest(m, self.rw.interval) or ident.quotient_of_remainders(m))
        if got is not None:
            return got
        if b.kind == ir.CONST and b.value > 0 and self.div:
            coefs, const = ir.linear(a)
            e = ir.from_linear(coefs, 0)
            if coefs and self.div.divides(b.value, e):  # (e + r)//d = e//d + r//d when d | e
                if const:
                    return ir.mk_add(ir.mk_floordiv(e, b), ir.mk_int(const // b.value))
                if all(v < 0 for v in coefs.values()):  # an exact quotient: (-e)//d = -(e//d)
                    return ir.mk_neg(ir.mk_floordiv(ir.mk_neg(e), b))
        split = _split_multiples(a, b)
        if split is not None:  # (b*q + r)//b = q + r//b
            q, r = split
            rq = ir.mk_floordiv(r, b)  # (a new node: the rules above do not see it again)
            return ir.mk_add(q, self._symbolic_rest(rq) or rq)
        got = self._symbolic_rest(m)
        if got is not None:
            return got
        got = self._nested_quotient(m)
        if got is not None:
            return got
        if self._within(a, b):
            return ir.ZERO
        g = self._fixed_quotient(a, b)
        return m if g is None else ir.mk_int(g)

    def _fixed_quotient(self, a: Term, b: Term) -> int | None:
        """The quotient ``g`` of ``a//b`` the sample points show, when it is the same everywhere:
        ``0 <= a - g*b < b`` (then ``b > 0`` and ``g*b`` is the largest multiple of ``b`` not above
        ``a``) or ``0 <= g*b - a < -b`` (``b < 0``: ``g*b`` the smallest not below ``a``) proven —
        linear bounds for a literal ``g`` even when ``b`` is a symbol (``CeilDiv(x, y) = 1`` for
        ``1 <= x <= y``; ``Mod(x, y) = x - y`` for ``y <= x < 2*y``). ``g = 0`` is ``_within``'s."""
        g = self.oracle.guess(ir.mk_floordiv(a, b), least=1)
        if not isinstance(g, int) or isinstance(g, bool) or g == 0:
            return None
        r = expand(ir.mk_sub(a, ir.mk_mul(ir.mk_int(g), b)))
        if self._within(r, b) or self._within(ir.mk_neg(r), ir.mk_neg(b)):
            return g
        return None

    def _nested_quotient(self, m: Term) -> Term | None:
        """``(x//c + R)//b -> (x + c*R)//(c*b)`` for an integer ``R`` (``0`` included) and ``b > 0``
        (proven; ``c`` of either sign): ``x//c + R = floor(x/c + R)``, and
        ``floor(floor(q)/b) = floor(q/b)`` for a real ``q`` and an integer ``b > 0``. With ``R``,
        only when cheaper."""
        a, b = m.args
        coefs, k = ir.linear(a)
        for q, v in coefs.items():
            if q.kind != ir.FLOORDIV or v != 1:
                continue
            x, c = q.args
            if not self._proven_of(_positive, (b,), lambda: ir.mk_lt(ir.ZERO, b)):
                return None
            r = ir.from_linear({n: w for n, w in coefs.items() if n is not q}, k)
            got = ir.mk_floordiv(ir.mk_add(x, expand(ir.mk_mul(c, r))), expand(ir.mk_mul(c, b)))
            if r is ir.ZERO or cheaper(got, m):
                return got
        return None

    def _symbolic_rest(self, m: Term) -> Term | None:
        """``(f*Q + R)//(f*g) -> Q//g`` and ``Mod(f*Q + R, f*g) -> f*Mod(Q, g) + R`` for a factor ``f``
        of a symbolic divisor, when ``0 <= R < f`` and ``g > 0`` are proven: ``floor(n/(f*g)) =
        floor(floor(n/f)/g)`` for ``g > 0``, and ``floor((f*Q + R)/f) = Q`` (``sums.small_rest`` is
        the literal case, bounded by intervals). The ``Mod`` only when it prints cheaper."""
        a, b = m.args
        if b.kind not in (ir.MUL, ir.ADD) or a.kind != ir.ADD:
            return None
        for f in _common_factors(b):
            g = divide(b, f)
            split = _split_multiples(a, f) if g is not None else None
            if g is None or split is None:
                continue
            q, r = split
            pos = ir.mk_lt(ir.ZERO, g)
            if r is ir.ZERO or not self._within(r, f) or not self._proven_of(_positive, (g,), lambda: pos):  # noqa: B023
                continue
            if m.kind == ir.FLOORDIV:
                return ir.mk_floordiv(q, g)
            got = ir.mk_add(ir.mk_mul(f, ir.mk_mod(q, g)), r)
            return got if cheaper(got, m) else None
        return None

    def _add(self, m: Term) -> Term:
        """``q*b*(x//b) + q*Mod(x, b) -> q*x`` (an identity), else ``q*b*(x//b) -> q*x`` when
        ``Mod(x, b) == 0`` is proven; products of sums are expanded (one polynomial spelling)."""
        if m.kind == ir.MUL:
            merged = self._exact_product(m)
            if merged is not m:
                return merged
            got = alg.extremes_in_product(m) or sums.same_condition(m) or alg.small_powers(m, self.rw.interval)
            if got is not None:
                return got
            expanded = expand(m)
            if expanded is not m:
                return expanded
        coefs, const = ir.linear(m)
        if not m.has_div and not any(n.kind in _SUMMED for n in coefs):
            return m  # (every rule below reads a division, an extreme or a Piecewise among the monomials)
        if len(coefs) > 1:
            got = (ident.halves(coefs, const) or index_algebra.merge_digits(coefs, const) or alg.extremes_in_sum(coefs, const)
                   or index_algebra.digit_differences(coefs, const) or ident.complete_residues(coefs, const)
                   or alg.quotient_pairs(coefs, const, self.rw.interval) or self._digits(coefs, const)
                   or sums.into_extreme(coefs, const) or sums.quotient_with_remainder(coefs, const)
                   or sums.quotient_with_line(coefs, const, self.rw.interval)
                   or sums.scaled_quotient(coefs, const) or sums.same_condition(m)
                   or ident.remainder_of_product(coefs, const) or ident.summand_into_select(coefs, const))
        else:  # one monomial: no two digits to merge, no pair of quotients
            got = alg.extremes_in_sum(coefs, const) or (
                (sums.into_extreme(coefs, const) or ident.summand_into_select(coefs, const)) if const else None)
        if got is not None:
            return got
        for group, q, x, b in _scaled_floordivs(coefs):
            rem = ir.mk_mul(q, ir.mk_mod(x, b))
            rc, _ = ir.linear(rem)
            if len(rc) == 1 and all(coefs.get(r) == v and r not in group for r, v in rc.items()):
                rest = {n: v for n, v in coefs.items() if n not in group and n not in rc}
                return ir.mk_add(ir.from_linear(rest, const), ir.mk_mul(q, x))
            r = ir.mk_mod(x, b)
            if (b.kind == ir.CONST and self.div.divides(b.value, x)) or self._proven_of(
                    _zero, (r,), lambda: ir.mk_eq(r, ir.ZERO)):  # noqa: B023 - called at once
                rest = {n: v for n, v in coefs.items() if n not in group}
                return ir.mk_add(ir.from_linear(rest, const), ir.mk_mul(q, x))
        return m

    def _exact_product(self, m: Term) -> Term:
        """``(x1//d1)*(x2//d2)*… -> (x1*x2*…)//(d1*d2*…)`` when each ``di > 0`` divides its ``xi``
        (``Divisibility``): the quotients are exact, so is their product."""
        if not self.div:
            return m
        exact_q, rest = [], []
        for f in m.args:
            if f.kind == ir.FLOORDIV and f.args[1].kind == ir.CONST and f.args[1].value > 0 \
                    and self.div.divides(f.args[1].value, f.args[0]):
                exact_q.append(f)
            else:
                rest.append(f)
        if len(exact_q) < 2:
            return m
        num = ir.mk_mul(*(f.args[0] for f in exact_q))
        den = math.prod(f.args[1].value for f in exact_q)
        return ir.mk_mul(*rest, ir.mk_floordiv(num, ir.mk_int(den)))

    def _digits(self, coefs: dict[Term, int], const: int) -> Term | None:
        """``c*Mod(x, a) + c*a*Mod(x//a, b) -> c*Mod(x, a*b)`` for a literal ``a > 0`` and ``b > 0``: two
        mixed-radix digits of ``x`` are one. From ``x = a*(x//a) + Mod(x, a)``,
        ``x//a = b*(x//(a*b)) + Mod(x//a, b)`` (``(x//a)//b = x//(a*b)`` for positive ``a``, ``b``):
        ``Mod(x, a) + a*Mod(x//a, b) = x - a*b*(x//(a*b)) = Mod(x, a*b)``. Inductor's
        ``ModularIndexing(r, 1, 2) + 2*ModularIndexing(r, 2, 2) + 4*ModularIndexing(r, 4, 16)``
        is ``Mod(r, 64)``, then ``r`` when ``0 <= r < 64``."""
        for hi, k in coefs.items():
            if hi.kind != ir.MOD or hi.args[0].kind != ir.FLOORDIV:
                continue
            (x, a), b = hi.args[0].args, hi.args[1]
            if a.kind != ir.CONST or a.value <= 0:  # a literal radix (a symbolic one is a product monomial)
                continue
            lo = ir.mk_mod(x, a)
            c = coefs.get(lo)
            if c is None or c * a.value != k or not self._proven_of(_positive, (b,), lambda: ir.mk_lt(ir.ZERO, b)):  # noqa: B023
                continue
            rest = {n: v for n, v in coefs.items() if n is not hi and n is not lo}
            return ir.mk_add(ir.from_linear(rest, const), ir.mk_mul(ir.mk_int(c), ir.mk_mod(x, ir.mk_mul(a, b))))
        return None

    def _extreme(self, m: Term) -> Term:
        got = (self._extreme_of_quotients(m) or alg.lattice(m) or ident.distributed_extreme(m)
               or ident.negated_extreme(m))
        if got is not None:
            return got
        args = list(m.args)
        if len(args) > MAX_EXTREME_ARGS:
            return m
        is_max = m.kind == ir.MAX
        for x in args:
            for y in args:
                if x is y:
                    continue
                lo, hi = (x, y) if is_max else (y, x)
                if self._proven_of(_at_most, (lo, hi), lambda: ir.mk_le(lo, hi)):  # noqa: B023 - called at once
                    rest = [z for z in args if z is not x]
                    return ir.mk_max(*rest) if is_max else ir.mk_min(*rest)
        return m

    def _extreme_of_quotients(self, m: Term) -> Term | None:
        """``Max(v*(x1//d), v*(x2//d), …) -> v*(Max(x1, x2, …)//d)`` for arguments quotients by one
        ``d`` of proven sign (an argument ``v*(a//d) + v*j`` read as ``v*((a + d*j)//d)``): ``t -> v*floor(t/d)`` is monotone (non-decreasing when ``v*d > 0``,
        so ``Max`` stays ``Max``; non-increasing otherwise, so ``Max`` of the images is the image
        of the ``Min``); ``Min`` dually. Always cheaper: ``k`` quotients become one."""
        groups: dict[tuple[int, Term], list[tuple[Term, Term]]] = {}
        for x in m.args:
            coefs, k = ir.linear(x)
            if len(coefs) != 1:
                continue
            (q, v), = coefs.items()
            if q.kind == ir.FLOORDIV and k % v == 0:  # v*(a//d) + v*j = v*((a + d*j)//d)
                a, d = q.args
                groups.setdefault((v, d), []).append((x, expand(ir.mk_add(a, ir.mk_mul(d, ir.mk_int(k // v))))))
        is_max = m.kind == ir.MAX
        for (v, d), group in groups.items():
            if len(group) < 2:
                continue
            sd = self._sign(d)
            if not sd:
                continue
            inner = (ir.mk_max if is_max == ((v > 0) == (sd > 0)) else ir.mk_min)(*(x for _, x in group))
            # CeilDiv's numerators: Min(-x, -y) is -Max(x, y); Max(x + 1, y + 1) is Max(x, y) + 1
            inner = ident.negated_extreme(inner) or alg.lattice(inner) or inner
            merged = ir.mk_mul(ir.mk_int(v), ir.mk_floordiv(inner, d))
            taken = {a for a, _ in group}
            rest = [a for a in m.args if a not in taken]
            return (ir.mk_max if is_max else ir.mk_min)(*rest, merged)
        return None

    def _common_factor(self, m: Term) -> Term | None:
        """``f*Q + k <= 0 -> ±Q + k <= 0`` for a symbolic factor ``f`` of every monomial, ``k`` 0 or 1
        and ``f``'s sign proven (for ``f >= 1``: ``f*Q <= 0`` iff ``Q <= 0``, ``f*Q <= -1`` iff
        ``Q <= -1``; ``f <= -1`` turns ``Q`` over); ``f*Q == 0 -> Q == 0`` likewise. When cheaper."""
        coefs, k = ir.linear(m.args[0])
        if not coefs or k not in (0, 1) or (m.kind == ir.EQ and k):
            return None
        e = ir.from_linear(coefs, 0)
        for f in _common_factors(e):
            q = divide(e, f)
            if q is None:
                continue
            sf = self._sign(f)
            if not sf:
                continue
            side = ir.mk_add(ir.mk_mul(ir.mk_int(sf), q), ir.mk_int(k))
            got = ir.mk_le(side, ir.ZERO) if m.kind == ir.LE else ir.mk_eq(side, ir.ZERO)
            if got.kind == ir.BCONST or cheaper(got, m):
                return got
        return None

    def _agree_where(self, c: Term, a: Term, b: Term) -> bool:
        """``a == b`` wherever ``c`` holds: both sides simplify to one term once an equation ``c`` (a
        symbol of coefficient ±1 solved) is substituted into them — equal under ``c`` without a
        solver, also when non-linear (``Piecewise((0, Eq(x, 0)), (x*y, True))``) — or
        ``Implies(c, Eq(a, b))`` proven under the context."""
        sub = eqs.replacements((c,), {}) if c.kind == ir.EQ else {}
        if sub and self.simplify(eqs.substitute(a, sub)).term is self.simplify(eqs.substitute(b, sub)).term:
            return True  # each side's simplification is equal to it under the context
        return self._proven(ir.mk_or(ir.mk_not(c), ir.mk_eq(a, b)))

    def _select_on_divisibility(self, m: Term) -> Term | None:
        """``Piecewise((a, Eq(Mod(x, d), 0)), (a + k, True)) -> a + k*[d does not divide x]`` for a
        literal ``d >= 2`` and a literal ``k``, the indicator being ``Mod(x, 2)`` for ``d = 2`` and
        ``CeilDiv(x, d) - x//d`` otherwise (``ident.divisibility_indicator``), simplified; when
        cheaper. An identity where ``a`` divides by no zero (it is then evaluated everywhere):
        ``Piecewise((x//4, Eq(Mod(x, 4), 0)), (x//4 + 1, True))`` is ``CeilDiv(x, 4)``."""
        c, a, b = m.args
        if a.is_bool:
            return None
        if c.kind == ir.NOT:
            c, a, b = c.args[0], b, a
        ind = ident.divisibility_indicator(c)
        if ind is None:
            return None
        k = expand(ir.mk_sub(b, a))
        if k.kind != ir.CONST or ir.may_divide_by_zero(a):
            return None
        got = self.simplify(ir.mk_add(a, ir.mk_mul(k, ind))).term
        return got if cheaper(got, m) else None

    def _ite(self, m: Term) -> Term:
        c, a, b = m.args
        if self._proven(c):
            return a
        if self._proven(ir.mk_not(c)):
            return b
        if not a.is_bool and ir.truncdiv_args(m) is None:  # a branch equal to the other where it is taken: the other alone
            if not ir.may_divide_by_zero(b) and self._agree_where(c, a, b):
                return b  # Piecewise((y, Eq(x, y)), (x, True)) = x; b is defined everywhere
            if not ir.may_divide_by_zero(a) and self._agree_where(ir.mk_not(c), b, a):
                return a
        got = self._select_on_divisibility(m)
        if got is not None:
            return got
        got = ident.select_in_branches(m)
        if got is None:
            return m
        if got.kind == ir.ITE and got.args[0] is not c:  # adjacent branches joined: their disjunction simplified
            got = ir.mk_ite(self.simplify(got.args[0]).term, got.args[1], got.args[2])
            if not cheaper(got, m):
                return m
        return got


_RULES: dict[str, Callable[[Simplifier, Term], Term]] = {
    ir.MOD: Simplifier._mod, ir.FLOORDIV: Simplifier._floordiv, ir.ADD: Simplifier._add,
    ir.MUL: Simplifier._add, ir.MAX: Simplifier._extreme, ir.MIN: Simplifier._extreme, ir.ITE: Simplifier._ite,
}
_BOOL_RULES: dict[str, Callable[[Simplifier, Term], Term | None]] = {
    ir.LE: Simplifier._le, ir.AND: Simplifier._bool_rule, ir.OR: Simplifier._bool_rule,
    ir.EQ: Simplifier._bool_rule, ir.NOT: Simplifier._bool_rule,
}
_SUMMED = frozenset({ir.MAX, ir.MIN, ir.ITE})  # monomials a sum rule reads besides divisions
def _within(a: int, b: int) -> bool:
    return 0 <= a < b


def _both_positive(a: int, b: int) -> bool:
    return a > 0 and b > 0


def _positive(a: int) -> bool:
    return a > 0


def _negative(a: int) -> bool:
    return a < 0


def _non_positive(a: int) -> bool:
    return a <= 0


def _zero(a: int) -> bool:
    return a == 0


def _at_most(a: int, b: int) -> bool:
    return a <= b


# constants are guessed where a spelling can hide one: divisions, Max/Min, Piecewise (and sums or
# products over those); a plain polynomial is constant only when the constructors already fold it
MAX_IMPLIED_OPERANDS = 8  # ``_implied_operand`` proves one implication per operand
_GUESSED = frozenset({ir.MOD, ir.FLOORDIV, ir.MAX, ir.MIN, ir.ITE})


# ------------------------------------------------------------------ structural decisions

class Decider:
    """Truth of a condition from the context's facts alone (no points, no solver); memoized.

    ``decide`` answers True/False only when proven for every point of the context where the
    condition's divisors are non-zero, None otherwise. Beyond ``Rewriter.truth`` (facts and
    intervals of the canonical term) it knows two things intervals of a sum lose:

    * **common factors**: ``e = f*q + r`` with ``f`` a factor of several monomials (``s - s**2 + 1``
      is ``s*(1 - s) + 1``) is bounded by ``I(f)*I(q) + I(r)``: the product of the intervals keeps
      the correlation that summing ``I(s) + I(-s**2)`` drops (``s >= 2`` gives ``s - s**2 + 1 <= -1``);
    * **products of sums multiplied out** (``expanded``): two spellings of one polynomial
      differ by 0;
    * **floor divisions eliminated**: for ``d > 0`` (proven) and integers ``x``, ``r``,
      ``x//d + r <= 0  <=>  x <= -r*d + d - 1`` (``floor(x/d) <= y  <=>  x/d < y + 1``) and
      ``r - x//d <= 0  <=>  r*d <= x`` (``floor(x/d) >= r  <=>  x/d >= r``); the comparison
      without the division may then be a fact — ``x//d < m`` is the loop bound ``x < d*m``.
    """

    def __init__(self, rw: Rewriter, plain: Rewriter | None = None) -> None:
        self.rw = rw
        self.plain = plain  # the rewriter the context's facts were recorded through (ranges only)
        self.memo: dict[tuple[Term, int], bool | None] = {}
        self._expanded: dict[Term, Term] = {}
        self._factored: dict[Term, Interval] = {}

    def decide(self, cond: Term, depth: int = DECIDE_DEPTH) -> bool | None:
        key = (cond, depth)
        if key in self.memo:
            return self.memo[key]
        self.memo[key] = None  # a cycle through the elimination is "undecided"
        got = self._decide(self.rw.rewrite(cond), depth)
        if got is None:  # both are sound: the guard as written only when the facts could not tell
            got = self.fact(cond)
        self.memo[key] = got
        return got

    def fact(self, cond: Term) -> bool | None:
        """A condition spelled as an assert or a guard is (a question PyTorch asks about a guard
        it added): the facts record each in ``plain``'s spelling, which the rewriting under the
        facts may change."""
        if self.plain is None or not cond.is_bool:
            return None
        atoms = self.rw.env.atoms
        c = self.plain.rewrite(cond)
        if c in atoms:
            return True
        if ir.mk_not(c) in atoms:
            return False
        return None

    def _decide(self, c: Term, depth: int) -> bool | None:
        k = c.kind
        if k == ir.BCONST:
            return bool(c.value)
        if k in (ir.AND, ir.OR):
            vals = [self.decide(a, depth) for a in c.args]
            unit = k == ir.AND  # AND: all True -> True, one False -> False (OR dually)
            if all(v is unit for v in vals):
                return unit
            if any(v is (not unit) for v in vals):
                return not unit
            return None
        if k == ir.NOT:
            v = self.decide(c.args[0], depth)
            return None if v is None else not v
        if k not in (ir.LE, ir.EQ):
            return None
        e = c.args[0]
        lo, hi = self.factored(e)
        if k == ir.LE:
            if hi is not None and hi <= 0:
                return True
            if lo is not None and lo > 0:
                return False
            got = self._eliminate(e, depth) if depth > 0 else None
        else:
            if lo == hi == 0:
                return True
            if (lo is not None and lo > 0) or (hi is not None and hi < 0):
                return False
            got = None
        if got is None:  # products of sums multiplied out: v*(64*A - 64) + 64*v - 64*v*A is 0
            x = self.expanded(e)
            if x is not e:
                got = self.decide(ir.mk_le(x, ir.ZERO) if k == ir.LE else ir.mk_eq(x, ir.ZERO), depth)
        return got

    def expanded(self, t: Term) -> Term:
        """``t`` with every product of sums multiplied out, bottom-up (a polynomial identity:
        divisions, ``Max``, … are atoms); a product past ``MAX_EXPANDED`` monomials stays."""
        memo = self._expanded
        if t not in memo:
            for n in ir.iter_dag(t):
                if n not in memo:
                    r = rebuild(n, [memo[a] for a in n.args]) if n.args else n
                    memo[n] = expand(r) if r.kind == ir.MUL else r
        return memo[t]

    def factored(self, e: Term) -> Interval:
        """Interval of ``e = f*q + r`` for the first factor ``f`` shared by two or more monomials
        that bounds it tighter than ``Rewriter.interval`` (the plain interval when none does):
        ``I(f)*I(q) + I(r)``, with ``q`` and ``r`` bounded the same way (each has fewer
        monomials or factors, so the recursion ends). ``A*B - s*A*B - s + 2`` is
        ``A*(B*(1 - s)) + (2 - s)``: at most ``-1`` when ``A, B >= 1`` and ``s >= 2``."""
        hit = self._factored.get(e)
        if hit is not None:
            return hit
        iv = self.rw.interval(e)
        coefs, k = ir.linear(e)
        out = iv
        if len(coefs) >= 2:
            factors = {m: set(m.args) if m.kind == ir.MUL else {m} for m in coefs}
            counts: dict[Term, int] = {}
            for fs in factors.values():
                for f in fs:
                    if f.kind != ir.CONST:
                        counts[f] = counts.get(f, 0) + 1
            for f in sorted((f for f, c in counts.items() if c >= 2), key=lambda t: t.skey):
                shared = {m: v for m, v in coefs.items() if f in factors[m]}
                q = divide(ir.from_linear(shared, 0), f)
                if q is None:
                    continue
                rest = ir.from_linear({m: v for m, v in coefs.items() if m not in shared}, k)
                plo, phi = mul_iv(self.rw.interval(f), self.factored(self.rw.rewrite(q)))
                rlo, rhi = self.factored(rest) if rest.kind != ir.CONST else (rest.value, rest.value)
                total = (None if plo is None or rlo is None else plo + rlo, None if phi is None or rhi is None else phi + rhi)
                better = meet(iv, total)
                if better != iv:
                    out = better
                    break
        self._factored[e] = out
        return out

    def _eliminate(self, e: Term, depth: int) -> bool | None:
        """``e <= 0`` with one ``±(x//d)`` monomial: the equivalent comparison without it; else
        bounded through a remainder by a symbolic divisor (``_remainder_bounds``)."""
        coefs, k = ir.linear(e)
        hits = [(m, c) for m, c in coefs.items() if m.kind == ir.FLOORDIV and c in (1, -1)]
        for m, c in hits:
            x, d = m.args
            if self.decide(ir.mk_lt(ir.ZERO, d), depth - 1) is not True:
                continue
            r = ir.from_linear({n: v for n, v in coefs.items() if n is not m}, k)
            rd = expand(ir.mk_mul(r, d))
            if c == 1:  # x//d + r <= 0  <=>  x + r*d - d + 1 <= 0
                new = ir.mk_le(ir.mk_add(x, rd, ir.ONE), d)
            else:  # r - x//d <= 0  <=>  r*d <= x
                new = ir.mk_le(rd, x)
            got = self.decide(new, depth - 1)
            if got is not None:
                return got
        return self._remainder_bounds(coefs, k, depth)

    def _remainder_bounds(self, coefs: dict[Term, int], k: int, depth: int) -> bool | None:
        """``c*Mod(x, d) + r <= 0`` with ``d``'s sign proven: ``Mod(x, d)`` lies in ``[0, d - 1]``
        (``[d + 1, 0]`` for ``d < 0``), so the condition holds when it does at the end that makes
        ``c*Mod`` largest and fails when it fails at the other end: ``Mod(x, y) < y`` with
        ``y >= 1`` is true (intervals lose that the remainder and the divisor move together)."""
        for m, c in coefs.items():
            if m.kind != ir.MOD or m.args[1].kind == ir.CONST:
                continue
            d = m.args[1]
            if self.decide(ir.mk_lt(ir.ZERO, d), depth - 1) is True:
                ends = (ir.ZERO, ir.mk_sub(d, ir.ONE))
            elif self.decide(ir.mk_lt(d, ir.ZERO), depth - 1) is True:
                ends = (ir.mk_add(d, ir.ONE), ir.ZERO)
            else:
                continue
            r = ir.from_linear({n: v for n, v in coefs.items() if n is not m}, k)
            at = [expand(ir.mk_add(r, ir.mk_mul(ir.mk_int(c), end))) for end in ends]
            high, low = (at[1], at[0]) if c > 0 else (at[0], at[1])
            if self.decide(ir.mk_le(high, ir.ZERO), depth - 1) is True:
                return True
            if self.decide(ir.mk_le(low, ir.ZERO), depth - 1) is False:
                return False
        return None


def _common_factors(b: Term) -> list[Term]:
    """The symbolic factors of every monomial of ``b`` (``s*t + s``: ``s``), in a fixed order."""
    coefs, k = ir.linear(b)
    if k or not coefs:
        return []
    common: set[Term] | None = None
    for m in coefs:
        fs = {f for f in (m.args if m.kind == ir.MUL else (m,)) if f.kind != ir.CONST}
        common = fs if common is None else common & fs
    return sorted(common or (), key=lambda t: t.skey)


# ------------------------------------------------------------------ structure

def _split_multiples(a: Term, b: Term) -> tuple[Term, Term] | None:
    """``a = b*q + r`` with the monomials of ``a`` that ``b`` divides exactly in ``q`` (symbolic
    ``b`` only: the Rewriter already does constants), or None when there are none."""
    if b.kind == ir.CONST:
        return None
    coefs, const = ir.linear(a)
    q: list[Term] = []
    rest: dict[Term, int] = {}
    for mono, k in coefs.items():
        d = exact(ir.mk_mul(ir.mk_int(k), mono), b)
        if d is None:
            rest[mono] = k
        else:
            q.append(d)
    if not q:
        return None
    return ir.mk_add(*q), ir.from_linear(rest, const)


def _drop_multiples(a: Term, b: Term) -> Term | None:
    split = _split_multiples(a, b)
    return None if split is None else split[1]


def _scaled_floordivs(coefs: dict[Term, int]) -> list[tuple[frozenset[Term], Term, Term, Term]]:
    """``Σ k_i*mono_i = q*b*(x//b)`` over the monomials with the factor ``x//b``: (those monomials,
    q, x, b) for each floor division whose divisor divides the sum of its cofactors — one
    monomial (``8*s*(x//s)``: q = 8) or several (``32*A*(x//(A + 1)) + 32*(x//(A + 1))``: the
    cofactors sum to ``32*(A + 1)``, q = 32). In sum order (deterministic)."""
    cof: dict[Term, list[tuple[Term, Term]]] = {}
    for mono, k in coefs.items():
        factors = list(mono.args) if mono.kind == ir.MUL else [mono]
        for i, f in enumerate(factors):
            if f.kind == ir.FLOORDIV:
                cof.setdefault(f, []).append((mono, ir.mk_mul(ir.mk_int(k), *factors[:i], *factors[i + 1:])))
    out = []
    for f, parts in cof.items():
        x, b = f.args
        q = exact(ir.mk_add(*(c for _, c in parts)), b)
        if q is not None:
            out.append((frozenset(mono for mono, _ in parts), q, x, b))
    return out


MAX_EXPANDED = 64  # monomials of an expanded product of sums


def expand(m: Term) -> Term:
    """A product with sum factors distributed into a sum of products (``s*(t - 1) -> s*t - s``),
    unless it would have more than ``MAX_EXPANDED`` monomials."""
    if m.kind != ir.MUL or not any(f.kind == ir.ADD for f in m.args):
        return m
    terms: list[Term] = [ir.ONE]
    for f in m.args:
        coefs, const = ir.linear(f) if f.kind == ir.ADD else ({f: 1}, 0)
        parts = [ir.mk_mul(ir.mk_int(v), x) for x, v in coefs.items()] + ([ir.mk_int(const)] if const else [])
        terms = [ir.mk_mul(a, b) for a in terms for b in parts]
        if len(terms) > MAX_EXPANDED:
            return m
    return ir.mk_add(*terms)


def exact(t: Term, b: Term) -> Term | None:
    """``q`` with ``t = b*q`` as polynomials, for a constant or a symbolic ``b``."""
    if b.kind == ir.CONST:
        if b.value == 0:
            return None
        coefs, const = ir.linear(t)
        if const % b.value or any(v % b.value for v in coefs.values()):
            return None
        return ir.from_linear({m: v // b.value for m, v in coefs.items()}, const // b.value)
    return divide(t, b)
