"""Parse the sympy/PyTorch printing of size expressions (docs/problem-format.md §1.1) into IR.

The text goes through Python's ``ast`` module and a whitelist of node kinds and function names;
nothing is ever evaluated (no ``eval``, no ``sympify``). The common syntax (integers, names,
arithmetic, comparisons, the calls of ``_CALLS``) is first read by ``_fast``, a tokenizer and a
recursive descent that build the same terms without ``ast``; the ``ast`` reader stays the
reference for everything else and words every error. Every divisor met on the way is recorded
so the caller can conjoin ``divisor != 0`` (docs/problem-format.md §1.2: a guard that divides by zero cannot pass),
and so is the coverage condition of a ``Piecewise`` without a final ``True`` branch. The record
follows Python's evaluation of the text PyTorch runs (``_lazy``): a divisor in a ``Piecewise``/
``Where`` branch counts only where the branch is taken, one in an ``And``/``Or`` operand only
where the operands before it do not decide.

True division ``/`` is read as an exact rational (``_Frac``: numerator and denominator terms)
where it is compared, ``s/2 >= 2`` becoming ``s >= 4`` and ``a/b < c`` becoming
``(a - b*c)*b < 0`` (``_compare``), or rounded by ``floor``/``ceiling``; used as an integer it is
``unsupported``.

PyTorch's own functions (``torch.utils._sympy.functions``) are lowered to existing IR kinds
wherever that is exact: ``CeilToInt(IntTrueDiv(a, b))`` is ceiling division, bitwise and/or/xor
with a constant operand are sums of ``Mod``/``FloorDiv`` bit fields, shifts by a literal are
multiplication or floor division by a power of two, ``Where`` is an ITE. A float value is only
accepted where a rounding function turns it back into an integer with one rounding step;
docs/pytorch-functions.md states when that equals PyTorch's float computation. Anything else is
``unsupported`` (never a guess). Names must be ASCII: Python's parser would NFKC-fold ``ｓ0``
into ``s0``, so they are checked against the raw text.
"""

from __future__ import annotations

import ast
import io
import itertools
import keyword
import math
import operator
import re
import sys
import tokenize
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from symguard.solver.errors import ParseError, SymguardError, TooLargeError, UnsupportedError
from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term
from symguard.solver.syntax import float_compare as fc

MAX_EXPR_CHARS = 100_000
_V = TypeVar("_V")
MAX_DEPTH = 400  # levels of the walk below (a bracket level with an operator in it is two)
WALK_RECURSION = 4_000  # Python frames the walk may use (3.11+: Python-to-Python calls use no C stack)
MAX_BRACKETS = 200  # Python's parser refuses deeper brackets (calls included): the documented nesting limit

# infinities and other constants: never symbols (``int_oo`` is PyTorch's integer infinity, printed
# by name in ranges and unbacked guards; read as a symbol it would be an unsound finite integer)
_UNSUPPORTED_NAMES = {"oo", "zoo", "nan", "pi", "E", "I", "inf", "Infinity", "int_oo", "IntInfinity",
                      "NegativeIntInfinity"}


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


# float-valued PyTorch functions (read by ``_Parser.real_``: under a rounding function, or compared
# with a literal, ``float_compare``)
_REAL_CALLS = {"IntTrueDiv", "FloatTrueDiv", "ToFloat", "Where", "Identity"}
# float -> int rounding functions (``_round_ratio`` gives each one's exact lowering)
_ROUNDING = {"CeilToInt", "FloorToInt", "TruncToInt", "RoundToInt"}
# float-valued functions with no exact integer meaning
_FLOAT_ONLY = {"FloatPow", "TruncToFloat", "RoundDecimal", "sqrt", "exp", "log", "sin", "cos", "tan"}
MAX_MASK_RUNS = 64  # bit fields in one constant mask of a bitwise and/or/xor
MAX_SHIFT = 4096  # literal shift counts (2**k is built as a constant)


def _round_ratio(name: str, a: Term, b: Term) -> Term:
    """The exact integer ``name`` of the rational ``a / b`` (``b != 0`` is the caller's domain)."""
    if b is ir.ONE:
        return a
    if name == "CeilToInt":
        return ir.mk_ceildiv(a, b)
    if name == "FloorToInt":
        return ir.mk_floordiv(a, b)
    if name == "TruncToInt":
        return ir.mk_truncdiv(a, b)
    # Python's round: half to even. h = floor(a/b + 1/2) = (2a + b) // 2b rounds halves up; a half
    # (2a + b divisible by 2b) whose h is odd goes down to the even neighbour.
    two_b = ir.mk_mul(ir.mk_int(2), b)
    num = ir.mk_add(ir.mk_mul(ir.mk_int(2), a), b)
    h = ir.mk_floordiv(num, two_b)
    tie = ir.mk_and(ir.mk_eq(ir.mk_mod(num, two_b), ir.ZERO), ir.mk_eq(ir.mk_mod(h, ir.mk_int(2)), ir.ONE))
    return ir.mk_ite(tie, ir.mk_sub(h, ir.ONE), h)


def _round_real(name: str, r: fc.Value) -> Term:
    """The integer ``name`` of a float value: each leaf's exact rational rounded, through the
    branches of a ``Where`` and the arguments of a ``Max``/``Min`` (the rounding functions are
    monotone, so ``ceil(max(x, y)) = max(ceil(x), ceil(y))``)."""
    if isinstance(r, fc.Rounded):
        return _round_ratio(name, r.num, r.den)
    if isinstance(r, fc.Exact):
        return _round_ratio(name, r.num, ir.mk_int(r.den))
    if isinstance(r, fc.Pick):
        return ir.mk_ite(r.cond, _round_real(name, r.then), _round_real(name, r.other))
    parts = [_round_real(name, a) for a in r.args]
    return ir.mk_max(*parts) if r.kind == "max" else ir.mk_min(*parts)


def _bit_runs(c: int) -> list[tuple[int, int]]:
    """The maximal runs of one bits of ``c >= 0``: ``[(lowest bit, width), ...]``."""
    runs: list[tuple[int, int]] = []
    i = 0
    while c >> i:
        if (c >> i) & 1:
            j = i
            while (c >> j) & 1:
                j += 1
            runs.append((i, j - i))
            i = j
        else:
            i += 1
    return runs


def _and_const(x: Term, c: int) -> Term | None:
    """``x & c`` for a constant ``c`` in Python's two's complement (any sign of ``x`` and ``c``).

    For ``c >= 0`` each run of one bits ``[i, i + w)`` contributes ``((x // 2**i) % 2**w) * 2**i``
    (the bits of ``x`` there); for ``c < 0``, ``x & c = x - (x & ~c)`` with ``~c >= 0``. None when
    ``c`` has more than ``MAX_MASK_RUNS`` runs.
    """
    if c < 0:
        rest = _and_const(x, ~c)
        return None if rest is None else ir.mk_sub(x, rest)
    runs = _bit_runs(c)
    if len(runs) > MAX_MASK_RUNS:
        return None
    parts = [ir.mk_mul(ir.mk_mod(ir.mk_floordiv(x, ir.mk_int(1 << i)), ir.mk_int(1 << w)), ir.mk_int(1 << i))
             for i, w in runs]
    return ir.mk_add(*parts) if parts else ir.ZERO


