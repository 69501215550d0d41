"""Per-address limits counted across every worker of a cluster (docs/deploy.md): sockets,
rooms, misses, and the accounts made (``accounts_per_hour``)."""

from __future__ import annotations

import contextlib
import uuid
from typing import TYPE_CHECKING

from redis.exceptions import RedisError

from spieltisch.server.accounts import SIGNUP_WINDOW, AccountError, Signups
from spieltisch.server.cluster.keys import (
    LOCKED,
    MISS,
    NO_REDIS,
    OPEN_SOCKET,
    RECENT,
    SOCKETS_TTL,
    TAKE,
    TAKE_ROOM,
    WAITING,
)
from spieltisch.server.limits import Addresses, CountUnavailable, Limits

if TYPE_CHECKING:
    from spieltisch.server.cluster.worker import Cluster


class SharedAddresses(Addresses):
    """Per-address limits counted across every worker: ``sockets_per_address`` (each
    worker keeps its own count of an address's sockets in the hash ``sockets:ADDRESS``,
    and a new socket is refused when the live workers' counts together reach the limit),
    ``rooms_per_minute`` (a sliding window of the last minute in ``rooms_by:ADDRESS``,
    on Redis's clock), ``misses_per_hour`` and ``room_misses_per_hour`` (sliding windows
    of the last hour in ``misses:ADDRESS`` and ``room_misses:CODE``), so that an attacker
    cannot multiply a budget by the number of workers. ``messages_per_second`` stays per
    worker: a Redis request per message would cost more than the message.

    A worker that cannot reach Redis fails closed: it refuses new sockets and rooms
    (:class:`~spieltisch.server.limits.CountUnavailable`) instead of letting them through
    uncounted - it could not acknowledge a move then anyway, and the client reconnects to
    another worker; it refuses room requests too when it cannot read an address's misses.
    A miss that cannot be written is not counted (nor refused). A close that could not be
    counted is counted again with the address's next socket here (each worker writes its
    whole count, never a difference)."""

    def __init__(self, limits: Limits, cluster: Cluster) -> None:
        super().__init__(limits)
        self.cluster = cluster
        self._open = cluster.redis.register_script(OPEN_SOCKET)
        self._room = cluster.redis.register_script(TAKE_ROOM)
        self._miss = cluster.redis.register_script(MISS)
        self._locked = cluster.redis.register_script(LOCKED)

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
                keys=[cluster.keys.sockets(address), cluster.keys.recent],
                args=[cluster.id, mine, limit, SOCKETS_TTL * 1000, RECENT],
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

    async def locked_out_async(self, address: str) -> float | None:
        limit = self.limits.misses_per_hour
        if not limit:
            return None
        try:
            wait = await self._locked(keys=[self.cluster.keys.misses(address)], args=[limit])
        except (RedisError, OSError) as exc:
            raise CountUnavailable(NO_REDIS) from exc
        return float(wait) if wait else None

    async def _count(self, key: str, limit: int) -> tuple[float | None, int]:
        """A miss in ``key``: the wait if it is refused, and the count (none counted: ``None, 0``)."""
        try:
            wait, count = await self._miss(keys=[key], args=[limit, uuid.uuid4().hex])
        except (RedisError, OSError):
            return None, 0
        return (float(wait) if wait else None), int(count)

    async def miss_async(self, address: str) -> None:
        if self.limits.misses_per_hour:
            await self._count(self.cluster.keys.misses(address), self.limits.misses_per_hour)

    async def room_miss_async(self, code: str) -> float | None:
        limit = self.limits.room_misses_per_hour
        if not limit:
            return None
        wait, count = await self._count(self.cluster.keys.room_misses(code), limit)
        if wait is None and count == limit:
            self.room_locked(code)
        return wait


class SharedSignups(Signups):
    """``accounts_per_hour`` counted across every worker: a sliding window of the last hour
    in the sorted set ``signups:ADDRESS`` (Redis's clock), so that an address cannot make
    ``accounts_per_hour`` accounts on each worker. A sign-up takes its place atomically
    (:data:`~spieltisch.server.cluster.keys.TAKE`), so two at once on two workers cannot
    both pass; one whose account could not be made (a name that is taken) is taken out
    again. A worker that cannot reach Redis refuses sign-ups (``503``) instead of letting
    them through uncounted."""

    def __init__(self, per_hour: int, cluster: Cluster) -> None:
        super().__init__(per_hour)
        self.cluster = cluster
        self._take = cluster.redis.register_script(TAKE)
        self._waiting = cluster.redis.register_script(WAITING)

    async def wait(self, address: str) -> float | None:
        if not self.per_hour:
            return None
        try:
            wait = await self._waiting(
                keys=[self.cluster.keys.signups(address)], args=[self.per_hour, SIGNUP_WINDOW]
            )
        except (RedisError, OSError) as exc:
            raise AccountError(503, NO_REDIS) from exc
        return float(wait) if wait else None

    async def take(self, address: str) -> object:
        token = uuid.uuid4().hex
        if not self.per_hour:
            return token
        try:
            wait = await self._take(
                keys=[self.cluster.keys.signups(address)], args=[self.per_hour, token, SIGNUP_WINDOW]
            )
        except (RedisError, OSError) as exc:
            raise AccountError(503, NO_REDIS) from exc
        if wait:
            raise self.refused(float(wait))
        return token

    async def give_back(self, address: str, token: object) -> None:
        if self.per_hour:
            with contextlib.suppress(RedisError, OSError):  # then it counts for the hour
                await self.cluster.redis.zrem(self.cluster.keys.signups(address), str(token))
