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

from spieltisch.rl.pettingzoo_env import SpieltischAEC


def env(
    players: int = 4,
    options: Mapping[str, Any] | None = None,
    render_mode: str | None = None,
    observation: str = "observation",
) -> SpieltischAEC:
    """Scout for 2-5 players; ``observation="information_state"`` for the memory tensor."""
    return SpieltischAEC("scout", players, options, render_mode, observation)


raw_env = env
