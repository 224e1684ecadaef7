"""``symguard trace DIR`` (service/cli/trace.py, service/trace/).

Without torch: the log reader, the translation of emitted guard lines, and the CLI's errors and
report on a small log written here in PyTorch 2.13's format. With torch (slow): traces made here
from real ``torch.compile(dynamic=True, backend="eager")`` runs of models of the bundled zoo
(``examples/models``): ``reshape_heads`` compiled twice (a recompile) and the Swin-class
``swin_window``. Their reports are checked against Python's own evaluation of the guard lines
at many input sizes (dropped lines change no verdict; each ``implied_by`` implies its line), and
the Swin report is opened in a real headless chromium driven by playwright: it renders, its
``implied_by`` links land on their rows, no console error, no request outside ``file://``.
"""

from __future__ import annotations

import io
import json
import math
import os
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symguard.service.cli import main
from symguard.service.cli.trace import run_trace
from symguard.service.trace.log import compiles, records, shape_guards
from symguard.service.trace.problem import SOURCE, build, translate
from symguard.solver import load_problem, run
from symguard.solver.ir.pyeval import holds

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "examples" / "models"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


# ------------------------------------------------------------------ a small log in torch 2.13's format

def _rec(obj: dict[str, Any], payload: str | None = None) -> str:
    head = f"V1126 13:52:48.320000 5597 torch/_dynamo/convert_frame.py:303] {json.dumps(obj)}\n"
    if payload is None:
        return head
    obj = {**obj, "has_payload": "0123456789abcdef"}
    head = f"V1126 13:52:48.320000 5597 torch/_dynamo/convert_frame.py:303] {json.dumps(obj)}\n"
    return head + "".join(f"\t{line}\n" for line in payload.split("\n"))


def _ids(fcid: int, attempt: int = 0) -> dict[str, int]:
    return {"frame_id": 0, "frame_compile_id": fcid, "attempt": attempt}


TREE_0 = """
TREE_GUARD_MANAGER:
+- RootGuardManager
| +- LAMBDA_GUARD: torch._functorch.aot_autograd.utils.top_saved_tensors_hooks ids == None  # _dynamo/output_graph.py:1135 in init_ambient_guards
+- LAMBDA_GUARD: L['x'].stride()[0] == 8*L['x'].size()[1]  # (unknown source L['x'].stride()[0], please file a bug)
+- LAMBDA_GUARD: (L['x'].size()[1] % 2) == 0  # y = x.view(b, n // 2, 2, c)  # m.py:10 in forward
+- LAMBDA_GUARD: (L['x'].size()[1] // 2) != L['x'].size()[1]  # y = x.view(b, n // 2, 2, c)  # m.py:10 in forward
+- LAMBDA_GUARD: max(1, L['x'].size()[1] // 2) >= 1  # y = x.view(b, n // 2, 2, c)  # m.py:10 in forward
+- LAMBDA_GUARD: L['self'].eps == 1e-05  # return F.layer_norm(  # nn/modules/normalization.py:228 in forward
+- LAMBDA_GUARD: 2 <= L['x'].size()[0]  # b, n, c = x.shape  # m.py:9 in forward
+- LAMBDA_GUARD: 2 <= L['x'].size()[1]  # b, n, c = x.shape  # m.py:9 in forward
+- LAMBDA_GUARD: G['F'] is G['torch']  # F.linear  # m.py:11 in forward

Guard latency = 152.04 us"""

TREE_1 = """
TREE_GUARD_MANAGER:
+- RootGuardManager
+- LAMBDA_GUARD: (L['x'].size()[1] % 2) != 0  # y = x if n % 2 else x.view(b, n // 2, 2, c)  # m.py:10 in forward
+- LAMBDA_GUARD: 2 <= L['x'].size()[1]  # b, n, c = x.shape  # m.py:9 in forward
Guard latency = 137.24 us"""


def _symbol(sym: str, val: str, source: str, fcid: int, attempt: int = 0) -> str:
    return _rec({"create_symbol": {"symbol": sym, "val": val, "vr": "[2, int_oo]", "source": source,
                                   "user_stack": [], "stack": []}, **_ids(fcid, attempt)})


