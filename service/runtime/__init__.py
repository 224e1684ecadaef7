"""The one worker runtime: solver worker processes for the HTTP server and for ``symguard batch``.

z3 is not thread-safe and a z3 call may ignore its time limit, so whatever solves in parallel
solves in worker *processes* that can be killed. One runtime serves both front ends:

- ``child`` — the worker process (``python -m symguard.service.runtime.child``): reads a problem (a request
  body or a file), announces its canonical key, budget and ready-made sound ``unknown`` answer,
  takes a cached result (checked: ``solver.api.check_cached``) or computes, and answers;
- ``protocol`` — the frames both ends speak (8-byte length + pickle);
- ``deadline`` — a request's deadline over HTTP, counted from its arrival: when the server stops
  waiting, and the sound timeout answer for a problem nobody has read;
- ``cut`` — how the server keeps it: a request's work raced against its clock, answered at the
  cut by stage (in line, reading, solving), shared by the pool and by contexts;
- ``worker`` — one worker process as the pool sees it (pipes, frames, what its death looks like);
- ``pool`` — an asyncio pool of children with one set of rules: the deadline kept by the server
  (``deadline``) and a budget enforced from outside (``timeout_ms`` + grace, then the worker is
  killed; the operation's sound ``unknown``, reason ``timeout``), workers
  checked before dispatch, a dead worker replaced and its request retried once, a bounded
  waiting line (503), recycling, graceful close. It is the one place where the runtime's foreign
  exceptions (OS errors, broken pipes, truncated or unpicklable frames) become symguard errors.

The server drives ``pool.WorkerPool`` from its event loop; ``service.batch_pool`` drives the same
pool from a loop thread behind batch's synchronous interface.
"""
