"""Waschbär-Schmaus hard@v2: its play-outs follow the rules, it decides from the
view only, reproducibly, and its budget is counted in work."""

from __future__ import annotations

import random
import time

import pytest

from spieltisch.bots import Budget, bot_class, make_bot
from spieltisch.bots.schmaus import model_choices
from spieltisch.bots.schmaus_rollout import HardBotV2, Rules, Table
from spieltisch.engine.schmaus import actions as A
from spieltisch.engine.schmaus.cards import KIND
from spieltisch.engine.schmaus.state import SchmausState
from spieltisch.match import play_match

FAST = "hard@v2:samples=8"


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


def test_hard_at_v2_is_kept_and_plays_whole_games_legally() -> None:
    assert bot_class("schmaus", "hard@v2") is HardBotV2
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
    """W-3: two tables that differ only in the other hands and the pile order."""
    mine = cards("F5 F4 F3 F2 F1 F1 X3 GROCER")
    discard = cards("F1 F2 HUNTER")
    pile = cards("F1 F1 F2 F3 GROCER X5 F1 F2")
    first = SchmausState.from_position(
        3,
        [mine, cards("F5 F5 F4 X2 F2 F1 F3"), cards("F1 F1 F2 F2 GUARDIAN F3 F4")],
        pile,
        discard,
        scores=[4, 9, 2],
        round=3,
    )
    second = SchmausState.from_position(
        3,
        [mine, cards("F1 F1 F1 F2 F2 F2 F3"), cards("F5 F5 F4 F4 X5 X2 GARBAGE")],
        list(reversed(pile)),
        discard,
        scores=[4, 9, 2],
        round=3,
    )
    assert first.view(0) == second.view(0)
    for seed in range(3):
        a = make_bot("schmaus", "hard@v2:samples=16", 0, seed).choose(
            first.view(0), first.legal_action_ids(0)
        )
        b = make_bot("schmaus", "hard@v2:samples=16", 0, seed).choose(
            second.view(0), second.legal_action_ids(0)
        )
        assert a == b


def test_the_budget_counts_samples() -> None:
    """The budget is the number of samples (that it ignores the clock is
    tested for every kept version in tests/test_bots_budgets.py)."""
    assert make_bot("schmaus", FAST, 0, 5).work == 8
    assert make_bot("schmaus", "hard@v2", 0, 5).work == HardBotV2.default_work


def test_takes_the_obviously_winning_lay_in_the_last_round() -> None:
    state = SchmausState.from_position(
        3,
        [cards("F5 F5 F1 F1 X3 F2"), cards("F1 F2 F3 F4"), cards("F1 F1 F2 F2")],
        cards("F1 F2 F3"),
        cards("X2 X2 HUNTER HUNTER X3 GUARDIAN GUARDIAN"),
        scores=[10, 10, 10],
        round=9,
    )
    bot = HardBotV2("schmaus", 0, 3)
    assert (
        state.action_from_id(bot.choose(state.view(0), state.legal_action_ids(0))).to_text()
        == "play F5 F5 X3"
    )


def test_keeps_to_a_wall_clock_cap() -> None:
    state = SchmausState.from_position(
        4,
        [cards("F1 F2 F3 F4 F5 F5 X2 X3 X5 GROCER GARBAGE GUARDIAN"), *[cards("F1 F2 F3 F4 F1 F1 F2")] * 3],
        cards("F1 F2 F3 F1 F2"),
        [],
    )
    legal = state.legal_action_ids(0)
    bot = HardBotV2("schmaus", 0, 1, Budget(seconds=0.05, iterations=10**6))
    start = time.perf_counter()
    assert bot.choose(state.view(0), legal) in legal
    assert time.perf_counter() - start < 1.0  # a million samples would take hours
