"""docs/problem-format.md is the project's own reference: complete, and cited instead of a
contract file users never see (a new user found section citations of a file the repository
does not have)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from symguard.service import errors as service_errors
from symguard.solver import OPS, Options
from symguard.solver import errors as solver_errors

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "problem-format.md"
TEXT_SUFFIXES = {".py", ".md", ".toml", ".txt", ".yml", ".yaml", ".cfg", ".json"}


def _doc() -> str:
    return DOC.read_text(encoding="utf-8")


def test_readme_points_to_the_reference() -> None:
    assert "docs/problem-format.md" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_no_file_cites_a_spec_the_repository_does_not_have() -> None:
    skip = {".venv", ".git", "node_modules", "smt2_corpus", "__pycache__"}
    cited = []
    for p in ROOT.rglob("*"):
        if p.suffix not in TEXT_SUFFIXES or skip & set(p.relative_to(ROOT).parts) or not p.is_file():
            continue
        for n, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if re.search(r"SPEC(\.md| §|\b.{0,3}§)", line):
                cited.append(f"{p.relative_to(ROOT)}:{n}")
    assert not cited, cited


@pytest.mark.parametrize("field", dataclasses.fields(Options), ids=lambda f: f.name)
def test_every_option_is_documented_with_its_default(field: dataclasses.Field[object]) -> None:
    default = Options().__dict__[field.name]
    spelled = {None: "null", True: "true", False: "false"}.get(default, default) if not isinstance(default, int) \
        or isinstance(default, bool) else default
    if isinstance(default, str):
        spelled = f'"{default}"'
    row = next((line for line in _doc().splitlines() if line.startswith(f"| `{field.name}` |")), None)
    assert row is not None, f"option {field.name} has no row in the options table"
    assert f"`{spelled}`" in row, f"{field.name}: default {spelled} not in {row!r}"


def test_every_error_code_operation_and_verdict_is_documented() -> None:
    doc = _doc()
    codes = {c.code for m in (solver_errors, service_errors) for c in vars(m).values()
             if isinstance(c, type) and issubclass(c, solver_errors.SymguardError) and isinstance(c.code, str)}
    assert {"parse_error", "unsupported", "invalid_problem", "too_large", "internal_error", "unavailable"} <= codes
    for code in codes:
        assert f"| `{code}` |" in doc, f"error code {code} missing from the table"
    for op in OPS:
        assert f"### {op}" in doc
    for verdict in ("always_true", "always_false", "redundant", "required", "unknown", "unsupported"):
        assert f"| `{verdict}` |" in doc
