"""The validated, immutable problem: what every operation consumes.

``solver.syntax.document.load_problem`` builds it from a JSON document; everything here is
already checked and parsed, so the operations never see text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from symguard.solver.errors import InvalidProblemError, TooLargeError
from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term

MAX_ENTRIES = 20_000
MAX_SYMBOLS = 5_000
NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")



# The deterministic work budget of an operation (``Options.effort``), in z3 resource units
# (``solver.smt.checker``): every verdict depends on it alone. What it takes is measured in
# BENCHMARKS.md (issue 25: at most ~2 s of CPU cold on the largest real set, up to ~6 s on the
# synthetic stress sets, on a loaded core); the default deadline (``Options.timeout_ms``) is
# five times that or more.
DEFAULT_EFFORT = 600_000
MAX_EFFORT = 1_000_000_000


@dataclass(frozen=True)
class Options:
    # the wall-clock deadline of the whole call: a safety net, never what decides a verdict; past
    # it the answer is the sound partial one (docs/problem-format.md §1.3)
    timeout_ms: int = 30_000
    effort: int = DEFAULT_EFFORT
    default_min: int | None = 0
    on_unsupported: Literal["error", "skip"] = "error"
    minimize: bool = False
    prefer: Literal["cheap", "order"] = "cheap"
    objective: Literal["sum", "max", "lex"] = "sum"
    preserve_distinct: bool | None = None  # None: true exactly when hints are given


@dataclass(frozen=True)
class Symbol:
    name: str
    lo: int | None
    hi: int | None
    hint: int | None = None
    is_bool: bool = False


@dataclass(frozen=True)
class Constraint:
    """An assert or a guard. ``term`` is None when it was skipped as unsupported."""

    id: str
    text: str
    where: str
    term: Term | None
    skipped: str | None = None


@dataclass(frozen=True)
class Query:
    id: str
    text: str
    where: str
    term: Term
    domain: Term
    # an ``exprs`` entry's loop variables (name, bound): ``0 <= v < bound`` is part of ``domain``;
    # kept apart only so that an export can write them back
    ranges: tuple[tuple[str, Term], ...] = ()

    @property
    def is_bool(self) -> bool:
        return self.term.is_bool


@dataclass(frozen=True)
class Problem:
    symbols: tuple[Symbol, ...]
    asserts: tuple[Constraint, ...] = ()
    guards: tuple[Constraint, ...] = ()
    queries: tuple[Query, ...] = ()
    inputs: tuple[tuple[str, tuple[Term, ...]], ...] = ()
    options: Options = field(default_factory=Options)
    syntax: str = "sympy"
    warnings: tuple[str, ...] = ()
    # ``simplify``'s expressions (integer or boolean), in the shape of queries: ids ``e0, e1, …``
    exprs: tuple[Query, ...] = ()

    def symbol(self, name: str) -> Symbol:
        for s in self.symbols:
            if s.name == name:
                return s
        raise KeyError(name)

    @property
    def hints(self) -> dict[str, int] | None:
        """The trace-time point, when every integer symbol has a hint."""
        ints = [s for s in self.symbols if not s.is_bool]
        if ints and all(s.hint is not None for s in ints):
            return {s.name: s.hint for s in ints}  # type: ignore[misc]
        return None

    @property
    def preserve_distinct(self) -> bool:
        o = self.options.preserve_distinct
        return o if o is not None else any(s.hint is not None for s in self.symbols)

def complete_symbols(declared: Sequence[Symbol], terms: Sequence[Term], options: Options) -> tuple[Symbol, ...]:
    """Declared symbols first, then the undeclared ones in order of first use."""
    out = list(declared)
    known = {s.name for s in out}
    for t in terms:
        if ir.symbols_of(t) <= known:  # the common case (every symbol declared): no ordered walk
            continue
        for n in ir.iter_dag(t):
            if n.kind in (ir.SYM, ir.BSYM) and n.value not in known:
                known.add(n.value)
                if n.kind == ir.BSYM:
                    out.append(Symbol(n.value, None, None, None, is_bool=True))
                else:
                    out.append(Symbol(n.value, options.default_min, None))
    for s in out:
        if s.name.startswith("__"):
            raise InvalidProblemError(f"{s.name!r} is not a symbol name (names starting with '__' "
                                      "are reserved)", where=f"symbols.{s.name}")
    if len(out) > MAX_SYMBOLS:
        raise TooLargeError(f"more than {MAX_SYMBOLS} symbols")
    return tuple(out)
