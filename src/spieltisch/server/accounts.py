"""Accounts: claimed names, passwords, sessions, block lists, deletion (docs/accounts.md).

Playing needs no account: a person without one plays under any free name, as ever.
An account claims a name (:mod:`spieltisch.server.names`) and keeps it across
devices, signed in with a password (hashed with Argon2id by ``argon2-cffi``) or a
passkey (:mod:`spieltisch.server.passkeys`). A sign-in makes a session: a random
token in an HttpOnly cookie, stored only as its SHA-256 (a stolen database holds no
usable session). Deleting an account deletes its sessions, passkeys, blocks and
ratings, and anonymises the games it played: its stored seats keep their moves under
the name :data:`DELETED_NAME`, with no link to the account.

Writes go through the store's group writer (one transaction each); reads run on the
caller's thread (the API calls them in a worker thread).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, insert, or_, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from spieltisch.server.names import check_name, name_key
from spieltisch.server.store import Store, Write

DELETED_NAME = "Deleted player"
"""The name a deleted account's past seats keep."""
SESSION_DAYS = 30.0
"""A session ends this many days after it was last used."""
SEEN_EVERY = 3600.0
"""A session's last use is stored at most this often (seconds): not one write per request."""
MIN_PASSWORD = 8
MAX_PASSWORD = 256
SIGNUP_WINDOW = 3600.0
"""The window of ``accounts_per_hour`` (seconds)."""
HASHER = PasswordHasher()
"""Argon2id with argon2-cffi's current defaults (RFC 9106's low-memory profile)."""


