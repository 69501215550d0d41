"""One episode for learning code: a game from its deal to its end, the engine state behind
learning action ids and tensors.

An :class:`Episode` is what every environment in :mod:`spieltisch.rl` (PettingZoo,
Gymnasium, OpenSpiel) wraps, a new one at every reset: seats decide with learning ids
(:mod:`~spieltisch.rl.scout.actions`, :mod:`~spieltisch.rl.schmaus.obs`), the engine applies
them, and each seat's tensors come from that seat's view. One subclass per game:
:class:`~spieltisch.rl.scout.episode.ScoutEpisode`,
:class:`~spieltisch.rl.schmaus.episode.SchmausEpisode`
(:func:`spieltisch.rl.envs.frame.make_episode` picks it by the game's name).
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, Self

import numpy as np
import numpy.typing as npt

from spieltisch.engine import State, WrongSeatError, get_game

Mask = npt.NDArray[np.int8]
Vector = npt.NDArray[np.float32]


class Episode(ABC):
    """A game in progress, driven with learning action ids."""

    game: str
    num_actions: int
    obs_size: int
    info_size: int
    full_size: int

    def __init__(
        self, players: int, seed: int, options: Mapping[str, Any] | None = None, state: State | None = None
    ) -> None:
        """A new game dealt from ``seed``, or around ``state`` (a game of this kind in progress)."""
        self.players = players
        self.seed = seed
        self.options = dict(options or {})
        self.state: State = (
            state if state is not None else get_game(self.game).new_state(players, seed, self.options)
        )
        self._public: dict[str, Any] | None = None

    def clone(self) -> Self:
        """An independent copy (the engine state cloned, caches dropped)."""
        out = copy.copy(self)
        out.state = self.state.clone()
        out._public = None
        return out

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        return self.clone()

    def public_view(self) -> dict[str, Any]:
        """The spectator's view (no log), cached until the next action."""
        if self._public is None:
            self._public = self.state.view(None, log=False)
        return self._public

    def to_move(self) -> tuple[int, ...]:
        """Seats that decide now (several for a sealed simultaneous decision)."""
        return self.state.to_move()

    def is_over(self) -> bool:
        return self.state.is_over()

    def scores(self) -> list[int]:
        """Every seat's total so far."""
        return list(self.public_view()["scores"])

    def winners(self) -> tuple[int, ...]:
        outcome = self.state.outcome()
        return outcome.winners if outcome else ()

    def _check_seat(self, seat: int) -> None:
        if seat not in self.to_move():
            waiting = ", ".join(map(str, self.to_move())) or "nobody (the game is over)"
            raise WrongSeatError(
                "", "not_your_decision", "it is not seat {seat}'s decision (waiting for seats {waiting})",
                {"seat": seat, "waiting": waiting},
            )  # fmt: skip

    @abstractmethod
    def legal_ids(self, seat: int) -> list[int]:
        """Sorted legal learning ids of ``seat`` (empty when it does not decide now)."""

    def mask(self, seat: int) -> Mask:
        out = np.zeros(self.num_actions, dtype=np.int8)
        out[self.legal_ids(seat)] = 1
        return out

    @abstractmethod
    def step(self, seat: int, action: int) -> None:
        """Apply ``seat``'s decision; raises a :class:`ValueError` naming what is wrong."""

    @abstractmethod
    def apply_engine(self, seat: int, engine_id: int) -> None:
        """Apply an engine action id from ``state.legal_action_ids(seat)`` (how bots play)."""

    @abstractmethod
    def observe(self, seat: int) -> Vector:
        """``seat``'s observation tensor (``obs_size`` float32), from its view only."""

    @abstractmethod
    def information_state(self, seat: int) -> Vector:
        """``seat``'s information-state tensor (``info_size`` float32)."""

    @abstractmethod
    def spectator_tensor(self) -> Vector:
        """A spectator's observation tensor (``obs_size``): public information only."""

    @abstractmethod
    def full_state_tensor(self) -> Vector:
        """Every hand too (``full_size``). **Research only**: it reads hidden cards."""

    @abstractmethod
    def action_text(self, seat: int, action: int) -> str:
        """Engine notation of ``seat``'s decision ``action`` now."""

    @abstractmethod
    def decision_kind(self, seat: int) -> str:
        """What ``seat`` decides now, e.g. ``play`` or ``show-half`` (for rendering)."""
