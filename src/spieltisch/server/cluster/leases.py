"""A worker's leases of its rooms, and the thread that renews them."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import redis
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from redis.retry import Retry

from spieltisch.server.cluster.keys import LOOP_STALL, RECENT, RENEW, RENEW_CHUNK
from spieltisch.server.errors import CommandError
from spieltisch.server.room import Room
from spieltisch.server.store import RoomRow

if TYPE_CHECKING:
    from spieltisch.server.cluster.worker import Cluster

log = logging.getLogger("spieltisch.server.cluster")


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
    being handed over: :meth:`~spieltisch.server.cluster.handoff.Handoffs.hand_over` clears it first)."""
    handed_in: float | None = None
    """``time.monotonic()`` when the lease came by a handoff from another worker (``None``:
    taken): the room is not handed on before :data:`HANDOFF_AGAIN` s."""
    giving: bool = False
    """The handoff script for this lease is on its way
    (:meth:`~spieltisch.server.cluster.handoff.Handoffs.hand_over`): a renewal that finds
    the lease gone (the target has it now) is not a loss; the handoff deals with each
    outcome itself."""


class Moved(CommandError):
    """This worker does not own the room (any more, or not yet): nothing was done, and the
    command goes to the owner instead (or, out of time, is refused as ``unavailable``)."""

    def __init__(self, code: str) -> None:
        super().__init__("unavailable", f"this worker does not own room {code} now; try again")


class Renewer:
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
        self.script = self.redis.register_script(RENEW)
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
                pipe.zrem(cluster.keys.workers, cluster.id)
            else:
                pipe.zadd(cluster.keys.workers, {cluster.id: now + cluster.lease_ttl + cluster.tick})
            pipe.zremrangebyscore(cluster.keys.workers, "-inf", now)
            pipe.zrange(cluster.keys.workers, 0, -1)
            pipe.zadd(cluster.keys.recent, {cluster.id: now})
            pipe.zremrangebyscore(cluster.keys.recent, "-inf", now - RECENT)
            for i in range(0, len(leases), RENEW_CHUNK):
                chunk = leases[i : i + RENEW_CHUNK]
                keys = [cluster.keys.lease(code) for code, _ in chunk]
                self.script(keys=keys, args=[ttl, *(lease.value for _, lease in chunk)], client=pipe)
            _, _, live, _, _, *chunks = pipe.execute()
            renewed = [ok for chunk_renewed in chunks for ok in chunk_renewed]
        except (RedisError, OSError) as exc:
            if self._reachable:
                self._reachable = False
                self._tell(cluster.on_unreachable, str(exc))
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
        self._tell(cluster.on_renewed, sorted(map(str, live)), lost)

    def _tell(self, callback: Callable[..., None], *args: Any) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: the worker is gone
            self.loop.call_soon_threadsafe(callback, *args)


def differs(room: Room, row: RoomRow) -> bool:
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
