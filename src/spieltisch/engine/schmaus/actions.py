"""Waschbär-Schmaus actions, their notation and their fixed numbering.

Notation::

    play F5 F4 X3        lay three cards (W-4); ``play -`` lays nothing (W-5)
    target 2             the grocer picks seat 2 (W-9)
    x5 F4                the ×5 raccoon multiplies an F4 (W-11)
    discard F1 F2        discard down to the hand limit (W-16)

Numbering: every possible lay (sorted multiset of at most three cards with at
most one effect card: 161 of them), then ``target 0..4``, then ``x5 F1..F5``,
then ``discard`` of one card of each of the 12 kinds. A discard of several
cards is the same as those single discards one after another.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from spieltisch.engine.base import parse_action
from spieltisch.engine.core import Action, InvalidActionError
from spieltisch.engine.schmaus.cards import IDS, parse_card, parse_cards, play_error, texts
from spieltisch.engine.schmaus.reasons import REASONS


@dataclass(frozen=True, slots=True)
class Play(Action):
    cards: tuple[int, ...]
    """Sorted card kinds."""

    def to_text(self) -> str:
        return "play " + (" ".join(texts(self.cards)) or "-")

    def to_json(self) -> dict[str, Any]:
        return {"type": "play", "cards": texts(self.cards)}


@dataclass(frozen=True, slots=True)
class Target(Action):
    opponent: int

    def to_text(self) -> str:
        return f"target {self.opponent}"

    def to_json(self) -> dict[str, Any]:
        return {"type": "target", "opponent": self.opponent}


@dataclass(frozen=True, slots=True)
class Times5(Action):
    card: int

    def to_text(self) -> str:
        return f"x5 {IDS[self.card]}"

    def to_json(self) -> dict[str, Any]:
        return {"type": "x5", "card": IDS[self.card]}


@dataclass(frozen=True, slots=True)
class Discard(Action):
    cards: tuple[int, ...]

    def to_text(self) -> str:
        return "discard " + " ".join(texts(self.cards))

    def to_json(self) -> dict[str, Any]:
        return {"type": "discard", "cards": texts(self.cards)}


SchmausAction = Play | Target | Times5 | Discard

PLAYS: tuple[tuple[int, ...], ...] = tuple(
    combo
    for size in (3, 2, 1, 0)
    for combo in itertools.combinations_with_replacement(range(12), size)
    if play_error(combo) is None
)
PLAY_ID = {p: i for i, p in enumerate(PLAYS)}
TARGET_BASE = len(PLAYS)
X5_BASE = TARGET_BASE + 5
DISCARD_BASE = X5_BASE + 5
NUM_ACTIONS = DISCARD_BASE + 12

NOTATION_HELP = "play F5 F4 X3 | play - | target 2 | x5 F4 | discard F1 F2"


def parse_text(text: str) -> SchmausAction:
    words = text.strip().split()
    if not words:
        raise InvalidActionError(f"empty action; write e.g. {NOTATION_HELP}")
    verb, args = words[0].lower(), words[1:]
    if verb == "play":
        return Play(parse_cards([] if args == ["-"] else args))
    if verb == "discard" and args:
        return Discard(parse_cards(args))
    if verb == "target" and len(args) == 1 and re.fullmatch(r"\d+", args[0]):
        return Target(int(args[0]))
    if verb == "x5" and len(args) == 1:
        return Times5(parse_card(args[0]))
    raise InvalidActionError(f"cannot read Waschbär-Schmaus action {text!r}; write e.g. {NOTATION_HELP}")


def parse_json(data: Mapping[str, Any]) -> SchmausAction:
    kind = data.get("type")
    if kind == "play":
        return Play(parse_cards(data.get("cards")))
    if kind == "discard":
        cards = parse_cards(data.get("cards"))
        if not cards:
            raise InvalidActionError("a discard names at least one card")
        return Discard(cards)
    if kind == "target":
        opponent = data.get("opponent")
        if not isinstance(opponent, int) or isinstance(opponent, bool):
            raise InvalidActionError(f"target action {dict(data)!r}: 'opponent' must be a seat number")
        return Target(opponent)
    if kind == "x5":
        return Times5(parse_card(data.get("card")))
    raise InvalidActionError(f"unknown Waschbär-Schmaus action type {kind!r} (play, target, x5 or discard)")


_TYPES: tuple[type[SchmausAction], ...] = (Play, Target, Times5, Discard)


def parse(action: object) -> SchmausAction:
    """From notation text, the scenario JSON form, or an action (returned as is)."""
    return parse_action(action, _TYPES, parse_text, parse_json, "Waschbär-Schmaus")


def action_id(action: SchmausAction) -> int:
    if isinstance(action, Play):
        if action.cards not in PLAY_ID:
            raise InvalidActionError(
                f"{action.to_text()}: W-4: {REASONS[play_error(action.cards) or 'play_size']}"
            )
        return PLAY_ID[action.cards]
    if isinstance(action, Target):
        if not 0 <= action.opponent < 5:
            raise InvalidActionError(f"{action.to_text()}: seats are 0..4")
        return TARGET_BASE + action.opponent
    if isinstance(action, Times5):
        if action.card >= 5:
            raise InvalidActionError(f"{action.to_text()}: the ×5 raccoon multiplies a food card")
        return X5_BASE + action.card
    if len(action.cards) != 1:
        raise InvalidActionError("only a one-card discard has an action id; split the discard")
    return DISCARD_BASE + action.cards[0]


def from_id(action_id: int) -> SchmausAction:
    if not 0 <= action_id < NUM_ACTIONS:
        raise InvalidActionError(f"Waschbär-Schmaus action id {action_id} is outside 0..{NUM_ACTIONS - 1}")
    if action_id < TARGET_BASE:
        return Play(PLAYS[action_id])
    if action_id < X5_BASE:
        return Target(action_id - TARGET_BASE)
    if action_id < DISCARD_BASE:
        return Times5(action_id - X5_BASE)
    return Discard((action_id - DISCARD_BASE,))
