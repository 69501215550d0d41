"""``POST /api/my-games``: where a player sits and where it is their turn (docs/protocol.md,
"Your games").

A browser keeps each seat's secret for its room; it sends them all (in the body,
never in a URL) and learns, per seat, the game, its status, the names at the
table, whether it is this seat's turn and how long its decision may still take.
Nothing is stored: anonymous players need no account for this list. A seat whose
secret does not match counts as a miss of the address (guessing, docs/deploy.md)
and is answered ``gone``, as is a room that no longer exists.
"""

from __future__ import annotations

import time
from typing import Any

from fastapi import APIRouter, Request

from spieltisch.clocks import TURN_BASED
from spieltisch.server.api import client_address
from spieltisch.server.directory import RoomDirectory
from spieltisch.server.errors import RoomError
from spieltisch.server.limits import Addresses
from spieltisch.server.messages import MyGamesIn, MyGamesOut
from spieltisch.server.room import Room


def my_games_routes(directory: RoomDirectory, addresses: Addresses) -> APIRouter:
    router = APIRouter()

    @router.post("/api/my-games", response_model=MyGamesOut, response_model_exclude_none=True)
    async def my_games(body: MyGamesIn, request: Request) -> dict[str, Any]:
        """Per seat sent: its game and whether it is that seat's turn (``gone``: no such
        room or a secret that does not match)."""
        address = client_address(request.client)
        games = []
        for entry in body.seats:
            try:
                room = await directory.room(entry.room)
            except RoomError:
                games.append({"room": entry.room.upper(), "seat": entry.seat, "status": "gone"})
                continue
            if not room.check_seat(entry.seat, entry.secret):
                await addresses.miss_async(address)
                await addresses.room_miss_async(room.code)  # (answered "gone" either way)
                games.append({"room": room.code, "seat": entry.seat, "status": "gone"})
                continue
            games.append(_game(room, entry.seat))
        return {"games": games}

    return router


def _game(room: Room, seat: int) -> dict[str, Any]:
    info = room.info()
    mine = info["status"] == "playing" and seat in room.to_move() and seat not in room.stand_in
    settings = room.clock_settings
    game: dict[str, Any] = {
        "room": room.code,
        "seat": seat,
        "status": info["status"],
        "game": info["game"],
        "title": info["title"],
        "names": [s["name"] for s in info["seats"]],
        "your_turn": mine,
        "turn_based": settings is not None and (settings.move or 0) >= TURN_BASED,
    }
    if mine and room.clocks is not None:
        clock = room.clocks.snapshot(time.monotonic())[seat]
        left = [v for v in (clock["move"], clock["bank"]) if v is not None]
        if left:
            game["time_left"] = sum(left)
    if info["outcome"] is not None:
        game["won"] = seat in info["outcome"]["winners"]
    return game
