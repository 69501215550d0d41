"""The tables of the first release (before migrations): rooms, seats, actions.

Revision ID: 0001_baseline
Revises:
Create Date: 2026-12-01

A database that the first release made (``metadata.create_all``, no version
table) already has them: :func:`spieltisch.server.migrate.upgrade` stamps it at
this revision instead of running it.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from spieltisch.server.migrations import table

revision: str = "0001_baseline"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    rooms = table("rooms")
    op.create_table(
        rooms,
        sa.Column("code", sa.String(16), primary_key=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("options", sa.Text, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("bot_delay", sa.Float, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("rematch", sa.String(16), nullable=True),
        sa.Column("rematch_of", sa.String(16), nullable=True),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_index(f"ix_{rooms}_status", rooms, ["status"])
    op.create_table(
        table("seats"),
        sa.Column("room", sa.String(16), sa.ForeignKey(f"{rooms}.code"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("level", sa.String(64), nullable=True),
        sa.Column("name", sa.String(64), nullable=True),
        sa.Column("secret_hash", sa.String(128), nullable=True),
        sa.Column("taken", sa.Boolean, nullable=False),
        sa.Column("claim_from", sa.String(16), nullable=True),
    )
    op.create_table(
        table("actions"),
        sa.Column("room", sa.String(16), sa.ForeignKey(f"{rooms}.code"), primary_key=True),
        sa.Column("idx", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("text", sa.String(256), nullable=False),
    )


def downgrade() -> None:
    op.drop_table(table("actions"))
    op.drop_table(table("seats"))
    op.drop_index(f"ix_{table('rooms')}_status", table_name=table("rooms"))
    op.drop_table(table("rooms"))
