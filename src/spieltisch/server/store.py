"""Rooms, seats and action logs in SQL (SQLAlchemy 2), written by one group-commit writer.

A game is stored as its seed, rule options and action log: ``rooms``,
``seats`` and ``actions(room, idx, seat, text, at, by)`` (``at``: the server's wall
time of the move, from which the clocks are derived; ``by``: NULL for the seat's
own player, ``bot:LEVEL`` for a bot standing in, see :mod:`spieltisch.clocks`);
each room also keeps the rules version of the engine that plays it; the reviews
of finished games are in ``reviews(room, seat, budget, result, created)`` (docs/review.md); each
bot seat's memory (the pickled bot after its last decision, zlib-compressed) is in
``bot_memory(room, seat, idx, memory)``, one row per seat, written with the bot's action
at log index ``idx`` (docs/storage.md, "Bot memory"). SQLite (an
embedded file) is the default; PostgreSQL works through ``postgresql+psycopg://...``.
The schema is made and changed by the Alembic migrations in ``server/migrations/``,
which opening a store runs (:func:`spieltisch.server.migrate.upgrade`); the tables
below must match their head (docs/storage.md; a test compares them).

Every write goes through the store's :class:`GroupWriter`: one thread that
takes all the writes queued while its previous commit was on its way to the
disk and commits them in one transaction (group commit). A write's future
completes only when its transaction is durable (SQLite ``synchronous=FULL`` in
WAL mode, PostgreSQL's default ``synchronous_commit=on``), so one commit
serves many moves, and an ``await`` of :meth:`Store.append` never blocks the
event loop on the disk. Reads run on the caller's thread (the server calls
them from a worker thread).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import json
import logging
import queue
import threading
import time
import zlib
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Concatenate, ParamSpec

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Engine,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    delete,
    event,
    false,
    func,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from spieltisch.engine import get_game
from spieltisch.server import migrate
from spieltisch.server.account_tables import AccountTables

log = logging.getLogger("spieltisch.server.store")

MAX_GROUP = 512
"""Most writes one transaction of the :class:`GroupWriter` takes."""


class StoreError(RuntimeError):
    """The database refused or failed an operation."""


class CodeTaken(StoreError):
    """A room with that code exists already."""


@dataclass
class SeatRow:
    seat: int
    kind: str  # "human" | "bot"
    level: str | None = None
    name: str | None = None
    secret_hash: str | None = None
    taken: bool = False
    claim_from: str | None = None
    """For a rematch seat: the room whose secret for this seat may claim it."""
    left: bool = False
    """The seat's player resigned or left the game (a bot of the room's stand-in level plays on)."""
    email: str | None = None
    """Where a turn-based game tells the seat's player that it is their turn (server/notify.py);
    never shown to anybody, never logged."""
    lang: str | None = None
    """The player's language (``en``, ``de``) for that e-mail."""
    account: str | None = None
    """The signed-in account that sits here (docs/accounts.md); None: anonymous, or a bot."""


@dataclass
class RoomRow:
    code: str
    game: str
    players: int
    options: dict[str, Any]
    seed: int
    bot_delay: float
    status: str  # "waiting" | "playing" | "over"
    seats: list[SeatRow]
    rematch: str | None = None
    rematch_of: str | None = None
    created: float = field(default_factory=time.time)
    actions: list[tuple[int, str]] = field(default_factory=list)
    rules_version: str | None = None
    """The rules version of the engine that plays the game (``None``: the game's current one)."""
    clock: dict[str, Any] | None = None
    """The room's clock settings (:class:`spieltisch.clocks.ClockSettings` as JSON); None: no clock."""
    started: float | None = None
    """Wall time the game began (every seat taken): the first decision's clock starts there."""
    active: float | None = None
    """Wall time of the last join or seat change (moves count through ``actions.at``)."""
    ended: str | None = None
    """Why a game is over without an outcome: ``"ended"`` after a player left and the others ended it."""
    times: list[float | None] = field(default_factory=list)
    """Per action: its server wall time (None for actions stored before clocks existed)."""
    by: list[str | None] = field(default_factory=list)
    """Per action: None for the seat's own player, ``bot:LEVEL`` for a stand-in bot."""
    hints: bool = False
    """The room allows hints (docs/review.md, "Hints")."""
    public: bool = False
    """The room is listed in the lobby while it waits for players (server/lobby.py)."""
    invite: str | None = None
    """The room's invite key (its link is ``/r/CODE-KEY``); ``None``: a room stored before
    keys existed, which opens by its code alone (docs/deploy.md, "Threat model")."""
    rated: bool = False
    """A rated game: every person's seat is an account's, and its end updates the ratings."""


