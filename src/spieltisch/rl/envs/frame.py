"""What the Gymnasium, PettingZoo and OpenSpiel environments share: a new episode, settings, spaces,
observations, the handling of actions outside the mask, the move limit and rendering.

Every environment takes the same settings (docs/rl.md, "Settings every environment takes"):

* ``observation``: ``"observation"`` (the seat's observation tensor) or
  ``"information_state"`` (with the game's public memory);
* ``illegal``: what an action outside the mask does: ``"replace"`` (default)
  plays a uniformly random legal action instead (seeded by ``reset``), says so
  in the agent's info (``illegal: True``) and adds ``illegal_penalty`` to its
  reward; ``"raise"`` refuses it with a :class:`ValueError` naming it;
* ``max_steps``: the episode is truncated after that many steps (default
  10,000; ``None`` for no limit). Scout has no move limit of its own: seats
  that scout back and forth can play forever (S-8 lets anyone scout a set), and
  a uniform random Scout game takes 25-1,000 decisions (2-5 players), so the
  default cuts off only such loops. Waschbär-Schmaus always ends (W-2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium
import numpy as np

from spieltisch.engine import Game, get_game
from spieltisch.rl.episode import Episode, Vector
from spieltisch.rl.schmaus.episode import SchmausEpisode
from spieltisch.rl.scout.episode import ScoutEpisode

ObsDict = dict[str, Any]
OBSERVATIONS = ("observation", "information_state")
ILLEGAL = ("replace", "raise")
MAX_STEPS = 10_000
RENDER_MODES = ["human", "ansi"]


@dataclass(frozen=True)
class Settings:
    """The keyword settings every environment takes (see the module docs)."""

    observation: str = "observation"
    illegal: str = "replace"
    illegal_penalty: float = 0.0
    max_steps: int | None = MAX_STEPS

    def __post_init__(self) -> None:
        if self.observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {list(OBSERVATIONS)}, not {self.observation!r}")
        if self.illegal not in ILLEGAL:
            raise ValueError(f"illegal must be one of {list(ILLEGAL)}, not {self.illegal!r}")
        steps = self.max_steps
        if steps is not None and (isinstance(steps, bool) or not isinstance(steps, int) or steps < 1):
            raise ValueError(f"max_steps must be a positive whole number or None, not {steps!r}")
        object.__setattr__(self, "illegal_penalty", float(self.illegal_penalty))


def check_game(game: str, players: int, options: Mapping[str, Any] | None, render_mode: str | None) -> Game:
    """The game, or a :class:`ValueError` naming what is wrong."""
    g = get_game(game)
    if not g.min_players <= players <= g.max_players:
        raise ValueError(f"{g.title} is for {g.min_players} to {g.max_players} players, not {players}")
    if render_mode not in (None, *RENDER_MODES):
        raise ValueError(f"render_mode must be one of {RENDER_MODES} or None, not {render_mode!r}")
    g.normalize_options(options)  # bad rule options fail here, not at reset
    return g


def observation_space(size: int, num_actions: int) -> gymnasium.spaces.Dict:
    return gymnasium.spaces.Dict(
        {
            "observation": gymnasium.spaces.Box(-1e4, 1e4, shape=(size,), dtype=np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, shape=(num_actions,), dtype=np.int8),
        }
    )


def spaces(episode: Episode, observation: str) -> tuple[gymnasium.spaces.Dict, gymnasium.spaces.Discrete]:
    """The observation and action spaces of one seat."""
    size = episode.obs_size if observation == "observation" else episode.info_size
    return observation_space(size, episode.num_actions), gymnasium.spaces.Discrete(episode.num_actions)


def tensor(episode: Episode, seat: int, observation: str) -> Vector:
    if observation == "observation":
        return episode.observe(seat)
    return episode.information_state(seat)


def observe(episode: Episode, seat: int, observation: str) -> ObsDict:
    """``{"observation": tensor, "action_mask": mask}`` of one seat."""
    return {"observation": tensor(episode, seat, observation), "action_mask": episode.mask(seat)}


def decide(
    episode: Episode, seat: int, action: int | np.integer[Any], settings: Settings, rng: np.random.Generator
) -> tuple[int, bool]:
    """The action ``seat`` plays for ``action``, and whether ``action`` was outside its mask."""
    chosen = int(action)
    legal: Sequence[int] = episode.legal_ids(seat)
    if chosen in legal:
        return chosen, False
    if settings.illegal == "raise":
        raise ValueError(
            f"player_{seat}: action {chosen} ({episode.action_text(seat, chosen)}) is not legal now"
        )
    return legal[int(rng.integers(len(legal)))], True


def truncated(steps: int, settings: Settings, over: bool) -> bool:
    return not over and settings.max_steps is not None and steps >= settings.max_steps


def render(episode: Episode, render_mode: str | None) -> str | None:
    """The game as text: printed (``human``) or returned (``ansi``)."""
    if render_mode is None:
        gymnasium.logger.warn("render() called without a render_mode")
        return None
    text = episode.state.describe()
    if render_mode == "human":
        print(text)
        return None
    return text


def make_episode(
    game: str, players: int, seed: int, options: Mapping[str, Any] | None = None, **kwargs: Any
) -> Episode:
    """A new episode of ``game`` (its name or alias) dealt from ``seed``; ``kwargs`` go to the
    game's :class:`~spieltisch.rl.episode.Episode` subclass (e.g. ``state``)."""
    if get_game(game).name == "scout":
        return ScoutEpisode(players, seed, options, **kwargs)
    return SchmausEpisode(players, seed, options, **kwargs)
