"""Polynomial structure of IR sums and products, for ``rewrite``: exact and name-free.

* ``divide(a, b)``: ``q`` with ``a = b*q`` as polynomials (up to the content and sign of sum
  factors), which makes ``(k*d)//d = k`` and ``Mod(k*d, d) = 0`` recognizable;
* ``common_factor(a, b)``: ``g, a', b'`` with ``a = g*a'`` and ``b = g*b'``, which makes
  ``(x*x)//(2*x) = x//2`` recognizable (a reshape's ``numel // (k * width)``);
* ``fold_add``: a sum over ``x``, ``x//c`` and ``Mod(x, c)`` rewritten with ``x = c*(x//c) + Mod(x, c)``
  to the spelling with fewest monomials;
* ``mul``: a product with the content of each sum factor pulled into the coefficient;
* ``mul_iv``: interval products with unbounded ends (``intervals``' one product, re-exported).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping

from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term
from symguard.solver.reason.intervals import mul_iv

__all__ = ["common_factor", "content", "div_linear", "divide", "fold_add", "mul", "mul_iv"]


def content(coefs: Mapping[Term, int], const: int) -> int:
    g = abs(const)
    for v in coefs.values():
        g = math.gcd(g, v)
    return g


def div_linear(coefs: Mapping[Term, int], const: int, g: int) -> Term:
    return ir.from_linear({m: v // g for m, v in coefs.items()}, const // g)


def _factors(m: Term) -> tuple[int, list[Term]]:
    if m.kind == ir.MUL:
        if m.args[0].kind == ir.CONST:
            return m.args[0].value, list(m.args[1:])
        return 1, list(m.args)
    if m.kind == ir.CONST:
        return m.value, []
    return 1, [m]


def _norm_sum(f: Term) -> tuple[int, Term]:
    """A sum as ``g * f0`` with ``f0``'s content 1 and its first monomial positive."""
    coefs, const = ir.linear(f)
    g = 0
    for v in (*coefs.values(), const):
        g = math.gcd(g, v)
    first = min(coefs, key=lambda m: m.skey)
    if coefs[first] < 0:
        g = -g
    if g in (0, 1):
        return 1, f
    return g, ir.from_linear({m: v // g for m, v in coefs.items()}, const // g)


def _monomial(t: Term) -> tuple[int, list[Term]] | None:
    """``t`` as ``c * f1*...*fk`` with normalized sum factors, or None for a proper sum."""
    if t.kind == ir.ADD:
        coefs, const = ir.linear(t)
        if const == 0 and len(coefs) == 1:
            (m, v), = coefs.items()
            c, fs = _factors(m)
            return v * c, [_norm_sum(f)[1] if f.kind == ir.ADD else f for f in fs]
        g, f0 = _norm_sum(t)
        return g, [f0]
    c, fs = _factors(t)
    out = []
    for f in fs:
        if f.kind == ir.ADD:
            g, f = _norm_sum(f)
            c *= g
        out.append(f)
    return c, out


def divide(a: Term, b: Term) -> Term | None:
    """``q`` with ``a = b*q`` as polynomials (exact division), else None."""
    if b.kind == ir.CONST:
        return None
    mb = _monomial(b)
    if mb is None:
        return None
    vb, fb = mb
    if a.kind == ir.ADD:  # the whole sum as one factor: (4q + 4) / (q + 1)
        whole = _quotient(_monomial(a), 1, vb, fb)
        if whole is not None:
            return whole
    ca, ka = ir.linear(a)
    if ka != 0 or not ca:
        return None
    parts = []
    for m, v in ca.items():
        q = _quotient(_monomial(m), v, vb, fb)
        if q is None:
            return None
        parts.append(q)
    return ir.mk_add(*parts)


def _quotient(ma: tuple[int, list[Term]] | None, v: int, vb: int, fb: list[Term]) -> Term | None:
    if ma is None:
        return None
    c0, fa = ma
    fa = list(fa)
    for f in fb:
        if f not in fa:
            return None
        fa.remove(f)
    if (c0 * v) % vb:
        return None
    return ir.mk_mul(ir.mk_int(c0 * v // vb), *fa)


def common_factor(a: Term, b: Term) -> tuple[Term, Term, Term] | None:
    """``(g, a', b')`` with ``a = g*a'`` and ``b = g*b'`` as polynomials, ``g`` the positive content
    times the factors every monomial of both shares (a sum counts as one factor when no atom is
    shared), or None when ``g`` is 1. Wherever ``b != 0`` (so ``g != 0``) the rationals ``a/b``
    and ``a'/b'`` are equal: ``a//b = a'//b'`` and ``Mod(a, b) = g*Mod(a', b')``, any signs."""
    for view in (_expanded, _whole):
        ma, mb = view(a), view(b)
        if ma is None or mb is None:
            continue
        g = 0
        shared: Counter[Term] | None = None
        for c, fs in (*ma, *mb):
            g = math.gcd(g, c)
            shared = Counter(fs) if shared is None else shared & Counter(fs)
        if g == 0 or shared is None or (g == 1 and not shared):
            continue
        return ir.mk_mul(ir.mk_int(g), *shared.elements()), _without(ma, g, shared), _without(mb, g, shared)
    return None


def _without(mono: list[tuple[int, list[Term]]], g: int, shared: Counter[Term]) -> Term:
    """The sum of ``mono`` with ``g`` and the ``shared`` factors divided out of every monomial."""
    return ir.mk_add(*(ir.mk_mul(ir.mk_int(c // g), *(Counter(fs) - shared).elements()) for c, fs in mono))


def _expanded(t: Term) -> list[tuple[int, list[Term]]] | None:
    """``t`` as its monomials ``(coefficient, factors)``, the constant one with no factors."""
    coefs, const = ir.linear(t)
    out = []
    for m, v in coefs.items():
        c, fs = _factors(m)
        out.append((v * c, fs))
    if const:
        out.append((const, []))
    return out or None


def _whole(t: Term) -> list[tuple[int, list[Term]]] | None:
    """``t`` as one monomial whose sum factors are normalized (content and sign pulled out)."""
    m = _monomial(t)
    return None if m is None or not m[0] else [m]


def mul(a: list[Term]) -> Term:
    """A product with the content (gcd, sign) of every sum factor pulled into the coefficient."""
    coef = 1
    factors = []
    for f in a:
        if f.kind == ir.ADD:
            g, f = _norm_sum(f)
            coef *= g
        factors.append(f)
    return ir.mk_mul(ir.mk_int(coef), *factors)


def fold_add(t: Term) -> Term:
    """Use ``x = c*(x//c) + Mod(x, c)`` to write a sum with as few monomials as possible. ``t`` is
    a normalized sum (``mk_add``'s, as every caller's): one no spelling shortens is returned as it is."""
    if t.kind != ir.ADD:
        return t
    coefs, const = ir.linear(t)
    folded = False
    changed = True
    while changed:
        changed = False
        for m in [m for m in coefs if m.kind in (ir.MOD, ir.FLOORDIV)]:
            if m not in coefs or m.args[1].kind != ir.CONST or m.args[1].value == 0:
                continue
            best = _best_spelling(coefs, const, m)
            if best is not None:
                coefs, const = best
                changed = folded = True
                break
    return ir.from_linear(coefs, const) if folded else t


def _best_spelling(coefs: dict[Term, int], const: int, m: Term) -> tuple[dict[Term, int], int] | None:
    x, cb = m.args
    c = cb.value
    if c == 1 or x.kind == ir.CONST:  # x//c and Mod(x, c) fold: no pair to trade
        return None
    xc, xk = ir.linear(x)
    if not xc:
        return None
    # the pair as keys of ``coefs`` (a term not built yet is not one): counted before it is built
    q = m if m.kind == ir.FLOORDIV else ir.existing(ir.FLOORDIV, (x, cb))
    r = m if m.kind == ir.MOD else ir.existing(ir.MOD, (x, cb))
    m0 = next(iter(xc))
    alpha = coefs.get(m0, 0) // xc[m0] if coefs.get(m0, 0) % xc[m0] == 0 else 0
    if alpha and any(coefs.get(y, 0) != alpha * w for y, w in xc.items()):
        alpha = 0
    beta = 0 if q is None else coefs.get(q, 0)
    gamma = 0 if r is None else coefs.get(r, 0)
    ts = {gamma, -alpha}
    if beta % c == 0:
        ts.add(beta // c)
    ts.discard(0)
    if not ts:
        return None
    best: tuple[int, int] | None = None
    base = sum(map(bool, coefs.values()))
    for t in sorted(ts):
        # monomials of ``coefs + t*x - t*c*q - t*r`` (it adds t*(x - c*q - r) = 0); x's monomials
        # are subterms of x, so neither q nor r is one of them
        n = base + ((beta - t * c != 0) - (beta != 0)) + ((gamma - t != 0) - (gamma != 0))
        for y, w in xc.items():
            old = coefs.get(y, 0)
            n += (old + t * w != 0) - (old != 0)
        if n < base and (best is None or n < best[0]):
            best = (n, t)
    if best is None:
        return None
    t = best[1]
    q, r = ir.mk_floordiv(x, cb), ir.mk_mod(x, cb)
    new = dict(coefs)
    for y, w in xc.items():
        new[y] = new.get(y, 0) + t * w
    new[q] = new.get(q, 0) - t * c
    new[r] = new.get(r, 0) - t
    return {y: w for y, w in new.items() if w}, const + t * xk
