"""OpenSpiel: both games registered, pyspiel.random_sim_test and rl_environment (docs/rl.md)."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python import rl_environment  # noqa: E402

import spieltisch.rl.envs.openspiel  # noqa: E402,F401 - registers the games
from spieltisch.engine import get_game  # noqa: E402
from spieltisch.rl.envs.chance import comparable, record_game  # noqa: E402

if TYPE_CHECKING:
    from tests.rl.conftest import Player

PLAYERS = [2, 3, 4, 5]


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("game", ["scout", "schmaus"])
def test_random_sim_test(game: str, players: int) -> None:
    loaded = pyspiel.load_game(f"python_spieltisch_{game}", {"players": players})
    assert loaded.num_players() == players
    pyspiel.random_sim_test(loaded, num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("game", ["scout", "schmaus"])
def test_rl_environment_plays_a_game(game: str, players: int) -> None:
    env = rl_environment.Environment(f"python_spieltisch_{game}", players=players)
    step = env.reset()
    size = len(step.observations["info_state"][0])
    assert size == (1610 if game == "scout" else 268)
    rng = random.Random(3)
    for _ in range(20_000):  # Scout has no move limit: a policy that always scouts never ends
        if step.last():
            break
        legal = step.observations["legal_actions"][step.observations["current_player"]]
        shows = [a for a in legal if 2 <= a < 1037] if game == "scout" else []
        step = env.step([rng.choice(shows or legal)])
    assert step.last() and len(step.rewards) == players
    assert step.rewards == env.get_state.returns()


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("game", ["scout", "schmaus"])
def test_chance_outcomes_reach_the_engine_states(game: str, players: int, play: Player) -> None:
    """The OpenSpiel game fed an engine game's cards is that game, step by step."""
    seed = 3
    log, decisions = play(game, players, seed)
    record = record_game(game, players, seed, log)
    engine = get_game(game).new_state(players, seed)
    state = pyspiel.load_game(f"python_spieltisch_{game}", {"players": players}).new_initial_state()
    for outcome in record.deal:
        assert state.is_chance_node()
        assert outcome in dict(state.chance_outcomes())
        state.apply_action(outcome)
    assert comparable(state.episode.state) == comparable(engine)
    for (seat, engine_id, outcomes), ids in zip(record.steps, decisions, strict=True):
        for action in ids:
            assert state.current_player() == seat and action in state.legal_actions()
            state.apply_action(action)
        for outcome in outcomes:
            assert state.is_chance_node()
            state.apply_action(outcome)
        engine.apply_id(seat, engine_id)
        assert not state.is_chance_node()
        assert comparable(state.episode.state) == comparable(engine)
    assert state.is_terminal() and state.returns() == [float(x) for x in engine.final_scores()]


def test_chance_node_and_replay() -> None:
    game = pyspiel.load_game("python_spieltisch_scout", {"players": 3})
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == 72  # 36 cards, either way up
    assert game.max_chance_outcomes() == 121
    rng = random.Random(7)
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(rng.choices(outcomes, probs)[0])
    assert len(state.history()) == 36  # S-2: 12 cards each for 3 players, one node per card
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 1 * 11 + 2) == "deal 1/2"
    for _ in range(20):
        state.apply_action(state.legal_actions()[0])
    again = game.new_initial_state()
    for action in state.history():
        again.apply_action(action)
    assert str(again) == str(state)
    assert state.information_state_string(0) != state.information_state_string(1)
    with pytest.raises(ValueError, match="2 to 5 players"):
        pyspiel.load_game("python_spieltisch_schmaus", {"players": 6})


@pytest.mark.parametrize("game", ["scout", "schmaus"])
def test_observer_api_gives_each_named_tensor(game: str) -> None:
    """pyspiel's observer API: a seat's observation / information state, a spectator's
    observation (public only) and the full state (research only)."""
    from open_spiel.python.observation import make_observation

    from spieltisch.rl.schmaus import obs as schmaus_obs
    from spieltisch.rl.scout import obs as scout_obs

    module = scout_obs if game == "scout" else schmaus_obs
    loaded = pyspiel.load_game(f"python_spieltisch_{game}", {"players": 3})
    state = loaded.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    for _ in range(4):
        state.apply_action(state.legal_actions()[0])
    episode = state.episode
    kinds = {
        (False, pyspiel.PrivateInfoType.SINGLE_PLAYER): episode.observe(1),
        (True, pyspiel.PrivateInfoType.SINGLE_PLAYER): episode.information_state(1),
        (False, pyspiel.PrivateInfoType.NONE): module.spectator_tensor(episode.state),
        (False, pyspiel.PrivateInfoType.ALL_PLAYERS): module.full_state_tensor(episode.state),
    }
    for (recall, private), expected in kinds.items():
        obs = make_observation(
            loaded, pyspiel.IIGObservationType(perfect_recall=recall, private_info=private)
        )
        obs.set_from(state, 1)
        assert obs.tensor.dtype == np.float32 and (obs.tensor == expected).all()
        assert obs.string_from(state, 1)
    assert len(kinds[(False, pyspiel.PrivateInfoType.ALL_PLAYERS)]) == module.FULL_SIZE
    spectator = make_observation(
        loaded, pyspiel.IIGObservationType(perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE)
    )
    assert '"hand":null' in spectator.string_from(state, 0)
    with pytest.raises(ValueError, match="observers"):
        make_observation(
            loaded, pyspiel.IIGObservationType(perfect_recall=True, private_info=pyspiel.PrivateInfoType.NONE)
        )
