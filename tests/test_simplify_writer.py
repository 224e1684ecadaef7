"""``syntax/sympy_writer.py``: forms read back — by symguard and by sympy with PyTorch's functions —
to the same value at every point, and ``cost`` counts what the text costs."""

from __future__ import annotations

import ast
import contextlib
import itertools
from typing import Any

import pytest
from guard_grammar import conds, terms
from hypothesis import example, given, settings
from hypothesis import strategies as st

from symguard.solver.errors import SymguardError, UnsupportedError
from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import evaluate
from symguard.solver.syntax.sympy_reader import parse_sympy
from symguard.solver.syntax.sympy_writer import _Cost, _count, _token_cost, cost, to_sympy

TORCHY = ["CeilDiv(x, 8)*8", "ModularIndexing(x + y, 2, 8)", "ModularIndexing(x, 1, y)", "-x//3 + Mod(-y, 4)",
          "8*CeilDiv(x, 8) - 2*CeilDiv(y, 4)", "x*x*y", "Piecewise((x, x > 2), (y, y < 1), (x*y, True))",
          "Ne(x, y + 2)", "(x < y) & (y <= 2)", "Eq(Mod(x, 8), 0) | ~(x >= y)", "2*(x + y)", "Max(x, 1, y - 3)",
          "TruncDiv(x - 1, 3) + y", "3*TruncMod(x + y, -4) - 2", "x - 4*TruncDiv(x, 4) + TruncDiv(y, 2)",
          "TruncMod(x, y) + TruncMod(x, -3*y)", "2*x - y*TruncDiv(x, y)", "TruncMod(x, y + 1) - 1",
          "(x + 7)//8", "(2*x - y + 3)//4 + 1", "(7 - x)//8"]


@pytest.mark.parametrize(("text", "printed"), [
    ("(x + 7)//8", "CeilDiv(x, 8)"), ("(x + 1)//2", "CeilDiv(x, 2)"), ("(2*x + y + 3)//4", "CeilDiv(y + 2*x, 4)"),
    ("(7 - x)//8", "((7 - x)//8)"), ("(x + 15)//8", "((x + 15)//8)"),
])
def test_a_floor_division_rounding_up_prints_as_ceildiv(text: str, printed: str) -> None:
    """``(e + b - 1)//b`` by a literal ``b >= 2`` is PyTorch's ``CeilDiv(e, b)``: one operation
    fewer. Not where ``e`` has more minus signs than ``-e``: read back as ``-((-e)//b)``, the
    printing of that would differ (a fixed point, ``test_canonical_spelling_is_a_fixed_point``)."""
    assert to_sympy(parse_sympy(text).term) == printed


@pytest.mark.parametrize(("text", "printed"), [
    ("TruncMod(x, y)", "TruncMod(x, y)"),
    ("TruncMod(x + 3, y + 1)", "TruncMod(x + 3, y + 1)"),
    ("TruncMod(2*x, 3*y)", "TruncMod(2*x, 3*y)"),
    ("TruncMod(x, -y)", "TruncMod(x, -y)"),
    ("TruncMod(x, y) + TruncMod(y, x)", "TruncMod(x, y) + TruncMod(y, x)"),
    ("2*x - y*TruncDiv(x, y)", "x + TruncMod(x, y)"),
])
def test_truncmod_by_a_symbol_prints_as_read(text: str, printed: str) -> None:
    """``TruncMod(a, b)`` is read ``a - b*TruncDiv(a, b)``; by a symbolic ``b`` too it prints back
    as one call (it printed its definition: costlier than the input, which ``simplify`` then kept),
    and the printing reads back to the very same term."""
    t = parse_sympy(text).term
    assert to_sympy(t) == printed
    assert parse_sympy(printed).term is t


def _values(text: str, env: dict[str, int]) -> Any:
    try:
        return evaluate(parse_sympy(text).term, env)
    except ZeroDivisionError:
        return None


def _points() -> list[dict[str, int]]:
    return [{"x": x, "y": y} for x, y in itertools.product(range(-5, 6), range(-4, 5))]


@settings(max_examples=150, deadline=None)
@given(st.one_of(terms(["x", "y"]), conds(["x", "y"]), st.sampled_from(TORCHY)))
def test_form_reads_back_to_the_same_values(text: str) -> None:
    t = parse_sympy(text).term
    out = to_sympy(t)
    for env in _points():
        assert _values(text, env) == _values(out, env), (text, out, env)


@pytest.mark.parametrize("text", TORCHY)
def test_canonical_spelling_is_a_fixed_point(text: str) -> None:
    out = to_sympy(parse_sympy(text).term)
    assert to_sympy(parse_sympy(out).term) == out


def _sympy_namespace() -> dict[str, Any]:
    sympy = pytest.importorskip("sympy")
    ns: dict[str, Any] = {n: sympy.Symbol(n, integer=True) for n in ("x", "y")}
    try:
        from torch.utils._sympy import functions as tf
    except ImportError:  # plain sympy: PyTorch's names as undefined functions still parse
        return ns
    # ``Mod`` stays sympy's (Python's %, docs/problem-format.md §1.2): PyTorch's own ``Mod`` is only defined for
    # non-negative operands (it asserts), its ``PythonMod`` is the same function as sympy's
    ns.update(FloorDiv=tf.FloorDiv, ModularIndexing=tf.ModularIndexing, CeilDiv=tf.CeilDiv, Mod=sympy.Mod)
    return ns


