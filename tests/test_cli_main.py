"""``service.cli.main``: what a new user hits first — bad text, empty files, --version, --remote.

No input ends a run: each file gets its line (a result or an error naming where), the next file
is still answered, and the exit status is the worst outcome.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from symguard.service.cli import main

GOOD = {"guards": ["s0 >= 7"]}
SURROGATE = '{"guards": [{"id": "\\ud800", "expr": "s0 >= 7"}, "s0 >= 0"]}'  # JSON text: a lone \ud800 escape


def _run(argv: list[str], out: Any = None) -> tuple[int, list[dict[str, Any]]]:
    buf = out if out is not None else io.StringIO()
    code = main(argv, out=buf)
    text = buf.getvalue() if isinstance(buf, io.StringIO) else buf.buffer.getvalue().decode("ascii")
    return code, [json.loads(line) for line in text.splitlines()]


def _file(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return str(p)


@pytest.mark.parametrize("op", ["solve", "redundancy"])
def test_a_lone_surrogate_is_an_invalid_problem_and_later_files_are_answered(tmp_path: Path, op: str) -> None:
    bad, good = _file(tmp_path, "bad.json", SURROGATE), _file(tmp_path, "good.json", json.dumps(GOOD))
    code, [err, res] = _run([op, bad, good])
    assert code == 2
    assert err["error"]["code"] == "invalid_problem" and err["file"] == bad
    assert (err["error"]["where"], err["error"]["offset"]) == ("guards[0].id", 0)
    assert res["status"] == "sat"


def test_surrogates_in_keys_and_nested_values_name_their_place(tmp_path: Path) -> None:
    doc = '{"symbols": {"s0": {"min": 2}}, "inputs": {"x": ["s0", "s\\udc801"]}}'
    code, [err] = _run(["solve", _file(tmp_path, "p.json", doc)])
    assert code == 2 and err["error"]["where"] == "inputs.x[1]" and err["error"]["offset"] == 1


def test_a_stream_that_cannot_encode_an_id_gets_escapes_not_a_crash(tmp_path: Path) -> None:
    out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    code, [res] = _run(["redundancy", _file(tmp_path, "p.json", '{"guards": [{"id": "größe", "expr": "s0 >= 2"}]}')],
                       out=out)
    assert code == 0 and res["guards"][0]["id"] == "größe"


def test_a_file_name_that_is_not_utf8_still_gets_its_line(tmp_path: Path) -> None:
    name = str(tmp_path / "x\udcff.json")  # how Python spells a non-UTF-8 byte of a file name
    code, [err] = _run(["solve", name])
    assert code == 2 and err["file"] == name and err["error"]["code"] == "invalid_problem"


def test_an_empty_file_says_so(tmp_path: Path) -> None:
    for text in ("", " \n"):
        code, [err] = _run(["solve", _file(tmp_path, "empty.json", text)])
        assert code == 2 and err["error"]["message"].startswith("empty file")
        assert "Expecting value" not in err["error"]["message"]


def test_a_file_that_is_not_utf8_names_the_byte(tmp_path: Path) -> None:
    p = tmp_path / "latin1.json"
    p.write_bytes(b'{"guards": ["s0 >= 2"], "x": "\xe9"}')
    code, [err] = _run(["solve", str(p)])
    assert code == 2 and err["error"]["offset"] == 30 and "0xe9" in err["error"]["message"]


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    line = capsys.readouterr().out
    assert line.startswith("symguard ") and "z3 " in line and "pysmt " in line


def test_remote_to_no_server_is_unavailable_with_the_url(tmp_path: Path) -> None:
    url = "http://127.0.0.1:9"  # the discard port: nothing listens
    code, [err] = _run(["solve", _file(tmp_path, "p.json", json.dumps(GOOD)), "--remote", url])
    assert code == 1
    assert err["error"]["code"] == "unavailable" and url in err["error"]["message"]


def test_serve_help_shows_the_defaults_and_what_0_0_0_0_exposes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "default: 127.0.0.1" in text and "default: 8000" in text
    assert "0.0.0.0 listens on every interface" in text and "SYMGUARD_API_TOKEN" in text
