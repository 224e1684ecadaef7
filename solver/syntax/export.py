"""Whole problems as ``.smt2`` scripts (``symguard export --to smt2``), readable back unchanged in meaning."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from symguard.solver.errors import UnsupportedError
from symguard.solver.syntax.document import load_problem
from symguard.solver.syntax.smtlib_writer import comment_text, int_literal, quote_symbol, to_smtlib


def problem_to_smt2(doc: Mapping[str, Any]) -> str:
    """A ``.smt2`` script with the same meaning as the problem ``doc`` (either syntax; docs/problem-format.md).

    Kept: every symbol (``declare-const``), its range (an unnamed assert), every assert (unnamed:
    assert ids become ``a0, a1, …`` on reading back) and every guard as ``(! … :named id)``.
    SMT-LIB has no place for the rest, so ``; symguard: KEY = {json}`` comments carry it and
    ``script_problem`` reads them back: ``hints`` (symbol -> value), ``queries`` and ``exprs`` (id ->
    the expression as an SMT-LIB term, so ``evaluate`` and ``simplify`` on the script answer the
    same questions), ``ranges`` (an ``exprs`` entry's loop ranges) and ``inputs``.
    ``options`` is written for a human reader only (the reader's own options apply). A guard or
    assert skipped as unsupported (``on_unsupported: "skip"``) is written only as a comment.
    """
    p = load_problem(doc)
    lines = ["; symguard problem exported as SMT-LIB 2.6 (symguard solve|redundancy FILE.smt2)",
             "; Python floor division/modulus are written with Euclidean div/mod on a positive divisor."]
    extra: dict[str, Any] = {k: doc[k] for k in ("inputs", "options") if doc.get(k)}
    for key, entries in (("queries", p.queries), ("exprs", p.exprs)):
        if entries:
            extra[key] = {q.id: to_smtlib(q.term, bool_symbols_as=True) for q in entries}
    ranges = {q.id: {v: to_smtlib(b) for v, b in q.ranges} for q in p.exprs if q.ranges}
    if ranges:  # an exprs entry's loop ranges (id -> variable -> bound as an SMT-LIB term)
        extra["ranges"] = ranges
    hints = {s.name: s.hint for s in p.symbols if s.hint is not None}
    if hints:
        extra["hints"] = hints
    for k, v in extra.items():
        lines.append(f"; symguard: {k} = {json.dumps(v, ensure_ascii=True)}")
    lines.append("(set-logic ALL)")
    for s in p.symbols:
        try:
            name = quote_symbol(s.name, constant=True)
        except UnsupportedError as e:
            raise e.located(f"symbols.{s.name}") from None
        lines.append(f"(declare-const {name} {'Bool' if s.is_bool else 'Int'})")
    for s in p.symbols:
        name = quote_symbol(s.name)
        if s.lo is not None and s.hi is not None:
            lines.append(f"(assert (<= {int_literal(s.lo)} {name} {int_literal(s.hi)}))")
        elif s.lo is not None:
            lines.append(f"(assert (>= {name} {int_literal(s.lo)}))")
        elif s.hi is not None:
            lines.append(f"(assert (<= {name} {int_literal(s.hi)}))")
    for c in p.asserts:
        if c.term is None:
            lines.append(f"; skipped {comment_text(c.where, c.id, c.skipped)}")
        else:
            lines.append(f"(assert {to_smtlib(c.term)})  ; {comment_text(c.id)}")
    for c in p.guards:
        if c.term is None:
            lines.append(f"; skipped {comment_text(c.where, c.id, c.skipped)}")
            continue
        try:
            ident = quote_symbol(c.id)
        except UnsupportedError as e:
            raise e.located(f"{c.where}.id") from None
        lines.append(f"(assert (! {to_smtlib(c.term)} :named {ident}))")
    lines.append("(check-sat)")
    return "\n".join(lines) + "\n"

