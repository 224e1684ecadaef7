"""Float-valued syntax in the reference reader: read only where the reading is exact.

A float (``IntTrueDiv``, ``ToFloat``, ``FloatTrueDiv``, a float literal, ``Max``/``Min``/``Abs``/
``Where``/``Identity`` of those) is accepted under a rounding function (``CeilToInt`` and the like:
each leaf read as its exact rational, ``real_``, and ``+ - *``/``FloatTrueDiv`` by constants as
the exact affine rational, ``float_affine``) or compared with a literal (``float_compare``:
Python's correctly rounded double compared exactly, and one converted integer's arithmetic with
literals rounded step by step as Python does, ``fc.Chain``). docs/pytorch-functions.md states
when the rounding functions' reading equals PyTorch's float computation; anything else is
``unsupported``.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from decimal import Decimal

from symguard.solver.errors import ParseError, TooLargeError, UnsupportedError
from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term
from symguard.solver.syntax import float_affine as fa
from symguard.solver.syntax import float_compare as fc
from symguard.solver.syntax import float_literal as fl
from symguard.solver.syntax import float_log2 as flg
from symguard.solver.syntax import float_sqrt as fsq
from symguard.solver.syntax.sympy_calls import _FLOAT_ONLY
from symguard.solver.syntax.sympy_domain import _lazy
from symguard.solver.syntax.sympy_rational import _has_true_div
from symguard.solver.syntax.sympy_torch import _round_ratio
from symguard.solver.syntax.sympy_walk import MAX_DEPTH, _Walk


class _FloatReader(_Walk):
    """The float-reading half of ``sympy_ast._Parser``."""

    def real_(self, node: ast.AST, depth: int, compare: bool = False) -> fc.Value:
        """A float-valued expression.

        Under a rounding function (``compare`` False) every leaf is read as its exact rational
        and arithmetic by constants exactly (``affine_``; docs/pytorch-functions.md says when
        PyTorch's floats agree). Compared with a literal (``compare``, ``float_compare``) it is
        read as Python computes it: ``IntTrueDiv``/``ToFloat`` are correctly rounded and their
        ``OverflowError`` joins the domain, any float literal is its double, an integer is exact
        (Python compares ints and floats exactly), arithmetic of one of those with literals is a
        ``Chain`` of rounded steps (``chain_``), and a ``FloatTrueDiv`` of rounded operands is
        refused (up to three roundings)."""
        if depth > MAX_DEPTH:
            raise self.err(TooLargeError, node, f"expression nested deeper than {MAX_DEPTH} levels")
        depth += 1
        if isinstance(node, ast.Constant) and isinstance(node.value, float):
            v = node.value
            if compare:
                if not math.isfinite(v):
                    raise self.err(UnsupportedError, node, f"float literal {v!r} inside a float expression")
                return fc.exact_literal(v)
            if not fa.decimal_exact(v):
                raise self.err(UnsupportedError, node, f"float literal {v!r} under a rounding function: its double "
                               f"is {_decimal(v)}, and arithmetic with it rounds at every size (read: literals "
                               "whose decimal is exactly their double, such as 0.5 or 1.25; a size times such a "
                               "literal, TruncToInt(0.4*ToFloat(n)); and any one size's arithmetic with literals "
                               "rounded and compared with a literal, Eq(FloorToInt(0.1*ToFloat(n) + 0.3), 2))")
            return fc.exact_literal(v)
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
                if compare and _literal(node.args[1] if len(node.args) == 2 else node) is not None:
                    a_node, b_node = self.args_(node, name, 2)
                    return self.chain_(node, a_node, b_node, "div", depth)
                if compare:
                    raise self.err(UnsupportedError, node, "FloatTrueDiv compared: float(a) and float(b) are "
                                   "rounded before the division (more than one rounding step; "
                                   "IntTrueDiv(a, b) is read exactly)")
                a_node, b_node = self.args_(node, name, 2)
                x, y = self.real_(a_node, depth), self.real_(b_node, depth)
                ex, ey = fa.exact(x), fa.exact(y)
                lit = None if ey is None else fa.constant(ey)
                if ex is not None and lit is not None:  # by a literal: the affine value divided
                    self.domain.append(ir.mk_ne(ir.mk_int(lit.numerator), ir.ZERO))
                    return fa.div(ex, lit) if lit else fc.Exact(ir.ZERO)
                if not (isinstance(x, (fc.Rounded, fc.Exact)) and isinstance(y, (fc.Rounded, fc.Exact))
                        and _is_one(x.den) and _is_one(y.den)):
                    raise self.err(UnsupportedError, node, "FloatTrueDiv by a non-constant float of a value that "
                                   "is not an integer (a symbolic divisor: not an affine value)")
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
            for sub in ast.walk(node):  # name the float function when there is one
                if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and (
                        sub.func.id in _FLOAT_ONLY or sub.func.id.startswith("OpaqueUnaryFn_")):
                    raise self.err(UnsupportedError, sub, f"unsupported function {sub.func.id} (a float function)")
            if compare and isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
                left = _literal(node.left) is not None
                x_node, c_node = (node.right, node.left) if left else (node.left, node.right)
                step = "mul" if isinstance(node.op, ast.Mult) else "rsub" if left and isinstance(node.op, ast.Sub) \
                    else "sub" if isinstance(node.op, ast.Sub) else "add"
                return self.chain_(node, x_node, c_node, step, depth)
            if compare:
                raise self.err(UnsupportedError, node, FLOAT_ARITHMETIC)
            if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
                return self.affine_(node, depth)
            raise self.err(UnsupportedError, node, "float arithmetic other than + - * and FloatTrueDiv by a "
                           "literal under a rounding function (a '/', '//', '%' or '**' on a float)")
        if compare and _has_true_div(node):
            raise self.err(UnsupportedError, node, "sympy's exact rational '/' compared with a float (write "
                           "IntTrueDiv(a, b) for Python's float division, or compare with an integer)")
        return fc.Exact(self.int_(node, depth))  # an integer: exact (under a rounding function: itself)

    def affine_(self, node: ast.BinOp, depth: int) -> fc.Value:
        """``x + y``, ``x - y``, ``x * y`` of floats under a rounding function: the exact rational
        (``float_affine``), while it stays ``num / den`` with a literal ``den``."""
        x, y = self.real_(node.left, depth), self.real_(node.right, depth)
        ex, ey = fa.exact(x), fa.exact(y)
        for v, e, n in ((x, ex, node.left), (y, ey, node.right)):
            if e is None:
                what = ("Max/Min/Abs/Where of floats" if isinstance(v, (fc.Pick, fc.Extreme))
                        else "IntTrueDiv or FloatTrueDiv by a symbolic divisor")
                raise self.err(UnsupportedError, n, f"{what} inside float arithmetic (not an affine value with a "
                               "literal denominator)")
        assert ex is not None and ey is not None
        if isinstance(node.op, ast.Mult):
            out = fa.mul(ex, ey)
            if out is None:
                raise self.err(UnsupportedError, node, "a product of two non-constant floats (only a product "
                               "with a literal is read)")
            return out
        return fa.add(ex, ey, -1 if isinstance(node.op, ast.Sub) else 1)

    def chain_(self, node: ast.AST, x_node: ast.AST, c_node: ast.AST, step: str, depth: int) -> fc.Value:
        """A float compared with a literal, computed from one converted integer by steps with a
        literal (``x + c``, ``c - x``, ``x * c``, ``x / c``): ``fc.Chain``, which compares it
        exactly as Python computes it (each step rounded)."""
        c = _literal(c_node)
        if c is None or _literal(x_node) is not None:
            raise self.err(UnsupportedError, node, FLOAT_ARITHMETIC + " (in arithmetic, exactly one side must be "
                           "a literal and the other one converted integer)")
        try:
            cf = float(c)  # Python converts an int operand of a float operation so
        except OverflowError:
            cf = math.inf
        if not math.isfinite(cf) or (cf == 0 and step in ("mul", "div")):
            raise self.err(UnsupportedError, c_node, f"float arithmetic with {c!r} compared (an infinity or a "
                           "product with zero can make a NaN; a division by zero raises)")
        x = self.real_(x_node, depth + 1, compare=True)
        if isinstance(x, fc.Rounded) and x.den.kind == ir.CONST:
            x = fc.Chain(x.num, x.den.value)
        elif isinstance(x, fc.Exact) and x.den == 1 and x.num.kind != ir.CONST and step == "div" \
                and isinstance(c, int):  # int / int: Python's true division, rounded once (IntTrueDiv)
            self.domain.append(fc.no_overflow(x.num, ir.mk_int(c)))
            return fc.Chain(x.num, c)
        elif isinstance(x, fc.Exact) and x.den == 1 and x.num.kind != ir.CONST:  # an int operand: float(x)
            self.domain.append(fc.no_overflow(x.num, ir.ONE))
            x = fc.Chain(x.num, 1)
        if not isinstance(x, fc.Chain):
            raise self.err(UnsupportedError, x_node, FLOAT_ARITHMETIC + " (in arithmetic, the non-literal side "
                           "must be ToFloat(a), IntTrueDiv(a, k) with a literal k, an integer, or arithmetic on one)")
        if step == "rsub":  # c - x is c + (-x): IEEE subtraction is the addition of the negation
            steps: tuple[tuple[str, float], ...] = (("neg", 0.0), ("add", cf))
        elif step == "sub":
            steps = (("add", -cf),)
        else:
            steps = ((step, cf),)
        return fc.Chain(x.num, x.den, (*x.steps, *steps))

    def rounded_compare(self, op: str, left: ast.AST, right: ast.AST, depth: int) -> Term | None:
        """``R(x) op c`` with a rounding ``R``, ``c`` a number literal and ``x`` float arithmetic
        with a literal that is not its double (``Eq(TruncToInt(0.4*ToFloat(n)), 21)``): read as
        Python computes it, at any size (``float_compare.rounded_chain``), where ``x`` is one
        integer's ``fc.Chain``; or ``R(OpaqueUnaryFn_sqrt(ToFloat(n))) op c``, an interval of ``n``
        (``float_sqrt.compare``). None for any other shape (read as usual)."""
        for rnd, lit, o in ((left, right, op), (right, left, fc.MIRROR[op])):
            c = _literal(lit)
            root = _sqrt_of(rnd)
            if c is None or root is None:
                continue
            x_node, form = root
            if isinstance(c, float) and not math.isfinite(c):
                raise self.err(UnsupportedError, lit, f"a rounded square root compared with {c!r}")
            assert isinstance(rnd, ast.Call) and isinstance(rnd.func, ast.Name)
            n = self.int_(x_node, depth + 1)
            self.domain.append(ir.mk_ge(n, ir.ZERO))  # math.sqrt raises ValueError below 0
            self.domain.append(fc.no_overflow(n, ir.ONE))  # float(n) raises OverflowError
            return fsq.compare(o, rnd.func.id, n, c, form)
        for rnd, lit, o in ((left, right, op), (right, left, fc.MIRROR[op])):
            c = _literal(lit)
            log = _log2_of(rnd)
            if c is None or log is None:
                continue
            return self.log2_compare_(o, rnd, log, c, depth)
        for rnd, lit, o in ((left, right, op), (right, left, fc.MIRROR[op])):
            c = _literal(lit)
            name = _rounding_of_inexact(rnd)
            if c is None or name is None:
                continue
            assert isinstance(rnd, ast.Call)
            try:
                x = self.real_(rnd.args[0], depth + 1, compare=True)
            except UnsupportedError:
                return None  # not one integer's chain: the rounding's own reading names the problem
            if not isinstance(x, fc.Chain) or not x.steps:
                return None
            self.domain.append(fc.finite_chain(x))
            return fc.rounded_chain(o, name, x, c)
        return None

    def sqrt_(self, name: str, node: ast.AST, depth: int) -> Term | None:
        """``R(OpaqueUnaryFn_sqrt(ToFloat(n)))``, Python's ``int(math.sqrt(n))`` (or
        ``R(FloatPow(ToFloat(n), 0.5))``, ``int(n ** 0.5)``): for ``R`` ``TruncToInt`` or
        ``FloorToInt`` the integer ``isqrt(n)``, for ``CeilToInt`` and ``RoundToInt`` that plus one
        past a square or past ``k**2 + k`` (``float_sqrt.integer_term``), which is Python's value
        for ``0 <= n <= float_sqrt.bound(form, R)`` (2**48 … 2**52; past it the reading is claimed
        only where ranges keep ``n`` within, as for ``scaled_``). ``n < 0`` raises in Python (the
        power's complex root does when rounded): the domain. None for any other shape."""
        root = _sqrt_of(node, name)
        if root is None:
            return None
        if name not in fsq.INTEGER_ROUNDINGS:
            raise self.err(UnsupportedError, node, f"{name} of a square root used as an integer (TruncToInt, "
                           "FloorToInt, CeilToInt and RoundToInt of OpaqueUnaryFn_sqrt(ToFloat(n)) or "
                           "FloatPow(ToFloat(n), 0.5) are read as isqrt(n) and its rounding up or to the "
                           "nearest; any rounding of it compared with a literal is read exactly)")
        x = self.int_(root[0], depth + 1)
        self.domain.append(ir.mk_ge(x, ir.ZERO))
        return fsq.integer_term(name, x)

    def log2_power_(self, node: ast.AST, depth: int) -> tuple[str, Term, int] | None:
        """``PowByNatural(2, R(OpaqueUnaryFn_log2(IntTrueDiv(a, c))))`` (``ToFloat(a)`` or ``a`` for
        ``c = 1``), Python's ``2 ** math.trunc(math.log2(a / c))``: the rounding ``R``
        (``TruncToInt`` or ``FloorToInt``), ``a`` and the literal ``c``, with ``a >= 1`` in the
        domain (``math.log2`` raises ``ValueError`` at 0 and below). The caller builds the value
        (``float_log2``: exact integers for ``a <= float_log2.BOUND``). None for any other shape."""
        shape = _log2_power_of(node)
        if shape is None:
            return None
        name, a_node, c = shape
        if name not in flg.ROUNDINGS:
            raise self.err(UnsupportedError, node, f"2 ** {name}(log2(…)) (TruncToInt and FloorToInt of "
                           "OpaqueUnaryFn_log2 are read as the exponent of a power of two)")
        if not 1 <= c <= flg.MAX_DIVISOR:
            raise self.err(UnsupportedError, node, f"2 ** int(math.log2(a / {c})): a divisor outside "
                           f"[1, 2**{flg.MAX_DIVISOR.bit_length() - 1}] (the exponent is proven exact within)")
        a = self.int_(a_node, depth + 1)
        self.domain.append(ir.mk_ge(a, ir.ONE))  # math.log2 raises ValueError for a / c <= 0
        return name, a, c

    def log2_compare_(self, op: str, rnd: ast.AST, log: tuple[str, ast.AST, int], lit: float, depth: int) -> Term:
        """``R(OpaqueUnaryFn_log2(IntTrueDiv(a, c))) op lit``: a threshold on ``a``, Python's value
        at any size within the bounds on ``c`` and ``lit`` (``float_log2.compare``); ``a >= 1``
        (``math.log2`` raises below) and a finite ``a / c`` in the domain."""
        name, a_node, c = log
        if isinstance(lit, float) and not math.isfinite(lit):
            raise self.err(UnsupportedError, rnd, f"a rounded logarithm compared with {lit!r}")
        a = self.int_(a_node, depth + 1)
        got = flg.compare(op, name, a, c, lit) if name in flg.ROUNDINGS and 1 <= c <= flg.MAX_DIVISOR else None
        if got is None:
            raise self.err(UnsupportedError, rnd, f"{name}(OpaqueUnaryFn_log2(a / {c})) compared with {lit!r} "
                           "(read exactly for TruncToInt/FloorToInt, a divisor 1 <= c and c * 2**k <= 2**47)")
        self.domain.append(ir.mk_ge(a, ir.ONE))  # math.log2 raises ValueError for a / c <= 0
        self.domain.append(fc.no_overflow(a, ir.mk_int(c)))  # a / c raises OverflowError
        return got

    def log2_divisor_(self, divide: str, left: ast.AST, right: ast.AST, depth: int) -> Term | None:
        """``b // 2 ** R(log2(a / c))`` (``divide`` ``"//"``) or ``b % …`` (``"%"``) read exactly
        (``float_log2.floordiv``/``mod``: integers where the power is, the float ``b * 2**j`` as its
        value where the exponent is negative); None when ``right`` is no such power."""
        if _log2_power_of(right) is None:
            return None
        b = self.int_(left, depth + 1)
        got = self.log2_power_(right, depth)
        assert got is not None
        name, a, c = got
        return flg.floordiv(name, b, a, c) if divide == "//" else flg.mod(name, b, a, c)

    def log2_alone_(self, node: ast.AST, depth: int) -> Term | None:
        """The power ``2 ** R(log2(a / c))`` used other than as a divisor: ``bit_floor(a)`` for
        ``c = 1`` (an int for every ``a >= 1``); refused for ``c > 1`` (a float where ``a < c``).
        None when ``node`` is no such power."""
        got = self.log2_power_(node, depth)
        if got is None:
            return None
        _, a, c = got
        p = flg.power(a, c)
        if p is None:
            raise self.err(UnsupportedError, node, f"2 ** int(math.log2(a / {c})) used other than as the divisor "
                           "of // or %: a float where a < c (read exactly as a divisor, or for ToFloat(a))")
        return p

    def scaled_(self, name: str, node: ast.AST, depth: int) -> Term | None:
        """``R(c*ToFloat(n))`` (or ``R(c*n)``, Python converts ``n``) with a literal ``c`` that is
        not its double: the integer ``R(q*n)`` for ``c``'s decimal ``q``, which is Python's value
        for ``|n|`` up to a bound proved per literal and rounding (``float_literal``); refused when
        that bound is below ``float_literal.MIN_BOUND``. None for any other shape."""
        if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)):
            return None
        for lit_node, x_node in ((node.left, node.right), (node.right, node.left)):
            c = _literal(lit_node)
            if not isinstance(c, float) or fa.decimal_exact(c) or _literal(x_node) is not None:
                continue
            if isinstance(x_node, ast.Call) and isinstance(x_node.func, ast.Name) and x_node.func.id == "ToFloat" \
                    and len(x_node.args) == 1 and not x_node.keywords:
                x_node = x_node.args[0]
            elif _is_real(x_node):
                return None
            bound = fl.scaled(c, name)
            if bound is None:
                return None
            if min(bound.lo_bound, bound.hi_bound) < fl.MIN_BOUND:
                n = fl.first_disagreement(c, name, min(bound.lo_bound, bound.hi_bound),
                                          -1 if bound.lo_bound < bound.hi_bound else 1)
                py = fl.rounded(name, c * float(n))
                raise self.err(UnsupportedError, lit_node, f"float literal {c!r} under {name}: its double is "
                               f"{_decimal(c)}, and {_PY_NAMES[name]}({c!r} * {n}) is {py} in Python but "
                               f"{fl.rounded(name, bound.q * n)} for {bound.q} (a size times such a literal "
                               "is read only where that holds for all |n| < 2**32; compared with a literal it "
                               "is read exactly)")
            x = self.int_(x_node, depth)
            return _round_ratio(name, ir.mk_mul(ir.mk_int(bound.q.numerator), x), ir.mk_int(bound.q.denominator))
        return None

    def float_compare(self, node: ast.AST, ops: list[str], operands: list[ast.expr], depth: int) -> Term:
        """A comparison (or chain) with a float in it, exact where each pair has a literal side:
        ``float_compare.compare`` of the other side's value; a pair of integer terms is an ordinary
        relation. Every operand is read once (Python evaluates the middle of a chain once)."""
        read: list[fc.Value | fc.Literal | Term] = []
        starts: list[int] = []
        for n in operands:
            starts.append(len(self.domain))
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
        self.chain_domain(starts, out)
        return ir.mk_and(*out)

    def chain_domain(self, starts: list[int], links: list[Term]) -> None:
        """A chain ``a < b < c`` is Python's ``a < b and b < c``: it stops at the first false link,
        so an operand past the second is evaluated (its divisors' conditions apply) only where the
        links before it hold (``_lazy``). ``starts``: where each operand's conditions begin in the
        domain; the first link owns the first two operands'."""
        if len(links) > 1:
            _lazy(self.domain, [starts[0], *starts[2:]], links, "and")


