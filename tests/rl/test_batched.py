"""The batched Waschbär-Schmaus engine plays exactly like the reference engine (docs/rl.md)."""

from __future__ import annotations

import random
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from spieltisch.engine import get_game  # noqa: E402
from spieltisch.rl import batched  # noqa: E402
from spieltisch.rl.batched import BatchedSchmaus  # noqa: E402
from spieltisch.rl.schmaus_obs import KIND  # noqa: E402

SCHMAUS = get_game("schmaus")


def engine_shuffler(seeds: list[int]) -> batched.Shuffler:
    """The reference engine's W-17 reshuffle of game ``g`` (its seed string, its count)."""

    def shuffle(g: int, number: int, size: int) -> list[int]:
        order = list(range(size))
        random.Random(f"schmaus/{seeds[g]}/reshuffle/{number}").shuffle(order)
        return order

    return shuffle


def counts(cards: list[str]) -> list[int]:
    out = [0] * 12
    for c in cards:
        out[KIND[c]] += 1
    return out


def snapshot(data: dict[str, Any]) -> dict[str, Any]:
    return {
        "hands": [counts(h) for h in data["hands"]],
        "scores": data["scores"],
        "round": data["round"],
        "phase": data["phase"],
        "draw_pile": [KIND[c] for c in data["draw_pile"]],
        "discard": [KIND[c] for c in data["discard"]],
    }


PHASES = {
    batched.PLAY: "play",
    batched.TARGET: "target",
    batched.DISCARD: "discard",
    batched.OVER: "game_over",
}


def batched_snapshot(env: BatchedSchmaus, g: int) -> dict[str, Any]:
    return {
        "hands": env.hands[g].tolist(),
        "scores": env.scores[g].tolist(),
        "round": int(env.round[g]),
        "phase": PHASES[int(env.phase[g])],
        "draw_pile": env.pile[g, : env.pile_len[g]][::-1].tolist(),
        "discard": env.disc[g, : env.disc_len[g]].tolist(),
    }


def run_against_engine(players: int, games: int, seed: int) -> int:
    """Random legal play in both engines; compares every game at every node. Returns nodes compared."""
    seeds = [seed * 10_000 + i for i in range(games)]
    states = [SCHMAUS.new_state(players, s) for s in seeds]
    env = BatchedSchmaus(games, players, shuffler=engine_shuffler(seeds))
    data = [s.to_json() for s in states]
    hands = np.array([[counts(h) for h in d["hands"]] for d in data])
    sizes = np.array([len(d["draw_pile"]) for d in data])
    piles = np.zeros((games, int(sizes.max())), dtype=np.int64)
    for g, d in enumerate(data):
        piles[g, : sizes[g]] = [KIND[c] for c in reversed(d["draw_pile"])]
    env.load(np.arange(games), hands, piles, sizes)
    rng = random.Random(seed)
    nodes = 0
    while not all(s.is_over() for s in states):
        mask = env.legal_mask()
        deciding_all = env.deciding()
        actions = np.full((games, players), -1)
        for g, state in enumerate(states):
            assert batched_snapshot(env, g) == snapshot(state.to_json()), f"game {g} differs at node {nodes}"
            deciding = np.nonzero(deciding_all[g])[0].tolist()
            assert deciding == list(state.to_move())
            for seat in deciding:
                legal = sorted(state.legal_action_ids(seat))
                assert np.nonzero(mask[g, seat])[0].tolist() == legal
                actions[g, seat] = rng.choice(legal)
            for seat in deciding:
                state.apply_id(seat, int(actions[g, seat]))
        change = env.step(actions)
        assert change.shape == (games, players)
        nodes += 1
    for g, state in enumerate(states):
        assert batched_snapshot(env, g) == snapshot(state.to_json())
    return nodes


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_batched_engine_matches_the_reference_engine(players: int) -> None:
    assert run_against_engine(players, games=300, seed=players) > 3 * players


def test_random_play_with_own_deals_and_reset() -> None:
    env = BatchedSchmaus(64, 4, seed=1)
    rng = np.random.default_rng(2)
    finished = 0
    for _ in range(400):
        actions = env.sample_legal(rng)
        mask = env.legal_mask()
        deciding = env.deciding()
        g, s = np.nonzero(deciding)
        assert mask[g, s, actions[g, s]].all()
        assert ((actions >= 0) == deciding).all()  # -1 exactly for the seats that do not decide
        env.step(actions)
        laid = np.where(env.plays >= 0, batched.PLAY_SIZE[np.maximum(env.plays, 0)], 0).sum(1)
        total = env.hands.sum((1, 2)) + env.pile_len + env.disc_len + env.sealed_len.sum(1) + laid
        assert (total == batched.MAX_CARDS).all()  # every card in exactly one place
        assert (env.food == env.hands[:, :, : batched.F_KINDS].sum(-1)).all()
        assert (env.effects == env.hands[:, :, batched.F_KINDS :].sum(-1)).all()
        finished += int((env.phase == batched.OVER).sum())
        env.reset_done()
    assert finished > 0


def test_bad_sizes_are_refused() -> None:
    with pytest.raises(ValueError, match="2 to 5 players"):
        BatchedSchmaus(4, 6)
    with pytest.raises(ValueError, match="at least one game"):
        BatchedSchmaus(0, 3)