@dataclass
class ReviewRow:
    """A stored review of one seat of a finished game (docs/review.md, "Storage")."""

    room: str
    seat: int
    budget: str
    result: dict[str, Any]
    """The review of this seat as :meth:`spieltisch.analysis.review.Review.to_json` gives it."""
    created: float = field(default_factory=time.time)


P = ParamSpec("P")


def _blocking(build: Callable[Concatenate[Store, P], Write]) -> Callable[Concatenate[Store, P], None]:
    """The blocking form of a write (tools and tests; never on the event loop)."""

    @functools.wraps(build)
    def write(store: Store, /, *args: P.args, **kwargs: P.kwargs) -> None:
        store.writer.submit(build(store, *args, **kwargs)).result()

    return write


def _durable_write(
    build: Callable[Concatenate[Store, P], Write],
) -> Callable[Concatenate[Store, P], Coroutine[Any, Any, None]]:
    """The form of a write for the event loop: returns once the write is durable."""

    @functools.wraps(build)
    async def write(store: Store, /, *args: P.args, **kwargs: P.kwargs) -> None:
        await _durable(store.writer.submit(build(store, *args, **kwargs)))

    return write


class Store:
    """The SQL storage of the web table."""

    def __init__(self, url: str, prefix: str = "") -> None:
        self.url = url
        self.sqlite = url.startswith("sqlite")
        # A failed statement's parameters (moves: a sealed lay) never reach an error or a log.
        kwargs: dict[str, Any] = {"hide_parameters": True}
        if self.sqlite:
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
        try:
            self.engine: Engine = create_engine(url, **kwargs)
        except Exception as exc:
            raise StoreError(f"cannot use database {url!r}: {exc}") from exc
        if self.sqlite:
            event.listen(self.engine, "connect", _sqlite_pragmas)
        # SQLite has one writer at a time: the group writer holds this lock while
        # it commits, and so must any other writer (see _write).
        self._write_lock = threading.Lock() if self.sqlite else None
        md = MetaData()
        self.metadata = md
        self.rooms = Table(
            f"{prefix}rooms",
            md,
            Column("code", String(16), primary_key=True),
            Column("game", String(32), nullable=False),
            Column("players", Integer, nullable=False),
            Column("options", Text, nullable=False),
            Column("seed", BigInteger, nullable=False),
            Column("bot_delay", Float, nullable=False),
            Column("status", String(16), nullable=False, index=True),
            Column("rematch", String(16), nullable=True),
            Column("rematch_of", String(16), nullable=True),
            Column("created", Float, nullable=False),
            Column("rules_version", String(32), nullable=False, server_default="1"),  # 0002_rules_version
            # 0003_clocks
            Column("clock", Text, nullable=True),
            Column("started", Float, nullable=True),
            Column("active", Float, nullable=True, index=True),
            Column("ended", String(16), nullable=True),
            Column("hints", Boolean, nullable=False, default=False, server_default="0"),  # 0004_reviews
            Column("public", Boolean, nullable=False, default=False, server_default=false()),  # 0006_lobby
            Column("invite", String(32), nullable=True),  # 0007_invite_keys
            Column("rated", Boolean, nullable=False, default=False, server_default="0"),  # 0008_accounts
        )
        self.seats = Table(
            f"{prefix}seats",
            md,
            Column("room", String(16), ForeignKey(f"{prefix}rooms.code"), primary_key=True),
            Column("seat", Integer, primary_key=True),
            Column("kind", String(8), nullable=False),
            Column("level", String(64), nullable=True),
            Column("name", String(64), nullable=True),
            Column("secret_hash", String(128), nullable=True),
            Column("taken", Boolean, nullable=False),
            Column("claim_from", String(16), nullable=True),
            Column("left", Boolean, nullable=False, server_default=false()),  # 0003_clocks
            Column("email", String(254), nullable=True),  # 0006_lobby
            Column("lang", String(8), nullable=True),  # 0006_lobby
            Column("account", String(32), nullable=True, index=True),  # 0008_accounts
        )
        self.actions = Table(
            f"{prefix}actions",
            md,
            Column("room", String(16), ForeignKey(f"{prefix}rooms.code"), primary_key=True),
            Column("idx", Integer, primary_key=True),
            Column("seat", Integer, nullable=False),
            Column("text", String(256), nullable=False),
            Column("at", Float, nullable=True),  # 0003_clocks
            Column("by", String(72), nullable=True),  # 0003_clocks
        )
        self.reviews = Table(
            f"{prefix}reviews",
            md,
            Column("room", String(16), ForeignKey(f"{prefix}rooms.code"), primary_key=True),
            Column("seat", Integer, primary_key=True),
            Column("budget", String(32), primary_key=True),
            Column("result", Text, nullable=False),
            Column("created", Float, nullable=False),
        )
        self.bot_memory = Table(  # 0005_bot_memory
            f"{prefix}bot_memory",
            md,
            Column("room", String(16), ForeignKey(f"{prefix}rooms.code"), primary_key=True),
            Column("seat", Integer, primary_key=True),
            Column("idx", Integer, nullable=False),
            Column("memory", LargeBinary, nullable=False),
        )
        self.quickplay = Table(  # 0006_lobby (server/quickplay.py)
            f"{prefix}quickplay",
            md,
            Column("ticket", String(64), primary_key=True),
            Column("game", String(32), nullable=False),
            Column("players", Integer, nullable=False),
            Column("name", String(64), nullable=False),
            Column("bots", String(64), nullable=False),
            Column("bots_after", Float, nullable=True),
            Column("created", Float, nullable=False),
            Column("seen", Float, nullable=False),
            Column("room", String(16), nullable=True),
            Column("seat", Integer, nullable=True),
            Column("account", String(32), nullable=True),
            Index(f"ix_{prefix}quickplay_queue", "game", "players", "room", "created"),
        )
        self.accounts = AccountTables.define(md, prefix)  # 0008_accounts (docs/accounts.md)
        try:
            migrate.upgrade(url, prefix, engine=self.engine)
        except Exception as exc:
            self.engine.dispose()
            raise StoreError(f"cannot open database {url!r}: {exc}") from exc
        self.version_table = Table(
            migrate.version_table(prefix), MetaData(), Column("version_num", String(32), primary_key=True)
        )
        # The hot write, rendered once: appended actions go to the driver as they are
        # (no statement to build, compile and look up in the cache per move).
        compiled = self.actions.insert().compile(dialect=self.engine.dialect)
        self._append_sql = str(compiled)
        self._append_keys: tuple[str, ...] | None = (
            tuple(compiled.positiontup) if compiled.positiontup else None
        )
        # A bot's memory replaces the seat's previous one (an upsert: one row per seat).
        upsert = (postgresql.insert if self.engine.dialect.name == "postgresql" else sqlite.insert)(
            self.bot_memory
        )
        self._memory_sql = upsert.on_conflict_do_update(
            index_elements=[self.bot_memory.c.room, self.bot_memory.c.seat],
            set_={"idx": upsert.excluded.idx, "memory": upsert.excluded.memory},
        )
        self.writer = GroupWriter(self.engine, self._write_lock)

    # -- writes ----------------------------------------------------------------
    # Each write has a blocking form (tools and tests; never on the event loop)
    # and an ``_async`` form for the server; both go through the group writer.
    def _write(self) -> Any:
        """The lock a write outside the group writer must hold (SQLite has one writer)."""
        return self._write_lock if self._write_lock is not None else _NoLock()

    def _create_room(self, room: RoomRow, rematch_of: str | None = None) -> Write:
        """Insert a room with its seats (and, for a rematch, link the old room).
        Raises :class:`CodeTaken` when the code is in use."""
        return self._room_insert(room, rematch_of)

    create_room = _blocking(_create_room)

    async def transaction_async(self, write: Write) -> None:
        """Run ``write`` (a function of a connection) in a transaction of the group writer;
        returns once it is durable. It may be called twice (its group failed: each write is
        tried again alone), so it starts from scratch each time."""
        await _durable(self.writer.submit(write))

    def room_write(self, room: RoomRow) -> Write:
        """The write that inserts ``room`` with its seats, to run inside a larger
        transaction (quick play stores a room with its seated tickets); raises
        :class:`CodeTaken` when the code is in use."""
        return self._room_insert(room, None)

    create_room_async = _durable_write(_create_room)

    def _update_seat(
        self,
        code: str,
        seat: SeatRow,
        status: str | None = None,
        room: Mapping[str, Any] | None = None,
        forget_memory: bool = False,
    ) -> Write:
        """Store a seat (and the room's new status, when it changed, and the room
        columns in ``room``: ``started``, ``ended``). Counts as the room's activity.
        ``forget_memory``: delete the seat's stored bot memory too (a stand-in starts afresh)."""
        return self._seat_write(code, seat, status, room, forget_memory)

    update_seat = _blocking(_update_seat)
    update_seat_async = _durable_write(_update_seat)

    async def forget_memory_async(self, code: str, seat: int) -> None:
        """Delete the stored bot memory of a seat (its next bot starts afresh)."""

        def write(conn: Connection) -> None:
            self._forget_memory(conn, code, seat)

        await _durable(self.writer.submit(write))

    def _forget_memory(self, conn: Connection, code: str, seat: int) -> None:
        t = self.bot_memory
        conn.execute(delete(t).where(t.c.room == code, t.c.seat == seat))

    async def end_room_async(self, code: str, ended: str) -> None:
        """Mark an unfinished game as over without an outcome (``ended`` says why)."""
        values = {"status": "over", "ended": ended, "active": time.time()}

        def write(conn: Connection) -> None:
            conn.execute(update(self.rooms).where(self.rooms.c.code == code).values(**values))

        await _durable(self.writer.submit(write))

    def _append_actions(
        self,
        code: str,
        start: int,
        actions: Sequence[tuple[int, str]],
        status: str | None = None,
        at: float | None = None,
        by: str | None = None,
        memory: tuple[int, bytes] | None = None,
        also: Write | None = None,
    ) -> Write:
        """Store actions ``start, start+1, ...`` of a room and (when it changed) its new
        status, atomically.

        The primary key ``(room, idx)`` makes a second writer of the same
        index fail instead of forking the log. ``at`` is the moves' server wall
        time, ``by`` who played them (None: the seat's own player; ``bot:LEVEL``:
        a stand-in bot). ``memory``: ``(seat, pickled bot)``, the memory of the bot that
        played these actions, after that decision: stored in the same transaction as the
        seat's memory, with the index of the seat's last action among them (it replaces
        the seat's previous one). ``also``: one more write run in the same transaction,
        after the actions (the ratings of a rated game that these actions end,
        :mod:`spieltisch.server.ratings`): if it fails, none of it is stored.
        """
        return _Append(self, code, start, actions, status, at, by, memory, also)

    append_actions = _blocking(_append_actions)
    append_actions_async = _durable_write(_append_actions)

    def _save_review(self, row: ReviewRow) -> Write:
        """Store a review (a second one of the same room, seat and budget is refused)."""
        values = {
            "room": row.room,
            "seat": row.seat,
            "budget": row.budget,
            "result": json.dumps(row.result, separators=(",", ":")),
            "created": row.created,
        }

        def write(conn: Connection) -> None:
            conn.execute(self.reviews.insert().values(**values))

        return write

    save_review = _blocking(_save_review)
    save_review_async = _durable_write(_save_review)

    def _room_insert(self, room: RoomRow, rematch_of: str | None) -> Write:
        def write(conn: Connection) -> None:
            try:
                conn.execute(
                    self.rooms.insert().values(
                        code=room.code,
                        game=room.game,
                        players=room.players,
                        options=json.dumps(room.options),
                        seed=room.seed,
                        bot_delay=room.bot_delay,
                        status=room.status,
                        rematch=room.rematch,
                        rematch_of=room.rematch_of,
                        created=room.created,
                        rules_version=room.rules_version or get_game(room.game).rules_version,
                        clock=json.dumps(room.clock) if room.clock is not None else None,
                        started=room.started,
                        active=room.created,
                        hints=room.hints,
                        public=room.public,
                        invite=room.invite,
                        rated=room.rated,
                    )
                )
            except IntegrityError as exc:
                raise CodeTaken(room.code) from exc
            conn.execute(self.seats.insert(), [_seat_values(room.code, s) for s in room.seats])
            if rematch_of is not None:
                conn.execute(
                    update(self.rooms).where(self.rooms.c.code == rematch_of).values(rematch=room.code)
                )

        return write

    def _seat_write(
        self,
        code: str,
        seat: SeatRow,
        status: str | None,
        room: Mapping[str, Any] | None,
        forget_memory: bool = False,
    ) -> Write:
        values = _seat_values(code, seat)
        del values["room"], values["seat"]
        room_values: dict[str, Any] = {**(room or {}), "active": time.time()}
        if status is not None:
            room_values["status"] = status

        def write(conn: Connection) -> None:
            conn.execute(
                update(self.seats)
                .where(self.seats.c.room == code, self.seats.c.seat == seat.seat)
                .values(**values)
            )
            conn.execute(update(self.rooms).where(self.rooms.c.code == code).values(**room_values))
            if forget_memory:
                self._forget_memory(conn, code, seat.seat)

        return write

    # -- reads -----------------------------------------------------------------
    def exists(self, code: str) -> bool:
        with self.engine.connect() as conn:
            return (
                conn.execute(select(self.rooms.c.code).where(self.rooms.c.code == code)).first() is not None
            )

    def load(self, code: str) -> RoomRow | None:
        with self.engine.connect() as conn:
            if self.engine.dialect.name == "postgresql":
                # One snapshot for the three reads: an append committed between them would
                # give a log that ends the game under a room still "playing" (read as an
                # archived record, its hidden decisions shown).
                conn.execution_options(isolation_level="REPEATABLE READ")
            r = conn.execute(select(self.rooms).where(self.rooms.c.code == code)).mappings().first()
            if r is None:
                return None
            seats = conn.execute(
                select(self.seats).where(self.seats.c.room == code).order_by(self.seats.c.seat)
            ).mappings()
            actions = conn.execute(
                select(self.actions.c.seat, self.actions.c.text, self.actions.c.at, self.actions.c.by)
                .where(self.actions.c.room == code)
                .order_by(self.actions.c.idx)
            ).all()
            return RoomRow(
                code=r["code"],
                game=r["game"],
                players=r["players"],
                options=json.loads(r["options"]),
                seed=r["seed"],
                bot_delay=r["bot_delay"],
                status=r["status"],
                rematch=r["rematch"],
                rematch_of=r["rematch_of"],
                created=r["created"],
                rules_version=r["rules_version"],
                clock=json.loads(r["clock"]) if r["clock"] else None,
                started=r["started"],
                active=r["active"],
                ended=r["ended"],
                hints=bool(r["hints"]),
                public=bool(r["public"]),
                invite=r["invite"],
                rated=bool(r["rated"]),
                seats=[
                    SeatRow(
                        seat=s["seat"],
                        kind=s["kind"],
                        level=s["level"],
                        name=s["name"],
                        secret_hash=s["secret_hash"],
                        taken=s["taken"],
                        claim_from=s["claim_from"],
                        left=bool(s["left"]),
                        email=s["email"],
                        lang=s["lang"],
                        account=s["account"],
                    )
                    for s in seats
                ],
                actions=[(int(seat), str(text)) for seat, text, _at, _by in actions],
                times=[None if at is None else float(at) for _seat, _text, at, _by in actions],
                by=[None if by is None else str(by) for _seat, _text, _at, by in actions],
            )

    def load_bot_memory(self, code: str) -> dict[int, tuple[int, bytes]]:
        """Each seat's stored bot memory: ``seat -> (log index of the action it was stored
        with, pickled bot)``. A memory that does not decompress is left out (logged): its
        bot starts afresh. (Only the server's own bots write these pickles, never a client;
        they are loaded in its bot workers.)"""
        t = self.bot_memory
        found: dict[int, tuple[int, bytes]] = {}
        with self.engine.connect() as conn:
            rows = conn.execute(select(t.c.seat, t.c.idx, t.c.memory).where(t.c.room == code)).all()
        for seat, idx, blob in rows:
            try:
                found[int(seat)] = (int(idx), zlib.decompress(blob))
            except zlib.error as exc:
                log.warning("room %s: the stored memory of bot seat %d is unreadable (%s)", code, seat, exc)
        return found

    def load_reviews(self, code: str, budget: str) -> list[ReviewRow]:
        """The stored reviews of a room at ``budget``, by seat."""
        t = self.reviews
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(t).where(t.c.room == code, t.c.budget == budget).order_by(t.c.seat)
            ).mappings()
            return [
                ReviewRow(r["room"], r["seat"], r["budget"], json.loads(r["result"]), r["created"])
                for r in rows
            ]

    def unfinished(self) -> list[str]:
        """Codes of every room whose game is not over."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(self.rooms.c.code).where(self.rooms.c.status != "over").order_by(self.rooms.c.created)
            )
            return [str(code) for (code,) in rows]

    def finished(self) -> list[str]:
        """Codes of every room whose game was played to its end (not ended early), oldest first."""
        rooms = self.rooms
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(rooms.c.code)
                .where(rooms.c.status == "over", rooms.c.ended.is_(None))
                .order_by(rooms.c.created, rooms.c.code)
            )
            return [str(code) for (code,) in rows]

    def count_actions(self, code: str) -> int:
        with self.engine.connect() as conn:
            n = conn.execute(select(func.count()).where(self.actions.c.room == code)).scalar_one()
            return int(n)

    def close(self) -> None:
        """Commit the writes still queued, then let go of the database."""
        self.writer.close()
        self.engine.dispose()

    def drop(self) -> None:
        """Drop this store's tables (tests with a per-run table prefix)."""
        self.writer.close()
        self.metadata.drop_all(self.engine)
        self.version_table.drop(self.engine, checkfirst=True)
        self.engine.dispose()

    # -- expiry (docs/protocol.md, "Limits": keep_finished_days, keep_abandoned_days) --
    def expire(
        self, finished_before: float, abandoned_before: float, keep: frozenset[str] | set[str] = frozenset()
    ) -> list[str]:
        """Delete the rooms whose game is over and that were opened before
        ``finished_before``, and the unfinished ones with no activity (a move, a
        join, a seat change; or the opening) since ``abandoned_before`` (epoch
        seconds; 0 deletes none), except those in ``keep``; with their seats and
        actions, in one transaction. Returns their codes."""
        from sqlalchemy import and_, exists, or_

        r, a = self.rooms, self.actions
        moved_since = exists().where(a.c.room == r.c.code, a.c.at >= abandoned_before)
        old = or_(
            and_(r.c.status == "over", r.c.created < finished_before),
            and_(
                r.c.status != "over",
                func.coalesce(r.c.active, r.c.created) < abandoned_before,
                ~moved_since,
            ),
        )
        with self._write(), self.engine.begin() as conn:
            codes = [str(c) for c in conn.execute(select(r.c.code).where(old)).scalars() if c not in keep]
            for i in range(0, len(codes), 500):
                chunk = codes[i : i + 500]
                conn.execute(delete(self.reviews).where(self.reviews.c.room.in_(chunk)))
                conn.execute(delete(self.bot_memory).where(self.bot_memory.c.room.in_(chunk)))
                conn.execute(delete(self.actions).where(self.actions.c.room.in_(chunk)))
                conn.execute(delete(self.seats).where(self.seats.c.room.in_(chunk)))
                conn.execute(delete(r).where(r.c.code.in_(chunk)))
        return codes


