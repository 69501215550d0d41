"""Why Waschbär-Schmaus refuses an action: reason key -> English template (see :class:`Reasons`)."""

from __future__ import annotations

from spieltisch.engine.core import TURN_REASONS, Reasons

REASONS = Reasons(
    TURN_REASONS,
    not_laying_now="cards are laid at the start of a round, not now",
    already_laid="this seat has already laid its cards this round",
    play_size="a play is exactly 3 cards",
    two_effects="never two effect cards in one play (3 food, or 2 food and 1 effect)",
    effect_alone="an effect card needs two food cards beside it",
    lay_three="lay exactly 3 cards: three food cards, or two food cards and one effect",
    short_hand=(
        "you cannot lay 3 food or 2 food and 1 effect, so you lay all your food cards "
        "(at most 3) and no effect card"
    ),
    not_held="you hold {held} × {card}, not {count}",
    not_targeting_now="only a player whose grocer counts picks a target now",
    target_done="this grocer has already picked its target",
    target_own="the grocer must pick an opponent, not its own player",
    grocer_without_target="the grocer of seat {seat} must pick an opponent",
    grocer_own="the grocer of seat {seat} cannot pick its own player",
    no_target="there is no seat {target} to pick",
    not_x5_now="only a player whose ×5 raccoon counts chooses now",
    x5_not_laid="the ×5 raccoon multiplies one of your own laid food cards; you laid {laid_cards}",
    x5_without_card="the ×5 raccoon of seat {seat} must name one of its own laid food cards, not {chosen}",
    not_discarding_now="only a player over the hand limit discards now",
    discard_too_many="discard down to the hand limit: {need} more card(s), not {chosen}",
    keep_a_play="after the short-hand draws you must keep a legal play (3 food, or 2 food and 1 effect)",
)
