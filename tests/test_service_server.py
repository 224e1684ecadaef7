"""``symguard serve`` as a real process, and graceful shutdown with a request in flight."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import httpx
import pytest
from proc_helpers import MARK, kill, marked, wait_gone
from service_helpers import free_port, running_server
from test_service_workers import SLOW, SLOW_WORKER

from symguard.service.cli import build_parser
from symguard.service.server import settings_for
from symguard.service.settings import Settings


@pytest.mark.parametrize(("env", "argv", "workers"), [
    (None, [], 2),  # neither: the Settings default
    ("5", [], 5),  # SYMGUARD_WORKERS alone is not overridden by a CLI default
    ("5", ["--workers", "3"], 3),  # the flag, when given, wins
    (None, ["--workers", "1"], 1),
])
def test_serve_workers_flag_overrides_the_environment_only_when_given(
        monkeypatch: pytest.MonkeyPatch, env: str | None, argv: list[str], workers: int) -> None:
    if env is None:
        monkeypatch.delenv("SYMGUARD_WORKERS", raising=False)
    else:
        monkeypatch.setenv("SYMGUARD_WORKERS", env)
    args = build_parser().parse_args(["serve", *argv])
    assert settings_for(args.workers).workers == workers


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_symguard_serve_answers_and_stops_with_every_process_it_started(sig: signal.Signals) -> None:
    """Stateless workers and context workers (both used here) all end with the server: in order on
    SIGTERM/SIGINT, by their lifeline when the server is killed outright."""
    port = free_port()
    mark = f"{os.environ[MARK]}-serve-{sig.name}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SYMGUARD_")} | {MARK: mark}
    proc = subprocess.Popen([sys.executable, "-m", "symguard.service.cli", "serve", "--port", str(port), "--workers", "1"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(url + "/readyz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, "symguard serve did not come up"
            time.sleep(0.1)
        r = httpx.post(url + "/v1/redundancy", json={"guards": ["s0 >= 16", "s0 >= 8"]}, timeout=60)
        assert r.status_code == 200 and r.json()["minimal"] == ["g0"]
        key = httpx.post(url + "/v1/contexts", json={"guards": ["s0 >= 16"]}, timeout=60).json()["context"]
        r = httpx.post(url + "/v1/redundancy", json={"context": key, "guards": ["s0 >= 8"]}, timeout=60)
        assert r.status_code == 200 and r.json()["minimal"] == ["g0"]
        assert len(marked(mark)) >= 3  # the server, a stateless worker, a context worker
    finally:
        proc.send_signal(sig)
        code = proc.wait(timeout=60)
        left = wait_gone(mark, 10)
        kill(left)
    assert code in (0, -sig, 128 + sig)  # uvicorn re-raises the signal once it has shut down cleanly
    assert left == [], "processes outlived symguard serve"


def test_shutdown_finishes_requests_in_flight() -> None:
    got: dict[str, httpx.Response] = {}
    settings = Settings(workers=1, grace_ms=500)
    with running_server(settings, worker_argv=SLOW_WORKER) as url:
        t = threading.Thread(target=lambda: got.update(r=httpx.post(f"{url}/v1/solve", json=SLOW, timeout=60)))
        t.start()
        while "symguard_workers_busy 1.0" not in httpx.get(f"{url}/metrics").text:  # with the worker
            assert t.is_alive(), got
            time.sleep(0.02)
    t.join(timeout=60)
    r = got["r"]
    assert r.status_code == 200 and r.json()["status"] == "unknown" and r.json()["reason"] == "timeout"
