"""Rooms, seats and action logs in SQL (SQLAlchemy 2, synchronous).

A game is stored as its seed, rule options and action log: ``rooms``,
``seats`` and ``actions(room, idx, seat, text)``. SQLite (an embedded file) is
the default; PostgreSQL works through ``postgresql+psycopg://...``. Every call
is one short transaction; the server calls them from a worker thread and only
applies a move after its row is committed.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Engine,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    event,
    func,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError


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


class Store:
    """The SQL storage of the web table."""

    def __init__(self, url: str, prefix: str = "") -> None:
        self.url = url
        self.sqlite = url.startswith("sqlite")
        kwargs: dict[str, Any] = {}
        if self.sqlite:
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
        try:
            self.engine: Engine = create_engine(url, **kwargs)
        except Exception as exc:
            raise StoreError(f"cannot use database {url!r}: {exc}") from exc
        if self.sqlite:
            event.listen(self.engine, "connect", _sqlite_pragmas)
        # SQLite has one writer at a time; serialise our writers instead of
        # letting them wait on the file lock.
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
        )
        self.actions = Table(
            f"{prefix}actions",
            md,
            Column("room", String(16), ForeignKey(f"{prefix}rooms.code"), primary_key=True),
            Column("idx", Integer, primary_key=True),
            Column("seat", Integer, nullable=False),
            Column("text", String(256), nullable=False),
        )
        try:
            md.create_all(self.engine)
        except Exception as exc:
            raise StoreError(f"cannot open database {url!r}: {exc}") from exc

    # -- writes ----------------------------------------------------------------
    def _write(self) -> Any:
        return self._write_lock if self._write_lock is not None else _NoLock()

    def create_room(self, room: RoomRow, rematch_of: str | None = None) -> None:
        """Insert a room with its seats (and, for a rematch, link the old room)."""
        with self._write(), self.engine.begin() as conn:
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
                    )
                )
            except IntegrityError as exc:
                raise CodeTaken(room.code) from exc
            conn.execute(self.seats.insert(), [_seat_values(room.code, s) for s in room.seats])
            if rematch_of is not None:
                conn.execute(
                    update(self.rooms).where(self.rooms.c.code == rematch_of).values(rematch=room.code)
                )

    def update_seat(self, code: str, seat: SeatRow, status: str | None = None) -> None:
        with self._write(), self.engine.begin() as conn:
            values = _seat_values(code, seat)
            del values["room"], values["seat"]
            conn.execute(
                update(self.seats)
                .where(self.seats.c.room == code, self.seats.c.seat == seat.seat)
                .values(**values)
            )
            if status is not None:
                conn.execute(update(self.rooms).where(self.rooms.c.code == code).values(status=status))

    def append_actions(
        self, code: str, start: int, actions: Sequence[tuple[int, str]], status: str | None = None
    ) -> None:
        """Store actions ``start, start+1, ...`` of a room and (when it changed) its new
        status, atomically.

        The primary key ``(room, idx)`` makes a second writer of the same
        index fail instead of forking the log.
        """
        rows = [{"room": code, "idx": start + i, "seat": s, "text": t} for i, (s, t) in enumerate(actions)]
        with self._write(), self.engine.begin() as conn:
            conn.execute(self.actions.insert(), rows)
            if status is not None:
                conn.execute(update(self.rooms).where(self.rooms.c.code == code).values(status=status))

    # -- reads -----------------------------------------------------------------
    def exists(self, code: str) -> bool:
        with self.engine.connect() as conn:
            return (
                conn.execute(select(self.rooms.c.code).where(self.rooms.c.code == code)).first() is not None
            )

    def load(self, code: str) -> RoomRow | None:
        with self.engine.connect() as conn:
            r = conn.execute(select(self.rooms).where(self.rooms.c.code == code)).mappings().first()
            if r is None:
                return None
            seats = conn.execute(
                select(self.seats).where(self.seats.c.room == code).order_by(self.seats.c.seat)
            ).mappings()
            actions = conn.execute(
                select(self.actions.c.seat, self.actions.c.text)
                .where(self.actions.c.room == code)
                .order_by(self.actions.c.idx)
            )
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
                seats=[
                    SeatRow(
                        seat=s["seat"],
                        kind=s["kind"],
                        level=s["level"],
                        name=s["name"],
                        secret_hash=s["secret_hash"],
                        taken=s["taken"],
                        claim_from=s["claim_from"],
                    )
                    for s in seats
                ],
                actions=[(int(seat), str(text)) for seat, text in actions],
            )

    def unfinished(self) -> list[str]:
        """Codes of every room whose game is not over."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(self.rooms.c.code).where(self.rooms.c.status != "over").order_by(self.rooms.c.created)
            )
            return [str(code) for (code,) in rows]

    def count_actions(self, code: str) -> int:
        with self.engine.connect() as conn:
            n = conn.execute(select(func.count()).where(self.actions.c.room == code)).scalar_one()
            return int(n)

    def close(self) -> None:
        self.engine.dispose()

    def drop(self) -> None:
        """Drop this store's tables (tests with a per-run table prefix)."""
        self.metadata.drop_all(self.engine)
        self.engine.dispose()

    # -- expiry (docs/protocol.md, "Limits": keep_finished_days, keep_abandoned_days) --
    def expire(
        self, finished_before: float, abandoned_before: float, keep: frozenset[str] | set[str] = frozenset()
    ) -> list[str]:
        """Delete the rooms whose game is over and that were opened before
        ``finished_before``, and the unfinished ones opened before
        ``abandoned_before`` (epoch seconds; 0 deletes none), except those in
        ``keep``; with their seats and actions, in one transaction. Returns their codes."""
        from sqlalchemy import and_, delete, or_

        r = self.rooms
        old = or_(
            and_(r.c.status == "over", r.c.created < finished_before),
            and_(r.c.status != "over", r.c.created < abandoned_before),
        )
        with self._write(), self.engine.begin() as conn:
            codes = [str(c) for c in conn.execute(select(r.c.code).where(old)).scalars() if c not in keep]
            for i in range(0, len(codes), 500):
                chunk = codes[i : i + 500]
                conn.execute(delete(self.actions).where(self.actions.c.room.in_(chunk)))
                conn.execute(delete(self.seats).where(self.seats.c.room.in_(chunk)))
                conn.execute(delete(r).where(r.c.code.in_(chunk)))
        return codes


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
    }


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")  # readers never block the writer
    cur.execute("PRAGMA synchronous=FULL")  # a committed move survives a crash, even of the machine
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()
