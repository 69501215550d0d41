"""OpenSpiel: both games registered, pyspiel.random_sim_test and rl_environment (docs/rl.md)."""

from __future__ import annotations

import random

import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python import rl_environment  # noqa: E402

import spieltisch.rl.openspiel  # noqa: E402 - registers the games

PLAYERS = [2, 3, 4, 5]


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("game", ["scout", "schmaus"])
def test_random_sim_test(game: str, players: int) -> None:
    loaded = pyspiel.load_game(f"python_spieltisch_{game}", {"players": players})
    assert loaded.num_players() == players
    pyspiel.random_sim_test(loaded, num_sims=1, serialize=players == 2, verbose=False)


@pytest.mark.parametrize("game", ["scout", "schmaus"])
def test_rl_environment_plays_a_game(game: str) -> None:
    env = rl_environment.Environment(f"python_spieltisch_{game}", players=3)
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
    assert step.last() and len(step.rewards) == 3


def test_chance_node_and_replay() -> None:
    game = pyspiel.load_game("python_spieltisch_scout", {"players": 3})
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == spieltisch.rl.openspiel.DEAL_SEEDS
    state.apply_action(7)
    for _ in range(20):
        state.apply_action(state.legal_actions()[0])
    again = game.new_initial_state()
    for action in state.history():
        again.apply_action(action)
    assert str(again) == str(state)
    assert state.information_state_string(0) != state.information_state_string(1)
    with pytest.raises(ValueError, match="2 to 5 players"):
        pyspiel.load_game("python_spieltisch_schmaus", {"players": 6})