Write = Callable[[Connection], None]
"""One write: statements run inside the group's transaction."""


class _Append:
    """Actions ``start, start+1, ...`` of one room and its new status, and the memory of
    the bot that played them (one write). Consecutive appends of a group are sent to the
    database as one statement (and their memories as one more)."""

    def __init__(
        self,
        store: Store,
        code: str,
        start: int,
        actions: Sequence[tuple[int, str]],
        status: str | None,
        at: float | None = None,
        by: str | None = None,
        memory: tuple[int, bytes] | None = None,
        also: Write | None = None,
    ) -> None:
        self.store = store
        self.also = also
        self.code = code
        self.rows = [
            {"room": code, "idx": start + i, "seat": s, "text": t, "at": at, "by": by}
            for i, (s, t) in enumerate(actions)
        ]
        self.status = status
        self.memory: tuple[int, int, bytes] | None = None
        """``(seat, idx, pickled bot)``: ``idx`` the index of the seat's last action here."""
        if memory is not None:
            seat, pickled = memory
            idx = start + max(i for i, (s, _t) in enumerate(actions) if s == seat)
            self.memory = (seat, idx, pickled)

    def __call__(self, conn: Connection) -> None:
        _run_appends(conn, [self])


def _run_appends(conn: Connection, appends: Sequence[_Append]) -> None:
    store = appends[0].store
    rows = [row for a in appends for row in a.rows]
    keys = store._append_keys
    params: list[Any] = rows if keys is None else [tuple(r[k] for k in keys) for r in rows]
    if len(params) == 1:
        conn.exec_driver_sql(store._append_sql, params[0])
    elif params:
        conn.exec_driver_sql(store._append_sql, params)
    memories = []
    for a in appends:
        if a.memory is not None:  # compressed here, in the writer thread (not on the event loop)
            seat, idx, pickled = a.memory
            memories.append({"room": a.code, "seat": seat, "idx": idx, "memory": zlib.compress(pickled)})
    if memories:
        conn.execute(store._memory_sql, memories)
    for a in appends:
        if a.status is not None:
            conn.execute(update(store.rooms).where(store.rooms.c.code == a.code).values(status=a.status))
    for a in appends:
        if a.also is not None:
            a.also(conn)


