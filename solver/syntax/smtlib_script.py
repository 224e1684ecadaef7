"""SMT-LIB 2.6 input: single terms (``syntax: "smtlib"``) and ``.smt2`` scripts (docs/problem-format.md §4).

Why our own reader instead of pysmt's ``SmtLibParser`` (a deliberate choice): pysmt does not
know ``div``, ``mod`` and ``abs`` (pysmt issue #760), would hand us pysmt formulas where we need
symguard IR (with the implicit ``divisor != 0`` domain and Euclidean ``EDIV``/``EMOD`` nodes) and
their offsets for errors, and is about 20x slower than z3's own parser. So ``sexpr`` reads
S-expressions with offsets (regex tokens, an explicit stack), ``smtlib_terms`` builds IR from
them, and this module interprets script commands. Measured on a 500-guard script (26 kB, loaded
2-core machine): reading ~18 ms, reading + IR ~0.3 s; building normalized, hash-consed IR
dominates, as it does for the sympy syntax.

Language: Int and Bool constants; integer literals; ``+ - * div mod abs``; ``<= < >= > =``
(chainable), ``distinct``, ``and or not => xor ite``, ``let``, ``!`` annotations, ``define-fun``
macros. Anything else (reals, ``/``, quantifiers, arrays, bit-vectors, uninterpreted functions)
is an ``UnsupportedError`` naming the construct and its offset.

Bool constants: the IR has ``BSYM``; in a script they are declared as usual. In a lone term
string (a problem document) a Bool constant is written ``(as p Bool)``, SMT-LIB's sort
ascription, because an undeclared bare symbol in a term is an Int.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from symguard.solver.errors import BadInput, ParseError, TooLargeError, UnsupportedError
from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term
from symguard.solver.syntax.sexpr import KEYWORD, Atom, Node, SList, is_symbol, iter_top, line_col, read_one
from symguard.solver.syntax.smtlib_terms import INT_SORT, TermBuilder, sort_of
from symguard.solver.syntax.smtlib_writer import to_smtlib
from symguard.solver.syntax.sympy_reader import Parsed

MAX_TERM_CHARS = 1_000_000

__all__ = ["Assertion", "Command", "Script", "parse_term", "script_problem"]


def parse_term(text: str) -> Parsed:
    """One SMT-LIB term (undeclared symbols are Int); errors carry the offset into ``text``."""
    if not isinstance(text, str):
        raise ParseError("expected an SMT-LIB term string")
    if len(text) > MAX_TERM_CHARS:
        raise TooLargeError(f"term of {len(text)} characters (limit {MAX_TERM_CHARS})")
    b = TermBuilder(implicit_int=True)
    term = b.build(read_one(text))
    return Parsed(term, ir.mk_and(*b.domain) if b.domain else ir.TRUE)


@dataclass(frozen=True)
class Assertion:
    name: str | None  # the :named label (a guard), or None (an assert)
    term: Term  # domain (divisors != 0) conjoined
    offset: int


@dataclass(frozen=True)
class Command:
    """What a script command asks of a runner (declarations are handled inside ``Script``)."""

    kind: str  # check-sat get-model get-value get-unsat-core get-info echo exit none
    node: SList
    values: tuple[tuple[str, Term], ...] = ()  # get-value: (source text, term with its domain)
    arg: str = ""


class Script:
    """The state of an SMT-LIB script being read: declarations, macros, assertion stack."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.b = TermBuilder(implicit_int=False)
        self.assertions: list[Assertion] = []
        self._scopes: list[tuple[int, list[str]]] = []  # (assertions before push, names added)

    @property
    def symbols(self) -> dict[str, str]:
        """Declared constants in scope, in declaration order, with their sort."""
        return dict(self.b.symbols)

    def commands(self) -> Iterator[Command]:
        """Execute the commands one by one; errors say ``where="line N"`` and the offset."""
        it = iter_top(self.text)
        while True:
            try:
                node = next(it)
            except StopIteration:
                return
            except BadInput as e:
                raise self._locate(e, e.offset or 0) from None
            try:
                yield self.execute(node)
            except BadInput as e:
                raise self._locate(e, node.start) from None

    def _locate(self, e: BadInput, default: int) -> BadInput:
        if e.offset is None:
            e.offset = default
        e.where = e.where or f"line {line_col(self.text, e.offset)[0]}"
        return e

    # -------------------------------------------------------------- commands
    def execute(self, node: Node) -> Command:
        if not isinstance(node, SList) or not node.items or not is_symbol(node.items[0]):
            raise ParseError("expected a command like (assert ...)", offset=node.start)
        name = node.items[0].text  # type: ignore[union-attr]
        args = node.items[1:]
        handler = getattr(self, "_c_" + name.replace("-", "_"), None)
        if handler is None:
            raise UnsupportedError(f"unsupported command {name}", offset=node.start)
        out: Command = handler(node, args) or Command("none", node)
        return out

    def _c_set_logic(self, node: SList, args: tuple[Node, ...]) -> None:
        if len(args) != 1 or not is_symbol(args[0]):
            raise ParseError("(set-logic NAME) expected", offset=node.start)

    def _c_set_option(self, node: SList, args: tuple[Node, ...]) -> None:
        return None

    _c_set_info = _c_set_option

    def _c_declare_const(self, node: SList, args: tuple[Node, ...]) -> None:
        if len(args) != 2 or not is_symbol(args[0]):
            raise ParseError("(declare-const name Sort) expected", offset=node.start)
        self._declare(args[0], sort_of(args[1]))  # type: ignore[arg-type]

    def _c_declare_fun(self, node: SList, args: tuple[Node, ...]) -> None:
        if len(args) != 3 or not is_symbol(args[0]) or not isinstance(args[1], SList):
            raise ParseError("(declare-fun name (Sort ...) Sort) expected", offset=node.start)
        if args[1].items:
            raise UnsupportedError(f"uninterpreted function {args[0].text} (only constants, "  # type: ignore[union-attr]
                                   "declare-fun with no arguments, are supported)", offset=node.start)
        self._declare(args[0], sort_of(args[2]))  # type: ignore[arg-type]

    def _c_define_fun(self, node: SList, args: tuple[Node, ...]) -> None:
        if len(args) != 4 or not is_symbol(args[0]) or not isinstance(args[1], SList):
            raise ParseError("(define-fun name ((x Sort) ...) Sort body) expected", offset=node.start)
        params: list[tuple[str, str]] = []
        for p in args[1].items:
            if not (isinstance(p, SList) and len(p.items) == 2 and is_symbol(p.items[0])):
                raise ParseError("a parameter must be (name Sort)", offset=p.start)
            pn = p.items[0].text  # type: ignore[union-attr]
            if pn in (x for x, _ in params):
                raise ParseError(f"parameter {pn!r} appears twice", offset=p.start)
            params.append((pn, sort_of(p.items[1])))
        name_node: Atom = args[0]  # type: ignore[assignment]
        self._fresh(name_node)
        self.b.macros[name_node.text] = self.b.define(name_node.text, tuple(params), sort_of(args[2]), args[3])
        self._note(name_node.text)

    def _c_assert(self, node: SList, args: tuple[Node, ...]) -> None:
        if len(args) != 1:
            raise ParseError("(assert term) expected", offset=node.start)
        body, label = _named(args[0])
        self.b.domain = []
        t = self.b.build(body)
        if not t.is_bool:
            raise ParseError("assert expects a Bool term, got an Int", offset=args[0].start)
        if label is not None and any(a.name == label for a in self.assertions):
            raise ParseError(f"the name {label!r} is already used by another assertion", offset=args[0].start)
        cond = ir.mk_and(*self.b.domain, t) if self.b.domain else t
        self.assertions.append(Assertion(label, cond, node.start))

    def _c_push(self, node: SList, args: tuple[Node, ...]) -> None:
        for _ in range(_count(node, args)):
            self._scopes.append((len(self.assertions), []))

    def _c_pop(self, node: SList, args: tuple[Node, ...]) -> None:
        n = _count(node, args)
        if n > len(self._scopes):
            raise ParseError(f"pop {n} with only {len(self._scopes)} push(es) in force", offset=node.start)
        for _ in range(n):
            size, names = self._scopes.pop()
            del self.assertions[size:]
            for nm in names:
                self.b.symbols.pop(nm, None)
                self.b.macros.pop(nm, None)

    def _c_reset_assertions(self, node: SList, args: tuple[Node, ...]) -> None:
        while self._scopes:
            self._c_pop(node, ())
        self.assertions.clear()

    def _c_reset(self, node: SList, args: tuple[Node, ...]) -> None:
        self.b = TermBuilder(implicit_int=False)
        self.assertions.clear()
        self._scopes.clear()

    def _c_check_sat(self, node: SList, args: tuple[Node, ...]) -> Command:
        if args:
            raise ParseError("check-sat takes no arguments", offset=node.start)
        return Command("check-sat", node)

    def _c_get_value(self, node: SList, args: tuple[Node, ...]) -> Command:
        if len(args) != 1 or not isinstance(args[0], SList) or not args[0].items:
            raise ParseError("(get-value (term ...)) expected", offset=node.start)
        vals = []
        for t in args[0].items:
            self.b.domain = []
            term = self.b.build(t)
            vals.append((self.text[t.start:t.end], term))
        return Command("get-value", node, tuple(vals))

    def _c_get_model(self, node: SList, args: tuple[Node, ...]) -> Command:
        return Command("get-model", node)

    def _c_get_unsat_core(self, node: SList, args: tuple[Node, ...]) -> Command:
        return Command("get-unsat-core", node)

    def _c_get_info(self, node: SList, args: tuple[Node, ...]) -> Command:
        key = args[0].text if args and isinstance(args[0], Atom) else ""
        return Command("get-info", node, arg=key)

    def _c_echo(self, node: SList, args: tuple[Node, ...]) -> Command:
        return Command("echo", node, arg=args[0].text if args and isinstance(args[0], Atom) else "")

    def _c_exit(self, node: SList, args: tuple[Node, ...]) -> Command:
        return Command("exit", node)

    def _c_get_option(self, node: SList, args: tuple[Node, ...]) -> Command:
        return Command("none", node)

    # -------------------------------------------------------------- helpers
    def _declare(self, name: Atom, sort: str) -> None:
        self._fresh(name)
        self.b.symbols[name.text] = sort
        self._note(name.text)

    def _fresh(self, name: Atom) -> None:
        n = name.text
        if n in self.b.symbols or n in self.b.macros:
            raise ParseError(f"{n!r} is already declared", offset=name.start)
        if n.startswith("."):
            raise ParseError(f"{n!r}: names starting with '.' are reserved for solvers", offset=name.start)
        if n in ("true", "false", "let", "!", "as") or n in _builtin_names():
            raise ParseError(f"{n!r} is a predefined name", offset=name.start)

    def _note(self, name: str) -> None:
        if self._scopes:
            self._scopes[-1][1].append(name)


