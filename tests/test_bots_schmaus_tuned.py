"""Waschbär-Schmaus hard@v4: opponents modelled with medium's own picture of
the unseen cards, tuned weights; it decides from the view only,
reproducibly, and its budget is counted in work."""

from __future__ import annotations

import random

import pytest

from spieltisch.bots import bot_class, make_bot, versions
from spieltisch.bots.schmaus import HardBot
from spieltisch.bots.schmaus_tuned import HardBotV4
from spieltisch.engine.schmaus.cards import KIND
from spieltisch.engine.schmaus.state import SchmausState
from spieltisch.match import play_match

FAST = "hard@v4:samples=8"


def cards(text: str) -> list[int]:
    return [KIND[c] for c in text.split()]


def _record(specs: list[str], seed: int) -> list[object]:
    bots = [make_bot("schmaus", spec, s, seed) for s, spec in enumerate(specs)]
    return list(play_match("schmaus", bots, seed).state.record().actions)


def test_hard_at_v4_is_kept_and_plays_whole_games_legally() -> None:
    assert "v4" in versions("schmaus", "hard")
    assert bot_class("schmaus", "hard@v4") is HardBotV4
    for players in (2, 3, 5):
        bots = [make_bot("schmaus", FAST if s == 0 else "medium", s, players) for s in range(players)]
        result = play_match("schmaus", bots, players, {"hand_limit": 8, "loser_draws": 4})
        assert result.state.is_over()
        assert result.faults == [0] * players, result.fault_messages


def test_same_seed_same_decisions_whatever_the_global_random_state() -> None:
    specs = [FAST, "medium", "hard@v1", "medium"]
    random.seed(1)
    first = _record(specs, 9)
    random.seed(2)
    assert _record(specs, 9) == first


def test_without_the_medium_models_and_with_v1_weights_it_plays_v1s_games() -> None:
    """The medium models and the weights are the only changes to v1's search:
    with both as in v1 every decision is v1's; either changed, the games differ."""

    class Plain(HardBotV4):
        models = 0
        card_weight = HardBot.card_weight
        draw_weight = HardBot.draw_weight
        short_draw = 1.5
        plan_weight = HardBot.plan_weight
        blur = HardBot.blur
        late_blur = HardBot.late_blur
        noise = HardBot.noise

    def game(cls: type[HardBot], seed: int) -> list[object]:
        bots = [cls("schmaus", 0, seed)] + [make_bot("schmaus", "medium", s, seed) for s in (1, 2, 3)]
        return list(play_match("schmaus", bots, seed).state.record().actions)

    class Modelled(Plain):
        models = 4

    assert all(game(Plain, seed) == game(HardBot, seed) for seed in (3, 4))
    assert any(game(Modelled, seed) != game(HardBot, seed) for seed in (3, 4))
    assert any(game(HardBotV4, seed) != game(HardBot, seed) for seed in (3, 4, 5, 6))


def test_hidden_cards_do_not_change_a_lay() -> None:
    """W-3: after a round whose lays everyone saw, two tables that differ
    only in the cards the other seats kept give the same view and the same lay."""
    mine = cards("F5 F4 F3 F2 F1 F1 X3 GROCER")
    pile = cards("F1 F1 F2 F3 GROCER X5 F1 F2 F3 F4")
    states = []
    for others in (
        [cards("F5 F5 F4 X2 F2 F1 F3"), cards("F1 F1 F2 F2 GUARDIAN F3 F4")],
        [cards("F5 F5 F4 F1 F1 F1 F2"), cards("F1 F1 F2 X5 X2 F5 GARBAGE")],
    ):
        state = SchmausState.from_position(3, [mine, *others], pile, cards("F1 F2 HUNTER"), scores=[4, 9, 2])
        state.apply(0, "play F1 F1 F2")
        state.apply(1, "play F5 F5 F4")
        state.apply(2, "play F1 F1 F2")
        assert state.phase == "play"
        states.append(state)
    first, second = states
    assert first.view(0) == second.view(0)
    for seed in range(3):
        a = make_bot("schmaus", "hard@v4:samples=16", 0, seed).choose(
            first.view(0), first.legal_action_ids(0)
        )
        b = make_bot("schmaus", "hard@v4:samples=16", 0, seed).choose(
            second.view(0), second.legal_action_ids(0)
        )
        assert a == b


@pytest.mark.parametrize("samples", [1, 8, 64])
def test_the_budget_counts_samples(samples: int) -> None:
    """The budget is the number of sampled worlds (that it ignores the clock
    is tested for every kept version in tests/test_bots_budgets.py)."""
    assert make_bot("schmaus", f"hard@v4:samples={samples}", 0, 5).work == samples
    assert make_bot("schmaus", "hard@v4", 0, 5).work == HardBotV4.default_work == 64
