"""A bot's memory is stored with its game (docs/storage.md, "Bot memory"): after a restart
(kill -9), a takeover or a handoff every bot goes on with the memory it had after its last
decision, so the same seed and the same people's moves give the same game as without
them; a new stand-in starts afresh after a restart too; a stored memory the bot cannot
use makes it start afresh, and the game goes on."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import random
import time
import zlib
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import redis
from conftest import ClusterEnv
from memory_think import SPEC, gate_file, quick_think
from server_harness import (
    Player,
    ServerProcesses,
    ServerThread,
    Workers,
    open_room,
    play,
    run_async,
    seat_socket,
    ws_url,
)
from sqlalchemy import delete, func, select, update

from spieltisch.bots import make_bot
from spieltisch.engine import get_game
from spieltisch.server.botpool import BotPool
from spieltisch.server.store import RoomRow, SeatRow, Store

PLAYERS = 3
HUMAN = {"kind": "human"}
HARD = {"kind": "bot", "level": "hard"}


class PositionalChoice(random.Random):
    """A person whose choice depends only on the legal actions offered (the harness's
    :class:`Player` asks ``choice``): the same whenever and wherever the state comes."""

    def choice(self, seq: Any) -> Any:
        return seq[_pick([a for a, _text in seq])]


def _pick(legal: Sequence[int]) -> int:
    return sum(legal) % len(legal)


def _by_seat(actions: Sequence[tuple[int, str]]) -> dict[int, list[str]]:
    """Each seat's moves in order: simultaneous decisions (Scout's flip, S-5) may reach the
    server in any order, so games are compared seat by seat."""
    out: dict[int, list[str]] = {s: [] for s in range(PLAYERS)}
    for seat, text in actions:
        out[seat].append(text)
    return out


def reference(
    seed: int, people: Collection[int] = (0,), fresh: Mapping[int, Collection[int]] | None = None
) -> dict[int, list[str]]:
    """The game played in this process without any restart: ``people`` pick as
    :class:`PositionalChoice` does, the other seats are bots as the lab runs them, each one
    object from the first decision to the last - except that ``fresh[seat]`` lists after
    how many of its decisions that seat's bot is made afresh."""
    state = get_game("scout").new_state(PLAYERS, seed, None)
    bots = {s: make_bot("scout", SPEC, s, seed) for s in range(PLAYERS) if s not in people}
    made = dict.fromkeys(bots, 0)
    while not state.is_over():
        for seat in state.to_move():
            legal = state.legal_action_ids(seat)
            if seat in people:
                choice = legal[_pick(legal)]
            else:
                if made[seat] in (fresh or {}).get(seat, ()):
                    bots[seat] = make_bot("scout", SPEC, seat, seed)
                choice = bots[seat].choose(state.view(seat), legal)
                made[seat] += 1
            state.apply_id(seat, choice)
    return _by_seat([(s, state.action_from_id(a).to_text()) for s, a in state.history])


def _load(store: Store, room: str) -> RoomRow:
    row = store.load(room)
    assert row is not None
    return row


def _stored(database: str, room: str, prefix: str = "") -> tuple[list[tuple[int, str]], str]:
    store = Store(database, prefix=prefix)
    try:
        row = _load(store, room)
    finally:
        store.close()
    return row.actions, row.status


def _bot_moves(actions: Sequence[tuple[int, str]], start: int, end: int | None = None) -> int:
    return sum(1 for seat, _ in actions[start:end] if seat != 0)


def test_after_kill_9_the_bots_go_on_with_their_memory(tmp_path: Path) -> None:
    """A single server killed twice mid-game (the bots may be thinking): the finished game
    is the one played without the kills, move for move."""
    database = f"sqlite:///{tmp_path / 'memory.db'}"
    seed = 8
    srv = ServerProcesses(database, think="memory_think:quick_think")
    lives: list[int] = []
    try:
        srv.start()
        with srv.client() as client:
            room, secrets = open_room(client, "scout", [HUMAN, HARD, HARD], seed)
        for stop_at in (12, 30):
            play([Player(ws_url(srv, room, 0, secrets[0]), 0, PositionalChoice(), stop_at=stop_at)])
            srv.kill()
            lives.append(len(_stored(database, room)[0]))
            srv.start()
        person = Player(ws_url(srv, room, 0, secrets[0]), 0, PositionalChoice())
        play([person])
        assert person.last is not None and person.last["room"]["status"] == "over"
    finally:
        srv.close()
    actions, status = _stored(database, room)
    assert status == "over"
    # The bots moved in every life of the server: each one went on from a stored memory.
    assert all(
        _bot_moves(actions, a, b) > 0 for a, b in [(0, lives[0]), (lives[0], lives[1]), (lives[1], None)]
    )
    assert _by_seat(actions) == reference(seed)


