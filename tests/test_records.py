"""Broken state JSON and game records are refused with a RecordError that says
what is wrong, never with a traceback of another type, and a good state or
record always loads."""

from __future__ import annotations

import copy
import json
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spieltisch.engine import GameRecord, RecordError, State, get_game
from spieltisch.engine.schmaus import SchmausState
from spieltisch.engine.schmaus.cards import KIND
from spieltisch.engine.scout import ScoutState
from spieltisch.engine.scout.cards import parse_card

JUNK: list[Any] = [None, "x", 99, -1, [], {}, [[]], ["zz"], [None], True, 1.5, [[0, 1]], {"a": 1}]


def midgame(game: str, players: int = 3, seed: int = 5, steps: int = 25) -> State:
    state = get_game(game).new_state(players, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_over():
            break
        seat = state.to_move()[0]
        state.apply_id(seat, rng.choice(state.legal_action_ids(seat)))
    return state


def broken_variants(data: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every key removed, replaced by junk, shortened or lengthened."""
    for key in data:
        d = copy.deepcopy(data)
        del d[key]
        yield f"without {key}", d
        for junk in JUNK:
            d = copy.deepcopy(data)
            d[key] = junk
            yield f"{key}={junk!r}", d
        if isinstance(data[key], list) and data[key]:
            d = copy.deepcopy(data)
            d[key] = data[key][:-1]
            yield f"{key} shortened", d
            d = copy.deepcopy(data)
            d[key] = data[key] + data[key][:1]
            yield f"{key} lengthened", d


def load_or_record_error(game: str, data: Any) -> State | None:
    """Load ``data``; a refusal must be a RecordError with a message."""
    try:
        state = get_game(game).state_from_json(data)
    except RecordError as exc:
        assert str(exc).startswith(("broken Scout state: ", "broken Waschbär-Schmaus state: "))
        return None
    return state


def use(state: State) -> None:
    """Everything code above the engine does with a loaded state."""
    state.describe()
    state.to_json()
    state.outcome()
    for seat in [None, *range(state.players)]:
        json.dumps(state.view(seat))
    for seat in range(state.players):
        state.legal_action_ids(seat)
    if not state.is_over():
        seat = state.to_move()[0]
        legal = state.legal_action_ids(seat)
        if legal:
            state.clone().apply(seat, state.action_from_id(legal[0]))


@pytest.mark.parametrize("game", ["scout", "schmaus"])
def test_every_broken_field_is_a_record_error_or_a_usable_state(game: str) -> None:
    data = json.loads(json.dumps(midgame(game).to_json()))
    refused = 0
    for label, variant in broken_variants(data):
        state = load_or_record_error(game, variant)
        if state is None:
            refused += 1
        else:  # some junk is harmless (e.g. a seed of 99); the state must then work
            try:
                use(state)
            except Exception as exc:  # pragma: no cover - the message names the field
                raise AssertionError(f"{label}: loaded, then {type(exc).__name__}: {exc}") from exc
    assert refused > 100


@pytest.mark.parametrize("game", ["scout", "schmaus"])
@pytest.mark.parametrize("data", [None, "state", 42, [], [1, 2], {}, {"players": 3}])
def test_not_a_state_at_all(game: str, data: Any) -> None:
    assert load_or_record_error(game, data) is None


def test_scout_state_with_a_card_twice_is_refused() -> None:
    data = midgame("scout").to_json()
    hands = data["hands"]
    hands[1][0] = hands[0][0]
    with pytest.raises(RecordError, match=r"a card is in two places \(S-1\)"):
        ScoutState.from_json(data)


def test_scout_state_with_a_removed_card_is_refused() -> None:
    data = ScoutState.new(3, 1).to_json()  # S-2: the cards with a 10 are out
    data["hands"][0][0] = "10/9"
    with pytest.raises(RecordError, match=r"removed for 3 players.*S-2"):
        ScoutState.from_json(data)


HANDS_3P = [[parse_card("1/2")], [parse_card("3/4")], [parse_card("7/8")]]


def test_scout_state_with_an_ownerless_table_is_refused() -> None:
    state = ScoutState.from_position(3, HANDS_3P, [parse_card("5/6")], owner=1)
    data = state.to_json()
    data["owner"] = None
    with pytest.raises(RecordError, match="owner"):
        ScoutState.from_json(data)


def test_scout_state_with_the_owner_to_move_is_refused() -> None:  # S-10
    state = ScoutState.from_position(3, HANDS_3P, [parse_card("5/6")], owner=1)
    data = state.to_json()
    data["current"] = 1
    with pytest.raises(RecordError, match="owner of the active set is to move"):
        ScoutState.from_json(data)


def test_scout_state_whose_player_to_move_is_stuck_is_refused() -> None:  # S-15
    hands = [[parse_card("1/7")], [parse_card("3/8"), parse_card("2/4")]]
    state = ScoutState.from_position(2, hands, [parse_card("7/4"), parse_card("7/8")], owner=1, chips=[1, 3])
    data = state.to_json()
    data["chips"] = [0, 3]
    with pytest.raises(RecordError, match=r"seat 0 is to move but can neither show nor scout \(S-15"):
        ScoutState.from_json(data)


def test_schmaus_state_with_too_many_cards_is_refused() -> None:
    data = midgame("schmaus").to_json()
    data["hands"][0] += ["F5"] * 4  # the deck has three
    with pytest.raises(RecordError, match="more F5 cards than the deck holds"):
        SchmausState.from_json(data)


def test_schmaus_state_with_bad_options_is_refused() -> None:
    data = midgame("schmaus").to_json()
    data["options"] = {**data["options"], "hand_limit": "twelve"}
    with pytest.raises(RecordError, match="hand_limit"):
        SchmausState.from_json(data)


def test_hand_made_positions_round_trip() -> None:
    hands = [[parse_card("3/4")], [parse_card("5/6")]]
    scout = ScoutState.from_position(2, hands, [parse_card("9/10")], owner=1)
    assert ScoutState.from_json(json.loads(json.dumps(scout.to_json()))) == scout
    schmaus = SchmausState.from_position(2, [[KIND["F1"]] * 3, [KIND["F2"]] * 3], [KIND["F5"]], [])
    assert SchmausState.from_json(json.loads(json.dumps(schmaus.to_json()))) == schmaus


# -- game records ---------------------------------------------------------------------


@pytest.mark.parametrize("game", ["scout", "schmaus"])
def test_a_record_replays_to_the_state(game: str) -> None:
    state = midgame(game)
    record = GameRecord.from_json(json.loads(state.record().dumps()))
    assert record.replay() == state


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (None, "broken game record"),
        ("record", "broken game record"),
        ([], "broken game record"),
        ({}, "'game'"),
        ({"game": "scout", "players": 3}, "'seed'"),
        ({"game": "scout", "players": "3", "seed": 1}, "must be str, int, int"),
        ({"game": "scout", "players": True, "seed": 1}, "must be str, int, int"),
        ({"game": "scout", "players": 3, "seed": 1.5}, "must be str, int, int"),
        ({"game": "scout", "players": 3, "seed": 1, "options": [1]}, "options must be an object"),
        ({"game": "scout", "players": 3, "seed": 1, "actions": "flip"}, "broken game record"),
        ({"game": "scout", "players": 3, "seed": 1, "actions": [[0]]}, "broken game record"),
        ({"game": "scout", "players": 3, "seed": 1, "actions": [["zero", "flip"]]}, "broken game record"),
    ],
)
def test_broken_records_are_refused(data: Any, reason: str) -> None:
    with pytest.raises(RecordError) as info:
        GameRecord.from_json(data)
    assert reason in str(info.value)


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        (GameRecord("chess", 2, 1), "unknown game 'chess'"),
        (GameRecord("scout", 7, 1), "not 7"),
        (GameRecord("scout", 3, 1, {"jokers": 1}), "Scout has no rule options"),
        (GameRecord("schmaus", 3, 1, {"rounds": -2}), "option 'rounds'"),
        (GameRecord("scout", 3, 1, actions=[(0, "flip"), (0, "keep")]), "action 2 (0: 'keep')"),
        (GameRecord("scout", 3, 1, actions=[(9, "flip")]), "action 1 (9: 'flip') does not replay"),
        (GameRecord("scout", 3, 1, actions=[(0, "dance")]), "cannot read Scout action 'dance'"),
        (GameRecord("schmaus", 2, 1, actions=[(0, "play F5 F5 F5 F5")]), "does not replay"),
    ],
)
def test_records_that_do_not_replay_are_record_errors(record: GameRecord, reason: str) -> None:
    with pytest.raises(RecordError) as info:
        record.replay()
    assert reason in str(info.value)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
RECORD_LIKE = st.fixed_dictionaries(
    {
        "game": st.sampled_from(["scout", "schmaus", "go"]),
        "players": st.integers(0, 6),
        "seed": st.integers(),
    },
    optional={"options": JSON_VALUES, "actions": JSON_VALUES},
)


@settings(max_examples=80, deadline=None)
@given(data=JSON_VALUES | RECORD_LIKE)
def test_arbitrary_json_is_refused_cleanly(data: Any) -> None:
    for game in ("scout", "schmaus"):
        load_or_record_error(game, data)
    try:
        GameRecord.from_json(data).replay()
    except RecordError as exc:
        assert str(exc)


# -- rules versions (docs/storage.md, "Rules versions") ---------------------------------


@pytest.mark.parametrize("game", ["scout", "schmaus"])
def test_a_record_carries_the_rules_version_it_was_played_under(game: str) -> None:
    state = midgame(game)
    data = json.loads(state.record().dumps())
    assert data["rules_version"] == get_game(game).rules_version == "1"
    assert GameRecord.from_json(data).rules_version == "1"
    del data["rules_version"]  # a record written before versions were kept still loads
    old = GameRecord.from_json(data)
    assert old.rules_version is None and "rules_version" not in old.to_json()
    assert old.replay() == state
    with pytest.raises(RecordError, match="rules_version must be a string"):
        GameRecord.from_json({**data, "rules_version": 2})


@settings(max_examples=60, deadline=None)
@given(
    game=st.sampled_from(["scout", "schmaus"]),
    number=st.integers(min_value=1, max_value=25),
    text=st.text(max_size=12) | st.sampled_from(["flip", "keep", "show 0", "play F1", "x5 F2", "target 1"]),
    version=st.sampled_from(["0", "1", "2"]),
)
def test_a_record_with_a_changed_action_replays_or_names_both_versions(
    game: str, number: int, text: str, version: str
) -> None:
    """A stored action the rules no longer take (as after a rules change) is a
    RecordError naming the action and, when they differ, both rules versions."""
    record = midgame(game).record()
    number = min(number, len(record.actions))
    seat = record.actions[number - 1][0]
    record.actions[number - 1] = (seat, text)
    record.rules_version = version
    try:
        state = record.replay()
    except RecordError as exc:
        message = str(exc)
        failed = re.match(r"action (\d+) \(", message)
        assert failed is not None and int(failed.group(1)) >= number, message  # at or after the change
        differs = f"played under rules version {version}; this engine plays version 1" in message
        assert differs == (version != "1")
    else:
        assert len(state.history) == len(record.actions)
