"""Reviews of finished games, and the room option "hints allowed".

Revision ID: 0004_reviews
Revises: 0003_clocks
Create Date: 2026-12-01

* ``reviews(room, seat, budget, result, created)``: one stored review per seat
  of a finished game and review budget (docs/review.md, "Storage");
* ``rooms.hints``: whether the room allows hints (default false, so every room
  stored before keeps its behaviour).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from spieltisch.server.migrations import table

revision: str = "0004_reviews"
down_revision: str | Sequence[str] | None = "0003_clocks"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        table("reviews"),
        sa.Column("room", sa.String(16), sa.ForeignKey(f"{table('rooms')}.code"), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("budget", sa.String(32), primary_key=True),
        sa.Column("result", sa.Text(), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
    )
    with op.batch_alter_table(table("rooms")) as batch:
        # A literal default ('0' is false on SQLite and PostgreSQL alike): SQLite adds the
        # column in place, so `spieltisch db upgrade --sql` can print it (no table copy).
        batch.add_column(sa.Column("hints", sa.Boolean(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table(table("rooms")) as batch:
        batch.drop_column("hints")
    op.drop_table(table("reviews"))
