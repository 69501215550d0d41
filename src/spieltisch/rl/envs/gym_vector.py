"""Gymnasium vector environment of Scout at engine speed (docs/rl.md), needs numba (``rl-fast``):

>>> import gymnasium, spieltisch.rl
>>> envs = gymnasium.make_vec("spieltisch/Scout-v0", num_envs=64, vectorization_mode="vector_entry_point")
>>> obs, infos = envs.reset(seed=1)
>>> obs["observation"].shape, obs["action_mask"].shape
((64, 1380), (64, 1405))

A :class:`gymnasium.vector.VectorEnv` around :class:`spieltisch.rl.scout.vector.ScoutVectorEnv`:
one learning seat (``seat``, default 0) in every game, the others opponents inside the compiled
batch (``opponents``: ``random``, ``easy`` or ``medium``, or one per other seat; see
:class:`~spieltisch.rl.scout.vector.ScoutVectorEnv`). Spaces, observations and masks are those
of ``gymnasium.make("spieltisch/Scout-v0")`` batched (the ``observation`` tensor only).
Autoreset is Gymnasium's ``SAME_STEP`` mode: a game that ends or is truncated (``max_steps``
learner decisions) is dealt anew within the step; its last observation is in
``infos["final_obs"]`` and its final totals in ``infos["final_info"]["scores"]`` (both masked
by ``infos["_final_obs"]``). An action outside the mask is replaced by a uniformly random legal
one (``infos["illegal"]``, ``illegal="replace"``) or refused (``illegal="raise"``), as in every
environment.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from spieltisch.rl.envs import frame
from spieltisch.rl.scout import actions as SA
from spieltisch.rl.scout import obs as scout_obs
from spieltisch.rl.scout.vector import MAX_STEPS, ScoutVectorEnv

Array = npt.NDArray[Any]


class ScoutVectorGym(VectorEnv[dict[str, Any], Array, Array]):
    """``num_envs`` Scout games with a learner in ``seat``; see the module docs."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}  # noqa: RUF012 - as VectorEnv

    def __init__(
        self,
        num_envs: int = 1,
        players: int = 4,
        opponents: str | Sequence[str] = "random",
        seat: int = 0,
        observation: str = "observation",
        illegal: str = "replace",
        illegal_penalty: float = 0.0,
        max_steps: int | None = MAX_STEPS,
    ) -> None:
        settings = frame.Settings(observation, illegal, illegal_penalty, max_steps)
        if settings.observation != "observation":
            raise ValueError("the batched Scout environment offers the observation tensor only")
        frame.check_game("scout", players, None, None)
        if not 0 <= seat < players:
            raise ValueError(f"seat must be 0..{players - 1}, not {seat}")
        self.settings = settings
        self.env = ScoutVectorEnv(num_envs, players, learners=seat, opponents=opponents, max_steps=max_steps)
        self.num_envs, self.players, self.seat = num_envs, players, seat
        self.single_observation_space = frame.observation_space(scout_obs.OBS_SIZE, SA.NUM_ACTIONS)
        self.single_action_space = gymnasium.spaces.Discrete(SA.NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._mask = np.zeros((num_envs, SA.NUM_ACTIONS), dtype=np.bool_)
        self._rows = np.arange(num_envs)

    def _obs(self, obs: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]) -> dict[str, Any]:
        self._mask = mask
        return {"observation": obs, "action_mask": mask.astype(np.int8)}

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        if isinstance(seed, list):
            raise ValueError("seed the batch with one int (its games are dealt from one Generator)")
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(0, 2**62))
        obs, mask = self.env.reset(seed=game_seed)
        return self._obs(obs, mask), {}

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        dict[str, Any], npt.NDArray[np.float64], npt.NDArray[np.bool_], npt.NDArray[np.bool_], dict[str, Any]
    ]:
        acts = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        inside = (acts >= 0) & (acts < SA.NUM_ACTIONS)
        legal = inside & self._mask[self._rows, np.clip(acts, 0, SA.NUM_ACTIONS - 1)]
        infos: dict[str, Any] = {}
        if not legal.all():
            bad = np.nonzero(~legal)[0]
            if self.settings.illegal == "raise":
                g = int(bad[0])
                raise ValueError(
                    f"game {g}: action {int(acts[g])} ({SA.to_text(int(acts[g])) if inside[g] else 'no id'}) "
                    "is not legal now"
                )
            acts = acts.copy()
            acts[bad] = self.env.sample(self.np_random)[bad]
            infos["illegal"], infos["_illegal"] = ~legal, ~legal
        obs, reward, terminated, truncated, mask = self.env.step(acts)
        rewards = reward[:, self.seat].astype(np.float64)
        if not legal.all():
            rewards[~legal] += self.settings.illegal_penalty
        ended = terminated | truncated
        if ended.any():
            infos["final_obs"] = {
                "observation": self.env.final_obs.copy(),
                "action_mask": np.zeros((self.num_envs, SA.NUM_ACTIONS), dtype=np.int8),
            }
            infos["_final_obs"] = ended.copy()
            infos["final_info"] = {"scores": self.env.final_totals.copy(), "_scores": ended.copy()}
            infos["_final_info"] = ended.copy()
        return self._obs(obs, mask), rewards, terminated, truncated, infos


def scout_vector_env(num_envs: int = 1, **kwargs: Any) -> ScoutVectorGym:
    """The ``vector_entry_point`` of ``spieltisch/Scout-v0``."""
    return ScoutVectorGym(num_envs, **kwargs)
