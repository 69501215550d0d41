"""Bots think in worker processes: the same game as in the lab whichever worker
serves them, a crashing bot never stops its table, a slow one delays only its own."""

from __future__ import annotations

import ast
import logging
import os
import pickle
import random
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import psutil
import pytest
from server_harness import Player, ServerThread, open_room, play, ws_url

from spieltisch.bots import Bot, make_bot
from spieltisch.engine import get_game
from spieltisch.server.botpool import BotPool, Think, ThinkRequest, think
from spieltisch.server.store import Store

HUMAN = {"kind": "human"}


class CountingBot(Bot):
    """A bot with a memory: its choice depends on every decision before it."""

    level = "counting"

    def __init__(self, game: str, seat: int, seed: int) -> None:
        super().__init__(game, seat, seed)
        self.decisions = 0

    def choose(self, view: Any, legal: Sequence[int]) -> int:
        self.decisions += 1
        return legal[(self.decisions * 7 + self.rng.randrange(3)) % len(legal)]


def counting_think(request: ThinkRequest) -> tuple[int, bytes]:
    r = request
    bot = pickle.loads(r.memory) if r.memory is not None else CountingBot(r.game, r.seat, r.seed)
    choice = bot.choose(r.view, r.legal)
    return choice, pickle.dumps(bot)


class PositionalChoice(random.Random):
    """A person whose choice depends only on the legal actions offered (the test's
    :class:`Player` asks ``choice``): the same whenever the server's message comes."""

    def choice(self, seq: Any) -> Any:
        return seq[_pick([a for a, _text in seq])]


def _pick(legal: Sequence[int]) -> int:
    return sum(legal) % len(legal)


def _by_seat(game: str, players: int, seed: int, actions: Sequence[Sequence[Any]]) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {s: [] for s in range(players)}
    for seat, text in actions:
        out[seat].append(text)
    return out


def _reference(game: str, players: int, seed: int, bots: dict[int, Bot]) -> dict[int, list[str]]:
    """The same game played in this process: the bots as the lab runs them, the
    person (seat 0) as :class:`PositionalChoice` picks. Simultaneous decisions
    (Scout's flip, S-5) may reach the server in any order, so compare per seat."""
    state = get_game(game).new_state(players, seed, None)
    while not state.is_over():
        for seat in state.to_move():
            legal = state.legal_action_ids(seat)
            choice = legal[_pick(legal)] if seat == 0 else bots[seat].choose(state.view(seat), legal)
            state.apply_id(seat, choice)
    actions = [(s, state.action_from_id(a).to_text()) for s, a in state.history]
    return _by_seat(game, players, seed, actions)


@pytest.mark.parametrize(
    ("level", "think_fn"), [("medium", think), ("easy", counting_think)], ids=["medium", "with-memory"]
)
def test_bots_in_workers_play_the_game_the_lab_plays(db_url: str, level: str, think_fn: Think) -> None:
    """Two workers take the decisions in turn; the bots' memory travels with them."""
    seed, players = 12, 3
    srv = ServerThread(db_url, bot_pool=BotPool(2, think=think_fn))
    try:
        with srv.client() as client:
            seats = [HUMAN] + [{"kind": "bot", "level": level}] * (players - 1)
            room, secrets = open_room(client, "scout", seats, seed)
            person = Player(ws_url(srv, room, 0, secrets[0]), 0, PositionalChoice(), stop_at=60)
            play([person])
    finally:
        srv.stop()
    store = Store(db_url)
    row = store.load(room)
    store.close()
    assert row is not None and (len(row.actions) >= 60 or row.status == "over")
    if think_fn is think:
        bots = {s: make_bot("scout", level, s, seed) for s in range(1, players)}
    else:
        bots = {s: CountingBot("scout", s, seed) for s in range(1, players)}
    reference = _reference("scout", players, seed, bots)
    for seat, played in _by_seat("scout", players, seed, row.actions).items():
        assert played == reference[seat][: len(played)]


