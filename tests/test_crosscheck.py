"""Soundness cross-check (``bench/crosscheck.py``): symguard's verdicts and models re-decided by
cvc5 (an independent encoding and ours) and by brute force. Any disagreement is a bug.

Bounded for CI: cvc5 gets a short limit per check (its ``unknown`` is counted, never a failure),
corpus problems are brute-forced on a box of a few thousand points around their hints.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from crosscheck_gen import with_asserts
from hypothesis import HealthCheck, given, settings
from scripts import load_script
from small_problems import _dense, size_problems, small_problems

from symguard.solver import run

pytest.importorskip("cvc5", reason="the cross-check needs cvc5 (pip install cvc5)")



cc = load_script("bench/crosscheck.py")
# CI: the shared sample of real PyTorch guard sets and the hand-written examples (every construct,
# skipped guards, unsat cores); bench/crosscheck.py runs the whole corpus
CORPUS = [f for f in cc.corpus_files() if "corpus_sample" in f.parts or "examples" in f.parts]


CLIP_POINTS = 1000
# what crosscheck_problem asks symguard. cvc5 and brute force read the symbols, asserts, guards and
# the reading options, not a file's comments (``source``, ``description``) nor what evaluate,
# simplify and shrink add (``queries``, ``exprs``, ``inputs``); symguard may (evaluate_vit_patchify's
# queries change two ``implied_by`` lists of its redundancy answer), so its answers are compared
OPS = ("solve", "redundancy")
NOT_READ = ("source", "description", "queries", "exprs", "inputs")


def _distinct(files: list[Path]) -> dict[Path, list[Path]]:
    """The files grouped by the problem cvc5 and brute force re-decide: the same symbols, asserts,
    guards and reading options (only ``effort`` and ``objective`` may differ). A group is
    cross-checked once when symguard gives every file of it the very answers it gives the first
    (the test compares them); a file whose answers differ is cross-checked on its own."""
    out: dict[str, list[Path]] = {}
    for f in files:
        doc = cc.load_doc(f)
        if doc is None:
            key = f.name
        else:
            problem = {k: v for k, v in doc.items() if k not in NOT_READ}
            problem["options"] = {k: v for k, v in doc.get("options", {}).items() if k not in ("effort", "objective")}
            key = json.dumps(problem, sort_keys=True)
        out.setdefault(key, []).append(f)
    return {same[0]: same for same in out.values()}


DISTINCT = _distinct(CORPUS)


def _answers(path: Path) -> list[dict[str, Any]]:
    """symguard's answers the cross-check judges: both operations on the file's problem and on the
    box brute force clips it to (timing, cache and the canonical key set aside)."""
    doc = cc.load_doc(path)
    assert doc is not None
    clipped, _ = cc.clip(doc, CLIP_POINTS)
    return [{k: v for k, v in run(op, d).items() if k not in ("elapsed_ms", "cached", "key", "stats")}
            for d in (doc, clipped) for op in OPS]


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("path", list(DISTINCT), ids=["=".join(f.stem for f in DISTINCT[p]) for p in DISTINCT])
def test_corpus_agrees_with_cvc5_and_brute_force(path: Path) -> None:
    first = _answers(path) if len(DISTINCT[path]) > 1 else []
    checked = [path, *(f for f in DISTINCT[path][1:] if _answers(f) != first)]
    tally = cc.crosscheck_corpus(checked, encodings=("ref",), clip_points=CLIP_POINTS, timeout_ms=300)
    print("\n" + cc.table(tally))
    assert tally.disagreements == []
    assert tally.problems == len(checked) and sum(tally.checks.values()) > 0


def test_corpus_present() -> None:
    if not CORPUS:
        pytest.skip("shared/corpus_sample is not beside the repository")


@settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(with_asserts(small_problems(hints=True, timeout_ms=20000)))
def test_generated_problems_agree(case: Any) -> None:
    doc, boxes, oracle = case
    tally = cc.crosscheck_problem(doc, encodings=("ref", "ours"), brute=(boxes, oracle), timeout_ms=2000)
    assert tally.disagreements == [], (doc, tally.disagreements)


def test_reference_encoding_is_python_floor_semantics() -> None:
    """The second path's own encoding, pinned: x // y and x % y for every sign of y (cvc5, no z3)."""
    from symguard.solver import load_problem

    for x, y in [(7, 2), (-7, 2), (7, -2), (-7, -2), (0, -3), (6, 3), (-6, -3)]:
        doc = {"symbols": {"x": {"min": x, "max": x}, "y": {"min": y, "max": y}},
               "guards": [f"Eq(x // y, {x // y})", f"Eq(Mod(x, y), {x % y})", ("Eq(TruncDiv(x, y), "
                          f"{int(x / y)})"), f"Eq(CeilDiv(x, y), {-((-x) // y)})"]}
        c = cc.Cvc5(load_problem(doc))
        p = load_problem(doc)
        assert c.check([g.term for g in p.guards])[0] == "sat", (x, y)
        for g in p.guards:
            assert c.check([], negated=g.term)[0] == "unsat", (x, y, g.text)


