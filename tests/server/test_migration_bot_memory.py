"""Alembic revision 0005_bot_memory (docs/storage.md, "Bot memory"): the upgrade adds
``bot_memory`` with the store's table prefix and keeps the rooms already stored; the
downgrade takes it away again, with the memories in it, and keeps every game; upgraded
again, the store is at the head and its games play on (their bots start afresh)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command as alembic_command
from alembic.migration import MigrationContext
from alembic.operations import Operations
from server_harness import migration_revision

from spieltisch.server import migrate
from spieltisch.server.store import RoomRow, SeatRow, Store

POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def test_upgrade_and_downgrade_keep_the_stored_rooms(tmp_path: Path) -> None:
    rev = migration_revision("0005_bot_memory")
    assert (rev.revision, rev.down_revision) == ("0005_bot_memory", "0004_reviews")
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'old.db'}")
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE t_rooms (code VARCHAR(16) PRIMARY KEY, status VARCHAR(16))")
        conn.exec_driver_sql("INSERT INTO t_rooms VALUES ('ABCDEF', 'playing')")
        context = MigrationContext.configure(conn, opts={"prefix": "t_"})
        with Operations.context(context):
            rev.upgrade()
        inspector = sa.inspect(conn)
        assert {"t_rooms", "t_bot_memory"} <= set(inspector.get_table_names())
        assert {c["name"] for c in inspector.get_columns("t_bot_memory")} == {"room", "seat", "idx", "memory"}
        assert inspector.get_pk_constraint("t_bot_memory")["constrained_columns"] == ["room", "seat"]
        conn.exec_driver_sql("INSERT INTO t_bot_memory VALUES ('ABCDEF', 1, 0, x'00')")
        with Operations.context(context):
            rev.downgrade()
        assert "t_bot_memory" not in sa.inspect(conn).get_table_names()
        assert conn.exec_driver_sql("SELECT * FROM t_rooms").fetchall() == [("ABCDEF", "playing")]
    engine.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """``(url, prefix)`` of an empty database: a SQLite file, or fresh tables on PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'store.db'}", ""
        return
    try:
        sa.create_engine(POSTGRES).connect().close()
    except Exception as exc:  # pragma: no cover - depends on the machine
        pytest.skip(f"PostgreSQL not reachable: {exc}")
    prefix = f"m{uuid.uuid4().hex[:10]}_"
    yield POSTGRES, prefix
    Store(POSTGRES, prefix=prefix).drop()


def test_a_store_with_memories_downgrades_and_upgrades_again(database: tuple[str, str]) -> None:
    url, prefix = database
    store = Store(url, prefix=prefix)
    seats = [SeatRow(0, "human", name="Alice", secret_hash="h", taken=True), SeatRow(1, "bot", "hard")]
    store.create_room(RoomRow("DOWNUP", "scout", 2, {}, 1, 0.0, "playing", seats))
    store.append_actions("DOWNUP", 0, [(0, "keep"), (1, "flip")], memory=(1, b"remembered"))
    assert store.load_bot_memory("DOWNUP") == {1: (1, b"remembered")}
    store.close()

    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            alembic_command.downgrade(migrate.alembic_config(conn, prefix), "0004_reviews")
            assert f"{prefix}bot_memory" not in sa.inspect(conn).get_table_names()
    finally:
        engine.dispose()
    assert migrate.current(url, prefix).current == "0004_reviews"

    store = Store(url, prefix=prefix)  # upgraded again when it opens
    try:
        assert migrate.current(url, prefix).current == migrate.head()  # (0005_bot_memory or a later one)
        with store.engine.connect() as conn:
            assert migrate.differences(conn, store.metadata, prefix) == []
        row = store.load("DOWNUP")
        assert row is not None and row.actions == [(0, "keep"), (1, "flip")]
        assert store.load_bot_memory("DOWNUP") == {}  # gone with the downgrade: the bot starts afresh
    finally:
        store.close()
