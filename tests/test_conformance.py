"""Conformance suite: properties every engine must have, checked on both games
and every player count (2-5) with seeded random games (Hypothesis draws the
seeds; a failing seed is printed and can be replayed).

* every card is in exactly one place at every step;
* after the end nothing is legal and every action raises GameOverError;
* state JSON and game records round-trip, also mid-game;
* a seat's view does not change when cards it cannot see are moved around,
  and views never show other seats' unknown cards;
* the same seed gives the same game whatever the global ``random`` does;
* scores follow the rulings (S-11/S-16 round points, W-14 pot conservation);
* the legal actions are exactly the actions ``apply`` accepts;
* action notation, JSON and ids round-trip.
"""

from __future__ import annotations

import json
import pickle
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spieltisch.engine import (
    GameOverError,
    GameRecord,
    IllegalActionError,
    InvalidActionError,
    RecordError,
    RulesError,
    State,
    WrongSeatError,
    get_game,
)
from spieltisch.engine.schmaus import SchmausState
from spieltisch.engine.schmaus.cards import DECK, IDS
from spieltisch.engine.scout import ScoutState
from spieltisch.engine.scout.cards import ALL_CARDS, identity, parse_card

COMBOS = [(game, players) for game in ("scout", "schmaus") for players in (2, 3, 4, 5)]
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
SCHMAUS_OPTIONS = st.sampled_from(
    [
        {},
        {"short_hand": "play-what-you-can"},
        {"hunter_draw": "nobody", "rounds": 4},
        {"refill_to": 5, "hand_limit": 9},
        {"rounds": "draw", "loser_draws": 3},
    ]
)
FEW = settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# S-2, written out from the ruling (not taken from the engine).
SCOUT_REMOVED = {2: ["9/10"], 3: [f"{a}/10" for a in range(1, 10)], 4: ["9/10"], 5: []}


def scout_deck(players: int) -> list[int]:
    removed = {identity(parse_card(c)) for c in SCOUT_REMOVED[players]}
    return sorted(c for c in ALL_CARDS if c not in removed)


SCHMAUS_DECK = sorted(IDS.index(name) for name, count in DECK.items() for _ in range(count))


def new_game(game: str, players: int, seed: int, options: dict[str, Any] | None = None) -> State:
    return get_game(game).new_state(players, seed, options or None)


def random_step(state: State, rng: random.Random) -> tuple[int, int]:
    seat = rng.choice(state.to_move())
    action = rng.choice(state.legal_action_ids(seat))
    state.apply_id(seat, action)
    return seat, action


def playthrough(state: State, rng: random.Random, limit: int = 20_000) -> Iterator[State]:
    """Yield the state before every step and once more at the end."""
    for _ in range(limit):
        yield state
        if state.is_over():
            return
        random_step(state, rng)
    raise AssertionError(f"no end after {limit} steps: {state.describe()}")


def checkpoints(seed: int, game: str) -> Iterator[bool]:
    """Whether to run the expensive checks at each step: the first two steps
    and a random sample of the others (about 5 a game)."""
    rng = random.Random(seed ^ 0x5EED)
    rate = 0.015 if game == "scout" else 0.06
    yield True
    yield True
    while True:
        yield rng.random() < rate


# -- cards, end of game ----------------------------------------------------------------


@pytest.mark.parametrize(("game", "players"), COMBOS)
@FEW
@given(seed=SEEDS, options=SCHMAUS_OPTIONS)
def test_every_card_is_in_one_place_and_the_end_is_final(
    game: str, players: int, seed: int, options: dict[str, Any]
) -> None:
    state = new_game(game, players, seed, options if game == "schmaus" else None)
    rng = random.Random(seed)
    if isinstance(state, ScoutState):
        expected = scout_deck(players)
        set_aside: list[int] = []
        current_round = state.round
        for s in playthrough(state, rng):
            assert isinstance(s, ScoutState)
            if s.round != current_round:  # a new deal (S-2, S-16)
                assert s.round == current_round + 1
                current_round = s.round
                expected = set_aside if players == 2 else scout_deck(players)
            assert s.card_locations() == expected, s.describe()
            set_aside = sorted(identity(c) for c in s.set_aside)
        assert state.round == state.rounds - 1  # S-12: as many rounds as players
    else:
        assert isinstance(state, SchmausState)
        deck = sorted(SCHMAUS_DECK)
        if options.get("deck"):
            raise AssertionError("options with a custom deck are not drawn here")
        for s in playthrough(state, rng):
            assert s.card_locations() == deck, s.describe()  # type: ignore[attr-defined]
        assert len(state.results) == state.rounds  # W-2, W-18
    assert state.is_over() and state.to_move() == ()
    outcome = state.outcome()
    assert outcome is not None and outcome.winners
    for seat in range(players):
        assert state.legal_action_ids(seat) == []
    before = state.to_json()
    some_action = "keep" if game == "scout" else "play F1 F1 F1"
    for seat in range(players):
        with pytest.raises(GameOverError):
            state.apply(seat, some_action)
    assert state.to_json() == before