def test_a_wrong_verdict_is_caught() -> None:
    """The checker is not vacuous: a forged 'redundant' verdict is reported by every path."""
    from symguard.solver import load_problem

    doc = {"symbols": {"s0": {"min": 0, "max": 20}}, "guards": ["s0 >= 4", "s0 >= 9"]}
    p = load_problem(doc)
    forged = {"status": "sat", "minimal": ["g0"], "guards": [
        {"id": "g0", "verdict": "required", "implied_by": []},
        {"id": "g1", "verdict": "redundant", "implied_by": ["g0"]}]}
    for path in (cc.Cvc5Path(doc, p, "ref", 2000), cc.BrutePath({"s0": (0, 20)},
                                                                lambda i, e: cc.py_holds(
                                                                    {g.id: g.term for g in p.guards}[i], e))):
        tally = cc.Tally()
        try:
            cc.check_redundancy(p, forged, path, tally)
        finally:
            if isinstance(path, cc.Cvc5Path):
                path.close()
        assert any("g1" in d for d in tally.disagreements), path.name


def test_every_corpus_folder_is_crosschecked() -> None:
    """A new folder under smt2_corpus/ (like validation/) is read by bench/crosscheck.py, twins too."""
    assert cc.unlisted_corpus_folders() == []
    files = cc.corpus_files()
    for folder in ("examples", "torch", "validation"):
        assert any(f.parent.name == folder and f.suffix == ".json" for f in files), folder
        if folder != "examples":
            assert any(f.parent.name == folder and f.suffix == ".smt2" for f in files), folder


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_reference_encoding_covers_the_corpus() -> None:
    """Every IR kind the PyTorch corpus (old, new families, held-out validation) lowers to has a
    meaning in cvc5's independent ``ref`` encoding (PyTorch's CeilToInt, bitwise, Where, … lower
    onto existing kinds): encoding every guard raises nothing."""
    from pysmt.environment import Environment

    from symguard.solver import load_problem
    from symguard.solver.ir import terms as ir

    seen: set[str] = set()
    for f in cc.corpus_files():
        if f.suffix != ".json" or f.parent.name not in ("torch", "validation"):
            continue
        doc = cc.load_doc(f)
        if doc is None:
            continue
        enc = cc.RefEncoding(Environment())
        p = load_problem(doc)
        for c in (*p.asserts, *p.guards):
            if c.term is not None:
                enc.formula(c.term)
                seen |= {n.kind for n in ir.iter_dag(c.term)}
    assert seen <= ir.INT_KINDS | ir.BOOL_KINDS
    assert {ir.FLOORDIV, ir.MOD, ir.MUL, ir.MAX, ir.EQ, ir.LE} <= seen


