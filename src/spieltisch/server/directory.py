"""The room directory: every room of this process, loaded, created and let go.

A :class:`RoomDirectory` is given its rooms' :class:`~spieltisch.server.owner.Owner`
(one process: :class:`~spieltisch.server.owner.LocalOwner`; a worker of several:
:class:`spieltisch.server.cluster.Cluster`) and tells it when a room is loaded,
created or let go; every command for a room goes through the owner
(:meth:`RoomDirectory.run`), which runs it where the room is owned.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
from sqlalchemy.exc import DBAPIError

from spieltisch.clocks import ClockError, ClockSettings
from spieltisch.engine import RulesError, get_game
from spieltisch.server.bot_seats import bot_levels
from spieltisch.server.botpool import BotPool
from spieltisch.server.codes import (
    clean_name,
    hash_secret,
    new_code,
    new_key,
    new_secret,
    normalize_code,
    plausible,
    split_name,
)
from spieltisch.server.commands import Command
from spieltisch.server.connection import Connection
from spieltisch.server.errors import FAULTS, RoomError, storage_fault
from spieltisch.server.notify import TurnNotices
from spieltisch.server.owner import Owner
from spieltisch.server.room import Room
from spieltisch.server.store import CodeTaken, RoomRow, SeatRow, Store, StoreError

log = logging.getLogger("spieltisch.server")


@dataclass
class SeatSpec:
    kind: str  # "human" | "bot" | "remote"
    level: str | None = None
    name: str | None = None
    secret: str | None = None
    """For a remote seat: its bot token (stored only as a hash)."""


@dataclass(frozen=True)
class RoomPlan:
    """A room checked and ready to store (:meth:`RoomDirectory.plan`)."""

    template: RoomRow
    seat: int
    """The first human seat: the creator's."""
    secret: str
    """That seat's secret."""


