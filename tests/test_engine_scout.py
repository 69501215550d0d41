"""Scout rulings that the scenario files cannot express: dealing per player
count (S-1, S-2), the start player (S-3, S-4), the 2-player round 2 (S-16),
error messages naming rulings, views and option errors."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spieltisch.engine import GameOverError, IllegalActionError, OptionsError, WrongSeatError, get_game
from spieltisch.engine.scout import ScoutState
from spieltisch.engine.scout.cards import ALL_CARDS, BOTTOM, TOP, identity, parse_card

SCOUT = get_game("scout")
SEEDS = range(12)


def c(text: str) -> int:
    return parse_card(text)


def ident(cards: list[int]) -> list[int]:
    return sorted(identity(x) for x in cards)


def flip_all(state: ScoutState) -> None:
    for seat in state.to_move():
        state.apply(seat, "keep")


def play_round(state: ScoutState, rng: random.Random) -> None:
    """Play the current round to its end with random legal actions."""
    rounds_done = len(state.results)
    while len(state.results) == rounds_done:
        seat = state.to_move()[0]
        state.apply_id(seat, rng.choice(state.legal_action_ids(seat)))


# -- S-1, S-2: the deck and the deal ------------------------------------------------------


def test_the_deck_has_one_card_per_pair_of_numbers() -> None:  # S-1
    pairs = {(TOP[x], BOTTOM[x]) for x in ALL_CARDS}
    assert len(ALL_CARDS) == 45
    assert pairs == {(a, b) for a in range(1, 11) for b in range(a + 1, 11)}


def test_shuffling_randomises_the_orientation() -> None:  # S-1
    upside = Counter[bool]()
    for seed in SEEDS:
        for hand in ScoutState.new(5, seed).hands:
            upside.update(TOP[x] > BOTTOM[x] for x in hand)
    assert upside[True] > 150 and upside[False] > 150  # 540 cards dealt, about half each way


@pytest.mark.parametrize(
    ("players", "dealt", "removed", "rounds"),
    [
        (2, 11, ["9/10"], 2),
        (3, 12, [f"{a}/10" for a in range(1, 10)], 3),
        (4, 11, ["9/10"], 4),
        (5, 9, [], 5),
    ],
)
def test_the_deal_by_player_count(players: int, dealt: int, removed: list[str], rounds: int) -> None:  # S-2
    gone = {identity(c(x)) for x in removed}
    for seed in SEEDS:
        state = ScoutState.new(players, seed)
        assert [len(h) for h in state.hands] == [dealt] * players
        assert state.rounds == rounds
        in_play = ident([x for h in state.hands for x in h] + state.set_aside)
        assert in_play == sorted(x for x in ALL_CARDS if x not in gone)
        assert len(state.set_aside) == (22 if players == 2 else 0)
        assert state.to_move() == tuple(range(players))  # S-5: everybody decides first


def test_different_seeds_deal_differently_and_the_same_seed_the_same() -> None:
    assert ScoutState.new(4, 1) == ScoutState.new(4, 1)
    assert len({tuple(ScoutState.new(4, seed).hands[0]) for seed in SEEDS}) == len(SEEDS)


# -- S-3, S-4: who starts -------------------------------------------------------------------


def holder(state: ScoutState, text: str) -> int | None:
    card = identity(c(text))
    return next((s for s, h in enumerate(state.hands) if card in ident(h)), None)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_the_holder_of_1_2_starts_round_one(players: int) -> None:  # S-3
    for seed in SEEDS:
        state = ScoutState.new(players, seed)
        flip_all(state)
        assert state.to_move() == (holder(state, "1/2"),)


def test_two_players_the_lowest_card_starts_when_1_2_is_set_aside() -> None:  # S-3
    set_aside_seen = dealt_seen = 0
    for seed in range(40):
        state = ScoutState.new(2, seed)
        lowest = min(
            (min(TOP[x], BOTTOM[x]), max(TOP[x], BOTTOM[x]), s) for s, h in enumerate(state.hands) for x in h
        )
        if holder(state, "1/2") is None:
            set_aside_seen += 1
        else:
            dealt_seen += 1
            assert lowest[:2] == (1, 2)
        flip_all(state)
        assert state.to_move() == (lowest[2],)
    assert set_aside_seen and dealt_seen


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_start_marker_passes_clockwise_every_round(players: int) -> None:  # S-4, S-16
    state = ScoutState.new(players, 3)
    rng = random.Random(3)
    starts = []
    for _ in range(players):
        assert state.phase == "flip"
        flip_all(state)
        starts.append(state.to_move()[0])
        play_round(state, rng)
    assert state.is_over()
    assert starts == [(starts[0] + r) % players for r in range(players)]


def test_play_goes_clockwise() -> None:  # S-4
    state = ScoutState.from_position(4, [[c("1/2"), c("3/4")], [c("5/6"), c("7/8")], [c("2/9")], [c("3/10")]])
    order = []
    for _ in range(3):
        seat = state.to_move()[0]
        order.append(seat)
        state.apply(seat, state.legal_actions(seat)[0])
    assert order == [0, 1, 2] and state.to_move() == (3,)


# -- S-16: the 2-player round 2 -------------------------------------------------------------


def test_two_player_round_two_deals_the_set_aside_cards() -> None:  # S-16
    for seed in range(6):
        state = ScoutState.new(2, seed)
        set_aside = ident(state.set_aside)
        first = state.hands[0] + state.hands[1]
        flip_all(state)
        starter = state.to_move()[0]
        state.apply(starter, state.legal_actions(starter)[0])
        assert state.chips != [3, 3] or state.table  # something happened
        play_round(state, random.Random(seed))
        assert state.round == 1 and state.phase == "flip"
        assert ident(state.hands[0] + state.hands[1]) == set_aside
        assert not set(ident(first)) & set(set_aside)
        assert [len(h) for h in state.hands] == [11, 11] and state.set_aside == []
        assert state.chips == [3, 3]  # three new chips each
        flip_all(state)
        assert state.to_move() == (1 - starter,)  # the other player starts


def test_two_player_round_points_count_unspent_chips() -> None:  # S-16
    state = ScoutState.from_position(2, [[c("6/5")], [c("7/8"), c("1/7")]], [c("2/3")], owner=1, chips=[2, 1])
    state.apply(0, "show 0")
    assert state.results[-1]["points"] == [1 + 2, 1 - 2]


# -- errors name the ruling ----------------------------------------------------------------


def position(**kw: object) -> ScoutState:
    base: dict[str, object] = {
        "players": 3,
        "hands": [[c("5/2"), c("5/3"), c("8/9")], [c("2/3")], [c("7/2")]],
        "table": [c("4/1"), c("5/1"), c("6/1")],
        "owner": 2,
    }
    base.update(kw)
    return ScoutState.from_position(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("state", "action", "ruling"),
    [
        (position(), "show 0-2", "S-6: 5-5-8 is neither a match"),
        (
            position(),
            "show 0-1",
            "S-7: 5-5 does not beat the active set 4-5-6 (more cards beat fewer",
        ),
        (position(), "show 2-4", "S-6: show 2-4 names cards your hand does not have"),
        (position(table=[], owner=None), "scout L @0", "S-8: there is no active set"),
        (position(), "scout L @4", "S-8: insert position 4 is outside your hand (0..3)"),
        (
            position(),
            "scout R @0 show 3",
            "S-7: 8 does not beat the active set 4-5 ",
        ),
        (
            position(chips=[0, 1, 1]),
            "scout R @0 show 1-2",
            "S-9: the scout & show chip has already been used",
        ),
        (position(), "flip", "S-5: the hand can only be flipped once"),
        (position(phase="flip"), "show 0", "S-5: before the first turn every player first decides"),
        (
            position(players=2, hands=[[c("5/2")], [c("2/3")]], owner=1),
            "scout R @0 show 0-1",
            "S-13: there is no scout & show in the 2-player game",
        ),
        (
            position(players=2, hands=[[c("7/2"), c("8/3"), c("9/4")], [c("2/3")]], owner=1, chips=[0, 3]),
            "scout L @0",
            "S-14: you have no scout chips left",
        ),
    ],
)
def test_illegal_actions_name_the_ruling(state: ScoutState, action: str, ruling: str) -> None:
    before = state.to_json()
    with pytest.raises(IllegalActionError) as info:
        state.apply(0, action)
    assert str(info.value).startswith(ruling)
    assert info.value.ruling == ruling.split(":")[0]
    assert state.to_json() == before


def test_wrong_seat_and_game_over() -> None:
    state = position()
    with pytest.raises(WrongSeatError, match="not seat 1's decision"):
        state.apply(1, "show 0")
    state = position(hands=[[c("7/2"), c("8/3"), c("9/4")], [c("2/3")], [c("1/2")]])
    state.apply(0, "show 0-2")  # the hand is empty: the (only) round ends
    assert state.is_over()
    with pytest.raises(GameOverError):
        state.apply(1, "show 0")


# -- views ------------------------------------------------------------------------------


def test_spectator_and_seat_views_hide_hands_and_flip_decisions() -> None:
    state = ScoutState.new(3, 4)
    state.apply(0, "flip")
    own, other, spectator = state.view(0), state.view(1), state.view(None)
    assert own["hand"] == [f"{TOP[x]}/{BOTTOM[x]}" for x in state.hands[0]]
    assert other["hands"][0] == [None] * 12 and spectator["hands"][1] == [None] * 12
    assert spectator["hand"] is None and spectator["seat"] is None
    assert own["log"] == [{"seat": 0, "action": "flip"}]
    assert other["log"] == spectator["log"] == [{"seat": 0, "action": "decided"}]  # S-5: secret
    assert spectator["flip_decided"] == [True, False, False]
    assert spectator["hand_sizes"] == [12, 12, 12]  # S-11: sizes are public


def test_a_scouted_card_is_known_to_everybody_at_its_position() -> None:  # S-8
    state = position()
    state.apply(0, "scout R flip @1")
    for seat in (1, 2, None):
        assert state.view(seat)["hands"][0] == [None, "1/6", None, None]


def test_after_the_game_every_hand_is_revealed() -> None:
    state = position(hands=[[c("7/2"), c("8/3"), c("9/4")], [c("2/3")], [c("1/2")]])
    state.apply(0, "show 0-2")
    view = state.view(None)
    assert view["hands"] == [[], ["2/3"], ["1/2"]]
    assert view["round_results"][0]["hands"] == [[], ["2/3"], ["1/2"]]
    assert view["outcome"] == {"scores": [3, -1, -1], "winners": [0]}


# -- setup errors ----------------------------------------------------------------------------


@pytest.mark.parametrize("players", [0, 1, 6])
def test_player_count_errors(players: int) -> None:
    with pytest.raises(OptionsError, match=rf"Scout is for 2 to 5 players, not {players} \(S-2\)"):
        SCOUT.new_state(players, 1)


def test_scout_has_no_rule_options() -> None:
    with pytest.raises(OptionsError, match=r"Scout has no rule options; got \['jokers'\] \(its research"):
        SCOUT.new_state(3, 1, {"jokers": 2})
    assert SCOUT.normalize_options(None) == {} and SCOUT.normalize_options({}) == {}


def test_research_options_at_their_defaults_are_the_rules_game() -> None:
    plain = SCOUT.new_state(4, 7)
    same = SCOUT.new_state(4, 7, {"rounds": 4, "hand_size": 11, "numbers": 10})
    assert same.options == {} and same.to_json() == plain.to_json() and same.view(0) == plain.view(0)


def test_research_options_make_a_small_game() -> None:
    s = SCOUT.new_state(2, 3, {"numbers": 4, "hand_size": 2, "rounds": 1, "scout_chips": 1})
    assert s.rounds == 1 and s.chips == [1, 1] and [len(h) for h in s.hands] == [2, 2]
    assert all(max(TOP[c], BOTTOM[c]) <= 4 for h in s.hands for c in h) and len(s.set_aside) == 2
    assert (
        s.view(0)["options"]
        == s.game_options()
        == {"numbers": 4, "hand_size": 2, "rounds": 1, "scout_chips": 1}
    )
    rng = random.Random(1)
    while not s.is_over():
        seat = s.to_move()[0]
        s.apply_id(seat, rng.choice(s.legal_action_ids(seat)))
    assert len(s.results) == 1 and SCOUT.state_from_json(s.to_json()).to_json() == s.to_json()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"numbers": 11}, "option 'numbers' must be a whole number from 2 to 10, not 11"),
        ({"hand_size": "3"}, "option 'hand_size' must be a whole number from 1 to 11"),
        ({"numbers": 4, "hand_size": 4}, r"impossible deck: 6 cards \(numbers 1..4\) cannot deal 4"),
        ({"numbers": 4, "hand_size": 2, "rounds": 2}, r"in both of the first two rounds \(S-16\)"),
    ],
)
def test_research_option_errors(options: dict[str, object], message: str) -> None:
    with pytest.raises(OptionsError, match=message):
        SCOUT.new_state(2, 1, options)


def test_scout_chips_are_for_two_players() -> None:
    with pytest.raises(OptionsError, match="'scout_chips' is for two players"):
        SCOUT.new_state(3, 1, {"scout_chips": 1})


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"hands": [[c("1/2")], [c("2/1")], []]}, r"card 1/2 appears twice \(S-1\)"),
        ({"hands": [[c("1/2")], []]}, "3 players need 3 hands, got 2"),
        ({"table": [c("1/2"), c("4/9")], "owner": 1}, r"neither a match nor a run \(S-6\)"),
        ({"table": [c("1/2")], "owner": None}, "an active set needs an owner seat"),
        ({"to_move": 3}, "to_move must be a seat 0..2"),
        ({"table": [c("1/2")], "owner": 0}, "S-10: play never comes back to the owner of the active set"),
        ({"phase": "scoring"}, "phase must be 'play' or 'flip'"),
        ({"tokens": [0, -1, 0]}, "tokens needs one non-negative value per seat"),
    ],
)
def test_position_errors(kw: dict[str, object], message: str) -> None:
    base: dict[str, object] = {"players": 3, "hands": [[c("3/4")], [c("5/6")], [c("7/8")]]}
    base.update(kw)
    with pytest.raises(OptionsError, match=message):
        ScoutState.from_position(**base)  # type: ignore[arg-type]


def test_describe_is_one_line_with_the_position() -> None:
    text = position().describe()
    assert "\n" not in text
    assert "scout 3p round 1/1 play to-move 0" in text and "table [4/1 5/1 6/1] owner 2" in text


# -- the move generator against a plain reference (S-6 .. S-9) ---------------------------------


def reference_strength(values: list[int]) -> tuple[int, int, int] | None:
    """S-6/S-7 written out directly: (cards, match over run, smallest number), or None."""
    n = len(values)
    if n == 1:
        return (1, 1, values[0])
    if all(v == values[0] for v in values):
        return (n, 1, values[0])
    steps = {b - a for a, b in itertools.pairwise(values)}
    if steps in ({1}, {-1}):
        return (n, 0, min(values))
    return None


def reference_shows(values: list[int], table: list[int]) -> list[tuple[int, int]]:
    beat = reference_strength(table) if table else None
    out = []
    for start in range(len(values)):
        for count in range(1, len(values) - start + 1):
            strength = reference_strength(values[start : start + count])
            if strength is not None and (beat is None or strength > beat):
                out.append((start, count))
    return out


def reference_legal(state: ScoutState, seat: int) -> set[str]:
    hand = state.hands[seat]
    values = [TOP[x] for x in hand]
    table_values = [TOP[x] for x in state.table]
    legal = {
        f"show {s}" if n == 1 else f"show {s}-{s + n - 1}" for s, n in reference_shows(values, table_values)
    }
    if not state.table or (state.players == 2 and state.chips[seat] == 0):
        return legal
    for end in ("L", "R") if len(state.table) > 1 else ("L",):  # one card: one end (S-8)
        card = state.table[0] if end == "L" else state.table[-1]
        reduced = table_values[1:] if end == "L" else table_values[:-1]
        for turn in (False, True):
            live = BOTTOM[card] if turn else TOP[card]
            for at in range(len(hand) + 1):
                scout = f"scout {end}{' flip' if turn else ''} @{at}"
                legal.add(scout)
                if state.players == 2 or not state.chips[seat]:
                    continue
                new = [*values[:at], live, *values[at:]]
                for s, n in reference_shows(new, reduced):
                    legal.add(f"{scout} {'show ' + str(s) if n == 1 else f'show {s}-{s + n - 1}'}")
    return legal


@given(seed=st.integers(0, 10**9), players=st.integers(2, 5), steps=st.integers(0, 60))
@settings(max_examples=80, deadline=None)
def test_legal_actions_match_a_plain_reference(seed: int, players: int, steps: int) -> None:
    state = ScoutState.new(players, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_over():
            return
        seat = state.to_move()[0]
        state.apply_id(seat, rng.choice(state.legal_action_ids(seat)))
    if state.phase != "play":
        return
    seat = state.to_move()[0]
    engine = {a.to_text() for a in state.legal_actions(seat)}
    assert engine == reference_legal(state, seat)


def test_captured_cards_are_public_in_every_view() -> None:
    """S-6: a beaten set goes face down, but everybody saw it on the table."""
    state = ScoutState.from_position(
        players=3,
        hands=[
            [parse_card("3/1"), parse_card("3/5"), parse_card("7/2")],
            [parse_card("9/4")],
            [parse_card("6/2")],
        ],
        table=[parse_card("10/1")],
        owner=2,
        to_move=0,
    )
    assert state.view(0)["captured_cards"] == []
    state.apply(0, "show 0-1")
    for seat in (0, 1, 2, None):
        assert state.view(seat)["captured_cards"] == ["10/1"]


def test_a_one_card_set_is_scouted_once_and_scout_r_means_the_same() -> None:  # S-8, S-9
    state = position(table=[c("6/1")])
    legal = [state.action_from_id(a).to_text() for a in state.legal_action_ids(0)]
    assert len(legal) == len(set(legal))
    scouts = [t for t in legal if t.startswith("scout")]
    assert scouts and all(t.startswith("scout L") for t in scouts)
    assert "scout L flip @3" in scouts and "scout L @0 show 0-1" in scouts
    for right, left in (
        ("scout R flip @3", "scout L flip @3"),
        ("scout R @0 show 0-1", "scout L @0 show 0-1"),
    ):
        assert state.is_legal(0, right)
        assert state.action_id(state.game.parse_action(right)) == state.action_id(
            state.game.parse_action(left)
        )
        by_right, by_left = state.clone(), state.clone()
        by_right.apply(0, right)
        by_left.apply(0, left)
        assert by_right == by_left
    two_card = position()  # a set of three: both ends, each its own action
    assert any(
        two_card.action_from_id(a).to_text().startswith("scout R") for a in two_card.legal_action_ids(0)
    )
