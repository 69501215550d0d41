"""A finished game's record and its replay, frame by frame (``GET /api/rooms/CODE/replay``)."""

from __future__ import annotations

import copy
from typing import Any

import anyio.to_thread

from spieltisch.engine import GameRecord, RulesError, get_game
from spieltisch.server.errors import RoomError
from spieltisch.server.room import Room


def record(room: Room) -> GameRecord:
    """The record of a finished game (:class:`RoomError` 409 while it is played)."""
    if room.archived is not None:
        raise RoomError(
            409, f"room {room.code} is an archived record (it no longer replays): it cannot be reviewed"
        )
    if room.row.status != "over":
        raise RoomError(409, f"the game in room {room.code} is not over yet: reviews come after it")
    return room.state.record()


async def replay_of(room: Room, seat: int | None, secret: str | None) -> dict[str, Any]:
    """The finished game step by step, as ``seat`` saw it (``None``: a spectator)."""
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
        game = room.state.record()
        game.rules_version = rules_version
    else:  # the stored log as it is; the frames go as far as it replays
        game = GameRecord(
            row.game, row.players, row.seed, dict(row.options), list(row.actions), rules_version
        )
    by = list(room.by)
    frames = await anyio.to_thread.run_sync(_frames, game, seat, by)
    # Who played each move: None for the seat's own player, "bot:LEVEL" for a stand-in.
    return {
        "room": room.code,
        "seat": seat,
        "record": {**game.to_json(), "by": by},
        "frames": frames,
        "rules_version": rules_version,
        "archived": room.archived is not None,
        "archived_reason": room.archived,
    }


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
