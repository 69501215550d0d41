"""Which sealed Waschbär-Schmaus decisions the log may name (W-4, W-9, W-11, W-16) and
which cards a Scout move made public (S-7, S-8): spieltisch.server.public_log."""

from __future__ import annotations

from spieltisch.engine import get_game
from spieltisch.server.public_log import schmaus_public, scout_note

LAYS = [(0, "play F1 F2 F3"), (2, "play F1 F1 X3"), (1, "play -")]


def test_a_rounds_lays_are_public_together_once_every_seat_has_laid() -> None:
    assert schmaus_public(LAYS[:2], 3, "play") == [False, False]  # W-4: sealed until all are in
    assert schmaus_public(LAYS, 3, "play") == [True, True, True]
    assert schmaus_public([*LAYS, (1, "play F5 F5 F5")], 3, "play") == [True, True, True, False]


def test_choices_and_discards_are_public_once_their_phase_is_over() -> None:
    chosen = [*LAYS, (0, "target 2"), (2, "x5 F1")]
    assert schmaus_public(chosen, 3, "target") == [True] * 3 + [False, False]  # W-9, W-11: in secret
    assert schmaus_public(chosen, 3, "play") == [True] * 5
    discards = [*chosen, (1, "discard F2")]
    assert schmaus_public(discards, 3, "discard") == [True] * 5 + [False]  # W-16: together
    assert schmaus_public([*discards, (0, "play F1 F2 F3")], 3, "play") == [True] * 6 + [False]


def test_a_scout_note_names_the_shown_set_and_the_scouted_card() -> None:
    state = get_game("scout").new_state(3, 5)
    for seat in range(3):
        state.apply(seat, "keep")
    mover = state.to_move()[0]
    hand = state.view(mover, log=False)["hand"]
    assert isinstance(hand, list)
    assert scout_note(state, mover, "show 0") == {"cards": [hand[0]]}
    assert scout_note(state, mover, "keep") is None  # S-5: the flip decision stays secret
    state.apply(mover, "show 0")
    table = hand[0]
    nxt = state.to_move()[0]
    top, bottom = table.split("/")
    assert scout_note(state, nxt, "scout L flip @0") == {"card": f"{bottom}/{top}"}
    after = scout_note(state, nxt, "scout R @1 show 1")
    assert after is not None and after["card"] == table and after["cards"] == [table]
