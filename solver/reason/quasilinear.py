"""One-symbol division chains are quasi-linear: collapse them, decide their comparisons.

A term built from one symbol ``x`` by sums, literal multiples, and ``//`` or ``Mod`` by positive
literals (pad to a window, patch merging, stage after stage: ``((x - Mod(x, 4))//4 + Mod(…, 2))//2``)
has a *period* ``P`` and a *step* ``s``: ``f(x + P) = f(x) + s`` for every integer ``x``, any sign.
(By induction: ``x`` has (1, 1); a sum has the lcm of the periods; ``u//c`` and ``Mod(u, c)``
repeat once the step is a multiple of ``c``: period ``P*c/gcd(s, c)``.) So ``f`` is linear on each
residue class of ``P``: ``f(P*q + r) = s*q + f(r)``, a table of ``P`` values and one slope.

Two uses, both exact for every integer (checked against brute force in the tests):

* ``collapse``: when the table is that of ``(s*x + k)//P + b`` (nested floors and ceilings by
  positive literals always are: ``(x//a)//b = x//(a*b)``, ``ceil(ceil(x/a)/b) = ceil(x/(a*b))``,
  ``(x + Mod(-x, w))//w = ceil(x/w)``, ``((x + 3)//4 + 1)//2 = (x + 7)//8``), the chain becomes that
  one division — equal quantities spelled differently get one term, and z3 one quotient;
* ``sign_cases``: the values of ``f`` over a range of ``x``, residue class by residue class (a
  linear function of ``q`` on each), to decide ``f <= 0`` or ``f == 0`` without search.
"""

from __future__ import annotations

import math

from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term

MAX_PERIOD = 1024
# ``wide_shape``: chains up to this period are decided by ``_implied``'s residue lifting, which
# walks only the residue classes the residue-only atoms leave (a table of ``P`` values each)
WIDE_PERIOD = 1 << 15
MAX_LIFT = 1 << 15  # residue classes the lifting may look at, per implication check
STEPPED = True  # also collapse to ``s*((x + k)//P) + b`` (a bench lever)  # residue tables up to this size (each costs P evaluations of the chain)
_MEMO_ENTRIES = 1 << 15

Shape = tuple[str, int, int]  # (symbol, period P, step s)
_Raw = tuple[str | None, int, int]  # a constant has no symbol: (None, 1, 0)
_SHAPES: dict[Term, _Raw | None] = {}
_TABLES: dict[Term, tuple[int, ...]] = {}
_COLLAPSED: dict[Term, Term | None] = {}


def _remember(memo: dict[Term, object], key: Term, value: object) -> None:
    if len(memo) >= _MEMO_ENTRIES:
        memo.clear()
    memo[key] = value


def shape(t: Term) -> Shape | None:
    """``(x, P, s)`` when ``t`` is a quasi-linear chain of the one symbol ``x`` with
    ``t(x + P) = t(x) + s`` and ``P <= MAX_PERIOD``; None otherwise (constants included). (A
    chain's period is a multiple of each sub-chain's, so bounding the whole bounds every part.)"""
    sh = wide_shape(t)
    return None if sh is None or sh[1] > MAX_PERIOD else sh


def wide_shape(t: Term) -> Shape | None:
    """``shape`` up to ``WIDE_PERIOD``."""
    if t in _SHAPES:
        res = _SHAPES[t]
    else:
        out: dict[Term, _Raw | None] = {}
        for n in ir.iter_dag(t):
            out[n] = _SHAPES[n] if n in _SHAPES else _shape_one(n, out)
        res = out[t]
        _remember(_SHAPES, t, res)  # type: ignore[arg-type]
    return None if res is None or res[0] is None else (res[0], res[1], res[2])


