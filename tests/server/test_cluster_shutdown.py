"""SIGTERM of a loaded worker (a deployment's stop, the supervisor's restart): it stops
within a few seconds, gives its rooms up at once (another worker owns each well before
a lease could expire), closes its sockets with 1001 "going away" so that the clients
reconnect to another worker, and no acknowledged move is lost (docs/deploy.md)."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import psutil
import pytest
import redis.asyncio as aioredis
import websockets
from conftest import ClusterEnv
from server_harness import Workers, open_room, run_async, seat_socket

from spieltisch.server.store import Store

HUMAN = {"kind": "human"}
BOT = {"kind": "bot", "level": "random"}
TABLES: list[tuple[str, list[dict[str, str]], dict[str, Any]]] = [
    ("scout", [HUMAN, BOT, HUMAN, BOT], {}),
    ("schmaus", [HUMAN, BOT, HUMAN], {"rounds": 3}),
    ("scout", [HUMAN, HUMAN, BOT], {}),
    ("schmaus", [HUMAN, HUMAN], {"rounds": 3}),
] * 2
SPECTATORS = 24
"""Sockets that only watch, on the worker that stops (its connections to close)."""
RETRY = ("rate_limited", "stale", "not_your_turn", "unavailable", "internal")


@dataclass
class Seat:
    room: str
    seat: int | None
    secret: str | None
    rng: random.Random
    acked: list[tuple[int, list[tuple[int, str]]]] = field(default_factory=list)
    over: bool = False


@dataclass
class Seen:
    closes: list[int] = field(default_factory=list)
    """Close codes of the sockets on the stopping worker."""


async def _play(w: Workers, worker: int, seat: Seat, until: float, seen: Seen, victim: int) -> None:
    pending: str | None = None
    log: list[dict[str, Any]] = []
    n = 0
    try:
        async with seat_socket(w.url(worker, seat.room, seat.seat, seat.secret), open_timeout=5) as ws:
            try:
                async for raw in ws:
                    msg = json.loads(raw)
                    if msg["type"] == "error":
                        if msg.get("ref") == pending:
                            pending = None
                        if msg["code"] in RETRY:
                            await asyncio.sleep(0.05)
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
                    if time.monotonic() > until:
                        return
                    if seat.seat is not None and msg["legal"] and pending is None:
                        n += 1
                        pending = f"{seat.seat}-{n}"
                        act = {"type": "act", "version": msg["version"], "ref": pending}
                        await ws.send(json.dumps({**act, "id": seat.rng.choice(msg["legal"])[0]}))
            finally:
                if worker == victim and ws.close_code is not None:
                    seen.closes.append(ws.close_code)
    except (OSError, TimeoutError, websockets.exceptions.WebSocketException):
        return


async def _seat(w: Workers, seat: Seat, until: float, seen: Seen, victim: int, first: int) -> None:
    """Play on worker ``first``, then (closed) on any live worker, until ``until``."""
    worker = first
    while not seat.over and time.monotonic() < until:
        await _play(w, worker, seat, until, seen, victim)
        alive = w.alive()
        worker = seat.rng.choice(alive) if alive else first
        await asyncio.sleep(0.01)


@pytest.fixture
def workers(cluster_env: ClusterEnv, tmp_path: Any) -> Iterator[Workers]:
    w = Workers(cluster_env.database, cluster_env.redis, cluster_env.prefix, 3, log=tmp_path / "w.log")
    try:
        w.start_all()
        yield w
    finally:
        w.close()


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE  # exited, not yet reaped
    except psutil.NoSuchProcess:
        return True


def test_sigterm_stops_a_loaded_worker_at_once_and_its_rooms_move_on(
    workers: Workers, cluster_env: ClusterEnv
) -> None:
    victim = 0
    seats: list[Seat] = []
    with workers.client(victim) as client:  # made on worker 0: it owns them all
        for i, (game, spec, options) in enumerate(TABLES):
            room, secrets = open_room(client, game, spec, 500 + i, options=options)
            seats += [Seat(room, s, sec, random.Random(f"{room}/{s}")) for s, sec in secrets.items()]
    rooms = sorted({s.room for s in seats})
    watchers = [Seat(rooms[i % len(rooms)], None, None, random.Random(i)) for i in range(SPECTATORS)]
    lease = f"{cluster_env.prefix}spieltisch:lease:"
    seen = Seen()
    result: dict[str, float] = {}

    async def main() -> None:
        until = time.monotonic() + 6.0
        rng = random.Random(8)
        tasks = [
            asyncio.ensure_future(_seat(workers, s, until, seen, victim, rng.choice([0, 0, 1, 2])))
            for s in seats
        ]
        tasks += [asyncio.ensure_future(_seat(workers, s, until, seen, victim, victim)) for s in watchers]
        async with aioredis.Redis.from_url(cluster_env.redis, decode_responses=True) as r:
            # People and bots move on every table. Looked at before HANDOFF_AFTER (1 s): later
            # worker 0 may have handed on every room none of whose players it serves (affinity).
            await asyncio.sleep(0.8)
            values = await r.mget([lease + code for code in rooms])
            owned = [c for c, v in zip(rooms, values, strict=True) if v and str(v).startswith(f"w{victim}-")]
            assert owned, "worker 0 owned none of its rooms"
            pid = workers.terminate(victim)
            assert pid is not None
            stopped = time.monotonic()
            while len(result) < 3:
                now = time.monotonic() - stopped
                values = await r.mget([lease + code for code in owned])
                mine = [v is not None and str(v).startswith(f"w{victim}-") for v in values]
                over = {s.room for s in seats if s.over}
                if "released" not in result and not any(mine):
                    result["released"] = now
                if "taken" not in result and all(
                    (v is not None and not m) or code in over
                    for code, v, m in zip(owned, values, mine, strict=True)
                ):
                    result["taken"] = now
                if "exited" not in result and _gone(pid):
                    result["exited"] = now
                assert now < 10, f"after 10 s: {result}"
                await asyncio.sleep(0.02)
        await asyncio.wait_for(asyncio.gather(*tasks), 30)

    run_async(main())
    print(
        f"SIGTERM: leases released after {result['released']:.2f} s, rooms taken over after "
        f"{result['taken']:.2f} s, exited after {result['exited']:.2f} s"
    )
    assert result["exited"] < 5.0, result
    # Given up at once: neither held while the worker shuts down nor left to expire (a
    # lease lives 1 s after its last renewal); the others take the rooms at their next look.
    assert result["released"] < 1.0, result
    assert result["taken"] < 5.0, result
    assert seen.closes and set(seen.closes) <= {1001}, seen.closes  # "going away": reconnect elsewhere
    store = Store(cluster_env.database, prefix=cluster_env.prefix)
    try:
        stored = {code: store.load(code) for code in rooms}
    finally:
        store.close()
    acked = 0
    for s in seats:
        row = stored[s.room]
        assert row is not None
        for version, own in s.acked:
            acked += 1
            assert len(row.actions) >= version, f"room {s.room}: acknowledged version {version} lost"
            for n, text in own:
                assert row.actions[n - 1] == (s.seat, text), f"room {s.room}: move {n} changed"
    assert acked > len(seats)
