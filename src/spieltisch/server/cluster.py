"""Many workers on one database: room leases in Redis, forwarded commands, fan-out.

``spieltisch serve --redis redis://...`` makes a server one *worker* of
several that share a PostgreSQL database and a Redis server. Any worker
accepts any client for any room; the game stays a single serial owner's
(docs/deploy.md, "How the workers share the rooms"):

- **Ownership.** Exactly one worker owns a room at a time: it holds the room's
  *lease*, a Redis key ``lease:CODE`` whose value names the worker and a
  fencing token (``INCR fence:CODE``), set with ``SET NX PX`` and renewed by
  its owner every :data:`TICK` seconds - from a thread of its own
  (:class:`_Renewer`, a synchronous Redis client), so that an event loop that
  falls behind under load does not let its leases lapse. The owner runs the
  room's bots and is the only one that appends to its action log. It stops
  writing as soon as it cannot be sure it still holds the lease
  (:meth:`Cluster.check_write`: last renewed ``lease_ttl - MARGIN`` s ago or
  longer), so a worker cut from Redis refuses moves (``unavailable``) instead
  of acknowledging them. A worker whose event loop is stuck for
  :data:`LOOP_STALL` s stops renewing, so its rooms go to the others. The primary
  key ``(room, idx)`` of the ``actions`` table is the last fence: two owners
  can never both store the same index of a log.
- **Takeover.** Every unfinished room is in the set ``rooms``; each worker
  looks twice a tick for rooms without a lease and takes those whose
  rendezvous hash picks it among the live workers (anyone takes a room left
  free for :data:`GRACE_TICKS` ticks), at most :data:`CLAIM_BATCH` rooms at a
  time, so that a worker that starts or comes back does not starve its event
  loop by taking every room at once. A killed worker's leases expire after
  ``lease_ttl`` s, so its rooms have a new owner, which reloads them from the
  database and starts their bots, within about ``lease_ttl + TICK`` s.
- **Forwarding.** A command reaching a worker that does not own the room is
  published to the owner's channel ``worker:ID``; the owner runs it through
  :meth:`Room.act` (the one command path, under the room's lock) and answers
  on the sender's channel - a move that was stored by its append on the room's
  channel, which names the request (``by``), so a forwarded move costs no
  message of its own back. A room nobody owns is taken by the worker that
  needs it. Everything a worker sends to Redis (forwards too) goes through one
  sender, in order, what queued up meanwhile in one pipeline.
- **Fan-out.** Every worker with a room in memory keeps a replica of it
  (seed and action log, replayed by the engine) and follows the room's
  channel ``room:CODE`` (every worker subscribes to the pattern ``room:*``
  and drops, unread, the messages of rooms it does not have). The owner publishes every durable append
  there; the other workers apply it to their replica and send their own
  connections their own views (so no view crosses Redis, only action texts).
  A worker that misses a message (a version gap, a reconnection) reloads the
  room from the database.
- **Presence.** Each worker publishes which seats are connected to it
  (``presence`` on the room's channel and the hash ``presence:CODE``), so the
  ``connected`` flags count every worker.

Every key and channel starts with the cluster's prefix, so several sets of
workers (or tests) can share one Redis.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import itertools
import logging
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
import orjson
import redis
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from redis.retry import Retry

from spieltisch.engine import IllegalActionError, RulesError
from spieltisch.server.codes import normalize_code
from spieltisch.server.command_path import Rooms, execute
from spieltisch.server.commands import Command, Move, decode, encode, result_from_json, unavailable
from spieltisch.server.connection import Connection
from spieltisch.server.errors import CommandError, RoomError
from spieltisch.server.limits import Addresses, CountUnavailable, Limits
from spieltisch.server.room import Room
from spieltisch.server.store import RoomRow

log = logging.getLogger("spieltisch.server.cluster")

LEASE_TTL = 1.0
"""Seconds a lease lives in Redis unless renewed (a killed owner's rooms wait this long)."""
TICK = 0.2
"""Seconds between two renewals of the leases and two looks for rooms without an owner."""
MARGIN = 0.2
"""An owner stops writing this many seconds before its lease could expire in Redis."""
GRACE_TICKS = 2
"""A room its rendezvous worker has not taken after this many ticks is taken by anyone."""
FORWARD_TIMEOUT = 5.0
"""Seconds a forwarded command waits for the owner's answer."""
ROUTE_FOR = 3.0
"""Seconds a command looks for the room's owner (a takeover takes about ``LEASE_TTL``)."""
CLAIM_BATCH = 16
"""Most rooms a worker is taking over at a time (each is reloaded from the database)."""
LOOP_STALL = 30.0
"""Seconds after which a worker whose event loop has not run stops renewing its leases."""

REDIS_CONNECTIONS = 64
"""Most connections a worker opens to Redis (its subscription apart)."""
MAX_BATCH = 256
"""Most messages a worker sends to Redis in one pipeline."""
OWNER_CACHE = 10.0
"""Seconds a worker believes the owner it read for a room, or that published its last move:
never for a write (the owner checks its lease); a forward to a dead owner finds nobody
listening and one to a worker that gave the room up is answered ``moved``, and then the
sender reads the lease again at once."""
DRAIN_WAIT = 2.0
"""Seconds a stopping worker waits for a room's command in progress before it gives the room up."""
STOP_WAIT = 2.0
"""Seconds a stopping worker waits for each of its cluster tasks and its renewal thread."""
HANDOFF_AFTER = 1.0
"""Seconds a room's owner has had none of the room's people connected while another live
worker had them, steadily the same one, before it hands the room over to that worker."""
HANDOFF_AGAIN = 10.0
"""Seconds after a room came to a worker by a handoff before that worker may hand it on
(no ping-pong of a room whose people move about)."""
HANDOFF_BATCH = 16
"""Most rooms a worker is handing over at a time."""

NO_REDIS = "the server cannot reach Redis right now; nothing changed, try again"

_ACQUIRE = """
if redis.call('exists', KEYS[1]) == 1 then return 0 end
local token = redis.call('incr', KEYS[2])
redis.call('set', KEYS[1], ARGV[1] .. ':' .. token, 'px', ARGV[2])
return token
"""
_RENEW = """
local renewed = {}
for i, key in ipairs(KEYS) do
  if redis.call('get', key) == ARGV[i + 1] then renewed[i] = redis.call('pexpire', key, ARGV[1])
  else renewed[i] = 0 end
end
return renewed
"""
"""Renew the leases KEYS whose values are still ARGV[2..] (this worker's) for ARGV[1] ms:
1 for each renewed, 0 for each lost - every lease of a worker in one call."""
RENEW_CHUNK = 1000
"""Most leases renewed by one call of :data:`_RENEW` (Redis runs nothing else meanwhile)."""
_FREE = """
local free = {}
for _, code in ipairs(redis.call('smembers', KEYS[1])) do
  if redis.call('exists', ARGV[1] .. code) == 0 then free[#free + 1] = code end
end
return free
"""
"""The rooms of the set KEYS[1] that have no lease (key ARGV[1] .. CODE): only those cross
to the worker, not every room and its lease."""
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
"""

_HANDOFF = """
if redis.call('get', KEYS[1]) ~= ARGV[1] then return 0 end
local token = redis.call('incr', KEYS[2])
local value = ARGV[2] .. ':' .. token
redis.call('set', KEYS[1], value, 'px', ARGV[3])
redis.call('incr', KEYS[4])
redis.call('publish', KEYS[3], cjson.encode({
  t = 'handoff', room = ARGV[4], ['from'] = ARGV[5], value = value, token = token, v = tonumber(ARGV[6])
}))
return token
"""
"""Hand the lease KEYS[1] over, if it is still ARGV[1] (this worker's), to the worker ARGV[2]
with a new fencing token (INCR KEYS[2]) for ARGV[3] ms, and tell that worker on its channel
KEYS[3] (room ARGV[4], from ARGV[5], at version ARGV[6]); count it in KEYS[4]. 0: the lease
was not this worker's any more (nothing changed)."""

_OPEN_SOCKET = """
local total = tonumber(ARGV[2])
local live = {}
for i = 5, #ARGV do live[ARGV[i]] = true end
local counts = redis.call('hgetall', KEYS[1])
for i = 1, #counts, 2 do
  if counts[i] ~= ARGV[1] then
    if live[counts[i]] then total = total + tonumber(counts[i + 1])
    else redis.call('hdel', KEYS[1], counts[i]) end
  end
end
if total > tonumber(ARGV[3]) then return 0 end
redis.call('hset', KEYS[1], ARGV[1], ARGV[2])
redis.call('pexpire', KEYS[1], ARGV[4])
return 1
"""
"""One more socket of an address on worker ARGV[1] (which then has ARGV[2]), unless its
sockets on the workers seen lately (ARGV[5..]) would be over ARGV[3]; the count of a
worker not seen for :data:`RECENT` s (dead) goes."""
_TAKE_ROOM = """
local t = redis.call('time')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
redis.call('zremrangebyscore', KEYS[1], '-inf', now - 60)
if redis.call('zcard', KEYS[1]) >= tonumber(ARGV[1]) then
  local oldest = redis.call('zrange', KEYS[1], 0, 0, 'withscores')
  return tostring(60 - (now - tonumber(oldest[2])))
end
redis.call('zadd', KEYS[1], now, ARGV[2])
redis.call('pexpire', KEYS[1], 61000)
return ''
"""
"""A room opened by an address in the last minute (Redis's clock: one for all workers),
unless it opened ARGV[1] already; else the seconds until it may (a string: Lua numbers
would be cut to integers)."""
SOCKETS_TTL = 86400
"""Seconds an address's socket counts live in Redis after its last new socket."""
RECENT = 60.0
"""Seconds after its last heartbeat that a worker's socket counts still count (and are
then dropped): longer than a heartbeat, which may lapse on a loaded machine."""

_Command = tuple[str, tuple[Any, ...], asyncio.Future[Any] | None]
"""A command for the sender (:meth:`Cluster._publish_loop`): a method of a pipeline, its
arguments, and the future for its result (``None``: nobody waits for it)."""

_origin: ContextVar[list[Any] | None] = ContextVar("spieltisch_cluster_origin", default=None)
"""``[worker, request]`` of the forwarded command being run (its ack travels with the append)."""


@dataclass
class Lease:
    """This worker's lease of one room."""

    value: str
    """``WORKER:TOKEN``, the value of the lease key."""
    token: int
    """The fencing token: grows with every new owner of the room."""
    renewed: float
    """``time.monotonic()`` when the last successful renewal (or the taking) was sent:
    the lease lives in Redis until at least ``renewed + lease_ttl``. Written by the
    renewal thread (one float: atomic), read by the event loop."""
    ready: bool = False
    """The room has been reloaded from the database since the lease was taken (and is not
    being handed over: :meth:`Cluster._hand_over` clears it first)."""
    handed_in: float | None = None
    """``time.monotonic()`` when the lease came by a handoff from another worker (``None``:
    taken): the room is not handed on before :data:`HANDOFF_AGAIN` s."""
    giving: bool = False
    """The handoff script for this lease is on its way (:meth:`Cluster._hand_over`): a
    renewal that finds the lease gone (the target has it now) is not a loss; the handoff
    deals with each outcome itself."""


class Moved(CommandError):
    """This worker does not own the room (any more, or not yet): nothing was done, and the
    command goes to the owner instead (or, out of time, is refused as ``unavailable``)."""

    def __init__(self, code: str) -> None:
        super().__init__("unavailable", f"this worker does not own room {code} now; try again")


class _Renewer:
    """The thread that renews a worker's leases and its heartbeat every ``tick`` s.

    It has a synchronous Redis client of its own and renews the leases the event loop
    handed it (:meth:`hold`, :meth:`drop`: under a lock, so it always renews a consistent
    snapshot); a renewal records its time in :attr:`Lease.renewed`. What the loop must
    act on - a lease found lost, the live workers, whether Redis answered - goes back
    to the loop with ``call_soon_threadsafe``. If the loop has not run for
    :data:`LOOP_STALL` s (:meth:`pulse`), it renews nothing: a stuck worker's rooms go
    to the others.
    """

    def __init__(
        self,
        cluster: Cluster,
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        self.cluster = cluster
        self.loop = loop
        self.redis: redis.Redis = redis.Redis.from_url(
            cluster.url,
            decode_responses=True,
            socket_connect_timeout=1.0,
            socket_timeout=2.0,
            retry=Retry(NoBackoff(), 0),
        )
        self.script = self.redis.register_script(_RENEW)
        self._lock = threading.Lock()
        self._held: dict[str, Lease] = {}
        self._stop = threading.Event()
        self._pulse = time.monotonic()
        self._reachable = True
        self._stalled = False
        self.leaving = False
        """The worker is stopping: no more heartbeats (the others stop counting it at once)."""
        self.thread = threading.Thread(target=self._run, name=f"lease-renewer-{cluster.id}", daemon=True)

    def hold(self, code: str, lease: Lease) -> None:
        """Renew ``lease`` from now on."""
        with self._lock:
            self._held[code] = lease

    def drop(self, code: str, lease: Lease | None = None) -> None:
        """Renew the lease of ``code`` no more (only if it is ``lease``, if given)."""
        with self._lock:
            if lease is None or self._held.get(code) is lease:
                self._held.pop(code, None)

    def pulse(self) -> None:
        """The event loop ran just now."""
        self._pulse = time.monotonic()

    def start(self) -> None:
        self.thread.start()

    def halt(self) -> None:
        """Renew nothing more (from the event loop: it does not wait)."""
        self._stop.set()

    def stop(self) -> None:
        """Renew nothing more; wait for the thread (at most one request's timeout)."""
        self._stop.set()
        if self.thread.is_alive():
            self.thread.join(timeout=5.0)
        with contextlib.suppress(Exception):
            self.redis.close()

    def _run(self) -> None:
        tick = self.cluster.tick
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                self.renew()
            except Exception:  # the thread must go on: check_write refuses meanwhile
                log.exception("worker %s: renewing the leases failed", self.cluster.id)
            self._stop.wait(max(0.0, tick - (time.monotonic() - started)))

    def renew(self) -> None:
        """One round: the heartbeat and every lease held, in one pipeline."""
        cluster = self.cluster
        started = time.monotonic()
        if started - self._pulse > LOOP_STALL:
            if not self._stalled:  # say it once
                log.error("worker %s: its event loop is stuck; renewing nothing", cluster.id)
                self._stalled = True
            return
        self._stalled = False
        with self._lock:
            leases = list(self._held.items())
        now = time.time()
        ttl = int(cluster.lease_ttl * 1000)
        try:
            pipe = self.redis.pipeline(transaction=False)
            if self.leaving:
                pipe.zrem(cluster._workers_key, cluster.id)
            else:
                pipe.zadd(cluster._workers_key, {cluster.id: now + cluster.lease_ttl + cluster.tick})
            pipe.zremrangebyscore(cluster._workers_key, "-inf", now)
            pipe.zrange(cluster._workers_key, 0, -1)
            pipe.zadd(cluster._recent_key, {cluster.id: now})
            pipe.zremrangebyscore(cluster._recent_key, "-inf", now - RECENT)
            pipe.zrange(cluster._recent_key, 0, -1)
            for i in range(0, len(leases), RENEW_CHUNK):
                chunk = leases[i : i + RENEW_CHUNK]
                keys = [cluster._lease_key(code) for code, _ in chunk]
                self.script(keys=keys, args=[ttl, *(lease.value for _, lease in chunk)], client=pipe)
            _, _, live, _, _, recent, *chunks = pipe.execute()
            renewed = [ok for chunk_renewed in chunks for ok in chunk_renewed]
        except (RedisError, OSError) as exc:
            if self._reachable:
                self._reachable = False
                self._tell(cluster._unreachable, str(exc))
            return
        # A lease whose validity ran out here is not given up: writes wait (check_write
        # refuses them) until a renewal finds it still ours, or lost (then _lost).
        lost = []
        for (code, lease), ok in zip(leases, renewed, strict=True):
            if ok:
                lease.renewed = started
            else:
                lost.append((code, lease))
                self.drop(code, lease)
        self._reachable = True
        cluster.recent = sorted(map(str, recent))  # (one reference: read by the loop as it is)
        self._tell(cluster._renewed, sorted(map(str, live)), lost)

    def _tell(self, callback: Callable[..., None], *args: Any) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: the worker is gone
            self.loop.call_soon_threadsafe(callback, *args)


class Cluster:
    """This worker's part of the cluster: its leases, its subscriptions, its forwarded commands.
    The owner (:class:`~spieltisch.server.owner.Owner`) of the rooms of its directory (:meth:`bind`)."""

    directory: Rooms
    """The rooms of this worker (:meth:`bind`)."""

    def __init__(
        self,
        url: str,
        prefix: str = "",
        lease_ttl: float = LEASE_TTL,
        tick: float = TICK,
        name: str = "",
    ) -> None:
        if lease_ttl <= MARGIN + tick:
            raise ValueError(f"lease_ttl must be over {MARGIN + tick:g} s (the margin and one tick)")
        self.url = url
        self.id = f"{name}-{uuid.uuid4().hex[:8]}" if name else uuid.uuid4().hex[:12]
        """This worker's name in Redis (``name``, made unique: a new one at every start)."""
        self.ns = f"{prefix}spieltisch:"
        self.lease_ttl = lease_ttl
        self.tick = tick
        # A bounded pool: under load, commands wait for a connection (up to 2 s) instead of
        # opening ever more of them.
        pool = aioredis.BlockingConnectionPool.from_url(
            url,
            max_connections=REDIS_CONNECTIONS,
            timeout=2.0,
            decode_responses=True,
            socket_connect_timeout=1.0,
            socket_timeout=2.0,
            retry=AsyncRetry(NoBackoff(), 0),
        )
        self.redis: aioredis.Redis = aioredis.Redis(connection_pool=pool)
        # The first heartbeat on a connection of its own (the renewals have their thread's).
        self._control: aioredis.Redis = aioredis.Redis.from_url(
            url,
            decode_responses=True,
            socket_connect_timeout=1.0,
            socket_timeout=2.0,
            retry=AsyncRetry(NoBackoff(), 0),
            max_connections=2,
        )
        self._owners: dict[str, tuple[str, float]] = {}
        """Recently seen owners of rooms (worker, until when to believe it) - one GET less per move."""
        self._acquire_script = self.redis.register_script(_ACQUIRE)
        self._release_script = self.redis.register_script(_RELEASE)
        self._free_script = self.redis.register_script(_FREE)
        self._handoff_script = self.redis.register_script(_HANDOFF)
        self._renew_script = self.redis.register_script(_RENEW)
        self.leases: dict[str, Lease] = {}
        self.live: list[str] = [self.id]
        """The workers that renewed their heartbeat lately (this one included)."""
        self.recent: list[str] = [self.id]
        """The workers that renewed their heartbeat within :data:`RECENT` s: whose counts of
        sockets per address still count (a worker's heartbeat may lapse under load)."""
        self.reachable = False
        """Redis answered the last tick."""
        self._pubsub: Any = None
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._acks: dict[int, tuple[Connection | None, str | None]] = {}
        self._seq = itertools.count(1)
        self._outbox: asyncio.Queue[_Command | Callable[[], Awaitable[Any]]] = asyncio.Queue()
        """What goes to Redis in order: commands (:data:`_Command`) and work."""
        self._tasks: list[asyncio.Task[None]] = []
        self._free: dict[str, int] = {}
        self._presence: dict[str, dict[str, set[int]]] = {}
        self._gaining: set[str] = set()
        self._running: set[asyncio.Task[None]] = set()
        self._resyncing: set[str] = set()
        self._resync_again: set[str] = set()
        self._renewer: _Renewer | None = None
        self.draining = False
        """The worker is stopping (:meth:`drain`): it takes no room, and gives up those it has."""
        self._busy: dict[str, int] = {}
        """Changes other than moves (:meth:`_local`) running now, per room: a handoff waits for them."""
        self._watch: set[str] = set()
        """Rooms owned here whose people may have moved (presence, live workers): looked at
        by the next round of :meth:`_affinity_round`."""
        self._affinity: dict[str, tuple[str, float]] = {}
        """Rooms owned here whose people are all on another worker: that worker, and since when."""
        self._handing: set[str] = set()
        """Rooms being handed over (:meth:`_hand_over`)."""
        self.handoffs = 0
        """Rooms this worker handed over to another one."""
        self.handed_in = 0
        """Rooms this worker got by a handoff."""

    # -- names ---------------------------------------------------------------
    def _lease_key(self, code: str) -> str:
        return f"{self.ns}lease:{code}"

    def _fence_key(self, code: str) -> str:
        return f"{self.ns}fence:{code}"

    def _presence_key(self, code: str) -> str:
        return f"{self.ns}presence:{code}"

    def _stand_in_key(self, code: str) -> str:
        return f"{self.ns}stand_in:{code}"

    def _held_key(self, worker: str) -> str:
        return f"{self.ns}held:{worker}"

    @property
    def _sweep_key(self) -> str:
        return f"{self.ns}sweep"

    def _room_channel(self, code: str) -> str:
        return f"{self.ns}room:{code}"

    def _worker_channel(self, worker: str) -> str:
        return f"{self.ns}worker:{worker}"

    @property
    def _rooms_key(self) -> str:
        return f"{self.ns}rooms"

    @property
    def _handoffs_key(self) -> str:
        return f"{self.ns}handoffs"

    @property
    def _workers_key(self) -> str:
        return f"{self.ns}workers"

    @property
    def _recent_key(self) -> str:
        return f"{self.ns}recent"

    def addresses(self, limits: Limits) -> SharedAddresses:
        """The per-address counts of this worker, shared with the others (docs/deploy.md)."""
        return SharedAddresses(limits, self)

    # -- life ------------------------------------------------------------------
    async def start(self, unfinished: list[str]) -> None:
        """Join the cluster; every unfinished game of the database gets an owner."""
        await self._connect()
        self.reachable = True
        await self._heartbeat()
        for i in range(0, len(unfinished), 1000):
            await self.redis.sadd(self._rooms_key, *unfinished[i : i + 1000])
        self._renewer = _Renewer(self, asyncio.get_running_loop())
        for code, lease in self.leases.items():
            self._renewer.hold(code, lease)
        self._renewer.start()
        self._tasks = [
            asyncio.create_task(self._listen(), name="cluster-listen"),
            asyncio.create_task(self._pulse_loop(), name="cluster-pulse"),
            asyncio.create_task(self._claim_loop(), name="cluster-claim"),
            asyncio.create_task(self._publish_loop(), name="cluster-publish"),
            asyncio.create_task(self._affinity_loop(), name="cluster-affinity"),
        ]
        log.info("worker %s joined the cluster (%d unfinished game(s))", self.id, len(unfinished))

    async def stop(self) -> None:
        """Leave the cluster: give up every lease at once (others take the rooms over)."""
        for task in self._tasks:
            task.cancel()
        if self._tasks:  # (bounded: a stop must not hang on one of them)
            await asyncio.wait(self._tasks, timeout=STOP_WAIT)
        if self._renewer is not None:
            renewer, self._renewer = self._renewer, None
            renewer.halt()  # no renewal from now on, even if no thread is free to wait for it
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(STOP_WAIT):
                    await anyio.to_thread.run_sync(renewer.stop, abandon_on_cancel=True)
        leases, self.leases = self.leases, {}
        for code in leases:
            room = self.directory.rooms.get(code)
            if room is not None:
                await room.stop_owning()
        with contextlib.suppress(RedisError, OSError, TimeoutError):
            async with asyncio.timeout(2):
                pipe = self.redis.pipeline(transaction=False)
                for code, lease in leases.items():
                    await self._release_script(keys=[self._lease_key(code)], args=[lease.value], client=pipe)
                for code in self.directory.rooms:
                    pipe.hdel(self._presence_key(code), self.id)
                pipe.zrem(self._workers_key, self.id)
                pipe.zrem(self._recent_key, self.id)
                pipe.delete(self._held_key(self.id))
                await pipe.execute()
        with contextlib.suppress(Exception):
            if self._pubsub is not None:
                await self._pubsub.aclose()
        with contextlib.suppress(Exception):
            await self.redis.aclose()
        with contextlib.suppress(Exception):
            await self._control.aclose()

    async def drain(self) -> None:
        """The worker is stopping (SIGTERM): give every room up now instead of letting its
        lease expire. Each room's command in progress (its lock; at most :data:`DRAIN_WAIT`
        s) is committed first; then its bots and clock stop and its lease is released, so
        another worker takes it at its next look. From now on this worker takes no room,
        sends no heartbeat, and refuses writes (``unavailable``: the sender tries again, and
        finds the new owner)."""
        self.draining = True
        if self._renewer is not None:
            self._renewer.leaving = True
        await asyncio.gather(self._leave(), *(self._give_up(code) for code in list(self.leases)))
        log.info("worker %s: stopping; gave its rooms up", self.id)

    async def _leave(self) -> None:
        """No longer a live worker: the others pick owners among themselves at once."""
        with contextlib.suppress(RedisError, OSError, TimeoutError):
            async with asyncio.timeout(1):
                await self.redis.zrem(self._workers_key, self.id)

    async def _give_up(self, code: str) -> None:
        room = self.directory.rooms.get(code)
        lease = self.leases.get(code)
        if lease is None:
            return
        # Renewed no more, and every command not yet committing is refused from now on
        # (check_write); the lease in Redis stays until the commit in progress has ended.
        self._drop(code)
        if room is not None:
            try:
                async with asyncio.timeout(DRAIN_WAIT):
                    async with room.lock:
                        pass
            except TimeoutError:
                log.warning("room %s: a command still runs; giving it up anyway", code)
        with contextlib.suppress(RedisError, OSError, TimeoutError):
            async with asyncio.timeout(1):
                await self._release_script(keys=[self._lease_key(code)], args=[lease.value])
        if room is not None:
            await room.stop_owning()

    async def _connect(self) -> None:
        pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        # Every room's channel by one pattern: messages of rooms not in memory here are
        # dropped unread, and no subscription has to wait for the listener.
        await pubsub.subscribe(self._worker_channel(self.id))
        await pubsub.psubscribe(self._room_channel("*"))
        self._pubsub = pubsub

    async def _heartbeat(self) -> None:
        now = time.time()
        pipe = self._control.pipeline(transaction=False)
        pipe.zadd(self._workers_key, {self.id: now + self.lease_ttl + self.tick})
        pipe.zremrangebyscore(self._workers_key, "-inf", now)
        pipe.zrange(self._workers_key, 0, -1)
        pipe.zadd(self._recent_key, {self.id: now})
        pipe.zrange(self._recent_key, 0, -1)
        _, _, live, _, recent = await pipe.execute()
        self.recent = sorted(map(str, recent))
        self._set_live(sorted(live))

    def _set_live(self, live: list[str]) -> None:
        if self.id not in live:
            live = sorted([*live, self.id])
        if live == self.live:
            return
        self.live = live
        self._watch.update(self.leases)  # people on a worker that went, or came
        for code in list(self._presence):
            room = self.directory.rooms.get(code)
            if room is not None:
                self._update_elsewhere(room)

    # -- the owner of the directory's rooms -------------------------------------------
    def bind(self, directory: Rooms) -> None:
        self.directory = directory

    async def loaded(self, room: Room) -> None:
        """A room was loaded here: follow its changes (its owner, if any, goes on)."""
        try:
            pipe = self.redis.pipeline(transaction=False)
            if room.status != "over":
                pipe.sadd(self._rooms_key, room.code)
            pipe.sadd(self._held_key(self.id), room.code)  # in use here: never expired (sweep)
            pipe.hgetall(self._presence_key(room.code))
            *_, presence = await pipe.execute()
        except (RedisError, OSError) as exc:
            log.warning("room %s: Redis unreachable while loading: %s", room.code, exc)
            return
        known = self._presence.setdefault(room.code, {})
        for worker, seats in presence.items():  # a message that came meanwhile is newer
            known.setdefault(worker, set(orjson.loads(seats)))
        self._update_elsewhere(room, broadcast=False)
        self._resync_soon(room)  # what was appended between the load and now

    async def created(self, room: Room) -> None:
        """A room was created here: this worker owns it from the start."""
        lease = None
        try:
            # The lease first: a room in the set without one is another worker's to take.
            if not self.draining:  # (stopping: another worker takes it at its next look)
                lease = await self._acquire(room.code)
        except (RedisError, OSError) as exc:
            log.warning("room %s: Redis unreachable at creation: %s", room.code, exc)
        if lease is not None:
            lease.ready = True
            room.start_owning()
            self._watch.add(room.code)
        try:
            pipe = self.redis.pipeline(transaction=False)
            pipe.sadd(self._rooms_key, room.code)
            pipe.sadd(self._held_key(self.id), room.code)
            await pipe.execute()
        except (RedisError, OSError) as exc:  # a worker takes it over once Redis is back
            log.warning("room %s: Redis unreachable at creation: %s", room.code, exc)

    async def forgotten(self, room: Room) -> None:
        """A room left this worker's memory (idle): its owner lets it go too."""
        code = room.code
        lease = self._drop(code)
        self._presence.pop(code, None)
        with contextlib.suppress(RedisError, OSError):
            await self.redis.srem(self._held_key(self.id), code)
            if lease is not None:
                await self.redis.srem(self._rooms_key, code)
                await self._release_script(keys=[self._lease_key(code)], args=[lease.value])

    async def loading(self, code: str) -> None:
        """``code`` is about to be loaded here: in use from now on, so that no worker's
        sweep expires it between the load and :meth:`loaded`."""
        with contextlib.suppress(RedisError, OSError):
            await self.redis.sadd(self._held_key(self.id), code)

    async def not_loaded(self, code: str) -> None:
        """Loading ``code`` failed (no such room): not in use after all."""
        with contextlib.suppress(RedisError, OSError):
            await self.redis.srem(self._held_key(self.id), code)

    async def in_use(self, period: float) -> set[str] | None:
        """May this worker expire old rooms now? ``None``: no - another worker swept
        within ``period`` s (the lease ``sweep``: one sweep at a time in the cluster), or
        Redis cannot tell which rooms are in use (then nothing expires: a room another
        worker serves is never deleted under it). Otherwise the rooms in use anywhere:
        those with an owner, and those in the memory of a live worker."""
        try:
            taken = await self.redis.set(self._sweep_key, self.id, nx=True, px=max(1, int(period * 1000)))
            if not taken:
                return None
            pipe = self.redis.pipeline(transaction=False)
            for worker in self.live:
                pipe.smembers(self._held_key(worker))
            held = await pipe.execute()
            in_use = {str(c) for members in held for c in members}
            async for key in self.redis.scan_iter(match=self._lease_key("*"), count=1000):
                in_use.add(str(key).rsplit(":", 1)[1])
        except (RedisError, OSError) as exc:
            log.warning("worker %s: no sweep of old rooms now, Redis unreachable: %s", self.id, exc)
            return None
        return in_use

    # -- the hooks of Room --------------------------------------------------------------
    def check_write(self, room: Room) -> None:
        lease = self.leases.get(room.code)
        if lease is None or not lease.ready:
            raise Moved(room.code)
        if time.monotonic() - lease.renewed >= self.lease_ttl - MARGIN:
            raise CommandError("unavailable", NO_REDIS)

    def committed(
        self, room: Room, start: int, added: list[tuple[int, str]], status: str, by: str | None
    ) -> None:
        msg: dict[str, Any] = {
            "t": "add",
            "from": self.id,
            "v": start,
            "add": added,
            "status": status,
            "by_bot": by,
        }
        origin = _origin.get()
        if origin is not None:
            msg["by"] = origin
        self._publish(self._room_channel(room.code), msg)
        if status == "over":
            self._later(lambda: self._finished(room.code))

    def conflict(self, room: Room) -> bool:
        log.warning("room %s: another worker stored the next move; reloading", room.code)
        self._resync_soon(room)
        return True

    async def refresh(self, room: Room) -> None:
        await self._resync(room)

    def stand_ins(self, room: Room) -> None:
        """The owner's stand-ins changed: every worker shows them at once (and one that
        loads the room later reads them from ``stand_in:CODE``)."""
        if room.code not in self.leases:
            return  # a copy follows its owner's
        levels = {str(seat): level for seat, level in sorted(room.stand_in.items())}
        text = orjson.dumps(levels).decode()
        self._send("set", self._stand_in_key(room.code), text, 86400)
        self._publish(self._room_channel(room.code), {"t": "stand_in", "from": self.id, "seats": levels})

    def presence(self, room: Room) -> None:
        seats = sorted({c.seat for c in room.connections if c.seat is not None})
        key, code = self._presence_key(room.code), room.code
        if code in self.leases:
            self._watch.add(code)

        if seats:
            self._send("hset", key, self.id, orjson.dumps(seats).decode())
            self._send("expire", key, 86400)
        else:
            self._send("hdel", key, self.id)
        self._publish(self._room_channel(code), {"t": "presence", "from": self.id, "seats": seats})

    # -- commands -----------------------------------------------------------------
    async def run(self, command: Command, conn: Connection | None = None, ref: str | None = None) -> Any:
        """Run ``command`` on the owner of its room - here, or forwarded to the worker that
        owns it - and answer as if it ran here (a move's ack or error, on ``conn``)."""
        if isinstance(command, Move) and command.seat is None:  # refused before anything else
            return await execute(self.directory, command, conn, ref)
        try:
            return await self._route(command, conn, ref)
        except RoomError as exc:  # (no room to run it in) a socket's command is refused on it
            if command.over_http:
                raise
            raise CommandError("unavailable", exc.detail) from exc

    async def _route(self, command: Command, conn: Connection | None, ref: str | None) -> Any:
        code = normalize_code(command.room)
        deadline = time.monotonic() + ROUTE_FOR
        at_once = True
        entry: tuple[Connection | None, str | None] | None = None
        while True:
            try:
                owner = await self._owner(code)
                reply = None
                if owner == self.id:
                    try:
                        return await self._local(code, command, conn, ref)
                    except Moved:  # handed over (or lost) meanwhile: nothing done, find its owner
                        pass
                elif owner is not None:
                    req = next(self._seq)
                    if isinstance(command, Move):  # the ack travels with the owner's append
                        self._acks[req] = (conn, ref)
                    try:
                        reply = await self._forward(owner, code, command, req)
                    finally:
                        entry = self._acks.pop(req, None)
            except (RedisError, OSError) as exc:
                log.warning("room %s: Redis unreachable: %s", code, exc)
                raise unavailable(command, NO_REDIS) from exc
            except TimeoutError as exc:
                self._owners.pop(code, None)
                raise unavailable(
                    command, f"the worker that owns room {code} did not answer; try again"
                ) from exc
            if reply is not None and not reply.get("moved"):
                break
            self._owners.pop(code, None)
            if at_once:  # the owner believed may be out of date: read the lease again now
                at_once = False
                continue
            if time.monotonic() > deadline:
                raise unavailable(command, f"no worker could take room {code} over; try again")
            await asyncio.sleep(self.tick)
        return await self._answer(code, command, reply, entry, conn, ref)

    async def _answer(
        self,
        code: str,
        command: Command,
        reply: dict[str, Any],
        entry: tuple[Connection | None, str | None] | None,
        conn: Connection | None,
        ref: str | None,
    ) -> Any:
        """The owner's reply to a forwarded command, as if the command had run here."""
        if "room_error" in reply:
            status, detail = reply["room_error"]
            raise RoomError(int(status), str(detail))
        error = reply.get("error")
        if error is not None:
            if command.over_http:
                raise RoomError(503, str(error["message"]))
            if error["code"] == "stale":
                await self._resync(await self.directory.room(code))
            because = None
            if error.get("ruling") is not None:
                because = IllegalActionError(
                    error["ruling"], error["reason"], error["template"], error["params"]
                )
            raise CommandError(str(error["code"]), str(error["message"]), because)
        if isinstance(command, Move):
            if entry is not None:  # the owner's append has not reached the replica yet
                room = await self.directory.room(code)
                if room.version < reply["version"]:
                    await self._resync(room)
                if conn is not None:
                    room.send_state(conn, ref)
            return None
        if not command.over_http:  # taken back, left or ended there: the copy here reloads
            await self._resync(await self.directory.room(code))
        return result_from_json(command, reply.get("result"))

    async def _local(
        self, code: str, command: Command, conn: Connection | None = None, ref: str | None = None
    ) -> Any:
        """Run ``command`` on this owner's room (:class:`Moved` if it is not, or no longer, the
        owner). A move tells the others with its append; any other change makes them reload
        the room, and a handoff waits until it has ended and its ``reload`` is on its way."""
        lease = self.leases.get(code)
        if lease is None or not lease.ready:
            raise Moved(code)
        if isinstance(command, Move):
            return await execute(self.directory, command, conn, ref)
        self._busy[code] = self._busy.get(code, 0) + 1
        try:
            result = await execute(self.directory, command)
            self._publish(self._room_channel(code), {"t": "reload", "from": self.id})
        finally:
            left = self._busy.pop(code, 1) - 1
            if left:
                self._busy[code] = left
        return result

    async def _owner(self, code: str) -> str | None:
        """The worker that owns ``code`` (this one, if nobody did); ``None``: try again."""
        lease = self.leases.get(code)
        if lease is not None:
            return self.id if lease.ready else None
        known = self._owners.get(code)
        if known is not None and known[1] > time.monotonic():
            return known[0]
        value = await self.redis.get(self._lease_key(code))
        if value is not None:
            owner = str(value).split(":", 1)[0]
            self._owners[code] = (owner, time.monotonic() + OWNER_CACHE)
            return owner
        if self.draining:
            return None  # another worker takes it
        lease = await self._acquire(code)
        if lease is None:
            return None
        await self._gained(code, lease, keep_over=True)
        return self.id if code in self.leases else None

    async def _forward(self, owner: str, code: str, command: Command, req: int) -> dict[str, Any] | None:
        """Send a command to its owner; its reply, or ``None`` if that worker is gone."""
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[req] = future
        try:
            msg = {"t": "req", "from": self.id, "req": req, "room": code, "command": encode(command)}
            if isinstance(command, Move):  # answered by the room's add when stored, by a reply if not
                msg["by_add"] = True
            if not await self._publish_counted(self._worker_channel(owner), msg):
                return None  # nobody listens: the owner died, its lease will expire
            return await asyncio.wait_for(future, FORWARD_TIMEOUT)
        finally:
            self._pending.pop(req, None)

    async def _serve_request(self, msg: dict[str, Any]) -> None:
        """Run a command another worker forwarded here, and answer it."""
        code = str(msg["room"])
        reply: dict[str, Any] = {"t": "reply", "req": msg["req"]}
        lease = self.leases.get(code)
        if lease is None or not lease.ready:
            reply["moved"] = True
        else:
            token = _origin.set([msg["from"], msg["req"]])
            try:
                command = decode(msg["command"])
                result = await self._local(code, command)
                if isinstance(command, Move):
                    if msg.get("by_add"):  # the room's add names the request: that is the answer
                        return
                    reply["version"] = (await self.directory.room(code)).version
                else:
                    reply["result"] = result
            except Moved:  # being handed over: the sender asks the new owner
                reply["moved"] = True
            except CommandError as exc:
                error: dict[str, Any] = {"code": exc.code, "message": exc.message}
                if exc.because is not None:
                    b = exc.because
                    error.update(ruling=b.ruling, reason=b.reason, template=b.template, params=b.params)
                reply["error"] = error
            except RoomError as exc:
                reply["room_error"] = [exc.status, exc.detail]
            except Exception as exc:  # answered, so that the sender is not left waiting
                log.exception("room %s: a forwarded %s failed", code, msg["command"].get("kind"))
                reply["error"] = {"code": "internal", "message": f"the owner failed: {exc}"}
            finally:
                _origin.reset(token)
        self._publish(self._worker_channel(str(msg["from"])), reply)

    # -- leases ---------------------------------------------------------------------
    async def _acquire(self, code: str) -> Lease | None:
        started = time.monotonic()
        token = await self._acquire_script(
            keys=[self._lease_key(code), self._fence_key(code)], args=[self.id, int(self.lease_ttl * 1000)]
        )
        if not token:
            return None
        lease = Lease(f"{self.id}:{token}", int(token), started)
        self.leases[code] = lease
        if self._renewer is not None:
            self._renewer.hold(code, lease)
        return lease

    def _drop(self, code: str) -> Lease | None:
        """This worker no longer holds the lease of ``code`` (if it did): renew it no more."""
        lease = self.leases.pop(code, None)
        if lease is not None and self._renewer is not None:
            self._renewer.drop(code, lease)
        return lease

    async def _gained(self, code: str, lease: Lease, keep_over: bool = False) -> None:
        """This worker took the lease of ``code``: bring the room up to date and start its bots."""
        try:
            room = self.directory.rooms.get(code) or await self.directory.room(code)
            row = await anyio.to_thread.run_sync(self.directory.store.load, code)
            if row is None:
                raise RoomError(404, f"no room {code}")
            async with room.lock:
                if _differs(room, row):
                    room.reload(row)
                lease.ready = True
        except Exception as exc:
            log.warning("room %s: could not take it over: %s", code, exc)
            await self._let_go(code, lease, forget=isinstance(exc, RoomError) and exc.status == 404)
            return
        if room.status == "over" and not keep_over:
            await self._let_go(code, lease, forget=True)
            return
        log.info("room %s: owned by worker %s (token %d)", code, self.id, lease.token)
        room.start_owning()
        self.stand_ins(room)  # as derived from the log: what the workers show from now on
        self._watch.add(code)

    async def _let_go(self, code: str, lease: Lease, forget: bool) -> None:
        if self.leases.get(code) is lease:
            self._drop(code)
        with contextlib.suppress(RedisError, OSError):
            if forget:
                await self.redis.srem(self._rooms_key, code)
            await self._release_script(keys=[self._lease_key(code)], args=[lease.value])

    async def _finished(self, code: str) -> None:
        """The game is over: it needs no owner any more (a rematch finds one again)."""
        lease = self.leases.get(code)
        if lease is not None:
            await self._let_go(code, lease, forget=True)

    def _lost(self, code: str) -> None:
        lease = self._drop(code)
        if lease is None:
            return
        log.warning("room %s: worker %s lost its lease", code, self.id)
        room = self.directory.rooms.get(code)
        if room is not None:
            self._spawn(room.stop_owning())
            self._resync_soon(room)
            if room.status != "over":  # it still needs an owner (Redis may have lost the set)
                self._later(lambda: self.redis.sadd(self._rooms_key, code))

    async def _pulse_loop(self) -> None:
        """Tell the renewal thread that the event loop runs (a stuck one loses its leases)."""
        while True:
            if self._renewer is not None:
                self._renewer.pulse()
            await asyncio.sleep(self.tick)

    def _renewed(self, live: list[str], lost: list[tuple[str, Lease]]) -> None:
        """A renewal round went through (called on the loop by the renewal thread)."""
        if not self.reachable:
            log.warning("worker %s: Redis is back", self.id)
            self.reachable = True
        self._set_live(live)
        for code, lease in lost:
            if self.leases.get(code) is lease and not lease.giving:
                self._lost(code)

    def _unreachable(self, reason: str) -> None:
        """A renewal round failed (called on the loop by the renewal thread)."""
        if self.reachable:
            log.warning("worker %s: Redis unreachable: %s", self.id, reason)
        self.reachable = False

    async def _claim_loop(self) -> None:
        """Look for rooms without an owner twice a tick (a takeover waits for the look after
        the lease expired)."""
        while True:
            await asyncio.sleep(self.tick / 2)
            with contextlib.suppress(RedisError, OSError):  # the renewal loop says so
                await self._claim()

    async def _claim(self) -> None:
        if self.draining:
            return
        free = {str(c) for c in await self._free_script(keys=[self._rooms_key], args=[self._lease_key("")])}
        free -= self.leases.keys()
        for code in [c for c in self._free if c not in free]:  # it has an owner now
            del self._free[code]
        mine: list[str] = []
        others: list[str] = []
        for code in sorted(free):
            if code in self._gaining:
                self._free.pop(code, None)
                continue
            seen = self._free[code] = self._free.get(code, 0) + 1
            if _winner(code, self.live) == self.id:
                mine.append(code)
            elif seen > GRACE_TICKS:
                others.append(code)
        # A few at a time: each is reloaded from the database, and a worker that starts
        # among many unowned rooms must go on serving its clients meanwhile.
        for code in [*mine, *others][: max(0, CLAIM_BATCH - len(self._gaining))]:
            lease = await self._acquire(code)
            self._free.pop(code, None)
            if lease is not None:
                self._gaining.add(code)
                self._spawn(self._gained(code, lease), done=functools.partial(self._gaining.discard, code))

    # -- room affinity: a room goes where its people are ------------------------------
    async def _affinity_loop(self) -> None:
        """Every tick, the rooms owned here whose people may have moved (:meth:`_affinity_round`)."""
        while True:
            await asyncio.sleep(self.tick)
            try:
                self._affinity_round()
            except Exception:  # the loop must go on
                log.exception("worker %s: looking for rooms to hand over failed", self.id)

    def _handoff_target(self, code: str, room: Room) -> str | None:
        """The live worker to hand ``room`` to: none of its people is connected here, and
        that worker has the most of them (``None``: stay)."""
        if any(c.seat is not None for c in room.connections):
            return None
        live = self.live
        there = [
            (len(seats), worker)
            for worker, seats in self._presence.get(code, {}).items()
            if seats and worker != self.id and worker in live
        ]
        return max(there)[1] if there else None

    def _affinity_round(self) -> None:
        """Hand over each room whose people have all been on one other worker for
        :data:`HANDOFF_AFTER` s (and that did not come here by a handoff within
        :data:`HANDOFF_AGAIN` s)."""
        if self.draining:
            self._watch.clear()
            self._affinity.clear()
            return
        now = time.monotonic()
        codes = self._watch | self._affinity.keys()
        self._watch = set()
        for code in codes:
            lease = self.leases.get(code)
            room = self.directory.rooms.get(code)
            target = None
            if lease is not None and lease.ready and room is not None and room.status != "over":
                target = self._handoff_target(code, room)
            if target is None or code in self._handing:
                self._affinity.pop(code, None)
                continue
            seen = self._affinity.get(code)
            if seen is None or seen[0] != target:
                self._affinity[code] = (target, now)
                continue
            assert lease is not None and room is not None
            if now - seen[1] < HANDOFF_AFTER or len(self._handing) >= HANDOFF_BATCH:
                continue
            if lease.handed_in is not None and now - lease.handed_in < HANDOFF_AGAIN:
                continue
            del self._affinity[code]
            self._handing.add(code)
            done = functools.partial(self._handing.discard, code)
            self._spawn(self._hand_over(code, lease, room, target), done=done)

    async def _hand_over(self, code: str, lease: Lease, room: Room, target: str) -> None:
        """Give ``room`` to ``target``: take no command from now on (each is sent on to the
        owner, :class:`Moved`), let the changes in progress end (durable, and their appends
        on their way to the others first), then hand the lease over in one Redis script
        (only if it is still this worker's: a new fencing token, and ``target`` told on its
        channel, after this worker's appends) and stop the room's bots and clocks here."""
        lease.ready = False  # from now on every command is refused (Moved) and re-routed
        locked = False
        try:
            async with asyncio.timeout(DRAIN_WAIT):
                while self._busy.get(code):
                    await asyncio.sleep(0.005)
                await room.lock.acquire()
                locked = True
        except TimeoutError:
            if locked:  # (the time ran out just as the lock came)
                room.lock.release()
            log.warning("room %s: a command still runs; not handing it over now", code)
            if self.leases.get(code) is lease:
                lease.ready = True
            return
        failed = False
        try:
            if self.leases.get(code) is not lease:
                return  # lost meanwhile (_lost did the rest)
            if self._handoff_target(code, room) != target:  # somebody came back meanwhile
                lease.ready = True
                return
            done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
            ttl = int(self.lease_ttl * 1000)
            args: list[str | int] = [lease.value, target, ttl, code, self.id, room.version]
            keys = [
                self._lease_key(code), self._fence_key(code), self._worker_channel(target), self._handoffs_key
            ]  # fmt: skip

            async def send() -> None:  # after every append queued before it (one sender)
                try:
                    token = await self._handoff_script(keys=keys, args=args)
                except Exception as exc:
                    if not done.done():
                        done.set_exception(exc)
                    return
                if not done.done():
                    done.set_result(int(token))

            lease.giving = True
            self._later(send)
            try:
                token = await asyncio.wait_for(done, FORWARD_TIMEOUT)
            except (RedisError, OSError, TimeoutError) as exc:
                # Whether it went through is unknown: this worker writes no more either way
                # (the lease is the target's now, or expires and is taken over).
                log.warning("room %s: handing it over to %s failed: %s", code, target, exc)
                token = -1
            self._drop(code)
            failed = token <= 0
            if token > 0:
                self.handoffs += 1
                self._owners[code] = (target, time.monotonic() + OWNER_CACHE)
                log.info("room %s: handed over to worker %s (token %d)", code, target, token)
                self._spawn(self._forget_copy(code, room))
            elif token == 0:
                log.warning("room %s: worker %s lost its lease before handing it over", code, self.id)
            await room.stop_owning()
        finally:
            if lease.giving and self.leases.get(code) is lease:  # cancelled on the way: not ours now either
                self._lost(code)
            if locked:
                room.lock.release()
            if failed:
                self._resync_soon(room)  # a replica from now on (of what the new owner stores)

    async def _forget_copy(self, code: str, room: Room) -> None:
        """A room handed over, with nobody connected here: no replica of it here (its
        appends are dropped unread from now on); a connection for it loads it again."""
        if await self.directory.let_go(room, unless=lambda: bool(room.connections) or code in self.leases):
            await self.forgotten(room)

    def _take_handoff(self, msg: dict[str, Any]) -> None:
        """Another worker handed a room over to this one (its lease is this worker's now)."""
        code, value = str(msg["room"]), str(msg["value"])
        if not value.startswith(f"{self.id}:") or code in self.leases:
            return
        lease = Lease(value, int(msg["token"]), 0.0, handed_in=time.monotonic())
        if self.draining:  # stopping: another worker takes it at its next look
            self._spawn(self._let_go(code, lease, forget=False))
            return
        self.leases[code] = lease
        if self._renewer is not None:
            self._renewer.hold(code, lease)
        self._gaining.add(code)
        done = functools.partial(self._gaining.discard, code)
        self._spawn(self._gain_handoff(code, lease, int(msg["v"])), done=done)

    async def _gain_handoff(self, code: str, lease: Lease, version: int) -> None:
        """Own a room handed over at ``version``: its lease renewed at once (writes wait for
        it), the room from this worker's replica if that is at the version (else from the
        database), then its bots and clocks here, as after a takeover."""
        started = time.monotonic()
        try:
            renewed = await self._renew_script(
                keys=[self._lease_key(code)], args=[int(self.lease_ttl * 1000), lease.value]
            )
        except (RedisError, OSError) as exc:  # the renewal thread tries again within a tick
            log.debug("room %s: renewing a lease handed over failed: %s", code, exc)
        else:
            if not renewed or not renewed[0]:
                log.warning("room %s: the lease handed over to %s has gone already", code, self.id)
                if self.leases.get(code) is lease:
                    self._drop(code)
                return
            lease.renewed = max(lease.renewed, started)
        try:
            room = self.directory.rooms.get(code) or await self.directory.room(code)
            row = None
            if room.version != version or code in self._resyncing:
                row = await anyio.to_thread.run_sync(self.directory.store.load, code)
                if row is None:
                    raise RoomError(404, f"no room {code}")
            async with room.lock:
                if row is not None and _differs(room, row):
                    room.reload(row)
                if self.leases.get(code) is not lease:
                    return
                lease.ready = True
        except Exception as exc:
            log.warning("room %s: could not take it over: %s", code, exc)
            await self._let_go(code, lease, forget=isinstance(exc, RoomError) and exc.status == 404)
            return
        if room.status == "over":
            await self._let_go(code, lease, forget=True)
            return
        self.handed_in += 1
        log.info("room %s: handed over to worker %s (token %d)", code, self.id, lease.token)
        room.start_owning()
        self.stand_ins(room)
        self._publish(self._room_channel(code), {"t": "owner", "from": self.id})
        self._watch.add(code)

    # -- messages -----------------------------------------------------------------
    def _spawn(self, work: Coroutine[Any, Any, None], done: Callable[[], None] | None = None) -> None:
        """Run ``work`` as a task of its own (kept until it ends)."""
        task = asyncio.get_running_loop().create_task(work)
        self._running.add(task)

        def ended(t: asyncio.Task[None]) -> None:
            self._running.discard(t)
            if done is not None:
                done()

        task.add_done_callback(ended)

    def _later(self, work: Callable[[], Awaitable[Any]]) -> None:
        """Run ``work`` after everything queued before it (one sender keeps the order)."""
        self._outbox.put_nowait(work)

    def _send(self, name: str, *args: Any) -> None:
        """Send the Redis command ``name`` after everything queued before it."""
        self._outbox.put_nowait((name, args, None))

    def _publish(self, channel: str, msg: Mapping[str, Any]) -> None:
        """Publish ``msg`` after everything queued before it."""
        self._outbox.put_nowait(("publish", (channel, orjson.dumps(msg)), None))

    def _publish_counted(self, channel: str, msg: Mapping[str, Any]) -> asyncio.Future[Any]:
        """:meth:`_publish`; the future tells how many workers received it (or the Redis error)."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._outbox.put_nowait(("publish", (channel, orjson.dumps(msg)), future))
        return future

    async def _publish_loop(self) -> None:
        """The one sender: what queued up meanwhile goes at once, the commands in one pipeline
        (a forwarded command too: one round trip to Redis for all that were waiting)."""
        while True:
            batch = [await self._outbox.get()]
            while not self._outbox.empty() and len(batch) < MAX_BATCH:
                batch.append(self._outbox.get_nowait())
            commands: list[_Command] = []
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
                    log.debug("worker %s: a message to Redis was lost: %s", self.id, exc)
                except Exception:
                    log.exception("worker %s: sending to Redis failed", self.id)

    async def _execute(self, commands: list[_Command]) -> None:
        """Send ``commands`` in one pipeline; each one's future, if any, gets its result."""
        try:
            pipe = self.redis.pipeline(transaction=False)
            for name, args, _ in commands:
                getattr(pipe, name)(*args)
            results = await pipe.execute()
        except Exception as exc:
            if isinstance(exc, RedisError | OSError):  # the others resync when they notice the gap
                log.debug("worker %s: a message to Redis was lost: %s", self.id, exc)
            else:
                log.exception("worker %s: sending to Redis failed", self.id)
            for *_, future in commands:
                if future is not None and not future.done():
                    future.set_exception(exc)
            return
        for (*_, future), result in zip(commands, results, strict=True):
            if future is not None and not future.done():
                future.set_result(result)

    async def _listen(self) -> None:
        while True:
            try:
                if self._pubsub is None:
                    await self._connect()
                    log.warning("worker %s: subscribed again; reloading its rooms", self.id)
                    unfinished = [c for c, r in self.directory.rooms.items() if r.status != "over"]
                    if unfinished:  # a restarted Redis has lost them
                        await self.redis.sadd(self._rooms_key, *unfinished)
                    for room in list(self.directory.rooms.values()):
                        self._resync_soon(room)
                msg = await self._pubsub.get_message(timeout=1.0)
            except (RedisError, OSError) as exc:
                log.debug("worker %s: the subscription broke: %s", self.id, exc)
                pubsub, self._pubsub = self._pubsub, None
                if pubsub is not None:
                    with contextlib.suppress(Exception):
                        await pubsub.aclose()
                await asyncio.sleep(self.tick)
                continue
            if msg is None or msg.get("type") not in ("message", "pmessage"):
                continue
            channel = str(msg["channel"])
            if msg["type"] == "pmessage" and channel.rsplit(":", 1)[1] not in self.directory.rooms:
                continue  # a room this worker does not follow
            try:
                await self._dispatch(channel, orjson.loads(msg["data"]))
            except Exception:
                log.exception("worker %s: a message could not be handled", self.id)

    async def _dispatch(self, channel: str, msg: dict[str, Any]) -> None:
        kind = msg["t"]
        if channel == self._worker_channel(self.id):
            if kind == "req":
                self._spawn(self._serve_request(msg))
            elif kind == "reply":
                future = self._pending.get(int(msg["req"]))
                if future is not None and not future.done():
                    future.set_result(msg)
            elif kind == "handoff":
                self._take_handoff(msg)
            return
        code = channel.rsplit(":", 1)[1]
        room = self.directory.rooms.get(code)
        if room is None or msg.get("from") == self.id:
            return
        if kind == "add":
            # The owner when it committed (a forward to it that finds it moved asks again).
            self._owners[code] = (str(msg["from"]), time.monotonic() + OWNER_CACHE)
            await self._apply(room, msg)
            by = msg.get("by")
            if by is not None and by[0] == self.id:  # a move forwarded from here: it is its answer
                future = self._pending.get(int(by[1]))
                if future is not None and not future.done():
                    future.set_result({"t": "reply", "version": int(msg["v"]) + len(msg["add"])})
        elif kind == "reload":
            self._resync_soon(room)
        elif kind == "owner":  # a handoff: the new owner (a forward to the old one is answered moved)
            self._owners[code] = (str(msg["from"]), time.monotonic() + OWNER_CACHE)
        elif kind == "stand_in":
            if code not in self.leases:
                room.set_stand_ins({int(seat): str(level) for seat, level in msg["seats"].items()})
        elif kind == "presence":
            known = self._presence.setdefault(code, {})
            seats = set(msg["seats"])
            back = seats - known.get(str(msg["from"]), set())
            known[str(msg["from"])] = seats
            self._update_elsewhere(room)
            if code in self.leases:  # a player connected there: the stand-in lets go, as on attach
                self._watch.add(code)  # (and its people may all be there now: a handoff)
                for seat in sorted(back):
                    room.player_back(seat)

    async def _apply(self, room: Room, msg: dict[str, Any]) -> None:
        """Another worker appended actions to a room this worker follows."""
        if room.code in self.leases:
            return  # this worker is the owner; a conflict, if any, reloads it
        start = int(msg["v"])
        added = [(int(s), str(t)) for s, t in msg["add"]]
        if start + len(added) <= room.version:
            return  # known already (a reload came first)
        if start != room.version:
            self._resync_soon(room)
            return
        acting: Connection | None = None
        ack: str | None = None
        by = msg.get("by")
        if by is not None and by[0] == self.id:
            entry = self._acks.pop(int(by[1]), None)
            if entry is not None:
                acting, ack = entry
        try:
            room.apply_stored(added, str(msg["status"]), acting, ack, msg.get("by_bot"))
        except RulesError:
            log.exception("room %s: a stored action does not apply; reloading", room.code)
            self._resync_soon(room)

    def _resync_soon(self, room: Room) -> None:
        """:meth:`_resync` in a task of its own (the listener never waits for the database);
        asked again while one runs, it runs once more after it."""
        code = room.code
        if code in self._resyncing:
            self._resync_again.add(code)
            return
        self._resyncing.add(code)

        async def run() -> None:
            try:
                while True:
                    self._resync_again.discard(code)
                    await self._resync(room)
                    if code not in self._resync_again:
                        return
            finally:
                self._resyncing.discard(code)

        self._spawn(run())

    async def _resync(self, room: Room) -> None:
        """Reload ``room`` from the database if it changed there."""
        try:
            row = await anyio.to_thread.run_sync(self.directory.store.load, room.code)
        except Exception as exc:
            log.warning("room %s: could not reload it: %s", room.code, exc)
            return
        if row is None:
            return
        async with room.lock:
            if _differs(room, row):
                room.reload(row)
        if room.code not in self.leases:  # the owner's stand-ins, which the log may not show yet
            with contextlib.suppress(RedisError, OSError):
                stored = await self.redis.get(self._stand_in_key(room.code))
                if stored is not None and room.code not in self.leases:
                    room.set_stand_ins({int(s): str(lv) for s, lv in orjson.loads(stored).items()})

    def _update_elsewhere(self, room: Room, broadcast: bool = True) -> None:
        live = set(self.live)
        seats: set[int] = set()
        for worker, connected in self._presence.get(room.code, {}).items():
            if worker != self.id and worker in live:
                seats |= connected
        if seats != room.elsewhere:
            # A seat connected to another worker is not away (the grace period, docs/web.md).
            now = time.monotonic()
            for seat in seats - room.elsewhere:
                room.away.pop(seat, None)
            for seat in room.elsewhere - seats:
                if not any(c.seat == seat for c in room.connections):
                    room.away.setdefault(seat, now)
            room.elsewhere = seats
            room.clock_wake.set()
            if broadcast:
                room.broadcast()


def _winner(code: str, workers: list[str]) -> str:
    """The worker that should own ``code`` (rendezvous hashing: few rooms move when workers come or go)."""
    return max(workers, key=lambda w: hashlib.blake2b(f"{code}/{w}".encode(), digest_size=8).digest())


def _differs(room: Room, row: RoomRow) -> bool:
    """Is the stored room ahead of (or other than) this worker's copy? Never when the
    copy is ahead: everything in a copy was durable before it got there, so such a row
    was read before the copy's last append arrived."""
    mine = room.row
    if len(row.actions) < room.version:
        return False
    return (
        len(row.actions) != room.version
        or row.status != mine.status
        or row.rematch != mine.rematch
        or [(s.taken, s.name, s.secret_hash) for s in row.seats]
        != [(s.taken, s.name, s.secret_hash) for s in mine.seats]
    )


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
        self._open = cluster.redis.register_script(_OPEN_SOCKET)
        self._room = cluster.redis.register_script(_TAKE_ROOM)

    def _sockets_key(self, address: str) -> str:
        return f"{self.cluster.ns}sockets:{address}"

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
                keys=[self._sockets_key(address)],
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
        key, mine = self._sockets_key(address), self.sockets(address)
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
                keys=[f"{self.cluster.ns}rooms_by:{address}"], args=[limit, uuid.uuid4().hex]
            )
        except (RedisError, OSError) as exc:
            raise CountUnavailable(NO_REDIS) from exc
        return float(wait) if wait else None
