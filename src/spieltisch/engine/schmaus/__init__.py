"""Waschbär-Schmaus for 2 to 5 players: rulings W-1 .. W-18."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from spieltisch.engine.core import Action
from spieltisch.engine.schmaus import actions
from spieltisch.engine.schmaus.actions import Discard, Play, Target, Times5
from spieltisch.engine.schmaus.cards import IDS, normalize_options, resolve
from spieltisch.engine.schmaus.reasons import REASONS
from spieltisch.engine.schmaus.state import SchmausState


class SchmausGame:
    """Metadata and factories for Waschbär-Schmaus."""

    name = "schmaus"
    title = "Waschbär-Schmaus"
    min_players = 2
    max_players = 5
    reasons = REASONS

    def new_state(self, players: int, seed: int, options: Mapping[str, Any] | None = None) -> SchmausState:
        return SchmausState.new(players, seed, options)

    def num_actions(self, players: int) -> int:
        return actions.NUM_ACTIONS

    def parse_action(self, action: Action | str | Mapping[str, Any]) -> Action:
        return actions.parse(action)

    def action_from_id(self, action_id: int) -> Action:
        return actions.from_id(action_id)

    def state_from_json(self, data: Mapping[str, Any]) -> SchmausState:
        return SchmausState.from_json(data)

    def normalize_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        return normalize_options(options)


GAME = SchmausGame()
SchmausState.game = GAME

__all__ = [
    "GAME",
    "IDS",
    "Discard",
    "Play",
    "SchmausGame",
    "SchmausState",
    "Target",
    "Times5",
    "resolve",
]
