"""``symguard.torch.prune_guards`` and ``symguard prune-guards``: Dynamo emits only the shape guards
symguard keeps, its guard check judges every shape as the stock one does, and any failure keeps
the stock guards. Compiles are slow: each model is compiled once per mode (module-scoped
fixtures) with the ``eager`` backend (the guards do not depend on the backend)."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from guard_grammar import conds
from hypothesis import given, settings
from hypothesis import strategies as st

from symguard.service import torch_cache, torch_forms, torch_hook, torch_prune
from symguard.service.torch_prune import minimal_ids
from symguard.solver.errors import InvalidProblemError

# compiles take seconds to minutes: the whole module is outside the quick loop (tests/conftest.py)
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "examples" / "models"


# ------------------------------------------------------------------ the answer, read conservatively

def test_only_proven_verdicts_are_dropped() -> None:
    res = {"status": "sat", "minimal": ["g1", "g2", "g3"],
           "guards": [{"id": "g0", "verdict": "redundant"}, {"id": "g1", "verdict": "unknown"},
                      {"id": "g2", "verdict": "unsupported"}, {"id": "g3", "verdict": "required"},
                      {"id": "g4", "verdict": "always_true"}, {"id": "g5", "verdict": "something new"}]}
    assert minimal_ids(res, [f"g{i}" for i in range(7)]) == {"g1", "g2", "g3", "g5", "g6"}


@pytest.mark.parametrize("res", [
    {"status": "unknown", "guards": [], "minimal": []},
    {"status": "unsat", "guards": [{"id": "g0", "verdict": "redundant"}], "minimal": []},
    {"status": "sat", "minimal": ["g0"], "guards": [{"id": "g0", "verdict": "redundant"}]},  # contradicts itself
    {"status": "sat"},
    {"error": {"code": "timeout"}},
])
def test_untrusted_answers_keep_everything(res: dict[str, Any]) -> None:
    assert minimal_ids(res, ["g0", "g1"]) is None


# ------------------------------------------------------------------ a toy model: the switch itself

torch = pytest.importorskip("torch")
pg = pytest.importorskip("symguard.service.cli.prune_guards")


class Toy(torch.nn.Module):
    """Guards on the length: a pad-to-4 reshape, two nested thresholds (one implies the other)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t = x.shape
        y = x[:, : t - t % 4].reshape(b, -1, 4).sum(-1)
        if t >= 12:
            y = y * 2
        if t >= 8:
            y = y + 1
        if t // 4 >= 2:
            y = y - 1
        return y


def _toy() -> Any:
    ex = (torch.randn(3, 21),)
    return pg.Target("toy", Toy(), ex, {0: {0: (2, 32), 1: (2, 200)}}, lambda s: pg.random_inputs(ex, s))


@pytest.fixture(scope="module")
def toy() -> Any:
    return _toy()


@pytest.fixture(scope="module")
def toy_stock(toy: Any) -> Any:
    return pg.compile_target(toy, prune=False, backend="eager")


@pytest.fixture(scope="module")
def toy_pruned(toy: Any) -> Any:
    return pg.compile_target(toy, prune=True, backend="eager")


@pytest.mark.torch
def test_toy_pruned_agrees_with_stock(toy: Any, toy_stock: Any, toy_pruned: Any) -> None:
    out = pg.differential(toy, shapes=150, stock=toy_stock, pruned=toy_pruned, backend="eager")
    assert out["disagreements"] == 0, out["examples"]
    assert out["shapes"]["accepted"] > 0 and out["shapes"]["rejected"] > 0
    assert out["guards"]["pruned"] < out["guards"]["stock"]
    assert out["guards"]["decided_kept"] < out["guards"]["decided_stock"]
    assert out["errors"] == []


