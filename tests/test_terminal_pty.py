"""Terminal play in a real pseudo-terminal of 80×24 (pexpect), with the screen as a
terminal shows it (pyte, a VT100 emulator): after every prompt the hand, the table
and the prompt must be on screen; round summaries wait for Enter."""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pyte
import pytest

ROOT = Path(__file__).resolve().parents[1]
PROMPT = {"en": "Number or notation (? help, q quit)> ", "de": "Nummer oder Notation (? Hilfe, q beenden)> "}
CONTINUE = {"en": "Press Enter to continue", "de": "Weiter mit der Eingabetaste"}
REVIEW = {"en": "Review the game? (y/N)>", "de": "Partie auswerten? (j/N)>"}


def interruptible() -> None:
    """In the child: Ctrl+C is delivered even when the tests run where it is ignored
    (a background job of a shell: its children inherit the ignored SIGINT)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Terminal:
    """``spieltisch play`` in an 80×24 pseudo-terminal, and what its screen shows."""

    def __init__(self, *args: str, lang: str = "en") -> None:
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "80", "LINES": "24"}
        self.lang = lang
        self.child = pexpect.spawn(
            sys.executable,
            ["-m", "spieltisch.cli", "play", *args, "--lang", lang],
            dimensions=(24, 80),
            env=env,
            cwd=str(ROOT),
            timeout=60,
            preexec_fn=interruptible,
        )

    def wait_for(self, *patterns: str, timeout: float = 60) -> int:
        """Read until the cursor's line on screen matches one of ``patterns`` (regexes,
        the screen is what counts: styles and colours are escape codes in the raw
        output); ``len(patterns)`` when the program ended first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                chunk = self.child.read_nonblocking(65536, timeout=0.2)
                self.raw += chunk
                self.stream.feed(chunk)
            except pexpect.TIMEOUT:
                pass
            except pexpect.EOF:
                return len(patterns)
            else:
                continue  # more output may follow at once: read it before looking
            line = self.screen.display[self.screen.cursor.y]
            for i, pattern in enumerate(patterns):
                if re.search(pattern, line):
                    return i
        raise AssertionError("timed out; the screen shows:\n" + "\n".join(self.lines()))

    def lines(self) -> list[str]:
        return [line.rstrip() for line in self.screen.display]

    def transcript(self) -> str:
        """Everything printed so far, without escape codes."""
        return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\r", "", self.raw.decode("utf-8", "replace"))

    def send(self, text: str) -> None:
        self.child.sendline(text)

    def close(self) -> None:
        self.child.close(force=True)


@pytest.fixture
def terminals() -> Iterator[list[Terminal]]:
    opened: list[Terminal] = []
    yield opened
    for t in opened:
        t.close()


def _decisions(t: Terminal, answers: Iterator[str], limit: int) -> list[list[str]]:
    """Answer ``limit`` prompts; the screens shown at each prompt."""
    prompt = re.escape(PROMPT[t.lang].rstrip())
    cont = re.escape(CONTINUE[t.lang])
    offer = re.escape(REVIEW[t.lang])
    screens: list[list[str]] = []
    while len(screens) < limit:
        got = t.wait_for(prompt, cont, offer)
        if got == 3:  # the game ended
            break
        if got in (1, 2):  # Enter after a summary; no review at the end
            t.send("")
            continue
        screens.append(t.lines())
        t.send(next(answers))
    return screens


def _assert_table_hand_and_prompt_visible(screen: list[str], lang: str) -> None:
    text = "\n".join(screen)
    shown = [line for line in screen if line]
    assert shown[-1].startswith(PROMPT[lang].rstrip()), text  # the prompt is the last line
    header = "Seat  Player" if lang == "en" else "Sitz  Spieler"
    assert header in text, text  # the players' table
    assert ("Your hand" if lang == "en" else "Deine Hand") in text, text
    assert re.search(r"Round \d+/\d+|Runde \d+/\d+", text), text


def test_scout_at_80x24_keeps_hand_table_and_prompt_on_screen(terminals: list[Terminal]) -> None:
    t = Terminal("scout", "--players", "5", "--seed", "3")
    terminals.append(t)

    def answers() -> Iterator[str]:
        yield "1"
        yield "+"  # next page of a long menu: the screen is drawn again
        yield "+"
        yield "bogus"  # refused: the reason is shown and the screen still fits
        while True:
            yield "1"

    screens = _decisions(t, answers(), 8)
    assert len(screens) == 8
    for screen in screens:
        _assert_table_hand_and_prompt_visible(screen, "en")
    paged = [s for s in screens if any(line.startswith("Page ") for line in s)]
    assert paged, "a long Scout menu is paged"
    assert any("Page 2/" in line for s in screens for line in s)
    assert any("Not accepted:" in line for s in screens for line in s)


