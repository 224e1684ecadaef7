"""A ShapeEnv companion for compilers: static answers that sympy cannot give, and never a crash.

Compiler code asks small questions against a growing ShapeEnv — "is ``s0 % 8 == 0`` known?", "is
this tile ≥ the dim?" — and where sympy cannot decide, ``bool(Relational)`` raises "cannot
determine truth value" and the optimisation is given up. ``Oracle`` answers those questions with
symguard under the ShapeEnv's ranges, asserts and guards::

    oracle = Oracle(shape_env)                       # in-process; Oracle(env, client=Client(url)) remote
    if oracle.statically_known_true(Eq(Mod(s0, 16), 0)):
        tile = 16

It follows the ShapeEnv through a context (``solver.session.Context`` in-process, a server-side
context through ``client``): the ShapeEnv's problem is registered once and then only the guards and
asserts added since the last question are sent, as an extension; each question is a delta of one
query against the current context, so it costs a fact lookup or a check, never a re-parse.
Answers are memoized per state. An undecidable, unsupported or failed
question answers ``None`` — never an exception — so the caller falls back to its own safe path.
``errors`` counts those failures and ``last_error`` keeps the latest, for logging.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from symguard.solver import OPS, SymguardError

from .torch_bridge import problem_from_shape_env

DEFAULT_TIMEOUT_MS = 1000  # a compiler's hot path: a question that needs longer answers None


@dataclass(frozen=True)
class Answer:
    """A boolean question's answer: ``value`` True/False when decided, None otherwise; when it
    depends on the sizes, a point where it holds and one where it fails."""

    value: bool | None
    when_true: dict[str, int] = field(default_factory=dict)
    when_false: dict[str, int] = field(default_factory=dict)


class Oracle:
    def __init__(self, shape_env: Any, client: Any = None, *, timeout_ms: int = DEFAULT_TIMEOUT_MS,
                 initial_ranges: Mapping[Any, Any] | None = None) -> None:
        self.env = shape_env
        self.initial_ranges = initial_ranges
        self.timeout_ms = timeout_ms
        self.errors = 0
        self.last_error: str | None = None
        self.client = client
        self._state: tuple[int, int, int] | None = None
        self._doc: dict[str, Any] = {}
        self._memo: dict[tuple[str, str], Any] = {}
        self._ctx: Any = None  # a solver.session.Context, or a server-side context key
        self._ctx_doc: dict[str, Any] = {}

    # -------------------------------------------------------------- following the ShapeEnv
    def _context(self) -> dict[str, Any]:
        """The ShapeEnv's current problem; rebuilt only when guards, asserts or ranges changed."""
        env = self.env
        state = (len(env.guards), sum(len(v) for v in getattr(env, "deferred_runtime_asserts", {}).values()),
                 hash(tuple(sorted((str(k), str(v)) for k, v in env.var_to_range.items()))))
        if state != self._state:
            doc = problem_from_shape_env(env, initial_ranges=self.initial_ranges)
            self._doc = {k: doc[k] for k in ("symbols", "asserts", "guards")}
            self._doc["options"] = {"timeout_ms": self.timeout_ms, "on_unsupported": "skip"}
            self._state = state
            self._memo.clear()
        return self._doc

    def _follow(self) -> None:
        """Bring the context up to the ShapeEnv: extend it by what was appended, or start over
        when something else changed (a range, a symbol, a rewritten guard)."""
        doc, old = self._doc, self._ctx_doc
        if self._ctx is not None and doc is old:
            return
        prefix = self._ctx is not None and all(
            doc.get(k) == old.get(k) for k in ("symbols", "options")) and all(
            doc[k][:len(old[k])] == old[k] for k in ("asserts", "guards"))
        delta = {k: doc[k][len(old[k]):] for k in ("asserts", "guards")} if prefix else None
        if self.client is None:
            from symguard.solver.session import Context

            self._ctx = self._ctx.extend(delta) if delta is not None else Context(doc)
        elif delta is not None:
            self._ctx = self.client.context({"context": self._ctx, **delta})
        else:
            self._ctx = self.client.context(doc)
        self._ctx_doc = doc

    def _run(self, op: str, extra: dict[str, Any]) -> dict[str, Any]:
        self._follow()
        if self.client is None:
            return self._ctx.run(op, extra)  # type: ignore[no-any-return]
        from .client import UnknownContext

        try:
            return self.client.run(op, {"context": self._ctx, **extra})  # type: ignore[no-any-return]
        except UnknownContext:  # the server forgot it (restart, eviction): register it again, once
            self._ctx = None
            self._follow()
            return self.client.run(op, {"context": self._ctx, **extra})  # type: ignore[no-any-return]

    def _ask(self, op: str, key: str, extra: dict[str, Any]) -> dict[str, Any] | None:
        self._context()
        memo_key = (op, key)
        if memo_key in self._memo:
            return self._memo[memo_key]  # type: ignore[no-any-return]
        try:
            res = self._run(op, extra)
        except (SymguardError, OSError, ValueError) as e:  # unsupported text, server down: no answer
            self.errors += 1
            self.last_error = f"{type(e).__name__}: {e}"
            return None
        self._memo[memo_key] = res
        return res

    # -------------------------------------------------------------- questions
    def evaluate(self, expr: Any) -> Answer:
        """Is the condition true at every point the ShapeEnv allows, false at every one, or neither?"""
        text = str(expr)
        res = self._ask("evaluate", text, {"queries": [text]})
        if res is None or res.get("status") == "unsat":
            return Answer(None)
        row = res["queries"][0]
        if row.get("kind") != "bool":
            return Answer(None)
        v = row.get("value")
        if v is True or v is False:
            return Answer(v)
        return Answer(None, row.get("when_true", {}), row.get("when_false", {}))

    def statically_known_true(self, expr: Any) -> bool:
        """True only when proven; False means "not known to be true" (as PyTorch's function)."""
        return self.evaluate(expr).value is True

    def bounds(self, expr: Any) -> tuple[int | None, int | None] | None:
        """Exact ``(min, max)`` of an integer size expression (None for an unbounded side), or None
        when they could not be proven."""
        text = str(expr)
        res = self._ask("evaluate", text, {"queries": [text]})
        if res is None or res.get("status") == "unsat":
            return None
        row = res["queries"][0]
        if row.get("kind") != "int" or row.get("exact") is False or row.get("value") == "unknown":
            return None  # an extreme found but not proven, or none (the effort or the deadline ran out)
        if "value" in row:
            return (row["value"], row["value"]) if row["value"] is not None else None
        return row.get("min"), row.get("max")

    def simplify(self, expr: Any) -> str | None:
        """The canonical form of ``expr`` under the ShapeEnv, when proven equal (else None)."""
        if "simplify" not in OPS:
            return None
        text = str(expr)
        res = self._ask("simplify", text, {"exprs": [text]})
        if res is None:
            return None
        row = res["exprs"][0]
        return row["form"] if row.get("proved") else None

    def minimal_guards(self) -> list[str] | None:
        """The guards PyTorch needs to re-check: an equivalent, irredundant subset (None on failure).

        Equivalent under the ranges the Oracle was given: the ShapeEnv's current ones by default,
        which guards have narrowed (``s0 >= 32`` makes the range ``[32, ∞)``) and which PyTorch
        checks at run time as well; pass ``initial_ranges`` (``torch_bridge.record_ranges()``)
        for a set that stands without those range checks."""
        res = self._ask("redundancy", "", {})
        if res is None:
            return None
        kept = set(res["minimal"])
        guards = self._context()["guards"]
        return [g for i, g in enumerate(guards) if f"g{i}" in kept]
