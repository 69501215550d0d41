"""A worker's one sender to Redis: everything goes out in the order it was queued."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import orjson
import redis.asyncio as aioredis
from redis.exceptions import RedisError

from spieltisch.server.cluster.keys import MAX_BATCH

log = logging.getLogger("spieltisch.server.cluster")

Command = tuple[str, tuple[Any, ...], asyncio.Future[Any] | None]
"""A command for the sender (:meth:`Sender.run`): a method of a pipeline, its
arguments, and the future for its result (``None``: nobody waits for it)."""


class Sender:
    """What a worker sends to Redis (forwards too), in order; what queued up meanwhile goes
    in one pipeline (:meth:`run` is the worker's task that sends it)."""

    def __init__(self, redis: aioredis.Redis, worker: str) -> None:
        self.redis = redis
        self.worker = worker
        self.outbox: asyncio.Queue[Command | Callable[[], Awaitable[Any]]] = asyncio.Queue()
        """What goes to Redis in order: commands (:data:`Command`) and work."""

    def later(self, work: Callable[[], Awaitable[Any]]) -> None:
        """Run ``work`` after everything queued before it (one sender keeps the order)."""
        self.outbox.put_nowait(work)

    def send(self, name: str, *args: Any) -> None:
        """Send the Redis command ``name`` after everything queued before it."""
        self.outbox.put_nowait((name, args, None))

    def publish(self, channel: str, msg: Mapping[str, Any]) -> None:
        """Publish ``msg`` after everything queued before it."""
        self.outbox.put_nowait(("publish", (channel, orjson.dumps(msg)), None))

    def publish_counted(self, channel: str, msg: Mapping[str, Any]) -> asyncio.Future[Any]:
        """:meth:`publish`; the future tells how many workers received it (or the Redis error)."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.outbox.put_nowait(("publish", (channel, orjson.dumps(msg)), future))
        return future

    async def run(self) -> None:
        """The one sender: what queued up meanwhile goes at once, the commands in one pipeline
        (a forwarded command too: one round trip to Redis for all that were waiting)."""
        while True:
            batch = [await self.outbox.get()]
            while not self.outbox.empty() and len(batch) < MAX_BATCH:
                batch.append(self.outbox.get_nowait())
            commands: list[Command] = []
            for item in [*batch, None]:
                if isinstance(item, tuple):
                    commands.append(item)
                    continue
                if commands:
                    sent, commands = commands, []
                    await self._execute(sent)
                if item is None:
                    continue
                try:
                    await item()
                except (RedisError, OSError) as exc:
                    log.debug("worker %s: a message to Redis was lost: %s", self.worker, exc)
                except Exception:
                    log.exception("worker %s: sending to Redis failed", self.worker)

    async def _execute(self, commands: list[Command]) -> None:
        """Send ``commands`` in one pipeline; each one's future, if any, gets its result."""
        try:
            pipe = self.redis.pipeline(transaction=False)
            for name, args, _ in commands:
                getattr(pipe, name)(*args)
            results = await pipe.execute()
        except Exception as exc:
            if isinstance(exc, RedisError | OSError):  # the others resync when they notice the gap
                log.debug("worker %s: a message to Redis was lost: %s", self.worker, exc)
            else:
                log.exception("worker %s: sending to Redis failed", self.worker)
            for *_, future in commands:
                if future is not None and not future.done():
                    future.set_exception(exc)
            return
        for (*_, future), result in zip(commands, results, strict=True):
            if future is not None and not future.done():
                future.set_result(result)
