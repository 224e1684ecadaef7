"""The fast/slow split: ``pytest -m "not slow"`` is the quick loop (about 3 minutes of CPU), plain
``pytest`` the whole suite (what CI runs).

Slow, by module: what starts servers, worker pools or subprocesses, what imports torch or traces
models, the cvc5/brute-force cross-check and the corpus replays. Slow, by name: the hypothesis
differential tests against brute-force enumeration (hundreds of solver runs each). Both lists live
here so that the policy is read in one place.

Hypothesis explores new examples on every local run; with ``CI`` set (``.ci/run`` sets it) it
runs the ``ci`` profile, derandomized: the same examples on every run, so a CI verdict is a
property of the commit, not of the draw. The exploring is done where its findings can be turned
into fixed regression tests.

No process outlives the run: every process a test starts inherits ``SYMGUARD_TEST_RUN``
(``proc_helpers``); at the end of the session any still alive after a grace period is killed and
the run fails, naming them.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings
from proc_helpers import MARK, kill, wait_gone

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

RUN = f"pytest-{os.getpid()}"
os.environ[MARK] = RUN
LEFTOVER_GRACE_S = 10.0

SLOW_MODULES = frozenset({
    "test_api_fuzz", "test_batch", "test_corpus_torch", "test_crosscheck", "test_docs_offline", "test_faults",
    "test_fuzz",
    "test_prune_demo", "test_service_client", "test_service_redis", "test_service_server",
    "test_service_workers", "test_shrink_model", "test_torch_bridge", "test_service_contexts",
    "test_contexts_fast_path",
})

SLOW_TESTS = frozenset({
    "test_solve_agrees_with_enumeration", "test_rewriting_under_facts_is_exact_where_the_facts_hold",
    "test_redundancy_verdicts_hold_on_every_point", "test_masks_match_python_at_every_point",
    "test_decide_agrees_with_every_point", "test_key_invariant_and_answers_mapped_back",
    "test_prefer_order_and_cheap_are_both_valid", "test_refuting_points_satisfy_the_kept_guards",
    "test_never_certifies_a_bounded_set", "test_banned_sources_are_not_used", "test_conditions_keep_their_truth",
    "test_exported_floor_division_keeps_python_semantics", "test_evaluate_matches_enumeration",
    "test_shrink_matches_enumeration",
})


# Scheduling (``-n auto --dist worksteal``, pyproject.toml): each worker starts on one contiguous half
# of the collection and, when it runs dry, takes the tail of the other's queue, so a module stays
# in one piece (its module-scoped fixture, a compile or a server, is made once) and tests next to
# each other run in one worker. The tests that read one real set (``real_set`` mark,
# tests/corpus_runs.py: test_corpus_budget's and test_corpus_torch's) are put next to each other,
# where the first of them is, so one worker solves the set once for all of them. Nothing here
# changes what a test checks, only where and when it runs.


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1] if item.module else ""
        if (module in SLOW_MODULES or getattr(item, "originalname", item.name) in SLOW_TESTS
                or "/generated/" in str(item.path).replace("\\", "/")):
            item.add_marker(pytest.mark.slow)
    sets = [i for i, item in enumerate(items) if item.get_closest_marker("real_set")]
    if sets:
        place = {id(item): (i, "") for i, item in enumerate(items)}
        for i in sets:
            place[id(items[i])] = (sets[0], str(items[i].get_closest_marker("real_set").args[0]))  # type: ignore[union-attr]
        items.sort(key=lambda item: place[id(item)])  # stable: a set's tests keep their order


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    left = wait_gone(RUN, LEFTOVER_GRACE_S, exclude=frozenset({os.getpid()}))
    if left:
        names = []
        for pid in left:
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(bytes(1), b" ").decode(errors="replace")
                names.append(f"{pid}: {cmd[:120]}")
            except OSError:
                names.append(str(pid))
        kill(left)
        session.config.get_terminal_writer().line(
            "processes started by the tests outlived them (killed now):\n  " + "\n  ".join(names), red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
