"""Suite-wide hooks: how pytest-xdist (``pytest -n 2``, as scripts/test runs it) shares
the tests out among its workers. Without ``-n`` none of this changes anything."""

from __future__ import annotations

from typing import Any

import pytest

SHARED_SETUP = (
    "tests/browser/",  # one live server a session (browser/conftest.py)
    "tests/rl/test_ppo_example.py",  # the model its module fixture trains
    "tests/server/test_cluster.py",  # the module's three server workers
    "tests/server/test_cluster_limits.py",  # two workers behind proxies
    "tests/server/test_cluster_outage.py",  # two workers behind proxies
)
"""Tests whose expensive session or module fixture they share: each entry's tests go to
one worker together, so it is set up once, not once on each worker."""


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On a worker, the tests marked ``slow`` come first (otherwise in their order), so
    they are handed out at the start: a minutes-long test handed out last keeps one worker
    busy while the other has nothing left to do. Without xdist the order stays as
    collected (a module's tests together, so its fixtures start once)."""
    if hasattr(config, "workerinput"):
        items.sort(key=lambda item: item.get_closest_marker("slow") is None)


try:
    from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]
except ImportError:  # pragma: no cover - pytest-xdist is a dev dependency
    pass
else:

    class SharedSetupScheduling(LoadScopeScheduling):  # type: ignore[misc]
        """xdist's default ``--dist load`` (any test to any idle worker), except that the
        tests of each :data:`SHARED_SETUP` entry form one unit of work. (xdist's own
        ``--dist loadgroup`` does this by ``xdist_group`` marks, but it does not group at
        all under pytest 9.2: pytest-dev/pytest-xdist#1386.) Units with more tests are
        handed out first, then the single tests in collection order."""

        def _split_scope(self, nodeid: str) -> str:
            return next((entry for entry in SHARED_SETUP if nodeid.startswith(entry)), nodeid)

    def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
        """:class:`SharedSetupScheduling` in place of ``--dist load`` (what ``-n`` uses)."""
        if config.getvalue("dist") != "load":
            return None  # another --dist asked for: xdist's own
        return SharedSetupScheduling(config, log)
