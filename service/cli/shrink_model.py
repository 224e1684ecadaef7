"""``symguard shrink-model MODEL.py``: shrink a PyTorch model's inputs to a small regression test.

A model spec is the user's own Python file (run locally, by their choice — never client input
over HTTP) with this contract (``docs/shrink_model.md`` has a worked example):

    build_model() -> torch.nn.Module      # random init from a fixed seed; never load weights
    example_inputs() -> tuple[Tensor, …]  # the positional forward arguments; their sizes are the hints
    dynamic_shapes                        # torch.export style (Dim, Dim.AUTO, None) for those arguments
    NAME = "…"                            # optional: names the emitted test (default: the file stem)
    SEED, ATOL, RTOL                      # optional: 0, 1e-5, 1e-4
    REQUIRES = ("transformers",)          # optional: modules the emitted test skips without
    make_inputs(shapes) -> tuple          # optional: inputs of {arg name: shape} (default: random
                                          # like the examples; integer inputs keep their value range)

The workflow: export with ``torch.export.export(strict=False)`` at the example inputs, take the
problem (symbols with ranges before guards and hints, asserts, every guard, the inputs' symbolic
shapes) from the ShapeEnv through the bridge (``torch_bridge.capture_export``), run ``shrink`` (and ``redundancy`` for the report) in-process or against a server, and
write a pytest file (``shrink_model_template``) that checks the small shapes against every guard and
runs the model eagerly and exported at them.
"""

from __future__ import annotations

import importlib.util
import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from symguard.solver.errors import InvalidProblemError

from . import shrink_model_template

Runner = Callable[[str, dict[str, Any]], dict[str, Any]]
OBJECTIVES = ("sum", "max", "lex")
# each shrink/redundancy call: the step before it (torch.export) already took minutes, and the
# objective's proof can take seconds on 100+ non-linear guards; 60 s is also the server's cap
DEFAULT_TIMEOUT_MS = 60_000


@dataclass(frozen=True)
class ModelSpec:
    """A loaded model spec and the settings it chose."""

    name: str
    path: Path
    module: ModuleType
    seed: int = 0
    atol: float = 1e-5
    rtol: float = 1e-4
    requires: tuple[str, ...] = ()


@dataclass(frozen=True)
class ShrinkOutcome:
    """What one run found and wrote; ``summary()`` is the CLI's JSON line."""

    spec: ModelSpec
    problem: dict[str, Any]
    shrink: dict[str, Any]
    minimal: list[str]
    input_names: list[str]
    original_shapes: list[list[int]]
    small_shapes: list[list[int]]
    test_path: Path | None = None

    def summary(self) -> dict[str, Any]:
        return {"op": "shrink-model", "name": self.spec.name, "status": self.shrink["status"],
                "test": str(self.test_path) if self.test_path else None,
                "objective": self.shrink.get("objective"), "optimal": self.shrink.get("optimal"),
                "model": self.shrink.get("model"),
                "inputs": {n: {"original": o, "small": s} for n, o, s in
                           zip(self.input_names, self.original_shapes, self.small_shapes)},
                "numel": {"original": numel(self.original_shapes), "small": numel(self.small_shapes)},
                "guards": len(self.problem.get("guards", ())), "minimal": len(self.minimal),
                "warnings": self.shrink.get("warnings", [])}


def numel(shapes: list[list[int]]) -> int:
    """Total number of elements over all inputs."""
    return sum(math.prod(s) for s in shapes)


def load_spec(path: str | Path) -> ModelSpec:
    """Import the user's model spec by path and check the contract up front."""
    p = Path(path)
    if not p.is_file():
        raise InvalidProblemError(f"no such model spec: {p}", where=str(p))
    spec = importlib.util.spec_from_file_location(f"symguard_spec_{p.stem}", p)
    if spec is None or spec.loader is None:
        raise InvalidProblemError(f"{p} is not a Python module", where=str(p))
    mod = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(mod)  # the user's own code, run at their request
    except Exception as e:
        raise InvalidProblemError(f"importing {p} failed: {type(e).__name__}: {e}", where=str(p)) from e
    missing = [n for n in ("build_model", "example_inputs", "dynamic_shapes") if not hasattr(mod, n)]
    if missing:
        raise InvalidProblemError(f"{p} must define build_model(), example_inputs() and dynamic_shapes "
                                  f"(missing: {', '.join(missing)}); see docs/shrink_model.md", where=str(p))
    name = str(getattr(mod, "NAME", p.stem))
    if not name.isidentifier():
        raise InvalidProblemError(f"NAME must be a Python identifier, got {name!r}", where=f"{p}:NAME")
    requires = getattr(mod, "REQUIRES", ())
    if isinstance(requires, str) or not all(isinstance(r, str) and r for r in requires):
        raise InvalidProblemError("REQUIRES must be a tuple of module names", where=f"{p}:REQUIRES")
    return ModelSpec(name, p, mod, int(getattr(mod, "SEED", 0)), float(getattr(mod, "ATOL", 1e-5)),
                     float(getattr(mod, "RTOL", 1e-4)), tuple(requires))


