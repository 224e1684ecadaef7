"""Canonical problems (docs/problem-format.md §3): the cache key and the map back to the caller's names and ids.

Every operation runs on the canonical problem and its result is mapped back, so a fresh answer
and a cached one are the same answer by construction. The canonical problem is invariant under

* renaming symbols: symbols are ordered by colour refinement (Weisfeiler-Lehman style: start
  from range and hint, refine by the name-free shapes of the formulas a symbol occurs in) and
  renamed ``v0, v1, …``; ties that refinement cannot break fall back to declaration order, which
  at worst costs a cache miss, never a wrong answer;
* order, duplication and ids of asserts, guards, queries and exprs: sorted by canonical text, deduped;
* spelling of one comparison: the IR already normalizes ``a < b``, ``b > a``, ``a + 1 <= b``.

Order is part of the meaning in two places and then kept: guards under ``prefer: "order"`` and
symbols under ``objective: "lex"``.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace

from symguard.solver.ir import terms as ir
from symguard.solver.ir.printer import to_text
from symguard.solver.ir.problem import Constraint, Problem, Query, Symbol
from symguard.solver.ir.terms import Term

_COMMUTATIVE = {ir.ADD, ir.MUL, ir.MAX, ir.MIN, ir.AND, ir.OR, ir.IFF}


@dataclass(frozen=True)
class Canonical:
    problem: Problem
    key: str
    names: dict[str, str]  # canonical symbol name -> caller's name
    asserts: list[list[str]]  # canonical index -> caller ids (first one names it)
    guards: list[int]  # caller guard index -> canonical guard index
    queries: list[int]  # caller query index -> canonical query index
    exprs: list[int] = field(default_factory=list)  # caller expr index -> canonical expr index


def substitute(t: Term, names: dict[str, str], memo: dict[Term, Term] | None = None) -> Term:
    """``t`` with symbols renamed, rebuilt through the constructors (so re-normalized). A
    ``memo`` shared between calls with the same ``names`` rebuilds each shared subterm once."""
    memo = {} if memo is None else memo
    if t in memo:
        return memo[t]
    stack: list[tuple[Term, bool]] = [(t, False)]
    while stack:  # children first, stopping at subterms already rebuilt
        n, ready = stack.pop()
        if n in memo:
            continue
        if ready:
            memo[n] = _rebuild(n, [memo[x] for x in n.args], names)
            continue
        stack.append((n, True))
        stack.extend((x, False) for x in reversed(n.args) if x not in memo)
    return memo[t]


def _rebuild(n: Term, a: list[Term], names: dict[str, str]) -> Term:
    k = n.kind
    if k == ir.SYM:
        return ir.mk_sym(names.get(n.value, n.value))
    if k == ir.BSYM:
        return ir.mk_bsym(names.get(n.value, n.value))
    if k in (ir.CONST, ir.BCONST):
        return n
    fast = _RENAMED.get(k)
    if fast is not None:
        return fast(n, a)
    return _BUILD[k](*a)


# Renaming symbols (a bijection) keeps every normalization a constructor made but the order of
# children, which follows the names' digests: a normalized node of these kinds with renamed
# children is the same node with its children re-sorted the constructor's way, built without
# reading it again (linear parts, gcds, flattening). ``tests/test_canonical.py`` checks it
# against the constructors. ITE (``ite_node`` builds unnormalized ones), EQ (its sign follows
# the first monomial's digest) and the Euclidean kinds go through the constructors.
def _renamed_add(n: Term, a: list[Term]) -> Term:
    const = [x for x in a if x.kind == ir.CONST]
    monos = [x for x in a if x.kind != ir.CONST]
    monos.sort(key=_monomial_key)
    return ir.interned(ir.ADD, (*monos, *const))


def _monomial_key(x: Term) -> bytes:
    """The digest ``from_linear`` sorts a sum's parts by: that of the monomial without its coefficient."""
    if x.kind == ir.MUL and x.args[0].kind == ir.CONST:
        rest = x.args[1:]
        return rest[0].skey if len(rest) == 1 else ir.interned(ir.MUL, rest).skey
    return x.skey


