"""Remote bots (docs/bot-protocol.md, "Remote bots"): a program sits at a web table over the
network with a bot token, through the same command path as people."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

from server_harness import Player, ServerThread, connect_seat, play, ws_url

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "remote_bot.py"
HUMAN = {"kind": "human"}


def test_the_example_remote_bot_plays_a_whole_game(server: ServerThread) -> None:
    seats = [HUMAN, {"kind": "remote", "name": "Randy"}, {"kind": "bot", "level": "random"}]
    with server.client() as client:
        r = client.post(
            "/api/rooms", json={"game": "schmaus", "players": 3, "seats": seats, "options": {"rounds": 1}}
        )
        assert r.status_code == 200, r.text
        created = r.json()
        room, secret = created["room"], created["secret"]
        assert [s["seat"] for s in created["remote"]] == [1]
        token = created["remote"][0]["token"]
        info = client.get(f"/api/rooms/{room}").json()
        assert info["status"] == "playing"  # the remote seat is reserved, not waited for
        assert info["seats"][1] == {
            "seat": 1, "kind": "remote", "name": "Randy", "taken": True, "connected": False
        }  # fmt: skip
        assert client.post(f"/api/rooms/{room}/join", json={"seat": 1}).json() == {
            "detail": "seat 1 is a bot seat"
        }
        # The token is the seat's secret, for that seat only.
        with connect_seat(ws_url(server, room, 0, token)) as ws:
            assert json.loads(ws.recv(timeout=5))["code"] == "forbidden"
        env = {**os.environ, "SPIELTISCH_BOT_TOKEN": token}
        bot = subprocess.Popen(
            [sys.executable, str(EXAMPLE), server.ws, room, "1", "--seed", "3"],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            person = Player(ws_url(server, room, 0, secret), 0, random.Random(0))
            play([person])
            _out, err = bot.communicate(timeout=30)
        finally:
            bot.kill()
        assert bot.returncode == 0, err
        assert "game over" in err and token not in err
        record = client.get(f"/api/rooms/{room}/replay").json()["record"]
        assert {seat for seat, _ in record["actions"]} == {0, 1, 2}  # all three acted
        assert client.get(f"/api/rooms/{room}").json()["status"] == "over"
        # A rematch keeps the remote seat; the bot claims it with its token.
        new = client.post(f"/api/rooms/{room}/rematch", json={"seat": 0, "secret": secret}).json()["room"]
        claim = client.post(f"/api/rooms/{new}/claim", json={"from": room, "seat": 1, "secret": token})
        assert claim.status_code == 200
        assert client.get(f"/api/rooms/{new}").json()["seats"][1]["kind"] == "remote"


def test_a_wrong_token_is_refused_and_the_program_says_so(server: ServerThread) -> None:
    seats = [HUMAN, {"kind": "remote"}]
    with server.client() as client:
        created = client.post("/api/rooms", json={"game": "scout", "players": 2, "seats": seats}).json()
        info = client.get(f"/api/rooms/{created['room']}").json()
        assert info["seats"][1]["name"] == "Remote bot"
        env = {**os.environ, "SPIELTISCH_BOT_TOKEN": "forged"}
        done = subprocess.run(
            [sys.executable, str(EXAMPLE), server.ws, created["room"], "1"],
            env=env,
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert done.returncode == 1 and "forbidden" in done.stderr
        r = client.post("/api/rooms", json={"game": "scout", "players": 2, "seats": [{"kind": "remote"}] * 2})
        assert r.status_code == 422 and "at least one seat must be human" in r.json()["detail"]
