"""Divisibility as a fact of the context, carried through sums and products.

The context says ``d | t`` when one of its conjuncts is ``Eq(Mod(t, d), 0)`` (PyTorch's
divisibility facts, ``statically_known_multiple_of``). ``Divisibility.of(e)`` is a positive
integer known to divide ``e`` at every point of the context (0: ``e`` is 0 everywhere, which
every integer divides), computed structurally:

* a literal ``c``: ``|c|``; a term the context knows: the lcm of its facts' divisors (``4 | t`` and
  ``6 | t`` give ``12``);
* ``c*m``: ``|c|*of(m)``; a product: the product of its factors' (``7 | h ∧ 7 | w ⇒ 49 | h*w``);
* a sum: the gcd of its monomials' (``8 | s0 ⇒ 8 | 2*s0 + 16``);
* ``x//d`` for a literal ``d > 0`` with ``d | of(x)``: ``of(x)/d`` (an exact quotient).

Each step is a divisibility law of the integers, so ``d | of(e)`` proves ``d | e`` on the whole
context; ``Simplifier`` uses it to rewrite ``(e + r)//d = e//d + r//d``, ``Mod(e + r, d) = Mod(r, d)``
and products of exact quotients (``(h//7)*(w//7) = (h*w)//49``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term


class Divisibility:
    def __init__(self, context: Iterable[Term], norm: Callable[[Term], Term] | None = None) -> None:
        """``context``: the asserts and guards; ``norm`` maps a fact's term to the spelling the
        simplified expressions use (the equality classes' substitution)."""
        self.known: dict[Term, int] = {}
        for t in context:
            for atom in (t.args if t.kind == ir.AND else (t,)):
                got = _multiple_of(atom)
                if got is None:
                    continue
                x, d = got
                if norm is not None:
                    x = norm(x)
                self.known[x] = math.lcm(self.known.get(x, 1), d)
        self.memo: dict[Term, int] = {}

    def __bool__(self) -> bool:
        return bool(self.known)

    def of(self, e: Term) -> int:
        hit = self.memo.get(e)
        if hit is not None:
            return hit
        memo = self.memo
        for n in ir.iter_dag(e):
            if n not in memo:
                memo[n] = self._one(n)
        return memo[e]

    def _one(self, n: Term) -> int:
        k = n.kind
        if k == ir.CONST:
            return abs(n.value)
        own = self.known.get(n, 1)
        if k == ir.ADD:
            g = 0
            for a in n.args:
                g = math.gcd(g, self.memo[a])
            return math.lcm(own, g) if g else 0
        if k == ir.MUL:
            p = 1
            for a in n.args:
                p *= self.memo[a]
            return math.lcm(own, p) if p else 0
        if k == ir.FLOORDIV:
            x, d = n.args
            kx = self.memo[x]
            if d.kind == ir.CONST and d.value > 0 and kx % d.value == 0:
                q = kx // d.value
                return math.lcm(own, q) if q else 0
        return own

    def divides(self, d: int, e: Term) -> bool:
        """``d | e`` at every point of the context (proven by ``of``)."""
        return d != 0 and self.of(e) % d == 0


def _multiple_of(atom: Term) -> tuple[Term, int] | None:
    """``(t, d)`` when ``atom`` is ``Mod(t, d) == 0`` for a literal ``d != 0``."""
    if atom.kind != ir.EQ:
        return None
    coefs, k = ir.linear(atom.args[0])
    if k != 0 or len(coefs) != 1:
        return None
    (m, _), = coefs.items()
    if m.kind != ir.MOD or m.args[1].kind != ir.CONST or m.args[1].value == 0:
        return None
    return m.args[0], abs(m.args[1].value)
