"""Evidence about a condition under the context: sample points refute it, z3 proves it.

The sample points are found on first need (the hints and deterministic moves kept where the
compiled context holds, ``_sample``); a condition is refuted by a point where it is false, first
among those points, then by a search that moves only the condition's own symbols (``refute``). A
condition the points do not refute is proven by z3 on the slice of the context about its symbols
(``prove``), in resource units (deterministic); a model z3 finds joins the points. The two feed
each other, so they are one mixin of ``simplify._Run``, which owns the state named below.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from symguard.solver.ir import terms as ir
from symguard.solver.ir.problem import Problem
from symguard.solver.ir.pycode import compile_check, compile_shared
from symguard.solver.ir.pyeval import Value, _one, defined, holds
from symguard.solver.ops.selfcheck import hint_model
from symguard.solver.ops.simplify_facts import _tied_symbols
from symguard.solver.ops.simplify_values import HEAD_POINTS, Model, _Values
from symguard.solver.reason.points import _base, _moves, _spread
from symguard.solver.reason.rewrite import Rewriter
from symguard.solver.reason.simplify_rules import Decider
from symguard.solver.smt.checker import SAT, UNSAT, Deadline
from symguard.solver.smt.optimize import Session

POOL_POINTS = 24  # context points sampled on first need (the hints and moves around them)
SAMPLE_TRIES = 8 * POOL_POINTS  # random moves tried against the compiled context
TARGET_TRIES = 64  # points moving only a condition's own symbols, tried before z3
SAFE_MOVES = 4  # moves of each symbol tried alone before the sample moves many at once
# z3 budgets in resource units (not derived from ms: a new calibration of the checker's units
# per ms must not change which forms are found)
CHECK_UNITS = 12_000  # one check (a side condition, a CSE proof): the corpus's proofs take a few thousand
POINT_UNITS = 4 * CHECK_UNITS  # a first point of the whole context when the sample finds none
MAX_MISSES = 4  # points just outside the context kept per condition (slice_refuted)
TREE_CODE = 20_000  # context nodes written out up to which it is compiled as one expression


def _context_check(context: list[ir.Term], names: list[str]) -> Callable[..., bool]:
    """The context as one Python function of the sizes. Printed as a tree (``compile_check``) while
    small; past ``TREE_CODE`` nodes written out (nested ``Abs`` or ``TruncDiv`` repeat their
    arguments) as straight-line code computing each shared node once (``compile_shared``): the
    tree's source took seconds to compile and each call to run (18 nested ``Abs``: 17 s)."""
    if sum(t.size for t in context) <= TREE_CODE:
        return compile_check(context, names)
    first_failing, _ = compile_shared(context, names)
    return lambda *at: first_failing(*at) < 0


def divisors_defined(t: ir.Term) -> ir.Term:
    """Every divisor ``t`` evaluates is non-zero (the domain of a form: lazy as Python, an ITE
    branch not taken or an and/or operand after the deciding one is not evaluated; ``pyeval``)."""
    return defined(t)


