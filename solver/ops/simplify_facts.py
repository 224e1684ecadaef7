"""What the context implies beyond its own constraints, found once per request.

The rewriter the simplifier works under holds the context's facts and what they imply together
(``_propagated``: each constraint rewritten under the others, interval propagation through the
linear facts); ``_tied_symbols`` are the symbols the context makes equal, which a search for a
counterexample must move together.
"""

from __future__ import annotations

from collections.abc import Sequence

from symguard.solver.ir import terms as ir
from symguard.solver.reason import facts
from symguard.solver.reason.rewrite import Rewriter

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
                b = ir.ceil_div(rest, -sc)  # -sc*m >= rest: m >= ceil(rest / -sc)
                if lo is None or b > lo:
                    out.append(ir.mk_le(ir.mk_int(b), m))
    return out


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

