"""Random small problems with asserts and implied guards, for the soundness cross-check.

Built on ``small_problems``: some of the generated conditions become asserts, and guards that are
implied by construction (a weakening ``g | h`` of a guard ``g``, a repeat) are mixed in so that
``redundant`` verdicts actually occur. Half the time the box is given as asserts over unbounded
symbols instead of as ranges (what interval reasoning must pick up from the asserts). The oracle answers by id with the independent closures.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st
from small_problems import Env, Expr, Small, holds

Case = tuple[dict[str, Any], dict[str, tuple[int, int]], Callable[[str, Env], bool]]


def _or(a: Expr, b: Expr) -> Expr:
    # Python's ``or``: ``b`` is evaluated (and may divide by zero) only where ``a`` fails (docs/problem-format.md §1.2)
    return Expr(f"({a.text}) | ({b.text})", lambda e: bool(a.fn(e)) or bool(b.fn(e)))


@st.composite
def with_asserts(draw: st.DrawFn, smalls: st.SearchStrategy[Small]) -> Case:
    small = draw(smalls)
    conds = list(small.guards)
    n_asserts = draw(st.integers(0, max(0, len(conds) - 1)))
    asserts, guards = conds[:n_asserts], conds[n_asserts:]
    for _ in range(draw(st.integers(0, 2))):
        g = draw(st.sampled_from(guards))
        kind = draw(st.sampled_from(["weaken", "repeat"]))
        guards.append(_or(g, draw(st.sampled_from(conds))) if kind == "weaken" else g)
    order = draw(st.permutations(range(len(guards))))
    guards = [guards[i] for i in order]
    doc = dict(small.doc)
    if draw(st.booleans()):  # the box as asserts over unbounded symbols (interval facts from asserts)
        bounds = []
        for n, (lo, hi) in small.boxes.items():
            bounds += [Expr(f"{n} >= {lo}", lambda e, n=n, lo=lo: e[n] >= lo),
                       Expr(f"{hi} >= {n}", lambda e, n=n, hi=hi: e[n] <= hi)]
        asserts = [*bounds, *asserts]
        doc["symbols"] = {n: {**d, "min": None, "max": None} for n, d in small.doc["symbols"].items()}
    by_id = {f"a{i}": a for i, a in enumerate(asserts)} | {f"g{i}": g for i, g in enumerate(guards)}
    doc["asserts"] = [a.text for a in asserts]
    doc["guards"] = [g.text for g in guards]
    doc["options"] = {**doc.get("options", {}),
                      "prefer": draw(st.sampled_from(["cheap", "order"]))}

    def oracle(ident: str, env: Env) -> bool:
        return holds(by_id[ident].fn, env)

    return doc, dict(small.boxes), oracle
