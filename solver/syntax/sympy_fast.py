"""The fast reader: the common subset of the sympy syntax read by a tokenizer and a recursive
descent, without Python's ``ast``.

Integers, names, ``+ - * // % ** /``, comparisons, ``&``/``|`` of conditions, parentheses and the
calls of the function table are most of what a compiler sends; this reader builds for them what
the reference reader (``sympy_ast``) builds, through the same constructors in the same shapes, and
remembers the term of every call and group it has read (``_SPANS``). Anything else, and anything
wrong, returns None: the reference reader then reads it and words the error.
"""

from __future__ import annotations

import itertools
import keyword
import re
from collections.abc import Callable
from typing import TypeVar

from symguard.solver.errors import SymguardError
from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term
from symguard.solver.syntax.sympy_calls import _CALLS, _DIVIDING, _LAZY_CALLS, _RELATION_OPS, _UNSUPPORTED_NAMES
from symguard.solver.syntax.sympy_domain import Parsed, _lazy
from symguard.solver.syntax.sympy_rational import (
    _FAST_RELATIONS,
    _compare,
    _fadd,
    _fdiv,
    _fmul,
    _fneg,
    _fpow,
    _Frac,
    _Num,
    _parts,
)

_V = TypeVar("_V")

MAX_MEMO_CHARS = 2_000  # texts and calls remembered up to this length (the memos stay small)
MEMO_ENTRIES = 1 << 14  # a memo past this many entries starts over (results never depend on it)
FAST_DEPTH = 100  # nesting the fast reader follows; deeper text goes to the reference reader

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
            if out:  # a chain's later operands are evaluated lazily: the reference reader's domain
                raise _Fallback
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