def _renamed_mul(n: Term, a: list[Term]) -> Term:
    if a[0].kind == ir.CONST:
        return ir.interned(ir.MUL, (a[0], *sorted(a[1:])))
    return ir.interned(ir.MUL, tuple(sorted(a)))


_RENAMED: dict[str, Callable[[Term, list[Term]], Term]] = {
    ir.ADD: _renamed_add,
    ir.MUL: _renamed_mul,
    ir.LE: lambda n, a: ir.interned(ir.LE, (a[0],)),
    ir.NOT: lambda n, a: ir.interned(ir.NOT, (a[0],)),
    ir.FLOORDIV: lambda n, a: ir.interned(n.kind, (a[0], a[1])),
    ir.MOD: lambda n, a: ir.interned(n.kind, (a[0], a[1])),
    **{k: (lambda n, a: ir.interned(n.kind, tuple(sorted(a)))) for k in (ir.AND, ir.OR, ir.MAX, ir.MIN, ir.IFF)},
}
_BUILD: dict[str, Callable[..., Term]] = {
    ir.ADD: ir.mk_add, ir.MUL: ir.mk_mul, ir.MAX: ir.mk_max, ir.MIN: ir.mk_min,
    ir.AND: ir.mk_and, ir.OR: ir.mk_or, ir.FLOORDIV: ir.mk_floordiv, ir.MOD: ir.mk_mod,
    ir.EDIV: ir.mk_ediv, ir.EMOD: ir.mk_emod, ir.ITE: ir.mk_ite, ir.ISQRT: ir.mk_isqrt, ir.BITFLOOR: ir.mk_bitfloor, ir.NOT: ir.mk_not,
    ir.IFF: ir.mk_iff,
    ir.LE: lambda e: ir.mk_le(e, ir.ZERO), ir.EQ: lambda e: ir.mk_eq(e, ir.ZERO),
}


# ------------------------------------------------------------------ colour refinement

def _h(*parts: object) -> str:
    return hashlib.blake2b(repr(parts).encode(), digest_size=10).hexdigest()


def _h_node(kind: str, value: object, kids: list[str]) -> str:
    """``_h(kind, value, kids)`` for a kind name and hex digests, the text of ``repr`` spelled
    out (no quotes to escape): one of these per node and round is most of colour refinement."""
    inner = "'" + "', '".join(kids) + "'" if kids else ""
    text = f"('{kind}', {value!r}, [{inner}])"
    return _blake2b(text.encode(), digest_size=10).hexdigest()


def _h_pair(a: str, b: str) -> str:
    """``_h(a, b)`` for two strings without quotes (a tag or ``"s"``, and a hex digest)."""
    return _blake2b(f"('{a}', '{b}')".encode(), digest_size=10).hexdigest()


_blake2b = hashlib.blake2b


def _shape(t: Term, colour: dict[str, str], memo: dict[Term, str] | None = None) -> str:
    """A digest of ``t`` with symbols replaced by colours, invariant under renaming. A ``memo``
    shared between calls with the same ``colour`` digests each shared subterm once."""
    memo = {} if memo is None else memo
    hit = memo.get(t)
    if hit is not None:
        return hit
    for n in ir.iter_unseen(t, memo):
        k = n.kind
        if k in (ir.SYM, ir.BSYM):
            memo[n] = _h_pair("s", colour[n.value])
        elif k == ir.EQ:  # e == 0 and -e == 0 are one equation: take the smaller of both signs
            coefs, c = ir.linear(n.args[0])
            pos = sorted((_shape(m, colour, memo), v) for m, v in coefs.items())
            neg = sorted((_shape(m, colour, memo), -v) for m, v in coefs.items())
            memo[n] = _h("eq", min((pos, c), (neg, -c)))
        else:
            kids = [memo[x] for x in n.args]
            memo[n] = _h_node(k, n.value if k in (ir.CONST, ir.BCONST) else None,
                              sorted(kids) if k in _COMMUTATIVE else kids)
    return memo[t]


