"""One serial owner per game: a room's state, seats, connections and command path.

Every command - from a person's WebSocket or from a bot - goes through
:meth:`Room.act`: under the room's lock it checks the seat, the version and
the turn, applies the action to a copy of the state through the engine
(``state.apply`` validates), hands the write to the store's group writer and,
once it is durable, swaps the copy in and broadcasts every connection its own
view and legal actions. The event loop never waits on the disk, and bots
think in the worker processes of a :class:`~spieltisch.server.botpool.BotPool`
(:mod:`spieltisch.server.bot_seats`).

Who owns a room (this process, or one worker of several) is not the room's
business: it tells its :class:`RoomHooks` what changed, and they tell the others.
"""

from __future__ import annotations

import asyncio
import copy
import json
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson
from sqlalchemy.exc import IntegrityError

from spieltisch.clocks import DEFAULT_STAND_IN, ClockError, Clocks, ClockSettings, stand_in_level
from spieltisch.engine import GameRecord, IllegalActionError, RecordError, RulesError, State, get_game
from spieltisch.server.bot_seats import SeatBots, bot_levels
from spieltisch.server.botpool import BotPool
from spieltisch.server.clock_timer import ClockTimer
from spieltisch.server.codes import key_matches, secret_matches
from spieltisch.server.connection import Connection
from spieltisch.server.errors import FAULTS, CommandError, RoomError, storage_fault
from spieltisch.server.notation import NO_LEGAL, action_text, legal_json, verb
from spieltisch.server.public_log import phase_of, schmaus_public, scout_note, scout_notes
from spieltisch.server.ratings import game_end_write
from spieltisch.server.store import RoomRow, Store

log = logging.getLogger("spieltisch.server")
PAUSED_EVERY = 5.0
"""Seconds between two notices to a table that a server fault pauses it."""


class RoomHooks(Protocol):
    """What a room tells, and asks, the owner of its rooms (:class:`~spieltisch.server.owner.Owner`):
    one process's local owner does nothing with it; a worker among several
    (:mod:`spieltisch.server.cluster`) tells the others."""

    def check_write(self, room: Room) -> None:
        """Raise :class:`CommandError` unless this worker may write the room now (it holds the lease)."""

    def committed(
        self, room: Room, start: int, added: list[tuple[int, str]], status: str, by: str | None
    ) -> None:
        """Actions ``start, ...`` (played ``by``, see :meth:`Room.act`) are durable and
        applied here: tell the other workers."""

    def conflict(self, room: Room) -> bool:
        """Another writer stored an index this room tried to append: whether it is behind
        (another worker took it over; ``False``: there is no other writer)."""

    def presence(self, room: Room) -> None:
        """The seats connected to this worker changed."""

    def stand_ins(self, room: Room) -> None:
        """The seats a stand-in bot plays for changed (a time-out, a player back): tell
        the other workers at once, not with the bot's first move."""

    async def refresh(self, room: Room) -> None:
        """Bring this worker's copy of ``room`` up to date with the database now (a
        seat taken through another worker may not have reached the copy yet)."""


"""Notation per game and action id (the numbering is fixed, so the text is too)."""


@dataclass
class _Cache:
    rev: int = -1
    texts: dict[tuple[int | None, int], str] = field(default_factory=dict)
    info: orjson.Fragment | None = None
    """The room's info as JSON, the same in every seat's message."""
    over: bool = False
    legal: dict[int, tuple[int, list[int]]] = field(default_factory=dict)


