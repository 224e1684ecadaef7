"""Coverage-guided fuzzing of the input boundary with atheris (libFuzzer), optional, not in CI.

The same property as ``tests/test_fuzz.py``: whatever bytes arrive, the sympy parser, the
SMT-LIB term and script readers and ``load_problem`` either succeed or raise a documented
``BadInput``. Any other exception is a crash libFuzzer reports (and saves as ``crash-*``).

    python bench/fuzz_atheris.py -max_total_time=60          # bounded run
    python bench/fuzz_atheris.py -runs=100000 corpus_dir/    # with a corpus folder

Needs ``pip install atheris`` (not a project dependency).
"""

from __future__ import annotations

import json
import sys

import atheris

with atheris.instrument_imports():
    from symguard.solver import load_problem
    from symguard.solver.errors import BadInput
    from symguard.solver.syntax.smtlib_script import parse_term, script_problem
    from symguard.solver.syntax.sympy_reader import parse_sympy


def one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    which = fdp.ConsumeIntInRange(0, 3)
    text = fdp.ConsumeUnicodeNoSurrogates(4096)
    try:
        if which == 0:
            parse_sympy(text)
        elif which == 1:
            parse_term(text)
        elif which == 2:
            script_problem(text)
        else:
            try:
                doc = json.loads(text)
            except (ValueError, RecursionError):
                return
            load_problem(doc)
    except BadInput:
        pass


def main() -> None:
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