def tiny_log() -> str:
    """Two compiles of one frame (a recompile), the first restarted once: what reader and CLI see."""
    parts = [
        _rec({"artifact": {"name": "torch_version", "encoding": "json"}}, '{"pytorch_version": "2.13.0+cpu"}'),
        _rec({"str": ["/home/u/m.py", 1]}),
        _rec({"dynamo_start": {"stack": [{"line": 8, "name": "forward", "filename": 1}]}, **_ids(0)}),
        _symbol("s9", "3", "L['x'].size()[0]", 0),  # attempt 0: thrown away by the restart
        _symbol("s77", "3", "L['x'].size()[0]", 0, attempt=1),
        _symbol("s27", "10", "L['x'].size()[1]", 0, attempt=1),
        _rec({"guard_added_fast": {"expr": "Eq(Mod(s27, 2), 0)", "user_stack": [], "stack": []}, **_ids(0, 1)}),
        _rec({"symbolic_shape_specialization": {"symbol": "s53", "sources": ["L['x'].size()[2]"], "value": "8",
                                                "reason": "range_refined_to_singleton"}, **_ids(0, 1)}),
        _rec({"dynamo_cpp_guards_str": {}, **_ids(0, 1)}, TREE_0),
        _rec({"compilation_metrics": {"compile_id": "0/0", "co_name": "forward", "co_filename": "/home/u/m.py",
                                      "co_firstlineno": 8, "entire_frame_compile_time_s": 2.1, "fail_reason": None},
              **_ids(0, 1)}),
        "this line is not a record\n",
        _rec({"artifact": {"name": "recompile_reasons", "encoding": "json"}, **_ids(1)},
             "0/0: (x.size()[1] % 2) == 0  # y = x.view(b, n // 2, 2, c)  # m.py:10 in forward"),
        _rec({"dynamo_start": {"stack": [{"line": 8, "name": "forward", "filename": 1}]}, **_ids(1)}),
        _symbol("s27", "13", "L['x'].size()[1]", 1),
        _rec({"dynamo_cpp_guards_str": {}, **_ids(1)}, TREE_1),
        _rec({"compilation_metrics": {"compile_id": "0/1", "co_name": "forward", "co_filename": "/home/u/m.py",
                                      "co_firstlineno": 8}, **_ids(1)}),
    ]
    return "".join(parts)


def test_records_and_compiles_follow_the_last_attempt() -> None:
    recs, bad = records(tiny_log())
    assert bad == 1 and recs[0].name == "artifact" and recs[0].payload == '{"pytorch_version": "2.13.0+cpu"}'
    c0, c1 = list(compiles("t.log", recs))
    assert (c0.compile_id, c1.compile_id) == ("0/0", "0/1")
    assert c0.attempt == 1 and [s.name for s in c0.symbols] == ["s77", "s27"]  # attempt 0's s9 is gone
    assert c0.co_name == "forward" and c0.co_filename == "/home/u/m.py" and c0.co_firstlineno == 8
    assert c0.guard_latency_us == pytest.approx(152.04) and c0.recorded_guards == ["Eq(Mod(s27, 2), 0)"]
    assert c0.emitted is not None and len(c0.emitted) == 7 and len(c0.identity_guards) == 1
    assert c0.emitted[1].code == "(L['x'].size()[1] % 2) == 0" and c0.emitted[1].origin.endswith("m.py:10 in forward")
    assert c0.specializations[0]["symbol"] == "s53" and c0.metrics["entire_frame_compile_time_s"] == 2.1
    assert c1.recompile_reasons == ["0/0: (x.size()[1] % 2) == 0  # y = x.view(b, n // 2, 2, c)  # m.py:10 in forward"]


def test_recompile_reasons_as_a_json_list() -> None:
    log = _rec({"artifact": {"name": "recompile_reasons", "encoding": "json"}, **_ids(2)}, json.dumps(["a", "b"]))
    (c,) = compiles("t.log", records(log)[0])
    assert c.recompile_reasons == ["a", "b"] and c.emitted is None


