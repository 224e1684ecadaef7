"""The ``symguard`` command line (docs/problem-format.md §4): ``main(argv) -> int``, tested in-process.

I/O lives here and nowhere in ``solver``: reading files, printing JSON, exit codes. Each input
file gives one JSON result line on stdout, the same JSON the HTTP service returns; a bad input
prints the error body (docs/problem-format.md §5) instead and makes the exit status 2. No input
ends the run: whatever one file does, it gets its line and the next file is answered.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from symguard.solver import OPS, Options
from symguard.solver.errors import InvalidProblemError, SymguardError

from ..documents import dumps, read_problem
from ..errors import EXIT_BAD_INPUT, EXIT_FAILURE, EXIT_OK, error_body, exit_code

Runner = Callable[[str, dict[str, Any]], dict[str, Any]]


def local_runner() -> Runner:
    from symguard.solver import run

    return run


def remote_runner(url: str, token: str | None = None) -> Runner:
    from ..client import Client

    client = Client(url, token=token)
    return client.run


def _runner(args: argparse.Namespace) -> Runner:
    if getattr(args, "remote", None):
        return remote_runner(args.remote, getattr(args, "token", None))
    return local_runner()


def _emit(out: TextIO, obj: Any) -> None:
    """Write one JSON line; a stream that cannot encode some character gets ``\\u`` escapes instead."""
    try:
        out.write(dumps(obj) + "\n")
    except UnicodeEncodeError:  # e.g. stdout in a non-UTF-8 locale
        out.write(json.dumps(obj, ensure_ascii=True, separators=(", ", ": ")) + "\n")
    out.flush()


def _error_line(out: TextIO, e: BaseException, file: str) -> None:
    """The error body plus the file its ``where`` is in (with several files ``line 2`` alone is ambiguous)."""
    _emit(out, {**error_body(e), "file": file})


def _worse(status: int, code: int) -> int:
    """Bad input (2) outranks a failure (1), which outranks success (0)."""
    return max(status, code)


def run_files(op: str, files: Sequence[str], runner: Runner, out: TextIO) -> int:
    """One result line per file; the exit status of the worst outcome (docs/problem-format.md §4)."""
    status = EXIT_OK
    for f in files:
        try:
            result = runner(op, read_problem(f))
        except SymguardError as e:
            _error_line(out, e, f)
            status = _worse(status, exit_code(e))
            continue
        except Exception as e:  # noqa: BLE001 - a bug must not lose the other files' answers
            _error_line(out, e, f)
            status = _worse(status, EXIT_FAILURE)
            continue
        _emit(out, result)
    return status


def _cmd_op(args: argparse.Namespace, out: TextIO) -> int:
    if args.op == "solve" and args.smtlib:
        from symguard.solver.ops.smtlib_run import run_script

        status = EXIT_OK
        for f in args.files:
            try:
                text = Path(f).read_text(encoding="utf-8")
                out.write(run_script(text, timeout_ms=args.timeout_ms))
            except SymguardError as e:
                _error_line(out, e, f)
                status = _worse(status, exit_code(e))
            except (OSError, UnicodeDecodeError) as e:
                _error_line(out, InvalidProblemError(f"cannot read {f}: {e}", where=f), f)
                status = _worse(status, EXIT_BAD_INPUT)
            except Exception as e:  # noqa: BLE001 - a bug must not lose the other files' answers
                _error_line(out, e, f)
                status = _worse(status, EXIT_FAILURE)
        return status
    return run_files(args.op, args.files, _runner(args), out)


def _cmd_export(args: argparse.Namespace, out: TextIO) -> int:
    try:
        doc = read_problem(args.file)
        if args.to == "json":
            out.write(json.dumps(doc, indent=1) + "\n")
        else:
            from symguard.solver.syntax.export import problem_to_smt2

            out.write(problem_to_smt2(doc))
    except SymguardError as e:
        _emit(out, error_body(e))
        return exit_code(e)
    except Exception as e:  # noqa: BLE001 - an error line, never a traceback
        _emit(out, error_body(e))
        return EXIT_FAILURE
    return EXIT_OK


def _cmd_batch(args: argparse.Namespace, out: TextIO) -> int:
    from .batch import run_batch

    return run_batch(args, _runner(args), out)


def _cmd_shrink_model(args: argparse.Namespace, out: TextIO) -> int:
    from .shrink_model import main_args

    try:
        _emit(out, main_args(args, _runner(args)))
    except SymguardError as e:
        _emit(out, error_body(e))
        return exit_code(e)
    return EXIT_OK


def _cmd_serve(args: argparse.Namespace, out: TextIO) -> int:
    from ..server import serve

    return serve(host=args.host, port=args.port, workers=args.workers)


def version_line() -> str:
    """``symguard X (z3 Y, pysmt Z, Python W)``: what a bug report needs, from package metadata."""
    from importlib.metadata import PackageNotFoundError, version

    def v(dist: str) -> str:
        try:
            return version(dist)
        except PackageNotFoundError:
            return "not installed"

    py = ".".join(map(str, sys.version_info[:3]))
    return f"symguard {v('symguard')} (z3 {v('z3-solver')}, pysmt {v('pysmt')}, Python {py})"


class _Version(argparse.Action):
    """``--version``: the package metadata is read when asked for, not on every call's parser."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        sys.stdout.write(version_line() + "\n")  # stdout, as argparse's own version action
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="symguard", description="SMT-backed guard entailment for dynamic tensor shapes",
                                 epilog="The problem format, options, results and errors: docs/problem-format.md")
    ap.add_argument("--version", action=_Version, nargs=0, help="show the versions and exit")
    sub = ap.add_subparsers(dest="command", required=True)

    def remote(p: argparse.ArgumentParser) -> None:
        p.add_argument("--remote", metavar="URL", help="use a running symguard server instead of solving in-process")
        p.add_argument("--token", help="bearer token for --remote (default: $SYMGUARD_API_TOKEN)")

    for op in OPS:
        p = sub.add_parser(op, help=f"run {op} on each problem file (.json or .smt2); one JSON line each")
        p.add_argument("files", nargs="+", metavar="FILE")
        if op == "solve":
            p.add_argument("--smtlib", action="store_true",
                           help="act as an SMT-LIB solver: one line per check-sat, get-model/get-value output")
            p.add_argument("--timeout-ms", type=int, default=Options().timeout_ms, help="per check-sat budget with --smtlib")
        remote(p)
        p.set_defaults(func=_cmd_op, op=op)

    p = sub.add_parser("export", help="write a problem in the other format")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--to", choices=("smt2", "json"), required=True)
    remote(p)
    p.set_defaults(func=_cmd_export)

    p = sub.add_parser("batch", help="run many files (folders are searched for *.smt2 and *.json)")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--op", choices=OPS, required=True)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--out", metavar="RESULTS.jsonl")
    p.add_argument("--resume", action="store_true", help="skip inputs already answered in --out")
    p.add_argument("--grace-ms", type=int, default=10_000,
                   help="a worker gets an input's timeout_ms plus this long before it is killed")
    remote(p)
    p.set_defaults(func=_cmd_batch)

    p = sub.add_parser("shrink-model", help="export a PyTorch model described by MODEL.py and write a pytest "
                       "file that runs it at its smallest input shapes (docs/shrink_model.md)")
    p.add_argument("spec", metavar="MODEL.py", help="a model spec: build_model, example_inputs, dynamic_shapes")
    p.add_argument("--out", metavar="TEST.py", help="default: tests/generated/test_<name>.py")
    p.add_argument("--objective", choices=("sum", "max", "lex"), default="sum")
    p.add_argument("--timeout-ms", type=int, default=60_000,
                   help="budget of each shrink/redundancy call (default 60000: 60 s, small next to the "
                   "export before it)")
    remote(p)
    p.set_defaults(func=_cmd_shrink_model)

    from .prune_guards import add_parser as add_prune_guards

    add_prune_guards(sub, remote)

    from .trace import add_parser as add_trace

    add_trace(sub, remote)

    p = sub.add_parser("serve", help="run the HTTP service (docs/service.md)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default: %(default)s, this machine only; 0.0.0.0 listens on every "
                        "interface: anyone who can reach the machine can use the API, so set SYMGUARD_API_TOKEN. "
                        "It is what a container needs, where the published port decides who reaches it)")
    p.add_argument("--port", type=int, default=8000, help="TCP port (default: %(default)s)")
    p.add_argument("--workers", type=int, default=None,
                   help="solver worker processes (default: $SYMGUARD_WORKERS, else 2)")
    p.set_defaults(func=_cmd_serve)
    return ap


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse already printed the usage error
        return EXIT_OK if e.code == 0 else EXIT_BAD_INPUT
    try:
        return int(args.func(args, out))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