def _builtin_names() -> frozenset[str]:
    from symguard.solver.syntax.smtlib_terms import _ARITY

    return frozenset(_ARITY)


def _named(node: Node) -> tuple[Node, str | None]:
    """``(! t :named n ...)`` -> (t, n); anything else -> (node, None)."""
    if not (isinstance(node, SList) and node.items and is_symbol(node.items[0], "!")):
        return node, None
    items = node.items
    label = None
    for k, v in zip(items[2::2], items[3::2]):
        if isinstance(k, Atom) and k.kind == KEYWORD and k.text == ":named":
            if not is_symbol(v):
                raise ParseError(":named expects a symbol", offset=v.start)
            label = v.text  # type: ignore[union-attr]
    if len(items) < 2:
        raise ParseError("(! term :named NAME) expected", offset=node.start)
    return (items[1] if label is not None else node), label


def _count(node: SList, args: tuple[Node, ...]) -> int:
    if not args:
        return 1
    a = args[0]
    if len(args) != 1 or not isinstance(a, Atom) or not a.text.isdigit():
        raise ParseError(f"({node.items[0].text} N) expects a numeral", offset=node.start)  # type: ignore[union-attr]
    if int(a.text) > 10_000:
        raise TooLargeError("push/pop count above 10000", offset=a.start)
    return int(a.text)


