"""What a form costs: its printing's ``(divisions, operations)``, compared lexicographically.

``syntax.sympy_writer.cost`` counts a printed form; ``_key`` is the order ``simplify`` keeps the
cheaper by, and ``least_cost`` a lower bound of it read off the term, so that an input whose form
costs no more than the bound need not be printed at all.
"""

from __future__ import annotations

from symguard.solver.ir import terms as ir
from symguard.solver.reason.simplify_terms import DIV_WEIGHT


def _key(c: dict[str, int]) -> tuple[int, int]:
    return (c["divs"], c["ops"])


def no_costlier(a: dict[str, int], b: dict[str, int]) -> bool:
    """``a`` costs no more than ``b`` in both orders ``simplify`` promises: divisions first, and
    with a division weighed as ``DIV_WEIGHT`` operations."""
    return _key(a) <= _key(b) and DIV_WEIGHT * a["divs"] + a["ops"] <= DIV_WEIGHT * b["divs"] + b["ops"]


def least_cost(t: ir.Term) -> tuple[int, int]:
    """A lower bound of ``_key(cost(print(t)))`` without printing ``t`` (a new term's printing is
    tens of microseconds): its printing has a division per distinct division node (``//``, ``%``,
    a ``Mod``, a ``CeilDiv``, two in a ``ModularIndexing``; the two of a ``TruncDiv`` select print as one), and — in an integer term with no
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
        elif k == ir.ITE and ir.truncdiv_args(n) is not None:
            divs -= 1  # its two floor divisions print as one ``TruncDiv`` call
            plain = False
        elif k == ir.ADD or k == ir.MIN or (k == ir.MAX and len(n.args) > 2):
            ops += len(n.args) - 1
        elif n.is_bool:
            plain = False
    return (max(divs, 0), ops if plain else 0)

