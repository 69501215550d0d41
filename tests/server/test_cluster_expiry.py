"""The expiry of old rooms (docs/protocol.md, "Limits": keep_finished_days, keep_abandoned_days)
with several workers: one worker sweeps at a time (the lease ``sweep`` in Redis), a room
another worker serves is never deleted under it, and rooms nobody has loaded still go."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from conftest import ClusterEnv
from server_harness import Workers, connect_seat, open_room

from spieltisch.server.store import Store

HUMAN = {"kind": "human"}
KEEP = 3.0
"""Seconds an abandoned room is kept (the workers' keep_abandoned_days)."""


@pytest.fixture
def workers(cluster_env: ClusterEnv, tmp_path: Any) -> Iterator[Workers]:
    w = Workers(cluster_env.database, cluster_env.redis, cluster_env.prefix, 2, log=tmp_path / "w.log")
    w.options["limits"] = {"keep_abandoned_days": KEEP / 86400, "keep_finished_days": KEEP / 86400}
    w.options["room_idle"] = 1.0  # a room nobody uses leaves memory after 1 s; sweeps every 0.25 s
    try:
        w.start_all()
        yield w
    finally:
        w.close()


def test_a_room_another_worker_serves_never_expires_under_it(
    workers: Workers, cluster_env: ClusterEnv
) -> None:
    with workers.client(1) as client:
        served, _ = open_room(client, "scout", [HUMAN, HUMAN, HUMAN], 1)  # worker 1 owns it
        left, _ = open_room(client, "scout", [HUMAN, HUMAN, HUMAN], 2)  # and nobody watches this one
    store = Store(cluster_env.database, prefix=cluster_env.prefix)
    try:
        # Somebody watches the first room on worker 1 (so it stays in its memory) and
        # nobody makes a move: after KEEP s both rooms are old enough to expire. Worker 0
        # has neither in memory.
        with connect_seat(workers.url(1, served)) as ws:
            ws.recv(timeout=5)
            deadline = time.monotonic() + KEEP + 10
            while store.exists(left):
                assert time.monotonic() < deadline, "an abandoned room nobody has loaded did not expire"
                time.sleep(0.2)
            time.sleep(1.0)  # several more sweeps, by both workers
            assert store.exists(served), "a room worker 1 serves was expired under it"
            with redis.Redis.from_url(cluster_env.redis, decode_responses=True) as r:
                sweeper = r.get(f"{cluster_env.prefix}spieltisch:sweep")
            assert sweeper is not None and sweeper.split("-")[0] in ("w0", "w1")  # one at a time
        # Let go on worker 1 (nobody connected, forgotten after 1 s): now it expires too.
        deadline = time.monotonic() + KEEP + 10
        while store.exists(served):
            assert time.monotonic() < deadline, "a room nobody uses any more did not expire"
            time.sleep(0.2)
    finally:
        store.close()
