"""Waschbär-Schmaus as an :class:`~spieltisch.rl.episode.Episode`: the engine's own action ids
and the tensors of :mod:`~spieltisch.rl.schmaus.obs`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from spieltisch.engine import InvalidActionError, State
from spieltisch.rl.episode import Episode, Vector
from spieltisch.rl.schmaus import obs as schmaus_obs


class SchmausEpisode(Episode):
    """Waschbär-Schmaus with the engine's ids (183 actions); with ``allow_wait`` (the parallel
    environment) one more, ``wait`` (183), the only legal id of an idle seat."""

    game = "schmaus"
    num_actions = schmaus_obs.NUM_ACTIONS
    obs_size, info_size, full_size = schmaus_obs.SIZES

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
        if allow_wait:
            self.num_actions = schmaus_obs.PARALLEL_ACTIONS

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
