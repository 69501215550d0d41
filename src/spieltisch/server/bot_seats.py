"""The bots that play a room's seats on its owner: bot seats, and stand-ins for people.

A room's :class:`SeatBots` waits for its wake-up (a move, a time-out, a leave),
asks every bot to move for a decision at once - each thinks in a worker of the
:class:`~spieltisch.server.botpool.BotPool` - and plays their choices through the
room's one command path (:meth:`BotRoom.act`). Each bot's memory (the pickled bot
after its last decision) travels with its next request and is stored with its
move, so the bots of a room that changes owner go on where they were.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
from typing import Any, Protocol

import anyio.to_thread

from spieltisch.clocks import ClockSettings, stand_in_by
from spieltisch.engine import Game, RulesError, State
from spieltisch.server.botpool import BotCrashed, BotPool, ThinkRequest
from spieltisch.server.errors import CommandError
from spieltisch.server.store import RoomRow, Store
from spieltisch.server.tasks import OwnerTask

log = logging.getLogger("spieltisch.server")


@functools.cache
def bot_levels(game: str) -> list[str]:
    """The bot levels this server can run for ``game`` (built-in levels that import;
    ``neural`` needs numpy, which the web extra installs)."""
    from spieltisch.bots import bot_class
    from spieltisch.bots.neural import available

    levels = []
    for level in ("easy", "medium", "neural", "hard"):
        try:
            bot_class(game, level)
        except (ImportError, AttributeError, RulesError):
            continue
        if level != "neural" or available():
            levels.append(level)
    return [*levels, "random"]


def bot_level_list(game: str) -> list[str]:
    return list(bot_levels(game))


class BotRoom(Protocol):
    """What the bots of a room use of it (:class:`~spieltisch.server.room.Room`)."""

    code: str
    row: RoomRow
    store: Store
    pool: BotPool
    game: Game
    state: State
    version: int
    archived: str | None
    clock_settings: ClockSettings | None
    lock: asyncio.Lock
    bots: dict[int, str]
    stand_in: dict[int, str]

    @property
    def stand_in_level(self) -> str: ...

    def bot_movers(self) -> list[int]: ...

    def memory_index(self, seat: int) -> int | None: ...

    def legal_ids(self, seat: int) -> list[int]: ...

    async def act(
        self, seat: int | None, version: int, *, action_id: int | None, by: str | None, memory: bytes | None
    ) -> None: ...


class SeatBots(OwnerTask):
    """The bots of one room: their task on the room's owner and their memories."""

    def __init__(self, room: BotRoom) -> None:
        super().__init__("bots", room.code)
        self.room = room
        self.memory: dict[int, bytes | None] = dict.fromkeys([*room.bots, *room.stand_in])
        """Each bot as it was after its last decision (pickled), sent with the next one. The
        store keeps it with the bot's move; the owner's bots start from there (:meth:`_restore`)."""
        self.restored: set[int] = set()
        """The bot seats whose memory came from the store and has not served a decision yet."""
        self.fallback = random.Random(f"server/{room.row.code}/{room.row.seed}/fallback")

    def reset(self) -> None:
        """The room's bot seats changed (a reload): every bot starts afresh."""
        self.memory = dict.fromkeys(self.room.bots)

    def forget(self, seat: int) -> None:
        """The seat's bot starts from the position it finds (a new stand-in)."""
        self.memory[seat] = None

    def start(self) -> None:
        room = self.room
        stand_ins = room.clock_settings is not None or bool(room.stand_in)
        if (room.bots or stand_ins) and room.row.status != "over" and room.archived is None:
            self.launch(self._loop)

    async def _restore(self) -> None:
        """Each bot's memory as the store has it (this worker has just become the room's owner:
        a new server, a takeover, a handoff; its own copy may be behind): the memory stored
        with the seat's last action, if its bot played that; else the bot starts afresh.
        A time-out or a leave deletes the stored memory (:meth:`Room.act`, :meth:`Room.leave`)."""
        room = self.room
        if room.version == 0:
            return  # nothing played, nothing remembered
        while True:
            try:
                async with room.lock:  # no time-out or leave between the read and its use
                    stored = await anyio.to_thread.run_sync(room.store.load_bot_memory, room.code)
                    self.restored = set()
                    for seat in {*room.bots, *room.stand_in}:
                        idx, memory = stored.get(seat, (None, None))
                        valid = idx is not None and idx == room.memory_index(seat)
                        self.memory[seat] = memory if valid else None
                        if valid:
                            self.restored.add(seat)
                return
            except Exception as exc:  # the database is unreachable: the bots wait for it
                log.warning("room %s: the bots' memory could not be read, trying again: %s", room.code, exc)
                await asyncio.sleep(1.0)

    async def _loop(self) -> None:
        room = self.room
        loop = asyncio.get_running_loop()
        await self._restore()
        while room.row.status != "over":
            await self.wake.wait()
            self.wake.clear()
            while movers := room.bot_movers():
                # Every bot to move thinks at once, each in a worker; the table's
                # bot delay runs meanwhile (the minimum time before a bot moves).
                version, started = room.version, loop.time()
                decisions = await asyncio.gather(
                    *(self._choose(seat, room.state.view(seat), room.legal_ids(seat)) for seat in movers)
                )
                wait = room.row.bot_delay - (loop.time() - started)
                if wait > 0:
                    await asyncio.sleep(wait)
                for seat, (choice, memory) in zip(movers, decisions, strict=True):
                    level = room.stand_in.get(seat) if seat not in room.bots else None
                    by = stand_in_by(level) if level is not None else None
                    if seat not in room.bots and level is None:
                        continue  # the player took the seat back while the bot thought
                    try:
                        await room.act(seat, version, action_id=choice, by=by, memory=memory)
                    except CommandError as exc:
                        if exc.code in ("internal", "unavailable"):
                            await asyncio.sleep(1.0)
                        elif exc.code != "stale":
                            log.warning("room %s: bot seat %d refused: %s", room.code, seat, exc.message)
                    else:  # the bot remembers only the decisions that were played
                        self.memory[seat] = memory

    async def _choose(self, seat: int, view: dict[str, Any], legal: list[int]) -> tuple[int, bytes | None]:
        """The bot's choice and memory after it; a random legal action (and the
        old memory) when the bot failed or chose what is not legal."""
        room = self.room
        memory = self.memory.get(seat)
        spec = room.bots.get(seat) or room.stand_in.get(seat) or room.stand_in_level
        try:
            # The memory is a pickle that the worker loads: it comes only from this server's
            # bots and its own database (stored with their moves), never from a client.
            choice, after = await room.pool.choose(
                ThinkRequest(room.game.name, spec, seat, room.row.seed, memory, view, legal)
            )
        except Exception as exc:
            if memory is not None and seat in self.restored and not isinstance(exc, BotCrashed):
                # A stored memory this release's bot cannot use (e.g. its class changed since).
                log.warning(  # (what failed, not the memory: it holds what the bot saw)
                    "room %s: bot seat %d cannot use its stored memory (%s: %.200s); it starts afresh",
                    room.code,
                    seat,
                    type(exc).__name__,
                    exc,
                )
                self.restored.discard(seat)
                self.memory[seat] = None
                return await self._choose(seat, view, legal)
            log.exception("room %s: bot seat %d failed; playing a random legal action", room.code, seat)
            return legal[self.fallback.randrange(len(legal))], memory
        self.restored.discard(seat)
        if choice not in legal:
            log.warning("room %s: bot seat %d chose illegal id %r; random instead", room.code, seat, choice)
            return legal[self.fallback.randrange(len(legal))], memory
        return choice, after
