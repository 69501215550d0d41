"""The clock timer of a room on its owner (:mod:`spieltisch.clocks` holds the clocks).

It sleeps until the next deadline (woken when one may have changed); then the time-out
goes through the room's one command path, as a move would.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Protocol

from spieltisch.clocks import ClockSettings
from spieltisch.server.errors import CommandError
from spieltisch.server.store import RoomRow
from spieltisch.server.tasks import OwnerTask


class ClockRoom(Protocol):
    """What a room's clock timer uses of it (:class:`~spieltisch.server.room.Room`)."""

    code: str
    row: RoomRow
    archived: str | None
    clock_settings: ClockSettings | None
    turn_version: list[int]

    def deadline(self, seat: int) -> float | None: ...

    async def act(self, seat: int | None, version: int, *, time_out: bool) -> None: ...


class ClockTimer(OwnerTask):
    """A room's clock timer on its owner: it sleeps until the next deadline (woken when one
    may have changed: :attr:`wake`); then the time-out goes through the room's ``act``."""

    def __init__(self, room: ClockRoom) -> None:
        super().__init__("clocks", room.code)
        self.room = room

    def start(self) -> None:
        """Start the timer (a task; next to the room's bots)."""
        room = self.room
        if room.clock_settings is not None and room.row.status != "over" and room.archived is None:
            self.launch(self._loop)

    async def _loop(self) -> None:
        """Sleep until the next deadline; then the time-out goes through the room's ``act``."""
        room = self.room
        while room.row.status != "over":
            self.wake.clear()
            deadlines = [(d, s) for s in range(room.row.players) if (d := room.deadline(s)) is not None]
            if not deadlines:
                await self.wake.wait()
                continue
            due, seat = min(deadlines)
            wait = due - time.monotonic()
            if wait > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.wake.wait(), wait)
                continue
            try:
                await room.act(seat, room.turn_version[seat], time_out=True)
            except CommandError as exc:  # a move came first (stale), or the store failed
                await asyncio.sleep(1.0 if exc.code == "internal" else 0.01)
