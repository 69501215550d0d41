"""Accounts, sessions, passkeys, blocks and ratings; seats of accounts and rated rooms.

Revision ID: 0008_accounts
Revises: 0007_invite_keys
Create Date: 2026-12-06

* ``accounts(id, name, name_key, password_hash, created)``: claimed names (optional
  identity, docs/accounts.md); ``name_key`` (unique) is the name folded for comparison;
* ``sessions(token_hash, account, created, seen)``: signed-in browsers (the cookie's
  token is stored only as its SHA-256);
* ``passkeys(credential, account, public_key, sign_count, created)`` and
  ``challenges(id, challenge, account, name, created)``: WebAuthn credentials and the
  challenges waiting for an answer;
* ``blocks(account, blocked, created)``: a player's block list;
* ``ratings(account, game, mu, sigma, games, updated)`` and
  ``rating_history(account, game, room, mu, sigma, at)``: OpenSkill ratings per game;
* ``seats.account`` (nullable, indexed): the account that sits there;
  ``rooms.rated`` (default false): a rated game.

New tables and a nullable or defaulted column each: every room stored before stays
valid (anonymous seats, unrated).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from spieltisch.server.migrations import table

revision: str = "0008_accounts"
down_revision: str | Sequence[str] | None = "0007_invite_keys"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    accounts = table("accounts")
    op.create_table(
        accounts,
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("name_key", sa.String(128), nullable=False),
        sa.Column("password_hash", sa.String(256), nullable=True),
        sa.Column("created", sa.Float(), nullable=False),
    )
    op.create_index(f"ix_{accounts}_name_key", accounts, ["name_key"], unique=True)
    account_fk = f"{accounts}.id"
    op.create_table(
        table("sessions"),
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("account", sa.String(32), sa.ForeignKey(account_fk), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
        sa.Column("seen", sa.Float(), nullable=False),
    )
    op.create_index(f"ix_{table('sessions')}_account", table("sessions"), ["account"])
    op.create_table(
        table("passkeys"),
        sa.Column("credential", sa.String(512), primary_key=True),
        sa.Column("account", sa.String(32), sa.ForeignKey(account_fk), nullable=False),
        sa.Column("public_key", sa.LargeBinary(), nullable=False),
        sa.Column("sign_count", sa.Integer(), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
    )
    op.create_index(f"ix_{table('passkeys')}_account", table("passkeys"), ["account"])
    op.create_table(
        table("challenges"),
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("challenge", sa.LargeBinary(), nullable=False),
        sa.Column("account", sa.String(32), nullable=True),
        sa.Column("name", sa.String(64), nullable=True),
        sa.Column("created", sa.Float(), nullable=False),
    )
    op.create_table(
        table("blocks"),
        sa.Column("account", sa.String(32), sa.ForeignKey(account_fk), primary_key=True),
        sa.Column("blocked", sa.String(32), sa.ForeignKey(account_fk), primary_key=True),
        sa.Column("created", sa.Float(), nullable=False),
    )
    op.create_index(f"ix_{table('blocks')}_blocked", table("blocks"), ["blocked"])
    op.create_table(
        table("ratings"),
        sa.Column("account", sa.String(32), sa.ForeignKey(account_fk), primary_key=True),
        sa.Column("game", sa.String(32), primary_key=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("updated", sa.Float(), nullable=False),
    )
    op.create_index(f"ix_{table('ratings')}_game", table("ratings"), ["game"])
    op.create_table(
        table("rating_history"),
        sa.Column("account", sa.String(32), sa.ForeignKey(account_fk), primary_key=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("room", sa.String(16), primary_key=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
    )
    with op.batch_alter_table(table("rooms")) as batch:
        batch.add_column(sa.Column("rated", sa.Boolean(), nullable=False, server_default="0"))
    with op.batch_alter_table(table("seats")) as batch:
        batch.add_column(sa.Column("account", sa.String(32), nullable=True))
        batch.create_index(f"ix_{table('seats')}_account", ["account"])


def downgrade() -> None:
    with op.batch_alter_table(table("seats")) as batch:
        batch.drop_index(f"ix_{table('seats')}_account")
        batch.drop_column("account")
    with op.batch_alter_table(table("rooms")) as batch:
        batch.drop_column("rated")
    for name in ("rating_history", "ratings", "blocks", "challenges", "passkeys", "sessions", "accounts"):
        op.drop_table(table(name))
