"""Many workers (docs/deploy.md): real server processes on one PostgreSQL database and
one Redis; any worker serves any client of any room, one worker owns each room."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import signal
import time
from collections.abc import Iterator

import httpx
import psutil
import pytest
import redis
from conftest import ClusterEnv
from server_harness import (
    Player,
    SeatUrl,
    Workers,
    answers,
    open_room,
    play,
    run_async,
    seat_socket,
    serve_workers,
    stop_tree,
)

from spieltisch.engine import GameRecord
from spieltisch.server.codes import hash_secret, new_secret
from spieltisch.server.store import SeatRow, Store

HUMAN = {"kind": "human"}
BOT = {"kind": "bot", "level": "random"}


@pytest.fixture(scope="module")
def workers(cluster_env: ClusterEnv, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workers]:
    """Three workers for the module's tests (each test plays rooms of its own); a test
    that kills one starts it again."""
    log = tmp_path_factory.mktemp("cluster") / "workers.log"
    w = Workers(cluster_env.database, cluster_env.redis, cluster_env.prefix, 3, log=log)
    try:
        w.start_all()
        yield w
    finally:
        w.close()


def owner(env: ClusterEnv, room: str) -> str | None:
    with redis.Redis.from_url(env.redis, decode_responses=True) as r:
        value = r.get(f"{env.prefix}spieltisch:lease:{room}")
    return None if value is None else str(value).split(":", 1)[0]


def test_players_on_different_workers_play_one_game(workers: Workers, cluster_env: ClusterEnv) -> None:
    with workers.client(0) as client:
        room, secrets = open_room(client, "schmaus", [HUMAN, HUMAN, BOT], 5, options={"rounds": 2})
    # Seat 0 on worker 1, seat 1 on worker 2, a spectator on worker 0 (where the room was made).
    players = [
        Player(workers.url(1, room, 0, secrets[0]), 0, random.Random(0)),
        Player(workers.url(2, room, 1, secrets[1]), 1, random.Random(1)),
        Player(workers.url(0, room), None, random.Random(2)),
    ]
    play(players, timeout=120)
    final = [p.last for p in players]
    assert all(f is not None and f["room"]["status"] == "over" for f in final)
    versions = {f["version"] for f in final if f is not None}
    assert len(versions) == 1
    # Everyone saw every move (the whole log, spliced from the incremental states).
    logs = [[(e["seat"], e["text"]) for e in p.log] for p in players]
    assert logs[0] == logs[1] == logs[2] and len(logs[0]) == versions.pop()
    # (A Player answers every state it gets, so a state that only says who is connected
    # may make it answer the same decision twice: the second one is stale.)
    assert all(e["code"] == "stale" for p in players for e in p.errors), [p.errors for p in players]
    # While both people were connected, each worker said so for both seats.
    for p in players[:2]:
        both = [m for m in p.messages if m["type"] == "state" and m["room"]["seats"][0]["connected"]]
        assert any(m["room"]["seats"][1]["connected"] for m in both)
    store = Store(cluster_env.database, prefix=cluster_env.prefix)
    try:
        row = store.load(room)
        assert row is not None and row.status == "over"
        GameRecord(row.game, row.players, row.seed, row.options, row.actions).replay()
        assert [(s, t) for s, t in row.actions] == logs[0]
    finally:
        store.close()
    # Every worker answers for the room the same.
    for i in range(3):
        with workers.client(i) as client:
            assert client.get(f"/api/rooms/{room}").json()["status"] == "over"


def test_a_killed_owner_is_replaced_within_2_seconds_and_its_bots_play_on(
    workers: Workers, cluster_env: ClusterEnv
) -> None:
    with workers.client(0) as client:
        room, secrets = open_room(client, "scout", [HUMAN, BOT, BOT], 11)
    first = owner(cluster_env, room)
    assert first is not None
    assert workers.alive() == [0, 1, 2]
    workers.kill(0)  # the room was made on worker 0: it owns it
    killed = time.monotonic()
    while owner(cluster_env, room) in (first, None):
        assert time.monotonic() - killed < 2.0, "nobody took the room over within 2 s"
        time.sleep(0.02)
    took = time.monotonic() - killed
    # The person reconnects to another worker and plays; the bots answer on the new owner.
    player = Player(workers.url(1, room, 0, secrets[0]), 0, random.Random(3))
    play([player], timeout=120)
    assert player.last is not None and player.last["room"]["status"] == "over"
    bot_moves = [e for e in player.log if e["seat"] != 0]
    assert bot_moves
    print(f"taken over in {took:.2f} s")
    workers.start(0)


def test_rooms_made_on_every_worker_each_have_one_owner(workers: Workers, cluster_env: ClusterEnv) -> None:
    codes = []
    for i in range(3):
        with workers.client(i) as client:
            for seed in range(3):
                codes.append(open_room(client, "scout", [HUMAN, HUMAN, HUMAN], seed)[0])
    assert len(set(codes)) == len(codes)
    owners = {owner(cluster_env, code) for code in codes}
    assert None not in owners and len(owners) == 3  # each worker owns the rooms made on it


def test_moves_on_another_workers_room_are_acknowledged_in_order(
    workers: Workers, cluster_env: ClusterEnv
) -> None:
    """A move sent to a worker that is not the owner is forwarded, applied once and
    acknowledged to its sender with the new version - only once it is in the database
    (the owner's add that carries it is the answer); a stale one is refused."""
    with workers.client(0) as client:
        room, secrets = open_room(client, "scout", [HUMAN, HUMAN], 3)
    store = Store(cluster_env.database, prefix=cluster_env.prefix)

    async def main() -> None:
        async with seat_socket(workers.url(2, room, 0, secrets[0])) as ws:
            state = json.loads(await ws.recv())
            while not state["legal"]:  # the flip decision first (S-5), for both seats
                state = json.loads(await ws.recv())
            action_id = state["legal"][0][0]
            first = {"type": "act", "version": state["version"], "id": action_id, "ref": "a"}
            await ws.send(json.dumps(first))
            acked = None
            while acked is None:
                msg = json.loads(await ws.recv())
                if msg.get("ack") == "a":
                    acked = msg
                assert msg["type"] != "error", msg
            assert acked["version"] >= state["version"] + 1
            assert store.count_actions(room) >= acked["version"], "acknowledged before it was stored"
            again = {"type": "act", "version": state["version"], "id": action_id, "ref": "b"}
            await ws.send(json.dumps(again))  # decided already: refused, not applied twice
            while True:
                msg = json.loads(await ws.recv())
                if msg["type"] == "error":
                    assert msg["ref"] == "b" and msg["code"] == "stale", msg
                    break

    try:
        run_async(asyncio.wait_for(main(), 30))
    finally:
        store.close()


def test_a_worker_whose_copy_is_behind_accepts_a_seat_taken_elsewhere(
    workers: Workers, cluster_env: ClusterEnv
) -> None:
    """A seat taken through another worker is accepted here even before that worker's
    news arrives: a secret this copy does not know is checked against the database."""
    with workers.client(0) as client:
        r = client.post(
            "/api/rooms",
            json={"game": "scout", "players": 3, "seats": [HUMAN, HUMAN, HUMAN], "name": "A", "seed": 9},
        )
        assert r.status_code == 200, r.text
        room = r.json()["room"]
    with workers.client(1) as client:  # worker 1 holds a copy: seat 1 is open there
        assert client.get(f"/api/rooms/{room}").json()["seats"][1]["taken"] is False
    secret = new_secret()
    store = Store(cluster_env.database, prefix=cluster_env.prefix)
    try:  # the seat is taken in the database, and nobody tells worker 1
        store.update_seat(room, SeatRow(1, "human", name="B", secret_hash=hash_secret(secret), taken=True))
    finally:
        store.close()

    async def hello() -> dict[str, object]:
        async with seat_socket(workers.url(1, room, 1, secret)) as ws:
            return dict(json.loads(await asyncio.wait_for(ws.recv(), 10)))

    first = run_async(hello())
    assert first["type"] == "state", first
    assert first["view"]["seat"] == 1  # a seat's own view, not a spectator's


def _stand_ins(state: dict[str, object]) -> dict[int, str]:
    room = state["room"]
    assert isinstance(room, dict)
    return {s["seat"]: s["stand_in"] for s in room["seats"] if "stand_in" in s}


def test_a_stand_in_and_the_players_return_reach_every_worker_at_once(workers: Workers) -> None:
    """A time-out on the owner (worker 0) shows the seat as played by a bot on every
    worker before the bot has moved; a player back on another worker takes the seat back
    on every worker (and on the owner) at once, too (docs/deploy.md, "Clocks and stand-ins")."""
    with workers.client(0) as client:
        room, secrets = open_room(
            client, "schmaus", [HUMAN, HUMAN], 7, options={"rounds": 1}, bot_delay=10,
            clock={"move": 1, "stand_in": "random"},
        )  # fmt: skip

    async def until(ws: object, done: object, timeout: float = 5) -> dict[str, object]:
        """The first state on ``ws`` for which ``done(state)`` holds."""

        async def wait() -> dict[str, object]:
            while True:
                msg = json.loads(await ws.recv())  # type: ignore[attr-defined]
                if msg["type"] == "state" and done(msg):  # type: ignore[operator]
                    return msg  # type: ignore[no-any-return]

        return await asyncio.wait_for(wait(), timeout)

    async def main() -> None:
        async with (
            seat_socket(workers.url(1, room, 0, secrets[0])) as seat0,
            seat_socket(workers.url(2, room)) as watcher,
            seat_socket(workers.url(0, room)) as on_owner,
        ):
            # Both seats lay at once (W-4) and sit still: both clocks run out after 1 s.
            for ws in (seat0, watcher, on_owner):
                state = await until(ws, lambda m: len(_stand_ins(m)) == 2)
                assert state["version"] == 0, "the stand-ins reached this worker only with a move"
            # Seat 0's player comes back on worker 2 (the bots wait 10 s before they move):
            # the owner lets go of seat 0 too, and every worker shows it.
            async with seat_socket(workers.url(2, room, 0, secrets[0])) as again:
                for ws in (on_owner, seat0, watcher, again):
                    state = await until(ws, lambda m: _stand_ins(m) == {1: "random"})
                    assert state["version"] == 0

    run_async(asyncio.wait_for(main(), 30))


@pytest.mark.slow
def test_serve_workers_shares_one_port_and_replaces_a_killed_worker(cluster_env: ClusterEnv) -> None:
    """``spieltisch serve --workers 2``: two processes accept on one port; one killed
    with SIGKILL is started again by the supervisor, and the games go on."""
    prefix = f"{cluster_env.prefix}serve_"
    proc = serve_workers(cluster_env, prefix)
    try:
        assert proc.stdout is not None
        banner = proc.stdout.readline()
        assert "2 worker(s)" in banner and "Redis" in banner, banner
        base = re.search(r"http://localhost:(\d+)/", banner)
        assert base is not None
        http = f"http://127.0.0.1:{base.group(1)}"

        def workers_now() -> list[psutil.Process]:
            found = []
            for child in psutil.Process(proc.pid).children():
                with contextlib.suppress(psutil.Error):  # the killed one is a zombie until reaped
                    if child.status() != psutil.STATUS_ZOMBIE and "spawn_main" in " ".join(child.cmdline()):
                        found.append(child)
            return found

        deadline = time.monotonic() + 60
        while len(workers_now()) < 2 or not answers(http):
            assert time.monotonic() < deadline and proc.poll() is None, "the workers did not come up"
            time.sleep(0.1)
        first = {w.pid for w in workers_now()}

        def one_game(seed: int) -> None:
            with httpx.Client(base_url=http, timeout=10) as client:
                room, secrets = open_room(client, "scout", [HUMAN, BOT, BOT], seed)
            url = SeatUrl(f"{http.replace('http', 'ws')}/ws/{room}", 0, secrets[0])
            player = Player(url, 0, random.Random(seed))
            play([player], timeout=120)
            assert player.last is not None and player.last["room"]["status"] == "over"

        one_game(1)
        os.kill(min(first), signal.SIGKILL)
        one_game(2)  # on the worker left (and the new one, once it is up)
        deadline = time.monotonic() + 60
        while len(workers_now()) < 2:
            assert time.monotonic() < deadline, "the killed worker was not replaced"
            time.sleep(0.1)
        assert {w.pid for w in workers_now()} != first
        one_game(3)
    finally:
        stop_tree(proc)
        Store(cluster_env.database, prefix=prefix).drop()
