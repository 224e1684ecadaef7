"""``solve`` and ``redundancy`` on the real PyTorch guard sets of ``shared/corpus_sample``.

The folder lives beside the repository (``../shared`` in CI); the test skips when it is absent.
Pinned answers were checked by enumeration on bounded boxes (every symbol in ``[min, min+40]``
for unet, ``[min, min+20]`` for resnet): the minimal set has the same points as all the guards,
and every kept guard has a witness point where it alone fails.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from symguard.solver import load_problem, run
from symguard.solver.ir.pyeval import holds

SAMPLE = Path(__file__).resolve().parents[1].parent / "shared" / "corpus_sample"
FILES = sorted(p.name for p in SAMPLE.glob("*.json")) if SAMPLE.is_dir() else []

pytestmark = pytest.mark.skipif(not FILES, reason=f"corpus sample not found at {SAMPLE}")

# file -> (verdict counts, minimal); answers that need no timeout-sensitive check
PINNED: dict[str, tuple[dict[str, int], list[str]]] = {
    # 7 -> 4 kept since the greedy pass decides with the free levers first (a smaller irredundant set)
    "unet_compile.json": ({"required": 4, "redundant": 8}, ["g0", "g8", "g9", "g10"]),
    "unet_export.json": ({"always_true": 11}, []),
    "resnet_cnn_compile.json": ({"required": 4, "redundant": 12, "always_true": 2}, ["g0", "g6", "g13", "g14"]),
    "resnet_cnn_export.json": ({"always_true": 16}, []),
    "reshape_zoo_export.json": ({"always_true": 43}, []),
}
# not pinned: reshape_zoo_compile, vit_patchify_* (under the default 2 s budget some checks may end
# unknown on a slow machine, which keeps a guard: sound, but the counts move)


def _load(name: str) -> dict[str, Any]:
    return json.loads((SAMPLE / name).read_text())


@pytest.mark.parametrize("name", FILES)
def test_solve_and_redundancy(name: str) -> None:
    doc = _load(name)
    sol = run("solve", doc)
    assert sol["status"] == "sat"
    p = load_problem(doc)
    assert all(holds(c.term, sol["model"]) for c in p.asserts + p.guards)
    res = run("redundancy", doc)
    assert res["status"] == "sat"
    counts = Counter(g["verdict"] for g in res["guards"])
    kept = [g["id"] for g in res["guards"] if g["verdict"] in ("required", "unknown", "unsupported")]
    assert res["minimal"] == kept
    if name in PINNED:
        want_counts, want_minimal = PINNED[name]
        assert dict(counts) == want_counts
        assert res["minimal"] == want_minimal
    hints = p.hints or {}
    for c in p.guards:  # every guard of the sample is true at the hints
        assert holds(c.term, hints), c.id
