"""The built-in Scout bots: views only, legal play, budgets, seeds, judgement."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from itertools import pairwise
from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spieltisch.bots import Budget, make_bot
from spieltisch.bots.base import Bot
from spieltisch.bots.match import play_match
from spieltisch.bots.scout import HARD_V7, HARD_V12, EasyBot, HardBot, HardConfig, MediumBot, policy
from spieltisch.bots.scout.bots import (
    distinct_candidates,
    game_utility,
    ranked_actions,
    round_utility,
    set_through,
)
from spieltisch.bots.scout.policy import score_actions
from spieltisch.bots.scout.worlds import Knowledge, Position, Structure, sample_world
from spieltisch.engine.scout import ScoutState, parse_card
from spieltisch.engine.scout.cards import ALL_CARDS, TOP, identity

SMALL = Budget(iterations=12)
"""Hard bot budget for tests: 12 playouts per decision, no wall-clock cap, so
its decisions do not depend on the machine's speed."""


def cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def bot(level: str, seat: int, seed: int = 3) -> Bot:
    budget = SMALL if level.startswith("hard") else None
    return make_bot("scout", level, seat, seed, budget)


def test_levels_are_registered() -> None:
    assert isinstance(make_bot("scout", "easy", 0, 1), EasyBot)
    assert isinstance(make_bot("scout", "medium", 0, 1), MediumBot)
    assert isinstance(make_bot("scout", "hard", 0, 1), HardBot)


# -- bots only ever see views ---------------------------------------------------

TABLE = cards("5/2 5/6")


def deal(players: int, size: int, seed: int) -> list[list[int]]:
    """Hands of ``size`` cards from a seeded deck without the table's cards."""
    deck = [c for c in ALL_CARDS if c not in {identity(t) for t in TABLE}]
    random.Random(seed).shuffle(deck)
    return [deck[i * size : (i + 1) * size] for i in range(players)]


def twin_positions(phase: str) -> tuple[ScoutState, ScoutState]:
    """Two positions that differ only in cards seat 0 cannot see (the hidden
    hands of seats 1 and 2 are swapped; both hold 8 cards)."""
    table = TABLE if phase == "play" else []
    owner = 3 if phase == "play" else None
    h = deal(4, 8, 1)
    a = ScoutState.from_position(4, [h[0], h[1], h[2], h[3]], table, owner, 0, phase)
    b = ScoutState.from_position(4, [h[0], h[2], h[1], h[3]], table, owner, 0, phase)
    assert a.view(0) == b.view(0)
    assert a.hands != b.hands
    return a, b


@pytest.mark.parametrize("level", ["easy", "medium", "hard", "hard@v7"])
@pytest.mark.parametrize("phase", ["play", "flip"])
def test_decisions_depend_only_on_the_view(level: str, phase: str) -> None:
    a, b = twin_positions(phase)
    for seed in range(3):
        first = bot(level, 0, seed).choose(a.view(0), a.legal_action_ids(0))
        second = bot(level, 0, seed).choose(b.view(0), b.legal_action_ids(0))
        assert first == second


def test_sampled_worlds_keep_what_the_seat_has_seen() -> None:
    # Seat 1 scouts the 5/6 openly (S-8): every world the hard bot samples
    # for seat 0 keeps it at that position, deals seat 0's own hand unchanged
    # and gives every opponent the right number of cards.
    state = ScoutState.from_position(3, deal(3, 9, 2), TABLE, 0, 1, "play")
    state.apply(1, "scout R @0")
    shows = [a for a in state.legal_action_ids(2) if state.action_from_id(a).to_text().startswith("show")]
    state.apply_id(2, shows[0])
    assert state.to_move() == (0,)
    view = state.view(0)
    assert view["hands"][1][0] == "5/6"
    pos = Position.from_view(view)
    knowledge = Knowledge()
    knowledge.update(view, pos)
    rng = random.Random(0)
    worlds = [sample_world(pos, knowledge.unseen(pos), rng) for _ in range(20)]
    for world in worlds:
        assert world.hands[0] == state.hands[0]
        assert world.hands[1][0] == parse_card("5/6")
        assert [len(h) for h in world.hands] == [len(h) for h in state.hands]
        assert world.table == state.table
    assert len({tuple(w.hands[2]) for w in worlds}) > 1
    hard = HardBot("scout", 0, 1, SMALL)
    assert hard.choose(view, state.legal_action_ids(0)) in state.legal_action_ids(0)