def _run_group(conn: Connection, writes: Sequence[Write]) -> None:
    """Run ``writes`` in order; consecutive appends to one store go as one statement."""
    i = 0
    while i < len(writes):
        w = writes[i]
        if isinstance(w, _Append):
            j = i + 1
            while j < len(writes) and isinstance(writes[j], _Append):
                j += 1
            _run_appends(conn, writes[i:j])  # type: ignore[arg-type]  # all _Append (checked)
            i = j
        else:
            w(conn)
            i += 1


class GroupWriter:
    """The one writer of a store: a thread that commits queued writes in groups.

    :meth:`submit` queues a write and returns a future that completes when the
    transaction holding it is committed - durable - or fails with that write's
    own error. While one commit is on its way to the disk, the writes arriving
    meanwhile queue up, and the next transaction takes all of them (up to
    :data:`MAX_GROUP`): a commit's cost is shared by every write that arrived
    during the previous one, and nobody waits for a group to fill up. When a
    group fails, each of its writes is tried alone, so a refused write (a room
    code in use, a second writer of a log index) fails only its own future.
    Writes are committed in the order they were submitted.
    """

    def __init__(self, engine: Engine, lock: threading.Lock | None = None) -> None:
        self._engine = engine
        self._lock = lock
        # A C queue (put and wake-up in one call: the event loop submits every move), and a
        # lock so that nothing is queued after the end mark (None) that close() puts.
        self._queue: queue.SimpleQueue[tuple[Write, concurrent.futures.Future[None]] | None] = (
            queue.SimpleQueue()
        )
        self._submitting = threading.Lock()
        self._closed = False
        self._conn: Connection | None = None
        """The writer thread's connection (opened at its first write)."""
        self.commits = 0
        """Transactions committed so far."""
        self.writes = 0
        """Writes committed so far (``writes / commits`` is the mean group size)."""
        self._thread = threading.Thread(target=self._run, name="spieltisch-store-writer", daemon=True)
        self._thread.start()

    def submit(self, write: Write) -> concurrent.futures.Future[None]:
        future: concurrent.futures.Future[None] = concurrent.futures.Future()
        with self._submitting:
            if self._closed:
                raise StoreError("the store is closed: nothing was written")
            self._queue.put((write, future))
        return future

    def close(self) -> None:
        """Commit every write still queued, then stop the thread (idempotent)."""
        with self._submitting:
            if not self._closed:
                self._closed = True
                self._queue.put(None)  # the end: everything before it is written first
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join()

    def _run(self) -> None:
        try:
            ending = False
            while not ending:
                first = self._queue.get()
                if first is None:
                    return  # closed, and everything queued is written
                group = [first]
                while len(group) < MAX_GROUP:  # what queued up during the last commit
                    try:
                        item = self._queue.get_nowait()
                    except queue.Empty:
                        break
                    if item is None:
                        ending = True
                        break
                    group.append(item)
                self._commit(group)
        finally:
            conn, self._conn = self._conn, None
            if conn is not None:
                with contextlib.suppress(Exception):
                    conn.close()

    def _commit(self, group: list[tuple[Write, concurrent.futures.Future[None]]]) -> None:
        live = [(w, f) for w, f in group if f.set_running_or_notify_cancel()]
        if not live:
            return
        try:
            self._transaction([w for w, _ in live])
        except Exception as exc:
            if len(live) == 1:
                live[0][1].set_exception(exc)
                return
            for w, f in live:  # which write was refused? each alone
                try:
                    self._transaction([w])
                except Exception as alone:
                    f.set_exception(alone)
                else:
                    f.set_result(None)
            return
        for _, f in live:
            f.set_result(None)

    def _transaction(self, writes: Sequence[Write]) -> None:
        """One transaction on the writer's own connection (kept from one group to the
        next: no pool checkout and reset per commit); a failed one is closed, and the
        next transaction opens a fresh one (the database may have restarted)."""
        lock = self._lock if self._lock is not None else _NoLock()
        with lock:
            if self._conn is None:
                self._conn = self._engine.connect()
            conn = self._conn
            try:
                with conn.begin():
                    _run_group(conn, writes)
            except BaseException:
                self._conn = None
                with contextlib.suppress(Exception):
                    conn.close()
                raise
        self.commits += 1
        self.writes += len(writes)


async def _durable(future: concurrent.futures.Future[None]) -> None:
    """Wait, without blocking the event loop, until a submitted write is committed.

    Cancelling the waiter cancels the write if its group has not started yet."""
    await asyncio.wrap_future(future)


class _NoLock:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _seat_values(code: str, s: SeatRow) -> dict[str, Any]:
    return {
        "room": code,
        "seat": s.seat,
        "kind": s.kind,
        "level": s.level,
        "name": s.name,
        "secret_hash": s.secret_hash,
        "taken": s.taken,
        "claim_from": s.claim_from,
        "left": s.left,
        "email": s.email,
        "lang": s.lang,
        "account": s.account,
    }


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")  # readers never block the writer
    cur.execute("PRAGMA synchronous=FULL")  # a committed move survives a crash, even of the machine
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()
