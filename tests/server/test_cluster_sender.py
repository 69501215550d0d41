"""A worker's one sender to Redis (docs/deploy.md, "How the workers share the rooms"):
everything it publishes goes out in the order it was queued, what queued up meanwhile in
one pipeline, and a forwarded command learns how many workers received it - or that Redis
could not be reached, so that the move is refused, not left waiting."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace
from typing import Any, cast

import pytest
import redis.asyncio as aioredis
from conftest import ClusterEnv
from redis.exceptions import RedisError

from spieltisch.server.cluster import Cluster
from spieltisch.server.command_path import Rooms


def make_cluster(url: str, prefix: str) -> Cluster:
    worker = Cluster(url, prefix=prefix, lease_ttl=0.6, tick=0.1, name="sender")
    worker.bind(cast(Rooms, SimpleNamespace(rooms={})))
    return worker


async def received(pubsub: Any, n: int, timeout: float = 5.0) -> list[bytes]:
    got: list[bytes] = []
    deadline = time.monotonic() + timeout
    while len(got) < n and time.monotonic() < deadline:
        msg = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.1)
        if msg is not None:
            got.append(msg["data"])
    return got


def test_messages_go_out_in_order_and_a_counted_one_says_who_received_it(cluster_env: ClusterEnv) -> None:
    async def main() -> tuple[list[bytes], list[Any]]:
        worker = make_cluster(cluster_env.redis, cluster_env.prefix)
        listener = aioredis.Redis.from_url(cluster_env.redis)
        pubsub = listener.pubsub()
        channel = f"{cluster_env.prefix}spieltisch:room:ORDER"
        await pubsub.subscribe(channel)
        sender = asyncio.create_task(worker.sender.run())
        try:
            counted = []
            for i in range(300):  # more than one pipeline's worth (MAX_BATCH)
                if i % 50 == 7:
                    counted.append(worker.sender.publish_counted(channel, {"i": i}))
                else:
                    worker.sender.publish(channel, {"i": i})
            nobody = f"{cluster_env.prefix}spieltisch:worker:nobody"
            counted.append(worker.sender.publish_counted(nobody, {"i": -1}))
            results = await asyncio.wait_for(asyncio.gather(*counted), 10)
            got = await received(pubsub, 300)
        finally:
            sender.cancel()
            await pubsub.aclose()
            await listener.aclose()
            await worker.stop()
        return got, results

    got, results = asyncio.run(main())
    assert [int(m.split(b":")[1].rstrip(b"}")) for m in got] == list(range(300))
    assert results == [1] * 6 + [0]  # one listener on the room; nobody on the dead worker's channel


def test_a_counted_message_fails_when_redis_is_unreachable(cluster_env: ClusterEnv) -> None:
    async def main() -> None:
        worker = make_cluster("redis://127.0.0.1:1/0", cluster_env.prefix)  # nothing listens there
        sender = asyncio.create_task(worker.sender.run())
        try:
            future = worker.sender.publish_counted("anywhere", {"t": "req"})
            with pytest.raises((RedisError, OSError)):
                await asyncio.wait_for(future, 10)
            # The sender goes on: the next message fails the same way, it does not hang.
            with pytest.raises((RedisError, OSError)):
                await asyncio.wait_for(worker.sender.publish_counted("anywhere", {"t": "req"}), 10)
        finally:
            sender.cancel()
            await worker.stop()

    asyncio.run(main())
