"""Room affinity (docs/deploy.md, "Room routing and handoffs"): a room whose people are
all connected to another worker than its owner is handed over to that worker - its
lease with a new fencing token, its bots and clocks - while they play, losing and
doubling no move; people split over the owner and another worker leave it where it is.
Real worker processes on PostgreSQL and Redis."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
import redis
import redis.asyncio as aioredis
from conftest import ClusterEnv
from server_harness import (
    SeatUrl,
    Workers,
    answers,
    lease_owners,
    open_room,
    pid_behind,
    run_async,
    seat_socket,
    serve_port_per_worker,
)

from spieltisch.engine import GameRecord
from spieltisch.server.cluster import HANDOFF_AFTER
from spieltisch.server.store import RoomRow, Store

HUMAN = {"kind": "human"}
BOT = {"kind": "bot", "level": "random"}


@pytest.fixture(scope="module")
def workers(cluster_env: ClusterEnv, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workers]:
    log = tmp_path_factory.mktemp("affinity") / "workers.log"
    w = Workers(cluster_env.database, cluster_env.redis, cluster_env.prefix, 3, log=log)
    try:
        w.start_all()
        yield w
    finally:
        w.close()


@dataclass
class Seat:
    """A person (or, with ``seat`` None, a spectator) who moves ``pause`` s after each of
    their decisions comes, and keeps what came back."""

    url: SeatUrl
    seat: int | None
    rng: random.Random
    pause: float = 0.05
    acked: list[int] = field(default_factory=list)
    """The version each acknowledged move made."""
    sent: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    last: dict[str, Any] | None = None
    seen: list[tuple[float, int]] = field(default_factory=list)
    """When each state came (``time.monotonic()``) and its version."""
    pending: str | None = None
    """The ``ref`` of the move sent and not answered yet."""
    unanswered: bool = False
    """The last move sent had no answer yet when the client stopped (it may be stored)."""

    async def run(self, until: float) -> None:
        self.pending = None
        try:
            await self._run(until)
        finally:
            self.unanswered = self.pending is not None

    async def _run(self, until: float) -> None:
        async with seat_socket(self.url) as ws:
            while time.monotonic() < until:
                try:
                    raw = await asyncio.wait_for(ws.recv(), max(0.01, until - time.monotonic()))
                except TimeoutError:
                    return
                msg = json.loads(raw)
                if msg["type"] == "error":
                    self.errors.append(msg)
                    if msg.get("ref") == self.pending:
                        self.pending = None
                        await asyncio.sleep(0.05)
                        await ws.send(json.dumps({"type": "sync"}))
                    continue
                if msg["type"] != "state":
                    continue
                assert self.last is None or msg["version"] >= self.last["version"], "back in time"
                start = msg["log_from"]
                assert start <= len(self.log), f"log from {start}, {len(self.log)} known"
                self.log = self.log[:start] + msg["log"]
                self.last = msg
                self.seen.append((time.monotonic(), msg["version"]))
                if self.pending is not None and msg.get("ack") == self.pending:
                    self.acked.append(msg["version"])
                    self.pending = None
                if msg["room"]["status"] == "over":
                    return
                if self.seat is not None and msg["legal"] and self.pending is None:
                    await asyncio.sleep(self.pause * self.rng.uniform(0.5, 1.5))
                    self.sent += 1
                    self.pending = f"{self.seat}-{self.sent}"
                    action_id = self.rng.choice(msg["legal"])[0]
                    act = {"type": "act", "version": msg["version"], "id": action_id, "ref": self.pending}
                    await ws.send(json.dumps(act))


def lease_of(env: ClusterEnv, room: str) -> str | None:
    """``wN`` of the worker holding the room's lease, and its token (``wN:TOKEN``)."""
    with redis.Redis.from_url(env.redis, decode_responses=True) as r:
        value = r.get(f"{env.prefix}spieltisch:lease:{room}")
    if value is None:
        return None
    worker, token = str(value).split(":", 1)
    return f"{worker.split('-', 1)[0]}:{token}"


async def watch_owner(env: ClusterEnv, room: str, until: float) -> list[tuple[float, str | None]]:
    """The room's owner (``wN:TOKEN``) every 20 ms until ``until``: each change and when."""
    changes: list[tuple[float, str | None]] = []
    key = f"{env.prefix}spieltisch:lease:{room}"
    async with aioredis.Redis.from_url(env.redis, decode_responses=True) as r:
        while time.monotonic() < until:
            value = await r.get(key)
            now = None
            if value is not None:
                worker, token = str(value).split(":", 1)
                now = f"{worker.split('-', 1)[0]}:{token}"
            if not changes or changes[-1][1] != now:
                changes.append((time.monotonic(), now))
            await asyncio.sleep(0.02)
    return changes


def stored(env: ClusterEnv, room: str) -> RoomRow:
    store = Store(env.database, prefix=env.prefix)
    try:
        row = store.load(room)
    finally:
        store.close()
    assert row is not None
    return row


