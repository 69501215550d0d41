"""PettingZoo Waschbär-Schmaus: ``schmaus_v0.env()`` (AEC) and ``parallel_env()`` (docs/rl.md).

>>> from spieltisch.rl import schmaus_v0
>>> env = schmaus_v0.parallel_env(players=3)
>>> obs, infos = env.reset(seed=1)
>>> sorted(obs)
['player_0', 'player_1', 'player_2']

``settings`` of both: ``observation``, ``illegal``, ``illegal_penalty``,
``max_steps`` (:mod:`spieltisch.rl.envs.frame`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from spieltisch.rl.envs.pettingzoo_env import SchmausParallel, SpieltischAEC


def env(
    players: int = 4,
    options: Mapping[str, Any] | None = None,
    render_mode: str | None = None,
    **settings: Any,
) -> SpieltischAEC:
    """Sealed decisions taken turn by turn in seat order, commits hidden."""
    return SpieltischAEC("schmaus", players, options, render_mode, **settings)


def parallel_env(
    players: int = 4,
    options: Mapping[str, Any] | None = None,
    render_mode: str | None = None,
    **settings: Any,
) -> SchmausParallel:
    """Every sealed decision taken at once; idle seats send ``wait`` (id 183)."""
    return SchmausParallel(players, options, render_mode, **settings)


raw_env = env
