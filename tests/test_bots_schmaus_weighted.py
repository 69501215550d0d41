"""Waschbär-Schmaus hard@v3: worlds weighted by the opponents' revealed lays. That it
plays legally, decides from the view only, reproducibly and within its budget is tested
with the other kept versions in tests/test_bots_schmaus.py."""

from __future__ import annotations

import random

import pytest

from spieltisch.bots import Budget, make_bot
from spieltisch.bots.schmaus import OpponentModel, legal_lays
from spieltisch.bots.schmaus_weighted import HardBotV3
from spieltisch.engine.schmaus import actions as A
from spieltisch.engine.schmaus.cards import KIND
from spieltisch.match import play_match


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
