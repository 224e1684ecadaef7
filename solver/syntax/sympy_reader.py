"""Parse the sympy/PyTorch printing of size expressions (docs/problem-format.md §1.1) into IR.

The text goes through Python's ``ast`` module and a whitelist of node kinds and function names;
nothing is ever evaluated (no ``eval``, no ``sympify``). The common syntax (integers, names,
arithmetic, comparisons, the calls of ``_CALLS``) is first read by ``_fast``, a tokenizer and a
recursive descent that build the same terms without ``ast``; the ``ast`` reader stays the
reference for everything else and words every error. Every divisor met on the way is recorded
so the caller can conjoin ``divisor != 0`` (docs/problem-format.md §1.2: a guard that divides by zero cannot pass),
and so is the coverage condition of a ``Piecewise`` without a final ``True`` branch, following
Python's evaluation of the text PyTorch runs (``sympy_domain``). True division is read as an
exact rational where it is compared or rounded (``sympy_rational``); PyTorch's own functions are
lowered to existing IR kinds wherever that is exact (``sympy_torch``), a float only where one
rounding step makes it exact (``sympy_float``). Anything else is ``unsupported`` (never a
guess). Names must be ASCII: Python's parser would NFKC-fold ``ｓ0`` into ``s0``, so they are
checked against the raw text (here, before ``ast`` sees it).

This module is the front door: the limits on the text, the names, Python's syntax errors and the
memo of whole texts. The rest of the reader, in the order a text goes through it: ``sympy_fast``
(tokenizer and recursive descent), ``sympy_ast`` (the reference walk, built on ``sympy_walk`` and
``sympy_float``), and what both use: ``sympy_calls`` (the function table), ``sympy_rational``,
``sympy_torch`` and ``sympy_domain`` (``Parsed``, the lazy domain).
"""

from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
import unicodedata

from symguard.solver.errors import ParseError, SymguardError, TooLargeError
from symguard.solver.ir import terms as ir
from symguard.solver.syntax.sympy_ast import _Parser
from symguard.solver.syntax.sympy_domain import Parsed
from symguard.solver.syntax.sympy_fast import MAX_MEMO_CHARS, _fast, _remember

MAX_EXPR_CHARS = 100_000
WALK_RECURSION = 4_000  # Python frames the walk may use (3.11+: Python-to-Python calls use no C stack)
MAX_BRACKETS = 200  # Python's parser refuses deeper brackets (calls included): the documented nesting limit
_TEXTS: dict[str, Parsed] = {}  # whole texts read before (``parse_sympy``)

_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # what Python's tokenizer counts as a new line
_QUOTE_CHARS = 20


def _syntax_error(e: SyntaxError, src: str, lead: int) -> SymguardError:
    """The error for a Python ``SyntaxError``: its message once, the offending text, the offset into ``text``.

    Python's ``msg`` is often just "invalid syntax", so it is not prefixed again; its (line, column)
    is turned into an offset into the whole text, and a column of 0 (Python's way of saying the
    text ended where more was expected) points at the end.
    """
    msg, col = e.msg, e.offset or 0
    pos = 0
    if col:
        starts = [0] + [m.end() for m in _LINE_BREAK.finditer(src)]
        line = min(max((e.lineno or 1) - 1, 0), len(starts) - 1)
        pos = min(starts[line] + col - 1, len(src))
    if "Exceeds the limit" in msg:  # Python's int max_str_digits (no column given)
        return TooLargeError(f"integer with more than {ir.MAX_INT_DIGITS} digits", offset=lead + pos)
    if "too many nested" in msg:
        return TooLargeError(f"expression nested too deeply: {msg}", offset=lead + pos)
    if not col:
        pos = len(src)
    text = msg if msg.startswith("invalid syntax") else f"invalid syntax: {msg}"
    rest = _LINE_BREAK.split(src[pos:], maxsplit=1)[0]
    if not rest.strip():
        end = "the expression" if not src[pos:].strip() else "a line (outside brackets a line break ends it)"
        return ParseError(f"{text} at the end of {end}", offset=lead + pos)
    if e.end_offset and e.end_lineno == e.lineno and e.end_offset > col:
        rest = rest[:e.end_offset - col]
    near = rest if len(rest) <= _QUOTE_CHARS else rest[:_QUOTE_CHARS] + "..."
    return ParseError(f"{text} near {near!r}", offset=lead + pos)


