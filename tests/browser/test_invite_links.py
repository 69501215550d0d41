"""Invite links and typed codes in the browser (docs/protocol.md, "Room names"; issue #34):
the table's address is its invite link ``/r/CODE-KEY``; a friend who types the 6-letter
code while a seat is free lands at the same link and joins; once the game has started the
code alone finds no table, while the link still lets anybody watch."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from browser_helpers import INVITE_URL, LiveServer, create_room
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

NewPage = Callable[..., Page]


def test_a_typed_code_joins_a_waiting_table_and_only_the_link_opens_it_afterwards(
    live_server: LiveServer, new_page: NewPage
) -> None:
    alice, bob, stranger, watcher = new_page(), new_page(), new_page(), new_page()
    invite = create_room(alice, live_server.url, "scout", 3, ["human", "bot:random"], "Alice")
    assert INVITE_URL.search(invite) and alice.get_by_test_id("invite-link").input_value() == invite
    code = alice.get_by_test_id("room-code").inner_text()
    assert invite.endswith(f"/r/{code}-" + invite.rsplit("-", 1)[1])
    # Bob types the code on the start page: he lands at the invite link and takes the seat.
    bob.goto(live_server.url + "/")
    bob.get_by_test_id("code-input").fill(code.lower())
    bob.get_by_test_id("code-input").press("Enter")
    expect(bob.get_by_test_id("join-panel")).to_be_visible()
    expect(bob).to_have_url(invite)
    bob.get_by_test_id("name-input").fill("Bob")
    bob.locator("[data-testid^=join-seat-]").first.click()
    expect(bob.get_by_test_id("room")).to_have_attribute("data-status", "playing")
    # Started: the code alone is no table; the link is one to watch; Bob's reload still seats him.
    stranger.goto(f"{live_server.url}/r/{code}")
    expect(stranger.get_by_text(f"There is no table {code}.")).to_be_visible()
    watcher.goto(invite)
    expect(watcher.get_by_test_id("join-panel")).to_be_visible()
    watcher.get_by_test_id("spectate").click()
    expect(watcher.get_by_test_id("room")).to_have_attribute("data-status", "playing")
    bob.goto(f"{live_server.url}/r/{code}")  # his browser keeps the seat's secret for the code
    expect(bob.get_by_test_id("player-1")).to_have_class(re.compile(r"\bme\b"))
    expect(bob).to_have_url(invite)
