"""Accounts with several workers (docs/accounts.md, docs/deploy.md): an account deleted on
one worker is anonymised in the rooms every worker has in memory, and their players are
sent fresh views at once (not when the room is next reloaded)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from conftest import ClusterEnv
from server_harness import Workers, connect_seat
from websockets.sync.client import ClientConnection

from spieltisch.server.accounts import DELETED_NAME

PASSWORD = "correct horse battery"


@pytest.fixture(scope="module")
def workers(cluster_env: ClusterEnv, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workers]:
    log = tmp_path_factory.mktemp("cluster_accounts") / "workers.log"
    w = Workers(cluster_env.database, cluster_env.redis, cluster_env.prefix, 2, log=log)
    w.options["limits"] = {"accounts_per_hour": 0}
    try:
        w.start_all()
        yield w
    finally:
        w.close()


def _owner(env: ClusterEnv, room: str) -> str | None:
    with redis.Redis.from_url(env.redis, decode_responses=True) as r:
        value = r.get(f"{env.prefix}spieltisch:lease:{room}")
    return None if value is None else str(value).split(":", 1)[0]


def _names_until(ws: ClientConnection, seat: int, name: str, timeout: float = 10) -> list[str | None]:
    """The name of ``seat`` in each state ``ws`` receives until it is ``name`` (fails after ``timeout`` s)."""
    seen: list[str | None] = []
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        assert left > 0, f"seat {seat} never became {name!r} (saw {seen})"
        msg: dict[str, Any] = json.loads(ws.recv(timeout=left))
        if msg["type"] != "state":
            continue
        seats = msg["room"]["seats"]
        seen.append(seats[seat]["name"])
        if seats[seat]["name"] == name:
            assert not seats[seat].get("signed_in")
            return seen


def test_a_deleted_account_leaves_the_rooms_of_every_worker_at_once(
    workers: Workers, cluster_env: ClusterEnv
) -> None:
    """Bob sits in a room worker 0 owns and deletes his account on worker 1: Ada's socket on
    worker 0 and a spectator on worker 1 are both sent the seat as ``Deleted player`` at
    once, and both workers answer for the room with it (in memory, as stored)."""
    with workers.client(0) as ada, workers.client(1) as bob:
        assert ada.post("/api/account/signup", json={"name": "Ada", "password": PASSWORD}).status_code == 201
        assert bob.post("/api/account/signup", json={"name": "Bob", "password": PASSWORD}).status_code == 201
        body = {
            "game": "scout",
            "players": 3,
            "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "easy"}],
            "seed": 7,
            "bot_delay": 0,
        }
        made = ada.post("/api/rooms", json=body)
        assert made.status_code == 200, made.text
        room, invite = made.json()["room"], made.json()["invite"].rsplit("/", 1)[1]
        joined = bob.post(f"/api/rooms/{invite}/join", json={"seat": 1, "name": "ignored"})
        assert joined.status_code == 200, joined.text
        assert (_owner(cluster_env, room) or "").startswith("w0-")
        with (
            connect_seat(workers.url(0, room, 0, made.json()["secret"])) as at_owner,
            connect_seat(workers.url(1, invite)) as elsewhere,
        ):
            for ws in (at_owner, elsewhere):  # both workers have the room, with Bob in seat 1
                first = json.loads(ws.recv(timeout=10))
                assert first["type"] == "state" and first["room"]["seats"][1]["name"] == "Bob"
                assert first["room"]["seats"][1]["signed_in"]
            gone = bob.request("DELETE", "/api/account", json={"confirm": "Bob"})
            assert gone.status_code == 204, gone.text
            for ws in (at_owner, elsewhere):
                _names_until(ws, 1, DELETED_NAME)
        for i in (0, 1):
            with workers.client(i) as client:
                info = client.get(f"/api/rooms/{invite}").json()
                assert info["seats"][1]["name"] == DELETED_NAME and not info["seats"][1].get("signed_in")
                assert info["seats"][0]["name"] == "Ada" and info["seats"][0]["signed_in"]
