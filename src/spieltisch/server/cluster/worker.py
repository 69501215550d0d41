"""A worker of a cluster: the owner of the rooms it holds the leases of (see
:mod:`spieltisch.server.cluster`)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import logging
import time
import uuid
from collections.abc import Callable, Coroutine
from typing import Any

import anyio.to_thread
import orjson
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from spieltisch.engine import RulesError
from spieltisch.server.cluster.forward import Forwarder, origin
from spieltisch.server.cluster.handoff import Handoffs
from spieltisch.server.cluster.keys import (
    ACQUIRE,
    CLAIM_BATCH,
    DRAIN_WAIT,
    FREE,
    GRACE_TICKS,
    HANDOFF,
    LEASE_TTL,
    MARGIN,
    NO_REDIS,
    OWNER_CACHE,
    REDIS_CONNECTIONS,
    RELEASE,
    RENEW,
    STOP_WAIT,
    TICK,
    Keys,
)
from spieltisch.server.cluster.leases import Lease, Moved, Renewer, differs
from spieltisch.server.cluster.sender import Sender
from spieltisch.server.command_path import Rooms, execute
from spieltisch.server.commands import Command, Move
from spieltisch.server.connection import Connection
from spieltisch.server.errors import CommandError, RoomError
from spieltisch.server.room import Room

log = logging.getLogger("spieltisch.server.cluster")


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
        self.keys = Keys(prefix)
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
        self.on_lobby: Callable[[], None] = lambda: None
        """Called when another worker says the lobby changed (the app sets it: server/lobby.py)."""
        self.on_account_gone: Callable[[str], None] = lambda account: None
        """Called with an account's id when another worker deleted it (the app sets it:
        the seats of the rooms in memory here change, server/account_api.py)."""
        self._acquire_script = self.redis.register_script(ACQUIRE)
        self._release_script = self.redis.register_script(RELEASE)
        self._free_script = self.redis.register_script(FREE)
        self._handoff_script = self.redis.register_script(HANDOFF)
        self._renew_script = self.redis.register_script(RENEW)
        self.leases: dict[str, Lease] = {}
        self.live: list[str] = [self.id]
        """The workers that renewed their heartbeat lately (this one included)."""
        self.reachable = False
        """Redis answered the last tick."""
        self._pubsub: Any = None
        self.sender = Sender(self.redis, self.id)
        self.forwarder = Forwarder(self)
        self.handoff = Handoffs(self)
        self._tasks: list[asyncio.Task[None]] = []
        self._free: dict[str, int] = {}
        self._presence: dict[str, dict[str, set[int]]] = {}
        self._gaining: set[str] = set()
        self._running: set[asyncio.Task[None]] = set()
        self._resyncing: set[str] = set()
        self._resync_again: set[str] = set()
        self._renewer: Renewer | None = None
        self.draining = False
        """The worker is stopping (:meth:`drain`): it takes no room, and gives up those it has."""
        self._busy: dict[str, int] = {}
        """Changes other than moves (:meth:`_local`) running now, per room: a handoff waits for them."""
        self._watch: set[str] = set()
        """Rooms owned here whose people may have moved (presence, live workers): looked at
        by the next round of :meth:`Handoffs.round`."""

    # -- life ------------------------------------------------------------------
    async def start(self, unfinished: list[str]) -> None:
        """Join the cluster; every unfinished game of the database gets an owner."""
        await self._connect()
        self.reachable = True
        await self._heartbeat()
        for i in range(0, len(unfinished), 1000):
            await self.redis.sadd(self.keys.rooms, *unfinished[i : i + 1000])
        self._renewer = Renewer(self, asyncio.get_running_loop())
        for code, lease in self.leases.items():
            self._renewer.hold(code, lease)
        self._renewer.start()
        self._tasks = [
            asyncio.create_task(self._listen(), name="cluster-listen"),
            asyncio.create_task(self._pulse_loop(), name="cluster-pulse"),
            asyncio.create_task(self._claim_loop(), name="cluster-claim"),
            asyncio.create_task(self.sender.run(), name="cluster-publish"),
            asyncio.create_task(self.handoff.loop(), name="cluster-affinity"),
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
                    await self._release_script(keys=[self.keys.lease(code)], args=[lease.value], client=pipe)
                for code in self.directory.rooms:
                    pipe.hdel(self.keys.presence(code), self.id)
                pipe.zrem(self.keys.workers, self.id)
                pipe.zrem(self.keys.recent, self.id)
                pipe.delete(self.keys.held(self.id))
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
                await self.redis.zrem(self.keys.workers, self.id)

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
                await self._release_script(keys=[self.keys.lease(code)], args=[lease.value])
        if room is not None:
            await room.stop_owning()

    async def _connect(self) -> None:
        pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        # Every room's channel by one pattern: messages of rooms not in memory here are
        # dropped unread, and no subscription has to wait for the listener.
        await pubsub.subscribe(
            self.keys.worker_channel(self.id), self.keys.lobby_channel, self.keys.accounts_channel
        )
        await pubsub.psubscribe(self.keys.room_channel("*"))
        self._pubsub = pubsub

    async def _heartbeat(self) -> None:
        now = time.time()
        pipe = self._control.pipeline(transaction=False)
        pipe.zadd(self.keys.workers, {self.id: now + self.lease_ttl + self.tick})
        pipe.zremrangebyscore(self.keys.workers, "-inf", now)
        pipe.zrange(self.keys.workers, 0, -1)
        pipe.zadd(self.keys.recent, {self.id: now})
        _, _, live, _ = await pipe.execute()
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

    def lobby_changed(self) -> None:
        """Tell the other workers that the lobby changed here (they read it again at once)."""
        self.sender.publish(self.keys.lobby_channel, {"t": "lobby", "from": self.id})

    def account_gone(self, account: str) -> None:
        """Tell the other workers that ``account`` was deleted here (its seats are
        anonymised as stored already): they change the seats of the rooms they have in
        memory and send their players fresh views. A worker that misses the message (cut
        from Redis at that moment) shows the old name until the room is reloaded."""
        self.sender.publish(self.keys.accounts_channel, {"t": "gone", "account": account, "from": self.id})

    # -- the owner of the directory's rooms -------------------------------------------
    def bind(self, directory: Rooms) -> None:
        self.directory = directory

    async def loaded(self, room: Room) -> None:
        """A room was loaded here: follow its changes (its owner, if any, goes on)."""
        try:
            pipe = self.redis.pipeline(transaction=False)
            if room.status != "over":
                pipe.sadd(self.keys.rooms, room.code)
            pipe.sadd(self.keys.held(self.id), room.code)  # in use here: never expired (sweep)
            pipe.hgetall(self.keys.presence(room.code))
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
            pipe.sadd(self.keys.rooms, room.code)
            pipe.sadd(self.keys.held(self.id), room.code)
            await pipe.execute()
        except (RedisError, OSError) as exc:  # a worker takes it over once Redis is back
            log.warning("room %s: Redis unreachable at creation: %s", room.code, exc)

    async def forgotten(self, room: Room) -> None:
        """A room left this worker's memory (idle): its owner lets it go too."""
        code = room.code
        lease = self._drop(code)
        self._presence.pop(code, None)
        with contextlib.suppress(RedisError, OSError):
            await self.redis.srem(self.keys.held(self.id), code)
            if lease is not None:
                await self.redis.srem(self.keys.rooms, code)
                await self._release_script(keys=[self.keys.lease(code)], args=[lease.value])

    async def loading(self, code: str) -> None:
        """``code`` is about to be loaded here: in use from now on, so that no worker's
        sweep expires it between the load and :meth:`loaded`."""
        with contextlib.suppress(RedisError, OSError):
            await self.redis.sadd(self.keys.held(self.id), code)

    async def not_loaded(self, code: str) -> None:
        """Loading ``code`` failed (no such room): not in use after all."""
        with contextlib.suppress(RedisError, OSError):
            await self.redis.srem(self.keys.held(self.id), code)

    async def in_use(self, period: float) -> set[str] | None:
        """May this worker expire old rooms now? ``None``: no - another worker swept
        within ``period`` s (the lease ``sweep``: one sweep at a time in the cluster), or
        Redis cannot tell which rooms are in use (then nothing expires: a room another
        worker serves is never deleted under it). Otherwise the rooms in use anywhere:
        those with an owner, and those in the memory of a live worker."""
        try:
            taken = await self.redis.set(self.keys.sweep, self.id, nx=True, px=max(1, int(period * 1000)))
            if not taken:
                return None
            pipe = self.redis.pipeline(transaction=False)
            for worker in self.live:
                pipe.smembers(self.keys.held(worker))
            held = await pipe.execute()
            in_use = {str(c) for members in held for c in members}
            async for key in self.redis.scan_iter(match=self.keys.lease("*"), count=1000):
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
        by_request = origin.get()
        if by_request is not None:
            msg["by"] = by_request
        self.sender.publish(self.keys.room_channel(room.code), msg)
        if status == "over":
            self.sender.later(lambda: self._finished(room.code))

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
        self.sender.send("set", self.keys.stand_in(room.code), text, 86400)
        self.sender.publish(
            self.keys.room_channel(room.code), {"t": "stand_in", "from": self.id, "seats": levels}
        )

    def presence(self, room: Room) -> None:
        seats = sorted({c.seat for c in room.connections if c.seat is not None})
        key, code = self.keys.presence(room.code), room.code
        if code in self.leases:
            self._watch.add(code)

        if seats:
            self.sender.send("hset", key, self.id, orjson.dumps(seats).decode())
            self.sender.send("expire", key, 86400)
        else:
            self.sender.send("hdel", key, self.id)
        self.sender.publish(self.keys.room_channel(code), {"t": "presence", "from": self.id, "seats": seats})

    # -- commands -----------------------------------------------------------------
    async def run(self, command: Command, conn: Connection | None = None, ref: str | None = None) -> Any:
        """Run ``command`` on the owner of its room - here, or forwarded to the worker that
        owns it (:class:`Forwarder`) - and answer as if it ran here."""
        return await self.forwarder.run(command, conn, ref)

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
            self.sender.publish(self.keys.room_channel(code), {"t": "reload", "from": self.id})
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
        value = await self.redis.get(self.keys.lease(code))
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

    # -- leases ---------------------------------------------------------------------
    async def _acquire(self, code: str) -> Lease | None:
        started = time.monotonic()
        token = await self._acquire_script(
            keys=[self.keys.lease(code), self.keys.fence(code)], args=[self.id, int(self.lease_ttl * 1000)]
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
                if differs(room, row):
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
                await self.redis.srem(self.keys.rooms, code)
            await self._release_script(keys=[self.keys.lease(code)], args=[lease.value])

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
                self.sender.later(lambda: self.redis.sadd(self.keys.rooms, code))

    async def _pulse_loop(self) -> None:
        """Tell the renewal thread that the event loop runs (a stuck one loses its leases)."""
        while True:
            if self._renewer is not None:
                self._renewer.pulse()
            await asyncio.sleep(self.tick)

    def on_renewed(self, live: list[str], lost: list[tuple[str, Lease]]) -> None:
        """A renewal round went through (called on the loop by the renewal thread)."""
        if not self.reachable:
            log.warning("worker %s: Redis is back", self.id)
            self.reachable = True
        self._set_live(live)
        for code, lease in lost:
            if self.leases.get(code) is lease and not lease.giving:
                self._lost(code)

    def on_unreachable(self, reason: str) -> None:
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
        free = {str(c) for c in await self._free_script(keys=[self.keys.rooms], args=[self.keys.lease("")])}
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

    async def _listen(self) -> None:
        while True:
            try:
                if self._pubsub is None:
                    await self._connect()
                    log.warning("worker %s: subscribed again; reloading its rooms", self.id)
                    unfinished = [c for c, r in self.directory.rooms.items() if r.status != "over"]
                    if unfinished:  # a restarted Redis has lost them
                        await self.redis.sadd(self.keys.rooms, *unfinished)
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
        if channel == self.keys.worker_channel(self.id):
            if kind == "req":
                self._spawn(self.forwarder.serve(msg))
            elif kind == "reply":
                future = self.forwarder.pending.get(int(msg["req"]))
                if future is not None and not future.done():
                    future.set_result(msg)
            elif kind == "handoff":
                self.handoff.take(msg)
            return
        if channel == self.keys.lobby_channel:
            if msg.get("from") != self.id:
                self.on_lobby()
            return
        if channel == self.keys.accounts_channel:
            if kind == "gone" and msg.get("from") != self.id:
                self.on_account_gone(str(msg["account"]))
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
                future = self.forwarder.pending.get(int(by[1]))
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
            entry = self.forwarder.acks.pop(int(by[1]), None)
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
            if differs(room, row):
                room.reload(row)
        if room.code not in self.leases:  # the owner's stand-ins, which the log may not show yet
            with contextlib.suppress(RedisError, OSError):
                stored = await self.redis.get(self.keys.stand_in(room.code))
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
            room.clock_timer.wake.set()
            if broadcast:
                room.broadcast()


def _winner(code: str, workers: list[str]) -> str:
    """The worker that should own ``code`` (rendezvous hashing: few rooms move when workers come or go)."""
    return max(workers, key=lambda w: hashlib.blake2b(f"{code}/{w}".encode(), digest_size=8).digest())