def export_problem(spec: ModelSpec) -> tuple[dict[str, Any], list[str], list[list[int]], list[dict[str, str]]]:
    """Export at the example inputs: the bridge's problem, the input names, their original
    shapes, and the exported program's input range checks as asserts (see ``input_checks``)."""
    try:
        import torch
    except ImportError:
        raise InvalidProblemError("shrink-model needs PyTorch: pip install 'symguard[torch]'") from None
    from ..torch_bridge import problem_from_exported, record_ranges

    torch.manual_seed(spec.seed)
    try:
        model = spec.module.build_model().eval()
        args = tuple(spec.module.example_inputs())
    except Exception as e:
        raise InvalidProblemError(f"building the model or its example inputs failed: {type(e).__name__}: {e}",
                                  where=str(spec.path)) from e
    if not all(isinstance(a, torch.Tensor) for a in args):
        raise InvalidProblemError("example_inputs() must return a tuple of tensors (the positional forward "
                                  "arguments)", where=f"{spec.path}:example_inputs")
    source = f"{spec.name} | torch {torch.__version__} | torch.export (strict=False) | symguard shrink-model"
    try:
        with record_ranges() as initial:
            ep = torch.export.export(model, args, dynamic_shapes=spec.module.dynamic_shapes, strict=False)
    except Exception as e:  # the user's model or dynamic_shapes: say what torch said, briefly
        first = str(e).strip().splitlines()[:12]
        raise InvalidProblemError(f"torch.export.export failed ({type(e).__name__}): " + "\n".join(first),
                                  where=f"{spec.path}:dynamic_shapes") from e
    problem = problem_from_exported(ep, initial_ranges=initial, source=source)
    names = list(problem.get("inputs", {}))
    if len(names) != len(args):
        raise InvalidProblemError(f"export saw {len(names)} user inputs for {len(args)} example inputs",
                                  where=f"{spec.path}:example_inputs")
    return problem, names, [list(a.shape) for a in args], input_checks(ep)


def input_checks(ep: Any) -> list[dict[str, str]]:
    """The bounds the exported program checks on every call (``ep.range_constraints``), as asserts.

    They may be narrower than the ranges before guards (PyTorch folds guards into them), which is
    why they are kept out of the guard-pruning count — but the small shapes must pass them, or the
    exported program rejects its own repro ("Guard failed: x.size()[2] >= 16").
    """
    checks = []
    # sorted: the order of range_constraints varies between exports of the same model, and the
    # emitted file must not (a committed test is compared with a fresh one)
    for expr, vr in sorted(ep.range_constraints.items(), key=lambda kv: str(kv[0])):
        for side, bound, op in (("min", vr.lower, ">="), ("max", vr.upper, "<=")):
            if getattr(bound, "is_integer", False) and getattr(bound, "is_finite", False):
                name = re.sub(r"\W+", "_", str(expr)).strip("_")
                checks.append({"id": f"input_{side}_{name}", "expr": f"{expr} {op} {int(bound)}"})
    return checks


def shrink_model(spec_path: str | Path, *, out: str | Path | None = None, objective: str = "sum",
                 runner: Runner | None = None, timeout_ms: int = DEFAULT_TIMEOUT_MS,
                 write: bool = True) -> ShrinkOutcome:
    """The whole workflow for one model spec; writes the test unless ``write`` is false."""
    if objective not in OBJECTIVES:
        raise InvalidProblemError(f"objective must be one of {', '.join(OBJECTIVES)}", where="--objective")
    if runner is None:
        from symguard.solver import run

        runner = run
    spec = load_spec(spec_path)
    bridged, names, original, checks = export_problem(spec)
    problem = {**bridged, "asserts": [*bridged.get("asserts", []), *checks]}
    res = runner("shrink", {**problem, "options": {"objective": objective, "timeout_ms": timeout_ms}})
    if res.get("status") != "sat":
        raise InvalidProblemError(f"shrink found no small shapes ({res.get('status')}: "
                                  f"{res.get('reason') or res.get('core')}); the guards may be unsatisfiable",
                                  where=str(spec.path))
    res = tie_break(problem, res, runner, timeout_ms)
    small = [list(res["input_shapes"][n]) for n in names]
    red = runner("redundancy", {**bridged, "options": {"timeout_ms": timeout_ms}})
    outcome = ShrinkOutcome(spec, problem, res, list(red.get("minimal", [])), names, original, small)
    if not write:
        return outcome
    path = Path(out) if out else Path("tests") / "generated" / f"test_{spec.name}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_test(outcome, path), encoding="utf-8")
    return ShrinkOutcome(spec, problem, res, outcome.minimal, names, original, small, path)


