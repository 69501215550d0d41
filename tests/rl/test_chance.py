"""Deals and draws as chance events reach exactly the engine's states (docs/rl.md, "Chance").

Engine games are played with random learning decisions; :func:`record_game` turns
each into its chance outcomes, and a chance state fed those outcomes and the
same actions must equal the engine's state after every step (up to the order of
unseen cards), while recording must not change the engine's game at all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

pytest.importorskip("gymnasium")
from spieltisch.engine import get_game
from spieltisch.rl.envs.chance import (
    ChanceQueue,
    ChanceSchmaus,
    ChanceScout,
    NeedChance,
    comparable,
    record_game,
    schmaus_distribution,
    scout_distribution,
)

if TYPE_CHECKING:
    from tests.rl.conftest import Player

PLAYERS = [2, 3, 4, 5]


def _chance_class(game: str) -> type[ChanceScout] | type[ChanceSchmaus]:
    return ChanceScout if game == "scout" else ChanceSchmaus


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("game", ["scout", "schmaus"])
def test_chance_states_equal_the_engine_step_by_step(game: str, players: int, play: Player) -> None:
    reshuffles = 0
    for seed in (1, 2):
        log, _ = play(game, players, seed)
        record = record_game(game, players, seed, log)
        engine = get_game(game).new_state(players, seed)
        recording = _chance_class(game).new(players, seed)  # recording mode: the engine's own shuffles
        chance = _chance_class(game).dealt_by_chance(players, ChanceQueue(list(record.deal)))
        assert comparable(chance) == comparable(engine)
        for seat, engine_id, outcomes in record.steps:
            engine.apply_id(seat, engine_id)
            recording.apply_id(seat, engine_id)
            queue = ChanceQueue(list(outcomes))
            chance.chance = queue
            chance.apply_id(seat, engine_id)
            assert queue.used == len(outcomes)
            assert recording.to_json() == engine.to_json()
            assert comparable(chance) == comparable(engine)
        assert engine.is_over()
        reshuffles += int(engine.to_json().get("reshuffles", 0))  # type: ignore[call-overload]
    if game == "schmaus" and players >= 4:
        assert reshuffles > 0  # W-17 is exercised, not only the first pile


def test_scout_deal_outcomes_and_probabilities() -> None:
    with pytest.raises(NeedChance) as first:
        ChanceScout.dealt_by_chance(3, ChanceQueue())
    dist = first.value.distribution
    assert len(dist) == 72  # S-2: 36 cards for 3 players, S-1: either way up
    assert abs(sum(p for _, p in dist) - 1) < 1e-12
    assert [o for o, _ in dist] == sorted(o for o, _ in dist)
    with pytest.raises(NeedChance) as second:
        ChanceScout.dealt_by_chance(3, ChanceQueue([1 * 11 + 2]))
    assert len(second.value.distribution) == 70  # 1/2 is gone, both ways up
    with pytest.raises(ValueError, match="impossible"):
        ChanceScout.dealt_by_chance(3, ChanceQueue([1 * 11 + 2, 2 * 11 + 1]))
    assert scout_distribution([1 * 11 + 2]) == [(1 * 11 + 2, 0.5), (2 * 11 + 1, 0.5)]


def test_scout_first_player_follows_the_chance_deal() -> None:
    engine = get_game("scout").new_state(4, 5)
    record = record_game("scout", 4, 5, [])
    state = ChanceScout.dealt_by_chance(4, ChanceQueue(record.deal))
    assert state.to_move() == engine.to_move() and state.current == engine.current  # S-3, S-4


def test_schmaus_draw_probabilities_follow_the_pile() -> None:
    dist = dict(schmaus_distribution([0, 0, 0, 1, 11]))
    assert dist == {0: 0.6, 1: 0.2, 11: 0.2}
    with pytest.raises(NeedChance) as first:
        ChanceSchmaus.dealt_by_chance(3, ChanceQueue())
    assert dict(first.value.distribution)[0] == 15 / 54  # W-3 from the full deck: 15 F1 of 54
    with pytest.raises(ValueError, match="'draw' variant"):
        ChanceSchmaus.dealt_by_chance(3, ChanceQueue(), {"rounds": "draw"})


def test_record_refuses_sealed_decisions_out_of_seat_order() -> None:
    state = get_game("schmaus").new_state(3, 1)
    seat2 = state.legal_action_ids(2)[0]
    with pytest.raises(ValueError, match="seat order"):
        record_game("schmaus", 3, 1, [(2, seat2)])