@pytest.mark.postgres
def test_after_a_handoff_and_a_takeover_the_bots_go_on_with_their_memory(
    cluster_env: ClusterEnv, tmp_path: Path
) -> None:
    """Three workers: the room is made on worker 0 and played there; its person moves to
    worker 1, which takes the room over by a handoff (its copy never ran the bots); worker 1
    is killed, and another worker takes it over. The game is the one played on one server."""
    seed = 12
    workers = Workers(
        cluster_env.database,
        cluster_env.redis,
        cluster_env.prefix,
        3,
        log=tmp_path / "workers.log",
        think="memory_think:quick_think",
    )
    lease = f"{cluster_env.prefix}spieltisch:lease:"

    def owner(room: str) -> str | None:
        with redis.Redis.from_url(cluster_env.redis, decode_responses=True) as r:
            value = r.get(lease + room)
        return None if value is None else str(value).split("-", 1)[0]

    def wait_owner(room: str, wanted: Collection[str], seconds: float = 10) -> str:
        deadline = time.monotonic() + seconds
        while (now := owner(room)) not in wanted:
            assert time.monotonic() < deadline, f"room {room}: owned by {now}, not by one of {wanted}"
            time.sleep(0.02)
        assert now is not None
        return now

    marks: list[int] = []
    try:
        workers.start_all()
        with workers.client(0) as client:
            room, secrets = open_room(client, "scout", [HUMAN, HARD, HARD], seed)
        assert owner(room) == "w0"
        play([Player(workers.url(0, room, 0, secrets[0]), 0, PositionalChoice(), stop_at=10)])

        async def hand_over_then_play() -> None:
            # The person on worker 1 only (a socket that just holds the seat): the room follows.
            async with seat_socket(workers.url(1, room, 0, secrets[0])):
                await asyncio.to_thread(wait_owner, room, ["w1"])
                marks.append(len(_stored(cluster_env.database, room, cluster_env.prefix)[0]))
                person = Player(workers.url(1, room, 0, secrets[0]), 0, PositionalChoice(), stop_at=30)
                await person.run()

        run_async(hand_over_then_play())
        workers.kill(1)  # the owner, while its bots may be thinking
        marks.append(len(_stored(cluster_env.database, room, cluster_env.prefix)[0]))
        wait_owner(room, ["w0", "w2"])
        person = Player(workers.url(2, room, 0, secrets[0]), 0, PositionalChoice())
        play([person])
        assert person.last is not None and person.last["room"]["status"] == "over"
    finally:
        workers.close()
    actions, status = _stored(cluster_env.database, room, cluster_env.prefix)
    assert status == "over"
    # The bots moved on worker 0, on worker 1 after the handoff, and after the takeover.
    assert all(
        _bot_moves(actions, a, b) > 0 for a, b in [(0, marks[0]), (marks[0], marks[1]), (marks[1], None)]
    )
    assert _by_seat(actions) == reference(seed)
    assert "cannot use its stored memory" not in (tmp_path / "workers.log").read_text()