# -- scores -------------------------------------------------------------------------------


@pytest.mark.parametrize(("game", "players"), COMBOS)
@FEW
@given(seed=SEEDS, options=SCHMAUS_OPTIONS)
def test_scores_follow_the_rulings(game: str, players: int, seed: int, options: dict[str, Any]) -> None:
    state = new_game(game, players, seed, options if game == "schmaus" else None)
    for _ in playthrough(state, random.Random(seed)):
        pass
    outcome = state.outcome()
    assert outcome is not None
    results: list[dict[str, Any]] = state.results  # type: ignore[attr-defined]
    totals = [0] * players
    if game == "scout":
        assert len(results) == players  # S-12 / S-2
        for r in results:
            bonus = r["chips"] if players == 2 else r["tokens"]  # S-16 / S-11
            exempt = r["exempt"]
            if r["ended_by"] == "hand_empty":  # S-10 (a): nobody is exempt
                assert exempt is None and 0 in r["hand_sizes"]
            elif r["ended_by"] == "all_scouted":  # S-10 (b): the owner of the active set
                assert players > 2 and r["table"] is not None and exempt == r["table"]["owner"]
            else:  # S-15 (c): only with two players
                assert r["ended_by"] == "stuck" and players == 2 and exempt is not None
            for s in range(players):
                hand = 0 if s == exempt else r["hand_sizes"][s]
                assert r["points"][s] == r["collected"][s] + bonus[s] - hand
                totals[s] += r["points"][s]
            assert r["totals"] == totals
    else:
        for r in results:
            winners = r["winners"]
            assert sum(r["individual"]) == r["pot"]  # W-14
            assert winners == [s for s in range(players) if r["individual"][s] == max(r["individual"])]
            assert sum(r["awarded"]) == r["pot"] - r["pot"] % len(winners)
            assert all(r["awarded"][s] == 0 for s in range(players) if s not in winners)
            if r["hunter"]:  # W-8
                assert r["pot"] == 0
            for s in range(players):
                totals[s] += r["awarded"][s]
            assert r["scores"] == totals
    assert list(outcome.scores) == totals
    assert list(outcome.winners) == [s for s in range(players) if totals[s] == max(totals)]  # S-12, W-18


# -- serialisation and replay -----------------------------------------------------------


@pytest.mark.parametrize(("game", "players"), COMBOS)
@FEW
@given(seed=SEEDS, options=SCHMAUS_OPTIONS)
def test_state_json_and_records_round_trip(
    game: str, players: int, seed: int, options: dict[str, Any]
) -> None:
    state = new_game(game, players, seed, options if game == "schmaus" else None)
    engine = get_game(game)
    rng = random.Random(seed)
    for check, s in zip(checkpoints(seed, game), playthrough(state, rng), strict=False):
        if check or s.is_over():
            data = json.loads(json.dumps(s.to_json()))
            rebuilt = engine.state_from_json(data)
            assert rebuilt == s
            assert rebuilt.view(None) == s.view(None)
            record = GameRecord.from_json(json.loads(s.record().dumps()))
            assert record.replay() == s
            # the rebuilt state plays on exactly like the original
            if not s.is_over():
                twin, original = rebuilt.clone(), s.clone()
                seat = twin.to_move()[0]
                assert twin.legal_action_ids(seat) == original.legal_action_ids(seat)
                action = twin.legal_action_ids(seat)[0]
                twin.apply_id(seat, action)
                original.apply_id(seat, action)
                assert twin == original


# -- views --------------------------------------------------------------------------------


