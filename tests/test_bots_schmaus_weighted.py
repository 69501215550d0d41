"""Waschbär-Schmaus hard@v3: worlds weighted by the opponents' revealed lays;
it decides from the view only, reproducibly, and its budget is counted in work."""

from __future__ import annotations

import random

import pytest

from spieltisch.bots import Budget, bot_class, make_bot
from spieltisch.bots.schmaus import OpponentModel, legal_lays
from spieltisch.bots.schmaus_weighted import HardBotV3
from spieltisch.engine.schmaus import actions as A
from spieltisch.engine.schmaus.cards import KIND
from spieltisch.engine.schmaus.state import SchmausState
from spieltisch.match import play_match

FAST = "hard@v3:samples=8"


def cards(text: str) -> list[int]:
    return [KIND[c] for c in text.split()]


def counts(text: str) -> list[int]:
    out = [0] * 12
    for k in cards(text):
        out[k] += 1
    return out


@pytest.mark.parametrize("hand", ["F5 F4 F3 F2 F1 X3 GROCER", "F1 F1 F2 X2 GUARDIAN", "F1 F2"])
def test_the_likelihood_is_a_distribution_over_the_legal_lays(hand: str) -> None:
    """W-4, W-5: it sums to 1 over the lays the hand allows, is 0 for any
    other lay, and ranks medium's own lay first."""
    bot = HardBotV3("schmaus", 1, 3)
    model = OpponentModel(counts("F1 F1 F2 F3 F4 F5 X2 X5 GARBAGE HUNTER"), 7, 4, 24, random.Random(0))
    gain = {i: model.gain(i) for i in range(len(A.PLAYS))}
    before = counts(hand)
    legal = legal_lays(tuple(before))
    odds = {i: bot.likelihood(before, i, gain) for i in legal}
    assert sum(odds.values()) == pytest.approx(1.0)
    assert min(odds.values()) >= bot.epsilon / len(legal) - 1e-12
    assert max(odds, key=lambda i: (odds[i], -i)) == max(legal, key=lambda i: (gain[i], -i))
    outside = next(i for i in range(len(A.PLAYS)) if i not in legal)
    assert bot.likelihood(before, outside, gain) == 0.0


def test_hard_at_v3_is_kept_and_plays_whole_games_legally() -> None:
    assert bot_class("schmaus", "hard@v3") is HardBotV3
    for players in (2, 3, 5):
        bots = [make_bot("schmaus", FAST if s == 0 else "medium", s, players) for s in range(players)]
        result = play_match("schmaus", bots, players, {"hand_limit": 8, "loser_draws": 4})
        assert result.state.is_over()
        assert result.faults == [0] * players, result.fault_messages


def test_same_seed_same_decisions() -> None:
    def record() -> list[object]:
        bots = [
            make_bot("schmaus", spec, s, 9) for s, spec in enumerate((FAST, "medium", "hard@v1", "medium"))
        ]
        return list(play_match("schmaus", bots, 9).state.record().actions)

    random.seed(1)
    first = record()
    random.seed(2)
    assert record() == first


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
    assert first.view(0)["round_results"]
    for seed in range(3):
        a = make_bot("schmaus", "hard@v3:samples=16", 0, seed).choose(
            first.view(0), first.legal_action_ids(0)
        )
        b = make_bot("schmaus", "hard@v3:samples=16", 0, seed).choose(
            second.view(0), second.legal_action_ids(0)
        )
        assert a == b


def test_the_budget_counts_samples() -> None:
    """The budget is the number of samples (that it ignores the clock is
    tested for every kept version in tests/test_bots_budgets.py)."""
    assert make_bot("schmaus", FAST, 0, 5).work == 8
    assert make_bot("schmaus", "hard@v3", 0, 5).work == HardBotV3.default_work


def test_resampled_worlds_are_reproducible_and_legal() -> None:
    """With candidate worlds (:attr:`HardBotV3.candidates`), the samples are
    drawn from them by weight; still one answer per seed and view."""

    class Resampling(HardBotV3):
        candidates = 4

    bots = [Resampling("schmaus", 0, 2, Budget(iterations=8))] + [
        make_bot("schmaus", "medium", s, 2) for s in (1, 2, 3)
    ]
    first = play_match("schmaus", bots, 2)
    assert first.faults == [0] * 4, first.fault_messages
    bots = [Resampling("schmaus", 0, 2, Budget(iterations=8))] + [
        make_bot("schmaus", "medium", s, 2) for s in (1, 2, 3)
    ]
    assert list(play_match("schmaus", bots, 2).state.history) == list(first.state.history)
