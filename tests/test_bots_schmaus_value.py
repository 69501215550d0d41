"""Waschbär-Schmaus hard@v5 and hard@v6: the fitted value of a position, used from the view only."""

from __future__ import annotations

import pytest

from spieltisch.bots import make_bot
from spieltisch.bots.schmaus import HardBot
from spieltisch.bots.schmaus_value import (
    COEFFICIENTS,
    COEFFICIENTS_V6,
    COEFFICIENTS_V7,
    HardBotV5,
    HardBotV6,
    HardBotV7,
    _SearchV7,
    effect_counts,
    features,
    value,
)
from spieltisch.engine.schmaus.cards import KIND
from spieltisch.engine.schmaus.state import SchmausState
from spieltisch.match import play_match


def cards(text: str) -> list[int]:
    return [KIND[c] for c in text.split()]


def _four_player_twins() -> tuple[SchmausState, SchmausState]:
    """Two 4-player tables that differ only in what seat 0 cannot see."""
    mine = cards("F5 F4 F3 F2 F1 F1 X3 GROCER")
    discard = cards("F1 F2 HUNTER")
    pile = cards("F1 F1 F2 F3 GROCER X5 F1 F2 F4 F3")
    rest_a = [
        cards("F5 F5 F4 X2 F2 F1 F3"),
        cards("F1 F1 F2 F2 GUARDIAN F3 F4"),
        cards("F1 F2 F2 F3 F1 X3 F1"),
    ]
    rest_b = [
        cards("F1 F1 F1 F2 F2 F2 F3"),
        cards("F5 F5 F4 F4 X5 X2 GARBAGE"),
        cards("F2 F3 F1 F1 F2 F3 F1"),
    ]
    first = SchmausState.from_position(4, [mine, *rest_a], pile, discard, scores=[4, 9, 2, 6], round=3)
    second = SchmausState.from_position(
        4, [mine, *rest_b], list(reversed(pile)), discard, scores=[4, 9, 2, 6], round=3
    )
    return first, second


TABLES = [COEFFICIENTS, COEFFICIENTS_V6]


@pytest.mark.parametrize(
    ("table", "inputs"), [(COEFFICIENTS, 9), (COEFFICIENTS_V6, 9), (COEFFICIENTS_V7, 16)]
)
def test_the_value_is_fitted_for_every_round_but_the_last(
    table: dict[int, tuple[float, ...]], inputs: int
) -> None:
    assert set(table) == set(range(1, 12))
    assert all(len(w) == inputs for w in table.values())


def test_v7s_extra_inputs_are_the_effect_cards_kept_plus_the_expected_draws() -> None:
    """For each lay: the effect cards left in the hand after it, plus the
    unseen cards' share of each effect kind times the cards expected drawn."""
    state, _ = _four_player_twins()
    view = state.view(0)
    lays = list(state.legal_action_ids(0))
    bot = HardBotV7("schmaus", 0, 3)
    search = bot._prepare(view, lays)
    assert isinstance(search, _SearchV7)
    assert len(search.effect_share) == 7 and 0 < sum(search.effect_share) < 1
    hand = cards("F5 F4 F3 F2 F1 F1 X3 GROCER")
    counts = [hand.count(k) for k in range(12)]
    for lay in lays:
        assert bot._extra_inputs(search, lay, 0.0) == search.effects_after[lay]
        drawn = bot._extra_inputs(search, lay, 2.0)
        assert drawn == pytest.approx(
            [c + 2 * p for c, p in zip(search.effects_after[lay], search.effect_share, strict=True)]
        )
    assert effect_counts(counts) == [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0]
    assert HardBotV5("schmaus", 0, 3)._extra_inputs(search, lays[0], 2.0) == []