@settings(max_examples=12, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(with_asserts(size_problems(hints=True, timeout_ms=10000)))
def test_generated_size_problems_agree(case: Any) -> None:
    """PyTorch-like size chains (pad-to-multiple, patch merge, conv/pool sizes, products, Eq between
    sizes, CeilToInt/bitwise/Where, guards implied through them) on a whole enumerable box."""
    doc, boxes, oracle = case
    tally = cc.crosscheck_problem(doc, encodings=("ref", "ours"), brute=(boxes, oracle), timeout_ms=2000)
    assert tally.disagreements == [], (doc, tally.disagreements)


def _pad(n: int, w: int) -> int:
    return n + (-n) % w


# The shapes engine's residue splitting, equalities and factor cancellation target, each with its
# meaning as plain Python (not the parser's reading): (symbols as name -> (min, max), [(guard, meaning)])
TARGETED: dict[str, tuple[dict[str, tuple[int, int]], list[tuple[str, Any]]]] = {
    "pad_is_multiple": ({"s0": (1, 120)}, [
        ("Eq(Mod(s0 + Mod(7 - Mod(s0, 7), 7), 7), 0)", lambda e: _pad(e["s0"], 7) % 7 == 0),
        ("s0 + Mod(7 - Mod(s0, 7), 7) >= s0", lambda e: _pad(e["s0"], 7) >= e["s0"]),
        ("Eq(Mod(s0, 14), 0)", lambda e: e["s0"] % 14 == 0),
        ("Eq(Mod(s0, 7), 0)", lambda e: e["s0"] % 7 == 0)]),
    "half_of_padded": ({"s0": (1, 130)}, [
        ("Eq(Mod(s0, 8), 4)", lambda e: e["s0"] % 8 == 4),
        ("Eq(Mod((s0 + Mod(s0, 2))//2, 2), 0)", lambda e: (e["s0"] + 1) // 2 % 2 == 0),
        ("Ne(((s0 + Mod(s0, 2))//2), s0)", lambda e: (e["s0"] + 1) // 2 != e["s0"])]),
    "product_cancel": ({"s0": (1, 40), "s1": (1, 40)}, [
        ("s0 >= 2", lambda e: e["s0"] >= 2),
        ("Ne(s1, 1)", lambda e: e["s1"] != 1),
        ("Ne(s0*s1, s0)", lambda e: e["s0"] * e["s1"] != e["s0"]),
        ("Ne(((s0 + Mod(s0, 2))//2)*s1, ((s0 + Mod(s0, 2))//2))",
         lambda e: (e["s0"] + 1) // 2 * e["s1"] != (e["s0"] + 1) // 2)]),
    "duck_sizes": ({"s0": (2, 30), "s1": (2, 30), "s2": (2, 30)}, [
        ("Eq(s0, s1)", lambda e: e["s0"] == e["s1"]),
        ("Eq(s1, s2)", lambda e: e["s1"] == e["s2"]),
        ("Eq(s2, s0)", lambda e: e["s2"] == e["s0"]),
        ("Eq(Mod(s0 + Mod(4 - Mod(s0, 4), 4), 8), 0)", lambda e: _pad(e["s0"], 4) % 8 == 0),
        ("Eq(Mod(s2 + Mod(4 - Mod(s2, 4), 4), 8), 0)", lambda e: _pad(e["s2"], 4) % 8 == 0)]),
    "torch_functions": ({"s0": (0, 60), "s1": (1, 12)}, [
        ("Eq(CeilToInt(IntTrueDiv(s0, 8)), FloorDiv(s0 + 7, 8))", lambda e: -(-e["s0"] // 8) == (e["s0"] + 7) // 8),
        ("Eq(BitwiseFn_bitwise_and(s0, 7), 0)", lambda e: e["s0"] & 7 == 0),
        ("Eq(Mod(s0, 4), 0)", lambda e: e["s0"] % 4 == 0),
        ("Eq(IsNonOverlappingAndDenseIndicator(s1, s0, s0, 1), 1)",
         lambda e: _dense([e["s1"], e["s0"]], [e["s0"], 1]) == 1),
        ("Eq(RShift(s0, 2)*4, s0)", lambda e: (e["s0"] >> 2) * 4 == e["s0"])]),
}


@pytest.mark.parametrize("name", sorted(TARGETED))
def test_targeted_size_shapes_agree(name: str) -> None:
    """Fixed guard sets in the shapes of the engine's special procedures, every answer re-decided by
    cvc5 (both encodings) and by brute force over the whole box with the Python meanings."""
    boxes, guards = TARGETED[name]
    doc = {"symbols": {n: {"min": lo, "max": hi} for n, (lo, hi) in boxes.items()},
           "guards": [g for g, _ in guards], "options": {"timeout_ms": 20000}}
    meaning = {f"g{i}": f for i, (_, f) in enumerate(guards)}
    tally = cc.crosscheck_problem(doc, encodings=("ref", "ours"), brute=(boxes, lambda i, e: bool(meaning[i](e))),
                                  timeout_ms=2000)
    assert tally.disagreements == [], tally.disagreements
    assert tally.checks["redundancy.redundant"] + tally.checks["redundancy.always_true"] > 0, cc.table(tally)