class Room:
    """A table: its game state, seats, bots and connections. One lock orders all commands."""

    def __init__(self, row: RoomRow, store: Store, pool: BotPool, hooks: RoomHooks) -> None:
        self.row = row
        self.code = row.code
        self.store = store
        self.pool = pool
        self.game = get_game(row.game)
        self.state: State
        self.archived: str | None
        """Why the stored game no longer replays under this engine (``None``: it does).
        An archived room is a record: shown with its stored log, never played on."""
        self.state, self.archived = load_state(row)
        self.actions: list[tuple[int, str]] = list(row.actions)
        self.clock_settings: ClockSettings | None = None
        """The room's clock (None: no clock)."""
        self.clocks: Clocks | None = None
        """Each seat's bank and running decision, derived from the stored log (actions' times)."""
        self.by: list[str | None] = []
        """Per action: None for the seat's own player, ``bot:LEVEL`` for a stand-in bot."""
        self.stand_in: dict[int, str] = {}
        """The people's seats a bot plays for now (its level): time out, away too long, or left."""
        self.derive_clocks(row)
        loaded = time.monotonic()
        self.away: dict[int, float] = {s.seat: loaded for s in row.seats if s.kind != "bot" and s.taken}
        """Since when (monotonic) each person's seat has had no connection."""
        self.version = len(self.actions)
        self.turn_version = [self.version] * row.players
        self._moving: tuple[State, tuple[int, ...]] | None = None
        """The seats to move in ``_moving[0]`` (:meth:`to_move`)."""
        self.lock = asyncio.Lock()
        self.connections: set[Connection] = set()
        self._paused_at = -PAUSED_EVERY  # when the table was last told of a server fault
        self.bots: dict[int, str] = {s.seat: s.level or "random" for s in row.seats if s.kind == "bot"}
        """The bot seats and their specs; the bots themselves live in the pool's workers."""
        self.seat_bots = SeatBots(self)
        self.turn_notices: Callable[[Room, Iterable[int]], None] = lambda _room, _seats: None
        """Told the seats that have just become seats to move (the directory sets it:
        :class:`~spieltisch.server.notify.TurnNotices`, e-mail in turn-based games)."""
        self.clock_timer = ClockTimer(self)
        """The timer of the seats' deadlines (it runs on the room's owner)."""
        """The bots of the bot seats and the stand-ins (they run on the room's owner)."""
        self.rev = 0
        self._log_mark = len(self.actions)
        """Log entries every connection has received (the previous broadcast's length)."""
        self._public: tuple[int, list[bool]] | None = None
        """(Waschbär-Schmaus) the log's public entries as of a version (:meth:`_schmaus_public`)."""
        self._sealed_from = self.sealed_from()
        """The first log entry sealed to some seat at the previous broadcast (sent again: a reveal)."""
        self._notes: list[dict[str, Any] | None] | None = None
        """Per action, the cards a Scout move made public (None until the log is first sent)."""
        self._cache = _Cache()
        self.used = time.monotonic()
        """When somebody last asked for this room or left it (see
        :meth:`~spieltisch.server.directory.RoomDirectory.forget_idle`)."""
        self.hint_lock = asyncio.Lock()
        self.hints: dict[int, tuple[int, dict[str, Any]]] = {}
        """The last hint per seat and the decision it is for (its ``turn_version``)."""
        self.hooks = hooks
        """The owner's (:class:`~spieltisch.server.owner.Owner`): told what changed."""
        self.elsewhere: set[int] = set()
        """Seats connected to other workers (kept by the cluster)."""

    # -- info ------------------------------------------------------------------
    @property
    def status(self) -> str:
        return self.row.status

    def connected(self, seat: int) -> bool:
        return seat in self.elsewhere or any(c.seat == seat for c in self.connections)

    def to_move(self) -> tuple[int, ...]:
        """``self.state.to_move()``, computed once per state (a state is never changed
        in place: a move makes a new one)."""
        state = self.state
        moving = self._moving
        if moving is None or moving[0] is not state:
            moving = self._moving = (state, state.to_move())
        return moving[1]

    def derive_clocks(self, row: RoomRow) -> None:
        """The clocks, who played each move and the stand-ins, derived from the stored
        room: when it is loaded, taken over by another worker, or reloaded."""
        try:
            self.clock_settings = ClockSettings.from_json(row.clock, bot_levels(row.game))
        except ClockError as exc:  # e.g. a stand-in level this server cannot run: its default
            log.warning("room %s: stored clock %r: %s; the default stand-in plays", self.code, row.clock, exc)
            clock = {k: v for k, v in (row.clock or {}).items() if k != "stand_in"}
            self.clock_settings = ClockSettings.from_json(clock, bot_levels(row.game))
        self.clocks = None
        times = list(row.times) if len(row.times) == len(row.actions) else [None] * len(row.actions)
        if self.clock_settings is not None and row.status == "playing" and self.archived is None:
            first = self.game.new_state(row.players, row.seed, dict(row.options))
            started = row.started if row.started is not None else row.created
            try:
                self.clocks, _ = Clocks.replay(self.clock_settings, first, started, row.actions, times)
            except RulesError as exc:  # a log this engine does not replay: no clock to run
                log.warning("room %s: no clocks, the stored log does not replay: %s", self.code, exc)
        elif self.clock_settings is not None and row.status == "waiting":
            self.clocks = Clocks(self.clock_settings, row.players)  # they start when the game does
        self.by = list(row.by) if len(row.by) == len(row.actions) else [None] * len(row.actions)
        self.stand_in = {}
        for s in row.seats:
            if s.kind == "bot":
                continue
            if s.left:
                self.stand_in[s.seat] = self.stand_in_level
                continue
            mine = [b for (who, _t), b in zip(row.actions, self.by, strict=True) if who == s.seat]
            level = stand_in_level(mine[-1]) if mine else None
            if level is not None:  # the stand-in played last: it goes on until the player is back
                self.stand_in[s.seat] = level

    @property
    def stand_in_level(self) -> str:
        """The level of the bot that plays for a person's seat when it must."""
        if self.clock_settings is not None:
            return self.clock_settings.stand_in
        levels = bot_levels(self.game.name)
        return DEFAULT_STAND_IN if DEFAULT_STAND_IN in levels else levels[0]

    @property
    def invite(self) -> str:
        """The room's invite link (a path): ``/r/CODE-KEY``; ``/r/CODE`` for a room stored
        before invite keys."""
        key = self.row.invite
        return f"/r/{self.code}-{key}" if key else f"/r/{self.code}"

    def admits(self, key: str | None) -> bool:
        """May a request that names this room with the invite key ``key`` (``None``: by its
        code alone) see it? Yes while it waits for players (people type its code to join),
        and always for a room stored before invite keys; after that only with its key
        (or a seat's secret: the caller's check). docs/deploy.md, "Threat model"."""
        invite = self.row.invite
        return invite is None or self.row.status == "waiting" or key_matches(key, invite)

    def info(self) -> dict[str, Any]:
        row = self.row
        seats: list[dict[str, Any]] = []
        connected = {c.seat for c in self.connections} | self.elsewhere  # (see connected())
        for s in row.seats:
            if s.kind == "bot":
                seats.append(
                    {
                        "seat": s.seat,
                        "kind": "bot",
                        "level": s.level,
                        "name": f"Bot ({s.level})",
                        "taken": True,
                        "connected": True,
                    }
                )
            else:
                seat = {
                    "seat": s.seat,
                    "kind": s.kind,  # "human" or "remote" (a program with a bot token)
                    "name": s.name if s.taken else None,
                    "taken": s.taken,
                    "connected": s.seat in connected,
                }
                if s.seat in self.stand_in:  # a bot plays for the seat now
                    seat["stand_in"] = self.stand_in[s.seat]
                if s.left:
                    seat["left"] = True
                if s.account is not None and s.taken:
                    seat["signed_in"] = True
                seats.append(seat)
        outcome = self.state.outcome()
        return {
            "room": self.code,
            "game": self.game.name,
            "title": self.game.title,
            "players": row.players,
            "options": self.state.game_options(),
            "status": row.status,
            "seats": seats,
            "version": self.version,
            "bot_delay": row.bot_delay,
            "rematch": row.rematch,
            "rematch_of": row.rematch_of,
            "outcome": outcome.to_json() if outcome is not None else None,
            "hints": row.hints,
            "rated": row.rated,
            "rules_version": row.rules_version or self.game.rules_version,
            "archived": self.archived is not None,
            "archived_reason": self.archived,
            "clock": self.clock_settings.to_json() if self.clock_settings is not None else None,
            "ended": row.ended,
            "invite": self.invite,
        }

    def check_seat(self, seat: int, secret: str | None) -> bool:
        if not 0 <= seat < self.row.players:
            return False
        s = self.row.seats[seat]
        return s.kind != "bot" and s.taken and secret_matches(secret, s.secret_hash)

    # -- messages --------------------------------------------------------------
    def legal_ids(self, seat: int) -> list[int]:
        if self.row.status != "playing" or self.archived is not None or seat not in self.to_move():
            return []
        cached = self._cache.legal.get(seat)
        if cached is not None and cached[0] == self.version:
            return cached[1]
        ids = self.state.legal_action_ids(seat)
        self._cache.legal[seat] = (self.version, ids)
        return ids

    def log_for(self, seat: int | None, start: int = 0) -> list[dict[str, Any]]:
        """Log entries ``start`` onwards, redacted for ``seat`` like its view."""
        over = self.state.is_over() or self.row.status == "over"
        scout = self.game.name == "scout"
        public = None if scout or over else self._schmaus_public()
        notes = self.scout_notes() if scout else None
        out: list[dict[str, Any]] = []
        for n, (who, text) in enumerate(self.actions[start:], start + 1):
            hidden = False
            if not over and who != seat:
                if scout and text in ("flip", "keep"):  # S-5: the flip decision is secret
                    hidden, text = True, "decided"
                elif (
                    public is not None and not public[n - 1]
                ):  # sealed until all are in (W-4, W-9, W-11, W-16)
                    hidden, text = True, f"{verb(text)} ?"
            by = self.by[n - 1] if n <= len(self.by) else None
            entry = {"n": n, "seat": who, "text": text, "hidden": hidden, "by": by}
            note = notes[n - 1] if notes is not None and n <= len(notes) else None
            if note:
                entry.update(note)
            out.append(entry)
        return out

    def scout_notes(self) -> list[dict[str, Any] | None]:
        """The cards each Scout move of the log made public (derived once, kept up by :meth:`_commit`)."""
        if self._notes is None:
            self._notes = scout_notes(
                self.game, self.row.players, self.row.seed, self.row.options, self.actions
            )
        return self._notes

    def _schmaus_public(self) -> list[bool]:
        """Per action, whether every seat may read it now (computed once a version)."""
        if self._public is None or self._public[0] != self.version:
            self._public = (
                self.version,
                schmaus_public(self.actions, self.row.players, phase_of(self.state)),
            )
        return self._public[1]

    def sealed_from(self) -> int:
        """The first log entry some seat cannot read yet (its length: none)."""
        if self.game.name != "schmaus" or self.state.is_over():
            return len(self.actions)
        public = self._schmaus_public()
        return next((i for i, p in enumerate(public) if not p), len(public))

    def state_text(self, seat: int | None, full: bool = True) -> str:
        """The ``state`` message for a seat (cached per change).

        ``full`` sends the whole log (``log_from`` 0); otherwise only the entries
        added since the previous broadcast, which every connection has already
        received (``log_from`` says where they go). Entries never change once
        sent, except that the end of the game reveals them all: then the log is
        sent whole again.
        """
        cache = self._cache
        if cache.rev != self.rev:
            cache.rev = self.rev
            cache.texts = {}
            cache.info = orjson.Fragment(orjson.dumps(self.info()))  # the same for every seat
            cache.over = self.state.is_over()
        start = 0 if full or cache.over else min(self._log_mark, self._sealed_from)
        key = (seat, start)
        text = cache.texts.get(key)
        if text is None:
            legal = NO_LEGAL if seat is None else legal_json(self.game.name, self.state, self.legal_ids(seat))
            view = self.state.view(seat, log=False)
            view.pop("log", None)  # the message's own log replaces the engine's
            msg = {
                "type": "state",
                "version": self.version,
                "room": cache.info,
                "view": view,
                "legal": legal,
                "log_from": start,
                "log": self.log_for(seat, start),
            }
            text = orjson.dumps(msg).decode()
            cache.texts[key] = text
        return text

    def clocks_text(self) -> str:
        """The ``clocks`` field of a state message, as of now (``null``: no clock)."""
        if self.clocks is None:
            return "null"
        now = time.monotonic()
        snapshot = self.clocks.snapshot(now)
        for entry in snapshot:  # a person away on their turn: when the stand-in bot takes over
            due = self.deadline(entry["seat"]) if entry["seat"] in self.away else None
            entry["stand_in_after"] = None if due is None else round(max(0.0, due - now), 3)
        return orjson.dumps(snapshot).decode()

    def send_state(
        self, conn: Connection, ack: str | None = None, full: bool = True, clocks: str | None = None
    ) -> None:
        text = self.state_text(conn.seat, full)
        # The clocks change with time, not with the state: added outside the cache.
        text = text[:-1] + ',"clocks":' + (clocks if clocks is not None else self.clocks_text())
        if ack is not None:
            text += ',"ack":' + json.dumps(ack)
        conn.send(text + "}", ack)

    def broadcast(
        self, acting: Connection | None = None, ack: str | None = None, new: Connection | None = None
    ) -> None:
        """Every connection gets its own fresh state (the actor's carries ``ack``;
        a ``new`` connection, which has no log yet, gets the whole log)."""
        self.rev += 1
        clocks = self.clocks_text()
        for conn in list(self.connections):
            self.send_state(conn, ack if conn is acting else None, full=conn is new, clocks=clocks)
        self._log_mark = len(self.actions)
        self._sealed_from = self.sealed_from()
        self.clock_timer.wake.set()  # a deadline may have changed

    def paused(self, why: str) -> None:
        """Tell everyone at the table that a server fault pauses it (issue #34), not only the
        one whose move it refused: an ``unavailable`` error without a ``ref``, at most once
        every few seconds while the fault lasts."""
        now = time.monotonic()
        if now - self._paused_at < PAUSED_EVERY:
            return
        self._paused_at = now
        for conn in list(self.connections):
            conn.error("unavailable", why)

    def attach(self, conn: Connection) -> None:
        self.connections.add(conn)
        if conn.seat is None:
            self.send_state(conn)
        else:
            self.away.pop(conn.seat, None)
            self._take_back(conn.seat)  # the player is back: the stand-in bot lets go
            self.broadcast(new=conn)  # "connected" changed for everybody
            self.hooks.presence(self)

    def detach(self, conn: Connection) -> None:
        self.used = time.monotonic()
        if conn in self.connections:
            self.connections.discard(conn)
            if conn.seat is not None:
                if not self.connected(conn.seat):
                    self.away[conn.seat] = time.monotonic()
                self.broadcast()
                self.hooks.presence(self)

    # -- a worker's copy of a room another worker owns (spieltisch.server.cluster) --------
    def apply_stored(
        self,
        added: list[tuple[int, str]],
        status: str,
        acting: Connection | None = None,
        ack: str | None = None,
        by: str | None = None,
    ) -> None:
        """Apply actions another worker has stored (the next ones of this log) and
        broadcast, as :meth:`act` does after its own commit."""
        new = self.state.clone()
        for s, text in added:
            new.apply(s, text)
        level = stand_in_level(by)
        if level is None:
            self._take_back(added[0][0])
        else:  # a bot stands in for the seat (it timed out on the owner)
            self.stand_in.setdefault(added[0][0], level)
        self._commit(added[0][0], new, added, status, by)
        self.broadcast(acting, ack)

    def reload(self, row: RoomRow) -> None:
        """Start again from the stored room (another worker changed it), and send every
        connection its whole state."""
        self.state, self.archived = load_state(row)
        self.row = row
        self.actions = list(row.actions)
        self._notes = None
        self._public = None
        self.derive_clocks(row)
        self.version = len(self.actions)
        self.turn_version = [self.version] * row.players
        bots = {s.seat: s.level or "random" for s in row.seats if s.kind == "bot"}
        if bots != self.bots:
            self.bots = bots
            self.seat_bots.reset()
        self._cache = _Cache()
        self.rev += 1
        for conn in list(self.connections):
            self.send_state(conn)
        self._log_mark = len(self.actions)
        self._sealed_from = self.sealed_from()

    def _take_back(self, seat: int) -> bool:
        """A person's seat back from its stand-in bot (not after leaving); whether it was stood in."""
        if seat in self.stand_in and not self.row.seats[seat].left:
            del self.stand_in[seat]
            if self.clocks is not None:  # the decision's own time afresh (docs/web.md)
                self.clocks.restart(seat, time.monotonic())
            self.hooks.stand_ins(self)
            return True
        return False

    def player_back(self, seat: int) -> None:
        """The seat's player connected to another worker (:mod:`spieltisch.server.cluster`):
        as :meth:`attach` does here, the stand-in bot lets go of the seat."""
        self.away.pop(seat, None)
        if self._take_back(seat):
            self.broadcast()

    def set_stand_ins(self, levels: Mapping[int, str]) -> None:
        """The stand-ins as the room's owner has them (on a worker's copy of a room that
        another worker owns); broadcast if they changed."""
        changed = False
        for seat in [s for s in self.stand_in if s not in levels]:
            changed = self._take_back(seat) or changed
        for seat, level in levels.items():
            if 0 <= seat < self.row.players and self.stand_in.get(seat) != level:
                self.stand_in[seat] = level
                changed = True
        if changed:
            self.broadcast()

    # -- the command path --------------------------------------------------------
    async def act(
        self,
        seat: int | None,
        version: int,
        action: str | Mapping[str, Any] | None = None,
        action_id: int | None = None,
        conn: Connection | None = None,
        ref: str | None = None,
        by: str | None = None,
        time_out: bool = False,
        memory: bytes | None = None,
    ) -> None:
        """Check and apply one action; raise :class:`CommandError` when refused.

        ``by``: None for the seat's own player, ``bot:LEVEL`` for the stand-in
        bot (refused once the player has taken the seat back). ``time_out``: not
        an action but the clock's command that the seat's time is up (or its
        player away longer than the grace period): a bot stands in from now on.
        ``memory``: the bot's memory after this decision (from this server's own bot
        loop, never from a client), stored in the same transaction as the action."""
        async with self.lock:
            if seat is None:
                raise CommandError("forbidden", "spectators cannot act; join a seat to play")
            self.hooks.check_write(self)
            if self.archived is not None:
                raise CommandError("archived", f"room {self.code} is an archived record: {self.archived}")
            status = self.row.status
            if status == "waiting":
                raise CommandError("not_your_turn", "the game starts when every seat is taken")
            if status == "over":
                raise CommandError("illegal", "the game is over: no more actions")
            state = self.state
            to_move = self.to_move()
            if version > self.version or (
                version < self.version and (seat not in to_move or version < self.turn_version[seat])
            ):
                raise CommandError(
                    "stale", f"version {version} is out of date: the game is at version {self.version}"
                )
            if seat not in to_move:
                waiting = ", ".join(f"seat {s}" for s in to_move)
                raise CommandError(
                    "not_your_turn", f"it is not seat {seat}'s decision (waiting for {waiting})"
                )
            if time_out:
                due = self.deadline(seat)
                if seat in self.stand_in or due is None or due > time.monotonic():
                    raise CommandError("stale", f"seat {seat}'s time is not up")
                if self.memory_index(seat) is not None:  # an earlier stand-in's memory may be stored
                    try:
                        await self.store.forget_memory_async(self.code, seat)
                    except Exception as exc:
                        raise CommandError(
                            "internal", f"the time-out could not be stored, nothing changed: {exc}"
                        ) from exc
                self.stand_in[seat] = self.stand_in_level
                self.seat_bots.forget(seat)  # the stand-in starts from the position it finds
                log.info(
                    "room %s: seat %d timed out; a %s bot plays for it", self.code, seat, self.stand_in_level
                )
                self.broadcast()
                self.hooks.stand_ins(self)
                self.seat_bots.wake.set()
                return
            left = self.row.seats[seat].left
            if by is not None and seat not in self.stand_in:
                raise CommandError("stale", f"seat {seat}'s player has taken the seat back")
            if by is None and left:
                raise CommandError("forbidden", f"seat {seat} left the game; a bot plays for it now")
            new = state.clone()
            try:
                if action_id is not None:
                    if action_id not in self.legal_ids(seat):
                        raise CommandError(
                            "illegal", f"action id {action_id} is not one of your legal actions"
                        )
                    new.apply_id(seat, action_id)  # legal: checked just above
                elif action is not None:
                    new.apply(seat, action)
                else:
                    raise CommandError("bad_message", "an act needs 'id' or 'action'")
            except RulesError as exc:
                because = exc if isinstance(exc, IllegalActionError) else None
                raise CommandError("illegal", str(exc), because) from exc
            added = [(s, action_text(self.game.name, new, a)) for s, a in new.history[len(state.history) :]]
            new_status = "over" if new.is_over() else "playing"
            changed = new_status if new_status != status else None
            # A rated game's end and its ratings are stored in one transaction (docs/accounts.md).
            rating = game_end_write(self.store, self.row, new.outcome()) if changed == "over" else None
            try:  # durable before it is applied, acknowledged or broadcast
                await self.store.append_actions_async(
                    self.code,
                    self.version,
                    added,
                    changed,
                    at=time.time(),
                    by=by,
                    memory=(seat, memory) if memory is not None else None,
                    also=rating,
                )
            except Exception as exc:  # nothing was applied: the sender may retry
                fault = storage_fault(exc)
                if fault is not None:  # (never the moves' text in a log line: a lay may be sealed)
                    cause = type(getattr(exc, "orig", exc)).__name__
                    log.warning("room %s: %s (%s)", self.code, FAULTS[fault], cause)
                    self.paused(f"{FAULTS[fault]}: the table is paused and nothing changed; try again")
                    raise CommandError(
                        "unavailable", f"{FAULTS[fault]} right now; nothing changed, try again"
                    ) from exc
                if isinstance(exc, IntegrityError) and self.hooks.conflict(self):
                    raise CommandError(
                        "unavailable", "another worker has taken this room over; nothing changed, try again"
                    ) from exc
                log.exception("room %s: storing %d action(s) failed", self.code, len(added))
                raise CommandError(
                    "internal", f"the move could not be stored, nothing changed ({type(exc).__name__})"
                ) from exc
            if by is None:
                self._take_back(seat)  # a move of the player's own: the seat is theirs again
            start = self.version
            self._commit(seat, new, added, new_status, by)
            self.broadcast(conn, ref)
            self.hooks.committed(self, start, added, new_status, by)
        self.seat_bots.wake.set()

    def _commit(
        self, seat: int, new: State, added: list[tuple[int, str]], status: str, by: str | None = None
    ) -> None:
        old, old_version = self.state, self.version
        before = set(self.to_move())
        moving = new.to_move()
        if self.clocks is not None:
            after = moving if status == "playing" else ()
            self.clocks.moved({s for s, _ in added}, before, after, time.monotonic())
        if self._notes is not None:  # (Scout) the cards the move made public, read before it
            if len(added) == 1:
                self._notes.append(scout_note(old, *added[0]))
            else:
                self._notes = None  # derived afresh when the log is sent next
        self.state = new
        self._moving = (new, moving)
        if status == "playing":
            self.turn_notices(self, [s for s in moving if s not in before])
        self.actions.extend(added)
        self.by.extend([by] * len(added))
        self.version += len(added)
        self.row.status = status
        legal = self._cache.legal
        for s in moving:
            ids = new.legal_action_ids(s)
            # A seat whose sealed decision is untouched by another seat's commit
            # keeps its opening version (docs/protocol.md: versions).
            if s == seat or s not in before:
                changed = True
            else:
                known = legal.get(s)
                changed = (known[1] if known and known[0] == old_version else old.legal_action_ids(s)) != ids
            if changed:
                self.turn_version[s] = self.version
            legal[s] = (self.version, ids)  # the broadcast and the bots ask for them next

    # -- what runs on the owner: bots and clocks -------------------------------------
    def start_owning(self) -> None:
        """This process has become the room's owner (the room is up to date with the database,
        and the clocks were derived from it): its bots and its clock start here."""
        self.seat_bots.start()
        self.clock_timer.start()

    async def stop_owning(self) -> None:
        """This process is no longer the room's owner: what runs on the owner stops."""
        await self.seat_bots.stop()
        await self.clock_timer.stop()

    # -- clocks (spieltisch.clocks) ------------------------------------------
    def deadline(self, seat: int) -> float | None:
        """When (monotonic) a bot stands in for the seat's running decision: its
        clock runs out, or its player has been away longer than the grace period.
        None: no deadline (not to move, a bot seat, stood in already, no clock)."""
        settings = self.clock_settings
        if (
            settings is None
            or self.row.status != "playing"
            or self.archived is not None
            or seat in self.bots
            or seat in self.stand_in
            or seat not in self.to_move()
        ):
            return None
        due = self.clocks.deadline(seat) if self.clocks is not None else None
        away = self.away.get(seat)
        if settings.grace is not None and away is not None:
            gone = away + settings.grace
            due = gone if due is None else min(due, gone)
        return due

    def clock_pending(self) -> bool:
        """Whether a deadline is running (the room must stay in memory for it)."""
        return any(self.deadline(s) is not None for s in range(self.row.players))

    # -- leaving, ending, taking a seat back --------------------------------------------
    async def take_back(self, seat: int) -> None:
        """The player takes their seat back from the stand-in bot (after a time-out)."""
        async with self.lock:
            if self.row.seats[seat].left:
                raise CommandError("forbidden", f"seat {seat} left the game; a bot plays for it now")
            if self._take_back(seat):
                self.broadcast()

    async def leave(self, seat: int) -> None:
        """The player resigns and leaves: a bot of the room's stand-in level plays the
        seat from now on. The others may go on with it or end the game (:meth:`end`);
        when no person is left at the table, the game ends."""
        async with self.lock:
            if self.row.status != "playing":
                raise CommandError("illegal", "only a game that is being played can be left")
            target = self.row.seats[seat]
            if target.left:
                return
            updated = copy.copy(target)
            updated.left = True
            people = [s for s in self.row.seats if s.kind == "human" and not s.left and s.seat != seat]
            try:
                await self.store.update_seat_async(self.code, updated, None, forget_memory=True)
                if not people:
                    await self.store.end_room_async(self.code, "left")
            except Exception as exc:
                raise CommandError(
                    "internal", f"leaving could not be stored, nothing changed: {exc}"
                ) from exc
            self.row.seats[seat] = updated
            self.stand_in[seat] = self.stand_in_level
            self.seat_bots.forget(seat)  # (its stored memory was deleted with the seat's update)
            if not people:
                self.row.status, self.row.ended = "over", "left"
            self.broadcast()
            self.hooks.stand_ins(self)
        self.seat_bots.start()
        self.seat_bots.wake.set()

    async def end(self, seat: int) -> None:
        """After a player left, one of the others ends the game (instead of going on with the bot)."""
        async with self.lock:
            if self.row.status != "playing":
                raise CommandError("illegal", "the game is not being played")
            if self.row.seats[seat].left:
                raise CommandError("forbidden", f"seat {seat} left the game")
            if not any(s.left for s in self.row.seats):
                raise CommandError("forbidden", "a game can be ended only after a player left it")
            try:
                await self.store.end_room_async(self.code, "ended")
            except Exception as exc:
                raise CommandError("internal", f"ending could not be stored, nothing changed: {exc}") from exc
            self.row.status, self.row.ended = "over", "ended"
            self.broadcast()
        self.seat_bots.wake.set()

    def bot_movers(self) -> list[int]:
        if self.row.status != "playing" or self.archived is not None:
            return []
        return [s for s in self.to_move() if s in self.bots or s in self.stand_in]

    def memory_index(self, seat: int) -> int | None:
        """The log index of the seat's last action if its bot played it (a bot seat's, or a
        stand-in's): the only decision a stored memory of the seat may belong to (None: no
        stored memory of the seat is valid)."""
        for i in range(len(self.actions) - 1, -1, -1):
            if self.actions[i][0] == seat:
                return i if seat in self.bots or stand_in_level(self.by[i]) is not None else None
        return None


