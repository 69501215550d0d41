"""Smoke run of examples/ppo_schmaus.py: train a few updates, save, load, evaluate,
and seat the saved policy as a ``cmd:`` bot (bot protocol 1) for a whole game."""

from __future__ import annotations

import importlib.util
import io
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("torch")
pytest.importorskip("gymnasium")

from spieltisch.bots import make_bot
from spieltisch.rl.envs.frame import make_episode

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "ppo_schmaus.py"


def _example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ppo_schmaus", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["ppo_schmaus"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("ppo") / "m.pt"
    ppo = _example()
    argv = ["train", "--minutes", "1", "--updates", "2", "--num-envs", "2", "--num-steps", "16"]
    assert ppo.main([*argv, "--eval-games", "0", "--out", str(path), "--opponents", "random"]) == 0
    return path


def test_saved_policy_loads_and_plays_legal_greedy_moves(model: Path) -> None:
    ppo = _example()
    agent = ppo.load(model)
    wins, games = ppo.evaluate(agent, players=2, opponents="easy", games=3, seed=5)
    assert games == 3 and 0 <= wins <= 3
    t = make_episode("schmaus", 3, 11)
    legal = t.legal_ids(t.to_move()[0])
    assert ppo.greedy(agent, t.observe(t.to_move()[0]), legal) in legal


def test_wilson_interval() -> None:
    ppo = _example()
    low, high = ppo.wilson(60, 100)
    assert low == pytest.approx(0.502, abs=1e-3) and high == pytest.approx(0.691, abs=1e-3)
    assert ppo.wilson(0, 10)[0] == 0.0 and ppo.wilson(10, 10)[1] == 1.0


def test_policy_seated_as_cmd_bot_plays_a_whole_game(model: Path) -> None:
    command = f"cmd:{sys.executable} {SCRIPT} bot --model {model}"
    t = make_episode("schmaus", 3, 2024)
    bots = [make_bot("schmaus", "easy", 0, 1), make_bot("schmaus", command, 1, 2, timeout=60.0)]
    bots.append(make_bot("schmaus", "random", 2, 3))
    decisions = 0
    try:
        while not t.is_over():
            seat = t.to_move()[0]
            legal = t.state.legal_action_ids(seat)
            choice = bots[seat].choose(t.state.view(seat), legal)  # BotFault on any protocol error
            assert choice in legal
            decisions += seat == 1
            t.apply_engine(seat, choice)
    finally:
        for bot in bots:
            bot.close()
    assert decisions > 0 and len(t.scores()) == 3


def test_bot_refuses_another_game(
    model: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    hello = {"type": "hello", "protocol": 1, "game": "scout", "seat": 0, "players": 2, "seed": 1}
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(hello) + "\n"))
    ppo = _example()
    assert ppo.bot(ppo.load(model)) == 1
    out = capsys.readouterr()
    assert out.out == "" and "game 'schmaus'" in out.err and "'scout'" in out.err
