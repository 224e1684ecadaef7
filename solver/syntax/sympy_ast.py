"""The reference reader: Python's ``ast`` of the text, walked over a whitelist of node kinds and
function names; nothing is ever evaluated (no ``eval``, no ``sympify``).

It reads everything the syntax allows and words every error with its offset; ``sympy_fast``
reads the common subset faster and must build the same terms (a test compares them). Integer
and boolean syntax is read here, rationals through ``sympy_rational``, floats through
``sympy_float`` (the base class), PyTorch's functions through ``torch_call`` and
``sympy_torch``; every divisor goes into the domain (``sympy_domain``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TypeVar

from symguard.solver.errors import ParseError, TooLargeError, UnsupportedError
from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term
from symguard.solver.syntax.sympy_calls import (
    _CALLS,
    _DIVIDING,
    _FLOAT_ONLY,
    _LAZY_CALLS,
    _REAL_CALLS,
    _RELATION_OPS,
    _ROUNDING,
    _UNSUPPORTED_NAMES,
)
from symguard.solver.syntax.sympy_domain import _lazy, _lazy_piecewise
from symguard.solver.syntax.sympy_float import _FloatReader, _is_real
from symguard.solver.syntax.sympy_rational import (
    TRUE_DIV_AS_INTEGER,
    _compare,
    _fabs,
    _fadd,
    _fdiv,
    _fmaxmin,
    _fmul,
    _fneg,
    _fpow,
    _Frac,
    _frac,
    _fselect,
    _has_true_div,
    _Num,
    _parts,
)
from symguard.solver.syntax.sympy_torch import (
    MAX_DENSE_DIMS,
    MAX_MASK_RUNS,
    MAX_SHIFT,
    _bitwise,
    _dense_indicator,
    _round_real,
)
from symguard.solver.syntax.sympy_walk import MAX_DEPTH

_V = TypeVar("_V", Term, _Num)  # what a Piecewise's values are read as: integer terms or rationals

_AST_OPS: dict[type, str] = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}

_LOG2_DIVIDING = {"FloorDiv": "//", "Mod": "%", "PythonMod": "%"}  # read by ``log2_divisor_`` too

_RELATIONS: dict[type, Callable[[Term, Term], Term]] = {
    ast.Lt: ir.mk_lt, ast.LtE: ir.mk_le, ast.Gt: ir.mk_gt, ast.GtE: ir.mk_ge,
}


class _Parser(_FloatReader):
    """The reference reader's walk: one ``v_<Kind>`` per accepted node kind."""

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
        if isinstance(op, (ast.FloorDiv, ast.Mod)):
            by_power = self.log2_divisor_("//" if isinstance(op, ast.FloorDiv) else "%", node.left, node.right, depth)
            if by_power is not None:
                return by_power
        if isinstance(op, ast.FloorDiv):
            return self.divide(ir.mk_floordiv, self.int_(node.left, depth), self.int_(node.right, depth))
        if isinstance(op, ast.Mod):
            return self.divide(ir.mk_mod, self.int_(node.left, depth), self.int_(node.right, depth))
        if isinstance(op, ast.Pow):
            alone = self.log2_alone_(node, depth)
            if alone is not None:
                return alone
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
        if len(operands) == 2 and (sym := _AST_OPS.get(type(node.ops[0]))) is not None:
            rounded = self.rounded_compare(sym, node.left, node.comparators[0], depth)
            if rounded is not None:
                return rounded
        if any(_is_real(n) for n in operands):
            ops = [_AST_OPS.get(type(op), "") for op in node.ops]
            if "" in ops:
                raise self.err(UnsupportedError, node, "unsupported comparison of a float")
            return self.float_compare(node, ops, operands, depth)
        rational = any(_has_true_div(n) for n in operands)
        starts = [len(self.domain)]
        left = self.num_(node.left, depth) if rational else self.visit(node.left, depth)
        out: list[Term] = []
        for op, right_node in zip(node.ops, node.comparators):
            starts.append(len(self.domain))
            right = self.num_(right_node, depth) if rational else self.visit(right_node, depth)
            out.append(self.relation(node, op, left, right))
            left = right
        self.chain_domain(starts, out)
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
        if isinstance(node, ast.Call):
            return self.rational_call(node, depth)
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

    def rational_call(self, node: ast.Call, depth: int) -> _Num:
        """``Max``/``Min``/``Abs``/``Piecewise`` with an exact rational in them, or a literal
        ``Rational(p, q)`` (``_has_true_div`` lets no other call through). Domains as in
        integer arithmetic: ``Max``'s arguments all evaluated, a ``Piecewise`` value only where
        its branch is taken."""
        assert isinstance(node.func, ast.Name)
        name = node.func.id
        if name == "Rational":
            p, q = (self.int_(a, depth) for a in self.args_(node, name, 2))
            if p.kind != ir.CONST or q.kind != ir.CONST:
                raise self.err(UnsupportedError, node, "Rational(p, q) takes two integer literals")
            if q.value == 0:
                raise self.err(ParseError, node, "Rational(p, 0): a zero denominator")
            return _frac(p, q)
        if name == "Piecewise":
            pieces = self.pieces_(node, depth, self.rational_)
            result = pieces[-1][0]
            for value, c in reversed(pieces[:-1]):
                result = _fselect(c, value, result)
            return result
        if name == "Abs":
            return _fabs(self.rational_(self.args_(node, name, 1)[0], depth))
        if not node.args:
            raise self.err(ParseError, node, f"{name} takes at least 1 argument(s)")
        return _fmaxmin(name == "Max", [self.rational_(a, depth) for a in node.args])

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
            if name == "Rational":
                raise self.err(UnsupportedError, node, TRUE_DIV_AS_INTEGER)
            special = self.torch_call(node, name, depth)
            if special is not None:
                return special
            raise self.err(UnsupportedError, node, f"unsupported function {name}")
        arity, kinds, build = spec
        args = node.args
        if name in _LOG2_DIVIDING and len(args) == 2:
            by_power = self.log2_divisor_(_LOG2_DIVIDING[name], args[0], args[1], depth)
            if by_power is not None:
                return by_power
        if kinds == "pow":
            alone = self.log2_alone_(node, depth)
            if alone is not None:
                return alone
        if arity >= 0 and len(args) != arity:
            raise self.err(ParseError, node, f"{name} takes {arity} argument(s), got {len(args)}")
        if arity < 0 and len(args) < -arity:
            raise self.err(ParseError, node, f"{name} takes at least {-arity} argument(s)")
        if kinds == "pow":
            return ir.mk_pow(self.int_(args[0], depth), self.literal_exponent(args[1], depth))
        if name in _RELATION_OPS and len(args) == 2:
            rounded = self.rounded_compare(_RELATION_OPS[name], args[0], args[1], depth)
            if rounded is not None:
                return rounded
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

    def torch_call(self, node: ast.Call, name: str, depth: int) -> Term | None:
        """PyTorch's integer functions (``torch.utils._sympy.functions``); None if ``name`` is none."""
        if name in _ROUNDING:
            (arg,) = self.args_(node, name, 1)
            isqrt = self.sqrt_(name, arg, depth)
            if isqrt is not None:
                return isqrt
            if _is_real(arg):
                scaled = self.scaled_(name, arg, depth)
                return scaled if scaled is not None else _round_real(name, self.real_(arg, depth))
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
        """``IsNonOverlappingAndDenseIndicator(sizes…, strides…)`` for up to ``MAX_DENSE_DIMS``
        dimensions (``sympy_torch._dense_indicator``)."""
        if len(args) % 2:
            raise self.err(ParseError, node, "IsNonOverlappingAndDenseIndicator takes sizes then strides")
        n = len(args) // 2
        if n > MAX_DENSE_DIMS:
            raise self.err(UnsupportedError, node, f"IsNonOverlappingAndDenseIndicator of more than "
                           f"{MAX_DENSE_DIMS} dimensions")
        sizes, strides = args[:n], args[n:]
        return _dense_indicator(sizes, strides)

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

    def pieces_(self, node: ast.Call, depth: int, value: Callable[[ast.AST, int], _V]) -> list[tuple[_V, Term]]:
        """A ``Piecewise``'s (value, condition) pairs, each value read by ``value``: conditions in
        order, each branch only where it is taken (its divisors' domain under that premise);
        defined only where some condition holds (sympy's value elsewhere is nan)."""
        if node.keywords or not node.args:
            raise self.err(ParseError, node, "Piecewise takes (expr, cond) pairs")
        pairs: list[tuple[_V, Term]] = []
        marks: list[int] = []
        for arg in node.args:
            if not isinstance(arg, ast.Tuple) or len(arg.elts) != 2:
                raise self.err(ParseError, arg, "each Piecewise argument must be a pair (expr, cond)")
            marks.append(len(self.domain))
            e = value(arg.elts[0], depth)
            marks.append(len(self.domain))
            pairs.append((e, self.bool_(arg.elts[1], depth)))
        _lazy_piecewise(self.domain, marks, [c for _, c in pairs])
        return pairs

    def piecewise(self, node: ast.Call, depth: int) -> Term:
        pairs = self.pieces_(node, depth, self.visit)
        if len({e.is_bool for e, _ in pairs}) > 1:
            raise self.err(ParseError, node, "Piecewise mixes integer and condition branches")
        result = pairs[-1][0]
        for e, c in reversed(pairs[:-1]):
            result = ir.mk_ite(c, e, result)
        return result

    def v_Tuple(self, node: ast.Tuple, depth: int) -> Term:
        raise self.err(ParseError, node, "a tuple is only allowed as a Piecewise argument")

