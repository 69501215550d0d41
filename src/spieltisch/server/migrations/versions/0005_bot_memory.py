"""Bot memory: each bot seat's memory after its last decision, stored with that move.

Revision ID: 0005_bot_memory
Revises: 0004_reviews
Create Date: 2026-12-03

* ``bot_memory(room, seat, idx, memory)``: one row per bot seat (a stand-in's too),
  replaced with every move the bot makes: ``memory`` the bot after that decision
  (a zlib-compressed pickle), ``idx`` the log index of the move it was stored with.
  A room loaded after a restart, a takeover or a handoff gives it back to the seat's
  bot if it still belongs to the seat's last move (docs/storage.md, "Bot memory").

A new table: the rooms stored before have no row in it, and their bots start
afresh after the upgrade, as every bot did after a restart before this revision.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from spieltisch.server.migrations import table

revision: str = "0005_bot_memory"
down_revision: str | Sequence[str] | None = "0004_reviews"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        table("bot_memory"),
        sa.Column("room", sa.String(16), sa.ForeignKey(f"{table('rooms')}.code"), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("idx", sa.Integer(), nullable=False),
        sa.Column("memory", sa.LargeBinary(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table(table("bot_memory"))
