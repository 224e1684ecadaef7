"""The shared tail of the commands that answer with one summary line and may ask a server
(``trace``, ``prune-guards``): a ``--remote`` client for the run, an error as its §5 body and
exit status, the client closed, the line written."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TextIO

from symguard.solver.errors import SymguardError

from ..documents import dumps
from ..errors import error_body, exit_code


def summary_line(args: Any, out: TextIO, compute: Callable[[Any], tuple[dict[str, Any], int]], *,
                 pad_s: float) -> int:
    """Write ``compute(client)``'s line (``client``: None in process) and return its status.

    The client's timeout is the command's ``--timeout-ms`` plus ``pad_s`` for what the server does
    around one question."""
    client = None
    try:
        if getattr(args, "remote", None):
            from ..client import Client

            client = Client(args.remote, token=getattr(args, "token", None), timeout_s=args.timeout_ms / 1000 + pad_s)
        line, status = compute(client)
    except SymguardError as e:
        line, status = error_body(e), exit_code(e)
    finally:
        if client is not None:
            client.close()
    out.write(dumps(line) + "\n")
    out.flush()
    return status