@pytest.mark.torch
def test_observe_mode_changes_nothing(toy_stock: Any) -> None:
    (rec,) = toy_stock.history
    assert rec["kept"] is None and rec["error"] is None and rec["guards"] > 0
    assert rec["emitted"] == len(rec["verbose"]) == toy_stock.shape_guard_count()
    assert toy_stock.shape_guard() is not None


def _stock_count(toy: Any, **kw: Any) -> tuple[int, list[dict[str, Any]]]:
    c = pg.compile_target(toy, prune=True, backend="eager", **kw)
    return c.shape_guard_count(), c.history


@pytest.mark.torch
def test_server_down_keeps_stock(toy: Any, toy_stock: Any) -> None:
    from symguard.service.client import Client

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    with Client(f"http://127.0.0.1:{port}", retries=0, timeout_s=2) as c:
        n, hist = _stock_count(toy, client=c)
    assert n == toy_stock.shape_guard_count()
    assert hist[-1]["kept"] is None and "Unavailable" in hist[-1]["error"]


@pytest.fixture()
def silent_server() -> Iterator[str]:
    """A loopback socket that accepts connections and never answers (one test, then closed)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    conns: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                conns.append(srv.accept()[0])
            except OSError:
                continue

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    try:
        yield f"http://127.0.0.1:{srv.getsockname()[1]}"
    finally:
        stop.set()
        t.join(timeout=5)
        for c in conns:
            c.close()
        srv.close()


@pytest.mark.torch
def test_timeout_keeps_stock(toy: Any, toy_stock: Any, silent_server: str) -> None:
    from symguard.service.client import Client

    with Client(silent_server, retries=0, timeout_s=0.5) as c:
        n, hist = _stock_count(toy, client=c)
    assert n == toy_stock.shape_guard_count()
    assert hist[-1]["kept"] is None and "RemoteError" in hist[-1]["error"]


class _FakeClient:
    """Answers every question with ``verdict`` for each guard, or raises ``error``."""

    def __init__(self, verdict: str | None = None, error: Exception | None = None) -> None:
        self.verdict, self.error, self.asked = verdict, error, 0

    def redundancy(self, doc: dict[str, Any]) -> dict[str, Any]:
        self.asked += 1
        if self.error is not None:
            raise self.error
        ids = [g["id"] for g in doc["guards"]]
        return {"status": "sat", "minimal": ids, "guards": [{"id": i, "verdict": self.verdict} for i in ids]}


@pytest.mark.torch
@pytest.mark.parametrize("verdict", ["unsupported", "unknown"])
def test_undecided_guards_are_kept(toy: Any, toy_stock: Any, verdict: str) -> None:
    fake = _FakeClient(verdict)
    n, hist = _stock_count(toy, client=fake)
    assert fake.asked == 1
    assert n == toy_stock.shape_guard_count()
    assert hist[-1]["kept"] == hist[-1]["guards"] and hist[-1]["error"] is None


class _CountingClient:
    """Answers in-process, counting the questions per operation."""

    def __init__(self) -> None:
        self.asked: dict[str, int] = {}

    def redundancy(self, doc: dict[str, Any]) -> dict[str, Any]:
        return self._run("redundancy", doc)

    def simplify(self, doc: dict[str, Any]) -> dict[str, Any]:
        return self._run("simplify", doc)

    def _run(self, op: str, doc: dict[str, Any]) -> dict[str, Any]:
        from symguard.solver import run

        self.asked[op] = self.asked.get(op, 0) + 1
        return dict(run(op, doc))


@pytest.mark.torch
def test_forms_off_asks_one_question(toy: Any) -> None:
    """``forms=False``: redundancy only, the same pruning, nothing rewritten."""
    import torch as _torch

    counting = _CountingClient()
    fn, _ = pg._fresh_forward(1, "forms-off")
    with torch_hook.prune_guards(client=counting, forms=False) as pruner, _torch.no_grad():
        _torch.compile(fn, dynamic=True, backend="eager")(toy.model, *toy.example)
    (rec,) = pruner.history
    assert counting.asked == {"redundancy": 1}
    assert rec["error"] is None and rec["rewritten"] == 0 and rec["proven_true"] == 0
    assert rec["kept"] is not None and rec["kept"] <= rec["guards"]


@pytest.mark.torch
def test_exception_in_the_hook_keeps_stock(toy: Any, toy_stock: Any) -> None:
    n, hist = _stock_count(toy, client=_FakeClient(error=RuntimeError("boom")))
    assert n == toy_stock.shape_guard_count()
    assert hist[-1]["error"] == "RuntimeError: boom"


@pytest.mark.torch
def test_cpp_symbolic_shape_guards(toy: Any) -> None:
    cpp = pg.Target(toy.name, toy.model, toy.example, toy.dims, toy.make_inputs,
                    dynamo_config={"enable_cpp_symbolic_shape_guards": True})
    stock = pg.compile_target(cpp, prune=False, backend="eager")
    pruned = pg.compile_target(cpp, prune=True, backend="eager")
    assert pruned.shape_guard_count() < stock.shape_guard_count()
    assert stock.shape_guard() is None  # the shape guards are C++ code, not a Python lambda
    out = pg.differential(cpp, shapes=100, stock=stock, pruned=pruned, backend="eager")
    assert out["disagreements"] == 0, out["examples"]
    assert out["shapes"]["accepted"] > 0 and out["shapes"]["rejected"] > 0


@pytest.mark.torch
def test_export_is_left_alone() -> None:
    """Only Dynamo's guard builder is pruned: torch.export's own produce_guards calls are not."""
    import symguard

    with symguard.torch.prune_guards() as pruner:
        torch.export.export(Toy(), (torch.randn(3, 21),), dynamic_shapes=({0: torch.export.Dim.AUTO,
                                                                           1: torch.export.Dim.AUTO},))
    assert pruner.history == []


@pytest.mark.torch
def test_install_uninstall_restore_pytorch() -> None:
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    import symguard

    original = ShapeEnv.produce_guards_verbose
    p1 = symguard.torch.install()
    p2 = symguard.torch.install()
    assert ShapeEnv.produce_guards_verbose is not original
    symguard.torch.uninstall(p1)
    assert ShapeEnv.produce_guards_verbose is not original
    symguard.torch.uninstall(p2)
    assert ShapeEnv.produce_guards_verbose is original


@pytest.mark.torch
def test_cli_prints_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from symguard.service.cli.main import main

    rc = main(["prune-guards", str(MODELS / "cnn_strided.py"), "--shapes", "40", "--backend", "eager"])
    line = capsys.readouterr().out.strip().splitlines()
    assert rc == 0 and len(line) == 1
    out = json.loads(line[0])
    for k in ("model", "guards", "check_us", "shapes", "disagreements", "compile_s"):
        assert k in out
    assert set(out["compile_s"]) >= {"stock", "pruned", "symguard"}
    assert out["shapes"]["tried"] == 40 and out["disagreements"] == 0


@pytest.mark.torch
def test_cli_bad_spec(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from symguard.service.cli.main import main

    bad = tmp_path / "bad.py"
    bad.write_text("x = 1\n")
    assert main(["prune-guards", str(bad)]) == 2
    assert json.loads(capsys.readouterr().out)["error"]["code"] == "invalid_problem"


@pytest.mark.torch
def test_cli_cache_and_cpp_options(capsys: pytest.CaptureFixture[str]) -> None:
    from symguard.service.cli.main import main

    rc = main(["prune-guards", str(MODELS / "cnn_strided.py"), "--shapes", "30", "--backend", "eager",
               "--cache", "warm", "--cpp-guards", "--stock-trace", "fast"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0, out["examples"]
    assert out["cache"] == "warm" and out["cpp_guards"] is True and out["stock_trace"] == "fast"
    assert out["by_kind"] == {"compile_error": 0, "own_guards": 0, "acceptance": 0, "output": 0}
    assert out["own_guards_checked"] > 0 and out["same_unpruned"] is True
    assert out["shape_check_us"] is None  # C++ shape guards: no Python lambda to time alone


@pytest.mark.torch
def test_stock_trace_is_checked() -> None:
    ex = (torch.randn(3, 21),)
    target = pg.Target("branchy", Branchy(), ex, {0: {0: (2, 32), 1: (2, 200)}}, lambda s: pg.random_inputs(ex, s))
    with pytest.raises(InvalidProblemError) as e:
        pg.differential(target, shapes=5, backend="eager", stock_trace="sympy")
    assert e.value.where == "--stock-trace"


class _DropAll:
    """A wrong oracle: every guard is ``redundant`` and nothing is minimal."""

    def redundancy(self, doc: dict[str, Any]) -> dict[str, Any]:
        ids = [g["id"] for g in doc["guards"]]
        return {"status": "sat", "minimal": [], "guards": [{"id": i, "verdict": "redundant"} for i in ids]}

    def simplify(self, doc: dict[str, Any]) -> dict[str, Any]:
        return {"status": "unknown"}


class Branchy(torch.nn.Module):
    """A branch on a product of two sizes: a two-symbol guard, not a range."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t = x.shape
        if b * t >= 60:
            return x * 2
        return x