# ------------------------------------------------------------------ script -> problem document

def script_problem(text: str) -> dict[str, Any]:
    """The problem document of a ``.smt2`` script: the assertions in force at the first
    ``check-sat`` (or at the end), unnamed ones as asserts, ``:named`` ones as guards.

    Unnamed assertions that bound a single Int constant (``(>= x 2)``, ``(and (<= 1 h 64) …)``)
    become that symbol's ``min``/``max`` (the rest of the assertion stays an assert): the same
    meaning, and the form in which cheap interval reasoning sees them (``export`` writes ranges
    as such asserts, so a round trip gives the ranges back). Contradictory bounds stay asserts,
    so an unsatisfiable script is answered ``unsat``, not refused as an empty range."""
    s = Script(text)
    for cmd in s.commands():
        if cmd.kind in ("check-sat", "exit"):
            break
    from symguard.solver.ir.problem import NAME_RE

    ints = {n for n, sort in s.b.symbols.items() if sort == INT_SORT and NAME_RE.match(n)}
    unnamed = [a for a in s.assertions if a.name is None]
    lo: dict[str, int] = {}
    hi: dict[str, int] = {}
    split = []
    for a in unnamed:
        parts = a.term.args if a.term.kind == ir.AND else (a.term,)
        bounds = [(p, _bound(p, ints)) for p in parts]
        split.append(bounds)
        for _, b in bounds:
            if b is not None:
                n, low, high = b
                if low is not None:
                    lo[n] = max(lo.get(n, low), low)
                if high is not None:
                    hi[n] = min(hi.get(n, high), high)
    empty = {n for n in lo if n in hi and lo[n] > hi[n]}
    symbols: dict[str, Any] = {}
    for n in s.b.symbols:
        if n in ints:
            symbols[n] = {"min": lo.get(n) if n not in empty else None}
            if n in hi and n not in empty:
                symbols[n]["max"] = hi[n]
    labels = {a.name for a in s.assertions if a.name is not None}
    asserts: list[Any] = []
    for bounds in split:
        rest = [p for p, b in bounds if b is None or b[0] in empty]
        if not rest:
            continue
        expr = to_smtlib(ir.mk_and(*rest), bool_symbols_as=True)
        ident = f"a{len(asserts)}"
        while ident in labels:
            ident += "_"
        asserts.append(expr if ident == f"a{len(asserts)}" else {"id": ident, "expr": expr})
    guards = [{"id": a.name, "expr": to_smtlib(a.term, bool_symbols_as=True)}
              for a in s.assertions if a.name is not None]
    # every SMT-LIB Int is unbounded: also the undeclarable-in-JSON names (x.1, |a b|) via default_min
    notes = _annotations(text)
    for n, v in notes.get("hints", {}).items():  # symguard's own export comment: hints round-trip
        if n in symbols and isinstance(v, int) and not isinstance(v, bool):
            symbols[n]["hint"] = v
    doc: dict[str, Any] = {"syntax": "smtlib", "symbols": symbols, "asserts": asserts, "guards": guards,
                           "options": {"default_min": None}}
    for key, prefix in (("queries", "q"), ("exprs", "e")):  # export's comments: SMT-LIB terms, ids kept
        entries = [(q, e) for q, e in notes.get(key, {}).items() if isinstance(e, str)]
        if entries:
            doc[key] = [e if q == f"{prefix}{i}" else {"id": q, "expr": e} for i, (q, e) in enumerate(entries)]
    ranges = notes.get("ranges", {})
    if ranges and doc.get("exprs"):  # loop ranges of exprs entries, by id
        doc["exprs"] = [_with_ranges(e, f"e{i}", ranges) for i, e in enumerate(doc["exprs"])]
    inputs = notes.get("inputs")  # kept when every dim reads the same in both syntaxes
    if inputs and all(isinstance(dims, list) and all(
            (isinstance(d, int) and not isinstance(d, bool) and d >= 0) or (isinstance(d, str) and d in symbols)
            for d in dims) for dims in inputs.values()):
        doc["inputs"] = inputs
    return doc


