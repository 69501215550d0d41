"""Clocks and stand-in bots: move times, who played each move, room activity.

Revision ID: 0003_clocks
Revises: 0002_rules_version

* ``actions.at`` - the server's wall time of the move (the clocks are derived from it);
* ``actions.by`` - NULL for the seat's own player, ``bot:LEVEL`` for a stand-in bot;
* ``rooms.clock`` - the room's clock settings (JSON; NULL: no clock);
* ``rooms.started`` - when the game began (every seat taken);
* ``rooms.active`` - the last join or seat change (abandoned rooms expire from there);
* ``rooms.ended`` - why a game is over without an outcome (``ended``);
* ``seats.left`` - the seat's player resigned or left.

Every new column is nullable or has a default: old rows stay valid. The table
names carry the store's prefix (``op.get_context().opts["prefix"]``, as the
migrations' ``env.py`` sets it).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_clocks"
down_revision: str | Sequence[str] | None = "0002_rules_version"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _prefix() -> str:
    """The store's table-name prefix (``op.get_context().opts["prefix"]``, set by env.py)."""
    return str(op.get_context().opts.get("prefix", ""))


def upgrade() -> None:
    # Plain ADD COLUMN / CREATE INDEX (SQLite has both): no table copy, and the offline
    # SQL (``spieltisch db upgrade --sql``) needs no reflection.
    p = _prefix()
    op.add_column(f"{p}actions", sa.Column("at", sa.Float(), nullable=True))
    op.add_column(f"{p}actions", sa.Column("by", sa.String(72), nullable=True))
    op.add_column(f"{p}rooms", sa.Column("clock", sa.Text(), nullable=True))
    op.add_column(f"{p}rooms", sa.Column("started", sa.Float(), nullable=True))
    op.add_column(f"{p}rooms", sa.Column("active", sa.Float(), nullable=True))
    op.add_column(f"{p}rooms", sa.Column("ended", sa.String(16), nullable=True))
    op.create_index(f"ix_{p}rooms_active", f"{p}rooms", ["active"])
    op.add_column(f"{p}seats", sa.Column("left", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    p = _prefix()
    op.drop_index(f"ix_{p}rooms_active", table_name=f"{p}rooms")
    with op.batch_alter_table(f"{p}seats") as batch:
        batch.drop_column("left")
    with op.batch_alter_table(f"{p}rooms") as batch:
        batch.drop_column("ended")
        batch.drop_column("active")
        batch.drop_column("started")
        batch.drop_column("clock")
    with op.batch_alter_table(f"{p}actions") as batch:
        batch.drop_column("by")
        batch.drop_column("at")