class _Evidence:
    """Sample points and z3 proofs of ``simplify._Run`` (a mixin: the state is set by its ``__init__``)."""

    p: Problem
    deadline: Deadline
    context: list[ir.Term]
    rw: Rewriter
    decider: Decider
    checks: int
    _sized: set[str]
    _values: _Values | None
    _search: tuple[list[str], Any, Model, dict[str, list[int]]] | None
    _tied: dict[str, tuple[str, ...]]
    _range: dict[str, tuple[int | None, int | None]]
    _inside: list[bool]
    _base_ok: bool
    _about: dict[str, list[ir.Term]] | None
    _misses: dict[tuple[ir.Term, ir.Term], list[Model]]
    _sess: Session | None
    _slice_sess: Session | None
    _con_syms: list[tuple[ir.Term, frozenset[str]]] | None
    _linear: dict[ir.Term, bool]

    @property
    def values(self) -> _Values:
        """Sample points of the context, on first need (most expressions need none): the hints
        (range ends for symbols without one) and deterministic moves of a few symbols at a time,
        kept when the context — compiled into one Python function — holds there (``_sample``)."""
        if self._values is None:
            self._values = _Values(self._sample())
        return self._values

    def _sample(self) -> list[Model]:
        ints = [s for s in self.p.symbols if not s.is_bool]
        if len(ints) != len(self.p.symbols):
            return []
        names = [s.name for s in ints]
        try:
            check = _context_check(self.context, names)
        except ValueError:  # a name Python cannot spell: no points, z3 decides
            return []
        # the hints, else an end of what the facts say of each symbol (``x < u0`` with ``x >= 0``
        # puts ``u0`` at 1, not at its range's 0, where no loop variable fits); moves inside
        # those bounds (``x < 16`` keeps a loop variable's moves below 16, so moving many
        # symbols at once still satisfies the context)
        ivs = {s.name: self.rw.interval(ir.mk_sym(s.name)) for s in ints}
        base = {s.name: _base(*ivs[s.name], s.hint) for s in ints}
        hint = hint_model(self.p)
        cands = {n: [v for v in _moves(lo, hi, base[n]) if v != base[n]] for n, (lo, hi) in ivs.items()}
        self._range = {s.name: (s.lo, s.hi) for s in ints}
        rng = random.Random(0)
        out: list[Model] = []
        seen: set[tuple[Value, ...]] = set()
        start = self._start(dict(hint) if hint is not None else dict(base), names, check, cands, rng)
        if start is None:  # symbols tied by equalities (u1 == u0, …) move together: ask z3 for one point
            out_z3 = self.sess.check(budget=self.deadline.grant(POINT_UNITS))
            model = dict(out_z3.model) if out_z3.status == SAT else {}
            if all(n in model for n in names) and check(*(model[n] for n in names)):
                start = {n: model[n] for n in names}
        self._search = (names, check, start if start is not None else base, cands)
        self._base_ok = start is not None
        self._tied = _tied_symbols(self.context)
        if start is None:
            return out
        at = [start[n] for n in names]
        out.append(start)
        seen.add(tuple(at))
        # the moves that keep the context when made alone (sizes pinned by guards have none)
        safe: dict[str, list[int]] = {}
        for i, n in enumerate(names):
            for v in _safe_tries(cands[n], start[n]):
                at[i] = v
                if check(*at):
                    safe.setdefault(n, []).append(v)
            at[i] = start[n]
        movable = sorted(safe)
        for _ in range(SAMPLE_TRIES):
            if len(out) >= POOL_POINTS or not movable:
                break
            # about half of the symbols move at once (a guess that every point agrees on must not
            # come from symbols that stayed at their hint); when the context fails there, half
            # of those moves are undone, until it holds or nothing moves
            moved = {n: rng.choice(safe[n]) for n in movable if rng.random() < 0.5}
            while True:
                pt = {**start, **moved}
                key = tuple(pt[n] for n in names)
                if key not in seen and check(*key):
                    seen.add(key)
                    out.append(pt)
                    break
                if len(moved) <= 1:
                    break
                moved = dict(list(moved.items())[: len(moved) // 2])
        return out

    def _below(self, u: ir.Term, v: ir.Term, k: int) -> bool:
        """``u - v < k`` at one of the first sample points inside every range (``Rewriter.below``).
        Such a point satisfies every fact of ``rw``: the asserts and guards (``_sample`` keeps
        only points of the context), the ranges, and what propagation derives from them. Only
        points already sampled: asking must not build the sample (most expressions need none)."""
        vals = self._values
        if vals is None:
            return False
        n = min(HEAD_POINTS, len(vals.points))
        inside = self._inside
        for pt in vals.points[len(inside):n]:
            inside.append(all((lo is None or pt[x] >= lo) and (hi is None or pt[x] <= hi)
                              for x, (lo, hi) in self._range.items()))
        us, vs = vals.head(u, n), vals.head(v, n)
        return any(ok and a is not None and b is not None and a - b < k
                   for ok, a, b in zip(inside[:n], us, vs))

    def refute(self, cond: ir.Term, domain: ir.Term) -> bool:
        """A point of the context (and the domain) where ``cond`` is false, searched by moving only
        ``cond``'s symbols away from the hints — the sample moves a few of many symbols, a loop
        bound's counterexample needs its own two. Candidates: each symbol's moves, and the values next
        to the condition's constants and to its subterms' values at the hints (``v <= A*B`` fails at
        ``v = A*B + 1``). A point found joins the sample points."""
        if self._search is None:
            return False
        _, _, base, moves = self._search
        nodes = ir.iter_dag(cond)
        near = {c + d for c in _at(nodes, base) for d in (-1, 0, 1)}
        cands: dict[str, list[int]] = {}
        for n in nodes:  # the moves, and the values next to the condition's constants (sizes != 2**63 - 1)
            if n.kind == ir.SYM and n.value in moves:
                lo, hi = self._range[n.value]
                cands[n.value] = moves[n.value] + sorted(v for v in near if (lo is None or v >= lo)
                                                         and (hi is None or v <= hi) and v != base[n.value])
        syms = sorted(n for n, vs in cands.items() if vs)
        if not syms:
            return False
        own = {n: base[n] for n in ir.symbols_of(cond) | ir.symbols_of(domain)}
        # one symbol at a time first (a loop variable moved alone keeps the other bounds), then
        # random moves of all of them
        if self._try(cond, domain, own, [{n: v} for n in syms for v in cands[n]][:TARGET_TRIES * 2]):
            return True
        if len(syms) > 1:
            rng = random.Random(len(self.values.points))
            return self._try(cond, domain, own, [{n: rng.choice(cands[n]) for n in syms} for _ in range(TARGET_TRIES)])
        return False

    def _try(self, cond: ir.Term, domain: ir.Term, own: Model, combos: list[Model]) -> bool:
        """The condition at every candidate at once (its own few symbols, column operations), the
        whole compiled context only where it fails; the first point of the context joins."""
        assert self._search is not None
        names, check, base, _ = self._search
        tied = self._tied
        if tied:  # a symbol equal to others by a guard (u1 == u0) moves with them
            combos = [{m: v for n, v in c.items() for m in tied.get(n, (n,))} for c in combos]
        trial = _Values([{**own, **c} for c in combos[:HEAD_POINTS]])
        misses = self._misses.setdefault((cond, domain), [])
        start = 0
        for k in (HEAD_POINTS, len(combos)):  # in order, the first few candidates first (most searches stop there)
            if k > len(trial.points):  # the others' points only now (a vector is extended from where it stopped)
                trial.points.extend({**own, **c} for c in combos[len(trial.points):k])
            vs, ds = trial.head(cond, k), trial.head(domain, k)
            for i in range(start, min(k, len(combos))):
                if vs[i] is False and ds[i]:
                    pt = {**base, **combos[i]}
                    if self._context_at(pt, combos[i], names, check):
                        self.values.add(pt)
                        return True
                    if len(misses) < MAX_MISSES:
                        misses.append(pt)
            start = k
        return False

    def _context_at(self, pt: Model, moved: Model, names: list[str], check: Callable[..., bool]) -> bool:
        """The whole context holds at ``pt``, which differs from the search's base only in the
        ``moved`` symbols: when the base is a point of the context (``_sample`` found one) only
        the constraints about a moved symbol can fail there (a 400-guard context is one
        constraint about a size ``s_i``), else every constraint is checked (``check``)."""
        if not self._base_ok:
            return bool(check(*(pt[n] for n in names)))
        about = self._about
        if about is None:
            about = self._about = {}
            for t in self.context:
                for n in ir.symbols_of(t):
                    about.setdefault(n, []).append(t)
        done: set[ir.Term] = set()
        for n in moved:
            for t in about.get(n, ()):
                if t not in done:
                    done.add(t)
                    if not holds(t, pt):
                        return False
        return True

    @staticmethod
    def _start(pt: Model, names: list[str], check: Callable[..., bool], cands: dict[str, list[int]],
               rng: random.Random) -> Model | None:
        """The hints when the context holds there, else the first of a few moves of one to three
        symbols from them that satisfies it (``Eq(Mod(s, 8), 0)`` with ``s`` at its minimum 2)."""
        if check(*(pt[n] for n in names)):
            return pt
        movable = [n for n in names if cands[n]]
        for _ in range(SAMPLE_TRIES):
            if not movable:
                break
            cand = {**pt, **{n: rng.choice(cands[n]) for n in rng.sample(movable, min(len(movable), rng.choice((1, 2, 3))))}}
            if check(*(cand[n] for n in names)):
                return cand
        return None

    def add_point(self, pt: Model) -> bool:
        """Keep a model when it is a point of the whole context (every symbol, every constraint)."""
        if all(s.name in pt for s in self.p.symbols) and all(holds(t, pt) for t in self.context):
            self.values.add(pt)
            return True
        return False

    @property
    def sess(self) -> Session:
        if self._sess is None:
            self._sess = Session(self.p, self.deadline)
        return self._sess

    def slice(self, syms: set[str], linear_only: bool = True) -> tuple[Session, list[int]]:
        """The request's z3 session (symbols and ranges only) and the selector handles of the
        constraints that mention one of ``syms`` or only sized symbols (those with a hint): a
        condition on sizes needs neither the hundred loop bounds of other kernels nor their
        variables (a bound on its own symbols it keeps: ``x < u0`` with ``x >= 0`` is ``u0 >= 1``), and
        each constraint is encoded once, when a slice first needs it. ``linear_only`` keeps the
        linear ones alone (``linear``). Dropping constraints only weakens the assumptions, so what
        the slice proves the whole context proves; a model of the slice is a point only when the
        whole context holds there (``add_point`` checks)."""
        if self._slice_sess is None:
            self._slice_sess = Session(replace(self.p, asserts=(), guards=()), self.deadline)
        s = self._slice_sess
        return s, [s.ch.selector(t) for t in self.slice_terms(syms, linear_only)]

    def slice_terms(self, syms: set[str], linear_only: bool) -> list[ir.Term]:
        """The constraints of ``slice``."""
        if self._con_syms is None:
            self._con_syms = [(c.term, frozenset(ir.symbols_of(c.term))) for c in (*self.p.asserts, *self.p.guards)
                              if c.term is not None]
        keep = self._sized | syms
        return [t for t, cs in self._con_syms if (cs <= keep or cs & syms) and (not linear_only or self.linear(t))]

    def slice_refuted(self, cond: ir.Term, domain: ir.Term, linear_domain: ir.Term) -> bool:
        """A point the refutation search met where ``cond`` fails and ``domain``, the ranges and
        the linear slice hold, but not the whole context: z3 on that slice cannot prove
        ``cond`` (the point is a model of the negation), and a model it finds may again miss
        the context. Skipping the check loses no proof."""
        misses = self._misses.get((cond, domain))
        if not misses:
            return False
        cons = self.slice_terms(ir.symbols_of(cond) | ir.symbols_of(linear_domain), True)
        ranges = [(s.name, s.lo, s.hi) for s in self.p.symbols if not s.is_bool]
        return any(all((lo is None or pt[n] >= lo) and (hi is None or pt[n] <= hi) for n, lo, hi in ranges)
                   and all(holds(t, pt) for t in cons) for pt in misses)

    def linear(self, t: ir.Term) -> bool:
        """Linear integer arithmetic: no product of two non-constant factors, no division by a
        non-constant (z3 decides it, divisions by constants included, in few units)."""
        memo = self._linear
        hit = memo.get(t)
        if hit is None:
            for n in ir.iter_dag(t):
                if n in memo:
                    continue
                ok = all(memo[a] for a in n.args)
                if ok and n.kind == ir.MUL:
                    ok = sum(a.kind != ir.CONST for a in n.args) <= 1
                elif ok and n.kind in ir.DIV_KINDS:
                    ok = n.args[1].kind == ir.CONST
                elif n.kind == ir.ISQRT:  # s*s <= n <= s*s + 2s: non-linear
                    ok = False  # (a BITFLOOR's case split over its exponents is linear)
                memo[n] = ok
            hit = memo[t]
        return hit

    def prove(self, cond: ir.Term, domain: ir.Term, budget: int = CHECK_UNITS, linear_only: bool = True) -> bool | None:
        """``context ∧ domain ⇒ cond``: True proven (on the slice of the context about ``cond``'s
        symbols), False refuted (a model of the whole context: it joins the points), None
        undecided. ``budget`` is in z3 resource units (deterministic).

        With ``linear_only`` (side conditions, CSE) a non-linear ``cond`` is not asked, and the
        slice and the domain keep their linear conjuncts (fewer assumptions: still sound). On the
        Inductor corpus z3 decided none of the non-linear conditions within a check's budget
        (products and quotients of sizes: 0 of 22), and the non-linear guards in a slice made
        linear questions run out too; linear ones on linear slices are decided in a few
        thousand units, and no proof was lost."""
        if linear_only:
            if not self.linear(cond):
                return None
            whole = domain
            domain = ir.mk_and(*(d for d in (domain.args if domain.kind == ir.AND else (domain,)) if self.linear(d)))
            if self.slice_refuted(cond, whole, domain):
                return None
        budget = self.deadline.grant(budget)
        if budget <= 0:
            return None
        s, cons = self.slice(ir.symbols_of(cond) | ir.symbols_of(domain), linear_only)
        self.checks += 1
        hs = [*cons, s.ch.negation(cond)] + ([] if domain is ir.TRUE else [s.ch.selector(domain)])
        out = s.check(hs, budget=budget)
        if out.status == UNSAT:
            return True
        if out.status == SAT and self.add_point(dict(out.model)):
            return False
        return None

    def same(self, a: ir.Term, b: ir.Term) -> ir.Term:
        eq = ir.mk_iff(a, b) if a.is_bool else ir.mk_eq(a, b)
        return ir.mk_and(eq, divisors_defined(b))

    def structurally_same(self, t: ir.Term, rep: ir.Term) -> bool:
        """``t == rep`` wherever ``t`` is defined, without z3: the ``Decider`` proves the equation
        (two spellings of one polynomial, facts) where both are defined, and every divisor of
        ``rep`` is a divisor of ``t`` and every ``isqrt`` argument of ``rep`` one of ``t`` (so ``rep`` is
        defined wherever ``t`` is)."""
        if _partial_args(rep) - _partial_args(t):
            return False
        eq = ir.mk_iff(t, rep) if t.is_bool else ir.mk_eq(t, rep)
        return self.decider.decide(eq) is True


def _partial_args(t: ir.Term) -> set[tuple[str, ir.Term]]:
    """What decides where ``t`` is defined: its divisors, its ``isqrt`` arguments (``>= 0``) and
    its ``bit_floor`` arguments (``>= 1``)."""
    return {(d.kind, d.args[0]) if d.kind in ir.UNARY_PARTIAL else ("div", d.args[1]) for d in ir.partial_of(t)}


def _safe_tries(cands: list[int], base: int) -> list[int]:
    """The moves of one symbol tried alone: ``SAFE_MOVES`` spread over its candidates, and the
    base's neighbours ``base + 1``, ``base - 1`` when they are candidates, so that the sample gives
    a size both parities: a residue of the size (``Mod(s, 2)``, ``(s + 1)//2 - s//2``) then varies
    over the points instead of being guessed constant and refuted by a search per expression."""
    out = _spread(cands, SAFE_MOVES)
    return out + [v for v in (base + 1, base - 1) if v not in out and v in cands]


def _at(nodes: list[ir.Term], pt: Model) -> set[int]:
    """The values of the integer nodes (children first) at ``pt``, and the constants negated."""
    val: dict[ir.Term, Value | None] = {}
    out: set[int] = set()
    for n in nodes:
        a = [val[x] for x in n.args]
        v: Value | None = None
        if None not in a:
            try:
                v = _one(n, a, pt)  # type: ignore[arg-type]
            except ZeroDivisionError:
                v = None
        val[n] = v
        if n.kind == ir.CONST:
            out |= {n.value, -n.value}
        elif not n.is_bool and isinstance(v, int):
            out.add(v)
    return out