def _sqrt_of(node: ast.AST, name: str | None = None) -> tuple[ast.AST, str] | None:
    """The integer operand ``n`` of ``OpaqueUnaryFn_sqrt(ToFloat(n))`` or ``FloatPow(ToFloat(n), 0.5)``
    (``ToFloat`` may be left out: Python converts an int the same way), given that node, with the
    root's form (``float_sqrt.SQRT`` or ``POW``); given a rounding call (``name`` None), of its
    argument. None for any other shape."""
    if name is None:
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in fl.ROUNDINGS
                and len(node.args) == 1 and not node.keywords):
            return None
        node = node.args[0]
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords):
        return None
    if node.func.id == "OpaqueUnaryFn_sqrt" and len(node.args) == 1:
        form = fsq.SQRT
    elif node.func.id == "FloatPow" and len(node.args) == 2 and _literal(node.args[1]) == 0.5:
        form = fsq.POW
    else:
        return None
    x = node.args[0]
    if isinstance(x, ast.Call) and isinstance(x.func, ast.Name) and x.func.id == "ToFloat" \
            and len(x.args) == 1 and not x.keywords:
        x = x.args[0]
    return None if _is_real(x) or _literal(x) is not None and isinstance(_literal(x), float) else (x, form)


def _log2_of(node: ast.AST) -> tuple[str, ast.AST, int] | None:
    """``(R, a, c)`` of a rounding call ``R(OpaqueUnaryFn_log2(X))``, ``X`` as in ``_log2_power_of``;
    None for any other shape."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in fl.ROUNDINGS
            and len(node.args) == 1 and not node.keywords):
        return None
    lg = node.args[0]
    if not (isinstance(lg, ast.Call) and isinstance(lg.func, ast.Name) and lg.func.id == "OpaqueUnaryFn_log2"
            and len(lg.args) == 1 and not lg.keywords):
        return None
    x = lg.args[0]
    if isinstance(x, ast.Call) and isinstance(x.func, ast.Name) and not x.keywords:
        if x.func.id == "ToFloat" and len(x.args) == 1 and not _is_real(x.args[0]):
            return node.func.id, x.args[0], 1
        if x.func.id == "IntTrueDiv" and len(x.args) == 2 and not _is_real(x.args[0]):
            c = _literal(x.args[1])
            return (node.func.id, x.args[0], c) if isinstance(c, int) else None
    if _is_real(x) or _literal(x) is not None and isinstance(_literal(x), float):
        return None
    return node.func.id, x, 1


def _log2_power_of(node: ast.AST) -> tuple[str, ast.AST, int] | None:
    """``(R, a, c)`` of ``PowByNatural(2, R(OpaqueUnaryFn_log2(X)))`` (or ``2 ** R(…)``) with ``X``
    ``IntTrueDiv(a, c)`` for an integer literal ``c``, ``ToFloat(a)`` or an integer ``a`` (``c``
    1), ``R`` any rounding; None for any other shape."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in flg.POWER_NAMES \
            and len(node.args) == 2 and not node.keywords:
        base, e = node.args
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        base, e = node.left, node.right
    else:
        return None
    b = _literal(base)
    return _log2_of(e) if isinstance(b, int) and b == 2 else None