def _with_ranges(entry: Any, default_id: str, ranges: dict[str, Any]) -> Any:
    ident = entry["id"] if isinstance(entry, dict) else default_id
    r = ranges.get(ident)
    if not isinstance(r, dict) or not r:
        return entry
    return {**(entry if isinstance(entry, dict) else {"id": ident, "expr": entry}), "ranges": r}


_ANNOTATION = re.compile(r"^; symguard: (\w+) = (\{.*\})[ \t]*$", re.MULTILINE)


def _annotations(text: str) -> dict[str, dict[str, Any]]:
    """The ``; symguard: key = {json}`` comments that ``export`` writes, the first of each key (a
    malformed one reads as empty: a comment never makes a script invalid)."""
    out: dict[str, dict[str, Any]] = {}
    for m in _ANNOTATION.finditer(text, 0, min(len(text), 1 << 20)):
        if m.group(1) not in out:
            try:
                v = json.loads(m.group(2))
            except ValueError:
                v = None
            out[m.group(1)] = v if isinstance(v, dict) else {}
    return out


def _bound(t: Term, ints: set[str]) -> tuple[str, int | None, int | None] | None:
    """``x <= k`` / ``x >= k`` / ``x = k`` on one declared Int constant, as (x, min, max)."""
    if t.kind not in (ir.LE, ir.EQ):
        return None
    coefs, k = ir.linear(t.args[0])
    if len(coefs) != 1:
        return None
    ((m, c),) = coefs.items()
    if m.kind != ir.SYM or m.value not in ints or c not in (1, -1):
        return None
    if t.kind == ir.EQ:  # c*x + k = 0
        return m.value, -k * c, -k * c
    return (m.value, None, -k) if c == 1 else (m.value, k, None)  # x + k <= 0 | -x + k <= 0