def set_pairs(hand: Sequence[int]) -> int:
    """Adjacent cards that form a set (a match or a run step, S-6)."""
    vals = [TOP[c] for c in hand]
    return sum(abs(a - b) <= 1 for a, b in pairwise(vals))


def test_structured_worlds_keep_the_view_and_lean_towards_sets() -> None:
    # hard@v12's worlds: every card the seat knows stays where it is, no card
    # is dealt twice or from outside the unseen pool, and the opponents' hands
    # hold more adjacent sets than uniform worlds' (Structure's reason).
    state = mid_round(5, 7, 8)
    view = state.view(0)
    pos = Position.from_view(view)
    knowledge = Knowledge()
    knowledge.update(view, pos)
    pool = knowledge.unseen(pos)
    allowed = {identity(c) for c in pool}
    counts = {"uniform": 0, "structured": 0}
    for name, structure in (("uniform", None), ("structured", Structure())):
        rng = random.Random(3)
        for _ in range(300):
            world = sample_world(pos, pool, rng, structure)
            assert world.hands[0] == state.hands[0]
            assert world.table == state.table
            dealt = [identity(c) for s in range(1, 5) for c in world.hands[s]]
            assert len(dealt) == len(set(dealt))
            for s in range(1, 5):
                assert len(world.hands[s]) == len(state.hands[s])
                for c, known in zip(pos.hands[s], world.hands[s], strict=True):
                    if c is None:
                        assert identity(known) in allowed
                    else:
                        assert known == c
                counts[name] += set_pairs(world.hands[s])
    assert counts["structured"] > 1.15 * counts["uniform"]


# -- legal over whole games ---------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_whole_games_are_legal(level: str, players: int) -> None:
    # The hard bot (slow by design) plays one seat, rotating with the seed.
    for seed in (0, 1, 2):
        bots = [
            bot(level if level != "hard" or s == seed % players else "medium", s, seed)
            for s in range(players)
        ]
        result = play_match("scout", bots, seed)
        assert result.state.is_over()
        assert result.faults == [0] * players, result.fault_messages


def test_two_player_bots_use_chips_and_no_scout_and_show() -> None:
    # S-13, S-14: in the 2-player variant scouting costs a chip and there is
    # no scout & show; the bots play it without a fault.
    bots = [bot("hard", 0, 5), bot("medium", 1, 5)]
    result = play_match("scout", bots, 5)
    texts = [result.state.action_from_id(a).to_text() for _, a in result.state.history]
    assert result.faults == [0, 0]
    assert not any(t.startswith("scout") and "show" in t for t in texts)
    assert any(t.startswith("scout") for t in texts)


