"""Service settings: pydantic-settings with the ``SYMGUARD_`` prefix, built once and injected.

Nothing reads the environment at import: ``create_app(Settings())`` (or a test's own
``Settings(workers=1, …)``) decides. Every limit the service enforces lives here.
"""

from __future__ import annotations

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from .runtime.pool import Limits


class Settings(BaseSettings):
    """Runtime configuration; each field is ``SYMGUARD_<NAME>`` in the environment."""

    model_config = SettingsConfigDict(env_prefix="SYMGUARD_", extra="ignore")

    # worker processes (z3 never runs in the server process)
    workers: int = Field(default=2, ge=1, le=256, description="solver worker processes")
    queue_size: int = Field(default=64, ge=0, description="requests waiting for a worker before 503")
    retry_after_s: int = Field(default=1, ge=1, description="Retry-After sent with 503")
    recycle_after: int = Field(default=500, ge=1, description="a worker is replaced after this many tasks")
    grace_ms: int = Field(default=2000, ge=0, description="a worker gets timeout_ms plus this before it is killed")
    prepare_limit_ms: int = Field(default=30_000, ge=100, description="wall limit for reading one problem")
    max_timeout_ms: int = Field(default=60_000, ge=1, le=3_600_000, description="a valid options.timeout_ms above "
                                "this is capped (with a warning); above 3,600,000 it is invalid everywhere")
    boot_limit_s: float = Field(default=120.0, gt=0, description="a fresh worker must be ready within this")

    # request limits
    max_body_bytes: int = Field(default=8 * 1024 * 1024, ge=1024, description="larger bodies get 413")
    batch_max_items: int = Field(default=1000, ge=1, description="items per /v1/batch request")

    # caches
    cache_bytes: int = Field(default=128 * 2**20, ge=0, description="bytes of canonical results (JSON) kept in "
                             "the local LRU; 0 turns it off")
    exact_cache_bytes: int = Field(default=32 * 2**20, ge=0, description="bytes of finished answers (JSON) kept "
                                   "for byte-identical requests (fast path); 0 turns it off")
    redis_url: str | None = Field(default=None, description="shared L2 cache, e.g. redis://redis:6379/0")
    redis_timeout_ms: int = Field(default=100, ge=1, description="per Redis call; slower counts as an error")
    redis_ttl_s: int = Field(default=7 * 24 * 3600, ge=1, description="lifetime of an L2 entry")
    redis_password: SecretStr | None = Field(default=None, description="Redis AUTH password (or put it in the URL)")
    redis_backoff_s: float = Field(default=5.0, ge=0, description="after a Redis error, local-only this long")

    # security
    api_token: SecretStr | None = Field(default=None, description="bearer token required on /v1/* when set")

    def limits(self) -> Limits:
        """The worker runtime's knobs."""
        return Limits(workers=self.workers, queue_size=self.queue_size, retry_after_s=self.retry_after_s,
                      recycle_after=self.recycle_after, grace_ms=self.grace_ms,
                      prepare_limit_ms=self.prepare_limit_ms, max_timeout_ms=self.max_timeout_ms,
                      boot_limit_s=self.boot_limit_s)
