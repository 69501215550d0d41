"""Waschbär-Schmaus bots: view-only, legal, reproducible, within budget, and not silly."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spieltisch.bots import Budget, bot_class, make_bot
from spieltisch.bots.match import play_match
from spieltisch.bots.schmaus import HARD_V5, HARD_V8, EasyBot, HardBot, MediumBot
from spieltisch.bots.schmaus.model import legal_lays, round_scores, short_draws, unseen_counts
from spieltisch.engine.schmaus import actions as A
from spieltisch.engine.schmaus.cards import KIND, resolve
from spieltisch.engine.schmaus.state import SchmausState

LEVELS = ("easy", "medium", "hard")
FAST = Budget(iterations=8)


def cards(text: str) -> list[int]:
    return [KIND[c] for c in text.split()]


def lay_text(action_id: int) -> str:
    return A.from_id(action_id).to_text()


# -- the exact round arithmetic -------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.integers(2, 5), st.randoms(use_true_random=False))
def test_round_scores_agree_with_the_engines_resolve(players: int, rnd: random.Random) -> None:
    """W-7 .. W-13: the bots' fast scorer is the engine's arithmetic."""
    lays = [rnd.randrange(len(A.PLAYS)) for _ in range(players)]
    plays = [A.PLAYS[i] for i in lays]
    targets = [rnd.choice([o for o in range(players) if o != s]) for s in range(players)]
    x5 = [max((k for k in p if k < 5), default=None) for p in plays]
    result = resolve(plays, targets, x5)
    values = [0 if k is None else k + 1 for k in x5]
    assert round_scores(lays, targets, values) == list(result.individual)


@pytest.mark.parametrize("seed", range(5))
def test_bot_lays_match_the_engines_legal_lays(seed: int) -> None:
    state = SchmausState.new(4, seed)
    for seat in range(4):
        assert sorted(legal_lays(tuple(state.hands[seat]))) == sorted(state.legal_action_ids(seat))


def test_unseen_cards_are_the_draw_pile_and_the_other_hands() -> None:
    """W-3: a seat sees its own hand and the discard pile; the rest is unseen."""
    state = SchmausState.new(4, 3, {"deck": {"HUNTER": 0}})
    view = state.view(1)
    unseen = unseen_counts(view)
    others = sum(size for s, size in enumerate(view["hand_sizes"]) if s != 1)
    assert sum(unseen) == view["draw_pile_size"] + others
    assert unseen[KIND["HUNTER"]] == 0


@pytest.mark.parametrize("seed", range(6))
def test_short_hand_draws_are_read_from_the_view(seed: int) -> None:
    """W-5: what each seat drew this round for a short hand follows from the
    public hand sizes and round results, as the engine counted it."""
    state = SchmausState.new(4, seed)
    bots = [make_bot("schmaus", "easy", s, seed) for s in range(4)]
    checked = 0
    while not state.is_over():
        if state.phase == "play" and not any(state.view(0)["committed"]):
            view = state.view(0)
            for seat in range(4):
                assert short_draws(view, seat) == state.short_draws[seat]
                checked += state.short_draws[seat]
        seat = state.to_move()[0]
        state.apply_id(seat, bots[seat].choose(state.view(seat), state.legal_action_ids(seat)))
    assert checked > 0


def test_no_short_hand_draws_to_read_under_the_variant() -> None:
    """W-5 variant: a short hand lays what it can, so nothing is to be inferred."""
    state = SchmausState.new(4, 1, {"short_hand": "play-what-you-can"})
    assert short_draws(state.view(0), 1) is None


# -- decisions from the view only -------------------------------------------------


def _twin_positions() -> tuple[SchmausState, SchmausState]:
    """Two tables that differ only in what seat 0 cannot see (other hands, pile order)."""
    mine = cards("F5 F4 F3 F2 F1 F1 X3 GROCER")
    discard = cards("F1 F2 HUNTER")
    rest_a = [
        cards("F5 F5 F4 X2 F2 F1 F3"),
        cards("F1 F1 F2 F2 GUARDIAN F3 F4"),
    ]
    rest_b = [
        cards("F1 F1 F1 F2 F2 F2 F3"),
        cards("F5 F5 F4 F4 X5 X2 GARBAGE"),
    ]
    pile = cards("F1 F1 F2 F3 GROCER X5 F1 F2")
    first = SchmausState.from_position(3, [mine, *rest_a], pile, discard, scores=[4, 9, 2], round=3)
    second = SchmausState.from_position(
        3, [mine, *rest_b], list(reversed(pile)), discard, scores=[4, 9, 2], round=3
    )
    return first, second


@pytest.mark.parametrize("level", LEVELS)
def test_hidden_cards_do_not_change_a_lay(level: str) -> None:
    first, second = _twin_positions()
    assert first.view(0) == second.view(0)
    a = make_bot("schmaus", level, 0, 11).choose(first.view(0), first.legal_action_ids(0))
    b = make_bot("schmaus", level, 0, 11).choose(second.view(0), second.legal_action_ids(0))
    assert a == b


@pytest.mark.parametrize("level", LEVELS)
def test_hidden_cards_do_not_change_a_grocer_target(level: str) -> None:
    """W-9: the target is picked knowing the revealed lays; the unplayed cards
    of the others and the pile order stay hidden."""
    mine = cards("F5 F4 GROCER F1 F1")
    pile = cards("F1 F2 F3 X5 F2")
    states = []
    for others in (
        [cards("F5 F5 F4 F1 F2"), cards("F1 F1 F2 F3 F3")],
        [cards("F5 F5 F4 X2 GARBAGE"), cards("F1 F1 F2 GUARDIAN F4")],
    ):
        state = SchmausState.from_position(3, [mine, *others], pile, cards("F1"), scores=[3, 8, 1])
        state.apply(0, "play F5 F4 GROCER")
        state.apply(1, "play F5 F5 F4")
        state.apply(2, "play F1 F1 F2")
        assert state.phase == "target"
        states.append(state)
        pile = list(reversed(pile))
    first, second = states
    assert first.view(0) == second.view(0)
    a = make_bot("schmaus", level, 0, 5).choose(first.view(0), first.legal_action_ids(0))
    b = make_bot("schmaus", level, 0, 5).choose(second.view(0), second.legal_action_ids(0))
    assert a == b
    assert a in first.legal_action_ids(0)


# -- legal, reproducible, within budget --------------------------------------------

OPTION_SETS: list[dict[str, Any] | None] = [
    None,
    {"short_hand": "play-what-you-can"},
    {"hunter_draw": "nobody"},
    {"deck": {"HUNTER": 0}},
    {"hand_limit": 8, "loser_draws": 4, "rounds": 4},
]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("options", OPTION_SETS)
def test_every_decision_is_legal_over_whole_games(players: int, options: dict[str, Any] | None) -> None:
    seed = players * 10 + OPTION_SETS.index(options)
    specs = [("hard", "medium", "easy", "hard", "medium")[s] for s in range(players)]
    bots = [make_bot("schmaus", spec, s, seed, FAST) for s, spec in enumerate(specs)]
    result = play_match("schmaus", bots, seed, options)
    assert result.state.is_over()
    assert result.faults == [0] * players, result.fault_messages


def test_same_seed_same_decisions() -> None:
    def record(seed: int) -> list[Any]:
        bots = [make_bot("schmaus", level, s, seed) for s, level in enumerate(("easy", "medium", "hard"))]
        return list(play_match("schmaus", bots, 4).state.record().actions)

    random.seed(1)
    first = record(7)
    random.seed(2)
    assert record(7) == first


@pytest.mark.parametrize("version", ["hard@v8", "hard@v5"])
def test_hard_keeps_to_a_wall_clock_cap(version: str) -> None:
    """A million samples would take minutes: the 0.05 s cap stops the search
    long before half a second."""
    state = SchmausState.from_position(
        4,
        [cards("F1 F2 F3 F4 F5 F5 X2 X3 X5 GROCER GARBAGE GUARDIAN"), *[cards("F1 F2 F3 F4 F1 F1 F2")] * 3],
        cards("F1 F2 F3 F1 F2"),
        [],
    )
    legal = state.legal_action_ids(0)
    assert len(legal) > 70
    bot = make_bot("schmaus", version, 0, 1, Budget(seconds=0.05, iterations=10**6))
    start = time.perf_counter()
    assert bot.choose(state.view(0), legal) in legal
    assert time.perf_counter() - start < 0.5


# -- the kept versions: the default and the baseline ---------------------------------

KEPT = [("hard@v8", HARD_V8), ("hard@v5", HARD_V5), ("hard@baseline", HARD_V5), ("hard", HARD_V8)]
"""Each kept hard version (tests/test_bots_schmaus_pile.py and
tests/test_bots_schmaus_value.py test what is particular to each)."""


@pytest.mark.parametrize(("version", "config"), KEPT)
def test_a_kept_version_plays_whole_games_legally(version: str, config: object) -> None:
    assert bot_class("schmaus", version) is HardBot
    for players in (2, 3, 5):
        specs = [f"{version}:samples=8" if s == 0 else "medium" for s in range(players)]
        bots = [make_bot("schmaus", spec, s, players) for s, spec in enumerate(specs)]
        assert isinstance(bots[0], HardBot) and bots[0].config is config
        result = play_match("schmaus", bots, players, {"hand_limit": 8, "loser_draws": 4})
        assert result.state.is_over()
        assert result.faults == [0] * players, result.fault_messages


@pytest.mark.parametrize(("version", "config"), KEPT)
def test_a_kept_version_makes_the_same_decisions_for_the_same_seed(version: str, config: object) -> None:
    def record() -> list[Any]:
        specs = (f"{version}:samples=8", "medium", "hard@v5:samples=8", "medium")
        bots = [make_bot("schmaus", spec, s, 9) for s, spec in enumerate(specs)]
        return list(play_match("schmaus", bots, 9).state.record().actions)

    random.seed(1)
    first = record()
    random.seed(2)
    assert record() == first


@pytest.mark.parametrize(("version", "config"), KEPT)
def test_a_kept_versions_budget_counts_samples(version: str, config: object) -> None:
    """The budget is the number of samples (that it ignores the clock is
    tested for every kept version in tests/test_bots_budgets.py)."""
    assert make_bot("schmaus", f"{version}:samples=8", 0, 5).work == 8
    assert make_bot("schmaus", version, 0, 5).work == HardBot.default_work


def _twin_positions_after_a_round() -> tuple[SchmausState, SchmausState]:
    """After a round whose lays everyone saw, two tables that differ only in the
    cards the other seats kept."""
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
    assert first.view(0)["round_results"]
    return first, second


@pytest.mark.parametrize(
    ("version", "twins"),
    [
        ("hard@v5", _twin_positions),
        ("hard@v5", _twin_positions_after_a_round),
        ("hard@v8", _twin_positions),
        ("hard@v8", _twin_positions_after_a_round),
    ],
)
def test_hidden_cards_do_not_change_a_kept_versions_lay(
    version: str, twins: Callable[[], tuple[SchmausState, SchmausState]]
) -> None:
    """W-3: the same view gives the same lay, for each of three seeds."""
    first, second = twins()
    assert first.view(0) == second.view(0)
    for seed in range(3):
        a = make_bot("schmaus", f"{version}:samples=16", 0, seed).choose(
            first.view(0), first.legal_action_ids(0)
        )
        b = make_bot("schmaus", f"{version}:samples=16", 0, seed).choose(
            second.view(0), second.legal_action_ids(0)
        )
        assert a == b


# -- sensible play ---------------------------------------------------------------


@pytest.mark.parametrize("cls", [MediumBot, HardBot])
def test_takes_the_obviously_winning_lay_in_the_last_round(cls: type[MediumBot | HardBot]) -> None:
    """Last round, nothing to save: F5 F5 X3 (3 × 10 + 3 = 33) beats any lay the
    unseen cards allow (no ×2 raccoon, hunter or second ×3 left)."""
    state = SchmausState.from_position(
        3,
        [cards("F5 F5 F1 F1 X3 F2"), cards("F1 F2 F3 F4"), cards("F1 F1 F2 F2")],
        cards("F1 F2 F3"),
        cards("X2 X2 HUNTER HUNTER X3 GUARDIAN GUARDIAN"),
        scores=[10, 10, 10],
        round=9,
    )
    bot = cls("schmaus", 0, 3)
    assert lay_text(bot.choose(state.view(0), state.legal_action_ids(0))) == "play F5 F5 X3"


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_grocer_hits_the_likely_winner_and_x5_the_best_card(level: str) -> None:
    state = SchmausState.from_position(
        3,
        [cards("F1 F2 GROCER F1"), cards("F5 F4 X5 F1"), cards("F1 F1 F2 F3")],
        cards("F1 F2 F3 F1 F2 F3"),
        [],
    )
    state.apply(0, "play F1 F2 GROCER")
    state.apply(1, "play F5 F4 X5")
    state.apply(2, "play F1 F1 F2")
    grocer = make_bot("schmaus", level, 0, 1)
    times5 = make_bot("schmaus", level, 1, 1)
    assert state.action_from_id(grocer.choose(state.view(0), state.legal_action_ids(0))).to_text() == (
        "target 1"
    )
    assert state.action_from_id(times5.choose(state.view(1), state.legal_action_ids(1))).to_text() == (
        "x5 F5"
    )


@pytest.mark.parametrize("cls", [EasyBot, MediumBot, HardBot])
def test_discards_the_weakest_card(cls: type[EasyBot | MediumBot | HardBot]) -> None:
    """W-16: over the hand limit, a plain F1 goes first."""
    hand = cards("F1 F2 F3 F4 F5 X3 X5 X2 GUARDIAN GROCER F4 F5 F3 F2")
    state = SchmausState.from_position(2, [hand, cards("F1 F2 F3")], cards("F1 F1"), [])
    assert state.phase == "discard"
    legal = state.legal_action_ids(0)
    choice = cls("schmaus", 0, 2).choose(state.view(0), legal)
    assert state.action_from_id(choice).to_text() == "discard F1"
