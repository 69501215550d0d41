"""A turn-based game in the browser survives a server restart (issue #36, docs/web.md): the
pages reconnect by themselves and show the same game, the same turn and the move clock
counted on from the stored move times, and the game goes on with a move."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from browser_helpers import INVITE_URL, LiveServer, decide, is_mine, scout_move, version
from playwright.sync_api import Page, expect
from sqlalchemy import update

from spieltisch.server.store import Store

pytestmark = pytest.mark.browser

NewPage = Callable[..., Page]
HOURS = 3600.0
SHIFT = 5 * HOURS
"""While the server is down, its stored times are moved this far back: fake time, as if
the restart had taken five hours."""


def _clock_seconds(page: Page, seat: int) -> float:
    """Seat ``seat``'s time left as the page shows it: "23:59:58" -> 86398."""
    text = page.get_by_test_id(f"clock-{seat}").locator(".clock-time").inner_text()
    parts = [int(p) for p in text.strip().split(":")]
    assert len(parts) == 3, f"not hours: {text!r}"
    return float(parts[0] * 3600 + parts[1] * 60 + parts[2])


def _hand(page: Page) -> list[str | None]:
    cards = page.locator("[data-testid^=hand-card-]")
    return [cards.nth(i).get_attribute("data-card") for i in range(cards.count())]


def _whose_turn(pages: list[Page], limit: float = 20.0) -> int:
    """The index of the page whose turn it is (the bot moves by itself meanwhile)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        for i, page in enumerate(pages):
            if is_mine(page):
                return i
        pages[0].wait_for_timeout(30)
    raise AssertionError("it became nobody's turn at the table")


def _move_times_back(database: str, code: str, seconds: float) -> None:
    store = Store(database)
    try:
        with store.engine.begin() as conn:
            rooms, actions = store.rooms, store.actions
            conn.execute(
                update(rooms)
                .where(rooms.c.code == code)
                .values(created=rooms.c.created - seconds, started=rooms.c.started - seconds)
            )
            conn.execute(update(actions).where(actions.c.room == code).values(at=actions.c.at - seconds))
    finally:
        store.close()


def test_a_turn_based_game_survives_a_server_restart(new_page: NewPage, tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'turns.db'}"
    server = LiveServer(database)
    server.start()
    alice, bob = new_page(), new_page()
    try:
        # Alice opens a turn-based table (24 hours per move) for Bob and a bot; Bob joins.
        alice.goto(server.url + "/")
        alice.get_by_test_id("game-scout").check()
        alice.get_by_test_id("players").select_option("3")
        alice.get_by_test_id("seat-kind-1").select_option("human")
        alice.get_by_test_id("seat-kind-2").select_option("bot:random")
        alice.get_by_test_id("clock-settings").locator("summary").click()
        alice.get_by_test_id("clock-pace").select_option("24")
        alice.get_by_test_id("name-input").fill("Alice")
        alice.get_by_test_id("create-room").click()
        alice.wait_for_url(INVITE_URL)
        code = alice.url.rsplit("/", 1)[1].split("-")[0]
        bob.goto(alice.url)
        bob.get_by_test_id("name-input").fill("Bob")
        bob.locator("[data-testid^=join-seat-]").first.click()
        expect(bob.get_by_test_id("room")).to_be_visible()
        pages = [alice, bob]
        seats = [0, 1]
        # Both keep their hands (S-5), then one move before the restart.
        for page in pages:
            expect(page.get_by_test_id("btn-keep")).to_be_visible()
            decide(page, "keep")
        rng = random.Random(36)
        scout_move(pages[_whose_turn(pages)], rng)
        turn = _whose_turn(pages)
        seat = seats[turn]
        mover, other = pages[turn], pages[1 - turn]
        seen = version(mover)
        expect(other.locator("[data-testid=room]")).to_have_attribute("data-version", str(seen))
        before = {id(p): (_hand(p), p.get_by_test_id("log").inner_text()) for p in pages}
        clock_before = _clock_seconds(mover, seat)
        assert 23.9 * HOURS < clock_before <= 24 * HOURS
        assert abs(_clock_seconds(other, seat) - clock_before) < 5  # both pages count the same clock
    finally:
        server.stop()
    for page in pages:
        expect(page.get_by_test_id("conn")).to_be_visible()  # "reconnecting…"
    _move_times_back(database, code, SHIFT)
    again = LiveServer(database, port=server.port)
    again.start()
    try:
        for page in pages:
            expect(page.get_by_test_id("conn")).to_have_count(0, timeout=30_000)
        # The same game at the same point: the same version, hands and log, the same turn.
        for page in pages:
            assert version(page) == seen
            assert (_hand(page), page.get_by_test_id("log").inner_text()) == before[id(page)]
        assert is_mine(mover) and not is_mine(other)
        expect(mover.get_by_test_id("status")).to_have_text("Your turn!")
        # The move clock went on from the stored times (five hours gone), not from 24 h again ...
        after = _clock_seconds(mover, seat)
        assert 18.9 * HOURS < after < clock_before - SHIFT + 60, (clock_before, after)
        assert abs(_clock_seconds(other, seat) - after) < 5
        # ... and keeps counting down in the page.
        mover.wait_for_timeout(2100)
        assert _clock_seconds(mover, seat) < after
        # The game goes on: a move after the restart reaches the other page too.
        scout_move(mover, rng)
        assert version(mover) > seen
        deadline = time.monotonic() + 10
        while version(other) <= seen:
            assert time.monotonic() < deadline, "the other page did not see the move after the restart"
            other.wait_for_timeout(30)
    finally:
        again.stop()