@pytest.mark.torch
def test_a_wrong_pruner_is_caught_with_its_inputs() -> None:
    """Every kind of disagreement a pruning bug causes is counted, and listed with its shapes:
    the emitted code judges unlike the compile's own unpruned code, the compiles accept
    differently, and the pruned function runs a kernel that is not eager's."""
    ex = (torch.randn(3, 21),)
    target = pg.Target("branchy", Branchy(), ex, {0: {0: (2, 32), 1: (2, 200)}}, lambda s: pg.random_inputs(ex, s))
    stock = pg.compile_target(target, prune=False, backend="eager")
    wrong = pg.compile_target(target, prune=True, backend="eager", client=_DropAll())
    out = pg.differential(target, shapes=80, stock=stock, pruned=wrong, backend="eager")
    kinds = out["by_kind"]
    assert kinds["own_guards"] > 0 and kinds["acceptance"] > 0 and kinds["output"] > 0, kinds
    assert out["disagreements"] == sum(kinds.values()) == len(out["examples"])
    for ex in out["examples"]:
        assert len(ex["shape"]) == 1 and len(ex["shape"][0]) == 2
    acc = [ex for ex in out["examples"] if ex["kind"] == "acceptance"]
    assert all(ex["stock"] is False and ex["pruned"] is True for ex in acc)
    assert any(ex["accepting_matches_eager"] is False for ex in acc)


