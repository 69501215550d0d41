"""Per-address limits counted across every worker of a cluster (docs/deploy.md)."""

from __future__ import annotations

import contextlib
import uuid
from typing import TYPE_CHECKING

from redis.exceptions import RedisError

from spieltisch.server.cluster.keys import NO_REDIS, OPEN_SOCKET, SOCKETS_TTL, TAKE_ROOM
from spieltisch.server.limits import Addresses, CountUnavailable, Limits

if TYPE_CHECKING:
    from spieltisch.server.cluster.worker import Cluster


class SharedAddresses(Addresses):
    """Per-address limits counted across every worker: ``sockets_per_address`` (each
    worker keeps its own count of an address's sockets in the hash ``sockets:ADDRESS``,
    and a new socket is refused when the live workers' counts together reach the limit)
    and ``rooms_per_minute`` (a sliding window of the last minute in ``rooms_by:ADDRESS``,
    on Redis's clock). ``messages_per_second`` stays per worker: a Redis request per
    message would cost more than the message.

    A worker that cannot reach Redis fails closed: it refuses new sockets and rooms
    (:class:`~spieltisch.server.limits.CountUnavailable`) instead of letting them through
    uncounted - it could not acknowledge a move then anyway, and the client reconnects to
    another worker. A close that could not be counted is counted again with the address's
    next socket here (each worker writes its whole count, never a difference)."""

    def __init__(self, limits: Limits, cluster: Cluster) -> None:
        super().__init__(limits)
        self.cluster = cluster
        self._open = cluster.redis.register_script(OPEN_SOCKET)
        self._room = cluster.redis.register_script(TAKE_ROOM)

    async def open_socket_async(self, address: str) -> bool:
        if not self.open_socket(address):  # this worker's count alone is over
            return False
        limit = self.limits.sockets_per_address
        if not limit:
            return True
        cluster = self.cluster
        mine = self.sockets(address)
        try:
            ok = await self._open(
                keys=[self.cluster.keys.sockets(address)],
                args=[cluster.id, mine, limit, SOCKETS_TTL * 1000, *cluster.recent],
            )
        except (RedisError, OSError) as exc:
            self.close_socket(address)
            raise CountUnavailable(NO_REDIS) from exc
        if not ok:
            self.close_socket(address)
            return False
        return True

    async def close_socket_async(self, address: str) -> None:
        self.close_socket(address)
        if not self.limits.sockets_per_address:
            return
        key, mine = self.cluster.keys.sockets(address), self.sockets(address)
        with contextlib.suppress(RedisError, OSError):  # the next socket here writes it again
            if mine:
                await self.cluster.redis.hset(key, self.cluster.id, mine)
            else:
                await self.cluster.redis.hdel(key, self.cluster.id)

    async def take_room_async(self, address: str) -> float | None:
        limit = self.limits.rooms_per_minute
        if not limit:
            return None
        try:
            wait = await self._room(
                keys=[self.cluster.keys.rooms_by(address)], args=[limit, uuid.uuid4().hex]
            )
        except (RedisError, OSError) as exc:
            raise CountUnavailable(NO_REDIS) from exc
        return float(wait) if wait else None
