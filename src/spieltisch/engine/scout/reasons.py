"""Why Scout refuses an action: reason key -> English template (see :class:`Reasons`)."""

from __future__ import annotations

from spieltisch.engine.core import TURN_REASONS, Reasons

REASONS = Reasons(
    TURN_REASONS,
    flip_first="before the first turn every player first decides whether to flip the hand ('flip' or 'keep')",
    flip_done="this seat has already made its flip decision",
    flip_once="the hand can only be flipped once, before the first turn of the round",
    not_your_turn="it is seat {turn_seat}'s turn, not seat {seat}'s",
    no_scout_show_2p="there is no scout & show in the 2-player game",
    chip_used="the scout & show chip has already been used this round",
    no_active_set="there is no active set to scout from",
    no_scout_chips="you have no scout chips left, so you cannot scout",
    insert_outside="insert position {insert} is outside your hand (0..{size})",
    hand_full="a hand cannot hold more than {limit} cards",
    not_in_hand="{action} names cards your hand does not have (positions 0..{last})",
    not_a_set="{shown} is neither a match (equal numbers) nor a run (numbers going up or down by one)",
    not_beating=(
        "{shown} does not beat the active set {table} (more cards beat fewer; at equal size "
        "a match beats a run; then the higher smallest number; ties do not beat)"
    ),
)