class AccountError(Exception):
    """A refused account request: ``status`` is its HTTP status, ``detail`` says why."""

    def __init__(self, status: int, detail: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.headers = headers


@dataclass(frozen=True)
class Account:
    id: str
    name: str


def hash_token(token: str) -> str:
    """What is stored of a session token (a random 256-bit value: SHA-256 is enough)."""
    return hashlib.sha256(token.encode()).hexdigest()


def check_password(password: str) -> None:
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise AccountError(422, f"password: {MIN_PASSWORD} to {MAX_PASSWORD} characters")


class Signups:
    """Accounts created per client address in the last hour (``accounts_per_hour``; 0: no
    limit), counted in this process. A worker of several counts across all workers
    (:class:`spieltisch.server.cluster.SharedSignups`).

    A sign-up *takes* a place before the account is made and *gives it back* when the
    account could not be made (a name that is taken): so two sign-ups at once cannot both
    pass a check made before either was counted."""

    def __init__(self, per_hour: int) -> None:
        self.per_hour = per_hour
        self._by: dict[str, deque[tuple[float, object]]] = {}

    def _times(self, address: str) -> deque[tuple[float, object]]:
        """``address``'s sign-ups within the window, oldest first (an empty one is forgotten)."""
        times = self._by.get(address, deque())
        now = time.monotonic()
        while times and now - times[0][0] >= SIGNUP_WINDOW:
            times.popleft()
        if not times:
            self._by.pop(address, None)
        return times

    def refused(self, wait: float) -> AccountError:
        """What an address that has made ``accounts_per_hour`` accounts is told (429)."""
        return AccountError(
            429,
            f"accounts_per_hour: at most {self.per_hour} new accounts per hour from one address; "
            f"try again in {wait:.0f} s",
            {"Retry-After": str(max(1, round(wait)))},
        )

    async def wait(self, address: str) -> float | None:
        """Seconds until ``address`` may create another account (None: now)."""
        if not self.per_hour:
            return None
        times = self._times(address)
        if len(times) < self.per_hour:
            return None
        return SIGNUP_WINDOW - (time.monotonic() - times[0][0])

    async def check(self, address: str) -> None:
        """Refuse (429, with ``Retry-After``) an address that has made ``accounts_per_hour``
        accounts; counts nothing (a sign-up's first step, before the browser makes a passkey)."""
        wait = await self.wait(address)
        if wait is not None:
            raise self.refused(wait)

    async def take(self, address: str) -> object:
        """Count a sign-up of ``address`` now (refused like :meth:`check`); returns what
        :meth:`give_back` takes when the account could not be made after all."""
        token = object()
        if self.per_hour:
            await self.check(address)
            self._by.setdefault(address, deque()).append((time.monotonic(), token))
        return token

    async def give_back(self, address: str, token: object) -> None:
        """Uncount the sign-up :meth:`take` returned ``token`` for."""
        times = self._by.get(address)
        if times is not None:
            for entry in times:
                if entry[1] is token:
                    times.remove(entry)
                    break

    async def create(
        self,
        address: str,
        make: Callable[[], Awaitable[Account]],
    ) -> Account:
        """``make()`` the account as a sign-up of ``address``: taken first, given back if
        ``make`` fails (nothing made, nothing counted)."""
        token = await self.take(address)
        try:
            return await make()
        except BaseException:
            await self.give_back(address, token)
            raise


class Accounts:
    """The accounts of a store. ``bot_levels``: every built-in bot level (names refused)."""

    def __init__(self, store: Store, bot_levels: Iterable[str] = ()) -> None:
        self.store = store
        self.t = store.accounts
        self.bot_levels = frozenset(bot_levels)

    async def _write(self, write: Write) -> None:
        await asyncio.wrap_future(self.store.writer.submit(write))

    def _read(self) -> Connection:
        return self.store.engine.connect()

    # -- creating, signing in ------------------------------------------------------------
    def checked_name(self, name: str) -> str:
        """``name`` as it would be stored; 422 saying why it may not be claimed."""
        try:
            return check_name(name, self.bot_levels)
        except ValueError as exc:
            raise AccountError(422, str(exc)) from None

    async def create(
        self, name: str, password: str | None, also: Callable[[Connection, Account], None] | None = None
    ) -> Account:
        """A new account named ``name`` (checked; 409 when its key is taken) with a password,
        or none (a passkey sign-up: ``also(conn, account)`` stores the passkey in the same
        transaction, :mod:`spieltisch.server.passkeys`)."""
        shown = self.checked_name(name)
        hashed = None
        if password is not None:
            check_password(password)
            hashed = await asyncio.to_thread(HASHER.hash, password)
        account = Account(secrets.token_hex(12), shown)
        values = {"id": account.id, "name": shown, "name_key": name_key(shown), "password_hash": hashed,
                  "created": time.time()}  # fmt: skip

        def write(conn: Connection) -> None:
            conn.execute(insert(self.t.accounts).values(**values))
            if also is not None:
                also(conn, account)

        try:
            await self._write(write)
        except IntegrityError:
            raise AccountError(409, f"name: {shown!r} (or a name that looks the same) is taken") from None
        return account

    def by_name(self, name: str) -> Account | None:
        a = self.t.accounts
        with self._read() as conn:
            row = conn.execute(select(a.c.id, a.c.name).where(a.c.name_key == name_key(name))).first()
        return Account(row.id, row.name) if row is not None else None

    def by_id(self, account: str) -> Account | None:
        a = self.t.accounts
        with self._read() as conn:
            row = conn.execute(select(a.c.id, a.c.name).where(a.c.id == account)).first()
        return Account(row.id, row.name) if row is not None else None

    async def check_login(self, name: str, password: str) -> Account:
        """The account whose name and password these are; 401 otherwise (the same answer for
        an unknown name and a wrong password)."""
        a = self.t.accounts
        wrong = AccountError(401, "wrong name or password")

        def read() -> tuple[str, str, str | None] | None:
            with self._read() as conn:
                row = conn.execute(
                    select(a.c.id, a.c.name, a.c.password_hash).where(a.c.name_key == name_key(name))
                ).first()
            return (row.id, row.name, row.password_hash) if row is not None else None

        found = await asyncio.to_thread(read)
        hashed = found[2] if found is not None else None
        if found is None or hashed is None:
            await asyncio.to_thread(_waste_time, password)  # no faster answer for an unknown name
            raise wrong
        account, shown = found[0], found[1]
        try:
            await asyncio.to_thread(HASHER.verify, hashed, password)
        except (VerificationError, InvalidHashError):
            raise wrong from None
        if HASHER.check_needs_rehash(hashed):  # the parameters went up since: store the new hash
            rehashed = await asyncio.to_thread(HASHER.hash, password)

            def write(conn: Connection) -> None:
                conn.execute(update(a).where(a.c.id == account).values(password_hash=rehashed))

            await self._write(write)
        return Account(account, shown)

    # -- sessions ----------------------------------------------------------------------
    async def new_session(self, account: Account) -> str:
        """A new session of ``account``: its token (for the cookie; only its hash is stored)."""
        token = secrets.token_urlsafe(32)
        now = time.time()
        values = {"token_hash": hash_token(token), "account": account.id, "created": now, "seen": now}

        def write(conn: Connection) -> None:
            conn.execute(insert(self.t.sessions).values(**values))

        await self._write(write)
        return token

    async def session(self, token: str | None) -> Account | None:
        """The account signed in with ``token`` (None: no such session, or it expired)."""
        if not token or len(token) > 128:
            return None
        s, a = self.t.sessions, self.t.accounts
        key = hash_token(token)

        def read() -> tuple[Account, float] | None:
            with self._read() as conn:
                row = conn.execute(
                    select(a.c.id, a.c.name, s.c.seen)
                    .join(s, s.c.account == a.c.id)
                    .where(s.c.token_hash == key)
                ).first()
            return (Account(row.id, row.name), row.seen) if row is not None else None

        found = await asyncio.to_thread(read)
        if found is None:
            return None
        account, seen = found
        now = time.time()
        if now - seen > SESSION_DAYS * 86400:
            return None
        if now - seen > SEEN_EVERY:

            def write(conn: Connection) -> None:
                conn.execute(update(s).where(s.c.token_hash == key).values(seen=now))

            await self._write(write)
        return account

    async def end_session(self, token: str) -> None:
        s = self.t.sessions

        def write(conn: Connection) -> None:
            conn.execute(delete(s).where(s.c.token_hash == hash_token(token)))

        await self._write(write)

    async def end_all_sessions(self, account: Account) -> None:
        """Sign ``account`` out everywhere: every session of it ends."""
        s = self.t.sessions

        def write(conn: Connection) -> None:
            conn.execute(delete(s).where(s.c.account == account.id))

        await self._write(write)

    # -- deleting ----------------------------------------------------------------------
    async def delete(self, account: Account) -> None:
        """Delete ``account`` and everything of it, in one transaction; the games it played
        stay, its seats there renamed :data:`DELETED_NAME` and unlinked."""
        t, seats = self.t, self.store.seats

        def write(conn: Connection) -> None:
            conn.execute(
                update(seats).where(seats.c.account == account.id).values(name=DELETED_NAME, account=None)
            )
            for table in (t.sessions, t.passkeys, t.ratings, t.rating_history):
                conn.execute(delete(table).where(table.c.account == account.id))
            conn.execute(delete(t.challenges).where(t.challenges.c.account == account.id))
            conn.execute(
                delete(t.blocks).where(
                    or_(t.blocks.c.account == account.id, t.blocks.c.blocked == account.id)
                )
            )
            conn.execute(delete(t.accounts).where(t.accounts.c.id == account.id))

        await self._write(write)

    # -- block lists -------------------------------------------------------------------
    async def block(self, account: Account, name: str) -> Account:
        """``account`` blocks the account named ``name`` (404: none; 422: itself)."""
        other = await asyncio.to_thread(self.by_name, name)
        if other is None:
            raise AccountError(404, f"no player named {name!r}")
        if other.id == account.id:
            raise AccountError(422, "name: you cannot block yourself")
        b = self.t.blocks

        def write(conn: Connection) -> None:
            exists = conn.execute(
                select(b.c.account).where(b.c.account == account.id, b.c.blocked == other.id)
            )
            if exists.first() is None:
                conn.execute(insert(b).values(account=account.id, blocked=other.id, created=time.time()))

        await self._write(write)
        return other

    async def unblock(self, account: Account, name: str) -> None:
        other = await asyncio.to_thread(self.by_name, name)
        if other is None:
            raise AccountError(404, f"no player named {name!r}")
        b = self.t.blocks

        def write(conn: Connection) -> None:
            conn.execute(delete(b).where(b.c.account == account.id, b.c.blocked == other.id))

        await self._write(write)

    def blocks(self, account: Account) -> list[str]:
        """The names ``account`` has blocked."""
        b, a = self.t.blocks, self.t.accounts
        with self._read() as conn:
            rows = conn.execute(
                select(a.c.name)
                .join(b, b.c.blocked == a.c.id)
                .where(b.c.account == account.id)
                .order_by(a.c.name)
            )
            return [str(n) for n in rows.scalars()]

    def blocked(self, a: str | None, b: str | None) -> bool:
        """Whether the accounts ``a`` and ``b`` must not be seated together: either has blocked
        the other (for quick play and joining; an anonymous player, None, blocks nobody)."""
        if a is None or b is None or a == b:
            return False
        t = self.t.blocks
        with self._read() as conn:
            row = conn.execute(
                select(t.c.account).where(
                    or_((t.c.account == a) & (t.c.blocked == b), (t.c.account == b) & (t.c.blocked == a))
                )
            ).first()
        return row is not None

    # -- profiles ----------------------------------------------------------------------
    def recent_games(self, account: str, limit: int = 20) -> list[dict[str, object]]:
        """The account's latest games, newest first: room, game, status, when, seat, rated."""
        r, s = self.store.rooms, self.store.seats
        with self._read() as conn:
            rows = conn.execute(
                select(r.c.code, r.c.game, r.c.status, r.c.ended, r.c.created, r.c.rated, s.c.seat)
                .join(s, s.c.room == r.c.code)
                .where(s.c.account == account)
                .order_by(r.c.created.desc())
                .limit(limit)
            ).all()
        return [
            {"room": row.code, "game": row.game, "status": row.status, "ended": row.ended,
             "created": row.created, "rated": bool(row.rated), "seat": row.seat}
            for row in rows
        ]  # fmt: skip


@functools.cache
def _dummy_hash() -> str:
    return HASHER.hash(secrets.token_hex(16))


def _waste_time(password: str) -> None:
    """As long as checking a password takes (so an unknown name answers no sooner)."""
    with contextlib.suppress(VerificationError, InvalidHashError):
        HASHER.verify(_dummy_hash(), password)
