"""Alembic revision 0006_lobby (docs/storage.md, "Lobby and quick play"): the upgrade adds
``rooms.public`` (false for every room stored before: they were opened for their invite
links), ``seats.email`` and ``seats.lang`` (empty) and the ``quickplay`` queue; the
downgrade takes them away and keeps every room and seat."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic.migration import MigrationContext
from alembic.operations import Operations
from server_harness import migration_revision


def test_upgrade_and_downgrade_keep_the_stored_rooms(tmp_path: Path) -> None:
    rev = migration_revision("0006_lobby")
    assert rev.revision == "0006_lobby"
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'old.db'}")
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE t_rooms (code VARCHAR(16) PRIMARY KEY, status VARCHAR(16))")
        conn.exec_driver_sql("INSERT INTO t_rooms VALUES ('ABCDEF', 'waiting')")
        conn.exec_driver_sql("CREATE TABLE t_seats (room VARCHAR(16), seat INTEGER, name VARCHAR(64))")
        conn.exec_driver_sql("INSERT INTO t_seats VALUES ('ABCDEF', 0, 'Ada')")
        context = MigrationContext.configure(conn, opts={"prefix": "t_"})
        with Operations.context(context):
            rev.upgrade()
        inspector = sa.inspect(conn)
        assert "t_quickplay" in inspector.get_table_names()
        assert inspector.get_pk_constraint("t_quickplay")["constrained_columns"] == ["ticket"]
        assert [i["name"] for i in inspector.get_indexes("t_quickplay")] == ["ix_t_quickplay_queue"]
        assert conn.exec_driver_sql("SELECT code, public FROM t_rooms").fetchall() == [("ABCDEF", 0)]
        seats = conn.exec_driver_sql("SELECT name, email, lang FROM t_seats").fetchall()
        assert seats == [("Ada", None, None)]
        with Operations.context(context):
            rev.downgrade()
        inspector = sa.inspect(conn)
        assert "t_quickplay" not in inspector.get_table_names()
        assert {c["name"] for c in inspector.get_columns("t_rooms")} == {"code", "status"}
        assert conn.exec_driver_sql("SELECT * FROM t_rooms").fetchall() == [("ABCDEF", "waiting")]
        assert conn.exec_driver_sql("SELECT * FROM t_seats").fetchall() == [("ABCDEF", 0, "Ada")]
    engine.dispose()
