"""Each library's own checker on both games and every player count (docs/rl.md)."""

from __future__ import annotations

import functools
import importlib
import inspect
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import (  # noqa: E402
    api_test,
    parallel_api_test,
    parallel_seed_test,
    render_test,
    seed_test,
    state_test,
)

pettingzoo_state_test = importlib.import_module("pettingzoo.test.state_test")  # the module

import spieltisch.rl  # noqa: E402,F401 - registers the Gymnasium environments
from spieltisch.rl import schmaus_v0, scout_v0  # noqa: E402
from spieltisch.rl.schmaus import obs as schmaus_obs  # noqa: E402

PLAYERS = [2, 3, 4, 5]


@pytest.fixture(autouse=True)
def _quiet() -> None:
    warnings.filterwarnings("ignore", module="pettingzoo")
    warnings.filterwarnings("ignore", module="gymnasium")


@pytest.mark.parametrize("players", PLAYERS)
def test_pettingzoo_api_scout(players: int) -> None:
    api_test(scout_v0.env(players=players), num_cycles=200)


@pytest.mark.parametrize("players", PLAYERS)
def test_pettingzoo_api_schmaus(players: int) -> None:
    api_test(schmaus_v0.env(players=players), num_cycles=200)
    parallel_api_test(schmaus_v0.parallel_env(players=players), num_cycles=200)


@pytest.mark.parametrize("players", PLAYERS)
def test_pettingzoo_information_state_and_options(players: int) -> None:
    api_test(scout_v0.env(players=players, observation="information_state"), num_cycles=30)
    options = {"short_hand": "play-what-you-can", "hand_limit": 9}
    env = schmaus_v0.env(players=players, options=options, observation="information_state")
    api_test(env, num_cycles=30)
    par = schmaus_v0.parallel_env(players=players, options=options, observation="information_state")
    parallel_api_test(par, num_cycles=30)


@pytest.mark.parametrize("players", PLAYERS)
def test_pettingzoo_render_and_state(players: int) -> None:
    render_test(functools.partial(scout_v0.env, players=players))
    render_test(functools.partial(schmaus_v0.env, players=players))
    state_test(schmaus_v0.env(players=players), schmaus_v0.parallel_env(players=players), num_cycles=10)
    scout = scout_v0.env(players=players)  # no parallel Scout: the state checks of the AEC one
    pettingzoo_state_test.test_state_space(scout)
    pettingzoo_state_test.test_state(scout, num_cycles=10)


@pytest.mark.parametrize("players", PLAYERS)
def test_pettingzoo_seed(players: int) -> None:
    seed_test(lambda: scout_v0.env(players=players), num_cycles=20)
    seed_test(lambda: schmaus_v0.env(players=players), num_cycles=20)
    parallel_seed_test(lambda: schmaus_v0.parallel_env(players=players), num_cycles=20)


def test_parallel_seed_replaces_actions_outside_the_mask_reproducibly() -> None:
    """parallel_seed_test samples actions without the mask: they are replaced, seeded."""
    runs = []
    for _ in range(2):
        env = schmaus_v0.parallel_env(players=3, illegal_penalty=-1000.0)
        env.reset(seed=9)
        trace = []
        while env.agents:
            actions = {a: 0 for a in env.agents}  # id 0 is rarely legal, never for a waiting seat
            _, rewards, _, _, infos = env.step(actions)
            trace.append((sorted(a for a in infos if infos[a].get("illegal")), rewards))
        runs.append(trace)
    assert runs[0] == runs[1]
    flagged = [agents for agents, _ in runs[0] if agents]
    assert flagged and all(r[a] < -900 for (agents, r) in runs[0] for a in agents)  # the penalty