def tie_break(problem: dict[str, Any], res: dict[str, Any], runner: Runner, timeout_ms: int) -> dict[str, Any]:
    """One optimum out of several, always the same: the emitted file must not depend on which
    of equally small models the solver met first (9×10 and 10×9 both sum to 19).

    Among the models with the optimal objective (its value held fixed by asserts), take the
    lexicographically smallest with the symbols in order of their hints, smallest first (ties in
    declaration order): dimensions that were smaller when traced stay the smaller ones. Kept as
    it was when the optimum is not proven or the extra call does not prove its answer.
    """
    model = res.get("model") or {}
    objective = res.get("objective")
    if objective == "lex" or not res.get("optimal") or len(model) < 2:
        return res
    declared = problem.get("symbols", {})
    order = list(declared) + [n for n in model if n not in declared]
    ranked = sorted(order, key=lambda n: (declared.get(n, {}).get("hint") is None,
                                          declared.get(n, {}).get("hint") or 0, order.index(n)))
    mags = [f"Abs({n})" for n in model]
    fixed = [{"id": "tie_break_sum", "expr": f"{' + '.join(mags)} == {sum(abs(v) for v in model.values())}"}]
    if objective == "max":
        fixed.append({"id": "tie_break_max", "expr": f"Max({', '.join(mags)}) == {max(abs(v) for v in model.values())}"})
    doc = {**problem, "symbols": {n: declared.get(n, {}) for n in ranked},
           "asserts": [*problem.get("asserts", []), *fixed],
           "options": {"objective": "lex", "timeout_ms": timeout_ms}}
    try:
        again = runner("shrink", doc)
    except Exception:  # noqa: BLE001 - the untie-broken optimum is still a right answer
        return res
    if again.get("status") != "sat" or not again.get("optimal"):
        return res
    chosen = {n: again["model"][n] for n in model}  # the first answer's key order, not the ranking's
    return {**res, "model": chosen, "input_shapes": again.get("input_shapes", res.get("input_shapes"))}


def render_test(o: ShrinkOutcome, test_path: Path) -> str:
    """The emitted pytest file for an outcome, finding the model spec relative to ``test_path``."""
    spec_rel = Path(os.path.relpath(o.spec.path.resolve(), test_path.resolve().parent)).as_posix()
    embedded = {k: o.problem[k] for k in ("source", "symbols", "asserts", "guards", "inputs") if k in o.problem}
    return shrink_model_template.render(
        spec_arg=_display_path(o.spec.path, test_path), name=o.spec.name, spec_rel=spec_rel, seed=o.spec.seed,
        requires=o.spec.requires,
        atol=o.spec.atol, rtol=o.spec.rtol, problem=embedded, minimal_ids=o.minimal,
        model=o.shrink["model"], input_names=o.input_names, original_shapes=o.original_shapes,
        small_shapes=o.small_shapes, original=_shapes_text(o.original_shapes),
        small=_shapes_text(o.small_shapes), original_numel=numel(o.original_shapes),
        small_numel=numel(o.small_shapes), objective=o.shrink.get("objective"),
        optimal=o.shrink.get("optimal"), guards=len(o.problem.get("guards", ())), minimal=len(o.minimal))


def _shapes_text(shapes: list[list[int]]) -> str:
    return ", ".join("(" + ", ".join(map(str, s)) + ")" for s in shapes)


def _display_path(p: Path, test_path: Path) -> str:
    """The model spec's path as typed from the project's root (the nearest folder above the test with a
    ``pyproject.toml`` or ``.git``), else its file name: never the working directory, so the same
    model spec always renders the same file wherever the command was run from."""
    spec = p.resolve()
    for root in test_path.resolve().parents:
        if (root / "pyproject.toml").exists() or (root / ".git").exists():
            try:
                return spec.relative_to(root).as_posix()
            except ValueError:
                break
    return p.name


def main_args(args: Any, runner: Runner) -> dict[str, Any]:
    """The CLI entry (``service.cli``): run and return the summary line."""
    return shrink_model(args.spec, out=args.out, objective=args.objective, runner=runner,
                        timeout_ms=args.timeout_ms).summary()
