"""A worker cut from Redis or from its database refuses moves (``unavailable``,
docs/protocol.md) instead of acknowledging what it cannot store or own, and recovers
by itself when the connection returns (docs/deploy.md, "Failures")."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from conftest import ClusterEnv
from server_harness import Proxy, Workers, connect_seat, open_room
from sqlalchemy.engine import make_url
from websockets.sync.client import ClientConnection

from spieltisch.server.store import Store

HUMAN = {"kind": "human"}
_refs = itertools.count()


@pytest.fixture(scope="module")
def setup(
    cluster_env: ClusterEnv, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Workers, Proxy, Proxy]]:
    """Two workers; worker 0 reaches Redis and PostgreSQL through proxies the tests cut."""
    db = make_url(cluster_env.database)
    to_redis = Proxy("127.0.0.1", make_url(cluster_env.redis).port or 6379)
    to_db = Proxy("127.0.0.1", db.port or 5432)
    log = tmp_path_factory.mktemp("outage") / "workers.log"
    w = Workers(cluster_env.database, cluster_env.redis, cluster_env.prefix, 2, log=log)
    try:
        w.start(
            0,
            redis=f"redis://127.0.0.1:{to_redis.port}/0",
            database=db.set(port=to_db.port).render_as_string(hide_password=False),
        )
        w.start(1)
        yield w, to_redis, to_db
    finally:
        w.close()
        to_redis.close()
        to_db.close()


def until(ws: ClientConnection, ref: str, timeout: float = 10) -> dict[str, Any]:
    """The answer to the message ``ref``: its ack'ed state or its error."""
    deadline = time.monotonic() + timeout
    while True:
        msg = json.loads(ws.recv(timeout=max(0.01, deadline - time.monotonic())))
        if msg.get("ack") == ref or (msg["type"] == "error" and msg.get("ref") == ref):
            return dict(msg)


def fresh(ws: ClientConnection) -> dict[str, Any]:
    ref = f"s{next(_refs)}"
    ws.send(json.dumps({"type": "sync", "ref": ref}))
    return until(ws, ref)


def move(ws: ClientConnection) -> dict[str, Any]:
    """Send the first legal action of this socket's seat; the answer."""
    state = fresh(ws)
    assert state["legal"], "not this seat's decision"
    ref = f"m{next(_refs)}"
    action = {"type": "act", "version": state["version"], "id": state["legal"][0][0], "ref": ref}
    ws.send(json.dumps(action))
    return until(ws, ref)


def mover(sockets: dict[int, ClientConnection]) -> int:
    """The seat to decide now (asked through its socket)."""
    movers = [seat for seat, ws in sockets.items() if fresh(ws)["legal"]]
    assert movers
    return movers[0]


def open_sockets(stack: ExitStack, w: Workers, i: int, room: str, secrets: dict[int, str]) -> dict[int, Any]:
    return {s: stack.enter_context(connect_seat(w.url(i, room, s, sec))) for s, sec in secrets.items()}


def stored(env: ClusterEnv, room: str) -> int:
    store = Store(env.database, prefix=env.prefix)
    try:
        return store.count_actions(room)
    finally:
        store.close()


def test_a_worker_cut_from_redis_refuses_moves_and_recovers(
    setup: tuple[Workers, Proxy, Proxy], cluster_env: ClusterEnv
) -> None:
    w, to_redis, _ = setup
    with w.client(0) as client:
        room, secrets = open_room(client, "scout", [HUMAN, HUMAN], 21)
    with ExitStack() as stack:
        on0 = open_sockets(stack, w, 0, room, secrets)
        on1 = open_sockets(stack, w, 1, room, secrets)
        seat = mover(on0)
        assert "ack" in move(on0[seat])  # worker 0 owns the room: fine
        to_redis.cut()
        try:
            time.sleep(1.5)  # worker 0's lease has run out; it knows it
            seat = mover(on1)
            before = stored(cluster_env, room)
            refused = move(on0[seat])
            assert refused["type"] == "error" and refused["code"] == "unavailable", refused
            assert "Redis" in refused["message"] or "does not own" in refused["message"]
            assert stored(cluster_env, room) == before  # nothing was stored
            # Worker 1 has taken the room over: the game goes on there.
            assert "ack" in move(on1[seat])
            assert stored(cluster_env, room) == before + 1
        finally:
            to_redis.restore()
        # Worker 0 finds Redis again by itself: it forwards to the new owner and follows the room.
        deadline = time.monotonic() + 10
        while True:
            seat = mover(on1)
            answer = move(on0[seat])
            if "ack" in answer:
                break
            # (Until it has reloaded the room, its copy may be behind: "stale", and a fresh state.)
            assert answer["code"] in ("unavailable", "stale") and time.monotonic() < deadline, answer
            time.sleep(0.2)
        version = answer["version"]
        assert fresh(on1[seat])["version"] == version == stored(cluster_env, room)


def test_a_worker_cut_from_its_database_refuses_moves_and_recovers(
    setup: tuple[Workers, Proxy, Proxy], cluster_env: ClusterEnv
) -> None:
    w, _, to_db = setup
    with w.client(0) as client:
        room, secrets = open_room(client, "scout", [HUMAN, HUMAN], 22)
    with ExitStack() as stack:
        on0 = open_sockets(stack, w, 0, room, secrets)
        on1 = open_sockets(stack, w, 1, room, secrets)
        seat = mover(on0)
        to_db.cut()
        try:
            for sockets in (on0, on1):  # on the owner, and forwarded to it
                refused = move(sockets[seat])
                assert refused["type"] == "error" and refused["code"] == "unavailable", refused
                assert "database" in refused["message"]
            with w.client(0) as client:
                r = client.post("/api/rooms", json={"game": "scout", "players": 3})
                assert r.status_code == 503 and "database" in r.json()["detail"]
        finally:
            to_db.restore()
        assert stored(cluster_env, room) == 0
        deadline = time.monotonic() + 10
        while True:
            answer = move(on1[seat])
            if "ack" in answer:
                break
            assert answer["code"] == "unavailable" and time.monotonic() < deadline, answer
            time.sleep(0.2)
        assert stored(cluster_env, room) == answer["version"] == 1
