"""Guards comparing a float with a literal (HF relative-position code: ``k / q >= 1.0``,
``max(k / q, 1.0) > 1.5``), compiled stock and pruned, with Python and C++ guards: the pruned
guards accept exactly the probes the stock ones accept (ties where ``k / q`` rounds to 1.0 with
``k < q``, sizes past 2**53), and with Python guards none of them is opaque any more."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")

from test_torch_bridge_semantics import agree, big, cpp  # noqa: F401 - the fixture is used by name

pytestmark = [pytest.mark.slow, pytest.mark.torch]


def ratio(x: Any, y: Any) -> Any:
    q, k = x.shape[0], y.shape[0]
    r = x.narrow(0, 0, 1)
    if k / q >= 1.0:
        r = r + 1
    if k >= q:
        r = r + 2
    if (2 * k) / q >= 1.0:
        r = r + 4
    if torch.sym_max(k / q, 1.0) > 1.25:  # (builtin max adds an id guard on the builtins)
        r = r + 8
    return r


@pytest.mark.parametrize("example", [(6, 7), (4, 6)])
def test_float_guards_prune_as_python_runs_them(cpp: bool, example: tuple[int, int]) -> None:  # noqa: F811
    """At (6, 7) the guards are ``k / q >= 1.0`` and ``k >= q`` (among others): the first holds at
    q = 2**54, k = 2**54 - 1 (the quotient rounds to 1.0), the second does not, so neither may
    stand in for the other there."""
    pairs = [(4, 6), (6, 4), (4, 4), (4, 5), (6, 6), (2**60, 2**60), (2**54, 2**54 - 1), (2**54 - 1, 2**54), (2**53 + 1, 2**53),
             (2**60, 3 * 2**59), (2**62, 5 * 2**60 - 1), (3, 4)]
    history = agree(ratio, (big(example[0]), big(example[1])), [(big(q), big(k)) for q, k in pairs])
    if not cpp:
        assert all(not r.get("opaque") for r in history), history
        assert sum(r.get("kept", 0) for r in history) < sum(r.get("guards", 0) for r in history), history
