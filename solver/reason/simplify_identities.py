"""Identities a compiler's rewrite simplifier applies, for ``simplify`` (round 10; docs/simplify.md).

Every function takes a normalized term (``solver.ir.terms``) and returns an equal term, or None.
Each is an identity of the integers (floor division and ``Mod`` as Python's) wherever the
divisors are non-zero, so it needs no side condition; those that are identities both ways are
taken only when the result prints cheaper (``simplify_terms.cheaper``):

* **coefficients reduced modulo a literal** (``mod_coefficients``): ``Mod(A + d*j*t, d) =
  Mod(A, d)``, so each coefficient of ``Mod(A, d)`` is its residue modulo ``d`` (or that minus
  ``d``, whichever is smaller in magnitude): ``Mod(-x, 2)`` is ``Mod(x, 2)``, ``Mod(3*x + 5, 2)``
  is ``Mod(x + 1, 2)``;
* **a polynomial's residue constant over one period** (``polynomial_residue``): ``Mod(P, d)`` of
  an integer polynomial ``P`` of at most a few atoms depends on each atom modulo ``d`` only; when
  every residue tuple gives one value ``c``, it is ``c``: ``Mod(x*(x + 1), 2)`` is ``0``,
  ``Mod(x**3 - x, 3)`` is ``0``;
* **a remainder by a symbolic divisor** (``remainder_of_product``): ``c*x - c*b*(x//b) =
  c*Mod(x, b)`` for any ``b`` (``x = b*(x//b) + Mod(x, b)``; the literal ``b`` is the rewriter's);
* **a remainder by the divisor itself** (``quotient_of_remainders``): ``Mod(x, b)//b = 0`` (the
  remainder lies between 0 and ``b``, ``b`` excluded, for either sign of ``b``) and
  ``(c*x - c*Mod(x, b) + R)//b = c*(x//b) + R//b`` (``x - Mod(x, b) = b*(x//b)``), for a symbolic
  ``b`` too: ``(x - Mod(x, y))//y`` is ``x//y``;
* **a complete set of residues** (``complete_residues``, Hermite's identity): ``Σ_{r=0}^{d-1}
  (A + r)//d = A`` for a literal ``d >= 2``, so ``v*Σ_i (A + c_i)//d = v*A + v*Σ_i (c_i//d)`` when
  the ``c_i`` take every residue modulo ``d`` once: ``x//3 + (x + 1)//3 + (x + 2)//3`` is ``x``,
  ``x//2 + (x + 1)//2`` is ``x``;
* **truncated division** (``nested_truncdiv``): ``TruncDiv(TruncDiv(x, a), b) = TruncDiv(x, a*b)``;
* **a select under its own condition** (``select_in_branches``): in ``ITE(c, a, b)``, a
  ``Piecewise`` of ``a`` on the same ``c`` is its first branch and one of ``b`` its second;
  adjacent branches with one value are one branch on the disjunction of their conditions
  (``ITE(c1, x, ITE(c2, x, z)) = ITE(c1 | c2, x, z)``); a sum's summand that cancels in a
  branch moves into both (``ITE(c, a + t, b + t) - t = ITE(c, a, b)``);
* **Min/Max** (``negated_extreme``, ``distributed_extreme``): ``Min(-x, -y) = -Max(x, y)``;
  ``Max(Min(x, y), Min(x, z)) = Min(x, Max(y, z))`` (a distributive lattice);
* **squares** (``signed_squares``): ``x*x >= 0`` is True (a product of even powers is never
  negative);
* **absorption and De Morgan** (``absorbed``, ``de_morgan``): ``And(a, Or(a, b)) = a``,
  ``Or(a, And(a, b)) = a``; ``Not(And(a, b)) = Or(Not a, Not b)`` when each negation is a
  comparison again (it costs no ``Not``).
"""

from __future__ import annotations

import itertools
import math

from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term
from symguard.solver.reason.simplify_algebra import lattice
from symguard.solver.reason.simplify_terms import cheaper, rebuild

# ------------------------------------------------------------------ Mod

def mod_coefficients(m: Term) -> Term | None:
    """``Mod(A, d)`` (a literal ``d >= 2``) with each coefficient of ``A`` reduced modulo ``d``
    (to the representative of least magnitude, the positive one on a tie) and a constant of
    ``|k| >= d`` to ``k % d``; when cheaper."""
    a, b = m.args
    if b.kind != ir.CONST or b.value < 2:
        return None
    d = b.value
    coefs, k = ir.linear(a)
    new: dict[Term, int] = {}
    for t, c in coefs.items():
        r = c % d
        if r:
            new[t] = r if r <= d - r else r - d
    nk = k if -d < k < d else k % d
    if new == coefs and nk == k:
        return None
    got = ir.mk_mod(ir.from_linear(new, nk), b)
    return got if cheaper(got, m) else None


