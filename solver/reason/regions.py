"""Implications between nests of ``Max``/``Min``, decided on their linear regions.

A guard comparing nests of ``Max``/``Min`` over linear terms and floor divisions is a union of
polyhedra: ``extremes.split`` turns it into an and/or tree of comparisons of the arguments
(exact). Each leaf then becomes integer rows (``bounds``), each a consequence of the leaf at
every integer point. Exact where the term is linear in auxiliary variables with their
definitions: ``q = u//k`` (``k*q <= u <= k*q + k - 1``; ``Mod(u, k) = u - k*q``), ``m = Max(a_i)``
(``m >= a_i`` and the or-node "m is one of them"; ``Min`` alike) and ``p = x*y`` of two factors
non-negative by construction or by the symbols' lower bounds (``p >= lx*y``, ``p >= ly*x``,
``(x - lx)*(y - ly) >= 0``). Elsewhere by linear bounds: ``u//k`` in ``[(u - k + 1)/k, u/k]``,
``Mod(u, k)`` in ``[0, k - 1]``, a ``Max`` at least each argument; ``e <= 0`` gives ``L <= 0`` for
each lower bound ``L`` of ``e``, and a leaf with no usable bound is dropped (True). So the relaxed
formula of ``facts & ~goal`` holds wherever the original does.

``decide`` searches it like a small DPLL(T): a branch's rows are checked by Fourier–Motzkin
elimination, each derived row tightened (``sum a_i*x_i <= b`` with ``g = gcd(a_i)`` becomes
``sum (a_i/g)*x_i <= floor(b/g)``, valid for integer points); an ``or`` is split only when the
integer point read back from the elimination (nearest the hints) fails it, and facts join a
branch only when that point violates them. Rows carry their sources (one bit per fact) and the
decision tags of the parts that added them: a contradiction without a part's tag holds without
the part (backjumping). Every branch contradictory means no integer point of the original: the
goal is implied by the facts the contradictions name. A branch whose point meets every relaxed
row is a *candidate* counterexample, checked by the caller on the original terms (``accept``):
``required`` rests on Python's evaluation, never on the relaxation. Where no integer point is
read back a rational one guides the joins and splits alike, and a fractional variable ``x = v``
of it is split into ``x <= floor(v)`` or ``x >= floor(v) + 1`` (branch and bound). For the negated goal a
product stays one variable, split at a point's factor value where the point's product is wrong
(``_Search.refine``). Work is counted (row combinations, scans, read-back tries: ``Meter``), the
same on every machine; past its share a search answers undecided.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import value
from symguard.solver.ir.terms import Term
from symguard.solver.reason import extremes
from symguard.solver.reason.meter import Meter

CAP = 4  # lower (upper) bounds kept per term: sums and products combine them
MAX_ROWS = 400  # rows one elimination may hold (more: undecided)
READ_TRIES = 64  # values tried in reading a point back from an elimination
READ_WIDTH = 4  # ... on each side of the preferred value, per variable
DOMINANCE_WORK = 400  # row combinations to show that one argument of a Max/Min bounds another

# auxiliary variables (quotients, extremes, products) are named from their definitions after a
# ".": SMT-LIB reserves that prefix for solvers, so no symbol of a problem can share the name
Lin = tuple[tuple[tuple[str, Fraction], ...], Fraction]  # sorted (symbol, coefficient) pairs, constant
Row = tuple[dict[str, int], int, int]  # sum c*x <= b, sources (bit j: fact j)
IntLin = tuple[tuple[tuple[str, int], ...], int]  # an integral ``Lin`` in ints (evaluation without Fractions)


class _Spent(Exception):
    pass


@dataclass
class Formula:
    """A conjunction of rows and of ``or`` nodes (each a list of formulas)."""

    rows: list[Row] = field(default_factory=list)
    ors: list[list[Formula]] = field(default_factory=list)

    def merge(self, other: Formula) -> None:
        self.rows += other.rows
        self.ors += other.ors


# ------------------------------------------------------------------ bounds of a term

def _lin(coefs: Mapping[str, Fraction], c: Fraction) -> Lin:
    return tuple(sorted((x, v) for x, v in coefs.items() if v)), Fraction(c)


def _add(a: Lin, b: Lin, sb: Fraction = Fraction(1)) -> Lin:
    out = dict(a[0])
    for x, v in b[0]:
        out[x] = out.get(x, Fraction(0)) + sb * v
    return _lin(out, a[1] + sb * b[1])


def _scale(a: Lin, c: Fraction) -> Lin:
    return _lin({x: c * v for x, v in a[0]}, c * a[1])


def _const(a: Lin) -> Fraction | None:
    return None if a[0] else a[1]


Bounds = tuple[list[Lin], list[Lin]]


class Cache:
    """Per pass: the relaxed formulas of the facts (per term and source) and the definitions of
    the quotient variables (``q = u//k``: ``k*q <= u <= k*q + k - 1``, exact for integer ``q``)."""

    def __init__(self, lows: Mapping[str, int] | None = None) -> None:
        self.lows = dict(lows or {})  # symbols' lower bounds (their ranges): a product's factor signs
        self.formulas: dict[tuple[Term, int], Formula] = {}
        self.wholes: dict[tuple[Term, int], Formula] = {}  # a fact with a product, the product one variable
        self.defs: dict[str, list[Row]] = {}
        self.memo: dict[Term, Bounds] = {}
        self.quot: dict[str, tuple[Lin, int]] = {}  # in order of creation: inner quotients first
        # m = Max(a_1, ...) (or Min): rows m >= a_k (m <= a_k) in ``defs``, the or-node "m is one of
        # them" here; ``vals`` evaluates any auxiliary variable at a point
        self.def_ors: dict[str, list[Formula]] = {}
        self.extreme: dict[str, tuple[bool, tuple[Lin, ...]]] = {}
        self.mul: dict[str, tuple[Lin, Lin]] = {}  # p = x*y, both factors >= 0
        self.specs: dict[str, tuple[int, tuple[IntLin, ...], int]] = {}  # evaluation, in ints (``_Point``)
        self.choices: dict[str, list[Formula]] = {}  # ``def_ors`` without the dominated arguments (``choice``)

    def extend(self, pt: dict[str, int]) -> dict[str, int]:
        """``pt`` with every quotient variable at its value (``u//k`` evaluated exactly, on demand)."""
        return _Point(self, pt)

    def choice(self, name: str, meter: Meter, samples: Sequence[_Point]) -> list[Formula]:
        """The or-node "``name`` is one of its arguments" without the arguments another one
        bounds at every point of the symbols' lower bounds (``Max(s, s//4)`` is ``s``): each
        argument dropped is never the only extreme, so the parts left still cover every point.
        Decided once per pass, shared by every guard's search; an argument above the other at
        one of the ``samples`` (points of the symbols, evaluated exactly) is not checked further."""
        got = self.choices.get(name)
        if got is None:
            node = self.def_ors[name]
            is_max, args = self.extreme[name]
            keep = list(range(len(args)))
            for k in range(len(args)):
                for other in keep:
                    lo, hi = (args[k], args[other]) if is_max else (args[other], args[k])
                    if other != k and all(pt.lin(_ints(lo)) <= pt.lin(_ints(hi)) for pt in samples) and \
                            self._below(lo, hi, meter):
                        keep.remove(k)
                        break
            got = self.choices[name] = [node[k] for k in keep]
        return got

    def _below(self, lo: Lin, hi: Lin, meter: Meter) -> bool:
        """``lo <= hi`` at every integer point of the lower bounds: ``hi - lo <= -1`` with the
        auxiliary variables' definition rows (relaxed: their or-nodes left out) contradicts."""
        rows = [_row(_add(_add(hi, lo, Fraction(-1)), _lin({}, Fraction(1))), 0)]
        names: set[str] = set()
        todo = [x for x, _ in hi[0] + lo[0]]
        while todo:
            x = todo.pop()
            if x in names:
                continue
            names.add(x)
            if x in self.defs:
                rows += self.defs[x]
                todo += [y for coefs, _, _ in self.defs[x] for y in coefs]
            elif x in self.lows:
                rows.append(({x: -1}, -self.lows[x], 0))
        try:
            feasible, _ = eliminate(rows, sorted(names), {}, meter, [DOMINANCE_WORK], read=False)
        except _Spent:
            return False
        return not feasible

    def spec(self, name: str) -> tuple[int, tuple[IntLin, ...], int]:
        """How ``_Point`` evaluates the auxiliary variable ``name``: (0: quotient, 1: product,
        2: Max, 3: Min), its linear forms in ints, the divisor."""
        got = self.quot.get(name)
        if got is not None:
            return 0, (_ints(got[0]),), got[1]
        mul = self.mul.get(name)
        if mul is not None:
            return 1, (_ints(mul[0]), _ints(mul[1])), 0
        is_max, args = self.extreme[name]
        return (2 if is_max else 3), tuple(_ints(a) for a in args), 0


def _ints(u: Lin) -> IntLin:
    return tuple((x, int(v)) for x, v in u[0]), int(u[1])


class _Point(dict):  # type: ignore[type-arg]
    """A point whose auxiliary variables are evaluated when first read (in ints: every
    auxiliary variable is defined by integral linear forms)."""

    def __init__(self, cache: Cache, pt: Mapping[str, int]) -> None:
        super().__init__(pt)
        self.cache = cache

    def lin(self, u: IntLin) -> int:
        v = u[1]
        for x, c in u[0]:
            v += c * self[x]
        return v

    def __missing__(self, name: str) -> int:
        spec = self.cache.specs.get(name)
        if spec is None:
            spec = self.cache.specs[name] = self.cache.spec(name)
        kind, forms, k = spec
        if kind == 0:
            v = self.lin(forms[0]) // k
        elif kind == 1:
            v = self.lin(forms[0]) * self.lin(forms[1])
        elif kind == 2:
            v = max(self.lin(a) for a in forms)
        else:
            v = min(self.lin(a) for a in forms)
        self[name] = v
        return v


def bounds(t: Term, cache: Cache | None = None) -> Bounds:
    """Linear lower and upper bounds of the integer term ``t`` over its symbols and quotient
    variables (``cache.defs``): ``L <= t <= H`` at every integer point where ``t`` is defined
    and the quotient variables have their values (at most ``CAP`` of each). A term that is
    linear in them (``s0 + 2*(s1//4)``) is its own single bound on both sides."""
    cache = Cache() if cache is None else cache
    memo = cache.memo
    for n in ir.iter_dag(t):
        if n not in memo:
            memo[n] = _bounds_one(n, [memo[a] for a in n.args], cache)
    return memo[t]


def _dedup(xs: Sequence[Lin]) -> list[Lin]:
    return list(dict.fromkeys(xs))[:CAP]


def _exact(b: Bounds) -> Lin | None:
    return b[0][0] if len(b[0]) == 1 and b[0] == b[1] else None


def quotient(u: Lin, k: int, cache: Cache) -> Lin:
    """The variable standing for ``u//k`` (``k > 0``), its definition recorded in ``cache``."""
    name = ".//" + repr((u, k))
    if name not in cache.defs:
        cache.quot[name] = (u, k)
        q = _lin({name: Fraction(k)}, Fraction(0))
        cache.defs[name] = [_row(_add(q, u, Fraction(-1)), 0),  # k*q - u <= 0
                            _row(_add(_add(u, q, Fraction(-1)), _lin({}, Fraction(1 - k))), 0)]  # u - k*q <= k - 1
    return _lin({name: Fraction(1)}, Fraction(0))


def _integral(u: Lin) -> bool:
    return all(v.denominator == 1 for _, v in u[0]) and u[1].denominator == 1


def extreme(is_max: bool, args: Sequence[Lin], cache: Cache) -> Lin:
    """The variable standing for ``Max(args)`` (``Min``), its definition recorded in ``cache``."""
    name = (".max" if is_max else ".min") + repr(tuple(args))
    if name not in cache.defs:
        m = _lin({name: Fraction(1)}, Fraction(0))
        sign = Fraction(-1) if is_max else Fraction(1)  # Max: a - m <= 0; Min: m - a <= 0
        cache.defs[name] = [_row(_scale(_add(m, a, Fraction(-1)), sign), 0) for a in args]
        cache.def_ors[name] = [Formula(rows=[_row(_scale(_add(m, a, Fraction(-1)), -sign), 0)]) for a in args]
        cache.extreme[name] = (is_max, tuple(args))
    return _lin({name: Fraction(1)}, Fraction(0))


def _bounds_one(n: Term, args: list[Bounds], cache: Cache) -> Bounds:
    k = n.kind
    if k == ir.CONST:
        c = _lin({}, Fraction(n.value))
        return [c], [c]
    if k == ir.SYM:
        x = _lin({n.value: Fraction(1)}, Fraction(0))
        return [x], [x]
    if k == ir.ADD:
        return (_dedup([_sum(p) for p in itertools.islice(itertools.product(*(a[0] for a in args)), CAP)]),
                _dedup([_sum(p) for p in itertools.islice(itertools.product(*(a[1] for a in args)), CAP)]))
    if k == ir.MUL:
        return _product(n, args, cache)
    if k in (ir.MAX, ir.MIN):
        exact = [_exact(a) for a in args]
        if all(u is not None and _integral(u) for u in exact):
            m = extreme(k == ir.MAX, exact, cache)  # type: ignore[arg-type]
            return [m], [m]
        lows = [b for a in args for b in a[0]] if k == ir.MAX else []
        highs = [b for a in args for b in a[1]] if k == ir.MIN else []
        # every argument bounded by a constant on the other side: the extreme is too
        if k == ir.MAX:
            cs = [max((c for c in map(_const, a[1]) if c is not None), default=None) for a in args]
            top = [c for c in cs if c is not None]
            if len(top) == len(cs):
                highs = [_lin({}, max(top))]
        else:
            cs = [min((c for c in map(_const, a[0]) if c is not None), default=None) for a in args]
            bot = [c for c in cs if c is not None]
            if len(bot) == len(cs):
                lows = [_lin({}, min(bot))]
        return _dedup(lows), _dedup(highs)
    if k in (ir.FLOORDIV, ir.MOD) and n.args[1].kind == ir.CONST and n.args[1].value > 0:
        d = n.args[1].value
        u = _exact(args[0])
        if u is not None and _integral(u):
            # exact: a quotient variable
            q = quotient(u, d, cache)
            if k == ir.FLOORDIV:
                return [q], [q]
            r = _add(u, _scale(q, Fraction(d)), Fraction(-1))
            return [r], [r]
        if k == ir.MOD:
            return [_lin({}, Fraction(0))], [_lin({}, Fraction(d - 1))]
        fd = Fraction(d)
        lows = [_scale(_add(lo, _lin({}, fd - 1), Fraction(-1)), 1 / fd) for lo in args[0][0]]
        highs = [_scale(hi, 1 / fd) for hi in args[0][1]]
        return lows, highs
    return [], []


def _sum(parts: Sequence[Lin]) -> Lin:
    out: Lin = ((), Fraction(0))
    for p in parts:
        out = _add(out, p)
    return out


def product(x: Lin, y: Lin, ls: list[int], cache: Cache) -> Lin:
    """The variable standing for ``x*y`` (both ``>= 0`` at every point, ``ls`` their constant
    lower bounds): its rows are the linear consequences ``p >= lx*y``, ``p >= ly*x`` and
    ``p >= ly*x + lx*y - lx*ly`` (``(x - lx)*(y - ly) >= 0``); the search splits it where a
    point's ``p`` is not the product (``_Search.refine``)."""
    name = ".mul" + repr((x, y))
    if name not in cache.defs:
        p = _lin({name: Fraction(1)}, Fraction(0))
        lx, ly = Fraction(ls[0]), Fraction(ls[1])
        lows = [_scale(y, lx), _scale(x, ly),
                _add(_add(_scale(x, ly), _scale(y, lx)), _lin({}, lx * ly), Fraction(-1))]
        cache.defs[name] = [_row(_add(lo, p, Fraction(-1)), 0) for lo in dict.fromkeys(lows)]
        cache.mul[name] = (x, y)
    return _lin({name: Fraction(1)}, Fraction(0))


def const_low(t: Term, lows: Mapping[str, int] | None = None) -> int | None:
    """A constant lower bound of ``t`` at every point, by its construction (``Max(1, x)``: 1) and
    the symbols' lower bounds ``lows``."""
    k = t.kind
    if k == ir.CONST:
        return int(t.value)
    if k == ir.SYM:
        return None if lows is None else lows.get(t.value)
    if k == ir.MAX:
        got = [v for v in (const_low(a, lows) for a in t.args) if v is not None]
        return max(got) if got else None
    if k in (ir.MIN, ir.ADD):
        vals = [const_low(a, lows) for a in t.args]
        if any(v is None for v in vals):
            return None
        return min(vals) if k == ir.MIN else sum(vals)  # type: ignore[type-var,arg-type]
    if k == ir.MUL:
        vals = [const_low(a, lows) for a in t.args]
        if any(v is None or v < 0 for v in vals):
            return None
        return math.prod(vals)  # type: ignore[arg-type]
    if k == ir.FLOORDIV and t.args[1].kind == ir.CONST and t.args[1].value > 0:
        v = const_low(t.args[0], lows)
        return None if v is None else v // t.args[1].value
    if k == ir.MOD and t.args[1].kind == ir.CONST and t.args[1].value > 0:
        return 0
    return None


def _at_least(t: Term, v: int, lows: Mapping[str, int]) -> bool:
    low = const_low(t, lows)
    return low is not None and low >= v


def _product(n: Term, args: list[Bounds], cache: Cache) -> Bounds:
    c = Fraction(1)
    fs: list[tuple[list[Lin], list[Lin]]] = []
    terms: list[Term] = []
    for a, b in zip(n.args, args):
        if a.kind == ir.CONST:
            c *= a.value
        else:
            fs.append(b)
            terms.append(a)
    if len(fs) > 1 and not all(_at_least(a, 0, cache.lows) or extremes._nonneg(a) for a in terms):
        return [], []  # a product with a factor of unknown sign: no linear bound
    if not fs:
        v = _lin({}, c)
        return [v], [v]
    if len(fs) == 1:
        lows, highs = fs[0]
    elif len(fs) == 2 and all(_exact(f) is not None and _integral(_exact(f)) for f in fs):  # type: ignore[arg-type]
        pv = product(_exact(fs[0]), _exact(fs[1]), [max(const_low(t, cache.lows) or 0, 0) for t in terms], cache)  # type: ignore[arg-type]
        lows = highs = [pv]
    else:
        # each factor f >= 0 at every point; l_f its best constant lower bound (>= 0)
        ls = [Fraction(max(const_low(t, cache.lows) or 0, 0)) for t in terms]
        lows = []
        for i, f in enumerate(fs):
            rest = Fraction(math.prod(ls[:i] + ls[i + 1:]))
            lows += [_scale(lo, rest) for lo in f[0]]  # f * P >= f * prod(l) >= lo * prod(l)
        if len(fs) == 2 and ls[0] > 0 and ls[1] > 0:  # (x - lx)*(y - ly) >= 0
            for lx, ly in itertools.islice(itertools.product(fs[0][0], fs[1][0]), CAP):
                lows.append(_add(_add(_scale(lx, ls[1]), _scale(ly, ls[0])), _lin({}, ls[0] * ls[1]), Fraction(-1)))
        highs = []
        hs = [min([v for v in map(_const, f[1]) if v is not None], default=None) for f in fs]
        if all(h is not None for h in hs):
            highs = [_lin({}, math.prod(hs))]  # type: ignore[arg-type]
        lows = _dedup(lows)
    if c < 0:
        lows, highs = highs, lows
    return _dedup([_scale(x, c) for x in lows]), _dedup([_scale(x, c) for x in highs])


# ------------------------------------------------------------------ relaxed formulas

def _row(a: Lin, src: int) -> Row:
    """``a <= 0`` as an integer row ``sum c*x <= b``."""
    den = 1
    for _, v in a[0]:
        den = den * v.denominator // math.gcd(den, v.denominator)
    den = den * a[1].denominator // math.gcd(den, a[1].denominator)
    coefs = {x: int(v * den) for x, v in a[0]}
    b = -a[1] * den  # a fraction only when den misses it: never, den covers the constant
    return coefs, int(b), src


def formula(t: Term, src: int = 0, cache: Cache | None = None, whole: bool = False) -> Formula:
    """The relaxed formula of the condition ``t`` (rows tagged ``src``): true wherever ``t`` is."""
    cache = Cache() if cache is None else cache
    k = t.kind
    if k == ir.BCONST:
        return Formula() if t.value else Formula(rows=[({}, -1, src)])
    if k == ir.AND:
        out = Formula()
        for a in t.args:
            out.merge(formula(a, src, cache, whole))
        return out
    if k == ir.OR:
        return Formula(ors=[[formula(a, src, cache, whole) for a in t.args]])
    if k == ir.NOT and t.args[0].kind in (ir.AND, ir.OR):
        flip = ir.mk_or if t.args[0].kind == ir.AND else ir.mk_and
        return formula(flip(*(ir.mk_not(a) for a in t.args[0].args)), src, cache, whole)
    if k not in (ir.LE, ir.EQ, ir.NOT) or (k == ir.NOT and t.args[0].kind not in (ir.LE, ir.EQ)):
        return Formula()  # a Boolean symbol, an iff: no linear consequence
    # ``whole``: a comparison with a product is not split (the split moves a Max out of a product
    # into products with arguments of unknown sign, with no linear form): the product stays one
    # variable, which the search refines (``_Search.refine``)
    tree = None if whole and _has_product(t) else extremes.split(t)
    return _tree(t if tree is None else tree, src, cache)


def _has_product(t: Term) -> bool:
    return any(n.kind == ir.MUL and sum(1 for a in n.args if a.kind != ir.CONST) > 1 for n in ir.iter_dag(t))


def _tree(tree: extremes.Tree, src: int, cache: Cache) -> Formula:
    if isinstance(tree, Term):
        return _leaf(tree, src, cache)
    kind, parts = tree
    if kind == "and":
        out = Formula()
        for p in parts:
            out.merge(_tree(p, src, cache))
        return out
    return Formula(ors=[[_tree(p, src, cache) for p in parts]])


def _leaf(t: Term, src: int, cache: Cache) -> Formula:
    k = t.kind
    if k == ir.BCONST:
        return formula(t, src, cache)
    if k == ir.LE:  # e <= 0: every lower bound of e is <= 0
        return Formula(rows=[_row(lo, src) for lo in bounds(t.args[0], cache)[0]])
    if k == ir.EQ:
        lows, highs = bounds(t.args[0], cache)
        return Formula(rows=[_row(lo, src) for lo in lows] + [_row(_scale(h, Fraction(-1)), src) for h in highs])
    a = t.args[0]
    if k == ir.NOT and a.kind == ir.LE:  # e >= 1: 1 - H <= 0 for every upper bound H
        return Formula(rows=[_row(_add(_lin({}, Fraction(1)), h, Fraction(-1)), src)
                             for h in bounds(a.args[0], cache)[1]])
    if k == ir.NOT and a.kind == ir.EQ:  # e <= -1 or e >= 1
        lows, highs = bounds(a.args[0], cache)
        below = Formula(rows=[_row(_add(lo, _lin({}, Fraction(1))), src) for lo in lows])
        above = Formula(rows=[_row(_add(_lin({}, Fraction(1)), h, Fraction(-1)), src) for h in highs])
        if not below.rows or not above.rows:
            return Formula()  # one side unconstrained: the disjunction says nothing linear
        return Formula(ors=[[below, above]])
    return Formula()


# ------------------------------------------------------------------ Fourier–Motzkin

Sparse = tuple[tuple[int, int], ...]  # a row's non-zero (variable index, coefficient) pairs, by index


def eliminate(rows: Sequence[Row], names: Sequence[str], prefer: Mapping[str, int],
              meter: Meter, limit: list[int], read: bool = True) -> tuple[bool, int | dict[str, int] | None]:
    """Integer-tightened Fourier–Motzkin on ``rows``: ``(False, sources)`` when they contradict
    each other (no integer point), else ``(True, point)`` with a point of every row read back
    (values nearest ``prefer``): an integer one when a bounded search finds it, else a rational
    one (``Fraction`` values where no integer fits: the caller branches on them), or
    ``(True, None)`` when neither was read. Raises ``_Spent`` past the budget.

    Rows are sparse (a guard's rows name 1-4 of the branch's variables): the work counted is the
    rows scanned and the pairs combined per eliminated variable, whatever their width."""
    idx = {x: k for k, x in enumerate(names)}
    n = len(names)
    cur: dict[Sparse, tuple[int, int]] = {}
    for coefs, b, src in rows:
        vec: dict[int, int] = {}
        for name, coef in coefs.items():
            vec[idx[name]] = vec.get(idx[name], 0) + coef
        bad = _put(cur, sorted(vec.items()), b, src)
        if bad is not None:
            return False, bad
    levels: list[tuple[int, list[tuple[Sparse, int]]]] = []
    alive = set(range(n))
    pos_n = [0] * n
    neg_n = [0] * n
    occ: list[dict[Sparse, None]] = [{} for _ in range(n)]  # the rows naming each variable, in order
    for row in cur:
        _count(pos_n, neg_n, row, 1)
        for k, _ in row:
            occ[k][row] = None
    while alive:
        j = min(alive, key=lambda v: (pos_n[v] * neg_n[v] - pos_n[v] - neg_n[v], v))
        alive.discard(j)
        pos: list[tuple[Sparse, int, int, int]] = []
        neg: list[tuple[Sparse, int, int, int]] = []
        for row in occ[j]:
            b, s = cur.pop(row)
            a = _coef(row, j)
            if a > 0:
                pos.append((row, a, b, s))
            else:
                neg.append((row, -a, b, s))
            _count(pos_n, neg_n, row, -1)
            for k, _ in row:
                if k != j:
                    del occ[k][row]
        levels.append((j, [(row, b) for row, _, b, _ in pos + neg]))
        # the variables' counts, the rows naming this one, and one combination per pair: the rows
        # that do not name it stay as they are (an occurrence index, no scan of the others)
        cost = len(alive) + len(pos) + len(neg) + len(pos) * len(neg)
        if cost:
            limit[0] -= cost
            meter.spend(cost)
            if limit[0] < 0 or meter.left < 0:
                raise _Spent
        for p, a, bp, sp in pos:
            for q, c, bq, sq in neg:
                comb: dict[int, int] = {}
                for k, pk in p:
                    if k != j:
                        comb[k] = c * pk
                for k, qk in q:
                    if k != j:
                        w = comb.get(k, 0) + a * qk
                        if w:
                            comb[k] = w
                        else:
                            del comb[k]
                before = len(cur)
                bad = _put(cur, sorted(comb.items()), c * bp + a * bq, sp | sq)
                if bad is not None:
                    return False, bad
                if len(cur) > before:  # a new row: the last key
                    row = next(reversed(cur))
                    _count(pos_n, neg_n, row, 1)
                    for k, _ in row:
                        occ[k][row] = None
        if len(cur) > MAX_ROWS:
            raise _Spent
    if not read:
        return True, None
    # read a point back: the last variable eliminated first, each nearest ``prefer`` within the
    # bounds its rows leave; an empty interval (the rational shadow has no integer point there)
    # backtracks to the earlier choices, a few values each
    val = [0] * n
    order = list(reversed(levels))
    tries = [READ_TRIES]

    def pick(p: int) -> bool:
        if p == len(order):
            return True
        j, rs = order[p]
        lo, hi = None, None
        for v, b in rs:
            rest = b
            aj = 0
            for k, c in v:
                if k == j:
                    aj = c
                else:
                    rest -= c * val[k]
            if aj > 0:
                top = rest // aj
                hi = top if hi is None else min(hi, top)
            else:
                bot = -(rest // -aj)
                lo = bot if lo is None else max(lo, bot)
        if lo is not None and hi is not None and lo > hi:
            return False
        try:
            want = prefer[names[j]]  # a quotient variable of a ``Cache.extend`` point: its value there
        except KeyError:
            want = 0
        first = want if lo is None else max(want, lo)
        first = first if hi is None else min(first, hi)
        # nearest the preferred value first, then the interval's ends (where rows are tight)
        cands = [first + d for d in range(1, READ_WIDTH)] + [first - d for d in range(1, READ_WIDTH)]
        cands = [first] + [w for w in (lo, hi) if w is not None] + sorted(cands, key=lambda w: (abs(w - first), w))
        for w in dict.fromkeys(cands):
            if (lo is not None and w < lo) or (hi is not None and w > hi):
                continue
            tries[0] -= 1
            if tries[0] < 0:
                return False
            val[j] = w
            if pick(p + 1):
                return True
        return False

    limit[0] -= READ_TRIES  # the read-back's share, charged whatever it uses
    meter.spend(READ_TRIES)
    if pick(0):
        return True, {x: val[k] for k, x in enumerate(names)}
    # no integer point read back: a rational one (each level's rows are implied by the next
    # level's, so its interval is never empty), an integer value wherever its interval has one;
    # the search branches on a fractional variable (``x <= floor(v)`` or ``x >= ceil(v)``)
    rat: list[Fraction] = [Fraction(0)] * n
    for j, rs in order:
        qlo: Fraction | None = None
        qhi: Fraction | None = None
        for row, b in rs:
            rest = Fraction(b)
            aj = 0
            for k, c in row:
                if k == j:
                    aj = c
                else:
                    rest -= c * rat[k]
            if aj > 0:
                qhi = rest / aj if qhi is None else min(qhi, rest / aj)
            else:
                qlo = rest / aj if qlo is None else max(qlo, rest / aj)
        if qlo is not None and qhi is not None and qlo > qhi:
            return True, None
        want = Fraction(prefer.get(names[j], 0))
        ilo = None if qlo is None else math.ceil(qlo)
        ihi = None if qhi is None else math.floor(qhi)
        if ilo is None or ihi is None or ilo <= ihi:
            near: Fraction = want if ilo is None or want >= ilo else Fraction(ilo)
            rat[j] = near if ihi is None or near <= ihi else Fraction(ihi)
        else:
            assert qlo is not None
            rat[j] = qlo
    return True, {x: (int(rat[k]) if rat[k].denominator == 1 else rat[k]) for k, x in enumerate(names)}  # type: ignore[misc]


def _coef(v: Sparse, j: int) -> int:
    for k, c in v:
        if k == j:
            return c
    return 0


def _count(pos_n: list[int], neg_n: list[int], vec: Sparse, d: int) -> None:
    for k, v in vec:
        if v > 0:
            pos_n[k] += d
        else:
            neg_n[k] += d


def _put(rows: dict[Sparse, tuple[int, int]], vec: list[tuple[int, int]], b: int, src: int) -> int | None:
    """Adds the tightened row (its non-zero pairs, by index); its sources when it is ``0 <= b``
    with ``b < 0``."""
    vec = [(k, v) for k, v in vec if v]
    if not vec:
        return src if b < 0 else None
    g = math.gcd(*(v for _, v in vec))
    if g == 1:
        key = tuple(vec)
    else:
        key = tuple([(k, v // g) for k, v in vec])
        b //= g
    old = rows.get(key)
    if old is None or b < old[0]:
        rows[key] = (b, src)
    return None


# ------------------------------------------------------------------ the search

def _value(u: Lin, pt: Mapping[str, int]) -> int:
    return int(u[1] + sum(c * pt[x] for x, c in u[0]))


def _collect(f: Formula, out: set[str]) -> None:
    for coefs, _, _ in f.rows:
        out.update(coefs)
    for node in f.ors:
        for part in node:
            _collect(part, out)


def _holds(f: Formula, pt: Mapping[str, int]) -> bool:
    if not all(sum(c * pt[x] for x, c in coefs.items()) <= b for coefs, b, _ in f.rows):
        return False
    return all(any(_holds(p, pt) for p in node) for node in f.ors)


def decide(goal: Term, facts: Sequence[tuple[Term, int]], ranges: Mapping[str, tuple[int | None, int | None]],
           prefer: Mapping[str, int], limit: int, meter: Meter,
           accept: Callable[[dict[str, int]], bool] = lambda pt: False,
           cache: Cache | None = None) -> tuple[bool, set[int] | dict[str, int]] | None:
    """Is ``goal`` implied by the ``facts`` (``(term, source)``; source -1: no name) within
    ``ranges``? ``(False, sources)``: implied, by the facts named (their rows' contradictions
    cover every branch of ``facts & ~goal``); ``(True, point)``: a point (the symbols' values)
    every relaxed fact and the relaxed negated goal hold at, accepted by ``accept`` (the caller's
    check on the original terms); None: undecided (open branches, or the budget: at most
    ``limit`` row combinations, and the ``meter``'s pass total).

    Facts enter the search lazily: a branch starts with the negated goal and the ranges, and a
    fact joins when the branch's read-back point violates it (a fact the point meets cannot be
    the reason the branch is open), so the eliminations stay small on sets of hundreds of guards."""
    cache = Cache({x: lo for x, (lo, _) in ranges.items() if lo is not None}) if cache is None else cache
    syms = tuple(sorted(ranges))
    budget = [limit]
    search = _Search(cache, cache.extend({**{x: 0 for x in syms}, **prefer}), meter, budget, accept, syms)
    search.tags = 1 + max((j for _, j in facts), default=0)  # decision tags sit above the facts' bits
    try:
        got = _attempt(search, goal, facts, ranges, cache.formulas)
    except _Spent:
        return None
    if got is None:
        return None
    if isinstance(got, dict):
        return True, got
    return False, {j for j in range(min(got.bit_length(), search.tags)) if got >> j & 1}


def _attempt(search: _Search, goal: Term, facts: Sequence[tuple[Term, int]],
             ranges: Mapping[str, tuple[int | None, int | None]],
             formulas: dict[tuple[Term, int], Formula]) -> int | dict[str, int] | None:
    cache = search.cache
    top = formula(ir.mk_not(goal), 0, cache, whole=True)
    named: set[str] = set()
    _collect(top, named)
    search.goal_products = sorted(x for x in named if x in cache.mul)
    search.with_products = [(t, j) for t, j in facts if _has_product(t)]
    pending: list[Formula] = []
    for t, j in facts:
        key = (t, j)
        f = formulas.get(key)
        if f is None:
            f = formulas[key] = formula(t, 1 << j if j >= 0 else 0, cache)
            search.charge(len(f.rows) + len(f.ors))
        if f.rows or f.ors:
            pending.append(f)
    rows = list(top.rows)
    for x in sorted(ranges):
        lo, hi = ranges[x]
        if lo is not None:
            rows.append(({x: -1}, -lo, 0))
        if hi is not None:
            rows.append(({x: 1}, hi, 0))
    return search.run(rows, top.ors, tuple(pending))


JOIN = 8  # facts a branch takes in at once


class _Search:
    def __init__(self, cache: Cache, prefer: dict[str, int], meter: Meter, budget: list[int],
                 accept: Callable[[dict[str, int]], bool], syms: tuple[str, ...]) -> None:
        self.cache, self.prefer, self.meter, self.budget = cache, prefer, meter, budget
        self.accept, self.syms = accept, syms
        self.rejected: dict[str, int] | None = None  # the last point ``accept`` turned down
        self.tags = 0
        self.goal_products: list[str] = []  # product variables the negated goal names (``refine``)
        self.with_products: list[tuple[Term, int]] = []  # facts with a product (``whole``)
        # points an argument of a Max/Min must not exceed another at to be checked for dominance
        lows = {x: cache.lows.get(x, 0) for x in syms}
        self.samples = [_Point(cache, p) for p in (prefer, lows, {x: 2 * v + 1 for x, v in lows.items()})]

    def charge(self, work: int) -> None:
        self.budget[0] -= work
        self.meter.spend(work)
        if self.budget[0] < 0 or self.meter.left < 0:
            raise _Spent

    def point(self, rows: list[Row]) -> tuple[bool, int | dict[str, int] | None]:
        """Eliminate ``rows`` (with the definitions of the auxiliary variables they name: see
        ``run``), the point read back extended to every auxiliary variable."""
        names: set[str] = set()
        for coefs, _, _ in rows:
            names.update(coefs)
        feasible, got = eliminate(rows, sorted(names), self.prefer, self.meter, self.budget)
        if isinstance(got, dict):
            got = self.cache.extend({**{x: self.prefer.get(x, 0) for x in self.syms}, **got})
        return feasible, got

    def activate(self, rows: list[Row], ors: list[list[Formula]],
                 active: frozenset[str]) -> tuple[list[Row], list[list[Formula]], frozenset[str]]:
        """The definitions of the auxiliary variables ``rows`` name (and those theirs name) joined:
        rows, and for a ``Max``/``Min`` the or-node saying which argument it is."""
        defs, def_ors = self.cache.defs, self.cache.def_ors
        todo = sorted({x for coefs, _, _ in rows for x in coefs if x in defs and x not in active})
        if not todo:
            return rows, ors, active
        rows, ors, seen = list(rows), list(ors), set(active)
        while todo:
            x = todo.pop()
            if x in seen:
                continue
            seen.add(x)
            new = list(defs[x])
            rows += defs[x]
            if x in def_ors:
                node = self.cache.choice(x, self.meter, self.samples)
                if len(node) == 1:
                    rows += node[0].rows
                else:
                    ors.append(node)
                new += [r for part in node for r in part.rows]  # their variables too (not the rows)
            todo += [y for coefs, _, _ in new for y in coefs if y in defs and y not in seen]
        return rows, ors, frozenset(seen)

    def whole(self, cand: dict[str, int], active: frozenset[str]) -> tuple[str, Formula] | None:
        """The first fact with a product that ``cand`` fails on its original terms, relaxed with
        the product as one variable (``formula(whole=True)``: the split form the branch holds
        may have dropped the product's comparison), unless the branch has it (its mark in
        ``active``); None when there is none."""
        for k, (t, j) in enumerate(self.with_products):
            mark = f"#whole {k}"  # no auxiliary variable (".") or symbol is named so
            if mark in active or value(t, cand) is not False:
                continue
            f = self.cache.wholes.get((t, j))
            if f is None:
                f = self.cache.wholes[t, j] = formula(t, 1 << j if j >= 0 else 0, self.cache, whole=True)
                self.charge(len(f.rows) + len(f.ors))
            return mark, f
        return None

    def refine(self, pt: Mapping[str, int], names: Sequence[str]) -> list[Formula] | None:
        """For a product variable (of ``names``) whose value at ``pt`` is not the product of its
        factors there, the or-node splitting its smaller factor ``x`` at its value ``v``:
        ``x <= v - 1`` with ``p <= (v - 1)*y``, ``x == v`` with ``p == v*y`` (exact), ``x >= v + 1``
        with ``p >= (v + 1)*y`` (each valid as ``y >= 0``): the parts cover every point."""
        for name in names:
            x, y = self.cache.mul[name]
            xv, yv = _value(x, pt), _value(y, pt)
            if pt[name] == xv * yv:
                continue
            if abs(yv) < abs(xv):
                x, y, xv = y, x, yv
            p = _lin({name: Fraction(1)}, Fraction(0))

            def le(a: Lin, b: Lin) -> Row:
                return _row(_add(a, b, Fraction(-1)), 0)

            def k(v: int) -> Lin:
                return _lin({}, Fraction(v))

            at = Formula(rows=[le(x, k(xv)), le(k(xv), x), le(p, _scale(y, Fraction(xv))), le(_scale(y, Fraction(xv)), p)])
            below = Formula(rows=[le(x, k(xv - 1)), le(p, _scale(y, Fraction(xv - 1)))])
            above = Formula(rows=[le(k(xv + 1), x), le(_scale(y, Fraction(xv + 1)), p)])
            return [at, below, above]
        return None

    def run(self, rows: list[Row], ors: list[list[Formula]], pending: tuple[Formula, ...],
            active: frozenset[str] = frozenset(), depth: int = 0) -> int | dict[str, int] | None:
        """Sources of a contradiction in every branch (int), an accepted point, or None.

        The rows an ``or`` part adds carry a decision tag (bit ``tags + depth``): a branch whose
        contradiction does not name its own tag contradicts without the part, so the node's
        other parts fail alike and are skipped (backjumping)."""
        done = -1  # rows only grow here: a join that added or-nodes alone leaves the elimination as it was
        while True:
            rows, ors, active = self.activate(rows, ors, active)
            if len(rows) != done:
                feasible, got = self.point(rows)
                done = len(rows)
            if not feasible:
                return got  # type: ignore[return-value]
            pt = got if isinstance(got, dict) else None
            if pt is None:
                break
            late = [k for k, f in enumerate(pending) if not _holds(f, pt)][:JOIN]
            if not late:
                break
            rows = rows + [r for k in late for r in pending[k].rows]
            ors = ors + [o for k in late for o in pending[k].ors]
            pending = tuple(f for k, f in enumerate(pending) if k not in late)
        pick = 0
        if pt is not None:
            open_ = [k for k, node in enumerate(ors) if not any(_holds(p, pt) for p in node)]
            frac = None if open_ else _fractional(pt, rows)
            if frac is not None:  # a rational point: branch on a variable's integrality
                x, v = frac
                lo = math.floor(v)
                ors = ors + [[Formula(rows=[({x: 1}, lo, 0)]), Formula(rows=[({x: -1}, -lo - 1, 0)])]]
                open_ = [len(ors) - 1]
            if not open_:
                cut = self.refine(pt, self.goal_products)
                if cut is not None:
                    ors = ors + [cut]
                    open_ = [len(ors) - 1]
            if not open_:
                cand = {x: pt[x] for x in self.syms}
                if self.accept(cand):
                    return cand
                self.rejected = cand
                # the point may fail a fact only through a product the relaxation left free:
                # refined there, the branch goes on (no other product: undecided)
                cut = self.refine(pt, sorted({x for coefs, _, _ in rows for x in coefs if x in self.cache.mul}))
                if cut is None:
                    more = self.whole(cand, active)
                    if more is None:
                        return None
                    mark, f = more
                    return self.run(rows + f.rows, ors + f.ors, pending, active | {mark}, depth)
                ors = ors + [cut]
                open_ = [len(ors) - 1]
            pick = min(open_, key=lambda k: (len(ors[k]), k))  # the fewest parts first
        elif not ors:
            return None
        node, rest = ors[pick], ors[:pick] + ors[pick + 1:]
        # the part the read-back point fails least first, so a branch holding a counterexample is met early
        order = sorted(range(len(node)), key=lambda k: (_misses(node[k], pt), k))
        srcs = 0
        undecided = False
        tag = 1 << (self.tags + depth)
        for k in order:
            part = _tagged(node[k], tag)  # its nested or-nodes too: a split on them is this part's
            got2 = self.run(rows + part.rows, rest + part.ors, pending, active, depth + 1)
            if isinstance(got2, dict):
                return got2
            if got2 is None:
                undecided = True
            elif not got2 & tag:
                return got2  # contradictory without this part: so with any other
            else:
                srcs |= got2 & ~tag
        return None if undecided else srcs


def _fractional(pt: Mapping[str, int | Fraction], rows: list[Row]) -> tuple[str, Fraction] | None:
    """A variable of ``rows`` whose value at ``pt`` is not an integer (the first by name)."""
    names = sorted({x for coefs, _, _ in rows for x in coefs})
    for x in names:
        v = pt[x]
        if isinstance(v, Fraction) and v.denominator != 1:
            return x, v
    return None


def _tagged(f: Formula, tag: int) -> Formula:
    return Formula(rows=[(c, b, src | tag) for c, b, src in f.rows],
                   ors=[[_tagged(p, tag) for p in node] for node in f.ors])


def _misses(f: Formula, pt: Mapping[str, int] | None) -> int:
    if pt is None:
        return 0
    return sum(1 for coefs, b, _ in f.rows if sum(c * pt[x] for x, c in coefs.items()) > b)
