"""The room leases of a worker (docs/deploy.md, "How the workers share the rooms"),
against a real Redis: they are renewed by a thread of their own, so a worker whose event
loop is busy for longer than a lease lives keeps its rooms, and no other worker can take
them meanwhile; a lease found lost is given up on the loop; nobody writes without one."""

from __future__ import annotations

import asyncio
import threading
import time
from types import SimpleNamespace
from typing import Any, cast

import pytest
import redis
from conftest import ClusterEnv

from spieltisch.server.cluster import ACQUIRE, CLAIM_BATCH, MARGIN, RENEW_CHUNK, Cluster
from spieltisch.server.command_path import Rooms
from spieltisch.server.errors import CommandError, RoomError
from spieltisch.server.room import Room

TTL = 0.6
TICK = 0.1


async def no_room(code: str) -> Room:
    raise RoomError(404, f"no room {code}")


def make_cluster(env: ClusterEnv, name: str) -> Cluster:
    worker = Cluster(env.redis, prefix=env.prefix, lease_ttl=TTL, tick=TICK, name=name)
    worker.bind(cast(Rooms, SimpleNamespace(rooms={}, room=no_room)))
    return worker


def room(code: str) -> Room:
    return cast(Room, SimpleNamespace(code=code))


class Rival(threading.Thread):
    """Another worker that tries, every few milliseconds, to take a room's lease (with
    the workers' own script): it succeeds only if the lease lapsed."""

    def __init__(self, env: ClusterEnv, code: str) -> None:
        super().__init__(daemon=True)
        self.client = redis.Redis.from_url(env.redis, decode_responses=True)
        self.keys = [f"{env.prefix}spieltisch:lease:{code}", f"{env.prefix}spieltisch:fence:{code}"]
        self.script = self.client.register_script(ACQUIRE)
        self.tries = 0
        self.took: Any = None
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set() and self.took is None:
            token = self.script(keys=self.keys, args=["rival", int(TTL * 1000)])
            self.tries += 1
            if token:
                self.took = token
            time.sleep(0.01)
        self.client.close()


def busy(seconds: float) -> int:
    """Block the event loop with work that holds the interpreter (a CPU-bound handler)."""
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += sum(range(1000))
    return n


@pytest.mark.parametrize("block", ["cpu", "sleep"])
def test_a_blocked_event_loop_keeps_its_leases(cluster_env: ClusterEnv, block: str) -> None:
    code = f"BUSY{block.upper()}"

    async def main() -> tuple[Rival, str | None]:
        worker = make_cluster(cluster_env, "busy")
        await worker.start([])
        try:
            lease = await worker._acquire(code)
            assert lease is not None
            lease.ready = True
            rival = Rival(cluster_env, code)
            rival.start()
            # The loop does not run for four lifetimes of a lease.
            if block == "cpu":
                busy(4 * TTL)
            else:
                time.sleep(4 * TTL)
            worker.check_write(room(code))  # the lease is live: writes go on at once
            await asyncio.sleep(3 * TICK)
            assert code in worker.leases and worker.leases[code] is lease
            rival.done.set()
            rival.join(5)
            with redis.Redis.from_url(cluster_env.redis, decode_responses=True) as r:
                value = r.get(f"{cluster_env.prefix}spieltisch:lease:{code}")
        finally:
            await worker.stop()
        return rival, value

    rival, value = asyncio.run(main())
    assert rival.tries > 20 and rival.took is None, "another worker took the room while the loop was busy"
    assert value is not None and value.startswith("busy-")


def test_a_lost_lease_is_given_up_and_refuses_writes(cluster_env: ClusterEnv) -> None:
    code = "LOST"

    async def main() -> None:
        worker = make_cluster(cluster_env, "loser")
        await worker.start([])
        try:
            lease = await worker._acquire(code)
            assert lease is not None
            lease.ready = True
            worker.check_write(room(code))
            with redis.Redis.from_url(cluster_env.redis, decode_responses=True) as r:
                r.set(f"{cluster_env.prefix}spieltisch:lease:{code}", "other:99", px=int(TTL * 1000))
            deadline = time.monotonic() + 2
            while code in worker.leases and time.monotonic() < deadline:
                await asyncio.sleep(TICK / 2)
            assert code not in worker.leases
            with pytest.raises(CommandError) as refused:
                worker.check_write(room(code))
            assert refused.value.code == "unavailable"
        finally:
            await worker.stop()

    asyncio.run(main())


