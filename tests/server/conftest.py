"""Fixtures of the web table tests."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from server_harness import ServerThread

from spieltisch.server.store import Store

POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'spieltisch.db'}"


@pytest.fixture
def server(db_url: str) -> Iterator[ServerThread]:
    srv = ServerThread(db_url)
    yield srv
    srv.stop()


@pytest.fixture
def postgres_store() -> Iterator[Store]:
    try:
        store = Store(POSTGRES, prefix=f"t{uuid.uuid4().hex[:10]}_")
    except Exception as exc:  # pragma: no cover - depends on the machine
        if os.environ.get("SPIELTISCH_REQUIRE_POSTGRES"):  # CI: a skip would hide a missing server
            raise
        pytest.skip(f"PostgreSQL not reachable: {exc}")
    yield store
    store.drop()


REDIS = "redis://127.0.0.1:6379/0"


@dataclass
class ClusterEnv:
    """Where a test's workers keep their games: PostgreSQL tables and Redis keys named
    with the test's own ``prefix`` (dropped and deleted afterwards)."""

    database: str
    redis: str
    prefix: str


@pytest.fixture(scope="module")
def cluster_env() -> Iterator[ClusterEnv]:
    import redis

    prefix = f"t{uuid.uuid4().hex[:10]}_"
    try:
        client = redis.Redis.from_url(REDIS, socket_connect_timeout=2)
        client.ping()
        store = Store(POSTGRES, prefix=prefix)
    except Exception as exc:  # pragma: no cover - depends on the machine
        if os.environ.get("SPIELTISCH_REQUIRE_POSTGRES") or os.environ.get("SPIELTISCH_REQUIRE_REDIS"):
            raise  # CI: a skip would hide a missing server
        pytest.skip(f"PostgreSQL or Redis not reachable: {exc}")
    try:
        yield ClusterEnv(POSTGRES, REDIS, prefix)
    finally:
        store.drop()
        keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
        if keys:
            client.delete(*keys)
        client.close()
