"""Where a read expression is defined: ``Parsed`` (a term and its domain) and the domain's lazy
composition in Python's order of evaluation.

Reading records a condition for every divisor (``divisor != 0``, docs/problem-format.md §1.2: a
guard that divides by zero cannot pass) and for a ``Piecewise`` that no branch covers. PyTorch runs
the text as Python, which does not evaluate everything: a ``Piecewise``/``Where`` branch only where
it is taken, an ``And``/``Or`` operand only where the operands before it do not decide. The
functions here rewrite the conditions recorded while reading such operands so that each one holds
only under the premise of its operand being evaluated (``_lazy``, ``_lazy_piecewise``).
"""

from __future__ import annotations

from dataclasses import dataclass

from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term


@dataclass(frozen=True)
class Parsed:
    """A parsed expression and the condition under which it is defined (divisors != 0, …)."""

    term: Term
    domain: Term

    def as_condition(self) -> Term:
        return ir.mk_and(self.domain, self.term)


def _and_then(before: list[Term], dom: list[Term], kind: str) -> Term | None:
    """The domain condition of an operand evaluated only when ``before`` all hold (``kind`` "and")
    or all fail ("or"): ``dom`` under that premise; None when it is empty."""
    if not dom:
        return None
    d = ir.mk_and(*dom)
    return ir.mk_or(*(ir.mk_not(b) for b in before), d) if kind == "and" else ir.mk_or(*before, d)


def _lazy(domain: list[Term], marks: list[int], vals: list[Term], kind: str) -> None:
    """Make the conditions recorded while reading the operands ``vals`` (operand i's from
    ``marks[i]`` to the next mark, in ``domain``) lazy, as Python evaluates them:

    * ``"and"`` (``x and y``, ``And``, ``&``): operand i is evaluated only when the ones before hold;
    * ``"or"`` (``x or y``, ``Or``, ``|``): only when the ones before fail;
    * ``"ite"`` (``vals = [c, a, b]``, ``a if c else b``): ``a`` only when ``c``, ``b`` only when not.

    The first operand (the condition of an ``ite``) is always evaluated: its conditions stay."""
    ends = [*marks[1:], len(domain)]
    doms = [domain[s:e] for s, e in zip(marks, ends)]
    out = list(doms[0])
    if kind == "ite":
        c = vals[0]
        for premise, dom in ((c, doms[1]), (ir.mk_not(c), doms[2])):
            if dom:
                out.append(ir.mk_implies(premise, ir.mk_and(*dom)))
    else:
        for i in range(1, len(vals)):
            got = _and_then(vals[:i], doms[i], kind)
            if got is not None:
                out.append(got)
    domain[marks[0]:] = out


def _lazy_piecewise(domain: list[Term], marks: list[int], conds: list[Term]) -> None:
    """``Piecewise((e1, c1), (e2, c2), …)`` evaluates ``c1``, then ``e1`` when it holds, else goes
    on with ``c2``: D_i = dom(c_i) ∧ (c_i → dom(e_i)) ∧ (¬c_i → D_{i+1}). Past the last pair no
    branch holds: D_{n+1} = FALSE (sympy's value there is nan), which a final ``True`` condition
    never reaches. ``marks`` delimit, per pair, the conditions of ``e_i`` then of ``c_i`` (the
    order they are read in)."""
    ends = [*marks[1:], len(domain)]
    doms = [domain[s:e] for s, e in zip(marks, ends)]
    rest: Term = ir.FALSE
    for i in range(len(conds) - 1, -1, -1):
        c, de, dc = conds[i], ir.mk_and(*doms[2 * i]), ir.mk_and(*doms[2 * i + 1])
        rest = ir.mk_and(dc, ir.mk_implies(c, de), ir.mk_or(c, rest))
    domain[marks[0]:] = [rest] if rest is not ir.TRUE else []
