"""A small SMT-LIB 2.6 S-expression reader that keeps character offsets.

It is iterative (an explicit stack, so deeply nested input cannot crash it with a RecursionError)
and bounded (nesting depth and text size raise ``TooLargeError``). It only reads; giving the
expressions a meaning is ``smtlib_terms``' job. Top-level expressions are produced one at a time
(``read_all``/``iter_top``), so a script runner can answer the commands before a malformed tail.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from symguard.solver.errors import ParseError, TooLargeError

MAX_DEPTH = 10_000
MAX_SCRIPT_CHARS = 50_000_000

# atom kinds
NUM, DEC, HEX, BIN, SYMBOL, KEYWORD, STRING = "numeral", "decimal", "hex", "binary", "symbol", "keyword", "string"

_SYMBOL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789~!@$%^&*_-+=<>.?/")
_DELIMS = frozenset(" \t\r\n\f\v();\"|")


class Atom(NamedTuple):
    kind: str
    text: str  # symbols: without |quotes|; strings: unescaped
    start: int
    end: int


class SList(NamedTuple):
    items: tuple[Atom | SList, ...]
    start: int
    end: int


Node = Atom | SList


def is_symbol(n: Node, name: str | None = None) -> bool:
    return isinstance(n, Atom) and n.kind == SYMBOL and (name is None or n.text == name)


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of ``offset`` (for z3-style messages and ``where``)."""
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def iter_top(text: str) -> Iterator[Node]:
    """Each top-level expression of ``text`` in order; ParseError at the first malformed one."""
    if len(text) > MAX_SCRIPT_CHARS:
        raise TooLargeError(f"text of {len(text)} characters (limit {MAX_SCRIPT_CHARS})")
    stack: list[tuple[int, list[Node]]] = []
    for m in _TOKEN.finditer(text):
        c = m.group()
        i = m.start()
        if c[0] in _SKIP:
            continue
        if c == "(":
            if len(stack) >= MAX_DEPTH:
                raise TooLargeError(f"expression nested deeper than {MAX_DEPTH} levels", offset=i)
            stack.append((i, []))
            continue
        if c == ")":
            if not stack:
                raise ParseError("unexpected ')'", offset=i)
            start, items = stack.pop()
            node: Node = SList(tuple(items), start, i + 1)
        else:
            node = _atom(text, i, m.end(), c)
        if stack:
            stack[-1][1].append(node)
        else:
            yield node
    if stack:
        raise ParseError("unbalanced '(': missing ')' at the end of the text", offset=stack[-1][0])


def read_all(text: str) -> list[Node]:
    return list(iter_top(text))


def read_one(text: str) -> Node:
    """Exactly one expression (an SMT-LIB term string)."""
    nodes = iter_top(text)
    first = next(nodes, None)
    if first is None:
        raise ParseError("empty term", offset=0)
    extra = next(nodes, None)
    if extra is not None:
        raise ParseError("text after the end of the term", offset=extra.start)
    return first


# one token per match: blanks and comments (skipped), parens, a quoted symbol or string (scanned
# again by _atom for errors and escapes), or a run of non-delimiters
_TOKEN = re.compile(r'[ \t\r\n\f\v]+|;[^\n]*|[()]|\|[^|]*\|?|"(?:[^"]|"")*"?|[^ \t\r\n\f\v();"|]+')
_SKIP = frozenset(" \t\r\n\f\v;")


_PLAIN_SYMBOL = re.compile(r"[A-Za-z~!@$%^&*_\-+=<>.?/][A-Za-z0-9~!@$%^&*_\-+=<>.?/]*\Z")
_NUMERAL = re.compile(r"(?:0|[1-9][0-9]*)\Z")


def _atom(text: str, i: int, end: int, tok: str) -> Atom:
    if _PLAIN_SYMBOL.match(tok):  # the common cases first, without the character-level scan
        return Atom(SYMBOL, tok, i, end)
    if _NUMERAL.match(tok):
        return Atom(NUM, tok, i, end)
    a, stop = _scan(text, i)
    if stop != end:  # pragma: no cover - the token pattern and the scanner agree
        raise ParseError("invalid token", offset=i)
    return a


def _scan(text: str, i: int) -> tuple[Atom, int]:
    c = text[i]
    n = len(text)
    if c == "|":
        j = text.find("|", i + 1)
        if j < 0:
            raise ParseError("unterminated |quoted symbol|", offset=i)
        body = text[i + 1:j]
        if "\\" in body:
            raise ParseError("a |quoted symbol| cannot contain '\\'", offset=i)
        return Atom(SYMBOL, body, i, j + 1), j + 1
    if c == '"':
        j = i + 1
        parts = []
        while True:
            k = text.find('"', j)
            if k < 0:
                raise ParseError("unterminated string literal", offset=i)
            parts.append(text[j:k])
            if k + 1 < n and text[k + 1] == '"':  # "" is an escaped quote
                parts.append('"')
                j = k + 2
                continue
            return Atom(STRING, "".join(parts), i, k + 1), k + 1
    j = i
    while j < n and text[j] not in _DELIMS:
        j += 1
    tok = text[i:j]
    if c == ":":
        if len(tok) < 2 or any(ch not in _SYMBOL_CHARS for ch in tok[1:]):
            raise ParseError(f"invalid keyword {tok!r}", offset=i)
        return Atom(KEYWORD, tok, i, j), j
    if c == "#":
        if tok[:2] == "#x" and len(tok) > 2 and all(ch in "0123456789abcdefABCDEF" for ch in tok[2:]):
            return Atom(HEX, tok, i, j), j
        if tok[:2] == "#b" and len(tok) > 2 and all(ch in "01" for ch in tok[2:]):
            return Atom(BIN, tok, i, j), j
        raise ParseError(f"invalid token {tok[:40]!r}", offset=i)
    if c.isdigit():
        if tok.isdigit() and tok.isascii():
            if len(tok) > 1 and tok[0] == "0":
                raise ParseError(f"numeral with a leading zero {tok[:40]!r}", offset=i)
            return Atom(NUM, tok, i, j), j
        whole, dot, frac = tok.partition(".")
        if dot and whole.isdigit() and frac.isdigit() and whole.isascii() and frac.isascii():
            return Atom(DEC, tok, i, j), j
        raise ParseError(f"invalid token {tok[:40]!r} (a symbol cannot start with a digit)", offset=i)
    bad = next((k for k, ch in enumerate(tok) if ch not in _SYMBOL_CHARS), None)
    if bad is not None:
        raise ParseError(f"invalid character {tok[bad]!r} in a symbol", offset=i + bad)
    return Atom(SYMBOL, tok, i, j), j
