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


def _league_run(out: Path) -> list[str]:
    ppo = _example()
    argv = ["train", "--updates", "3", "--num-envs", "2", "--num-steps", "24", "--players", "3"]
    argv += ["--seed", "4"]
    argv += ["--league", "2", "--snapshot-every", "1", "--league-share", "1", "--opponents", "random"]
    argv += ["--eval-every", "2", "--curve-games", "2", "--eval-games", "0", "--quiet", "--out", str(out)]
    assert ppo.main(argv) == 0
    return out.with_suffix(".csv").read_text(encoding="utf-8").splitlines()


def test_league_training_keeps_the_newest_members_draws_the_curve_and_repeats_from_its_seed(
    tmp_path: Path,
) -> None:
    pytest.importorskip("matplotlib")
    first = _league_run(tmp_path / "a" / "league.pt")
    members = sorted(p.name for p in (tmp_path / "a" / "league.pt.league").iterdir())
    assert members == ["00001.pt", "00002.pt", "00003.pt"]  # each snapshot is written; the newest 2 play
    header, *rows = first
    assert header.startswith("update,steps,train_win_rate,league") and len(rows) == 3
    assert [row.split(",")[3] for row in rows] == ["1", "2", "2"]  # at most --league members in play
    assert rows[1].split(",")[4] != "" and rows[0].split(",")[4] == ""  # evaluated every 2nd update
    assert (tmp_path / "a" / "league.png").stat().st_size > 10_000
    assert _league_run(tmp_path / "b" / "league.pt") == first  # the same seed, the same run


def test_a_league_member_plays_a_whole_game_in_process(model: Path) -> None:
    spec = f"py:{SCRIPT}:league_bot:{model}"
    t = make_episode("schmaus", 3, 77)
    bots = [make_bot("schmaus", s, seat, seat + 1) for seat, s in enumerate((spec, "easy", spec))]
    while not t.is_over():
        seat = t.to_move()[0]
        legal = t.state.legal_action_ids(seat)
        choice = bots[seat].choose(t.state.view(seat), legal)
        assert choice in legal
        t.apply_engine(seat, choice)
    assert len(t.winners()) >= 1
