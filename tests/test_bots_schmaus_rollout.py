"""Waschbär-Schmaus hard@v2: its play-outs follow the rules. That it plays legally,
decides from the view only, reproducibly, within its budget and cap, and takes the
obvious last-round lay is tested with the other kept versions in tests/test_bots_schmaus.py."""

from __future__ import annotations

import random

import pytest

from spieltisch.bots.schmaus import model_choices
from spieltisch.bots.schmaus_rollout import Rules, Table
from spieltisch.engine.schmaus import actions as A
from spieltisch.engine.schmaus.cards import KIND
from spieltisch.engine.schmaus.state import SchmausState


def cards(text: str) -> list[int]:
    return [KIND[c] for c in text.split()]


def _engine_round(state: SchmausState, lays: list[int]) -> None:
    """Lay ``lays`` in the engine and make the choices after the reveal as the play-outs do."""
    for seat, lay in enumerate(lays):
        state.apply_id(seat, lay)
    if state.phase == "target":
        targets = model_choices(lays)
        for seat in state.to_move():
            legal = state.legal_action_ids(seat)
            target = targets[seat]
            wanted = [a for a in legal if target is not None and a == A.TARGET_BASE + target]
            state.apply_id(seat, wanted[0] if wanted else max(legal))  # grocer target, else x5 on the best


@pytest.mark.parametrize("seed", range(8))
def test_a_played_out_round_is_the_engines_round(seed: int) -> None:
    """W-5 .. W-15, W-17: a play-out's round leaves the hands, totals and
    piles the engine leaves (no reshuffle and no hand limit here, which the
    play-out draws at random and decides by keep value)."""
    state = SchmausState.new(4, seed)
    rnd = random.Random(seed)
    for _ in range(2):
        table = Table(
            Rules(state.options),
            [list(h) for h in state.hands],
            list(state.draw_pile),
            list(state.discard),
            list(state.scores),
            random.Random(0),
        )
        lays = [rnd.choice(state.legal_action_ids(s)) for s in range(4)]
        table.play_round(lays, last=False)
        _engine_round(state, lays)
        assert state.phase == "play"
        assert table.hands == state.hands
        assert table.scores == state.scores
        assert table.pile == state.draw_pile
        assert sorted(table.discard) == sorted(state.discard)


def test_the_last_round_scores_and_draws_nothing() -> None:
    state = SchmausState.from_position(
        3,
        [cards("F5 F5 X3 F1"), cards("F1 F2 F3 F4"), cards("F1 F1 F2 F2")],
        cards("F1 F2 F3"),
        [],
        round=9,
    )
    table = Table(
        Rules(state.options),
        [list(h) for h in state.hands],
        list(state.draw_pile),
        [],
        [0, 0, 0],
        random.Random(0),
    )
    lays = [state.legal_action_ids(s)[0] for s in range(3)]
    _engine_round(state, lays)
    table.play_round(lays, last=True)
    assert state.is_over()
    assert table.scores == state.scores
    assert table.pile == list(reversed(cards("F1 F2 F3")))
