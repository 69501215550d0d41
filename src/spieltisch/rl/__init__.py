"""Learning interfaces for both games (optional extra ``spieltisch[rl]``; docs/rl.md).

One folder per game, one for the environments, the shared pieces here:

* :mod:`spieltisch.rl.scout`: Scout's learning ids (:mod:`~spieltisch.rl.scout.actions`),
  tensors (:mod:`~spieltisch.rl.scout.obs`), episode (:mod:`~spieltisch.rl.scout.episode`)
  and batched engine (:mod:`~spieltisch.rl.scout.batched`, numba kernels
  :mod:`~spieltisch.rl.scout.fast`), and its batched learner environment
  (:mod:`~spieltisch.rl.scout.vector`; as a Gymnasium ``VectorEnv``
  :mod:`~spieltisch.rl.envs.gym_vector`);
* :mod:`spieltisch.rl.schmaus`: the same for Waschbär-Schmaus (its learning ids are the
  engine's, named in :mod:`~spieltisch.rl.schmaus.obs`);
* :mod:`spieltisch.rl.envs`: PettingZoo (:mod:`spieltisch.rl.scout_v0`,
  :mod:`spieltisch.rl.schmaus_v0`), Gymnasium (importing this package registers
  ``spieltisch/Scout-v0`` and ``spieltisch/Schmaus-v0``, :mod:`~spieltisch.rl.envs.gym_env`)
  and OpenSpiel (importing :mod:`spieltisch.rl.envs.openspiel` registers
  ``python_spieltisch_scout`` and ``python_spieltisch_schmaus``);
* shared: :mod:`~spieltisch.rl.episode` (what every environment wraps),
  :mod:`~spieltisch.rl.fast` (the batched engines' backends: ``make_scout``,
  ``make_schmaus``) and :mod:`~spieltisch.rl.replay` (a batched game replayed in
  the reference engine).
"""

from __future__ import annotations

from spieltisch.rl.envs.gym_env import register_envs

register_envs()

__all__ = ["register_envs"]
