"""The finished games of the web table, for ``spieltisch lab real``: each game's record
and which seats people played, without names, room codes or times."""

from __future__ import annotations

from collections.abc import Iterator

from spieltisch.engine import GameRecord
from spieltisch.lab.real import PlayedGame
from spieltisch.server.store import Store


def played_games(store: Store) -> Iterator[PlayedGame]:
    """Every game played to its end, oldest first (a room ended early has no outcome)."""
    for code in store.finished():
        room = store.load(code)
        if room is None:  # expired between the two reads
            continue
        record = GameRecord(
            room.game, room.players, room.seed, dict(room.options), list(room.actions), room.rules_version
        )
        yield PlayedGame(record, tuple(seat.kind == "human" for seat in room.seats))
