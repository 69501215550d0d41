"""Scout (Oink Games) for 2 to 5 players: rulings S-1 .. S-16."""

from __future__ import annotations

from spieltisch.engine.base import BaseGame
from spieltisch.engine.scout import actions
from spieltisch.engine.scout.actions import Flip, Scout, ScoutShow, Show
from spieltisch.engine.scout.cards import card_text, parse_card
from spieltisch.engine.scout.options import normalize_options
from spieltisch.engine.scout.reasons import REASONS
from spieltisch.engine.scout.state import ScoutState

ScoutGame = BaseGame[ScoutState]
"""The type of :data:`GAME` (Scout's rules have no options; research options shrink the game,
:mod:`spieltisch.engine.scout.options`)."""

GAME: ScoutGame = BaseGame(
    name="scout",
    title="Scout",
    reasons=REASONS,
    state_class=ScoutState,
    codec=actions,
    normalize=normalize_options,
    rules_version="1",  # raise it when a record of this version could replay differently
)

__all__ = [
    "GAME",
    "Flip",
    "Scout",
    "ScoutGame",
    "ScoutShow",
    "ScoutState",
    "Show",
    "card_text",
    "parse_card",
]
