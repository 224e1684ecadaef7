"""The operations users call: solve, redundancy, evaluate, shrink, simplify, and the SMT-LIB script runner.

In: a canonical ``Problem`` and a deadline. Out: the JSON-ready result of each operation, every
model re-checked with Python integers (``selfcheck``) before it leaves. They combine
``solver.reason`` (no search) with ``solver.smt`` (search). ``OPERATIONS`` is the registry: what
each operation is lives in its own module (``operation.Operation``).
"""

from symguard.solver.ops.evaluate import OPERATION as _EVALUATE
from symguard.solver.ops.operation import Operation
from symguard.solver.ops.redundancy import OPERATION as _REDUNDANCY
from symguard.solver.ops.shrink import OPERATION as _SHRINK
from symguard.solver.ops.simplify import OPERATION as _SIMPLIFY
from symguard.solver.ops.solve import OPERATION as _SOLVE

OPERATIONS: dict[str, Operation] = {o.name: o for o in (_SOLVE, _REDUNDANCY, _EVALUATE, _SHRINK, _SIMPLIFY)}
OPS: tuple[str, ...] = tuple(OPERATIONS)

__all__ = ["OPERATIONS", "OPS", "Operation"]