def _shapes(order: list[Term], colour: dict[str, str]) -> dict[Term, str]:
    """``_shape`` of every node of ``order`` (children before parents), in one loop."""
    memo: dict[Term, str] = {}
    commutative = _COMMUTATIVE
    for n in order:
        k = n.kind
        if k in (ir.SYM, ir.BSYM):
            memo[n] = _h_pair("s", colour[n.value])
        elif k == ir.EQ:
            memo[n] = _shape(n, colour, memo)
        else:
            kids = [memo[x] for x in n.args]
            memo[n] = _h_node(k, n.value if k in (ir.CONST, ir.BCONST) else None,
                              sorted(kids) if k in commutative else kids)
    return memo


def _symbol_nodes(t: Term, memo: dict[Term, frozenset[Term]]) -> frozenset[Term]:
    """The symbol nodes below ``t``; ``memo`` shared between the terms of a problem (a domain
    repeats its expression's divisors)."""
    hit = memo.get(t)
    if hit is not None:
        return hit
    for n in ir.iter_unseen(t, memo):
        if not n.args:
            memo[n] = frozenset((n,)) if n.kind in (ir.SYM, ir.BSYM) else frozenset()
        elif len(n.args) == 1:
            memo[n] = memo[n.args[0]]
        else:
            memo[n] = frozenset().union(*(memo[a] for a in n.args))
    return memo[t]


def _symbol_order(p: Problem, terms: Sequence[tuple[str, Term]]) -> list[Symbol]:
    """The symbols by their colours under every entry but the queries, ties broken by their
    colours with the queries, then by position: queries only order what the rest leaves tied, so
    an operation that does not read them (``redundancy``, ``solve``) sees the same canonical
    problem, and gives the same answer, whatever queries a document carries."""
    rest = [(tag, t) for tag, t in terms if tag != "q"]
    first = _colours(p, rest)
    full = _colours(p, terms) if len(rest) < len(terms) else first
    index = {s.name: i for i, s in enumerate(p.symbols)}
    return sorted(p.symbols, key=lambda s: (first[s.name], full[s.name], index[s.name]))


def _colours(p: Problem, terms: Sequence[tuple[str, Term]]) -> dict[str, str]:
    """Each symbol's colour: its range and hint, refined by the shapes of the ``terms`` it occurs
    in until no class splits (at most four rounds)."""
    colour = {s.name: _h(s.is_bool, s.lo, s.hi, s.hint) for s in p.symbols}
    below: dict[Term, frozenset[Term]] = {}
    occurs = [(tag, t, Counter(n.value for n in _symbol_nodes(t, below))) for tag, t in terms]
    order = list(below)  # every node of the problem, children first (the DAG is the same every round)
    for _ in range(4):
        seen: dict[str, list[tuple[str, int]]] = {s: [] for s in colour}
        shapes = _shapes(order, colour)  # one round, one colouring: shared subterms digested once
        for tag, t, cnt in occurs:
            d = _h_pair(tag, shapes[t])
            for s, c in cnt.items():
                seen[s].append((d, c))
        new = {s: _h(colour[s], sorted(seen[s])) for s in colour}
        if len(set(new.values())) == len(set(colour.values())):
            colour = new
            break
        colour = new
    return colour


# ------------------------------------------------------------------ canonical problem

