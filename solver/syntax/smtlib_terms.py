"""SMT-LIB terms (S-expressions from ``sexpr``) -> symguard IR, over Int and Bool.

The walk is iterative (an explicit task stack). ``let`` binds IR terms, which are hash-consed
DAGs, so a let-bound value is built once and shared however often it is used. ``define-fun``
macros are expanded by evaluating their body with the parameters bound to the argument terms,
memoized per (macro, arguments), so chains of macros calling macros stay linear; a budget of
expansion steps turns pathological scripts into ``TooLargeError``.

Scoping uses one binding table with undo (lets and macro bodies nest strictly, LIFO): a binding
made at level L is visible only while L is at or above the innermost macro-body barrier, so a
macro body never sees its caller's ``let`` names (SMT-LIB macros are closed).

``div``/``mod`` are SMT-LIB's Euclidean ones (``ir.mk_ediv``/``ir.mk_emod``); as in the sympy
parser every divisor is recorded so that ``divisor != 0`` is conjoined (docs/problem-format.md §1.2), which is
where symguard deliberately differs from SMT-LIB (there ``(div x 0)`` is an unspecified value).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from itertools import pairwise

from symguard.solver.errors import ParseError, TooLargeError, UnsupportedError
from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term
from symguard.solver.syntax.sexpr import BIN, DEC, HEX, KEYWORD, NUM, STRING, Atom, Node, SList, is_symbol

MAX_EXPANSION_STEPS = 2_000_000

INT_SORT, BOOL_SORT = "Int", "Bool"

_UNSUPPORTED_HEADS = {
    "/": "real division '/'", "to_real": "to_real (reals)", "to_int": "to_int (reals)",
    "is_int": "is_int (reals)", "forall": "quantifier forall", "exists": "quantifier exists",
    "lambda": "lambda", "match": "match (datatypes)", "select": "arrays (select)",
    "store": "arrays (store)", "_": "indexed identifier (bit-vectors and the like)",
    "^": "exponentiation '^'", "divisible": "divisible", "iff": "iff (use =)",
}


@dataclass(frozen=True)
class Macro:
    name: str
    params: tuple[tuple[str, str], ...]  # (name, sort)
    sort: str
    body: Node
    seq: int  # definition order: a body may only call macros defined before it (no recursion)


def sort_of(node: Node) -> str:
    """Int or Bool; anything else is unsupported."""
    if is_symbol(node) and node.text in (INT_SORT, BOOL_SORT):  # type: ignore[union-attr]
        return node.text  # type: ignore[union-attr]
    if is_symbol(node, "Real"):
        raise UnsupportedError("sort Real (only Int and Bool are supported)", offset=node.start)
    what = node.text if isinstance(node, Atom) else "indexed/parametric sort"
    raise UnsupportedError(f"sort {what} (only Int and Bool are supported)", offset=node.start)


class TermBuilder:
    """Builds IR from terms. ``symbols`` maps declared constants to their sort; with
    ``implicit_int`` an undeclared symbol is an Int constant (parse_term), else an error."""

    def __init__(self, *, implicit_int: bool) -> None:
        self.implicit_int = implicit_int
        self.symbols: dict[str, str] = {}
        # nullary macros are stored built, with the divisors they need (re-recorded at each use)
        self.macros: dict[str, Macro | tuple[Term, tuple[Term, ...]]] = {}
        self.domain: list[Term] = []
        self._memo: dict[tuple[int, tuple[Term, ...]], tuple[Term, tuple[Term, ...]]] = {}
        self._bind: dict[str, list[tuple[int, Term]]] = {}
        self._level = 0
        self._barrier = 0
        self._limit = 1 << 62  # seq of the macro whose body is being expanded
        self._defined = 0
        self.steps = 0
        # ``solve --smtlib`` behaves like z3: a division by zero is not an error but an unspecified
        # value, the same for the same dividend (SMT-LIB's total div/mod); see ``_total``
        self.total_division = False
        self._by_zero: dict[tuple[str, Term], Term] = {}

    # -------------------------------------------------------------- public
    def build(self, node: Node) -> Term:
        """The IR of ``node``; divisors it uses are appended to ``self.domain``. A term whose tree
        is past ``ir.MAX_READ_TREE`` (nested ``let``s of a term used twice) is refused here, before
        anything writes it out."""
        self.steps = 0
        t = self._run(node)
        if t.size > ir.MAX_READ_TREE or any(d.size > ir.MAX_READ_TREE for d in self.domain):
            raise TooLargeError(ir.READ_TREE_MESSAGE, offset=node.start)
        return t

    def define(self, name: str, params: tuple[tuple[str, str], ...], sort: str,
               body: Node) -> Macro | tuple[Term, tuple[Term, ...]]:
        if not params:
            self.domain = []
            t = self.build(body)
            self._check_sort(t, sort, body, f"the body of {name}")
            return t, tuple(self.domain)
        self._defined += 1
        return Macro(name, params, sort, body, self._defined)

    # -------------------------------------------------------------- the walk
    def _run(self, root: Node) -> Term:
        tasks: list[tuple] = [("eval", root)]
        vals: list[Term] = []
        while tasks:
            task = tasks.pop()
            op = task[0]
            self.steps += 1
            if self.steps > MAX_EXPANSION_STEPS:
                raise TooLargeError(f"term expansion exceeds {MAX_EXPANSION_STEPS} steps "
                                    "(macros or lets too large)", offset=root.start)
            if op == "eval":
                self._eval(task[1], tasks, vals)
            elif op == "apply":
                node, nargs = task[1], task[2]
                args = vals[len(vals) - nargs:] if nargs else []
                del vals[len(vals) - nargs:]
                self._apply(node, args, tasks, vals)
            elif op == "let":
                node, names = task[1], task[2]
                values = vals[len(vals) - len(names):]
                del vals[len(vals) - len(names):]
                self._level += 1
                for nm, v in zip(names, values):
                    self._bind.setdefault(nm, []).append((self._level, v))
                tasks.append(("unbind", names, None))
                tasks.append(("eval", node.items[2]))
            elif op == "unbind":
                for nm in task[1]:
                    stack = self._bind[nm]
                    stack.pop()
                    if not stack:
                        del self._bind[nm]
                self._level -= 1
                if task[2] is not None:  # end of a macro body: restore the barrier, memoize
                    key, barrier, macro, call, dom_mark, limit = task[2]
                    self._barrier = barrier
                    self._limit = limit
                    t = vals[-1]
                    self._check_sort(t, macro.sort, call, f"the result of {macro.name}")
                    self._memo[key] = (t, tuple(self.domain[dom_mark:]))
            else:  # pragma: no cover
                raise AssertionError(op)
        return vals[-1]

    def _eval(self, node: Node, tasks: list[tuple], vals: list[Term]) -> None:
        if isinstance(node, Atom):
            vals.append(self._atom(node))
            return
        items = node.items
        if not items:
            raise ParseError("empty application '()'", offset=node.start)
        head = items[0]
        if not is_symbol(head):
            if isinstance(head, SList) and head.items and is_symbol(head.items[0], "_"):
                raise UnsupportedError("indexed identifier (bit-vectors and the like)", offset=head.start)
            if isinstance(head, SList) and head.items and is_symbol(head.items[0], "as"):
                raise UnsupportedError("qualified function application (as ...)", offset=head.start)
            raise ParseError("expected a function name after '('", offset=head.start)
        name = head.text  # type: ignore[union-attr]
        if name == "let" and self._lookup(name) is None:
            self._eval_let(node, tasks)
            return
        if name == "!":
            if len(items) < 2 or len(items) % 2:
                raise ParseError("(! term :attribute value ...) expected", offset=node.start)
            for k in items[2::2]:
                if not (isinstance(k, Atom) and k.kind == KEYWORD):
                    raise ParseError("expected an attribute keyword like :named", offset=k.start)
            tasks.append(("eval", items[1]))
            return
        if name == "as":
            vals.append(self._as(node))
            return
        if name in _UNSUPPORTED_HEADS:
            raise UnsupportedError(f"unsupported construct: {_UNSUPPORTED_HEADS[name]}", offset=node.start)
        tasks.append(("apply", node, len(items) - 1))
        for a in reversed(items[1:]):
            tasks.append(("eval", a))

    def _eval_let(self, node: SList, tasks: list[tuple]) -> None:
        items = node.items
        if len(items) != 3 or not isinstance(items[1], SList) or not items[1].items:
            raise ParseError("(let ((name term) ...) body) expected", offset=node.start)
        names: list[str] = []
        values: list[Node] = []
        for b in items[1].items:
            if not (isinstance(b, SList) and len(b.items) == 2 and is_symbol(b.items[0])):
                raise ParseError("a let binding must be (name term)", offset=b.start)
            nm = b.items[0].text  # type: ignore[union-attr]
            if nm in names:
                raise ParseError(f"let binds {nm!r} twice", offset=b.start)
            names.append(nm)
            values.append(b.items[1])
        tasks.append(("let", node, tuple(names)))
        for v in reversed(values):  # bindings are parallel: evaluated in the outer scope
            tasks.append(("eval", v))

    def _as(self, node: SList) -> Term:
        items = node.items
        if len(items) != 3 or not is_symbol(items[1]):
            raise ParseError("(as name Sort) expected", offset=node.start)
        name, sort = items[1].text, sort_of(items[2])  # type: ignore[union-attr]
        t = self._lookup(name, use=True)
        if t is None:
            t = self._symbol(items[1], sort)  # type: ignore[arg-type]
        self._check_sort(t, sort, node, name)
        return t

    # -------------------------------------------------------------- leaves
    def _lookup(self, name: str, *, use: bool = False) -> Term | None:
        stack = self._bind.get(name)
        if stack and stack[-1][0] >= self._barrier:
            return stack[-1][1]
        m = self.macros.get(name)
        if isinstance(m, tuple):
            if use:
                self.domain.extend(m[1])
            return m[0]
        return None

    def _atom(self, a: Atom) -> Term:
        if a.kind == NUM:
            if len(a.text) > ir.MAX_INT_DIGITS:
                raise TooLargeError(f"integer with more than {ir.MAX_INT_DIGITS} digits", offset=a.start)
            return ir.mk_int(int(a.text))
        if a.kind == DEC:
            raise UnsupportedError(f"real literal {a.text} (only integers are supported)", offset=a.start)
        if a.kind in (HEX, BIN):
            raise UnsupportedError(f"bit-vector literal {a.text}", offset=a.start)
        if a.kind == STRING:
            raise UnsupportedError("string literal", offset=a.start)
        if a.kind == KEYWORD:
            raise ParseError(f"unexpected keyword {a.text}", offset=a.start)
        t = self._lookup(a.text, use=True)
        if t is not None:
            return t
        if a.text in ("true", "false"):
            return ir.mk_bool(a.text == "true")
        if isinstance(self.macros.get(a.text), Macro):
            raise ParseError(f"{a.text} is a function of {len(self.macros[a.text].params)} argument(s); "  # type: ignore[union-attr]
                             "apply it as (f args)", offset=a.start)
        return self._symbol(a, None)

    def _symbol(self, a: Atom, want: str | None) -> Term:
        if a.text in ("True", "False", "None"):  # values in the sympy syntax: exported, it would read back as one
            raise ParseError(f"a symbol cannot be named {a.text} (a value in the sympy syntax)", offset=a.start)
        sort = self.symbols.get(a.text)
        if sort is None:
            if a.text in _ARITY or a.text in _UNSUPPORTED_HEADS:
                raise ParseError(f"{a.text} is a function; apply it as ({a.text} ...)", offset=a.start)
            if not self.implicit_int:
                raise ParseError(f"unknown symbol {a.text!r} (declare it with declare-const)", offset=a.start)
            sort = want or INT_SORT
            if a.text.startswith("."):
                raise ParseError(f"symbol {a.text!r}: names starting with '.' are reserved", offset=a.start)
        return ir.mk_bsym(a.text) if sort == BOOL_SORT else ir.mk_sym(a.text)

    # -------------------------------------------------------------- applications
    def _apply(self, node: SList, args: list[Term], tasks: list[tuple], vals: list[Term]) -> None:
        head = node.items[0]
        name = head.text  # type: ignore[union-attr]
        bound = self._lookup(name)
        if bound is not None or name in self.symbols:
            raise ParseError(f"{name} is a constant, not a function", offset=node.start)
        m = self.macros.get(name)
        if isinstance(m, Macro):
            self._call(m, node, args, tasks, vals)
            return
        spec = _ARITY.get(name)
        if spec is None:
            raise UnsupportedError(f"unknown or unsupported function {name!r}", offset=node.start)
        lo, hi, kinds = spec
        if len(args) < lo or (hi is not None and len(args) > hi):
            want = f"{lo}" if hi == lo else f"at least {lo}" if hi is None else f"{lo} to {hi}"
            raise ParseError(f"{name} takes {want} argument(s), got {len(args)}", offset=node.start)
        for a, sub in zip(args, node.items[1:]):
            if kinds == "i" and a.is_bool:
                raise ParseError(f"{name} expects Int arguments, got a Bool", offset=sub.start)
            if kinds == "b" and not a.is_bool:
                raise ParseError(f"{name} expects Bool arguments, got an Int", offset=sub.start)
        if kinds == "same" and len({a.is_bool for a in args}) > 1:
            raise ParseError(f"{name} mixes Int and Bool arguments", offset=node.start)
        if name == "ite":
            if not args[0].is_bool:
                raise ParseError("the condition of ite must be Bool", offset=node.items[1].start)
            if args[1].is_bool != args[2].is_bool:
                raise ParseError("the branches of ite have different sorts", offset=node.start)
            vals.append(ir.mk_ite(*args))
            return
        vals.append(_BUILD[name](self, args))

    def _call(self, m: Macro, node: SList, args: list[Term], tasks: list[tuple], vals: list[Term]) -> None:
        if len(args) != len(m.params):
            raise ParseError(f"{m.name} takes {len(m.params)} argument(s), got {len(args)}", offset=node.start)
        for (pn, ps), a, sub in zip(m.params, args, node.items[1:]):
            self._check_sort(a, ps, sub, f"argument {pn} of {m.name}")
        if m.seq >= self._limit:
            raise ParseError(f"{m.name} is used before its definition (define-fun cannot be recursive)",
                             offset=node.start)
        key = (m.seq, tuple(args))  # seq, not the name: a popped macro may be redefined
        hit = self._memo.get(key)
        if hit is not None:
            vals.append(hit[0])
            self.domain.extend(hit[1])
            return
        names = tuple(pn for pn, _ in m.params)
        self._level += 1
        barrier = self._barrier
        self._barrier = self._level
        for nm, v in zip(names, args):
            self._bind.setdefault(nm, []).append((self._level, v))
        tasks.append(("unbind", names, (key, barrier, m, node, len(self.domain), self._limit)))
        self._limit = m.seq
        tasks.append(("eval", m.body))

    def _check_sort(self, t: Term, sort: str, node: Node, what: str) -> None:
        if t.is_bool != (sort == BOOL_SORT):
            raise ParseError(f"{what} should be {sort}, got {'Bool' if t.is_bool else 'Int'}", offset=node.start)

    def _divide(self, fn: Callable[[Term, Term], Term], args: list[Term]) -> Term:
        acc = args[0]
        for b in args[1:]:
            if self.total_division:
                acc = self._total(fn, acc, b)
                continue
            self.domain.append(ir.mk_ne(b, ir.ZERO))
            acc = fn(acc, b)
        return acc

    def _total(self, fn: Callable[[Term, Term], Term], a: Term, b: Term) -> Term:
        """SMT-LIB's total ``div``/``mod``: ``ite(b = 0, v(a), fn(a, ite(b = 0, 1, b)))`` where
        ``v(a)`` is a fresh Int constant per operation and dividend (``.div0.N``/``.mod0.N``;
        names with a leading dot are reserved for solvers, so they clash with no user symbol).
        The safe divisor keeps every term defined, so models still pass the Python self-check.
        Dividends equal in value but different in form get different constants: sound for
        ``unsat``, a ``sat`` z3 might not give on such scripts."""
        kind = "div0" if fn is ir.mk_ediv else "mod0"
        v = self._by_zero.get((kind, a))
        if v is None:
            v = self._by_zero[(kind, a)] = ir.mk_sym(f".{kind}.{len(self._by_zero)}")
        zero = ir.mk_eq(b, ir.ZERO)
        return ir.mk_ite(zero, v, fn(a, ir.mk_ite(zero, ir.ONE, b)))


def _chain(rel: Callable[[Term, Term], Term]) -> Callable[[TermBuilder, list[Term]], Term]:
    # the common binary case skips mk_and (its complement check builds a negation per operand)
    return lambda _b, a: rel(a[0], a[1]) if len(a) == 2 else ir.mk_and(*(rel(x, y) for x, y in pairwise(a)))


def _minus(_b: TermBuilder, a: list[Term]) -> Term:
    if len(a) == 1:
        return ir.mk_neg(a[0])
    return ir.mk_add(a[0], *(ir.mk_neg(x) for x in a[1:]))


def _implies(_b: TermBuilder, a: list[Term]) -> Term:
    acc = a[-1]
    for x in reversed(a[:-1]):  # right-associative
        acc = ir.mk_implies(x, acc)
    return acc


def _xor(_b: TermBuilder, a: list[Term]) -> Term:
    acc = a[0]
    for x in a[1:]:
        acc = ir.mk_not(ir.mk_iff(acc, x))
    return acc


def _distinct(_b: TermBuilder, a: list[Term]) -> Term:
    return ir.mk_and(*(ir.mk_ne(a[i], a[j]) for i in range(len(a)) for j in range(i + 1, len(a))))


# name -> (min args, max args or None, argument kinds: "i" Int, "b" Bool, "same", "any")
_ARITY: Mapping[str, tuple[int, int | None, str]] = {
    "+": (1, None, "i"), "-": (1, None, "i"), "*": (1, None, "i"), "div": (2, None, "i"),
    "mod": (2, 2, "i"), "abs": (1, 1, "i"), "<=": (2, None, "i"), "<": (2, None, "i"),
    ">=": (2, None, "i"), ">": (2, None, "i"), "=": (2, None, "same"), "distinct": (2, None, "same"),
    "and": (0, None, "b"), "or": (0, None, "b"), "not": (1, 1, "b"), "=>": (2, None, "b"),
    "xor": (2, None, "b"), "ite": (3, 3, "any"),
}

_BUILD: Mapping[str, Callable[[TermBuilder, list[Term]], Term]] = {
    "+": lambda _b, a: ir.mk_add(*a),
    "-": _minus,
    "*": lambda _b, a: ir.mk_mul(*a),
    "div": lambda b, a: b._divide(ir.mk_ediv, a),
    "mod": lambda b, a: b._divide(ir.mk_emod, a),
    "abs": lambda _b, a: ir.mk_abs(a[0]),
    "<=": _chain(ir.mk_le), "<": _chain(ir.mk_lt), ">=": _chain(ir.mk_ge), ">": _chain(ir.mk_gt),
    "=": _chain(ir.mk_eq),
    "distinct": _distinct,
    "and": lambda _b, a: ir.mk_and(*a),
    "or": lambda _b, a: ir.mk_or(*a),
    "not": lambda _b, a: ir.mk_not(a[0]),
    "=>": _implies,
    "xor": _xor,
}

__all__ = ["BOOL_SORT", "INT_SORT", "Macro", "TermBuilder", "sort_of"]
