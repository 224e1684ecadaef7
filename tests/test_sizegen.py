"""symguard reads PyTorch-like size arithmetic (``tests/sizegen.py``) with the meaning the formulas
have: every generated string parses, and its Python evaluation agrees with the generator's own
evaluator (written from the formula, not from the string) on sampled points; a few go through
the SMT path (``evaluate`` with every symbol pinned) too."""

from __future__ import annotations

from typing import Any

import sizegen as sg
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symguard.solver import load_problem, run

# the one internal import: the reference evaluator (no top-level name for it)
from symguard.solver.ir.pyeval import evaluate, holds

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _value(f: Any, env: dict[str, int]) -> Any:
    """``f(env)``, or ZeroDivisionError itself when a divisor is zero (both sides must agree)."""
    try:
        return f(env)
    except ZeroDivisionError:
        return ZeroDivisionError


def _symguard(term: Any, env: dict[str, int]) -> Any:
    return _value(lambda v: evaluate(term, v), env)


def _problem(symbols: dict[str, tuple[int, int]], guards: list[str], queries: list[str],
             hint: dict[str, int]) -> dict[str, Any]:
    return {"symbols": {n: {"min": lo, "max": hi, "hint": hint[n]} for n, (lo, hi) in symbols.items()},
            "guards": guards, "queries": queries}


@SETTINGS
@given(st.data())
def test_generated_sizes_parse_and_evaluate_like_the_formula(data: st.DataObject) -> None:
    symbols = data.draw(sg.symbol_sets())
    names = sorted(symbols)
    exprs = data.draw(st.lists(sg.size_exprs(names), min_size=1, max_size=3))
    guards = data.draw(st.lists(sg.guard_exprs(names), min_size=1, max_size=3))
    env = data.draw(sg.points(symbols))
    p = load_problem(_problem(symbols, [g.text for g in guards], [e.text for e in exprs], env))
    assert len(p.queries) == len(exprs) and len(p.guards) == len(guards)
    for q, e in zip(p.queries, exprs):
        assert not q.is_bool
        assert _symguard(q.term, env) == _value(e, env), (q.text, env)
    for c, g in zip(p.guards, guards):
        assert c.term is not None
        # a guard that divides by zero does not hold (docs/problem-format.md §1.2), and may already be False once parsed
        want = _value(g, env)
        assert holds(c.term, env) == (want is not ZeroDivisionError and want), (c.text, env)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_smt_evaluate_agrees_at_a_pinned_point(data: st.DataObject) -> None:
    """With every symbol pinned to one value, ``evaluate`` (translation to z3) gives the formula's
    value: the SMT encoding of each construct means what the formula means."""
    symbols = data.draw(sg.symbol_sets(max_symbols=2))
    names = sorted(symbols)
    e = data.draw(sg.size_exprs(names, max_steps=3))
    env = data.draw(sg.points(symbols))
    want = _value(e, env)
    if want is ZeroDivisionError:
        return
    pinned = {"symbols": {n: {"min": v, "max": v} for n, v in env.items()}, "queries": [e.text],
              "options": {"timeout_ms": 20_000}}
    q = run("evaluate", pinned)["queries"][0]
    assert q.get("value") == want, (e.text, env, q)


def test_known_pytorch_spellings() -> None:
    """Fixed points of the formulas, as PyTorch prints them on real models."""
    n = sg.sym("s0")
    env = {"s0": 45}
    cases = [
        (sg.conv_out(n, 7, 4, 3, 1), (45 + 6 - 6 - 1) // 4 + 1),           # SegFormer stem: 12
        (sg.pad_to_multiple(n, 7, "swin"), 49),                            # Swin window 7
        (sg.patch_merge(n), 23),
        (sg.tf_same_pad(n, 3, 2, 1, "ceiling"), 2),                        # odd size: k - n % s
        (sg.same_conv_out(n, 3, 2, 1, "CeilDiv"), 23),                     # ceil(45 / 2)
        (sg.pool_ceil_out(n, 3, 2, 1, "CeilDiv"), 23),
    ]
    for e, want in cases:
        assert e(env) == want, e.text
        q = load_problem({"queries": [e.text]}).queries[0]
        assert evaluate(q.term, env) == want, e.text


def test_pytorch2_ceil_spelling_parses() -> None:
    """PyTorch 2.x prints math.ceil(a / b) on sizes as CeilToInt(IntTrueDiv(a, b))."""
    e = sg.tf_same_pad(sg.sym("s0"), 3, 2, 1, "torch")
    q = load_problem({"queries": [e.text]}).queries[0]
    assert evaluate(q.term, {"s0": 45}) == e({"s0": 45})