def hide_scout(state: ScoutState, seat: int | None, rng: random.Random) -> ScoutState:
    """Move around every card ``seat`` cannot see (others' unknown hand cards, the
    set-aside cards), turning them at random too. Captured cards are not among
    them: they lay on the table for everybody to see before they were beaten.
    A shuffle that leaves a 2-player mover unable to move is not a state (S-15):
    then another shuffle is tried."""
    for _ in range(20):
        try:
            return _hide_scout_once(state, seat, rng)
        except RecordError as exc:
            assert "S-15" in str(exc)
    return state.clone()


def _hide_scout_once(state: ScoutState, seat: int | None, rng: random.Random) -> ScoutState:
    data = state.to_json()
    slots: list[tuple[str, int, int]] = []
    for o in range(state.players):
        if o != seat:
            slots += [("hands", o, i) for i, known in enumerate(data["known"][o]) if not known]
    slots += [("set_aside", 0, i) for i in range(len(data["set_aside"]))]

    def get(slot: tuple[str, int, int]) -> str:
        kind, o, i = slot
        return str(data["hands"][o][i] if kind == "hands" else data[kind][i])

    cards = [get(slot) for slot in slots]
    rng.shuffle(cards)
    for (kind, o, i), card in zip(slots, cards, strict=True):
        if rng.random() < 0.5:
            a, b = card.split("/")
            card = f"{b}/{a}"
        if kind == "hands":
            data["hands"][o][i] = card
        else:
            data[kind][i] = card
    return ScoutState.from_json(data)


def hide_schmaus(state: SchmausState, seat: int | None, rng: random.Random) -> SchmausState:
    """Redistribute the other seats' hands and the draw pile (sizes kept), and
    swap two other seats' secret lays."""
    data = state.to_json()
    others = [o for o in range(state.players) if o != seat]
    pool = [c for o in others for c in data["hands"][o]] + data["draw_pile"]
    rng.shuffle(pool)
    for o in others:
        size = len(data["hands"][o])
        data["hands"][o], pool = pool[:size], pool[size:]
    data["draw_pile"] = pool
    if data["phase"] == "play":
        laid = [o for o in others if data["plays"][o] is not None]
        if len(laid) >= 2:
            a, b = rng.sample(laid, 2)
            data["plays"][a], data["plays"][b] = data["plays"][b], data["plays"][a]
    return SchmausState.from_json(data)


def check_view_hides(state: State, seat: int | None) -> None:
    view = state.view(seat)
    if state.is_over():
        return
    if isinstance(state, ScoutState):
        for o, shown in enumerate(view["hands"]):
            if o == seat:
                assert None not in shown
            else:  # only cards scouted openly are known (S-8)
                assert [c is not None for c in shown] == state.known[o]
    else:
        assert view["hands"] is None
        if view["phase"] != "target":
            assert view["revealed"] is None
    assert ("hand" in view) and (view["hand"] is None) == (seat is None)
    assert json.loads(json.dumps(view)) == view


@pytest.mark.parametrize(("game", "players"), COMBOS)
@FEW
@given(seed=SEEDS, options=SCHMAUS_OPTIONS)
def test_views_do_not_depend_on_unseen_cards(
    game: str, players: int, seed: int, options: dict[str, Any]
) -> None:
    state = new_game(game, players, seed, options if game == "schmaus" else None)
    rng = random.Random(seed)
    seats: list[int | None] = [None, *range(players)]
    changed = 0
    for check, s in zip(checkpoints(seed, game), playthrough(state, rng), strict=False):
        if not check or s.is_over():
            continue
        for seat in seats:
            check_view_hides(s, seat)
            hidden = (
                hide_scout(s, seat, rng) if isinstance(s, ScoutState) else hide_schmaus(s, seat, rng)  # type: ignore[arg-type]
            )
            changed += hidden != s
            assert hidden.view(seat) == s.view(seat), f"seat {seat} sees hidden cards at {s.describe()}"
            if seat is not None:  # and its legal actions are the same
                assert hidden.legal_action_ids(seat) == s.legal_action_ids(seat)
    assert changed, "the hidden cards were never moved: the check is vacuous"


# -- determinism --------------------------------------------------------------------------


@pytest.mark.parametrize(("game", "players"), COMBOS)
@settings(max_examples=2, deadline=None)
@given(seed=SEEDS, options=SCHMAUS_OPTIONS, noise=st.integers(0, 1000))
def test_same_seed_same_game_whatever_the_global_random_does(
    game: str, players: int, seed: int, options: dict[str, Any], noise: int
) -> None:
    opts = options if game == "schmaus" else None
    quiet = new_game(game, players, seed, opts)
    for _ in playthrough(quiet, random.Random(seed)):
        pass
    random.seed(noise)
    noisy = new_game(game, players, seed, opts)
    for step, _ in enumerate(playthrough(noisy, random.Random(seed))):
        random.seed(noise + step)
        random.random()
    assert noisy == quiet
    assert noisy.history == quiet.history


