"""docs/problem-format.md §2 ``simplify``: the canonical form of each expression under the context.

The context is the ranges, the asserts and the guards: every form is equal to its expression at
every point of the context where the expression is defined (its divisors non-zero). Built for a
compiler's hot path: per request, the context's facts, its sample points and one z3 session are
built once (the last two only when some expression needs them) and shared by every expression.
Per expression:

0. The context's equality classes (``reason.simplify_equalities``: ``Eq(s0, s1)``,
   ``Eq(s1, 2*s0)``) are substituted first, one representative per class (PyTorch's choice);
   the result's ``representatives`` names them.
1. ``reason.simplify_rules.Simplifier`` rewrites it bottom-up, each distinct subterm once per
   request (memoized on the interned term, per expression domain): exact rules by construction,
   and rules with a side condition decided in this order — ``Decider`` (facts and intervals of the
   canonical term, common factors, floor divisions eliminated: microseconds), then the sample
   points (which may refute it), then z3 (one incremental session, the expression's domain as an
   assumption literal). A step is taken only when its condition is proven, so the form is proven
   equal to its input by construction (``proved: true``).
2. The cheaper of the rewritten form and the input's own printing is kept (cost: divisions first,
   then operations), printed in PyTorch's sympy syntax (``syntax.sympy_writer``); mapped back,
   a form costlier than the text as sent gives way to that text.
3. **Equal expressions, one form**: expressions whose values agree at every sample point (and at
   the points a targeted search tries) are candidates; each is proven equal (z3) to the cheapest of its candidates, whose
   form it then takes — so a compiler can CSE them. The choice is by (cost, text): independent of
   input order.

Sample points are evaluated as value vectors (``_Values``): each interned term's values at all
points, computed once per request from its children's vectors — a constant guess, a refutation
and a fingerprint are lookups, not tree walks per point.

With ``SELF_CHECK`` (``SYMGUARD_SIMPLIFY_CHECK=1``; the tests turn it on, the bench re-verifies
independently) every changed form is re-checked before it leaves: against its input at every
sample point and by z3 on ``context ∧ domain ∧ ¬(form == input ∧ form defined)``; a difference
is an ``InternalError`` (a bug, never a wrong answer).

Forms are computed on the canonical problem (symbols ``v0, v1, …``, expressions sorted), so they
do not depend on the order of the input or on the symbols' names; ``map_back`` renames them.
A registered context keeps its ``Engine`` (this request state, minus the expressions) for its
follow-ups (``solver.session``); there a form is also kept per expression shape up to a
renaming of interchangeable free symbols (``_Run.roles``), so the same index expression of
another loop variable costs a lookup.

Past the wall-clock deadline (``OutOfTime``, docs/problem-format.md §2 ``simplify``) the answer is
partial: the forms settled by then are kept, exactly as a complete run gives them (``unsettled``
says which a later ``merge`` could still change), the other expressions come back unproved (as
sent), ``incomplete: true``; never cached (``_final``).
"""

from __future__ import annotations

import bisect
import functools
import math
import os
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from symguard.solver.errors import BadInput, InternalError
from symguard.solver.ir import terms as ir
from symguard.solver.ir.printer import to_text
from symguard.solver.ir.problem import Problem, Query
from symguard.solver.ir.pycode import compile_check
from symguard.solver.ir.pyeval import Value, _one, defined, evaluate, holds
from symguard.solver.ops.operation import Audit, Back, Operation, Result
from symguard.solver.ops.selfcheck import hint_model
from symguard.solver.reason import facts, rewrite
from symguard.solver.reason import intervals as cheap
from symguard.solver.reason import simplify_equalities as eqs
from symguard.solver.reason.points import _base, _moves, _spread
from symguard.solver.reason.rewrite import Rewriter
from symguard.solver.reason.simplify_divisibility import Divisibility
from symguard.solver.reason.simplify_rules import Decider, Simplifier
from symguard.solver.reason.simplify_sums import collect
from symguard.solver.smt.checker import SAT, UNSAT, Deadline, OutOfTime
from symguard.solver.smt.optimize import Session
from symguard.solver.syntax.sympy_reader import parse_sympy
from symguard.solver.syntax.sympy_writer import Writer, cost, to_sympy

_OUTLINE_SKIPS = frozenset({ir.MUL, ir.CONST})  # kinds left out of an outline (``_Run._names``)
_PLACE = "_\u03c3"  # placeholders of ``_Run._shape``: no symbol name has this prefix (§1)
POOL_POINTS = 24  # context points sampled on first need (the hints and moves around them)
SAMPLE_TRIES = 8 * POOL_POINTS  # random moves tried against the compiled context
TARGET_TRIES = 64  # points moving only a condition's own symbols, tried before z3
MAX_POINTS = 96  # sample points plus the counterexamples found later
HEAD_POINTS = 8  # points a question about sample points looks at before the others (``_Oracle``)
SAFE_MOVES = 4  # moves of each symbol tried alone before the sample moves many at once
SELF_CHECK = os.environ.get("SYMGUARD_SIMPLIFY_CHECK", "") not in ("", "0")
# z3 budgets in resource units (not derived from ms: a new calibration of the checker's units
# per ms must not change which forms are found)
CHECK_UNITS = 12_000  # one check (a side condition, a CSE proof): the corpus's proofs take a few thousand
RECHECK_UNITS = 18_000  # the independent re-check of a form built by proven steps (SELF_CHECK)
POINT_UNITS = 4 * CHECK_UNITS  # a first point of the whole context when the sample finds none
MAX_CSE_CLASS = 16  # expressions proven against one representative
# earlier forms a new expression is compared with (searched and proven) in a context's CSE
# classes: the cheapest first. Sample points of many like-hinted symbols (sizes all traced at
# 64) tell ``Mod(s_i, 2)`` from ``Mod(s_j, 2)`` only once a search has moved ``s_i``, and the points
# found are capped (``MAX_POINTS``): without a limit every new one searched against all sixteen
CLASS_TRIES = 2
MAX_MISSES = 4  # points just outside the context kept per condition (slice_refuted)
Model = dict[str, Value]


def simplify(problem: Problem, deadline: Deadline) -> dict[str, Any]:
    return _Run(problem, deadline).run()


