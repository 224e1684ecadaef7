"""A small grammar of sympy-syntax guards and bounded boxes, shared by the property tests.

Terms use ``//``, ``%``, Max, Min, products and negative divisors over 2–3 symbols with small
explicit ranges, so every claim can be re-checked by enumerating the box.
"""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import strategies as st

from symguard.solver import load_problem
from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import holds
from symguard.solver.ir.terms import Term

NAMES = ["x", "y", "z"]
X, Y = ir.mk_sym("x"), ir.mk_sym("y")


def linear_leaves() -> st.SearchStrategy[Term]:
    """IR leaves over ``x`` and ``y`` for the Max/Min nests of the extremes and regions tests:
    the symbols, small constants, linear terms and quotients by small positive constants."""
    return st.one_of(
        st.sampled_from([X, Y]),
        st.integers(-6, 6).map(ir.mk_int),
        st.builds(lambda a, b, c: ir.mk_add(ir.mk_mul(ir.mk_int(a), X), ir.mk_mul(ir.mk_int(b), Y), ir.mk_int(c)),
                  st.integers(-3, 3), st.integers(-3, 3), st.integers(-5, 5)),
        st.builds(lambda s, d: ir.mk_floordiv(s, ir.mk_int(d)), st.sampled_from([X, Y]), st.integers(1, 4)))


def terms(names: list[str]) -> st.SearchStrategy[str]:
    leaf = st.one_of(st.sampled_from(names), st.integers(-4, 6).map(str))

    def extend(t: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        div = st.sampled_from(["-3", "-2", "2", "3"])
        return st.one_of(
            st.tuples(t, t).map(lambda p: f"({p[0]} + {p[1]})"),
            st.tuples(t, t).map(lambda p: f"({p[0]} - {p[1]})"),
            st.tuples(t, t).map(lambda p: f"({p[0]})*({p[1]})"),
            st.tuples(t, div).map(lambda p: f"({p[0]}) // {p[1]}"),
            st.tuples(t, div).map(lambda p: f"({p[0]}) % {p[1]}"),
            st.tuples(t, st.sampled_from(names)).map(lambda p: f"FloorDiv({p[0]}, {p[1]})"),
            st.tuples(t, t).map(lambda p: f"Max({p[0]}, {p[1]})"),
            st.tuples(t, t).map(lambda p: f"Min({p[0]}, {p[1]})"),
        )

    return st.recursive(leaf, extend, max_leaves=4)


def conds(names: list[str]) -> st.SearchStrategy[str]:
    t = terms(names)
    rel = st.sampled_from(["<", "<=", ">", ">=", "==", "!="])
    atom = st.tuples(t, rel, t).map(lambda p: f"{p[0]} {p[1]} {p[2]}")
    return st.one_of(atom, atom, st.tuples(atom, atom).map(lambda p: f"({p[0]}) | ({p[1]})"))


@st.composite
def boxes(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(2, 3))
    names = NAMES[:n]
    symbols = {}
    for s in names:
        lo = draw(st.integers(-4, 3))
        symbols[s] = {"min": lo, "max": lo + draw(st.integers(0, 5))}
    asserts = draw(st.lists(conds(names), max_size=2))
    guards = draw(st.lists(conds(names), min_size=1, max_size=5))
    if asserts and draw(st.booleans()):  # a guard spelled like an assert shares its solver selector
        guards.insert(draw(st.integers(0, len(guards))), asserts[0])
    prefer = draw(st.sampled_from(["cheap", "order"]))
    return {"symbols": symbols, "asserts": asserts, "guards": guards,
            "options": {"prefer": prefer, "timeout_ms": 30_000}}


def points(doc: dict[str, Any]) -> list[dict[str, int]]:
    names = list(doc["symbols"])
    ranges = [range(d["min"], d["max"] + 1) for d in doc["symbols"].values()]
    return [dict(zip(names, vals)) for vals in itertools.product(*ranges)]


class Box:
    """The problem's constraints as Python predicates over the box's points."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.p = load_problem(doc)
        self.points = points(doc)
        self.asserts = [c.term for c in self.p.asserts]
        self.guard = {c.id: c.term for c in self.p.guards}

    def sat(self, pt: dict[str, int], ids: list[str], *, with_asserts: bool = True) -> bool:
        terms = (self.asserts if with_asserts else []) + [self.guard[i] for i in ids]
        return all(holds(t, pt) for t in terms)

    def where(self, ids: list[str]) -> list[dict[str, int]]:
        return [pt for pt in self.points if self.sat(pt, ids)]

    def implies(self, ids: list[str], target: str) -> bool:
        return all(holds(self.guard[target], pt) for pt in self.where(ids))