@settings(max_examples=80, deadline=None)
@given(st.one_of(terms(["x", "y"]), st.sampled_from(TORCHY)))
@example("x - FloorDiv(-1, x)")  # PyTorch's CeilDiv(1, x) is 1 even at x = -1: no CeilDiv over a symbol
def test_sympy_with_pytorch_functions_reads_the_form(text: str) -> None:
    sympy = pytest.importorskip("sympy")
    ns = _sympy_namespace()
    out = to_sympy(parse_sympy(text).term)
    e = sympy.parse_expr(out, local_dict=ns)
    if "ModularIndexing" not in ns:
        return
    for env in _points()[::7]:
        want = _values(out, env)
        if want is None:
            continue
        try:
            got = e.subs({ns["x"]: env["x"], ns["y"]: env["y"]})
        except ZeroDivisionError:
            continue
        if got.is_Integer or got in (sympy.true, sympy.false):
            assert (bool(got) if isinstance(want, bool) else int(got)) == want, (out, env)


@pytest.mark.parametrize(("text", "ops", "divs"), [
    ("4*(s//4)", 1, 1), ("s - Mod(s, 4)", 1, 1), ("ModularIndexing(x, 1, N)", 0, 1),
    ("ModularIndexing(x, 2, 8)", 0, 2), ("CeilDiv(s, 8)*8", 1, 1), ("Max(s, 1, t)", 2, 0),
    ("floor(s/4) + ceiling(t/2)", 1, 2), ("x**3", 2, 0), ("-3", 0, 0), ("-x", 1, 0),
    ("(s < t) & Eq(Mod(s, 8), 0)", 3, 1), ("Piecewise((x, x > 2), (y, True))", 2, 0), ("True", 0, 0),
])
def test_cost(text: str, ops: int, divs: int) -> None:
    assert cost(text) == {"ops": ops, "divs": divs}


MORE = ["floor(s/4)", "ceiling((s + 1)/t)", "PowByNatural(x, 3)", "pow_by_natural(x, 0)", "Identity(x + 1)",
        "-(-x)", "+3", "Abs(x - y)", "Where(x > 1, x, y)", "Not(x < y)", "x < y <= 2", "FloorToInt(IntTrueDiv(x, 4))"]


@settings(max_examples=200, deadline=None)
@given(st.one_of(terms(["x", "y"]), conds(["x", "y"]), st.sampled_from(TORCHY + MORE)))
def test_fast_cost_walk_is_the_reference_visitor(text: str) -> None:
    """``cost`` walks the tree by node type; ``_Cost`` states the rules as a visitor: both count
    the same on inputs and on symguard's printed forms of them."""
    texts = [text]
    try:
        texts.append(to_sympy(parse_sympy(text).term))
    except UnsupportedError:  # Identity, FloorToInt, …: printed by PyTorch, not (yet) read by the parser
        pass
    for t in texts:
        ref = _Cost()
        ref.visit(ast.parse(t, mode="eval"))
        assert _count(ast.parse(t, mode="eval")) == (ref.ops, ref.divs), t


_SOUP = ["x", "y", "s0", "0", "1", "2", "3", "01", "(", ")", "(", ")", ",", "+", "-", "*", "//", "%", "**", "<", "<=",
         "==", "!=", " ", "Max", "Mod", "Eq", "ModularIndexing", "PowByNatural", "CeilDiv", "Identity", "floor",
         "True", "/", "&", "~", "not", "1e3", "Piecewise", "\t"]


@settings(max_examples=400, deadline=None)
@given(st.one_of(terms(["x", "y"]), conds(["x", "y"]), st.sampled_from(TORCHY + MORE),
                 st.lists(st.sampled_from(_SOUP), min_size=1, max_size=12).map("".join)))
def test_token_cost_is_the_ast_count(text: str) -> None:
    """``cost`` counts the common syntax from tokens, without ``ast``: the same counts as the
    walk of the parsed tree, on inputs, on printed forms and on token soup (where it either
    agrees or leaves the text to ``ast``, which also words any syntax error)."""
    texts = [text]
    with contextlib.suppress(SymguardError):  # token soup; Identity, …: not read by the parser (yet)
        texts.append(to_sympy(parse_sympy(text).term))
    for t in texts:
        got = _token_cost(t)
        if got is None:
            continue
        assert got == _count(ast.parse(t.strip(), mode="eval")), t


@pytest.mark.parametrize("text", ["2**3**2 + -2**2", "-(-x) + -(3) + (3)**2", "ModularIndexing(x, (1), y)",
                                  "PowByNatural(x, (2))", "a < b == c > 1", "x (y)", "Max(x)(y)", "f(x, )",
                                  "((((((x))))))", "-+-+x", "x**-1", "Eq(x, 1) != (y < 2)"])
def test_token_cost_on_chosen_texts(text: str) -> None:
    got = _token_cost(text)
    try:
        want = _count(ast.parse(text.strip(), mode="eval"))
    except SyntaxError:
        assert got is None, text
        return
    assert got is None or got == want, text


def test_printing_renames_symbols() -> None:
    t = ir.mk_add(ir.mk_sym("v0"), ir.mk_floordiv(ir.mk_sym("v1"), ir.mk_int(4)))
    assert set(to_sympy(t, {"v0": "s", "v1": "t"}).replace("(t//4)", "").replace("+", "").split()) == {"s"}


@pytest.mark.parametrize(("text", "want"), [("-1 - y", "-1 - y"), ("-y - 1", "-1 - y"), ("1 - y", "1 - y"),
                                            ("-3 - x", "-3 - x"), ("-y", "-y")])
def test_a_sum_without_a_positive_term_leads_with_its_constant(text: str, want: str) -> None:
    """``-y - 1`` costs a unary minus more than ``-1 - y``: printed that way, simplify returned a
    form costlier than its input (hypothesis found it)."""
    form = to_sympy(parse_sympy(text).term)
    assert form == want and cost(form) == cost(want)