MAX_RESIDUE_TUPLES = 256  # residue tuples ``polynomial_residue`` evaluates


def polynomial_residue(m: Term) -> Term | None:
    """``Mod(P, d) -> c`` for a literal ``d >= 2`` and a non-linear polynomial ``P`` (sums and
    products over atoms: symbols or any other integer subterm) whose value modulo ``d`` is ``c``
    at every tuple of the atoms' residues modulo ``d`` (at most ``MAX_RESIDUE_TUPLES``): an
    integer polynomial is congruent modulo ``d`` at congruent arguments. An identity (``d != 0``)."""
    a, b = m.args
    if b.kind != ir.CONST or b.value < 2 or a.kind not in (ir.ADD, ir.MUL):
        return None
    d = b.value
    atoms: dict[Term, None] = {}
    nonlinear = False
    stack, seen_nodes = [a], {a}
    while stack:  # through sums and products only: anything else is an atom
        n = stack.pop()
        if n.kind in (ir.ADD, ir.MUL):
            if n.kind == ir.MUL:
                nonlinear = nonlinear or sum(f.kind != ir.CONST for f in n.args) >= 2
            for x in n.args:
                if x not in seen_nodes:
                    seen_nodes.add(x)
                    stack.append(x)
        elif n.kind != ir.CONST:
            if n.is_bool:
                return None
            atoms[n] = None
    if not nonlinear or d ** len(atoms) > MAX_RESIDUE_TUPLES:
        return None
    order = list(atoms)
    value: int | None = None
    for vals in itertools.product(range(d), repeat=len(order)):
        v = _poly_value(a, dict(zip(order, vals, strict=True))) % d
        if value is None:
            value = v
        elif v != value:
            return None
    return None if value is None else ir.mk_int(value)


def _poly_value(t: Term, at: dict[Term, int]) -> int:
    v = at.get(t)
    if v is not None:
        return v
    if t.kind == ir.CONST:
        return t.value
    if t.kind == ir.ADD:
        return sum(_poly_value(x, at) for x in t.args)
    if t.kind == ir.MUL:
        return math.prod(_poly_value(x, at) for x in t.args)
    raise ValueError(t.kind)


def remainder_of_product(coefs: dict[Term, int], const: int) -> Term | None:
    """``c*x - c*b*(x//b) + R -> c*Mod(x, b) + R`` for a symbolic ``b``: the monomials holding the
    quotient ``x//b`` (once) sum to ``-c*b*(x//b)`` as polynomials (``(p + 1)*(x//(p + 1))`` is two
    monomials); ``R`` is the rest of the sum less ``c*x``. An identity (``x = b*(x//b) +
    Mod(x, b)``; the literal ``b`` is the rewriter's), taken when cheaper."""
    seen: set[Term] = set()
    for n in coefs:
        for q in n.args if n.kind == ir.MUL else (n,):
            if q.kind != ir.FLOORDIV or q.args[1].kind == ir.CONST or q in seen:
                continue
            seen.add(q)
            got = _remainder(coefs, const, q)
            if got is not None:
                return got
    return None


def _remainder(coefs: dict[Term, int], const: int, q: Term) -> Term | None:
    x, b = q.args
    cof: dict[Term, int] = {}
    ck = 0
    holding = []
    for n, v in coefs.items():
        if n is not q and (n.kind != ir.MUL or q not in n.args):
            continue
        others = [] if n is q else list(n.args)
        if others:
            others.remove(q)
        if q in others:
            return None
        holding.append(n)
        oc, ok = ir.linear(ir.mk_mul(ir.mk_int(v), *others))
        for t, u in oc.items():
            cof[t] = cof.get(t, 0) + u
        ck += ok
    bc, bk = ir.linear(b)
    if set(cof) != set(bc) or not bc:
        return None
    first = next(iter(bc))
    if cof[first] % bc[first]:
        return None
    r = cof[first] // bc[first]  # the cofactor is r*b
    if any(cof[t] != r * u for t, u in bc.items()) or ck != r * bk:
        return None
    c = -r
    xc, xk = ir.linear(x)
    rest = {t: v for t, v in coefs.items() if t not in holding}
    for t, u in xc.items():  # R = the sum - c*x (the rest of the sum need not be c*x exactly)
        w = rest.get(t, 0) - c * u
        if w:
            rest[t] = w
        else:
            rest.pop(t, None)
    got = ir.mk_add(ir.from_linear(rest, const - c * xk), ir.mk_mul(ir.mk_int(c), ir.mk_mod(x, b)))
    return got if cheaper(got, ir.from_linear(coefs, const)) else None


