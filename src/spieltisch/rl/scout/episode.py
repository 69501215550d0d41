"""Scout as an :class:`~spieltisch.rl.episode.Episode`: the engine behind the learning ids of
:mod:`~spieltisch.rl.scout.actions` and the tensors of :mod:`~spieltisch.rl.scout.obs`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

from spieltisch.engine import InvalidActionError, State
from spieltisch.rl.episode import Episode, Vector
from spieltisch.rl.scout import actions as scout_actions
from spieltisch.rl.scout import obs as scout_obs
from spieltisch.rl.scout.actions import ScoutLegal


class ScoutEpisode(Episode):
    """Scout with the two-decision scout & show (S-9) of :mod:`~spieltisch.rl.scout.actions`."""

    game = "scout"
    num_actions = scout_actions.NUM_ACTIONS
    obs_size, info_size, full_size = scout_obs.SIZES

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
