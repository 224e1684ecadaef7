"""Service settings: pydantic-settings with the ``SYMGUARD_`` prefix, built once and injected.

Nothing reads the environment at import: ``create_app(Settings())`` (or a test's own
``Settings(workers=1, …)``) decides. Every limit the service enforces lives here.
"""

from __future__ import annotations

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


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
    max_timeout_ms: int = Field(default=60_000, ge=1, description="options.timeout_ms above this is capped")
    boot_limit_s: float = Field(default=120.0, gt=0, description="a fresh worker must be ready within this")

    # request limits
    max_body_bytes: int = Field(default=8 * 1024 * 1024, ge=1024, description="larger bodies get 413")
    batch_max_items: int = Field(default=1000, ge=1, description="items per /v1/batch request")

    # caches
    cache_size: int = Field(default=10_000, ge=0, description="canonical results kept in the local LRU")
    exact_cache_size: int = Field(default=2_000, ge=0, description="byte-identical requests kept (fast path)")
    redis_url: str | None = Field(default=None, description="shared L2 cache, e.g. redis://redis:6379/0")
    redis_timeout_ms: int = Field(default=100, ge=1, description="per Redis call; slower counts as an error")
    redis_ttl_s: int = Field(default=7 * 24 * 3600, ge=1, description="lifetime of an L2 entry")
    redis_backoff_s: float = Field(default=5.0, ge=0, description="after a Redis error, local-only this long")

    # security
    api_token: SecretStr | None = Field(default=None, description="bearer token required on /v1/* when set")
