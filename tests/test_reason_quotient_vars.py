"""``reason.quotient_vars``: a size seen only through ``(s + a)//b`` replaced by its quotient.

Property tests: the map ``s -> (s + r)//b`` is onto its image range and ``preimage`` inverts it;
a substituted term equals the original at every point; the premise is refused where ``s``
appears outside the chain. Then a differential of ``redundancy`` against Python's evaluation on
small boxes (SAM2's padded-window shape, generated), and the padded family decided end to end.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symguard.solver import load_problem, run
from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import holds, value
from symguard.solver.ops import redundancy as red
from symguard.solver.reason import quotient_vars as qv
from tests.test_redundancy_hiera import check_verdicts, hiera


@given(st.integers(-40, 40), st.integers(0, 60), st.integers(2, 9), st.integers(-20, 20))
def test_onto_the_image_range(lo: int, width: int, b: int, a: int) -> None:
    chain = (b, a % b)
    hi = lo + width
    ulo, uhi, _ = qv.image(lo, hi, None, chain)
    assert {(s + a % b) // b for s in range(lo, hi + 1)} == set(range(ulo, uhi + 1))  # type: ignore[arg-type]
    for u in range(ulo, uhi + 1):  # type: ignore[arg-type]
        s = qv.preimage(u, chain)
        assert (s + a % b) // b == u


def _padded(s: str, b: int, a: int, k: int) -> str:
    """SAM2's shape: ``q = (s + a)//b``, then ``q + 1`` rounded up to a multiple of ``k``."""
    q = f"(({s} + {a})//{b})"
    return f"({q} + PythonMod(-{q} - 1, {k}) + 1)"


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6), st.integers(-7, 7), st.integers(2, 5), st.integers(1, 5), st.integers(1, 3))
def test_substitution_keeps_every_value(b: int, a: int, k: int, c: int, t: int) -> None:
    text = f"Eq(Mod({c}*{_padded('s', b, a, k)}*t, {_padded('s', b, a + b, k)}//{k} + t), 0)"
    doc = {"symbols": {"s": {"min": 1}, "t": {"min": 1}}, "guards": [text]}
    g = load_problem(doc).guards[0].term
    assert g is not None
    found = qv.chains([g])
    assert found == {"s": (b, a % b)}
    new = qv.substitute(g, found)
    for s in range(-10, 40):
        u = (s + a % b) // b
        assert holds(new, {"s": u, "t": t}) == holds(g, {"s": s, "t": t})


def test_premise_refused_outside_the_chain() -> None:
    doc = {"symbols": {"s": {"min": 1}, "t": {"min": 1}},
           "guards": ["Eq((s - 1)//4 + 1, 4*(((s - 1)//4 + 1)//4))", "s + t >= 9",
                      "Eq((t + 1)//4, (t + 5)//3)", "(t - 2)//6 >= 1"]}
    terms = [c.term for c in load_problem(doc).guards if c.term is not None]
    assert qv.chains(terms[:1]) == {"s": (4, 3)}
    assert qv.chains(terms) == {}  # s bare in the second; t under two divisors
    assert qv.chains(terms[3:]) == {"t": (6, 4)}


