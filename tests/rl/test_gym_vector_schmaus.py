"""``gymnasium.make_vec("spieltisch/Schmaus-v0", vectorization_mode="vector_entry_point")``: the
batched Scout environment as a Gymnasium ``VectorEnv`` (docs/rl.md). Gymnasium 1.4 has no
checker for vector environments, so the checks its ``check_env`` makes of a single
environment are made here for the batch: spaces, seeding, determinism, no data reused, and
the ``SAME_STEP`` autoreset contract."""

from __future__ import annotations

import warnings

import pytest

np = pytest.importorskip("numpy")
gymnasium = pytest.importorskip("gymnasium")
pytest.importorskip("numba")

from gymnasium.utils.env_checker import data_equivalence  # noqa: E402
from gymnasium.vector import AutoresetMode, VectorEnv  # noqa: E402

import spieltisch.rl  # noqa: E402,F401 - registers the environments
from spieltisch.rl.envs.gym_vector import SchmausVectorGym  # noqa: E402


def make(num_envs: int = 16, **kwargs: object) -> SchmausVectorGym:
    envs = gymnasium.make_vec(
        "spieltisch/Schmaus-v0", num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs
    )
    assert isinstance(envs, SchmausVectorGym) and isinstance(envs, VectorEnv)
    return envs


def legal_actions(obs: dict[str, np.ndarray], rng: np.random.Generator) -> np.ndarray:
    masks = obs["action_mask"].astype(bool)
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


def play(envs: SchmausVectorGym, seed: int, steps: int) -> list[tuple[object, ...]]:
    obs, _ = envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out: list[tuple[object, ...]] = [obs]
    for _ in range(steps):
        out.append(envs.step(legal_actions(obs, rng)))
        obs = out[-1][0]  # type: ignore[assignment]
    return out


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_spaces_contain_every_observation_and_every_mask_is_legal(players: int) -> None:
    envs = make(8, players=players, seat=players - 1, max_steps=12)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert envs.single_action_space.n == 183 and envs.action_space.shape == (8,)
    obs, infos = envs.reset(seed=players)
    assert envs.observation_space.contains(obs) and infos == {}
    rng = np.random.default_rng(players)
    ended = 0
    for _ in range(120):
        obs, rewards, terminated, truncated, infos = envs.step(legal_actions(obs, rng))
        assert envs.observation_space.contains(obs)
        assert obs["action_mask"].any(1).all()  # never an empty mask: autoreset in the step
        assert rewards.dtype == np.float64 and rewards.shape == (8,)
        done = terminated | truncated
        if done.any():
            ended += int(done.sum())
            assert (infos["_final_obs"] == done).all()
            assert envs.single_observation_space["observation"].contains(infos["final_obs"]["observation"][0])
    assert ended > 0


def test_seeding_is_deterministic_and_data_is_not_reused() -> None:
    first, second = play(make(), 3, 30), play(make(), 3, 30)
    assert data_equivalence(first, second, exact=True)
    other = play(make(), 4, 0)
    assert not data_equivalence(first[0], other[0])
    envs = make()
    obs, _ = envs.reset(seed=1)
    kept = {k: v.copy() for k, v in obs.items()}
    envs.step(legal_actions(obs, np.random.default_rng(0)))
    assert data_equivalence(obs, kept, exact=True)  # the returned arrays are the caller's


def test_illegal_actions_are_replaced_or_refused() -> None:
    envs = make(4, illegal_penalty=-1.0)
    envs.reset(seed=2)
    bad = np.full(4, 165)  # a grocer's target seat 4: never legal at 4 players
    _, rewards, *_, infos = envs.step(bad)
    plain = make(4)
    plain.reset(seed=2)
    _, points, *_ = plain.step(bad)  # the same replacements (seeded), no penalty: the round's points
    assert infos["illegal"].all() and (rewards == points - 1.0).all()
    strict = make(4, illegal="raise")
    strict.reset(seed=2)
    with pytest.raises(ValueError, match="is not legal now"):
        strict.step(bad)


def test_rewards_sum_to_the_final_totals() -> None:
    envs = make(8, players=3)
    obs, _ = envs.reset(seed=5)
    rng = np.random.default_rng(5)
    returns = np.zeros(8)
    finals: list[float] = []
    for _ in range(300):
        obs, rewards, terminated, _, infos = envs.step(legal_actions(obs, rng))
        returns += rewards
        for g in np.flatnonzero(terminated):
            finals.append(returns[g])
            assert returns[g] == infos["final_info"]["scores"][g][0]  # the learner's final total
            returns[g] = 0
    assert finals


def test_sync_vectorization_still_seats_the_built_in_levels() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        envs = gymnasium.make_vec(
            "spieltisch/Schmaus-v0", num_envs=2, vectorization_mode="sync", opponents="easy"
        )
        obs, _ = envs.reset(seed=1)
    assert obs["observation"].shape == (2, 143)
    with pytest.raises(ValueError, match="vectorization_mode='sync'"):
        make(2, opponents="hard")
    for level in ("easy", "medium"):  # batched inside the kernel
        env = make(2, opponents=level)
        obs, _ = env.reset(seed=1)
        assert obs["observation"].shape == (2, 143)
        obs, rewards, *_ = env.step(np.argmax(obs["action_mask"], 1))
        assert obs["action_mask"].any(1).all() and rewards.shape == (2,)