def canonicalize(p: Problem) -> Canonical:
    lex = p.options.objective == "lex"
    terms = [(tag, c.term) for tag, sec in (("a", p.asserts), ("g", p.guards))
             for c in sec if c.term is not None]
    terms += [("q", t) for q in p.queries for t in (q.term, q.domain)]
    terms += [("e", t) for q in p.exprs for t in (q.term, q.domain)]
    terms = list(dict.fromkeys(terms))  # a duplicated entry must not change the symbol order (docs/problem-format.md §3)
    order = list(p.symbols) if lex else _symbol_order(p, terms)
    to_canon = {s.name: f"v{i}" for i, s in enumerate(order)}
    names = {v: k for k, v in to_canon.items()}
    symbols = tuple(replace(s, name=to_canon[s.name]) for s in order)
    sub: dict[Term, Term] = {}  # renamed subterms, shared by every term of the problem
    printed: dict[Term, str] = {}  # and their texts

    def ctext(c: Constraint) -> tuple[str, Term | None]:
        if c.term is None:
            return "unsupported: " + c.text, None
        t = substitute(c.term, to_canon, sub)
        return to_text(t, printed), t

    # asserts: sorted, deduped
    groups: dict[str, tuple[Term | None, str, list[str]]] = {}
    for c in p.asserts:
        text, t = ctext(c)
        groups.setdefault(text, (t, c.skipped or "", []))[2].append(c.id)
    a_keys = sorted(groups)
    asserts = tuple(Constraint(f"a{i}", k, f"asserts[{i}]", groups[k][0], groups[k][1] or None)
                    for i, k in enumerate(a_keys))
    a_ids = [groups[k][2] for k in a_keys]

    # guards: deduped; sorted unless their order is part of the meaning
    g_texts = [ctext(c) for c in p.guards]
    g_first: dict[str, int] = {}
    for i, (text, _) in enumerate(g_texts):
        g_first.setdefault(text, i)
    uniq = list(g_first) if p.options.prefer == "order" else sorted(g_first)
    g_index = {text: j for j, text in enumerate(uniq)}
    guards = tuple(Constraint(f"g{j}", text, f"guards[{j}]", g_texts[g_first[text]][1],
                              p.guards[g_first[text]].skipped) for j, text in enumerate(uniq))
    g_map = [g_index[text] for text, _ in g_texts]

    def entries(sec: Sequence[Query], prefix: str, name: str) -> tuple[tuple[Query, ...], list[str], list[int]]:
        """Queries or exprs: renamed, deduped, sorted by canonical text (term | domain)."""
        texts = []
        for q in sec:
            t, d = substitute(q.term, to_canon, sub), substitute(q.domain, to_canon, sub)
            texts.append((to_text(t, printed) + " | " + to_text(d, printed), t, d))
        first: dict[str, tuple[Term, Term]] = {}
        for text, t, d in texts:
            first.setdefault(text, (t, d))
        uniq = sorted(first)
        index = {text: j for j, text in enumerate(uniq)}
        out = tuple(Query(f"{prefix}{j}", text, f"{name}[{j}]", *first[text]) for j, text in enumerate(uniq))
        return out, uniq, [index[text] for text, _, _ in texts]

    queries, q_uniq, q_map = entries(p.queries, "q", "queries")
    exprs, e_uniq, e_map = entries(p.exprs, "e", "exprs")
    inputs = tuple(sorted((name, tuple(substitute(d, to_canon, sub) for d in dims)) for name, dims in p.inputs))

    canon = Problem(symbols, asserts, guards, queries, inputs, p.options, p.syntax, (), exprs)
    doc = {
        "symbols": [[s.name, s.lo, s.hi, s.hint, s.is_bool] for s in symbols],
        "asserts": a_keys, "guards": uniq, "queries": q_uniq,
        "inputs": [[n, [to_text(d) for d in dims]] for n, dims in inputs],
        "options": asdict(p.options),
    }
    if e_uniq:  # only then: the keys of problems without exprs stay what they were
        doc["exprs"] = e_uniq
    key = hashlib.sha256(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    return Canonical(canon, key, names, a_ids, g_map, q_map, e_map)
