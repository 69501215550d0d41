"""PettingZoo environments for both games (AEC; a parallel one for Waschbär-Schmaus).

Agents are ``player_0`` .. ``player_{n-1}`` (= seats). Each observation is a
dict ``{"observation": float32 tensor, "action_mask": int8 mask}``; the
tensor is the seat's observation tensor, or its information-state tensor with
``observation="information_state"``. Rewards are the change of every seat's
game total after each action, so an agent's return is its final total.

Sealed simultaneous decisions (Scout's flips S-5, Waschbär-Schmaus' lays,
grocer / ×5 choices and hand-limit discards W-4, W-9, W-11, W-16) are played
turn by turn in seat order in the AEC environment, with hidden commits: the
views show only *that* a seat has decided, never what, until the reveal.

Settings every environment takes (``observation``, ``illegal``,
``illegal_penalty``, ``max_steps``) are described in :mod:`spieltisch.rl.envs.frame`;
the episode is truncated after ``max_steps`` steps (default 10,000), which only
Scout can reach (it has no move limit of its own).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv, ParallelEnv

from spieltisch.engine import get_game
from spieltisch.rl.envs import frame
from spieltisch.rl.envs.frame import ObsDict, make_episode
from spieltisch.rl.episode import Episode, Vector
from spieltisch.rl.schmaus.episode import SchmausEpisode

RENDER: dict[str, Any] = {"render_modes": frame.RENDER_MODES, "render_fps": 1, "is_parallelizable": False}


def _agent(seat: int) -> str:
    return f"player_{seat}"


def _seat(agent: str) -> int:
    return int(agent.rsplit("_", 1)[1])


class _Common:
    """Construction, seeding, spaces and rendering shared by both API styles."""

    metadata: dict[str, Any]
    episode: Episode

    def _setup(
        self,
        game: str,
        players: int,
        options: Mapping[str, Any] | None,
        render_mode: str | None,
        settings: Mapping[str, Any],
        allow_wait: bool = False,
    ) -> None:
        g = frame.check_game(game, players, options, render_mode)
        self.settings = frame.Settings(**settings)
        self.game = g.name
        self.players = players
        self.rule_options = dict(options or {})
        self.render_mode = render_mode
        self.steps = 0
        self.allow_wait = allow_wait
        self.possible_agents = [_agent(s) for s in range(players)]
        kwargs = {"allow_wait": True} if allow_wait else {}
        probe = make_episode(self.game, players, 0, self.rule_options, **kwargs)
        obs_space, act_space = frame.spaces(probe, self.settings.observation)
        self._obs_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self._act_spaces = dict.fromkeys(self.possible_agents, act_space)
        self._seeds = np.random.default_rng()
        self._rng = np.random.default_rng()
        self.episode = probe

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self._act_spaces[agent]

    def _new_episode(self, seed: int | None) -> None:
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
        game_seed = int(self._seeds.integers(0, 2**31))
        self._rng = np.random.default_rng(game_seed)  # replaces actions outside the mask
        kwargs = {"allow_wait": True} if self.allow_wait else {}
        self.episode = make_episode(self.game, self.players, game_seed, self.rule_options, **kwargs)
        self.steps = 0

    def _obs(self, seat: int) -> ObsDict:
        return frame.observe(self.episode, seat, self.settings.observation)

    def render(self) -> str | None:
        return frame.render(self.episode, self.render_mode)

    @functools.cached_property
    def state_space(self) -> gymnasium.spaces.Space[Any]:
        return gymnasium.spaces.Box(-1e4, 1e4, shape=(self.episode.full_size,), dtype=np.float32)

    def state(self) -> Vector:
        """The full-state tensor (every hand): **research only**, never an agent's input."""
        return self.episode.full_state_tensor()

    def close(self) -> None:
        pass


