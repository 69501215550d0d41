"""kill -9 at random moments: no acknowledged move is ever lost, every game resumes.

A real server process is killed with SIGKILL again and again - while people
move, while bots think, while a commit is on its way - and started again on
the same database. Clients record every move the server acknowledged (the
``state`` carrying their ``ref``: it is sent only once the move is durable).
In the end every acknowledged move is in the stored log where the client saw
it, every game replays from its log, and every game plays on to its end.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any

import pytest
import websockets
from server_harness import ServerProcesses, open_room, run_async, seat_socket, ws_url

from spieltisch.engine import GameRecord
from spieltisch.server.store import Store

KILLS = 50
HUMAN = {"kind": "human"}
BOT = {"kind": "bot", "level": "random"}
TABLES: list[tuple[str, list[dict[str, str]], dict[str, Any]]] = [
    ("scout", [HUMAN, HUMAN, HUMAN], {}),
    ("scout", [HUMAN, BOT, HUMAN, BOT], {}),
    ("schmaus", [HUMAN, HUMAN], {"rounds": 8}),
    ("schmaus", [HUMAN, BOT, HUMAN], {"rounds": 8}),
]


@dataclass
class Seat:
    room: str
    seat: int
    secret: str
    rng: random.Random
    acked: list[tuple[int, list[tuple[int, str]]]] = field(default_factory=list)
    """Per acknowledged move: the version it made, and this seat's own log entries up to it."""
    over: bool = False
    goal: int | None = None
    """Stop once the game has reached this version."""
    reached: bool = False


async def _play(srv: ServerProcesses, seat: Seat, until: float | None) -> None:
    """Move at random until the connection breaks (the server was killed), the game ends or ``until``."""
    pending: str | None = None
    log: list[dict[str, Any]] = []
    n = 0
    try:
        async with seat_socket(ws_url(srv, seat.room, seat.seat, seat.secret), open_timeout=10) as ws:
            async for raw in ws:
                msg = json.loads(raw)
                if msg["type"] == "error":
                    if msg.get("ref") == pending:
                        pending = None
                    if msg["code"] in ("rate_limited", "stale", "not_your_turn"):
                        await ws.send(json.dumps({"type": "sync"}))
                    continue
                if msg["type"] != "state":
                    continue
                log = log[: msg["log_from"]] + msg["log"]
                if pending is not None and msg.get("ack") == pending:
                    own = [(e["n"], e["text"]) for e in log if e["seat"] == seat.seat and not e["hidden"]]
                    seat.acked.append((msg["version"], own))
                    pending = None
                if msg["room"]["status"] == "over":
                    seat.over = True
                    return
                if seat.goal is not None and msg["version"] >= seat.goal:
                    seat.reached = True
                    return
                if until is not None and time.monotonic() > until:
                    return
                if msg["legal"] and pending is None:
                    n += 1
                    pending = f"{seat.seat}-{n}"
                    action_id = seat.rng.choice(msg["legal"])[0]
                    await ws.send(
                        json.dumps(
                            {"type": "act", "version": msg["version"], "id": action_id, "ref": pending}
                        )
                    )
    except (OSError, websockets.exceptions.WebSocketException):
        return  # killed under us: whatever was not acknowledged may or may not be stored


@pytest.mark.slow
def test_kill_9_loses_no_acknowledged_move_and_every_game_resumes(tmp_path: Any) -> None:
    database = f"sqlite:///{tmp_path / 'kill.db'}"
    rng = random.Random(20261201)
    srv = ServerProcesses(database)
    seats: list[Seat] = []
    started = time.monotonic()
    try:
        srv.start()
        with srv.client() as client:
            for i, (game, spec, options) in enumerate(TABLES):
                room, secrets = open_room(client, game, spec, 100 + i, options=options)
                seats += [Seat(room, s, sec, random.Random(f"{room}/{s}")) for s, sec in secrets.items()]

        async def cycle(kill_after: float) -> None:
            before = sum(len(s.acked) for s in seats)
            players = [asyncio.ensure_future(_play(srv, s, None)) for s in seats if not s.over]
            # The people have moved in this life of the server (however busy the machine is
            # starting it), then it dies at a random moment: while people move and bots think.
            while sum(len(s.acked) for s in seats) == before:
                if all(p.done() for p in players):  # every game over, or the server refused everyone
                    assert all(s.over for s in seats), "no client could move on the restarted server"
                    break
                await asyncio.sleep(0.01)
            await asyncio.sleep(kill_after)
            srv.kill()
            await asyncio.wait_for(asyncio.gather(*players), 20)

        for _ in range(KILLS):
            run_async(cycle(rng.uniform(0.0, 0.4)))
            srv.start()

        # The last server lives: every game resumes where its log ends and plays on.
        with srv.client() as client:
            resumed = {s.room: client.get(f"/api/rooms/{s.room}").json()["version"] for s in seats}
        for s in seats:
            s.goal = resumed[s.room] + 10

        async def play_on(seat: Seat) -> None:
            while not (seat.over or seat.reached):  # a failed connection (a busy machine) tries again
                await _play(srv, seat, None)

        async def resume() -> None:
            await asyncio.wait_for(asyncio.gather(*(play_on(s) for s in seats)), 240)

        run_async(resume())
        with srv.client() as client:
            infos = {s.room: client.get(f"/api/rooms/{s.room}").json() for s in seats}
    finally:
        srv.close()
    took = time.monotonic() - started

    acked = sum(len(s.acked) for s in seats)
    assert acked >= KILLS  # the people moved in every life of the server
    store = Store(database)
    try:
        for s in seats:
            row = store.load(s.room)
            assert row is not None
            info = infos[s.room]
            assert info["version"] == len(row.actions)
            assert info["status"] == "over" or info["version"] >= resumed[s.room] + 10
            GameRecord(row.game, row.players, row.seed, row.options, row.actions).replay()  # one valid game
            for version, own in s.acked:
                assert len(row.actions) >= version, f"room {s.room}: acknowledged version {version} lost"
                for n, text in own:
                    assert row.actions[n - 1] == (s.seat, text), f"room {s.room}: move {n} changed"
    finally:
        store.close()
    print(f"{KILLS} kills, {acked} acknowledged moves, {took:.1f} s")
