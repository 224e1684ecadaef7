"""``reason.repair``: a point the repair walk returns refutes for real (the guard fails there, every
other kept guard and every assert holds, the point is in the ranges), and its period steps keep
every residue they claim to keep."""

from __future__ import annotations

from typing import Any

from guard_grammar import Box, boxes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symguard.solver import load_problem
from symguard.solver.ir.pyeval import holds
from symguard.solver.reason import repair
from symguard.solver.reason.points import Pool


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(boxes(), st.data())
def test_a_repaired_point_refutes(doc: dict[str, Any], data: st.DataObject) -> None:
    box = Box(doc)
    terms = [c.term for c in box.p.guards]
    pool = Pool(box.p, terms)
    pool.seed_points(12)
    walker = repair.Repair(pool, [frozenset() if t is None else frozenset(_syms(t)) for t in terms])
    kept = data.draw(st.sets(st.integers(0, len(terms) - 1), min_size=1))
    mask = sum(1 << i for i in kept)
    for i in sorted(kept):
        pt = walker.find(i, mask, 200)
        if pt is None:
            continue
        assert not holds(terms[i], pt)
        assert all(holds(terms[j], pt) for j in kept if j != i)
        assert all(holds(a, pt) for a in box.asserts)
        for s in box.p.symbols:
            assert (s.lo is None or pt[s.name] >= s.lo) and (s.hi is None or pt[s.name] <= s.hi)


def _syms(t: Any) -> set[str]:
    from symguard.solver.ir import terms as ir
    return set(ir.symbols_of(t))


@given(st.sets(st.integers(1, 64), max_size=5), st.integers(-500, 500))
def test_period_steps_keep_every_residue(divisors: set[int], v: int) -> None:
    steps = repair.step_sizes(frozenset(divisors))
    period = max(steps)
    if all(period % d == 0 for d in divisors) and divisors:
        for d in divisors:
            assert (v + period) % d == v % d


def test_a_lattice_point_several_moves_away_is_found() -> None:
    """``s`` must leave its residue class mod 12 for the last guard to fail, while the first guard
    ties ``t`` to ``s``: one move on ``s`` and one on ``t`` (the pool's single moves do not)."""
    p = load_problem({"symbols": {"s": {"min": 2, "hint": 24}, "t": {"min": 2, "hint": 48}},
                      "guards": ["Eq(Mod(t, 8), 0)", "Eq(t, 2*s)", "Eq(Mod(s, 12), 0)"]})
    terms = [c.term for c in p.guards]
    pool = Pool(p, terms)
    pool.add({"s": 30, "t": 48})  # s left its class; Eq(t, 2*s) broken
    walker = repair.Repair(pool, [frozenset({"t"}), frozenset({"s", "t"}), frozenset({"s"})])
    pt = walker.find(2, 0b111, 400)
    assert pt is not None and pt["t"] == 2 * pt["s"] and pt["t"] % 8 == 0 and pt["s"] % 12
