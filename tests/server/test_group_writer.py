"""The store's group writer: durable before acknowledged, one commit for many
moves, a refused write fails alone, and the event loop never waits on the disk."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from server_harness import run_async
from sqlalchemy.engine import Connection
from test_storage import _row

from spieltisch.server.store import Store, Write


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    store = Store(f"sqlite:///{tmp_path / 'w.db'}")
    yield store
    store.close()


@pytest.mark.postgres
def test_group_commit_on_postgres(postgres_store: Store) -> None:
    _moves_arriving_together_share_commits(postgres_store)


def test_moves_arriving_together_share_commits_and_all_are_stored(store: Store) -> None:
    _moves_arriving_together_share_commits(store)


def _moves_arriving_together_share_commits(store: Store) -> None:
    codes = [f"R{i:05d}" for i in range(40)]
    for code in codes:
        store.create_room(_row(code))
    commits, writes = store.writer.commits, store.writer.writes

    async def main() -> None:
        # 40 tables, 10 moves each, every table one move at a time (its serial owner).
        async def table(code: str) -> None:
            for i in range(10):
                await store.append_actions_async(code, i, [(i % 2, f"move {i}")])

        await asyncio.gather(*(table(code) for code in codes))

    run_async(main())
    assert store.writer.writes - writes == 400
    assert store.writer.commits - commits < 400 / 3  # group commit: many moves per transaction
    for code in codes:
        row = store.load(code)
        assert row is not None and row.actions == [(i % 2, f"move {i}") for i in range(10)]


def test_a_refused_write_fails_alone(store: Store) -> None:
    store.create_room(_row("AAAAAA"))
    store.create_room(_row("BBBBBB"))
    store.append_actions("AAAAAA", 0, [(0, "first")])
    gate = threading.Event()
    # Hold the writer so that the next writes queue up and go in one group.

    def held(_conn: Connection) -> None:
        gate.wait(5)

    blocker = store.writer.submit(held)
    good = store.writer.submit(lambda conn: None)
    futures = {
        "dup": store.writer.submit(_append(store, "AAAAAA", 0, "fork")),  # index 0 is taken
        "a1": store.writer.submit(_append(store, "AAAAAA", 1, "second")),
        "b0": store.writer.submit(_append(store, "BBBBBB", 0, "other table")),
    }
    gate.set()
    blocker.result(5)
    good.result(5)
    with pytest.raises(Exception, match=r"(?i)unique|duplicate"):
        futures["dup"].result(5)
    futures["a1"].result(5)
    futures["b0"].result(5)
    a, b = store.load("AAAAAA"), store.load("BBBBBB")
    assert a is not None and a.actions == [(0, "first"), (0, "second")]
    assert b is not None and b.actions == [(0, "other table")]
    store.close()


def _append(store: Store, code: str, idx: int, text: str) -> Write:
    def write(conn: Connection) -> None:
        conn.execute(store.actions.insert(), [{"room": code, "idx": idx, "seat": 0, "text": text}])

    return write


def test_the_event_loop_runs_on_while_the_disk_is_slow(store: Store) -> None:
    store.create_room(_row("AAAAAA"))

    def slow_disk(_conn: Connection) -> None:
        time.sleep(0.6)

    async def main() -> tuple[int, float]:
        slow = asyncio.wrap_future(store.writer.submit(slow_disk))
        move = asyncio.ensure_future(store.append_actions_async("AAAAAA", 0, [(0, "play")]))
        ticks, worst, last = 0, 0.0, time.perf_counter()
        while not move.done():
            await asyncio.sleep(0.01)
            now = time.perf_counter()
            worst, last = max(worst, now - last), now
            ticks += 1
        await slow
        await move
        return ticks, worst

    ticks, worst = run_async(main())
    assert ticks >= 20  # the loop kept running while the move waited for its commit
    assert worst < 0.3
    row = store.load("AAAAAA")
    assert row is not None and row.actions == [(0, "play")]
    store.close()


def test_close_commits_what_is_queued(store: Store) -> None:
    store.create_room(_row("AAAAAA"))
    futures = [store.writer.submit(_append(store, "AAAAAA", i, f"m{i}")) for i in range(50)]
    store.close()
    assert all(f.done() and f.exception() is None for f in futures)
    with pytest.raises(Exception, match="closed"):
        store.append_actions("AAAAAA", 50, [(0, "late")])
    again = Store(store.url)
    row = again.load("AAAAAA")
    again.close()
    assert row is not None and [t for _, t in row.actions] == [f"m{i}" for i in range(50)]
