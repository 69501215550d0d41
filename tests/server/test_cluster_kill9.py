"""kill -9 of a random worker, again and again, while people on every worker move and
bots think: another worker takes its rooms over within 2 s, the people reconnect to
any worker and resync, no acknowledged move is lost, every game finishes - and no
frame of any worker ever carried another seat's hidden cards or anybody's secret."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import redis.asyncio as aioredis
import websockets
from conftest import ClusterEnv
from server_harness import Workers, open_room, run_async, schmaus_sealed, seat_socket

from spieltisch.engine import GameRecord, get_game
from spieltisch.server.store import Store

KILLS = 30
WORKERS = 3
HUMAN = {"kind": "human"}
BOT = {"kind": "bot", "level": "random"}
TABLES: list[tuple[str, list[dict[str, str]], dict[str, Any]]] = [
    ("scout", [HUMAN, HUMAN, HUMAN], {}),
    ("scout", [HUMAN, BOT, HUMAN, BOT], {}),
    ("schmaus", [HUMAN, HUMAN], {"rounds": 3}),
    ("schmaus", [HUMAN, BOT, HUMAN], {"rounds": 3}),
]
RETRY = ("rate_limited", "stale", "not_your_turn", "unavailable", "internal")


@dataclass
class Seat:
    room: str
    seat: int | None
    """``None``: a spectator."""
    secret: str | None
    rng: random.Random
    acked: list[tuple[int, list[tuple[int, str]]]] = field(default_factory=list)
    """Per acknowledged move: the version it made, and this seat's own log entries up to it."""
    over: bool = False
    frames: list[dict[str, Any]] = field(default_factory=list)
    """Every message this seat received, on whichever worker."""


async def _play(w: Workers, worker: int, seat: Seat, until: float) -> None:
    """Move at random on ``worker`` until the connection breaks (it was killed), the game
    ends or ``until``."""
    pending: str | None = None
    log: list[dict[str, Any]] = []
    n = 0
    try:
        url = w.url(worker, seat.room, seat.seat, seat.secret)
        async with seat_socket(url, open_timeout=5) as ws:
            while True:  # until ``until`` even if nothing more comes (everyone else stopped)
                try:
                    raw = await asyncio.wait_for(ws.recv(), max(0.0, until - time.monotonic()))
                except TimeoutError:
                    return
                msg = json.loads(raw)
                seat.frames.append(msg)
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
                    action_id = seat.rng.choice(msg["legal"])[0]
                    act = {"type": "act", "version": msg["version"], "id": action_id, "ref": pending}
                    await ws.send(json.dumps(act))
    except (OSError, TimeoutError, websockets.exceptions.WebSocketException):
        return  # killed under us: whatever was not acknowledged may or may not be stored


async def _seat(w: Workers, seat: Seat, until: float, rng: random.Random) -> None:
    """Play on random live workers until ``until`` or the end of the game."""
    while not seat.over and time.monotonic() < until:
        alive = w.alive()
        if alive:
            await _play(w, rng.choice(alive), seat, until)
        await asyncio.sleep(0.02)


@pytest.fixture
def workers(cluster_env: ClusterEnv, tmp_path: Any) -> Iterator[Workers]:
    w = Workers(cluster_env.database, cluster_env.redis, cluster_env.prefix, WORKERS, log=tmp_path / "w.log")
    try:
        w.start_all()
        yield w
    finally:
        w.close()