def test_v6_keeps_v5s_value_and_search_with_its_own_weights() -> None:
    assert HardBotV5.coefficients is COEFFICIENTS
    assert HardBotV6.coefficients is COEFFICIENTS_V6
    assert COEFFICIENTS_V6 != COEFFICIENTS
    assert issubclass(HardBotV6, HardBotV5)


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("left", [1, 4, 11])
def test_a_bigger_lead_is_worth_more(left: int, table: dict[int, tuple[float, ...]]) -> None:
    def x(lead: float) -> list[float]:
        return features(0, [50 + lead, 50, 45, 40], [20, 20, 20, 20], [5, 5, 5, 5], 30)

    chances = [value(left, x(lead), table) for lead in (-20, 0, 20)]
    assert 0 < chances[0] < chances[1] < chances[2] < 1


@pytest.mark.parametrize("version", ["hard@v5", "hard@v6", "hard@v7"])
def test_hidden_cards_do_not_change_the_lay(version: str) -> None:
    """W-3: in a 4-player game (where the fitted value is used) the same view
    gives the same lay, for each of three seeds."""
    first, second = _four_player_twins()
    assert first.view(0) == second.view(0)
    for seed in range(3):
        a = make_bot("schmaus", f"{version}:samples=16", 0, seed).choose(
            first.view(0), first.legal_action_ids(0)
        )
        b = make_bot("schmaus", f"{version}:samples=16", 0, seed).choose(
            second.view(0), second.legal_action_ids(0)
        )
        assert a == b


@pytest.mark.parametrize("cls", [HardBotV5, HardBotV6, HardBotV7])
def test_lays_are_scored_by_the_fitted_value_with_four_players(cls: type[HardBotV5]) -> None:
    """The fitted value replaces v1's objective (in 4-player games): the
    summed values differ from v1's on the same samples, and each mean is a
    chance."""
    state, _ = _four_player_twins()
    view = state.view(0)
    lays = [i for i in state.legal_action_ids(0)]
    fitted, _ = cls("schmaus", 0, 3)._search(view, lays)
    v1, _ = HardBot("schmaus", 0, 3)._search(view, lays)
    assert fitted != v1
    assert all(0 <= t / cls.default_work <= 1 for t in fitted.values())


def test_v6s_weights_change_v5s_estimates() -> None:
    """The same samples (same seed), other weights: other estimates."""
    state, _ = _four_player_twins()
    view = state.view(0)
    lays = [i for i in state.legal_action_ids(0)]
    v6, _ = HardBotV6("schmaus", 0, 3)._search(view, lays)
    v5, _ = HardBotV5("schmaus", 0, 3)._search(view, lays)
    assert v6.keys() == v5.keys()
    assert v6 != v5


@pytest.mark.parametrize("version", ["hard@v5", "hard@v6", "hard@v7"])
@pytest.mark.parametrize(
    ("players", "options"), [(3, None), (4, {"loser_draws": 3}), (4, {"hand_limit": 10})]
)
def test_plays_as_v1_where_the_value_was_not_fitted(
    version: str, players: int, options: dict[str, int] | None
) -> None:
    """Other table sizes and rule options than the fit's: v1's objective, so
    the same game as hard@v1 from the same seeds."""

    def record(name: str) -> list[object]:
        specs = [f"{name}:samples=8" if s == 0 else "medium" for s in range(players)]
        bots = [make_bot("schmaus", spec, s, 4) for s, spec in enumerate(specs)]
        return list(play_match("schmaus", bots, 4, options).state.record().actions)

    assert record(version) == record("hard@v1")


@pytest.mark.parametrize("version", ["hard@v5", "hard@v6", "hard@v7"])
def test_differs_from_v1_at_four_players_with_the_default_rules(version: str) -> None:
    """The check above can fail: with the fitted value the games differ."""

    def record(name: str, seed: int) -> list[object]:
        specs = [f"{name}:samples=8" if s == 0 else "medium" for s in range(4)]
        bots = [make_bot("schmaus", spec, s, seed) for s, spec in enumerate(specs)]
        return list(play_match("schmaus", bots, seed).state.record().actions)

    assert any(record(version, seed) != record("hard@v1", seed) for seed in range(4))
