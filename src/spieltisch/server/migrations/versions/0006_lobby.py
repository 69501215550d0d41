"""The lobby, quick play and turn-based games: public rooms, the quick-play queue, seats' e-mail.

Revision ID: 0006_lobby
Revises: 0005_bot_memory
Create Date: 2026-12-06

* ``rooms.public``: the room is listed in the lobby while it waits for players
  (false for every room stored before: they were opened for their invite links).
* ``quickplay(ticket, game, players, name, bots, bots_after, created, seen, room, seat, account)``:
  one row per player waiting for a quick-play game (``ticket``: the hash of the
  ticket the player holds, which is also their seat's secret once seated); ``room``
  and ``seat`` are set, in the transaction that stores the room, when the player is
  seated (docs/storage.md, "Lobby and quick play").
* ``seats.email``, ``seats.lang``: where (and in which language) a turn-based game
  tells the seat's player that it is their turn (docs/web.md, "Turn-based games");
  empty for every seat stored before.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from spieltisch.server.migrations import table

revision: str = "0006_lobby"
down_revision: str | Sequence[str] | None = "0005_bot_memory"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        table("rooms"), sa.Column("public", sa.Boolean(), nullable=False, server_default=sa.false())
    )
    op.add_column(table("seats"), sa.Column("email", sa.String(254), nullable=True))
    op.add_column(table("seats"), sa.Column("lang", sa.String(8), nullable=True))
    op.create_table(
        table("quickplay"),
        sa.Column("ticket", sa.String(64), primary_key=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("bots", sa.String(64), nullable=False),
        sa.Column("bots_after", sa.Float(), nullable=True),
        sa.Column("created", sa.Float(), nullable=False),
        sa.Column("seen", sa.Float(), nullable=False),
        sa.Column("room", sa.String(16), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("account", sa.String(32), nullable=True),
    )
    op.create_index(
        f"ix_{table('quickplay')}_queue", table("quickplay"), ["game", "players", "room", "created"]
    )


def downgrade() -> None:
    op.drop_index(f"ix_{table('quickplay')}_queue", table_name=table("quickplay"))
    op.drop_table(table("quickplay"))
    with op.batch_alter_table(table("seats")) as batch:
        batch.drop_column("lang")
        batch.drop_column("email")
    with op.batch_alter_table(table("rooms")) as batch:
        batch.drop_column("public")
