"""A size seen only through quotients of one chain: ``u = (s + r)//B`` becomes the symbol, ``s`` goes.

Windowed backbones (SAM2's Hiera-Det: windows padded, query pooling) trace a size ``s`` only
through ``ceil(s/4) = (s - 1)//4 + 1``; the pad rounds that quotient up to a multiple of 4, and
the guards' products of quotients by their own quotients are constants only where ``4 | u``.
The multiples lever (``reason.multiples``) climbs ``m | x`` for a *symbol* ``x``: on ``s`` the
property does not exist (``u``, not ``s``, is the multiple), so z3 and the residue walks get the
guards and run out of budget.

**Premise** (``chains``): every occurrence of ``s`` in the asserts and guards is a numerator
``s + a`` of a division ``(s + a)//b`` by a literal ``b``, and some ``B >= 2`` divides every such
``b`` with one residue ``r = a mod B`` for all of them (the largest such ``B`` is taken). Then
each ``(s + a)//b`` is ``(u + (a - r)/B)//(b/B)`` with ``u = (s + r)//B`` (nested floors of
positive divisors: ``(x//B)//k = x//(B*k)``), just ``u + (a - r)/B`` where ``b = B``, and every
term is a function of ``u`` (and the other symbols) alone.

**Why the verdicts carry over**: ``s -> (s + r)//B`` is non-decreasing with steps of 0 or 1, so it
maps ``lo..hi`` *onto* ``(lo + r)//B..(hi + r)//B`` (an unbounded end stays unbounded); ``s =
B*u - r`` is a preimage of ``u``. Every guard and assert takes at ``s`` the value its substitute
takes at ``u(s)``, so each statement over all points of the box (an implication, satisfiability,
a guard failing somewhere) holds over ``s`` exactly when it holds over ``u``: every verdict,
``implied_by`` and ``minimal`` of the substituted problem is one of the original. The residue
``r`` in ``0..B-1`` makes ``u`` the quotient rounded as written (``(s + 3)//4 = ceil(s/4)``, the
padded count, when ``a = -1``): the divisibility the guards state is about that count, and the
multiples lever then climbs it (``(s - 1)//4`` itself is ``4*k - 1``, a multiple of nothing).

The new symbol keeps ``s``'s name (nothing outside the operation sees the terms); the
substitution repeats while some symbol satisfies the premise (``(u - 1)//2`` alone is one more).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import replace

from symguard.solver.ir import terms as ir
from symguard.solver.ir.problem import Problem, Symbol
from symguard.solver.ir.terms import Term
from symguard.solver.reason.simplify_terms import rebuild

MAX_ROUNDS = 4  # nested substitutions (a chain of chains); each removes one division level per symbol

Chain = tuple[int, int]  # (B, r): every occurrence is (s + a)//b with B | b and a = r (mod B), 0 <= r < B


def _numerator(n: Term) -> tuple[str, int, int] | None:
    """``(s, a, b)`` when ``n`` is ``(s + a)//b`` with ``b >= 2`` a literal."""
    if n.kind != ir.FLOORDIV or n.args[1].kind != ir.CONST or n.args[1].value < 2:
        return None
    coefs, a = ir.linear(n.args[0])
    if len(coefs) != 1:
        return None
    (x, c), = coefs.items()
    if c != 1 or x.kind != ir.SYM:
        return None
    return x.value, a, n.args[1].value


def _bound(n: Term) -> tuple[str, bool, int] | None:
    """``(s, True, t)`` for ``s >= t`` and ``(s, False, t)`` for ``s <= t`` when ``n`` is a
    comparison of one size with a literal (``LE(c*s + k)``)."""
    if n.kind != ir.LE:
        return None
    coefs, k = ir.linear(n.args[0])
    if len(coefs) != 1:
        return None
    (x, c), = coefs.items()
    if x.kind != ir.SYM:
        return None
    if c > 0:  # c*s + k <= 0: s <= floor(-k/c)
        return x.value, False, (-k) // c
    return x.value, True, ir.ceil_div(k, -c)  # s >= ceil(k/(-c))


