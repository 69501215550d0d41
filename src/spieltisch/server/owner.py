"""Who owns a room: the interface the room directory is given, and the one-process owner.

The room directory (:class:`~spieltisch.server.directory.RoomDirectory`) loads,
creates and lets go of rooms; which process *owns* a room - runs its bots and
clock and is the only one that writes its log - is its :class:`Owner`'s business:

- :class:`LocalOwner`: one process owns every room (``spieltisch serve``).
- :class:`spieltisch.server.cluster.Cluster`: each room is owned by one worker of
  several, through leases in Redis; commands for a room another worker owns are
  forwarded to it (``spieltisch serve --redis``).

The directory and the command path are the same code either way; only the wiring
(:func:`spieltisch.server.app.create_app`) picks the owner.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

from spieltisch.server.command_path import Rooms, execute
from spieltisch.server.commands import Command
from spieltisch.server.connection import Connection
from spieltisch.server.room import Room, RoomHooks

log = logging.getLogger("spieltisch.server")


class Owner(RoomHooks, Protocol):
    """The owner of the rooms of a directory; each room tells it what changed (:class:`RoomHooks`)."""

    def bind(self, directory: Rooms) -> None:
        """The directory whose rooms this owner owns (it calls this once, when it is made)."""

    async def start(self, unfinished: list[str]) -> None:
        """The server starts: every unfinished game of the store gets an owner."""

    async def stop(self) -> None:
        """The server stops (the directory stops the rooms' bots and clocks after it)."""

    async def drain(self) -> None:
        """The server is stopping (SIGTERM): give the rooms up at once."""

    async def loading(self, code: str) -> None:
        """``code`` is about to be loaded from the store."""

    async def not_loaded(self, code: str) -> None:
        """Loading ``code`` failed (no such room, or one this engine cannot open)."""

    async def loaded(self, room: Room) -> None:
        """A room was loaded into memory."""

    async def created(self, room: Room) -> None:
        """A room was created here."""

    async def forgotten(self, room: Room) -> None:
        """A room left memory (idle)."""

    async def in_use(self, period: float) -> set[str] | None:
        """The rooms in use elsewhere, which the sweep of old rooms must keep; ``None``: no
        sweep now (another process swept within ``period`` s, or it cannot tell)."""

    async def run(self, command: Command, conn: Connection | None = None, ref: str | None = None) -> Any:
        """Run ``command`` on the owner of its room (:func:`~spieltisch.server.command_path.execute`)."""


class LocalOwner:
    """One process owns every room: commands run here, and the hooks have nobody to tell."""

    def __init__(self) -> None:
        self.directory: Rooms | None = None

    def bind(self, directory: Rooms) -> None:
        self.directory = directory

    def _rooms(self) -> Rooms:
        if self.directory is None:
            raise RuntimeError("the owner has no room directory yet (RoomDirectory binds it)")
        return self.directory

    async def start(self, unfinished: list[str]) -> None:
        """Resume every unfinished game (bots continue by themselves)."""
        for code in unfinished:
            try:
                await self._rooms().room(code)
            except Exception:
                log.exception("room %s could not be resumed", code)
        log.info("resumed %d unfinished game(s)", len(unfinished))

    async def stop(self) -> None:
        pass

    async def drain(self) -> None:
        pass

    async def loading(self, code: str) -> None:
        pass

    async def not_loaded(self, code: str) -> None:
        pass

    async def loaded(self, room: Room) -> None:
        room.start_owning()

    async def created(self, room: Room) -> None:
        room.start_owning()

    async def forgotten(self, room: Room) -> None:
        pass

    async def in_use(self, period: float) -> set[str] | None:
        return set()  # every room in use is in this process's memory

    async def run(self, command: Command, conn: Connection | None = None, ref: str | None = None) -> Any:
        return await execute(self._rooms(), command, conn, ref)

    # -- RoomHooks: one process, nobody else to tell ------------------------------------
    def check_write(self, room: Room) -> None:
        pass

    def committed(
        self, room: Room, start: int, added: list[tuple[int, str]], status: str, by: str | None
    ) -> None:
        pass

    def conflict(self, room: Room) -> bool:
        return False  # nobody else writes: a conflict is an error of the store

    def presence(self, room: Room) -> None:
        pass

    def stand_ins(self, room: Room) -> None:
        pass

    async def refresh(self, room: Room) -> None:
        pass
