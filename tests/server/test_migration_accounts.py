"""Alembic revision 0008_accounts (docs/accounts.md, docs/storage.md): the upgrade adds the
account tables, ``seats.account`` and ``rooms.rated`` and keeps every stored room
(anonymous, unrated); the downgrade takes them away again and keeps every game."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command as alembic_command
from server_harness import migration_revision

from spieltisch.server import migrate
from spieltisch.server.store import RoomRow, SeatRow, Store

POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
TABLES = ("accounts", "sessions", "passkeys", "challenges", "blocks", "ratings", "rating_history")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'store.db'}", ""
        return
    try:
        sa.create_engine(POSTGRES).connect().close()
    except Exception as exc:  # pragma: no cover - depends on the machine
        pytest.skip(f"PostgreSQL not reachable: {exc}")
    prefix = f"a{uuid.uuid4().hex[:10]}_"
    yield POSTGRES, prefix
    Store(POSTGRES, prefix=prefix).drop()


def test_the_revision_follows_bot_memory() -> None:
    rev = migration_revision("0008_accounts")
    assert (rev.revision, rev.down_revision) == ("0008_accounts", "0007_invite_keys")


def test_downgrade_and_upgrade_keep_the_stored_rooms(database: tuple[str, str]) -> None:
    url, prefix = database
    engine = sa.create_engine(url)
    try:  # a store as the release before this revision left it, with a game in it
        migrate.upgrade(url, prefix, engine=engine, revision="0007_invite_keys")
        with engine.begin() as conn:
            assert f"{prefix}accounts" not in sa.inspect(conn).get_table_names()
            conn.execute(
                sa.text(
                    f"INSERT INTO {prefix}rooms (code, game, players, options, seed, bot_delay, status, "
                    "created) VALUES ('OLDONE', 'scout', 3, '{}', 7, 0, 'waiting', 1.0)"
                )
            )
            conn.execute(
                sa.text(
                    f"INSERT INTO {prefix}seats (room, seat, kind, name, taken) VALUES "
                    "('OLDONE', 0, 'human', 'Alice', true), ('OLDONE', 1, 'human', NULL, false), "
                    "('OLDONE', 2, 'bot', NULL, true)"
                )
            )
    finally:
        engine.dispose()
    store = Store(url, prefix=prefix)  # upgraded when it opens
    try:
        row = store.load("OLDONE")
        assert row is not None and row.rated is False and [s.account for s in row.seats] == [None] * 3
        with store.engine.connect() as conn:
            assert migrate.differences(conn, store.metadata, prefix) == []
        seats = [SeatRow(0, "human", name="Ada", secret_hash="h", taken=True, account="a1")]
        store.create_room(RoomRow("NEWONE", "scout", 1, {}, 1, 0.0, "playing", seats, rated=True))
    finally:
        store.close()
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            alembic_command.downgrade(migrate.alembic_config(conn, prefix), "0007_invite_keys")
            names = sa.inspect(conn).get_table_names()
            assert not {f"{prefix}{t}" for t in TABLES} & set(names)
            columns = {c["name"] for c in sa.inspect(conn).get_columns(f"{prefix}seats")}
            assert "account" not in columns
            codes = set(conn.execute(sa.text(f"SELECT code FROM {prefix}rooms")).scalars())
            assert codes == {"OLDONE", "NEWONE"}
    finally:
        engine.dispose()
