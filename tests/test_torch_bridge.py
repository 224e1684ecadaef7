"""The PyTorch bridge on tiny models: problems that load, hints that satisfy them, PyTorch's
assumptions (0/1 specialization, ranges before guards, unbacked >= 0) visible in the document."""

from __future__ import annotations

import subprocess
import sys

import pytest

from symguard.solver import load_problem, run


def test_import_without_torch() -> None:
    code = "import sys; sys.modules['torch'] = None; import symguard.service.torch_bridge as tb; print(tb.__name__)"
    r = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "symguard.service.torch_bridge"


torch = pytest.importorskip("torch")
tb = pytest.importorskip("symguard.service.torch_bridge")


class Tiny(torch.nn.Module):
    """A branch on the batch size (a guard that narrows var_to_range) and a view with FloorDiv."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t = x.shape
        y = x[:, : t - t % 4].reshape(b, -1, 4).sum(-1)
        if b < 16:
            return y * 2
        return y


class Unbacked(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        idx = torch.nonzero(x > 0)
        torch._check(idx.shape[0] <= x.numel())
        return idx.sum() + x.sum()


@pytest.fixture(scope="module")
def compiled() -> dict:
    return tb.capture_compile(Tiny(), torch.randn(3, 10), source="tiny")


@pytest.fixture(scope="module")
def exported() -> dict:
    Dim = torch.export.Dim
    return tb.capture_export(Tiny(), (torch.randn(3, 10),),
                             dynamic_shapes=({0: Dim.AUTO(min=2, max=64), 1: Dim.AUTO(min=4, max=256)},))


@pytest.mark.torch
def test_compile_problem(compiled: dict) -> None:
    assert compiled["source"] == "tiny"
    syms = compiled["symbols"]
    assert sorted(s["hint"] for s in syms.values()) == [3, 10]
    assert all(s["min"] == 2 for s in syms.values())  # 0/1 specialization
    # the guard `b < 16` narrowed var_to_range; the document keeps the range before it
    assert all(s["max"] is None for s in syms.values())
    assert any("16" in g for g in compiled["guards"])
    assert tb.parse_failures(compiled) == []
    assert tb.hints_hold(compiled) == []
    assert [sorted(d) for d in compiled["inputs"].values() if len(d) == 2] == [sorted(syms)]
    assert run("solve", compiled)["status"] == "sat"
    red = run("redundancy", compiled)
    assert red["status"] == "sat"
    assert "required" in {g["verdict"] for g in red["guards"]}


@pytest.mark.torch
def test_export_problem(exported: dict) -> None:
    syms = exported["symbols"]
    assert sorted((s["min"], s["max"], s["hint"]) for s in syms.values()) == [(2, 64, 3), (4, 256, 10)]
    assert list(exported["inputs"]) == ["x"]
    assert all(isinstance(d, str) for d in exported["inputs"]["x"])
    assert tb.parse_failures(exported) == []
    assert tb.hints_hold(exported) == []
    load_problem({k: v for k, v in exported.items() if k != "meta"})
    assert run("solve", exported)["status"] == "sat"


@pytest.mark.torch
def test_unbacked_symbols_have_no_hint_and_are_nonnegative() -> None:
    Dim = torch.export.Dim
    doc = tb.capture_export(Unbacked(), (torch.randn(5, 3),),
                            dynamic_shapes=({0: Dim.AUTO(min=2, max=64), 1: Dim.AUTO(min=2, max=64)},))
    unbacked = doc["meta"]["unbacked"]
    assert unbacked
    for u in unbacked:
        assert "hint" not in doc["symbols"][u]
        assert doc["symbols"][u]["min"] == 0
    assert tb.parse_failures(doc) == []
    assert run("solve", doc)["status"] == "sat"


@pytest.mark.torch
def test_bounds_of_int_oo_are_null() -> None:
    import sympy
    from torch.utils._sympy.numbers import int_oo

    assert tb._bound(int_oo) is None
    assert tb._bound(-int_oo) is None
    assert tb._bound(sympy.oo) is None
    assert tb._bound(sympy.Integer(7)) == 7


@pytest.mark.torch
def test_capture_backend_collects_each_graph() -> None:
    backend = tb.CaptureBackend(source="b")
    torch._dynamo.reset()
    with torch._dynamo.config.patch(specialize_float=True):
        torch.compile(Tiny(), backend=backend, dynamic=True, fullgraph=True)(torch.randn(4, 9))
    assert len(backend.problems) == 1
    doc = backend.problems[0]
    assert doc["meta"]["ranges"].startswith("as narrowed")  # no record_ranges around it
    assert tb.parse_failures(doc) == []


def _size_arithmetic(x: torch.Tensor) -> torch.Tensor:
    """Guards PyTorch 2.x prints with its own functions: CeilToInt(IntTrueDiv), RoundToInt,
    BitwiseFn with a constant (read exactly) and BitwiseFn of two sizes (not)."""
    import math

    n, t = x.shape
    y = x[: math.ceil(n / 8) * 4]
    if (n & 7) == 5:
        y = y + 1
    if (n & t) > 1:
        y = y * 3
    if round(t / 4) == 2:
        y = y - 1
    return y.sum()


@pytest.mark.torch
def test_pytorch_functions_load_and_an_odd_guard_is_skipped_not_fatal() -> None:
    doc = tb.capture_compile(_size_arithmetic, torch.randn(37, 10))
    assert doc["options"] == {"on_unsupported": "skip"}
    text = " ".join(doc["guards"])
    assert "CeilToInt(IntTrueDiv(" in text and "RoundToInt(IntTrueDiv(" in text and "BitwiseFn_bitwise_and" in text
    odd = [f["where"] for f in tb.parse_failures(doc)]
    assert len(odd) == 1 and "bitwise and of two non-constant" in tb.parse_failures(doc)[0]["error"]
    assert tb.hints_hold(doc) == []  # the exact lowerings agree with PyTorch at the trace point
    red = run("redundancy", doc)
    assert red["status"] == "sat"
    verdicts = {g["id"]: g["verdict"] for g in red["guards"]}
    skipped = f"g{int(odd[0][len('guards['):-1])}"
    assert verdicts[skipped] == "unsupported" and skipped in red["minimal"]
    assert [w for w in red["warnings"] if skipped in w]
    assert sum(v == "unsupported" for v in verdicts.values()) == 1
    assert run("solve", doc)["status"] == "sat"


@pytest.mark.torch
def test_every_bridge_document_skips_rather_than_rejects() -> None:
    backend = tb.CaptureBackend()
    torch._dynamo.reset()
    with torch._dynamo.config.patch(specialize_float=True):
        torch.compile(Tiny(), backend=backend, dynamic=True, fullgraph=True)(torch.randn(4, 9))
    assert backend.problems[0]["options"]["on_unsupported"] == "skip"
    assert tb.problem_from_graph(torch.fx.symbolic_trace(torch.nn.ReLU()), [])["options"]["on_unsupported"] == "skip"
