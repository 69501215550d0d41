"""Fixtures of the web table tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from server_harness import ServerThread


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'spieltisch.db'}"


@pytest.fixture
def server(db_url: str) -> Iterator[ServerThread]:
    srv = ServerThread(db_url)
    yield srv
    srv.stop()
