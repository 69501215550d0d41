"""Scout's research options: smaller games for game-theory work (docs/engine.md, docs/rl.md).

The rules (S-1 .. S-16) have no options: a new game without options is dealt
and played exactly as they say, and its records, views and JSON are unchanged.
These options are **not** rule variants for players; they shrink the game so
that exact methods (OpenSpiel's best response, CFR) can walk its whole tree:

* ``numbers`` (2..10, default 10): the deck is one card for every pair of
  different numbers ``1..numbers`` (S-1 with fewer numbers: 4 gives 6 cards).
  S-2's removed cards are removed only from the full deck (``numbers`` 10).
* ``hand_size`` (1..11, default S-2's count): cards dealt to each player.
  With two players the cards not dealt are set aside for round 2 (S-16), and
  a round 2 needs as many of them as round 1 deals.
* ``rounds`` (1..10, default as many as players, S-12).
* ``scout_chips`` (0..5, default 3): two players' scout chips per round (S-13).

Options at their default value are dropped, so ``{"rounds": 4}`` at four
players is the same game as no options.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from spieltisch.engine.core import OptionsError

NUMBERS: Final = 10
DEALT: Final = {2: 11, 3: 12, 4: 11, 5: 9}
TWO_PLAYER_CHIPS: Final = 3  # S-13
MAX_HAND_SIZE: Final = 11

KNOWN: Final = ("numbers", "hand_size", "rounds", "scout_chips")


def _whole(name: str, value: object, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise OptionsError(f"option {name!r} must be a whole number from {low} to {high}, not {value!r}")
    return value


def deck_size(players: int, numbers: int) -> int:
    """Cards in the deck: one per pair of numbers, less S-2's removed cards (full deck only)."""
    size = numbers * (numbers - 1) // 2
    if numbers == NUMBERS:
        size -= {2: 1, 3: 9, 4: 1, 5: 0}[players]
    return size


def normalize_options(options: Mapping[str, Any] | None, players: int | None = None) -> dict[str, Any]:
    """Check the research options (a clear :class:`OptionsError` for a bad one) and
    return those that differ from the rules, ``{}`` for the game as the rules have it."""
    if not options:
        return {}
    if not isinstance(options, Mapping):
        raise OptionsError(f"rule options must be an object, not {options!r}")
    unknown = sorted(set(options) - set(KNOWN))
    if unknown:
        raise OptionsError(
            f"Scout has no rule options; got {unknown} (its research options for small games: "
            f"{', '.join(KNOWN)})"
        )
    out: dict[str, Any] = {}
    numbers = _whole("numbers", options.get("numbers", NUMBERS), 2, NUMBERS)
    if numbers != NUMBERS:
        out["numbers"] = numbers
    if "hand_size" in options:
        hand = _whole("hand_size", options["hand_size"], 1, MAX_HAND_SIZE)
        if players is None or hand != DEALT[players]:
            out["hand_size"] = hand
    if "rounds" in options:
        rounds = _whole("rounds", options["rounds"], 1, 10)
        if players is None or rounds != players:
            out["rounds"] = rounds
    if "scout_chips" in options:
        chips = _whole("scout_chips", options["scout_chips"], 0, 5)
        if chips != TWO_PLAYER_CHIPS:
            out["scout_chips"] = chips
    if players is not None:
        if "scout_chips" in out and players != 2:
            raise OptionsError("option 'scout_chips' is for two players (S-13); with more, scouting is free")
        hand = out.get("hand_size", DEALT[players])
        rounds = out.get("rounds", players)
        size = deck_size(players, numbers)
        need = players * hand * (2 if players == 2 and rounds >= 2 else 1)  # S-16: round 2's cards
        if need > size:
            raise OptionsError(
                f"impossible deck: {size} cards (numbers 1..{numbers}) cannot deal {hand} to each of "
                f"{players} players"
                + (" in both of the first two rounds (S-16)" if need > players * hand else "")
            )
    return out
