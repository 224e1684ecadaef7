"""IR -> the text PyTorch prints for size expressions, and the cost of such a text.

``ir.printer.to_text`` prints keys (one spelling per term, every node explicit: ``(s + (-4))``);
this module prints what a compiler pastes into generated code and what ``str()`` of a
PyTorch/sympy expression looks like: ``4*(s//4)``, ``s - 1 <= t``, ``ModularIndexing(x, 2, 8)``,
``CeilDiv(s, 8)``. Both sympy (with PyTorch's ``torch.utils._sympy.functions`` in scope) and
``sympy_reader`` read it back to the same value at every point where it is defined
(``tests/test_simplify_writer.py`` checks both on random terms).

Derived spellings, each an identity of docs/problem-format.md §1.2 for any signs:

* ``k*((-a)//b)`` with ``k < 0`` and a literal ``b > 0`` prints ``|k|*CeilDiv(a, b)``
  (``CeilDiv(a, b) = -((-a)//b)``; PyTorch's own CeilDiv agrees only for positive divisors);
* ``Mod(x//d, m)`` prints ``ModularIndexing(x, d, m)`` (``ModularIndexing(x, d, m) = (x//d) % m``);
* the reader's ``TruncDiv(a, b)`` (a select of a floor and a ceiling division) prints ``TruncDiv(a, b)``
  again (symguard's own name, like ``TruncMod``: PyTorch has neither);
* Euclidean ``EMod(a, b)`` (SMT-LIB input) prints ``Mod(a, Abs(b))`` (the remainder in
  ``[0, |b|)``), ``EDiv(a, b)`` a ``Piecewise`` of the two floor divisions.

``cost(text)`` counts what evaluating a text costs: ``(operations, divisions)`` where divisions
are ``//``, ``%`` and every floor/ceiling division or modulus call (``ModularIndexing`` with a
divisor other than 1 is two), and operations are the other arithmetic, comparisons, ``Max``/``Min``
arguments past the first, boolean connectives and ``Piecewise`` branches. It reads Python's ``ast``
(never evaluates), so an input, symguard's form and PyTorch's own result are measured alike.
"""

from __future__ import annotations

import ast
import functools
import keyword
import re
from collections.abc import Mapping, Sequence

from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term

ATOM, MUL_P, ADD_P, CMP_P = 4, 3, 2, 1


def to_sympy(t: Term, names: Mapping[str, str] | None = None) -> str:
    """PyTorch-style sympy text for ``t``; symbols renamed through ``names`` when given."""
    return Writer(names or {}).text(t)[0]


