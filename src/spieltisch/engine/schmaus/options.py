"""Waschbär-Schmaus rule options: their defaults, their choices and their check (see the
scenario FORMAT and docs/engine.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from spieltisch.engine.core import OptionsError
from spieltisch.engine.schmaus.cards import DECK, DECK_COUNTS, DECK_SIZE, FOOD, IDS

DEFAULTS: dict[str, Any] = {
    "rounds": "3x-players",
    "short_hand": "draw-until-playable",
    "hunter_draw": "everybody",
    "hand_size": 7,
    "loser_draws": 2,
    "hand_limit": 12,
    "refill_to": 0,
    "deck": {},
}
CHOICES = {
    "short_hand": ("draw-until-playable", "play-what-you-can"),
    "hunter_draw": ("everybody", "nobody"),
}


def _whole(name: str, value: object, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise OptionsError(f"option {name!r} must be a whole number from {low} to {high}, not {value!r}")
    return value


def normalize_options(options: Mapping[str, Any] | None, players: int | None = None) -> dict[str, Any]:
    """Validate rule options (see the scenario FORMAT) and fill in the defaults."""
    if options is not None and not isinstance(options, Mapping):
        raise OptionsError(f"rule options must be an object, not {options!r}")
    if not options and (players is None or players * DEFAULTS["hand_size"] <= DECK_SIZE):
        return {**DEFAULTS, "deck": {}}  # every new game with the defaults: nothing to check
    opts = dict(options or {})
    unknown = sorted(set(opts) - set(DEFAULTS))
    if unknown:
        raise OptionsError(
            f"unknown rule option(s) {', '.join(map(repr, unknown))}; known: {', '.join(DEFAULTS)}"
        )
    out = {**DEFAULTS, **opts}
    rounds = out["rounds"]
    if rounds not in ("3x-players", "draw") and (
        not isinstance(rounds, int) or isinstance(rounds, bool) or not 1 <= rounds <= 1000
    ):
        raise OptionsError(
            f"option 'rounds' must be a whole number from 1 to 1000, 3x-players or draw, not {rounds!r}"
        )
    for name, allowed in CHOICES.items():
        if out[name] not in allowed:
            raise OptionsError(f"option {name!r} must be one of {', '.join(allowed)}, not {out[name]!r}")
    out["hand_limit"] = _whole("hand_limit", out["hand_limit"], 3, 54)
    out["hand_size"] = _whole("hand_size", out["hand_size"], 0, out["hand_limit"])
    out["loser_draws"] = _whole("loser_draws", out["loser_draws"], 0, 54)
    out["refill_to"] = _whole("refill_to", out["refill_to"], 0, out["hand_limit"])
    deck = out["deck"]
    if not isinstance(deck, Mapping):
        raise OptionsError(f"option 'deck' must map card ids to counts, not {deck!r}")
    bad = sorted(set(deck) - set(DECK))
    if bad:
        raise OptionsError(f"option 'deck' names unknown card id(s) {', '.join(map(repr, bad))}")
    out["deck"] = {k: _whole(f"deck.{k}", v, 0, 100) for k, v in sorted(deck.items())}
    counts = deck_counts(out)
    if players is not None and sum(counts) < players * out["hand_size"]:
        raise OptionsError(
            f"impossible deck: {sum(counts)} cards cannot deal {out['hand_size']} to each of "
            f"{players} players"
        )
    if rounds == "draw" and not any(counts[k] for k in FOOD):
        raise OptionsError("impossible deck: the 'draw' round count needs at least one food card")
    return out


def deck_counts(options: Mapping[str, Any]) -> list[int]:
    custom = options.get("deck") or {}
    if not custom:  # the default deck (every game dealt with it)
        return list(DECK_COUNTS)
    return [int(custom.get(name, DECK[name])) for name in IDS]
