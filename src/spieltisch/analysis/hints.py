"""Hints: the medium bot's suggested move for a seat, and why in one sentence.

:func:`hint` sees what the seat sees and nothing else: its view and its legal
action ids (the same as a bot at that seat). The move is the built-in medium
bot's choice, so the work is counted as that bot's budget; the reason is read
off the move and the view: a key (translated by the clients: the web table's
``hint.*`` texts, the terminal's :mod:`spieltisch.terminal.i18n`), its
parameters and the English sentence (docs/review.md, "Hints").
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from spieltisch.bots import make_bot
from spieltisch.bots.schmaus import opponent_model
from spieltisch.engine import get_game
from spieltisch.engine.schmaus.actions import TARGET_BASE
from spieltisch.engine.scout.actions import Flip, Scout, ScoutShow, Show
from spieltisch.engine.scout.cards import set_key

HINT_LEVEL = "medium"

TEXTS: dict[str, str] = {
    "discard.least": "Discard {cards}: the cards worth least to you.",
    "flip.keep": "Keep the hand as dealt: its best set is {cards} (turned round: {other}).",
    "flip.turn": "Turn the hand round: its best set is then {cards} (as dealt: {other}).",
    "lay.best": "Lay {cards}: of your lays, it expects the most of this round's pot (about {points} points).",
    "scout.build": "Take the {card}: it makes {cards} in your hand; {owner} gets a token.",
    "scout.keep": "Take the {card}: keeps your {cards} together for later; {owner} gets a token.",
    "scout.plain": "Take the {card}: no show is worth breaking your hand for; {owner} gets a token.",
    "scoutshow.beat": "Take the {card} ({owner} gets a token), then show {cards}: captures {count} card(s).",
    "show.beat": "Show {cards}: it beats the table and captures {count} card(s).",
    "show.open": "The table is empty, any set may be shown: open with {cards}.",
    "show.out": "Show {cards}: it beats the table and empties your hand, which ends the round.",
    "target.best": "Point your grocer at {seat}: the biggest food lay on the table.",
    "x5.best": "Put ×5 on {card}: your most valuable food.",
}
"""Every reason: key -> English sentence with ``{params}`` (the web table's ``hint.KEY`` texts)."""


@dataclass(frozen=True)
class Hint:
    id: int
    action: str
    reason: str
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """The reason as an English sentence (seats as the protocol numbers them)."""
        params = {k: f"seat {v}" if k in ("owner", "seat") else v for k, v in self.params.items()}
        return TEXTS[self.reason].format(**params)


def hint(game: str, view: Mapping[str, Any], legal: Sequence[int], seed: int) -> Hint:
    """The suggested move for the seat of ``view`` among ``legal``, and why
    (runs in a worker process: the bot's work is the medium level's budget)."""
    if not legal:
        raise ValueError("no legal action: it is not this seat's decision")
    seat = int(view["seat"])
    bot = make_bot(game, HINT_LEVEL, seat, seed)
    choice = bot.choose(dict(view), list(legal))
    if choice not in legal:  # a bot must choose a legal id; fall back to the first one
        choice = legal[0]
    if game == "scout":
        reason, params = _scout_reason(view, choice)
    else:
        reason, params = _schmaus_reason(view, legal, choice, seed)
    text = get_game(game).action_from_id(choice).to_text()
    return Hint(choice, text, reason, params)


# -- Scout ---------------------------------------------------------------------------


def _numbers(cards: Sequence[str]) -> list[int]:
    """The live numbers of cards written ``top/bottom`` (S-3)."""
    return [int(str(c).split("/")[0]) for c in cards]


def _best_set(vals: Sequence[int]) -> tuple[int, int, int]:
    """The strongest set of adjacent cards (S-6, S-7): ``(strength, start, count)``."""
    best = (-1, 0, 0)
    for i in range(len(vals)):
        for j in range(i + 1, len(vals) + 1):
            key = set_key(vals[i:j])
            if key < 0:
                break
            if key > best[0]:
                best = (key, i, j - i)
    return best


def _dashed(vals: Sequence[int]) -> str:
    return "-".join(map(str, vals))


def _scout_reason(view: Mapping[str, Any], choice: int) -> tuple[str, dict[str, Any]]:
    action = get_game("scout").action_from_id(choice)
    hand = [str(c) for c in view["hand"]]
    vals = _numbers(hand)
    table = [str(c) for c in (view.get("table") or {}).get("cards") or []]
    owner = (view.get("table") or {}).get("owner")
    owner_param = {"owner": owner}
    if isinstance(action, Flip):
        turned = [int(str(c).split("/")[1]) for c in reversed(hand)]
        mine, other = (turned, vals) if action.turn else (vals, turned)
        _, s, n = _best_set(mine)
        _, os_, on = _best_set(other)
        cards, other_cards = _dashed(mine[s : s + n]), _dashed(other[os_ : os_ + on])
        return ("flip.turn" if action.turn else "flip.keep"), {"cards": cards, "other": other_cards}
    if isinstance(action, Show):
        shown = vals[action.start : action.start + action.count]
        if not table:
            return "show.open", {"cards": _dashed(shown)}
        if action.count == len(hand):
            return "show.out", {"cards": _dashed(shown)}
        return "show.beat", {"cards": _dashed(shown), "count": len(table)}
    scout = action.scout if isinstance(action, ScoutShow) else action
    assert isinstance(scout, Scout)
    taken = table[0] if scout.end == "left" else table[-1]
    top, bottom = (int(x) for x in taken.split("/"))
    number = bottom if scout.turn else top
    card = str(number)
    after = [*vals[: scout.insert], number, *vals[scout.insert :]]
    if isinstance(action, ScoutShow):
        shown = after[action.show.start : action.show.start + action.show.count]
        rest = len(table) - 1
        return "scoutshow.beat", {"card": card, "cards": _dashed(shown), "count": rest, **owner_param}
    # The longest set through the new card: does it build something?
    best = (0, 0, 0)
    for i in range(scout.insert + 1):
        for j in range(scout.insert + 1, len(after) + 1):
            key = set_key(after[i:j])
            if key >= 0 and j - i > best[2]:
                best = (key, i, j - i)
    if best[2] >= 2:
        return "scout.build", {
            "card": card,
            "cards": _dashed(after[best[1] : best[1] + best[2]]),
            **owner_param,
        }
    _, s, n = _best_set(vals)
    if n >= 2:
        return "scout.keep", {"card": card, "cards": _dashed(vals[s : s + n]), **owner_param}
    return "scout.plain", {"card": card, **owner_param}


# -- Waschbär-Schmaus ----------------------------------------------------------------


def _schmaus_reason(
    view: Mapping[str, Any], legal: Sequence[int], choice: int, seed: int
) -> tuple[str, dict[str, Any]]:
    text = get_game("schmaus").action_from_id(choice).to_text()
    verb, *args = text.split()
    if verb == "target":
        return "target.best", {"seat": int(args[0])}
    if verb == "x5":
        return "x5.best", {"card": args[0]}
    if verb == "discard":
        return "discard.least", {"cards": " ".join(args)}
    model = opponent_model(view, random.Random(f"hint/{seed}"))
    points = model.gain(choice) if choice < TARGET_BASE else 0.0  # the expected pot won
    return "lay.best", {"cards": " ".join(args) or "-", "points": round(points)}
