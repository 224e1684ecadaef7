"""Sizes the guards make multiples of a literal: ``s = m*k`` substituted, with the guards that justify it.

Mask-unit unrolls (Hiera) emit long products of a size's quotients by its own quotients,
``s//(8*(s//16))``, that equal a constant only where ``s`` is a multiple of 16 or 32. The guards
say so, but never as ``Eq(Mod(s, 32), 0)``: ``Eq(ceil(s/4)*ceil(t/4), (s//4)*(t//4))`` makes
``s`` a multiple of 4, ``Eq(Mod(s//4, s//8), 0)`` with ``s >= 16`` one of 8, and so on. Once
``m | s`` is known, ``s = m*k`` (``k`` a fresh integer) turns ``(32*k)//(16*k)`` into ``2``,
and the products collapse to what the rewriter already decides.

**Deriving** ``m | s`` (``derive``): per symbol ``s`` and prime ``p`` of ``P_s`` (the lcm of the
literal divisors above ``s`` in the facts, ``periodic.periods``), climb ``m = p, p^2, …`` while
``P_s`` allows (a step may jump two powers: a fact of period 4 shows ``4 | s`` where none shows
``2 | s``). A step proves ``Eq(Mod(s, m), 0)`` when the facts over ``s`` alone, else over ``s``
and one other symbol (those whose periods divide ``m``), with the multiples already derived,
leave no counterexample cell by cell (``multivariate.counterexample``, exact). The walk does not
say which facts it used, so the facts go in by size, in prefixes doubling until one decides, and
that prefix is shrunk (``_shrink``) to a subset that still decides: the step's sources, a few
guards that do imply it (a superset would be true too, but would make every small guard a source
of its own proof). Multiples of different primes combine by their product, sources by union. A
guard that states it (``Eq(Mod(c*s, n), 0)``, ``Eq(c*s + a*x + …, 0)`` with a common factor of the
others) is read directly. Points where every fact holds bound the climb (``m`` divides ``s``
there); a ``Cache`` reuses the steps whose sources are still given when the facts shrink.

**Substituting** is sound (as in ``equalities``): where the sources hold, ``s = m*k`` for the
integer ``k = s/m`` in ``ceil(lo/m)..floor(hi/m)``, so ``t[s := m*k]`` and ``t`` have one value;
a proof of ``g[s := m*k]`` from facts ``F[s := m*k]`` is a proof of ``g`` from ``F`` and the
sources of the multiples substituted. ``periodic.substitute`` removes the divisions by literals
(``(32*k)//4 = 8*k``); the rewriter cancels a quotient by its own factor.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term
from symguard.solver.reason import multivariate, periodic
from symguard.solver.reason.intervals import Interval

K_PREFIX = "."  # fresh names start with '.', which no parsed symbol does (as ``periodic.q_name``)
MAX_MODULUS = 1 << 12  # moduli past this are not climbed (a period this long is not a block size)
# powers of a prime one step of the climb may jump: the facts' own periods filter what a step
# sees, so ``4 | s`` (from ``ceil(s/4) == s//4``, period 4) is shown where ``2 | s`` is not
LOOKAHEAD = 2

Src = frozenset[int]


def k_name(s: str) -> str:
    """The fresh quotient symbol of ``s = m*k``."""
    return f"{K_PREFIX}{s}.k"


@dataclass(frozen=True)
class Fact:
    """A condition with the guards it comes from (empty: an assert, always true)."""
    term: Term
    src: Src


Multiples = dict[str, tuple[int, Src]]  # symbol -> (m > 1 with m | s, guards that imply it)


def stated(t: Term) -> tuple[str, int] | None:
    """``(s, m)`` when the canonical condition ``t`` (one conjunct) states ``m | s``, ``m > 1``:
    ``Mod(c*s, n) == 0`` (``m = n / gcd(c, n)``) or a linear ``c*s + a_1*x_1 + … + k == 0``
    (``m = g / gcd(c, g)`` with ``g`` the gcd of the ``a_i`` and ``k``)."""
    if t.kind != ir.EQ:
        return None
    e = t.args[0]
    if e.kind == ir.MOD and e.args[1].kind == ir.CONST and e.args[1].value != 0:
        coefs, k = ir.linear(e.args[0])
        n = abs(e.args[1].value)
        if k % n == 0 and len(coefs) == 1:
            (x, c), = coefs.items()
            m = n // math.gcd(c, n)
            if x.kind == ir.SYM and m > 1:
                return x.value, m
        return None
    coefs, k = ir.linear(e)
    for x, c in sorted(coefs.items(), key=lambda xc: xc[0].skey):
        if x.kind != ir.SYM:
            continue
        g = abs(k)
        for y, a in coefs.items():
            if y is not x:
                g = math.gcd(g, a)
        m = g // math.gcd(c, g) if g else 0
        if m > 1:
            return x.value, m
    return None


def _primes(n: int) -> list[int]:
    out, p = [], 2
    while p * p <= n:
        if n % p == 0:
            out.append(p)
            while n % p == 0:
                n //= p
        p += 1
    return out + ([n] if n > 1 else [])


def _divides(facts_periods: Mapping[str, int], m: int, s: str) -> bool:
    return m % facts_periods.get(s, 1) == 0


@dataclass
class Cache:
    """What ``derive`` reuses when it runs again on fewer facts (a greedy pass drops guards): each
    fact's symbols, periods and size, and each climb step's answer. A step's sources still all
    given prove it again; a step that failed fails on fewer facts too (none is a guess)."""
    facts: dict[Term, tuple[frozenset[str], dict[str, int], int]] = field(default_factory=dict)
    steps: dict[tuple[str, int], Src | None] = field(default_factory=dict)

    def info(self, t: Term) -> tuple[frozenset[str], dict[str, int], int]:
        got = self.facts.get(t)
        if got is None:
            got = self.facts[t] = (frozenset(ir.symbols_of(t)), periodic.periods([t]),
                                   sum(1 for _ in ir.iter_dag(t)))
        return got


def derive(facts: Sequence[Fact], ranges: Mapping[str, Interval], near: Mapping[str, int] | None,
           memo: multivariate.Memo, symbols: Sequence[str] | None = None, cache: Cache | None = None,
           witnesses: Sequence[Mapping[str, int]] = ()) -> Multiples:
    """Per symbol (of ``symbols``, else of the facts) the largest ``m > 1`` the facts show divides
    it, with the sources of the facts the proof used (see the module docstring); symbols with no
    such ``m`` are absent. Work is bounded by ``memo``'s walk budgets (counted comparisons).
    ``witnesses``: points where every fact holds (the caller's), so ``m`` divides ``s`` at each:
    a step they refute is not tried (no walk to find what a known point already shows)."""
    cache = cache or Cache()
    info = [(f, *cache.info(f.term)[:2]) for f in facts]
    sizes = {f: cache.info(f.term)[2] for f in facts}
    given: Src = frozenset().union(*(f.src for f in facts))
    syms = sorted(symbols) if symbols is not None else sorted(set().union(*(s for _, s, _ in info)))
    out: Multiples = {}
    for f, _, _ in info:  # what the guards state directly
        got = stated(f.term)
        if got is not None and (symbols is None or got[0] in symbols):
            s, m = got
            m0, src0 = out.get(s, (1, frozenset()))
            if m0 % m:
                out[s] = (math.lcm(m0, m), src0 | f.src)
    for s in syms:
        bound = 1
        for _, fs, per in info:
            if s in fs:
                bound = math.lcm(bound, per.get(s, 1))
        if bound <= 1 or bound > MAX_MODULUS:
            continue
        m0, src0 = out.get(s, (1, frozenset()))
        total, srcs = m0, set(src0)
        seen = 0  # the gcd of s at the witnesses (0: none): every m a step may show divides it
        for w in witnesses:
            seen = math.gcd(seen, w.get(s, 0))
        for p in _primes(bound):
            m = 1
            while m0 % (m * p) == 0:  # the power of p already known
                m *= p
            while bound % (m * p) == 0:
                step: Src | None = None
                for j in range(1, LOOKAHEAD + 1):  # p^2 | s may be shown where p | s alone is not
                    if bound % (m * p ** j) or step is not None or (seen and seen % (m * p ** j)):
                        break
                    key = (s, m * p ** j)
                    was = cache.steps.get(key)
                    if key in cache.steps and (was is None or was <= given):
                        step = was
                    else:
                        step = cache.steps[key] = _step(s, m * p ** j, {**out, s: (total, frozenset(srcs))},
                                                        info, ranges, near, memo, sizes)
                    if step is not None:
                        m *= p ** j
                if step is None:
                    break
                srcs |= step
                total = math.lcm(total, m)
        if total > 1:
            out[s] = (total, frozenset(srcs))
    return out


def _step(s: str, m: int, known: Multiples, info: Sequence[tuple[Fact, frozenset[str], dict[str, int]]],
          ranges: Mapping[str, Interval], near: Mapping[str, int] | None, memo: multivariate.Memo,
          sizes: Mapping[Fact, int]) -> Src | None:
    """The sources of a proof of ``m | s``: the facts over ``s`` alone, then over ``s`` and one
    other symbol, whose periods divide ``m``, with the multiples ``known``; None if neither shows it."""
    goal = ir.mk_eq(ir.mk_mod(ir.mk_sym(s), ir.mk_int(m)), ir.mk_int(0))
    others = sorted({x for _, fs, _ in info if s in fs and len(fs) == 2 for x in fs} - {s})
    for group in [frozenset((s,)), *(frozenset((s, x)) for x in others)]:
        if len(group) > 1 and not any(fs == group for _, fs, _ in info):
            continue
        # over ``s`` alone every fact (its cells are the lcm of one symbol's periods); over a pair only
        # those whose periods divide ``m`` (longer ones multiply the cells of the walk)
        use = [f for f, fs, per in info if fs and fs <= group and (len(group) == 1 or all(_divides(per, m, x) for x in fs))]
        if len(group) > 1 and not any(len(ir.symbols_of(f.term)) > 1 for f in use):
            continue  # nothing ties the pair: stage 1 already had these facts
        # the multiple of ``s`` known so far, then also the other symbol's (its sources only
        # where needed: they would make every guard over the pair a source of this one)
        bases = [[x for x in (s,) if known.get(x, (1,))[0] > 1]]
        if any(known.get(x, (1,))[0] > 1 for x in group - {s}):
            bases.append([x for x in sorted(group) if known.get(x, (1,))[0] > 1])
        # the smallest facts first, in prefixes doubling up to all of them: the proof's sources
        # are the prefix that decides (a few guards, not every fact over the pair)
        use.sort(key=lambda f: (sizes[f], sorted(f.src)))
        for xs in bases:
            base = [ir.mk_eq(ir.mk_mod(ir.mk_sym(x), ir.mk_int(known[x][0])), ir.mk_int(0)) for x in xs]
            base_src: Src = frozenset().union(*(known[x][1] for x in xs))
            if not use and not base:
                continue

            def implied(fs: Sequence[Fact]) -> bool:
                got = multivariate.counterexample(goal, base + [f.term for f in fs], ranges, near, memo)  # noqa: B023
                return got is not None and not got[0]

            n = 1
            while True:
                n = min(n, len(use))
                if implied(use[:n]):
                    return base_src.union(*(f.src for f in _shrink(use[:n], implied)))
                if n >= len(use):
                    break
                n *= 2
    return None


def _shrink(fs: Sequence[Fact], implied: Callable[[Sequence[Fact]], bool]) -> list[Fact]:
    """A subset of ``fs`` (which ``implied`` accepts) that still is, found by leaving out halves,
    then quarters, … of it (a few facts out of dozens in ``O(k log n)`` walks): the sources a
    multiple names are what its proof needs, so that a guard the others imply is not one of them."""
    keep = list(fs)
    chunk = len(keep) // 2
    while chunk >= 1:
        i = 0
        while i < len(keep):
            trial = keep[:i] + keep[i + chunk:]
            if implied(trial):
                keep = trial
            else:
                i += chunk
        chunk //= 2
    return keep


def polys(mult: Mapping[str, tuple[int, Src]]) -> dict[str, periodic.Poly]:
    """The substitution ``s -> m*k`` for ``periodic.substitute``."""
    return {s: {(ir.mk_sym(k_name(s)),): m} for s, (m, _) in mult.items()}


def ranges_of(ranges: Mapping[str, Interval], mult: Mapping[str, tuple[int, Src]]) -> dict[str, Interval]:
    """``ranges`` with each ``k`` of ``s = m*k``: ``ceil(lo/m)..floor(hi/m)``."""
    out = dict(ranges)
    for s, (m, _) in mult.items():
        lo, hi = ranges.get(s, (None, None))
        out[k_name(s)] = (None if lo is None else ir.ceil_div(lo, m), None if hi is None else hi // m)
    return out


def substitute(t: Term, mult: Mapping[str, tuple[int, Src]]) -> Term:
    """``t[s := m*k]`` for every symbol of ``mult``: equal to ``t`` wherever each ``m | s``."""
    return periodic.substitute(t, polys(mult))


def substituter(mult: Mapping[str, tuple[int, Src]]) -> Callable[[Term], Term]:
    """``substitute`` for many terms, shared subterms rewritten once."""
    return periodic.substituter(polys(mult))
