"""``import symguard``: the distribution's public import, pinned, and free of torch until used."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import symguard
from symguard import solver

ROOT = Path(__file__).resolve().parents[1]


def test_all_is_pinned() -> None:
    assert sorted(symguard.__all__) == sorted([
        "BadInput", "Context", "InternalError", "InvalidProblemError", "ParseError", "Problem", "SymguardError",
        "TooLargeError", "UnsupportedError", "load_problem", "run",
    ])
    for name in symguard.__all__:
        assert getattr(symguard, name) is getattr(solver, name)


def test_star_import_keeps_the_users_torch() -> None:
    """issue 34: ``torch`` in ``__all__`` made ``from symguard import *`` rebind the user's torch
    to ``symguard.torch`` (``torch.randn`` then raised AttributeError). ``symguard.torch`` is still
    there as an attribute and as a module."""
    pytest.importorskip("torch")  # the torch extra
    code = ("import torch\n"
            "from symguard import *\n"
            "assert torch.randn(2).shape == (2,), torch\n"
            "import symguard, symguard.torch as switch\n"
            "from symguard import torch as switch2\n"
            "import importlib\n"
            "assert symguard.torch is switch is switch2 is importlib.import_module('symguard.torch')\n"
            "assert callable(switch.prune_guards) and run('solve', {'guards': ['s0 >= 3']})['status'] == 'sat'\n"
            "print('ok')")
    r = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-2000:]


def test_front_door_runs() -> None:
    res = symguard.run("redundancy", {"guards": ["s0 >= 16", "s0 >= 8"]})
    assert res["minimal"] == ["g0"]
    assert symguard.Context({"guards": ["Eq(Mod(s0, 16), 0)"]}).run(
        "evaluate", {"queries": ["Eq(Mod(s0, 8), 0)"]})["queries"][0]["value"] is True


def test_import_needs_no_torch() -> None:
    code = ("import sys; sys.modules['torch'] = None; import symguard; "
            "symguard.run('solve', {'guards': ['s0 >= 3']}); import symguard.torch as t; print(t.__all__)")
    r = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "prune_guards" in r.stdout


def test_unknown_attribute() -> None:
    try:
        symguard.nope  # noqa: B018
    except AttributeError as e:
        assert "nope" in str(e)
    else:
        raise AssertionError("symguard.nope should not exist")


def test_nothing_imports_the_old_top_level_names() -> None:
    """``solver`` and ``service`` are ``symguard.solver`` and ``symguard.service``: importing
    every entry point loads no top-level module of those names."""
    code = ("import sys, symguard, symguard.torch, symguard.service.cli, symguard.service.app, "
            "symguard.service.runtime.child, symguard.service.trace.analyze\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('solver', 'service')))")
    r = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_a_folder_holding_a_clone_named_symguard(tmp_path: Path) -> None:
    """From the folder that holds a clone named ``symguard``, ``import symguard`` is the package
    (the clone's root has no ``__init__.py``: found first, it would be an empty namespace
    package, which an installed package — a wheel, or an editable install in compat mode, as
    the README's commands make — outranks)."""
    (tmp_path / "symguard").symlink_to(ROOT, target_is_directory=True)
    r = subprocess.run([sys.executable, "-c", "import symguard; print(symguard.run('solve', {'guards': ['s0 > 3']})['status'])"],
                       cwd=tmp_path, check=False, capture_output=True, text=True, timeout=120)
    if r.returncode != 0 and any(m.startswith("__editable___symguard") for m in sys.modules):
        pytest.skip("an editable install through an import hook (pip install -e without compat mode)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "sat"
