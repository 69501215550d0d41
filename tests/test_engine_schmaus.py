"""Waschbär-Schmaus rulings that the scenario files cannot express: the round
count (W-2, with its variants), the deal (W-3), rule option errors, error
messages naming rulings, and what views show."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from itertools import combinations
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spieltisch.engine import GameOverError, IllegalActionError, OptionsError, State, get_game
from spieltisch.engine.schmaus import SchmausState, resolve
from spieltisch.engine.schmaus.cards import DECK, KIND, round_record, score_round

SCHMAUS = get_game("schmaus")


def k(*names: str) -> list[int]:
    return [KIND[n] for n in names]


def finish(state: State, seed: int = 0) -> None:
    rng = random.Random(seed)
    while not state.is_over():
        seat = state.to_move()[0]
        state.apply_id(seat, rng.choice(state.legal_action_ids(seat)))


# -- W-1 .. W-3: players, rounds, deal ----------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_default_rounds_and_deal(players: int) -> None:  # W-2, W-3
    for seed in range(5):
        state = SCHMAUS.new_state(players, seed)
        assert isinstance(state, SchmausState)
        assert state.rounds == 3 * players
        view = state.view(None)
        assert view["rounds"] == 3 * players and view["round"] == 1
        assert sum(view["hand_sizes"]) + view["draw_pile_size"] == 54
        assert view["discard"] == [] and view["scores"] == [0] * players


def test_the_deal_gives_seven_unless_a_short_hand_draws() -> None:  # W-3, W-5
    for seed in range(20):
        state = SCHMAUS.new_state(3, seed)
        assert isinstance(state, SchmausState)
        for seat, size in enumerate(state.view(None)["hand_sizes"]):
            assert size == 7 + state.short_draws[seat]


@pytest.mark.parametrize("players", [1, 6, 0])
def test_player_count_names_w1(players: int) -> None:
    with pytest.raises(OptionsError, match=rf"2 to 5 players, not {players} \(W-1\)"):
        SCHMAUS.new_state(players, 1)


def test_draw_variant_rounds_are_three_times_a_food_value() -> None:  # W-2 variant
    seen = set()
    for seed in range(60):
        state = SCHMAUS.new_state(3, seed, {"rounds": "draw"})
        assert isinstance(state, SchmausState)
        assert state.rounds in (3, 6, 9, 12, 15)
        seen.add(state.rounds)
        assert len(state.card_locations()) == 54  # all 54 shuffled again
    assert {3, 6} <= seen and len(seen) >= 3  # mostly 1s and 2s in the deck, but not only


@pytest.mark.parametrize(("food", "rounds"), [("F1", 3), ("F2", 6), ("F3", 9), ("F4", 12), ("F5", 15)])
def test_draw_variant_uses_the_first_food_card(food: str, rounds: int) -> None:  # W-2 variant
    deck = {f: 0 for f in ("F1", "F2", "F3", "F4", "F5") if f != food} | {food: 10}
    for seed in range(5):
        assert SCHMAUS.new_state(2, seed, {"rounds": "draw", "deck": deck}).rounds == rounds  # type: ignore[attr-defined]


def test_draw_variant_shuffles_again_after_the_reveal() -> None:  # W-2 variant
    plain = SCHMAUS.new_state(2, 7)
    drawn = SCHMAUS.new_state(2, 7, {"rounds": "draw"})
    assert plain.hands != drawn.hands  # type: ignore[attr-defined]


def test_fixed_rounds_play_exactly_that_many() -> None:  # W-2 variant, W-18
    state = SCHMAUS.new_state(3, 2, {"rounds": 4})
    assert isinstance(state, SchmausState)
    finish(state)
    assert len(state.results) == 4 and state.round == 4


# -- options -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"jokers": 1}, "unknown rule option(s) 'jokers'; known: rounds, short_hand"),
        ({"rounds": 0}, "option 'rounds' must be a whole number from 1 to 1000, 3x-players or draw, not 0"),
        ({"rounds": "3x"}, "option 'rounds' must be a whole number"),
        ({"rounds": True}, "option 'rounds' must be a whole number"),
        ({"short_hand": "draw"}, "option 'short_hand' must be one of draw-until-playable, play-what-you-can"),
        ({"hunter_draw": "all"}, "option 'hunter_draw' must be one of everybody, nobody"),
        ({"hand_limit": 2}, "option 'hand_limit' must be a whole number from 3 to 54, not 2"),
        ({"hand_size": 13}, "option 'hand_size' must be a whole number from 0 to 12, not 13"),
        ({"loser_draws": -1}, "option 'loser_draws' must be a whole number from 0 to 54"),
        ({"refill_to": 20}, "option 'refill_to' must be a whole number from 0 to 12"),
        ({"deck": ["F1"]}, "option 'deck' must map card ids to counts"),
        ({"deck": {"JOKER": 1}}, "option 'deck' names unknown card id(s) 'JOKER'"),
        ({"deck": {"F1": -1}}, "option 'deck.F1' must be a whole number from 0 to 100"),
        ({"deck": {n: 0 for n in DECK}}, "impossible deck: 0 cards cannot deal 7 to each of 3 players"),
        (
            {"rounds": "draw", "deck": {"F1": 0, "F2": 0, "F3": 0, "F4": 0, "F5": 0, "X3": 20}},
            "needs at least one food",
        ),
    ],
)
def test_bad_options_are_refused_with_a_clear_message(options: dict[str, Any], message: str) -> None:
    with pytest.raises(OptionsError) as info:
        SCHMAUS.new_state(3, 1, options)
    assert message in str(info.value)


def test_options_not_an_object() -> None:
    with pytest.raises(OptionsError, match="rule options must be an object"):
        SCHMAUS.normalize_options([("rounds", 3)])  # type: ignore[arg-type]


def test_options_are_filled_in_and_kept_in_the_record() -> None:
    options = SCHMAUS.normalize_options({"hunter_draw": "nobody"})
    assert (
        options["hunter_draw"] == "nobody"
        and options["hand_limit"] == 12
        and options["rounds"] == "3x-players"
    )
    state = SCHMAUS.new_state(2, 3, {"hunter_draw": "nobody"})
    assert state.record().options == options
    assert state.view(0)["options"] == options


def test_a_custom_deck_changes_the_counts() -> None:
    state = SCHMAUS.new_state(2, 3, {"deck": {"HUNTER": 1, "F5": 5}})
    cards = state.card_locations()  # type: ignore[attr-defined]
    assert cards.count(KIND["HUNTER"]) == 1 and cards.count(KIND["F5"]) == 5 and len(cards) == 55


# -- errors name the ruling --------------------------------------------------------------------


def table(hands: list[list[str]], draw: list[str] | None = None, **options: Any) -> SchmausState:
    return SchmausState.from_position(
        len(hands), [k(*h) for h in hands], k(*(draw or ["F1"] * 6)), [], options or None, rounds=3
    )


@pytest.mark.parametrize(
    ("state", "steps", "ruling"),
    [
        (
            table([["F5", "X3", "X2", "F1"], ["F1"] * 3]),
            [(0, "play F5 X3 X2")],
            "W-4: never two effect cards",
        ),
        (table([["F5", "F4", "F1", "F1"], ["F1"] * 3]), [(0, "play F5 F4")], "W-4: lay exactly 3 cards"),
        (
            table([["F5", "F4", "F1", "F1"], ["F1"] * 3]),
            [(0, "play F5 F5 F4")],
            "W-4: you hold 1 × F5, not 2",
        ),
        (
            table([["F5", "X3"], ["F1"] * 3], draw=[], short_hand="play-what-you-can"),
            [(0, "play -")],
            "W-5: you cannot lay 3 food or 2 food and 1 effect",
        ),
        (
            table([["F5", "F4", "GROCER", "F1"], ["F1"] * 4, ["F2"] * 4]),
            [(0, "play F5 F4 GROCER"), (1, "play F1 F1 F1"), (2, "play F2 F2 F2"), (0, "target 0")],
            "W-9: the grocer must pick an opponent",
        ),
        (
            table([["F5", "F4", "X5", "F1"], ["F1"] * 4]),
            [(0, "play F5 F4 X5"), (1, "play F1 F1 F1"), (0, "x5 F1")],
            "W-11: the ×5 raccoon multiplies one of your own laid food cards; you laid F4 F5 X5",
        ),
        (
            table([["F5", "F4", "F1", "F1"], ["F1"] * 4]),
            [(0, "play F5 F4 F1"), (1, "play F1 F1 F1"), (1, "target 0")],
            "W-9: only a player whose grocer counts picks a target now",
        ),
        (
            table([["F5", "F4", "F1", "F1"], ["F1"] * 4]),
            [(0, "discard F1")],
            "W-16: only a player over the hand",
        ),
        (
            table([["F1", "X3", "X2", "X5", "HUNTER"], ["F3"] * 4], draw=["F2"], hand_limit=5, hand_size=5),
            [(0, "discard F1")],
            "W-5: after the short-hand draws you must keep a legal play",
        ),
    ],
)
def test_illegal_actions_name_the_ruling(
    state: SchmausState, steps: list[tuple[int, str]], ruling: str
) -> None:
    *good, (seat, last) = steps
    for s, action in good:
        state.apply(s, action)
    before = state.to_json()
    with pytest.raises(IllegalActionError) as info:
        state.apply(seat, last)
    assert str(info.value).startswith(ruling)
    assert info.value.ruling == ruling.split(":")[0]
    assert state.to_json() == before


def test_no_action_after_the_game() -> None:
    state = SCHMAUS.new_state(2, 1, {"rounds": 1})
    finish(state)
    with pytest.raises(GameOverError, match="the game is over"):
        state.apply(0, "play F1 F1 F1")


# -- views ----------------------------------------------------------------------------------


def test_lays_are_secret_until_the_reveal() -> None:  # W-4
    state = table([["F5", "F4", "GROCER", "F1"], ["F1"] * 4, ["F2"] * 4])
    state.apply(0, "play F5 F4 GROCER")
    own, other, spectator = state.view(0), state.view(1), state.view(None)
    assert own["my_play"] == ["F4", "F5", "GROCER"]
    assert other["my_play"] is None and spectator["my_play"] is None
    assert other["committed"] == [True, False, False] == spectator["committed"]
    assert other["revealed"] is None and "F5" not in str(other)
    assert spectator["hand"] is None and spectator["hands"] is None and spectator["must_discard"] is None
    assert own["hand"] == ["F1"] and other["hand"] == ["F1"] * 4
    state.apply(1, "play F1 F1 F1")
    state.apply(2, "play F2 F2 F2")
    assert state.phase == "target"  # W-9: the grocer picks after the reveal, knowing every card
    for seat in (0, 1, 2, None):
        view = state.view(seat)
        assert view["revealed"] == [["F4", "F5", "GROCER"], ["F1", "F1", "F1"], ["F2", "F2", "F2"]]
        assert view["choosing"] == [True, False, False]


def test_sealed_discards_stay_secret() -> None:  # W-16
    state = table(
        [["F1", "X3", "X2", "X5", "HUNTER"], ["F3"] * 4], draw=["F2"] * 3, hand_limit=5, hand_size=5
    )
    assert state.phase == "discard" and state.to_move() == (0,)
    assert state.view(0)["must_discard"] == 1 and state.view(0)["must_keep_play"] is True
    assert state.view(1)["must_discard"] == 0


def test_hands_are_revealed_after_the_game() -> None:
    state = SCHMAUS.new_state(2, 1, {"rounds": 1})
    finish(state)
    view = state.view(None)
    assert view["hands"] is not None and len(view["hands"]) == 2
    assert view["outcome"]["scores"] == state.scores  # type: ignore[attr-defined]


def test_reshuffles_are_seeded() -> None:  # W-17, no global randomness
    games = []
    for noise in (1, 2):
        random.seed(noise)
        state = SCHMAUS.new_state(4, 9, {"hand_size": 12, "loser_draws": 4})
        finish(state, seed=3)
        assert state.reshuffles > 0  # type: ignore[attr-defined]
        games.append(state.to_json())
    assert games[0] == games[1]


# -- the round resolution against a plain reference (W-7 .. W-15) ---------------------------

FOOD_IDS = ["F1", "F2", "F3", "F4", "F5"]
EFFECT_IDS = ["X3", "X2", "X5", "HUNTER", "GARBAGE", "GROCER", "GUARDIAN"]
PLAY = st.one_of(
    st.lists(st.sampled_from(FOOD_IDS), min_size=3, max_size=3),
    st.tuples(st.sampled_from(FOOD_IDS), st.sampled_from(FOOD_IDS), st.sampled_from(EFFECT_IDS)).map(list),
)


def reference_round(
    plays: list[list[str]], targets: list[int | None], x5: list[str | None], hunter_draw: str
) -> dict[str, Any]:
    """W-7 .. W-15 written out with exact fractions, card by card."""
    laid = [card for play in plays for card in play]
    guardian = "GUARDIAN" in laid
    hunter = "HUNTER" in laid and not guardian
    n = len(plays)
    if hunter:
        individual = [0] * n
    else:
        zeroed = set() if guardian else {targets[s] for s in range(n) if "GROCER" in plays[s]}
        garbage = 0 if guardian else laid.count("GARBAGE")
        individual = []
        for seat, play in enumerate(plays):
            food = Fraction(0)
            chosen = x5[seat]
            for card in play:
                if card not in FOOD_IDS or seat in zeroed:
                    continue
                value = Fraction(int(card[1]))
                if "X5" in play and card == chosen:
                    value *= 5
                    chosen = None  # one card only
                if "X3" in play:
                    value *= 3
                value *= 2 ** laid.count("X2")
                value /= 2**garbage
                food += value
            base = sum(3 for card in play if card in ("X3", "X2", "X5", "GUARDIAN"))
            individual.append(math.floor(food) + base)
    pot = sum(individual)
    winners = [s for s in range(n) if individual[s] == max(individual)]
    awarded = [pot // len(winners) if s in winners else 0 for s in range(n)]
    lowest = [s for s in range(n) if individual[s] == min(individual)]
    if hunter and hunter_draw == "nobody":
        lowest = []
    return {"individual": individual, "pot": pot, "awarded": awarded, "lowest": lowest}


@given(
    plays=st.integers(2, 5).flatmap(lambda n: st.lists(PLAY, min_size=n, max_size=n)),
    data=st.data(),
    hunter_draw=st.sampled_from(["everybody", "nobody"]),
)
@settings(max_examples=300, deadline=None)
def test_round_resolution_matches_a_plain_reference(
    plays: list[list[str]], data: st.DataObject, hunter_draw: str
) -> None:
    n = len(plays)
    targets: list[int | None] = [
        data.draw(st.sampled_from([o for o in range(n) if o != s])) if "GROCER" in p else None
        for s, p in enumerate(plays)
    ]
    x5: list[str | None] = [
        data.draw(st.sampled_from([c for c in p if c in FOOD_IDS])) if "X5" in p else None for p in plays
    ]
    kinds = [tuple(sorted(KIND[c] for c in p)) for p in plays]
    chosen = [None if c is None else KIND[c] for c in x5]
    result = resolve(kinds, targets, chosen, hunter_draw).to_json()
    expected = reference_round(plays, targets, x5, hunter_draw)
    assert {key: result[key] for key in expected} == expected
    # The state's round summary is made without the RoundResult, but is the same record.
    assert round_record(kinds, targets, chosen, hunter_draw) == result
    # The state scores a round without either: the same shares and the same seats drawing.
    totals = list(range(n))
    lowest = score_round(kinds, targets, chosen, hunter_draw, totals)
    assert totals == [s + a for s, a in zip(range(n), result["awarded"], strict=True)]
    assert [s for s in range(n) if (lowest >> s) & 1] == result["lowest"]


@given(counts=st.lists(st.integers(0, 5), min_size=12, max_size=12))
@settings(max_examples=400, deadline=None)
def test_a_hands_legal_lays_are_exactly_what_w4_and_w5_allow(counts: list[int]) -> None:
    hand = [k for k in range(12) for _ in range(counts[k])]
    state = SchmausState.from_position(
        2, [hand, [KIND["F1"]] * 3], [], [], {"short_hand": "play-what-you-can", "hand_limit": 54}
    )
    laid = [state.action_from_id(a) for a in state.legal_action_ids(0)]
    lays = [tuple(a.cards) for a in laid]
    food = [k for k in hand if k < 5]
    full = {  # W-4: three food cards, or two food cards and one effect card, all held
        p for p in map(tuple, map(sorted, _multisets(hand, 3))) if sum(k >= 5 for k in p) <= 1 and len(p) == 3
    }
    if full:
        assert len(lays) == len(set(lays)) and set(lays) == full
    else:  # W-5 (play what you can): the food cards held, at most two of them here
        assert lays == [tuple(sorted(food))]


def _multisets(hand: list[int], size: int) -> set[tuple[int, ...]]:
    """Every sub-multiset of ``hand`` with ``size`` cards."""
    return {tuple(sorted(c)) for c in combinations(hand, size)}