def load_state(row: RoomRow) -> tuple[State, str | None]:
    """The stored game replayed under this engine, and why it is archived (``None``:
    it replays and ends, or goes on, as stored). An archived game's state is as far
    as its log replays."""
    record = GameRecord(
        row.game, row.players, row.seed, dict(row.options), list(row.actions), row.rules_version
    )
    try:
        state = record.replay()
    except RecordError as exc:
        reason = str(exc)
    else:
        if state.is_over() == (row.status == "over") or (row.status == "over" and row.ended is not None):
            return state, None  # (a game the players ended early, after somebody left, is over too)
        reason = (
            f"the stored game {'ended' if row.status == 'over' else 'goes on'} after {len(row.actions)} "
            f"actions, but under this engine it {'ends' if state.is_over() else 'does not end'} there"
            f"{record.version_note(get_game(row.game))}"
        )
    game = get_game(row.game)
    try:
        state = game.new_state(row.players, row.seed, row.options)
    except RulesError:
        try:  # rule options this engine no longer takes: the deal with today's defaults
            state = game.new_state(row.players, row.seed, None)
        except RulesError as exc:
            raise RoomError(
                409, f"room {row.code} is an archived record this engine cannot set up: {reason}; {exc}"
            ) from exc
    for seat, text in row.actions:
        try:
            state.apply(seat, text)
        except RulesError:
            break
    return state, reason
