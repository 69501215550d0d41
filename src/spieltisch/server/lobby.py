"""The lobby: the open public tables and the quick-play queues, live (docs/protocol.md, "Lobby").

``GET /api/lobby`` answers a snapshot; the socket ``/ws/lobby`` sends one when it
opens and another whenever it changes. The database is the one source: a room
opened as ``public`` is listed while it waits for players (its free seats, who
sits there, its rules and clock), and each quick-play queue with how many wait
in it. A worker reads it again at once when something changes (:meth:`Lobby.poke`:
a room opened or joined, a ticket queued or seated - here, or on another worker,
which says so on the cluster's Redis channel ``lobby``) and otherwise every
:data:`POLL` seconds while somebody watches (a message lost with Redis costs no
more than that). A lobby socket only listens:
whatever it sends closes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Mapping
from typing import Any

from fastapi import APIRouter, WebSocket
from sqlalchemy import func, select
from starlette.websockets import WebSocketDisconnect

from spieltisch.clocks import TURN_BASED
from spieltisch.engine import get_game
from spieltisch.server.api import client_address
from spieltisch.server.limits import Addresses, CountUnavailable
from spieltisch.server.messages import LobbyOut
from spieltisch.server.store import Store

log = logging.getLogger("spieltisch.server.lobby")

POLL = 2.0
"""Seconds between two reads of the lobby while somebody watches it."""
MAX_TABLES = 200
"""Most tables a snapshot lists (the oldest first)."""


class Lobby:
    """The lobby of this worker: snapshots from the store, pushed to its sockets."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.sockets: set[WebSocket] = set()
        self._changed = asyncio.Event()
        self._last: dict[str, Any] | None = None
        self._watcher: asyncio.Task[None] | None = None

    def poke(self) -> None:
        """Something in the lobby changed here: read it again now."""
        self._changed.set()

    async def snapshot(self) -> dict[str, Any]:
        return await asyncio.to_thread(self.read)

    def read(self) -> dict[str, Any]:
        """The open public tables and the quick-play queues, as the store has them now."""
        rooms, seats, queue = self.store.rooms, self.store.seats, self.store.quickplay
        now = time.time()
        with self.store.engine.connect() as conn:
            rows = conn.execute(
                select(rooms.c.code, rooms.c.game, rooms.c.players, rooms.c.options, rooms.c.clock,
                       rooms.c.hints, rooms.c.rated, rooms.c.created)
                .where(rooms.c.public, rooms.c.status == "waiting")
                .order_by(rooms.c.created, rooms.c.code)
                .limit(MAX_TABLES)
            ).all()  # fmt: skip
            codes = [r.code for r in rows]
            by_room: dict[str, list[Any]] = {code: [] for code in codes}
            if codes:
                for s in conn.execute(
                    select(
                        seats.c.room, seats.c.seat, seats.c.kind, seats.c.level, seats.c.name, seats.c.taken
                    )
                    .where(seats.c.room.in_(codes))
                    .order_by(seats.c.room, seats.c.seat)
                ):
                    by_room[s.room].append(s)
            waiting = conn.execute(
                select(queue.c.game, queue.c.players, func.count(), func.min(queue.c.created))
                .where(queue.c.room.is_(None))
                .group_by(queue.c.game, queue.c.players)
                .order_by(queue.c.game, queue.c.players)
            ).all()
        tables = [_table(r, by_room[r.code]) for r in rows]
        return {
            "tables": [t for t in tables if t["free"] > 0],
            "quickplay": [
                {"game": game, "players": players, "waiting": int(count), "longest": round(now - first, 1)}
                for game, players, count, first in waiting
            ],
        }

    async def watch(self, websocket: WebSocket) -> None:
        """Send ``websocket`` the lobby now and at every change, until it closes."""
        self.sockets.add(websocket)
        if self._watcher is None or self._watcher.done():
            self._watcher = asyncio.create_task(self._watch(), name="watch-lobby")
        try:
            await websocket.send_text(json.dumps({"type": "lobby", **(self._last or await self.snapshot())}))
            await websocket.receive_text()  # a lobby socket only listens: anything sent ends it
        except WebSocketDisconnect:
            pass
        finally:
            self.sockets.discard(websocket)
        with contextlib.suppress(Exception):
            await websocket.close(1008, "the lobby socket only listens")

    async def _watch(self) -> None:
        while self.sockets:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), POLL)
            self._changed.clear()
            try:
                now = await self.snapshot()
            except Exception as exc:  # the database is away: the lobby waits for it
                log.warning("the lobby cannot be read: %s", type(exc).__name__)
                continue
            if now != self._last:
                self._last = now
                text = json.dumps({"type": "lobby", **now})
                for ws in list(self.sockets):
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(ws.send_text(text), 5)
        self._last = None

    async def close(self) -> None:
        if self._watcher is not None:
            self._watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watcher


def _table(room: Any, seats: list[Any]) -> dict[str, Any]:
    game = get_game(room.game)
    options: Mapping[str, Any] = json.loads(room.options)
    defaults = game.normalize_options(None)
    clock = json.loads(room.clock) if room.clock else None
    return {
        "room": room.code,
        "game": game.name,
        "title": game.title,
        "players": room.players,
        "free": sum(1 for s in seats if s.kind == "human" and not s.taken),
        "seats": [
            {
                "seat": s.seat,
                "kind": s.kind,
                "name": s.name if s.taken and s.kind != "bot" else None,
                "level": s.level,
                "taken": bool(s.taken) or s.kind == "bot",
            }
            for s in seats
        ],
        "options": {k: v for k, v in options.items() if defaults.get(k) != v},
        "clock": clock,
        "turn_based": clock is not None and (clock.get("move") or 0) >= TURN_BASED,
        "hints": bool(room.hints),
        "rated": bool(room.rated),
        "created": room.created,
    }


def lobby_routes(lobby: Lobby, addresses: Addresses) -> APIRouter:
    router = APIRouter()

    @router.get("/api/lobby", response_model=LobbyOut)
    async def lobby_now() -> dict[str, Any]:
        """The open public tables (with free seats) and the quick-play queues."""
        return await lobby.snapshot()

    @router.websocket("/ws/lobby")
    async def lobby_socket(websocket: WebSocket) -> None:
        """The lobby, sent at once and again whenever it changes (``{"type": "lobby", ...}``)."""
        await websocket.accept()
        address = client_address(websocket.client)
        try:
            admitted = await addresses.open_socket_async(address)
        except CountUnavailable as exc:
            await websocket.close(1013, str(exc)[:120])
            return
        if not admitted:
            limit = addresses.limits.sockets_per_address
            await websocket.close(1008, f"sockets_per_address: at most {limit} open sockets per address")
            return
        try:
            await lobby.watch(websocket)
        finally:
            await addresses.close_socket_async(address)

    return router