class SpieltischAEC(_Common, AECEnv[str, ObsDict, int]):
    """Turn by turn (AEC) environment of one game; see the module docs."""

    def __init__(
        self,
        game: str,
        players: int = 4,
        options: Mapping[str, Any] | None = None,
        render_mode: str | None = None,
        **settings: Any,
    ) -> None:
        """``settings``: see :class:`spieltisch.rl.envs.frame.Settings`."""
        super().__init__()
        self.metadata = {**RENDER, "name": f"{get_game(game).name}_v0"}
        self._setup(game, players, options, render_mode, settings)
        self.agents: list[str] = []

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """New game; ``seed`` seeds the sequence of deals (rule options are fixed at construction)."""
        self._new_episode(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = _agent(self.episode.to_move()[0])

    def observe(self, agent: str) -> ObsDict:
        return self._obs(_seat(agent))

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = _seat(agent)
        self._cumulative_rewards[agent] = 0.0
        chosen, illegal = frame.decide(self.episode, seat, action, self.settings, self._rng)
        before = self.episode.scores()
        self.episode.step(seat, chosen)
        after = self.episode.scores()
        self.rewards = {_agent(s): float(after[s] - before[s]) for s in range(self.players)}
        self.infos = {a: {} for a in self.agents}
        if illegal:
            self.rewards[agent] += self.settings.illegal_penalty
            self.infos[agent]["illegal"] = True
        self.steps += 1
        over = self.episode.is_over()
        if over:
            self.terminations = dict.fromkeys(self.agents, True)
        elif frame.truncated(self.steps, self.settings, over):
            self.truncations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = _agent(self.episode.to_move()[0])
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()


class SchmausParallel(_Common, ParallelEnv[str, ObsDict, int]):
    """Waschbär-Schmaus with every sealed decision taken at once (W-4, W-9, W-11, W-16).

    Every live agent acts every step; an agent with nothing to decide sends
    ``wait`` (id 183, the only id its mask allows). A hand-limit discard of
    several cards takes one step per card.
    """

    def __init__(
        self,
        players: int = 4,
        options: Mapping[str, Any] | None = None,
        render_mode: str | None = None,
        **settings: Any,
    ) -> None:
        """``settings``: see :class:`spieltisch.rl.envs.frame.Settings`."""
        self.metadata = {**RENDER, "name": "schmaus_v0"}
        self._setup("schmaus", players, options, render_mode, settings, allow_wait=True)
        self.agents: list[str] = []

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, ObsDict], dict[str, dict[str, Any]]]:
        self._new_episode(seed)
        self.agents = self.possible_agents[:]
        return {a: self._obs(_seat(a)) for a in self.agents}, {a: {} for a in self.agents}

    def step(
        self, actions: dict[str, int]
    ) -> tuple[
        dict[str, ObsDict],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        episode = self.episode
        assert isinstance(episode, SchmausEpisode)
        missing = [a for a in self.agents if a not in actions]
        if missing:
            raise ValueError(f"every live agent acts each step; no action for {', '.join(missing)}")
        deciding = episode.to_move()
        rng = self._rng
        chosen = {a: frame.decide(episode, _seat(a), actions[a], self.settings, rng) for a in self.agents}
        before = episode.scores()
        for seat in deciding:  # all chosen before any is applied: the decisions are sealed
            episode.step(seat, chosen[_agent(seat)][0])
        after = episode.scores()
        rewards = {a: float(after[_seat(a)] - before[_seat(a)]) for a in self.agents}
        infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        for agent, (_, illegal) in chosen.items():
            if illegal:
                rewards[agent] += self.settings.illegal_penalty
                infos[agent]["illegal"] = True
        self.steps += 1
        over = episode.is_over()
        cut = frame.truncated(self.steps, self.settings, over)
        obs = {a: self._obs(_seat(a)) for a in self.agents}
        terminations = dict.fromkeys(self.agents, over)
        truncations = dict.fromkeys(self.agents, cut)
        if over or cut:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return obs, rewards, terminations, truncations, infos