def test_shape_guards_keep_only_top_level_lambda_lines() -> None:
    shape, identity, latency = shape_guards(TREE_1)
    assert [g.code for g in shape] == ["(L['x'].size()[1] % 2) != 0", "2 <= L['x'].size()[1]"]
    assert identity == [] and latency == pytest.approx(137.24)


@pytest.mark.parametrize(("code", "text"), [
    ("(L['x'].size()[1] % 2) == 0", "(s1 % 2) == 0"),
    ("max(1, L['x'].size()[1] // 2) >= min(L['x'].size()[0], 3)", "Max(1, s1 // 2) >= Min(s0, 3)"),
    ("(L['x'].size()[1] // 4) == abs(L['x'].stride()[0])", "(s1 // 4) == Abs(src0)"),
])
def test_translate_reads_python_guard_lines(code: str, text: str) -> None:
    names = {"L['x'].size()[0]": "s0", "L['x'].size()[1]": "s1", "L['x'].stride()[0]": "src0"}
    got, why = translate(code, names, dict.fromkeys(names, True))
    assert (got, why) == (text, None)


@pytest.mark.parametrize(("code", "why"), [
    ("L['self'].eps == 1e-05", "not known to be an integer"),  # a float attribute: never read as an integer
    ("(L['x'].size()[0] if L['x'].size()[1] else 2) == 3", "unsupported"),
    ("___check_obj_id(L['x'], 7)", ""),
    # Python computes these in doubles: at 2**53 + 1 the first is false, its exact reading true
    ("2*math.ceil(L['x'].size()[0] / 2) >= L['x'].size()[0]", "floats"),
    ("math.floor(L['x'].size()[1] / 4) == abs(L['x'].size()[0])", "floats"),
    ("L['x'].size()[0] / 2 >= 3", "floats"),
    ("L['x'].size()[0] >= 2.5", "floats"),
])
def test_translate_leaves_unreadable_lines_out(code: str, why: str) -> None:
    names = {"L['x'].size()[0]": "s0", "L['x'].size()[1]": "s1"}
    got, reason = translate(code, names, dict.fromkeys(names, True))
    assert got is None and reason is not None and why in reason


_SRC = ["L['x'].size()[0]", "L['x'].size()[1]", "L['x'].stride()[0]", "L['y'].storage_offset()"]
_ints = st.one_of(st.sampled_from(_SRC), st.integers(-3, 9).map(lambda k: f"({k})" if k < 0 else str(k)))


def _combine(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    two = st.tuples(children, children)
    return st.one_of(
        two.map(lambda ab: f"({ab[0]} + {ab[1]})"), two.map(lambda ab: f"{ab[0]}*{ab[1]}"),
        two.map(lambda ab: f"({ab[0]} // {ab[1]})"), two.map(lambda ab: f"({ab[0]} % {ab[1]})"),
        two.map(lambda ab: f"max({ab[0]}, {ab[1]})"), two.map(lambda ab: f"min({ab[0]}, {ab[1]})"),
        children.map(lambda a: f"abs({a})"))


_exprs = st.recursive(_ints, _combine, max_leaves=6)
_lines = st.tuples(_exprs, st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), _exprs, st.booleans()).map(
    lambda t: f"not ({t[0]} {t[1]} {t[2]})" if t[3] else f"{t[0]} {t[1]} {t[2]}")


@settings(max_examples=300, deadline=None)
@given(_lines, st.lists(st.one_of(st.integers(0, 40), st.sampled_from([2**31, 2**53 + 1, 2**62 + 3])),
                        min_size=4, max_size=4))
def test_translation_means_what_python_evaluates(code: str, values: list[int]) -> None:
    """What symguard reads from a guard line is what Python computes from it, at every point
    where Python computes anything (a zero divisor makes both reject)."""
    names = dict(zip(_SRC, ["s0", "s1", "src0", "src1"]))
    text, why = translate(code, names, dict.fromkeys(_SRC, True))
    assert why is None and text is not None, why
    env = dict(zip(names.values(), values))
    py = SOURCE.sub(lambda m: f"V[{m.group(0)!r}]", code)
    try:
        expected = bool(eval(py, {"math": math, "max": max, "min": min, "abs": abs,  # our own line
                                  "V": dict(zip(_SRC, values))}))
    except ZeroDivisionError:
        expected = False
    term = load_problem({"guards": [text]}).guards[0].term
    assert term is not None and holds(term, env) == expected, (code, text, env)


