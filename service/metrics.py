"""Prometheus metrics of one app instance, in its own registry (no process-wide globals).

Exposed as text at ``GET /metrics``. Names are prefixed ``symguard_``.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)


class Metrics:
    """Every counter the service keeps; one instance per ``create_app``."""

    def __init__(self) -> None:
        r = self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter("symguard_requests", "HTTP requests by route and status code",
                                ["route", "code"], registry=r)
        self.latency = Histogram("symguard_request_seconds", "request latency by route", ["route"],
                                 buckets=_BUCKETS, registry=r)
        self.cache_hits = Counter("symguard_cache_hits", "answers served from a cache, by layer "
                                  "(exact: byte-identical request; local: canonical LRU; redis: shared L2; "
                                  "coalesced: waited for the same problem computed concurrently)",
                                  ["layer"], registry=r)
        self.cache_rejected = Counter("symguard_cache_rejected", "cached entries that failed their schema or "
                                      "self-check (a corrupt or tampered Redis entry) and were computed afresh",
                                      registry=r)
        self.cache_misses = Counter("symguard_cache_misses", "answers computed by a worker", registry=r)
        self.outcomes = Counter("symguard_solver_outcomes", "results by operation and status",
                                ["op", "status"], registry=r)
        self.worker_restarts = Counter("symguard_worker_restarts", "worker processes replaced, by reason "
                                       "(timeout, crash, recycle, boot)", ["reason"], registry=r)
        self.redis_errors = Counter("symguard_redis_errors", "failed or slow Redis calls (served locally)",
                                    registry=r)
        self.queue_depth = Gauge("symguard_queue_depth", "requests waiting for a worker", registry=r)
        self.workers_busy = Gauge("symguard_workers_busy", "workers answering a request", registry=r)
        self.overloaded = Counter("symguard_overloaded", "requests refused with 503", registry=r)
        self.deadline_cuts = Counter("symguard_deadline_cuts", "requests the server answered at their deadline "
                                     "without waiting for a worker, by where the request was (arrival: too late for a "
                                     "worker to start; queued; reading; solving)", ["stage"], registry=r)

    def render(self) -> bytes:
        return generate_latest(self.registry)
