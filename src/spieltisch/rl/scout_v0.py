"""PettingZoo Scout: ``scout_v0.env(players=4)`` (AEC; docs/rl.md).

>>> from spieltisch.rl import scout_v0
>>> env = scout_v0.env(players=3)
>>> env.reset(seed=1)
>>> int(env.observe(env.agent_selection)["action_mask"].sum())  # keep or flip
2
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from spieltisch.rl.envs.pettingzoo_env import SpieltischAEC


def env(
    players: int = 4,
    options: Mapping[str, Any] | None = None,
    render_mode: str | None = None,
    **settings: Any,
) -> SpieltischAEC:
    """Scout for 2-5 players. ``settings``: ``observation``, ``illegal``,
    ``illegal_penalty``, ``max_steps`` (:mod:`spieltisch.rl.envs.frame`)."""
    return SpieltischAEC("scout", players, options, render_mode, **settings)


raw_env = env
