"""Pure rules engines: no I/O, no web, no numpy. One package per game.

>>> from spieltisch.engine import get_game
>>> state = get_game("scout").new_state(players=4, seed=7)
>>> state.to_move()
(0, 1, 2, 3)
"""

from __future__ import annotations

from spieltisch.engine.core import (
    Action,
    Game,
    GameOverError,
    GameRecord,
    IllegalActionError,
    InvalidActionError,
    OptionsError,
    Outcome,
    Reasons,
    RecordError,
    RulesError,
    State,
    WrongSeatError,
)


def get_game(name: str) -> Game:
    """The game descriptor for ``"scout"`` or ``"schmaus"``."""
    from spieltisch.engine import schmaus, scout

    games: dict[str, Game] = {"scout": scout.GAME, "schmaus": schmaus.GAME}
    aliases = {"waschbaer-schmaus": "schmaus", "waschbär-schmaus": "schmaus"}
    key = aliases.get(name.lower(), name.lower())
    if key not in games:
        raise OptionsError(f"unknown game {name!r}: choose 'scout' or 'schmaus'")
    return games[key]


GAMES = ("scout", "schmaus")

__all__ = [
    "GAMES",
    "Action",
    "Game",
    "GameOverError",
    "GameRecord",
    "IllegalActionError",
    "InvalidActionError",
    "OptionsError",
    "Outcome",
    "Reasons",
    "RecordError",
    "RulesError",
    "State",
    "WrongSeatError",
    "get_game",
]
