"""What ``GET /api/games`` tells a client: games, player counts, rule options, bot levels."""

from __future__ import annotations

from typing import Any

from spieltisch.engine import GAMES, get_game
from spieltisch.engine.schmaus import cards as schmaus_cards
from spieltisch.engine.schmaus import options as schmaus_options
from spieltisch.server.bot_seats import bot_level_list

_LABELS: dict[str, dict[str, str]] = {
    "rounds": {"en": "Rounds", "de": "Runden"},
    "short_hand": {"en": "Too few cards to play", "de": "Zu wenige Karten zum Ausspielen"},
    "hunter_draw": {"en": "Who draws after a hunter round", "de": "Wer nach einer Jägerrunde zieht"},
    "hand_size": {"en": "Starting hand size", "de": "Startkarten pro Hand"},
    "loser_draws": {"en": "Cards the lowest player draws", "de": "Karten für den Niedrigsten"},
    "hand_limit": {"en": "Hand limit", "de": "Handkartenlimit"},
    "refill_to": {"en": "Refill hands to (0: off)", "de": "Hand auffüllen auf (0: aus)"},
    "deck": {"en": "Deck composition", "de": "Zusammensetzung des Stapels"},
}

# The ranges normalize_options enforces (engine/schmaus/options.py); the engine
# stays the judge, these only help a client draw its form.
_SCHMAUS_RANGES: dict[str, tuple[int, int]] = {
    "rounds": (1, 1000),
    "hand_size": (0, 54),
    "loser_draws": (0, 54),
    "hand_limit": (3, 54),
    "refill_to": (0, 54),
}


def _schmaus_options() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for name, default in schmaus_options.DEFAULTS.items():
        opt: dict[str, Any] = {
            "name": name,
            "default": default,
            "label": _LABELS.get(name, {"en": name, "de": name}),
        }
        if name == "rounds":
            low, high = _SCHMAUS_RANGES[name]
            opt.update(type="choice_or_int", choices=["3x-players", "draw"], min=low, max=high)
        elif name in schmaus_options.CHOICES:
            opt.update(type="choice", choices=list(schmaus_options.CHOICES[name]))
        elif name == "deck":
            opt.update(type="deck", min=0, max=100, cards=dict(schmaus_cards.DECK))
        else:
            low, high = _SCHMAUS_RANGES[name]
            opt.update(type="int", min=low, max=high)
        out.append(opt)
    return out


def games_info() -> dict[str, Any]:
    games = []
    for name in GAMES:
        g = get_game(name)
        games.append(
            {
                "name": g.name,
                "title": g.title,
                "min_players": g.min_players,
                "max_players": g.max_players,
                "options": _schmaus_options() if g.name == "schmaus" else [],
                "bot_levels": bot_level_list(g.name),
            }
        )
    return {"games": games}
