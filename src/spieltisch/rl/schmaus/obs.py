"""Waschbär-Schmaus action ids and tensors for learning code (docs/rl.md).

The engine's numbering is already small (183 ids: 161 lays, 5 grocer targets,
5 ×5 choices, 12 one-card discards), and no two of its ids mean the same
action, so learning code uses it as it is, plus one id:

    183  wait - only in the parallel environment, for a seat that has
         nothing to decide while others do

Tensors (float32), seats relative to the observer as in Scout:

* :func:`observation` - from one seat's view only;
* :func:`information_state` - the observation plus the game's memory that the
  view keeps public (every round's revealed lays and individual scores);
* :func:`spectator_tensor`, :func:`full_state_tensor` (**research only**:
  every hand and the draw pile's contents).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from spieltisch.engine import State, get_game

IDS = ("F1", "F2", "F3", "F4", "F5", "X3", "X2", "X5", "HUNTER", "GARBAGE", "GROCER", "GUARDIAN")
KIND = {name: i for i, name in enumerate(IDS)}
KINDS = 12
SEATS = 5

ENGINE_ACTIONS = get_game("schmaus").num_actions(SEATS)
NUM_ACTIONS = ENGINE_ACTIONS
"""183: the action space of the AEC, Gymnasium, OpenSpiel and batched environments."""
WAIT = ENGINE_ACTIONS
PARALLEL_ACTIONS = WAIT + 1
"""184: the parallel environment's action space, ``wait`` included."""

PHASES = ("play", "target", "discard", "game_over")
SEAT_FEATURES = 6

HAND = 0
MY_PLAY = HAND + KINDS
DISCARD = MY_PLAY + KINDS
SEAT = DISCARD + KINDS
REVEALED = SEAT + SEATS * SEAT_FEATURES
PHASE = REVEALED + SEATS * KINDS
SCALAR = PHASE + len(PHASES)
SCALARS = 13
OBS_SIZE = SCALAR + SCALARS

LAST_PLAYS = OBS_SIZE
LAST_SCORES = LAST_PLAYS + SEATS * KINDS
PLAYED = LAST_SCORES + SEATS
INFO_SIZE = PLAYED + SEATS * KINDS

FULL_HANDS = OBS_SIZE
FULL_DRAW = FULL_HANDS + SEATS * KINDS
FULL_SIZE = FULL_DRAW + KINDS
SIZES = (OBS_SIZE, INFO_SIZE, FULL_SIZE)
"""The observation, information-state and full-state tensor sizes."""

Vector = npt.NDArray[np.float32]


def _counts(out: Vector, offset: int, cards: Sequence[str], scale: float) -> None:
    for text in cards:
        out[offset + KIND[text]] += scale


def action_text(action_id: int) -> str:
    """Engine notation of a learning id (``wait`` for 183)."""
    if action_id == WAIT:
        return "wait"
    return get_game("schmaus").action_from_id(action_id).to_text()


def observation(view: Mapping[str, Any]) -> Vector:
    """The observation tensor of the seat whose view this is (``OBS_SIZE`` float32)."""
    out = np.zeros(OBS_SIZE, dtype=np.float32)
    n: int = view["players"]
    me: int | None = view["seat"]
    origin = 0 if me is None else me
    options = view["options"]
    limit = options["hand_limit"]
    _counts(out, HAND, view["hand"] or (), 1 / limit)
    _counts(out, MY_PLAY, view["my_play"] or (), 1 / 3)
    _counts(out, DISCARD, view["discard"], 1 / 15)
    to_move = set(view["to_move"])
    results = view["round_results"]
    lowest = set(results[-1]["lowest"]) if results else set()
    revealed = view["revealed"]
    for seat in range(n):
        rel = (seat - origin) % n
        out[SEAT + rel * SEAT_FEATURES : SEAT + (rel + 1) * SEAT_FEATURES] = (
            view["hand_sizes"][seat] / limit,
            view["scores"][seat] / 100,
            view["committed"][seat],
            seat in to_move,
            seat in lowest,
            1.0,
        )
        if revealed:
            _counts(out, REVEALED + rel * KINDS, revealed[seat], 1 / 3)
    out[PHASE + PHASES.index(view["phase"])] = 1.0
    out[SCALAR : SCALAR + SCALARS] = (
        view["draw_pile_size"] / 54,
        (view["must_discard"] or 0) / limit,
        bool(view["must_keep_play"]),
        view["round"] / max(1, view["rounds"]),
        view["rounds"] / 30,
        n == 2,
        n == 3,
        n == 4,
        n == 5,
        limit / 54,
        options["loser_draws"] / 10,
        options["short_hand"] == "play-what-you-can",
        options["hunter_draw"] == "nobody",
    )
    return out


def information_state(view: Mapping[str, Any]) -> Vector:
    """Observation + the last round's lays and scores + every card each seat has laid."""
    out = np.zeros(INFO_SIZE, dtype=np.float32)
    out[:OBS_SIZE] = observation(view)
    n = view["players"]
    origin = view["seat"] or 0
    results = view["round_results"]
    for r, result in enumerate(results):
        last = r == len(results) - 1
        for seat, play in enumerate(result["plays"]):
            rel = (seat - origin) % n
            _counts(out, PLAYED + rel * KINDS, play, 1 / 30)
            if last:
                _counts(out, LAST_PLAYS + rel * KINDS, play, 1 / 3)
                out[LAST_SCORES + rel] = result["individual"][seat] / 50
    return out


def spectator_tensor(state: State) -> Vector:
    """The observation of a spectator: public information only."""
    return observation(state.view(None, log=False))


def full_state_tensor(state: State) -> Vector:
    """Spectator observation + every hand + the draw pile's contents. **Research only.**"""
    out = np.zeros(FULL_SIZE, dtype=np.float32)
    out[:OBS_SIZE] = spectator_tensor(state)
    data = state.to_json()
    limit = data["options"]["hand_limit"]
    for seat, hand in enumerate(data["hands"]):
        _counts(out, FULL_HANDS + seat * KINDS, hand, 1 / limit)
    _counts(out, FULL_DRAW, data["draw_pile"], 1 / 15)
    return out
