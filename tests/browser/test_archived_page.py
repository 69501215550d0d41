"""An archived record in the browser (docs/storage.md, "Rules versions"): a stored
game that no longer replays under the engine is shown as a record - the reason,
its rules version and its stored moves as text, in English and German - with
nothing to play, join or click into a 500."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from browser_helpers import LiveServer, assert_fits, check_screen
from playwright.sync_api import Page, expect

from spieltisch.server.store import RoomRow, SeatRow, Store

pytestmark = pytest.mark.browser

NewPage = Callable[..., Page]
CODE = "ARCHVD"
LOG = [(0, "keep"), (1, "flip"), (2, "keep"), (0, "retired move")]
"""Three flip decisions (S-5), then a move whose notation today's engine does not know."""


def _store_archived_game(live_server: LiveServer) -> None:
    store = Store(live_server.database)
    try:
        if store.exists(CODE):
            return
        seats = [
            SeatRow(seat=0, kind="human", name="Ada", secret_hash="0" * 64, taken=True),
            SeatRow(seat=1, kind="bot", level="random", taken=True),
            SeatRow(seat=2, kind="human"),
        ]
        row = RoomRow(CODE, "scout", 3, {}, 7, 0.0, "over", seats, rules_version="0")
        store.create_room(row)
        store.append_actions(CODE, 0, LOG)
    finally:
        store.close()


@pytest.mark.parametrize(
    ("locale", "title", "explain"),
    [
        ("en-US", "Archived record: Scout ARCHVD", "no longer plays"),
        ("de-DE", "Archiviertes Spiel: Scout ARCHVD", "nicht mehr spielt"),
    ],
)
def test_an_archived_record_shows_its_reason_version_and_stored_moves(
    live_server: LiveServer, new_page: NewPage, locale: str, title: str, explain: str
) -> None:
    _store_archived_game(live_server)
    page = new_page(locale=locale)
    page.goto(f"{live_server.url}/r/{CODE}")
    panel = page.get_by_test_id("archived")
    expect(panel.get_by_role("heading", level=1)).to_have_text(title)
    expect(panel).to_contain_text(explain)
    reason = page.get_by_test_id("archived-reason")
    expect(reason).to_contain_text("action 4 (0: 'retired move') does not replay")
    expect(page.get_by_test_id("archived-rules")).to_contain_text("0")
    items = page.get_by_test_id("archived-log").locator("li")
    expect(items).to_have_count(len(LOG))
    expect(items.last).to_have_text("Ada: retired move")
    # A record to read: no seat to take, nothing to play, no board.
    for testid in ("join-panel", "spectate", "room", "legal", "open-replay", "rematch"):
        expect(page.get_by_test_id(testid)).to_have_count(0)
    check_screen(page, f"an archived record ({locale})")
    assert_fits(page, f"an archived record ({locale})")
