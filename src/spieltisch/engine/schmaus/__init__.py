"""Waschbär-Schmaus for 2 to 5 players: rulings W-1 .. W-18."""

from __future__ import annotations

from spieltisch.engine.base import BaseGame
from spieltisch.engine.schmaus import actions
from spieltisch.engine.schmaus.actions import Discard, Play, Target, Times5
from spieltisch.engine.schmaus.cards import IDS, resolve
from spieltisch.engine.schmaus.options import normalize_options
from spieltisch.engine.schmaus.reasons import REASONS
from spieltisch.engine.schmaus.state import SchmausState

SchmausGame = BaseGame[SchmausState]
"""The type of :data:`GAME` (rule options: ``shared/scenarios/FORMAT.md``)."""

GAME: SchmausGame = BaseGame(
    name="schmaus",
    title="Waschbär-Schmaus",
    reasons=REASONS,
    state_class=SchmausState,
    codec=actions,
    normalize=normalize_options,
    rules_version="1",  # raise it when a record of this version could replay differently
)

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
