"""Equalities between sizes: classes with the guards that justify them (duck sizing, ``s = 8``).

``Eq(s0, s1)`` and ``Eq(s0, 64)`` are what traces emit for duck-sized and specialized dims. They
form a graph whose nodes are symbols and literals and whose edges carry the index of the guard
(or ``None`` for an assert) that states them. Two nodes in one component are equal at every point
where the edges' guards hold (transitivity), and a path between them names guards that imply it:

* ``path(a, b)``: the guards on a shortest path from ``a`` to ``b`` (breadth-first, neighbours
  in a fixed order: deterministic), or None when they are not connected;
* ``substitution()``: every symbol of a component mapped to one representative (its literal if
  the component has one, else its smallest name), with the guards of the path that justify it.

Substituting, then deciding, is sound: if ``E`` (the path guards) holds, ``t[s := rep]`` and ``t``
have equal values, so a proof of ``t[s := rep]`` from facts ``F`` is a proof of ``t`` from
``E`` and ``F``. A component with two different literals has no point: ``contradiction``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from symguard.solver.ir import terms as ir
from symguard.solver.ir.terms import Term

Node = str | int  # a symbol's name or a literal


def eq_pair(t: Term | None) -> tuple[str, Node] | None:
    """``(a, b)`` when ``t`` is ``Eq(a, b)`` for a symbol ``a`` and a symbol or literal ``b``."""
    if t is None or t.kind != ir.EQ:
        return None
    coefs, k = ir.linear(t.args[0])
    items = sorted(coefs.items(), key=lambda mc: mc[0].skey)
    if len(items) == 1:
        (m, c), = items
        if m.kind == ir.SYM and k % c == 0:
            return m.value, -k // c  # c*m + k == 0
        return None
    if len(items) == 2 and k == 0:
        (m1, c1), (m2, c2) = items
        if m1.kind == ir.SYM and m2.kind == ir.SYM and c1 == -c2:
            return m1.value, m2.value
    return None


class Graph:
    """Equalities as an undirected multigraph; edges labelled with their source."""

    def __init__(self, edges: Iterable[tuple[str, Node, int | None]] = ()) -> None:
        self.adj: dict[Node, list[tuple[Node, int | None]]] = {}
        for a, b, src in edges:
            self.add(a, b, src)

    def add(self, a: str, b: Node, src: int | None) -> None:
        self.adj.setdefault(a, []).append((b, src))
        self.adj.setdefault(b, []).append((a, src))

    def _bfs(self, start: Node) -> dict[Node, tuple[Node | None, int | None]]:
        parent: dict[Node, tuple[Node | None, int | None]] = {start: (None, None)}
        todo = deque([start])
        while todo:
            x = todo.popleft()
            for y, src in sorted(self.adj.get(x, ()), key=_edge_key):
                if y not in parent:
                    parent[y] = (x, src)
                    todo.append(y)
        return parent

    def path(self, a: Node, b: Node) -> list[int] | None:
        """Guard indices on a shortest path from ``a`` to ``b`` (``[]``: equal nodes, or a path of
        asserts), None when not connected."""
        if a == b:
            return []
        parent = self._bfs(a)
        if b not in parent:
            return None
        return sorted(_sources(parent, b, a))

    def substitution(self) -> tuple[dict[str, tuple[Node, frozenset[int]]], list[int] | None]:
        """``{symbol: (representative, guards)}`` for every symbol in a component of two or more
        nodes, and the guards of a contradiction (two literals connected), or None."""
        out: dict[str, tuple[Node, frozenset[int]]] = {}
        done: set[Node] = set()
        for start in sorted(self.adj, key=_node_key):
            if start in done:
                continue
            comp = self._bfs(start)
            done |= set(comp)
            lits = sorted((x for x in comp if isinstance(x, int)), key=_node_key)
            if len(lits) > 1:
                return {}, self.path(lits[0], lits[1])
            rep = lits[0] if lits else min((x for x in comp), key=_node_key)
            tree = self._bfs(rep)
            for x in comp:
                if isinstance(x, str) and x != rep:
                    out[x] = (rep, frozenset(_sources(tree, x, rep)))
        return out, None


def _sources(tree: dict[Node, tuple[Node | None, int | None]], x: Node, root: Node) -> set[int]:
    """The guards on the BFS-tree path from ``x`` up to ``root`` (assert edges carry none)."""
    out: set[int] = set()
    y: Node | None = x
    while y is not None and y != root:
        y, src = tree[y]
        if src is not None:
            out.add(src)
    return out


def _node_key(x: Node) -> tuple[int, str]:
    return (0, str(x)) if isinstance(x, int) else (1, x)


def _edge_key(e: tuple[Node, int | None]) -> tuple[tuple[int, str], int]:
    return (_node_key(e[0]), -1 if e[1] is None else e[1])
