"""The optional compiled engine (``scripts/build-fast``: Scout's move generation
compiled with mypyc) gives exactly the results of the pure-Python module."""

from __future__ import annotations

import hashlib
import importlib.util
import random
from pathlib import Path
from types import ModuleType

import pytest

from spieltisch.engine import get_game
from spieltisch.engine.scout import movegen
from spieltisch.engine.scout import state as scout_state
from spieltisch.engine.scout.cards import BOTTOM, TOP

SOURCE = Path(scout_state.__file__).with_name("movegen.py")
COMPILED = not movegen.__file__.endswith(".py")
needs_build = pytest.mark.skipif(not COMPILED, reason="the compiled engine is not built (scripts/build-fast)")


def pure_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pure_movegen", SOURCE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def positions(count: int) -> list[tuple[list[int], list[int]]]:
    """(hand, table) pairs from random games of every player count."""
    out: list[tuple[list[int], list[int]]] = []
    rng = random.Random(7)
    game = get_game("scout")
    seed = 0
    while len(out) < count:
        state = game.new_state(2 + seed % 4, seed)
        seed += 1
        while not state.is_over():
            seat = state.to_move()[0]
            if state.phase == "play":  # type: ignore[attr-defined]
                out.append((list(state.hands[seat]), list(state.table)))  # type: ignore[attr-defined]
            ids = state.legal_action_ids(seat)
            state.apply_id(seat, ids[rng.randrange(len(ids))])
    return out


@needs_build
def test_the_compiled_module_is_built_from_the_current_source() -> None:
    built = (SOURCE.parent / "movegen.build-info").read_text().strip()
    current = hashlib.sha256(SOURCE.read_bytes()).hexdigest()
    assert built == current, "movegen.py changed since the build: run scripts/build-fast"


@needs_build
def test_compiled_and_pure_move_generation_agree() -> None:
    pure = pure_module()
    for hand, table in positions(3000):
        for scouts, chip in ((True, True), (True, False), (False, False)):
            assert movegen.play_ids(hand, TOP, BOTTOM, table, scouts, chip) == pure.play_ids(
                hand, TOP, BOTTOM, table, scouts, chip
            )
        key = pure.cards_key(table, TOP)
        assert movegen.cards_key(table, TOP) == key
        assert movegen.can_show(hand, TOP, key) == pure.can_show(hand, TOP, key)


@needs_build
def test_whole_games_are_the_same_with_either_build(monkeypatch: pytest.MonkeyPatch) -> None:
    def play(players: int, seed: int) -> list[tuple[int, int]]:
        state = get_game("scout").new_state(players, seed)
        rng = random.Random(seed)
        while not state.is_over():
            seat = state.to_move()[0]
            ids = state.legal_action_ids(seat)
            state.apply_id(seat, ids[rng.randrange(len(ids))])
        return state.history

    compiled = [play(players, seed) for players in (2, 3, 4, 5) for seed in range(3)]
    pure = pure_module()
    for name in ("play_ids", "can_show", "cards_key"):
        monkeypatch.setattr(scout_state, name, getattr(pure, name))
    assert [play(players, seed) for players in (2, 3, 4, 5) for seed in range(3)] == compiled