@pytest.mark.torch
def test_each_compile_sees_its_own_cache_dir(tmp_path: Path) -> None:
    import os

    from symguard.service.cli import guard_diff as gd

    before = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    with gd.priming(str(tmp_path)) as primed:
        Path(primed, "entry").write_text("cached")
    dirs = []
    for mode in ("cold", "warm", "warm"):
        with gd.cache_state(mode, str(tmp_path)) as d:
            assert os.environ["TORCHINDUCTOR_CACHE_DIR"] == d
            assert Path(d, "entry").exists() == (mode == "warm")
            Path(d, "written").write_text("by this compile")
            dirs.append(d)
    assert len(set(dirs)) == 3 and not Path(primed, "written").exists()
    assert os.environ.get("TORCHINDUCTOR_CACHE_DIR") == before


# ------------------------------------------------------------------ six real models, 0 disagreements

REAL = ["swin_window", "vit_patchify", "unet_tiny", "cnn_strided", "wav2vec2_tiny", "unbacked_nonzero"]


@pytest.mark.torch
@pytest.mark.filterwarnings("ignore:Dynamo detected a call to a `functools.lru_cache`:UserWarning")  # transformers
@pytest.mark.parametrize("name", REAL)
def test_real_models_agree(name: str) -> None:
    spec = pg.load_spec(MODELS / f"{name}.py")
    for mod in spec.requires:
        pytest.importorskip(mod)
    out = pg.differential(pg.target_from_spec(spec), shapes=100, backend="eager")
    assert out["disagreements"] == 0, out["examples"]
    assert out["shapes"]["accepted"] > 0 and out["shapes"]["rejected"] > 0, out["shapes"]
    assert out["guards"]["pruned"] <= out["guards"]["stock"]
    assert out["errors"] == [] and out["forms_errors"] == []