@pytest.mark.parametrize("way", ["time-out", "leave"])
def test_a_new_stand_in_starts_afresh_after_a_restart(tmp_path: Path, way: str) -> None:
    """Nobody at seat 0: it times out and a stand-in plays it; its player comes back (no
    move of theirs), then times out again or leaves, and a new stand-in takes the seat -
    without the first one's memory, which the time-out or the leave deleted. The server is
    killed before the new stand-in's first move: after the restart it starts afresh too.
    (To leave, seat 1 is a person too, who never comes: a stand-in plays it throughout, and
    the game goes on after seat 0 leaves.)"""
    database = f"sqlite:///{tmp_path / 'stand-in.db'}"
    # A seed (and so a gate file) of each way's own: the two may run at once on two workers.
    seed = {"time-out": 5, "leave": 6}[way]
    seats = [HUMAN, HARD, HARD] if way == "time-out" else [HUMAN, HUMAN, HARD]
    gate = gate_file(seed)
    gate.unlink(missing_ok=True)
    srv = ServerProcesses(database, think="memory_think:gated_think")
    try:
        srv.start()
        with srv.client() as client:
            clock = {"move": 0.5, "stand_in": "hard"}
            room, secrets = open_room(client, "scout", seats, seed, clock=clock, bot_delay=0.1)
        store = Store(database)
        try:
            deadline = time.monotonic() + 60
            while sum(1 for seat, _ in _load(store, room).actions if seat == 0) < 3:
                assert time.monotonic() < deadline, "the stand-in did not play"
                time.sleep(0.02)
            gate.touch()  # from now on a new stand-in of seat 0 waits before its first move

            async def back_and_away() -> None:
                """Seat 0's player connects (the stand-in lets go), then sits still until a
                stand-in takes the seat again, or leaves."""
                async with seat_socket(ws_url(srv, room, 0, secrets[0])) as ws:
                    back = False
                    while True:
                        msg = json.loads(await asyncio.wait_for(ws.recv(), 30))
                        if msg["type"] != "state":
                            continue
                        seat = msg["room"]["seats"][0]
                        if "stand_in" not in seat and not back:
                            back = True
                            if way == "leave":
                                await ws.send(json.dumps({"type": "leave"}))
                        elif back and "stand_in" in seat and (way != "leave" or seat.get("left")):
                            return

            run_async(back_and_away())  # (the new stand-in now thinks, and waits at the gate)
            row = _load(store, room)
            assert row.status == "playing"
            with store.engine.connect() as conn:
                t = store.bot_memory
                kept = conn.execute(select(t.c.seat).where(t.c.room == room)).scalars().all()
        finally:
            store.close()
        first = sum(1 for seat, _ in row.actions if seat == 0)
        by = [b for (seat, _), b in zip(row.actions, row.by, strict=True) if seat == 0]
        assert by == ["bot:hard"] * first  # the first stand-in's moves only
        assert sorted(kept) == [1, 2]  # the time-out or the leave deleted seat 0's stored memory
        srv.kill()
        gate.unlink()
        srv.start()
        store = Store(database)
        try:
            deadline = time.monotonic() + 120
            while _load(store, room).status != "over":
                assert time.monotonic() < deadline, "the game did not end"
                time.sleep(0.2)
        finally:
            store.close()
    finally:
        gate.unlink(missing_ok=True)
        srv.close()
    actions, _ = _stored(database, room)
    assert _by_seat(actions) == reference(seed, people=(), fresh={0: {first}})


def _half_played_room(db_url: str, seed: int) -> tuple[str, dict[int, str]]:
    """A Scout room of a person and two hard bots, stored after 20 versions: its code and secrets."""
    srv = ServerThread(db_url, bot_pool=BotPool(1, think=quick_think))
    try:
        with srv.client() as client:
            room, secrets = open_room(client, "scout", [HUMAN, HARD, HARD], seed)
        play([Player(ws_url(srv, room, 0, secrets[0]), 0, PositionalChoice(), stop_at=20)])
    finally:
        srv.stop()
    return room, secrets


def _resume_with_fresh_bots(
    db_url: str, room: str, secret: str, seed: int, actions: list[tuple[int, str]]
) -> None:
    """Restart the server on the stored room (``actions`` played so far) and play it to the
    end: the game is the reference's with the bots of seats 1 and 2 made afresh there."""
    made = {s: sum(1 for seat, _ in actions if seat == s) for s in (1, 2)}
    assert all(made.values())
    srv = ServerThread(db_url, bot_pool=BotPool(1, think=quick_think))
    try:
        person = Player(ws_url(srv, room, 0, secret), 0, PositionalChoice())
        play([person])
        assert person.last is not None and person.last["room"]["status"] == "over"
    finally:
        srv.stop()
    final, status = _stored(db_url, room)
    assert status == "over"
    assert _by_seat(final) == reference(seed, fresh={1: {made[1]}, 2: {made[2]}})


