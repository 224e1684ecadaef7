"""Run a ``.smt2`` script the way ``z3 -smt2 FILE`` does (``symguard solve --smtlib``).

One ``sat``/``unsat``/``unknown`` line per ``check-sat``, honouring ``push``/``pop``;
``get-model`` as ``(model (define-fun x () Int 3) …)`` over the user's constants only (never the
fresh ``.q``/``.r`` symbols of the division encoding); ``get-value`` as ``((x 3) ((+ x 1) 4))``
with the terms spelled as in the script. Each ``check-sat`` is decided from scratch by the same
translation and checker as the JSON operations (``solve``), and every model is re-checked with
Python integers before anything is printed. A bad command prints ``(error "line L column C: …")``
and the script goes on, as z3 does; a malformed S-expression ends the run after its error line.

As in z3, ``div``/``mod`` are total: a division by zero is an unspecified value (the same for
the same dividend), not a false assertion as in the JSON operations (the implicit ``divisor != 0``
of docs/problem-format.md §1.2); ``(assert (= (div x 0) 5))`` is ``sat``. Differences from z3: ``unknown``
comes with no model; dividends equal in value but different in form may get different values.
"""

from __future__ import annotations

from symguard.solver.errors import BadInput
from symguard.solver.ir.problem import Constraint, Options, Problem, Symbol
from symguard.solver.ir.pyeval import evaluate
from symguard.solver.ir.terms import Term, symbols_of
from symguard.solver.ops.solve import solve
from symguard.solver.smt.checker import Deadline, OutOfTime
from symguard.solver.syntax.sexpr import iter_top, line_col
from symguard.solver.syntax.smtlib_script import Assertion, Command, Script
from symguard.solver.syntax.smtlib_terms import BOOL_SORT

__all__ = ["run_script"]


def run_script(text: str, *, timeout_ms: int = Options.timeout_ms) -> str:
    """The z3-style transcript of running ``text`` (each check-sat gets ``timeout_ms``)."""
    r = _Runner(text, timeout_ms)
    return r.run()


class _Runner:
    def __init__(self, text: str, timeout_ms: int) -> None:
        self.text = text
        self.timeout_ms = timeout_ms
        self.out: list[str] = []
        self.model: dict[str, int | bool] | None = None
        self.core: list[str] | None = None
        self.reason = ""

    def run(self) -> str:
        s = Script(self.text)
        nodes = iter_top(self.text)
        while True:
            try:
                node = next(nodes, None)
            except BadInput as e:  # malformed text: nothing after it can be read reliably
                self._error(e, 0)
                break
            if node is None:
                break
            s.b.total_division = True  # z3's semantics, also after a (reset) made a new builder
            try:
                cmd = s.execute(node)
            except BadInput as e:
                self._error(e, node.start)
                continue
            if cmd.kind == "exit":
                break
            self._do(s, cmd)
        return "".join(self.out)

    def _error(self, e: BadInput, default: int) -> None:
        off = default if e.offset is None else e.offset
        line, col = line_col(self.text, off)
        msg = e.message.replace("\\", "\\\\").replace('"', '""')
        self.out.append(f'(error "line {line} column {col}: {msg}")\n')

    def _do(self, s: Script, cmd: Command) -> None:
        if cmd.kind == "check-sat":
            self._check(s)
        elif cmd.kind == "get-model":
            if self.model is None:
                self.out.append('(error "model is not available")\n')
                return
            rows = [f"  (define-fun {_sym(n)} () {'Bool' if sort == BOOL_SORT else 'Int'} {_val(self.model[n])})\n"
                    for n, sort in s.symbols.items() if n in self.model]
            self.out.append("(model\n" + "".join(rows) + ")\n")
        elif cmd.kind == "get-value":
            if self.model is None:
                self.out.append('(error "model is not available")\n')
                return
            pairs = []
            for src, t in cmd.values:
                v = self._value(t)
                if v is None:
                    self.out.append(f'(error "cannot evaluate {src[:60]} in the model (division by zero)")\n')
                    return
                pairs.append(f"({src} {_val(v)})")
            self.out.append("(" + " ".join(pairs) + ")\n")
        elif cmd.kind == "get-unsat-core":
            if self.core is None:
                self.out.append('(error "unsat core is not available")\n')
            else:
                self.out.append("(" + " ".join(_sym(c) for c in self.core) + ")\n")
        elif cmd.kind == "get-info" and cmd.arg == ":reason-unknown":
            self.out.append(f'(:reason-unknown "{self.reason or "unknown"}")\n')
        elif cmd.kind == "get-info":
            self.out.append('(error "unsupported get-info")\n' if cmd.arg != ":name" else '(:name "symguard")\n')
        elif cmd.kind == "echo":
            self.out.append(cmd.arg + "\n")

    def _check(self, s: Script) -> None:
        problem = _problem(s.symbols, s.assertions, self.timeout_ms)
        try:
            res = solve(problem, Deadline(self.timeout_ms))  # re-checks the model in Python
        except OutOfTime:
            res = {"status": "unknown", "reason": "timeout"}
        status = res["status"]
        self.model = res.get("model") if status == "sat" else None
        labels = {a.name for a in s.assertions if a.name is not None}
        self.core = [c for c in res.get("core", []) if c in labels] if status == "unsat" else None
        self.reason = res.get("reason", "")
        self.out.append(status + "\n")

    def _value(self, t: Term) -> int | bool | None:
        assert self.model is not None
        try:
            return evaluate(t, self.model)
        except ZeroDivisionError:
            return None


def _problem(symbols: dict[str, str], assertions: list[Assertion], timeout_ms: int) -> Problem:
    """The assertions in force as a Problem: every constant unbounded, every assertion an assert
    (ids: the :named label, else ``.aN``, which cannot clash with a label)."""
    syms = tuple(Symbol(n, None, None, None, is_bool=(sort == BOOL_SORT)) for n, sort in symbols.items())
    # the unspecified values of divisions by zero (``TermBuilder._total``): unbounded Ints
    fresh = sorted({n for a in assertions for n in symbols_of(a.term)} - set(symbols))
    syms += tuple(Symbol(n, None, None, None) for n in fresh)
    cons = tuple(Constraint(a.name if a.name is not None else f".a{i}", "", f"assertion {i}", a.term)
                 for i, a in enumerate(assertions))
    return Problem(syms, cons, (), options=Options(timeout_ms=timeout_ms, default_min=None), syntax="smtlib")


def _sym(name: str) -> str:
    from symguard.solver.syntax.smtlib_writer import quote_symbol

    return quote_symbol(name)


def _val(v: int | bool) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v) if v >= 0 else f"(- {-v})"