def test_round_summary_waits_for_enter_and_says_whose_hand(terminals: list[Terminal]) -> None:
    t = Terminal("scout", "--players", "3", "--seed", "4", "--seat", "1=easy", "--seat", "2=easy")
    terminals.append(t)
    prompt = re.escape(PROMPT["en"].rstrip())
    for _ in range(200):
        got = t.wait_for(prompt, re.escape(CONTINUE["en"]))
        if got == 1:
            break
        assert got == 0
        t.send("1")
    else:
        pytest.fail("no round ended")
    text = "\n".join(t.lines())
    assert "Round 1 is over:" in text
    summary = next(line for line in t.lines() if "Round 1 is over:" in line)
    assert re.search(r"(easy #\d|you) (showed|scouted)|every other player|could not act", summary), summary
    assert "a hand is empty" not in text
    assert "Hand penalty" in text and t.lines()[-1].startswith(CONTINUE["en"])
    t.send("")
    assert t.wait_for(prompt) == 0  # the game goes on after Enter


def test_german_table_at_80x24_speaks_to_you_correctly(terminals: list[Terminal]) -> None:
    t = Terminal("schmaus", "--players", "3", "--seed", "11", "--option", "rounds=2", lang="de")
    terminals.append(t)

    def answers() -> Iterator[str]:
        while True:
            yield "1"

    screens = _decisions(t, answers(), 6)
    assert screens
    for screen in screens:
        _assert_table_hand_and_prompt_visible(screen, "de")
    seen = t.transcript()
    assert "Du hast ausgelegt" in seen and "Runde 1 gewertet" in seen
    assert "du hat" not in seen.lower() and "von du" not in seen


def test_a_bot_plays_for_you_when_your_clock_runs_out_and_enter_takes_the_seat_back(
    terminals: list[Terminal],
) -> None:
    t = Terminal(
        "schmaus", "--players", "3", "--seed", "11", "--seat", "1=random", "--seat", "2=random",
        "--clock", "2", "--stand-in", "random",
    )  # fmt: skip
    terminals.append(t)
    prompt = re.escape(PROMPT["en"].rstrip())
    assert t.wait_for(prompt) == 0
    screen = "\n".join(t.lines())
    assert re.search(r"⏱ your time: \d\.\d — then a bot \(random\) plays for you", screen), screen
    # No answer: the time runs out, the stand-in bot plays on until a round summary waits.
    assert t.wait_for(re.escape(CONTINUE["en"])) == 0
    seen = t.transcript()
    assert "Time is up: a bot (random) plays for you. Press Enter to take your seat back." in seen
    assert "You have laid your cards" in seen  # the bot laid for you
    t.send("")  # Enter: the seat is yours again
    assert t.wait_for(prompt) == 0
    assert "You have your seat back." in t.transcript()
    t.send("1")  # and you decide again
    assert t.wait_for(prompt, re.escape(CONTINUE["en"])) in (0, 1)
    assert t.transcript().count("Time is up") == 1


def test_the_end_of_a_game_offers_the_review_and_the_record_is_saved(
    terminals: list[Terminal], tmp_path: Path
) -> None:
    """docs/review.md, "Terminal": ``--record`` saves the game; at the end the review is
    offered, runs with a progress bar and shows the marks and the summary; ``hint`` works."""
    record = tmp_path / "game.json"
    t = Terminal(
        "schmaus", "--players", "2", "--seed", "7", "--option", "rounds=2",
        "--record", str(record), "--hints",
    )  # fmt: skip
    terminals.append(t)
    prompt = re.escape(PROMPT["en"].rstrip())
    offer = re.escape(REVIEW["en"])
    assert t.wait_for(prompt) == 0
    t.send("hint")
    assert t.wait_for(re.escape(CONTINUE["en"])) == 0
    said = " ".join(t.transcript().split())
    reason = r"(of your lays, it expects the most of this round's pot|none of your lays is likely to win)"
    assert re.search(rf"Hint: play .+ — Lay .+: {reason}", said)
    t.send("")
    for _ in range(100):
        got = t.wait_for(prompt, re.escape(CONTINUE["en"]), offer)
        if got == 2:
            break
        t.send("" if got == 1 else "1")
    else:
        pytest.fail("the game did not end")
    assert "Game record saved to" in t.transcript()
    data = json.loads(record.read_text(encoding="utf-8"))
    assert data["game"] == "schmaus" and data["seed"] == 7 and data["actions"]
    t.send("y")
    assert t.wait_for(r"\$ |^$", timeout=120) in (0, 1, 2)
    t.child.expect(pexpect.EOF, timeout=120)
    seen = " ".join(t.transcript().split())
    assert "Summary per player" in seen and "Mean loss" in seen
    assert re.search(r"Your mistakes and blunders|You made no mistakes and no blunders", seen)
    assert "review" in seen  # the progress bar's label


def test_ctrl_c_at_the_prompt_prints_the_seed_as_q_does(terminals: list[Terminal]) -> None:
    t = Terminal("scout", "--players", "3", "--seed", "8")
    terminals.append(t)
    assert t.wait_for(re.escape(PROMPT["en"].rstrip())) == 0
    t.child.sendintr()
    assert t.wait_for(r"(?!)", timeout=20) == 1  # read to the end of the output
    assert "Game abandoned. Replay this deal with --seed=8." in " ".join(t.transcript().split())
    assert "Traceback" not in t.transcript() and "Aborted" not in t.transcript()
    t.child.close()
    assert t.child.exitstatus == 130
