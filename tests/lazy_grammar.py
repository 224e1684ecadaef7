"""Texts in two spellings: the sympy text symguard reads and the Python text PyTorch runs.

PyTorch prints ``Piecewise``/``Where`` as ``(a if c else b)``, ``And``/``&`` as ``and``,
``Or``/``|`` as ``or``: Python never evaluates a branch not taken or an operand after a short
circuit. Each strategy draws a pair (sympy, python) over ``NAMES`` whose divisors are symbols or
sums, so zero divisors occur in branches taken and not taken. ``PY_UNDEFINED`` is the Python
spelling of "no Piecewise branch holds" (sympy's nan): it raises like a zero divisor.
Rationals (``/``) are drawn by ``rationals``: the Python text evaluates them over ``Fraction``.
"""

from __future__ import annotations

import ast
from fractions import Fraction

from hypothesis import strategies as st

NAMES = ["a", "b", "c"]
PY_UNDEFINED = "(1 // 0)"
GRID = [-3, -2, -1, 0, 1, 2, 3]

Pair = tuple[str, str]


def _int_leaf() -> st.SearchStrategy[Pair]:
    return st.one_of(st.sampled_from(NAMES), st.integers(-3, 4).map(str)).map(lambda s: (s, s))


def lazy_pairs() -> tuple[st.SearchStrategy[Pair], st.SearchStrategy[Pair]]:
    """(integer terms, conditions), each as (sympy, python) pairs."""

    def ints(t: st.SearchStrategy[Pair], c: st.SearchStrategy[Pair]) -> st.SearchStrategy[Pair]:
        return st.one_of(
            st.tuples(t, t).map(lambda p: (f"({p[0][0]} + {p[1][0]})", f"({p[0][1]} + {p[1][1]})")),
            st.tuples(t, t).map(lambda p: (f"({p[0][0]})*({p[1][0]})", f"({p[0][1]})*({p[1][1]})")),
            st.tuples(t, t).map(lambda p: (f"({p[0][0]}) // ({p[1][0]})", f"({p[0][1]}) // ({p[1][1]})")),
            st.tuples(t, t).map(lambda p: (f"Mod({p[0][0]}, {p[1][0]})", f"({p[0][1]}) % ({p[1][1]})")),
            st.tuples(t, t).map(lambda p: (f"Max({p[0][0]}, {p[1][0]})", f"max({p[0][1]}, {p[1][1]})")),
            st.tuples(t, c, t).map(lambda p: (f"Piecewise(({p[0][0]}, {p[1][0]}), ({p[2][0]}, True))",
                                              f"({p[0][1]} if {p[1][1]} else {p[2][1]})")),
            st.tuples(t, c, t, c).map(lambda p: (f"Piecewise(({p[0][0]}, {p[1][0]}), ({p[2][0]}, {p[3][0]}))",
                                                 (f"({p[0][1]} if {p[1][1]} else ({p[2][1]} if {p[3][1]} "
                                                  f"else {PY_UNDEFINED}))"))),
            st.tuples(c, t, t).map(lambda p: (f"Where({p[0][0]}, {p[1][0]}, {p[2][0]})",
                                              f"({p[1][1]} if {p[0][1]} else {p[2][1]})")),
        )

    def conds(t: st.SearchStrategy[Pair], c: st.SearchStrategy[Pair]) -> st.SearchStrategy[Pair]:
        rel = st.sampled_from(["<", "<=", ">", ">=", "==", "!="])
        return st.one_of(
            st.tuples(t, rel, t).map(lambda p: (f"{p[0][0]} {p[1]} {p[2][0]}", f"({p[0][1]} {p[1]} {p[2][1]})")),
            st.tuples(c, c).map(lambda p: (f"And({p[0][0]}, {p[1][0]})", f"({p[0][1]} and {p[1][1]})")),
            st.tuples(c, c).map(lambda p: (f"Or({p[0][0]}, {p[1][0]})", f"({p[0][1]} or {p[1][1]})")),
            st.tuples(c, c).map(lambda p: (f"({p[0][0]}) & ({p[1][0]})", f"({p[0][1]} and {p[1][1]})")),
            st.tuples(c, c).map(lambda p: (f"({p[0][0]}) | ({p[1][0]})", f"({p[0][1]} or {p[1][1]})")),
            st.tuples(c, c).map(lambda p: (f"({p[0][0]}) and ({p[1][0]})", f"({p[0][1]} and {p[1][1]})")),
            st.tuples(c, c, c).map(lambda p: (f"And({p[0][0]}, {p[1][0]}, {p[2][0]})",
                                              f"({p[0][1]} and {p[1][1]} and {p[2][1]})")),
            st.tuples(c, c).map(lambda p: (f"Implies({p[0][0]}, {p[1][0]})", f"((not {p[0][1]}) or {p[1][1]})")),
            c.map(lambda p: (f"Not({p[0]})", f"(not {p[1]})")),
            st.tuples(c, c).map(lambda p: (f"Eq({p[0][0]}, {p[1][0]})", f"({p[0][1]} == {p[1][1]})")),
        )

    def atom(t: st.SearchStrategy[Pair]) -> st.SearchStrategy[Pair]:
        rel = st.sampled_from(["<", ">=", "==", "!="])
        return st.one_of(
            st.tuples(t, rel, t).map(lambda p: (f"{p[0][0]} {p[1]} {p[2][0]}", f"({p[0][1]} {p[1]} {p[2][1]})")),
            # a chain stops at its first false link: the operands after it are not evaluated
            st.tuples(t, rel, t, rel, t).map(lambda p: (f"{p[0][0]} {p[1]} {p[2][0]} {p[3]} {p[4][0]}",
                                                        f"({p[0][1]} {p[1]} {p[2][1]} {p[3]} {p[4][1]})")),
        )

    leaf = _int_leaf()
    int_s = st.deferred(lambda: st.one_of(leaf, leaf, ints(int_s, cond_s)))
    cond_s = st.deferred(lambda: st.one_of(atom(leaf), atom(leaf), conds(int_s, cond_s)))
    return int_s, cond_s


