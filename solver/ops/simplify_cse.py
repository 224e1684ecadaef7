"""Equal expressions, one form: the common-subexpression classes of ``simplify``.

Expressions whose values agree at every sample point are candidates; each is proven equal to
the cheapest of them (by structure, else after a refutation search by z3) and takes its form, the
choice by (cost, text) so it does not depend on the input order (``merge``). A registered
context keeps its classes across requests (``merge_classes``); after a deadline, ``unsettled``
says which rows a complete run might still have changed.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from typing import Any

from symguard.solver.ir import terms as ir
from symguard.solver.ir.pyeval import Value
from symguard.solver.ops.simplify_cost import _key
from symguard.solver.ops.simplify_evidence import _Evidence
from symguard.solver.ops.simplify_values import HEAD_POINTS

MAX_CSE_CLASS = 16  # expressions proven against one representative
# earlier forms a new expression is compared with (searched and proven) in a context's CSE
# classes: the cheapest first. Sample points of many like-hinted symbols (sizes all traced at
# 64) tell ``Mod(s_i, 2)`` from ``Mod(s_j, 2)`` only once a search has moved ``s_i``, and the points
# found are capped (``MAX_POINTS``): without a limit every new one searched against all sixteen
CLASS_TRIES = 2


def _class_order(e: tuple[ir.Term, str, dict[str, int]]) -> tuple[tuple[int, int], str]:
    """A CSE class's members in the order ``merge_classes`` tries them: cheapest, then by text."""
    return (_key(e[2]), e[1])


