"""The wheel installs one import package, ``symguard``, and works beside a user's own ``solver``
and ``service`` packages.

A non-editable install: the wheel is built from this tree (no build isolation, no network) and
installed with ``--target`` into a fresh folder, which then holds ``symguard`` and its dist-info
only (and ``bin/`` for the console script, which a venv keeps outside site-packages). It is
imported and run from a folder that has packages named ``solver`` and ``service`` of its own, as a
user's project might, with that folder first on the path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                            str(ROOT), "-w", str(work / "dist")], check=False, capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr
    (wheel,) = (work / "dist").glob("symguard-*.whl")
    target = work / "site"
    inst = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target),
                           str(wheel)], check=False, capture_output=True, text=True, timeout=300)
    assert inst.returncode == 0, inst.stderr
    return target


def test_one_top_level_package(installed: Path) -> None:
    names = sorted(p.name for p in installed.iterdir() if p.name != "bin")
    assert names == ["symguard", "symguard-0.1.0.dist-info"]
    top = (installed / "symguard-0.1.0.dist-info" / "top_level.txt")
    if top.exists():
        assert top.read_text().split() == ["symguard"]
    assert (installed / "symguard" / "solver" / "api.py").is_file()
    assert (installed / "symguard" / "service" / "cli" / "main.py").is_file()


def test_a_users_own_solver_and_service_do_not_interfere(installed: Path, tmp_path: Path) -> None:
    for name in ("solver", "service"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(f"WHO = 'the user\\'s {name}'\n")
    script = (
        "import json, solver, service, symguard\n"
        "from symguard import *\n"
        "import symguard.service.cli\n"
        "ans = symguard.run('redundancy', {'guards': ['s0 >= 16', 's0 >= 8']})\n"
        "print(json.dumps({'solver': solver.WHO, 'service': service.WHO, 'minimal': ans['minimal'],\n"
        "                  'file': symguard.__file__, 'torch_bound': 'torch' in dir()}))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(installed)])}
    r = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, check=False, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert got["solver"] == "the user's solver" and got["service"] == "the user's service"
    assert got["minimal"] == ["g0"]
    assert got["file"].startswith(str(installed))
    assert got["torch_bound"] is False  # `from symguard import *` leaves a user's `torch` alone


def test_console_script_runs(installed: Path, tmp_path: Path) -> None:
    (tmp_path / "solver").mkdir()
    (tmp_path / "solver" / "__init__.py").write_text("raise ImportError('the user solver was imported')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(installed)])}
    r = subprocess.run([sys.executable, "-m", "symguard.service.cli", "redundancy",
                        str(ROOT / "smt2_corpus" / "examples" / "vit_patchify.json")],
                       cwd=tmp_path, env=env, check=False, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.splitlines()[0])["status"] == "sat"