def test_env_signatures_are_the_issues() -> None:
    for function in (scout_v0.env, schmaus_v0.env, schmaus_v0.parallel_env):
        params = list(inspect.signature(function).parameters)
        assert params[:3] == ["players", "options", "render_mode"]
    env = schmaus_v0.env(players=2, options={"hand_limit": 9}, render_mode="ansi")
    env.reset(seed=1)
    assert "schmaus 2p" in str(env.render())
    assert env.unwrapped.episode.options == {"hand_limit": 9}


@pytest.mark.parametrize("players", PLAYERS)
def test_api_test_with_truncation(players: int) -> None:
    api_test(scout_v0.env(players=players, max_steps=25), num_cycles=60)
    api_test(schmaus_v0.env(players=players, max_steps=5), num_cycles=20)
    parallel_api_test(schmaus_v0.parallel_env(players=players, max_steps=5), num_cycles=20)


@pytest.mark.parametrize("players", [3, 4, 5])  # with two, scout chips run out (S-13, S-14)
def test_scout_truncates_a_scouting_loop(players: int) -> None:
    env = scout_v0.env(players=players, max_steps=60)
    env.reset(seed=3)
    steps = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            assert trunc and not term
            env.step(None)
            continue
        legal = obs["action_mask"].nonzero()[0]
        scouts = [a for a in legal if a >= 1037]  # a seat that scouts whenever it can
        env.step(int(scouts[0] if scouts else legal[0]))
        steps += 1
    assert steps == 60 and not env.agents
    assert scout_v0.env().unwrapped.settings.max_steps == 10_000


def test_parallel_truncates_at_max_steps() -> None:
    env = schmaus_v0.parallel_env(players=3, max_steps=4)
    obs, _ = env.reset(seed=2)
    for step in range(4):
        actions = {a: int(obs[a]["action_mask"].nonzero()[0][0]) for a in env.agents}
        obs, _, terms, truncs, _ = env.step(actions)
        assert all(truncs.values()) == (step == 3) and not any(terms.values())
    assert env.agents == []


def test_bad_arguments_are_refused_clearly() -> None:
    with pytest.raises(ValueError, match="2 to 5 players"):
        scout_v0.env(players=6)
    with pytest.raises(ValueError, match="unknown rule option"):
        schmaus_v0.env(options={"handlimit": 3})
    with pytest.raises(ValueError, match="render_mode"):
        scout_v0.env(render_mode="video")
    with pytest.raises(ValueError, match="max_steps"):
        scout_v0.env(max_steps=0)
    with pytest.raises(ValueError, match="illegal must be"):
        schmaus_v0.parallel_env(illegal="ignore")
    env = scout_v0.env(players=3, illegal="raise")
    env.reset(seed=1)
    with pytest.raises(ValueError, match="not legal now"):
        env.step(1404)
    env = scout_v0.env(players=3, illegal_penalty=-2.0)
    env.reset(seed=1)
    agent = env.agent_selection
    env.step(1404)  # replaced by a legal decision (keep or flip), flagged and penalised
    assert env.infos[agent] == {"illegal": True} and env.rewards[agent] == -2.0


def _play_out_aec(env: object, seed: int) -> dict[str, float]:
    env.reset(seed=seed)  # type: ignore[attr-defined]
    returns: dict[str, float] = {}
    for agent in env.agent_iter():  # type: ignore[attr-defined]
        obs, reward, term, trunc, _ = env.last()  # type: ignore[attr-defined]
        returns[agent] = returns.get(agent, 0.0) + reward
        if term or trunc:
            env.step(None)  # type: ignore[attr-defined]
            continue
        env.step(int(obs["action_mask"].nonzero()[0][0]))  # type: ignore[attr-defined]
    return returns


@pytest.mark.parametrize("game", ["scout", "schmaus"])
def test_returns_are_the_final_totals(game: str) -> None:
    module = scout_v0 if game == "scout" else schmaus_v0
    env = module.env(players=3)
    returns = _play_out_aec(env, seed=4)
    totals = env.unwrapped.episode.scores()
    assert [returns[f"player_{s}"] for s in range(3)] == [float(t) for t in totals]


