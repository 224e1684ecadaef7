"""``reason.facts.Env``: an atom is recorded once per minimal set of sources, in any order of adding."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from symguard.solver.ir import terms as ir
from symguard.solver.reason.facts import Env, Src

X = ir.mk_sym("x")
ATOMS = [ir.mk_le(X, ir.mk_int(5)), ir.mk_le(ir.mk_int(2), X), ir.mk_ne(X, ir.mk_int(3)),
         ir.mk_eq(ir.mk_floordiv(X, ir.mk_int(4)), ir.mk_int(1))]


def _reference(adds: list[tuple[int, Src]]) -> dict[ir.Term, list[Src]]:
    """The rule as stated: a source set is skipped when one already recorded is a subset of it."""
    out: dict[ir.Term, list[Src]] = {}
    for k, src in adds:
        seen = out.setdefault(ATOMS[k], [])
        if not any(s <= src for s in seen):
            seen.append(src)
    return out


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(ATOMS) - 1),
                          st.frozensets(st.integers(0, 5), max_size=3)), max_size=30))
def test_each_atom_keeps_its_minimal_sources_as_the_plain_rule_does(adds: list[tuple[int, Src]]) -> None:
    env = Env({"x": (0, 20)})
    for k, src in adds:
        env.add_atom(ATOMS[k], src)
    want = _reference(adds)
    for atom, srcs in want.items():
        assert env.atoms[atom] == srcs