def _bitwise(op: str, x: Term, y: Term) -> Term | None:
    """``x & y``, ``x | y`` or ``x ^ y`` on Python integers when one operand is a constant
    (``a | c = a + c - (a & c)``, ``a ^ c = a + c - 2 (a & c)``); None otherwise."""
    if x.kind == ir.CONST and y.kind == ir.CONST:
        return ir.mk_int(x.value & y.value if op == "and" else x.value | y.value if op == "or"
                         else x.value ^ y.value)
    if x.kind == ir.CONST:
        x, y = y, x
    if y.kind != ir.CONST:
        return None
    both = _and_const(x, y.value)
    if both is None:
        return None
    if op == "and":
        return both
    k = 1 if op == "or" else 2
    return ir.mk_sub(ir.mk_add(x, y), ir.mk_mul(ir.mk_int(k), both))


# ------------------------------------------------------------------ exact rationals (``/``)

class _Frac:
    """An exact rational ``num / den`` of integer terms: the value of a true division ``/``.

    Only a comparison turns it back into a condition (``_compare``): PyTorch's export solver
    prints relations such as ``s/2 >= 2`` and ``Eq(s0/3, s1)`` over exact rationals. ``den`` is
    never the constant 1 (that is an integer term) and a constant ``den`` is positive; every
    divisor met on the way is in the reader's domain, so ``den != 0`` wherever it is defined."""

    __slots__ = ("den", "num")
    is_bool = False  # read where a term is expected, it is refused as an integer like a condition

    def __init__(self, num: Term, den: Term) -> None:
        self.num = num
        self.den = den


_Num = Term | _Frac


