"""Every room carries the rules version of the engine that plays it.

Revision ID: 0002_rules_version
Revises: 0001_baseline
Create Date: 2026-12-01

Rooms stored before this revision were played by the first release, whose
engines play rules version "1" (Scout and Waschbär-Schmaus alike): the
column's default (docs/storage.md, "Rules versions").
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from spieltisch.server.migrations import table

revision: str = "0002_rules_version"
down_revision: str | Sequence[str] | None = "0001_baseline"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

FIRST_RELEASE = "1"
"""The rules version the first release's engines played."""


def upgrade() -> None:
    with op.batch_alter_table(table("rooms")) as batch:
        batch.add_column(
            sa.Column("rules_version", sa.String(32), nullable=False, server_default=FIRST_RELEASE)
        )


def downgrade() -> None:
    with op.batch_alter_table(table("rooms")) as batch:
        batch.drop_column("rules_version")