def random_play_position(players: int, seed: int, steps: int) -> ScoutState | None:
    """A seeded game after ``steps`` random legal actions, or None unless it is then
    in the play phase (over, or flipping)."""
    state = ScoutState.new(players, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_over():
            return None
        seat = state.to_move()[0]
        legal = state.legal_action_ids(seat)
        state.apply_id(seat, legal[rng.randrange(len(legal))])
    if state.is_over() or state.phase != "play":
        return None
    return state


def play_positions(max_steps: int) -> st.SearchStrategy[ScoutState]:
    """Seeded 2-5-player games after up to ``max_steps`` random legal actions,
    in the play phase (:func:`random_play_position`)."""
    games = st.builds(
        random_play_position, st.integers(2, 5), st.integers(0, 10_000), st.integers(0, max_steps)
    )
    return games.filter(lambda state: state is not None).map(lambda state: cast(ScoutState, state))


@settings(max_examples=25, deadline=None)
@given(state=play_positions(40))
def test_medium_scores_exactly_the_legal_actions(state: ScoutState) -> None:
    players = state.players
    seat = state.current
    scored = score_actions(state.hands[seat], state.table, players, state.chips[seat])
    ids = [a for _, a in scored]
    assert sorted(ids) == sorted(state.legal_action_ids(seat))


@settings(max_examples=60, deadline=None)
@given(state=play_positions(60))
def test_the_playouts_fast_policy_picks_what_the_scored_list_ranks_first(state: ScoutState) -> None:
    players = state.players
    seat = state.current
    args = (state.hands[seat], state.table, players, state.chips[seat])
    scored = score_actions(*args, full=False)
    first_best = max(scored, key=lambda t: t[0])[1]  # max keeps the first of equal scores
    assert policy._best_pruned(*args) == first_best


# -- budget and seeds ---------------------------------------------------------------


def test_hard_respects_a_wall_clock_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    state = ScoutState.new(5, 11)
    for seat in range(5):
        state.apply_id(seat, 0)
    medium = MediumBot("scout", 0, 1)
    while state.table == [] or len(state.legal_action_ids(state.current)) < 10:
        seat = state.current
        state.apply_id(seat, medium.choose(state.view(seat), state.legal_action_ids(seat)))
    seat = state.current
    # A clock that moves a second per reading: a 0.05 s cap is over after the
    # first playout, although 1,000 are allowed (no timed test on a shared machine).
    readings = [0]

    def clock() -> float:
        readings[0] += 1
        return float(readings[0])

    monkeypatch.setattr(time, "perf_counter", clock)
    hard = HardBot("scout", seat, 1, Budget(seconds=0.05))
    assert hard.choose(state.view(seat), state.legal_action_ids(seat)) in state.legal_action_ids(seat)
    assert 1 <= readings[0] <= 3
    readings[0] = 0
    free = HardBot("scout", seat, 1, Budget(iterations=60))
    assert free.choose(state.view(seat), state.legal_action_ids(seat)) in state.legal_action_ids(seat)
    assert readings[0] > 10  # uncapped, the same search runs its playouts


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_same_seed_same_decisions(level: str) -> None:
    histories = []
    for disturbance in (1, 2):
        random.seed(disturbance)  # the global generator must not matter
        bots = [bot(level, 0, 9), bot(level, 1, 9), bot("medium" if level == "hard" else level, 2, 9)]
        histories.append(play_match("scout", bots, 4).state.history)
    assert histories[0] == histories[1]


def test_easy_is_noisy_across_seeds() -> None:
    # Easy is sensible but not deterministic: different seeds play differently.
    histories = {tuple(play_match("scout", [bot("easy", s, seed) for s in range(4)], 2).state.history)
                 for seed in range(4)}  # fmt: skip
    assert len(histories) > 1


# -- judgement ------------------------------------------------------------------------


@pytest.mark.parametrize("level", ["easy", "medium", "hard", "hard@v7"])
def test_shows_the_run_that_ends_the_round(level: str) -> None:
    # Seat 0 holds 3-4-5 and can beat the pair on the table, emptying its hand
    # (S-7: more cards beat fewer; S-10 (a): the round ends at once). Scouting
    # instead would only hand seat 1 a token.
    hands = [cards("3/9 4/1 5/7"), cards("1/2 2/3 6/8 7/8"), cards("1/3 2/4 6/9 7/9"), cards("1/5 2/5 6/10")]
    state = ScoutState.from_position(4, hands, cards("8/10 8/2"), 1, 0, "play")
    choice = bot(level, 0).choose(state.view(0), state.legal_action_ids(0))
    assert state.action_from_id(choice).to_text() == "show 0-2"


def test_medium_prefers_keeping_a_run_to_breaking_it() -> None:
    # The table holds a single 6; seat 0 can beat it with the single 7 (which
    # would break its 7-8-9 run) or with the separate single 10.
    # Seat 0 has used its scout & show chip (S-9), so it shows or scouts.
    hands = [cards("7/1 8/2 9/3 4/1 10/5"), cards("1/2 2/3 3/4"), cards("1/5 2/6 3/5")]
    state = ScoutState.from_position(3, hands, cards("6/4"), 1, 0, "play", chips=[0, 1, 1])
    choice = bot("medium", 0).choose(state.view(0), state.legal_action_ids(0))
    assert state.action_from_id(choice).to_text() != "show 0"
    assert state.action_from_id(choice).to_text() in ("show 0-2", "show 4")


def test_medium_flips_a_hand_that_is_better_upside_down() -> None:
    # Live numbers 1 9 4 7 2 are junk; turned (S-5: mirrored, other number up)
    # the hand reads 2 3 4 5 6, one long run.
    hand = cards("1/6 9/5 10/4 7/3 3/2")
    hands = [hand, cards("1/2 2/5 3/4 4/5 5/6"), cards("1/3 2/6 3/5 4/6 5/7")]
    state = ScoutState.from_position(3, hands, to_move=0, phase="flip")
    medium = bot("medium", 0)
    assert medium.choose(state.view(0), state.legal_action_ids(0)) == 1
    state.apply(0, "flip")
    assert [c.split("/")[0] for c in state.view(0)["hand"]] == ["2", "3", "4", "5", "6"]


# -- hard: deliberate scouts, candidates by table size, a utility over the whole game --


def test_set_through_measures_the_set_a_card_joins() -> None:
    assert set_through([3, 4, 5, 6, 9], 2) == 4  # the run 3-4-5-6
    assert set_through([9, 7, 7, 7, 2], 1) == 3  # the match 7-7-7
    assert set_through([8, 7, 6, 1], 0) == 3  # a falling run is a run too (S-6)
    assert set_through([1, 5, 9], 1) == 1


@pytest.mark.parametrize("config", [HARD_V12, HARD_V7])
def test_hard_also_searches_the_scout_that_builds_a_long_run(config: HardConfig) -> None:
    # The table's right end is a 5; scouted between 4 and 6 it makes 3-4-5-6-7,
    # a five-card run. Medium ranks other moves first; hard searches this one too.
    hands = [cards("3/9 4/1 6/2 7/1 10/5 1/8 9/2 2/7"), cards("1/2 2/3 6/8 7/8 8/9"),
             cards("1/3 2/4 6/9 7/9 4/8"), cards("1/5 2/5 6/10 3/10")]  # fmt: skip
    state = ScoutState.from_position(4, hands, cards("4/9 5/8"), 3, 0, "play")
    pos = Position.from_view(state.view(0))
    legal = state.legal_action_ids(0)
    hard = HardBot("scout", 0, 1, config=config).candidate_actions(pos, legal)
    medium = distinct_candidates(pos, ranked_actions(pos, legal), config.candidates)
    texts = [state.action_from_id(a).to_text() for a in hard]
    assert "scout R @2" in texts
    assert set(medium) < set(hard)


@settings(max_examples=40, deadline=None)
@given(state=play_positions(60))
def test_wider_candidates_at_a_five_player_table(state: ScoutState) -> None:
    # Medium's best distinct moves first (six, ten with five players), then up to
    # two (three) long-set scouts; every kept version alike.
    seat = state.current
    pos = Position.from_view(state.view(seat))
    legal = state.legal_action_ids(seat)
    best, scouts = (10, 3) if state.players >= 5 else (6, 2)
    assert HARD_V7.widths(state.players) == HARD_V12.widths(state.players) == (best, scouts)
    cands = HardBot("scout", seat, 1, config=HARD_V7).candidate_actions(pos, legal)
    assert HardBot("scout", seat, 1).candidate_actions(pos, legal) == cands
    assert set(cands) <= set(legal) and len(cands) == len(set(cands))
    assert len(cands) <= best + scouts
    every = distinct_candidates(pos, ranked_actions(pos, legal), len(legal))  # medium's, best first
    assert cands[: min(len(every), best)] == every[:best]


def test_game_utility_values_the_lead_before_the_last_round() -> None:
    # Round 2 of 4: the same round points are worth more to a seat that leads
    # the game than to one far behind; in the last round it is the round's score.
    state = ScoutState.from_position(4, deal(4, 8, 3), TABLE, 3, 0, "play")
    pos = Position.from_view(state.view(0))
    pos.round, pos.rounds = 2, 4
    points = [3, 1, 0, -2]
    pos.scores = [10, 0, 0, 0]
    ahead = game_utility(points, pos)
    pos.scores = [-10, 0, 0, 0]
    behind = game_utility(points, pos)
    assert ahead > behind
    assert game_utility([5, 1, 0, -2], pos) > behind
    pos.round = 4
    assert game_utility(points, pos) == round_utility(points, pos)


# -- the incremental playout policy (the review's) ---------------------------------------

values = st.lists(st.integers(1, 10), min_size=1, max_size=12)


WEIGHTS = {
    "medium": policy.MEDIUM,
    "other": policy.Weights(card=0.55, token=0.45, ss_chip=0.4, empty_bonus=3.75, match=1.12, run=0.89,
                            growth=0.08, slope=0.06, low=0.025, exposure=0.33),
}  # fmt: skip


@settings(max_examples=100, deadline=None)
@given(
    vals=values,
    at=st.integers(0, 12),
    v=st.integers(1, 10),
    cut=st.integers(0, 11),
    n=st.integers(1, 11),
    weights=st.sampled_from(sorted(WEIGHTS)),
)
def test_incremental_hand_values_equal_the_whole_programme(
    vals: list[int], at: int, v: int, cut: int, n: int, weights: str
) -> None:
    # A scouted card (S-8) and a shown set (S-6) change the best split of the
    # hand only next to them: the incremental value is the full one, under
    # medium's weights (the memoised hand_value) and under others.
    w = WEIGHTS[weights]
    f, g = policy._prefix(vals, None, 0, w), policy._suffix(vals, None, None, w)
    h = len(vals)
    inserted = [*vals[: min(at, h)], v, *vals[min(at, h) :]]
    with_v = policy.value_with(vals, f, g, min(at, h), v, w)
    assert with_v == pytest.approx(w.value(inserted), abs=1e-9)
    if w is policy.MEDIUM:
        assert w.value(inserted) == policy.hand_value(inserted)
    s = min(cut, h - 1)
    n = min(n, h - s)
    if n < h:
        assert policy.value_without(vals, f, g, s, n, w) == pytest.approx(
            w.value(vals[:s] + vals[s + n :]), abs=1e-9
        )


@settings(max_examples=60, deadline=None)
@given(state=play_positions(60))
def test_fast_playouts_pick_a_best_scored_action(state: ScoutState) -> None:
    # The fast policy plays medium's policy: its action has the highest
    # pruned score (of equal scores it may take another, by rounding).
    players = state.players
    seat = state.current
    args = (state.hands[seat], state.table, players, state.chips[seat])
    scored = dict((a, score) for score, a in score_actions(*args, full=False))
    if not scored:
        return
    chosen = policy.fast_best_action(*args)
    assert chosen in state.legal_action_ids(seat)
    assert scored[chosen] == pytest.approx(max(scored.values()), abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(state=play_positions(60))
def test_default_weights_are_mediums(state: ScoutState) -> None:
    # A fresh Weights() is medium's policy, move for move.
    seat = state.current
    args = (state.hands[seat], state.table, state.players, state.chips[seat])
    assert policy.fast_best_action(*args, policy.Weights()) == policy.fast_best_action(*args)


def test_the_fast_policy_scores_as_score_actions() -> None:
    for players, seed in ((2, 1), (4, 2), (5, 3)):
        state = ScoutState.new(players, seed)
        rng = random.Random(seed)
        for _ in range(40):
            if state.is_over():
                break
            seat = state.to_move()[0]
            legal = state.legal_action_ids(seat)
            if state.phase == "play":
                args = (state.hands[seat], state.table, players, state.chips[seat])
                best = max(s for s, _ in score_actions(*args, full=False))
                chosen = policy.fast_best_action(*args)
                scored = {a: s for s, a in score_actions(*args, full=False)}
                assert scored[chosen] == pytest.approx(best, abs=1e-9)
            state.apply_id(seat, legal[rng.randrange(len(legal))])


def mid_round(players: int, seed: int, turns: int) -> ScoutState:
    """A seeded game played by medium bots until seat 0 is to move in the play
    phase after at least ``turns`` moves of this round (so the round's record
    holds opponents' decisions to weight the worlds by)."""
    state = ScoutState.new(players, seed)
    bots = [make_bot("scout", "medium", s, seed) for s in range(players)]
    played = 0
    while True:
        seat = state.to_move()[0]
        if state.phase == "play" and seat == 0 and played >= turns:
            return state
        played = 0 if state.phase == "flip" else played + 1
        state.apply_id(seat, bots[seat].choose(state.view(seat), state.legal_action_ids(seat)))


def hidden_swapped(state: ScoutState) -> ScoutState:
    """The same position with one hidden card of seat 1 and one of seat 2
    exchanged: seat 0's view is unchanged."""
    twin = state.clone()
    i = twin.known[1].index(False)
    j = twin.known[2].index(False)
    twin.hands[1][i], twin.hands[2][j] = twin.hands[2][j], twin.hands[1][i]
    assert twin.view(0) == state.view(0)
    assert twin.hands != state.hands
    return twin


@pytest.mark.parametrize("config", [HARD_V12, HARD_V7])
@pytest.mark.parametrize("players", [4, 5])
def test_search_versions_decide_from_the_view_alone_and_repeat_themselves(
    config: HardConfig, players: int
) -> None:
    # Mid-round: changing cards seat 0 cannot see changes nothing, and the same
    # seed and budget give the same move.
    for seed in (1, 2):
        state = mid_round(players, seed, 6)
        twin = hidden_swapped(state)
        legal = state.legal_action_ids(0)
        first = HardBot("scout", 0, seed, Budget(iterations=40), config).choose(state.view(0), legal)
        assert first in legal
        assert HardBot("scout", 0, seed, Budget(iterations=40), config).choose(twin.view(0), legal) == first
        assert HardBot("scout", 0, seed, Budget(iterations=40), config).choose(state.view(0), legal) == first


def after_the_flips() -> tuple[ScoutState, int]:
    """A 4-player game right after every seat kept its hand (S-4), and the seat to move."""
    state = ScoutState.new(4, 5)
    for seat in range(4):
        state.apply_id(seat, 0)
    return state, state.current


@pytest.mark.parametrize(
    ("config", "position"),
    [(HARD_V7, after_the_flips), (HARD_V12, lambda: (mid_round(5, 3, 6), 0))],
)
def test_hard_counts_its_budget_in_playouts(
    monkeypatch: pytest.MonkeyPatch, config: HardConfig, position: Callable[[], tuple[ScoutState, int]]
) -> None:
    # The budget is work: at most that many playouts per decision, whatever the
    # clock says (a clock that jumps an hour per reading changes nothing).
    state, seat = position()
    view, legal = state.view(seat), state.legal_action_ids(seat)
    counted: list[int] = []
    play_round = policy.play_round

    def counting(*args: Any, **kwargs: Any) -> list[int]:
        counted.append(1)
        return play_round(*args, **kwargs)

    monkeypatch.setattr(policy, "play_round", counting)
    first = HardBot("scout", seat, 4, Budget(iterations=37), config).choose(view, legal)
    assert 12 <= len(counted) <= 37
    used = len(counted)
    readings = [0.0]

    def clock() -> float:
        readings[0] += 3600.0
        return readings[0]

    monkeypatch.setattr(time, "perf_counter", clock)
    counted.clear()
    assert HardBot("scout", seat, 4, Budget(iterations=37), config).choose(view, legal) == first
    assert len(counted) == used
    assert HardBot.default_work == 1000
