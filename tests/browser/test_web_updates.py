"""The table updates in place: clicks, focus, selection and scroll survive
states that arrive while a person is acting (issue 11, "In the browser")."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from browser_helpers import (
    LiveServer,
    check_screen,
    create_room,
    is_mine,
    is_over,
    legal_moves,
    redraw_often,
    scout_move,
)
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

NewPage = Callable[..., Page]


def _scout_turn(page: Page, base: str) -> None:
    """A 3-player Scout table against random bots, at Alice's first turn."""
    create_room(page, base, "scout", 3, ["bot:random", "bot:random"], "Alice")
    page.get_by_test_id("btn-keep").click()
    expect(page.locator("[data-testid=room][data-mine=true][data-phase=play]")).to_have_count(1)


def test_clicks_focus_and_selection_survive_ten_redraws_a_second(
    live_server: LiveServer, new_page: NewPage
) -> None:
    page = new_page()
    redraw_often(page, 100)
    _scout_turn(page, live_server.url)
    check_screen(page, "the Scout table")
    card = page.get_by_test_id("hand-card-0")
    box = card.bounding_box()
    assert box
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.75
    # Each press lasts longer than a redraw period, so every one straddles an update.
    lost = 0
    for i in range(20):
        pressed = card.get_attribute("aria-pressed")
        page.mouse.move(x, y)
        page.mouse.down()
        page.wait_for_timeout(130)
        page.mouse.up()
        expected = "false" if pressed == "true" else "true"
        try:
            expect(card).to_have_attribute("aria-pressed", expected, timeout=1_000)
        except AssertionError:
            lost += 1
        assert page.get_by_test_id("room").get_attribute("data-mine") == "true", f"turn lost at click {i}"
    assert lost == 0, f"{lost} of 20 clicks were lost while the table redrew 10 times a second"
    # The selection and the keyboard focus outlive the redraws, on the same element.
    page.get_by_test_id("hand-card-1").click()
    page.get_by_test_id("hand-card-1").focus()
    page.evaluate("document.activeElement.__probe = 'kept'")
    page.wait_for_timeout(350)
    assert page.evaluate("document.activeElement.__probe") == "kept"
    expect(page.get_by_test_id("hand-card-1")).to_have_attribute("aria-pressed", "true")


def test_log_follows_the_newest_entry_and_a_scrolled_page_stays(
    live_server: LiveServer, new_page: NewPage
) -> None:
    page = new_page(width=390, height=844)
    redraw_often(page, 150)
    _scout_turn(page, live_server.url)
    # A long hand on a phone wraps onto more rows instead of scrolling sideways
    # (issue #35); the page scrolled down to it stays there through redraws.
    hand = page.locator(".hand-area .hand")
    assert hand.evaluate("el => el.scrollWidth <= el.clientWidth")
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    down = page.evaluate("window.scrollY")
    assert down > 0
    page.wait_for_timeout(400)
    assert page.evaluate("window.scrollY") == down
    rng = random.Random(4)
    log = page.get_by_test_id("log")
    while log.locator("li").count() < 20 and not is_over(page):
        if is_mine(page):
            scout_move(page, rng)
        else:
            page.wait_for_timeout(30)
    assert log.evaluate("el => el.scrollHeight > el.clientHeight"), "the log should be long enough to scroll"

    def newest_in_view() -> bool:
        return bool(
            log.evaluate(
                """el => { const last = el.lastElementChild.getBoundingClientRect();
                           const box = el.getBoundingClientRect();
                           return last.bottom <= box.bottom + 1 && last.top >= box.top - 1; }"""
            )
        )

    assert newest_in_view(), "the newest log entry is scrolled out of sight"
    page.wait_for_timeout(400)  # a few redraws later: still at the newest entry
    assert newest_in_view()
    # Somebody scrolls back to read: redraws leave the log where it is.
    log.evaluate("el => { el.scrollTop = 0; el.dispatchEvent(new Event('scroll')); }")
    page.wait_for_timeout(400)
    assert log.evaluate("el => el.scrollTop") == 0


def test_a_scouted_card_lands_in_sight_in_a_long_hand_on_a_phone(
    live_server: LiveServer, new_page: NewPage
) -> None:
    page = new_page(width=390, height=844)
    _scout_turn(page, live_server.url)
    rng = random.Random(8)
    while not any(m.startswith("scout ") for m in legal_moves(page)):
        scout_move(page, rng)
        while not is_mine(page):
            page.wait_for_timeout(30)
    page.get_by_test_id("legal-toggle").click()  # close the list again
    page.get_by_test_id("table-end-L").click()
    gaps = page.locator("[data-testid^=gap-]")
    expect(gaps.first).to_be_visible()
    check_screen(page, "choosing where the scouted card goes")
    # The hand swiped so that the chosen gap is at its left edge; when the gaps
    # close the hand shrinks under the view, and the new card must stay in sight.
    gap = page.get_by_test_id("gap-1")
    gap.evaluate("el => el.scrollIntoView({ inline: 'start', block: 'nearest' })")
    gap.click()
    fresh = page.locator(".hand .scard.fresh")
    expect(fresh).to_have_count(1)
    hand = page.locator(".hand-area .hand").bounding_box()
    card = fresh.bounding_box()
    assert hand and card
    assert hand["x"] - 1 <= card["x"] and card["x"] + card["width"] <= hand["x"] + hand["width"] + 1, (
        f"the scouted card is out of sight: card {card}, hand {hand}"
    )