def test_problem_has_sizes_non_negative_and_hints() -> None:
    (c0, _) = list(compiles("t.log", records(tiny_log())[0]))
    doc, lines = build(c0)
    assert doc["symbols"] == {"s27": {"min": 0, "hint": 10}, "s77": {"min": 0, "hint": 3}, "src0": {"min": 0}}
    assert [ln.id for ln in lines if ln.text is None] == ["g4"]  # the eps line
    assert doc["meta"]["sources"]["src0"] == "L['x'].stride()[0]"
    assert [g["id"] for g in doc["guards"]] == ["g0", "g1", "g2", "g3", "g5", "g6"]


def _trace(tmp_path: Path, argv: list[str]) -> tuple[int, dict[str, Any]]:
    buf = io.StringIO()
    code = main(["trace", *argv], out=buf)
    lines = buf.getvalue().splitlines()
    assert len(lines) == 1, buf.getvalue()
    return code, json.loads(lines[0])


def test_cli_writes_html_json_and_problems(tmp_path: Path) -> None:
    d = tmp_path / "tr"
    d.mkdir()
    (d / "dedicated_log_torch_trace_abc.log").write_text(tiny_log(), encoding="utf-8")
    out = tmp_path / "report"
    code, line = _trace(tmp_path, [str(d), "--out", str(out)])
    assert code == 0 and line["compiles"] == 2 and line["recompiles"] == 1
    assert line["lines"] == {"before": 9, "after": 7}
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    c0 = report["compiles"][0]
    verdicts = {g["id"]: (g["verdict"], g["kept"], g["implied_by"]) for g in c0["guards"]}
    # n % 2 == 0 and n >= 2 make n // 2 != n; Max(1, ...) >= 1 holds for every size
    assert verdicts["g2"] == ("redundant", False, ["g6"]) and verdicts["g3"][:2] == ("always_true", False)
    assert verdicts["g4"] == ("unread", True, []) and verdicts["g1"] == ("required", True, [])
    assert c0["cost"]["before"]["lines"] == 7 and c0["cost"]["after"]["lines"] == 5
    assert c0["cost"]["after"]["divs"] < c0["cost"]["before"]["divs"]
    assert report["compiles"][1]["recompile_reasons"][0].startswith("0/0: (x.size()[1] % 2) == 0")
    assert any("not trace records" in w for w in report["warnings"])
    problem = json.loads((out / "problems" / "c-0-0.json").read_text(encoding="utf-8"))
    assert set(run("redundancy", problem)["minimal"]) == set(c0["minimal"]) - {"g4"}  # g4 is never asked
    page = (out / "index.html").read_text(encoding="utf-8")
    assert 'id="c-0-0-g6"' in page and 'href="#c-0-0-g6"' in page and "<svg" in page
    assert "<script" not in page and "http:" not in page and "https:" not in page and " src=" not in page


def test_cli_single_file_and_remote(tmp_path: Path) -> None:
    from service_helpers import running_server

    from symguard.service.settings import Settings

    f = tmp_path / "one.log"
    f.write_text(tiny_log(), encoding="utf-8")
    code, local = _trace(tmp_path, [str(f), "--out", str(tmp_path / "a")])
    with running_server(Settings(workers=1)) as url:
        rcode, remote = _trace(tmp_path, [str(f), "--out", str(tmp_path / "b"), "--remote", url])
    assert code == rcode == 0 and local["lines"] == remote["lines"]
    a = json.loads((tmp_path / "a" / "report.json").read_text(encoding="utf-8"))
    b = json.loads((tmp_path / "b" / "report.json").read_text(encoding="utf-8"))
    assert [[g["verdict"] for g in e["guards"]] for e in a["compiles"]] == \
        [[g["verdict"] for g in e["guards"]] for e in b["compiles"]]


