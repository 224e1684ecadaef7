"""Cheaper forms of the guards the pruner keeps: symguard's ``simplify`` forms that Dynamo emits
instead, each proven equal and defined wherever the pruned check accepts (the argument below).
torch and sympy are imported inside the functions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from .guard_semantics import compares_floats, executed_exactly, may_not_finish, may_raise
from .torch_bridge import Doc
from .torch_guards import enforced_ranges


class _Asker(Protocol):
    """What the forms need of ``torch_prune.GuardPruner``: its questions and its record."""

    history: list[dict[str, Any]]

    def ask(self, doc: Doc, op: str = "redundancy") -> dict[str, Any]: ...


# A kept guard may be far costlier to evaluate than it needs to be: HF Swin keeps two window-
# partition equalities of 20,000 characters each (40 µs per call apiece). symguard's `simplify`
# gives each a form proven equal to it under a context, and Dynamo emits the form instead.
# Soundness (docs/torch_guards.md, "Cheaper forms"):
#   - the context is part 3's ranges R and the kept guards symguard called `required`, K_req,
#     emitted verbatim; a form f of a kept guard g is proven f == g at every point of R and K_req
#     where g is defined (its divisors non-zero), so R, K_req and the forms accept exactly where
#     R, K_req and the originals do -- wherever the originals are defined;
#   - a second question proves every non-constant divisor of every rewritten guard non-zero under
#     R and everything emitted: where the pruned check accepts, the originals are all defined (a
#     zero divisor makes the stock check raise, which Dynamo reads as a rejection). A divisor not
#     proven non-zero puts its guard back, verbatim. (Guards `redundancy` dropped need no such
#     question: it drops a guard's divisor conditions with it, docs/problem-format.md §1.2.) A form
#     is defined wherever its original is (it equals it there); what Dynamo emits for it (sympy
#     folds some divisions, ``x//x`` is 1, and ShapeEnv simplifies it) may be defined at more
#     points, so that emitted version, not the form's text, is what the second question assumes;
#   - a form that is `True` drops its guard; a form that does not read back, or is not true at the
#     compile's own example (the hints), keeps the original.

_DIVIDING: dict[str, tuple[int, ...]] = {  # function name -> the argument positions that divide
    "FloorDiv": (1,), "CleanDiv": (1,), "CeilDiv": (1,), "PythonMod": (1,), "Mod": (1,), "IntTrueDiv": (1,),
    "FloatTrueDiv": (1,), "TruncDiv": (1,), "ModularIndexing": (1, 2), "Div": (1,),
}


def _divisors(e: Any) -> list[Any] | None:
    """The non-constant divisors in a sympy expression, or None when it divides in a way not read here."""
    import sympy

    out: list[Any] = []
    for node in sympy.preorder_traversal(e):
        name = type(node).__name__
        if isinstance(node, sympy.Pow):
            if node.exp.is_negative is not False:
                if not node.base.is_number:
                    out.append(node.base)
                elif not node.exp.is_integer:
                    return None
            continue
        if isinstance(node, sympy.Rational) and not isinstance(node, sympy.Integer):
            return None  # a fraction in an integer guard: not a shape this code reads
        if name in _DIVIDING:
            out.extend(node.args[k] for k in _DIVIDING[name] if not node.args[k].is_number)
        elif "Div" in name or "Mod" in name:
            return None
    return out


def cheaper_forms(pruner: _Asker, env: Any, doc: Doc, exprs: list[Any], res: Mapping[str, Any],
                  keep: set[int], langs: tuple[str, ...] = ("python",)) -> tuple[dict[int, Any], set[int]]:
    """Forms of the kept guards proven equal under the ranges and the required guards, each
    original proven defined wherever the pruned check accepts (see the comment above), and each
    form's code in every executed language ``langs`` computing its exact value (a C++ product
    the original did not have may overflow). Returns ``({guard index: sympy form, or True to
    drop it}, keep)``."""
    verdict = {g.get("id"): g.get("verdict") for g in res.get("guards") or () if isinstance(g, Mapping)}
    texts = [g["expr"] for g in doc["guards"]]
    req = sorted(i for i in keep if verdict.get(f"g{i}") == "required")
    cands = sorted(i for i in keep if verdict.get(f"g{i}") not in ("required", "unsupported")
                   and not compares_floats(exprs[i]))  # a float guard may also overflow: kept as it is
    base = {"symbols": doc["symbols"], "asserts": [], "options": dict(doc["options"])}
    forms: dict[int, Any] = {}
    form_text: dict[int, str] = {}
    ranges = enforced_ranges(env)
    context = [{"id": f"g{i}", "expr": texts[i]} for i in req]
    if cands:
        ans = pruner.ask({**base, "guards": context, "exprs": [{"id": f"g{i}", "expr": texts[i]} for i in cands]},
                         "simplify")
        if ans.get("status") == "sat":
            symbols = {str(s): s for e in exprs for s in e.free_symbols}
            hints = getattr(env, "backed_var_to_val", None) or env.var_to_val
            for item in ans.get("exprs") or ():
                i = int(str(item.get("id"))[1:])
                if item.get("proved") is not True or i not in cands or item.get("form") == texts[i]:
                    continue
                form = form_to_sympy(str(item["form"]), symbols)
                if form is not None and form is not True:
                    # what Dynamo will print: its own simplification of the form (cached, reused)
                    emitted = env.simplify(form) if hasattr(env, "simplify") else form
                    if not _true_at(emitted, hints):
                        continue
                    if not all(executed_exactly(emitted, ranges, lang) for lang in langs):
                        _note(pruner, "form not executed exactly", str(emitted))
                        continue
                    if "cpp" in langs and may_raise(emitted, {}):
                        # a rejection's reason is found by running the Python code in order
                        # (torch_guards): a form must not raise where its original did not
                        _note(pruner, "form may raise", str(emitted))
                        continue
                    if may_not_finish(emitted, {}):  # nor run a power its original did not
                        _note(pruner, "form may not finish", str(emitted))
                        continue
                    form_text[i] = str(emitted)
                if form is not None:
                    forms[i] = form
    # every rewritten original must be defined wherever the pruned check accepts (a guard that
    # redundancy dropped needs no such check: its divisors' conditions went with it, §1.2)
    divs: dict[str, set[int]] = {}
    for i in list(forms):
        ds = _divisors(exprs[i])
        if ds is None:
            del forms[i]
            continue
        for d in ds:
            if not _nonzero_on_ranges(env, d):
                divs.setdefault(str(d), set()).add(i)
    if divs:
        emitted = [texts[i] for i in sorted(keep) if i not in forms] + \
                  [form_text[i] for i, f in sorted(forms.items()) if f is not True]
        ans = pruner.ask({**base, "guards": [{"id": f"k{j}", "expr": t} for j, t in enumerate(emitted)],
                          "exprs": [{"id": f"d{j}", "expr": f"Ne({d}, 0)"} for j, d in enumerate(divs)]}, "simplify")
        ok = _proven_true(ans)
        for j, (d, members) in enumerate(divs.items()):
            if f"d{j}" not in ok:
                _note(pruner, "divisor not proven non-zero", d)
                for i in members:
                    forms.pop(i, None)
    return forms, keep


def _nonzero_on_ranges(env: Any, d: Any) -> bool:
    """Whether PyTorch's own range analysis proves ``d != 0`` on the ranges alone (part 3 checks
    them), so symguard need not be asked: the test ``produce_guards`` itself uses to skip a guard."""
    import sympy

    try:
        return bool(env._maybe_evaluate_static(sympy.Ne(d, 0), axioms=()) is sympy.true)
    except Exception:  # noqa: BLE001 - undecided: ask symguard
        return False


def _note(pruner: _Asker, why: str, what: str) -> None:
    """Record in the current history entry why a form was not used (``forms_refused``)."""
    if pruner.history:
        pruner.history[-1].setdefault("forms_refused", []).append(f"{why}: {what[:200]}")


def _proven_true(ans: Mapping[str, Any]) -> set[str]:
    """The ids of a ``simplify`` answer whose expression is proven ``True`` under its context."""
    if ans.get("status") != "sat":
        return set()
    return {str(item.get("id")) for item in ans.get("exprs") or ()
            if item.get("proved") is True and item.get("form") == "True"}


def _true_at(form: Any, hints: Mapping[Any, Any]) -> bool:
    try:
        return bool(form.xreplace({s: hints[s] for s in form.free_symbols})) is True
    except (KeyError, TypeError, ZeroDivisionError):
        return False


def form_to_sympy(text: str, symbols: Mapping[str, Any]) -> Any:
    """A ``simplify`` form (docs/simplify.md: sympy syntax, Python's ``//`` and ``Mod``) as the
    sympy expression Dynamo prints: ``//`` is PyTorch's ``FloorDiv``, ``Mod`` its ``PythonMod``
    (Python's ``%`` in every printer, C++ included), ``CeilDiv(a, b)`` is ``-((-a)//b)``. ``True``
    for a form that is true; None for anything this reader does not know (the guard is then kept).

    PyTorch's division functions rewrite themselves as they are built, assuming positive
    divisors (``FloorDiv(FloorDiv(x, a), b)`` becomes ``FloorDiv(x, a*b)``, ``CeilDiv(a, b)``
    becomes ``FloorDiv(a + b - 1, b)``): they are built unevaluated here, so the printed code
    computes what the text says for divisors of any sign. ``ModularIndexing`` is read only with a
    positive literal modulus."""
    import ast

    import sympy
    from torch.utils._sympy import functions as tf

    def floordiv(a: Any, b: Any) -> Any:
        return tf.FloorDiv(a, b, evaluate=False)

    def mod(a: Any, b: Any) -> Any:
        return tf.PythonMod(a, b, evaluate=False)

    def ceildiv(a: Any, b: Any) -> Any:
        return -tf.FloorDiv(-a, b, evaluate=False)

    def modular_indexing(x: Any, d: Any, m: Any) -> Any:
        if not (m.is_Integer and m > 0):
            raise ValueError("ModularIndexing with a modulus that is not a positive literal")
        return mod(floordiv(x, d), m)

    calls: dict[str, Any] = {"Eq": sympy.Eq, "Ne": sympy.Ne, "Lt": sympy.Lt, "Le": sympy.Le, "Gt": sympy.Gt,
                             "Ge": sympy.Ge, "Mod": mod, "PythonMod": mod, "FloorDiv": floordiv,
                             "CeilDiv": ceildiv, "ModularIndexing": modular_indexing, "Max": tf.Max, "Min": tf.Min,
                             "And": sympy.And, "Or": sympy.Or, "Not": sympy.Not}
    cmp = {ast.Eq: sympy.Eq, ast.NotEq: sympy.Ne, ast.Lt: sympy.Lt, ast.LtE: sympy.Le, ast.Gt: sympy.Gt,
           ast.GtE: sympy.Ge}

    def conv(n: ast.AST) -> Any:
        if isinstance(n, ast.Constant) and type(n.value) is bool:
            return sympy.true if n.value else sympy.false
        if isinstance(n, ast.Constant) and type(n.value) is int:
            return sympy.Integer(n.value)
        if isinstance(n, ast.Name):
            if n.id in ("True", "False"):
                return sympy.true if n.id == "True" else sympy.false
            return symbols[n.id]
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return -conv(n.operand)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.Invert, ast.Not)):
            return sympy.Not(conv(n.operand))
        if isinstance(n, ast.BinOp):
            x, y = conv(n.left), conv(n.right)
            ops: dict[type, Any] = {ast.Add: lambda: x + y, ast.Sub: lambda: x - y, ast.Mult: lambda: x * y,
                                    ast.FloorDiv: lambda: floordiv(x, y), ast.Mod: lambda: mod(x, y),
                                    ast.BitAnd: lambda: sympy.And(x, y), ast.BitOr: lambda: sympy.Or(x, y)}
            if isinstance(n.op, ast.Pow) and y.is_Integer and y >= 0:
                return x**y
            if type(n.op) in ops:
                return ops[type(n.op)]()
        if isinstance(n, ast.BoolOp):
            return (sympy.And if isinstance(n.op, ast.And) else sympy.Or)(*(conv(v) for v in n.values))
        if isinstance(n, ast.Compare):
            parts, left = [], conv(n.left)
            for op, right_node in zip(n.ops, n.comparators):
                right = conv(right_node)
                parts.append(cmp[type(op)](left, right))
                left = right
            return sympy.And(*parts)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in calls and not n.keywords:
            return calls[n.func.id](*(conv(a) for a in n.args))
        raise ValueError(ast.dump(n)[:80])

    try:
        e = conv(ast.parse(text, mode="eval").body)
    except (SyntaxError, ValueError, KeyError, TypeError, ZeroDivisionError, RecursionError):
        return None
    if e is sympy.true:
        return True
    return e if isinstance(e, sympy.logic.boolalg.Boolean) and e is not sympy.false else None

