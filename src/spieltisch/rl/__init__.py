"""Learning interfaces for both games (optional extra ``spieltisch[rl]``; docs/rl.md).

* small exact action spaces: :mod:`spieltisch.rl.scout_actions`,
  :mod:`spieltisch.rl.schmaus_obs`;
* tensors from views: :mod:`spieltisch.rl.scout_obs`, :mod:`spieltisch.rl.schmaus_obs`;
* PettingZoo: :mod:`spieltisch.rl.scout_v0`, :mod:`spieltisch.rl.schmaus_v0`;
* Gymnasium: importing this package registers ``spieltisch/Scout-v0`` and
  ``spieltisch/Schmaus-v0`` (:mod:`spieltisch.rl.gym_env`);
* OpenSpiel: importing :mod:`spieltisch.rl.openspiel` registers
  ``python_spieltisch_scout`` and ``python_spieltisch_schmaus``;
* batched numpy engines: :mod:`spieltisch.rl.batched` (Waschbär-Schmaus),
  :mod:`spieltisch.rl.batched_scout` (Scout).
"""

from __future__ import annotations

from spieltisch.rl.gym_env import register_envs

register_envs()

__all__ = ["register_envs"]
