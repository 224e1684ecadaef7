"""JSON problem documents -> ``Problem``: every field checked up front, every expression parsed once.

Faults name where they are (``guards[3]``, ``symbols.s0.min``) so a person can fix the input.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from symguard.solver.errors import BadInput, InvalidProblemError, TooLargeError, UnsupportedError
from symguard.solver.ir import terms as ir
from symguard.solver.ir.problem import (
    MAX_EFFORT,
    MAX_ENTRIES,
    MAX_SYMBOLS,
    NAME_RE,
    Constraint,
    Options,
    Problem,
    Query,
    Symbol,
    complete_symbols,
)
from symguard.solver.ir.terms import Term
from symguard.solver.syntax.sympy_reader import Parsed, parse_sympy

_TOP_KEYS = {"symbols", "asserts", "guards", "queries", "exprs", "inputs", "syntax", "options",
             "source", "name", "description", "meta", "expected"}


TermParser = Callable[[str], Parsed]


def load_problem(data: Any, *, term_parser: TermParser | None = None) -> Problem:
    """Validate a docs/problem-format.md §1 JSON document (already decoded) into a ``Problem``."""
    if not isinstance(data, Mapping):
        raise InvalidProblemError("a problem must be a JSON object", where="$")
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise InvalidProblemError(f"unknown field {unknown[0]!r} (expected one of: symbols, asserts, "
                                  "guards, queries, exprs, inputs, syntax, options)", where=unknown[0])
    options = _options(data.get("options"))
    syntax = data.get("syntax", "sympy")
    if syntax not in ("sympy", "smtlib"):
        raise InvalidProblemError("syntax must be \"sympy\" or \"smtlib\"", where="syntax")
    if term_parser is None:
        if syntax == "sympy":
            term_parser = parse_sympy
        else:
            from symguard.solver.syntax.smtlib_script import parse_term

            term_parser = parse_term
    declared = _symbols(data.get("symbols"), options)
    warnings: list[str] = []
    asserts = _constraints(data.get("asserts"), "asserts", "a", term_parser, options, warnings)
    guards = _constraints(data.get("guards"), "guards", "g", term_parser, options, warnings)
    queries = _queries(data.get("queries"), term_parser)
    exprs = _queries(data.get("exprs"), term_parser, section="exprs", prefix="e")
    inputs = _inputs(data.get("inputs"), term_parser)
    _check_ids(asserts, guards, queries, exprs)
    if len(asserts) + len(guards) + len(queries) + len(exprs) > MAX_ENTRIES:
        raise TooLargeError(f"more than {MAX_ENTRIES} asserts, guards, queries and exprs together")
    terms: list[Term] = [c.term for c in (*asserts, *guards) if c.term is not None]
    terms += [t for q in (*queries, *exprs) for t in (q.term, q.domain)]
    terms += [d for _, dims in inputs for d in dims]
    symbols = complete_symbols(declared, terms, options)
    return Problem(symbols, asserts, guards, queries, inputs, options, syntax, tuple(warnings), exprs)



def _int_or_null(v: Any, where: str, *, allow_null: bool = True) -> int | None:
    if v is None and allow_null:
        return None
    if isinstance(v, bool) or not isinstance(v, int):
        raise InvalidProblemError(f"expected an integer{' or null' if allow_null else ''}, got {v!r}"[:200],
                                  where=where)
    if ir.too_many_digits(v):
        raise TooLargeError(f"integer with more than {ir.MAX_INT_DIGITS} digits", where=where)
    return v


def _options(raw: Any) -> Options:
    if raw is None:
        return Options()
    if not isinstance(raw, Mapping):
        raise InvalidProblemError("options must be an object", where="options")
    kw: dict[str, Any] = {}
    for k, v in raw.items():
        w = f"options.{k}"
        if k == "timeout_ms":
            t = _int_or_null(v, w, allow_null=False)
            if t is None or t <= 0 or t > 3_600_000:
                raise InvalidProblemError("timeout_ms must be between 1 and 3600000", where=w)
            kw[k] = t
        elif k == "effort":
            e = _int_or_null(v, w, allow_null=False)
            if e is None or e <= 0 or e > MAX_EFFORT:
                raise InvalidProblemError(f"effort must be between 1 and {MAX_EFFORT}", where=w)
            kw[k] = e
        elif k == "default_min":
            kw[k] = _int_or_null(v, w)
        elif k in ("minimize",):
            if not isinstance(v, bool):
                raise InvalidProblemError(f"{k} must be true or false", where=w)
            kw[k] = v
        elif k == "preserve_distinct":
            if v is not None and not isinstance(v, bool):
                raise InvalidProblemError(f"{k} must be true, false or null", where=w)
            kw[k] = v
        elif k in _CHOICES:
            if v not in _CHOICES[k]:
                raise InvalidProblemError(f"{k} must be one of {', '.join(map(repr, _CHOICES[k]))}", where=w)
            kw[k] = v
        else:
            raise InvalidProblemError(f"unknown option {k!r}", where=w)
    return Options(**kw)


_CHOICES = {"on_unsupported": ("error", "skip"), "prefer": ("cheap", "order"),
            "objective": ("sum", "max", "lex")}


def _symbols(raw: Any, options: Options) -> list[Symbol]:
    if raw is None:
        return []
    if not isinstance(raw, Mapping):
        raise InvalidProblemError("symbols must be an object mapping names to {min, max, hint}", where="symbols")
    if len(raw) > MAX_SYMBOLS:
        raise TooLargeError(f"more than {MAX_SYMBOLS} symbols", where="symbols")
    out = []
    for name, decl in raw.items():
        w = f"symbols.{name}"
        if not isinstance(name, str) or not NAME_RE.match(name) or name.startswith("__"):
            raise InvalidProblemError(f"{name!r} is not a valid symbol name", where=w)
        if keyword.iskeyword(name):  # True/False/None are values and the rest syntax, never a symbol
            raise InvalidProblemError(f"{name!r} is a Python keyword, not a valid symbol name", where=w)
        if decl is None:
            decl = {}
        if not isinstance(decl, Mapping):
            raise InvalidProblemError("a symbol declaration must be an object {min, max, hint}", where=w)
        bad = set(decl) - {"min", "max", "hint"}
        if bad:
            raise InvalidProblemError(f"unknown key {min(bad)!r} (expected min, max, hint)", where=w)
        lo = _int_or_null(decl["min"], f"{w}.min") if "min" in decl else options.default_min
        hi = _int_or_null(decl.get("max"), f"{w}.max")
        hint = _int_or_null(decl.get("hint"), f"{w}.hint")
        if lo is not None and hi is not None and lo > hi:
            raise InvalidProblemError(f"empty range: min {lo} > max {hi}", where=w)
        out.append(Symbol(name, lo, hi, hint))
    return out


# What an ``exprs`` entry may carry besides ``id`` and ``expr`` (docs/problem-format.md §1): its
# loop variables' ``ranges``, and the notes of a capture (smt2_corpus/simplify/README.md) that
# nothing reads. Any other key is still an error: a misspelt ``ranges`` is never ignored.
EXPR_RANGES = "ranges"
EXPR_NOTES = frozenset({"pytorch", "guards_known", "calls", "expected", "rule"})


def entries(raw: Any, section: str, prefix: str,
             extra: frozenset[str] = frozenset()) -> list[tuple[str, str, str, Mapping[str, Any] | None]]:
    """(id, text, where, the entry when it is an object) per entry; ``extra``: keys an object may add."""
    if raw is None:
        return []
    if not isinstance(raw, Sequence) or isinstance(raw, (str, bytes)):
        raise InvalidProblemError(f"{section} must be a list", where=section)
    if len(raw) > MAX_ENTRIES:
        raise TooLargeError(f"more than {MAX_ENTRIES} {section}", where=section)
    out: list[tuple[str, str, str, Mapping[str, Any] | None]] = []
    for i, e in enumerate(raw):
        w = f"{section}[{i}]"
        if isinstance(e, str):
            out.append((f"{prefix}{i}", e, w, None))
        elif isinstance(e, Mapping):
            bad = set(e) - {"id", "expr"} - extra
            if bad or "expr" not in e:
                also = f" (an {section} entry may also hold {', '.join(sorted(extra))})" if extra else ""
                what = f"; unknown key {min(map(str, bad))!r}" if bad else ""
                raise InvalidProblemError(f"an entry must be a string or {{\"id\": ..., \"expr\": ...}}{what}{also}",
                                          where=w)
            ident = e.get("id", f"{prefix}{i}")
            if not isinstance(ident, str) or not ident or len(ident) > 256:
                raise InvalidProblemError("id must be a non-empty string (at most 256 characters)", where=f"{w}.id")
            if not isinstance(e["expr"], str):
                raise InvalidProblemError("expr must be a string", where=f"{w}.expr")
            out.append((ident, e["expr"], w, e))
        else:
            raise InvalidProblemError("an entry must be a string or {\"id\": ..., \"expr\": ...}", where=w)
    return out


def _parse(parser: TermParser, text: str, where: str) -> Parsed:
    try:
        return parser(text)
    except BadInput as e:
        raise e.located(where) from None


def _constraints(raw: Any, section: str, prefix: str, parser: TermParser, options: Options,
                 warnings: list[str]) -> tuple[Constraint, ...]:
    out = []
    for ident, text, where, _ in entries(raw, section, prefix):
        try:
            p = _parse(parser, text, where)
        except UnsupportedError as e:
            if options.on_unsupported != "skip":
                raise
            warnings.append(f"{where} ({ident}) skipped as unsupported: {e.message}")
            out.append(Constraint(ident, text, where, None, e.message))
            continue
        if not p.term.is_bool:
            raise InvalidProblemError("expected a condition (a comparison), got an integer expression",
                                      where=where, offset=0)
        out.append(Constraint(ident, text, where, p.as_condition()))
    return tuple(out)


def _queries(raw: Any, parser: TermParser, *, section: str = "queries", prefix: str = "q") -> tuple[Query, ...]:
    """Queries (``evaluate``) or exprs (``simplify``): integer or boolean, each with its domain."""
    out = []
    extra = EXPR_NOTES | {EXPR_RANGES} if section == "exprs" else frozenset()
    for ident, text, where, entry in entries(raw, section, prefix, extra):
        p = _parse(parser, text, where)
        ranges, conds = _ranges(entry.get(EXPR_RANGES), f"{where}.{EXPR_RANGES}", parser) if entry else ((), [])
        out.append(Query(ident, text, where, p.term, ir.mk_and(p.domain, *conds), ranges))
    return tuple(out)


def _ranges(raw: Any, where: str, parser: TermParser) -> tuple[tuple[tuple[str, Term], ...], list[Term]]:
    """An ``exprs`` entry's ``ranges`` (loop variable -> bound, an integer or an integer
    expression), read as PyTorch's ``var_ranges``, and the conditions they add to the entry's
    domain: ``0 <= v < bound`` (and the bound defined), for this entry only."""
    if raw is None:
        return (), []
    if not isinstance(raw, Mapping):
        raise InvalidProblemError("ranges must be an object mapping loop variables to bounds", where=where)
    out, conds = [], []
    for name, bound in raw.items():
        w = f"{where}.{name}"
        if not isinstance(name, str) or not NAME_RE.match(name) or name.startswith("__") or keyword.iskeyword(name):
            raise InvalidProblemError(f"{name!r} is not a valid symbol name", where=w)
        if isinstance(bound, bool) or not isinstance(bound, (int, str)):
            raise InvalidProblemError("a bound must be an integer or an integer expression", where=w)
        if isinstance(bound, int):
            if ir.too_many_digits(bound):
                raise TooLargeError(f"integer with more than {ir.MAX_INT_DIGITS} digits", where=w)
            t = ir.mk_int(bound)
        else:
            b = _parse(parser, bound, w)
            if b.term.is_bool:
                raise InvalidProblemError("a bound must be an integer expression", where=w)
            t = b.term
            conds.append(b.domain)
        out.append((name, t))
        conds += [ir.mk_le(ir.mk_int(0), ir.mk_sym(name)), ir.mk_lt(ir.mk_sym(name), t)]
    return tuple(out), conds


def _inputs(raw: Any, parser: TermParser) -> tuple[tuple[str, tuple[Term, ...]], ...]:
    if raw is None:
        return ()
    if not isinstance(raw, Mapping):
        raise InvalidProblemError("inputs must be an object mapping names to shapes", where="inputs")
    out = []
    for name, dims in raw.items():
        w = f"inputs.{name}"
        if not isinstance(dims, Sequence) or isinstance(dims, (str, bytes)):
            raise InvalidProblemError("a shape must be a list of integers or expressions", where=w)
        terms = []
        for i, d in enumerate(dims):
            if isinstance(d, bool) or not isinstance(d, (int, str)):
                raise InvalidProblemError("a dimension must be an integer or an expression", where=f"{w}[{i}]")
            t = ir.mk_int(d) if isinstance(d, int) else _parse(parser, d, f"{w}[{i}]").term
            if t.is_bool:
                raise InvalidProblemError("a dimension must be an integer expression", where=f"{w}[{i}]")
            terms.append(t)
        out.append((str(name), tuple(terms)))
    return tuple(out)


def _check_ids(*sections: Sequence[Constraint | Query]) -> None:
    seen: dict[str, str] = {}
    for sec in sections:
        for c in sec:
            if c.id in seen:
                raise InvalidProblemError(f"duplicate id {c.id!r} (also used by {seen[c.id]})", where=c.where)
            seen[c.id] = c.where
