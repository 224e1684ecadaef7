"""Pydantic v2 models of every request and response, for OpenAPI (``/docs``) and typing.

They document; they do not validate requests. ``solver.syntax.document.load_problem`` is the validator
(it runs anyway, in a worker, and its errors name the exact place: ``guards[3]``, offset 12);
validating the same body twice in pydantic would cost time on the event loop and produce a
second, different error format. Responses are the solver's dicts serialized as they are (the
same JSON as the CLI), so these models are permissive (``extra="allow"``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from symguard import solver

Op = Literal["solve", "redundancy", "evaluate", "shrink", "simplify"]


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


# ------------------------------------------------------------------ request (docs/problem-format.md §1)

class SymbolDecl(BaseModel):
    min: int | None = Field(default=None, description="inclusive lower bound; omitted = options.default_min, null = unbounded")
    max: int | None = Field(default=None, description="inclusive upper bound; omitted or null = unbounded")
    hint: int | None = Field(default=None, description="the value seen at trace time (PyTorch var_to_val)")


class Entry(BaseModel):
    id: str = Field(..., description="caller's id; default a0…, g0…, q0… by position")
    expr: str = Field(..., description="a sympy-syntax (or SMT-LIB) expression")


class ExprEntry(Entry):
    """An ``exprs`` entry as a capture writes it (docs/problem-format.md §1)."""

    ranges: dict[str, int | str] | None = Field(default=None, description="loop variables of this entry only: "
                                                 "0 <= v < bound (PyTorch's var_ranges)")
    pytorch: Any = Field(default=None, description="what PyTorch answered (a capture's note; read by nothing)")
    guards_known: int | None = Field(default=None, description="a capture's note; read by nothing")
    calls: int | None = Field(default=None, description="a capture's note; read by nothing")
    expected: str | None = Field(default=None, description="a note for people; read by nothing")
    rule: str | None = Field(default=None, description="a note for people; read by nothing")


_DEFAULTS = solver.Options()  # the one home of the defaults; the schema documents them


class Options(BaseModel):
    timeout_ms: int = Field(default=_DEFAULTS.timeout_ms, ge=1, le=3_600_000, description="wall-clock deadline of the operation (the server may cap it); past it the answer is partial")
    effort: int = Field(default=_DEFAULTS.effort, ge=1, le=1_000_000_000, description="deterministic work budget in solver resource units: verdicts depend on it alone, and more never decides less")
    default_min: int | None = Field(default=_DEFAULTS.default_min, description="lower bound of undeclared symbols")
    on_unsupported: Literal["error", "skip"] = _DEFAULTS.on_unsupported
    minimize: bool = Field(default=_DEFAULTS.minimize, description="solve: return a small model")
    prefer: Literal["cheap", "order"] = Field(default=_DEFAULTS.prefer, description="redundancy: which guards to drop first")
    objective: Literal["sum", "max", "lex"] = Field(default=_DEFAULTS.objective, description="shrink objective")
    preserve_distinct: bool | None = Field(default=_DEFAULTS.preserve_distinct, description="shrink: keep symbols with different hints apart")


class Problem(BaseModel):
    """A problem (docs/problem-format.md §1)."""

    symbols: dict[str, SymbolDecl] = Field(default_factory=dict)
    asserts: list[str | Entry] = Field(default_factory=list, description="facts assumed true")
    guards: list[str | Entry] = Field(default_factory=list, description="conditions under analysis")
    queries: list[str | Entry] = Field(default_factory=list, description="expressions for evaluate")
    exprs: list[str | ExprEntry] = Field(default_factory=list, description="expressions for simplify (ids e0, e1, …)")
    inputs: dict[str, list[int | str]] = Field(default_factory=dict, description="tensor shapes for shrink")
    syntax: Literal["sympy", "smtlib"] = "sympy"
    options: Options = Field(default_factory=Options)


class BatchItem(BaseModel):
    op: Op
    problem: Problem


class BatchRequest(BaseModel):
    items: list[BatchItem]


# ------------------------------------------------------------------ responses (docs/problem-format.md §2, §5)

class ErrorDetail(BaseModel):
    code: str = Field(..., description="parse_error | unsupported | invalid_problem | too_large | "
                      "unauthorized | not_found | method_not_allowed | unknown_context | overloaded | "
                      "internal_error (docs/problem-format.md §5)")
    message: str
    where: str | None = Field(default=None, description="e.g. guards[3], symbols.s0.min")
    offset: int | None = Field(default=None, description="character offset in the expression")


class ErrorBody(BaseModel):
    """docs/problem-format.md §5 error body."""

    error: ErrorDetail


class Result(_Open):
    """The envelope every result carries."""

    op: Op
    status: Literal["sat", "unsat", "unknown"]
    key: str = Field(..., description="hex digest of the canonical problem (docs/problem-format.md §3)")
    cached: bool
    elapsed_ms: float
    warnings: list[str]
    reason: Literal["timeout", "incomplete", "resource"] | None = Field(default=None, description="when unknown")


class SolveResult(Result):
    model: dict[str, int | bool] | None = Field(default=None, description="sat: a satisfying assignment")
    core: list[str] | None = Field(default=None, description="unsat: ids that are together unsatisfiable")


class GuardVerdict(BaseModel):
    id: str
    verdict: Literal["always_true", "always_false", "redundant", "required", "unknown", "unsupported"]
    implied_by: list[str]


class RedundancyResult(Result):
    guards: list[GuardVerdict]
    minimal: list[str] = Field(..., description="kept guard ids, equivalent to all guards under the asserts")


class QueryResult(_Open):
    id: str
    kind: Literal["bool", "int"]
    value: Any = Field(default=None, description="bool: true/false/\"depends\"/\"unknown\"; int: the constant value")
    min: int | None = None
    max: int | None = None
    when_true: dict[str, int | bool] | None = None
    when_false: dict[str, int | bool] | None = None


class EvaluateResult(Result):
    queries: list[QueryResult]


class ShrinkResult(Result):
    model: dict[str, int | bool] | None = None
    objective: Literal["sum", "max", "lex"] | None = None
    objective_value: int | None = None
    optimal: bool | None = None
    input_shapes: dict[str, list[int]] | None = None


class Cost(BaseModel):
    ops: int = Field(..., description="arithmetic, comparisons, Max/Min arguments, connectives, Piecewise branches")
    divs: int = Field(..., description="floor/ceiling divisions and moduli (ModularIndexing(x, d, m) with d != 1 is two)")


class ExprCost(BaseModel):
    before: Cost
    after: Cost


class ExprForm(BaseModel):
    id: str
    form: str = Field(..., description="the canonical equivalent under the context, PyTorch/sympy syntax; "
                      "the input unchanged when not proved")
    proved: bool = Field(..., description="equivalence under the context is proven (by construction or by z3)")
    cost: ExprCost


class SimplifyResult(Result):
    exprs: list[ExprForm]


RESULTS: dict[str, type[Result]] = {"solve": SolveResult, "redundancy": RedundancyResult,
                                    "evaluate": EvaluateResult, "shrink": ShrinkResult,
                                    "simplify": SimplifyResult}


class BatchResponse(BaseModel):
    results: list[SolveResult | RedundancyResult | EvaluateResult | ShrinkResult | SimplifyResult
                  | ErrorBody] = Field(default=
        ..., description="one per item, in order; a failed item holds its §5 error body")


class Health(BaseModel):
    status: str
    workers: int | None = None
    redis: bool | None = None