class RoomDirectory:
    """All rooms of a server: creation, loading from storage, letting idle ones go; their
    commands go to their ``owner``."""

    def __init__(
        self,
        store: Store,
        pool: BotPool,
        owner: Owner,
        bot_delay: float = 0.6,
        turn_notices: TurnNotices | None = None,
        private: bool = True,
    ) -> None:
        """``private``: a game that has started opens only by its invite link or a seat's
        secret (:meth:`find`); ``False``: by its code alone too."""
        self.store = store
        self.turn_notices = turn_notices or TurnNotices(None)
        """Tells the players of turn-based rooms by e-mail when it is their turn."""
        self.pool = pool
        self.owner = owner
        self.bot_delay = bot_delay
        self.private = private
        self.rooms: dict[str, Room] = {}
        self._load_lock = asyncio.Lock()
        """Held while a room is loaded or let go (and while old rooms are expired)."""
        owner.bind(self)

    async def run(self, command: Command, conn: Connection | None = None, ref: str | None = None) -> Any:
        """Run ``command`` on its room's owner (here, or the worker that owns it); raises
        :class:`~spieltisch.server.errors.CommandError` or :class:`RoomError` when refused."""
        return await self.owner.run(command, conn, ref)

    async def start(self) -> None:
        """Resume every unfinished game (the owner shares them out; bots continue by themselves)."""
        await self.owner.start(await anyio.to_thread.run_sync(self.store.unfinished))

    async def stop(self) -> None:
        await self.owner.stop()
        for room in list(self.rooms.values()):
            await room.stop_owning()
        self.rooms.clear()

    async def room(self, code: str) -> Room:
        code = normalize_code(code)
        room = self.rooms.get(code)
        if room is not None:
            room.used = time.monotonic()
            return room
        async with self._load_lock:
            room = self.rooms.get(code)
            if room is None:
                room = await self._load(code)
        room.used = time.monotonic()
        return room

    async def find(self, name: str, seat: int | None = None, secret: str | None = None) -> Room:
        """The room a request names by ``name`` (its code, or ``CODE-KEY`` from its invite
        link), if the request may see it (:meth:`Room.admits`, or ``seat``'s ``secret``);
        else :class:`RoomError` 404 worded as for a room that does not exist, so that
        guessing codes finds no game that has started (docs/deploy.md, "Threat model")."""
        code, key = split_name(name)
        room = await self.room(code)
        seated = seat is not None and room.check_seat(seat, secret)
        if seat is not None and not seated:
            await room.hooks.refresh(room)  # (a cluster: the seat may have been taken elsewhere)
            seated = room.check_seat(seat, secret)
        if seated or not self.private or room.admits(key):
            return room
        raise RoomError(404, f"no room {code}")

    async def _load(self, code: str) -> Room:
        if not plausible(code):
            raise RoomError(404, f"no room {code}")
        await self.owner.loading(code)  # (a cluster: no worker's sweep expires it meanwhile)
        row = await anyio.to_thread.run_sync(self.store.load, code)
        if row is None:
            await self.owner.not_loaded(code)
            raise RoomError(404, f"no room {code}")
        try:
            room = await anyio.to_thread.run_sync(Room, row, self.store, self.pool, self.owner)
            room.turn_notices = self.turn_notices
        except RulesError as exc:  # e.g. a game this engine no longer has
            await self.owner.not_loaded(code)
            raise RoomError(409, f"room {code} is an archived record this engine cannot open: {exc}") from exc
        self.rooms[code] = room
        await self.owner.loaded(room)
        return room

    async def let_go(self, room: Room, unless: Callable[[], bool]) -> bool:
        async with self._load_lock:  # nobody loads a room while it is let go
            if self.rooms.get(room.code) is not room or unless():
                return False
            del self.rooms[room.code]
        return True

    async def forget_idle(self, idle: float) -> list[str]:
        """Let go of the rooms that nobody has asked for or left for ``idle``
        seconds, with nobody connected and no bot to move: finished games, and
        games waiting for people who went away. The store keeps them; asking
        for one loads it again, as after a restart. Returns their codes."""
        now = time.monotonic()
        gone: list[str] = []
        async with self._load_lock:  # nobody loads a room while it is let go
            for code, room in list(self.rooms.items()):
                busy = room.connections or room.elsewhere or room.bot_movers() or room.clock_pending()
                if busy or now - room.used < idle:
                    continue
                del self.rooms[code]
                await room.stop_owning()
                await self.owner.forgotten(room)
                gone.append(code)
        return gone

    async def expire(self, finished: float, abandoned: float, period: float) -> list[str]:
        """Delete the stored rooms finished before ``finished`` or abandoned before
        ``abandoned`` (wall times; 0: none), except those in use here or elsewhere
        (the owner says which, at most once per ``period`` s); their codes."""
        # Rooms in memory are in use: never deleted under anybody's feet; and nobody loads a
        # room while the old ones go.
        async with self._load_lock:
            in_use = await self.owner.in_use(period)
            if in_use is None:
                return []
            keep = set(self.rooms) | in_use
            return await asyncio.to_thread(self.store.expire, finished, abandoned, keep)

    def plan(
        self,
        game: str,
        players: int,
        options: Mapping[str, Any] | None,
        seats: list[SeatSpec] | None,
        name: str | None,
        bot_delay: float | None,
        seed: int | None,
        clock: Mapping[str, Any] | None = None,
        allow_hints: bool = False,
        public: bool = False,
        email: str | None = None,
        lang: str | None = None,
    ) -> RoomPlan:
        """A new room checked but not yet stored; raises :class:`RoomError` (422) saying what is
        wrong, before anything is counted or stored. ``clock``: the room's clock settings
        (:class:`~spieltisch.clocks.ClockSettings`); ``public``: listed in the lobby while it waits;
        ``email``/``lang``: the creator's, for turn notices (:mod:`spieltisch.server.notify`)."""
        try:
            g = get_game(game)
        except RulesError as exc:
            raise RoomError(422, str(exc)) from exc
        try:
            settings = ClockSettings.from_json(clock, bot_levels(g.name))
        except ClockError as exc:
            raise RoomError(422, str(exc)) from exc
        if not g.min_players <= players <= g.max_players:
            raise RoomError(
                422, f"players: {g.title} is for {g.min_players} to {g.max_players} players, not {players}"
            )
        specs = seats if seats is not None else [SeatSpec("human") for _ in range(players)]
        if len(specs) != players:
            raise RoomError(422, f"seats: need exactly {players} seats, got {len(specs)}")
        humans = [i for i, s in enumerate(specs) if s.kind == "human"]
        if not humans:
            raise RoomError(422, "seats: at least one seat must be human")
        levels = bot_levels(g.name)
        for i, s in enumerate(specs):
            if s.kind == "bot" and s.level not in levels:
                raise RoomError(
                    422, f"seats: seat {i}: bot level must be one of {', '.join(levels)}, not {s.level!r}"
                )
        if g.name == "scout" and options:
            raise RoomError(
                422,
                f"options: Scout has no rule options at the table, got {sorted(options)} (its research "
                "options shrink the game for the lab and learning code only, docs/engine.md)",
            )
        seed = seed if seed is not None else secrets.randbits(62)
        try:
            g.new_state(players, seed, options)
        except RulesError as exc:
            raise RoomError(422, str(exc)) from exc
        first = humans[0]
        secret = new_secret()
        rows = [
            SeatRow(seat=i, kind=s.kind, level=s.level if s.kind == "bot" else None)
            for i, s in enumerate(specs)
        ]
        for i, s in enumerate(specs):
            if s.kind == "remote":  # reserved for a program with the bot token the caller holds
                rows[i].name = clean_name(s.name or "Remote bot", i)
                rows[i].taken = True
                rows[i].secret_hash = hash_secret(s.secret or new_secret())
        rows[first].name = clean_name(name, first)
        rows[first].taken = True
        rows[first].secret_hash = hash_secret(secret)
        rows[first].email, rows[first].lang = email, lang
        status = "playing" if len(humans) == 1 else "waiting"
        delay = self.bot_delay if bot_delay is None else bot_delay
        clock_json = settings.to_json() if settings is not None else None
        template = RoomRow("", g.name, players, dict(options or {}), seed, delay, status, rows)
        template.clock, template.hints, template.public = clock_json, allow_hints, public
        template.invite = new_key()
        return RoomPlan(template, first, secret)

    async def insert(self, template: RoomRow) -> Room:
        """Store a new room like ``template`` under a new code (with today's rules version,
        a rematch too); this process owns it from the start."""
        for _ in range(20):
            now = time.time()
            row = dataclasses.replace(
                template,
                code=new_code(),
                rules_version=get_game(template.game).rules_version,
                created=now,
                started=now if template.status == "playing" else None,
            )
            try:
                await self.store.create_room_async(row, row.rematch_of)
            except CodeTaken:
                continue
            except StoreError as exc:
                raise RoomError(503, f"the database refused the new room: {exc}") from exc
            except DBAPIError as exc:
                fault = storage_fault(exc)
                if fault is not None:
                    raise RoomError(503, f"{FAULTS[fault]} right now; try again") from exc
                raise
            room = Room(row, self.store, self.pool, self.owner)
            room.turn_notices = self.turn_notices
            self.rooms[row.code] = room
            await self.owner.created(room)
            return room
        raise RoomError(503, "could not find a free room code")
