"""Observation and information-state tensors come from a seat's view only (docs/rl.md)."""

from __future__ import annotations

import random
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from spieltisch.engine import get_game  # noqa: E402
from spieltisch.rl.episode import Episode  # noqa: E402
from spieltisch.rl.schmaus import obs as schmaus_obs  # noqa: E402
from spieltisch.rl.schmaus.episode import SchmausEpisode  # noqa: E402
from spieltisch.rl.scout import obs as scout_obs  # noqa: E402
from spieltisch.rl.scout.episode import ScoutEpisode  # noqa: E402


def play_randomly(episode: Episode, steps: int, rng: random.Random) -> None:
    for _ in range(steps):
        if episode.is_over():
            return
        seat = episode.to_move()[0]
        episode.step(seat, rng.choice(episode.legal_ids(seat)))


def reshuffle_scout(data: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
    """The same position with every card ``seat`` cannot see dealt anew (hand sizes kept)."""
    data = {**data, "hands": [list(h) for h in data["hands"]], "set_aside": list(data["set_aside"])}
    slots = [(s, i) for s, hand in enumerate(data["hands"]) if s != seat for i in range(len(hand))]
    slots = [(s, i) for s, i in slots if not data["known"][s][i]]
    cards = [data["hands"][s][i] for s, i in slots] + data["set_aside"]
    rng.shuffle(cards)
    cards = ["/".join(reversed(c.split("/"))) if rng.random() < 0.5 else c for c in cards]
    for (s, i), card in zip(slots, cards, strict=False):
        data["hands"][s][i] = card
    data["set_aside"] = cards[len(slots) :]
    return data


def reshuffle_schmaus(data: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
    hidden = [c for s, hand in enumerate(data["hands"]) if s != seat for c in hand] + data["draw_pile"]
    rng.shuffle(hidden)
    hands = []
    for s, hand in enumerate(data["hands"]):
        if s == seat:
            hands.append(list(hand))
        else:
            hands.append(sorted(hidden[: len(hand)]))
            hidden = hidden[len(hand) :]
    return {**data, "hands": hands, "draw_pile": hidden}


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_scout_tensors_ignore_hidden_cards(players: int) -> None:
    rng = random.Random(players)
    game = get_game("scout")
    changed = 0
    for trial in range(6):
        episode = ScoutEpisode(players, seed=trial)
        play_randomly(episode, rng.randrange(0, 40), rng)
        if episode.is_over():
            continue
        for seat in range(players):
            other = ScoutEpisode(players, seed=trial)
            other.state = game.state_from_json(reshuffle_scout(episode.state.to_json(), seat, rng))
            other.memory = episode.memory.copy()
            other.pending = episode.pending
            assert np.array_equal(episode.observe(seat), other.observe(seat))
            assert np.array_equal(episode.information_state(seat), other.information_state(seat))
            assert np.array_equal(
                scout_obs.spectator_tensor(episode.state), scout_obs.spectator_tensor(other.state)
            )
            if not np.array_equal(
                scout_obs.full_state_tensor(episode.state), scout_obs.full_state_tensor(other.state)
            ):
                changed += 1  # the reshuffle did change hidden cards
    assert changed > 0


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_schmaus_tensors_ignore_hidden_cards(players: int) -> None:
    rng = random.Random(players)
    game = get_game("schmaus")
    changed = 0
    for trial in range(6):
        episode = SchmausEpisode(players, seed=trial)
        play_randomly(episode, rng.randrange(0, 60), rng)
        for seat in range(players):
            other = SchmausEpisode(players, seed=trial)
            other.state = game.state_from_json(reshuffle_schmaus(episode.state.to_json(), seat, rng))
            assert np.array_equal(episode.observe(seat), other.observe(seat))
            assert np.array_equal(episode.information_state(seat), other.information_state(seat))
            full = schmaus_obs.full_state_tensor
            if not np.array_equal(full(episode.state), full(other.state)):
                changed += 1
    assert changed > 0


def test_shapes_and_dtypes() -> None:
    scout = ScoutEpisode(4, seed=1)
    schmaus = SchmausEpisode(4, seed=1)
    assert scout.observe(0).shape == (scout_obs.OBS_SIZE,) == (1380,)
    assert scout.information_state(0).shape == (scout_obs.INFO_SIZE,) == (1610,)
    assert scout_obs.full_state_tensor(scout.state).shape == (scout_obs.FULL_SIZE,)
    assert schmaus.observe(0).shape == (schmaus_obs.OBS_SIZE,) == (143,)
    assert schmaus.information_state(0).shape == (schmaus_obs.INFO_SIZE,) == (268,)
    assert schmaus_obs.full_state_tensor(schmaus.state).shape == (schmaus_obs.FULL_SIZE,)
    for t in (scout.observe(0), scout.information_state(0), schmaus.observe(0), schmaus.information_state(0)):
        assert t.dtype == np.float32
    assert scout.mask(0).dtype == np.int8 and schmaus.mask(0).dtype == np.int8


def test_scout_hand_slots_encode_the_cards_in_order() -> None:
    episode = ScoutEpisode(4, seed=3)
    view = episode.state.view(1, log=False)
    obs = episode.observe(1)
    for i, text in enumerate(view["hand"]):
        top, bottom = map(int, text.split("/"))
        slot = obs[scout_obs.HAND + i * scout_obs.CARD : scout_obs.HAND + (i + 1) * scout_obs.CARD]
        assert slot[top - 1] == 1 and slot[10 + bottom - 1] == 1 and slot.sum() == 2
    assert obs[scout_obs.HAND + len(view["hand"]) * scout_obs.CARD :][: scout_obs.CARD].sum() == 0


def test_scout_show_half_sees_the_hand_after_the_scout() -> None:
    rng = random.Random(5)
    for seed in range(30):
        episode = ScoutEpisode(4, seed=seed)
        while not episode.is_over():
            seat = episode.to_move()[0]
            halves = [a for a in episode.legal_ids(seat) if a >= 1221]
            if halves:
                before = episode.observe(seat)
                episode.step(seat, halves[0])
                after = episode.observe(seat)
                assert after[scout_obs.SCALAR + 3] == 1 and before[scout_obs.SCALAR + 3] == 0
                hand = episode.state.view(seat, log=False)["hand"]
                # one more card in the hand slots
                filled = after[: scout_obs.MAX_HAND * scout_obs.CARD].reshape(-1, scout_obs.CARD).sum(1)
                assert int((filled > 0).sum()) == len(hand) + 1
                assert all(a < 1221 for a in episode.legal_ids(seat))
                return
            episode.step(seat, rng.choice(episode.legal_ids(seat)))
    pytest.fail("no scout & show in 30 games")


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_sealed_commits_stay_hidden_until_the_reveal(players: int) -> None:
    """Turn-based sealed decisions (S-5 flips, W-4 lays): what a seat committed is
    invisible to the others until everyone has decided."""
    for make, first, second in (
        (ScoutEpisode, 0, 1),  # keep or turn the hand (S-5)
        (SchmausEpisode, None, None),  # two different lays of seat 0 (W-4)
    ):
        a, b = make(players, seed=players), make(players, seed=players)
        legal = a.legal_ids(0)
        a.step(0, legal[0] if first is None else first)
        b.step(0, legal[-1] if second is None else second)
        assert not np.array_equal(a.observe(0), b.observe(0))  # the seat itself knows
        for seat in range(1, players):
            assert np.array_equal(a.observe(seat), b.observe(seat))
            assert np.array_equal(a.information_state(seat), b.information_state(seat))