def _aligned(bound: tuple[str, bool, int], chain: Chain) -> bool:
    """Whether the bound cuts between two quotients of the chain (``s >= 5`` over ``s//5``), so that
    it is a bound on the quotient: ``s >= t`` iff ``u >= (t + r)//B`` when ``B | t + r``, and
    ``s <= t`` iff ``u <= (t + r)//B`` when ``B | t + 1 + r``."""
    _, lower, t = bound
    big, r = chain
    return (t + r) % big == 0 if lower else (t + 1 + r) % big == 0


def chains(terms: Iterable[Term]) -> dict[str, Chain]:
    """The symbols every occurrence of which (in ``terms``) is inside a quotient ``(s + a)//b``,
    with ``B >= 2`` dividing all their divisors and one ``a mod B`` (the largest such ``B``):
    symbol -> ``(B, a mod B)``
    (each quotient is then one of ``(s + r)//B``: ``((s + r)//B + (a - r)/B)//(b/B)``)."""
    seen: dict[str, set[tuple[int, int]]] = {}  # symbol -> its quotients' (a, b)
    bare: set[str] = set()  # symbols met outside a quotient (and outside a bound)
    bounds: dict[str, set[tuple[str, bool, int]]] = {}  # bare comparisons with a literal: checked last
    memo: set[Term] = set()
    for root in terms:
        todo = [root]
        while todo:
            n = todo.pop()
            if n in memo:
                continue
            memo.add(n)
            bd = _bound(n)
            if bd is not None:
                bounds.setdefault(bd[0], set()).add(bd)
                continue
            got = _numerator(n)
            if got is not None:
                s, a, b = got
                seen.setdefault(s, set()).add((a, b))
                todo.append(n.args[1])
                continue  # s's occurrence inside this numerator is the chain's
            if n.kind == ir.SYM:
                bare.add(n.value)  # bare, or in some other shape
                continue
            todo.extend(n.args)
    out: dict[str, Chain] = {}
    for s in sorted(seen.keys() - bare):
        g = 0
        for _, b in seen[s]:
            g = math.gcd(g, b)
        # the largest divisor of the gcd on which the offsets agree (``(s - 18)//4`` and
        # ``(s - 16)//4`` are one chain over 2, not over 4)
        for big in sorted((d for d in range(2, g + 1) if g % d == 0), reverse=True):
            if len({a % big for a, _ in seen[s]}) == 1:
                chain = (big, next(iter(seen[s]))[0] % big)
                if all(_aligned(bd, chain) for bd in bounds.get(s, ())):
                    out[s] = chain
                break
    return out


