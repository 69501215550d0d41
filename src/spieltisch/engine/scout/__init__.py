"""Scout (Oink Games) for 2 to 5 players: rulings S-1 .. S-16."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from spieltisch.engine.core import Action, OptionsError
from spieltisch.engine.scout import actions
from spieltisch.engine.scout.actions import Flip, Scout, ScoutShow, Show
from spieltisch.engine.scout.cards import card_text, parse_card
from spieltisch.engine.scout.reasons import REASONS
from spieltisch.engine.scout.state import ScoutState


class ScoutGame:
    """Metadata and factories for Scout."""

    name = "scout"
    title = "Scout"
    min_players = 2
    max_players = 5
    reasons = REASONS

    def new_state(self, players: int, seed: int, options: Mapping[str, Any] | None = None) -> ScoutState:
        self.normalize_options(options)
        return ScoutState.new(players, seed)

    def num_actions(self, players: int) -> int:
        return actions.NUM_ACTIONS

    def parse_action(self, action: Action | str | Mapping[str, Any]) -> Action:
        return actions.parse(action)

    def action_from_id(self, action_id: int) -> Action:
        return actions.from_id(action_id)

    def state_from_json(self, data: Mapping[str, Any]) -> ScoutState:
        return ScoutState.from_json(data)

    def normalize_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        if options:
            raise OptionsError(f"Scout has no rule options; got {sorted(options)}")
        return {}


GAME = ScoutGame()
ScoutState.game = GAME

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
