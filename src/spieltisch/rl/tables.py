"""One game for learning code: the engine state behind learning action ids and tensors.

A :class:`Table` is what every environment in :mod:`spieltisch.rl` (PettingZoo,
Gymnasium, OpenSpiel) wraps: seats decide with learning ids
(:mod:`~spieltisch.rl.scout_actions`, :mod:`~spieltisch.rl.schmaus_obs`), the
engine applies them, and each seat's tensors come from that seat's view.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, Self

import numpy as np
import numpy.typing as npt

from spieltisch.engine import InvalidActionError, State, WrongSeatError, get_game
from spieltisch.rl import schmaus_obs, scout_actions, scout_obs
from spieltisch.rl.scout_actions import ScoutLegal

Mask = npt.NDArray[np.int8]
Vector = npt.NDArray[np.float32]


class Table(ABC):
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


class ScoutTable(Table):
    """Scout with the two-decision scout & show (S-9) of :mod:`~spieltisch.rl.scout_actions`."""

    game = "scout"
    num_actions = scout_actions.NUM_ACTIONS
    obs_size = scout_obs.OBS_SIZE
    info_size = scout_obs.INFO_SIZE
    full_size = scout_obs.FULL_SIZE

    def __init__(
        self, players: int, seed: int, options: Mapping[str, Any] | None = None, state: State | None = None
    ) -> None:
        super().__init__(players, seed, options, state)
        self.pending: int | None = None
        """The scout half chosen by the seat to move, waiting for its show half."""
        self.memory = scout_obs.PublicMemory(players)
        self._legal: dict[int, ScoutLegal] = {}

    def clone(self) -> Self:
        out = super().clone()
        out.memory = self.memory.copy()
        out._legal = {}
        return out

    def legal(self, seat: int) -> ScoutLegal:
        if seat not in self._legal:
            table = self.public_view()["table"]
            size = len(table["cards"]) if table else 0
            self._legal[seat] = scout_actions.legal(self.state.legal_action_ids(seat), size)
        return self._legal[seat]

    def legal_ids(self, seat: int) -> list[int]:
        if seat not in self.to_move():
            return []
        return self.legal(seat).ids(self.pending)

    def step(self, seat: int, action: int) -> None:
        self._check_seat(seat)
        engine_id = self.legal(seat).engine_id(int(action), self.pending)
        if engine_id is None:
            self.pending = int(action)  # the scout half: the same seat decides the show half
            return
        self.pending = None
        self.apply_engine(seat, engine_id)

    def apply_engine(self, seat: int, engine_id: int) -> None:
        if self.pending is not None:
            raise InvalidActionError("a scout half is waiting for its show half")
        kind = scout_actions.decode(scout_actions.from_engine_id(engine_id)[0]).kind
        self.state.apply_id(seat, engine_id)
        self._public = None
        self._legal.clear()
        self.memory.after(seat, kind, self.public_view())

    def _pending(self, seat: int) -> scout_obs.PendingScout | None:
        if self.pending is None or seat not in self.to_move():
            return None
        d = scout_actions.decode(self.pending)
        return scout_obs.PendingScout(d.end, d.turn, d.insert)

    def observe(self, seat: int) -> Vector:
        return scout_obs.observation(self.state.view(seat, log=False), self._pending(seat))

    def information_state(self, seat: int) -> Vector:
        return scout_obs.information_state(self.state.view(seat, log=False), self.memory, self._pending(seat))

    def spectator_tensor(self) -> Vector:
        return scout_obs.spectator_tensor(self.state)

    def full_state_tensor(self) -> Vector:
        return scout_obs.full_state_tensor(self.state)

    def action_text(self, seat: int, action: int) -> str:
        return scout_actions.to_text(int(action), self.pending if seat in self.to_move() else None)

    def decision_kind(self, seat: int) -> str:
        if seat not in self.to_move():
            return "none"
        if self.pending is not None:
            return "show-half"
        return "flip" if self.public_view()["phase"] == "flip" else "turn"


class SchmausTable(Table):
    """Waschbär-Schmaus with the engine's ids; ``wait`` (183) is legal for idle seats
    only when ``allow_wait`` (the parallel environment)."""

    game = "schmaus"
    num_actions = schmaus_obs.NUM_ACTIONS
    obs_size = schmaus_obs.OBS_SIZE
    info_size = schmaus_obs.INFO_SIZE
    full_size = schmaus_obs.FULL_SIZE

    def __init__(
        self,
        players: int,
        seed: int,
        options: Mapping[str, Any] | None = None,
        allow_wait: bool = False,
        state: State | None = None,
    ) -> None:
        super().__init__(players, seed, options, state)
        self.allow_wait = allow_wait

    def legal_ids(self, seat: int) -> list[int]:
        if self.is_over():
            return []
        if seat not in self.to_move():
            return [schmaus_obs.WAIT] if self.allow_wait else []
        return sorted(self.state.legal_action_ids(seat))

    def step(self, seat: int, action: int) -> None:
        action = int(action)
        if action == schmaus_obs.WAIT and self.allow_wait and not self.is_over():
            if seat in self.to_move():
                raise InvalidActionError(
                    f"seat {seat} must decide now; 'wait' is for seats with nothing to do"
                )
            return
        self._check_seat(seat)
        if action not in self.state.legal_action_ids(seat):
            raise InvalidActionError(
                f"Waschbär-Schmaus action {action} ({self.action_text(seat, action)}) is not legal for "
                f"seat {seat} now"
            )
        self.apply_engine(seat, action)

    def apply_engine(self, seat: int, engine_id: int) -> None:
        self.state.apply_id(seat, engine_id)
        self._public = None

    def observe(self, seat: int) -> Vector:
        return schmaus_obs.observation(self.state.view(seat, log=False))

    def information_state(self, seat: int) -> Vector:
        return schmaus_obs.information_state(self.state.view(seat, log=False))

    def spectator_tensor(self) -> Vector:
        return schmaus_obs.spectator_tensor(self.state)

    def full_state_tensor(self) -> Vector:
        return schmaus_obs.full_state_tensor(self.state)

    def action_text(self, seat: int, action: int) -> str:
        if not 0 <= int(action) < self.num_actions:
            return f"<no action {action}>"
        return schmaus_obs.action_text(int(action))

    def decision_kind(self, seat: int) -> str:
        return str(self.public_view()["phase"]) if seat in self.to_move() else "none"


def make_table(
    game: str, players: int, seed: int, options: Mapping[str, Any] | None = None, **kwargs: Any
) -> Table:
    name = get_game(game).name
    if name == "scout":
        return ScoutTable(players, seed, options, **kwargs)
    return SchmausTable(players, seed, options, **kwargs)
