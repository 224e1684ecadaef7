"""The library's front door: load → canonicalize → compute → map back to the caller.

``run`` does it all in one call. A cache (the service's) splits it in three: ``prepare`` gives the
canonical problem and its key, ``compute`` the canonical result (what gets cached), ``finish`` the
caller's result. A cached answer and a fresh one go through the same ``finish``.

Two promises hold for every entry point, from any number of threads:

- **One call at a time per process.** z3 is not thread-safe, pysmt's z3 backend uses z3's main
  context, and the IR interns its terms in one process-wide table. So every call holds
  ``_SERIAL`` while it touches any of them (strict serialization: threads get correct answers,
  never a crash; worker *processes* are how the service and ``batch`` solve in parallel).
- **``effort`` decides, ``timeout_ms`` bounds the whole call.** Inside an operation every budget
  is z3 resource units taken from ``options.effort`` (``solver.smt.checker``: deterministic, load
  does not change the answer). Around it, the deadline is wall clock, counted from the start of
  the call (waiting for ``_SERIAL`` counts): ``timeout_ms`` + 10 % + 50 ms. Checks carry it as
  z3's own ``timeout`` and raise ``OutOfTime`` past it; a watchdog thread interrupts the
  operation's z3 context 25 ms later, and again every ``_REFIRE_S``, for a z3 call that ignores
  its timeout. Past the deadline the answer is the operation's sound **partial** result where it
  has one (``redundancy``: every verdict reached so far kept, the rest ``unknown``, marked
  ``incomplete: true``), else its sound ``unknown`` result (reason ``timeout``); neither is
  final, so neither is cached. Arithmetic that z3 cannot interrupt (big-number root isolation in
  non-linear problems) is refused up front: see ``check_arithmetic``.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from symguard.solver.errors import BadInput, InvalidProblemError, TooLargeError
from symguard.solver.ir import terms as ir
from symguard.solver.ir.canonical import Canonical, canonicalize
from symguard.solver.ir.problem import DEFAULT_EFFORT, Constraint, Options, Problem
from symguard.solver.ops import OPERATIONS, OPS, Operation
from symguard.solver.ops.operation import Audit, Back, Result, settled, undecided
from symguard.solver.smt.checker import RUNG, Deadline, OutOfTime, plan_units
from symguard.solver.smt.interrupt import settle
from symguard.solver.syntax.document import entries as doc_entries
from symguard.solver.syntax.document import load_problem
from symguard.solver.syntax.sympy_reader import Parsed, parse_sympy

_SERIAL = threading.RLock()  # z3's main context, pysmt and the IR's intern table: one caller at a time
SERIAL = _SERIAL  # the same lock, for a caller that builds IR outside these entry points (a server's thread)
_WATCHDOG = threading.Lock()  # a watchdog interrupts z3 only while its own call still runs
_SLACK_S = 0.025  # the watchdog fires 25 ms after the outer limit (checker.outer_ms)
_REFIRE_S = 0.02
MAX_TEXT_DEPTH = 64  # nesting of a problem document (docs/problem-format.md §1 needs 4)
# Non-linear arithmetic with long constants: z3's root isolation on a degree-d polynomial with a
# k-digit constant runs in native code that ignores both its timeout and ``interrupt`` (s0**8 >=
# N with a 4,000-digit N: 576 s in one check; s0*s0: 42 s). Measured on 2 loaded cores with a
# 1 s budget, solve/redundancy/evaluate/shrink: digits × degree = 1,000 overran by up to 1.3 s
# (degree 2) and 0.9 s (degree 4, shrink); at 600 the worst call took 1.2 s. So past 650 (and
# past 20 digits: int64-sized constants are always fine) a non-linear problem is ``too_large``.
NONLINEAR_DIGITS_X_DEGREE = 650
ALWAYS_OK_DIGITS = 20


def check_document(doc: Any, where: str = "") -> None:
    """Refuse a document holding text that is not valid Unicode (a lone surrogate such as
    ``"\\ud800"``, which JSON's ``\\u`` escapes can spell), an integer past the literal limit
    (a Python caller can pass ``10**5000``) or nesting past ``MAX_TEXT_DEPTH``.

    Such a string cannot be written back as UTF-8: left in, it fails the first time an answer or
    an error names it. Checked once at the edge, with the place named, so nothing later trips on it.
    """
    stack: list[tuple[Any, str, int]] = [(doc, where, 0)]
    while stack:
        node, path, depth = stack.pop()
        if depth > MAX_TEXT_DEPTH:
            raise TooLargeError(f"the document is nested more than {MAX_TEXT_DEPTH} levels deep", where=path or "$")
        if isinstance(node, str):
            _check_str(node, path or "$")
        elif isinstance(node, int) and ir.too_many_digits(node):
            raise TooLargeError(f"integer with more than {ir.MAX_INT_DIGITS} digits", where=_printable(path or "$"))
        elif isinstance(node, Mapping):
            for k, v in node.items():
                if isinstance(k, str):
                    _check_str(k, path or "$", key=True)
                stack.append((v, f"{path}.{k}" if path else str(k), depth + 1))
        elif isinstance(node, (list, tuple)):
            stack.extend((v, f"{path}[{i}]", depth + 1) for i, v in enumerate(node))


def _check_str(s: str, where: str, *, key: bool = False) -> None:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError as e:
        what = "a key" if key else "the text"
        raise InvalidProblemError(f"{what} is not valid Unicode: {s[e.start:e.end]!a} at character {e.start} "
                                  "(a lone surrogate; send UTF-8 text)", where=_printable(where),
                                  offset=e.start) from None


def _printable(where: str) -> str:
    return where.encode("utf-8", "backslashreplace").decode("utf-8")


def prepare(problem: Problem | Mapping[str, Any], *, started: float | None = None) -> tuple[Problem, Canonical]:
    """The caller's problem and its canonical form; bad input raises a ``BadInput``.

    With ``started`` (``time.monotonic()`` at the start of the caller's call) reading a document
    is bounded by the call's ``timeout_ms`` too: past it, between two entries, the rest is not read
    and the problem returned is ``unread`` (its asserts and guards without terms), whose every
    answer is the operation's sound ``unknown`` (``compute`` sees the deadline passed). Reading
    537 guards costs 40-140 ms of Python: with ``timeout_ms: 1`` the call used to answer after
    all of it (issue 33)."""
    with _SERIAL:
        if isinstance(problem, Problem):
            p = problem
        else:
            check_document(problem)
            # reading stops at timeout_ms itself, not at the outer limit: past it the operation
            # has nothing left to decide, and the unread answer still has to be built and sent
            late = None if started is None or not isinstance(problem, Mapping) else \
                started + _timeout_of(problem) / 1000.0
            try:
                p = load_problem(problem, term_parser=_reader(problem, late))
            except _Late:
                p = unread(problem)
                return p, canonicalize(p)
            if late is not None and Deadline.clock() >= late:  # read, with no time left to canonicalize it
                p = unread(problem)
                return p, canonicalize(p)
        check_arithmetic(p)
        return p, canonicalize(p)


class _Late(Exception):
    """The outer limit passed while a document was being read (``prepare``); never leaves here."""


def _reader(doc: Mapping[str, Any], late: float | None) -> Callable[[str], Parsed] | None:
    """The document's term parser, refusing to start another entry past ``late``."""
    if late is None:
        return None
    syntax = doc.get("syntax", "sympy")
    if syntax == "smtlib":
        from symguard.solver.syntax.smtlib_script import parse_term

        base: Callable[[str], Parsed] = parse_term
    elif syntax == "sympy":
        base = parse_sympy
    else:
        return None  # load_problem names the bad value

    def read(text: str) -> Parsed:
        if Deadline.clock() >= late:
            raise _Late
        return base(text)

    return read


def _timeout_of(doc: Mapping[str, Any]) -> int:
    """``options.timeout_ms`` as sent when it is valid, else the default (``load_problem`` then
    names what is wrong)."""
    opts = doc.get("options")
    t = opts.get("timeout_ms") if isinstance(opts, Mapping) else None
    return t if isinstance(t, int) and not isinstance(t, bool) and t > 0 else Options().timeout_ms


_UNREAD = "not read: the deadline passed while the problem was being read"


def _is_unread(p: Problem) -> bool:
    """Whether ``p`` is an ``unread`` problem: its answer is the operation's ``unknown``, whatever
    time is left (its skipped entries are not unsupported, and nothing about them is known)."""
    return any(c.skipped == _UNREAD for c in (*p.asserts, *p.guards))


def unread(doc: Mapping[str, Any]) -> Problem:
    """The problem a timeout answer needs when the deadline passed while reading ``doc``: its
    options, symbols, queries and exprs (read: a row says its kind; usually few), and its asserts
    and guards by id and text without terms (not read). Every operation's ``unknown`` result
    on it lists the caller's ids."""
    rest = load_problem({k: v for k, v in doc.items() if k not in ("asserts", "guards")})
    why = _UNREAD

    def skipped(section: str, prefix: str) -> tuple[Constraint, ...]:
        return tuple(Constraint(i, text, where, None, why) for i, text, where, _ in doc_entries(doc.get(section), section, prefix))

    return dataclasses.replace(rest, asserts=skipped("asserts", "a"), guards=skipped("guards", "g"),
                               warnings=(*rest.warnings, ("the deadline (options.timeout_ms) passed while the "
                                         "problem was being read: nothing was decided")))


def check_arithmetic(p: Problem) -> None:
    """``too_large`` when a non-linear problem carries constants z3 cannot handle in bounded time
    (``NONLINEAR_DIGITS_X_DEGREE``). Linear problems keep the 4,000-digit literal limit."""
    degree, digits = 0, 0
    deg_where = dig_where = "$"
    degs: dict[ir.Term, int] = {}
    for s in p.symbols:
        for v, w in ((s.lo, "min"), (s.hi, "max")):
            if v is not None and not s.is_bool:
                k = _digits(v)
                if k > digits:
                    digits, dig_where = k, f"symbols.{s.name}.{w}"
    sections: tuple[tuple[str, Sequence[Any]], ...] = (
        ("asserts", p.asserts), ("guards", p.guards), ("queries", p.queries))
    for section, entries in sections:
        for i, c in enumerate(entries):
            roots = [t for t in (c.term, getattr(c, "domain", None)) if isinstance(t, ir.Term)]
            for root in roots:
                for n in ir.iter_dag(root):
                    if n.kind == ir.CONST:
                        k = _digits(n.value)
                        if k > digits:
                            digits, dig_where = k, f"{section}[{i}]"
                    d = _degree(n, degs)
                    if d > degree:
                        degree, deg_where = d, f"{section}[{i}]"
    if degree >= 2 and digits > ALWAYS_OK_DIGITS and digits * degree > NONLINEAR_DIGITS_X_DEGREE:
        raise TooLargeError(
            f"non-linear arithmetic (degree {degree}, at {deg_where}) with a {digits}-digit constant: "
            f"digits × degree must stay within {NONLINEAR_DIGITS_X_DEGREE} (the solver cannot be "
            "stopped inside such arithmetic)", where=dig_where)


def _digits(v: int) -> int:
    v = abs(int(v))
    return len(str(v)) if v.bit_length() < 64 else int(v.bit_length() * 0.30103) + 1


def _degree(n: ir.Term, memo: dict[ir.Term, int]) -> int:
    """Polynomial degree of a term, counting a quotient/remainder as one more than its divisor
    (z3 sees ``a = b*q + r``). Children come before parents in ``iter_dag``."""
    d = memo.get(n)
    if d is not None:
        return d
    args = [memo.get(a, 0) for a in n.args]
    if n.kind in (ir.SYM, ir.BSYM):
        d = 1
    elif n.kind == ir.MUL:
        d = sum(args)
    elif n.kind in ir.DIV_KINDS and len(args) == 2:
        d = max(args[0], args[1] + 1 if args[1] else 1)
    elif n.kind == ir.ISQRT:  # z3 sees s*s <= n
        d = max(2, args[0])
    else:
        d = max(args, default=0)
    memo[n] = d
    return d


def _operation(op: str) -> Operation:
    try:
        return OPERATIONS[op]
    except (KeyError, TypeError):
        raise InvalidProblemError(f"unknown operation {op!a} (expected one of {', '.join(OPS)})",
                                  where="op") from None


class _Watchdog:
    """Interrupts the operation's z3 work once the deadline's outer limit plus slack has passed,
    until ``stop``: for a z3 call that ignores its own ``timeout``; see the module doc."""

    def __init__(self, deadline: Deadline) -> None:
        self.deadline = deadline
        self.fired = False
        self._done = threading.Event()
        self._active = True
        self._fire_at = deadline.wall_end + _SLACK_S
        self._thread = threading.Thread(target=self._watch, name="symguard-watchdog", daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        if self._done.wait(max(0.0, self._fire_at - self.deadline.clock())):
            return
        while True:
            with _WATCHDOG:
                if not self._active:
                    return
                self.fired = True
                self.deadline.interrupt()  # this check raises OutOfTime, and so does every later one
            if self._done.wait(_REFIRE_S):
                return

    def stop(self) -> None:
        with _WATCHDOG:  # after this no interrupt of ours can reach the next caller's z3 work
            self._active = False
        self._done.set()
        ctx = self.deadline.made_context
        if self.fired and ctx is not None:  # a z3 context kept beyond the call (a session) must not stay cancelled
            settle(ctx)


@contextmanager
def _watched(deadline: Deadline) -> Iterator[_Watchdog]:
    wd = _Watchdog(deadline)
    try:
        yield wd
    finally:
        wd.stop()


def compute(op: str, canon: Problem, *, started: float | None = None) -> Result:
    """The result for a canonical problem (ids ``a0, g0, q0``, symbols ``v0, …``).

    ``started`` (``time.monotonic()``) is when the caller's call began: the outer limit counts
    from there. Inside, budgets are ``options.effort`` z3 resource units (deterministic); past
    the outer limit the answer is the operation's partial result (marked ``incomplete``) or
    ``unknown(op, canon)``.

    Effort only adds (docs/problem-format.md, the effort row). Up to the default the operation
    runs the default's plan, stopped where the effort runs out (``checker.plan_units``): a
    smaller effort's work is a prefix of a larger one's, and what it decided a larger one decides
    too. Above it the plans are the rungs ``DEFAULT_EFFORT * 4**k`` up to the effort, each run
    whole and only when the one below left something open; a rung's answer is kept only where
    it leaves open a subset of what the rung below left (``operation.undecided``), else the
    answer below is kept, each with what the other decided carried over where it holds
    (``Operation.carry``).
    """
    operation = _operation(op)
    top, spent = plan_units(canon.options.effort), 0
    plan = DEFAULT_EFFORT
    best: Result | None = None
    while True:
        deadline = Deadline.for_options(canon.options, started=started, entries=entries(canon), plan=plan)
        res = _compute_once(operation, canon, deadline)
        spent += deadline.spent
        if best is None:
            best = res
        elif res.get("incomplete") or (res.get("status") == "unknown" and res.get("reason") == "timeout"):
            return {**best, "incomplete": True}  # the deadline cut this rung: not final either
        else:  # the rung's answer where it leaves open less than the one below, else the one below
            up = operation.carry(canon, best, res)  # (each with what the other decided carried over)
            best = up if undecided(up) < undecided(best) else operation.carry(canon, res, best)
        if isinstance(best.get("stats"), dict) and "units" in best["stats"]:
            best = {**best, "stats": {**best["stats"], "units": spent}}
        if plan >= top or not undecided(best) or best.get("incomplete"):
            return best
        plan *= RUNG


def _compute_once(operation: Operation, canon: Problem, deadline: Deadline) -> Result:
    """One run of ``operation`` under ``deadline`` (its plan and cap), watched by the wall clock."""
    with _SERIAL:
        if deadline.out_of_time or _is_unread(canon):  # the time went on waiting for our turn, or on reading
            return operation.unknown(canon)
        try:
            with _watched(deadline) as wd:
                try:
                    res = operation.compute(canon, deadline)
                except OutOfTime:  # an operation without a partial answer: nothing decided
                    res = operation.unknown(canon)
                except BadInput:
                    raise
                except Exception:
                    if wd.fired:  # an interrupted z3 call may surface as an error: the answer is unknown
                        return operation.unknown(canon)
                    raise
        finally:
            deadline.release()  # the context goes now, not when a cycle holding the deadline is collected
    if wd.fired and not res.get("incomplete"):
        return operation.unknown(canon)
    return settled(res, deadline)


def entries(p: Problem) -> int:
    """What an answer lists one row for (its cost once the work stops: ``checker.finish_ms``)."""
    return len(p.asserts) + len(p.guards) + len(p.queries) + len(p.exprs)


def unknown(op: str, canon: Problem) -> Result:
    """The sound canonical result of ``op`` when its time ran out: every guard kept, no value."""
    return _operation(op).unknown(canon)


def is_final(op: str, result: Result) -> bool:
    """Whether a canonical result may be cached: nothing in it ran out of time."""
    if result.get("incomplete") or (result.get("status") == "unknown" and result.get("reason") == "timeout"):
        return False
    return _operation(op).is_final(result)


def finish(op: str, result: Result, problem: Problem, canon: Canonical, *,
           cached: bool, elapsed_ms: float) -> Result:
    """The caller's result: their symbol names and ids, the envelope of docs/problem-format.md §2 first."""
    back = Back(problem, canon)
    body = dict(result)
    if "model" in body:
        body["model"] = back.model(body["model"])
    if "core" in body:  # in the caller's order: asserts, then guards, each by input position
        pos = {c.id: k for k, c in enumerate((*problem.asserts, *problem.guards))}
        body["core"] = sorted((back.cid(i) for i in body["core"]), key=lambda x: pos.get(x, len(pos)))
    body.update(_operation(op).map_back(result, back))
    warnings = list(problem.warnings) + list(body.pop("warnings", ()))
    out: Result = {"op": op, "status": body.pop("status"), "key": canon.key, "cached": cached,
                   "elapsed_ms": round(elapsed_ms, 3), "warnings": warnings}
    out.update(body)
    return out


_STATUSES = frozenset({"sat", "unsat", "unknown"})


def check_cached(op: str, canon: Problem, result: Any) -> None:
    """Raise ``InternalError`` unless ``result`` is a well-formed canonical ``op`` result for
    ``canon`` whose every model passes the self-check.

    A cache outside this process (Redis) holds data, not truth. The fields every result may have
    (status, model, core) are checked here; each operation checks its own (``Operation.audit``):
    field by field against the problem, every model re-evaluated with Python integers exactly as
    a fresh one is before it leaves the library.
    """
    audit = Audit(op, canon)
    if not isinstance(result, dict) or result.get("status") not in _STATUSES:
        raise audit.bad("not a result object with a status")
    if "model" in result:
        audit.model(result["model"], "model")
    if "core" in result:
        audit.ids(result["core"], {c.id for c in (*canon.asserts, *canon.guards)}, "core")
    _operation(op).audit(result, audit)


def tally(op: str, result: Result) -> list[str]:
    """What a batch summary counts of one result (verdicts, query kinds, optimality)."""
    return _operation(op).tally(result)


def run(op: str, problem: Problem | Mapping[str, Any]) -> Result:
    """Answer one operation on one problem, in-process, without a cache; thread-safe, and bounded
    by ``options.timeout_ms`` as a whole (see the module docstring). The operation's module is
    imported first, outside the deadline: a process pays that once (a fresh interpreter with no
    bytecode cache compiles it from source), it is not the call's work."""
    _operation(op)
    t0, c0 = Deadline.clock(), time.perf_counter()
    with _SERIAL:
        p, canon = prepare(problem, started=t0)
        res = compute(op, canon.problem, started=t0)
        return finish(op, res, p, canon, cached=False, elapsed_ms=(time.perf_counter() - c0) * 1000)
