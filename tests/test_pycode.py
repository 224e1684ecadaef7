"""``pycode`` prints terms as Python source with the IR's own semantics: ``eval`` of the text agrees
with ``pyeval`` at every point, zero divisors included (both raise where the value is undefined,
and neither where Python's laziness never evaluates the divisor)."""

from __future__ import annotations

import pytest
from guard_grammar import NAMES, conds, terms
from hypothesis import given, settings
from hypothesis import strategies as st
from lazy_grammar import GRID, lazy_pairs, python_value
from lazy_grammar import NAMES as LAZY_NAMES

from symguard.solver.ir import terms as ir
from symguard.solver.ir.pycode import EUCLID_HELPERS, compile_check, compile_shared, conjunction, to_python
from symguard.solver.ir.pyeval import evaluate, holds, value
from symguard.solver.syntax.smtlib_script import parse_term
from symguard.solver.syntax.sympy_reader import parse_sympy

POINT = st.fixed_dictionaries({n: st.integers(-9, 9) for n in NAMES})
_HELPERS: dict[str, object] = {}
exec(EUCLID_HELPERS, _HELPERS)  # noqa: S102 - the helpers every printed term may call


def _same(text: str, env: dict[str, int], *, smtlib: bool = False) -> None:
    t = (parse_term(text) if smtlib else parse_sympy(text)).term
    names = sorted(env)
    if t.is_bool:
        assert compile_check([t], names)(*(env[n] for n in names)) == holds(t, env), (text, to_python(t))
        return
    # an integer term: compare it with its Python value through a fresh size ``want``
    try:
        want, expect = int(evaluate(t, env)), True
    except ZeroDivisionError:
        want, expect = 0, False  # a zero divisor fails the check, whatever it is compared with
    check = compile_check([ir.mk_eq(ir.mk_sym("want"), t)], [*names, "want"])
    assert check(*(env[n] for n in names), want) is expect, (text, to_python(t))


@settings(max_examples=300, deadline=None)
@given(terms(NAMES), POINT)
def test_integer_terms_evaluate_like_pyeval(text: str, env: dict[str, int]) -> None:
    _same(text, env)


@settings(max_examples=300, deadline=None)
@given(conds(NAMES), POINT)
def test_conditions_evaluate_like_pyeval(text: str, env: dict[str, int]) -> None:
    _same(text, env)


@settings(max_examples=300, deadline=None)
@given(st.lists(conds(NAMES), min_size=0, max_size=4), POINT)
def test_shared_code_evaluates_like_pyeval(texts: list[str], env: dict[str, int]) -> None:
    """Subterms computed once for all terms, stopping at the first that fails: its index is the
    first term ``holds`` rejects (a zero divisor fails its term), -1 when all hold."""
    ts = [parse_sympy(t).term for t in texts]
    ts += [ir.mk_le(ir.mk_int(0), ir.mk_floordiv(t.args[0], ir.mk_sym("x"))) for t in ts if t.kind == ir.LE]
    names = sorted(env)
    check, nodes = compile_shared(ts, names)
    first = next((i for i, t in enumerate(ts) if not holds(t, env)), -1)
    assert check(*(env[n] for n in names)) == first, texts
    # every node with arguments once (a term's top-level And is tested conjunct by conjunct),
    # plus the lazily printed ones each time they are printed
    once = {id(n) for t in ts for n in ir.iter_dag(t) if n.args} - {id(t) for t in ts if t.kind == ir.AND}
    assert len(once) <= nodes <= sum(t.size for t in ts)


@given(st.integers(-20, 20), st.integers(-5, 5))
def test_euclidean_division_from_smtlib(a: int, b: int) -> None:
    _same("(+ (div a b) (mod a b))", {"a": a, "b": b}, smtlib=True)


def test_conjunction() -> None:
    ts = [parse_sympy(s).term for s in ("x >= 2", "Eq(Mod(x, 8), 0)")]
    check = compile_check(ts, ["x"])
    assert check(16) is True and check(12) is False and check(0) is False
    assert conjunction([]) == "True" and compile_check([], [])() is True


def test_only_identifiers_become_code() -> None:
    with pytest.raises(ValueError, match="cannot be a Python name"):
        compile_check([parse_term("(> |a b| 0)").term], ["a b"])
    with pytest.raises(ValueError, match="cannot be a Python name"):
        to_python(parse_term("(> |x) or (1| 0)").term)


# ------------------------------------------------------------------ Python's order (issue 31)

_INTS, _CONDS = lazy_pairs()
GRID_POINT = st.fixed_dictionaries({n: st.sampled_from(GRID) for n in LAZY_NAMES})


@settings(max_examples=300, deadline=None)
@given(st.one_of(_INTS, _CONDS), GRID_POINT)
def test_lazy_terms_print_like_python(pair: tuple[str, str], env: dict[str, int]) -> None:
    """The printed source raises exactly where ``pyeval`` is undefined and otherwise has its value,
    which is Python's own value of PyTorch's text wherever that is defined (a divisor in a branch
    not taken or after a short circuit is never evaluated); the checks agree with ``holds``."""
    text, py = pair
    p = parse_sympy(text)
    got = value(p.term, env)
    try:
        printed = eval(to_python(p.term), {"__builtins__": {}, "max": max, "min": min, **_HELPERS}, dict(env))
    except ZeroDivisionError:
        printed = None
    assert printed == got, (text, to_python(p.term), env)
    want = python_value(py, env)
    if want is not None:
        assert printed == want, (text, py, env)
    names = sorted(env)
    if p.term.is_bool:
        cond = p.as_condition()
        at = [env[n] for n in names]
        assert compile_check([cond], names)(*at) == holds(cond, env) == bool(want), (text, py, env)
        check, _ = compile_shared([cond, p.term, ir.mk_not(p.term)], names)
        expect = 0 if not holds(cond, env) else 1 if not holds(p.term, env) else 2 if not holds(ir.mk_not(p.term), env) else -1
        assert check(*at) == expect, (text, env)


def test_zero_divisor_in_a_branch_not_taken() -> None:
    t = parse_sympy("Piecewise((n//k, k > 5), (n//2, True)) >= 1").term
    assert compile_check([t], ["k", "n"])(0, 3) is True
    assert compile_shared([t], ["k", "n"])[0](0, 3) == -1
    both = parse_sympy("(n // k > 0) | (n // m > 0) | Eq(k, m)").term  # two operands that divide
    src = to_python(both)
    assert "_or(lambda" in src
    assert compile_check([both], ["k", "m", "n"])(0, 1, 3) is True and compile_check([both], ["k", "m", "n"])(0, 0, 3)
    assert compile_check([both], ["k", "m", "n"])(0, 2, 1) is False  # n//m == 0 and n//k undefined: undefined
