"""Gymnasium vector environments of both games at engine speed (docs/rl.md), need numba
(``rl-fast``):

>>> import gymnasium, spieltisch.rl
>>> envs = gymnasium.make_vec("spieltisch/Scout-v0", num_envs=64, vectorization_mode="vector_entry_point")
>>> obs, infos = envs.reset(seed=1)
>>> obs["observation"].shape, obs["action_mask"].shape
((64, 1380), (64, 1405))

(``"spieltisch/Schmaus-v0"``: ``(64, 143), (64, 183)``.) A :class:`gymnasium.vector.VectorEnv`
around a batched learner environment (:class:`~spieltisch.rl.scout.vector.ScoutVectorEnv`,
:class:`~spieltisch.rl.schmaus.vector.SchmausVectorEnv`): one learning seat (``seat``, default
0) in every game, the others opponents inside the compiled batch (``opponents``: ``random``,
``easy`` or ``medium``; for Scout also one per other seat). Spaces, observations and masks are
those of ``gymnasium.make("spieltisch/...-v0")`` batched (the ``observation`` tensor only).
Waschbär-Schmaus' seats decide in the AEC environment's order (a sealed decision seat by seat,
the lowest seat first), so a learner in a later seat sees the earlier seats' hidden commits,
where the single environment lets it decide as soon as it may.

Autoreset is Gymnasium's ``SAME_STEP`` mode: a game that ends or is truncated (``max_steps``
learner decisions) is dealt anew within the step; its last observation is in
``infos["final_obs"]`` and its final totals in ``infos["final_info"]["scores"]`` (both masked
by ``infos["_final_obs"]``). An action outside the mask is replaced by a uniformly random legal
one (``infos["illegal"]``, ``illegal="replace"``) or refused (``illegal="raise"``), as in every
environment.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from spieltisch.rl.envs import frame
from spieltisch.rl.schmaus import obs as schmaus_obs
from spieltisch.rl.schmaus.vector import SchmausVectorEnv
from spieltisch.rl.scout import actions as scout_actions
from spieltisch.rl.scout import obs as scout_obs
from spieltisch.rl.scout.vector import MAX_STEPS, ScoutVectorEnv

Array = npt.NDArray[Any]


class LearnerVectorGym(VectorEnv[dict[str, Any], Array, Array]):
    """``num_envs`` games with a learner in ``seat``; see the module docs. One subclass per game."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}  # noqa: RUF012 - as VectorEnv
    game: ClassVar[str]
    title: ClassVar[str]
    obs_size: ClassVar[int]
    num_actions: ClassVar[int]
    batched: ClassVar[Callable[..., Any]]
    """The batched learner environment's class."""

    @staticmethod
    def action_text(action_id: int) -> str:
        raise NotImplementedError

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
            raise ValueError(f"the batched {self.title} environment offers the observation tensor only")
        frame.check_game(self.game, players, None, None)
        if not 0 <= seat < players:
            raise ValueError(f"seat must be 0..{players - 1}, not {seat}")
        self.settings = settings
        make = type(self).batched
        self.env = make(num_envs, players, learners=seat, opponents=opponents, max_steps=max_steps)
        self.num_envs, self.players, self.seat = num_envs, players, seat
        n = self.num_actions
        self.single_observation_space = frame.observation_space(self.obs_size, n)
        self.single_action_space = gymnasium.spaces.Discrete(n)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._mask = np.zeros((num_envs, n), dtype=np.bool_)
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
        n = self.num_actions
        acts = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        inside = (acts >= 0) & (acts < n)
        legal = inside & self._mask[self._rows, np.clip(acts, 0, n - 1)]
        infos: dict[str, Any] = {}
        if not legal.all():
            bad = np.nonzero(~legal)[0]
            if self.settings.illegal == "raise":
                g = int(bad[0])
                text = self.action_text(int(acts[g])) if inside[g] else "no id"
                raise ValueError(f"game {g}: action {int(acts[g])} ({text}) is not legal now")
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
                "action_mask": np.zeros((self.num_envs, n), dtype=np.int8),
            }
            infos["_final_obs"] = ended.copy()
            infos["final_info"] = {"scores": self.env.final_totals.copy(), "_scores": ended.copy()}
            infos["_final_info"] = ended.copy()
        return self._obs(obs, mask), rewards, terminated, truncated, infos


class ScoutVectorGym(LearnerVectorGym):
    """Scout (:class:`~spieltisch.rl.scout.vector.ScoutVectorEnv`)."""

    game, title = "scout", "Scout"
    obs_size, num_actions = scout_obs.OBS_SIZE, scout_actions.NUM_ACTIONS
    batched = ScoutVectorEnv

    @staticmethod
    def action_text(action_id: int) -> str:
        return scout_actions.to_text(action_id)


class SchmausVectorGym(LearnerVectorGym):
    """Waschbär-Schmaus (:class:`~spieltisch.rl.schmaus.vector.SchmausVectorEnv`)."""

    game, title = "schmaus", "Waschbär-Schmaus"
    obs_size, num_actions = schmaus_obs.OBS_SIZE, schmaus_obs.NUM_ACTIONS
    batched = SchmausVectorEnv

    @staticmethod
    def action_text(action_id: int) -> str:
        return schmaus_obs.action_text(action_id)


def scout_vector_env(num_envs: int = 1, **kwargs: Any) -> ScoutVectorGym:
    """The ``vector_entry_point`` of ``spieltisch/Scout-v0``."""
    return ScoutVectorGym(num_envs, **kwargs)


def schmaus_vector_env(num_envs: int = 1, **kwargs: Any) -> SchmausVectorGym:
    """The ``vector_entry_point`` of ``spieltisch/Schmaus-v0``."""
    return SchmausVectorGym(num_envs, **kwargs)
