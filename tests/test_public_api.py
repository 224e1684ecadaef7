"""The public surface of ``solver`` is small and pinned (STYLE §11)."""

from symguard import solver


def test_all_is_pinned() -> None:
    assert sorted(solver.__all__) == sorted([
        "OPS", "Options", "BadInput", "Canonical", "Context", "InternalError", "InvalidProblemError", "ParseError",
        "Problem", "SymguardError", "TooLargeError", "UnsupportedError", "compute", "finish",
        "is_final", "load_problem", "prepare", "run", "tally", "unknown",
    ])
    for name in solver.__all__:
        assert getattr(solver, name) is not None


def test_ops() -> None:
    assert solver.OPS == ("solve", "redundancy", "evaluate", "shrink", "simplify")


def test_error_tree() -> None:
    for cls in (solver.ParseError, solver.UnsupportedError, solver.InvalidProblemError, solver.TooLargeError):
        assert issubclass(cls, solver.BadInput) and issubclass(cls, solver.SymguardError)
    assert not issubclass(solver.InternalError, solver.BadInput)


def test_context_is_public() -> None:
    ctx = solver.Context({"guards": ["Eq(Mod(s0, 16), 0)"]})
    assert ctx.run("evaluate", {"queries": ["Eq(Mod(s0, 8), 0)"]})["queries"][0]["value"] is True
    assert ctx.extend({"guards": ["s0 >= 64"]}).key != ctx.key
