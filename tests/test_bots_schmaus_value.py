"""Waschbär-Schmaus hard (hard@v5 on): the fitted value of a position, used from the view only."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from spieltisch.bots import make_bot
from spieltisch.bots.match import play_match
from spieltisch.bots.schmaus import bots as schmaus_bots
from spieltisch.bots.schmaus.value import COEFFICIENTS, features, value
from spieltisch.engine.schmaus.cards import KIND
from spieltisch.engine.schmaus.state import SchmausState


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


def test_the_value_is_fitted_for_every_round_but_the_last() -> None:
    assert set(COEFFICIENTS) == set(range(1, 12))
    assert all(len(w) == 9 for w in COEFFICIENTS.values())


@pytest.mark.parametrize("left", [1, 4, 11])
def test_a_bigger_lead_is_worth_more(left: int) -> None:
    def x(lead: float) -> list[float]:
        return features(0, [50 + lead, 50, 45, 40], [20, 20, 20, 20], [5, 5, 5, 5], 30)

    chances = [value(left, x(lead)) for lead in (-20, 0, 20)]
    assert 0 < chances[0] < chances[1] < chances[2] < 1


@pytest.mark.parametrize("version", ["hard@v5", "hard@v8"])
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


def _valued_lays(
    monkeypatch: pytest.MonkeyPatch, version: str, players: int, options: dict[str, int] | None
) -> list[float]:
    """The fitted values hard's lays got over one game of ``version`` against medium."""
    seen: list[float] = []

    def counting(left: int, x: Sequence[float]) -> float:
        seen.append(value(left, x))
        return seen[-1]

    monkeypatch.setattr(schmaus_bots, "value", counting)
    specs = [f"{version}:samples=8" if s == 0 else "medium" for s in range(players)]
    bots = [make_bot("schmaus", spec, s, 4) for s, spec in enumerate(specs)]
    assert play_match("schmaus", bots, 4, options).state.is_over()
    return seen


@pytest.mark.parametrize("version", ["hard@v5", "hard@v8"])
def test_lays_are_scored_by_the_fitted_value_with_four_players(
    version: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 4 players under the default rules the lays are scored by the fitted
    value, each a chance."""
    seen = _valued_lays(monkeypatch, version, 4, None)
    assert seen and all(0 < v < 1 for v in seen)


@pytest.mark.parametrize("version", ["hard@v5", "hard@v8"])
@pytest.mark.parametrize(
    ("players", "options"), [(3, None), (4, {"loser_draws": 3}), (4, {"hand_limit": 10})]
)
def test_the_plain_objective_where_the_value_was_not_fitted(
    version: str, players: int, options: dict[str, int] | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Other table sizes and rule options than the fit's: the plain objective."""
    assert _valued_lays(monkeypatch, version, players, options) == []
