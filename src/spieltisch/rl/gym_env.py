"""Gymnasium single-agent environments: one learning seat, the others built-in bots.

>>> import gymnasium, spieltisch.rl
>>> env = gymnasium.make("spieltisch/Schmaus-v0", players=3, opponents="random")
>>> obs, info = env.reset(seed=3)
>>> sorted(obs)
['action_mask', 'observation']

``opponents`` is one seat spec for every other seat, or a list with one per
other seat in seat order: ``random``, ``easy``, ``medium``, ``hard`` or
``cmd:PROGRAM`` (as everywhere, see :func:`spieltisch.bots.make_bot`). Bots
get their seat's view and the engine's legal ids, never the state.

The reward is the change of the learner's game total over the step, so an
episode's return is its final total. An action outside the mask is replaced by
a uniformly random legal one (seeded), ``info["illegal"]`` says so and
``illegal_penalty`` is added to the reward (learning code should use the mask).
Scout has no move limit: seats that only ever scout can play forever, so an
episode is truncated after ``max_steps`` learner decisions (default 10,000).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, SupportsFloat

import gymnasium
import numpy as np

from spieltisch.bots import Bot, make_bot
from spieltisch.engine import get_game
from spieltisch.rl.tables import Table, make_table

ObsDict = dict[str, Any]


class SpieltischEnv(gymnasium.Env[ObsDict, np.int64]):
    """One seat of a game against bots; see the module docs."""

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 1}  # noqa: RUF012 - as gymnasium.Env declares it

    def __init__(
        self,
        game: str,
        players: int = 4,
        opponents: str | Sequence[str] = "random",
        seat: int = 0,
        options: Mapping[str, Any] | None = None,
        render_mode: str | None = None,
        observation: str = "observation",
        illegal_penalty: float = 0.0,
        max_steps: int | None = 10_000,
    ) -> None:
        g = get_game(game)
        if not g.min_players <= players <= g.max_players:
            raise ValueError(f"{g.title} is for {g.min_players} to {g.max_players} players, not {players}")
        if not 0 <= seat < players:
            raise ValueError(f"seat must be 0..{players - 1}, not {seat}")
        specs = [opponents] * (players - 1) if isinstance(opponents, str) else list(opponents)
        if len(specs) != players - 1:
            raise ValueError(f"{players} players need {players - 1} opponents, got {len(specs)}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None")
        if observation not in ("observation", "information_state"):
            raise ValueError("observation must be 'observation' or 'information_state'")
        g.normalize_options(options)
        self.game = g.name
        self.players = players
        self.seat = seat
        self.specs = specs
        self.rule_options = dict(options or {})
        self.render_mode = render_mode
        self.observation_kind = observation
        self.illegal_penalty = illegal_penalty
        self.max_steps = max_steps
        self.steps = 0
        self.table: Table = make_table(self.game, players, 0, self.rule_options)
        for i, spec in enumerate(specs):  # fail on a bad spec now, not at reset
            make_bot(self.game, spec, i + 1 if i >= seat else i, 0).close()
        size = self.table.obs_size if observation == "observation" else self.table.info_size
        self.observation_space = gymnasium.spaces.Dict(
            {
                "observation": gymnasium.spaces.Box(-1e4, 1e4, shape=(size,), dtype=np.float32),
                "action_mask": gymnasium.spaces.Box(0, 1, shape=(self.table.num_actions,), dtype=np.int8),
            }
        )
        self.action_space = gymnasium.spaces.Discrete(self.table.num_actions)
        self.bots: dict[int, Bot] = {}

    def _obs(self) -> ObsDict:
        t = self.table
        tensor = (
            t.observe(self.seat) if self.observation_kind == "observation" else t.information_state(self.seat)
        )
        return {"observation": tensor, "action_mask": t.mask(self.seat)}

    def _close_bots(self) -> None:
        for bot in self.bots.values():
            bot.close()
        self.bots = {}

    def _bots_play(self) -> None:
        """Bots decide until the learner must decide or the game ends."""
        t = self.table
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
        self.table = make_table(self.game, self.players, game_seed, self.rule_options)
        others = [s for s in range(self.players) if s != self.seat]
        for seat, spec in zip(others, self.specs, strict=True):
            self.bots[seat] = make_bot(self.game, spec, seat, game_seed * 8 + seat)
        self._bots_play()
        self.steps = 0
        return self._obs(), {"seed": game_seed}

    def step(self, action: np.int64 | int) -> tuple[ObsDict, SupportsFloat, bool, bool, dict[str, Any]]:
        t = self.table
        if t.is_over():
            raise RuntimeError("the game is over: call reset()")
        legal = t.legal_ids(self.seat)
        info: dict[str, Any] = {}
        reward = 0.0
        chosen = int(action)
        if chosen not in legal:
            chosen = legal[int(self.np_random.integers(len(legal)))]
            info["illegal"] = True
            reward += self.illegal_penalty
        before = t.scores()[self.seat]
        t.step(self.seat, chosen)
        self._bots_play()
        reward += t.scores()[self.seat] - before
        over = t.is_over()
        self.steps += 1
        truncated = not over and self.max_steps is not None and self.steps >= self.max_steps
        if over:
            info["scores"] = t.scores()
            info["winners"] = list(t.winners())
            self._close_bots()
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, over, truncated, info

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        text = self.table.state.describe()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self._close_bots()


def scout_env(**kwargs: Any) -> SpieltischEnv:
    return SpieltischEnv("scout", **kwargs)


def schmaus_env(**kwargs: Any) -> SpieltischEnv:
    return SpieltischEnv("schmaus", **kwargs)


def register_envs() -> None:
    """Register ``spieltisch/Scout-v0`` and ``spieltisch/Schmaus-v0`` (idempotent)."""
    for name, entry in (("Scout", "scout_env"), ("Schmaus", "schmaus_env")):
        env_id = f"spieltisch/{name}-v0"
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id, entry_point=f"spieltisch.rl.gym_env:{entry}", disable_env_checker=False
            )