def check_every_ack_once(row: RoomRow, seats: list[Seat]) -> None:
    """Each acknowledged move is in the stored log, at its place, and each person's moves
    in the log are exactly the acknowledged ones (none lost, none twice)."""
    for s in seats:
        if s.seat is None:
            continue
        own = [n for n, ((who, _t), by) in enumerate(zip(row.actions, row.by, strict=True), 1)
               if who == s.seat and by is None]  # fmt: skip
        if s.unanswered and own and own[-1] not in s.acked:
            own.pop()  # sent as the client stopped: stored, its answer not read
        assert sorted(s.acked) == own, f"seat {s.seat}: acknowledged {sorted(s.acked)}, stored {own}"


def test_a_room_goes_to_the_worker_its_people_are_on_and_plays_on(
    workers: Workers, cluster_env: ClusterEnv
) -> None:
    """Made on worker 0, played by two people and a spectator on worker 1: worker 1 owns
    the room within a few seconds (one handoff, a new fencing token), the game goes on
    through it without an ``unavailable``, nothing acknowledged is lost or doubled, the
    bot plays on after the handoff, and the game ends as stored."""
    with workers.client(0) as client:
        room, secrets = open_room(client, "scout", [HUMAN, HUMAN, BOT], 21)
    first = lease_of(cluster_env, room)
    assert first is not None and first.startswith("w0:")
    seats = [Seat(workers.url(1, room, s, sec), s, random.Random(s), 0.15) for s, sec in secrets.items()]
    seats.append(Seat(workers.url(1, room), None, random.Random(9)))
    started = time.monotonic()

    async def main() -> list[tuple[float, str | None]]:
        until = started + 120
        watcher = asyncio.ensure_future(watch_owner(cluster_env, room, started + 8))
        await asyncio.wait_for(asyncio.gather(*(s.run(until) for s in seats)), 150)
        return await watcher

    changes = run_async(main())
    owners = [owner for _, owner in changes]
    assert owners[0] == first
    moved = [(t, o) for t, o in changes[1:] if o is not None and o.startswith("w1:")]
    assert moved, f"the room never went to worker 1: {changes}"
    took = moved[0][0] - started
    assert took < HANDOFF_AFTER + 3.0, f"handed over only after {took:.1f} s"
    # One handoff, no lapse: the lease went from worker 0 to worker 1 directly, with a new token.
    assert owners[: owners.index(moved[0][1]) + 1] == [first, moved[0][1]], changes
    assert int(moved[0][1].split(":")[1]) > int(first.split(":")[1])
    assert all(s.last is not None and s.last["room"]["status"] == "over" for s in seats)
    assert all(e["code"] == "stale" for s in seats for e in s.errors), [s.errors for s in seats]
    row = stored(cluster_env, room)
    assert row.status == "over"
    assert GameRecord(row.game, row.players, row.seed, row.options, row.actions).replay().is_over()
    assert [(e["seat"], e["text"]) for e in seats[2].log] == [(s, t) for s, t in row.actions]
    check_every_ack_once(row, seats)
    # The old owner gave the lease away: a renewal that finds it gone then is no loss.
    assert workers.log_path is not None
    assert f"room {room}: worker w0 lost its lease" not in workers.log_path.read_text()
    # The bot (seat 2) moved after the handoff, on the new owner.
    before = max(v for t, v in seats[2].seen if t <= moved[0][0])
    assert any(who == 2 for who, _ in row.actions[before:]), (before, len(row.actions))
    print(f"handed over after {took:.2f} s; {sum(len(s.acked) for s in seats)} acknowledged moves")


def test_a_stream_of_moves_during_a_handoff_is_stored_once_each(
    workers: Workers, cluster_env: ClusterEnv
) -> None:
    """Four people moving as fast as they can on worker 2 while the room is handed over
    to it from worker 0: no ``unavailable``, and every acknowledged move is stored exactly
    once (moves arriving during the handoff go on to the new owner)."""
    with workers.client(0) as client:
        room, secrets = open_room(client, "scout", [HUMAN, HUMAN, HUMAN, HUMAN], 5)
    seats = [Seat(workers.url(2, room, s, sec), s, random.Random(s), 0.01) for s, sec in secrets.items()]
    started = time.monotonic()

    async def main() -> list[tuple[float, str | None]]:
        until = started + HANDOFF_AFTER + 4
        watcher = asyncio.ensure_future(watch_owner(cluster_env, room, until))
        await asyncio.wait_for(asyncio.gather(*(s.run(until) for s in seats)), 60)
        return await watcher

    changes = run_async(main())
    moved = [t for t, o in changes if o is not None and o.startswith("w2:")]
    assert moved, changes
    acks = sorted(t for s in seats for t, v in s.seen if v in s.acked)
    assert acks and acks[0] < moved[0] < acks[-1], "no moves before and after the handoff"
    assert sum(len(s.acked) for s in seats) > 20
    for s in seats:
        assert all(e["code"] in ("stale", "not_your_turn") for e in s.errors), s.errors
    check_every_ack_once(stored(cluster_env, room), seats)


