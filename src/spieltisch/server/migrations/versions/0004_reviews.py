"""Reviews of finished games, and the room option "hints allowed".

* ``reviews(room, seat, budget, result, created)``: one stored review per seat
  of a finished game and review budget (docs/review.md, "Storage").
* ``rooms.hints``: whether the room allows hints (default false, so every
  room stored before keeps its behaviour).

Revision ID: 0004_reviews
Revises: 0003_clocks
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_reviews"
down_revision = "0003_clocks"
branch_labels = None
depends_on = None


def _prefix() -> str:
    """The store's table-name prefix (``Store(url, prefix=...)``): from the Alembic
    config's attributes, or from the options the environment configured."""
    context = op.get_context()
    config = context.config
    if config is not None and "prefix" in config.attributes:
        return str(config.attributes["prefix"] or "")
    return str(context.opts.get("prefix", "") or "")


def upgrade() -> None:
    p = _prefix()
    op.create_table(
        f"{p}reviews",
        sa.Column("room", sa.String(16), sa.ForeignKey(f"{p}rooms.code"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("budget", sa.String(32), primary_key=True),
        sa.Column("result", sa.Text, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    with op.batch_alter_table(f"{p}rooms") as batch:  # batch: SQLite cannot add with every option
        batch.add_column(sa.Column("hints", sa.Boolean, nullable=False, server_default=sa.false()))


def downgrade() -> None:
    p = _prefix()
    with op.batch_alter_table(f"{p}rooms") as batch:
        batch.drop_column("hints")
    op.drop_table(f"{p}reviews")
