"""Replaying a batched game (:mod:`spieltisch.rl.scout.batched`, :mod:`spieltisch.rl.schmaus.batched`)
in the reference engine: what the tests compare the batched engines with, step by step."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from spieltisch.engine import State, get_game
from spieltisch.rl.schmaus.episode import SchmausEpisode
from spieltisch.rl.scout.episode import ScoutEpisode


def replay_in_engine(
    game: str, players: int, seed: int, actions: Sequence[int] | Sequence[Sequence[int]]
) -> list[State]:
    """One batched game replayed in the reference engine: the engine state after every step.

    The batched game must have been dealt as the engine deals the game of ``seed``: Scout by
    :func:`spieltisch.rl.scout.batched.engine_dealer`, Waschbär-Schmaus from
    :meth:`~spieltisch.rl.schmaus.batched.BatchedSchmaus.load_states` with
    :func:`~spieltisch.rl.schmaus.batched.engine_shuffler`, or a learner environment's slot
    dealt with ``engine_seeds`` (:class:`~spieltisch.rl.schmaus.vector.SchmausVectorEnv`).
    ``actions`` are the game's own learning ids, step by step as the batched game took them:
    Scout one id per step (of the seat to move; a scout half leaves the engine state as it
    was, S-9); Waschbär-Schmaus either one row of ``players`` ids per node (-1 for the seats
    not deciding: :class:`~spieltisch.rl.schmaus.batched.BatchedSchmaus`) or one id per
    decision, of the lowest seat to move (the AEC order: a learner environment's
    ``action_log``), one state per id. Steps after the game's end (-1 entries, the next
    games of an ``action_log``) are ignored. Every id goes through the engine's checked path, so an id the
    engine refuses raises its :class:`ValueError`."""
    name = get_game(game).name
    states: list[State] = []
    if name == "scout":
        scout = ScoutEpisode(players, seed)
        for action in actions:
            if scout.is_over():
                break
            scout.step(scout.to_move()[0], int(action))  # type: ignore[arg-type]
            states.append(scout.state.clone())
        return states
    schmaus = SchmausEpisode(players, seed)
    for row in actions:
        if schmaus.is_over():
            break
        if isinstance(row, int | np.integer):  # one decision, of the lowest seat to move
            schmaus.step(schmaus.to_move()[0], int(row))
        else:
            for seat in schmaus.to_move():
                schmaus.step(seat, int(row[seat]))
        states.append(schmaus.state.clone())
    return states
