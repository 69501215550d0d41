"""Waschbär-Schmaus hard@v4: opponents modelled with medium's own picture of
the unseen cards, tuned weights. What every kept hard version must do (legal whole
games, same seed same decisions, budget in samples, hidden cards) is tested for v4
too in tests/test_bots_schmaus.py; here what is particular to v4."""

from __future__ import annotations

import pytest

from spieltisch.bots import make_bot
from spieltisch.bots.schmaus import HardBot
from spieltisch.bots.schmaus_tuned import HardBotV4
from spieltisch.match import play_match


def test_without_the_medium_models_and_with_v1_weights_it_plays_v1s_games() -> None:
    """The medium models and the weights are the only changes to v1's search:
    with both as in v1 every decision is v1's; either changed, the games differ."""

    class Plain(HardBotV4):
        models = 0
        card_weight = HardBot.card_weight
        draw_weight = HardBot.draw_weight
        short_draw = HardBot.short_draw
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


@pytest.mark.parametrize("samples", [1, 8, 64])
def test_the_budget_counts_samples(samples: int) -> None:
    """The budget is the number of sampled worlds (that it ignores the clock
    is tested for every kept version in tests/test_bots_budgets.py)."""
    assert make_bot("schmaus", f"hard@v4:samples={samples}", 0, 5).work == samples
    assert make_bot("schmaus", "hard@v4", 0, 5).work == HardBotV4.default_work == 64
