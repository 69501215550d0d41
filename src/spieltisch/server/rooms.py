"""One serial owner per game: rooms, seats, the command path and broadcasts.

Every command - from a person's WebSocket or from a bot - goes through
:meth:`Room.act`: under the room's lock it checks the seat, the version and
the turn, applies the action to a copy of the state through the engine
(``state.apply`` validates), hands the write to the store's group writer and,
once it is durable, swaps the copy in and broadcasts every connection its own
view and legal actions. The event loop never waits on the disk, and bots
think in the worker processes of a :class:`~spieltisch.server.botpool.BotPool`.
"""

from __future__ import annotations

import asyncio
import base64
import collections
import contextlib
import copy
import functools
import hashlib
import hmac
import json
import logging
import random
import secrets
import time
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import anyio.to_thread
import orjson
from sqlalchemy.exc import DBAPIError, IntegrityError, InterfaceError, OperationalError

from spieltisch.analysis import hints
from spieltisch.clocks import (
    DEFAULT_STAND_IN,
    ClockError,
    Clocks,
    ClockSettings,
    stand_in_by,
    stand_in_level,
)
from spieltisch.engine import GameRecord, IllegalActionError, RecordError, RulesError, State, get_game
from spieltisch.server.botpool import BotCrashed, BotPool, ThinkRequest
from spieltisch.server.store import CodeTaken, RoomRow, SeatRow, Store, StoreError

if TYPE_CHECKING:
    from spieltisch.server.cluster import Cluster

