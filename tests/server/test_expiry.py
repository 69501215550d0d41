"""Store.expire on SQLite and PostgreSQL: finished and abandoned rooms go with their seats,
actions and reviews; newer rooms, rooms in use and everything else stay untouched."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from spieltisch.server.store import ReviewRow, RoomRow, SeatRow, Store

DAY = 86400.0


def _room(code: str, status: str, age_days: float) -> RoomRow:
    return RoomRow(
        code=code,
        game="scout",
        players=2,
        options={},
        seed=1,
        bot_delay=0.0,
        status=status,
        seats=[SeatRow(0, "human", name="A", secret_hash="h", taken=True), SeatRow(1, "bot", level="random")],
        created=time.time() - age_days * DAY,
    )


def _exercise(store: Store) -> None:
    rooms = {
        "OLDOVR": ("over", 40),
        "NEWOVR": ("over", 10),
        "OLDPLY": ("playing", 9),
        "OLDWAI": ("waiting", 8),
        "NEWPLY": ("playing", 2),
        "INUSE2": ("playing", 9),
    }
    for code, (status, age) in rooms.items():
        store.create_room(_room(code, status, age))
        store.append_actions(code, 0, [(0, "keep"), (1, "flip")])
    for code in ("OLDOVR", "NEWOVR"):  # a finished game's stored review goes with it (docs/review.md)
        store.save_review(ReviewRow(code, 0, "8x1", {"decisions": [], "summary": []}))
    now = time.time()
    gone = store.expire(now - 30 * DAY, now - 7 * DAY, keep={"INUSE2"})
    assert sorted(gone) == ["OLDOVR", "OLDPLY", "OLDWAI"]
    for code in gone:
        assert store.load(code) is None and store.count_actions(code) == 0
        assert store.load_reviews(code, "8x1") == []
    assert [r.result for r in store.load_reviews("NEWOVR", "8x1")] == [{"decisions": [], "summary": []}]
    for code in ("NEWOVR", "NEWPLY", "INUSE2"):
        row = store.load(code)
        assert row is not None and len(row.seats) == 2 and row.actions == [(0, "keep"), (1, "flip")]
    assert store.expire(0.0, 0.0) == []  # 0: keep forever
    assert store.expire(now - 30 * DAY, now - 7 * DAY, keep={"INUSE2"}) == []  # nothing twice


def test_expire_on_sqlite(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'e.db'}")
    try:
        _exercise(store)
    finally:
        store.close()


@pytest.mark.postgres
def test_expire_on_postgres(postgres_store: Store) -> None:
    _exercise(postgres_store)


def _activity(store: Store) -> None:
    """An unfinished room expires from its last activity (a move, a join), not from its opening."""
    now = time.time()
    for code in ("MOVED2", "JOINED", "QUIET2"):
        store.create_room(_room(code, "playing", 9))
    store.append_actions("MOVED2", 0, [(0, "keep")], at=now - 1 * DAY)  # moved yesterday
    store.append_actions("QUIET2", 0, [(0, "keep")], at=now - 8 * DAY)  # last move 8 days ago
    store.update_seat("JOINED", SeatRow(0, "human", name="A", secret_hash="h", taken=True))  # joined now
    assert store.expire(now - 30 * DAY, now - 7 * DAY) == ["QUIET2"]
    assert store.load("MOVED2") is not None and store.load("JOINED") is not None


def test_abandoned_rooms_expire_from_their_last_activity_on_sqlite(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'a.db'}")
    try:
        _activity(store)
    finally:
        store.close()


def test_abandoned_rooms_expire_from_their_last_activity_on_postgres(postgres_store: Store) -> None:
    _activity(postgres_store)
