"""Shared helpers of the learning-interface tests."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

Log = list[tuple[int, int]]
Player = Callable[[str, int, int], tuple[Log, list[list[int]]]]


def random_game(game: str, players: int, seed: int, limit: int = 3000) -> tuple[Log, list[list[int]]]:
    """An engine game played through learning ids: its ``(seat, engine id)`` log and,
    per logged action, the learning ids that chose it."""
    from spieltisch.rl.envs.frame import make_episode
    from spieltisch.rl.scout import actions as scout_actions

    episode = make_episode(game, players, seed)
    rng = random.Random(seed)
    decisions: list[list[int]] = []
    current: list[int] = []
    while not episode.is_over() and len(decisions) < limit:
        seat = episode.to_move()[0]
        legal = episode.legal_ids(seat)
        if game == "scout":  # mostly shows, so that rounds end and new ones are dealt
            shows = [a for a in legal if a < scout_actions.SCOUT_BASE]
            if shows and rng.random() < 0.85:
                legal = shows
        action = rng.choice(legal)
        current.append(action)
        before = len(episode.state.history)
        episode.step(seat, action)
        if len(episode.state.history) > before:
            decisions.append(current)
            current = []
    return [(s, a) for s, a in episode.state.history], decisions


@pytest.fixture
def play() -> Player:
    """:func:`random_game`: a seeded engine game played through random learning ids."""
    return random_game
