"""External bots over the bot protocol (docs/bot-protocol.md): a whole game with
examples/random_bot.py, and every kind of fault counted while the game finishes."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from spieltisch.bots import Bot, make_bot
from spieltisch.bots.external import ExternalBot
from spieltisch.bots.match import BotFault, MatchResult, play_match
from spieltisch.engine import get_game
from spieltisch.engine.scout import Show

ROOT = Path(__file__).resolve().parents[1]
RANDOM_BOT = ROOT / "examples" / "random_bot.py"

# A protocol-speaking skeleton; BODY decides what the bot answers to "decide".
SKELETON = """
import json, sys, time, os
def send(m):
    sys.stdout.write(json.dumps(m) + "\\n"); sys.stdout.flush()
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] == "hello":
        send({{"type": "ready", "name": "test bot"}})
    elif m["type"] == "decide":
{body}
    elif m["type"] in ("game_over", "quit"):
        break
"""


def command(path: Path, *args: str) -> str:
    return shlex.join([sys.executable, str(path), *args])


def script(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / f"{name}.py"
    path.write_text(SKELETON.format(body=textwrap.indent(textwrap.dedent(body), " " * 8)))
    return path


def play_with(game: str, players: int, spec: str, seed: int = 3, timeout: float = 5.0) -> MatchResult:
    bots: list[Bot] = [make_bot(game, spec, 0, seed, timeout=timeout)]
    bots += [make_bot(game, "random", s, seed) for s in range(1, players)]
    try:
        return play_match(game, bots, seed=seed)
    finally:
        for bot in bots:
            bot.close()


@pytest.mark.parametrize(("game", "players"), [("scout", 3), ("schmaus", 3)])
def test_random_bot_plays_a_whole_game_without_faults(game: str, players: int) -> None:
    result = play_with(game, players, "cmd:" + command(RANDOM_BOT, "7"))
    assert result.state.is_over()
    assert result.faults == [0] * players
    assert result.decisions[0] > 0


def test_random_bot_is_reproducible_from_its_seed() -> None:
    first = play_with("schmaus", 2, "cmd:" + command(RANDOM_BOT, "11"))
    second = play_with("schmaus", 2, "cmd:" + command(RANDOM_BOT, "11"))
    assert first.state.record().actions == second.state.record().actions


def test_handshake_reports_the_bot_name_and_answers_by_text(tmp_path: Path) -> None:
    path = script(tmp_path, "texter", 'send({"type": "action", "text": m["legal"][-1]["text"]})')
    bot = ExternalBot("schmaus", 0, 1, command=command(path), timeout=5)
    try:
        bot.start(2)
        assert bot.name == "test bot"
    finally:
        bot.close()
    result = play_with("schmaus", 2, "cmd:" + command(path))
    assert result.faults == [0, 0]


def test_a_crashing_bot_is_restarted_once_then_out_and_the_game_finishes(tmp_path: Path) -> None:
    path = script(tmp_path, "crasher", 'print("boom: out of ideas", file=sys.stderr); sys.exit(3)')
    result = play_with("schmaus", 2, "cmd:" + command(path))
    assert result.state.is_over()
    assert result.faults[0] == result.decisions[0] > 2
    assert result.faults[1] == 0
    crashes = [m for m in result.fault_messages if "crashed" in m]
    assert len(crashes) == 2  # the first start and the one restart
    assert "exit code 3" in crashes[0] and "boom: out of ideas" in crashes[0]
    assert "out of the game" in result.fault_messages[-1]


def test_a_slow_bot_times_out(tmp_path: Path) -> None:
    path = script(tmp_path, "sleeper", "time.sleep(30)")
    result = play_with("schmaus", 2, "cmd:" + command(path), timeout=0.3)
    assert result.state.is_over()
    assert result.faults[0] == result.decisions[0]
    assert f"seat 0 bot {command(path)!r} timed out after 0.3 s" in result.fault_messages[0]


def test_a_bot_answering_garbage_is_refused_every_time(tmp_path: Path) -> None:
    path = script(tmp_path, "garbage", 'print("I think I will play the red one", flush=True)')
    result = play_with("schmaus", 2, "cmd:" + command(path))
    assert result.state.is_over()
    assert result.faults[0] == result.decisions[0]
    assert "answered garbage 'I think I will play the red one'" in result.fault_messages[0]


def test_a_bot_answering_an_illegal_action_is_refused(tmp_path: Path) -> None:
    path = script(tmp_path, "illegal", 'send({"type": "action", "text": "show 44"})')
    result = play_with("scout", 2, "cmd:" + command(path))
    assert result.state.is_over()
    assert result.faults[0] == result.decisions[0]
    assert "answered illegal action 'show 44'" in result.fault_messages[0]


def test_an_unknown_action_id_and_unreadable_text_are_faults(tmp_path: Path) -> None:
    bad_id = script(tmp_path, "bad_id", 'send({"type": "action", "id": 10**9})')
    unreadable = script(tmp_path, "unreadable", 'send({"type": "action", "text": "eat everything"})')
    first = play_with("schmaus", 2, "cmd:" + command(bad_id))
    second = play_with("schmaus", 2, "cmd:" + command(unreadable))
    assert "illegal action id 1000000000" in first.fault_messages[0]
    assert "unreadable action 'eat everything'" in second.fault_messages[0]
    assert first.faults[0] == first.decisions[0] and second.faults[0] == second.decisions[0]


def test_a_missing_program_is_a_clear_fault() -> None:
    bot = ExternalBot("scout", 1, 0, command="/nonexistent/bot --fast")
    with pytest.raises(BotFault, match="seat 1 bot '/nonexistent/bot --fast' cannot be started"):
        bot.start(3)


def test_close_stops_a_bot_that_ignores_the_end_of_the_game(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    path = tmp_path / "stubborn.py"
    path.write_text(
        textwrap.dedent(
            f"""
            import json, os, signal, sys, time
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            open({str(pid_file)!r}, "w").write(str(os.getpid()))
            sys.stdin.readline()
            print(json.dumps({{"type": "ready", "name": "stubborn"}}), flush=True)
            time.sleep(60)
            """
        )
    )
    bot = ExternalBot("scout", 0, 0, command=command(path))
    bot.start(2)
    pid = int(pid_file.read_text())
    bot.close()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_the_example_bot_speaks_the_documented_transcript() -> None:
    """The example bot answers hello with ready and a decide with one legal id."""
    messages = [
        {"type": "hello", "protocol": 1, "game": "scout", "seat": 1, "players": 3, "options": {}, "seed": 5},
        {"type": "decide", "view": {}, "legal": [{"id": 0, "text": "keep"}, {"id": 1, "text": "flip"}]},
        {"type": "game_over", "outcome": {"scores": [1, 2, 3], "winners": [2]}},
    ]
    stdin = "".join(json.dumps(m) + "\n" for m in messages)
    done = subprocess.run(
        [sys.executable, str(RANDOM_BOT)], input=stdin, capture_output=True, text=True, timeout=30, check=True
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert answers[0] == {"type": "ready", "name": "random_bot.py"}
    assert answers[1]["type"] == "action" and answers[1]["id"] in (0, 1)
    assert len(answers) == 2


def test_a_bot_that_stops_reading_cannot_block_the_table(tmp_path: Path) -> None:
    """Scout decide lines can exceed a pipe buffer; a bot that no longer reads only times out."""
    path = tmp_path / "deaf.py"
    path.write_text(
        textwrap.dedent(
            """
            import json, sys, time
            sys.stdin.readline()
            print(json.dumps({"type": "ready"}), flush=True)
            time.sleep(60)
            """
        )
    )
    bot = ExternalBot("scout", 0, 0, command=command(path), timeout=0.3)
    state = get_game("scout").new_state(4, 1)
    for seat in state.to_move():
        state.apply(seat, "keep")
    state.apply(state.to_move()[0], "show 0")  # an active set: hundreds of legal moves
    seat = state.to_move()[0]
    # ids of every show of a 45-card hand: far more than a pipe buffer holds
    big = [state.action_id(Show(start, n)) for start in range(45) for n in range(1, 46 - start)]
    try:
        with pytest.raises(BotFault, match=r"timed out after 0\.3 s"):
            bot.choose(state.view(seat), big)
    finally:
        bot.close()