log = logging.getLogger("spieltisch.server")

ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""Room code letters: no I, O, 0 or 1 to misread."""
CODE_LENGTH = 6
MAX_NAME = 32
OUTBOX_LIMIT = 512
"""A connection that falls this many messages behind is closed (too slow)."""
MAX_TIMINGS = 1_000_000
"""Most acknowledged acts a server times (:class:`Connection`, ``timings``)."""


class CommandError(Exception):
    """A command was refused; nothing changed. ``code`` is a protocol error code;
    ``because`` is the engine's refusal, when the rules refused the action."""

    def __init__(self, code: str, message: str, because: IllegalActionError | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.because = because


class RoomError(Exception):
    """An HTTP-level refusal: ``status`` is the HTTP status code."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(code: str) -> str:
    return code.strip().upper()


def new_secret() -> str:
    return secrets.token_urlsafe(18)


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def secret_matches(secret: str | None, stored_hash: str | None) -> bool:
    """Constant-time comparison of a presented secret with a stored hash."""
    if secret is None or stored_hash is None:
        return False
    return hmac.compare_digest(hash_secret(secret), stored_hash)


def rematch_secret(old_secret: str, new_room: str, seat: int) -> str:
    """The new room's secret for a seat, derived from the old one (so a claim is idempotent)."""
    digest = hmac.new(old_secret.encode(), f"rematch/{new_room}/{seat}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:18]).decode().rstrip("=")


def clean_name(name: str | None, seat: int) -> str:
    if name is None:
        return f"Player {seat + 1}"
    text = " ".join(name.split())
    if not text:
        return f"Player {seat + 1}"
    if len(text) > MAX_NAME:
        raise RoomError(422, f"name: at most {MAX_NAME} characters, got {len(text)}")
    if any(not ch.isprintable() for ch in text):
        raise RoomError(422, "name: control characters are not allowed")
    return text


class RoomHooks(Protocol):
    """What a room of a worker among several (:mod:`spieltisch.server.cluster`) asks
    its cluster; a single server has none (``Room.hooks is None``)."""

    def check_write(self, room: Room) -> None:
        """Raise :class:`CommandError` unless this worker may write the room now (it holds the lease)."""

    def committed(
        self, room: Room, start: int, added: list[tuple[int, str]], status: str, by: str | None
    ) -> None:
        """Actions ``start, ...`` (played ``by``, see :meth:`Room.act`) are durable and
        applied here: tell the other workers."""

    def conflict(self, room: Room) -> None:
        """Another writer stored an index this room tried to append: it is behind."""

    def presence(self, room: Room) -> None:
        """The seats connected to this worker changed."""

    def stand_ins(self, room: Room) -> None:
        """The seats a stand-in bot plays for changed (a time-out, a player back): tell
        the other workers at once, not with the bot's first move."""

    async def refresh(self, room: Room) -> None:
        """Bring this worker's copy of ``room`` up to date with the database now (a
        seat taken through another worker may not have reached the copy yet)."""


def unreachable(exc: BaseException) -> bool:
    """Did a database operation fail because the database cannot be reached (not a refusal)?"""
    if isinstance(exc, OperationalError | InterfaceError):
        return True
    return isinstance(exc, DBAPIError) and exc.connection_invalidated


class Connection:
    """One WebSocket: a seat (``None``: spectator) and an outbox drained by its sender.

    The outbox is a plain deque and the sender's wake-up one future, made only
    when the sender has caught up (:meth:`ready`): a broadcast to many
    connections costs an append each, not an :class:`asyncio.Queue`'s
    bookkeeping, and a sender woken once sends everything queued meanwhile.

    With ``timings`` (a list: ``SPIELTISCH_LATENCY_LOG``, for ``spieltisch bench server``)
    each acknowledged act adds ``(when, seconds)`` to it: from the act's arrival
    (:meth:`arrived`) to its acknowledging state written to the socket (:meth:`written`),
    ``when`` its ``time.monotonic()``."""

    def __init__(
        self,
        seat: int | None,
        close: Callable[[], None] | None = None,
        timings: list[tuple[float, float]] | None = None,
    ) -> None:
        self.seat = seat
        self.outbox: collections.deque[str] = collections.deque()
        self._waiter: asyncio.Future[None] | None = None
        self._close = close
        self.closed = False
        self.timings = timings
        self._arrived: dict[str, float] = {}
        """``ref`` of each act being answered and when it arrived (``time.perf_counter()``)."""
        self._timed: collections.deque[tuple[int, float]] = collections.deque()
        """Acknowledging states in the outbox: their number among all sent, their act's arrival."""
        self._queued = 0
        self._written = 0

    def arrived(self, ref: str | None, at: float | None = None) -> None:
        """An act with ``ref`` arrived at ``at`` (``time.perf_counter()``; default: now),
        timed if ``timings`` is set."""
        if self.timings is not None and ref is not None and len(self._arrived) < OUTBOX_LIMIT:
            self._arrived[ref] = at if at is not None else time.perf_counter()

    def written(self) -> None:
        """The sender wrote the outbox's first message to the socket."""
        self._written += 1
        timed = self._timed
        if timed and timed[0][0] == self._written and self.timings is not None:
            _, started = timed.popleft()
            if len(self.timings) < MAX_TIMINGS:
                self.timings.append((time.monotonic(), time.perf_counter() - started))

    def send(self, text: str, ack: str | None = None) -> None:
        if self.closed:
            return
        if ack is not None and self._arrived:
            started = self._arrived.pop(ack, None)
            if started is not None:
                self._timed.append((self._queued + 1, started))
        if len(self.outbox) >= OUTBOX_LIMIT:
            log.warning("closing a connection that fell %d messages behind", OUTBOX_LIMIT)
            self.closed = True
            if self._close is not None:
                self._close()
            return
        self.outbox.append(text)
        self._queued += 1
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():  # (cancelled: its sender is gone)
                waiter.set_result(None)

    async def ready(self) -> None:
        """Return once the outbox holds a message (at once if it does now)."""
        if self.outbox:
            return
        waiter = self._waiter = asyncio.get_running_loop().create_future()
        await waiter

    def send_json(self, data: Mapping[str, Any]) -> None:
        self.send(json.dumps(data, separators=(",", ":")))

    def error(
        self, code: str, message: str, ref: str | None = None, because: IllegalActionError | None = None
    ) -> None:
        msg: dict[str, Any] = {"type": "error", "code": code, "message": message}
        if ref is not None:  # a refused act is not timed
            self._arrived.pop(ref, None)
        if because is not None:  # so that a client can say it in its own language
            msg.update(ruling=because.ruling, reason=because.reason, params=because.params)
        if ref is not None:
            msg["ref"] = ref
        self.send_json(msg)


_ACTION_TEXTS: dict[str, dict[int, str]] = {}
"""Notation per game and action id (the numbering is fixed, so the text is too)."""


def _action_text(game: str, state: State, action_id: int) -> str:
    """The notation of an action id (cached per game: the numbering is fixed, so the text is too)."""
    texts = _ACTION_TEXTS.setdefault(game, {})
    text = texts.get(action_id)
    if text is None:
        text = texts[action_id] = state.action_from_id(action_id).to_text()
    return text


_NO_LEGAL = orjson.Fragment(b"[]")
_ACTION_JSON: dict[str, dict[int, bytes]] = {}
"""``[id, notation]`` as JSON per game and action id (cached like :data:`_ACTION_TEXTS`)."""


def _legal_json(game: str, state: State, ids: list[int]) -> orjson.Fragment:
    """The ``legal`` field of a state message, ``[[id, notation], ...]``, from the per-game
    cache of each action's JSON: the same bytes as serialising the list, without building it."""
    known = _ACTION_JSON.setdefault(game, {})
    parts: list[bytes] = []
    for a in ids:
        part = known.get(a)
        if part is None:
            part = known[a] = orjson.dumps([a, _action_text(game, state, a)])
        parts.append(part)
    return orjson.Fragment(b"[" + b",".join(parts) + b"]")


def _verb(text: str) -> str:
    return text.split(" ", 1)[0]


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

    def __init__(self, row: RoomRow, store: Store, pool: BotPool) -> None:
        self.row = row
        self.code = row.code
        self.store = store
        self.pool = pool
        self.game = get_game(row.game)
        self.state: State
        self.archived: str | None
        """Why the stored game no longer replays under this engine (``None``: it does).
        An archived room is a record: shown with its stored log, never played on."""
        self.state, self.archived = _load_state(row)
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
        self.clock_wake = asyncio.Event()
        self.clock_task: asyncio.Task[None] | None = None
        self.version = len(self.actions)
        self.turn_version = [self.version] * row.players
        self._moving: tuple[State, tuple[int, ...]] | None = None
        """The seats to move in ``_moving[0]`` (:meth:`to_move`)."""
        self.lock = asyncio.Lock()
        self.connections: set[Connection] = set()
        self.bots: dict[int, str] = {s.seat: s.level or "random" for s in row.seats if s.kind == "bot"}
        """The bot seats and their specs; the bots themselves live in the pool's workers."""
        self.bot_memory: dict[int, bytes | None] = dict.fromkeys([*self.bots, *self.stand_in])
        """Each bot as it was after its last decision (pickled), sent with the next one. The
        store keeps it with the bot's move; the owner's bots start from there (:meth:`_restore_memory`)."""
        self.restored: set[int] = set()
        """The bot seats whose memory came from the store and has not served a decision yet."""
        self.fallback = random.Random(f"server/{row.code}/{row.seed}/fallback")
        self.wake = asyncio.Event()
        self.bot_task: asyncio.Task[None] | None = None
        self.rev = 0
        self._log_mark = len(self.actions)
        """Log entries every connection has received (the previous broadcast's length)."""
        self._cache = _Cache()
        self.used = time.monotonic()
        """When somebody last asked for this room or left it (see :meth:`Tables.forget_idle`)."""
        self.hint_lock = asyncio.Lock()
        self.hints: dict[int, tuple[int, dict[str, Any]]] = {}
        """The last hint per seat and the decision it is for (its ``turn_version``)."""
        self.hooks: RoomHooks | None = None
        """Set when this server is one of several workers (:mod:`spieltisch.server.cluster`)."""
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
            "rules_version": row.rules_version or self.game.rules_version,
            "archived": self.archived is not None,
            "archived_reason": self.archived,
            "clock": self.clock_settings.to_json() if self.clock_settings is not None else None,
            "ended": row.ended,
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
        out: list[dict[str, Any]] = []
        for n, (who, text) in enumerate(self.actions[start:], start + 1):
            hidden = False
            if not over and who != seat:
                if scout and text in ("flip", "keep"):  # S-5: the flip decision is secret
                    hidden, text = True, "decided"
                elif not scout:  # Waschbär-Schmaus decisions are sealed (W-4, W-9, W-11, W-16)
                    hidden, text = True, f"{_verb(text)} ?"
            by = self.by[n - 1] if n <= len(self.by) else None
            out.append({"n": n, "seat": who, "text": text, "hidden": hidden, "by": by})
        return out

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
        start = 0 if full or cache.over else self._log_mark
        key = (seat, start)
        text = cache.texts.get(key)
        if text is None:
            legal = (
                _NO_LEGAL if seat is None else _legal_json(self.game.name, self.state, self.legal_ids(seat))
            )
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
        return orjson.dumps(self.clocks.snapshot(time.monotonic())).decode()

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
        self.clock_wake.set()  # a deadline may have changed

    def attach(self, conn: Connection) -> None:
        self.connections.add(conn)
        if conn.seat is None:
            self.send_state(conn)
        else:
            self.away.pop(conn.seat, None)
            self._take_back(conn.seat)  # the player is back: the stand-in bot lets go
            self.broadcast(new=conn)  # "connected" changed for everybody
            if self.hooks is not None:
                self.hooks.presence(self)

    def detach(self, conn: Connection) -> None:
        self.used = time.monotonic()
        if conn in self.connections:
            self.connections.discard(conn)
            if conn.seat is not None:
                if not self.connected(conn.seat):
                    self.away[conn.seat] = time.monotonic()
                self.broadcast()
                if self.hooks is not None:
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
        self.state, self.archived = _load_state(row)
        self.row = row
        self.actions = list(row.actions)
        self.derive_clocks(row)
        self.version = len(self.actions)
        self.turn_version = [self.version] * row.players
        bots = {s.seat: s.level or "random" for s in row.seats if s.kind == "bot"}
        if bots != self.bots:
            self.bots = bots
            self.bot_memory = dict.fromkeys(bots)
        self._cache = _Cache()
        self.rev += 1
        for conn in list(self.connections):
            self.send_state(conn)
        self._log_mark = len(self.actions)

    def _take_back(self, seat: int) -> bool:
        """A person's seat back from its stand-in bot (not after leaving); whether it was stood in."""
        if seat in self.stand_in and not self.row.seats[seat].left:
            del self.stand_in[seat]
            if self.clocks is not None:  # the decision's own time afresh (docs/web.md)
                self.clocks.restart(seat, time.monotonic())
            if self.hooks is not None:
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
            if self.hooks is not None:
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
                if self._memory_index(seat) is not None:  # an earlier stand-in's memory may be stored
                    try:
                        await self.store.forget_memory_async(self.code, seat)
                    except Exception as exc:
                        raise CommandError(
                            "internal", f"the time-out could not be stored, nothing changed: {exc}"
                        ) from exc
                self.stand_in[seat] = self.stand_in_level
                self.bot_memory[seat] = None  # the stand-in starts from the position it finds
                log.info(
                    "room %s: seat %d timed out; a %s bot plays for it", self.code, seat, self.stand_in_level
                )
                self.broadcast()
                if self.hooks is not None:
                    self.hooks.stand_ins(self)
                self.wake.set()
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
            added = [(s, _action_text(self.game.name, new, a)) for s, a in new.history[len(state.history) :]]
            new_status = "over" if new.is_over() else "playing"
            changed = new_status if new_status != status else None
            try:  # durable before it is applied, acknowledged or broadcast
                await self.store.append_actions_async(
                    self.code,
                    self.version,
                    added,
                    changed,
                    at=time.time(),
                    by=by,
                    memory=(seat, memory) if memory is not None else None,
                )
            except Exception as exc:  # nothing was applied: the sender may retry
                if unreachable(exc):
                    log.warning("room %s: the database is unreachable: %s", self.code, exc)
                    raise CommandError(
                        "unavailable",
                        "the server cannot reach its database right now; nothing changed, try again",
                    ) from exc
                if isinstance(exc, IntegrityError) and self.hooks is not None:
                    self.hooks.conflict(self)
                    raise CommandError(
                        "unavailable", "another worker has taken this room over; nothing changed, try again"
                    ) from exc
                log.exception("room %s: storing %s failed", self.code, added)
                raise CommandError(
                    "internal", f"the move could not be stored, nothing changed: {exc}"
                ) from exc
            if by is None:
                self._take_back(seat)  # a move of the player's own: the seat is theirs again
            start = self.version
            self._commit(seat, new, added, new_status, by)
            self.broadcast(conn, ref)
            if self.hooks is not None:
                self.hooks.committed(self, start, added, new_status, by)
        self.wake.set()

    def _commit(
        self, seat: int, new: State, added: list[tuple[int, str]], status: str, by: str | None = None
    ) -> None:
        old, old_version = self.state, self.version
        before = set(self.to_move())
        moving = new.to_move()
        if self.clocks is not None:
            after = moving if status == "playing" else ()
            self.clocks.moved({s for s, _ in added}, before, after, time.monotonic())
        self.state = new
        self._moving = (new, moving)
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

    # -- hints (docs/review.md, "Hints") -------------------------------------------
    async def hint(self, seat: int | None) -> dict[str, Any]:
        """The ``hint`` message for ``seat``: the medium bot's suggestion from this
        seat's view only, computed in a bot worker; :class:`CommandError` when
        the room does not allow hints or it is not the seat's decision."""
        if seat is None:
            raise CommandError("forbidden", "spectators get no hints; join a seat to play")
        if not self.row.hints:
            raise CommandError(
                "hints_off", f"room {self.code} does not allow hints (it was opened with hints off)"
            )
        if self.row.status != "playing" or seat not in self.to_move():
            raise CommandError("not_your_turn", f"a hint is for your own decision: it is not seat {seat}'s")
        async with self.hint_lock:  # one hint at a time per room; asked again, the same one
            decision = self.turn_version[seat]
            cached = self.hints.get(seat)
            if cached is not None and cached[0] == decision and seat in self.to_move():
                return {**cached[1], "version": self.version}
            version = self.version
            view = self.state.view(seat)
            legal = self.legal_ids(seat)
            key = f"hint/{self.row.seed}/{decision}/{seat}".encode()
            seed = int.from_bytes(hashlib.sha256(key).digest()[:7])
            try:
                result = await self.pool.run(hints.hint, self.game.name, view, legal, seed)
            except Exception as exc:
                log.exception("room %s: the hint for seat %d failed", self.code, seat)
                raise CommandError("internal", f"the hint could not be computed: {exc}") from exc
            answer = {
                "type": "hint",
                "version": version,
                "id": result.id,
                "action": result.action,
                "reason": result.reason,
                "params": result.params,
                "text": result.text,
            }
            if self.turn_version[seat] == decision:
                self.hints[seat] = (decision, answer)
            return answer

    # -- bots ---------------------------------------------------------------------
    def start_bots(self) -> None:
        stand_ins = self.clock_settings is not None or bool(self.stand_in)
        active = self.row.status != "over" and self.archived is None
        if (self.bots or stand_ins) and self.bot_task is None and active:
            self.bot_task = self._background(self._bot_loop(), "bots")
            self.wake.set()

    async def stop_bots(self) -> None:
        task, self.bot_task = self.bot_task, None
        await _cancel(task)

    def _background(self, work: Coroutine[Any, Any, None], what: str) -> asyncio.Task[None]:
        """A task of the room's owner (its bots, its clocks) that logs why it stopped."""
        task = asyncio.create_task(work, name=f"{what}-{self.code}")

        def ended(task: asyncio.Task[None]) -> None:
            if not task.cancelled() and task.exception() is not None:
                log.error("room %s: the %s stopped", self.code, what, exc_info=task.exception())

        task.add_done_callback(ended)
        return task

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

    def start_clocks(self) -> None:
        """Start the room's clock timer (a task; next to :meth:`start_bots`)."""
        active = self.row.status != "over" and self.archived is None
        if self.clock_settings is not None and self.clock_task is None and active:
            self.clock_task = self._background(self._clock_loop(), "clocks")
            self.clock_wake.set()

    async def stop_clocks(self) -> None:
        task, self.clock_task = self.clock_task, None
        await _cancel(task)

    def clock_pending(self) -> bool:
        """Whether a deadline is running (the room must stay in memory for it)."""
        return any(self.deadline(s) is not None for s in range(self.row.players))

    async def _clock_loop(self) -> None:
        """Sleep until the next deadline; then the time-out goes through :meth:`act`."""
        while self.row.status != "over":
            self.clock_wake.clear()
            deadlines = [(d, s) for s in range(self.row.players) if (d := self.deadline(s)) is not None]
            if not deadlines:
                await self.clock_wake.wait()
                continue
            due, seat = min(deadlines)
            wait = due - time.monotonic()
            if wait > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.clock_wake.wait(), wait)
                continue
            try:
                await self.act(seat, self.turn_version[seat], time_out=True)
            except CommandError as exc:  # a move came first (stale), or the store failed
                await asyncio.sleep(1.0 if exc.code == "internal" else 0.01)

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
            self.bot_memory[seat] = None  # (its stored memory was deleted with the seat's update)
            if not people:
                self.row.status, self.row.ended = "over", "left"
            self.broadcast()
            if self.hooks is not None:
                self.hooks.stand_ins(self)
        self.start_bots()
        self.wake.set()

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
        self.wake.set()

    def _bot_movers(self) -> list[int]:
        if self.row.status != "playing" or self.archived is not None:
            return []
        return [s for s in self.to_move() if s in self.bots or s in self.stand_in]

    def _memory_index(self, seat: int) -> int | None:
        """The log index of the seat's last action if its bot played it (a bot seat's, or a
        stand-in's): the only decision a stored memory of the seat may belong to (None: no
        stored memory of the seat is valid)."""
        for i in range(len(self.actions) - 1, -1, -1):
            if self.actions[i][0] == seat:
                return i if seat in self.bots or stand_in_level(self.by[i]) is not None else None
        return None

    async def _restore_memory(self) -> None:
        """Each bot's memory as the store has it (this worker has just become the room's owner:
        a new server, a takeover, a handoff; its own copy may be behind): the memory stored
        with the seat's last action, if its bot played that; else the bot starts afresh.
        A time-out or a leave deletes the stored memory (:meth:`act`, :meth:`leave`)."""
        if not self.actions:
            return  # nothing played, nothing remembered
        while True:
            try:
                async with self.lock:  # no time-out or leave between the read and its use
                    stored = await anyio.to_thread.run_sync(self.store.load_bot_memory, self.code)
                    self.restored = set()
                    for seat in {*self.bots, *self.stand_in}:
                        idx, memory = stored.get(seat, (None, None))
                        valid = idx is not None and idx == self._memory_index(seat)
                        self.bot_memory[seat] = memory if valid else None
                        if valid:
                            self.restored.add(seat)
                return
            except Exception as exc:  # the database is unreachable: the bots wait for it
                log.warning("room %s: the bots' memory could not be read, trying again: %s", self.code, exc)
                await asyncio.sleep(1.0)

    async def _bot_loop(self) -> None:
        loop = asyncio.get_running_loop()
        await self._restore_memory()
        while self.row.status != "over":
            await self.wake.wait()
            self.wake.clear()
            while movers := self._bot_movers():
                # Every bot to move thinks at once, each in a worker; the table's
                # bot delay runs meanwhile (the minimum time before a bot moves).
                version, started = self.version, loop.time()
                decisions = await asyncio.gather(
                    *(self._choose(seat, self.state.view(seat), self.legal_ids(seat)) for seat in movers)
                )
                wait = self.row.bot_delay - (loop.time() - started)
                if wait > 0:
                    await asyncio.sleep(wait)
                for seat, (choice, memory) in zip(movers, decisions, strict=True):
                    level = self.stand_in.get(seat) if seat not in self.bots else None
                    by = stand_in_by(level) if level is not None else None
                    if seat not in self.bots and level is None:
                        continue  # the player took the seat back while the bot thought
                    try:
                        await self.act(seat, version, action_id=choice, by=by, memory=memory)
                    except CommandError as exc:
                        if exc.code in ("internal", "unavailable"):
                            await asyncio.sleep(1.0)
                        elif exc.code != "stale":
                            log.warning("room %s: bot seat %d refused: %s", self.code, seat, exc.message)
                    else:  # the bot remembers only the decisions that were played
                        self.bot_memory[seat] = memory

    async def _choose(self, seat: int, view: dict[str, Any], legal: list[int]) -> tuple[int, bytes | None]:
        """The bot's choice and memory after it; a random legal action (and the
        old memory) when the bot failed or chose what is not legal."""
        memory = self.bot_memory.get(seat)
        spec = self.bots.get(seat) or self.stand_in.get(seat) or self.stand_in_level
        try:
            # The memory is a pickle that the worker loads: it comes only from this server's
            # bots and its own database (stored with their moves), never from a client.
            choice, after = await self.pool.choose(
                ThinkRequest(self.game.name, spec, seat, self.row.seed, memory, view, legal)
            )
        except Exception as exc:
            if memory is not None and seat in self.restored and not isinstance(exc, BotCrashed):
                # A stored memory this release's bot cannot use (e.g. its class changed since).
                log.warning(  # (what failed, not the memory: it holds what the bot saw)
                    "room %s: bot seat %d cannot use its stored memory (%s: %.200s); it starts afresh",
                    self.code,
                    seat,
                    type(exc).__name__,
                    exc,
                )
                self.restored.discard(seat)
                self.bot_memory[seat] = None
                return await self._choose(seat, view, legal)
            log.exception("room %s: bot seat %d failed; playing a random legal action", self.code, seat)
            return legal[self.fallback.randrange(len(legal))], memory
        self.restored.discard(seat)
        if choice not in legal:
            log.warning("room %s: bot seat %d chose illegal id %r; random instead", self.code, seat, choice)
            return legal[self.fallback.randrange(len(legal))], memory
        return choice, after


async def _cancel(task: asyncio.Task[None] | None) -> None:
    """Cancel a room's background task and wait until it has stopped."""
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


@dataclass
class SeatSpec:
    kind: str  # "human" | "bot" | "remote"
    level: str | None = None
    name: str | None = None
    secret: str | None = None
    """For a remote seat: its bot token (stored only as a hash)."""


class Tables:
    """All rooms of a server: creation, joining, rematches, loading from storage."""

    def __init__(self, store: Store, pool: BotPool, bot_delay: float = 0.6) -> None:
        self.store = store
        self.pool = pool
        self.bot_delay = bot_delay
        self.rooms: dict[str, Room] = {}
        self._load_lock = asyncio.Lock()
        self.cluster: Cluster | None = None
        """Set when this server is one of several workers: rooms are owned by one of them."""

    async def _started(self, room: Room) -> None:
        """A room was loaded or created: its bots play here, or its owner is found."""
        if self.cluster is None:
            room.start_bots()
            room.start_clocks()
        else:
            await self.cluster.loaded(room)

    async def seat_command(self, room: Room, op: str, seat: int) -> None:
        """``take_back``, ``leave`` or ``end`` for ``seat`` (:meth:`Room.take_back`, ...), on the
        room's owner; raises :class:`CommandError` when refused."""
        if self.cluster is not None:
            await self.cluster.seat_command(room, op, seat)
        else:
            await seat_command(room, op, seat)

    async def act(
        self,
        room: Room,
        seat: int | None,
        version: int,
        action: str | Mapping[str, Any] | None = None,
        action_id: int | None = None,
        conn: Connection | None = None,
        ref: str | None = None,
    ) -> None:
        """:meth:`Room.act` on the room's owner (here, or the worker that owns it)."""
        if self.cluster is None:
            await room.act(seat, version, action, action_id, conn, ref)
        else:
            await self.cluster.act(room, seat, version, action, action_id, conn, ref)

    async def start(self) -> None:
        """Resume every unfinished game (bots continue by themselves)."""
        codes = await anyio.to_thread.run_sync(self.store.unfinished)
        if self.cluster is not None:  # the workers share them out
            await self.cluster.start(codes)
            return
        for code in codes:
            try:
                await self.room(code)
            except Exception:
                log.exception("room %s could not be resumed", code)
        log.info("resumed %d unfinished game(s)", len(codes))

    async def stop(self) -> None:
        if self.cluster is not None:
            await self.cluster.stop()
        for room in list(self.rooms.values()):
            await room.stop_bots()
            await room.stop_clocks()
        self.rooms.clear()

    async def room(self, code: str) -> Room:
        code = normalize_code(code)
        room = self.rooms.get(code)
        if room is not None:
            return room
        async with self._load_lock:
            room = self.rooms.get(code)
            if room is None:
                if self.cluster is not None and _plausible(code):
                    await self.cluster.loading(code)  # no worker's sweep expires it meanwhile
                row = await anyio.to_thread.run_sync(self.store.load, code) if _plausible(code) else None
                if row is None:
                    if self.cluster is not None and _plausible(code):
                        await self.cluster.not_loaded(code)
                    raise RoomError(404, f"no room {code}")
                try:
                    room = await anyio.to_thread.run_sync(Room, row, self.store, self.pool)
                except RulesError as exc:  # e.g. a game this engine no longer has
                    if self.cluster is not None:
                        await self.cluster.not_loaded(code)
                    raise RoomError(
                        409, f"room {code} is an archived record this engine cannot open: {exc}"
                    ) from exc
                self.rooms[code] = room
                await self._started(room)
        room.used = time.monotonic()
        return room

    async def forget_idle(self, idle: float) -> list[str]:
        """Let go of the rooms that nobody has asked for or left for ``idle``
        seconds, with nobody connected and no bot to move: finished games, and
        games waiting for people who went away. The store keeps them; asking
        for one loads it again, as after a restart. Returns their codes."""
        now = time.monotonic()
        gone: list[str] = []
        async with self._load_lock:  # nobody loads a room while it is let go
            for code, room in list(self.rooms.items()):
                busy = room.connections or room.elsewhere or room._bot_movers() or room.clock_pending()
                if busy or now - room.used < idle:
                    continue
                del self.rooms[code]
                await room.stop_bots()
                await room.stop_clocks()
                if self.cluster is not None:
                    await self.cluster.forgotten(room)
                gone.append(code)
        return gone

    async def create(
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
    ) -> tuple[Room, int, str]:
        """``clock``: the room's clock settings (:class:`~spieltisch.clocks.ClockSettings`)."""
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
        status = "playing" if len(humans) == 1 else "waiting"
        delay = self.bot_delay if bot_delay is None else bot_delay
        clock_json = settings.to_json() if settings is not None else None
        room = await self._insert(
            g.name,
            players,
            dict(options or {}),
            seed,
            delay,
            status,
            rows,
            clock=clock_json,
            allow_hints=allow_hints,
        )
        return room, first, secret

    async def _insert(
        self,
        game: str,
        players: int,
        options: dict[str, Any],
        seed: int,
        bot_delay: float,
        status: str,
        seats: list[SeatRow],
        rematch_of: str | None = None,
        clock: dict[str, Any] | None = None,
        allow_hints: bool = False,
    ) -> Room:
        for _ in range(20):
            now = time.time()
            row = RoomRow(
                code=new_code(),
                game=game,
                players=players,
                options=options,
                seed=seed,
                bot_delay=bot_delay,
                status=status,
                seats=seats,
                rematch_of=rematch_of,
                hints=allow_hints,
                rules_version=get_game(game).rules_version,  # a rematch too: today's rules
                created=now,
                clock=clock,
                started=now if status == "playing" else None,
            )
            try:
                await self.store.create_room_async(row, rematch_of)
            except CodeTaken:
                continue
            except StoreError as exc:
                raise RoomError(503, f"the database refused the new room: {exc}") from exc
            except DBAPIError as exc:
                if unreachable(exc):
                    raise RoomError(503, "the database cannot be reached right now; try again") from exc
                raise
            room = Room(row, self.store, self.pool)
            self.rooms[row.code] = room
            if self.cluster is not None:
                await self.cluster.created(room)
            else:
                room.start_bots()
                room.start_clocks()
            return room
        raise RoomError(503, "could not find a free room code")

    async def join(self, code: str, name: str | None, seat: int | None) -> tuple[int, str]:
        if self.cluster is not None:
            got, secret = await self.cluster.call(code, "join", [name, seat])
            return int(got), str(secret)
        return await self.join_here(code, name, seat)

    async def join_here(self, code: str, name: str | None, seat: int | None) -> tuple[int, str]:
        """:meth:`join` on the room's owner."""
        room = await self.room(code)
        if room.archived is not None:
            raise RoomError(409, f"room {room.code} is an archived record, nobody can join: {room.archived}")
        async with room.lock:
            seats = room.row.seats
            if seat is None:
                free = [s.seat for s in seats if s.kind == "human" and not s.taken]
                if not free:
                    raise RoomError(409, f"room {room.code} is full")
                seat = free[0]
            if not 0 <= seat < len(seats):
                raise RoomError(422, f"seat: there is no seat {seat} (seats 0..{len(seats) - 1})")
            target = seats[seat]
            if target.kind != "human":
                raise RoomError(409, f"seat {seat} is a bot seat")
            if target.taken:
                raise RoomError(409, f"seat {seat} is taken")
            secret = new_secret()
            updated = SeatRow(
                seat=seat,
                kind="human",
                name=clean_name(name, seat),
                secret_hash=hash_secret(secret),
                taken=True,
            )
            all_taken = all(s.taken or s.kind == "bot" or s.seat == seat for s in seats)
            status = "playing" if all_taken and room.row.status == "waiting" else None
            started = time.time() if status == "playing" else None
            try:
                await room.store.update_seat_async(
                    room.code, updated, status, {"started": started} if started is not None else None
                )
            except Exception as exc:
                raise RoomError(503, f"the database refused the seat: {exc}") from exc
            seats[seat] = updated
            room.away.setdefault(seat, time.monotonic())
            if status is not None:
                room.row.status = status
                room.row.started = started
                room.turn_version = [room.version] * room.row.players
                if room.clocks is not None:  # the first decisions' clocks start now
                    room.clocks.start(room.state.to_move(), time.monotonic())
            room.broadcast()
        room.wake.set()
        return seat, secret

    async def rematch(self, code: str, seat: int, secret: str) -> str:
        if self.cluster is not None:
            return str(await self.cluster.call(code, "rematch", [seat, secret]))
        return await self.rematch_here(code, seat, secret)

    async def rematch_here(self, code: str, seat: int, secret: str) -> str:
        """:meth:`rematch` on the room's owner."""
        room = await self.room(code)
        if not room.check_seat(seat, secret):
            raise RoomError(403, f"seat {seat} of room {room.code}: wrong or missing secret")
        async with room.lock:
            if room.row.status != "over":
                raise RoomError(409, f"the game in room {room.code} is not over yet")
            if room.row.rematch is not None:
                return room.row.rematch
            seats = [
                SeatRow(
                    seat=s.seat,
                    kind=s.kind,
                    level=s.level,
                    name=s.name,
                    taken=s.kind != "bot",
                    claim_from=room.code if s.kind != "bot" else None,
                )
                for s in room.row.seats
            ]
            row = room.row
            new = await self._insert(
                row.game,
                row.players,
                dict(row.options),
                secrets.randbits(62),
                row.bot_delay,
                "playing",
                seats,
                rematch_of=room.code,
                clock=row.clock,
                allow_hints=row.hints,
            )
            row.rematch = new.code
            room.broadcast()
        return new.code

    async def claim(self, code: str, old: str, seat: int, secret: str) -> str:
        if self.cluster is not None:
            return str(await self.cluster.call(code, "claim", [old, seat, secret]))
        return await self.claim_here(code, old, seat, secret)

    async def claim_here(self, code: str, old: str, seat: int, secret: str) -> str:
        """:meth:`claim` on the room's owner."""
        room = await self.room(code)
        old_room = await self.room(old)
        if not 0 <= seat < room.row.players or room.row.seats[seat].claim_from != old_room.code:
            raise RoomError(
                404, f"seat {seat} of room {room.code} is not a rematch seat of room {old_room.code}"
            )
        if not old_room.check_seat(seat, secret):
            raise RoomError(403, f"seat {seat} of room {old_room.code}: wrong or missing secret")
        new_secret_ = rematch_secret(secret, room.code, seat)
        target = room.row.seats[seat]
        if target.secret_hash is None:
            async with room.lock:
                target.secret_hash = hash_secret(new_secret_)
                await room.store.update_seat_async(room.code, target, None)
        return new_secret_

    async def record(self, code: str) -> GameRecord:
        """The record of a finished game (:class:`RoomError` 409 while it is played)."""
        room = await self.room(code)
        if room.archived is not None:
            raise RoomError(
                409, f"room {room.code} is an archived record (it no longer replays): it cannot be reviewed"
            )
        if room.row.status != "over":
            raise RoomError(409, f"the game in room {room.code} is not over yet: reviews come after it")
        return room.state.record()

    async def replay(self, code: str, seat: int | None, secret: str | None) -> dict[str, Any]:
        room = await self.room(code)
        if seat is not None and not room.check_seat(seat, secret):
            raise RoomError(403, f"seat {seat} of room {room.code}: wrong or missing secret")
        if room.row.status != "over":
            if room.archived is not None:
                raise RoomError(
                    409,
                    f"room {room.code} is an archived record of a game that was not finished, so it has "
                    f"no replay: {room.archived}",
                )
            raise RoomError(409, f"the game in room {room.code} is not over yet")
        row = room.row
        rules_version = row.rules_version or room.game.rules_version
        if room.archived is None:
            record = room.state.record()
            record.rules_version = rules_version
        else:  # the stored log as it is; the frames go as far as it replays
            record = GameRecord(
                row.game, row.players, row.seed, dict(row.options), list(row.actions), rules_version
            )
        by = list(room.by)
        frames = await anyio.to_thread.run_sync(_frames, record, seat, by)
        # Who played each move: None for the seat's own player, "bot:LEVEL" for a stand-in.
        return {
            "room": room.code,
            "seat": seat,
            "record": {**record.to_json(), "by": by},
            "frames": frames,
            "rules_version": rules_version,
            "archived": room.archived is not None,
            "archived_reason": room.archived,
        }


def _load_state(row: RoomRow) -> tuple[State, str | None]:
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


def _frames(record: GameRecord, seat: int | None, by: list[str | None]) -> list[dict[str, Any]]:
    """The game step by step as seen by ``seat``; the game is over, so hands are public."""
    game = get_game(record.game)
    try:
        state = game.new_state(record.players, record.seed, record.options)
    except RulesError:  # an archived record whose options this engine no longer takes
        state = game.new_state(record.players, record.seed, None)

    def frame(index: int, who: int | None, text: str | None) -> dict[str, Any]:
        played_by = by[index - 1] if 0 < index <= len(by) else None
        # Only the hands and the sealed plays: the game is over, nothing is secret now.
        full = state.to_json()
        return {
            "index": index,
            "action": text,
            "seat": who,
            "by": played_by,
            # A copy: a view may share lists with the state (round results),
            # which the next actions would change under the earlier frames.
            "view": copy.deepcopy(state.view(seat)),
            "hands": full["hands"],
            "plays": full.get("plays"),
        }

    frames = [frame(0, None, None)]
    for i, (who, text) in enumerate(record.actions, 1):
        try:
            state.apply(who, text)
        except RulesError:  # an archived record: as far as it replays
            break
        frames.append(frame(i, who, text))
    return frames


async def seat_command(room: Room, op: str, seat: int) -> None:
    """Run ``take_back``, ``leave`` or ``end`` on this worker's room."""
    if op == "take_back":
        await room.take_back(seat)
    elif op == "leave":
        await room.leave(seat)
    elif op == "end":
        await room.end(seat)
    else:
        raise CommandError("bad_message", f"unknown seat command {op!r}")


def _plausible(code: str) -> bool:
    return len(code) == CODE_LENGTH and all(ch in ALPHABET for ch in code)


@functools.cache
def bot_levels(game: str) -> list[str]:
    """The bot levels this server can run for ``game`` (built-in levels that import)."""
    from spieltisch.bots import bot_class

    levels = []
    for level in ("easy", "medium", "hard"):
        try:
            bot_class(game, level)
        except (ImportError, AttributeError, RulesError):
            continue
        levels.append(level)
    return [*levels, "random"]


def bot_level_list(game: str) -> list[str]:
    return list(bot_levels(game))