class Writer:
    """Prints terms, memoized per instance: one writer per request prints a subterm shared by
    many expressions once (``text(t)[0]`` is ``to_sympy(t)``)."""

    def __init__(self, names: Mapping[str, str]) -> None:
        self.names = names
        self.memo: dict[Term, tuple[str, int]] = {}

    def text(self, t: Term) -> tuple[str, int]:
        memo = self.memo
        hit = memo.get(t)
        if hit is None:
            stack: list[tuple[Term, bool]] = [(t, False)]
            while stack:  # children first (the recursion in _one is one level deep), memo stops the walk
                n, ready = stack.pop()
                if n in memo:
                    continue
                if ready:
                    memo[n] = self._one(n)
                    continue
                stack.append((n, True))
                stack.extend((a, False) for a in reversed(n.args) if a not in memo)
            hit = memo[t]
        return hit

    def wrap(self, t: Term, prec: int) -> str:
        s, p = self.text(t)
        return s if p >= prec else f"({s})"

    # -------------------------------------------------------------- integer
    def _one(self, n: Term) -> tuple[str, int]:
        k = n.kind
        if k == ir.CONST:
            return (str(n.value), ATOM) if n.value >= 0 else (str(n.value), ADD_P)
        if k in (ir.SYM, ir.BSYM):
            return self.names.get(n.value, n.value), ATOM
        if k == ir.BCONST:
            return ("True" if n.value else "False"), ATOM
        if k in (ir.ADD, ir.MUL):
            coefs, const = ir.linear(n)
            return self.linear(*self.truncmods(coefs, const))
        if k == ir.FLOORDIV:
            a, b = n.args
            if b.kind == ir.CONST and b.value >= 2:
                # PyTorch's CeilDiv(e, b) is FloorDiv(e + b - 1, b) for b > 0: one operation fewer.
                # Read back it is -((-e)//b), which ``monomial`` prints as CeilDiv(e, b) again only
                # when e has fewer minus signs than -e: only then (the printing is a fixed point)
                coefs, const = ir.linear(a)
                e = ir.from_linear(coefs, 0)
                if coefs and const == b.value - 1 and _negatives(e) < _negatives(ir.mk_neg(e)):
                    return f"CeilDiv({self.text(e)[0]}, {b.value})", ATOM
            return f"({self.wrap(a, MUL_P)}//{self.wrap(b, ATOM)})", ATOM
        if k == ir.MOD:
            x, m = n.args
            if x.kind == ir.FLOORDIV:
                a, d = x.args
                return f"ModularIndexing({self.text(a)[0]}, {self.text(d)[0]}, {self.text(m)[0]})", ATOM
            return f"Mod({self.text(x)[0]}, {self.text(m)[0]})", ATOM
        if k == ir.EMOD:
            return f"Mod({self.text(n.args[0])[0]}, Abs({self.text(n.args[1])[0]}))", ATOM
        if k == ir.EDIV:
            num, den = (self.wrap(x, ATOM) for x in n.args)
            return f"Piecewise((({num}//{den}), {den} > 0), (-({num}//(-{den})), True))", ATOM
        if k == ir.MAX and len(n.args) == 2 and n.args[1] is ir.mk_neg(n.args[0]):  # Abs(e) = Max(e, -e)
            e = min(n.args, key=lambda x: (_negatives(x), x.skey))
            return f"Abs({self.text(e)[0]})", ATOM
        if k in (ir.MAX, ir.MIN):
            return f"{k.capitalize()}({', '.join(self.text(a)[0] for a in n.args)})", ATOM
        if k == ir.ISQRT:  # PyTorch's spelling of int(math.sqrt(n)) (docs/pytorch-functions.md)
            return f"TruncToInt(OpaqueUnaryFn_sqrt(ToFloat({self.text(n.args[0])[0]})))", ATOM
        if k == ir.BITFLOOR:  # PyTorch's spelling of 2 ** int(math.log2(n)) (docs/pytorch-functions.md)
            return f"PowByNatural(2, TruncToInt(OpaqueUnaryFn_log2(ToFloat({self.text(n.args[0])[0]}))))", ATOM
        if k == ir.ITE:
            trunc = ir.truncdiv_args(n)
            if trunc is not None:
                return f"TruncDiv({self.text(trunc[0])[0]}, {self.text(trunc[1])[0]})", ATOM
            branches = []
            while n.kind == ir.ITE and not n.args[1].is_bool:
                branches.append(f"({self.text(n.args[1])[0]}, {self.text(n.args[0])[0]})")
                n = n.args[2]
            branches.append(f"({self.text(n)[0]}, True)")
            return f"Piecewise({', '.join(branches)})", ATOM
        return self._bool(n)

    def truncmods(self, coefs: dict[Term, int], const: int) -> tuple[list[tuple[Term | str, int]], int]:
        """The sum's monomials and constant, with ``c*a - c*b*TruncDiv(a, b)`` as the one item
        ``c*TruncMod(a, b)`` (C's remainder, docs/problem-format.md §1.2) wherever the sum has the
        monomial ``-c*b*TruncDiv(a, b)`` (``_truncmod_part``) and every monomial of ``a``: what is
        left of those stays (``2*x - y*TruncDiv(x, y)`` prints ``x + TruncMod(x, y)``)."""
        rest = dict(coefs)
        found: list[tuple[Term | str, int]] = []
        for t, k in coefs.items():
            args, c = _truncmod_part(t, k)
            if args is None or t not in rest:
                continue
            a, b = args
            ac, ak = ir.linear(a)
            if not ac or t in ac or any(x not in rest for x in ac):
                continue
            del rest[t]
            for x, u in ac.items():  # what is left of a monomial stays (x + TruncMod(x, y))
                rest[x] -= c * u
                if not rest[x]:
                    del rest[x]
            found.append((f"TruncMod({self.text(a)[0]}, {self.text(b)[0]})", c))
            const -= c * ak
        return [*rest.items(), *found], const

    def monomial(self, m: Term | str, c: int) -> tuple[str, bool]:
        """``c*m`` as (text of ``|c|*m``, negative?), with ``CeilDiv`` where it saves a minus; a
        text ``m`` is an atom printed already (``TruncMod``)."""
        if isinstance(m, str):
            return (m if abs(c) == 1 else f"{abs(c)}*{m}"), c < 0
        d = m.args[1] if m.kind == ir.FLOORDIV else None
        if d is not None and c < 0 and d.kind == ir.CONST and d.value > 0:
            # Only over a positive literal: PyTorch's CeilDiv(a, b) is FloorDiv(a + b - 1, b),
            # ceil(a/b) only for b > 0 (it folds CeilDiv(1, x) to 1, wrong for x = -1).
            num = ir.mk_neg(m.args[0])
            if _negatives(num) < _negatives(m.args[0]):
                inner = f"CeilDiv({self.text(num)[0]}, {self.text(m.args[1])[0]})"
                return (inner if c == -1 else f"{-c}*{inner}"), False
        factors = list(m.args) if m.kind == ir.MUL else [m]
        parts: list[str] = []
        i = 0
        while i < len(factors):  # equal factors are adjacent (sorted): x*x*x prints x**3
            j = i
            while j < len(factors) and factors[j] is factors[i]:
                j += 1
            base = self.wrap(factors[i], ATOM if j - i > 1 else MUL_P)
            parts.append(base if j - i == 1 else f"{base}**{j - i}")
            i = j
        body = "*".join(parts)
        a = abs(c)
        return (body if a == 1 else f"{a}*{body}"), c < 0

    def linear(self, items: Sequence[tuple[Term | str, int]], const: int) -> tuple[str, int]:
        items = [(m, c) for m, c in items if c != 0]
        first = next((i for i, (_, c) in enumerate(items) if c > 0), 0)  # lead with a plus: no unary minus
        items = [items[first], *items[:first], *items[first + 1:]] if items else items
        if not items:
            return self._one(ir.mk_int(const))
        out = ""
        lead = const != 0 and items[0][1] < 0
        if lead:  # no positive monomial: lead with the constant (1 - x, -1 - x: no unary minus)
            out, const = str(const), 0
        for m, c in items:
            body, neg = self.monomial(m, c)
            if not out:
                out = f"-{body}" if neg else body
            else:
                out += f" - {body}" if neg else f" + {body}"
        if const:
            out += f" - {-const}" if const < 0 else f" + {const}"
        if len(items) == 1 and not const and not lead:  # one monomial: a product (or a leading minus)
            return out, ADD_P if out.startswith("-") else MUL_P if "*" in out else ATOM
        return out, ADD_P

    # -------------------------------------------------------------- boolean
    def _bool(self, n: Term) -> tuple[str, int]:
        k = n.kind
        if k in (ir.LE, ir.EQ):
            lhs, rhs = self.sides(n.args[0])
            if k == ir.EQ:
                return f"Eq({lhs}, {rhs})", ATOM
            coefs, const = ir.linear(n.args[0])
            if const == 1 and len({c > 0 for c in coefs.values()}) == 2:  # P + 1 <= N: P < N
                lhs, rhs = self.sides(ir.mk_sub(n.args[0], ir.ONE))
                return f"{lhs} < {rhs}", CMP_P
            return f"{lhs} <= {rhs}", CMP_P
        if k == ir.NOT:
            a = n.args[0]
            if a.kind == ir.EQ:
                lhs, rhs = self.sides(a.args[0])
                return f"Ne({lhs}, {rhs})", ATOM
            return f"Not({self.text(a)[0]})", ATOM
        if k in (ir.AND, ir.OR):
            name = "And" if k == ir.AND else "Or"
            # the operands that cannot divide first: Python's and/or evaluate left to right
            return f"{name}({', '.join(self.text(a)[0] for a in ir.print_order(n.args))})", ATOM
        if k == ir.IFF:
            p, q = (self.text(x)[0] for x in n.args)
            return f"Or(And({p}, {q}), And(Not({p}), Not({q})))", ATOM
        raise AssertionError(k)

    def sides(self, e: Term) -> tuple[str, str]:
        """``e <= 0`` / ``e == 0`` as ``P <= N`` with positive coefficients on both sides and the
        constant on the right (``s - t + 1 <= 0`` prints ``s + 1 <= t`` -> ``s <= t - 1``)."""
        coefs, const = ir.linear(e)
        pos = [(m, c) for m, c in coefs.items() if c > 0]
        neg = [(m, -c) for m, c in coefs.items() if c < 0]
        if not pos:  # const - N <= 0: const <= N
            return str(const), self.linear(neg, 0)[0]
        return self.linear(pos, 0)[0], self.linear(neg, -const)[0]


