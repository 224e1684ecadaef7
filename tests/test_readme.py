"""The README's figures are what its first command prints (they drifted once: issue 22)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from symguard.solver import run

ROOT = Path(__file__).resolve().parent.parent


def test_the_first_commands_figures_are_what_it_prints() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "symguard redundancy smt2_corpus/examples/vit_patchify.json" in text
    res = run("redundancy", json.loads((ROOT / "smt2_corpus/examples/vit_patchify.json").read_text(encoding="utf-8")))
    block = text.split("## What the first command prints", 1)[1].split("## Using it", 1)[0]
    stats = res["stats"]
    assert f'"checks": {stats["checks"]}, "avoided": {stats["avoided"]}' in block
    levers = json.loads(re.search(r'"levers": (\{[^}]*\})', block).group(1))  # type: ignore[union-attr]
    assert levers == stats["levers"]
    assert f'"minimal": {json.dumps(res["minimal"])}' in block
    verdicts = Counter(g["verdict"] for g in res["guards"])
    assert f"{verdicts['always_true']} guards follow from the ranges alone and {verdicts['redundant']} from the" in block
    asked = stats["checks"] + stats["avoided"]
    assert f"Only {stats['checks']} of the {asked} questions needed" in " ".join(block.split())
    assert f"of {len(res['guards'])}" in " ".join(block.split())