def halves(coefs: dict[Term, int], const: int) -> Term | None:
    """``u*(A//2) + w*(B//2)`` with ``A + B = c`` a literal (``CeilDiv(A, 2) = -((-A)//2)``: ``c = 0``).
    For ``c = 2k``, ``B//2 = k - A//2 - Mod(A, 2)``: ``u == -w`` gives ``u*A + w*k``
    (``A//2 + CeilDiv(A, 2) = A``), ``u == w`` gives ``w*k - w*Mod(A, 2)`` (``CeilDiv(A, 2) - A//2 =
    Mod(A, 2)``); for ``c = 2k + 1``, ``B//2 = k - A//2``: ``u == w`` gives ``w*k``
    (``x//2 + (1 - x)//2 = 0``). Other pairs stay (no saving)."""
    halves = [(q, ir.linear(q.args[0])) for q in coefs
              if q.kind == ir.FLOORDIV and q.args[1].kind == ir.CONST and q.args[1].value == 2]
    for i, (qa, (ac, ak)) in enumerate(halves):
        for qb, (bc, bk) in halves[i + 1:]:
            if set(ac) != set(bc) or any(bc[t] != -v for t, v in ac.items()):
                continue
            u, w = coefs[qa], coefs[qb]
            c = ak + bk
            k = c // 2
            a = qa.args[0]
            if c % 2 == 0 and u == -w:
                pair = ir.mk_add(ir.mk_mul(ir.mk_int(u), a), ir.mk_int(w * k))
            elif c % 2 == 0 and u == w:
                pair = ir.mk_add(ir.mk_int(w * k), ir.mk_mul(ir.mk_int(-w), ir.mk_mod(a, qa.args[1])))
            elif c % 2 and u == w:
                pair = ir.mk_int(w * k)
            else:
                continue
            rest = {t: v for t, v in coefs.items() if t is not qa and t is not qb}
            return ir.mk_add(ir.from_linear(rest, const), pair)
    return None


def quotient_of_remainders(m: Term) -> Term | None:
    """``Mod(x, b)//b -> 0``; ``(c*x - c*Mod(x, b) + R)//b -> c*(x//b) + R//b`` when cheaper. Both
    identities wherever ``b != 0``: ``Mod(x, b)/b`` is in ``[0, 1)`` for either sign of ``b``, and
    ``c*x - c*Mod(x, b) = b*(c*(x//b))`` is a multiple of ``b`` (``(b*q + r)//b = q + r//b``)."""
    a, b = m.args
    if a.kind == ir.MOD and a.args[1] is b:
        return ir.ZERO
    coefs, const = ir.linear(a)
    for r, v in coefs.items():
        if r.kind != ir.MOD or r.args[1] is not b:
            continue
        c = -v
        x = r.args[0]
        xc, xk = ir.linear(x)
        rest = {t: w for t, w in coefs.items() if t is not r}
        for t, u in xc.items():
            w = rest.get(t, 0) - c * u
            if w:
                rest[t] = w
            else:
                rest.pop(t, None)
        rk = const - c * xk
        if rest.get(r) or any(t.kind == ir.MOD and t.args[1] is b and t is not r for t in rest):
            continue
        tail = ir.from_linear(rest, rk)
        got = ir.mk_add(ir.mk_mul(ir.mk_int(c), ir.mk_floordiv(x, b)),
                        tail if tail is ir.ZERO else ir.mk_floordiv(tail, b))
        if cheaper(got, m):
            return got
    return None


