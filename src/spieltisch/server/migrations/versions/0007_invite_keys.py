"""Invite keys: a long random key per room, carried by its invite link.

Revision ID: 0007_invite_keys
Revises: 0006_lobby
Create Date: 2026-12-06

* ``rooms.invite``: the room's invite key (26 letters of the room code alphabet, 130
  bits), carried by the invite link ``/r/CODE-KEY``; a game that has started opens only
  by it or by a seat's secret, not by its 6-letter code (docs/deploy.md, "Threat model").

Nullable: the rooms stored before have none and open by their code alone, as before, so
their links and codes keep working until they expire.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from spieltisch.server.migrations import table

revision: str = "0007_invite_keys"
down_revision: str | Sequence[str] | None = "0006_lobby"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table(table("rooms")) as batch:
        batch.add_column(sa.Column("invite", sa.String(32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table(table("rooms")) as batch:
        batch.drop_column("invite")