def _frac(num: Term, den: Term) -> _Num:
    """``num / den`` with a constant denominator made positive and constant fractions reduced."""
    if den.kind == ir.CONST:
        if den.value == 0:  # a literal zero divisor: the domain is already false, the value unused
            return ir.ZERO
        if den.value < 0:
            num, den = ir.mk_neg(num), ir.mk_int(-den.value)
        if num.kind == ir.CONST:
            g = math.gcd(num.value, den.value)
            num, den = ir.mk_int(num.value // g), ir.mk_int(den.value // g)
        if den is ir.ONE:
            return num
    return _Frac(num, den)


def _parts(x: _Num) -> tuple[Term, Term]:
    return (x.num, x.den) if isinstance(x, _Frac) else (x, ir.ONE)


def _fadd(x: _Num, y: _Num) -> _Num:
    (n1, d1), (n2, d2) = _parts(x), _parts(y)
    if d1 is d2:
        return _frac(ir.mk_add(n1, n2), d1)
    if d1.kind == ir.CONST and d2.kind == ir.CONST:  # over the least common multiple
        m = math.lcm(d1.value, d2.value)
        return _frac(ir.mk_add(ir.mk_mul(n1, ir.mk_int(m // d1.value)), ir.mk_mul(n2, ir.mk_int(m // d2.value))),
                     ir.mk_int(m))
    return _frac(ir.mk_add(ir.mk_mul(n1, d2), ir.mk_mul(n2, d1)), ir.mk_mul(d1, d2))


def _fneg(x: _Num) -> _Num:
    n, d = _parts(x)
    return _frac(ir.mk_neg(n), d)


def _fmul(x: _Num, y: _Num) -> _Num:
    (n1, d1), (n2, d2) = _parts(x), _parts(y)
    return _frac(ir.mk_mul(n1, n2), ir.mk_mul(d1, d2))


def _fdiv(x: _Num, y: _Num) -> _Num:
    """``x / y``; the caller records ``_parts(y)[0] != 0`` (y's own denominator is already)."""
    (n1, d1), (n2, d2) = _parts(x), _parts(y)
    return _frac(ir.mk_mul(n1, d2), ir.mk_mul(d1, n2))


def _fpow(x: _Num, k: int) -> _Num:
    n, d = _parts(x)
    return _frac(ir.mk_pow(n, k), ir.mk_pow(d, k))


def _compare(op: str, x: _Num, y: _Num) -> Term:
    """``x op y`` on exact rationals, as integer arithmetic: ``x - y = n/d`` and ``n/d op 0``.

    A constant ``d`` is positive (``_frac``): ``n op 0``, linear when ``n`` is (``s/2 >= 2`` is
    ``s >= 4``). A symbolic ``d`` is non-zero where the text is defined: ``n/d`` has the sign of
    ``n*d``, so an ordering is ``n*d op 0``; ``==`` and ``!=`` need only ``n``."""
    n, d = _parts(_fadd(x, _fneg(y)))
    if op == "==":
        return ir.mk_eq(n, ir.ZERO)
    if op == "!=":
        return ir.mk_ne(n, ir.ZERO)
    if d.kind != ir.CONST:
        n = ir.mk_mul(n, d)
    return _FAST_RELATIONS[op](n, ir.ZERO)


# a relation's name (any spelling) -> its operator, for ``_compare``
_RELATION_OPS = {"Eq": "==", "Ne": "!=", "Lt": "<", "Le": "<=", "Gt": ">", "Ge": ">=", "Equality": "==",
                 "Unequality": "!=", "StrictLessThan": "<", "LessThan": "<=", "StrictGreaterThan": ">",
                 "GreaterThan": ">="}
_AST_OPS: dict[type, str] = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
_ARITH = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)

TRUE_DIV_AS_INTEGER = ("true division '/' whose value is used as an integer: a rational is read exactly "
                       "only where it is compared (s/2 >= 2, Eq(a/b, c)) or rounded (floor(a/b), "
                       "ceiling(a/b); PyTorch's own CeilToInt(IntTrueDiv(a, b)) and the like)")


def _has_true_div(node: ast.AST) -> bool:
    """Does ``node``'s arithmetic (``+ - * / **`` and signs, not calls) hold a true division?"""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.BinOp) and isinstance(n.op, _ARITH):
            if isinstance(n.op, ast.Div):
                return True
            stack += (n.left, n.right)
        elif isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            stack.append(n.operand)
    return False


# ------------------------------------------------------------------ lazy domains (Python's order)

def _and_then(before: list[Term], dom: list[Term], kind: str) -> Term | None:
    """The domain condition of an operand evaluated only when ``before`` all hold (``kind`` "and")
    or all fail ("or"): ``dom`` under that premise; None when it is empty."""
    if not dom:
        return None
    d = ir.mk_and(*dom)
    return ir.mk_or(*(ir.mk_not(b) for b in before), d) if kind == "and" else ir.mk_or(*before, d)


def _lazy(domain: list[Term], marks: list[int], vals: list[Term], kind: str) -> None:
    """Make the conditions recorded while reading the operands ``vals`` (operand i's from
    ``marks[i]`` to the next mark, in ``domain``) lazy, as Python evaluates them:

    * ``"and"`` (``x and y``, ``And``, ``&``): operand i is evaluated only when the ones before hold;
    * ``"or"`` (``x or y``, ``Or``, ``|``): only when the ones before fail;
    * ``"ite"`` (``vals = [c, a, b]``, ``a if c else b``): ``a`` only when ``c``, ``b`` only when not.

    The first operand (the condition of an ``ite``) is always evaluated: its conditions stay."""
    ends = [*marks[1:], len(domain)]
    doms = [domain[s:e] for s, e in zip(marks, ends)]
    out = list(doms[0])
    if kind == "ite":
        c = vals[0]
        for premise, dom in ((c, doms[1]), (ir.mk_not(c), doms[2])):
            if dom:
                out.append(ir.mk_implies(premise, ir.mk_and(*dom)))
    else:
        for i in range(1, len(vals)):
            got = _and_then(vals[:i], doms[i], kind)
            if got is not None:
                out.append(got)
    domain[marks[0]:] = out


def _lazy_piecewise(domain: list[Term], marks: list[int], conds: list[Term]) -> None:
    """``Piecewise((e1, c1), (e2, c2), …)`` evaluates ``c1``, then ``e1`` when it holds, else goes
    on with ``c2``: D_i = dom(c_i) ∧ (c_i → dom(e_i)) ∧ (¬c_i → D_{i+1}). Past the last pair no
    branch holds: D_{n+1} = FALSE (sympy's value there is nan), which a final ``True`` condition
    never reaches. ``marks`` delimit, per pair, the conditions of ``e_i`` then of ``c_i`` (the
    order they are read in)."""
    ends = [*marks[1:], len(domain)]
    doms = [domain[s:e] for s, e in zip(marks, ends)]
    rest: Term = ir.FALSE
    for i in range(len(conds) - 1, -1, -1):
        c, de, dc = conds[i], ir.mk_and(*doms[2 * i]), ir.mk_and(*doms[2 * i + 1])
        rest = ir.mk_and(dc, ir.mk_implies(c, de), ir.mk_or(c, rest))
    domain[marks[0]:] = [rest] if rest is not ir.TRUE else []


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
        self.name_(node)
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
        if isinstance(node.op, ast.Not):
            return ir.mk_not(self.bool_(node.operand, depth))
        if isinstance(node.op, ast.Invert):  # sympy's Not on a condition; Python's ~x = -x - 1 on an integer
            t = self.visit(node.operand, depth)
            return ir.mk_not(t) if t.is_bool else ir.mk_sub(ir.mk_neg(t), ir.ONE)
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
        if isinstance(op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
            name = "and" if isinstance(op, ast.BitAnd) else "or" if isinstance(op, ast.BitOr) else "xor"
            marks = [len(self.domain)]
            left = self.visit(node.left, depth)
            marks.append(len(self.domain))
            right = self.visit(node.right, depth)
            if name != "xor" and left.is_bool and right.is_bool:  # sympy's And/Or: Python's and/or
                _lazy(self.domain, marks, [left, right], name)
            return self.bitwise(node, name, left, right)
        if isinstance(op, (ast.LShift, ast.RShift)):
            return self.shift(node, isinstance(op, ast.LShift), self.int_(node.left, depth),
                              self.int_(node.right, depth))
        if isinstance(op, ast.FloorDiv):
            return self.divide(ir.mk_floordiv, self.int_(node.left, depth), self.int_(node.right, depth))
        if isinstance(op, ast.Mod):
            return self.divide(ir.mk_mod, self.int_(node.left, depth), self.int_(node.right, depth))
        if isinstance(op, ast.Pow):
            base = self.int_(node.left, depth)
            return ir.mk_pow(base, self.literal_exponent(node.right, depth))
        if isinstance(op, ast.Div):
            raise self.err(UnsupportedError, node, TRUE_DIV_AS_INTEGER)
        raise self.err(UnsupportedError, node, f"unsupported operator {type(op).__name__}")

    def v_BoolOp(self, node: ast.BoolOp, depth: int) -> Term:
        return self.junction(node.values, isinstance(node.op, ast.And), depth)

    def junction(self, nodes: list[ast.expr], conj: bool, depth: int) -> Term:
        """``and``/``or`` of conditions, read left to right with Python's short circuit (``_lazy``)."""
        marks: list[int] = []
        vals: list[Term] = []
        for v in nodes:
            marks.append(len(self.domain))
            vals.append(self.bool_(v, depth))
        _lazy(self.domain, marks, vals, "and" if conj else "or")
        return ir.mk_and(*vals) if conj else ir.mk_or(*vals)

    def v_Compare(self, node: ast.Compare, depth: int) -> Term:
        operands = [node.left, *node.comparators]
        if any(_is_real(n) for n in operands):
            ops = [_AST_OPS.get(type(op), "") for op in node.ops]
            if "" in ops:
                raise self.err(UnsupportedError, node, "unsupported comparison of a float")
            return self.float_compare(node, ops, operands, depth)
        rational = any(_has_true_div(n) for n in operands)
        left = self.num_(node.left, depth) if rational else self.visit(node.left, depth)
        out: list[Term] = []
        for op, right_node in zip(node.ops, node.comparators):
            right = self.num_(right_node, depth) if rational else self.visit(right_node, depth)
            out.append(self.relation(node, op, left, right))
            left = right
        return ir.mk_and(*out)

    def num_(self, node: ast.AST, depth: int) -> _Num:
        """An operand of a comparison: an integer term, or the exact rational of arithmetic with a
        true division ``/`` in it (``+ - * /``, signs and literal powers over integer terms). Each
        divisor is recorded non-zero, as for ``//``. Where the same text is read by ``_fast``, the
        same ``_fadd``/``_fmul``/``_fdiv`` are applied in the same order (the terms are equal)."""
        if not _has_true_div(node):
            return self.visit(node, depth)
        if depth > MAX_DEPTH:
            raise self.err(TooLargeError, node, f"expression nested deeper than {MAX_DEPTH} levels")
        depth += 1
        if isinstance(node, ast.UnaryOp):
            inner = self.rational_(node.operand, depth)
            return _fneg(inner) if isinstance(node.op, ast.USub) else inner
        assert isinstance(node, ast.BinOp)
        op = node.op
        if isinstance(op, (ast.Add, ast.Sub)):
            signed: list[tuple[bool, ast.AST]] = []
            cur: ast.AST = node
            while isinstance(cur, ast.BinOp) and isinstance(cur.op, (ast.Add, ast.Sub)):
                signed.append((isinstance(cur.op, ast.Sub), cur.right))
                cur = cur.left
            signed.append((False, cur))
            acc: _Num | None = None
            for neg, part in reversed(signed):  # left to right, as ``_fast`` folds them
                x = self.rational_(part, depth)
                x = _fneg(x) if neg else x
                acc = x if acc is None else _fadd(acc, x)
            assert acc is not None
            return acc
        if isinstance(op, ast.Pow):
            return _fpow(self.rational_(node.left, depth), self.literal_exponent(node.right, depth))
        left, right = self.rational_(node.left, depth), self.rational_(node.right, depth)
        if isinstance(op, ast.Mult):
            return _fmul(left, right)
        self.domain.append(ir.mk_ne(_parts(right)[0], ir.ZERO))
        return _fdiv(left, right)

    def rational_(self, node: ast.AST, depth: int) -> _Num:
        """``num_`` of an arithmetic operand: a condition is refused as in integer arithmetic."""
        x = self.num_(node, depth)
        if x.is_bool:
            raise self.err(ParseError, node, "expected an integer expression here, got a condition")
        return x

    def relation(self, node: ast.AST, op: ast.cmpop, a: _Num, b: _Num) -> Term:
        if isinstance(a, _Frac) or isinstance(b, _Frac):
            if a.is_bool or b.is_bool:
                raise self.err(ParseError, node, "cannot compare a condition with a number")
            sym = _AST_OPS.get(type(op))
            if sym is None:
                raise self.err(UnsupportedError, node, f"unsupported comparison {type(op).__name__}")
            return _compare(sym, a, b)
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
        name = self.name_(node.func)
        if node.keywords:
            raise self.err(UnsupportedError, node, f"keyword arguments in a call to {name}")
        spec = _CALLS.get(name)
        if spec is None:
            if name in ("floor", "ceiling"):
                return self.floor_ceiling(node, name, depth)
            if name in ("Piecewise",):
                return self.piecewise(node, depth)
            special = self.torch_call(node, name, depth)
            if special is not None:
                return special
            raise self.err(UnsupportedError, node, f"unsupported function {name}")
        arity, kinds, build = spec
        args = node.args
        if arity >= 0 and len(args) != arity:
            raise self.err(ParseError, node, f"{name} takes {arity} argument(s), got {len(args)}")
        if arity < 0 and len(args) < -arity:
            raise self.err(ParseError, node, f"{name} takes at least {-arity} argument(s)")
        if kinds == "pow":
            return ir.mk_pow(self.int_(args[0], depth), self.literal_exponent(args[1], depth))
        if name in _RELATION_OPS and any(_is_real(a) for a in args):
            return self.float_compare(node, [_RELATION_OPS[name]], args, depth)
        if name in _RELATION_OPS and any(_has_true_div(a) for a in args):
            x, y = (self.num_(a, depth) for a in args)
            if x.is_bool or y.is_bool:
                raise self.err(ParseError, node, f"{name} compares a condition with a number")
            return _compare(_RELATION_OPS[name], x, y)
        if name in _LAZY_CALLS:
            marks: list[int] = []
            vals: list[Term] = []
            for a in args:
                marks.append(len(self.domain))
                vals.append(self.bool_(a, depth))
            _lazy(self.domain, marks, vals, _LAZY_CALLS[name])
            return build(*vals)
        vals = [self.bool_(a, depth) if kinds == "b" else self.int_(a, depth) if kinds == "i"
                else self.visit(a, depth) for a in args]
        if kinds == "any" and len({v.is_bool for v in vals}) > 1:
            raise self.err(ParseError, node, f"{name} compares a condition with an integer")
        if name in _DIVIDING:
            self.domain.append(ir.mk_ne(vals[1], ir.ZERO))
            if name == "ModularIndexing":
                self.domain.append(ir.mk_ne(vals[2], ir.ZERO))
        return build(*vals)

    def args_(self, node: ast.Call, name: str, n: int) -> list[ast.expr]:
        if len(node.args) != n:
            raise self.err(ParseError, node, f"{name} takes {n} argument(s), got {len(node.args)}")
        return node.args

    def torch_call(self, node: ast.Call, name: str, depth: int) -> Term | None:
        """PyTorch's integer functions (``torch.utils._sympy.functions``); None if ``name`` is none."""
        if name in _ROUNDING:
            (arg,) = self.args_(node, name, 1)
            if _is_real(arg):
                return _round_real(name, self.real_(arg, depth))
            return self.int_(arg, depth)  # Python's math.ceil/floor/trunc/round of an int is the int
        if name == "Where":
            c, a, b = self.args_(node, name, 3)
            if _is_real(a) or _is_real(b):
                raise self.err(UnsupportedError, node, "Where between float values outside a rounding function")
            marks = [len(self.domain)]  # PyTorch prints it ``(x if cond else y)``: lazy
            cond = self.bool_(c, depth)
            marks.append(len(self.domain))
            x = self.visit(a, depth)
            marks.append(len(self.domain))
            y = self.visit(b, depth)
            if x.is_bool != y.is_bool:
                raise self.err(ParseError, node, "Where mixes an integer and a condition branch")
            _lazy(self.domain, marks, [cond, x, y], "ite")
            return ir.mk_ite(cond, x, y)
        if name == "Identity":  # PyTorch's barrier against sympy's rewriting; str() prints only parentheses
            (arg,) = self.args_(node, name, 1)
            if _is_real(arg):
                raise self.err(UnsupportedError, node, "Identity of a float value outside a rounding function")
            return self.visit(arg, depth)
        if name.startswith("BitwiseFn_bitwise_"):
            op = name[len("BitwiseFn_bitwise_"):]
            if op not in ("and", "or", "xor"):
                return None
            a, b = self.args_(node, name, 2)
            return self.bitwise(node, op, self.visit(a, depth), self.visit(b, depth))
        if name in ("LShift", "RShift"):
            a, b = self.args_(node, name, 2)
            return self.shift(node, name == "LShift", self.int_(a, depth), self.int_(b, depth))
        if name == "IsNonOverlappingAndDenseIndicator":
            return self.non_overlapping_and_dense(node, [self.int_(a, depth) for a in node.args])
        if name in _REAL_CALLS:
            raise self.err(UnsupportedError, node, f"{name} used as an integer: a float is read only compared "
                           "with a literal (IntTrueDiv(a, b) >= 1.0) or under CeilToInt, FloorToInt, TruncToInt "
                           "or RoundToInt")
        if name.startswith("OpaqueUnaryFn_") or name in _FLOAT_ONLY:
            raise self.err(UnsupportedError, node, f"unsupported function {name} (a float function)")
        return None

    def real_(self, node: ast.AST, depth: int, compare: bool = False) -> fc.Value:
        """A float-valued expression computed with at most one rounding from an exact rational.

        Under a rounding function (``compare`` False) every leaf is read as its exact rational
        (docs/pytorch-functions.md says when PyTorch's floats agree). Compared with a literal
        (``compare``, ``float_compare``) it is read exactly: ``IntTrueDiv``/``ToFloat`` are
        correctly rounded and their ``OverflowError`` joins the domain, any float literal is its
        double, an integer is exact (Python compares ints and floats exactly), and a
        ``FloatTrueDiv`` of rounded operands is refused (up to three roundings)."""
        if depth > MAX_DEPTH:
            raise self.err(TooLargeError, node, f"expression nested deeper than {MAX_DEPTH} levels")
        depth += 1
        if isinstance(node, ast.Constant) and isinstance(node.value, float):
            v = node.value
            if compare:
                if not math.isfinite(v):
                    raise self.err(UnsupportedError, node, f"float literal {v!r} inside a float expression")
                return fc.exact_literal(v)
            if not v.is_integer() or abs(v) > 2**53:
                raise self.err(UnsupportedError, node, f"float literal {v!r} (only integral floats up to 2**53)")
            return fc.Exact(ir.mk_int(int(v)))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
            name = self.name_(node.func)
            if name == "IntTrueDiv":
                a_node, b_node = self.args_(node, name, 2)
                a, b = self.int_(a_node, depth), self.int_(b_node, depth)
                self.domain.append(ir.mk_ne(b, ir.ZERO))
                if compare:
                    self.domain.append(fc.no_overflow(a, b))
                return fc.Rounded(a, b)
            if name == "ToFloat":
                (arg,) = self.args_(node, name, 1)
                a = self.int_(arg, depth)
                if compare:
                    self.domain.append(fc.no_overflow(a, ir.ONE))
                return fc.Rounded(a, ir.ONE)
            if name == "FloatTrueDiv":
                if compare:
                    raise self.err(UnsupportedError, node, "FloatTrueDiv compared: float(a) and float(b) are "
                                   "rounded before the division (more than one rounding step; "
                                   "IntTrueDiv(a, b) is read exactly)")
                a_node, b_node = self.args_(node, name, 2)
                x, y = self.real_(a_node, depth), self.real_(b_node, depth)
                if not (isinstance(x, (fc.Rounded, fc.Exact)) and isinstance(y, (fc.Rounded, fc.Exact))
                        and _is_one(x.den) and _is_one(y.den)):
                    raise self.err(UnsupportedError, node, "FloatTrueDiv of a rounded float (two roundings)")
                self.domain.append(ir.mk_ne(y.num, ir.ZERO))
                return fc.Rounded(x.num, y.num)
            if name == "Identity":
                (arg,) = self.args_(node, name, 1)
                return self.real_(arg, depth, compare)
            if name == "Where":
                c, a_node, b_node = self.args_(node, name, 3)
                marks = [len(self.domain)]
                cond = self.bool_(c, depth)
                marks.append(len(self.domain))
                x = self.real_(a_node, depth, compare)
                marks.append(len(self.domain))
                y = self.real_(b_node, depth, compare)
                _lazy(self.domain, marks, [cond, ir.TRUE, ir.TRUE], "ite")  # only the condition is used
                return fc.Pick(cond, x, y)
            if name in ("Max", "Min") and node.args:  # one of the arguments, unrounded
                args = tuple(self.real_(a, depth, compare) for a in node.args)
                return fc.Extreme(name.lower(), args)
            if name == "Abs":  # abs(x) = max(x, -x), exact in floats
                (arg,) = self.args_(node, name, 1)
                x = self.real_(arg, depth, compare)
                return fc.Extreme("max", (x, fc.negate(x)))
            if name.startswith("OpaqueUnaryFn_") or name in _FLOAT_ONLY:
                raise self.err(UnsupportedError, node, f"unsupported function {name} (a float function)")
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):  # exact in floats
            inner = self.real_(node.operand, depth, compare)
            return fc.negate(inner) if isinstance(node.op, ast.USub) else inner
        if _is_real(node):  # a float expression of another shape (sums of floats, ...)
            for sub in ast.walk(node):  # name the float function or literal when there is one
                if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and (
                        sub.func.id in _FLOAT_ONLY or sub.func.id.startswith("OpaqueUnaryFn_")):
                    raise self.err(UnsupportedError, sub, f"unsupported function {sub.func.id} (a float function)")
                if not compare and isinstance(sub, ast.Constant) and isinstance(sub.value, float):
                    raise self.err(UnsupportedError, sub, f"float literal {sub.value!r}")
            raise self.err(UnsupportedError, node, FLOAT_ARITHMETIC if compare
                           else "float arithmetic (more than one rounding step)")
        if compare and _has_true_div(node):
            raise self.err(UnsupportedError, node, "sympy's exact rational '/' compared with a float (write "
                           "IntTrueDiv(a, b) for Python's float division, or compare with an integer)")
        return fc.Exact(self.int_(node, depth))  # an integer: exact (under a rounding function: itself)

    def float_compare(self, node: ast.AST, ops: list[str], operands: list[ast.expr], depth: int) -> Term:
        """A comparison (or chain) with a float in it, exact where each pair has a literal side:
        ``float_compare.compare`` of the other side's value; a pair of integer terms is an ordinary
        relation. Every operand is read once (Python evaluates the middle of a chain once)."""
        read: list[fc.Value | fc.Literal | Term] = []
        for n in operands:
            lit = _literal(n)
            if lit is not None:
                read.append(lit)
            elif _is_real(n):
                read.append(self.real_(n, depth, compare=True))
            elif _has_true_div(n):
                raise self.err(UnsupportedError, n, "sympy's exact rational '/' compared with a float (write "
                               "IntTrueDiv(a, b) for Python's float division, or compare with an integer)")
            else:
                t = self.visit(n, depth)
                if t.is_bool:
                    raise self.err(ParseError, n, "cannot compare a condition with a float")
                read.append(t)
        out: list[Term] = []
        for i, op in enumerate(ops):
            a, b = read[i], read[i + 1]
            if isinstance(a, (int, float)):
                out.append(ir.mk_bool(_PY_RELATIONS[op](a, b)) if isinstance(b, (int, float))  # exact in Python
                           else fc.compare(fc.MIRROR[op], _as_value(b), a))
            elif isinstance(b, (int, float)):
                out.append(fc.compare(op, _as_value(a), b))
            elif isinstance(a, Term) and isinstance(b, Term):
                out.append(_RELATION_FNS[op](a, b))
            else:
                raise self.err(UnsupportedError, operands[i] if not isinstance(a, Term) else operands[i + 1],
                               "a float compared with something other than a literal (two roundings, or a "
                               "symbolic bound): only a literal on the other side is read exactly")
        return ir.mk_and(*out)

    def bitwise(self, node: ast.AST, op: str, a: Term, b: Term) -> Term:
        """Python's ``& | ^``: on two conditions sympy's And/Or/Xor; on integers exact only with a
        constant operand; a condition next to an integer counts 0/1 (as PyTorch's BitwiseFn)."""
        if a.is_bool and b.is_bool:
            if op == "and":
                return ir.mk_and(a, b)
            if op == "or":
                return ir.mk_or(a, b)
            return ir.mk_not(ir.mk_iff(a, b))
        if a.is_bool or b.is_bool:
            c, x = (a, b) if a.is_bool else (b, a)
            one, zero = self.bitwise(node, op, x, ir.ONE), self.bitwise(node, op, x, ir.ZERO)
            return ir.mk_ite(c, one, zero)
        r = _bitwise(op, a, b)
        if r is None:
            raise self.err(UnsupportedError, node, f"bitwise {op} of two non-constant integers "
                           f"(exact only with a constant operand of at most {MAX_MASK_RUNS} bit runs)")
        return r

    def shift(self, node: ast.AST, left: bool, x: Term, k: Term) -> Term:
        """``x << k = x * 2**k`` and ``x >> k = x // 2**k`` for a literal ``k``; a negative count
        raises in Python (ValueError), so such a guard cannot pass."""
        if k.kind != ir.CONST:
            raise self.err(UnsupportedError, node, "shift by a non-literal count")
        if k.value < 0:
            self.domain.append(ir.FALSE)
            return ir.ZERO
        if k.value > MAX_SHIFT:
            raise self.err(TooLargeError, node, f"shift count {k.value} larger than {MAX_SHIFT}")
        p = ir.mk_int(1 << k.value)
        return ir.mk_mul(x, p) if left else ir.mk_floordiv(x, p)

    def non_overlapping_and_dense(self, node: ast.AST, args: list[Term]) -> Term:
        """PyTorch's ``_eval_is_non_overlapping_and_dense(sizes, strides)`` as 0/1 for up to
        ``MAX_DENSE_DIMS`` dimensions: the (stable) order of the strides is one of the n!
        permutations; in that order every dimension of size != 1 must have the stride
        ``prod(sizes before it)``."""
        if len(args) % 2:
            raise self.err(ParseError, node, "IsNonOverlappingAndDenseIndicator takes sizes then strides")
        n = len(args) // 2
        if n > MAX_DENSE_DIMS:
            raise self.err(UnsupportedError, node, f"IsNonOverlappingAndDenseIndicator of more than "
                           f"{MAX_DENSE_DIMS} dimensions")
        sizes, strides = args[:n], args[n:]
        if n == 1:
            dense = ir.mk_or(ir.mk_eq(strides[0], ir.ONE), ir.mk_lt(sizes[0], ir.mk_int(2)))
            return ir.mk_ite(dense, ir.ONE, ir.ZERO)
        cases: list[Term] = []
        for perm in itertools.permutations(range(n)):
            order = [ir.mk_lt(strides[i], strides[j]) if i > j
                     else ir.mk_le(strides[i], strides[j]) for i, j in itertools.pairwise(perm)]
            expected: Term = ir.ONE
            checks: list[Term] = []
            for i in perm:
                checks.append(ir.mk_or(ir.mk_eq(sizes[i], ir.ONE), ir.mk_eq(strides[i], expected)))
                expected = ir.mk_mul(expected, sizes[i])
            cases.append(ir.mk_and(*order, *checks))
        return ir.mk_ite(ir.mk_or(*cases), ir.ONE, ir.ZERO)

    def floor_ceiling(self, node: ast.Call, name: str, depth: int) -> Term:
        if len(node.args) != 1 or node.keywords:
            raise self.err(ParseError, node, f"{name} takes one argument")
        arg = node.args[0]
        if isinstance(arg, ast.BinOp) and isinstance(arg.op, ast.Div) and not (
                _has_true_div(arg.left) or _has_true_div(arg.right)):
            a, b = self.int_(arg.left, depth), self.int_(arg.right, depth)
            return self.divide(ir.mk_floordiv if name == "floor" else ir.mk_ceildiv, a, b)
        x = self.rational_(arg, depth)  # any exact rational: floor(n/d) = n // d
        if isinstance(x, _Frac):
            return ir.mk_floordiv(x.num, x.den) if name == "floor" else ir.mk_ceildiv(x.num, x.den)
        return x  # floor of an integer is itself

    def piecewise(self, node: ast.Call, depth: int) -> Term:
        if node.keywords or not node.args:
            raise self.err(ParseError, node, "Piecewise takes (expr, cond) pairs")
        pairs: list[tuple[Term, Term]] = []
        marks: list[int] = []
        for arg in node.args:
            if not isinstance(arg, ast.Tuple) or len(arg.elts) != 2:
                raise self.err(ParseError, arg, "each Piecewise argument must be a pair (expr, cond)")
            marks.append(len(self.domain))
            e = self.visit(arg.elts[0], depth)
            marks.append(len(self.domain))
            pairs.append((e, self.bool_(arg.elts[1], depth)))
        if len({e.is_bool for e, _ in pairs}) > 1:
            raise self.err(ParseError, node, "Piecewise mixes integer and condition branches")
        # conditions in order, each branch only where it is taken; defined only where some
        # condition holds (sympy's value elsewhere is nan)
        _lazy_piecewise(self.domain, marks, [c for _, c in pairs])
        result = pairs[-1][0]
        for e, c in reversed(pairs[:-1]):
            result = ir.mk_ite(c, e, result)
        return result

    def v_Tuple(self, node: ast.Tuple, depth: int) -> Term:
        raise self.err(ParseError, node, "a tuple is only allowed as a Piecewise argument")


def _is_real(node: ast.AST) -> bool:
    """Does ``node`` denote a float (syntactically: a float-valued function or a float literal)?"""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, float)
    if isinstance(node, ast.BinOp):
        return _is_real(node.left) or _is_real(node.right)  # '/' itself is unsupported (docs/problem-format.md §1.1)
    if isinstance(node, ast.UnaryOp):
        return _is_real(node.operand)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        name = node.func.id
        if name in ("IntTrueDiv", "FloatTrueDiv", "ToFloat") or name in _FLOAT_ONLY \
                or name.startswith("OpaqueUnaryFn_"):
            return True
        if name == "Identity" and len(node.args) == 1:
            return _is_real(node.args[0])
        if name == "Where" and len(node.args) == 3:
            return _is_real(node.args[1]) or _is_real(node.args[2])
        if name in ("Max", "Min", "Abs"):  # a float among the arguments makes the value a float
            return any(_is_real(a) for a in node.args)
    return False


def _literal(node: ast.AST) -> int | float | None:
    """The value of a number literal, signed (``-1.5``, ``+2``), or None (``True`` is no number here)."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign = -1 if isinstance(node.op, ast.USub) else 1
        node = node.operand
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return -node.value if sign < 0 else node.value  # -0.0 stays -0.0 (it compares as 0.0)
    return None


def _as_value(x: fc.Value | Term) -> fc.Value:
    """The non-literal operand of a float comparison as a value: an integer term is exact."""
    return fc.Exact(x) if isinstance(x, Term) else x


def _is_one(d: Term | int) -> bool:
    return d == 1 if isinstance(d, int) else d is ir.ONE


FLOAT_ARITHMETIC = ("float arithmetic (more than one rounding step): only IntTrueDiv(a, b), ToFloat(a), float "
                    "literals, integers and Max/Min/Abs/Where/Identity of them are compared exactly")
_RELATION_FNS: dict[str, Callable[[Term, Term], Term]] = {
    "<": ir.mk_lt, "<=": ir.mk_le, ">": ir.mk_gt, ">=": ir.mk_ge, "==": ir.mk_eq, "!=": ir.mk_ne,
}
_PY_RELATIONS: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne,
}


MAX_DENSE_DIMS = 4  # IsNonOverlappingAndDenseIndicator: n! stride orders are spelled out

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
# short-circuit calls: each argument is evaluated only when the ones before it hold ("and") or
# fail ("or"); Implies(p, q) is ``not p or q``: q only when p holds
_LAZY_CALLS = {"And": "and", "Or": "or", "Implies": "and"}
_DIVIDING = {"Mod", "PythonMod", "FloorDiv", "CleanDiv", "CeilDiv", "TruncDiv", "ModularIndexing"}


# ------------------------------------------------------------------ the fast reader

MAX_MEMO_CHARS = 2_000  # texts and calls remembered up to this length (the memos stay small)
MEMO_ENTRIES = 1 << 14  # a memo past this many entries starts over (results never depend on it)
FAST_DEPTH = 100  # nesting the fast reader follows; deeper text goes to the reference reader

_TEXTS: dict[str, Parsed] = {}
_SPANS: dict[str, tuple[Term, tuple[Term, ...], int]] = {}  # a call's or group's tokens -> term, divisors, depth


def _remember(memo: dict[str, _V], key: str, value: _V) -> None:
    if len(memo) >= MEMO_ENTRIES:
        memo.clear()
    memo[key] = value


# one token: an integer (not followed by a letter, ``_`` or ``.``: ``1e3``, ``1_0``, ``1.5`` are
# for Python), a name, an operator. Only spaces between them: a tab, a line break, a comment or
# any other character leaves the text to the reference reader.
# ``012`` matches nothing (Python refuses it): its ``0`` is left out of the tokens, so the text
# goes to the reference reader.
_TOKEN = re.compile(r" *((?:0|[1-9][0-9]*)(?![A-Za-z0-9_.])|[A-Za-z_][A-Za-z0-9_]*|\*\*|//|<=|>=|==|!=|[-+*/%(),<>|&])")
_NUM, _NAME, _OP = 0, 1, 2
_OP_START = frozenset("*/<>=!-+%(),|&")  # a token's first character tells its kind
_PARENS = frozenset("()").__contains__
_FAST_RELATIONS: dict[str, Callable[[Term, Term], Term]] = {
    "<": ir.mk_lt, "<=": ir.mk_le, ">": ir.mk_gt, ">=": ir.mk_ge,
}
_NOT_A_SYMBOL = frozenset(_UNSUPPORTED_NAMES | set(_CALLS) | {"floor", "ceiling"} | set(keyword.kwlist))


class _Fallback(Exception):
    """Outside the fast reader's subset: the reference reader decides (and words any error)."""


class _Product:
    """A product chain ``a * b * …`` not built yet: Python's ``ast`` flattens the left spine of
    ``*`` through parentheses (``(2*(a + b))*c`` is one ``Mult`` chain of three factors, and
    ``mk_mul`` of three factors is another term than of ``2*(a + b)`` and ``c``). ``high``: the
    greatest nesting of its factors (the chain itself is one level more)."""

    __slots__ = ("factors", "high")

    def __init__(self, factors: list[Term], high: int) -> None:
        self.factors = factors
        self.high = high

    def term(self) -> Term:
        return ir.mk_mul(*reversed(self.factors))  # the ast reader's order: right to left


def _fast(text: str) -> Parsed | None:
    """The common subset of the syntax — integers, names, ``+ - * // % **``, comparisons,
    parentheses and the calls of ``_CALLS`` — read by a tokenizer and a recursive descent that
    builds what the ``ast`` reader builds for the same text, through the same constructors in
    the same shapes. A call's text seen before (``ModularIndexing(x0, 1, 16)`` recurs through
    a whole kernel) is looked up, not read again. None when the text leaves the subset, nests
    deeper than ``FAST_DEPTH`` levels of the ast reader's walk (which has limits of its own),
    or is wrong in any way: then the reference reader reads it (and words the error)."""
    src = text.strip(" ")
    vals = _TOKEN.findall(src)  # numbers, names, operators
    # every character but spaces is in a token (findall skips what matches nothing; the tokens
    # are disjoint, in order and hold no space, so equal lengths mean equal texts)
    if not vals or len("".join(vals)) != len(src) - src.count(" "):
        return None
    try:
        return _FastParser(vals).parse()
    except (_Fallback, SymguardError, ValueError, RecursionError, KeyError):
        return None


class _FastParser:
    """The recursive descent of ``_fast``. Each rule leaves in ``h`` how deep the ast reader's
    walk goes below the node it read (its ``visit`` depth: one level per node, ``+``/``-`` and
    ``*`` chains one level in all, parentheses none; an overestimate never hurts)."""

    def __init__(self, vals: list[str]) -> None:
        self.vals = vals
        self.n = len(vals)
        self.i = 0
        self.h = 0
        self.depth = 0
        self.domain: list[Term] = []
        self.close: dict[int, int] = {}  # the matching ``)`` of every ``(``
        opened: list[int] = []
        for j in itertools.compress(range(self.n), map(_PARENS, vals)):
            if vals[j] == "(":
                opened.append(j)
            else:
                if not opened:
                    raise _Fallback
                self.close[opened.pop()] = j
        if opened:
            raise _Fallback

    def parse(self) -> Parsed:
        t = self.force(self.comparison())
        if self.i != self.n or self.h > FAST_DEPTH or isinstance(t, _Frac):
            raise _Fallback
        return Parsed(t, ir.mk_and(*self.domain))

    def peek_op(self) -> str | None:
        i = self.i
        return self.vals[i] if i < self.n and self.vals[i][0] in _OP_START else None

    def force(self, t: Term | _Frac | _Product) -> _Num:
        return t.term() if isinstance(t, _Product) else t

    def int_(self, t: Term | _Frac | _Product) -> Term:
        t = t.term() if isinstance(t, _Product) else t
        if t.is_bool or isinstance(t, _Frac):
            raise _Fallback
        return t

    def num_(self, t: Term | _Frac | _Product) -> _Num:
        """An arithmetic operand: an integer term or an exact rational (not a condition)."""
        t = t.term() if isinstance(t, _Product) else t
        if t.is_bool:
            raise _Fallback
        return t

    def enter(self) -> None:
        self.depth += 1
        if self.depth > FAST_DEPTH:
            raise _Fallback

    # the grammar, by Python's precedence: comparison < sum < product < unary < power < atom
    def comparison(self) -> Term | _Frac | _Product:
        left = self.bitor()
        op = self.peek_op()
        if op not in _CMP_OPS:
            return left
        high = self.h
        out: list[Term] = []
        a = self.force(left)
        while op in _CMP_OPS:
            self.i += 1
            b = self.force(self.bitor())
            high = max(high, self.h)
            if isinstance(a, _Frac) or isinstance(b, _Frac):
                if a.is_bool or b.is_bool:
                    raise _Fallback
                out.append(_compare(op, a, b))
            elif op == "==" or op == "!=":
                if a.is_bool != b.is_bool:
                    raise _Fallback
                out.append(ir.mk_eq(a, b) if op == "==" else ir.mk_ne(a, b))
            else:
                if a.is_bool or b.is_bool:
                    raise _Fallback
                out.append(_FAST_RELATIONS[op](a, b))  # type: ignore[index]
            a = b
            op = self.peek_op()
        self.h = high + 1
        return out[0] if len(out) == 1 else ir.mk_and(*out)  # mk_and of one relation is that relation

    def bitor(self) -> Term | _Frac | _Product:
        """``a | b`` over ``a & b`` over sums (Python's precedence), left to right as the ast reader
        builds them: sympy's Or and And of two conditions (anything else goes to that reader),
        each right operand's domain under Python's short circuit (``_lazy``)."""
        return self._bitwise("|", self.bitand, ir.mk_or)

    def bitand(self) -> Term | _Frac | _Product:
        return self._bitwise("&", self.sum_, ir.mk_and)

    def _bitwise(self, sym: str, operand: Callable[[], Term | _Frac | _Product],
                 build: Callable[..., Term]) -> Term | _Frac | _Product:
        start = len(self.domain)
        left = operand()
        if self.peek_op() != sym:
            return left
        acc = self.force(left)
        high = self.h
        while self.peek_op() == sym:
            self.i += 1
            mid = len(self.domain)
            right = self.force(operand())
            if not (acc.is_bool and right.is_bool):
                raise _Fallback
            _lazy(self.domain, [start, mid], [acc, right], "and" if sym == "&" else "or")  # type: ignore[list-item]
            acc = build(acc, right)
            high = max(high, self.h) + 1  # one BinOp level more on the left spine
        self.h = high
        return acc

    def sum_(self) -> Term | _Frac | _Product:
        first = self.product()
        op = self.peek_op()
        if op != "+" and op != "-":
            return first
        high = self.h
        parts = [self.num_(first)]
        while op == "+" or op == "-":
            self.i += 1
            right = self.num_(self.product())
            high = max(high, self.h)
            parts.append(right if op == "+" else _fneg(right))
            op = self.peek_op()
        self.h = high + 1
        if any(isinstance(p, _Frac) for p in parts):  # folded left to right, as ``_Parser.num_``
            acc = parts[0]
            for p in parts[1:]:
                acc = _fadd(acc, p)
            return acc
        parts.reverse()  # the ast reader's order: right to left
        return ir.mk_add(*parts)

    def product(self) -> Term | _Frac | _Product:
        left = self.unary()
        op = self.peek_op()
        while op == "*" or op == "//" or op == "%" or op == "/":
            lh = self.h
            self.i += 1
            if op == "/" or isinstance(left, _Frac):
                x, y = self.num_(left), self.num_(self.unary())
                if op == "/":
                    self.domain.append(ir.mk_ne(_parts(y)[0], ir.ZERO))
                    left = _fdiv(x, y)
                elif op == "*":
                    left = _fmul(x, y)
                else:
                    raise _Fallback  # a rational as an operand of // or %: the reference words it
                self.h = max(lh, self.h) + 1
                op = self.peek_op()
                continue
            r = self.num_(self.unary())
            if isinstance(r, _Frac):
                if op != "*":
                    raise _Fallback
                left = _fmul(self.int_(left), r)
                self.h = max(lh, self.h) + 1
                op = self.peek_op()
                continue
            right = r
            if op == "*":
                if isinstance(left, _Product):
                    left.factors.append(right)
                    left.high = max(left.high, self.h)
                else:
                    left = _Product([self.int_(left), right], max(lh, self.h))
                self.h = left.high + 1
            else:
                a = self.int_(left)
                self.domain.append(ir.mk_ne(right, ir.ZERO))
                left = ir.mk_floordiv(a, right) if op == "//" else ir.mk_mod(a, right)
                self.h = max(lh, self.h) + 1
            op = self.peek_op()
        return left

    def unary(self) -> Term | _Frac | _Product:
        op = self.peek_op()
        if op == "-" or op == "+":
            self.i += 1
            self.enter()
            inner = self.num_(self.unary())
            self.depth -= 1
            self.h += 1
            if isinstance(inner, _Frac):
                return _fneg(inner) if op == "-" else inner
            return ir.mk_neg(inner) if op == "-" else inner
        return self.power()

    def power(self) -> Term | _Frac | _Product:
        base = self.atom()
        if self.peek_op() != "**":
            return base
        bh = self.h
        self.i += 1
        self.enter()
        k = self.int_(self.unary())  # Python: a ** -b, a ** b ** c
        self.depth -= 1
        if k.kind != ir.CONST or k.value < 0:
            raise _Fallback
        self.h = max(bh, self.h) + 1
        b = self.num_(base)
        if isinstance(b, _Frac):
            return _fpow(b, int(k.value))
        return ir.mk_pow(b, int(k.value))

    def atom(self) -> Term | _Frac | _Product:
        i = self.i
        if i >= self.n:
            raise _Fallback
        v = self.vals[i]
        k = _OP if v[0] in _OP_START else _NUM if v[0].isdigit() else _NAME
        if k == _NUM:
            self.i += 1
            self.h = 1
            return ir.mk_int(int(v))
        if k == _OP:
            if v != "(":
                raise _Fallback
            end = self.close[i]
            span = " ".join(self.vals[i:end + 1]) if end - i > 2 else ""  # a group seen before
            seen = self.recall(span, end) if span else None
            if seen is not None:
                return seen
            mark = len(self.domain)
            self.i += 1
            self.enter()
            inner = self.comparison()  # parentheses are transparent (a product chain stays one)
            self.depth -= 1
            if self.peek_op() != ")":
                raise _Fallback
            self.i += 1
            if span and not isinstance(inner, (_Product, _Frac)) and len(span) <= MAX_MEMO_CHARS:
                _remember(_SPANS, span, (inner, tuple(self.domain[mark:]), self.h))
            return inner
        if i + 1 < self.n and self.vals[i + 1] == "(":
            return self.call(v)
        if v in _NOT_A_SYMBOL:
            raise _Fallback
        self.i += 1
        self.h = 1
        return ir.mk_sym(v)

    def recall(self, span: str, end: int) -> Term | None:
        """The term of a span of tokens read before (a call or a parenthesized group ending at
        token ``end``), its domain conditions and height replayed; None when it is new."""
        hit = _SPANS.get(span)
        if hit is None:
            return None
        self.i = end + 1
        self.domain.extend(hit[1])
        self.h = hit[2]
        return hit[0]

    def call(self, name: str) -> Term:
        spec = _CALLS.get(name)
        if spec is None:
            raise _Fallback
        i = self.i
        end = self.close[i + 1]
        span = " ".join(self.vals[i:end + 1])  # the call's tokens (one space apart: a b is not ab)
        seen = self.recall(span, end)
        if seen is not None:
            return seen
        mark = len(self.domain)
        self.i = i + 2
        self.enter()
        read: list[_Num] = []
        marks: list[int] = []
        high = 0
        if self.peek_op() != ")":
            while True:
                marks.append(len(self.domain))
                read.append(self.force(self.comparison()))
                high = max(high, self.h)
                if self.peek_op() != ",":
                    break
                self.i += 1
        self.depth -= 1
        if self.i != end:
            raise _Fallback
        self.i += 1
        arity, kinds, build = spec
        if (arity >= 0 and len(read) != arity) or (arity < 0 and len(read) < -arity):
            raise _Fallback
        args = [a for a in read if not isinstance(a, _Frac)]
        if len(args) < len(read):
            if name not in _RELATION_OPS or any(a.is_bool for a in read):
                raise _Fallback  # a rational used as an integer: the reference words the error
            t = _compare(_RELATION_OPS[name], read[0], read[1])
            self.h = high + 1  # (no memo: the reference reads such a call its own way, same term)
            return t
        if kinds == "pow":
            base, k = args
            if base.is_bool or k.is_bool or k.kind != ir.CONST or k.value < 0:
                raise _Fallback
            t = ir.mk_pow(base, int(k.value))
        else:
            if kinds == "b" and not all(a.is_bool for a in args):
                raise _Fallback
            if kinds == "i" and any(a.is_bool for a in args):
                raise _Fallback
            if kinds == "any" and len({a.is_bool for a in args}) > 1:
                raise _Fallback
            if name in _DIVIDING:
                self.domain.append(ir.mk_ne(args[1], ir.ZERO))
                if name == "ModularIndexing":
                    self.domain.append(ir.mk_ne(args[2], ir.ZERO))
            elif name in _LAZY_CALLS:
                _lazy(self.domain, marks, args, _LAZY_CALLS[name])
            t = build(*args)
        self.h = high + 1
        if len(span) <= MAX_MEMO_CHARS:
            _remember(_SPANS, span, (t, tuple(self.domain[mark:]), self.h))
        return t


_CMP_OPS = frozenset({"<", "<=", ">", ">=", "==", "!="})