# -- legal actions = accepted actions -------------------------------------------------


ILL_FORMED: dict[str, list[Any]] = {
    "scout": ["", "show", "show 3-1", "scout X @1", "scout L", "flip it", {"type": "jump"}, {"type": "show"},
              {"type": "scout", "end": "up", "insert": 0}, 42, None],
    "schmaus": ["", "play F9", "target x", "x5", "discard", {"type": "play", "cards": "F1"},
                {"type": "discard", "cards": []}, {"type": "target", "opponent": True}, 42, None],
}  # fmt: skip


def check_refused(state: State, seat: int, action: Any) -> None:
    """Refused without a change; a rules refusal can be said in any language:
    it names a reason of the game's catalogue and the values its template needs,
    and it survives pickling (lab workers send errors between processes)."""
    before = state.to_json()
    with pytest.raises(RulesError) as info:
        state.apply(seat, action)
    assert state.to_json() == before
    error = info.value
    if isinstance(error, IllegalActionError):
        text = state.game.reasons[error.reason].format(**error.params)
        assert str(error) == (f"{error.ruling}: {text}" if error.ruling else text)
        copy = pickle.loads(pickle.dumps(error))
        assert type(copy) is type(error) and str(copy) == str(error) and copy.params == error.params


@pytest.mark.parametrize(("game", "players"), COMBOS)
@FEW
@given(seed=SEEDS, options=SCHMAUS_OPTIONS)
def test_legal_actions_are_exactly_the_accepted_ones(
    game: str, players: int, seed: int, options: dict[str, Any]
) -> None:
    state = new_game(game, players, seed, options if game == "schmaus" else None)
    engine = get_game(game)
    total = engine.num_actions(players)
    rng = random.Random(seed)
    for check, s in zip(checkpoints(seed, game), playthrough(state, rng), strict=False):
        if not check or s.is_over():
            continue
        movers = s.to_move()
        for seat in range(players):
            legal = s.legal_action_ids(seat)
            assert len(set(legal)) == len(legal)
            mask = s.legal_mask(seat)
            assert len(mask) == total and sum(mask) == len(legal) and all(mask[i] for i in legal)
            if seat not in movers:
                assert legal == []
                check_refused(s, seat, s.action_from_id(0))
                continue
            assert legal, f"seat {seat} must decide but has no legal action: {s.describe()}"
            for action_id in rng.sample(legal, min(len(legal), 12)):
                action = s.action_from_id(action_id)
                assert s.is_legal(seat, action)
                checked, trusted = s.clone(), s.clone()
                checked.apply(seat, action)
                trusted.apply_id(seat, action_id)
                assert checked == trusted
            legal_set = set(legal)
            near = [i + d for i in rng.sample(legal, min(len(legal), 3)) for d in (-1, 1, 2)]
            for action_id in near + [rng.randrange(total) for _ in range(10)]:
                if 0 <= action_id < total and action_id not in legal_set:
                    try:
                        action = s.action_from_id(action_id)
                    except InvalidActionError:
                        continue  # an unused id (see the notation test)
                    if s.action_id(action) in legal_set:
                        continue  # a listed action written another way (scout R of a one-card set)
                    assert not s.is_legal(seat, action)
                    check_refused(s, seat, action)
            for bad in ILL_FORMED[game]:
                check_refused(s, seat, bad)
            for wrong_seat in (-1, players, 99):
                with pytest.raises(WrongSeatError):
                    s.apply(wrong_seat, s.action_from_id(legal[0]))


# -- notation --------------------------------------------------------------------------