def crashing_think(request: ThinkRequest) -> tuple[int, bytes]:
    """Raises on some decisions, kills its worker process on others."""
    n = zlib.crc32(repr(sorted(request.view.items())).encode())
    if n % 5 == 1:
        raise ValueError("this bot has a bug")
    if n % 11 == 4:
        os._exit(3)  # the worker process dies mid-decision
    return request.legal[n % len(request.legal)], b""


def test_a_crashing_bot_is_reported_and_its_table_plays_on(
    db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="spieltisch.server")
    srv = ServerThread(db_url, bot_pool=BotPool(2, think=crashing_think))
    try:
        with srv.client() as client:
            seats = [HUMAN, {"kind": "bot", "level": "hard"}]
            room, secrets = open_room(client, "schmaus", seats, 3, options={"rounds": 3})
            person = Player(ws_url(srv, room, 0, secrets[0]), 0, random.Random(2))
            play([person])
            assert client.get(f"/api/rooms/{room}").json()["status"] == "over"
    finally:
        srv.stop()
    failures = [r.getMessage() for r in caplog.records if "playing a random legal action" in r.getMessage()]
    crashes = [r for r in caplog.records if r.exc_info and "died" in str(r.exc_info[1])]
    assert failures and crashes  # reported: both the bug and the dead worker


def _release_file(seed: int) -> Path:
    return Path(tempfile.gettempdir()) / f"spieltisch-test-slow-bot-{seed}"


def slow_think(request: ThinkRequest) -> tuple[int, bytes]:
    """A "hard" bot that thinks until the test lets it go (at most a minute)."""
    if request.spec == "hard":
        deadline = time.monotonic() + 60
        while not _release_file(request.seed).exists() and time.monotonic() < deadline:
            time.sleep(0.05)
    return request.legal[0], b""


def test_a_slow_bot_delays_only_its_own_table(db_url: str) -> None:
    seed = random.randrange(2**40)
    srv = ServerThread(db_url, bot_pool=BotPool(2, think=slow_think))
    release = _release_file(seed)
    try:
        with srv.client() as client:
            # Waschbär-Schmaus: everybody decides at once, so the slow bot starts thinking at once.
            slow, _ = open_room(client, "schmaus", [HUMAN, {"kind": "bot", "level": "hard"}], seed)
            fast, secrets = open_room(
                client, "schmaus", [HUMAN, {"kind": "bot", "level": "medium"}], 2, options={"rounds": 2}
            )
            play([Player(ws_url(srv, fast, 0, secrets[0]), 0, random.Random(1))])
            assert client.get(f"/api/rooms/{fast}").json()["status"] == "over"
            assert client.get(f"/api/rooms/{slow}").json()["version"] == 0  # still thinking
            release.touch()
            deadline = time.monotonic() + 20
            while client.get(f"/api/rooms/{slow}").json()["version"] == 0:
                assert time.monotonic() < deadline, "the slow bot never moved"
                time.sleep(0.1)
    finally:
        release.touch()
        srv.stop()
        release.unlink()


def pid_think(request: ThinkRequest) -> tuple[int, bytes]:
    return os.getpid(), b""  # which worker thought


def test_a_killed_server_leaves_no_bot_worker_behind() -> None:
    """SIGKILL gives the server no chance to stop its pool: the workers notice by themselves."""
    script = (
        "import asyncio, time; from spieltisch.server.botpool import BotPool, ThinkRequest\n"
        "import test_bot_workers as t\n"
        "pool = BotPool(1, think=t.pid_think)\n"
        "print(asyncio.run(pool.choose(ThinkRequest('scout', 'x', 0, 1, None, {}, [0]))), flush=True)\n"
        "time.sleep(60)\n"
    )
    here = Path(__file__).resolve().parent
    server = subprocess.Popen([sys.executable, "-c", script], cwd=here, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        worker, _memory = ast.literal_eval(server.stdout.readline())
        assert psutil.pid_exists(worker)
    finally:
        server.kill()
        server.wait(10)
    deadline = time.monotonic() + 15
    while psutil.pid_exists(worker) and psutil.Process(worker).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < deadline, "the bot worker outlived its server"
        time.sleep(0.1)