def _shape_one(n: Term, out: dict[Term, _Raw | None]) -> _Raw | None:
    k = n.kind
    if k == ir.CONST:
        return (None, 1, 0)
    if k == ir.SYM:
        return (n.value, 1, 1)
    if k in (ir.ADD, ir.MUL):
        parts = [out.get(a) for a in n.args]
        if any(p is None for p in parts):
            return None
        syms = {p[0] for p in parts if p is not None and p[0] is not None}
        if len(syms) > 1:
            return None
        if k == ir.MUL:  # a literal times one chain
            if sum(1 for a in n.args if a.kind != ir.CONST) > 1:
                return None
            c = math.prod(a.value for a in n.args if a.kind == ir.CONST)
            (p,) = [q for a, q in zip(n.args, parts) if a.kind != ir.CONST]
            assert p is not None
            return (p[0], p[1], p[2] * c)
        period = 1
        for p in parts:
            assert p is not None
            period = period * p[1] // math.gcd(period, p[1])
        if period > WIDE_PERIOD:
            return None
        step = sum(p[2] * (period // p[1]) for p in parts if p is not None)
        return (next(iter(syms), None), period, step)
    if k in (ir.FLOORDIV, ir.MOD):
        a, b = n.args
        p = out.get(a)
        if p is None or b.kind != ir.CONST or b.value <= 0:
            return None
        c = b.value
        m = c // math.gcd(p[2], c)
        period = p[1] * m
        if period > WIDE_PERIOD:
            return None
        return (p[0], period, p[2] * m // c if k == ir.FLOORDIV else 0)
    return None


def table(t: Term, sh: Shape) -> tuple[int, ...]:
    """``t``'s values at ``x = 0 .. P-1`` (Python's integer semantics)."""
    got = _TABLES.get(t)
    if got is not None:
        return got
    period = sh[1]
    order = list(ir.iter_dag(t))
    vals: dict[Term, list[int]] = {}
    for n in order:
        k = n.kind
        if k == ir.CONST:
            vals[n] = [n.value] * period
        elif k == ir.SYM:
            vals[n] = list(range(period))
        elif k == ir.ADD:
            cols = [vals[a] for a in n.args]
            vals[n] = [sum(col) for col in zip(*cols)]
        elif k == ir.MUL:
            c = math.prod(a.value for a in n.args if a.kind == ir.CONST)
            (v,) = [vals[a] for a in n.args if a.kind != ir.CONST]
            vals[n] = [c * e for e in v]
        elif k == ir.FLOORDIV:
            d = n.args[1].value
            vals[n] = [e // d for e in vals[n.args[0]]]
        elif k == ir.MOD:
            d = n.args[1].value
            vals[n] = [e % d for e in vals[n.args[0]]]
        else:  # pragma: no cover - shape() admits nothing else
            raise AssertionError(k)
    res = tuple(vals[t])
    _remember(_TABLES, t, res)  # type: ignore[arg-type]
    return res


def collapse(t: Term) -> Term | None:
    """``t`` as ``(s*x + k)//P + b`` (or ``s*x + b`` when the step is a multiple of the period)
    when that is the same function on every integer; None when ``t`` is not such a chain, has no
    division, or its table has another form."""
    if not t.has_div:
        return None
    if t in _COLLAPSED:
        return _COLLAPSED[t]
    res = _collapse(t)
    _remember(_COLLAPSED, t, res)  # type: ignore[arg-type]
    return res


def _collapse(t: Term) -> Term | None:
    sh = shape(t)
    if sh is None:
        return None
    x, period, step = sh
    vals = table(t, sh)
    base = vals[0]
    lo, hi = 0, period - 1  # k in [lo, hi]: (step*r + k)//P == vals[r] - base for every r
    for r, v in enumerate(vals):
        w = period * (v - base) - step * r
        lo, hi = max(lo, w), min(hi, w + period - 1)
        if lo > hi:
            return _stepped(x, period, step, vals) if STEPPED else None
    if lo > hi:  # pragma: no cover - the loop returns first
        return None
    k = lo
    g = math.gcd(step, period)  # (s*x + k)//P == (s/g*x + k//g)//(P/g) for integer s*x
    s, p, k = step // g, period // g, k // g
    xs = ir.mk_sym(x)
    if p == 1:
        return ir.mk_add(ir.mk_mul(ir.mk_int(s), xs), ir.mk_int(k + base))
    return ir.mk_add(ir.mk_floordiv(ir.mk_add(ir.mk_mul(ir.mk_int(s), xs), ir.mk_int(k)), ir.mk_int(p)),
                     ir.mk_int(base))


def _stepped(x: str, period: int, step: int, vals: tuple[int, ...]) -> Term | None:
    """``s*((x + k)//P) + b``: the table is ``b`` below ``P - k`` and ``b + s`` from there on
    (``2*(y//2) + 1`` is ``y + Mod(y + 1, 2)``, padding to odd)."""
    base = vals[0]
    k = next((period - r for r, v in enumerate(vals) if v != base), 0)
    if any(v != base + (step if r >= period - k else 0) for r, v in enumerate(vals)):
        return None
    xs = ir.mk_sym(x)
    return ir.mk_add(ir.mk_mul(ir.mk_int(step), ir.mk_floordiv(ir.mk_add(xs, ir.mk_int(k)), ir.mk_int(period))),
                     ir.mk_int(base))


def value_range(t: Term, lo: int | None, hi: int | None) -> tuple[bool, bool, bool] | None:
    """Over ``x`` in ``[lo, hi]`` (None: unbounded), whether ``t`` takes a value ``<= 0``, a value
    ``> 0``, and the value ``0``: exact, residue class by residue class. None when ``t`` is not a
    one-symbol chain or a residue class is unbounded with a non-zero step (then both signs occur
    far enough out, which the caller's own rules already see)."""
    sh = shape(t)
    if sh is None:
        return None
    _, period, step = sh
    vals = table(t, sh)
    le = gt = zero = False
    for r, v in enumerate(vals):
        # x = P*q + r in [lo, hi]
        qlo = None if lo is None else -((r - lo) // period)  # ceil((lo - r)/P)
        qhi = None if hi is None else (hi - r) // period
        if qlo is not None and qhi is not None and qlo > qhi:
            continue
        if step != 0 and (qlo is None or qhi is None):
            return None
        if step == 0:
            a = b = v
        else:
            assert qlo is not None and qhi is not None
            ends = (step * qlo + v, step * qhi + v)
            a, b = min(ends), max(ends)
        le = le or a <= 0
        gt = gt or b > 0
        if not zero and a <= 0 <= b:
            zero = step == 0 or (-v) % step == 0 and qlo is not None and qhi is not None and \
                qlo <= (-v) // step <= qhi
        if le and gt and zero:
            break
    return le, gt, zero


MAX_CASES = 4096  # residue classes one implication check may walk (times its atoms)
_Atom = tuple[str, Term]  # ("le" | "eq" | "ne" | "gt", e): e <= 0, e == 0, e != 0, e > 0


def atoms_of(t: Term, positive: bool, out: list[_Atom]) -> bool:
    """The conjunction ``t`` (or its negation when not ``positive``) as atoms over ``e``; False
    when it is not a conjunction of comparisons (a disjunction, a boolean symbol)."""
    k = t.kind
    if k == ir.NOT:
        return atoms_of(t.args[0], not positive, out)
    if k == ir.AND and positive:
        return all(atoms_of(a, True, out) for a in t.args)
    if k == ir.OR and not positive:
        return all(atoms_of(a, False, out) for a in t.args)
    if k == ir.LE:
        out.append(("le" if positive else "gt", t.args[0]))
        return True
    if k == ir.EQ:
        out.append(("eq" if positive else "ne", t.args[0]))
        return True
    if k == ir.BCONST:
        if bool(t.value) != positive:
            out.append(("ne", ir.ZERO))  # never holds
        return True
    return False


def implied(goal: Term, facts: list[Term], lo: int | None, hi: int | None) -> bool | None:
    """Whether ``facts`` imply ``goal`` on ``[lo, hi]`` (see ``counterexamples``)."""
    got = counterexamples(goal, facts, lo, hi, None, 0)
    return None if got is None else not got[1]


def counterexamples(goal: Term, facts: list[Term], lo: int | None, hi: int | None, near: int | None,
                    want: int) -> tuple[list[int], bool] | None:
    """``(points, found)``: whether some ``x`` in ``[lo, hi]`` satisfies the ``facts`` and not the
    ``goal``, and up to ``want`` such points, one per residue class, each the closest of its class
    to ``near`` (a hint). None when the terms are not quasi-linear chains of one symbol."""
    got = _implied(goal, facts, lo, hi, near, want)
    return got


def _implied(goal: Term, facts: list[Term], lo: int | None, hi: int | None, near: int | None,
             want: int) -> tuple[list[int], bool] | None:
    """Whether the conjunction of ``facts`` implies ``goal`` for every ``x`` in ``[lo, hi]``, all
    of them over the one symbol ``x`` (comparisons of quasi-linear chains): exact, residue class
    by residue class of the common period, where each atom is a linear condition on ``q``
    (``x = L*q + r``). None when some term is not such a chain or the walk would be too long."""
    atoms: list[_Atom] = []
    if not all(atoms_of(f, True, atoms) for f in facts):
        return None
    neg: list[_Atom] = []
    if not atoms_of(goal, False, neg):  # ~goal must be one conjunction
        return None
    atoms += neg
    parts: list[tuple[str, int, int, Table]] = []  # (rel, P, s, table)
    period = 1
    sym = None
    for rel, e in atoms:
        if e.kind == ir.CONST:
            v = e.value
            if not rel_holds(rel, v):
                return [], False  # the facts and ~goal have no common point at all
            continue
        sh = wide_shape(e)
        if sh is None or (sym is not None and sh[0] != sym):
            return None
        sym = sh[0]
        parts.append((rel, sh[1], sh[2], table(e, sh) if sh[1] <= MAX_PERIOD else _Lazy(e)))
        period = period * sh[1] // math.gcd(period, sh[1])
    residues: range | list[int] = range(period)
    if period * len(atoms) > MAX_CASES * 4 or period > MAX_CASES:
        lifted = lift(parts)
        if lifted is None:
            return None
        period, residues = lifted
    points: list[int] = []
    found = False
    for r in residues:
        qlo = None if lo is None else -((r - lo) // period)
        qhi = None if hi is None else (hi - r) // period
        out: set[int] = set()
        empty = False
        for rel, p, s, tab in parts:
            a = s * (period // p)  # the atom is a*q + b (rel) 0 on this residue class
            b = s * (r // p) + tab[r % p]
            got = narrow(rel, a, b, qlo, qhi, out)
            if got is None:
                empty = True
                break
            qlo, qhi = got
        if empty or not has_point(qlo, qhi, out):
            continue
        found = True  # a point of the facts where the goal fails (an unbounded stretch of q
        # always has one: the exclusions are finitely many)
        if len(points) < want:
            q = closest(qlo, qhi, out, None if near is None else (near - r) // period)
            if q is not None:
                points.append(period * q + r)
        elif want == 0:
            break
    if near is not None:
        points.sort(key=lambda v: (abs(v - near), v))
    return points, found


class _Lazy:
    """A chain's table over a wide period, evaluated only at the residues asked for: the lifting
    looks at a few of its ``P`` values."""

    def __init__(self, t: Term) -> None:
        self.order = ir.iter_dag(t)
        self.t = t
        self.memo: dict[int, int] = {}

    def __getitem__(self, r: int) -> int:
        got = self.memo.get(r)
        if got is None:
            val: dict[Term, int] = {}
            for n in self.order:
                k = n.kind
                a = [val[c] for c in n.args]
                val[n] = (n.value if k == ir.CONST else r if k == ir.SYM else sum(a) if k == ir.ADD
                          else math.prod(a) if k == ir.MUL else a[0] // a[1] if k == ir.FLOORDIV else a[0] % a[1])
            got = self.memo[r] = val[self.t]
        return got


Table = tuple[int, ...] | _Lazy


def lift(parts: list[tuple[str, int, int, Table]]) -> tuple[int, list[int]] | None:
    """The common period ``L`` of ``parts`` and the residues ``r`` mod ``L`` that every
    residue-only atom (step 0: its value depends on ``x mod P`` alone) admits, found without
    walking all ``L`` classes: start from ``{0}`` mod 1 and, atom by atom (equalities first, then
    by period), lift each residue ``r`` mod ``L`` to ``r + L*j`` mod ``lcm(L, P)`` and keep those
    where the atom holds. A residue of the final ``L`` survives iff it satisfies every such atom
    (each depends only on ``r mod P`` and ``P | L``), so the result is exact. None when more than
    ``MAX_LIFT`` classes would be looked at."""
    filters = sorted((p for p in parts if p[2] == 0), key=lambda p: (p[0] != "eq", p[1]))
    others = [p[1] for p in parts if p[2] != 0]
    L, res, work = 1, [0], 0
    for rel, p, _, tab in filters + [("", q, 0, ()) for q in others]:  # type: ignore[misc]
        L2 = L * p // math.gcd(L, p)
        work += len(res) * (L2 // L)
        if work > MAX_LIFT:
            return None
        grown = [r + L * j for r in res for j in range(L2 // L)]
        res = grown if not rel else [r for r in grown if rel_holds(rel, tab[r % p])]
        L = L2
        if not res:
            break
    return L, res


def closest(qlo: int | None, qhi: int | None, out: set[int], target: int | None) -> int | None:
    """The ``q`` in ``[qlo, qhi]`` outside ``out`` closest to ``target`` (or to the bounds)."""
    t = target if target is not None else qlo if qlo is not None else qhi if qhi is not None else 0
    if qlo is not None:
        t = max(t, qlo)
    if qhi is not None:
        t = min(t, qhi)
    for d in range(len(out) + 1):
        for q in (t - d, t + d):
            if (qlo is None or q >= qlo) and (qhi is None or q <= qhi) and q not in out:
                return q
    return None


def rel_holds(rel: str, v: int) -> bool:
    """``v (rel) 0`` for an atom's relation (``le``, ``eq``, ``ne``, ``gt``: ``atoms_of``)."""
    return {"le": v <= 0, "eq": v == 0, "ne": v != 0, "gt": v > 0}[rel]


def narrow(rel: str, a: int, b: int, qlo: int | None, qhi: int | None,
           excluded: set[int]) -> tuple[int | None, int | None] | None:
    """The integers ``q`` in ``[qlo, qhi]`` (None: unbounded) where ``a*q + b (rel) 0`` holds:
    the narrowed interval, a point added to ``excluded`` (``ne``), or None when none is left.
    One home for the residue walks of ``quasilinear`` and ``multivariate``."""
    if a == 0:
        return (qlo, qhi) if rel_holds(rel, b) else None
    if rel == "ne":
        if b % a == 0:
            excluded.add(-b // a)
        return qlo, qhi
    if rel == "eq":
        if b % a:
            return None
        v = -b // a
        qlo = v if qlo is None else max(qlo, v)
        qhi = v if qhi is None else min(qhi, v)
    else:  # le: a*q <= -b; gt: a*q >= 1 - b (dividing by a < 0 turns the inequality)
        bound = -b if rel == "le" else 1 - b
        if (rel == "le") == (a > 0):  # q <= floor(bound / a)
            v = bound // a
            qhi = v if qhi is None else min(qhi, v)
        else:  # q >= ceil(bound / a)
            v = ir.ceil_div(bound, a)
            qlo = v if qlo is None else max(qlo, v)
    if qlo is not None and qhi is not None and qlo > qhi:
        return None
    return qlo, qhi


def has_point(qlo: int | None, qhi: int | None, excluded: set[int] | frozenset[int]) -> bool:
    """Whether ``[qlo, qhi]`` (None: unbounded) keeps an integer outside ``excluded`` (an
    unbounded stretch always does: the exclusions are finitely many)."""
    return qlo is None or qhi is None or qhi - qlo + 1 > sum(1 for v in excluded if qlo <= v <= qhi)

