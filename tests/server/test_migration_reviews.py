"""Alembic revision 0004_reviews (docs/review.md, "Storage"): on a store's tables
from before it, the upgrade adds ``reviews`` and ``rooms.hints`` (false for the
rooms already stored) with the store's table prefix; the downgrade takes both away."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

pytest.importorskip("alembic")
from alembic.migration import MigrationContext
from alembic.operations import Operations
from server_harness import migration_revision


def test_upgrade_and_downgrade_keep_the_stored_rooms(tmp_path: Path) -> None:
    rev = migration_revision("0004_reviews")
    assert (rev.revision, rev.down_revision) == ("0004_reviews", "0003_clocks")
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'old.db'}")
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE t_rooms (code VARCHAR(16) PRIMARY KEY, status VARCHAR(16))")
        conn.exec_driver_sql("INSERT INTO t_rooms VALUES ('ABCDEF', 'over')")
        context = MigrationContext.configure(conn, opts={"prefix": "t_"})
        with Operations.context(context):
            rev.upgrade()
        inspector = sa.inspect(conn)
        assert {"t_rooms", "t_reviews"} <= set(inspector.get_table_names())
        assert {c["name"] for c in inspector.get_columns("t_reviews")} == {
            "room", "seat", "budget", "result", "created",
        }  # fmt: skip
        assert conn.exec_driver_sql("SELECT code, hints FROM t_rooms").fetchall() == [("ABCDEF", 0)]
        with Operations.context(context):
            rev.downgrade()
        assert "t_reviews" not in sa.inspect(conn).get_table_names()
        assert conn.exec_driver_sql("SELECT * FROM t_rooms").fetchall() == [("ABCDEF", "over")]