class _Cse(_Evidence):
    """The CSE merging of ``simplify._Run`` (a mixin: the state is set by its ``__init__``)."""

    classes: dict[tuple[Any, ...], _Classes] | None
    _fp_len: int | None

    def unsettled(self, terms: Sequence[ir.Term | None], classed: set[int], grouped: set[int]) -> list[int]:
        """After the deadline: the rows whose form a complete run might give otherwise — those not
        computed, and those ``merge`` had not finished with that it could still change. ``merge``
        changes a form only to an equal one's, proven, so a row no other expression agrees with at
        every sample point keeps its form (an expression not computed is compared by its input,
        which its form equals at every point). A constant is never merged. In a context's
        ``Engine`` a row ``merge_classes`` had not reached may still take an earlier form."""
        vals = self.values
        fps: list[tuple[Any, ...] | None] = []
        for q, t in zip(self.p.exprs, terms):
            if t is not None and t.kind in (ir.CONST, ir.BCONST):
                fps.append(None)
                continue
            u = q.term if t is None else t
            fps.append((u.is_bool, tuple(v if d else None for v, d in zip(vals.of(u), vals.of(q.domain)))))
        out = []
        for i, t in enumerate(terms):
            if t is None:
                out.append(i)
            elif fps[i] is None or (i in grouped and (self.classes is None or i in classed)):
                continue
            elif (self.classes is not None and i not in classed) or any(
                    j != i and f == fps[i] for j, f in enumerate(fps)):
                out.append(i)
        return out

    def merge(self, rows: list[dict[str, Any]], terms: Sequence[ir.Term | None], classed: set[int],
              grouped: set[int]) -> None:
        """Expressions proven equal under the context take one form: the cheapest (then the
        first by text) of those that agree at every sample point. A candidate is first looked
        for a counterexample by moving its own symbols (``refute``), then proven by z3. The rows
        ``merge_classes`` and the groups here are done with go into ``classed`` and ``grouped``
        (``unsettled``: what a deadline leaves open)."""
        live = [t for t in terms if t is not None and t.kind not in (ir.CONST, ir.BCONST)]
        if self.classes is not None and live:
            self.merge_classes(rows, terms, classed)
        if len(set(live)) < 2:
            grouped.update(range(len(terms)))
            return
        vals = self.values
        groups: dict[tuple[Any, ...], list[int]] = {}
        for i, (q, t) in enumerate(zip(self.p.exprs, terms)):
            if t is None or t.kind in (ir.CONST, ir.BCONST):
                continue
            dom = vals.of(q.domain)
            fp = tuple(v if d else None for v, d in zip(vals.of(t), dom))
            groups.setdefault((t.is_bool, fp), []).append(i)
        for members in groups.values():
            forms = {rows[i]["form"] for i in members}
            if len(forms) < 2:
                grouped.update(members)
                continue
            best = min(members, key=lambda i: (_key(rows[i]["cost"]), rows[i]["form"]))
            rep = terms[best]
            assert rep is not None
            for i in members[:MAX_CSE_CLASS]:
                t = terms[i]
                if i == best or rows[i]["form"] == rows[best]["form"] or t is None:
                    continue
                same, where = self.same(t, rep), self.p.exprs[i].domain
                if self.structurally_same(t, rep) or (self.linear(same) and not self.refute(same, where)
                                                      and self.prove(same, where)):
                    rows[i]["form"], rows[i]["cost"] = rows[best]["form"], rows[best]["cost"]
            grouped.update(members)

    def _fingerprint(self, t: ir.Term, domain: ir.Term, k: int | None = None) -> tuple[Any, ...]:
        """``t``'s class key: its values at the first ``k`` points (``_fp_len``; None outside its domain)."""
        vals = self.values
        k = self._fp_len if k is None else k
        assert k is not None
        got = vals.head(t, k)[:k]
        if domain is not ir.TRUE:  # (most domains are: every divisor is non-zero in the ranges)
            got = [v if d else None for v, d in zip(got, vals.head(domain, k)[:k])]
        return (t.is_bool, tuple(got))

    def merge_classes(self, rows: list[dict[str, Any]], terms: Sequence[ir.Term | None], classed: set[int]) -> None:
        """A context's CSE classes across its requests (``Engine``): each form returned before is
        kept under its values at the first sample points; a new expression that agrees with a
        cheaper earlier form there takes it when proven equal (as ``merge`` proves), then joins.

        The classes are found by the values at the first ``HEAD_POINTS`` points, then by all of
        the fingerprint's (``_Classes``): the first form of a prefix is kept as it came, so a
        form no earlier one agrees with at those points — a new shape's — pays no more values."""
        assert self.classes is not None
        vals = self.values
        if self._fp_len is None:
            self._fp_len = len(vals.points)
        k = self._fp_len
        h = min(k, HEAD_POINTS)
        for i, (q, t) in enumerate(zip(self.p.exprs, terms)):
            if t is None or t.kind in (ir.CONST, ir.BCONST) or not k:
                classed.add(i)
                continue
            if q.domain is ir.TRUE:
                whole, prefix = None, self._fingerprint(t, q.domain, h)
            else:  # (the domain's values too: computed once, for the whole fingerprint)
                whole = self._fingerprint(t, q.domain)
                prefix = (whole[0], whole[1][:h])
            bucket = self.classes.get(prefix)
            if bucket is None:  # a prefix no earlier form has: the form starts its class
                self.classes[prefix] = _Classes((t, q.domain, rows[i]["form"], rows[i]["cost"]))
                classed.add(i)
                continue
            known = bucket.known(self._fingerprint(t, q.domain) if whole is None else whole, self._fingerprint)
            mine = (_key(rows[i]["cost"]), rows[i]["form"])
            tries = 0
            for rep, form, c in known:  # (kept in order: cheapest, then first by text)
                if (_key(c), form) >= mine or tries >= CLASS_TRIES:
                    break
                if _differ(vals.head(t, HEAD_POINTS), vals.head(rep, HEAD_POINTS), vals.head(q.domain, HEAD_POINTS)) \
                        or _differ(vals.of(t), vals.of(rep), vals.of(q.domain)):
                    continue  # a point found since the class was made (a refutation) tells them apart
                tries += 1
                same, where = self.same(t, rep), q.domain
                if self.structurally_same(t, rep) or (self.linear(same) and not self.refute(same, where)
                                                      and self.prove(same, where)):
                    rows[i]["form"], rows[i]["cost"] = form, c
                    break
            if len(known) < MAX_CSE_CLASS and all(f != rows[i]["form"] for _, f, _ in known):
                bisect.insort(known, (t, rows[i]["form"], rows[i]["cost"]), key=_class_order)
            classed.add(i)


class _Classes:
    """The CSE classes (``_Run.merge_classes``) of one fingerprint prefix: lists of (term, form,
    cost) keyed by the whole fingerprint, and the prefix's first form (term, domain, form, cost)
    until a second arrives: only then is its whole fingerprint computed."""

    __slots__ = ("first", "keyed")

    def __init__(self, first: tuple[ir.Term, ir.Term, str, dict[str, int]]) -> None:
        self.keyed: dict[tuple[Any, ...], list[tuple[ir.Term, str, dict[str, int]]]] = {}
        self.first: tuple[ir.Term, ir.Term, str, dict[str, int]] | None = first

    def known(self, key: tuple[Any, ...], fingerprint: Callable[[ir.Term, ir.Term], tuple[Any, ...]]
              ) -> list[tuple[ir.Term, str, dict[str, int]]]:
        """The class of fingerprint ``key`` (made empty), the first form keyed first."""
        if self.first is not None:
            t, domain, form, c = self.first
            self.keyed[fingerprint(t, domain)] = [(t, form, c)]
            self.first = None
        return self.keyed.setdefault(key, [])

def _differ(a: list[Value | None], b: list[Value | None], domain: list[Value | None]) -> bool:
    """Two value vectors differ at a sample point of the domain (then the terms are not equal
    wherever the first is defined: ``same`` asks the second defined too)."""
    return any(d and x != y for x, y, d in zip(a, b, domain))