@pytest.mark.parametrize(("game", "players"), COMBOS)
@FEW
@given(seed=SEEDS)
def test_action_notation_json_and_ids_round_trip(game: str, players: int, seed: int) -> None:
    state = new_game(game, players, seed)
    engine = get_game(game)
    rng = random.Random(seed)
    seen: Counter[str] = Counter()
    for check, s in zip(checkpoints(seed, game), playthrough(state, rng), strict=False):
        if not check or s.is_over():
            continue
        for seat in s.to_move():
            for action_id in s.legal_action_ids(seat)[:200]:
                action = s.action_from_id(action_id)
                assert engine.parse_action(action.to_text()) == action
                assert engine.parse_action(action.to_json()) == action
                assert engine.parse_action(json.loads(json.dumps(action.to_json()))) == action
                assert s.action_id(action) == action_id
                seen[type(action).__name__] += 1
    assert seen
    unused = 0
    for action_id in [rng.randrange(engine.num_actions(players)) for _ in range(400)]:
        try:
            action = state.action_from_id(action_id)
        except InvalidActionError as exc:  # Scout numbers shows past the last position
            assert "no Scout action has this id" in str(exc)
            unused += 1
            continue
        assert engine.action_id(engine.parse_action(action.to_text())) == action_id
        assert engine.action_id(action.to_json()) == action_id
    assert game == "scout" or unused == 0  # Waschbär-Schmaus uses every id


# -- is_legal, legal_action_ids and apply agree on every expressible action -----------


def scout_expressible(state: ScoutState, seat: int) -> list[Any]:
    """Every Scout action the notation can write for this hand, a little beyond
    its edges too (positions one past the hand, and past the numbering)."""
    from spieltisch.engine.scout.actions import Flip, Scout, ScoutShow, Show

    h = len(state.hands[seat])
    out: list[Any] = [Flip(False), Flip(True), Show(0, 46), Show(45, 1), Scout("left", False, 46)]
    out += [Show(start, count) for start in range(h + 2) for count in range(1, h + 3 - start)]
    scouts = [
        Scout(end, turn, at) for end in ("left", "right") for turn in (False, True) for at in range(h + 2)
    ]
    out += scouts
    shows = [Show(start, count) for start in range(h + 2) for count in range(1, h + 3 - start)]
    out += [ScoutShow(scout, show) for scout in scouts for show in shows]
    return out


def schmaus_expressible(state: SchmausState, seat: int) -> list[Any]:
    """Every Waschbär-Schmaus action of at most three cards (and two of four)."""
    from itertools import combinations_with_replacement

    from spieltisch.engine.schmaus.actions import Discard, Play, Target, Times5

    kinds = range(12)
    out: list[Any] = [Play((0, 0, 0, 0)), Play((0, 1, 2, 3))]
    for size in range(4):
        out += [Play(combo) for combo in combinations_with_replacement(kinds, size)]
        if size:
            out += [Discard(combo) for combo in combinations_with_replacement(kinds, size)]
    out += [Target(t) for t in range(6)] + [Times5(k) for k in kinds]
    return out


def check_agreement(state: State, seat: int, sample: random.Random | None = None) -> int:
    """``is_legal``, ``legal_action_ids`` and ``apply`` say the same of every
    expressible action of ``seat`` (with ``sample``: of 300 of them, for a seat
    that is not to move); returns how many were legal."""
    from spieltisch.engine.schmaus.actions import DISCARD_BASE, Discard

    listed = set(state.legal_action_ids(seat))
    before = state.to_json()
    covered: set[int] = set()
    actions = (
        scout_expressible(state, seat)  # type: ignore[arg-type]
        if isinstance(state, ScoutState)
        else schmaus_expressible(state, seat)  # type: ignore[arg-type]
    )
    if sample is not None and len(actions) > 300:
        actions = sample.sample(actions, 300)
    legal_count = 0
    for action in actions:
        legal = state.is_legal(seat, action)
        if isinstance(action, Discard) and len(action.cards) > 1:
            # several cards = the one-card discards one after another (each one listed)
            twin = state.clone()
            listed_in_turn = True
            for k in action.cards:
                if DISCARD_BASE + k not in twin.legal_action_ids(seat):
                    listed_in_turn = False
                    break
                twin.apply_id(seat, DISCARD_BASE + k)
            assert legal == listed_in_turn, f"{action} at {state.describe()}"
        else:
            try:
                action_id: int | None = state.action_id(action)
            except InvalidActionError:
                action_id = None
            assert legal == (action_id in listed), f"{action}: is_legal {legal} at {state.describe()}"
            if action_id is not None and legal:
                covered.add(action_id)
        if legal:
            legal_count += 1
            applied = state.clone()
            applied.apply(seat, action)
            if not isinstance(action, Discard) or len(action.cards) == 1:
                trusted = state.clone()
                trusted.apply_id(seat, state.action_id(action))
                assert applied == trusted
        else:
            try:
                state.apply(seat, action)
            except RulesError:
                pass
            else:
                raise AssertionError(f"{action} is not legal, but apply accepted it at {state.describe()}")
    if sample is None:
        assert covered == listed, f"listed but not expressible: {sorted(listed - covered)[:5]}"
    assert state.to_json() == before, "a refused action changed the state"
    return legal_count


