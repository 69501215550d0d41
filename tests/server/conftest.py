"""Fixtures of the web table tests."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
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
