"""The batched Waschbär-Schmaus engine plays exactly like the reference engine (docs/rl.md)."""

from __future__ import annotations

import random
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from spieltisch.engine import get_game  # noqa: E402
from spieltisch.rl.fast import BACKENDS, make_schmaus, numba_available  # noqa: E402
from spieltisch.rl.replay import replay_in_engine  # noqa: E402
from spieltisch.rl.schmaus import batched  # noqa: E402
from spieltisch.rl.schmaus.batched import BatchedSchmaus, engine_shuffler  # noqa: E402
from spieltisch.rl.schmaus.obs import KIND  # noqa: E402

SCHMAUS = get_game("schmaus")

backends = pytest.mark.parametrize(
    "backend",
    [
        "numpy",
        pytest.param(
            "numba",
            marks=pytest.mark.skipif(not numba_available(), reason="numba not installed (extra rl-fast)"),
        ),
    ],
)


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


def run_against_engine(players: int, games: int, seed: int, backend: str = "numpy") -> int:
    """Random legal play in both engines; compares every game at every node. Returns nodes compared."""
    seeds = [seed * 10_000 + i for i in range(games)]
    states = [SCHMAUS.new_state(players, s) for s in seeds]
    env = make_schmaus(games, players, shuffler=engine_shuffler(seeds), backend=backend)
    env.load_states(np.arange(games), states)
    rng = random.Random(seed)
    nodes = 0
    buffer = np.ones((games, players, batched.NUM_ACTIONS), dtype=bool)
    while not all(s.is_over() for s in states):
        if nodes % 2:  # every other node into a reused buffer, which the mask overwrites entirely
            mask = env.legal_mask(out=buffer)
            assert mask is buffer
        else:
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


@backends
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_batched_engine_matches_the_reference_engine(players: int, backend: str) -> None:
    """States, seats to move and the legal mask (numba: its own kernel) at every node."""
    assert run_against_engine(players, games=300, seed=players, backend=backend) > 3 * players


@pytest.mark.skipif(not numba_available(), reason="numba not installed (extra rl-fast)")
@pytest.mark.parametrize(
    ("players", "bit_generator"), [(2, "PCG64"), (3, "PCG64"), (4, "PCG64"), (5, "PCG64"), (4, "MT19937")]
)
def test_numba_backend_plays_the_same_games_as_numpy(players: int, bit_generator: str) -> None:
    """Same seed, same sampling rng: the same actions, score changes, states and legal masks
    at every step, reshuffles (W-17, drawn from the engine's rng) and new deals included;
    through ``sample_legal`` + ``step`` and through ``play_random`` (numba: one kernel). The
    kernels compute numpy's PCG64 themselves (any other bit generator through its C
    functions) and leave both Generators where numpy's would be. About 1,800–5,600 games
    per run (new ones dealt as games end)."""

    def generator(seed: int) -> np.random.Generator:
        return np.random.Generator(getattr(np.random, bit_generator)(seed))

    envs = [make_schmaus(128, players, seed=7, backend=b) for b in (*BACKENDS, "numba")]
    for env in envs:
        env.rng = generator(7)
        env.reset_done(np.ones(128, dtype=bool))
    rngs = [generator(8) for _ in envs]
    reshuffled = 0
    games = 0
    for step in range(300):
        masks = [env.legal_mask() for env in envs]
        assert (masks[0] == masks[1]).all() and (masks[0] == masks[2]).all(), f"masks differ at step {step}"
        actions = [env.sample_legal(rng) for env, rng in zip(envs[:2], rngs, strict=False)]
        changes = [env.step(a) for env, a in zip(envs[:2], actions, strict=True)]
        fused_actions, fused_change = envs[2].play_random(rngs[2])
        actions.append(fused_actions)
        changes.append(fused_change)
        for other in (1, 2):
            assert (actions[0] == actions[other]).all(), f"sampled actions differ at step {step}"
            assert (changes[0] == changes[other]).all(), f"score changes differ at step {step}"
            for name in ("hands", "scores", "pile_len", "disc_len", "phase", "round", "must", "plays", "x5"):
                assert (getattr(envs[0], name) == getattr(envs[other], name)).all(), f"{name} at step {step}"
        reshuffled += int(((envs[1].phase == batched.OVER) * envs[1].reshuffles).sum())
        games += int((envs[1].phase == batched.OVER).sum())
        for env in envs:
            env.reset_done()
    assert reshuffled > 0 or players == 2  # the kernel's own reshuffles ran (two players rarely need one)
    assert games > 1500  # 1,838 at 5 players, 5,638 at 2
    engine_next, sampler_next = envs[0].rng.random(), rngs[0].random()
    for env, rng in zip(envs[1:], rngs[1:], strict=True):  # the Generators' states were stored back
        assert env.rng.random() == engine_next
        assert rng.random() == sampler_next


