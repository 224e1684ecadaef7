"""Comparisons, Min/Max and boolean algebra for ``simplify``: exact rules by construction.

Each function takes a normalized term (``solver.ir.terms``) and returns an equal, no costlier
term, or None when its rule does not apply. ``Interval`` arguments are sound bounds of a term
on the whole context (``Rewriter.interval``); every other step is an identity of the integers
(floor division and ``Mod`` as Python's, positive literal divisors where stated):

* **comparisons of divisions** (``compare_division``): for ``d > 0``,
  ``c*(x//d) + k <= 0`` is ``x <= d*floor(-k/c) + d - 1`` (``c > 0``) or ``x >= d*ceil(k/|c|)``
  (``c < 0``): ``x//2 < 3`` is ``x < 6``; with ``c = ±1`` any rest ``r`` works
  (``x//d <= -r  <=>  x <= -d*r + d - 1``);
* **bounded rests** (``compare_bounded``): ``c*m + R + k <= 0`` with ``R`` in ``[lo, hi]`` is
  ``m <= t`` when ``floor((-k - R)/c)`` is the same ``t`` at both ends (``c > 0``; ``c < 0``
  dually): ``8*x + y < 16`` with ``0 <= y < 8`` is ``x < 2``;
* **common divisors** (``floordiv_gcd``): ``(g*s + k)//(g*e) = (s + k//g)//e`` for ``g, e > 0``
  (``((g*s + k)//g)//e``): ``(8*x + 7)//16`` is ``x//2``;
* **residues** (``mod_of_residues``): ``Mod(c*Mod(x, b*k) + r, b) = Mod(c*x + r, b)``
  (``Mod(x, b*k) = x - b*k*(x//(b*k))``): ``Mod(x - Mod(x, y), y)`` is 0;
* **two-valued atoms** (``two_valued``): a division whose argument is ``c*m + k`` for an atom
  ``m`` that takes two values ``lo, lo + 1`` on the context is the line through its values
  there: ``(Mod(x, 2) + 1)//2`` is ``Mod(x, 2)``; with ``(x + r)//d - x//d = r//d +
  (Mod(x, d) + r%d)//d`` (``quotient_pairs``), ``(x + 1)//2 - x//2`` is ``Mod(x, 2)``;
* **powers of a term in [-1, 1]** (``small_powers``): ``t**k = t`` for ``k >= 1`` when ``t`` is 0 or
  1 on the context, and ``t**k = t**(2 - k%2)`` when it is -1, 0 or 1: ``Mod(x, 2)**2`` is
  ``Mod(x, 2)``;
* **Min/Max** (``extremes_in_sum``, ``extremes_in_product``, ``lattice``):
  ``Max(a, b) + Min(a, b) = a + b``, ``Max(a, b)*Min(a, b) = a*b``, absorption
  ``Max(a, Min(a, b)) = a`` (``Min`` dually), a summand common to every argument pulled out
  (``Max(x + 1, y + 1) = Max(x, y) + 1``) and a constant moved in when that saves operations
  (``Min(x, y + 1) - 1 = Min(x - 1, y)``);
* **conjunctions** (``conjunction``; ``Or`` through ``Not(And(Not …))``): bounds on one term
  met (``x <= 3 ∧ x <= 5`` is ``x <= 3``, ``x <= 3 ∧ x >= 5`` is ``False``, ``lo == hi`` an
  equation), a conjunct an equation ``t == v`` decides removed (``Eq(x, 1) ∧ Ne(x, 2)`` is
  ``Eq(x, 1)``), an exclusion outside the bounds dropped or at an end moving it (``x >= 2 ∧ x != 2``
  is ``x >= 3``), a quotient and remainder pair joined (``x//8 == 3 ∧ x%8 == 4`` is ``x == 28``),
  a remainder bound of an ``x`` whose bounds keep it in one block of ``d`` moved onto ``x``
  (``x//8 == 3 ∧ x%8 < 5`` is ``24 <= x <= 28``: there ``x%8 = x - 24``).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term
from symguard.solver.reason.polynomials import divide
from symguard.solver.reason.simplify_terms import cheaper, rebuild

Interval = tuple[int | None, int | None]
Bounds = Callable[[Term], Interval]



# ------------------------------------------------------------------ comparisons

def compare_division(m: Term) -> Term | None:
    """``c*(x//d) + r <= 0`` without the division (module docstring)."""
    if m.kind != ir.LE:
        return None
    coefs, k = ir.linear(m.args[0])
    for q, c in coefs.items():
        if q.kind != ir.FLOORDIV or q.args[1].kind != ir.CONST or q.args[1].value <= 0:
            continue
        x, d = q.args[0], q.args[1].value
        rest = {n: v for n, v in coefs.items() if n is not q}
        if rest and c not in (1, -1):
            continue
        if any(n.kind in ir.DIV_KINDS or n.has_div for n in rest):  # another division: left to the facts
            continue
        r = ir.from_linear(rest, k)
        if c > 0:
            if rest:  # x//d + r <= 0  <=>  x + d*r - d + 1 <= 0
                return ir.mk_le(ir.mk_add(x, ir.mk_mul(ir.mk_int(d), r), ir.mk_int(1 - d)), ir.ZERO)
            return ir.mk_le(x, ir.mk_int(d * ((-k) // c) + d - 1))
        if rest:  # r - x//d <= 0  <=>  d*r <= x
            return ir.mk_le(ir.mk_mul(ir.mk_int(d), r), x)
        return ir.mk_le(ir.mk_int(d * ir.ceil_div(k, -c)), x)
    return None


def compare_bounded(m: Term, bounds: Bounds) -> Term | None:
    """``c*t + R + k <= 0`` is ``t <= floor((-k - R)/c)`` when that is one number on ``R``'s interval.
    Monomials whose coefficient ``c`` divides (``c*S``) stay beside ``t``: ``c*(t + S) + R + k <= 0``
    is ``t + S <= floor((-k - R)/c)`` (``t + S`` is an integer), so ``2*(x//p) + 2*c + y <= 0``
    with ``-1 <= y <= 0`` is ``x//p + c <= 0``, whose quotient the next rule multiplies out."""
    if m.kind != ir.LE:
        return None
    coefs, k = ir.linear(m.args[0])
    if len(coefs) < 2:
        return None
    for t, c in sorted(coefs.items(), key=lambda tc: (-abs(tc[1]), tc[0].skey)):
        if abs(c) < 2:
            break
        side = {n: v // c for n, v in coefs.items() if n is not t and v % c == 0}
        rest = ir.from_linear({n: v for n, v in coefs.items() if n is not t and n not in side}, 0)
        if rest.kind == ir.CONST:  # nothing bounded to absorb (the content is the constructors')
            continue
        lo, hi = bounds(rest)
        if lo is None or hi is None:
            continue
        side[t] = 1
        ts = ir.from_linear(side, 0)
        if c > 0:  # c*(t + S) <= -k - R
            a, b = (-k - hi) // c, (-k - lo) // c
            if a == b:
                return ir.mk_le(ts, ir.mk_int(a))
        else:  # |c|*(t + S) >= k + R
            a, b = ir.ceil_div(k + lo, -c), ir.ceil_div(k + hi, -c)
            if a == b:
                return ir.mk_le(ir.mk_int(a), ts)
    return None


# ------------------------------------------------------------------ divisions

def floordiv_gcd(m: Term) -> Term | None:
    """``(g*s + k)//(g*e) -> (s + k//g)//e`` for the gcd ``g > 1`` of ``s``'s coefficients and the divisor."""
    if m.kind != ir.FLOORDIV or m.args[1].kind != ir.CONST or m.args[1].value <= 0:
        return None
    coefs, k = ir.linear(m.args[0])
    if not coefs:
        return None
    d = m.args[1].value
    g = d
    for v in coefs.values():
        g = math.gcd(g, v)
    if g <= 1:
        return None
    return ir.mk_floordiv(ir.from_linear({n: v // g for n, v in coefs.items()}, k // g), ir.mk_int(d // g))


def mod_of_residues(m: Term) -> Term | None:
    """``Mod(c*Mod(x, b*k) + r, b) -> Mod(c*x + r, b)``: a residue modulo a multiple of ``b`` is ``x`` modulo ``b``."""
    if m.kind != ir.MOD:
        return None
    a, b = m.args
    coefs, k = ir.linear(a)
    changed = False
    out: dict[Term, int] = {}
    for n, v in coefs.items():
        if n.kind == ir.MOD and n is not a and _multiple(n.args[1], b):
            x = n.args[0]
            out[x] = out.get(x, 0) + v
            changed = True
        else:
            out[n] = out.get(n, 0) + v
    if not changed:
        return None
    return ir.mk_mod(ir.from_linear(out, k), b)


def _multiple(big: Term, b: Term) -> bool:
    """``b | big`` as polynomials (``big = b*q``)."""
    if b.kind == ir.CONST:
        if b.value == 0:
            return False
        coefs, k = ir.linear(big)
        return k % b.value == 0 and all(v % b.value == 0 for v in coefs.values())
    if big is b:
        return True
    return divide(big, b) is not None


def two_valued(m: Term, bounds: Bounds) -> Term | None:
    """A ``FloorDiv``/``Mod`` by a literal of ``c*t + k`` where ``t`` takes only two values.
    ``Simplifier`` asks it of floor divisions only: a ``Mod`` is a digit the index algebra may
    still merge (``Mod(x//45, 2)`` with ``x//45`` in ``[-1, 0]`` is ``-(x//45)``, but merged with
    ``Mod(x, 45)`` it is ``Mod(x, 90)``)."""
    if m.kind not in (ir.FLOORDIV, ir.MOD) or m.args[1].kind != ir.CONST or m.args[1].value == 0:
        return None
    coefs, k = ir.linear(m.args[0])
    if len(coefs) != 1:
        return None
    (t, c), = coefs.items()
    lo, hi = bounds(t)
    if lo is None or hi != lo + 1:
        return None
    d = m.args[1].value
    f = (lambda v: (c * v + k) // d) if m.kind == ir.FLOORDIV else (lambda v: (c * v + k) % d)
    f0, f1 = f(lo), f(hi)
    return ir.mk_add(ir.mk_int(f0 - (f1 - f0) * lo), ir.mk_mul(ir.mk_int(f1 - f0), t))


def quotient_pairs(coefs: dict[Term, int], const: int, bounds: Bounds) -> Term | None:
    """``c*(x + r)//d - c*x//d -> c*(r//d + (Mod(x, d) + r%d)//d)`` when the new quotient is two-valued
    away (``two_valued``): ``(x + 1)//2 - x//2`` is ``Mod(x, 2)``."""
    divs = [(n, v) for n, v in coefs.items() if n.kind == ir.FLOORDIV and n.args[1].kind == ir.CONST
            and n.args[1].value > 0]
    for n, v in divs:
        for p, w in divs:
            if p is n or w != -v or p.args[1].value != n.args[1].value:
                continue
            # the arguments differ by a literal r exactly when their monomials agree (both are
            # normalized: no new term is built to find out, most pairs are no pair)
            (xn, kn), (xp, kp) = ir.linear(n.args[0]), ir.linear(p.args[0])
            if xn != xp or kn <= kp:  # n the larger argument: r > 0
                continue
            # (Mod(x, d) + r%d)//d with d >= 2 (a division by 1 is folded away): the line through
            # its two values when Mod(x, d) takes two (``two_valued``, without building it)
            d, r, mod = n.args[1].value, kn - kp, ir.mk_mod(p.args[0], n.args[1])
            lo, hi = bounds(mod)
            if lo is None or hi != lo + 1:
                continue
            f0, f1 = (lo + r % d) // d, (hi + r % d) // d
            line = ir.mk_add(ir.mk_int(f0 - (f1 - f0) * lo), ir.mk_mul(ir.mk_int(f1 - f0), mod))
            rest = {q: u for q, u in coefs.items() if q is not n and q is not p}
            return ir.mk_add(ir.from_linear(rest, const), ir.mk_mul(ir.mk_int(v), ir.mk_add(ir.mk_int(r // d), line)))
    return None


# ------------------------------------------------------------------ Min / Max

def _pair(t: Term) -> tuple[Term, Term] | None:
    return (t.args[0], t.args[1]) if t.kind in (ir.MAX, ir.MIN) and len(t.args) == 2 else None


def small_powers(m: Term, bounds: Bounds) -> Term | None:
    """A product with a repeated factor ``t`` whose interval is within ``[0, 1]`` (then ``t**k = t``)
    or ``[-1, 1]`` (then ``t**k = t**(2 - k%2)``) with the repeats dropped, else None."""
    if m.kind != ir.MUL:
        return None
    count: dict[Term, int] = {}
    for f in m.args:
        count[f] = count.get(f, 0) + 1
    keep: list[Term] = []
    changed = False
    for f, k in count.items():
        if k >= 2 and f.kind != ir.CONST:
            lo, hi = bounds(f)
            if lo is not None and hi is not None and lo >= -1 and hi <= 1:
                n = 1 if lo >= 0 else 2 - k % 2
                changed = changed or n < k
                k = n
        keep.extend([f] * k)
    return ir.mk_mul(*keep) if changed else None


def extremes_in_sum(coefs: dict[Term, int], const: int) -> Term | None:
    """``c*Max(a, b) + c*Min(a, b) -> c*a + c*b``, ``c*Max(a, b) - c*Min(a, b) -> c*Abs(a - b)`` (the
    larger less the smaller; when cheaper); ``c*Max(a, b) - c*Max(-a, -b) -> c*(a + b)`` (the
    second is ``-Min(a, b)``; ``Min`` alike: ``Max(x, 0) - Max(-x, 0)`` is ``x``); a constant moved
    into a ``Max``/``Min`` when that saves operations (``Min(x, y + 1) - 1 -> Min(x - 1, y)``)."""
    for n, v in coefs.items():
        if n.kind != ir.MAX or _pair(n) is None:
            continue
        other = ir.mk_min(*n.args)
        w = coefs.get(other)
        if w == v or w == -v:
            pair = ir.mk_add(*n.args) if w == v else ir.mk_abs(ir.mk_sub(*n.args))
            got = _pair_replaced(coefs, const, n, other, v, pair)
            if w == v or cheaper(got, ir.from_linear(coefs, const)):
                return got
    for n, v in coefs.items():  # c*Max(a, b) - c*Max(-a, -b) = c*(Max(a, b) + Min(a, b)) = c*(a + b)
        if n.kind not in (ir.MAX, ir.MIN) or _pair(n) is None:
            continue
        mirrored = (ir.mk_max if n.kind == ir.MAX else ir.mk_min)(*(ir.mk_neg(a) for a in n.args))
        if mirrored is not n and coefs.get(mirrored) == -v:
            return _pair_replaced(coefs, const, n, mirrored, v, ir.mk_add(*n.args))
    if const and len(coefs) == 1:
        (n, v), = coefs.items()
        if v == 1 and n.kind in (ir.MAX, ir.MIN):
            moved = [ir.mk_add(a, ir.mk_int(const)) for a in n.args]
            # the outer constant goes; each argument may gain or lose its own
            saved = 1 + sum(ir.linear(a)[1] != 0 for a in n.args) - sum(ir.linear(a)[1] != 0 for a in moved)
            if saved >= 1 and all(a.kind != ir.CONST for a in n.args):
                return ir.mk_max(*moved) if n.kind == ir.MAX else ir.mk_min(*moved)
    return None


def _pair_replaced(coefs: dict[Term, int], const: int, n: Term, other: Term, v: int, pair: Term) -> Term:
    """The sum with the monomials ``n`` and ``other`` replaced by ``v*pair``."""
    rest = {q: u for q, u in coefs.items() if q is not n and q is not other}
    return ir.mk_add(ir.from_linear(rest, const), ir.mk_mul(ir.mk_int(v), pair))


def extremes_in_product(m: Term) -> Term | None:
    """``Max(a, b)*Min(a, b) -> a*b`` (the two are ``a`` and ``b`` in some order)."""
    if m.kind != ir.MUL:
        return None
    args = list(m.args)
    for i, n in enumerate(args):
        if n.kind != ir.MAX or _pair(n) is None:
            continue
        other = ir.mk_min(*n.args)
        if other in args:
            j = args.index(other)
            rest = [a for k, a in enumerate(args) if k not in (i, j)]
            return ir.mk_mul(*rest, *n.args)
    return None


def lattice(m: Term) -> Term | None:
    """Absorption (``Max(a, Min(a, b)) -> a``) and a summand or positive factor common to every
    argument pulled out (``Max(x + 1, y + 1) -> Max(x, y) + 1``, ``Max(2*x, 2*y) -> 2*Max(x, y)``)."""
    if m.kind not in (ir.MAX, ir.MIN):
        return None
    if all(a.kind == ir.SYM for a in m.args):  # distinct sizes: nothing absorbed, nothing shared
        return None
    dual = ir.MIN if m.kind == ir.MAX else ir.MAX
    mk = ir.mk_max if m.kind == ir.MAX else ir.mk_min
    args = set(m.args)
    keep = [a for a in m.args if not (a.kind == dual and args.intersection(a.args))]
    if len(keep) < len(m.args):
        return mk(*keep)
    lin = [ir.linear(a) for a in m.args]
    common = dict(lin[0][0])
    for coefs, _ in lin[1:]:
        common = {n: v for n, v in common.items() if coefs.get(n) == v}
    k = lin[0][1] if all(c == lin[0][1] for _, c in lin) else 0
    if common or k:
        inner = [ir.from_linear({n: v for n, v in coefs.items() if n not in common}, c - k) for coefs, c in lin]
        return ir.mk_add(ir.from_linear(common, k), mk(*inner))
    g = 0
    for coefs, c in lin:
        g = math.gcd(g, c, *coefs.values())
    if g > 1:
        inner = [ir.from_linear({n: v // g for n, v in coefs.items()}, c // g) for coefs, c in lin]
        return ir.mk_mul(ir.mk_int(g), mk(*inner))
    return None


# ------------------------------------------------------------------ conjunctions

def _bound(atom: Term) -> tuple[Term, int | None, int | None] | None:
    """``(t, lo, hi)`` for a comparison of one monomial ``t`` with a literal, or of a sum ``t``
    (its coefficients divided by their gcd, the first monomial's positive: ``x <= y`` and
    ``y <= x`` are bounds on one ``x - y``)."""
    if atom.kind not in (ir.LE, ir.EQ):
        return None
    coefs, k = ir.linear(atom.args[0])
    if not coefs:
        return None
    if len(coefs) == 1:
        (t, c), = coefs.items()
    else:
        first = min(coefs, key=lambda n: n.skey)
        c = math.gcd(*coefs.values()) * (1 if coefs[first] > 0 else -1)
        t = ir.from_linear({n: v // c for n, v in coefs.items()}, 0)
    if atom.kind == ir.EQ:  # c*t + k == 0 (normalized: c == 1)
        if k % c:
            return None
        return t, -k // c, -k // c
    if c > 0:  # c*t <= -k
        return t, None, (-k) // c
    return t, ir.ceil_div(k, -c), None


def conjunction(m: Term) -> Term | None:
    """Bounds met, conjuncts an equation decides removed, quotient-remainder pairs joined, a
    residue's class met by the bounds of its argument."""
    if m.kind != ir.AND:
        return None
    parts = list(m.args)
    # equations t == v: substitute into the other conjuncts (one that becomes True goes, False: all)
    eqs: dict[Term, int] = {}
    for a in parts:
        b = _bound(a)
        if b is not None and b[1] is not None and b[1] == b[2]:
            eqs[b[0]] = b[1]
    # quotient and remainder of one x by one d
    for q, qv in list(eqs.items()):
        if q.kind != ir.FLOORDIV or q.args[1].kind != ir.CONST or q.args[1].value <= 0:
            continue
        x, d = q.args
        r = ir.mk_mod(x, d)
        if r in eqs:
            rv = eqs[r]
            if not 0 <= rv < d.value:
                return ir.FALSE
            joined = ir.mk_eq(x, ir.mk_int(qv * d.value + rv))
            rest = [a for a in parts if a is not ir.mk_eq(q, ir.mk_int(qv)) and a is not ir.mk_eq(r, ir.mk_int(rv))]
            return ir.mk_and(joined, *rest)
    changed = False
    out: list[Term] = []
    for a in parts:
        b = _bound(a)
        if b is not None and b[1] is not None and b[1] == b[2]:
            out.append(a)
            continue
        sub = _decided_by(a, eqs)
        if sub is True:
            changed = True
            continue
        if sub is False:
            return ir.FALSE
        out.append(a)
    # bounds on one term: the tightest of each side
    spans: dict[Term, list[int | None]] = {}
    order: list[Term] = []
    others: list[Term] = []
    for a in out:
        b = _bound(a)
        if b is None:
            others.append(a)
            continue
        t, lo, hi = b
        if t not in spans:
            spans[t] = [None, None, 0]
            order.append(t)
        s = spans[t]
        s[2] = (s[2] or 0) + 1
        if lo is not None:
            s[0] = lo if s[0] is None else max(s[0], lo)
        if hi is not None:
            s[1] = hi if s[1] is None else min(s[1], hi)
    # an exclusion t != v outside the bounds says nothing; at an end it moves the end
    kept_others: list[Term] = []
    for a in others:
        b = _bound(a.args[0]) if a.kind == ir.NOT else None
        if b is not None and b[1] is not None and b[1] == b[2] and b[0] in spans:
            v, sp = b[1], spans[b[0]]
            if (sp[0] is not None and v < sp[0]) or (sp[1] is not None and v > sp[1]):
                changed = True
                continue
            if v == sp[0] or v == sp[1]:
                if v == sp[0]:
                    sp[0] = v + 1
                else:
                    sp[1] = v - 1
                changed = True
                continue
        kept_others.append(a)
    others = kept_others
    # a residue Mod(x, d) == r moves x's ends into its class (x >= lo gives x >= lo + (r - lo) % d);
    # a span that holds one member of the class is that point, and the residue is then implied
    implied: set[Term] = set()
    for r in order:
        rlo, rhi, _ = spans[r]
        if (r.kind != ir.MOD or r.args[1].kind != ir.CONST or r.args[1].value <= 0 or r.args[0] not in spans
                or rlo is None or rlo != rhi):
            continue
        d, sp = r.args[1].value, spans[r.args[0]]
        if not 0 <= rlo < d:
            return ir.FALSE
        ends = (None if sp[0] is None else sp[0] + (rlo - sp[0]) % d,
                None if sp[1] is None else sp[1] - (sp[1] - rlo) % d)
        changed = changed or ends != (sp[0], sp[1])
        sp[0], sp[1] = ends
        if sp[0] is not None and sp[0] == sp[1]:
            implied.add(r)
            changed = True
    # a residue of an x whose span is within one block [q*d, q*d + d - 1] is x - q*d there: its
    # bounds are bounds on x (x//8 == 3 and x%8 < 5 is 24 <= x <= 28)
    for r in order:
        if (r in implied or r.kind != ir.MOD or r.args[1].kind != ir.CONST or r.args[1].value <= 0
                or r.args[0] not in spans):
            continue
        d, sp = r.args[1].value, spans[r.args[0]]
        if sp[0] is None or sp[1] is None or sp[0] // d != sp[1] // d:
            continue
        base, (rlo, rhi, _) = sp[0] // d * d, spans[r]
        if rlo is not None:
            sp[0] = max(sp[0], base + rlo)
        if rhi is not None:
            sp[1] = min(sp[1], base + rhi)
        implied.add(r)
        changed = True
    rebuilt: list[Term] = []
    for t in order:
        if t in implied:
            continue
        lo, hi, n = spans[t]
        if lo is not None and hi is not None and lo > hi:
            return ir.FALSE
        if lo is not None and lo == hi:
            rebuilt.append(ir.mk_eq(t, ir.mk_int(lo)))
            changed = changed or n != 1
            continue
        if lo is not None:
            rebuilt.append(ir.mk_le(ir.mk_int(lo), t))
        if hi is not None:
            rebuilt.append(ir.mk_le(t, ir.mk_int(hi)))
        changed = changed or (n or 0) > (lo is not None) + (hi is not None)
    if not changed:
        return None
    return ir.mk_and(*rebuilt, *others)


def _decided_by(a: Term, eqs: dict[Term, int]) -> bool | None:
    """``a`` with every term an equation fixes replaced by its value, when that decides it."""
    if not eqs:
        return None
    memo: dict[Term, Term] = {}
    for n in ir.iter_dag(a):
        if n in eqs:
            memo[n] = ir.mk_int(eqs[n])
        elif not n.args:
            memo[n] = n
        else:
            memo[n] = rebuild(n, [memo[x] for x in n.args])
    got = memo[a]
    return bool(got.value) if got.kind == ir.BCONST else None


def disjunction(m: Term) -> Term | None:
    """``Or(a, b, …) = Not(And(Not a, Not b, …))``: the conjunction's rules on the negations."""
    if m.kind != ir.OR:
        return None
    got = conjunction(ir.mk_and(*(ir.mk_not(a) for a in m.args)))
    if got is None:
        return None
    return ir.mk_or(*(ir.mk_not(a) for a in got.args)) if got.kind == ir.AND else ir.mk_not(got)
