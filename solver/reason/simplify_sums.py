"""Sums, products and quotients for ``simplify``: exact rules, each taken only when cheaper.

Every function takes normalized terms (``solver.ir.terms``; a sum as ``ir.linear``'s
``coefs, const``) and returns an equal term, or None. Each is an identity of the integers
(floor division and ``Mod`` as Python's) wherever the divisors are non-zero, or is bounded by
``bounds`` (sound intervals of a term on the whole context); the rules that are identities in
both directions are taken only when the result prints cheaper (``simplify_terms.cheaper``):

* **a summand moved into a Min/Max where it cancels** (``into_extreme``): for ``v != 0``,
  ``v*Max(a_1, …) + w*t = v*Max(a_1 + (w/v)*t, …)`` (``+`` distributes over ``max``, ``v`` is
  only factored out): ``Min(a, b - c) + c`` is ``Min(a + c, b)``, ``Max(0, 3 - 2*x) + 2*x`` is
  ``Max(2*x, 3)``. A monomial moves when it cancels in at least as many arguments as it is new in;
* **a quotient and a remainder merged** (``quotient_with_remainder``): from
  ``x = d*(x//d) + Mod(x, d)`` and ``(d*q + r)//d = q + r//d`` (``q`` an integer),
  ``(A + u*Mod(x, d))//d + u*(x//d) = (A + u*x)//d``: ``(Mod(x, 3) + 5)//3 + x//3`` is
  ``(x + 5)//3``; with a remainder of two values, ``x//2 + Mod(x, 2)`` is ``(x + 1)//2``
  (``quotient_with_line``);
* **a scaled quotient as its remainder** (``scaled_quotient``): ``d*w*(A//d) = w*A - w*Mod(A, d)``,
  when the ``w*A`` cancels against the rest of the sum: ``y - 7*((y + z)//7)`` is
  ``Mod(y + z, 7) - z``;
* **Piecewise under one condition** (``same_condition``): ``v*ITE(c, a, b) + w*ITE(c, e, f) =
  ITE(c, v*a + w*e, v*b + w*f)``, and a product likewise;
* **a rest that cannot carry** (``small_rest``): for a literal ``D > 0``, ``g = gcd(D, …) > 1``
  dividing the coefficients of ``A`` and a rest ``R`` with ``floor(R/g)`` one value ``t`` on the
  context, ``(A + R)//D = (A/g + t)//(D/g)`` (``floor(floor(n/g)/(D/g)) = floor(n/D)``, and
  ``floor((A + R)/g) = A/g + floor(R/g)``) and ``Mod(A + R, D) = g*Mod(A/g + t, D/g) + R - g*t``
  (``n - D*(n//D)``): ``(x + 64*y)//4096`` with ``0 <= x < 64`` is ``y//64``;
* **common factors collected for printing** (``collect``): ``y*Mod(x, 6) + 4*Mod(x, 6)`` prints
  ``(y + 4)*Mod(x, 6)``, and a constant a quotient's coefficient divides goes back into it
  (``(x + 2)//3 + 1`` prints ``(x + 5)//3``: ``(A + d*j)//d = A//d + j``). The rules read sums expanded (one polynomial spelling), so this runs on
  a finished form only, and only a factor that costs something to print (a division, a
  ``Max``/``Min``, a ``Piecewise``) is collected.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term
from symguard.solver.reason.simplify_terms import cheaper, rebuild

Interval = tuple[int | None, int | None]
Bounds = Callable[[Term], Interval]

_EXTREMES = (ir.MAX, ir.MIN)


# ------------------------------------------------------------------ Min/Max

def into_extreme(coefs: dict[Term, int], const: int) -> Term | None:
    """``v*Max(args) + w*t + …`` with the monomials that cancel inside moved into the arguments."""
    for n, v in coefs.items():
        if n.kind not in _EXTREMES:
            continue
        lin = [ir.linear(a) for a in n.args]
        moved: dict[Term, int] = {}
        for t, w in [*coefs.items(), (ir.ONE, const)]:
            if t is n or w == 0 or w % v:
                continue
            u = w // v
            if t is ir.ONE:
                cancel = sum(k == -u for _, k in lin)
                new = sum(k == 0 for _, k in lin)
            else:
                cancel = sum(c.get(t) == -u for c, _ in lin)
                new = sum(t not in c for c, _ in lin)
            if cancel and new <= cancel:
                moved[t] = u
        if not moved:
            continue
        shift = ir.from_linear({t: u for t, u in moved.items() if t is not ir.ONE}, moved.get(ir.ONE, 0))
        inner = [ir.mk_add(a, shift) for a in n.args]
        ext = ir.mk_max(*inner) if n.kind == ir.MAX else ir.mk_min(*inner)
        rest = {t: w for t, w in coefs.items() if t is not n and t not in moved}
        got = ir.mk_add(ir.from_linear(rest, 0 if ir.ONE in moved else const), ir.mk_mul(ir.mk_int(v), ext))
        if cheaper(got, ir.from_linear(coefs, const)):
            return got
    return None


# ------------------------------------------------------------------ quotients and remainders

def quotient_with_remainder(coefs: dict[Term, int], const: int) -> Term | None:
    """``c*((A + u*Mod(x, D))//e) + c*w*(x//D) -> c*((A + u*x)//e)`` when ``e*w = u*D`` (literal
    divisors, or ``e`` the term ``D`` and ``w = u``): then ``u*Mod(x, D) + e*w*(x//D) = u*x``
    and ``(q*e + r)//e = q + r//e`` moves ``w*(x//D)`` into the quotient. ``(2*Mod(x, 4) - 1)//4``
    reads as ``(Mod(x, 4) - 1)//2`` (common divisors), which pairs with ``2*(x//4)`` the same way."""
    for n, c in coefs.items():
        if n.kind != ir.FLOORDIV:
            continue
        a, e = n.args
        inner, k = ir.linear(a)
        for r, u in inner.items():
            if r.kind != ir.MOD:
                continue
            x, big = r.args
            q = ir.mk_floordiv(x, big)
            v = coefs.get(q)
            if v is None or v % c:
                continue
            w = v // c
            if not (e is big and w == u) and not (e.kind == big.kind == ir.CONST and e.value * w == u * big.value):
                continue
            num = dict(inner)
            del num[r]
            num[x] = num.get(x, 0) + u
            rest = {m: t for m, t in coefs.items() if m is not n and m is not q}
            return ir.mk_add(ir.from_linear(rest, const), ir.mk_mul(ir.mk_int(c), ir.mk_floordiv(ir.from_linear(num, k), e)))
    return None


def quotient_with_line(coefs: dict[Term, int], const: int, bounds: Bounds) -> Term | None:
    """``c*(x//d) + c*b*Mod(x, d) + K -> c*((x + r)//d) + K - c*e`` for a literal ``d >= 2`` when
    ``(v + r)//d - b*v`` is one value ``e`` for every ``v`` in ``Mod(x, d)``'s interval: from
    ``(x + r)//d = x//d + (Mod(x, d) + r)//d``. Two-valued remainders are the case
    (``x//2 + Mod(x, 2)`` is ``(x + 1)//2``: what ``(Mod(x, 2) + 1)//2 + x//2`` became once its
    first quotient was read as the line through its two values)."""
    for n, c in coefs.items():
        if n.kind != ir.FLOORDIV or n.args[1].kind != ir.CONST or n.args[1].value < 2:
            continue
        x, d = n.args
        r_ = ir.mk_mod(x, d)
        cb = coefs.get(r_)
        if cb is None or cb % c:
            continue
        b, lo, hi = cb // c, *bounds(r_)
        if lo is None or hi is None or hi - lo > 8:
            continue
        for r in range(d.value):
            vals = {(v + r) // d.value - b * v for v in range(lo, hi + 1)}
            if len(vals) == 1:
                e, = vals
                rest = {m: v for m, v in coefs.items() if m is not n and m is not r_}
                return ir.mk_add(ir.from_linear(rest, const - c * e),
                                 ir.mk_mul(ir.mk_int(c), ir.mk_floordiv(ir.mk_add(x, ir.mk_int(r)), d)))
    return None


def scaled_quotient(coefs: dict[Term, int], const: int) -> Term | None:
    """``d*w*(A//d) + R -> w*A - w*Mod(A, d) + R`` for a literal ``d``, when cheaper."""
    for n, v in coefs.items():
        if n.kind != ir.FLOORDIV or n.args[1].kind != ir.CONST:
            continue
        a, d = n.args
        if d.value == 0 or v % d.value:
            continue
        inner, k = ir.linear(a)
        if not any(m in coefs for m in inner) and not (k and const):  # nothing of A meets the rest
            continue
        w = v // d.value
        rest = {m: u for m, u in coefs.items() if m is not n}
        got = ir.mk_add(ir.from_linear(rest, const), ir.mk_mul(ir.mk_int(w), a),
                        ir.mk_mul(ir.mk_int(-w), ir.mk_mod(a, d)))
        if cheaper(got, ir.from_linear(coefs, const)):
            return got
    return None


def small_rest(m: Term, bounds: Bounds) -> Term | None:
    """``(A + R)//D -> (A/g + t)//(D/g)`` and ``Mod(A + R, D) -> g*Mod(A/g + t, D/g) + R - g*t``
    when ``floor(R/g)`` is the one value ``t`` on the context (module docstring)."""
    if m.kind not in (ir.FLOORDIV, ir.MOD) or m.args[1].kind != ir.CONST or m.args[1].value <= 1:
        return None
    big = m.args[1].value
    coefs, k = ir.linear(m.args[0])
    if len(coefs) < 2:
        return None
    gs = sorted({math.gcd(big, c) for c in coefs.values()} - {1}, reverse=True)
    for g in gs:
        top = {n: c // g for n, c in coefs.items() if c % g == 0}
        low = {n: c for n, c in coefs.items() if c % g}
        if not low or not top:
            continue
        r = ir.from_linear(low, k)
        lo, hi = bounds(r)
        if lo is None or hi is None or lo // g != hi // g:
            continue
        t = lo // g
        inner = ir.from_linear(top, t)
        if m.kind == ir.FLOORDIV:
            return ir.mk_floordiv(inner, ir.mk_int(big // g))
        got = ir.mk_add(ir.mk_mul(ir.mk_int(g), ir.mk_mod(inner, ir.mk_int(big // g))), r, ir.mk_int(-g * t))
        if cheaper(got, m) or (t == 0 and len(top) == 1 and not cheaper(m, got)):
            return got  # (at equal cost, the digits of a mixed radix: x + 64*Mod(y, 64))
    return None


# ------------------------------------------------------------------ Piecewise

def same_condition(m: Term) -> Term | None:
    """Sums and products of ``Piecewise`` terms with one condition, as one ``Piecewise``."""
    if m.kind == ir.MUL:
        got = _merged_product(m)
        return got if got is not None and cheaper(got, m) else None
    if m.kind != ir.ADD:
        return None
    coefs, const = ir.linear(m)
    merged = _merged_sum(coefs, const)
    return merged if merged is not None and cheaper(merged, m) else None


def _merged_product(m: Term) -> Term | None:
    ites = [f for f in m.args if f.kind == ir.ITE]
    for f in ites:
        c = f.args[0]
        same = [g for g in ites if g.args[0] is c]
        if len(same) < 2:
            continue
        rest = [g for g in m.args if g.kind != ir.ITE or g.args[0] is not c]
        other = ir.mk_mul(*(g.args[2] for g in same))
        if other.kind == ir.MUL:  # a chain: its next condition too
            other = _merged_product(other) or other
        return ir.mk_mul(*rest, ir.mk_ite(c, ir.mk_mul(*(g.args[1] for g in same)), other))
    return None


def _merged_sum(coefs: dict[Term, int], const: int) -> Term | None:
    for n in coefs:
        if n.kind != ir.ITE:
            continue
        c = n.args[0]
        same = {g: v for g, v in coefs.items() if g.kind == ir.ITE and g.args[0] is c}
        if len(same) < 2:
            continue
        then = ir.mk_add(*(ir.mk_mul(ir.mk_int(v), g.args[1]) for g, v in same.items()))
        oc: dict[Term, int] = {}
        ok = 0
        for g, v in same.items():
            gc, gk = ir.linear(g.args[2])
            for t, u in gc.items():
                oc[t] = oc.get(t, 0) + v * u
            ok += v * gk
        other = _merged_sum(oc, ok) or ir.from_linear(oc, ok)  # a chain: its next condition too
        rest = {g: v for g, v in coefs.items() if g not in same}
        return ir.mk_add(ir.from_linear(rest, const), ir.mk_ite(c, then, other))
    return None


# ------------------------------------------------------------------ printing

def _saving_symbols(coefs: dict[Term, int], count: dict[Term, int]) -> list[Term]:
    """Symbols shared by two or more monomials that each print a multiplication besides the
    symbol (another factor, or a coefficient other than ``±1``): ``x*y + x*z`` as ``x*(y + z)``
    saves one (``x*y + x`` as ``x*(y + 1)`` saves nothing: not collected). Fills ``count``."""
    for mono, v in coefs.items():
        if mono.kind != ir.MUL and v in (1, -1):
            continue
        for f in set(mono.args) if mono.kind == ir.MUL else (mono,):
            if f.kind == ir.SYM:
                count[f] = count.get(f, 0) + 1
    return [f for f, c in count.items() if c >= 2]


_HEAVY = frozenset({*ir.DIV_KINDS, ir.MAX, ir.MIN, ir.ITE})


def collect(t: Term, memo: dict[Term, Term]) -> Term:
    """``t`` with a costly factor shared by monomials of a sum written once: ``y*M + 4*M`` as
    ``(y + 4)*M``, and a constant folded into a quotient (``memo`` shares the work between
    forms). Each step prints no costlier, by counting (no printing: a form's printing is tens of
    microseconds, and this runs on every form)."""
    hit = memo.get(t)
    if hit is not None:
        return hit
    for n in ir.iter_dag(t):
        if n in memo:
            continue
        if not n.args:
            memo[n] = n
            continue
        r = rebuild(n, [memo[a] for a in n.args])
        if r.kind == ir.ADD:
            r = _collect_sum(r)
        memo[n] = r
    return memo[t]


def _collect_sum(s: Term) -> Term:
    coefs, const = ir.linear(s)
    if const:  # (x + 2)//3 + 1 prints (x + 5)//3: the rewriter keeps constants out of quotients
        for n, v in coefs.items():
            if n.kind == ir.FLOORDIV and n.args[1].kind == ir.CONST and n.args[1].value > 0 and const % v == 0 \
                    and ir.linear(n.args[0])[1]:  # (a numerator without a constant would gain one: no saving)
                inner = ir.mk_floordiv(ir.mk_add(n.args[0], ir.mk_int(n.args[1].value * (const // v))), n.args[1])
                if inner.kind == ir.FLOORDIV:
                    s = ir.mk_add(ir.from_linear({m: u for m, u in coefs.items() if m is not n}, 0),
                                  ir.mk_mul(ir.mk_int(v), inner))
                    coefs, const = ir.linear(s)
                break
    count: dict[Term, int] = {}
    for mono in coefs:
        for f in set(mono.args) if mono.kind == ir.MUL else (mono,):
            if f.kind in _HEAVY:
                count[f] = count.get(f, 0) + 1
    shared = [f for f, c in count.items() if c >= 2]
    if not shared:
        shared = _saving_symbols(coefs, count)
        if not shared:
            return s
    f = max(shared, key=lambda g: (count[g], g.skey))
    cof: dict[Term, int] = {}
    rest: dict[Term, int] = {}
    for mono, v in coefs.items():
        factors = list(mono.args) if mono.kind == ir.MUL else [mono]
        if f in factors:
            factors.remove(f)
            q = ir.mk_mul(*factors)
            qc, qk = ir.linear(q)
            for x, u in qc.items():
                cof[x] = cof.get(x, 0) + v * u
            rest_k = qk * v
            if rest_k:
                cof[ir.ONE] = cof.get(ir.ONE, 0) + rest_k
        else:
            rest[mono] = v
    one = cof.pop(ir.ONE, 0)
    g = math.gcd(one, *cof.values())
    # 2*x*y + 2*x*z as 2*x*(y + z), for a symbol factor only: with a costly one ((2*y + 2*z)*(s//4))
    # stays, as before (z3 proves the forms equal much more slowly with the constant pulled out)
    if f.kind == ir.SYM and g > 1 and sum(abs(v) == g for v in cof.values()) >= 2:
        f = ir.mk_mul(ir.mk_int(g), f)
        cof = {x: v // g for x, v in cof.items()}
        one //= g
    factor = ir.from_linear(cof, one)
    if factor.kind == ir.ADD:  # the cofactor sum may share another factor: y*M*N + 4*M*N + y*M
        factor = _collect_sum(factor)
    rest_sum = ir.from_linear(rest, const)
    if rest_sum.kind == ir.ADD:
        rest_sum = _collect_sum(rest_sum)
    # (never costlier: the k copies of f and their k multiplications become one of each, the
    # k - 1 additions between the monomials move into the cofactor; a property test checks it)
    return ir.mk_add(rest_sum, ir.mk_mul(factor, f))