def test_parallel_idle_seats_wait() -> None:
    env = schmaus_v0.parallel_env(players=3)
    obs, _ = env.reset(seed=2)
    steps = 0
    while env.agents:
        actions = {a: int(obs[a]["action_mask"].nonzero()[0][-1]) for a in env.agents}
        obs, *_ = env.step(actions)
        steps += 1
        for a in env.agents:
            mask = obs[a]["action_mask"]
            if mask[schmaus_obs.WAIT]:
                assert mask.sum() == 1  # waiting is the only choice of an idle seat
    assert steps >= 9  # 3 × players rounds (W-2)


def test_schmaus_wait_only_in_the_parallel_env() -> None:
    """Id 183 ``wait`` exists only in the parallel environment (docs/rl.md): 183 actions
    in the AEC and Gymnasium environments, 184 in the parallel one."""
    aec = schmaus_v0.env(players=3)
    aec.reset(seed=1)
    par = schmaus_v0.parallel_env(players=3)
    par.reset(seed=1)
    gym = gymnasium.make("spieltisch/Schmaus-v0", players=3)
    obs, _ = gym.reset(seed=1)
    for space, mask in (
        (aec.action_space("player_0"), aec.observe("player_0")["action_mask"]),
        (gym.action_space, obs["action_mask"]),
    ):
        assert space.n == schmaus_obs.NUM_ACTIONS == 183
        assert mask.shape == (183,)
    assert par.action_space("player_0").n == schmaus_obs.PARALLEL_ACTIONS == 184


@pytest.mark.parametrize("observation", ["observation", "information_state"])
@pytest.mark.parametrize("game", ["Scout", "Schmaus"])
@pytest.mark.parametrize("players", PLAYERS)
def test_gymnasium_check_env(game: str, players: int, observation: str) -> None:
    make = functools.partial(gymnasium.make, f"spieltisch/{game}-v0", players=players, opponents="random")
    env = make(observation=observation)
    check_env(env.unwrapped, skip_render_check=observation != "observation")


@pytest.mark.parametrize("game", ["Scout", "Schmaus"])
def test_gymnasium_against_built_in_bots(game: str) -> None:
    env = gymnasium.make(f"spieltisch/{game}-v0", players=3, opponents=["easy", "random"])
    obs, _ = env.reset(seed=5)
    total, done = 0.0, False
    while not done:
        action = int(obs["action_mask"].nonzero()[0][0])
        obs, reward, done, _, info = env.step(action)
        total += float(reward)
    assert total == info["scores"][0]
    assert not info.get("illegal")


def test_gymnasium_bad_opponent_spec() -> None:
    with pytest.raises(ValueError, match="unknown bot level"):
        gymnasium.make("spieltisch/Scout-v0", players=3, opponents="grandmaster")
    with pytest.raises(ValueError, match="need 2 opponents"):
        gymnasium.make("spieltisch/Scout-v0", players=3, opponents=["easy"])


@pytest.mark.parametrize("game", ["Scout", "Schmaus"])
def test_gymnasium_medium_opponents_as_in_the_issue(game: str) -> None:
    env = gymnasium.make(f"spieltisch/{game}-v0", players=4, opponents="medium")
    obs, _ = env.reset(seed=1)
    obs, _, _, _, info = env.step(int(obs["action_mask"].nonzero()[0][0]))
    assert env.observation_space.contains(obs) and not info.get("illegal")


@pytest.mark.parametrize("make", [scout_v0.env, schmaus_v0.env, schmaus_v0.parallel_env])
def test_full_state_for_research(make: object) -> None:
    env = make(players=3)  # type: ignore[operator]
    env.reset(seed=4)
    full = env.state()
    assert full.dtype == np.float32 and env.state_space.contains(full)
    assert full.shape == (env.unwrapped.episode.full_size,)