def test_nested_chains_are_substituted_in_rounds() -> None:
    doc = {"symbols": {"s": {"min": 2, "max": 401, "hint": 61}},
           "guards": ["((s - 1)//4 - 1)//2 >= 3", "Eq(((s - 1)//4 + 1)//2, 5)"]}
    p = load_problem(doc)
    new, applied = qv.substituted(p)
    assert applied == {"s": [(4, 3), (2, 0)]}  # (u - 2)//2 and u//2, u = ceil(s/4)
    sym = new.symbol("s")
    assert (sym.lo, sym.hi, sym.hint) == (((2 + 3) // 4) // 2, ((401 + 3) // 4) // 2, ((61 + 3) // 4) // 2)
    olds = [c.term for c in p.guards]
    news = [c.term for c in new.guards]
    for s in range(2, 402):
        u = ((s + 3) // 4) // 2
        assert [holds(t, {"s": s}) for t in olds] == [holds(t, {"s": u}) for t in news]  # type: ignore[arg-type]


def sam2(n: int, k: int, pad: int, top: int = 9) -> dict[str, Any]:
    """Sizes seen through ``ceil(s/4)`` only, padded to a multiple of ``pad``: ``ceil`` stated a
    multiple of ``pad`` (as the trace does), products of the padded count by its own quotients
    (constants only where it holds), pooled sizes, a Mod and an Or-guard."""
    syms = [f"s{i}" for i in range(n)]
    symbols: dict[str, Any] = {s: {"min": 2, "max": 4 * pad * top, "hint": 4 * pad * (2 + i) - 3} for i, s in enumerate(syms)}
    symbols["b"] = {"min": 1, "max": 4, "hint": 2}
    guards: list[str] = []
    for s in syms:
        c = f"(({s} - 1)//4 + 1)"
        padded = _padded(s, 4, -1, pad)
        pooled = f"(((({s} - 1)//4) - 1)//2 + 1)"
        guards += [f"Eq({c}, {pad}*({c}//{pad}))", f"{c} >= {2 * pad}",
                   f"Eq(b*{padded}//({pad // 2}*({padded}//{pad})), 2*b)",
                   f"Eq(Mod({padded}*{k}, {padded}//{pad}), 0)",
                   f"Ne({padded}//({padded}//{pad}), {pad + 1})",
                   f"Eq({pooled}, {padded}//2) | ({pooled} > 1000)",
                   f"Ne({padded}, {pad * 5})"]
    if n > 1:
        guards.append(f"{' + '.join(f'(({s} - 1)//4)' for s in syms)} >= {3 * pad}")
    return {"symbols": symbols, "guards": guards, "options": {"timeout_ms": 60_000}}


def _check_on_box(doc: dict[str, Any]) -> dict[str, Any]:
    """Every verdict against Python on the whole (small) box (``check_verdicts``)."""
    res = run("redundancy", doc)
    assert res["status"] == "sat"
    p = load_problem(doc)
    syms = [s.name for s in p.symbols]
    axes = [range(s.lo, s.hi + 1) for s in p.symbols]  # type: ignore[arg-type, operator]
    pts = [dict(zip(syms, v)) for v in itertools.product(*axes)]
    check_verdicts(res, {g.id: g.term for g in p.guards}, pts, required=True)
    return res


def test_padded_sizes_decided_and_sound_on_a_box() -> None:
    res = _check_on_box(sam2(1, 3, 4))
    assert all(g["verdict"] != "unknown" for g in res["guards"]), res["guards"]
    assert res["stats"]["levers"]["multiples"] > 0, res["stats"]


def test_two_padded_sizes_sound_on_a_box() -> None:
    res = _check_on_box(sam2(2, 2, 4, top=4))
    assert all(g["verdict"] != "unknown" for g in res["guards"]), res["guards"]


def test_same_verdicts_with_the_lever_off_where_both_decide(monkeypatch: Any) -> None:
    """The substitution only changes what the levers see: where the plain run decides a guard,
    the substituted run gives the same verdict (both are the truth on the box)."""
    doc = sam2(1, 3, 4)
    on = run("redundancy", doc)
    monkeypatch.setattr(red, "QUOTIENT_VARS", False)
    off = run("redundancy", doc)
    for a, b in zip(on["guards"], off["guards"]):
        if "unknown" not in (a["verdict"], b["verdict"]) and {a["verdict"], b["verdict"]} != {"redundant", "required"}:
            assert (a["verdict"] == "always_true") == (b["verdict"] == "always_true"), (a, b)


def test_value_of_a_substituted_quotient() -> None:
    s = ir.mk_sym("s")
    t = ir.mk_floordiv(ir.mk_add(s, ir.mk_int(-1)), ir.mk_int(4))
    new = qv.substitute(t, {"s": (4, 3)})
    assert all(value(new, {"s": (x + 3) // 4}) == (x - 1) // 4 for x in range(-9, 30))


def padded_hiera(n: int, m: int, how: str) -> dict[str, Any]:
    """The Hiera family (``test_redundancy_hiera.hiera``) with each size ``s`` seen only as
    ``ceil(s/4) = (s - 1)//4 + 1``, unbounded above: the multiple property is on the quotient."""
    doc = hiera(n, m, how)
    syms = [s for s in doc["symbols"] if s.startswith("s")]
    pat = re.compile(r"\b(" + "|".join(syms) + r")\b")
    guards = [pat.sub(lambda x: f"(({x.group(1)} - 1)//4 + 1)", g) for g in doc["guards"]]
    symbols = {s: ({"min": 2, "hint": 4 * v["hint"] - 3} if s in syms else v) for s, v in doc["symbols"].items()}
    return {**doc, "symbols": symbols, "guards": guards}


PADDED = [pytest.param(n, m, how, id=f"{n}sym-m{m}-{how}") for n, m, how in [(1, 16, "chain"), (2, 16, "chain"), (1, 32, "mod"),
                                                                              (2, 32, "chain"), (3, 8, "chain")]]


@pytest.mark.parametrize(("n", "m", "how"), PADDED)
def test_padded_hiera_decided(n: int, m: int, how: str) -> None:
    res = run("redundancy", padded_hiera(n, m, how))
    assert res["status"] == "sat"
    assert all(g["verdict"] != "unknown" for g in res["guards"]), res["guards"]
    assert res["stats"]["levers"]["multiples"] > 0, res["stats"]


@pytest.mark.parametrize(("n", "m", "how"), [(1, 16, "chain"), (2, 8, "chain")])
def test_padded_hiera_sound_on_a_box(n: int, m: int, how: str) -> None:
    """Brute force over sizes whose ``ceil(s/4)`` runs over multiples and non-multiples of ``m``
    (both ends of each quotient's preimage): redundant guards hold where their ``implied_by`` do."""
    doc = padded_hiera(n, m, how)
    res = run("redundancy", doc)
    terms = {g.id: g.term for g in load_problem(doc).guards}
    syms = sorted(doc["symbols"])
    cs = sorted(set(range(m, 7 * m, 7)) | set(range(m, 7 * m, m // 2)))
    sizes = sorted({4 * c - 3 for c in cs} | {4 * c for c in cs})
    pts = [dict(zip(syms, v)) for v in itertools.product(*[sizes] * len(syms))]
    check_verdicts(res, terms, pts, required=False)  # a sample of the sizes: no required check


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 4), st.lists(st.tuples(st.integers(1, 4), st.integers(-9, 9)), min_size=1, max_size=4),
       st.integers(0, 3))
def test_divisors_through_their_gcd(g: int, parts: list[tuple[int, int]], r: int) -> None:
    """Quotients ``(s + a)//(k*g)`` with ``a = r (mod g)``: one symbol ``u = (s + r)//g`` for all
    of them (``(s + a)//(k*g) = (u + (a - r)/g)//k``), value-equal at every ``s``."""
    r %= g
    quots = [f"((s + {a * g + r})//{k * g})" for k, a in parts]
    doc = {"symbols": {"s": {"min": 1}}, "guards": [f"Eq({' + 2*'.join(quots)}, 7)", f"{quots[0]} >= 3"]}
    gs = [c.term for c in load_problem(doc).guards]
    found = qv.chains(gs)  # type: ignore[arg-type]
    b = found["s"][0]  # g itself qualifies; a larger divisor of every k*g may too
    assert b >= g
    news = [qv.substitute(t, found) for t in gs]  # type: ignore[arg-type]
    for s in range(-20, 60):
        u = (s + found["s"][1]) // b
        assert [holds(t, {"s": u}) for t in news] == [holds(t, {"s": s}) for t in gs]  # type: ignore[arg-type]


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 6), st.integers(-7, 7), st.integers(-12, 30), st.sampled_from([">=", "<=", ">", "<"]),
       st.integers(1, 3))
def test_bare_bounds_on_a_fiber_edge_become_bounds_on_the_quotient(b: int, a: int, t: int, op: str, c: int) -> None:
    """``c*s op t`` beside ``(s + a)//b``: where the bound cuts between two quotients it is kept as
    a bound on ``u`` (same value at every point), anywhere else the premise is refused."""
    text = f"({c}*s {op} {t}) | Eq(Mod((s + {a})//{b}, 3), 1)"
    g = load_problem({"symbols": {"s": {}}, "guards": [text]}).guards[0].term
    assert g is not None
    found = qv.chains([g])
    r = a % b
    values = range(-40, 60)
    truth = {s: holds(g, {"s": s}) for s in values}
    fibers: dict[int, set[bool | None]] = {}
    for s in values:
        fibers.setdefault((s + r) // b, set()).add(truth[s])
    inner = [u for u in fibers if (u - 1) * b - r >= values.start and (u + 1) * b - r < values.stop]
    if all(len(fibers[u]) == 1 for u in inner) and "s" not in found:
        # a bound that is a function of u may still be refused (a coefficient c > 1 whose
        # threshold falls on a fiber edge only after rounding): refusing is always sound
        return
    if "s" in found:
        new = qv.substitute(g, found)
        for s in values:
            assert holds(new, {"s": (s + r) // b}) == truth[s], s


def test_bare_bound_on_an_edge_kept_and_off_an_edge_refused() -> None:
    def found(text: str) -> dict[str, Any]:
        g = load_problem({"symbols": {"s": {"min": 2}}, "guards": [text]}).guards[0].term
        return qv.chains([g])

    assert found("(s >= 5) & Ne(s//5, 3) & Eq(Mod(s//10, 2), 0)") == {"s": (5, 0)}  # RF-DETR's s >= 5
    assert found("(s <= 14) & Ne(s//5, 3)") == {"s": (5, 0)}  # 14 is the last of the fiber 10..14
    assert found("(s >= 6) & Ne(s//5, 3)") == {}  # 6 splits the fiber 5..9
    assert found("Eq(s, 10) & Ne(s//5, 3)") == {}  # an equality pins a point inside a fiber
