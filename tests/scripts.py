"""The project's standalone scripts (``bench/``, ``tools/``) imported as modules by their tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def load_script(relpath: str) -> ModuleType:
    """Import ``ROOT/relpath`` under its stem (registered first: its dataclasses look themselves up)."""
    path = ROOT / relpath
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(path.stem, mod)
    spec.loader.exec_module(mod)
    return mod
