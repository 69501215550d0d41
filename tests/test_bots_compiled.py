"""The optional compiled Scout playout policy (``scripts/build-fast`` compiles
``bots/scout/policy.py`` with mypyc, beside the engine) plays exactly the games
of the pure-Python module: the same seed gives the same game either way."""

from __future__ import annotations

import hashlib
import importlib
import json
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from spieltisch.bots.scout import policy
from spieltisch.engine.scout import ScoutState

SRC = Path(policy.__file__).resolve().parents[3]
BOT_MODULES = ("spieltisch.bots.scout.policy",)
"""The bot modules ``scripts/build-fast`` compiles (its ``BOT_MODULES``)."""
MODULES = [importlib.import_module(name) for name in BOT_MODULES]
needs_build = pytest.mark.skipif(
    policy.__file__.endswith(".py"), reason="the compiled bots are not built (scripts/build-fast)"
)


def test_the_build_script_compiles_the_bot_modules_named_here() -> None:
    script = (SRC.parent / "scripts" / "build-fast").read_text()
    listed = re.search(r"\bBOT_MODULES=\(([^)]*)\)", script)
    assert listed is not None
    assert [m.replace("/", ".") for m in listed[1].split()] == list(BOT_MODULES)


@needs_build
@pytest.mark.parametrize("module", MODULES, ids=BOT_MODULES)
def test_the_compiled_module_is_built_from_the_current_source(module: ModuleType) -> None:
    name = module.__name__.rsplit(".", 1)[-1]
    source = Path(module.__file__).with_name(f"{name}.py")  # type: ignore[arg-type]
    built = source.with_suffix(".build-info").read_text().strip()
    current = hashlib.sha256(source.read_bytes()).hexdigest()
    assert built == current, f"{source.name} changed since the build: run scripts/build-fast"


# Plays seeded Scout games with the kept hard versions, whose playouts run the policy
# (small budgets, no wall-clock cap), asks the fast policy (the review's playouts)
# at every position, and prints one digest of every action.
GAMES_SCRIPT = """
import hashlib, json
from spieltisch.bots import make_bot
from spieltisch.bots.scout import policy
from spieltisch.engine.scout import ScoutState
from spieltisch.bots.match import play_match
specs = ["hard:playouts=24", "hard@v7:playouts=24", "medium", "hard:playouts=24", "hard@v7:playouts=24"]
digest = hashlib.sha256()
for players, seed in ((4, 1), (5, 2), (3, 3), (2, 4)):
    bots = [make_bot("scout", specs[s], s, seed) for s in range(players)]
    history = play_match("scout", bots, seed).state.history
    digest.update(json.dumps(history).encode())
    state = ScoutState.new(players, seed)
    for seat, action in history:
        if state.phase == "play":
            args = (state.hands[seat], state.table, players, state.chips[seat])
            digest.update(str(policy.fast_best_action(*args)).encode())
        state.apply_id(seat, action)
print(json.dumps([policy.__file__.endswith(".py"), digest.hexdigest()]))
"""


def run_games(src: Path) -> tuple[bool, str]:
    out = subprocess.run(
        [sys.executable, "-c", GAMES_SCRIPT],
        env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    pure, digest = json.loads(out.stdout)
    return pure, digest


@needs_build
@pytest.mark.slow
def test_hard_plays_the_same_games_compiled_and_pure(tmp_path: Path) -> None:
    pure_src = tmp_path / "src"
    shutil.copytree(SRC / "spieltisch", pure_src / "spieltisch", ignore=shutil.ignore_patterns("*.so"))
    compiled = run_games(SRC)
    pure = run_games(pure_src)
    assert compiled[0] is False and pure[0] is True
    assert compiled[1] == pure[1]


def test_the_playouts_memo_holds_exact_hand_values() -> None:
    # The playouts memoise hand values by int key and compute the missing ones
    # from the part of the programme in front of the change: every value must
    # be the whole programme's, to the last bit, or a tie could break another way.
    rng = random.Random(5)
    for seed in range(30):
        state = ScoutState.new(2 + seed % 4, seed)
        while not state.is_over():
            seat = state.to_move()[0]
            if state.phase == "play":
                policy._best_pruned(state.hands[seat], state.table, state.players, state.chips[seat])
            ids = state.legal_action_ids(seat)
            state.apply_id(seat, ids[rng.randrange(len(ids))])
    assert len(policy._VALUES) > 1000
    for key, value in list(policy._VALUES.items())[-5000:]:
        vals = []
        while key:
            vals.append(key & 15)
            key >>= 4
        assert value == policy._hand_value(vals)