def test_people_split_over_the_owner_and_another_worker_leave_the_room_where_it_is(
    workers: Workers, cluster_env: ClusterEnv
) -> None:
    """One person on the owner (worker 0), one on worker 1: the room stays on worker 0.
    Two people on workers 1 and 2 and nobody on the owner: it moves once, and stays there."""
    with workers.client(0) as client:
        split, split_secrets = open_room(client, "scout", [HUMAN, HUMAN, BOT], 31)
        away, away_secrets = open_room(client, "scout", [HUMAN, HUMAN, BOT], 32)
    seats = [
        Seat(workers.url(0, split, 0, split_secrets[0]), 0, random.Random(1), pause=0.2),
        Seat(workers.url(1, split, 1, split_secrets[1]), 1, random.Random(2), pause=0.2),
        Seat(workers.url(1, away, 0, away_secrets[0]), 0, random.Random(3), pause=0.2),
        Seat(workers.url(2, away, 1, away_secrets[1]), 1, random.Random(4), pause=0.2),
    ]
    seconds = HANDOFF_AFTER + 5

    async def main() -> tuple[list[tuple[float, str | None]], list[tuple[float, str | None]]]:
        until = time.monotonic() + seconds
        a = asyncio.ensure_future(watch_owner(cluster_env, split, until))
        b = asyncio.ensure_future(watch_owner(cluster_env, away, until))
        await asyncio.wait_for(asyncio.gather(*(s.run(until) for s in seats)), seconds + 30)
        return await a, await b

    on_split, on_away = run_async(main())
    split_owners = [o for _, o in on_split if o is not None]
    assert len(set(split_owners)) == 1 and split_owners[0].startswith("w0:"), on_split
    away_owners = [o for _, o in on_away if o is not None]
    assert len(away_owners) == 2 and away_owners[1].split(":")[0] in ("w1", "w2"), on_away
    for s in seats:
        assert all(e["code"] == "stale" for e in s.errors), s.errors
    check_every_ack_once(stored(cluster_env, split), seats[:2])
    check_every_ack_once(stored(cluster_env, away), seats[2:])


@pytest.mark.slow
def test_serve_port_per_worker_gives_each_worker_its_port_and_rooms_follow_their_people(
    cluster_env: ClusterEnv,
) -> None:
    """``spieltisch serve --workers 2 --port-per-worker``: each worker answers on a port of
    its own; a room made through one port and played through the other moves to the
    worker behind that port; a worker killed with SIGKILL comes back on its own port."""
    with serve_port_per_worker(cluster_env, "ports_") as (https, prefix):
        pids = [pid_behind(h) for h in https]
        assert pids[0] != pids[1]
        with httpx.Client(base_url=https[0], timeout=10) as client:
            room, secrets = open_room(client, "scout", [HUMAN, BOT, BOT], 41)
        url = SeatUrl(f"{https[1].replace('http', 'ws')}/ws/{room}", 0, secrets[0])
        seat = Seat(url, 0, random.Random(1), 0.1)
        key = f"{prefix}spieltisch:lease:{room}"
        owners = lease_owners(cluster_env.redis, key, seat.run(time.monotonic() + 120))
        assert seat.last is not None and seat.last["room"]["status"] == "over"
        assert owners[0].startswith(f"pid{pids[0]}-"), owners
        assert any(w.startswith(f"pid{pids[1]}-") for w in owners), owners
        os.kill(pids[1], signal.SIGKILL)
        deadline = time.monotonic() + 60
        while True:  # started again by the supervisor, on the same port
            with contextlib.suppress(AssertionError):
                if answers(https[1]) and pid_behind(https[1]) != pids[1]:
                    break
            assert time.monotonic() < deadline, "the killed worker did not come back on its port"
            time.sleep(0.2)


def _serve(*args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-c", "from spieltisch.cli import main; main()", "serve", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60)


def test_serve_port_per_worker_refuses_what_cannot_work(cluster_env: ClusterEnv) -> None:
    """Without --redis there are no workers to give ports; a port of the range in use is
    refused with its number before anything starts."""
    alone = _serve("--port-per-worker", "--port", "0")
    assert alone.returncode == 2 and "--port-per-worker" in alone.stderr and "--redis" in alone.stderr
    with socket.socket() as first, socket.socket() as busy:
        first.bind(("127.0.0.1", 0))
        port = first.getsockname()[1]
        try:
            busy.bind(("127.0.0.1", port + 1))
        except OSError:
            pytest.skip(f"port {port + 1} is not free here")
        busy.listen()
        first.close()  # free: the first worker's port; the second one's is taken
        out = _serve(
            "--port-per-worker", "--workers", "2", "--port", str(port),
            "--redis", cluster_env.redis, "--database", cluster_env.database,
        )  # fmt: skip
    assert out.returncode == 2, out.stderr
    assert f"Error: port {port + 1} on 127.0.0.1 is in use by another program" in out.stderr
    assert "one port each" not in out.stdout
