"""``reason.boxes`` against brute force: the contracted box holds every point of the ranges that
satisfies the facts (ranges with negatives and zero, and unbounded ones the facts close), the
facts it names as sources give the same box, and ``decide`` proves only true implications, from
the facts it names, and offers only real counterexamples. Then the class it is for (issue 33):
sizes pinned by quotient equalities (``Eq(2*(a//10), 10)``) and a windowed product, through
``redundancy``, every verdict checked on a box of sizes."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from guard_grammar import conds
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symguard.solver import load_problem, run
from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import holds
from symguard.solver.ops import redundancy
from symguard.solver.reason import boxes
from symguard.solver.reason.meter import Meter

WINDOW = range(-12, 13)  # where an unbounded side is brute-forced


def _facts(strs: list[str], names: list[str]) -> list[tuple[ir.Term, int]]:
    doc = {"symbols": {x: {} for x in names}, "guards": strs, "options": {"on_unsupported": "skip"}}
    return [(g.term, k) for k, g in enumerate(load_problem(doc).guards) if g.term is not None]


@st.composite
def problems(draw: st.DrawFn) -> tuple[list[str], dict[str, tuple[int | None, int | None]], list[str]]:
    names = ["x", "y"]
    ranges: dict[str, tuple[int | None, int | None]] = {}
    for x in names:
        lo = draw(st.integers(-6, 4))
        hi = lo + draw(st.integers(0, 8))
        ranges[x] = (draw(st.sampled_from([lo, None])), draw(st.sampled_from([hi, None])))
    pins = st.builds(lambda x, d, c, k: f"Eq({c}*({x}//{d}), {k})", st.sampled_from(names),
                     st.integers(1, 4), st.integers(1, 3), st.integers(-3, 4))
    facts = draw(st.lists(st.one_of(conds(names), pins), min_size=1, max_size=4))
    return names, ranges, facts


def _points(names: list[str], ranges: dict[str, tuple[int | None, int | None]]) -> list[dict[str, int]]:
    axes = [range(WINDOW.start if lo is None else lo, (WINDOW.stop - 1 if hi is None else hi) + 1)
            for lo, hi in (ranges[x] for x in names)]
    return [dict(zip(names, p)) for p in itertools.product(*axes)]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_box_holds_every_point_of_the_facts(prob: Any) -> None:
    names, ranges, strs = prob
    facts = _facts(strs, names)
    box = boxes.contract(facts, ranges, Meter(100_000))
    sols = [p for p in _points(names, ranges) if all(holds(t, p) for t, _ in facts)]
    if box is None:
        return
    for p in sols:
        for x, dom in box.domains.items():
            assert p[x] in dom, (strs, ranges, p, box.domains)
    # the sources alone give a box that still holds every point of all the facts (it is theirs)
    named = [(t, s) for t, s in facts if s in box.used]
    small = boxes.contract(named, ranges, Meter(100_000))
    if small is not None:
        for p in (p for p in _points(names, ranges) if all(holds(t, p) for t, _ in named)):
            for x, dom in small.domains.items():
                assert p[x] in dom


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), conds(["x", "y"]))
def test_decide_agrees_with_brute_force(prob: Any, goal_str: str) -> None:
    names, ranges, strs = prob
    facts = _facts(strs, names)
    goal = _facts([goal_str], names)
    if not goal:
        return
    g = goal[0][0]
    box = boxes.contract(facts, ranges, Meter(100_000))
    if box is None:
        return
    pts = _points(names, ranges)
    offered: list[dict[str, int]] = []

    def accept(pt: dict[str, int]) -> bool:
        offered.append(pt)
        full = {x: pt.get(x, 0) for x in names}
        return len(pt) == len(names) and all(holds(t, full) for t, _ in facts) and not holds(g, full)

    got = box.decide(g, facts, Meter(100_000), accept)
    if got is None:
        return
    found, srcs = got
    if found:
        assert offered and accept(offered[-1])
        return
    premises = [t for t, s in facts if s in srcs]
    for p in pts:  # implied by the facts it names, wherever those hold in the ranges
        if all(holds(t, p) for t in premises):
            assert holds(g, p), (strs, goal_str, ranges, p, srcs)


def test_an_unbounded_size_pinned_by_its_quotient() -> None:
    facts = _facts(["Eq(2*((a//10)), 10)", "Eq(((a//5))*b, 20)"], ["a", "b"])
    box = boxes.contract(facts, {"a": (2, None), "b": (1, None)}, Meter(100_000))
    assert box is not None
    assert box.domains["a"] == tuple(range(50, 55))  # a//5 == 10 (b == 2), not 11
    assert box.domains["b"] == (2,)
    assert box.used == {0, 1}


def test_an_assert_excludes_points_but_is_named_by_no_proof() -> None:
    # asserts are premises of every check (source -1): a proof names the guards only
    pin, hole = _facts(["Eq(2*((a//10)), 10)", "Ne(a, 57)"], ["a"])
    facts = [pin, (hole[0], -1)]
    box = boxes.contract(facts, {"a": (2, None)}, Meter(100_000))
    assert box is not None and box.domains["a"] == tuple(range(50, 60))
    goal = _facts(["Ne(Mod(a, ((a//10)) + 52), 0)"], ["a"])[0][0]  # fails at a = 57 alone
    assert box.decide(goal, facts, Meter(100_000), lambda pt: False) == (False, [0])


def test_nothing_finite_costs_one_step_per_fact() -> None:
    facts = _facts(["a >= 5", "Ne(Mod(a, 3), 0)"], ["a"])
    meter = Meter(1_000)
    assert boxes.contract(facts, {"a": (2, None)}, meter) is None
    assert meter.left >= 1_000 - 2 * boxes.ROUNDS * boxes.FACT_ROUNDS



def test_a_fact_is_narrowed_again_only_when_its_symbols_moved() -> None:
    # the pins on a and b narrow over several rounds; 40 bounds on c narrow nothing after their
    # first step, so they cost one step each, not one per round (AC-3: HC4's work follows the moves)
    pins = ["Eq(2*((a//10)), 10)", "Eq(((a//5))*b, 20)"]
    ranges: dict[str, tuple[int | None, int | None]] = {"a": (2, None), "b": (1, None), "c": (0, 100)}

    def spent(strs: list[str]) -> int:
        meter = Meter(100_000)
        box = boxes.contract(_facts(strs, ["a", "b", "c"]), ranges, meter)
        assert box is not None and box.domains["b"] == (2,)
        return 100_000 - meter.left
    bounds = [f"c + {k} >= {k + 5}" for k in range(40)]
    assert spent(pins + bounds) - spent(pins) <= len(bounds) + boxes.FACT_ROUNDS


def test_the_lever_takes_divisions_by_sizes_only() -> None:
    def term(s: str) -> ir.Term:
        return _facts([s], ["a", "b", "s"])[0][0]
    assert redundancy._size_divisor(term("Eq(Mod(16*a*((s//5)), 4*a*((s//10))), 0)"))
    assert redundancy._size_divisor(term("a//(2*((s//10))) >= 3"))
    assert not redundancy._size_divisor(term("Eq(Mod(a*b + 3, 48), 0)"))  # the residue levers' class
    assert not redundancy._size_divisor(term("(a*b + 1)//3 <= 1091"))


# the class: a windowed backbone over two sizes h, w (patch p, windows of 2 x 2), a batch b that
# appears only as a positive factor; two kept guards pin h//10 and the window count of w
def _q(s: str, d: int) -> str:
    return f"(({s})//{d})"


def windowed(h_pin: int, w_pin: int, *, bounded: bool) -> dict[str, Any]:
    hw = f"((({_q('w', 5)})*({_q('h', 10)}))//(2*{_q('w', 10)}))"
    win = f"((({_q('w', 10)})*{hw})//({_q('h', 10)}))"
    hi = {"max": 1024} if bounded else {}
    guards = [
        f"Eq(2*{_q('h', 10)}, {2 * h_pin})",
        f"Eq(2*{win}, {2 * w_pin})",
        f"Eq(Mod({_q('h', 5)}, 2), 0)",
        f"Ne({_q('w', 10)}, {_q('h', 10)})",
        f"Eq(Mod({_q('w', 5)}*{_q('h', 10)}, {_q('w', 10)}), 0)",
        f"Eq({_q('h', 10)}, {hw})",
        f"Eq(((4*{_q('w', 5)}*{_q('h', 5)})//({_q('w', 10)}*{_q('h', 10)})), 16)",
        f"64*b*{_q('w', 10)}*{hw} >= 2",
        f"Ne({hw}, 1)",
        f"Eq(Mod(b*{_q('w', 5)}*{_q('h', 5)}, b*{_q('w', 10)}*{_q('h', 10)}), 0)",
        f"Ne({_q('w', 10)}*{hw}, {2 * h_pin})",
        f"b*{_q('w', 10)} < {8 * w_pin}",
    ]
    return {"symbols": {"b": {"min": 2, "max": 64, "hint": 2}, "h": {"min": 16, **hi, "hint": 10 * h_pin + 3},
                        "w": {"min": 16, **hi, "hint": 10 * w_pin + 1}},
            "guards": guards, "options": {"timeout_ms": 60_000}}


CASES = [pytest.param(h, w, bounded, id=f"{h}x{w}-{'bounded' if bounded else 'open'}")
         for h, w, bounded in [(5, 7, True), (5, 7, False), (3, 4, True), (6, 8, False)]]


@pytest.mark.parametrize(("h", "w", "bounded"), CASES)
def test_windowed_sizes_decided_on_their_box(h: int, w: int, bounded: bool) -> None:
    _decided_on_points(windowed(h, w, bounded=bounded), h, w)


def test_a_pin_stated_as_an_assert() -> None:
    # the asserts narrow the box and exclude failing points like the guards, named by no proof
    doc = windowed(5, 7, bounded=False)
    doc["asserts"], doc["guards"] = doc["guards"][:2], doc["guards"][2:]
    _decided_on_points(doc, 5, 7)


def _decided_on_points(doc: dict[str, Any], h: int, w: int) -> None:
    res = run("redundancy", doc)
    assert res["status"] == "sat"
    p = load_problem(doc)
    terms = {g.id: g.term for g in p.guards}
    asserts = [a.term for a in p.asserts]
    kept = [terms[i] for i in res["minimal"]]
    # every point of a box of sizes around the pinned values where the asserts hold: the minimal
    # set holds exactly where the whole set does, and each redundant guard's implied_by implies it
    pts = [pt for pt in ({"b": b, "h": hh, "w": ww} for b in (2, 3, 7, 64)
                         for hh in range(16, 10 * h + 40) for ww in range(16, 10 * w + 40))
           if all(holds(t, pt) for t in asserts)]
    for pt in pts:
        whole = all(holds(t, pt) for t in terms.values())
        assert whole == all(holds(t, pt) for t in kept), pt
    for g in res["guards"]:
        if g["verdict"] == "redundant":
            prem = [terms[j] for j in g["implied_by"]]
            for pt in pts:
                if all(holds(t, pt) for t in prem):
                    assert holds(terms[g["id"]], pt), (g, pt)
    assert not any(g["verdict"] == "unknown" for g in res["guards"])
    assert res["stats"]["levers"]["boxes"] > 0  # decided here by the box (z3 leaves some open)