def _truncmod_part(t: Term, k: int) -> tuple[tuple[Term, Term] | None, int]:
    """``((a, b), c)`` when the monomial ``k*t`` is ``-c*b*TruncDiv(a, b)``: ``t`` the select itself
    over a literal ``b`` dividing ``k``, or a product of the select and factors whose product is
    ``b`` up to a literal ``u`` dividing ``k`` (``TruncMod(x, 3*y)`` is read
    ``x - 3*y*TruncDiv(x, 3*y)``, whose monomial is ``-3 * (y*TruncDiv(x, 3*y))``)."""
    args = ir.truncdiv_args(t)
    if args is not None:
        b = args[1]
        return (args, -k // b.value) if b.kind == ir.CONST and k % b.value == 0 else (None, 0)
    if t.kind != ir.MUL:
        return None, 0
    for i, f in enumerate(t.args):
        args = ir.truncdiv_args(f)
        if args is None:
            continue
        rest = ir.mk_mul(*t.args[:i], *t.args[i + 1:])
        if rest is args[1]:
            return args, -k
        scaled, offset = ir.linear(args[1])  # b = u*m (a sum's linear form keeps u out of m)
        if offset == 0 and len(scaled) == 1:
            ((m, u),) = scaled.items()
            if m is rest and k % u == 0:
                return args, -k // u
    return None, 0

def _negatives(t: Term) -> int:
    coefs, const = ir.linear(t)
    return sum(c < 0 for c in coefs.values()) + (const < 0)


# ------------------------------------------------------------------ cost

_DIV_CALLS = frozenset({"FloorDiv", "Mod", "PythonMod", "CeilDiv", "CleanDiv", "TruncDiv", "TruncMod", "IntTrueDiv",
                        "FloatTrueDiv", "floor", "ceiling"})
_FREE_CALLS = frozenset({"Identity", "FloorToInt", "CeilToInt", "TruncToInt", "RoundToInt", "ToFloat"})
_VARIADIC = frozenset({"Max", "Min", "And", "Or"})


def cost(text: str) -> dict[str, int]:
    """``{"ops", "divs"}`` of a sympy-syntax text (see the module docstring); a fresh dict."""
    return dict(_cost(text))


@functools.lru_cache(maxsize=1 << 14)
def _cost(text: str) -> dict[str, int]:
    # the same text is measured several times per request (the input, the form, the row): parse once
    got = _token_cost(text)
    ops, divs = got if got is not None else _count(ast.parse(text.strip(), mode="eval"))
    return {"ops": ops, "divs": divs}


# ------------------------------------------------------------------ the cost without ``ast``

# ``ast.parse`` builds Python objects for every node and was most of ``cost``'s time; what
# simplify prints and most inputs are integers, names, ``+ - * // % **``, comparisons,
# parentheses and calls: counted here from the tokens by a recursive descent with Python's
# precedence and ``_count``'s rules. Anything else, deeper than 100 levels, or not valid
# Python goes to ``_count`` (``tests/test_simplify_writer.py`` checks both agree).
_TOKEN = re.compile(r" *(?:([0-9]+)(?![A-Za-z0-9_.])|([A-Za-z_][A-Za-z0-9_]*)|(\*\*|//|<=|>=|==|!=|[-+*%(),<>]))")


class _NotCounted(Exception):
    pass


def _token_cost(text: str) -> tuple[int, int] | None:
    src = text.strip(" ")
    toks = _TOKEN.findall(src)  # (number, name, operator), one filled
    # every character but spaces is in a token (findall skips what matches nothing)
    if not toks or "".join(a + b + c for a, b, c in toks) != src.replace(" ", ""):
        return None
    for num, name, _ in toks:
        if (num and len(num) > 1 and num[0] == "0") or (name and keyword.iskeyword(name)):
            return None  # Python refuses 012; True, None, not, … are not names
    c = _TokenCost(toks)
    try:
        c.expr(0, 0)
    except (_NotCounted, IndexError, RecursionError):
        return None
    return None if c.i != len(toks) else (c.ops, c.divs)


class _TokenCost:
    """Precedence climbing over the tokens (Python's: comparisons < ``+ -`` < ``* // %`` < unary
    < ``**``, which is right-associative and takes a unary operand). ``expr`` returns the value
    of an integer literal (an ``ast.Constant``; parentheses are transparent) or None for
    anything else, and adds what it reads to ``ops``/``divs``."""

    def __init__(self, toks: list[tuple[str, str, str]]) -> None:
        self.toks = toks
        self.n = len(toks)
        self.i = 0
        self.ops = self.divs = 0

    def expr(self, prec: int, depth: int) -> int | None:
        if depth > 100:
            raise _NotCounted
        toks = self.toks
        num, name, op = toks[self.i]
        self.i += 1
        left: int | None = None
        if num:
            left = int(num)
        elif name:
            if self.i < self.n and toks[self.i][2] == "(":
                self.call(name, depth)
        elif op == "(":
            left = self.expr(0, depth + 1)
            if self.i >= self.n or toks[self.i][2] != ")":
                raise _NotCounted
            self.i += 1
        elif op in ("-", "+"):
            if self.expr(_UNARY, depth + 1) is None:  # -3 is free, -x an operation
                self.ops += 1
        else:
            raise _NotCounted
        while self.i < self.n:
            op = toks[self.i][2]
            p = _PREC.get(op)
            if p is None or p <= prec:
                break
            self.i += 1
            if op == "**":
                k = self.expr(_UNARY, depth + 1)
                self.ops += 1 if k is None else max(0, k - 1)
            else:
                self.expr(p, depth + 1)
                if op in ("//", "%"):
                    self.divs += 1
                else:
                    self.ops += 1
            left = None
        return left

    def call(self, name: str, depth: int) -> None:
        toks = self.toks
        self.i += 1
        args: list[int | None] = []
        if toks[self.i][2] != ")":
            while True:
                args.append(self.expr(0, depth + 1))
                if toks[self.i][2] != ",":
                    break
                self.i += 1
        if toks[self.i][2] != ")":
            raise _NotCounted
        self.i += 1
        if name in ("floor", "ceiling", "Piecewise"):
            raise _NotCounted  # their own rules read the argument's shape
        if name == "ModularIndexing":
            self.divs += 1 if len(args) > 1 and args[1] == 1 else 2
        elif name in _DIV_CALLS:
            self.divs += 1
        elif name in _VARIADIC:
            self.ops += max(0, len(args) - 1)
        elif name in ("PowByNatural", "pow_by_natural") and len(args) == 2 and args[1] is not None:
            self.ops += max(0, args[1] - 1)
        elif name not in _FREE_CALLS:
            self.ops += 1


_UNARY = 4  # a unary operand binds tighter than * and looser than **
_PREC: dict[str, int] = {"<": 1, "<=": 1, ">": 1, ">=": 1, "==": 1, "!=": 1, "+": 2, "-": 2, "*": 3, "//": 3, "%": 3, "**": 5}


def _count(root: ast.AST) -> tuple[int, int]:
    """(ops, divs) of a parsed text: ``_Cost``'s rules in one iterative walk dispatching on the
    node type (``ast.NodeVisitor`` looks a method up by name for every node, ``op`` and ``ctx``
    nodes included, and was most of ``cost``'s time). ``tests/test_simplify_writer.py`` checks
    both agree on random texts."""
    ops = divs = 0
    stack: list[ast.AST] = [root]
    while stack:
        n = stack.pop()
        t = type(n)
        if t is ast.Name or t is ast.Constant:
            continue
        if t is ast.BinOp:
            op = type(n.op)  # type: ignore[attr-defined]
            right = n.right  # type: ignore[attr-defined]
            if op is ast.FloorDiv or op is ast.Mod or op is ast.Div:
                divs += 1
            elif op is ast.Pow and isinstance(right, ast.Constant) and isinstance(right.value, int):
                ops += max(0, right.value - 1)
            else:
                ops += 1
            stack.append(right)
            stack.append(n.left)  # type: ignore[attr-defined]
        elif t is ast.UnaryOp:
            operand = n.operand  # type: ignore[attr-defined]
            if not (isinstance(n.op, (ast.USub, ast.UAdd)) and isinstance(operand, ast.Constant)):  # type: ignore[attr-defined]
                ops += 1
            stack.append(operand)
        elif t is ast.Compare:
            ops += len(n.ops)  # type: ignore[attr-defined]
            stack.extend(reversed(n.comparators))  # type: ignore[attr-defined]
            stack.append(n.left)  # type: ignore[attr-defined]
        elif t is ast.BoolOp:
            ops += len(n.values) - 1  # type: ignore[attr-defined]
            stack.extend(reversed(n.values))  # type: ignore[attr-defined]
        elif t is ast.Call:
            func = n.func  # type: ignore[attr-defined]
            name = func.id if isinstance(func, ast.Name) else ""
            args = n.args  # type: ignore[attr-defined]
            if name in ("floor", "ceiling") and args and isinstance(args[0], ast.BinOp) \
                    and isinstance(args[0].op, ast.Div):
                stack.append(args[0])  # floor(a/b): the division is the one ``/``
                continue
            if name == "ModularIndexing":
                one = len(args) > 1 and isinstance(args[1], ast.Constant) and args[1].value == 1
                divs += 1 if one else 2
            elif name in _DIV_CALLS:
                divs += 1
            elif name in _VARIADIC or name == "Piecewise":
                ops += max(0, len(args) - 1)
            elif name in ("PowByNatural", "pow_by_natural") and len(args) == 2 \
                    and isinstance(args[1], ast.Constant) and isinstance(args[1].value, int):
                ops += max(0, args[1].value - 1)
            elif name not in _FREE_CALLS:
                ops += 1
            stack.extend(reversed(args))
        else:
            stack.extend(ast.iter_child_nodes(n))
    return ops, divs


class _Cost(ast.NodeVisitor):
    """The reference statement of the cost rules (``_count`` is the fast walk used by ``cost``)."""

    def __init__(self) -> None:
        self.ops = 0
        self.divs = 0

    def visit_BinOp(self, node: ast.BinOp) -> None:
        if isinstance(node.op, (ast.FloorDiv, ast.Mod, ast.Div)):
            self.divs += 1
        elif isinstance(node.op, ast.Pow) and isinstance(node.right, ast.Constant) and isinstance(node.right.value, int):
            self.ops += max(0, node.right.value - 1)
        else:
            self.ops += 1
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        if not (isinstance(node.op, (ast.USub, ast.UAdd)) and isinstance(node.operand, ast.Constant)):
            self.ops += 1
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        self.ops += len(node.ops)
        self.generic_visit(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        self.ops += len(node.values) - 1
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = node.func.id if isinstance(node.func, ast.Name) else ""
        args = node.args
        if name in ("floor", "ceiling") and args and isinstance(args[0], ast.BinOp) and isinstance(args[0].op, ast.Div):
            self.visit(args[0])  # floor(a/b): the division is the one ``/``
            return
        if name == "ModularIndexing":
            one = len(args) > 1 and isinstance(args[1], ast.Constant) and args[1].value == 1
            self.divs += 1 if one else 2
        elif name in _DIV_CALLS:
            self.divs += 1
        elif name in _VARIADIC or name == "Piecewise":
            self.ops += max(0, len(args) - 1)
        elif name in ("PowByNatural", "pow_by_natural") and len(args) == 2 and isinstance(args[1], ast.Constant) \
                and isinstance(args[1].value, int):
            self.ops += max(0, args[1].value - 1)
        elif name not in _FREE_CALLS:
            self.ops += 1  # Eq, Ne, Lt, Abs, Not, Implies, Where, shifts, bitwise functions
        for a in args:
            self.visit(a)
