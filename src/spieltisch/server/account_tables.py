"""The tables of accounts, sessions, passkeys, blocks and ratings (docs/accounts.md).

They are part of the store's schema (:class:`~spieltisch.server.store.Store` defines
them with its own tables, under its prefix) and are made by the migration
``0008_accounts``, which they must match (a test compares them). ``seats.account`` and
``rooms.rated`` (the same migration) are in :mod:`spieltisch.server.store`.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Column, Float, ForeignKey, Integer, LargeBinary, MetaData, String, Table


@dataclass(frozen=True)
class AccountTables:
    accounts: Table
    """``accounts(id, name, name_key, password_hash, created)``: ``name_key`` is the name
    folded for comparison (:func:`spieltisch.server.names.name_key`), unique."""
    sessions: Table
    """``sessions(token_hash, account, created, seen)``: the SHA-256 of the session cookie's
    token (the token itself is never stored)."""
    passkeys: Table
    """``passkeys(credential, account, public_key, sign_count, created)``: WebAuthn credentials."""
    challenges: Table
    """``challenges(id, challenge, account, name, created)``: WebAuthn challenges waiting for
    their answer (any worker may get it), deleted when used or stale: ``account`` for a passkey
    added to an account, ``name`` for a sign-up with a passkey."""
    blocks: Table
    """``blocks(account, blocked, created)``: ``account`` does not want to play with ``blocked``."""
    ratings: Table
    """``ratings(account, game, mu, sigma, games, updated)``: each account's current rating per game."""
    rating_history: Table
    """``rating_history(account, game, room, mu, sigma, at)``: the rating after each rated game."""

    @classmethod
    def define(cls, md: MetaData, prefix: str) -> AccountTables:
        accounts = Table(
            f"{prefix}accounts",
            md,
            Column("id", String(32), primary_key=True),
            Column("name", String(64), nullable=False),
            Column("name_key", String(128), nullable=False, unique=True, index=True),
            Column("password_hash", String(256), nullable=True),
            Column("created", Float, nullable=False),
        )
        account_fk = f"{prefix}accounts.id"
        sessions = Table(
            f"{prefix}sessions",
            md,
            Column("token_hash", String(64), primary_key=True),
            Column("account", String(32), ForeignKey(account_fk), nullable=False, index=True),
            Column("created", Float, nullable=False),
            Column("seen", Float, nullable=False),
        )
        passkeys = Table(
            f"{prefix}passkeys",
            md,
            Column("credential", String(512), primary_key=True),
            Column("account", String(32), ForeignKey(account_fk), nullable=False, index=True),
            Column("public_key", LargeBinary, nullable=False),
            Column("sign_count", Integer, nullable=False),
            Column("created", Float, nullable=False),
        )
        challenges = Table(
            f"{prefix}challenges",
            md,
            Column("id", String(64), primary_key=True),
            Column("challenge", LargeBinary, nullable=False),
            Column("account", String(32), nullable=True),
            Column("name", String(64), nullable=True),
            Column("created", Float, nullable=False),
        )
        blocks = Table(
            f"{prefix}blocks",
            md,
            Column("account", String(32), ForeignKey(account_fk), primary_key=True),
            Column("blocked", String(32), ForeignKey(account_fk), primary_key=True, index=True),
            Column("created", Float, nullable=False),
        )
        ratings = Table(
            f"{prefix}ratings",
            md,
            Column("account", String(32), ForeignKey(account_fk), primary_key=True),
            Column("game", String(32), primary_key=True, index=True),
            Column("mu", Float, nullable=False),
            Column("sigma", Float, nullable=False),
            Column("games", Integer, nullable=False),
            Column("updated", Float, nullable=False),
        )
        history = Table(
            f"{prefix}rating_history",
            md,
            Column("account", String(32), ForeignKey(account_fk), primary_key=True),
            Column("game", String(32), nullable=False),
            Column("room", String(16), primary_key=True),
            Column("mu", Float, nullable=False),
            Column("sigma", Float, nullable=False),
            Column("at", Float, nullable=False),
        )
        return cls(accounts, sessions, passkeys, challenges, blocks, ratings, history)
