"""Gymnasium single-agent environments: one learning seat, the others built-in bots.

>>> import gymnasium, spieltisch.rl
>>> env = gymnasium.make("spieltisch/Schmaus-v0", players=3, opponents="random")
>>> obs, info = env.reset(seed=3)
>>> sorted(obs)
['action_mask', 'observation']

``opponents`` is one seat spec for every other seat, or a list with one per
other seat in seat order: ``random``, ``easy``, ``medium``, ``hard``,
``cmd:PROGRAM`` or ``py:MODULE:FACTORY`` (as everywhere, see :func:`spieltisch.bots.make_bot`). Bots
get their seat's view and the engine's legal ids, never the state.

The reward is the change of the learner's game total over the step, so an
episode's return is its final total. ``observation``, ``illegal``,
``illegal_penalty`` and ``max_steps`` work as in every environment
(:mod:`spieltisch.rl.envs.frame`): by default an action outside the mask is replaced
by a uniformly random legal one (seeded), ``info["illegal"]`` says so, and an
episode is truncated after 10,000 learner decisions (only Scout, which has no
move limit, can get there).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, SupportsFloat

import gymnasium
import numpy as np

from spieltisch.bots import Bot, make_bot
from spieltisch.rl.envs import frame
from spieltisch.rl.envs.frame import ObsDict, make_episode
from spieltisch.rl.episode import Episode


class SpieltischEnv(gymnasium.Env[ObsDict, np.int64]):
    """One seat of a game against bots; see the module docs."""

    metadata = {"render_modes": frame.RENDER_MODES, "render_fps": 1}  # noqa: RUF012 - as gymnasium.Env declares it

    def __init__(
        self,
        game: str,
        players: int = 4,
        opponents: str | Sequence[str] = "random",
        seat: int = 0,
        options: Mapping[str, Any] | None = None,
        render_mode: str | None = None,
        **settings: Any,
    ) -> None:
        """``settings``: see :class:`spieltisch.rl.envs.frame.Settings`."""
        g = frame.check_game(game, players, options, render_mode)
        self.settings = frame.Settings(**settings)
        if not 0 <= seat < players:
            raise ValueError(f"seat must be 0..{players - 1}, not {seat}")
        specs = [opponents] * (players - 1) if isinstance(opponents, str) else list(opponents)
        if len(specs) != players - 1:
            raise ValueError(f"{players} players need {players - 1} opponents, got {len(specs)}")
        self.game = g.name
        self.players = players
        self.seat = seat
        self.specs = specs
        self.rule_options = dict(options or {})
        self.render_mode = render_mode
        self.steps = 0
        self.episode: Episode = make_episode(self.game, players, 0, self.rule_options)
        for i, spec in enumerate(specs):  # fail on a bad spec now, not at reset
            make_bot(self.game, spec, i + 1 if i >= seat else i, 0).close()
        self.observation_space, self.action_space = frame.spaces(self.episode, self.settings.observation)
        self.bots: dict[int, Bot] = {}

    def _obs(self) -> ObsDict:
        return frame.observe(self.episode, self.seat, self.settings.observation)

    def _close_bots(self) -> None:
        for bot in self.bots.values():
            bot.close()
        self.bots = {}

    def _bots_play(self) -> None:
        """Bots decide until the learner must decide or the game ends."""
        t = self.episode
        while not t.is_over() and self.seat not in t.to_move():
            seat = t.to_move()[0]
            state = t.state
            legal = state.legal_action_ids(seat)
            choice = self.bots[seat].choose(state.view(seat), legal)
            if choice not in legal:
                choice = legal[int(self.np_random.integers(len(legal)))]
            t.apply_engine(seat, choice)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsDict, dict[str, Any]]:
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(0, 2**31))
        self._close_bots()
        self.episode = make_episode(self.game, self.players, game_seed, self.rule_options)
        others = [s for s in range(self.players) if s != self.seat]
        for seat, spec in zip(others, self.specs, strict=True):
            self.bots[seat] = make_bot(self.game, spec, seat, game_seed * 8 + seat)
        self._bots_play()
        self.steps = 0
        return self._obs(), {"seed": game_seed}

    def step(self, action: np.int64 | int) -> tuple[ObsDict, SupportsFloat, bool, bool, dict[str, Any]]:
        t = self.episode
        if t.is_over():
            raise RuntimeError("the game is over: call reset()")
        info: dict[str, Any] = {}
        reward = 0.0
        chosen, illegal = frame.decide(t, self.seat, action, self.settings, self.np_random)
        if illegal:
            info["illegal"] = True
            reward += self.settings.illegal_penalty
        before = t.scores()[self.seat]
        t.step(self.seat, chosen)
        self._bots_play()
        reward += t.scores()[self.seat] - before
        over = t.is_over()
        self.steps += 1
        truncated = frame.truncated(self.steps, self.settings, over)
        if over:
            info["scores"] = t.scores()
            info["winners"] = list(t.winners())
            self._close_bots()
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, over, truncated, info

    def render(self) -> str | None:
        return frame.render(self.episode, self.render_mode)

    def close(self) -> None:
        self._close_bots()


def scout_env(**kwargs: Any) -> SpieltischEnv:
    return SpieltischEnv("scout", **kwargs)


def schmaus_env(**kwargs: Any) -> SpieltischEnv:
    return SpieltischEnv("schmaus", **kwargs)


VECTOR_ENTRY_POINTS = {
    "Scout": "spieltisch.rl.envs.gym_vector:scout_vector_env",
    "Schmaus": "spieltisch.rl.envs.gym_vector:schmaus_vector_env",
}
"""Batched vector environments (``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``,
the default of ``make_vec`` where there is one; docs/rl.md)."""


def register_envs() -> None:
    """Register ``spieltisch/Scout-v0`` and ``spieltisch/Schmaus-v0`` (idempotent)."""
    for name, entry in (("Scout", "scout_env"), ("Schmaus", "schmaus_env")):
        env_id = f"spieltisch/{name}-v0"
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id,
                entry_point=f"spieltisch.rl.envs.gym_env:{entry}",
                vector_entry_point=VECTOR_ENTRY_POINTS.get(name),
                disable_env_checker=False,
            )