def parse_sympy(text: str) -> Parsed:
    """Parse one expression; errors carry the character offset into ``text``.

    Texts are remembered (a compiler sends the same guards and sizes again and again; a
    ``Parsed`` is immutable, so sharing it is safe); most of the rest is read by ``_fast``, and
    whatever it does not cover — and every error — by the ``ast`` reader, the reference."""
    if not isinstance(text, str):
        raise ParseError("expected an expression string")
    hit = _TEXTS.get(text)
    if hit is not None:
        return hit
    got = _fast(text) if len(text) <= MAX_EXPR_CHARS else None
    if got is None:
        got = _parse_ast(text)
    if got.term.size > ir.MAX_READ_TREE or got.domain.size > ir.MAX_READ_TREE:
        raise TooLargeError(ir.READ_TREE_MESSAGE)
    if len(text) <= MAX_MEMO_CHARS:
        _remember(_TEXTS, text, got)
    return got


def _parse_ast(text: str) -> Parsed:
    """The reference reader: Python's ``ast`` and ``_Parser``; every error is raised here."""
    if len(text) > MAX_EXPR_CHARS:
        raise TooLargeError(f"expression of {len(text)} characters (limit {MAX_EXPR_CHARS})")
    src = text.strip()
    lead = len(text) - len(text.lstrip())
    if not src:
        raise ParseError("empty expression", offset=0)
    _check_names(src, lead)
    try:
        tree = ast.parse(src, mode="eval")
    except SyntaxError as e:
        raise _syntax_error(e, src, lead) from None
    except (RecursionError, MemoryError):
        raise TooLargeError("expression nested too deeply") from None
    except ValueError as e:  # e.g. null bytes
        raise ParseError(f"invalid text: {e}", offset=0) from None
    p = _Parser(src, lead)
    old = sys.getrecursionlimit()
    if old < WALK_RECURSION:  # a level of the walk is 3-5 Python frames: 400 levels need ~2,000
        sys.setrecursionlimit(WALK_RECURSION)
    try:
        term = p.visit(tree.body, 0)
    except RecursionError:  # pragma: no cover - MAX_DEPTH stops the walk first
        raise TooLargeError("expression nested too deeply") from None
    finally:
        if old < WALK_RECURSION:
            sys.setrecursionlimit(old)
    return Parsed(term, ir.mk_and(*p.domain))


def _check_names(src: str, lead: int) -> None:
    """Reject identifiers that are not ASCII before Python's parser NFKC-folds them into others
    ("ｓ0" is read as "s0", "Ｍax" as "Max": silently another symbol or function).

    Names are found by Python's own tokenizer (so a comment is not a name); text it cannot
    tokenize is left to ``ast``'s error.
    """
    if src.isascii():
        return
    starts = [0] + [m.end() for m in _LINE_BREAK.finditer(src)]
    try:
        for tok in tokenize.generate_tokens(io.StringIO(src).readline):
            if tok.type != tokenize.NAME or tok.string.isascii():
                continue
            name = tok.string
            folded = unicodedata.normalize("NFKC", name)
            bad = next(c for c in name if not c.isascii())
            also = f" (Python would read it as {folded!r})" if folded != name and folded.isascii() else ""
            pos = starts[min(tok.start[0] - 1, len(starts) - 1)] + tok.start[1]
            raise ParseError(f"name {name!r} is not an ASCII identifier: character {bad!r} "
                             f"(U+{ord(bad):04X}){also}", offset=lead + pos)
    except (tokenize.TokenError, SyntaxError):
        return

