"""The walk of the reference reader over Python's ``ast``: positions, errors, typed dispatch.

``_Walk`` is the base of ``sympy_ast._Parser``: it maps a node back to its character offset in the
user's text (errors point there), dispatches a node to its ``v_<Kind>`` method under the depth
limit ``MAX_DEPTH``, checks that a name is spelled in ASCII in the raw text, and reads an operand
as an integer or as a condition, refusing the other with a worded error.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from symguard.solver.errors import ParseError, SymguardError, TooLargeError, UnsupportedError
from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term

MAX_DEPTH = 400  # levels of the walk below (a bracket level with an operator in it is two)


class _Walk:
    """What every part of the reference reader shares: the text, the domain recorded so far."""

    def __init__(self, src: str, lead: int) -> None:
        self.src = src
        self.lead = lead
        self.domain: list[Term] = []
        self._line_starts = [0]
        for i, ch in enumerate(src):
            if ch == "\n":
                self._line_starts.append(i + 1)

    # -------------------------------------------------------------- helpers
    def offset(self, node: ast.AST) -> int:
        line = getattr(node, "lineno", 1)
        col = getattr(node, "col_offset", 0)
        start = self._line_starts[line - 1] if line - 1 < len(self._line_starts) else 0
        line_text = self.src[start:].encode("utf-8")[:col]
        return self.lead + start + len(line_text.decode("utf-8", "ignore"))

    def err(self, cls: type[SymguardError], node: ast.AST, msg: str) -> SymguardError:
        return cls(msg, offset=self.offset(node))

    def name_(self, node: ast.Name) -> str:
        """``node.id`` if the text spells it so in ASCII (Python's parser NFKC-folds names; this
        backs ``_check_names`` up for anything its tokenizer did not see as one name)."""
        if self.src.isascii():
            return node.id
        start = self._line_starts[node.lineno - 1] if node.lineno - 1 < len(self._line_starts) else 0
        raw = self.src[start:].encode("utf-8")[node.col_offset:node.end_col_offset].decode("utf-8", "replace")
        if raw != node.id or not raw.isascii():
            also = f" (Python would read it as {node.id!r})" if raw != node.id else ""
            raise self.err(ParseError, node, f"name {raw!r} is not an ASCII identifier{also}")
        return node.id

    def int_(self, node: ast.AST, depth: int) -> Term:
        t = self.visit(node, depth)
        if t.is_bool:
            raise self.err(ParseError, node, "expected an integer expression here, got a condition")
        return t

    def bool_(self, node: ast.AST, depth: int) -> Term:
        t = self.visit(node, depth)
        if not t.is_bool:
            raise self.err(ParseError, node, "expected a condition here, got an integer expression")
        return t

    def divide(self, kind: Callable[[Term, Term], Term], a: Term, b: Term) -> Term:
        self.domain.append(ir.mk_ne(b, ir.ZERO))
        return kind(a, b)

    def literal_exponent(self, node: ast.AST, depth: int) -> int:
        k = self.int_(node, depth)
        if k.kind != ir.CONST or k.value < 0:
            raise self.err(UnsupportedError, node, "exponent must be a non-negative integer literal")
        return int(k.value)

    # -------------------------------------------------------------- dispatch
    def visit(self, node: ast.AST, depth: int) -> Term:
        if depth > MAX_DEPTH:
            raise self.err(TooLargeError, node, f"expression nested deeper than {MAX_DEPTH} levels")
        method = getattr(self, "v_" + type(node).__name__, None)
        if method is None:
            raise self.err(UnsupportedError, node, f"unsupported construct: {type(node).__name__}")
        return method(node, depth + 1)  # type: ignore[no-any-return]

    def args_(self, node: ast.Call, name: str, n: int) -> list[ast.expr]:
        if len(node.args) != n:
            raise self.err(ParseError, node, f"{name} takes {n} argument(s), got {len(node.args)}")
        return node.args
