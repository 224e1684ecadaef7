"""Contexts over HTTP (docs/contexts.md): register a problem once, then send only deltas.

* ``POST /v1/contexts`` with a problem answers ``{"context": KEY, "symbols": n, "asserts": n,
  "guards": n}``; with ``{"context": KEY, ...delta}`` it extends that context and answers the new
  key. Contexts are immutable, so a key names one document forever: the server keeps key →
  document in an LRU and, with ``SYMGUARD_REDIS_URL``, in Redis, where every replica finds it
  (``context_store``).
* ``POST /v1/{op}`` whose body has a top-level ``"context"`` is routed here (``named_context``): the
  answer for the context plus the delta. An unknown key is a 404 with
  ``error.code = "unknown_context"``: the client resends the problem.

The solving runs in context worker processes (z3 never runs in the server process), one single
process executor per slot so that every request for a key goes to the same process — the one
that holds its session (``service.context_worker``). A process that does not hold it (evicted,
restarted, another replica registered it) is sent the stored document once and reads it.
Requests for one slot wait their turn in the server (``_Slot.turn``), never inside the executor.

A question is under the server's deadline like a stateless request (``runtime.cut``): counted from
its arrival, with the ``timeout_ms`` the worker will apply (the delta's, else the context's:
``context_store.Entry``), it is answered by the cut whatever the worker does. The timeout answer is
the stateless one for the merged document whose deadline passed while it was being read (every
guard and query ``unknown``, the caller's ids; ``_unread``), built as the stateless one is
(``cut.Ahead``): in a thread, begun ``UNREAD_LEAD_MS`` before the cut while no worker holds the
question (in line, or its worker still reading the stored document, which is not under the
question's deadline), else at the cut, on the event loop when it is small, its chain is in this
server's memory and the library's lock is free. A cut never kills
a worker nor touches what a context knows: the worker finishes the question for nobody, and what
its answer teaches (facts, satisfiability, a final answer) is kept as if it had come in time. A
worker that overruns ``timeout_ms + SYMGUARD_GRACE_MS`` (+ 2 s to read a document) is replaced
(its hot contexts are rebuilt from the stored documents on demand). Final answers are kept in an
LRU keyed by the byte-exact body, like the stateless exact layer.

The fast path: the workers hand back each context's facts (``solver.session.FactsView``, pure
Python, rebuilt here in steps that yield to the event loop), kept in an LRU beside the documents.
An ``evaluate`` whose delta is a few queries (``_fast_delta``) is first asked of the view, on the
event loop: when the facts decide every query, that is the answer — the document the worker
would have sent, without the hop. Anything else, or a key whose view is not here (another
replica's, evicted, still building), goes to the worker as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import time
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from fastapi import Depends, FastAPI, Request, Response

from symguard.solver import api
from symguard.solver.errors import InvalidProblemError
from symguard.solver.session import DELTA_KEYS, FactsPayload, FactsView, merge_documents

from . import context_worker
from .context_store import ByteLRU, ContextStore, Entry, document_of, own_timeout, whole_entry
from .documents import dumps, loads
from .runtime import lifeline
from .runtime.cut import Ahead, Cutter, Turn
from .runtime.deadline import DEFAULT_TIMEOUT_MS, UNREAD_ON_LOOP_BYTES, Clock, unread_result
from .settings import Settings

# What a client can make the server keep, each an LRU bounded by bytes (docs/service.md): the
# stored documents (``context_store``), the facts views (``FactsView.nbytes``, an over-estimate,
# re-weighed after use) and final answers by body.
VIEW_BYTES = 64 << 20
VIEW_SIZE = 256  # and at most this many views
ANSWER_BYTES = 16 << 20
STOP_GRACE_S = 2.0  # a context worker that has not exited this long after SIGTERM is killed
READ_SLACK_MS = 2000  # a worker's limit past timeout_ms + grace: reading a stored document it lacks
READ_DEFAULT_MS = 2000  # registering or extending without a timeout_ms: the base of that limit
# What the event loop may read itself: a delta of at most this many queries and nothing else but
# options, in a body of at most this many bytes. Reading and deciding cost grows with the text: a
# 500-byte body took at most 2.7 ms of CPU on the 400-guard context (a conjunction of 40
# comparisons; sums, products, Max, Mod, FloorDiv, Piecewise of that size 1.0-1.6 ms), 1 KB up to
# 9 ms. The recorded compiler questions: p50 27 characters, p99 297 — nearly all of them fit.
FAST_QUERIES = 8
FAST_BODY_BYTES = 512


def named_context(body: bytes) -> dict[str, Any] | None:
    """The parsed body when it names a context (then ``ContextService`` answers it), else None.
    Decoded as every body is (``documents.loads``): too deep or too long a number is ``too_large``."""
    if b'"context"' not in body:
        return None
    doc = loads(body)
    return doc if isinstance(doc, dict) and "context" in doc else None


def _fast_delta(body: bytes, delta: dict[str, Any]) -> bool:
    """Whether a question is small enough to be read on the event loop."""
    qs = delta.get("queries")
    return (len(body) <= FAST_BODY_BYTES and set(delta) <= {"queries", "options"} and isinstance(qs, list)
            and 0 < len(qs) <= FAST_QUERIES)


def _json(obj: Any, status: int = 200) -> Response:
    return Response(dumps(obj).encode(), status_code=status, media_type="application/json")


def _unknown_context_body(key: Any) -> dict[str, Any]:
    return {"error": {"code": "unknown_context", "where": "context",
                      "message": f"unknown context {str(key)[:80]!r}: it expired or was never registered "
                                 "here; send the whole problem again (POST /v1/contexts or a stateless request)"}}


def _unknown_context(key: Any) -> Response:
    return _json(_unknown_context_body(key), 404)


def _executor() -> ProcessPoolExecutor:
    """A single-process executor whose worker stops on SIGTERM and dies with the server (lifeline)."""
    return ProcessPoolExecutor(max_workers=1, initializer=lifeline.init_worker)


class _Slot:
    """One context worker process (a single-process executor, replaced when it overruns)."""

    def __init__(self) -> None:
        self.ex = _executor()
        self.turn = asyncio.Lock()  # one call at a time: the others wait here, where a cut can take them out

    def replace(self) -> None:
        old, self.ex = self.ex, _executor()
        for p in list(getattr(old, "_processes", {}).values()):  # an overrunning z3 call cannot be cancelled
            p.kill()
        old.shutdown(wait=False, cancel_futures=True)

    async def stop(self, grace_s: float = STOP_GRACE_S) -> None:
        """Stop the worker: SIGTERM, then SIGKILL past ``grace_s``; returns once it has exited."""
        procs = list(getattr(self.ex, "_processes", {}).values())
        self.ex.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            p.terminate()
        for p in procs:
            await asyncio.to_thread(p.join, grace_s)
            if p.is_alive():
                p.kill()
                await asyncio.to_thread(p.join, grace_s)


class ContextService:
    def __init__(self, settings: Settings, cutter: Cutter | None = None) -> None:
        self.settings = settings
        self.cutter = cutter  # keeps a question's deadline (the server's, shared with the stateless pool)
        self.slots = [_Slot() for _ in range(max(1, settings.workers))]
        self.docs = ContextStore(settings)  # key -> how to rebuild its document, here and in Redis
        self.views: ByteLRU[str, FactsView] = ByteLRU(VIEW_BYTES, VIEW_SIZE)
        self._building: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self.answers: ByteLRU[str, bytes] = ByteLRU(ANSWER_BYTES)
        self.fast_answers = 0  # questions the views answered (tests, debugging)

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        await asyncio.gather(*(loop.run_in_executor(s.ex, context_worker.warm) for s in self.slots))

    async def close(self) -> None:
        for t in list(self._tasks):
            t.cancel()
        await asyncio.gather(*(s.stop() for s in self.slots))
        await self.docs.close()

    # -------------------------------------------------------------- the facts views
    async def _adopt(self, payload: FactsPayload | None) -> None:
        """Build and keep the view a worker handed back; its steps yield to the event loop."""
        if payload is None:
            return
        key = payload.frame.key
        if key in self.views or key in self._building:
            return
        parent = self.views.get(payload.parent) if payload.parent is not None else None
        self._building.add(key)
        view = None
        try:
            steps = FactsView.build(payload, parent)
            while True:
                try:
                    progressed = next(steps)
                except StopIteration as done:
                    view = done.value
                    break
                await asyncio.sleep(0 if progressed else 0.001)
        except Exception:  # noqa: BLE001 - a view is a cache: it can make answers faster, never fail one
            view = None
        finally:
            self._building.discard(key)
        if view is not None:
            self.views.put(key, view, view.nbytes())

    def _adopt_later(self, payload: FactsPayload | None) -> None:
        if payload is not None:
            self._background(self._adopt(payload))

    def _by_facts(self, op: str, body: bytes, key: str, delta: dict[str, Any]) -> dict[str, Any] | None:
        """The answer of the key's view when it decides the question (module docstring), else None."""
        view = self.views.get(key)
        if view is None or op != "evaluate" or not _fast_delta(body, delta):
            return None
        try:
            return view.evaluate(delta)
        except Exception:  # noqa: BLE001 - a refused delta: the worker answers with the error body
            return None
        finally:
            self.views.reweigh(key, view.nbytes())  # its rewriter remembers what it was asked

    # -------------------------------------------------------------- calling a worker
    def _slot(self, key: str) -> _Slot:
        return self.slots[int(key[:12], 16) % len(self.slots)] if _hex(key) else self.slots[0]

    async def _call(self, slot: _Slot, limit_s: float, fn: Callable[..., Any], *args: Any,
                    turn: Turn | None = None, clock: Clock | None = None, stage: str = "solving") -> Any:
        """``fn(*args)`` on the slot's worker; with a ``clock``, ``fn(*args, spent_ms)``: the time
        the request has already spent when the worker takes it (``Clock.spent_ms``), so that the
        worker's own deadline ends before the server's cut and its partial answer comes in time.
        ``stage``: "reading" when the worker is sent the stored document (reading it is not under
        the question's deadline: its answer may come after the cut)."""
        async with slot.turn:
            if turn is not None:
                turn.stage = stage  # with its worker: no longer in line
            if clock is not None:
                args = (*args, clock.spent_ms())
            fut: Awaitable[Any] = asyncio.get_running_loop().run_in_executor(slot.ex, fn, *args)
            try:
                return await asyncio.wait_for(fut, limit_s)
            except asyncio.TimeoutError:
                slot.replace()
                return None

    async def _with_document(self, key: str, limit_s: float, fn: Callable[..., Any], *args: Any,
                             turn: Turn | None = None, clock: Clock | None = None) -> Any:
        """``fn(key, *args, doc)`` on the key's worker (``_call``: a ``clock`` adds the time spent):
        first without the document (the worker holds the session), then with it when the worker
        asks. None: overran, or the caller was answered at its deadline before the document was
        needed; "unknown": no such key."""
        slot = self._slot(key)
        out = await self._call(slot, limit_s, fn, key, *args, None, turn=turn, clock=clock)
        if out is not None and out[0] == "need":
            if turn is not None and turn.cut:
                return None  # nobody waits for it: reading the document is left to the next question
            doc = await self.docs.document(key)
            if doc is None:
                return "unknown"
            out = await self._call(slot, limit_s, fn, key, *args, doc, turn=turn, clock=clock, stage="reading")
        return out

    def _limit_s(self, timeout_ms: int) -> float:
        """How long a worker may take for one call before it is replaced."""
        return (min(timeout_ms, self.settings.max_timeout_ms) + self.settings.grace_ms + READ_SLACK_MS) / 1000

    async def _timeout(self, key: str, delta: dict[str, Any]) -> int:
        """The ``timeout_ms`` the worker applies to ``key`` plus ``delta``: the delta's, else the
        context's, else the default (an invalid value is refused by the worker at once)."""
        own = own_timeout(delta)
        if own is not None:
            return own
        entry = await self.docs.entry(key)
        return (entry.timeout_ms if entry is not None else None) or DEFAULT_TIMEOUT_MS

    def _background(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -------------------------------------------------------------- endpoints
    async def register(self, body: bytes) -> Response:
        doc = _decode(body)
        if "context" in doc:
            key = _key(doc)
            delta = {k: v for k, v in doc.items() if k != "context"}
            have_view = key in self.views
            parent = await self.docs.entry(key)  # stored whole when the chain would grow too long or heavy
            whole = parent is None or parent.wants_whole(len(body))
            out = await self._with_document(key, self._limit_s(own_timeout(delta) or READ_DEFAULT_MS),
                                            context_worker.extend, delta, have_view, whole)
            if out == "unknown":
                return _unknown_context(key)
            if out is not None and out[0] == "done":
                _, new_key, part, is_whole, counts, payload = out
                if part is not None:  # ``parent``: the entry as it was asked for (still there or not)
                    await self.docs.put(new_key, whole_entry(part) if is_whole or parent is None else parent.child(key, part))
                out = ("done", new_key, counts, payload)
        else:
            limit = self._limit_s(own_timeout(doc) or READ_DEFAULT_MS)
            out = await self._call(self.slots[0], limit, context_worker.register, doc)
            if out is not None and out[0] == "done":  # the session lives with the key's worker
                out = await self._call(self._slot(out[1]), limit, context_worker.register, doc)
            if out is not None and out[0] == "done":
                _, new_key, new_doc, counts, payload = out
                await self.docs.put(new_key, whole_entry(new_doc))
                out = ("done", new_key, counts, payload)
        if out is None:
            return _json({"error": {"code": "too_large", "message": "reading the context took too long"}}, 400)
        if out[0] == "error":
            return _json(out[1], out[2])
        _, key, counts, payload = out
        await self._adopt(payload)  # before answering: the client's next question may use it
        return _json({"context": key, **counts})

    async def answer(self, op: str, body: bytes, doc: dict[str, Any] | None = None, *,
                     arrival: float | None = None) -> Response:
        """``op`` for the context a body names plus its delta (``doc``: the body, parsed already)."""
        return _json(*await self.result(op, body, doc, arrival=arrival))

    async def result(self, op: str, body: bytes, doc: dict[str, Any] | None = None, *, arrival: float | None = None,
                     gate: asyncio.Semaphore | None = None) -> tuple[dict[str, Any], int]:
        """``answer`` as (document, HTTP status): a ``/v1/batch`` item holds the document, and
        ``gate``, its batch's limit on the workers it holds at once. With ``arrival`` (when the
        request reached the app) the answer comes by the deadline counted from there (module docstring)."""
        t0 = time.monotonic() if arrival is None else arrival
        ek = hashlib.sha256(op.encode() + b"\0" + body).hexdigest()
        hit = self.answers.get(ek)
        if hit is not None:
            return {**json.loads(hit), "cached": True, "elapsed_ms": _ms(t0)}, 200
        if doc is None:
            doc = _decode(body)
        key = _key(doc)
        delta = {k: v for k, v in doc.items() if k != "context"}
        res = self._by_facts(op, body, key, delta)
        if res is not None:
            self.fast_answers += 1
            res["elapsed_ms"] = _ms(t0)
            if context_worker.is_final(op, res):
                self._cache(ek, res)
            return res, 200
        timeout_ms = await self._timeout(key, delta)
        turn = Turn()
        clock = (None if arrival is None or self.cutter is None
                 else self.cutter.lag.clock(arrival, min(timeout_ms, self.settings.max_timeout_ms)))

        def work() -> Coroutine[Any, Any, tuple[dict[str, Any], int]]:
            return self._ask(op, key, delta, ek, t0, timeout_ms, turn, gate, clock)

        if clock is None or self.cutter is None:
            return await work()
        # the merged unread answer, built ahead of the cut while no worker holds the question (cut.Ahead);
        # a worker solving it answers by the cut itself, with its partial answer (its clock began at arrival)
        ahead = Ahead(clock, lambda: self._unread_answer(op, key, delta), lambda: turn.stage != "solving",
                      now=lambda: self._unread_now(op, key, delta, len(body)))

        async def late(stage: str) -> tuple[dict[str, Any], int]:
            res, status = await ahead.result()
            note = {"arrival": "the deadline passed before the question could reach a worker",
                    "queued": "the deadline passed while the question waited for its context's worker"}.get(stage)
            if status == 200:
                res = {**res, "warnings": [*res["warnings"], *([note] if note else [])], "elapsed_ms": _ms(t0)}
            return res, status

        try:
            return await self.cutter.keep(clock, turn, work, late, self._background)
        finally:
            ahead.cancel()

    async def _ask(self, op: str, key: str, delta: dict[str, Any], ek: str, t0: float, timeout_ms: int,
                   turn: Turn, gate: asyncio.Semaphore | None, clock: Clock | None) -> tuple[dict[str, Any], int]:
        """The worker's answer, its library clock started at the request's arrival (``clock``).
        Past the caller's cut (``turn.cut``) it still runs to the end for what it teaches (facts,
        satisfiability, a final answer kept by body); its answer is nobody's."""
        async with gate if gate is not None else contextlib.nullcontext():
            want_view = key not in self.views and key not in self._building
            out = await self._with_document(key, self._limit_s(timeout_ms), context_worker.run, op, delta,
                                            want_view, turn=turn, clock=clock)
        if out == "unknown":
            return _unknown_context_body(key), 404
        if out is None:
            if turn.cut:
                return {}, 0
            return await self._timeout_answer(op, key, delta, t0, "the worker overran its budget and was replaced")
        if out[0] == "error":
            return out[1], out[2]
        _, res, final, payload, sat = out
        res["elapsed_ms"] = _ms(t0)
        view = self.views.get(key)
        if view is not None and sat:
            view.sat = True  # z3 has now said what the hints could not
        self._adopt_later(payload)  # not awaited: this answer is ready
        if final:
            self._cache(ek, res)
        return res, 200

    async def _timeout_answer(self, op: str, key: str, delta: dict[str, Any], t0: float,
                              note: str | None) -> tuple[dict[str, Any], int]:
        """The sound timeout answer for a question to ``key`` (``_unread_answer``) with ``note``."""
        res, status = await self._unread_answer(op, key, delta, note)
        if status == 200:
            res["elapsed_ms"] = _ms(t0)
        return res, status

    async def _unread_answer(self, op: str, key: str, delta: dict[str, Any],
                             note: str | None = None) -> tuple[dict[str, Any], int]:
        """The sound timeout answer for a question to ``key``: the stateless one for the merged
        document, unread (``_unread``), built in a thread. The context's document gone: 404, as
        for any unknown key (the client registers the problem again)."""
        chain = await self.docs.chain(key)
        if chain is None:
            return _unknown_context_body(key), 404
        return await asyncio.to_thread(_unread, op, chain, delta, self.settings.max_timeout_ms, note), 200

    def _unread_now(self, op: str, key: str, delta: dict[str, Any], body_bytes: int) -> tuple[dict[str, Any], int] | None:
        """``_unread_answer`` at once on the event loop (the cut has come and it was not built ahead),
        or None when it cannot be: a link of the chain is not in this server's memory (Redis is a
        wait), the merged document is large (``UNREAD_ON_LOOP_BYTES``), or another thread holds
        the library's lock (the loop never waits for it). Then it is built in a thread."""
        chain = self.docs.local_chain(key)
        if chain is None or body_bytes + sum(len(e.part) for e in chain) > UNREAD_ON_LOOP_BYTES:
            return None
        if not api.SERIAL.acquire(blocking=False):
            return None
        try:  # reentrant: unread_result takes it again
            return _unread(op, chain, delta, self.settings.max_timeout_ms, None), 200
        finally:
            api.SERIAL.release()

    def _cache(self, ek: str, res: dict[str, Any]) -> None:
        data = dumps(res).encode("utf-8", "backslashreplace")
        self.answers.put(ek, data, len(data) + len(ek) + 100)


def _hex(s: str) -> bool:
    return len(s) >= 12 and all(c in "0123456789abcdef" for c in s[:12])


def _decode(body: bytes) -> dict[str, Any]:
    doc = loads(body)  # the stateless route's decoder: the same limits, the same errors
    if not isinstance(doc, dict):
        raise InvalidProblemError("a problem must be a JSON object", where="$")
    return doc


def _key(doc: dict[str, Any]) -> str:
    """The context KEY a body names: a string, else the body is malformed (400), not a key the
    server lacks (404 would tell the client to register a problem it never had)."""
    key = doc.get("context")
    if not isinstance(key, str):
        got = ("null" if key is None else "a boolean" if isinstance(key, bool) else "a number"
               if isinstance(key, (int, float)) else "an array" if isinstance(key, list) else "an object")
        raise InvalidProblemError(f"context must be a string (a key from POST /v1/contexts), got {got}",
                                  where="context")
    return key


def _ms(t0: float) -> float:
    return round((time.monotonic() - t0) * 1000, 3)


def _unread(op: str, chain: list[Entry], delta: dict[str, Any], cap_ms: int, note: str | None) -> dict[str, Any]:
    """The stateless timeout answer for the context stored as ``chain`` plus a question's ``delta`` whose
    deadline passed while it was being read (``runtime.deadline.unread_result``): every guard and
    query ``unknown``, reason ``timeout``, by the ids they have in the merged document (a delta's
    string entries numbered after the context's, as the worker numbers them). A delta the worker
    would refuse for its shape is refused the same way."""
    unknown = sorted(set(delta) - DELTA_KEYS)
    if unknown:
        raise InvalidProblemError(f"unknown field {unknown[0]!r} in a context's delta (expected symbols, "
                                  "asserts, guards, queries, exprs, inputs, options)", where=unknown[0])
    for k, kind in (("symbols", dict), ("options", dict), ("asserts", list), ("guards", list)):
        if delta.get(k) is not None and not isinstance(delta[k], kind):
            raise InvalidProblemError(f"{k} must be {'an object' if kind is dict else 'an array'}", where=k)
    merged = merge_documents(document_of(chain), [{k: v for k, v in delta.items() if k not in ("queries", "exprs")}])
    merged.update({k: delta[k] for k in ("queries", "exprs") if k in delta})
    return unread_result(op, merged, cap_ms, note)


def install(app: FastAPI, settings: Settings, authorized: Any, read_body: Any,
            cutter: Cutter | None = None) -> ContextService:
    """``POST /v1/contexts`` on ``app``; the op routes hand context bodies to the returned service,
    whose questions keep their deadline with ``cutter`` (the server's)."""
    service = ContextService(settings, cutter)

    # documented as a problem (what registers a context); {"context": KEY, ...delta} extends one
    body = {"requestBody": {"required": True, "content": {
        "application/json": {"schema": {"$ref": "#/components/schemas/Problem"}}}}}

    @app.post("/v1/contexts", dependencies=[Depends(authorized)], summary="register or extend a context",
              openapi_extra=body,
              responses={404: {"description": "unknown context (error.code = unknown_context)"}})
    async def contexts(request: Request) -> Response:
        return await service.register(await read_body(request, settings.max_body_bytes))

    return service