def test_a_stored_memory_the_bot_cannot_use_makes_it_start_afresh(
    db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Seat 1's stored memory names a bot class this release does not have (as one of an
    older release might), seat 2's is not even zlib: after the restart both bots start
    afresh (logged, without the memory), and the game goes on to its end."""
    caplog.set_level(logging.WARNING, logger="spieltisch.server")
    seed = 3
    room, secrets = _half_played_room(db_url, seed)
    store = Store(db_url)
    try:
        actions = _load(store, room).actions
        t = store.bot_memory
        with store.engine.begin() as conn:
            old_class = b"cspieltisch.bots.scout\nHardBotOfAnOlderRelease\np0\n."  # a pickled class, gone
            for seat, memory in [(1, zlib.compress(old_class)), (2, b"not zlib at all")]:
                changed = conn.execute(
                    update(t).where(t.c.room == room, t.c.seat == seat).values(memory=memory)
                ).rowcount
                assert changed == 1
    finally:
        store.close()
    _resume_with_fresh_bots(db_url, room, secrets[0], seed, actions)
    messages = [r.getMessage() for r in caplog.records]
    assert any("bot seat 1 cannot use its stored memory (AttributeError" in m for m in messages), messages
    assert any("the stored memory of bot seat 2 is unreadable" in m for m in messages), messages
    assert not any("playing a random legal action" in m for m in messages)
    assert not any("not zlib at all" in m for m in messages)  # what failed, not the memory itself


def test_a_stored_room_whose_bots_were_retired_resumes_with_todays_default(db_url: str) -> None:
    """A room stored while its bots played versions retired since (``hard@v9``, ``hard@v3``)
    resumes after a restart: today's default of the level plays those seats, with the
    stored budget, from a fresh start (the game is the reference's with those bots made
    afresh), to the end."""
    seed = 5
    room, secrets = _half_played_room(db_url, seed)
    budget = SPEC.partition(":")[2]
    store = Store(db_url)
    try:
        actions = _load(store, room).actions
        with store.engine.begin() as conn:
            for seat, retired in [(1, "hard@v9"), (2, "hard@v3")]:
                s = store.seats
                changed = conn.execute(
                    update(s).where(s.c.room == room, s.c.seat == seat).values(level=f"{retired}:{budget}")
                ).rowcount
                assert changed == 1
            m = store.bot_memory
            conn.execute(delete(m).where(m.c.room == room))
        assert [s.level for s in _load(store, room).seats[1:]] == [f"hard@v9:{budget}", f"hard@v3:{budget}"]
    finally:
        store.close()
    _resume_with_fresh_bots(db_url, room, secrets[0], seed, actions)


def _memory_store(store: Store) -> None:
    """A bot's memory is stored with its move, never without it; the seat's next memory
    replaces it; a time-out, a leave and the room's expiry delete it."""
    seats = [SeatRow(0, "human", name="Alice", secret_hash="h", taken=True), SeatRow(1, "bot", "hard")]
    store.create_room(
        RoomRow("MEMORY", "scout", 3, {}, 1, 0.0, "playing", [*seats, SeatRow(2, "bot", "hard")])
    )
    store.append_actions("MEMORY", 0, [(1, "keep")], memory=(1, b"first"))
    store.append_actions("MEMORY", 1, [(0, "keep")])
    assert store.load_bot_memory("MEMORY") == {1: (0, b"first")}
    store.append_actions("MEMORY", 2, [(1, "flip"), (2, "keep")], memory=(1, b"second"))
    assert store.load_bot_memory("MEMORY") == {1: (2, b"second")}  # one row a seat: the latest
    with pytest.raises(Exception):  # noqa: B017 - index 3 is taken: the move is refused, its memory too
        store.append_actions("MEMORY", 3, [(2, "show 1")], memory=(2, b"refused"))
    store.append_actions("MEMORY", 4, [(2, "show 1")], memory=(2, b"x" * 100_000))
    assert store.load_bot_memory("MEMORY") == {1: (2, b"second"), 2: (4, b"x" * 100_000)}
    with store.engine.connect() as conn:  # compressed
        sizes = conn.execute(select(func.length(store.bot_memory.c.memory))).scalars().all()
    assert max(sizes) < 1_000
    run_async(store.forget_memory_async("MEMORY", 2))  # a time-out: the new stand-in starts afresh
    assert store.load_bot_memory("MEMORY") == {1: (2, b"second")}
    store.update_seat("MEMORY", dataclasses.replace(seats[1], taken=True), forget_memory=True)
    assert store.load_bot_memory("MEMORY") == {}
    store.append_actions("MEMORY", 5, [(1, "show 2")], memory=(1, b"third"))
    assert store.expire(0, time.time() + 60) == ["MEMORY"]  # with the room's other rows
    assert store.load_bot_memory("MEMORY") == {} and store.load("MEMORY") is None


def test_the_sqlite_store_keeps_one_memory_per_seat_with_its_move(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 's.db'}")
    try:
        _memory_store(store)
    finally:
        store.close()


@pytest.mark.postgres
def test_the_postgres_store_keeps_one_memory_per_seat_with_its_move(postgres_store: Store) -> None:
    _memory_store(postgres_store)