def _rounding_of_inexact(node: ast.AST) -> str | None:
    """The name of rounding call ``node`` when its argument is float arithmetic with a literal that
    is not its double (``TruncToInt(0.4*ToFloat(n))``), else None."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in fl.ROUNDINGS
            and len(node.args) == 1 and not node.keywords and _is_real(node.args[0])):
        return None
    for sub in ast.walk(node.args[0]):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, float) and not fa.decimal_exact(sub.value):
            return node.func.id
    return None


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


def _decimal(v: float) -> str:
    """The exact decimal value of the double ``v`` (every double has a finite one), cut at 40
    significant digits."""
    d = Decimal(v)
    return str(d) if len(d.as_tuple().digits) <= 40 else f"{d:.40g}…"


def _is_one(d: Term | int) -> bool:
    return d == 1 if isinstance(d, int) else d is ir.ONE


FLOAT_ARITHMETIC = ("float arithmetic compared (more than one rounding step): only IntTrueDiv(a, b), ToFloat(a), "
                    "float literals, integers, arithmetic of one of them with literals (ToFloat(a) - 0.5 >= 1.0) "
                    "and Max/Min/Abs/Where/Identity of those are compared exactly")
_PY_NAMES = {"FloorToInt": "math.floor", "CeilToInt": "math.ceil", "TruncToInt": "math.trunc",
             "RoundToInt": "round"}
_RELATION_FNS: dict[str, Callable[[Term, Term], Term]] = {
    "<": ir.mk_lt, "<=": ir.mk_le, ">": ir.mk_gt, ">=": ir.mk_ge, "==": ir.mk_eq, "!=": ir.mk_ne,
}
_PY_RELATIONS: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne,
}