def python_value(text: str, env: dict[str, int]) -> int | bool | None:
    """Python's own value of a Python text (None: it raises ZeroDivisionError)."""
    try:
        return eval(text, {"__builtins__": {}, "max": max, "min": min}, dict(env))
    except ZeroDivisionError:
        return None


def rationals() -> st.SearchStrategy[str]:
    """Arithmetic with true division over ``NAMES`` and integer ``//``/``%`` leaves, through
    ``Max``/``Min``/``Abs`` and literal ``Rational(p, q)`` (also read by Python over ``Fraction``,
    where ``/`` is exact and those names are ``max``, ``min``, ``abs`` and ``Fraction``)."""
    leaf = st.one_of(st.sampled_from(NAMES), st.integers(-3, 4).map(str),
                     st.tuples(st.sampled_from(NAMES), st.sampled_from(NAMES)).map(lambda p: f"({p[0]} // {p[1]})"),
                     st.sampled_from(NAMES).map(lambda n: f"({n} % 3)"))

    def ext(t: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.tuples(t, t).map(lambda p: f"{p[0]}/{p[1]}"),
            st.tuples(t, t).map(lambda p: f"({p[0]})/({p[1]})"),
            st.tuples(t, t).map(lambda p: f"{p[0]} + {p[1]}"),
            st.tuples(t, t).map(lambda p: f"({p[0]}) - ({p[1]})"),
            st.tuples(t, t).map(lambda p: f"({p[0]})*{p[1]}"),
            st.tuples(t, t).map(lambda p: f"{p[0]}*({p[1]})"),
            t.map(lambda s: f"-({s})"),
            t.map(lambda s: f"({s})**2"),
            st.tuples(st.sampled_from(["Max", "Min"]), st.lists(t, min_size=2, max_size=2)).map(
                lambda p: f"{p[0]}({', '.join(p[1])})"),
            t.map(lambda s: f"Abs({s})"),
            st.tuples(st.integers(-5, 5), st.integers(1, 6)).map(lambda p: f"Rational({p[0]}, {p[1]})"),
        )

    return st.recursive(leaf, ext, max_leaves=5)


RELATIONS = {"<": "Lt", "<=": "Le", ">": "Gt", ">=": "Ge", "==": "Eq", "!=": "Ne"}


@st.composite
def rational_relations(draw: st.DrawFn) -> Pair:
    """A comparison of two rational expressions: (sympy text, Python text over ``Fraction``)."""
    x, y = draw(rationals()), draw(rationals())
    op = draw(st.sampled_from(sorted(RELATIONS)))
    py = f"({x}) {op} ({y})"
    return (f"{RELATIONS[op]}({x}, {y})" if draw(st.booleans()) else py), py


class _Exact(ast.NodeTransformer):
    """Every integer literal a ``Fraction`` too: Python's ``1/1`` is the float ``1.0``, and a
    ``Fraction`` compared with a float compares with the double, not the rational."""

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        if type(node.value) is int:
            return ast.Call(ast.Name("Fraction", ast.Load()), [node], [])
        return node


def fraction_value(text: str, env: dict[str, int]) -> Fraction | bool | None:
    """Python's value of ``text`` with every symbol and literal a ``Fraction`` (exact ``/``); None
    where a divisor is zero."""
    tree = ast.fix_missing_locations(_Exact().visit(ast.parse(text, mode="eval")))
    try:
        return eval(compile(tree, "<rational>", "eval"),
                    {"__builtins__": {}, "Fraction": Fraction, "Rational": Fraction, "Max": max, "Min": min, "Abs": abs},
                    {k: Fraction(v) for k, v in env.items()})
    except ZeroDivisionError:
        return None
