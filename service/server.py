"""``symguard serve``: one uvicorn process (the event loop) plus the solver worker processes.

Settings come from the environment (``SYMGUARD_*``); host/port come from the command line, and
``--workers`` overrides ``SYMGUARD_WORKERS`` only when it is given.
SIGTERM / Ctrl-C: uvicorn stops accepting, lets requests in flight finish (up to
``graceful_s``), then the app's lifespan stops the workers.
"""

from __future__ import annotations

import gc

import uvicorn

from .app import create_app
from .settings import Settings


def settings_for(workers: int | None = None) -> Settings:
    """The service settings: the environment's, with ``workers`` overriding ``SYMGUARD_WORKERS`` when given.

    ``None`` means "not on the command line", so a deployment's ``SYMGUARD_WORKERS`` is not
    silently replaced by a CLI default.
    """
    return Settings() if workers is None else Settings(workers=workers)


def serve(host: str = "127.0.0.1", port: int = 8000, workers: int | None = None, *, graceful_s: int = 70) -> int:
    """Run the service until stopped; the exit status for the CLI."""
    settings = settings_for(workers)
    app = create_app(settings)
    # what the server has imported (the solver's modules, pysmt, z3: ~70k objects) lives for good:
    # out of the collector's sight, a full collection stays short (30 ms on a quiet core with them)
    # and a request's deadline is not spent on it on a loaded host
    gc.collect()
    gc.freeze()
    config = uvicorn.Config(app, host=host, port=port, proxy_headers=True, access_log=False,
                            timeout_graceful_shutdown=graceful_s, log_level="info")
    uvicorn.Server(config).run()
    return 0