@pytest.mark.slow
def test_kill_9_of_random_workers_loses_nothing_and_leaks_nothing(
    workers: Workers, cluster_env: ClusterEnv
) -> None:
    rng = random.Random(20261201)
    seats: list[Seat] = []
    secrets_: set[str] = set()
    with workers.client(0) as client:
        for i, (game, spec, options) in enumerate(TABLES):
            room, secrets = open_room(client, game, spec, 300 + i, options=options)
            secrets_ |= set(secrets.values())
            seats += [Seat(room, s, sec, random.Random(f"{room}/{s}")) for s, sec in secrets.items()]
            seats.append(Seat(room, None, None, random.Random(room)))  # a spectator
    rooms = sorted({s.room for s in seats})
    takeovers: list[float] = []
    lease = f"{cluster_env.prefix}spieltisch:lease:"

    async def owners(r: aioredis.Redis) -> dict[str, str]:
        values = await r.mget([lease + code for code in rooms])
        return {code: str(v).split("-", 1)[0] for code, v in zip(rooms, values, strict=True) if v is not None}

    async def cycle(kill_after: float, victim: int) -> None:
        until = time.monotonic() + kill_after + 1.2
        players = [asyncio.ensure_future(_seat(workers, s, until, rng)) for s in seats if not s.over]
        async with aioredis.Redis.from_url(cluster_env.redis, decode_responses=True) as r:
            await asyncio.sleep(kill_after)
            orphans = [code for code, w in (await owners(r)).items() if w == f"w{victim}"]
            workers.kill(victim)  # while people move and bots think, at a random moment
            killed = time.monotonic()
            while orphans:
                now = await owners(r)
                over = {s.room for s in seats if s.over}
                orphans = [c for c in orphans if now.get(c, f"w{victim}") == f"w{victim}" and c not in over]
                if orphans:
                    assert time.monotonic() - killed < 2.0, f"rooms {orphans} had no new owner within 2 s"
                    await asyncio.sleep(0.02)
            takeovers.append(time.monotonic() - killed)
        await asyncio.wait_for(asyncio.gather(*players), 30)

    started = time.monotonic()
    restarting: tuple[int, threading.Thread] | None = None
    for _ in range(KILLS):
        # The worker killed last time starts again meanwhile (as a supervisor would restart it).
        victim = rng.choice([i for i in range(WORKERS) if restarting is None or i != restarting[0]])
        run_async(cycle(rng.uniform(0.1, 0.6), victim))
        if restarting is not None:
            restarting[1].join()
        restarting = (victim, threading.Thread(target=workers.start, args=(victim,)))
        restarting[1].start()
    assert restarting is not None
    restarting[1].join()

    async def finish() -> None:
        end = time.monotonic() + 120
        await asyncio.wait_for(asyncio.gather(*(_seat(workers, s, end, rng) for s in seats)), 150)

    run_async(finish())
    took = time.monotonic() - started

    assert all(s.over for s in seats)
    acked = sum(len(s.acked) for s in seats)
    assert acked > KILLS
    store = Store(cluster_env.database, prefix=cluster_env.prefix)
    try:
        rows = {code: store.load(code) for code in rooms}
    finally:
        store.close()
    records = {}
    for code, row in rows.items():
        assert row is not None and row.status == "over"
        records[code] = GameRecord(row.game, row.players, row.seed, row.options, row.actions)
        assert records[code].replay().is_over()
    for s in seats:
        row = rows[s.room]
        assert row is not None
        for version, own in s.acked:
            assert len(row.actions) >= version, f"room {s.room}: acknowledged version {version} lost"
            for n, text in own:
                assert row.actions[n - 1] == (s.seat, text), f"room {s.room}: move {n} changed"
    _leak_scan(seats, records, secrets_)
    print(
        f"{KILLS} kills, {acked} acknowledged moves, {sum(len(s.frames) for s in seats)} frames scanned, "
        f"takeover max {max(takeovers):.2f} s, {took:.1f} s"
    )


def _leak_scan(seats: list[Seat], records: dict[str, GameRecord], secrets: set[str]) -> None:
    """Every state frame's view is exactly the engine's view for its seat at its version
    (so it holds nothing of another seat's hand or sealed decisions), other seats'
    secret decisions are redacted in its log until the game is over, and no frame
    holds any seat's secret."""
    views: dict[tuple[str, int, int | None], Any] = {}
    full: dict[str, list[dict[str, Any]]] = {}
    for code, record in records.items():
        state = get_game(record.game).new_state(record.players, record.seed, record.options)
        full[code] = []
        for version in range(len(record.actions) + 1):
            if version:
                state.apply(*record.actions[version - 1])
            full[code].append(state.to_json())
            for seat in [None, *range(record.players)]:
                view = state.view(seat, log=False)
                view.pop("log", None)
                views[code, version, seat] = json.loads(json.dumps(view))
    states = 0
    for s in seats:
        scout = records[s.room].game == "scout"
        for frame in s.frames:
            text = json.dumps(frame)
            assert not [x for x in secrets if x in text], "a secret in a frame"
            if frame["type"] != "state":
                continue
            states += 1
            expected = views[s.room, frame["version"], s.seat]
            assert frame["view"] == expected, (s.room, s.seat, frame["version"])
            if frame["room"]["status"] == "over":
                continue
            for e in frame["log"]:
                if e["seat"] == s.seat:
                    continue
                if scout:
                    assert e["text"] not in ("flip", "keep"), e  # S-5
                else:  # W-4, W-9, W-11, W-16: sealed until all of its kind are in
                    text = records[s.room].actions[e["n"] - 1][1]
                    if schmaus_sealed(full[s.room], e["n"], text, frame["version"]):
                        assert e["hidden"] and e["text"].endswith(" ?"), e
                    else:
                        assert not e["hidden"] and e["text"] == text, e
    assert states > len(seats)
