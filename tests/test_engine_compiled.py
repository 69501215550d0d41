"""The optional compiled engine (``scripts/build-fast``: the engine's protocol,
shared frame, both games' cards and states and Scout's move generation compiled
with mypyc) gives exactly the results of the pure-Python modules."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from spieltisch.benchmarks.engine import COMPILED, ENGINE_MODULES, PURE, engine_build, measure_pure_playouts
from spieltisch.engine import get_game
from spieltisch.engine.scout import movegen
from spieltisch.engine.scout import state as scout_state
from spieltisch.engine.scout.cards import BOTTOM, TOP

SRC = Path(scout_state.__file__).resolve().parents[3]
MODULES = [importlib.import_module(f"spieltisch.engine.{name}") for name in ENGINE_MODULES]
needs_build = pytest.mark.skipif(
    engine_build() != COMPILED, reason="the compiled engine is not built (scripts/build-fast)"
)


def test_the_build_script_compiles_the_modules_the_benchmark_names() -> None:
    script = (SRC.parent / "scripts" / "build-fast").read_text()
    listed = re.search(r"MODULES=\(([^)]*)\)", script)
    assert listed is not None
    names = [m.removeprefix("spieltisch/engine/").replace("/", ".") for m in listed[1].split()]
    assert names == list(ENGINE_MODULES)


# Plays seeded random games of both games with every player count and prints one
# digest of every action, final state and spectator view.
GAMES_SCRIPT = """
import hashlib, json, random
from spieltisch.benchmarks.engine import engine_build
from spieltisch.engine import get_game
digest = hashlib.sha256()
options = [{}, {"short_hand": "play-what-you-can"}, {"refill_to": 5, "hand_limit": 9}, {"rounds": "draw"}]
for game in ("scout", "schmaus"):
    for players in (2, 3, 4, 5):
        for seed in range(4):
            opts = options[seed] if game == "schmaus" else None
            state = get_game(game).new_state(players, seed, opts)
            rng = random.Random(seed)
            while not state.is_over():
                seat = rng.choice(state.to_move())
                ids = state.legal_action_ids(seat)
                state.apply_id(seat, ids[rng.randrange(len(ids))])
            digest.update(json.dumps([state.history, state.to_json(), state.view(None)]).encode())
print(json.dumps([engine_build(), digest.hexdigest()]))
"""


def run_games(src: Path) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", GAMES_SCRIPT],
        env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    build, digest = json.loads(out.stdout)
    return [build, digest]


@needs_build
@pytest.mark.parametrize("module", MODULES, ids=ENGINE_MODULES)
def test_the_compiled_module_is_built_from_the_current_source(module: ModuleType) -> None:
    name = module.__name__.rsplit(".", 1)[-1]
    source = Path(module.__file__).with_name(f"{name}.py")  # type: ignore[arg-type]
    built = source.with_suffix(".build-info").read_text().strip()
    current = hashlib.sha256(source.read_bytes()).hexdigest()
    assert built == current, f"{source.name} changed since the build: run scripts/build-fast"


@needs_build
def test_whole_games_are_the_same_with_either_build(tmp_path: Path) -> None:
    pure_src = tmp_path / "src"
    shutil.copytree(SRC / "spieltisch", pure_src / "spieltisch", ignore=shutil.ignore_patterns("*.so"))
    compiled = run_games(SRC)
    pure = run_games(pure_src)
    assert compiled[0] == COMPILED and pure[0] == PURE
    assert compiled[1] == pure[1]


@needs_build
def test_the_benchmark_measures_pure_python_beside_the_compiled_build() -> None:
    decisions, games, per_game = measure_pure_playouts("schmaus", 3, 0.01, seed=1)
    assert decisions > 0 and games > 0 and per_game > 0


def pure_movegen() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "pure_movegen", Path(movegen.__file__).with_name("movegen.py")
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@needs_build
def test_compiled_and_pure_move_generation_agree_position_by_position() -> None:
    pure = pure_movegen()
    rng = random.Random(7)
    checked = 0
    for seed in range(40):
        state = get_game("scout").new_state(2 + seed % 4, seed)
        while not state.is_over():
            seat = state.to_move()[0]
            if state.phase == "play":  # type: ignore[attr-defined]
                hand, table = list(state.hands[seat]), list(state.table)  # type: ignore[attr-defined]
                for scouts, chip in ((True, True), (True, False), (False, False)):
                    assert movegen.play_ids(hand, TOP, BOTTOM, table, scouts, chip) == pure.play_ids(
                        hand, TOP, BOTTOM, table, scouts, chip
                    )
                key = pure.cards_key(table, TOP)
                assert movegen.cards_key(table, TOP) == key
                assert movegen.can_show(hand, TOP, key) == pure.can_show(hand, TOP, key)
                checked += 1
            ids = state.legal_action_ids(seat)
            state.apply_id(seat, ids[rng.randrange(len(ids))])
    assert checked > 1000
