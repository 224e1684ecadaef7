"""Contexts: a problem read once, then asked many small questions (docs/contexts.md).

A compiler's ShapeEnv grows guard by guard while its code asks small questions against it. With
the stateless API every question resends, re-parses and re-canonicalizes the whole problem.
A ``Context`` holds the parsed problem instead; ``run(op, delta)`` answers for the context plus a
delta (more ``symbols``, ``asserts``, ``guards`` and the question's ``queries``/``exprs``) and
``extend(delta)`` gives a new, equally immutable context::

    ctx = Context({"symbols": {"s0": {"min": 2}}, "guards": ["Eq(Mod(s0, 16), 0)"]})
    ctx.run("evaluate", {"queries": ["Eq(Mod(s0, 8), 0)"]})["queries"][0]["value"]   # True
    ctx2 = ctx.extend({"guards": ["s0 >= 64"]})                                      # a new key

The answer is the stateless answer for the merged document — the context's lists followed by
the delta's, the delta's options over the context's — except two fields:

* ``key`` is derived, not recomputed: ``sha256(context key, canonical delta)``. Canonicalizing a
  400-guard merged problem costs milliseconds of Python per question, the very cost a context
  exists to avoid. The derived key is content-addressed (the same context and delta give the
  same key on every machine) but not invariant under renaming the delta's symbols; at worst that
  costs a cache miss. A registered context's own key is its canonical key (docs/problem-format.md §3).
* witnesses (``when_true``/``when_false`` of a ``depends`` answer, models) are verified points
  of the merged problem, but may differ from the stateless run's: the z3 session is shared by
  every question of a context and its descendants, so its models depend on what it was asked.
  Verdicts (values, bounds, statuses) are the same.

How a question is answered, cheapest first (``evaluate`` with a delta of only queries, the
compiler's case; everything else runs the stateless engine on the merged problem, which parses
only the delta):

1. the answers already learned for this context (a repeated question is a dict lookup);
2. facts known for the context: intervals, single-term facts of its asserts and guards and the
   canonical rewriting of ``solver.reason`` decide most compiler questions with no search. The
   context must be satisfiable first (every answer of an unsat problem is vacuous): its hints
   satisfying every range, assert and guard prove it without a solver, as they do for a trace;
3. one incremental z3 session, shared by a context and the contexts extended from it while the
   symbols stay the same: each assert and guard is a selector literal, so a follow-up question
   costs a check, never a rebuild.

Step 2 also runs in another process: ``Context.facts_payload`` gives a context's facts as plain
data (its conditions as a term table, no z3 object), ``FactsView`` rebuilds them there and
answers an ``evaluate`` question the facts decide with the very document the context would give
(the HTTP server does so without a hop to the worker that holds the context; docs/contexts.md).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from typing import Any

from symguard.solver import api
from symguard.solver.errors import InvalidProblemError
from symguard.solver.ir import terms as ir
from symguard.solver.ir.canonical import Canonical
from symguard.solver.ir.printer import to_text
from symguard.solver.ir.problem import Constraint, Options, Problem, Query, Symbol, complete_symbols
from symguard.solver.ir.pyeval import holds
from symguard.solver.ops import evaluate as ev
from symguard.solver.ops import simplify as simplify_op
from symguard.solver.ops.operation import Result, settled
from symguard.solver.reason import intervals
from symguard.solver.reason.facts import Env
from symguard.solver.reason.rewrite import Rewriter
from symguard.solver.smt.checker import SAT, UNSAT, Deadline, OutOfTime
from symguard.solver.smt.optimize import Session, is_linear, problem_terms
from symguard.solver.syntax.document import load_problem

DELTA_KEYS = frozenset({"symbols", "asserts", "guards", "queries", "exprs", "inputs", "options"})
CONTEXT_KEYS = frozenset({"symbols", "asserts", "guards", "inputs", "options", "syntax"})


class Context:
    """An immutable, parsed problem (symbols, asserts, guards, options) to ask questions against.

    ``key`` names it: the canonical key (docs/problem-format.md §3) for a context made from a document, the derived
    key (module docstring) for one made by ``extend``. ``document`` is the JSON that rebuilds it
    anywhere (a worker without its session, another replica). What it learns while answering —
    facts, a z3 session, answers — is a cache, never part of its meaning.
    """

    def __init__(self, problem: Mapping[str, Any], *, key: str | None = None) -> None:
        doc = _context_document(problem)
        with api._SERIAL:
            p = load_problem(doc)
        self._doc = _Doc(None, doc, doc.get("symbols") or {}, doc.get("options") or {})
        self.problem = p
        self.key = key if key is not None else root_key(doc, api.prepare(p)[1].key)
        self._state = _State(p)

    @classmethod
    def _child(cls, parent: Context, doc: _Doc, problem: Problem, key: str) -> Context:
        self = cls.__new__(cls)
        self._doc, self.problem, self.key = doc, problem, key
        self._state = parent._state.child(problem)
        pf, p = parent._frame, problem  # the parent's frame plus the delta's ids (a set union at C speed)
        new = (*p.asserts[pf.n_asserts:], *p.guards[pf.n_guards:])
        self.__dict__["_frame"] = _Frame(key, p.symbols, len(doc.symbols), p.options, dict(doc.options), p.syntax,
                                         p.warnings, pf.ids.union([c.id for c in new]), len(p.asserts), len(p.guards))
        return self

    @property
    def document(self) -> dict[str, Any]:
        """The JSON that rebuilds this context from scratch (built from its chain of deltas on
        each call: an extension holds only its own delta, ``_Doc``)."""
        return self._doc.whole()

    @property
    def delta(self) -> dict[str, Any] | None:
        """What this context adds to the one it extends, ids assigned (None for a registered one):
        the parent's document merged with it (``merge_documents``) is this context's document."""
        return None if self._doc.parent is None else dict(self._doc.part)

    @cached_property
    def _frame(self) -> _Frame:
        p, doc = self.problem, self._doc
        return _Frame(self.key, p.symbols, len(doc.symbols), p.options, dict(doc.options),
                      p.syntax, p.warnings, frozenset(c.id for c in (*p.asserts, *p.guards)),
                      len(p.asserts), len(p.guards))

    # -------------------------------------------------------------- public
    def run(self, op: str, delta: Mapping[str, Any] | None = None, *, spent_ms: float = 0.0) -> Result:
        """The result of ``op`` for this context plus ``delta`` (module docstring). ``spent_ms``:
        time the request already spent before this call (a server's queue): the deadline counts
        from the request's start, as the stateless entry points count it."""
        t0, started = time.perf_counter(), Deadline.clock() - max(0.0, spent_ms) / 1000
        api._operation(op)
        with api._SERIAL:  # one call at a time per process, as every entry point (solver.api)
            merged, key, fast = self._merge(delta or {})
            out = None
            if fast and op == "evaluate":
                try:
                    out = self._state.evaluate(merged, key, started)
                except OutOfTime:  # the outer limit of the whole request: compute answers unknown
                    out = None
            elif fast and op == "simplify":
                out = self._state.simplify(merged, key, started)
            if out is None:  # one request, one outer limit: the engine's clock started with ours
                p, canon = merged, api.prepare(merged)[1]
                res = api.compute(op, canon.problem, started=started)
                out = api.finish(op, res, p, canon, cached=False, elapsed_ms=0)
                out["key"] = key
        out["elapsed_ms"] = round((time.perf_counter() - t0) * 1000, 3)
        return out

    def extend(self, delta: Mapping[str, Any]) -> Context:
        """A new context: this one plus the delta's symbols, asserts and guards (and options)."""
        if not isinstance(delta, Mapping):
            raise InvalidProblemError("a delta must be a JSON object", where="$")
        bad = sorted(set(delta) & {"queries", "exprs"})
        if bad:
            raise InvalidProblemError(f"a context holds no {bad[0]}: send them with the question",
                                      where=bad[0])
        if not any(delta.get(k) for k in delta):
            with api._SERIAL:
                _parse_delta(self._frame, delta)  # nothing to add, but a wrong type or key is still refused
            return self
        with api._SERIAL:
            merged, key, _ = self._merge(delta)
            return Context._child(self, self._doc.extended(self.problem, delta), merged, key)

    def nbytes(self) -> int:
        """An over-estimate of the memory this context holds alone, for a byte-bounded cache: its
        problem's slots, its delta, its facts, learned answers and models. Its z3 session is
        shared by a family: ``session_nbytes`` weighs it, once per family."""
        st, p = self._state, self.problem
        n = 2048 + 64 * (len(p.asserts) + len(p.guards) + len(p.symbols)) + 4 * self._doc.nbytes
        if st._facts is not None:
            n += _weight(st._facts, 0)
        return n + 512 * len(st.answers) + 64 * len(p.symbols) * len(st.models)

    def session_nbytes(self) -> tuple[int, int]:
        """(identity of this context's z3 session, its weight in bytes), (0, 0) without one. A
        session owns a z3 context: about 17-19 MiB of resident memory with its first checks
        (measured with 10 live in a worker), plus what every literal it holds costs."""
        sv = self._state.solver
        return (0, 0) if sv is None else (id(sv), SESSION_BYTES + 2048 * sv.session.size())

    def known_sat(self) -> bool:
        """Whether this context is known satisfiable without asking z3 (its hints hold, or z3 said so)."""
        return self._state.known_sat()

    def facts_payload(self, parent: Context | None = None) -> FactsPayload:
        """This context's facts as plain data for another process (``FactsView``): every assert and
        guard, or with ``parent`` (the context this one extends) only those it adds."""
        p, f = self.problem, self._frame
        if parent is None:
            new = [*p.asserts, *p.guards]
        else:  # the receiver has the parent's frame: send what changed (FactsPayload)
            q = parent.problem
            new = [*p.asserts[len(q.asserts):], *p.guards[len(q.guards):]]
            f = replace(f, symbols=() if p.symbols == q.symbols else f.symbols, ids=frozenset(c.id for c in new))
        table, roots = _term_table([c.term for c in new if c.term is not None])
        return FactsPayload(f, table, roots, None if parent is None else parent.key, self.known_sat())

    # -------------------------------------------------------------- merging
    def _merge(self, delta: Mapping[str, Any]) -> tuple[Problem, str, bool]:
        """(merged problem, derived key, whether the fast path applies: only queries/exprs new)."""
        ctx, f = self.problem, self._frame
        d, declared, same_symbols = _read_delta(f, delta)
        if same_symbols:
            symbols = ctx.symbols
        else:  # as load_problem would order them for the merged document
            ours = ctx.symbols[:f.n_declared]
            if d.options.default_min != f.options.default_min:  # an omitted min follows the merged option
                ours = load_problem({"symbols": dict(self._doc.symbols),
                                     "options": {"default_min": d.options.default_min}}).symbols
            decl: dict[str, Symbol] = {s.name: s for s in ours}
            decl.update({s.name: s for s in d.symbols[:len(declared)]})
            terms = [c.term for c in (*ctx.asserts, *d.asserts, *ctx.guards, *d.guards) if c.term is not None]
            terms += [t for q in (*d.queries, *d.exprs) for t in (q.term, q.domain)]
            terms += [t for _, dims in (d.inputs or ctx.inputs) for t in dims]
            symbols = complete_symbols(list(decl.values()), terms, d.options)
        merged = Problem(symbols, ctx.asserts + d.asserts, ctx.guards + d.guards, d.queries,
                         d.inputs or ctx.inputs, d.options, ctx.syntax, ctx.warnings + d.warnings, d.exprs)
        return merged, derived_key(self.key, d, declared), _only_questions(f, d, same_symbols)


@dataclass(frozen=True)
class _Frame:
    """What reading a delta needs of its context, and no terms: plain data, so that the server
    process holds it too (``FactsView``)."""

    key: str
    symbols: tuple[Symbol, ...]
    n_declared: int  # the first n symbols are declared in the document, the rest only used
    options: Options
    options_doc: dict[str, Any]  # the document's options: a delta's are merged over these
    syntax: str
    warnings: tuple[str, ...]
    ids: frozenset[str]  # of the asserts and guards: a delta may not reuse them
    n_asserts: int
    n_guards: int

    @cached_property
    def names(self) -> frozenset[str]:
        return frozenset(s.name for s in self.symbols)

    @cached_property
    def undeclared(self) -> frozenset[str]:
        return frozenset(s.name for s in self.symbols[self.n_declared:])

    @cached_property
    def identity(self) -> dict[str, str]:
        return {s.name: s.name for s in self.symbols}

    def __getstate__(self) -> dict[str, Any]:
        derived = ("names", "undeclared", "identity")  # made again where needed: not sent
        return {k: v for k, v in self.__dict__.items() if k not in derived}


def _read_delta(f: _Frame, delta: Mapping[str, Any]) -> tuple[Problem, dict[str, Any], bool]:
    """(the parsed delta, its declared symbols, whether the merged problem has the context's symbols)."""
    d = _parse_delta(f, delta)
    new_terms = [c.term for c in (*d.asserts, *d.guards) if c.term is not None]
    new_terms += [t for q in (*d.queries, *d.exprs) for t in (q.term, q.domain)]
    new_terms += [t for _, dims in d.inputs for t in dims]
    used = {n.value for t in new_terms for n in ir.iter_dag(t) if n.kind in (ir.SYM, ir.BSYM)}
    declared = dict(delta.get("symbols") or {})
    undeclared = f.undeclared
    # a changed default_min changes the range of every symbol declared without a min or not at all
    same_symbols = used <= f.names and not declared and d.options.default_min == f.options.default_min and not (
        undeclared and any(n.value in undeclared for c in d.asserts if c.term is not None
                           for n in ir.iter_dag(c.term) if n.kind in (ir.SYM, ir.BSYM)))
    return d, declared, same_symbols


def _only_questions(f: _Frame, d: Problem, same_symbols: bool) -> bool:
    """Whether a delta only asks (queries/exprs): then the context's facts and session answer it."""
    return same_symbols and not d.asserts and not d.guards and d.options == f.options and not d.inputs


def root_key(doc: Mapping[str, Any], canonical_key: str) -> str:
    """The key of a registered context: its canonical key and its document exactly.

    The canonical key alone is invariant under renaming symbols and ids, so two clients whose
    problems differ only in names would share a key and the server would hold one of their
    documents under it: ``s1 >= 3`` asked of ``{s0 >= 8, s1 >= 2}`` would be answered against
    ``{s1 >= 8, s0 >= 2}``. A key names one document; two spellings of one problem cost a cache
    miss at worst."""
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(f"{canonical_key}\0{text}".encode()).hexdigest()


def derived_key(key: str, d: Problem, declared: Mapping[str, Any]) -> str:
    """The key of context ``key`` plus delta ``d``: sha256 of the context key and the delta's
    asserts and guards as (id, canonical text), its queries and expressions as canonical text (their
    ids name rows, not meaning), sorted and deduplicated, its declarations and the merged options.
    Ids are part of a constraint's meaning to its caller (``minimal``, ``implied_by`` name them),
    so two deltas that swap ids get two keys. Guards keep their order when ``prefer: "order"``
    makes it part of the meaning."""

    def ctext(c: Constraint) -> str:
        return c.id + " := " + (to_text(c.term) if c.term is not None else "unsupported: " + c.text)

    def qtext(q: Query) -> str:
        return to_text(q.term) + " | " + to_text(q.domain)

    guards = [ctext(c) for c in d.guards]
    doc = {
        "context": key,
        "symbols": sorted([k, json.dumps(v, sort_keys=True)] for k, v in declared.items()),
        "asserts": sorted({ctext(c) for c in d.asserts}),
        "guards": list(dict.fromkeys(guards)) if d.options.prefer == "order" else sorted(set(guards)),
        "queries": sorted({qtext(q) for q in d.queries}),
        "exprs": sorted({qtext(q) for q in d.exprs}),
        "inputs": [[n, [to_text(t) for t in dims]] for n, dims in d.inputs],
        "options": {x.name: getattr(d.options, x.name) for x in fields(d.options)},  # asdict, without deep copies
    }
    return hashlib.sha256(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


# ------------------------------------------------------------------ documents

def _context_document(problem: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(problem, Mapping):
        raise InvalidProblemError("a context must be a JSON object", where="$")
    api.check_document(problem)  # as the stateless edge: lone surrogates, huge integers, deep nesting
    bad = sorted(set(problem) & {"queries", "exprs"})
    if bad and problem.get(bad[0]):
        raise InvalidProblemError(f"a context holds no {bad[0]}: send them with each question", where=bad[0])
    return {k: v for k, v in problem.items() if k in CONTEXT_KEYS}


def _with_ids(entries: Any, prefix: str, offset: int) -> Any:
    """A delta's string entries with the default ids they have in the merged document."""
    if not isinstance(entries, list):
        return entries
    return [{"id": f"{prefix}{offset + i}", "expr": e} if isinstance(e, str) else e for i, e in enumerate(entries)]


def _parse_delta(f: _Frame, delta: Mapping[str, Any]) -> Problem:
    """Only the delta's text is parsed; ids and options are those of the merged document."""
    if not isinstance(delta, Mapping):
        raise InvalidProblemError("a delta must be a JSON object", where="$")
    api.check_document(delta)  # every delta (a question, an extension, the server's view) passes here
    unknown = sorted(set(delta) - DELTA_KEYS - {"context"})
    if unknown:
        raise InvalidProblemError(f"unknown field {unknown[0]!r} in a context's delta (expected symbols, "
                                  "asserts, guards, queries, exprs, inputs, options)", where=unknown[0])
    opts = delta.get("options")
    if opts is not None and not isinstance(opts, Mapping):
        raise InvalidProblemError("options must be an object", where="options")
    doc = {
        "symbols": delta.get("symbols"),
        "asserts": _with_ids(delta.get("asserts"), "a", f.n_asserts),
        "guards": _with_ids(delta.get("guards"), "g", f.n_guards),
        "queries": delta.get("queries"), "exprs": delta.get("exprs"), "inputs": delta.get("inputs"),
        "options": {**f.options_doc, **(opts or {})},
        "syntax": f.syntax,
    }
    d = load_problem({k: v for k, v in doc.items() if v is not None})
    entries: list[Constraint | Query] = [*d.asserts, *d.guards, *d.queries, *d.exprs]
    for c in entries:
        if c.id in f.ids:
            raise InvalidProblemError(f"duplicate id {c.id!r} (the context already uses it)", where=c.where)
    return d


def _normal_delta(ctx: Problem, delta: Mapping[str, Any]) -> dict[str, Any]:
    """A delta as the extension keeps it: only what it adds, string entries with the ids they
    have in the merged document (so that merging needs no counting)."""
    out: dict[str, Any] = {}
    for sec, prefix, n in (("asserts", "a", len(ctx.asserts)), ("guards", "g", len(ctx.guards))):
        if delta.get(sec):
            out[sec] = _with_ids(list(delta[sec]), prefix, n)
    for k in ("symbols", "inputs", "options"):
        if delta.get(k):
            out[k] = delta[k]
    return out


def merge_documents(doc: Mapping[str, Any], deltas: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A context's document from its root's and its chain of (normalized, ``Context.delta``)
    deltas, in one pass: each list is copied once however long the chain."""
    out = dict(doc)
    lists = {sec: list(doc.get(sec) or []) for sec in ("asserts", "guards")}
    for d in deltas:
        if d.get("symbols"):
            out["symbols"] = {**(out.get("symbols") or {}), **d["symbols"]}
        for sec, entries in lists.items():
            entries.extend(d.get(sec) or ())
        if d.get("inputs"):
            out["inputs"] = d["inputs"]
        if d.get("options"):
            out["options"] = {**(out.get("options") or {}), **d["options"]}
    for sec, entries in lists.items():
        if entries or sec in out:
            out[sec] = entries
    return out


@dataclass(frozen=True, eq=False)
class _Doc:
    """A context's document as a chain: the root's whole document, then each extension's delta.
    An extension costs its delta (and the declarations and options it changes), never a copy of
    the lists it extends; ``whole`` builds the document when one is needed (a worker without
    the session, a stored checkpoint). ``symbols``/``options``: the merged declarations and
    options, shared with the parent unless the delta changes them."""

    parent: _Doc | None
    part: Mapping[str, Any]
    symbols: Mapping[str, Any]
    options: Mapping[str, Any]

    def extended(self, ctx: Problem, delta: Mapping[str, Any]) -> _Doc:
        part = _normal_delta(ctx, delta)
        symbols = {**self.symbols, **part["symbols"]} if "symbols" in part else self.symbols
        options = {**self.options, **part["options"]} if "options" in part else self.options
        return _Doc(self, part, symbols, options)

    @cached_property
    def nbytes(self) -> int:
        """The JSON size of ``part`` (measured once)."""
        return len(json.dumps(self.part, separators=(",", ":")))

    def whole(self) -> dict[str, Any]:
        chain: list[Mapping[str, Any]] = []
        node: _Doc | None = self
        while node is not None and node.parent is not None:
            chain.append(node.part)
            node = node.parent
        assert node is not None
        return merge_documents(node.part, chain[::-1])


# ------------------------------------------------------------------ what a context learns

@dataclass
class _Solver:
    """One z3 session over one tuple of symbols, shared by a family of contexts: each context
    assumes its own asserts' and guards' selector literals, so they never see each other's."""

    symbols: tuple[Symbol, ...]
    session: Session
    lock: threading.Lock = field(default_factory=threading.Lock)


class _Table(dict):  # type: ignore[type-arg]
    """A fact table (``Env.bounds``, ``excluded``, ``atoms``: term -> list) sharing its lists with
    the table it was made from: an extension's facts cost a copy of the dict's slots (C speed),
    not of every list. ``Env`` only grows a list through ``setdefault(k, []).append``, so
    ``setdefault`` hands out a private copy of a shared list first; ``over`` marks every list
    of its base shared again (the base may not append to what its child now reads)."""

    __slots__ = ("_own",)

    def __init__(self, base: Mapping[Any, Any] = ()) -> None:  # type: ignore[assignment]
        super().__init__(base)
        self._own: set[Any] = set()

    @staticmethod
    def over(base: dict[Any, Any]) -> _Table:
        if isinstance(base, _Table):
            base._own.clear()
        else:  # a plain table (built whole): its lists are its own and stay so
            return _Table({k: list(v) for k, v in base.items()})
        return _Table(base)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        own = self._own
        if key in own:
            return dict.__getitem__(self, key)
        own.add(key)
        got = dict.get(self, key)
        value = default if got is None else list(got)
        dict.__setitem__(self, key, value)
        return value


@dataclass(frozen=True)
class _Base:
    """What an extension starts from (``_State``): an ancestor's facts and hints verdict, each
    with the (asserts, guards) counts it covers, and the symbols (ranges) the verdict is for."""

    facts: _Facts | None
    n: tuple[int, int]
    hints: bool | None
    hints_n: tuple[int, int]
    symbols: tuple[Symbol, ...]


MEMO_LIMIT = 200_000  # rewritten terms and intervals one context's facts remember
# What one context keeps of what it learns (caches: forgetting them changes no verdict): answers
# to questions, verified models tried as witnesses first, and the literals of the family's z3
# session, which only grows with every question (past this it is retired and built afresh).
ANSWERS_KEPT = 4096
MODELS_KEPT = 64
SOLVER_LITERALS = 20_000
SESSION_BYTES = 24 << 20


class _Facts:
    """What one context's ranges, asserts and guards say, without search: an ``Env`` of single-term
    facts, the conditions themselves and the canonical rewriting over them. The one place a
    question is decided by facts — in a worker (``_State``) and in the server (``FactsView``)."""

    def __init__(self, env: Env, conds: frozenset[ir.Term]) -> None:
        self.env, self.conds = env, conds
        self.rw = Rewriter(env)
        self.ranges = intervals.Facts(env.ranges)

    @staticmethod
    def ranges_of(symbols: Sequence[Symbol]) -> dict[str, intervals.Interval]:
        return {s.name: (s.lo, s.hi) for s in symbols if not s.is_bool}

    def extended(self, symbols: Sequence[Symbol], new: Sequence[ir.Term]) -> _Facts:
        """These facts plus ``new`` conditions, over ``symbols``' ranges. The facts of a condition do
        not depend on the ranges (``Env.add``), so a copy serves an extension that adds symbols too."""
        base = self.env
        env = Env(self.ranges_of(symbols), _Table.over(base.bounds), _Table.over(base.excluded),
                  _Table.over(base.atoms), base._info)  # _info: a cache of each atom's analysis
        for c in new:
            env.add(c)
        return _Facts(env, self.conds.union(new))

    def decide(self, q: Query) -> dict[str, Any] | None:
        """The row of a query decided by facts alone (the ranges, asserts and guards), or None."""
        if len(self.rw.memo) + len(self.rw.iv) > MEMO_LIMIT:  # a long-lived context asked many questions
            self.rw = Rewriter(self.env)  # a cache: forgetting it changes no answer
        rw = self.rw
        if q.domain is not ir.TRUE and rw.truth(q.domain) is not True:
            return None  # the query may be undefined somewhere: the engine says where
        if q.is_bool:
            v = intervals.decide(q.term, self.ranges, self.conds)  # type: ignore[arg-type]
            if v is None:
                v = rw.truth(q.term)
            return None if v is None else {"id": q.id, "kind": "bool", "value": v}
        lo, hi = rw.interval(rw.rewrite(q.term))
        if lo is not None and lo == hi:
            return {"id": q.id, "kind": "int", "value": lo, "exact": True}
        return None


def _weight(f: _Facts, n_symbols: int) -> int:
    """Bytes, over-estimated: a table slot with its list ~200 (dict entry, list, tuples), a
    remembered rewrite or interval ~300 (its key and value terms may be its alone)."""
    e = f.env
    return (4096 + 128 * n_symbols + 200 * (len(e.bounds) + len(e.excluded) + len(e.atoms) + len(f.conds))
            + 300 * (len(f.rw.memo) + len(f.rw.iv)))


def _conds(cs: Sequence[Constraint]) -> list[ir.Term]:
    return [c.term for c in cs if c.term is not None]


class _State:
    """The lazily built knowledge of one context (facts, satisfiability, answers, z3 session).

    An extension starts from what its nearest ancestor had learned when it was made — facts,
    whether the hints hold, the family's z3 session — each with the count of asserts and guards
    it covers (``_Base``), and adds only its own. It holds those, never the ancestors: a chain of
    extensions keeps one base per kind alive, not every ancestor's problem and knowledge, and
    what a context knows never depends on whether its parent still lives (the answers of a
    worker that holds many contexts and of one that holds few are the same)."""

    def __init__(self, problem: Problem, parent: _State | None = None) -> None:
        self.problem = problem
        self.solver: _Solver | None = None
        self._facts: _Facts | None = None
        self._sat: str | None = None
        self._by_hints: bool | None = None
        self.answers: dict[tuple[ir.Term, ir.Term], dict[str, Any]] = {}
        self.models: list[dict[str, Any]] = []
        self._base_facts = self._base_hints = None if parent is None else parent._learned()
        self._base_solver: _Solver | None = None if parent is None else (parent.solver or parent._base_solver)

    def child(self, problem: Problem) -> _State:
        return _State(problem, self)

    def _learned(self) -> _Base:
        """What a child made now starts from: this context's own knowledge where built, else the
        base this context itself started from."""
        n = len(self.problem.asserts), len(self.problem.guards)
        return _Base(self._facts if self._facts is not None else (self._base_facts.facts if self._base_facts else None),
                     n if self._facts is not None else (self._base_facts.n if self._base_facts else (0, 0)),
                     self._by_hints if self._by_hints is not None else (
                         self._base_hints.hints if self._base_hints else None),
                     n if self._by_hints is not None else (self._base_hints.hints_n if self._base_hints else (0, 0)),
                     self.problem.symbols if self._by_hints is not None or self._base_hints is None
                     else self._base_hints.symbols)

    def _since(self, n: tuple[int, int]) -> list[Constraint]:
        p = self.problem
        return [*p.asserts[n[0]:], *p.guards[n[1]:]]

    # -------------------------------------------------------------- facts
    def facts(self) -> _Facts:
        if self._facts is None:
            p, base = self.problem, self._base_facts
            if base is not None and base.facts is not None:  # the ancestor's facts, plus what came since
                self._facts = base.facts.extended(p.symbols, _conds(self._since(base.n)))
            else:
                env = Env(_Facts.ranges_of(p.symbols), _Table(), _Table(), _Table())
                for c in _conds((*p.asserts, *p.guards)):
                    env.add(c)
                self._facts = _Facts(env, frozenset(_conds((*p.asserts, *p.guards))))
            self._base_facts = None
        return self._facts

    def known_sat(self) -> bool:
        """Whether the context is known satisfiable (its hints hold, or z3 said so), without z3."""
        return self._sat == SAT or (self._sat is None and self.hints_hold())

    # -------------------------------------------------------------- satisfiability
    def hints_hold(self) -> bool:
        """Whether the trace-time point satisfies every range, assert and guard (then: sat)."""
        if self._by_hints is None:
            p, base = self.problem, self._base_hints
            hints = p.hints
            if hints is None or len(hints) != len(p.symbols):
                self._by_hints = False
            elif base is not None and base.symbols == p.symbols and base.hints is not None:
                self._by_hints = base.hints and all(c.term is None or holds(c.term, hints)
                                                    for c in self._since(base.hints_n))
            else:
                self._by_hints = all(s.lo is None or s.lo <= hints[s.name] for s in p.symbols) and all(
                    s.hi is None or hints[s.name] <= s.hi for s in p.symbols) and all(
                    c.term is None or holds(c.term, hints) for c in (*p.asserts, *p.guards))
            self._base_hints = None
        return self._by_hints

    def session(self, deadline: Deadline) -> tuple[_Solver, Session]:
        """The family's z3 session with this context's selectors as its base (built once)."""
        if self.solver is not None and self.solver.session.size() > SOLVER_LITERALS:
            self.solver = None  # it only grows: this context starts a fresh one (siblings keep theirs)
        if self.solver is None:
            fam, self._base_solver = self._base_solver, None
            if fam is not None and fam.symbols == self.problem.symbols and fam.session.size() <= SOLVER_LITERALS:
                self.solver = fam
            else:
                self.solver = _Solver(self.problem.symbols, Session(self.problem, deadline))
        sv = self.solver
        sess = _view(sv.session, self.problem, deadline)
        return sv, sess

    # -------------------------------------------------------------- simplify
    @cached_property
    def simplify_engine(self) -> simplify_op.Engine:
        """The context's facts, sample points and memos for ``simplify``, built on its first one."""
        return simplify_op.Engine(self.problem)

    def simplify(self, merged: Problem, key: str, started: float | None = None) -> Result:
        """``simplify`` for a delta of only exprs, on the kept ``simplify_engine`` and in the
        context's own names (solver/ops/simplify.py ``Engine``)."""
        deadline = Deadline.for_options(merged.options, started=started, entries=api.entries(merged))
        engine = self.simplify_engine
        try:
            res = engine.answer(merged, deadline)
        except OutOfTime:  # the outer limit of the whole request (or the effort: ``settled``)
            res = simplify_op.OPERATION.unknown(merged)
        res = settled(res, deadline)
        canon = Canonical(merged, key, engine.names, [], [], [], list(range(len(merged.exprs))))
        return api.finish("simplify", res, merged, canon, cached=False, elapsed_ms=0)

    # -------------------------------------------------------------- evaluate
    def evaluate(self, merged: Problem, key: str, started: float | None = None) -> Result | None:
        """``evaluate`` for a delta of queries, or None when the stateless engine must answer;
        ``OutOfTime`` past the request's outer limit (``started``: when the request began)."""
        deadline = Deadline.for_options(merged.options, started=started, entries=api.entries(merged))
        rows: list[dict[str, Any] | None] = []
        for q in merged.queries:
            known = self.answers.get((q.term, q.domain))
            rows.append(None if known is None else {"id": q.id, **known})  # a fresh row's field order
        todo = [i for i, r in enumerate(rows) if r is None]
        for i in todo:
            rows[i] = self.facts().decide(merged.queries[i])
        todo = [i for i, r in enumerate(rows) if r is None]
        incomplete = False
        if self._sat is None and self.hints_hold():
            self._sat = SAT
        if self._sat is None or todo:
            sv, sess = self.session(deadline)
            with sv.lock:
                if self._sat is None:
                    out = sess.check()
                    if out.status == SAT:
                        self.models.append(out.model)
                    elif out.status != UNSAT:
                        return None  # undecided: the engine gives the stateless unknown
                    self._sat = out.status
                if self._sat == SAT and todo:
                    run = _SessionRun(merged, sess, deadline, self)
                    got, stopped = run.answer([merged.queries[i] for i in todo])
                    for i, r in zip(todo, got):
                        rows[i] = r
                    incomplete = stopped is not None  # the rows answered by then are kept
        if self._sat == UNSAT:
            res: Result = {"status": UNSAT, "queries": [{"id": q.id, "kind": "bool" if q.is_bool else "int",
                                                          "value": None} for q in merged.queries],
                           "warnings": ["the asserts and guards are unsatisfiable: no query has a value"]}
        else:
            res = {"status": SAT, "queries": ev.partial_rows(merged, rows)}
            if incomplete:
                res["incomplete"] = True
            if len(self.answers) > ANSWERS_KEPT:  # a cache: forgetting it changes no answer
                self.answers.clear()
            for q, r in zip(merged.queries, res["queries"]):
                if ev._final({"queries": [r]}):
                    self.answers[(q.term, q.domain)] = {k: v for k, v in r.items() if k != "id"}
        del self.models[:-MODELS_KEPT]  # witnesses to try first: the most recent ones
        return _evaluated(merged, key, settled(res, deadline))


# ------------------------------------------------------------------ the facts view, for another process

@dataclass(frozen=True)
class FactsPayload:
    """A context's facts as plain data: its frame and its conditions as a term table (children first,
    shared nodes once). What a worker process hands the server to build a ``FactsView`` —
    pickled, never z3 objects. ``parent``: the key of the context these conditions extend (the
    receiver must hold its view), or None for the whole context. Extending, the frame holds only
    the ids added and no symbols when they are the parent's (an extension never removes one)."""

    frame: _Frame
    table: tuple[tuple[str, Any, tuple[int, ...]], ...]  # (kind, value, argument rows)
    conds: tuple[int, ...]  # rows of the asserts then the guards, in order
    parent: str | None
    sat: bool  # known satisfiable: else no question is answered from the facts (module docstring)


def _term_table(roots: Sequence[ir.Term]) -> tuple[tuple[tuple[str, Any, tuple[int, ...]], ...], tuple[int, ...]]:
    row: dict[ir.Term, int] = {}
    for r in roots:
        for n in ir.iter_dag(r):
            if n not in row:
                row[n] = len(row)
    return tuple((n.kind, n.value, tuple(row[a] for a in n.args)) for n in row), tuple(row[r] for r in roots)


STEP = 256  # terms rebuilt (or conditions read) between two yields of ``FactsView.build``


class FactsView:
    """A context's facts without its z3 session, in the server process: answers the ``evaluate``
    questions the facts decide, exactly as the context itself would (the same ``_Facts.decide``
    over the same facts, the same result document), and declines (None) the rest.

    It needs the context known satisfiable (``sat``; a worker reports it once z3 has said so).
    It never parses the context: only a question's delta, which a caller should keep small.
    """

    def __init__(self, frame: _Frame, facts: _Facts, sat: bool) -> None:
        self.frame, self.facts, self.sat = frame, facts, sat

    @property
    def key(self) -> str:
        return self.frame.key

    def nbytes(self) -> int:
        """An over-estimate of the memory this view holds, for a byte-bounded cache: its facts'
        slots (lists it shares with the view it extends counted again) and what its rewriter
        remembers. Grows while it answers: re-weigh it after use."""
        return _weight(self.facts, len(self.frame.symbols))

    @staticmethod
    def build(payload: FactsPayload, parent: FactsView | None = None) -> Generator[bool, None, FactsView | None]:
        """The view a payload describes, built in steps: each ``yield`` says whether work was done
        (False: another thread holds the library, try later); the return value is the view, or
        None when the payload extends a context whose view ``parent`` is not."""
        if payload.parent is not None and (parent is None or parent.key != payload.parent):
            return None
        f, k = payload.frame, 0
        nodes: list[ir.Term] = []
        while k < len(payload.table):  # the IR interns terms process-wide: rebuild them under api._SERIAL
            if not api._SERIAL.acquire(blocking=False):
                yield False
                continue
            try:
                for kind, value, args in payload.table[k:k + STEP]:
                    nodes.append(ir._node(kind, tuple([nodes[j] for j in args]), value))  # as they were interned
            finally:
                api._SERIAL.release()
            k += STEP
            yield True
        conds = [nodes[i] for i in payload.conds]
        if parent is not None:
            pf = parent.frame
            f = replace(f, symbols=f.symbols or pf.symbols, ids=pf.ids | f.ids)
            if f.symbols is pf.symbols:  # derived from the symbols alone: shared, not made again
                f.__dict__.update({k: pf.__dict__[k] for k in ("names", "identity") if k in pf.__dict__})
            return FactsView(f, parent.facts.extended(f.symbols, conds), payload.sat)
        env, k = Env(_Facts.ranges_of(f.symbols), _Table(), _Table(), _Table()), 0
        while k < len(conds):
            for c in conds[k:k + STEP]:
                env.add(c)
            k += STEP
            yield True
        return FactsView(f, _Facts(env, frozenset(conds)), payload.sat)

    @classmethod
    def of(cls, payload: FactsPayload, parent: FactsView | None = None) -> FactsView | None:
        """``build`` in one go (waiting for the library when another thread holds it)."""
        steps = cls.build(payload, parent)
        while True:
            try:
                if not next(steps):
                    time.sleep(0.001)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]

    def evaluate(self, delta: Mapping[str, Any]) -> Result | None:
        """The context's ``evaluate`` result for ``delta`` when only queries are new and the facts
        decide every one; else None (ask the context). ``elapsed_ms`` is the caller's to set."""
        if not self.sat or not api._SERIAL.acquire(blocking=False):
            return None  # another thread holds the library: the context answers instead
        try:
            f = self.frame
            d, declared, same_symbols = _read_delta(f, delta)
            if not _only_questions(f, d, same_symbols) or d.exprs:
                return None
            rows: list[dict[str, Any] | None] = [self.facts.decide(q) for q in d.queries]
            if None in rows:
                return None
            merged = Problem(f.symbols, queries=d.queries, options=d.options, syntax=f.syntax,
                             warnings=f.warnings + d.warnings)
            return _evaluated(merged, derived_key(f.key, d, declared), {"status": SAT, "queries": rows}, f.identity)
        finally:
            api._SERIAL.release()


def _view(sess: Session, problem: Problem, deadline: Deadline) -> Session:
    """``sess`` seen by one context: its own selectors as the base, the request's deadline."""
    ch = sess.ch
    # the family's z3 objects live in the context of the deadline that built them: the request's
    # deadline takes that context over (its interrupt must reach the solver it will run)
    deadline.adopt_context(ch.deadline)
    ch.deadline = deadline
    view = Session.__new__(Session)
    view.__dict__.update(sess.__dict__)
    view.problem, view.deadline = problem, deadline
    view.base = [ch.selector(c.term) for c in (*problem.asserts, *problem.guards) if c.term is not None]
    return view


class _SessionRun(ev._Run):
    """``evaluate``'s per-query engine on a context's shared session and learned models."""

    def __init__(self, problem: Problem, sess: Session, deadline: Deadline, state: _State) -> None:
        self.p = problem
        self.deadline = deadline
        self.sess = sess
        self.models = state.models  # verified points of the context: witnesses for any question
        self.linear = is_linear(problem_terms(problem))
        self.facts = intervals.Facts.from_problem(problem)
        self.asserts = [c.term for c in problem.asserts if c.term is not None]


def _evaluated(p: Problem, key: str, res: Result, names: Mapping[str, str] | None = None) -> Result:
    """An ``evaluate`` result computed in the caller's names as the caller's result. Mapping it back
    reads only the symbols, queries and warnings, so the conditions are left out: a question's
    cost should not grow with its context. ``names``: each symbol to itself, when already made."""
    p = Problem(p.symbols, queries=p.queries, options=p.options, syntax=p.syntax, warnings=p.warnings)
    canon = Canonical(p, key, {s.name: s.name for s in p.symbols} if names is None else dict(names), [], [],
                      list(range(len(p.queries))), [])
    return api.finish("evaluate", res, p, canon, cached=False, elapsed_ms=0)


__all__ = ["Context", "FactsPayload", "FactsView", "derived_key", "merge_documents"]
