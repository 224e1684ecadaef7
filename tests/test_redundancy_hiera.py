"""The Hiera class (issue 33): a mask-unit unroll multiplies a size's quotients by its own quotients,
``s//(c*(s//(2c)))``, constants only where ``s`` is a multiple of ``m``; other guards make it one,
stated (``Eq(Mod(s, m), 0)``, ``Eq(s, m*t)``) or through a chain (``ceil(s/4) == s//4``, then
``Mod(s//a, s//(2a)) == 0`` with ``s//m > 1``). The multiples lever (``reason.multiples``)
substitutes ``s = m*k`` and the products collapse; z3 alone runs out of budget on them.

A generated family — one to three sizes, ``m`` of 8 to 32, each way of stating the multiple, with
distractors — is decided without unknowns, and every verdict is checked by brute force on a box of
sizes: a redundant guard holds wherever the guards it is implied by hold.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from symguard.solver import load_problem, run
from symguard.solver.ir.pyeval import holds


def _qq(s: str, c: int) -> str:
    """``s // (c * (s // 2c))``: 2 where ``2c | s`` and ``s >= 4c``."""
    return f"({s}//({c}*({s}//{2 * c})))"


def hiera(n: int, m: int, how: str, *, distract: bool = True) -> dict[str, Any]:
    """Sizes ``s0..`` made multiples of ``m`` (``how``: "mod", "eq" or "chain"), and products of
    their self-quotients compared with literals and with each other."""
    syms = [f"s{i}" for i in range(n)]
    symbols: dict[str, Any] = {s: {"min": 2, "hint": m * (3 + 2 * i)} for i, s in enumerate(syms)}
    guards: list[str] = []
    for s in syms:
        if how == "mod":
            guards += [f"Eq(Mod({s}, {m}), 0)", f"{s} >= {2 * m}"]
        elif how == "eq":
            symbols[f"t_{s}"] = {"min": 1, "hint": symbols[s]["hint"] // m}
            guards += [f"Eq({s}, {m}*t_{s})", f"{s} >= {2 * m}"]
        else:
            guards.append(f"Eq(({s} - 1)//4 + 1, {s}//4)")
            a = 4
            while a < m:
                guards.append(f"Eq(Mod({s}//{a}, {s}//{2 * a}), 0)")
                a *= 2
            guards.append(f"1 < {s}//{m}")
    cs = [c for c in (2, 4, 8, 16) if 2 * c <= m]
    for s in syms:
        prod = "*".join(_qq(s, c) for c in cs)
        guards += [f"Eq({prod}, {2 ** len(cs)})", f"Ne({prod}*({s}//{m}), {s}//{m})",
                   f"Eq(Mod({s}//{cs[0]}, {_qq(s, cs[-1])}), 0)", f"Eq({prod}, 1) | Eq({prod}, {2 ** len(cs)})"]
    if n > 1:
        both = "*".join(_qq(s, cs[-1]) * 1 for s in syms)
        guards.append(f"Eq({both}*{'*'.join(f'({s}//{m})' for s in syms)}, "
                      f"{2 ** n}*{'*'.join(f'({s}//{m})' for s in syms)})")
    if distract:
        guards += [f"Ne({syms[0]}, {5 * m})", f"{' + '.join(syms)} >= {3 * m}"]
    return {"symbols": symbols, "guards": guards, "options": {"timeout_ms": 60_000}}


CASES = [pytest.param(n, m, how, id=f"{n}sym-m{m}-{how}")
         for n, m, how in itertools.product((1, 2, 3), (8, 16, 32), ("mod", "eq", "chain"))]


@pytest.mark.parametrize(("n", "m", "how"), CASES)
def test_decided_by_the_multiples(n: int, m: int, how: str) -> None:
    res = run("redundancy", hiera(n, m, how))
    assert res["status"] == "sat"
    assert all(g["verdict"] != "unknown" for g in res["guards"]), res["guards"]
    assert res["stats"]["levers"]["multiples"] > 0, res["stats"]


def _box(doc: dict[str, Any], m: int) -> list[dict[str, int]]:
    syms = sorted(doc["symbols"])
    sizes = sorted(set(range(m, 7 * m, 7)) | set(range(m, 7 * m, m // 2)))
    axes = [range(1, 8) if s.startswith("t_") else sizes for s in syms]
    return [dict(zip(syms, v)) for v in itertools.product(*axes)]


def _holds(t: Any, pt: dict[str, int]) -> bool | None:
    try:
        return holds(t, pt)
    except ZeroDivisionError:
        return None  # not a point of the problem: every divisor is non-zero


@pytest.mark.parametrize(("n", "m", "how"), [(1, 8, "chain"), (1, 32, "chain"), (2, 16, "chain"), (2, 32, "chain"),
                                             (2, 16, "mod"), (1, 16, "eq")])
def test_sound_on_a_box(n: int, m: int, how: str) -> None:
    """Brute force: every redundant guard holds wherever its ``implied_by`` guards hold (those
    name the divisibility guards the substitution used), every always_true one everywhere."""
    _check_on_box(hiera(n, m, how), m)


def mixed() -> dict[str, Any]:
    """``s0`` a multiple of 8 by its chain, ``s1`` of 32 stated, and guards over both."""
    a, b = hiera(1, 8, "chain"), hiera(1, 32, "mod")
    return {"symbols": {**a["symbols"], "s1": b["symbols"]["s0"]},
            "guards": a["guards"] + [g.replace("s0", "s1") for g in b["guards"]] +
            ["Eq((s0//(4*(s0//8)))*(s1//(16*(s1//32))), 4)", "Ne(Mod(s1//4, s0//4), 3)"]}


def test_sizes_with_different_multiples() -> None:
    res = run("redundancy", mixed())
    assert all(g["verdict"] != "unknown" for g in res["guards"]), res["guards"]
    assert res["stats"]["levers"]["multiples"] > 0
    _check_on_box(mixed(), 32)


def _check_on_box(doc: dict[str, Any], m: int) -> None:
    res = run("redundancy", doc)
    check_verdicts(res, {g.id: g.term for g in load_problem(doc).guards}, _box(doc, m), required=False)


def check_verdicts(res: dict[str, Any], terms: dict[str, Any], pts: list[dict[str, int]], required: bool) -> None:
    """Every verdict against Python at the points: always_true everywhere; redundant wherever its
    ``implied_by`` hold; with ``required``, the other kept guards hold somewhere a required one
    fails (the points must then be the whole box)."""
    for row in res["guards"]:
        g = terms[row["id"]]
        if row["verdict"] == "always_true":
            assert all(_holds(g, pt) is not False for pt in pts), row
        elif row["verdict"] == "redundant":
            premises = [terms[j] for j in row["implied_by"]]
            for pt in pts:
                if all(_holds(t, pt) for t in premises):
                    assert _holds(g, pt) is not False, (row, pt)
        elif required and row["verdict"] == "required":
            others = [terms[j] for j in res["minimal"] if j != row["id"]]
            assert any(_holds(g, pt) is False and all(_holds(t, pt) for t in others) for pt in pts), row