def complete_residues(coefs: dict[Term, int], const: int) -> Term | None:
    """``v*(A + c_1)//d + … + v*(A + c_d)//d -> v*A + v*Σ(c_i//d)`` when the literals ``c_i`` are
    one of each residue modulo ``d`` (a literal ``d >= 2``): ``(A + c)//d = c//d + (A + c%d)//d``
    and Hermite's ``Σ_{r=0}^{d-1} (A + r)//d = A``. An identity; when cheaper."""
    groups: dict[tuple[Term, int, Term], dict[int, tuple[Term, int]]] = {}
    for q, v in coefs.items():
        if q.kind != ir.FLOORDIV or q.args[1].kind != ir.CONST or q.args[1].value < 2:
            continue
        d = q.args[1].value
        lin, c = ir.linear(q.args[0])
        if not lin:
            continue
        groups.setdefault((ir.from_linear(lin, 0), v, q.args[1]), {}).setdefault(c % d, (q, c))
    for (a, v, dt), by_residue in groups.items():
        d = dt.value
        if len(by_residue) != d:
            continue
        taken = {q for q, _ in by_residue.values()}
        shift = sum(c // d for _, c in by_residue.values())
        rest = {t: w for t, w in coefs.items() if t not in taken}
        got = ir.mk_add(ir.from_linear(rest, const + v * shift), ir.mk_mul(ir.mk_int(v), a))
        if cheaper(got, ir.from_linear(coefs, const)):
            return got
    return None


# ------------------------------------------------------------------ truncated division

def nested_truncdiv(m: Term) -> Term | None:
    """``TruncDiv(TruncDiv(x, a), b) -> TruncDiv(x, a*b)``: truncation composes as floor does,
    ``trunc(trunc(q)/b) = trunc(q/b)`` for a real ``q`` and an integer ``b != 0`` (on ``|q|`` it
    is floor's identity, and the signs multiply); defined exactly where the input is."""
    outer = ir.truncdiv_args(m)
    inner = ir.truncdiv_args(outer[0]) if outer is not None else None
    if outer is None or inner is None:
        return None
    got = ir.mk_truncdiv(inner[0], ir.mk_mul(inner[1], outer[1]))
    return got if cheaper(got, m) else None


# ------------------------------------------------------------------ Piecewise

def select_in_branches(m: Term) -> Term | None:
    """``ITE(c, a, b)`` with the selects on ``c`` inside ``a`` and ``b`` decided, and adjacent
    branches of one value joined; when cheaper (the first always is)."""
    c, a, b = m.args
    na, nb = _assume(a, c, True), _assume(b, c, False)
    if na is not a or nb is not b:
        return ir.mk_ite(c, na, nb)
    if b.kind == ir.ITE and b.args[1] is a:  # ITE(c, x, ITE(c2, x, z)) = ITE(c | c2, x, z)
        got = ir.mk_ite(ir.mk_or(c, b.args[0]), a, b.args[2])
        return got if not cheaper(m, got) else None  # (the disjunction is simplified next)
    return None


def _assume(t: Term, c: Term, value: bool) -> Term:
    """``t`` with every ``ITE`` on condition ``c`` replaced by its branch for ``c == value``."""
    if t.kind in (ir.CONST, ir.SYM) or not any(n.kind == ir.ITE and n.args[0] is c for n in ir.iter_dag(t)):
        return t
    memo: dict[Term, Term] = {}
    for n in ir.iter_dag(t):
        if not n.args:
            memo[n] = n
        elif n.kind == ir.ITE and n.args[0] is c:
            memo[n] = memo[n.args[1] if value else n.args[2]]
        else:
            memo[n] = rebuild(n, [memo[x] for x in n.args])
    return memo[t]


def summand_into_select(coefs: dict[Term, int], const: int) -> Term | None:
    """``v*ITE(c, a, b) + R = v*ITE(c, a + R/v, b + R/v)`` when ``v`` divides ``R``'s coefficients,
    for the part of ``R`` that cancels in a branch (a monomial, the constant); when cheaper."""
    for n, v in coefs.items():
        if n.kind != ir.ITE:
            continue
        c, a, b = n.args
        la, lb = ir.linear(a), ir.linear(b)
        moved: dict[Term, int] = {}
        for t, w in [*coefs.items(), (ir.ONE, const)]:
            if t is n or w == 0 or w % v:
                continue
            u = w // v
            if (t is ir.ONE and (la[1] + u == 0 or lb[1] + u == 0)) or \
                    (t is not ir.ONE and (la[0].get(t, 0) + u == 0 or lb[0].get(t, 0) + u == 0)):
                moved[t] = u
        if not moved:
            continue
        mk = moved.pop(ir.ONE, 0)
        shift = ir.from_linear(moved, mk)
        rest = {t: w for t, w in coefs.items() if t is not n and t not in moved}
        got = ir.mk_add(ir.from_linear(rest, const - v * mk),
                        ir.mk_mul(ir.mk_int(v), ir.mk_ite(c, ir.mk_add(a, shift), ir.mk_add(b, shift))))
        if cheaper(got, ir.from_linear(coefs, const)):
            return got
    return None


def divisibility_indicator(c: Term) -> Term | None:
    """For a condition ``Eq(Mod(x, d), 0)`` (a literal ``d >= 2``), the term that is 0 where it holds
    and 1 elsewhere: ``Mod(x, 2)`` for ``d = 2``, else ``CeilDiv(x, d) - x//d`` (``-((-x)//d) -
    x//d``: the ceiling and the floor of ``x/d`` differ by one exactly when ``d`` does not divide
    ``x``); None for any other condition."""
    if c.kind != ir.EQ or c.args[0].kind != ir.MOD:
        return None
    x, d = c.args[0].args
    if d.kind != ir.CONST or d.value < 2:
        return None
    if d.value == 2:
        return c.args[0]
    return ir.mk_sub(ir.mk_neg(ir.mk_floordiv(ir.mk_neg(x), d)), ir.mk_floordiv(x, d))


# ------------------------------------------------------------------ Min/Max

def negated_extreme(m: Term) -> Term | None:
    """``Max(a, b, …) -> -Min(-a, -b, …)`` (``Min`` dually) when cheaper: ``Min(-x, -y)`` is
    ``-Max(x, y)``."""
    if m.kind not in (ir.MAX, ir.MIN):
        return None
    dual = ir.mk_min if m.kind == ir.MAX else ir.mk_max
    inner = dual(*(ir.mk_neg(a) for a in m.args))
    got = ir.mk_neg(lattice(inner) or inner)  # Max(-2*a, -2*b) is -2*Min(a, b)
    return got if cheaper(got, m) else None


def distributed_extreme(m: Term) -> Term | None:
    """``Max(Min(C, A1), Min(C, A2), …) -> Min(C, Max(Min(A1), Min(A2), …))`` for arguments
    common to every inner ``Min`` (the lattice of integers is distributive; ``Min``/``Max``
    dually); when cheaper. An inner ``Min`` of ``C`` alone is absorption, ``lattice``'s."""
    if m.kind not in (ir.MAX, ir.MIN):
        return None
    dual = ir.MIN if m.kind == ir.MAX else ir.MAX
    if len(m.args) < 2 or any(a.kind != dual for a in m.args):
        return None
    common = set(m.args[0].args)
    for a in m.args[1:]:
        common &= set(a.args)
    if not common or any(set(a.args) <= common for a in m.args):
        return None
    mk, mk_dual = (ir.mk_max, ir.mk_min) if m.kind == ir.MAX else (ir.mk_min, ir.mk_max)
    shared = sorted(common, key=lambda t: t.skey)
    got = mk_dual(*shared, mk(*(mk_dual(*(x for x in a.args if x not in common)) for a in m.args)))
    return got if cheaper(got, m) else None


# ------------------------------------------------------------------ comparisons

def signed_squares(m: Term) -> Term | None:
    """``e + k <= 0`` decided when every monomial of ``e`` is a product of even powers (never
    negative) with coefficients of one sign: ``-x*x <= 0`` is True, ``x*x*y*y + 2 <= 0`` False."""
    if m.kind != ir.LE:
        return None
    coefs, k = ir.linear(m.args[0])
    if not coefs or not all(_even(t) for t in coefs):
        return None
    if all(v < 0 for v in coefs.values()) and k <= 0:
        return ir.TRUE
    if all(v > 0 for v in coefs.values()) and k > 0:
        return ir.FALSE
    return None


def _even(t: Term) -> bool:
    if t.kind != ir.MUL:
        return False
    seen: dict[Term, int] = {}
    for f in t.args:
        seen[f] = seen.get(f, 0) + 1
    return all(n % 2 == 0 for n in seen.values())


# ------------------------------------------------------------------ connectives

def absorbed(m: Term) -> Term | None:
    """``And(a, Or(a, b), …) -> And(a, …)`` and ``Or(a, And(a, b), …) -> Or(a, …)``."""
    dual = ir.OR if m.kind == ir.AND else ir.AND if m.kind == ir.OR else None
    if dual is None:
        return None
    args = set(m.args)
    keep = [x for x in m.args if not (x.kind == dual and args.intersection(x.args))]
    if len(keep) == len(m.args):
        return None
    return ir.mk_and(*keep) if m.kind == ir.AND else ir.mk_or(*keep)


def de_morgan(m: Term) -> Term | None:
    """``Not(And(a, b, …)) -> Or(Not a, Not b, …)`` (and ``Not(Or(…))`` dually) when no negation
    stays a ``Not`` (each is a comparison turned over): one operation fewer."""
    if m.kind != ir.NOT or m.args[0].kind not in (ir.AND, ir.OR):
        return None
    inner = m.args[0]
    negs = [ir.mk_not(x) for x in inner.args]
    if any(x.kind == ir.NOT and x.args[0].kind != ir.EQ for x in negs):  # (Ne is a comparison)
        return None
    got = ir.mk_or(*negs) if inner.kind == ir.AND else ir.mk_and(*negs)
    return got if cheaper(got, m) else None
