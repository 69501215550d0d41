"""Hints (docs/review.md, "Hints"): the medium bot's suggestion for a seat's decision."""

from __future__ import annotations

import hashlib
import logging
from typing import Any

from spieltisch.analysis import hints
from spieltisch.server.errors import CommandError
from spieltisch.server.room import Room

log = logging.getLogger("spieltisch.server")


async def hint(room: Room, seat: int | None) -> dict[str, Any]:
    """The ``hint`` message for ``seat``: the medium bot's suggestion from this
    seat's view only, computed in a bot worker; :class:`CommandError` when
    the room does not allow hints or it is not the seat's decision."""
    if seat is None:
        raise CommandError("forbidden", "spectators get no hints; join a seat to play")
    if not room.row.hints:
        raise CommandError(
            "hints_off", f"room {room.code} does not allow hints (it was opened with hints off)"
        )
    if room.row.status != "playing" or seat not in room.to_move():
        raise CommandError("not_your_turn", f"a hint is for your own decision: it is not seat {seat}'s")
    async with room.hint_lock:  # one hint at a time per room; asked again, the same one
        decision = room.turn_version[seat]
        cached = room.hints.get(seat)
        if cached is not None and cached[0] == decision and seat in room.to_move():
            return {**cached[1], "version": room.version}
        version = room.version
        view = room.state.view(seat)
        legal = room.legal_ids(seat)
        key = f"hint/{room.row.seed}/{decision}/{seat}".encode()
        seed = int.from_bytes(hashlib.sha256(key).digest()[:7])
        try:
            result = await room.pool.run(hints.hint, room.game.name, view, legal, seed)
        except Exception as exc:
            log.exception("room %s: the hint for seat %d failed", room.code, seat)
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
        if room.turn_version[seat] == decision:
            room.hints[seat] = (decision, answer)
        return answer
