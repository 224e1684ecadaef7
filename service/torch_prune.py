"""The guard pruner: per ShapeEnv, which of Dynamo's part-2 shape guards must still be emitted.

``GuardPruner.kept_guards`` builds the problem (``torch_guards``), asks symguard's ``redundancy``
(through a client, else in-process with ``torch_cache``), keeps what the answer does not prove
droppable (``minimal_ids``) and swaps in cheaper forms (``torch_forms``); every decision and its
cost is recorded in ``history`` (``Record``). Any failure answers None: the stock guards.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .torch_bridge import Doc
from .torch_cache import cached_run
from .torch_forms import cheaper_forms
from .torch_guards import prefix_defines, shape_guard_problem


class Record(dict[str, Any]):
    """One compiled graph's entry in ``GuardPruner.history``: a plain dict (docs/torch_guards.md,
    "The pruner's record", lists its keys) whose ``repr`` is a one-line summary, not the whole
    problem and guard code it carries."""

    _SHOWN = ("guards", "kept", "passthrough", "opaque", "status", "seconds", "error")

    def __repr__(self) -> str:
        parts = []
        for k in self._SHOWN:
            v = self.get(k)
            if v is not None:
                parts.append(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v!r}")
        return f"Record({', '.join(parts)})"


class GuardPruner:
    """Decides, per ShapeEnv, which of part 2's guards Dynamo must still emit.

    ``client`` (a ``service.client.Client``) asks a running server; without one symguard runs
    in-process. ``timeout_ms`` bounds the redundancy question. Every decision is recorded in
    ``history`` (a list of dicts: ``guards`` asked about and ``kept`` of them, ``passthrough``
    (decided by the ranges or not asked about, handed on untouched), ``seconds`` with its ``prepare_seconds``
    and ``solve_seconds``, ``status``, ``error``), so a
    caller can report what was pruned and what it cost. Any failure returns ``None``: stock guards.
    """

    def __init__(self, *, client: Any = None, timeout_ms: int = 60_000, prune: bool = True,
                 forms: bool = True) -> None:
        self.client = client
        self.timeout_ms = timeout_ms
        self.prune = prune  # False: observe only (record what stock emits, change nothing)
        self.forms = forms  # False: no cheaper forms (one question per graph instead of up to three)
        self.history: list[dict[str, Any]] = []
        self.fast_token: Any = None  # torch_fast.enable()'s token while fast tracing is on

    def ask(self, doc: Doc, op: str = "redundancy") -> dict[str, Any]:
        """symguard's answer for one problem: through the client, else in-process with the
        process-local cache (``cached_run``)."""
        if self.client is not None:
            return dict(getattr(self.client, op)(doc))
        return cached_run(op, doc)

    def kept_guards(self, env: Any, placeholders: Any, langs: tuple[str, ...] = ("python",)) -> list[Any] | None:
        """The ShapeGuards of ``env.guards`` to emit, or None for all of them (stock).

        ``langs`` are the languages Dynamo will run the guards in (``python``, ``cpp``): a guard
        whose code there may not compute its exact value is kept and used as no premise.
        Some of them may be new ShapeGuards whose expression is a cheaper form of the kept guard
        (``cheaper_forms``), with the original's source location."""
        import time

        t0 = time.perf_counter()
        rec: dict[str, Any] = Record(guards=0, kept=None, seconds=0.0, status=None, error=None)
        self.history.append(rec)
        try:
            doc, groups, passthrough, exprs, rec["opaque"], raising = shape_guard_problem(env, placeholders, langs)
            rec["guards"], rec["passthrough"] = len(groups), len(passthrough)
            rec["problem"] = doc
            if not self.prune or not groups:
                return None
            doc["options"]["timeout_ms"] = self.timeout_ms
            t1 = time.perf_counter()
            rec["prepare_seconds"] = t1 - t0  # simplify/evaluate_static: cached, Dynamo reuses them
            res = self.ask(doc)
            rec["solve_seconds"] = time.perf_counter() - t1
            rec["status"], rec["cached"] = res.get("status"), res.get("cached")
            keep_ids = minimal_ids(res, [f"g{i}" for i in range(len(groups))])
            if keep_ids is None:
                return None
            keep = {i for i in range(len(groups)) if f"g{i}" in keep_ids}
            t2 = time.perf_counter()
            forms: dict[int, Any] = {}
            try:
                if self.forms:
                    forms, keep = cheaper_forms(self, env, doc, exprs, res, keep, langs)
            except Exception as e:  # noqa: BLE001 - no cheaper forms: the kept guards as they are
                rec["forms_error"] = f"{type(e).__name__}: {e}"
                forms = {}
            rec["forms_seconds"] = time.perf_counter() - t2
            rec["rewritten"] = sum(1 for f in forms.values() if f is not True)
            rec["proven_true"] = sum(1 for f in forms.values() if f is True)
            order = {id(g): k for k, g in enumerate(env.guards)}
            kept: list[tuple[int, Any]] = [(order.get(id(g), len(order)), g) for g in passthrough]
            for i, members in enumerate(groups):
                if i not in keep:
                    continue
                if i in forms:
                    if forms[i] is not True:
                        g = members[0]
                        kept.append((order.get(id(g), len(order)), type(g)(forms[i], g.sloc, g.size_oblivious)))
                else:
                    kept.extend((order.get(id(g), len(order)), g) for g in members)
            rec["kept"] = sum(1 for i in keep if forms.get(i) is not True)
            # a rejection's reason is found by running the guards' Python code in order: up to the
            # last guard that may raise and is emitted, or is dropped but may raise where stock's
            # walk reaches it (there stock's walk raises and pruned's would not), every guard stock
            # has comes first, verbatim, so the walk raises exactly where stock's does
            # (torch_guards.shape_guard_problem)
            last = max((k for k, g in kept if id(g) in raising), default=-1)
            for k in range(len(env.guards) - 1, last, -1):
                if id(env.guards[k]) in raising and not self._never_raises(env, placeholders, k, rec):
                    last = k
                    break
            if last >= 0:
                rec["restored"] = last + 1 - sum(1 for k, g in kept if k <= last and g is env.guards[k])
                kept = [(k, g) for k, g in enumerate(env.guards[:last + 1])] + [kg for kg in kept if kg[0] > last]
            return [g for _, g in sorted(kept, key=lambda kg: kg[0])]
        except Exception as e:  # noqa: BLE001 - any failure: the stock guards, never a failed compile
            rec["error"] = f"{type(e).__name__}: {e}"
            return None
        finally:
            rec["seconds"] = time.perf_counter() - t0

    def _never_raises(self, env: Any, placeholders: Any, index: int, rec: dict[str, Any]) -> bool:
        """Whether dropped guard ``env.guards[index]`` is proven never to raise where stock's reason
        walk reaches it (every guard before it holds: ``torch_guards.prefix_defines``). Any doubt
        answers False: the guard goes back in place, with its prefix."""
        doc = prefix_defines(env, placeholders, index)
        if doc is None:
            return False
        doc["options"]["timeout_ms"] = self.timeout_ms
        ans = self.ask(doc)
        rec["raise_questions"] = rec.get("raise_questions", 0) + 1
        if ans.get("status") != "sat" or not isinstance(ans.get("guards"), list):
            return False
        verdicts = {g.get("id"): g.get("verdict") for g in ans["guards"] if isinstance(g, Mapping)}
        return all(verdicts.get(g["id"]) == "always_true" for g in doc["guards"])


def minimal_ids(res: Mapping[str, Any], ids: list[str]) -> set[str] | None:
    """The ids to keep from a redundancy answer, or None when it cannot be trusted as a whole.

    Only ``always_true`` and ``redundant`` guards are dropped; anything else (``required``,
    ``unknown``, ``unsupported``, a verdict this code does not know, an id the answer does not
    mention) is kept. A status other than ``sat`` keeps everything.
    """
    if res.get("status") != "sat" or not isinstance(res.get("guards"), list):
        return None
    droppable = {g.get("id") for g in res["guards"]
                 if isinstance(g, Mapping) and g.get("verdict") in ("always_true", "redundant")}
    minimal = set(res.get("minimal") or ())
    if droppable & minimal:
        return None  # contradictory answer: trust none of it
    return {i for i in ids if i not in droppable}

