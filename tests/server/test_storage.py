"""Storage: every acknowledged move is in the database; a restarted server resumes every game."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy.exc
from server_harness import Player, ServerThread, connect_seat, open_room, play, run_async, seat_socket, ws_url

from spieltisch.engine import GameRecord
from spieltisch.server.store import CodeTaken, RoomRow, SeatRow, Store

HUMAN = {"kind": "human"}
BOT = {"kind": "bot", "level": "random"}
POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


@pytest.mark.parametrize("game", ["scout", "schmaus"])
def test_restart_mid_game_resumes_same_state_and_bots_continue(db_url: str, game: str) -> None:
    seats = [HUMAN, BOT, HUMAN, BOT]
    srv = ServerThread(db_url)
    try:
        with srv.client() as client:
            room, secrets = open_room(
                client, game, seats, 31, options={"rounds": 6} if game == "schmaus" else {}
            )
            stop = 25 if game == "scout" else 10
            players = [
                Player(ws_url(srv, room, s, secrets[s]), s, random.Random(s), stop_at=stop) for s in secrets
            ]
            play(players)
            before = _settled(client, room)  # the bots move on until a person must decide
            assert before["status"] == "playing" and before["version"] >= stop
            seen = max(p.last["version"] for p in players if p.last is not None)
            spectator = Player(ws_url(srv, room), None, random.Random(0), stop_at=0)
            play([spectator])
            assert spectator.last is not None
            view_before = spectator.last["view"]
            log_before = spectator.last["log"]
    finally:
        srv.stop()
    # Nothing acknowledged was lost: the stored log holds at least every version a client saw.
    store = Store(db_url)
    row = store.load(room)
    store.close()
    assert row is not None and len(row.actions) == before["version"] >= seen

    srv = ServerThread(db_url)
    try:
        with srv.client() as client:
            after = client.get(f"/api/rooms/{room}").json()
            assert after["version"] == before["version"]
            assert after["status"] == "playing"
            spectator = Player(ws_url(srv, room), None, random.Random(0), stop_at=0)
            play([spectator])
            assert spectator.last is not None
            assert spectator.last["view"] == view_before
            assert spectator.last["log"] == log_before
            # The same seats and secrets play on; the bots continue by themselves.
            goal = before["version"] + 20
            players = [
                Player(ws_url(srv, room, s, secrets[s]), s, random.Random(s + 100), stop_at=goal)
                for s in secrets
            ]
            play(players)
            assert all(p.last is not None for p in players)
            assert all(p.last["version"] >= goal or p.last["room"]["status"] == "over" for p in players)  # type: ignore[index]
            assert {e["code"] for p in players for e in p.errors} <= {"stale", "rate_limited"}
    finally:
        srv.stop()
    store = Store(db_url)
    row_after = store.load(room)
    store.close()
    assert row_after is not None and row_after.actions[: len(row.actions)] == row.actions
    state = GameRecord(game, len(seats), row_after.seed, row_after.options, row_after.actions).replay()
    assert len(state.history) == len(row_after.actions) > len(row.actions)


def test_idle_rooms_leave_memory_and_come_back_from_the_store(db_url: str) -> None:
    """A long-running server does not keep every room it ever had: a finished
    game, or one waiting for people who left, is let go once idle, and comes
    back unchanged (replay included) when somebody asks for it. A room with
    somebody connected stays."""
    srv = ServerThread(db_url, room_idle=0.4)
    in_memory = srv.app.state.directory.rooms
    try:
        with srv.client() as client:
            done, done_secrets = open_room(client, "schmaus", [HUMAN, BOT], 8, options={"rounds": 2})
            play([Player(ws_url(srv, done, 0, done_secrets[0]), 0, random.Random(1))])
            left, left_secrets = open_room(client, "scout", [HUMAN, BOT, HUMAN], 3)

            def people(goal: int) -> list[Player]:
                """The two people of the Scout room, playing until version ``goal``."""
                return [
                    Player(ws_url(srv, left, s, left_secrets[s]), s, random.Random(s), stop_at=goal)
                    for s in (0, 2)
                ]

            play(people(6))
            before = {code: _settled(client, code) for code in (done, left)}
            assert before[done]["status"] == "over" and before[left]["status"] == "playing"
            replay_before = client.get(f"/api/rooms/{done}/replay").json()

            async def watch_then_wait() -> bool:
                """A spectator stays connected while the other rooms are let go."""
                async with seat_socket(ws_url(srv, left)) as ws:
                    await ws.recv()
                    deadline = time.monotonic() + 10
                    while done in in_memory and time.monotonic() < deadline:
                        await asyncio.sleep(0.05)
                    await asyncio.sleep(1.0)  # more than the idle time, with somebody here
                    return done not in in_memory and left in in_memory

            assert run_async(watch_then_wait())
            deadline = time.monotonic() + 10
            while left in in_memory and time.monotonic() < deadline:
                time.sleep(0.05)
            assert done not in in_memory and left not in in_memory
            # Asked for again: the same game, loaded from the store.
            assert client.get(f"/api/rooms/{done}/replay").json() == replay_before
            for code in (done, left):
                assert client.get(f"/api/rooms/{code}").json() == before[code]
            # ... and the people who left play on where they were.
            goal = before[left]["version"] + 10
            play(people(goal))
            assert client.get(f"/api/rooms/{left}").json()["version"] >= goal
    finally:
        srv.stop()


def _settled(client: httpx.Client, room: str) -> dict[str, Any]:
    info: dict[str, Any] = client.get(f"/api/rooms/{room}").json()
    while True:
        time.sleep(0.3)
        again: dict[str, Any] = client.get(f"/api/rooms/{room}").json()
        if again["version"] == info["version"]:
            return again
        info = again


def _row(code: str) -> RoomRow:
    return RoomRow(
        code=code,
        game="schmaus",
        players=2,
        options={"rounds": 2},
        seed=2**40 + 7,
        bot_delay=0.0,
        status="playing",
        seats=[
            SeatRow(0, "human", name="Alice", secret_hash="h", taken=True),
            SeatRow(1, "bot", level="random"),
        ],
    )


def _exercise(store: Store) -> None:
    store.create_room(_row("AAAAAA"))
    with pytest.raises(CodeTaken):
        store.create_room(_row("AAAAAA"))
    store.append_actions("AAAAAA", 0, [(0, "play F1 F1 F2"), (1, "play -")], "playing")
    with pytest.raises(Exception) as refused:  # the database refuses a second writer of index 1
        store.append_actions("AAAAAA", 1, [(0, "play F2 F2 X5")], "playing")
    # Its message names the statement, never its parameters (a sealed lay before its reveal).
    assert "X5" not in str(refused.value), str(refused.value)
    store.update_seat("AAAAAA", SeatRow(1, "bot", level="random", taken=True), status="over")
    row = store.load("AAAAAA")
    assert row is not None
    assert row.actions == [(0, "play F1 F1 F2"), (1, "play -")]
    assert row.seed == 2**40 + 7 and row.options == {"rounds": 2} and row.status == "over"
    assert [s.name for s in row.seats] == ["Alice", None] and row.seats[1].taken
    assert store.load("BBBBBB") is None
    assert store.unfinished() == []
    store.create_room(_row("CCCCCC"))
    assert store.unfinished() == ["CCCCCC"]


def test_sqlite_store(tmp_path: object) -> None:
    store = Store(f"sqlite:///{tmp_path}/s.db")
    _exercise(store)
    store.close()


@pytest.mark.postgres
def test_postgres_store(postgres_store: Store) -> None:
    _exercise(postgres_store)


@pytest.mark.postgres
def test_whole_game_on_postgres() -> None:
    prefix = f"t{uuid.uuid4().hex[:10]}_"
    srv = ServerThread(POSTGRES, table_prefix=prefix)
    try:
        with srv.client() as client:
            room, secrets = open_room(client, "schmaus", [HUMAN, BOT], 8, options={"rounds": 2})
            play([Player(ws_url(srv, room, 0, secrets[0]), 0, random.Random(1))])
            info = client.get(f"/api/rooms/{room}").json()
            assert info["status"] == "over"
    finally:
        srv.stop()
        store = Store(POSTGRES, prefix=prefix)
        row = store.load(room)
        store.drop()
    assert row is not None and len(row.actions) == info["version"] and row.status == "over"


@pytest.mark.parametrize(
    ("error", "told"),
    [
        ("database or disk is full", "the server's disk is full"),
        ("attempt to write a readonly database", "the server's database is read-only"),
        ("unable to open database file", "the server cannot reach its database"),
    ],
)
def test_a_storage_fault_is_named_and_pauses_the_whole_table(tmp_path: Path, error: str, told: str) -> None:
    """Issue #34: a full disk or a read-only database is named as such (not "cannot reach"),
    the mover's move is refused with nothing changed, and everyone else at the table is
    told that it is paused - not only the one who moved."""
    srv = ServerThread(f"sqlite:///{tmp_path / 'fault.db'}")
    store = srv.app.state.store

    async def failing(*_args: object, **_kwargs: object) -> None:
        raise sqlalchemy.exc.OperationalError("INSERT INTO actions ...", {}, sqlite3.OperationalError(error))

    try:
        with srv.client() as client:
            room, secrets = open_room(client, "scout", [HUMAN, HUMAN], 3)
        seat0, spectator = ws_url(srv, room, 0, secrets[0]), ws_url(srv, room)
        with connect_seat(seat0) as mover, connect_seat(spectator) as watcher:
            state = json.loads(mover.recv(timeout=5))
            json.loads(watcher.recv(timeout=5))
            store.append_actions_async = failing
            act = {"type": "act", "version": state["version"], "id": state["legal"][0][0], "ref": "m1"}
            mover.send(json.dumps(act))
            answers = [json.loads(mover.recv(timeout=5)) for _ in range(2)]
            refused = next(a for a in answers if a.get("ref") == "m1")
            assert refused["code"] == "unavailable" and refused["message"].startswith(told), refused
            notice = json.loads(watcher.recv(timeout=5))
            assert notice["type"] == "error" and notice["code"] == "unavailable" and "ref" not in notice
            assert notice["message"].startswith(f"{told}: the table is paused"), notice
        assert store.count_actions(room) == 0  # nothing changed
    finally:
        srv.stop()
