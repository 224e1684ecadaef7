"""``/docs`` renders with no network: Swagger UI's assets come from a package, not a CDN.

A real headless browser (Debian's ``chromium``; ``.ci/run`` installs it) loads ``/docs`` from a
server on loopback with every other host unresolvable, runs the page's JavaScript for a virtual
time budget and dumps the DOM; Swagger UI has rendered when the operations are in it. Skipped
when no chromium is on PATH.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest
from service_helpers import running_server

from symguard.service.settings import Settings
from symguard.solver import OPS

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def test_docs_page_links_no_outside_host() -> None:
    """Cheap and browser-free: every script, style and icon of /docs and /redoc is served by us."""
    with running_server(Settings(workers=1)) as url:
        for page in ("/docs", "/redoc"):
            html = httpx.get(url + page, timeout=30).text
            refs = re.findall(r'(?:src|href)=["\']([^"\']+)', html)
            assert refs and all(r.startswith("/") for r in refs), refs
            for r in refs:
                assert httpx.get(url + r, timeout=30).status_code == 200, r


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (CI installs it)")
def test_docs_renders_the_operations_in_a_headless_browser_without_network(tmp_path: Path) -> None:
    assert CHROMIUM is not None
    with running_server(Settings(workers=1)) as url:
        profile = tmp_path / "profile"
        profile.mkdir()
        cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--disable-dev-shm-usage", f"--user-data-dir={profile}",
               # no network but loopback: any CDN host fails to resolve, as on a machine offline
               "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
               "--virtual-time-budget=20000", "--dump-dom", url + "/docs"]
        proc = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=180)
    dom = proc.stdout
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert 'class="swagger-ui' in dom, dom[:2000]  # the bundle ran and mounted its UI
    for path in [*(f"/v1/{op}" for op in OPS), "/v1/batch"]:
        assert f'data-path="{path}"' in dom, f"{path} not rendered"