def agreement_points(seed: int) -> Iterator[bool]:
    """The first step and two more among the next 150 (Scout's checks are costly)."""
    rng = random.Random(seed ^ 0xA9EE)
    points = {0, *rng.sample(range(1, 150), 2)}
    step = 0
    while True:
        yield step in points
        step += 1


@pytest.mark.parametrize(("game", "players"), COMBOS)
@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, options=SCHMAUS_OPTIONS)
def test_is_legal_ids_and_apply_agree_and_someone_can_always_move(
    game: str, players: int, seed: int, options: dict[str, Any]
) -> None:
    state = new_game(game, players, seed, options if game == "schmaus" else None)
    rng = random.Random(seed)
    phases: Counter[str] = Counter()
    for check, s in zip(agreement_points(seed), playthrough(state, rng), strict=False):
        if s.is_over():
            break
        movers = s.to_move()
        assert movers, f"not over, but nobody is to move: {s.describe()}"
        for seat in movers:
            assert s.legal_action_ids(seat), f"seat {seat} must decide but cannot: {s.describe()}"
        if check:
            phase: str = s.phase  # type: ignore[attr-defined]
            phases[phase] += 1
            for seat in range(players):
                legal = check_agreement(s, seat, None if seat in movers else rng)
                assert (legal > 0) == (seat in movers)
    assert phases


def test_agreement_in_every_schmaus_phase() -> None:
    """Each phase at least once, also the rare ones the random checkpoints above
    may miss: the grocer/×5 choices and the hand-limit discards (W-9, W-11, W-16)."""
    wanted = {"play", "target", "discard"}
    options = {"hand_limit": 8, "loser_draws": 4, "rounds": 6}
    seen: set[str] = set()
    for seed in range(40):
        state = new_game("schmaus", 2 + seed % 4, seed, options)
        for s in playthrough(state, random.Random(seed)):
            phase: str = s.phase  # type: ignore[attr-defined]
            if seen >= wanted or s.is_over():
                break
            if phase not in seen:
                seen.add(phase)
                for seat in range(s.players):
                    check_agreement(s, seat)
        if seen >= wanted:
            break
    assert seen == wanted


# -- hand-made positions: refused, or someone can always move ---------------------------


@st.composite
def scout_positions(draw: st.DrawFn) -> dict[str, Any]:
    players = draw(st.integers(2, 5))
    cards = draw(st.permutations(scout_deck(players)))
    sizes = [draw(st.integers(0, 6)) for _ in range(players)]
    hands, rest = [], list(cards)
    for size in sizes:
        hand, rest = rest[:size], rest[size:]
        hands.append([c if draw(st.booleans()) else (c % 11) * 11 + c // 11 for c in hand])
    table = rest[: draw(st.integers(0, 3))]
    to_move = draw(st.integers(0, players - 1))
    return {
        "players": players,
        "hands": hands,
        "table": table,
        "owner": draw(st.integers(0, players - 1)) if table else None,
        "to_move": to_move,
        "phase": draw(st.sampled_from(["play", "flip"])),
        "chips": [draw(st.integers(0, 3 if players == 2 else 1)) for _ in range(players)],
    }


@settings(max_examples=150, deadline=None)
@given(position=scout_positions(), seed=SEEDS)
def test_a_scout_position_is_refused_or_playable_to_its_end(position: dict[str, Any], seed: int) -> None:
    """S-10, S-15: a hand-made position nobody could move in is refused naming the
    ruling; any accepted one plays to the end of its round with a legal action at
    every decision."""
    from spieltisch.engine.core import OptionsError

    try:
        state = ScoutState.from_position(**position)
    except OptionsError as exc:
        assert str(exc)[:2] in ("S-",) or "table cards" in str(exc), str(exc)
        return
    rng = random.Random(seed)
    for s in playthrough(state, rng, limit=500):
        if s.is_over():
            break
        for seat in s.to_move():
            assert s.legal_action_ids(seat), f"seat {seat} cannot move: {s.describe()}"
    assert state.is_over()