class _Helper:
    def __init__(self, exprs: list[str]) -> None:
        self.exprs = exprs


def test_duplicates_go_in_every_language_at_once() -> None:
    py = _Helper(["a == 1", "b == 2", "a == 1", "c >= 2"])
    verbose = _Helper(["a == 1  # x", "b == 2  # y", "a == 1  # z", "c >= 2  # w"])
    cpp = _Helper(["a == 1", "b == 2", "a == 1", "c >= 2"])
    assert torch_hook.drop_duplicates([py, verbose, cpp]) == 1
    assert py.exprs == ["a == 1", "b == 2", "c >= 2"] and cpp.exprs == py.exprs
    assert verbose.exprs == ["a == 1  # x", "b == 2  # y", "c >= 2  # w"]
    ragged = [_Helper(["a", "a"]), _Helper(["a"])]
    assert torch_hook.drop_duplicates(ragged) == 0 and ragged[0].exprs == ["a", "a"]


# ------------------------------------------------------------------ cheaper forms of the kept guards

sympy = pytest.importorskip("sympy")


def _x() -> Any:
    return sympy.Symbol("x", integer=True, positive=True)


def _swap_problem(lo: int) -> tuple[dict[str, Any], list[Any]]:
    """``x <= 90`` (required) and an equality that holds wherever it is defined (``x >= 4``): its
    divisor ``x//4`` is zero at 2 and 3, where the stock guard raises and so rejects."""
    from torch.utils._sympy.functions import FloorDiv, PythonMod

    x = _x()
    doc = {"symbols": {"x": {"min": lo, "max": 100, "hint": 50}}, "asserts": [],
           "guards": [{"id": "g0", "expr": "x <= 90"},
                      {"id": "g1", "expr": "Eq(Mod(x + 4*(x//4), x//4), Mod(x, x//4))"}],
           "options": {"on_unsupported": "skip", "default_min": None}}
    exprs = [x <= 90, sympy.Eq(PythonMod(x + 4 * FloorDiv(x, 4), FloorDiv(x, 4)), PythonMod(x, FloorDiv(x, 4)))]
    return doc, exprs


@pytest.mark.parametrize(("lo", "dropped"), [(2, False), (4, True)])
def test_a_form_replaces_its_guard_only_where_the_original_is_defined(lo: int, dropped: bool) -> None:
    """Regression: a guard ``simplify`` proves ``True`` divides by ``x//4``; with ``x`` allowed
    down to 2 the stock check raises (rejects) at 2 and 3, so the guard must stay."""
    import types

    doc, exprs = _swap_problem(lo)
    x = exprs[0].free_symbols.pop()
    env = types.SimpleNamespace(backed_var_to_val={x: 50}, var_to_val={x: 50})
    res = {"status": "sat", "guards": [{"id": "g0", "verdict": "required"}, {"id": "g1", "verdict": "unknown"}]}
    forms, keep = torch_forms.cheaper_forms(torch_prune.GuardPruner(), env, doc, exprs, res, {0, 1})
    assert keep == {0, 1}
    assert forms == ({1: True} if dropped else {})


