"""Regression guard for the held-out-style synthetic classes (``bench/gen_synthetic.py --kind
modlattice|nestmaxmin``, issue 33): residue lattices over several symbols and nests of Max/Min
keep their unknown count, and on a box every point of the minimal set satisfies every guard
(what was dropped is implied, brute force)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from symguard.solver import load_problem, run
from symguard.solver.ir.pyeval import holds

SYNTHETIC = Path(__file__).resolve().parent.parent / "smt2_corpus" / "synthetic"
# unknown guards at the default effort when the residue search (reason.residues) and the Max/Min
# split (reason.extremes) came in (before them: 34, 7 and 21); the nested Max/Min set 10 -> 1 with
# the relaxed linear regions (reason.regions)
UNKNOWN = {"held_modlattice_11": 0, "held_modlattice_22": 0, "held_nestmaxmin_12": 1}


@pytest.mark.parametrize("name", sorted(UNKNOWN))
def test_unknown_count_and_implied_drops(name: str) -> None:
    doc = json.loads((SYNTHETIC / f"{name}.json").read_text())
    res = run("redundancy", doc)
    unknown = sum(g["verdict"] == "unknown" for g in res["guards"])
    assert unknown <= UNKNOWN[name]
    p = load_problem(doc)
    ids = [g["id"] for g in res["guards"]]
    kept = [p.guards[ids.index(k)].term for k in res["minimal"]]
    every = [c.term for c in p.guards]
    names = [s.name for s in p.symbols]
    hint = {s.name: s.hint for s in p.symbols}
    # a box around the hints, a few symbols moved at a time (the whole box is too large)
    moves = range(-6, 7)
    for moved in itertools.combinations(names, min(2, len(names))):
        for delta in itertools.product(moves, repeat=len(moved)):
            pt = {**hint, **{s: hint[s] + d for s, d in zip(moved, delta)}}
            if all(v >= 2 for v in pt.values()) and all(holds(t, pt) for t in kept):  # type: ignore[arg-type]
                assert all(holds(t, pt) for t in every), (name, pt)  # type: ignore[arg-type]


def test_a_residue_point_outside_the_asserts_proves_nothing() -> None:
    """``s*s`` in [400, 700] leaves ``s = 24`` among the multiples of 8: ``Mod(s, 3) == 0`` follows.
    The residue search (which leaves the non-periodic assert out) meets ``s = 16`` and ``s = 32``,
    outside the assert: neither may make the guard ``required``."""
    doc = {"symbols": {"s": {"min": 2, "hint": 24}}, "asserts": ["s*s >= 400", "s*s <= 700"],
           "guards": ["Eq(Mod(s, 8), 0)", "Eq(Mod(s, 3), 0)"]}
    res = run("redundancy", doc)
    assert res["guards"][1]["verdict"] in ("always_true", "redundant")


def test_more_effort_never_decides_less_on_nests() -> None:
    """The region search runs before z3 with counted work of its own: a larger effort only adds
    z3 verdicts, so the guards left unknown shrink as the effort grows."""
    doc = json.loads((SYNTHETIC / "held_nestmaxmin_12.json").read_text())
    unknown: list[set[str]] = []
    for effort in (1, 100_000, 6_000_000):
        res = run("redundancy", {**doc, "options": {"timeout_ms": 600_000, "effort": effort}})
        unknown.append({g["id"] for g in res["guards"] if g["verdict"] == "unknown"})
    assert unknown[2] <= unknown[1] <= unknown[0], unknown
