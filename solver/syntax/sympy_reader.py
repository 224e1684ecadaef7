"""Parse the sympy/PyTorch printing of size expressions (docs/problem-format.md §1.1) into IR.

The text goes through Python's ``ast`` module and a whitelist of node kinds and function names;
nothing is ever evaluated (no ``eval``, no ``sympify``). Every divisor met on the way is recorded
so the caller can conjoin ``divisor != 0`` (docs/problem-format.md §1.2: a guard that divides by zero cannot pass),
and so is the coverage condition of a ``Piecewise`` without a final ``True`` branch.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass

from solver.errors import ParseError, SymguardError, TooLargeError, UnsupportedError
from solver.ir import terms as ir
from solver.ir.terms import Term

MAX_EXPR_CHARS = 100_000
MAX_DEPTH = 400

_UNSUPPORTED_NAMES = {"oo", "zoo", "nan", "pi", "E", "I", "inf", "Infinity"}


@dataclass(frozen=True)
class Parsed:
    """A parsed expression and the condition under which it is defined (divisors != 0, …)."""

    term: Term
    domain: Term

    def as_condition(self) -> Term:
        return ir.mk_and(self.domain, self.term)


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
    """Parse one expression; errors carry the character offset into ``text``."""
    if not isinstance(text, str):
        raise ParseError("expected an expression string")
    if len(text) > MAX_EXPR_CHARS:
        raise TooLargeError(f"expression of {len(text)} characters (limit {MAX_EXPR_CHARS})")
    src = text.strip()
    lead = len(text) - len(text.lstrip())
    if not src:
        raise ParseError("empty expression", offset=0)
    try:
        tree = ast.parse(src, mode="eval")
    except SyntaxError as e:
        raise _syntax_error(e, src, lead) from None
    except (RecursionError, MemoryError):
        raise TooLargeError("expression nested too deeply") from None
    except ValueError as e:  # e.g. null bytes
        raise ParseError(f"invalid text: {e}", offset=0) from None
    p = _Parser(src, lead)
    try:
        term = p.visit(tree.body, 0)
    except RecursionError:
        raise TooLargeError("expression nested too deeply") from None
    return Parsed(term, ir.mk_and(*p.domain))


class _Parser:
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

    def v_Constant(self, node: ast.Constant, depth: int) -> Term:
        v = node.value
        if isinstance(v, bool):
            return ir.mk_bool(v)
        if isinstance(v, int):
            return ir.mk_int(v)
        if isinstance(v, float):
            raise self.err(UnsupportedError, node, f"float literal {v!r} (only integers are supported)")
        raise self.err(UnsupportedError, node, f"unsupported literal {v!r}")

    def v_Name(self, node: ast.Name, depth: int) -> Term:
        if node.id in _UNSUPPORTED_NAMES:
            raise self.err(UnsupportedError, node, f"unsupported constant {node.id}")
        if node.id in _CALLS or node.id in ("floor", "ceiling"):
            raise self.err(ParseError, node, f"{node.id} is a function; call it with arguments")
        return ir.mk_sym(node.id)

    def v_UnaryOp(self, node: ast.UnaryOp, depth: int) -> Term:
        if isinstance(node.op, ast.USub):
            return ir.mk_neg(self.int_(node.operand, depth))
        if isinstance(node.op, ast.UAdd):
            return self.int_(node.operand, depth)
        if isinstance(node.op, (ast.Not, ast.Invert)):
            return ir.mk_not(self.bool_(node.operand, depth))
        raise self.err(UnsupportedError, node, f"unsupported operator {type(node.op).__name__}")

    def v_BinOp(self, node: ast.BinOp, depth: int) -> Term:
        op = node.op
        if isinstance(op, (ast.Add, ast.Sub)):
            # left-deep chains (a + b - c + …) are walked iteratively: long sums are common
            parts: list[Term] = []
            cur: ast.AST = node
            while isinstance(cur, ast.BinOp) and isinstance(cur.op, (ast.Add, ast.Sub)):
                right = self.int_(cur.right, depth)
                parts.append(right if isinstance(cur.op, ast.Add) else ir.mk_neg(right))
                cur = cur.left
            parts.append(self.int_(cur, depth))
            return ir.mk_add(*parts)
        if isinstance(op, ast.Mult):
            factors: list[Term] = []
            cur = node
            while isinstance(cur, ast.BinOp) and isinstance(cur.op, ast.Mult):
                factors.append(self.int_(cur.right, depth))
                cur = cur.left
            factors.append(self.int_(cur, depth))
            return ir.mk_mul(*factors)
        if isinstance(op, (ast.BitAnd, ast.BitOr)):
            a, b = self.bool_(node.left, depth), self.bool_(node.right, depth)
            return ir.mk_and(a, b) if isinstance(op, ast.BitAnd) else ir.mk_or(a, b)
        if isinstance(op, ast.FloorDiv):
            return self.divide(ir.mk_floordiv, self.int_(node.left, depth), self.int_(node.right, depth))
        if isinstance(op, ast.Mod):
            return self.divide(ir.mk_mod, self.int_(node.left, depth), self.int_(node.right, depth))
        if isinstance(op, ast.Pow):
            base = self.int_(node.left, depth)
            return ir.mk_pow(base, self.literal_exponent(node.right, depth))
        if isinstance(op, ast.Div):
            raise self.err(UnsupportedError, node, "true division '/' (only inside floor(a/b) or ceiling(a/b))")
        raise self.err(UnsupportedError, node, f"unsupported operator {type(op).__name__}")

    def v_BoolOp(self, node: ast.BoolOp, depth: int) -> Term:
        vals = [self.bool_(v, depth) for v in node.values]
        return ir.mk_and(*vals) if isinstance(node.op, ast.And) else ir.mk_or(*vals)

    def v_Compare(self, node: ast.Compare, depth: int) -> Term:
        left = self.visit(node.left, depth)
        out: list[Term] = []
        for op, right_node in zip(node.ops, node.comparators):
            right = self.visit(right_node, depth)
            out.append(self.relation(node, op, left, right))
            left = right
        return ir.mk_and(*out)

    def relation(self, node: ast.AST, op: ast.cmpop, a: Term, b: Term) -> Term:
        if isinstance(op, (ast.Eq, ast.NotEq)):
            if a.is_bool != b.is_bool:
                raise self.err(ParseError, node, "cannot compare a condition with an integer")
            return ir.mk_eq(a, b) if isinstance(op, ast.Eq) else ir.mk_ne(a, b)
        fn = _RELATIONS.get(type(op))
        if fn is None:
            raise self.err(UnsupportedError, node, f"unsupported comparison {type(op).__name__}")
        if a.is_bool or b.is_bool:
            raise self.err(ParseError, node, "ordering comparison between conditions")
        return fn(a, b)

    def v_Call(self, node: ast.Call, depth: int) -> Term:
        if not isinstance(node.func, ast.Name):
            raise self.err(UnsupportedError, node, "only plain function calls like Max(a, b) are supported")
        name = node.func.id
        if node.keywords:
            raise self.err(UnsupportedError, node, f"keyword arguments in a call to {name}")
        spec = _CALLS.get(name)
        if spec is None:
            if name in ("floor", "ceiling"):
                return self.floor_ceiling(node, name, depth)
            if name in ("Piecewise",):
                return self.piecewise(node, depth)
            raise self.err(UnsupportedError, node, f"unsupported function {name}")
        arity, kinds, build = spec
        args = node.args
        if arity >= 0 and len(args) != arity:
            raise self.err(ParseError, node, f"{name} takes {arity} argument(s), got {len(args)}")
        if arity < 0 and len(args) < -arity:
            raise self.err(ParseError, node, f"{name} takes at least {-arity} argument(s)")
        if kinds == "pow":
            return ir.mk_pow(self.int_(args[0], depth), self.literal_exponent(args[1], depth))
        vals = [self.bool_(a, depth) if kinds == "b" else self.int_(a, depth) if kinds == "i"
                else self.visit(a, depth) for a in args]
        if kinds == "any" and len({v.is_bool for v in vals}) > 1:
            raise self.err(ParseError, node, f"{name} compares a condition with an integer")
        if name in _DIVIDING:
            self.domain.append(ir.mk_ne(vals[1], ir.ZERO))
            if name == "ModularIndexing":
                self.domain.append(ir.mk_ne(vals[2], ir.ZERO))
        return build(*vals)

    def floor_ceiling(self, node: ast.Call, name: str, depth: int) -> Term:
        if len(node.args) != 1 or node.keywords:
            raise self.err(ParseError, node, f"{name} takes one argument")
        arg = node.args[0]
        if isinstance(arg, ast.BinOp) and isinstance(arg.op, ast.Div):
            a, b = self.int_(arg.left, depth), self.int_(arg.right, depth)
            return self.divide(ir.mk_floordiv if name == "floor" else ir.mk_ceildiv, a, b)
        return self.int_(arg, depth)  # floor of an integer is itself

    def piecewise(self, node: ast.Call, depth: int) -> Term:
        if node.keywords or not node.args:
            raise self.err(ParseError, node, "Piecewise takes (expr, cond) pairs")
        pairs: list[tuple[Term, Term]] = []
        for arg in node.args:
            if not isinstance(arg, ast.Tuple) or len(arg.elts) != 2:
                raise self.err(ParseError, arg, "each Piecewise argument must be a pair (expr, cond)")
            pairs.append((self.visit(arg.elts[0], depth), self.bool_(arg.elts[1], depth)))
        if len({e.is_bool for e, _ in pairs}) > 1:
            raise self.err(ParseError, node, "Piecewise mixes integer and condition branches")
        # defined only where some condition holds (sympy's value elsewhere is nan)
        self.domain.append(ir.mk_or(*(c for _, c in pairs)))
        result = pairs[-1][0]
        for e, c in reversed(pairs[:-1]):
            result = ir.mk_ite(c, e, result)
        return result

    def v_Tuple(self, node: ast.Tuple, depth: int) -> Term:
        raise self.err(ParseError, node, "a tuple is only allowed as a Piecewise argument")


_RELATIONS: dict[type, Callable[[Term, Term], Term]] = {
    ast.Lt: ir.mk_lt, ast.LtE: ir.mk_le, ast.Gt: ir.mk_gt, ast.GtE: ir.mk_ge,
}


# name -> (arity (negative: at least -n), argument kinds ("i" int, "b" bool, "any", "pow"), builder)
_CALLS: dict[str, tuple[int, str, Callable[..., Term]]] = {
    "Eq": (2, "any", ir.mk_eq),
    "Ne": (2, "any", ir.mk_ne),
    "Lt": (2, "i", ir.mk_lt),
    "Le": (2, "i", ir.mk_le),
    "Gt": (2, "i", ir.mk_gt),
    "Ge": (2, "i", ir.mk_ge),
    "StrictLessThan": (2, "i", ir.mk_lt),
    "LessThan": (2, "i", ir.mk_le),
    "StrictGreaterThan": (2, "i", ir.mk_gt),
    "GreaterThan": (2, "i", ir.mk_ge),
    "Equality": (2, "any", ir.mk_eq),
    "Unequality": (2, "any", ir.mk_ne),
    "And": (-1, "b", ir.mk_and),
    "Or": (-1, "b", ir.mk_or),
    "Not": (1, "b", ir.mk_not),
    "Implies": (2, "b", ir.mk_implies),
    "Abs": (1, "i", ir.mk_abs),
    "Max": (-1, "i", ir.mk_max),
    "Min": (-1, "i", ir.mk_min),
    "Mod": (2, "i", ir.mk_mod),
    "PythonMod": (2, "i", ir.mk_mod),
    "FloorDiv": (2, "i", ir.mk_floordiv),
    "CleanDiv": (2, "i", ir.mk_floordiv),
    "CeilDiv": (2, "i", ir.mk_ceildiv),
    "TruncDiv": (2, "i", ir.mk_truncdiv),
    "ModularIndexing": (3, "i", ir.mk_modular_indexing),
    "PowByNatural": (2, "pow", ir.mk_pow),
    "pow_by_natural": (2, "pow", ir.mk_pow),
    "Pow": (2, "pow", ir.mk_pow),
}
_DIVIDING = {"Mod", "PythonMod", "FloorDiv", "CleanDiv", "CeilDiv", "TruncDiv", "ModularIndexing"}
