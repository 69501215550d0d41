"""Quick play: choose a game and a player count, and be seated with others who wait
(docs/protocol.md, "Quick play").

``POST /api/quickplay`` queues a player and answers a **ticket**, a secret like a
seat's: it goes in the ``Spieltisch-Ticket`` header, never in a URL, and once the
player is seated it *is* their seat's secret (the store keeps only its hash, as
for every seat). ``GET /api/quickplay`` (the ticket in the header) says
``waiting`` (how many wait in the queue) or ``seated`` (room and seat);
``DELETE`` leaves the queue. A ticket nobody asked about for
:data:`TICKET_TIMEOUT` seconds leaves the queue by itself (its player closed the page).

Matching happens in the database, in one transaction that takes the queue's lock
(PostgreSQL: an advisory lock; SQLite has one writer anyway), reads the waiting
tickets, stores each new room with its seats and marks its tickets seated, so
with any number of workers a ticket is seated exactly once, in one room. A queue
of ``players`` tickets becomes a room at once (the longest waiting first, in random
seats; a signed-in player never with an account that blocked them or that they
blocked); a player who asked for bots after ``bots_after`` seconds gets them: once
that time is up, they are seated with the others of the queue whose own time is up
too, and bots (the level they chose) in the other seats.
Every worker runs the matching after it queues a ticket and every
:data:`MATCH_EVERY` seconds while tickets wait. Rooms of quick play have a clock
(:data:`QUICK_CLOCK`): a stranger who leaves is replaced by a stand-in bot.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any

import anyio.to_thread
from fastapi import APIRouter, Header, HTTPException, Request
from sqlalchemy import delete, func, select, text, update
from sqlalchemy.engine import Connection

from spieltisch.clocks import ClockSettings
from spieltisch.engine import RulesError, get_game
from spieltisch.server.accounts import Account, Accounts
from spieltisch.server.api import charge_room
from spieltisch.server.bot_seats import bot_levels
from spieltisch.server.codes import clean_name, hash_secret, new_code, new_key, new_secret
from spieltisch.server.errors import RoomError
from spieltisch.server.limits import Addresses
from spieltisch.server.messages import QuickPlayIn, QuickPlayOut, QuickPlayStatus
from spieltisch.server.sessions import signed_in
from spieltisch.server.store import RoomRow, SeatRow, Store

log = logging.getLogger("spieltisch.server.quickplay")

TICKET_HEADER = "Spieltisch-Ticket"
TICKET_TIMEOUT = 30.0
"""Seconds a waiting ticket stays queued without being asked about."""
SEATED_KEPT = 86400.0
"""Seconds a seated ticket is kept (its player may ask again where to sit)."""
SEEN_EVERY = 5.0
"""A status request stores that the ticket is alive at most this often."""
MATCH_EVERY = 1.0
"""Seconds between two matchings while tickets wait."""
MAX_BOTS_AFTER = 600.0
QUICK_CLOCK = {"move": 120.0, "grace": 60.0}
"""Quick-play rooms: two minutes per decision; a player away for a minute gets a stand-in bot."""
LOCK_KEY = 0x5173_7072
"""The PostgreSQL advisory lock of the matching (any constant: one matcher at a time)."""


@dataclasses.dataclass(frozen=True)
class Ticket:
    ticket: str
    """The hash of the ticket (the seat's secret hash once seated)."""
    game: str
    players: int
    name: str
    bots: str
    bots_after: float | None
    created: float
    account: str | None = None
    """The signed-in player's account (docs/accounts.md): never seated with one they blocked or
    who blocked them."""


class QuickPlay:
    """The quick-play queues of a store; ``poke`` tells the lobby that they changed."""

    def __init__(self, store: Store, bot_delay: float, poke: Callable[[], None] = lambda: None) -> None:
        self.store = store
        self.bot_delay = bot_delay
        self.poke = poke
        self.table = store.quickplay
        self.postgres = store.engine.dialect.name == "postgresql"

    def check(self, body: QuickPlayIn, account: Account | None = None) -> dict[str, Any]:
        """The queue row of a request, checked (raises :class:`RoomError` 422 saying what is wrong);
        a signed-in player waits, and sits, under the account's name."""
        try:
            game = get_game(body.game)
        except RulesError as exc:
            raise RoomError(422, str(exc)) from exc
        if not game.min_players <= body.players <= game.max_players:
            raise RoomError(
                422, f"players: {game.title} is for {game.min_players} to {game.max_players} players, "
                f"not {body.players}"
            )  # fmt: skip
        levels = bot_levels(game.name)
        if body.bots not in levels:
            raise RoomError(422, f"bots: the level must be one of {', '.join(levels)}, not {body.bots!r}")
        return {
            "game": game.name, "players": body.players, "bots": body.bots, "bots_after": body.bots_after,
            "name": account.name if account is not None else clean_name(body.name, 0),
            "account": account.id if account is not None else None,
        }  # fmt: skip

    async def enqueue(self, wish: dict[str, Any]) -> str:
        """Queue a player (``wish``: :meth:`check`'s row); their ticket."""
        ticket = new_secret()
        now = time.time()
        row = {**wish, "ticket": hash_secret(ticket), "created": now, "seen": now}

        def write(conn: Connection) -> None:
            conn.execute(self.table.insert().values(**row))

        await self._write(write)
        try:
            await self.match()
        except Exception as exc:  # queued all the same: the next matching seats the player
            log.warning("quick play cannot match now: %s", type(exc).__name__)
        self.poke()
        return ticket

    async def status(self, ticket: str) -> dict[str, Any]:
        """Where the ticket's player is: waiting (and how many with them) or seated."""
        key = hash_secret(ticket)
        found = await anyio.to_thread.run_sync(self._status, key)
        if found is None:
            raise RoomError(404, "no such quick-play ticket (it was seated long ago, cancelled or expired)")
        row, waiting = found
        if row.room is not None:
            return {"status": "seated", "room": row.room, "seat": row.seat, "secret": ticket}
        now = time.time()
        if now - row.seen >= SEEN_EVERY:

            def seen(conn: Connection) -> None:
                conn.execute(update(self.table).where(self.table.c.ticket == key).values(seen=now))

            await self._write(seen)
        return {
            "status": "waiting",
            "game": row.game,
            "players": row.players,
            "waiting": waiting,
            "waited": round(now - row.created, 1),
            "bots_after": row.bots_after,
        }

    def _status(self, key: str) -> tuple[Any, int] | None:
        q = self.table
        with self.store.engine.connect() as conn:
            row = conn.execute(select(q).where(q.c.ticket == key)).first()
            if row is None:
                return None
            waiting = conn.execute(
                select(func.count()).where(
                    q.c.game == row.game, q.c.players == row.players, q.c.room.is_(None)
                )
            ).scalar_one()
        return row, int(waiting)

    async def cancel(self, ticket: str) -> None:
        """Leave the queue (refused once seated: the seat is the player's, in its room)."""
        key = hash_secret(ticket)
        outcome: list[str | None] = []

        def write(conn: Connection) -> None:
            outcome.clear()
            row = conn.execute(select(self.table.c.room).where(self.table.c.ticket == key)).first()
            if row is not None and row.room is None:
                conn.execute(delete(self.table).where(self.table.c.ticket == key))
            outcome.append("missing" if row is None else row.room)

        await self._write(write)
        if outcome == ["missing"]:
            raise RoomError(404, "no such quick-play ticket (it was cancelled or expired)")
        if outcome[0] is not None:
            raise RoomError(409, f"already seated in room {outcome[0]}: leave the game there")
        self.poke()

    async def waiting(self) -> bool:
        def any_waiting() -> bool:
            q = self.table
            with self.store.engine.connect() as conn:
                return conn.execute(select(q.c.ticket).where(q.c.room.is_(None)).limit(1)).first() is not None

        return await anyio.to_thread.run_sync(any_waiting)

    async def match(self) -> list[str]:
        """Seat whoever can be seated now (one transaction); the codes of the new rooms."""
        made: list[str] = []

        def write(conn: Connection) -> None:
            made.clear()  # (a write is tried again alone when its group fails)
            if self.postgres:
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": LOCK_KEY})
            now = time.time()
            q = self.table
            conn.execute(delete(q).where(q.c.room.is_(None), q.c.seen < now - TICKET_TIMEOUT))
            conn.execute(delete(q).where(q.c.room.is_not(None), q.c.created < now - SEATED_KEPT))
            rows = conn.execute(
                select(q).where(q.c.room.is_(None)).order_by(q.c.game, q.c.players, q.c.created, q.c.ticket)
            ).all()
            queues: dict[tuple[str, int], list[Ticket]] = {}
            for r in rows:
                queues.setdefault((r.game, r.players), []).append(
                    Ticket(r.ticket, r.game, r.players, r.name, r.bots, r.bots_after, r.created, r.account)
                )
            apart = self._blocks(conn, {r.account for r in rows if r.account})
            for tickets in queues.values():
                for group in _groups(tickets, now, apart):
                    room = self._room(group, now, conn)
                    self.store.room_write(room)(conn)
                    for seat in room.seats:
                        if seat.kind == "human":
                            conn.execute(
                                update(q)
                                .where(q.c.ticket == seat.secret_hash)
                                .values(room=room.code, seat=seat.seat)
                            )
                    made.append(room.code)

        await self._write(write)
        if made:
            log.info("quick play seated %d room(s): %s", len(made), ", ".join(made))
            self.poke()
        return made

    def _room(self, group: Sequence[Ticket], now: float, conn: Connection) -> RoomRow:
        first = group[0]
        players = first.players
        order = list(range(players))
        secrets.SystemRandom().shuffle(order)  # who sits where: no advantage for the first to queue
        seats = [SeatRow(seat, "bot", level=first.bots, taken=True) for seat in range(players)]
        for ticket, seat in zip(group, order, strict=False):
            seats[seat] = SeatRow(
                seat, "human", name=ticket.name, secret_hash=ticket.ticket, taken=True, account=ticket.account
            )
        rooms = self.store.rooms
        while True:
            code = new_code()
            if conn.execute(select(rooms.c.code).where(rooms.c.code == code)).first() is None:
                break
        game = get_game(first.game)
        return RoomRow(
            code, game.name, players, {}, secrets.randbits(62), self.bot_delay, "playing", seats,
            created=now, started=now, active=now, rules_version=game.rules_version,
            clock=_clock(game.name), invite=new_key(),
        )  # fmt: skip

    def _blocks(self, conn: Connection, accounts: set[str]) -> Callable[[Ticket, Ticket], bool]:
        """Whether two waiting tickets must not share a table: one's account blocked the other's."""
        pairs: set[tuple[str, str]] = set()
        if len(accounts) > 1:
            t = self.store.accounts.blocks
            among = t.c.account.in_(accounts) & t.c.blocked.in_(accounts)
            pairs = {(str(a), str(b)) for a, b in conn.execute(select(t.c.account, t.c.blocked).where(among))}

        def apart(x: Ticket, y: Ticket) -> bool:
            return (
                x.account is not None
                and y.account is not None
                and ((x.account, y.account) in pairs or (y.account, x.account) in pairs)
            )

        return apart

    async def _write(self, write: Callable[[Connection], None]) -> None:
        await self.store.transaction_async(write)

    async def run(self) -> None:
        """Match every :data:`MATCH_EVERY` s while tickets wait (bots after a wait), until cancelled."""
        while True:
            await asyncio.sleep(MATCH_EVERY)
            try:
                if await self.waiting():
                    await self.match()
            except Exception as exc:  # the database is away: try again later
                log.warning("quick play cannot match now: %s", type(exc).__name__)


def _groups(tickets: list[Ticket], now: float, apart: Callable[[Ticket, Ticket], bool]) -> list[list[Ticket]]:
    """The tables a queue makes now, the longest waiting first: a full table of people who may
    sit together (nobody blocked another, docs/accounts.md), and for each ticket whose own
    ``bots_after`` has run out, a table of it and the others who accept bots by now, with bots."""
    players = tickets[0].players if tickets else 0
    waiting = list(tickets)
    out: list[list[Ticket]] = []

    def due(t: Ticket) -> bool:
        return t.bots_after is not None and now - t.created >= t.bots_after

    def table(first: Ticket, others: list[Ticket]) -> list[Ticket]:
        group = [first]
        for t in others:
            if len(group) < players and not any(apart(t, g) for g in group):
                group.append(t)
        return group

    found = True
    while found and waiting:
        found = False
        for first in waiting:
            group = table(first, [t for t in waiting if t is not first])
            if len(group) < players and due(first):
                group = table(first, [t for t in waiting if t is not first and due(t)])
            elif len(group) < players:
                continue
            out.append(group)
            waiting = [t for t in waiting if t not in group]
            found = True
            break
    return out


def _clock(game: str) -> dict[str, Any]:
    """:data:`QUICK_CLOCK` with this server's stand-in level for ``game``."""
    settings = ClockSettings.from_json(QUICK_CLOCK, bot_levels(game))
    assert settings is not None
    return settings.to_json()


def quickplay_routes(quick: QuickPlay, addresses: Addresses, accounts: Accounts) -> APIRouter:
    router = APIRouter()

    @router.post("/api/quickplay", response_model=QuickPlayOut)
    async def queue(body: QuickPlayIn, request: Request) -> dict[str, Any]:
        """Wait for a quick-play game; the answer's ticket goes in the Spieltisch-Ticket header."""
        wish = quick.check(body, await signed_in(accounts, request))  # refused: not counted (issue #34)
        await charge_room(addresses, request)
        return {"ticket": await quick.enqueue(wish), "header": TICKET_HEADER}

    @router.get("/api/quickplay", response_model=QuickPlayStatus, response_model_exclude_none=True)
    async def status(ticket: str | None = Header(default=None, alias=TICKET_HEADER)) -> dict[str, Any]:
        """Waiting (how many wait with you) or seated (room, seat and the seat's secret: the ticket)."""
        return await quick.status(_needed(ticket))

    @router.delete("/api/quickplay", status_code=204)
    async def cancel(ticket: str | None = Header(default=None, alias=TICKET_HEADER)) -> None:
        """Leave the queue."""
        await quick.cancel(_needed(ticket))

    return router


def _needed(ticket: str | None) -> str:
    if not ticket:
        raise HTTPException(400, f"send the quick-play ticket in the {TICKET_HEADER} header")
    return ticket
