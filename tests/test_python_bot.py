"""``py:MODULE:FACTORY[:ARG]`` seat specs: in-process bots in terminal play and the lab."""

from __future__ import annotations

from pathlib import Path

import pytest

from spieltisch.bots import check_spec, make_bot
from spieltisch.bots.match import play_match
from spieltisch.engine import OptionsError
from spieltisch.lab.config import LabError, check_bot_spec, split_bots
from spieltisch.lab.tournament import Tournament
from spieltisch.terminal.config import PlayError
from spieltisch.terminal.table import make_bots

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = f"py:{ROOT / 'examples' / 'py_bot.py'}:make_bot"


@pytest.fixture
def bot_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """An importable module ``mybots`` with factories good and bad."""
    (tmp_path / "mybots.py").write_text(
        "from spieltisch.bots import RandomBot\n"
        "class First:\n"
        "    def __init__(self, arg): self.arg = arg\n"
        "    def choose(self, view, legal): return min(legal)\n"
        "def first(game, seat, seed, arg=None): return First(arg)\n"
        "def builtin(game, seat, seed, arg=None): return RandomBot(game, seat, seed)\n"
        "def nothing(game, seat, seed, arg=None): return 42\n"
        "def broken(game, seat, seed, arg=None): raise RuntimeError('no weights here')\n"
        "NOT_CALLABLE = 3\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    return "mybots"


def test_a_py_bot_plays_with_its_factorys_argument(bot_module: str) -> None:
    bot = make_bot("scout", f"py:{bot_module}:first:a:b", seat=1, seed=5)
    assert bot.player.arg == "a:b"  # type: ignore[attr-defined]  # everything after the third colon
    assert bot.choose({}, [7, 3, 9]) == 3
    assert bot.name == f"py:{bot_module}:first:a:b"
    assert make_bot("schmaus", f"py:{bot_module}:builtin", 0, 1).level == "random"  # a Bot as it is
    result = play_match("schmaus", [make_bot("schmaus", f"py:{bot_module}:first", s, 1) for s in range(3)], 4)
    assert result.state.is_over() and result.faults == [0, 0, 0]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("py:surely_no_such_module_xyz:make", "no module 'surely_no_such_module_xyz'"),
        ("py:missing_file.py:make", "no file 'missing_file.py'"),
        ("py:mybots:absent", "mybots has no 'absent'"),
        ("py:mybots:NOT_CALLABLE", "is not callable"),
        ("py:mybots", "write py:MODULE:FACTORY"),
        ("py:mybots:not-a-name", "is not a Python name"),
    ],
)
def test_bad_py_specs_say_what_is_wrong(bot_module: str, spec: str, message: str) -> None:
    with pytest.raises(OptionsError, match=message):
        check_spec("scout", spec)
    with pytest.raises(LabError, match=message):
        check_bot_spec("scout", spec)


@pytest.mark.parametrize(
    ("factory", "message"),
    [("nothing", "returned int, which has no choose"), ("broken", "the factory raised RuntimeError")],
)
def test_a_bad_factory_result_is_named(bot_module: str, factory: str, message: str) -> None:
    with pytest.raises(OptionsError, match=message):
        make_bot("scout", f"py:{bot_module}:{factory}", 0, 1)


def test_terminal_play_seats_a_py_bot_or_names_the_fault(bot_module: str) -> None:
    from spieltisch.terminal.config import make_config

    config = make_config("scout", 3, seed=1, seats=[f"1={EXAMPLE}", "2=py:mybots:nothing"])
    with pytest.raises(PlayError, match=r"seat 2: .*has no choose"):
        make_bots(config)
    bots = make_bots(make_config("scout", 3, seed=1, seats=[f"1={EXAMPLE}"]))
    assert bots[1].name == EXAMPLE


def test_a_py_bot_plays_a_lab_tournament() -> None:
    assert split_bots([f"{EXAMPLE}:1,2", "random"]) == [f"{EXAMPLE}:1,2", "random"]  # never split
    result = Tournament.create("schmaus", ["medium", f"{EXAMPLE}:7"], 2, seed=3).run(workers=1)
    assert result.summary["faults"]["total"] == 0
    assert result.summary["bots"][1]["bot"] == f"{EXAMPLE}:7"
    assert sum(g.decisions[g.entry_seat(1)] for g in result.games) > 0


def test_lab_cli_runs_a_py_bot_in_worker_processes(tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from spieltisch.cli import app

    args = ["lab", "tournament", "-g", "scout", "--bot", "random", "--bot", EXAMPLE, "-n", "4", "--seed", "2"]
    result = CliRunner().invoke(app, [*args, "-j", "2", "-q", "--json", str(tmp_path / "r.json")])
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["summary"]["faults"]["total"] == 0
    result = CliRunner().invoke(app, ["lab", "tournament", "-g", "scout", "--bot", "random", "--bot", "py:x"])
    assert result.exit_code != 0 and "write py:MODULE:FACTORY" in result.output