def test_every_lease_is_renewed_and_only_the_lost_one_given_up(cluster_env: ClusterEnv) -> None:
    """More leases than one renewal call takes (``RENEW_CHUNK``) all live on for many
    lifetimes of a lease; one taken by another worker meanwhile is given up, alone."""
    codes = [f"MANY{i:04d}" for i in range(RENEW_CHUNK + 7)]
    stolen = codes[RENEW_CHUNK + 3]  # in the second call

    async def main() -> None:
        worker = make_cluster(cluster_env, "many")
        await worker.start([])
        try:
            for code in codes:
                lease = await worker._acquire(code)
                assert lease is not None
                lease.ready = True
            with redis.Redis.from_url(cluster_env.redis, decode_responses=True) as r:
                r.set(f"{cluster_env.prefix}spieltisch:lease:{stolen}", "other:99", px=int(TTL * 1000))
                await asyncio.sleep(3 * TTL)
                assert set(worker.leases) == set(codes) - {stolen}
                for code in codes:
                    if code != stolen:
                        worker.check_write(room(code))
                values = r.mget([f"{cluster_env.prefix}spieltisch:lease:{c}" for c in codes])
            kept = [v for c, v in zip(codes, values, strict=True) if c != stolen]
            assert all(v is not None and v.startswith("many-") for v in kept)
        finally:
            await worker.stop()

    asyncio.run(main())


def test_writes_stop_when_the_renewals_stop(cluster_env: ClusterEnv) -> None:
    """Renewals that do not get through (here: the thread is stopped) stop the writes
    ``MARGIN`` s before the lease could expire in Redis - never a write without a lease."""
    code = "STALE"

    async def main() -> None:
        worker = make_cluster(cluster_env, "stale")
        await worker.start([])
        try:
            lease = await worker._acquire(code)
            assert lease is not None
            lease.ready = True
            renewer = worker._renewer
            assert renewer is not None
            renewer.stop()
            assert not renewer.thread.is_alive()
            stopped = time.monotonic()
            worker.check_write(room(code))  # renewed less than TTL - MARGIN ago
            await asyncio.sleep(TTL - MARGIN - (time.monotonic() - stopped) + 0.05)
            with pytest.raises(CommandError) as refused:
                worker.check_write(room(code))
            assert refused.value.code == "unavailable"
            with redis.Redis.from_url(cluster_env.redis, decode_responses=True) as r:
                ttl = r.pttl(f"{cluster_env.prefix}spieltisch:lease:{code}")
            assert ttl > 0, "the lease expired in Redis before its owner stopped writing"
        finally:
            await worker.stop()

    asyncio.run(main())


def test_stop_ends_the_renewal_thread_and_frees_the_rooms(cluster_env: ClusterEnv) -> None:
    code = "STOP"

    async def main() -> threading.Thread:
        worker = make_cluster(cluster_env, "stopper")
        await worker.start([])
        lease = await worker._acquire(code)
        assert lease is not None
        renewer = worker._renewer
        assert renewer is not None and renewer.thread.is_alive()
        await worker.stop()
        return renewer.thread

    thread = asyncio.run(main())
    assert not thread.is_alive()
    with redis.Redis.from_url(cluster_env.redis, decode_responses=True) as r:
        assert r.get(f"{cluster_env.prefix}spieltisch:lease:{code}") is None


def test_a_worker_takes_unowned_rooms_a_few_at_a_time(cluster_env: ClusterEnv) -> None:
    """A worker that finds many rooms without an owner is taking at most ``CLAIM_BATCH``
    of them over at a time (each is reloaded from the database); the rest wait."""
    codes = [f"MANY{i:02d}" for i in range(CLAIM_BATCH * 2 + 5)]

    async def main() -> list[int]:
        loading = asyncio.Event()

        async def slow_room(code: str) -> Room:  # a slow database; then not found
            await loading.wait()
            raise RoomError(404, f"no room {code}")

        # Not started: only the looks of this test take rooms (no claim loop of its own).
        worker = Cluster(cluster_env.redis, prefix=cluster_env.prefix, lease_ttl=TTL, tick=TICK, name="c")
        worker.bind(cast(Rooms, SimpleNamespace(rooms={}, room=slow_room)))
        taken: list[int] = []
        try:
            with redis.Redis.from_url(cluster_env.redis, decode_responses=True) as r:
                r.sadd(f"{cluster_env.prefix}spieltisch:rooms", *codes)
                fences = [f"{cluster_env.prefix}spieltisch:fence:{c}" for c in codes]

                async def look() -> None:
                    await worker._claim()
                    taken.append(sum(1 for v in r.mget(fences) if v is not None))

                await look()
                await look()  # the first ones are still being loaded
                for _ in range(2):
                    loading.set()
                    while worker._gaining:
                        await asyncio.sleep(0.01)
                    loading.clear()
                    await look()
        finally:
            loading.set()
            await worker.stop()
        return taken

    assert asyncio.run(main()) == [CLAIM_BATCH, CLAIM_BATCH, 2 * CLAIM_BATCH, len(codes)]