def test_divisors_are_read_or_refused() -> None:
    from torch.utils._sympy.functions import FloorDiv, ModularIndexing, PythonMod

    x, y = _x(), sympy.Symbol("y", integer=True, positive=True)
    assert torch_forms._divisors(sympy.Eq(PythonMod(x, 4), 0)) == []
    assert torch_forms._divisors(FloorDiv(x, y) >= 2) == [y]
    assert torch_forms._divisors(ModularIndexing(x, y, 8) >= 1) == [y]
    assert torch_forms._divisors(sympy.Function("SomeDiv")(x, y) >= 1) is None  # a division this code does not know


_CONDS = conds(["x", "y"])


@settings(max_examples=200, deadline=None)
@given(st.one_of(_CONDS, st.tuples(_CONDS, _CONDS).map(lambda p: f"({p[0]}) & ({p[1]})"),
                 st.tuples(_CONDS, _CONDS, _CONDS).map(lambda p: f"(({p[0]}) | ({p[1]})) & ~({p[2]})")))
def test_forms_print_to_python_with_symguards_values(text: str) -> None:
    """What Dynamo runs for a form (read by ``form_to_sympy``, printed by PyTorch's Python printer)
    has symguard's value wherever symguard's is defined, for divisors of any sign (PyTorch's
    functions are built unevaluated: evaluated, ``(x//-3)//-3`` would become ``x//9``). sympy may
    still fold a division away (``x//x - x//x`` is 0), so the code can be defined where the form
    is not: the bridge hands symguard the emitted version, not the form's text,
    when it asks whether originals are defined."""
    from torch.utils._sympy.printers import PythonPrinter

    from symguard.solver.ir import terms as ir
    from symguard.solver.ir.pyeval import evaluate, holds
    from symguard.solver.syntax.sympy_reader import parse_sympy
    from symguard.solver.syntax.sympy_writer import to_sympy

    form = to_sympy(parse_sympy(text).term)
    syms = {n: sympy.Symbol(n, integer=True) for n in ("x", "y")}
    e = torch_forms.form_to_sympy(form, syms)
    if e is None:
        return  # refused (a constant false, or a construct the reader leaves alone): the guard stays
    code = "True" if e is True else PythonPrinter().doprint(e)
    term = parse_sympy(form).term
    # every divisor non-zero: sympy re-orders And/Or operands, and PyTorch's printer follows its
    # order, not the form's (docs/problem-format.md §1.2: and/or evaluate in the printed order)
    strict = ir.mk_and(*(ir.mk_ne(d.args[1], ir.ZERO) for d in ir.divisions_of(term)))
    for xv in range(-5, 6):
        for yv in range(-4, 5):
            if not holds(strict, {"x": xv, "y": yv}):
                continue
            want = bool(evaluate(term, {"x": xv, "y": yv}))
            got = bool(eval(code, {"max": max, "min": min}, {"x": xv, "y": yv}))
            assert got == want, (text, form, code, xv, yv)


def test_recompiles_hit_the_process_cache() -> None:
    torch_cache.clear_cache()
    doc = {"symbols": {"s0": {"min": 2, "max": None}}, "asserts": [],
           "guards": [{"id": "g0", "expr": "s0 >= 16"}, {"id": "g1", "expr": "s0 >= 8"}], "options": {}}
    first, again = torch_cache.cached_run("redundancy", doc), torch_cache.cached_run("redundancy", doc)
    assert first["cached"] is False and again["cached"] is True
    assert again["guards"] == first["guards"] and again["minimal"] == first["minimal"]
    renamed = {**doc, "symbols": {"s9": {"min": 2, "max": None}},
               "guards": [{"id": "g0", "expr": "s9 >= 16"}, {"id": "g1", "expr": "s9 >= 8"}]}
    other = torch_cache.cached_run("redundancy", renamed)  # the same canonical problem: no second solve
    assert other["cached"] is True and other["minimal"] == first["minimal"]
    torch_cache.clear_cache()
