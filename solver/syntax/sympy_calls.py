"""The function table of the sympy reader: which names are calls, of what arity and argument kinds,
and which IR constructor builds each.

Both readers (``sympy_fast``, ``sympy_ast``) look names up here, so they accept the same calls and
build the same terms. Names outside the table are either PyTorch functions lowered one by one
(``sympy_ast._Parser.torch_call``, ``sympy_torch``), float functions (``sympy_float``), or refused.
"""

from __future__ import annotations

from collections.abc import Callable

from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term

# infinities and other constants: never symbols (``int_oo`` is PyTorch's integer infinity, printed
# by name in ranges and unbacked guards; read as a symbol it would be an unsound finite integer)
_UNSUPPORTED_NAMES = {"oo", "zoo", "nan", "pi", "E", "I", "inf", "Infinity", "int_oo", "IntInfinity",
                      "NegativeIntInfinity"}

# float-valued PyTorch functions (read by ``_Parser.real_``: under a rounding function, or compared
# with a literal, ``float_compare``)
_REAL_CALLS = {"IntTrueDiv", "FloatTrueDiv", "ToFloat", "Where", "Identity"}
# float -> int rounding functions (``_round_ratio`` gives each one's exact lowering)
_ROUNDING = {"CeilToInt", "FloorToInt", "TruncToInt", "RoundToInt"}
# float-valued functions with no exact integer meaning
_FLOAT_ONLY = {"FloatPow", "TruncToFloat", "RoundDecimal", "sqrt", "exp", "log", "sin", "cos", "tan"}

# a relation's name (any spelling) -> its operator, for ``_compare``
_RELATION_OPS = {"Eq": "==", "Ne": "!=", "Lt": "<", "Le": "<=", "Gt": ">", "Ge": ">=", "Equality": "==",
                 "Unequality": "!=", "StrictLessThan": "<", "LessThan": "<=", "StrictGreaterThan": ">",
                 "GreaterThan": ">="}


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
    "TruncMod": (2, "i", ir.mk_truncmod),
    "ModularIndexing": (3, "i", ir.mk_modular_indexing),
    "PowByNatural": (2, "pow", ir.mk_pow),
    "pow_by_natural": (2, "pow", ir.mk_pow),
    "Pow": (2, "pow", ir.mk_pow),
}
# short-circuit calls: each argument is evaluated only when the ones before it hold ("and") or
# fail ("or"); Implies(p, q) is ``not p or q``: q only when p holds
_LAZY_CALLS = {"And": "and", "Or": "or", "Implies": "and"}
_DIVIDING = {"Mod", "PythonMod", "FloorDiv", "CleanDiv", "CeilDiv", "TruncDiv", "TruncMod", "ModularIndexing"}