class Engine:
    """A registered context's ``simplify`` state, kept between its requests (``solver.session``):
    the facts and their propagation, the equality classes and divisibility facts, the sample
    points and their value vectors, each expression domain's memoized ``Simplifier``, the
    printing memo and the CSE classes of the forms it returned (``_Run.merge_classes``). A follow-up pays for its own expressions only, as an ``evaluate`` follow-up
    does. Forms are computed in the context's own names (no canonical renaming: that is the
    cost a context avoids), so their spelling may differ from the stateless answer's; every
    one is proven and never costlier all the same. The z3 sessions are kept too, each request's
    deadline taking over their z3 context (as ``solver.session`` does for ``evaluate``)."""

    def __init__(self, context: Problem) -> None:
        self.context = context
        self.names = {s.name: s.name for s in context.symbols}  # the result's names: the context's own
        self._run: _Run | None = None

    def answer(self, problem: Problem, deadline: Deadline) -> dict[str, Any]:
        """The canonical-form result (``simplify``'s) for ``problem``: the context plus expressions."""
        r = self._run
        if r is None or r.memo_size() > ENGINE_MEMO_LIMIT:  # a cache: forgetting it changes no proof
            r = self._run = _Run(replace(self.context, exprs=()), deadline)
            r.classes, r.shapes = {}, _ShapeMemo()
        r.p, r.deadline = problem, deadline
        kept = [x for x in (r._sess, r._slice_sess) if x is not None]
        if kept:  # the z3 objects live in the first request's z3 context: this deadline takes it over
            deadline.adopt_context(kept[0].ch.deadline)
            for x in kept:
                x.deadline = x.ch.deadline = deadline
        return r.run()


ENGINE_MEMO_LIMIT = 200_000  # simplified subterms and value vectors one context's engine keeps


def _key(c: dict[str, int]) -> tuple[int, int]:
    return (c["divs"], c["ops"])


def _class_order(e: tuple[ir.Term, str, dict[str, int]]) -> tuple[tuple[int, int], str]:
    """A CSE class's members in the order ``merge_classes`` tries them: cheapest, then by text."""
    return (_key(e[2]), e[1])


def least_cost(t: ir.Term) -> tuple[int, int]:
    """A lower bound of ``_key(cost(print(t)))`` without printing ``t`` (a new term's printing is
    tens of microseconds): its printing has a division per distinct division node (``//``, ``%``,
    a ``Mod``, a ``CeilDiv``, two in a ``ModularIndexing``), and — in an integer term with no
    condition inside, where no sum is split over the two sides of a comparison — an operator
    between each two terms of a distinct sum and a ``Min``/``Max`` argument past the first (a
    two-argument ``Max`` may print as ``Abs``: not counted). Zero operations when it has a
    condition. A property test checks the bound over every function the syntax reads."""
    divs = ops = 0
    plain = not t.is_bool
    for n in ir.iter_dag(t):
        k = n.kind
        if k in ir.DIV_KINDS:
            divs += 1
        elif k == ir.ADD or k == ir.MIN or (k == ir.MAX and len(n.args) > 2):
            ops += len(n.args) - 1
        elif n.is_bool:
            plain = False
    return (divs, ops if plain else 0)


def divisors_defined(t: ir.Term) -> ir.Term:
    """Every divisor ``t`` evaluates is non-zero (the domain of a form: lazy as Python, an ITE
    branch not taken or an and/or operand after the deciding one is not evaluated; ``pyeval``)."""
    return defined(t)


class _Values:
    """Each term's values at the sample points (None where a divisor is zero), one vector per
    interned term, computed once from its children's vectors (strict, as ``pyeval``).

    Points found later (counterexamples) are appended with ``add``; a vector shorter than the
    point list is extended on its next use, so every point ever found refutes every later
    condition at the cost of a lookup."""

    def __init__(self, points: list[Model]) -> None:
        self.points = points
        self.memo: dict[ir.Term, list[Value | None]] = {}

    def add(self, pt: Model) -> None:
        if len(self.points) < MAX_POINTS:
            self.points.append(pt)

    def of(self, t: ir.Term) -> list[Value | None]:
        """``t``'s values at every point."""
        return self.head(t, len(self.points))

    def head(self, t: ir.Term, k: int) -> list[Value | None]:
        """``t``'s values at the first ``k`` points at least (the vector may be longer): a question
        the first points already answer (two values differ, a condition is false at one) does
        not pay for the other points. The rest is computed on a later ``of``, from where it stopped."""
        memo = self.memo
        size = min(k, len(self.points))
        hit = memo.get(t)
        if hit is not None and len(hit) >= size:
            return hit
        for x in t.args:  # children known (most calls): no walk
            got = memo.get(x)
            if got is None or len(got) < size:
                break
        else:
            if hit is None:
                hit = memo[t] = []
            self._extend(t, hit, size)
            return hit
        if t.size <= rewrite.WALK_BY_CALLS:
            self._down(t, size)
            return memo[t]
        stack: list[tuple[ir.Term, bool]] = [(t, False)]
        while stack:
            n, ready = stack.pop()
            have = memo.get(n)
            if have is not None and len(have) >= size:
                continue
            if ready:
                self._extend(n, have if have is not None else memo.setdefault(n, []), size)
                continue
            stack.append((n, True))
            stack.extend((x, False) for x in n.args)
        return memo[t]

    def _down(self, n: ir.Term, size: int) -> None:
        """``head``'s walk by recursion, for a small term."""
        memo = self.memo
        for x in n.args:
            have = memo.get(x)
            if have is None or len(have) < size:
                self._down(x, size)
        have = memo.get(n)
        self._extend(n, have if have is not None else memo.setdefault(n, []), size)

    def _extend(self, n: ir.Term, out: list[Value | None], size: int) -> None:
        k = n.kind
        start = len(out)
        if k in (ir.CONST, ir.BCONST):
            out.extend([n.value] * (size - start))
            return
        if k in (ir.SYM, ir.BSYM):
            name = n.value
            out += [pt[name] for pt in self.points[start:size]]
            return
        cols = [self.memo[x][start:size] for x in n.args]
        op = _COLUMN.get(k)
        if op is not None:
            out.extend(op(cols))
            return
        for vals in zip(*cols):
            if None in vals:
                out.append(None)
                continue
            try:
                out.append(_one(n, list(vals), {}))
            except ZeroDivisionError:
                out.append(None)


def _sum(cols: list[list[Any]]) -> list[Any]:
    if len(cols) == 2:  # (most sums: a term and a constant, two terms)
        return [None if a is None or b is None else a + b for a, b in zip(*cols)]
    return [None if None in vs else sum(vs) for vs in zip(*cols)]


def _prod(cols: list[list[Any]]) -> list[Any]:
    if len(cols) == 2:
        return [None if a is None or b is None else a * b for a, b in zip(*cols)]
    return [None if None in vs else math.prod(vs) for vs in zip(*cols)]