def every_hand_key(scale: int) -> tuple[Any, list[BatchedSchmaus]]:
    """Two-seat games whose hands are every hand key (times ``scale``: 2 goes over the
    caps of the key), at their lays, in both backends; and those hands."""
    keys = np.arange(batched.NUM_KEYS)
    counts = (keys[:, None] // batched._WEIGHT[None, :]) % batched._RADIX[None, :]
    hands = (scale * counts).reshape(batched.NUM_KEYS // 2, 2, batched.KINDS)
    envs = [make_schmaus(len(hands), 2, seed=3, backend=b) for b in BACKENDS]
    for env in envs:
        env.hands[:] = hands
        env.food[:] = hands[..., : batched.F_KINDS].sum(-1)
        env.effects[:] = hands[..., batched.F_KINDS :].sum(-1)
        env.phase[:] = batched.PLAY
        env.plays[:] = -1
    return hands, envs


@pytest.mark.skipif(not numba_available(), reason="numba not installed (extra rl-fast)")
@pytest.mark.parametrize("scale", [1, 2])
def test_numba_samples_the_same_lay_for_every_hand(scale: int) -> None:
    """The kernel picks lays (W-4, W-5) from small tables by food key, the numpy backend
    from its table of all 131,072 hand keys: the same lays from the same uniform numbers,
    for every hand key (scale 1) and for hands over the caps of the key (scale 2)."""
    _, envs = every_hand_key(scale)
    for seed in range(2):
        numpy_lays, numba_lays = (env.sample_legal(np.random.default_rng(seed)) for env in envs)
        assert (numpy_lays >= 0).all()
        assert (numpy_lays == numba_lays).all()


@pytest.mark.skipif(not numba_available(), reason="numba not installed (extra rl-fast)")
@pytest.mark.parametrize("scale", [1, 2])
@pytest.mark.parametrize("phase", ["lay", "discard before laying", "discard after the round"])
def test_numba_mask_matches_numpy_for_every_hand(scale: int, phase: str) -> None:
    """The numba mask kernel lists lays (W-4, W-5) from tables by food key, the numpy backend
    from its table of all 131,072 hand keys: the same mask for every hand key (scale 1) and
    for hands over the caps of the key (scale 2), as a lay and as a W-16 discard (before
    laying, a discard must keep a legal lay: W-5)."""
    hands, envs = every_hand_key(scale)
    for env in envs:
        if phase != "lay":
            env.phase[:] = batched.DISCARD
            env.must[:] = np.arange(len(hands))[:, None] % 3  # some seats have nothing to discard
            env.before_play[:] = phase == "discard before laying"
    numpy_mask, numba_mask = (env.legal_mask() for env in envs)
    deciding, legal = envs[0].deciding(), numpy_mask.any(-1)
    assert not legal[~deciding].any()  # nothing for the seats that do not decide
    assert legal[deciding & (hands.sum(-1) > batched.HAND_LIMIT)].all()  # as in play: a choice
    assert deciding.sum() > len(hands) // 2
    assert (numpy_mask == numba_mask).all()


@backends
def test_random_play_with_own_deals_and_reset(backend: str) -> None:
    env = make_schmaus(64, 4, seed=1, backend=backend)
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


@backends
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_replay_in_engine_reaches_the_batched_states(players: int, backend: str) -> None:
    """Whole batched games (own random ids, W-17 reshuffles the engine's) replayed in the
    reference engine with the public helper: the same state after every node."""
    games = 8
    seeds = [players * 1000 + g for g in range(games)]
    env = make_schmaus(games, players, shuffler=engine_shuffler(seeds), backend=backend)
    env.load_states(np.arange(games), [SCHMAUS.new_state(players, s) for s in seeds])
    rng = np.random.default_rng(players)
    log: list[list[list[int]]] = [[] for _ in range(games)]
    seen: list[list[dict[str, Any]]] = [[] for _ in range(games)]
    while (env.phase != batched.OVER).any():
        live = env.phase != batched.OVER
        actions = env.sample_legal(rng)
        env.step(actions)
        for g in np.nonzero(live)[0]:
            log[g].append(actions[g].tolist())
            seen[g].append(batched_snapshot(env, g))
    for g in range(games):
        states = replay_in_engine("schmaus", players, seeds[g], log[g])
        assert len(states) == len(log[g]) and states[-1].is_over()
        for node, (state, snap) in enumerate(zip(states, seen[g], strict=True)):
            assert snapshot(state.to_json()) == snap, f"game {g} differs at node {node}"