def substitute(t: Term, found: Mapping[str, Chain], memo: dict[Term, Term] | None = None) -> Term:
    """``t`` with each ``(s + a)//b`` of ``found`` replaced by ``(s + (a - r)/B)//(b/B)`` (``s`` now
    standing for ``u = (s + r)//B``): equal to ``t`` at every point, ``s`` read as ``u(s)``."""
    memo = {} if memo is None else memo
    for n in ir.iter_unseen(t, memo):  # children before parents, shared nodes walked once
        bd = _bound(n)
        if bd is not None and bd[0] in found:  # aligned (``chains``): a bound on the quotient
            big, r = found[bd[0]]
            q = (bd[2] + r) // big
            u = ir.mk_sym(bd[0])
            memo[n] = ir.mk_le(ir.mk_int(q), u) if bd[1] else ir.mk_le(u, ir.mk_int(q))
            continue
        got = _numerator(n)
        if got is not None and got[0] in found and got[2] % found[got[0]][0] == 0 \
                and got[1] % found[got[0]][0] == found[got[0]][1]:
            s, a, b = got
            big, r = found[s]
            u = ir.mk_add(ir.mk_sym(s), ir.mk_int((a - r) // big))
            memo[n] = u if b == big else ir.mk_floordiv(u, ir.mk_int(b // big))
        elif n.args:
            memo[n] = rebuild(n, [memo[x] for x in n.args])
        else:
            memo[n] = n
    return memo[t]


def _side(lo: int | None, hi: int | None, c: int, k: int) -> tuple[int | None, int | None]:
    """The range of ``c*s + k`` for ``s`` in ``lo..hi`` (None: unbounded)."""
    ends = (None if lo is None else c * lo + k, None if hi is None else c * hi + k)
    return ends if c > 0 else (ends[1], ends[0])


def folded(t: Term, ranges: Mapping[str, tuple[int | None, int | None]], memo: dict[Term, Term]) -> Term:
    """``t`` with each comparison of one size with a literal that its range decides (``s >= 5`` on
    ``16..1024``) replaced by that truth value: equal to ``t`` at every point of the box, and no
    longer a bare occurrence of ``s`` that would keep it from the premise."""
    for n in ir.iter_unseen(t, memo):  # children before parents, shared nodes walked once
        got: Term | None = None
        if n.kind in (ir.LE, ir.EQ):
            coefs, k = ir.linear(n.args[0])
            if len(coefs) == 1:
                (x, c), = coefs.items()
                if x.kind == ir.SYM and x.value in ranges:
                    lo, hi = _side(*ranges[x.value], c, k)
                    if n.kind == ir.LE:
                        got = ir.TRUE if hi is not None and hi <= 0 else ir.FALSE if lo is not None and lo > 0 else None
                    elif (lo is not None and lo > 0) or (hi is not None and hi < 0):
                        got = ir.FALSE
                    elif lo == hi == 0:
                        got = ir.TRUE
        if got is None:
            got = rebuild(n, [memo[x] for x in n.args]) if n.args else n
        memo[n] = got
    return memo[t]


def image(lo: int | None, hi: int | None, hint: int | None, chain: Chain) -> tuple[int | None, int | None, int | None]:
    """``u = (s + r)//b`` of a range's ends and of the hint (``u`` is onto the image range)."""
    b, r = chain
    return tuple(None if v is None else (v + r) // b for v in (lo, hi, hint))  # type: ignore[return-value]


def preimage(u: int, chain: Chain) -> int:
    """An ``s`` with ``(s + r)//b == u``: where a point over ``u`` maps back."""
    b, r = chain
    return b * u - r


def substituted(problem: Problem) -> tuple[Problem, dict[str, list[Chain]]]:
    """``problem`` with every symbol that satisfies the premise replaced by its quotient, rounds
    repeated while one does; the chains applied per symbol (outermost last). Unchanged (and no
    chains) when none does. Bool symbols and skipped entries play no part (a skipped entry has
    no term, so it constrains nothing the operation sees)."""
    applied: dict[str, list[Chain]] = {}
    ints = {s.name for s in problem.symbols if not s.is_bool}
    for _ in range(MAX_ROUNDS):
        ranges = {sym.name: (sym.lo, sym.hi) for sym in problem.symbols if not sym.is_bool}
        fold: dict[Term, Term] = {}
        terms = [folded(c.term, ranges, fold) for c in (*problem.asserts, *problem.guards) if c.term is not None]
        found = {s: c for s, c in chains(terms).items() if s in ints}
        if not found:
            break
        # the range-decided comparisons go (``s58 >= 5``): only where some size then qualifies
        problem = replace(
            problem,
            asserts=tuple(c if c.term is None else replace(c, term=fold[c.term]) for c in problem.asserts),
            guards=tuple(c if c.term is None else replace(c, term=fold[c.term]) for c in problem.guards))
        memo: dict[Term, Term] = {}
        syms = []
        for sym in problem.symbols:
            if sym.name in found:
                lo, hi, hint = image(sym.lo, sym.hi, sym.hint, found[sym.name])
                sym = Symbol(sym.name, lo, hi, hint, sym.is_bool)
                applied.setdefault(sym.name, []).append(found[sym.name])
            syms.append(sym)
        problem = replace(
            problem, symbols=tuple(syms),
            asserts=tuple(c if c.term is None else replace(c, term=substitute(c.term, found, memo))
                          for c in problem.asserts),
            guards=tuple(c if c.term is None else replace(c, term=substitute(c.term, found, memo))
                         for c in problem.guards))
    return problem, applied