def _floordiv(cols: list[list[Any]]) -> list[Any]:
    return [None if a is None or not b else a // b for a, b in zip(*cols)]


def _mod(cols: list[list[Any]]) -> list[Any]:
    return [None if a is None or not b else a % b for a, b in zip(*cols)]


def _max(cols: list[list[Any]]) -> list[Any]:
    return [None if None in vs else max(vs) for vs in zip(*cols)]


def _min(cols: list[list[Any]]) -> list[Any]:
    return [None if None in vs else min(vs) for vs in zip(*cols)]


def _le(cols: list[list[Any]]) -> list[Any]:
    return [None if a is None else a <= 0 for a in cols[0]]


def _eq(cols: list[list[Any]]) -> list[Any]:
    return [None if a is None else a == 0 for a in cols[0]]


def _not(cols: list[list[Any]]) -> list[Any]:
    return [None if a is None else not a for a in cols[0]]


def _and(cols: list[list[Any]]) -> list[Any]:
    return [None if None in vs else all(vs) for vs in zip(*cols)]


def _or(cols: list[list[Any]]) -> list[Any]:
    return [None if None in vs else any(vs) for vs in zip(*cols)]


# one column operation per kind: the values at every point at once (strict like ``pyeval``: a
# None — a zero divisor below — makes the node None; ``b == 0`` here is that zero divisor)
_COLUMN: dict[str, Callable[[list[list[Any]]], list[Any]]] = {
    ir.ADD: _sum, ir.MUL: _prod, ir.FLOORDIV: _floordiv, ir.MOD: _mod, ir.MAX: _max, ir.MIN: _min,
    ir.LE: _le, ir.EQ: _eq, ir.NOT: _not, ir.AND: _and, ir.OR: _or,
}


PROPAGATE_ROUNDS = 3  # rounds of re-reading the context under the facts found so far


def _propagated(env: facts.Env, context: Sequence[ir.Term]) -> Rewriter:
    """A rewriter under the context's facts and what they imply together: each constraint
    rewritten under the facts of the others is a fact too (every fact holds at every point of
    the context, and rewriting under them keeps a constraint's truth there): PyTorch's
    ``Eq(((s0 + 7)//8)//2, 3)`` and ``Eq(((s0 + 7)//8)//2, (s0 + 15)//16)`` give
    ``(s0 + 15)//16 == 3``, and with it the range of ``s0`` that makes ``(s0 + 7)//8`` the
    constant 6. Stops when a round adds nothing."""
    rw = Rewriter(env)
    todo = [t for t in context if not _bound_of_a_symbol(t)]
    atoms = list(env.atoms)
    syms: dict[ir.Term, set[str]] = {}

    def about(t: ir.Term) -> set[str]:
        got = syms.get(t)
        if got is None:
            got = syms[t] = ir.symbols_of(t)
        return got

    for _ in range(PROPAGATE_ROUNDS):
        new = []
        for t in todo:
            r = rw.rewrite(t)
            new += [a for a in (r.args if r.kind == ir.AND else (r,)) if a.kind != ir.BCONST and a not in env.atoms]
        for atom in atoms:
            new += _bounds_from(atom, rw)
        new = [a for a in dict.fromkeys(new) if a.kind != ir.BCONST and a not in env.atoms]
        if not new:
            break
        for a in new:
            env.add_atom(a)
        rw = Rewriter(env)
        # the next round reads again only what the new facts are about
        touched = set().union(*(about(a) for a in new))
        todo = [t for t in todo if about(t) & touched]
        atoms = [a for a in env.atoms if about(a) & touched]
    return rw


def _bound_of_a_symbol(t: ir.Term) -> bool:
    """``c*s + k <= 0`` or ``== 0`` for a symbol ``s``: a range, all there is to learn from it."""
    if t.kind not in (ir.LE, ir.EQ):
        return False
    coefs, _ = ir.linear(t.args[0])
    return len(coefs) == 1 and next(iter(coefs)).kind == ir.SYM


def _bounds_from(atom: ir.Term, rw: Rewriter) -> list[ir.Term]:
    """Interval propagation through one linear fact ``Σ c_i*m_i + k <= 0`` (``== 0``: both
    ways): each monomial is bounded by the bounds of the others (``x < u0`` with ``x >= 0`` is
    ``u0 >= 1``); only bounds tighter than the monomial's interval are returned."""
    if atom.kind not in (ir.LE, ir.EQ):
        return []
    coefs, k = ir.linear(atom.args[0])
    if len(coefs) < 2:
        return []
    ivs = {m: rw.interval(m) for m in coefs}
    out = []
    for sign in ((1,) if atom.kind == ir.LE else (1, -1)):
        # sign * (Σ c_i*m_i + k) <= 0: the least value of each signed part
        least: dict[ir.Term, int | None] = {}
        for m, c in coefs.items():
            lo, hi = ivs[m]
            sc = sign * c
            least[m] = None if (lo if sc > 0 else hi) is None else sc * (lo if sc > 0 else hi)  # type: ignore[operator]
        unknown = [m for m, v in least.items() if v is None]
        if len(unknown) > 1:
            continue
        total = sum(v for v in least.values() if v is not None)
        for m, c in coefs.items():
            if unknown and unknown[0] is not m:
                continue
            sc = sign * c
            rest = total - (least[m] or 0) + sign * k  # the others are at least rest - sign*k: sc*m <= -rest
            lo, hi = ivs[m]
            if sc > 0:
                b = (-rest) // sc
                if hi is None or b < hi:
                    out.append(ir.mk_le(m, ir.mk_int(b)))
            else:
                b = -((-rest) // (-sc))  # -sc*m >= rest: m >= ceil(rest / -sc)
                if lo is None or b > lo:
                    out.append(ir.mk_le(ir.mk_int(b), m))
    return out


class _Run:
    def __init__(self, problem: Problem, deadline: Deadline) -> None:
        self.p = problem
        self.deadline = deadline
        self._sess: Session | None = None
        self._slice_sess: Session | None = None
        self._con_syms: list[tuple[ir.Term, frozenset[str]]] | None = None
        self._misses: dict[tuple[ir.Term, ir.Term], list[Model]] = {}  # points near the context (slice_refuted)
        self._linear: dict[ir.Term, bool] = {}
        self._sized = {s.name for s in problem.symbols if s.hint is not None}
        ranges = cheap.Facts.from_problem(problem)
        plain = rewrite.Rewriter(rewrite.Env({s.name: (s.lo, s.hi) for s in problem.symbols if not s.is_bool}))
        self.context = [c.term for c in (*problem.asserts, *problem.guards) if c.term is not None]
        env = facts.facts_env(ranges.ranges, [(plain.rewrite(t), None) for t in self.context])
        self.env = env
        self.sub = eqs.replacements(self.context, {s.name: s.hint for s in problem.symbols})  # equality classes: substituted before anything else
        self._sub_memo: dict[ir.Term, ir.Term] = {}
        self.div = Divisibility(self.context, lambda t: eqs.substitute(t, self.sub, self._sub_memo))
        self.rw = _propagated(env, self.context)
        self.rw.below = self._below  # after the propagation: its own rewrites never ask for points
        self._inside: list[bool] = []  # each sample point inside every symbol's range (``_below``)
        self.decider = Decider(self.rw, plain)
        self.simplifiers: dict[ir.Term, Simplifier] = {}
        self.oracles: list[_Oracle] = []
        # CSE classes kept across requests (a context's Engine only): fingerprint -> forms
        self.classes: dict[tuple[Any, ...], _Classes] | None = None
        self._fp_len: int | None = None
        self.checks = 0
        self._values: _Values | None = None
        self.writer = Writer({})  # one printing memo per request: shared subterms are printed once
        self._collected: dict[ir.Term, ir.Term] = {}  # forms with common factors written once (``collect``)
        self._search: tuple[list[str], Any, Model, dict[str, list[int]]] | None = None
        self._tied: dict[str, tuple[str, ...]] = {}
        self._range: dict[str, tuple[int | None, int | None]] = {}
        # forms up to renaming of interchangeable symbols (a context's Engine only: ``_shape``)
        self.shapes: _ShapeMemo | None = None
        self._sat: str | None = None  # the context is satisfiable: known from a point
        self._roles: dict[str, tuple[Any, ...]] | None = None
        self._base_ok = False  # the search's base is a point of the context (``_context_at``)
        self._about: dict[str, list[ir.Term]] | None = None  # symbol -> the constraints about it

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
            check = compile_check(self.context, names)
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

    # -------------------------------------------------------------- the operation
    def run(self) -> dict[str, Any]:
        # a sample point proves the context satisfiable only inside the ranges too: the sample
        # checks the asserts and guards alone (``s0 < 0`` with ``s0 >= 0`` has points, no model)
        status = self._sat
        if status is None:  # (a context's Engine asks once: its context does not change)
            ranges = [(s.name, s.lo, s.hi) for s in self.p.symbols if not s.is_bool]
            status = SAT if any(all((lo is None or pt[n] >= lo) and (hi is None or pt[n] <= hi)
                                    for n, lo, hi in ranges) for pt in self.values.points) else None
        if status is None:
            out = self.sess.check(budget=self.deadline.grant(POINT_UNITS))
            status = out.status
            if out.status == SAT:
                self.add_point(dict(out.model))
        if status == SAT:
            self._sat = SAT
        if status == UNSAT:
            return {"status": UNSAT, "exprs": [_row(q, None, False) for q in self.p.exprs],
                    "warnings": ["the asserts and guards are unsatisfiable: every expression is left as it is"]}
        rows: list[dict[str, Any]] = []
        terms: list[ir.Term | None] = []
        stopped = False  # the wall-clock deadline passed (``OutOfTime``): the answer is partial
        for q in self.p.exprs:
            form = None
            if not stopped:
                try:
                    self.deadline.ensure_time()  # the outer limit, between expressions too
                    form = self.one(q)
                except OutOfTime:
                    stopped = True
            terms.append(form)
            rows.append(_row(q, None if form is None else self.print(form), form is not None))
        classed: set[int] = set()
        grouped: set[int] = set()
        if not stopped:
            try:
                self.merge(rows, terms, classed, grouped)
            except OutOfTime:
                stopped = True
        res: dict[str, Any] = {"status": SAT if status == SAT else "unknown", "exprs": rows}
        if stopped:
            for i in self.unsettled(terms, classed, grouped):
                rows[i] = _row(self.p.exprs[i], None, False)
            res["incomplete"] = True
        res["representatives"] = self.representatives()
        if status != SAT:
            res["reason"] = "timeout" if self.deadline.expired else "incomplete"
        return res

    def unsettled(self, terms: Sequence[ir.Term | None], classed: set[int], grouped: set[int]) -> list[int]:
        """After the deadline: the rows whose form a complete run might give otherwise — those not
        computed, and those ``merge`` had not finished with that it could still change. ``merge``
        changes a form only to an equal one's, proven, so a row no other expression agrees with at
        every sample point keeps its form (an expression not computed is compared by its input,
        which its form equals at every point). A constant is never merged. In a context's
        ``Engine`` a row ``merge_classes`` had not reached may still take an earlier form."""
        vals = self.values
        fps: list[tuple[Any, ...] | None] = []
        for q, t in zip(self.p.exprs, terms):
            if t is not None and t.kind in (ir.CONST, ir.BCONST):
                fps.append(None)
                continue
            u = q.term if t is None else t
            fps.append((u.is_bool, tuple(v if d else None for v, d in zip(vals.of(u), vals.of(q.domain)))))
        out = []
        for i, t in enumerate(terms):
            if t is None:
                out.append(i)
            elif fps[i] is None or (i in grouped and (self.classes is None or i in classed)):
                continue
            elif (self.classes is not None and i not in classed) or any(
                    j != i and f == fps[i] for j, f in enumerate(fps)):
                out.append(i)
        return out

    def representatives(self) -> dict[str, str]:
        """The replacements an expression of the request met (``eqs.replacements``), and the whole
        class of a representative some form uses (``_map_back`` may pick another member)."""
        if not self.sub:
            return {}
        used: set[str] = set()
        for q in self.p.exprs:
            used |= ir.symbols_of(q.term)
        after = set().union(*(ir.symbols_of(eqs.substitute(ir.mk_sym(x), self.sub)) for x in used)) if used else set()
        return {x: self.print(e) for x, e in sorted(self.sub.items()) if x in used or (e.kind == ir.SYM and e.value in after)}

    def print(self, t: ir.Term) -> str:
        return self.writer.text(t)[0]

    def simplifier(self, domain: ir.Term) -> Simplifier:
        """One memoized ``Simplifier`` per expression domain (after the facts: ``TRUE`` when the
        ranges keep every divisor non-zero), sharing the request's rewriter and decider."""
        got = self.simplifiers.get(domain)
        if got is None:
            oracle = _Oracle(self, domain)
            self.oracles.append(oracle)
            got = self.simplifiers[domain] = Simplifier(self.rw, oracle, self.decider, self.div)
        return got

    def memo_size(self) -> int:
        return (sum(len(s.memo) for s in self.simplifiers.values()) + (len(self._values.memo) if self._values else 0)
                + (self.shapes.size if self.shapes is not None else 0) + len(self._collected))

    def roles(self) -> dict[str, tuple[Any, ...]]:
        """Each **free** symbol's role: its declaration (range, hint) and the texts of the
        constraints about it alone, with the symbol written as a placeholder. A symbol is free when
        no constraint mentions it with another symbol and no equality class holds it. Any
        permutation of free symbols that keeps every role maps the context onto itself (each
        constraint onto one of the same role's), so it maps a proven form of an expression onto a
        proven form of the renamed expression: the loop variables of two kernels with the same
        bound, sizes guarded alike (``_shape``)."""
        if self._roles is None:
            shared = set(self.sub) | {n for e in self.sub.values() for n in ir.symbols_of(e)}
            alone: dict[str, list[ir.Term]] = {}
            for t in self.context:
                syms = ir.symbols_of(t)
                if len(syms) == 1:
                    alone.setdefault(next(iter(syms)), []).append(t)
                else:
                    shared |= syms
            place = ir.mk_sym(_PLACE + "x")
            self._roles = {
                s.name: (s.lo, s.hi, s.hint, tuple(sorted(to_text(eqs.substitute(t, {s.name: place}))
                                                          for t in alone.get(s.name, ()))))
                for s in self.p.symbols if not s.is_bool and s.name not in shared}
        return self._roles

    def _names(self, q: Query) -> tuple[list[str], tuple[Any, ...]] | None:
        """The expression's symbols in order of first occurrence and its **outline**: the kinds of
        its nodes and its domain's, sorted, but for products and literals (normalizing a renamed
        sum may move a sign between its terms). A renaming of symbols keeps the outline, so two
        expressions of different outlines never share a key of ``shapes`` (a plain walk: no new
        term). None unless every symbol is free (``roles``)."""
        roles = self.roles()
        names: list[str] = []
        outline: list[str] = []
        for t in (q.term, q.domain):
            for n in ir.iter_dag(t):
                k = n.kind
                if k == ir.SYM:
                    if n.value not in roles:
                        return None
                    if n.value not in names:
                        names.append(n.value)
                elif k == ir.BSYM:
                    return None
                if k not in _OUTLINE_SKIPS:
                    outline.append(k)
            outline.append("|")
        return names, tuple(sorted(outline))

    @staticmethod
    def _shape(term: ir.Term, domain: ir.Term, names: Sequence[str]) -> tuple[ir.Term, ir.Term]:
        """The expression with its symbols (``names``) renamed to placeholders in that order: the
        key of a form within its bucket of ``shapes``. The placeholders' terms are normalized
        again, so two spellings whose children the names sorted apart (``x0`` and ``x1`` in one
        sum) share a key."""
        to = {x: ir.mk_sym(f"{_PLACE}{k}") for k, x in enumerate(names)}
        memo: dict[ir.Term, ir.Term] = {}
        return eqs.substitute(term, to, memo), eqs.substitute(domain, to, memo)

    def one(self, q: Query) -> ir.Term | None:
        """The proven form of one expression, or None (then it comes back unchanged). In a
        context's Engine, an expression that is an earlier one renamed by a permutation of free
        symbols that keeps their roles (``roles``) takes that one's form, renamed the same way.

        ``shapes`` holds the forms in buckets by the roles of their symbols (in order of first
        occurrence) and the expression's outline (``_names``), then by the renamed expression
        (``_shape``). Renaming builds and normalizes new terms, so a form is kept as it came
        (``_Shapes.pending``) and keyed only when another expression of its bucket is asked: an
        expression of a new outline or of new roles — one the context has not seen — pays a
        walk and a lookup, not the renaming."""
        got_names = self._names(q) if self.shapes is not None and q.term.kind not in (ir.SYM, ir.CONST) else None
        bucket = key = None
        if got_names is not None:
            assert self.shapes is not None
            names, outline = got_names
            roles = self.roles()
            where = (tuple(roles[x] for x in names), outline)
            bucket = self.shapes.get(where)
            if bucket is not None:
                key = self._shape(q.term, q.domain, names)
                hit = bucket.get(key)
                if hit is not None:
                    form, was = hit
                    renamed = eqs.substitute(form, {x: ir.mk_sym(y) for x, y in zip(was, names) if x != y})
                    self._self_check(q, renamed)
                    return renamed
        got = self._one(q)
        # (a symbol of the form's own would not be renamed)
        if got_names is not None and got is not None and self.shapes is not None \
                and ir.symbols_of(got) <= set(got_names[0]):
            if bucket is None:
                bucket = self.shapes[where] = _Shapes()
                bucket.pending.append((q.term, q.domain, tuple(got_names[0]), got))
            else:
                assert key is not None
                bucket.keyed[key] = (got, tuple(got_names[0]))
            self.shapes.size += 1
        return got

    def _one(self, q: Query) -> ir.Term | None:
        term = eqs.substitute(q.term, self.sub, self._sub_memo)
        domain = self.rw.rewrite(eqs.substitute(q.domain, self.sub, self._sub_memo))
        got = self.simplifier(domain).simplify(term).term
        if got.kind not in (ir.CONST, ir.SYM, ir.BCONST):  # y*Mod(x, 6) + 4*Mod(x, 6) prints (y + 4)*Mod(x, 6)
            got = collect(got, self._collected)
        if got is q.term:
            return got
        mine = _key(cost(self.print(got)))
        # (nothing costs less than nothing, nor less than ``least_cost``: a form that costs no more
        # than that bound costs no more than the input, which then need not be printed)
        if mine != (0, 0) and mine > least_cost(q.term) and mine > _key(cost(self.print(q.term))):
            return q.term
        if self.deadline.expired:
            return None
        self._self_check(q, got)
        return got

    def _self_check(self, q: Query, got: ir.Term) -> None:
        if SELF_CHECK and got is not q.term and (
                not self.agrees(q, got)
                or self.prove(self.same(q.term, got), q.domain, RECHECK_UNITS, linear_only=False) is False):
            raise InternalError(f"simplify self-check failed: {q.text!r} and its form {self.print(got)!r} "
                                "differ at a point of the context; please report this problem")

    def same(self, a: ir.Term, b: ir.Term) -> ir.Term:
        eq = ir.mk_iff(a, b) if a.is_bool else ir.mk_eq(a, b)
        return ir.mk_and(eq, divisors_defined(b))

    def structurally_same(self, t: ir.Term, rep: ir.Term) -> bool:
        """``t == rep`` wherever ``t`` is defined, without z3: the ``Decider`` proves the equation
        (two spellings of one polynomial, facts) where both are defined, and every divisor of
        ``rep`` is a divisor of ``t`` (so ``rep`` is defined wherever ``t`` is)."""
        if {d.args[1] for d in ir.divisions_of(rep)} - {d.args[1] for d in ir.divisions_of(t)}:
            return False
        eq = ir.mk_iff(t, rep) if t.is_bool else ir.mk_eq(t, rep)
        return self.decider.decide(eq) is True

    def agrees(self, q: Query, form: ir.Term) -> bool:
        for pt in self.values.points:
            if holds(q.domain, pt) and _value(q.term, pt) != _value(form, pt):
                return False
        return True

    def merge(self, rows: list[dict[str, Any]], terms: Sequence[ir.Term | None], classed: set[int],
              grouped: set[int]) -> None:
        """Expressions proven equal under the context take one form: the cheapest (then the
        first by text) of those that agree at every sample point. A candidate is first looked
        for a counterexample by moving its own symbols (``refute``), then proven by z3. The rows
        ``merge_classes`` and the groups here are done with go into ``classed`` and ``grouped``
        (``unsettled``: what a deadline leaves open)."""
        live = [t for t in terms if t is not None and t.kind not in (ir.CONST, ir.BCONST)]
        if self.classes is not None and live:
            self.merge_classes(rows, terms, classed)
        if len(set(live)) < 2:
            grouped.update(range(len(terms)))
            return
        vals = self.values
        groups: dict[tuple[Any, ...], list[int]] = {}
        for i, (q, t) in enumerate(zip(self.p.exprs, terms)):
            if t is None or t.kind in (ir.CONST, ir.BCONST):
                continue
            dom = vals.of(q.domain)
            fp = tuple(v if d else None for v, d in zip(vals.of(t), dom))
            groups.setdefault((t.is_bool, fp), []).append(i)
        for members in groups.values():
            forms = {rows[i]["form"] for i in members}
            if len(forms) < 2:
                grouped.update(members)
                continue
            best = min(members, key=lambda i: (_key(rows[i]["cost"]), rows[i]["form"]))
            rep = terms[best]
            assert rep is not None
            for i in members[:MAX_CSE_CLASS]:
                t = terms[i]
                if i == best or rows[i]["form"] == rows[best]["form"] or t is None:
                    continue
                same, where = self.same(t, rep), self.p.exprs[i].domain
                if self.structurally_same(t, rep) or (self.linear(same) and not self.refute(same, where)
                                                      and self.prove(same, where)):
                    rows[i]["form"], rows[i]["cost"] = rows[best]["form"], rows[best]["cost"]
            grouped.update(members)

    def _fingerprint(self, t: ir.Term, domain: ir.Term, k: int | None = None) -> tuple[Any, ...]:
        """``t``'s class key: its values at the first ``k`` points (``_fp_len``; None outside its domain)."""
        vals = self.values
        k = self._fp_len if k is None else k
        assert k is not None
        got = vals.head(t, k)[:k]
        if domain is not ir.TRUE:  # (most domains are: every divisor is non-zero in the ranges)
            got = [v if d else None for v, d in zip(got, vals.head(domain, k)[:k])]
        return (t.is_bool, tuple(got))

    def merge_classes(self, rows: list[dict[str, Any]], terms: Sequence[ir.Term | None], classed: set[int]) -> None:
        """A context's CSE classes across its requests (``Engine``): each form returned before is
        kept under its values at the first sample points; a new expression that agrees with a
        cheaper earlier form there takes it when proven equal (as ``merge`` proves), then joins.

        The classes are found by the values at the first ``HEAD_POINTS`` points, then by all of
        the fingerprint's (``_Classes``): the first form of a prefix is kept as it came, so a
        form no earlier one agrees with at those points — a new shape's — pays no more values."""
        assert self.classes is not None
        vals = self.values
        if self._fp_len is None:
            self._fp_len = len(vals.points)
        k = self._fp_len
        h = min(k, HEAD_POINTS)
        for i, (q, t) in enumerate(zip(self.p.exprs, terms)):
            if t is None or t.kind in (ir.CONST, ir.BCONST) or not k:
                classed.add(i)
                continue
            if q.domain is ir.TRUE:
                whole, prefix = None, self._fingerprint(t, q.domain, h)
            else:  # (the domain's values too: computed once, for the whole fingerprint)
                whole = self._fingerprint(t, q.domain)
                prefix = (whole[0], whole[1][:h])
            bucket = self.classes.get(prefix)
            if bucket is None:  # a prefix no earlier form has: the form starts its class
                self.classes[prefix] = _Classes((t, q.domain, rows[i]["form"], rows[i]["cost"]))
                classed.add(i)
                continue
            known = bucket.known(self._fingerprint(t, q.domain) if whole is None else whole, self._fingerprint)
            mine = (_key(rows[i]["cost"]), rows[i]["form"])
            tries = 0
            for rep, form, c in known:  # (kept in order: cheapest, then first by text)
                if (_key(c), form) >= mine or tries >= CLASS_TRIES:
                    break
                if _differ(vals.head(t, HEAD_POINTS), vals.head(rep, HEAD_POINTS), vals.head(q.domain, HEAD_POINTS)) \
                        or _differ(vals.of(t), vals.of(rep), vals.of(q.domain)):
                    continue  # a point found since the class was made (a refutation) tells them apart
                tries += 1
                same, where = self.same(t, rep), q.domain
                if self.structurally_same(t, rep) or (self.linear(same) and not self.refute(same, where)
                                                      and self.prove(same, where)):
                    rows[i]["form"], rows[i]["cost"] = form, c
                    break
            if len(known) < MAX_CSE_CLASS and all(f != rows[i]["form"] for _, f, _ in known):
                bisect.insort(known, (t, rows[i]["form"], rows[i]["cost"]), key=_class_order)
            classed.add(i)


class _Classes:
    """The CSE classes (``_Run.merge_classes``) of one fingerprint prefix: lists of (term, form,
    cost) keyed by the whole fingerprint, and the prefix's first form (term, domain, form, cost)
    until a second arrives: only then is its whole fingerprint computed."""

    __slots__ = ("first", "keyed")

    def __init__(self, first: tuple[ir.Term, ir.Term, str, dict[str, int]]) -> None:
        self.keyed: dict[tuple[Any, ...], list[tuple[ir.Term, str, dict[str, int]]]] = {}
        self.first: tuple[ir.Term, ir.Term, str, dict[str, int]] | None = first

    def known(self, key: tuple[Any, ...], fingerprint: Callable[[ir.Term, ir.Term], tuple[Any, ...]]
              ) -> list[tuple[ir.Term, str, dict[str, int]]]:
        """The class of fingerprint ``key`` (made empty), the first form keyed first."""
        if self.first is not None:
            t, domain, form, c = self.first
            self.keyed[fingerprint(t, domain)] = [(t, form, c)]
            self.first = None
        return self.keyed.setdefault(key, [])


class _ShapeMemo(dict[tuple[Any, ...], "_Shapes"]):
    """``_Run.shapes``: (roles, outline) -> the forms of that bucket; ``size`` counts the forms of
    all buckets (``memo_size``, without a walk over them)."""

    size = 0

    def clear(self) -> None:
        super().clear()
        self.size = 0


class _Shapes:
    """The forms of one bucket of ``_Run.shapes``: keyed by the renamed expression, and those not
    keyed yet (expression, domain, its symbols in order, form), keyed on the bucket's first lookup."""

    __slots__ = ("keyed", "pending")

    def __init__(self) -> None:
        self.keyed: dict[tuple[ir.Term, ir.Term], tuple[ir.Term, tuple[str, ...]]] = {}
        self.pending: list[tuple[ir.Term, ir.Term, tuple[str, ...], ir.Term]] = []

    def __len__(self) -> int:
        return len(self.keyed) + len(self.pending)

    def get(self, key: tuple[ir.Term, ir.Term]) -> tuple[ir.Term, tuple[str, ...]] | None:
        """The form kept under ``key``, the pending ones keyed first (in the order they came)."""
        if self.pending:
            for term, domain, names, form in self.pending:
                self.keyed.setdefault(_Run._shape(term, domain, names), (form, names))
            self.pending.clear()
        return self.keyed.get(key)


class _Oracle:
    """Side conditions for one expression domain: proven under the context and the domain.

    The questions about sample points look at the first ``HEAD_POINTS`` points first and at the
    others only when those do not answer (``_Values.head``): the answers are those of all points."""

    def __init__(self, run: _Run, domain: ir.Term) -> None:
        self.run = run
        self.domain = domain
        self.memo: dict[ir.Term, bool] = {}
        # answers that later points cannot change (a point found since only adds values): terms
        # seen to take two values, and (predicate, terms) seen false
        self.varied: set[ir.Term] = set()
        self.failed: set[tuple[Callable[..., bool], tuple[ir.Term, ...]]] = set()

    def holds(self, cond: ir.Term) -> bool:
        """Only z3 proves a condition here (``Decider`` came first): one it is not asked (not
        linear) is not searched for a counterexample either."""
        hit = self.memo.get(cond)
        if hit is None:
            hit = self.run.linear(cond) and not self.refuted(cond) and self.run.prove(cond, self.domain) is True
            self.memo[cond] = hit
        return hit

    def refuted(self, cond: ir.Term) -> bool:
        """False at a point of the domain: sampled, found before, or found now by ``refute``."""
        return self.false_seen(cond) or self.run.refute(cond, self.domain)

    def _defined(self, t: ir.Term, k: int) -> list[Value]:
        """``t``'s values at the first ``k`` points (at least) where the domain holds and ``t`` is defined."""
        vals = self.run.values
        if self.domain is ir.TRUE:
            return [v for v in vals.head(t, k) if v is not None]
        return [v for v, d in zip(vals.head(t, k), vals.head(self.domain, k)) if d and v is not None]

    def seen(self, cond: ir.Term) -> frozenset[bool]:
        """The values ``cond`` takes at the sample points (and the points found since) where the
        domain holds: value vectors, no search."""
        got = frozenset(v for v in self._defined(cond, HEAD_POINTS) if isinstance(v, bool))
        if len(got) == 2:
            return got
        return frozenset(v for v in self._defined(cond, MAX_POINTS) if isinstance(v, bool))

    def false_seen(self, cond: ir.Term) -> bool:
        """``False in seen(cond)``, stopping at the first points that show it."""
        return False in self._defined(cond, HEAD_POINTS) or False in self._defined(cond, MAX_POINTS)

    def fails(self, pred: Callable[..., bool], terms: tuple[ir.Term, ...]) -> bool:
        """``pred`` of the terms' values is false at a known point of the domain where each is
        defined (the first ``HEAD_POINTS`` points first)."""
        if (pred, terms) in self.failed:
            return True
        vals = self.run.values
        start = 0
        for k in (HEAD_POINTS, MAX_POINTS):
            cols = [vals.head(t, k) for t in terms]
            dom = None if self.domain is ir.TRUE else vals.head(self.domain, k)
            end = min(k, len(vals.points))
            for i in range(start, end):
                if dom is not None and not dom[i]:
                    continue
                vs = [c[i] for c in cols]
                if None not in vs and not pred(*vs):
                    self.failed.add((pred, terms))
                    return True
            start = end
        return False

    def varies(self, cond: ir.Term) -> bool:
        """``len(seen(cond)) == 2``: true at one known point of the domain, false at another."""
        return len(self.seen(cond)) == 2

    def guess(self, t: ir.Term) -> int | bool | None:
        """The value ``t`` takes at every sample point of the domain, when there are two or more
        and they agree (a proposal: ``holds`` must still prove it). ``c*x + k`` (``c != 0``) varies
        where ``x`` does, defined at the same points: known without its values."""
        varied = self.varied
        if t in varied:
            return None
        if t.kind in (ir.ADD, ir.MUL):
            coefs, _ = ir.linear(t)
            if len(coefs) == 1 and next(iter(coefs)) in varied:
                varied.add(t)
                return None
        first = self._defined(t, HEAD_POINTS)
        if len(set(first)) >= 2:
            varied.add(t)
            return None
        seen = self._defined(t, MAX_POINTS)
        if len(set(seen)) >= 2:
            varied.add(t)
            return None
        return seen[0] if len(seen) >= 2 else None


def _safe_tries(cands: list[int], base: int) -> list[int]:
    """The moves of one symbol tried alone: ``SAFE_MOVES`` spread over its candidates, and the
    base's neighbours ``base + 1``, ``base - 1`` when they are candidates, so that the sample gives
    a size both parities: a residue of the size (``Mod(s, 2)``, ``(s + 1)//2 - s//2``) then varies
    over the points instead of being guessed constant and refuted by a search per expression."""
    out = _spread(cands, SAFE_MOVES)
    return out + [v for v in (base + 1, base - 1) if v not in out and v in cands]


def _differ(a: list[Value | None], b: list[Value | None], domain: list[Value | None]) -> bool:
    """Two value vectors differ at a sample point of the domain (then the terms are not equal
    wherever the first is defined: ``same`` asks the second defined too)."""
    return any(d and x != y for x, y, d in zip(a, b, domain))


def _tied_symbols(context: Sequence[ir.Term]) -> dict[str, tuple[str, ...]]:
    """Symbols the context makes equal (``Eq(u1, u0)``, PyTorch's unbacked replacements): each
    with its whole class, sorted, for classes of two or more."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    for t in context:
        for atom in (t.args if t.kind == ir.AND else (t,)):
            if atom.kind != ir.EQ:
                continue
            coefs, k = ir.linear(atom.args[0])
            if k == 0 and len(coefs) == 2 and sorted(coefs.values()) == [-1, 1] and all(m.kind == ir.SYM for m in coefs):
                a, b = sorted(root(m.value) for m in coefs)
                if a != b:
                    parent[b] = a
    classes: dict[str, list[str]] = {}
    for x in parent:
        classes.setdefault(root(x), [])
    for x in list(parent) + list(classes):
        members = classes[root(x)]
        if x not in members:
            members.append(x)
    return {x: tuple(sorted(ms)) for ms in classes.values() for x in ms}


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


def _value(t: ir.Term, pt: Model) -> Value | None:
    try:
        return evaluate(t, pt)
    except ZeroDivisionError:
        return None


def _row(q: Query, form: str | None, proved: bool) -> dict[str, Any]:
    row: dict[str, Any] = {"id": q.id, "form": form, "proved": proved}
    if form is not None:
        row["cost"] = cost(form)
    return row


# ------------------------------------------------------------------ the operation

def _unknown(problem: Problem) -> dict[str, Any]:
    return {"status": "unknown", "reason": "timeout", "exprs": [_row(q, None, False) for q in problem.exprs]}


def _final(res: dict[str, Any]) -> bool:
    return not res.get("incomplete") and all(row.get("proved") for row in res.get("exprs", ())) or res.get("status") == UNSAT


_CANON_NAME = re.compile(r"\bv\d+\b")


def _map_back(res: Result, back: Back) -> Result:
    """Rows in the caller's order and ids; forms in the caller's symbol names; an unproven row
    gives the caller's own text back, and so does a form costlier than that text (the IR has no
    truncated division: ``TruncDiv(TruncDiv(x, 2), 3)`` would print as a ``Piecewise`` of eight
    divisions): a form never costs more than what was sent."""
    rows = res["exprs"]
    names = back.canon.names
    reps = res.get("representatives", {})
    # a class of plain symbols is represented by the member PyTorch keeps in the caller's names
    # (eqs.keep_key), whichever the canonical order made its representative
    classes: dict[str, list[str]] = {}
    for x, e in reps.items():
        if _CANON_NAME.fullmatch(e):
            classes.setdefault(e, [e]).append(x)
    if classes:  # (a context's follow-up has hundreds of symbols and, mostly, no class: no copies)
        names = dict(names)
        hints = {s.name: s.hint for s in back.problem.symbols}
        for rep, members in classes.items():
            names[rep] = min((names.get(m, m) for m in members), key=lambda n: eqs.keep_key(n, hints))
    rename = functools.partial(_CANON_NAME.sub, lambda m: names.get(m.group(0), m.group(0)))
    caller = back.canon.names
    representatives = {}
    for x, e in reps.items():
        if caller.get(x, x) != rename(e):
            representatives[caller.get(x, x)] = rename(e)
    for rep in classes:
        if caller.get(rep, rep) != names[rep]:
            representatives[caller.get(rep, rep)] = names[rep]
    syntax = back.problem.syntax
    mapped = []
    for q, j in zip(back.problem.exprs, back.canon.exprs):
        row = dict(rows[j])
        row["id"] = q.id
        before = cost(q.text) if syntax == "sympy" else cost(to_sympy(q.term))
        if row["form"] is None or not row["proved"]:
            row.update(form=q.text, proved=False, cost={"before": before, "after": before})
        elif _key(row["cost"]) > _key(before):  # never costlier than the text as sent: the text is its own form
            row.update(form=q.text if syntax == "sympy" else to_sympy(q.term), cost={"before": before, "after": before})
        else:
            row["form"] = rename(row["form"])
            row["cost"] = {"before": before, "after": row["cost"]}
        mapped.append(row)
    return {"exprs": mapped, "warnings": list(res.get("warnings", ())),
            "representatives": dict(sorted(representatives.items()))}


def _tally(res: dict[str, Any]) -> list[str]:
    labels = []
    for row in res.get("exprs", ()):
        if not row.get("proved"):
            labels.append("unproved")
        else:
            c = row.get("cost", {})
            labels.append("simplified" if c.get("after") != c.get("before") else "unchanged")
    return labels


def _audit(res: Result, audit: Audit) -> None:
    """A cached form must read back over the problem's symbols and, when the hints are a point of
    the context, agree with its expression there (a cheap guard against a planted form; the
    proof itself is not redone)."""
    pt = hint_model(audit.problem)
    exprs = audit.problem.exprs
    for r, q in zip(audit.rows(res, "exprs", [q.id for q in exprs]), exprs):
        form, proved = r.get("form"), r.get("proved")
        if type(proved) is not bool or not (form is None or isinstance(form, str)):
            raise audit.bad(f"{q.id} is not a form with a proof flag")
        if not proved or form is None:
            continue
        try:
            got = parse_sympy(form).term
        except BadInput:
            raise audit.bad(f"the form of {q.id} does not read back") from None
        if not ir.symbols_of(got) <= set(audit.symbols) or got.is_bool != q.term.is_bool:
            raise audit.bad(f"the form of {q.id} is not over the problem's symbols")
        if pt is not None and holds(q.domain, pt) and _value(q.term, pt) != _value(got, pt):
            raise audit.bad(f"the form of {q.id} differs from its expression at the hints")


OPERATION = Operation("simplify", simplify, _unknown, is_final=_final, map_back=_map_back, tally=_tally,
                      audit=_audit)