def test_cli_remote_down_keeps_every_line_and_exits_1(tmp_path: Path) -> None:
    from service_helpers import free_port

    f = tmp_path / "one.log"
    f.write_text(tiny_log(), encoding="utf-8")
    code, line = _trace(tmp_path, [str(f), "--out", str(tmp_path / "r"), "--remote", f"http://127.0.0.1:{free_port()}"])
    assert code == 1 and line["lines"]["before"] == line["lines"]["after"] == 9
    assert any("127.0.0.1" in w for w in line["warnings"])


def test_several_logs_a_failed_compile_and_the_progress_bar(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two processes' logs (one per rank) keep their compiles apart; a compile that failed before
    installing guards is listed without a question; the bar changes nothing but stderr."""
    d = tmp_path / "tr"
    d.mkdir()
    failed = (_rec({"dynamo_start": {"stack": [{"line": 3, "name": "step", "filename": "t.py"}]}, **_ids(0)})
              + _rec({"compilation_metrics": {"compile_id": "0/0", "co_name": "step", "fail_type": "Unsupported",
                                              "fail_reason": "graph break"}, **_ids(0)}))
    (d / "dedicated_log_torch_trace_rank0.log").write_text(tiny_log(), encoding="utf-8")
    (d / "dedicated_log_torch_trace_rank1.log").write_text(failed, encoding="utf-8")
    quiet, code = run_trace(str(d), tmp_path / "q", run)
    shown, code2 = run_trace(str(d), tmp_path / "p", run, progress=True)
    assert code == code2 == 0 and quiet["lines"] == shown["lines"] == {"before": 9, "after": 7}
    assert capsys.readouterr().out == ""
    report = json.loads((tmp_path / "p" / "report.json").read_text(encoding="utf-8"))
    assert [(e["file"], e["compile_id"], e["anchor"], e["status"]) for e in report["compiles"]] == [
        ("dedicated_log_torch_trace_rank0.log", "0/0", "c-0-0-0", "sat"),
        ("dedicated_log_torch_trace_rank0.log", "0/1", "c-0-0-1", "sat"),
        ("dedicated_log_torch_trace_rank1.log", "0/0", "c-1-0-0", "no_guards")]
    assert report["compiles"][2]["metrics"]["fail_reason"] == "graph break"
    page = (tmp_path / "p" / "index.html").read_text(encoding="utf-8")
    assert 'id="c-1-0-0"' in page and "graph break" in page and "log file dedicated_log_torch_trace_rank1.log" in page
    assert ">#0 0/0 forward<" in page and ">#1 0/0 step<" in page  # the nav tells the two 0/0 apart


def _write(d: Path, name: str, data: bytes) -> None:
    d.mkdir(exist_ok=True)
    (d / name).write_bytes(data)


@pytest.mark.parametrize(("setup", "words"), [
    (lambda d: None, "no such directory"),
    (lambda d: d.mkdir(), "no TORCH_TRACE log"),
    (lambda d: _write(d, "dedicated_log_torch_trace_x.log", b""), "is empty"),
    (lambda d: _write(d, "dedicated_log_torch_trace_x.log", b"\x00\xff garbage\nmore garbage\n"), "no TORCH_TRACE record"),
    (lambda d: _write(d, "a.log", _rec({"artifact": {"name": "torch_version", "encoding": "json"}}, "{}").encode()),
     "no compile"),
])
def test_cli_errors_on_a_bad_directory(tmp_path: Path, setup: Any, words: str, capsys: pytest.CaptureFixture[str]) -> None:
    d = tmp_path / "tr"
    setup(d)
    code, line = _trace(tmp_path, [str(d), "--out", str(tmp_path / "o")])
    assert code == 2 and line["error"]["code"] == "invalid_problem" and words in line["error"]["message"]
    assert line["error"]["where"] == str(d) or line["error"]["where"].startswith(str(d))
    assert "Traceback" not in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_cli_unwritable_out(tmp_path: Path) -> None:
    f = tmp_path / "one.log"
    f.write_text(tiny_log(), encoding="utf-8")
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    code, line = _trace(tmp_path, [str(f), "--out", str(blocker / "sub")])
    assert code == 2 and line["error"]["where"] == "--out"


# ------------------------------------------------------------------ real traces of the zoo (torch)

# Dynamo traces with ``service.torch_fast`` on: the same guards and recompiles as stock PyTorch
# (tests/test_torch_fast.py; test_prune_guards compares stock and fast-traced pruned on swin_window),
# in well under half the time (swin_window: 2.5x faster). What is checked here is the
# report on whatever guards PyTorch emitted, not how PyTorch arrived at them.
GEN = r"""
import importlib.util, sys, torch
from symguard.service import torch_fast
torch_fast.enable()
spec = importlib.util.spec_from_file_location("zoo_model", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
model = mod.build_model().eval()
example = mod.example_inputs()
compiled = torch.compile(model, dynamic=True, backend="eager")

def like(t, shape):
    return torch.randn(shape, dtype=t.dtype) if t.is_floating_point() else torch.zeros(shape, dtype=t.dtype)

with torch.no_grad():
    compiled(*example)
    for call in sys.argv[2:]:  # "3x24,3x24": one shape per input
        shapes = [tuple(int(d) for d in s.split("x")) for s in call.split(",")]
        compiled(*(like(t, s) for t, s in zip(example, shapes)))
"""


def make_trace(out: Path, model: str, *calls: str) -> Path:
    """TORCH_TRACE of a fresh process compiling ``examples/models/<model>.py`` at its example
    inputs, then called at ``calls`` (each may recompile)."""
    env = {**os.environ, "TORCH_TRACE": str(out), "PYTHONPATH": str(ROOT)}
    env.pop("TORCH_LOGS", None)
    proc = subprocess.run([sys.executable, "-c", GEN, str(MODELS / f"{model}.py"), *calls], env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def reshape_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    pytest.importorskip("torch")
    base = tmp_path_factory.mktemp("reshape_heads")
    trace = make_trace(base / "trace", "reshape_heads", "3x24,3x24")  # t = 24: no padding, a recompile
    line, code = run_trace(str(trace), base / "report", run)
    assert code == 0, line
    return base / "report", json.loads((base / "report" / "report.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def swin_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    pytest.importorskip("torch")
    base = tmp_path_factory.mktemp("swin_window")
    trace = make_trace(base / "trace", "swin_window")
    line, code = run_trace(str(trace), base / "report", run)
    assert code == 0, line
    return base / "report", json.loads((base / "report" / "report.json").read_text(encoding="utf-8"))


def _evaluator(entry: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    """Compiled Python of each read line, and a function from source values to its truth."""
    codes = {g["id"]: compile(SOURCE.sub(lambda m: f"V[{m.group(0)!r}]", g["code"]), g["id"], "eval")
             for g in entry["guards"] if g["symguard"] is not None}
    env = {"math": math, "max": max, "min": min, "abs": abs}

    def holds(gid: str, values: dict[str, int]) -> bool:
        try:
            return bool(eval(codes[gid], {**env, "V": values}))
        except ZeroDivisionError:
            return False  # a guard that divides by zero rejects the input (docs/problem-format.md §1.2)

    return codes, holds


def _points(entry: dict[str, Any], n: int, seed: int) -> list[dict[str, int]]:
    """Source values near the traced ones: each size from a spread around its hint (including
    0, 1 and values past it); strides and other sources without a hint follow their defining
    ``src == expr`` line most of the time, so the stride lines do not reject everything."""
    rng = random.Random(seed)
    problem = entry["problem"]
    sources = problem["meta"]["sources"]
    hints = {sources[k]: v.get("hint") for k, v in problem["symbols"].items()}
    define = {}
    for g in entry["guards"]:
        m = re.fullmatch(r"(\S+) == (.+)", g["code"])
        if g["symguard"] is not None and m and m.group(1) in hints and hints[m.group(1)] is None:
            define[m.group(1)] = compile(SOURCE.sub(lambda mm: f"V[{mm.group(0)!r}]", m.group(2)), "d", "eval")
    out = []
    for _ in range(n):
        v: dict[str, int] = {}
        for src, hint in hints.items():
            if hint is not None:
                v[src] = rng.choice([0, 1, 2, 3, hint, hint + 1, hint - 1, 2 * hint, rng.randint(0, 4 * hint + 16),
                                     rng.randint(max(0, hint - 16), hint + 16)])
        for src in hints:
            if src not in v:
                v[src] = rng.randint(0, 64)
                if src in define and rng.random() < 0.85:
                    try:
                        v[src] = max(0, int(eval(define[src], {"V": v, "max": max, "min": min})))
                    except ZeroDivisionError:
                        pass
        out.append(v)
    return out


def _check_against_python(entry: dict[str, Any], n: int) -> tuple[int, int]:
    """Dropped lines never change the verdict of the check, and every ``implied_by`` implies its
    line, at ``n`` points; returns (accepted, rejected) so a test can see both happened."""
    codes, holds = _evaluator(entry)
    read = [g for g in entry["guards"] if g["symguard"] is not None]
    kept = [g["id"] for g in read if g["kept"]]
    dropped = [g for g in read if not g["kept"]]
    acc = rej = 0
    for v in _points(entry, n, seed=len(codes)):
        all_ok = all(holds(g["id"], v) for g in read)
        assert all_ok == all(holds(k, v) for k in kept), (entry["compile_id"], v)
        for g in dropped:
            if all(holds(x, v) for x in g["implied_by"]):
                assert holds(g["id"], v), (entry["compile_id"], g["id"], g["implied_by"], v)
        acc += all_ok
        rej += not all_ok
    return acc, rej


@pytest.mark.slow
@pytest.mark.torch
def test_reshape_heads_recompile_report(reshape_report: tuple[Path, dict[str, Any]]) -> None:
    _, report = reshape_report
    entries = report["compiles"]
    assert [e["compile_id"] for e in entries] == ["0/0", "0/1"]
    assert entries[1]["recompile_reasons"] and entries[1]["recompile_reasons"][0].startswith("0/0:")
    for e in entries:
        assert e["status"] == "sat" and e["symbols"] and e["guard_latency_us"] > 0
        assert e["cost"]["after"]["lines"] < e["cost"]["before"]["lines"]
        assert {g["verdict"] for g in e["guards"]} >= {"required", "redundant"}
        acc, rej = _check_against_python(e, 1500)
        assert acc > 0 and rej > 0
    assert report["totals"]["recompiles"] == 1


@pytest.mark.slow
@pytest.mark.torch
def test_swin_report_is_sound_against_python(swin_report: tuple[Path, dict[str, Any]]) -> None:
    _, report = swin_report
    (e,) = report["compiles"]
    assert e["co_name"] == "forward" and e["co_filename"].endswith("swin_window.py")
    assert e["cost"]["before"]["lines"] > 100 and e["cost"]["after"]["lines"] * 4 < e["cost"]["before"]["lines"]
    acc, rej = _check_against_python(e, 600)
    assert acc > 0 and rej > 0


@pytest.mark.slow
@pytest.mark.torch
def test_swin_report_in_a_headless_browser(swin_report: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium is not installed (.ci/run installs it)")
    sync_api = pytest.importorskip("playwright.sync_api")
    out, report = swin_report
    (e,) = report["compiles"]
    source, target = next((g["id"], g["implied_by"][0]) for g in e["guards"] if g["implied_by"])
    errors: list[str] = []
    requests: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 800})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.on("request", lambda r: requests.append(r.url))
            page.goto((out / "index.html").as_uri())
            assert page.locator("h1").is_visible()
            assert page.locator("svg rect").count() == 2 * len(report["compiles"])
            assert page.locator("table.guards tr[id]").count() == len(e["guards"])
            row = page.locator(f"[id='{e['anchor']}-{source}']")
            row.scroll_into_view_if_needed()
            row.locator(f"a[href='#{e['anchor']}-{target}']").click()
            page.wait_for_function(f"location.hash === '#{e['anchor']}-{target}'")
            dest = page.locator(f"[id='{e['anchor']}-{target}']")
            assert dest.is_visible()
            assert page.evaluate("document.querySelector(':target').id") == f"{e['anchor']}-{target}"
            sync_api.expect(dest).to_be_in_viewport()  # the browser scrolled to it
            page.screenshot(path=str(tmp_path / "report.png"))
        finally:
            browser.close()
    assert errors == []
    assert requests and all(u.startswith("file://") for u in requests), requests
