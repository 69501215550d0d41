"""Room affinity: a room goes to the worker where its people are (docs/deploy.md,
"Room routing and handoffs")."""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from redis.exceptions import RedisError

from spieltisch.server.cluster.keys import (
    DRAIN_WAIT,
    FORWARD_TIMEOUT,
    HANDOFF_AFTER,
    HANDOFF_AGAIN,
    HANDOFF_BATCH,
    OWNER_CACHE,
)
from spieltisch.server.cluster.leases import Lease, differs
from spieltisch.server.errors import RoomError
from spieltisch.server.room import Room

if TYPE_CHECKING:
    from spieltisch.server.cluster.worker import Cluster

log = logging.getLogger("spieltisch.server.cluster")


class Handoffs:
    """A worker's handoffs: each room it owns whose people have all moved to one other
    worker is handed over to that worker, with its lease (no takeover, no lapse)."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self._seen: dict[str, tuple[str, float]] = {}
        """Rooms owned here whose people are all on another worker: that worker, and since when."""
        self.handing: set[str] = set()
        """Rooms being handed over (:meth:`hand_over`)."""
        self.handoffs = 0
        """Rooms this worker handed over to another one."""
        self.handed_in = 0
        """Rooms this worker got by a handoff."""

    async def loop(self) -> None:
        """Every tick, the rooms owned here whose people may have moved (:meth:`round`)."""
        c = self.cluster
        while True:
            await asyncio.sleep(c.tick)
            try:
                self.round()
            except Exception:  # the loop must go on
                log.exception("worker %s: looking for rooms to hand over failed", c.id)

    def target(self, code: str, room: Room) -> str | None:
        """The live worker to hand ``room`` to: none of its people is connected here, and
        that worker has the most of them (``None``: stay)."""
        c = self.cluster
        if any(conn.seat is not None for conn in room.connections):
            return None
        live = c.live
        there = [
            (len(seats), worker)
            for worker, seats in c._presence.get(code, {}).items()
            if seats and worker != c.id and worker in live
        ]
        return max(there)[1] if there else None

    def round(self) -> None:
        """Hand over each room whose people have all been on one other worker for
        :data:`HANDOFF_AFTER` s (and that did not come here by a handoff within
        :data:`HANDOFF_AGAIN` s)."""
        c = self.cluster
        if c.draining:
            c._watch.clear()
            self._seen.clear()
            return
        now = time.monotonic()
        codes = c._watch | self._seen.keys()
        c._watch = set()
        for code in codes:
            lease = c.leases.get(code)
            room = c.directory.rooms.get(code)
            target = None
            if lease is not None and lease.ready and room is not None and room.status != "over":
                target = self.target(code, room)
            if target is None or code in self.handing:
                self._seen.pop(code, None)
                continue
            seen = self._seen.get(code)
            if seen is None or seen[0] != target:
                self._seen[code] = (target, now)
                continue
            assert lease is not None and room is not None
            if now - seen[1] < HANDOFF_AFTER or len(self.handing) >= HANDOFF_BATCH:
                continue
            if lease.handed_in is not None and now - lease.handed_in < HANDOFF_AGAIN:
                continue
            del self._seen[code]
            self.handing.add(code)
            done = functools.partial(self.handing.discard, code)
            c._spawn(self.hand_over(code, lease, room, target), done=done)

    async def hand_over(self, code: str, lease: Lease, room: Room, target: str) -> None:
        """Give ``room`` to ``target``: take no command from now on (each is sent on to the
        owner, :class:`Moved`), let the changes in progress end (durable, and their appends
        on their way to the others first), then hand the lease over in one Redis script
        (only if it is still this worker's: a new fencing token, and ``target`` told on its
        channel, after this worker's appends) and stop the room's bots and clocks here."""
        c = self.cluster
        lease.ready = False  # from now on every command is refused (Moved) and re-routed
        locked = False
        try:
            async with asyncio.timeout(DRAIN_WAIT):
                while c._busy.get(code):
                    await asyncio.sleep(0.005)
                await room.lock.acquire()
                locked = True
        except TimeoutError:
            if locked:  # (the time ran out just as the lock came)
                room.lock.release()
            log.warning("room %s: a command still runs; not handing it over now", code)
            if c.leases.get(code) is lease:
                lease.ready = True
            return
        failed = False
        try:
            if c.leases.get(code) is not lease:
                return  # lost meanwhile (_lost did the rest)
            if self.target(code, room) != target:  # somebody came back meanwhile
                lease.ready = True
                return
            done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
            ttl = int(c.lease_ttl * 1000)
            args: list[str | int] = [lease.value, target, ttl, code, c.id, room.version]
            keys = [
                c.keys.lease(code), c.keys.fence(code), c.keys.worker_channel(target), c.keys.handoffs
            ]  # fmt: skip

            async def send() -> None:  # after every append queued before it (one sender)
                try:
                    token = await c._handoff_script(keys=keys, args=args)
                except Exception as exc:
                    if not done.done():
                        done.set_exception(exc)
                    return
                if not done.done():
                    done.set_result(int(token))

            lease.giving = True
            c.sender.later(send)
            try:
                token = await asyncio.wait_for(done, FORWARD_TIMEOUT)
            except (RedisError, OSError, TimeoutError) as exc:
                # Whether it went through is unknown: this worker writes no more either way
                # (the lease is the target's now, or expires and is taken over).
                log.warning("room %s: handing it over to %s failed: %s", code, target, exc)
                token = -1
            c._drop(code)
            failed = token <= 0
            if token > 0:
                self.handoffs += 1
                c._owners[code] = (target, time.monotonic() + OWNER_CACHE)
                log.info("room %s: handed over to worker %s (token %d)", code, target, token)
                c._spawn(self._forget_copy(code, room))
            elif token == 0:
                log.warning("room %s: worker %s lost its lease before handing it over", code, c.id)
            await room.stop_owning()
        finally:
            if lease.giving and c.leases.get(code) is lease:  # cancelled on the way: not ours now either
                c._lost(code)
            if locked:
                room.lock.release()
            if failed:
                c._resync_soon(room)  # a replica from now on (of what the new owner stores)

    async def _forget_copy(self, code: str, room: Room) -> None:
        """A room handed over, with nobody connected here: no replica of it here (its
        appends are dropped unread from now on); a connection for it loads it again."""
        c = self.cluster
        if await c.directory.let_go(room, unless=lambda: bool(room.connections) or code in c.leases):
            await c.forgotten(room)

    def take(self, msg: dict[str, Any]) -> None:
        """Another worker handed a room over to this one (its lease is this worker's now)."""
        c = self.cluster
        code, value = str(msg["room"]), str(msg["value"])
        if not value.startswith(f"{c.id}:") or code in c.leases:
            return
        lease = Lease(value, int(msg["token"]), 0.0, handed_in=time.monotonic())
        if c.draining:  # stopping: another worker takes it at its next look
            c._spawn(c._let_go(code, lease, forget=False))
            return
        c.leases[code] = lease
        if c._renewer is not None:
            c._renewer.hold(code, lease)
        c._gaining.add(code)
        done = functools.partial(c._gaining.discard, code)
        c._spawn(self._gain(code, lease, int(msg["v"])), done=done)

    async def _gain(self, code: str, lease: Lease, version: int) -> None:
        """Own a room handed over at ``version``: its lease renewed at once (writes wait for
        it), the room from this worker's replica if that is at the version (else from the
        database), then its bots and clocks here, as after a takeover."""
        c = self.cluster
        started = time.monotonic()
        try:
            renewed = await c._renew_script(
                keys=[c.keys.lease(code)], args=[int(c.lease_ttl * 1000), lease.value]
            )
        except (RedisError, OSError) as exc:  # the renewal thread tries again within a tick
            log.debug("room %s: renewing a lease handed over failed: %s", code, exc)
        else:
            if not renewed or not renewed[0]:
                log.warning("room %s: the lease handed over to %s has gone already", code, c.id)
                if c.leases.get(code) is lease:
                    c._drop(code)
                return
            lease.renewed = max(lease.renewed, started)
        try:
            room = c.directory.rooms.get(code) or await c.directory.room(code)
            row = None
            if room.version != version or code in c._resyncing:
                row = await anyio.to_thread.run_sync(c.directory.store.load, code)
                if row is None:
                    raise RoomError(404, f"no room {code}")
            async with room.lock:
                if row is not None and differs(room, row):
                    room.reload(row)
                if c.leases.get(code) is not lease:
                    return
                lease.ready = True
        except Exception as exc:
            log.warning("room %s: could not take it over: %s", code, exc)
            await c._let_go(code, lease, forget=isinstance(exc, RoomError) and exc.status == 404)
            return
        if room.status == "over":
            await c._let_go(code, lease, forget=True)
            return
        self.handed_in += 1
        log.info("room %s: handed over to worker %s (token %d)", code, c.id, lease.token)
        room.start_owning()
        c.stand_ins(room)
        c.sender.publish(c.keys.room_channel(code), {"t": "owner", "from": c.id})
        c._watch.add(code)
