"""``multiples``: ``m | s`` derived from guards, named by the guards that imply it, and ``s = m*k``
substituted without changing a value (each claim checked by brute force on Python's integers).

* ``stated`` reads ``Eq(Mod(c*s, n), 0)`` and linear equalities: wherever the guard holds, ``m | s``;
* ``derive``'s multiples hold wherever their sources hold (the sources are the proof, not a guess);
* substituting ``s = m*k`` and rewriting under ``k``'s range gives, at every ``k``, the value of
  the term at ``s = m*k`` — the quotient-of-quotient factors of the Hiera class included.
"""

from __future__ import annotations

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symguard.solver import load_problem
from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import evaluate, holds
from symguard.solver.reason import multiples, multivariate, rewrite


def _term(text: str) -> ir.Term:
    return load_problem({"queries": [text], "options": {"default_min": None}}).queries[0].term


def _holds(t: ir.Term, pt: dict[str, int]) -> bool | None:
    """``t`` at ``pt``; None where a divisor is zero (no point of the problem: divisors are non-zero)."""
    try:
        return holds(t, pt)
    except ZeroDivisionError:
        return None


def test_stated_reads_divisibility_and_linear_equalities() -> None:
    assert multiples.stated(_term("Eq(Mod(x, 8), 0)")) == ("x", 8)
    assert multiples.stated(_term("Eq(Mod(6*x, 8), 0)")) == ("x", 4)
    assert multiples.stated(_term("Eq(x, 4*y)")) == ("x", 4)
    assert multiples.stated(_term("Eq(3*x, 12*y + 6)")) == ("x", 2)
    assert multiples.stated(_term("Eq(Mod(x, 8), 1)")) is None
    assert multiples.stated(_term("Eq(x, 4*y + 1)")) is None
    assert multiples.stated(_term("x >= 8")) is None


@given(st.sampled_from(["Eq(Mod({a}*x + {b}, {n}), 0)", "Eq({a}*x + {b}*y + {c}, 0)", "Eq({a}*x, {b}*y)"]),
       st.integers(-6, 6), st.integers(-12, 12), st.integers(-12, 12), st.integers(1, 12))
def test_stated_multiples_hold_wherever_the_guard_does(form: str, a: int, b: int, c: int, n: int) -> None:
    t = _term(form.format(a=a, b=b, c=c, n=n))
    got = multiples.stated(t)
    if got is None:
        return
    s, m = got
    assert m > 1
    for x, y in itertools.product(range(-30, 31), range(-12, 13)):
        if _holds(t, {"x": x, "y": y}):
            assert {"x": x, "y": y}[s] % m == 0, (str(t), got, x, y)


# facts of the kinds a mask-unit unroll emits: ceil == floor of a quotient (one size or a product of
# two), the self-quotient chain ``Mod(x//a, x//(2a)) == 0``, lower bounds, and distractors
FACTS = [
    "Eq(((x - 1)//4 + 1)*((y - 1)//4 + 1), (x//4)*(y//4))",
    "Eq((x - 1)//{a} + 1, x//{a})",
    "Eq(Mod(x//{a}, x//{b}), 0)",
    "Eq(Mod(y//{a}, y//{b}), 0)",
    "x >= {c}",
    "y >= {c}",
    "1 < x//{a}",
    "Eq(Mod(x, {a}), 0)",
    "Ne(x, {c})",
    "x + y >= {c}",
    "Eq(x//({a}*(x//{b})), 2)",
]


@st.composite
def fact_sets(draw: st.DrawFn) -> list[str]:
    out = []
    for form in draw(st.lists(st.sampled_from(FACTS), min_size=1, max_size=6)):
        a = draw(st.sampled_from([2, 4, 8]))
        out.append(form.format(a=a, b=2 * a, c=draw(st.integers(2, 40))))
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fact_sets())
def test_derived_multiples_hold_wherever_their_sources_do(texts: list[str]) -> None:
    terms = [_term(t) for t in texts]
    facts = [multiples.Fact(t, frozenset((j,))) for j, t in enumerate(terms)]
    got = multiples.derive(facts, {"x": (2, None), "y": (2, None)}, {"x": 64, "y": 96}, multivariate.Memo())
    for s, (m, src) in got.items():
        assert m > 1 and src <= set(range(len(terms)))
        for x, y in itertools.product(range(2, 90), range(2, 40)):
            pt = {"x": x, "y": y}
            if all(_holds(terms[j], pt) for j in src):
                assert pt[s] % m == 0, (texts, s, m, sorted(src), pt)


def test_the_hiera_chain_climbs_to_32_with_its_own_guards() -> None:
    texts = ["Eq(((x - 1)//4 + 1)*((y - 1)//4 + 1), (x//4)*(y//4))", "Eq(Mod(x//4, x//8), 0)",
             "Eq(Mod(x//8, x//16), 0)", "Eq(Mod(x//16, x//32), 0)", "1 < x//32", "y >= 8",
             "Ne(x, 100)", "x + y >= 3"]
    facts = [multiples.Fact(_term(t), frozenset((j,))) for j, t in enumerate(texts)]
    got = multiples.derive(facts, {"x": (2, None), "y": (2, None)}, {"x": 96, "y": 160}, multivariate.Memo())
    m, src = got["x"]
    assert m == 32
    assert src == {0, 1, 2, 3, 4}  # the chain (the product forces y >= 4 itself), not the distractors
    assert got["y"][0] == 4


# terms over x of the Hiera kind: quotients by literals and by x's own quotients, products, Mod
@st.composite
def hiera_terms(draw: st.DrawFn) -> str:
    def factor() -> str:
        c = draw(st.sampled_from([1, 2, 4, 8, 16]))
        d = draw(st.sampled_from([2, 4, 8, 16, 32]))
        return draw(st.sampled_from([f"(x//({c}*(x//{d})))", f"(x//{d})", f"Mod(x, {d})",
                                     f"((x - 1)//{d} + 1)", f"Mod(x//{c}, x//{d})", "x"]))
    parts = [factor() for _ in range(draw(st.integers(1, 4)))]
    return draw(st.sampled_from(["*", " + "])).join(parts)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hiera_terms(), st.sampled_from([2, 4, 8, 16, 32]), st.integers(1, 6))
def test_substituted_and_rewritten_agrees_with_every_multiple(text: str, m: int, lo: int) -> None:
    t = _term(text)
    mult: multiples.Multiples = {"x": (m, frozenset())}
    ranges = multiples.ranges_of({"x": (lo * m, 40 * m)}, mult)
    k = multiples.k_name("x")
    assert ranges[k] == (lo, 40)
    r = rewrite.Rewriter(rewrite.Env(ranges)).rewrite(multiples.substitute(t, mult))
    assert "x" not in ir.symbols_of(r)
    for kv in range(lo, 41):
        try:
            want = evaluate(t, {"x": m * kv})
        except ZeroDivisionError:
            continue  # not a point: every divisor is non-zero
        assert evaluate(r, {k: kv}) == want, (text, m, kv, str(r))


def test_a_quotient_by_its_own_quotient_is_a_literal_on_multiples() -> None:
    mult: multiples.Multiples = {"x": (32, frozenset())}
    env = rewrite.Env(multiples.ranges_of({"x": (32, None)}, mult))
    for text, want in [("x//(8*(x//16))", 2), ("x//(16*(x//32))", 2), ("Mod(x//4, x//8)", 0),
                       ("((x - 1)//4 + 1) - x//4", 0)]:
        assert rewrite.Rewriter(env).rewrite(multiples.substitute(_term(text), mult)) == ir.mk_int(want), text
