"""The web table on a phone and the layout defects of issue #35, measured in Chromium.

Per game and language one person walks through a table's life at 390×844,
360×740 and 430×932: on every screen the page is no wider than the screen, every card of
the hand (and every gap while a scouted card is placed) lies inside the screen
and inside its row (no sideways scrolling), no round table is clipped, the hand
starts on the first screen and stays in view with its buttons (sticky at the bottom),
opponents name their last action, and the status and a new round summary are in view.
At 1280×800: the hand while placing a scouted card, and the "Round results"
panel beside the table, are not cut off.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from browser_helpers import (
    SETTLE,
    LiveServer,
    create_room,
    decide,
    open_seeded_room,
    play_to_the_round_summary,
    play_until_over,
    scout_move,
    wait_for_my_turn,
)
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

NewPage = Callable[..., Page]

PHONES = ((390, 844), (360, 740), (430, 932))
SEED = 20261206

FIT = """() => {
  """ + SETTLE + """
  const w = innerWidth;
  const out = [];
  const page = document.documentElement.scrollWidth;
  if (page > w) out.push(`the page is ${page} px wide`);
  for (const hand of document.querySelectorAll(".hand")) {
    if (hand.scrollWidth > hand.clientWidth) {
      out.push(`a hand scrolls: ${hand.scrollWidth} px in ${hand.clientWidth} px`);
    }
    const box = hand.getBoundingClientRect();
    for (const card of hand.children) {
      const r = card.getBoundingClientRect();
      if (r.left < 0 || r.right > w || r.left < box.left - 0.5 || r.right > box.right + 0.5) {
        const where = `${Math.round(r.left)}..${Math.round(r.right)} px`;
        out.push(`${card.dataset.testid || card.className} at ${where}`);
      }
    }
  }
  for (const wrap of document.querySelectorAll(".table-wrap")) {
    if (wrap.scrollWidth > wrap.clientWidth) {
      out.push(`a table is clipped: ${wrap.scrollWidth} px in ${wrap.clientWidth} px`);
    }
  }
  return out;
}"""
"""What does not fit the screen: the page's width, hand cards outside the screen or their
row, a hand or a round table that would scroll sideways."""

IN_VIEW = """(selector) => {
  const el = document.querySelector(selector);
  if (!el) return false;
  const r = el.getBoundingClientRect();
  return r.height > 0 && r.top >= 0 && r.top < innerHeight && r.bottom > 0;
}"""


def assert_fits(page: Page, screen: str, sizes: tuple[tuple[int, int], ...] = PHONES) -> None:
    before = page.viewport_size
    try:
        for width, height in sizes:
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_timeout(60)
            bad = page.evaluate(FIT)
            assert not bad, f"{screen} at {width}×{height}:\n" + "\n".join(bad)
    finally:
        if before:
            page.set_viewport_size(before)


def hand_on_first_screen(page: Page) -> None:
    """At the top of the page the first card of the hand is whole on a 390×844 screen."""
    page.evaluate("window.scrollTo(0, 0)")
    bottom = page.get_by_test_id("hand-card-0").evaluate("(c) => c.getBoundingClientRect().bottom")
    assert bottom <= 844, f"the hand begins below the first screen ({bottom:.0f} px)"


def walk_the_table(page: Page, base: str, game: str, locale: str) -> None:
    page.goto(base + "/")
    expect(page.get_by_test_id("create-room")).to_be_visible()
    page.get_by_test_id(f"game-{game}").check()
    assert_fits(page, f"the start page ({locale})")
    create_room(page, base, game, 3, ["human", "bot:easy"], "Anna")
    expect(page.get_by_test_id("lobby")).to_be_visible()
    assert_fits(page, f"the lobby ({locale})")
    if game == "scout":
        open_seeded_room(page, base, game, ["random", "random"], "Anna", seed=SEED)
        page.get_by_test_id("btn-keep").wait_for()
        assert_fits(page, f"the flip decision ({locale})")
        decide(page, "keep")
        rng = random.Random(SEED)
        while True:  # on to Anna's turn with cards on the table
            wait_for_my_turn(page)
            if page.get_by_test_id("table-end-L").count():
                break
            scout_move(page, rng)
    else:
        options = {"rounds": 3}
        open_seeded_room(page, base, game, ["random", "random"], "Anna", seed=1, options=options)
        wait_for_my_turn(page)
    assert_fits(page, f"the table ({locale})")
    hand_on_first_screen(page)
    # Wherever the page is scrolled, the hand's buttons stay in view (the action bar is sticky).
    button = "[data-testid=btn-show]" if game == "scout" else "[data-testid=btn-lay]"
    for where in ("0", "document.body.scrollHeight / 3", "document.body.scrollHeight"):
        page.evaluate(f"window.scrollTo(0, {where})")
        assert page.evaluate(IN_VIEW, button), f"the hand's buttons are out of sight ({where})"
    if game == "scout":  # opponents name their last action (the seeded game has moves by now)
        expect(page.locator("[data-testid^=opp-last-]").first).to_be_visible()
    page.get_by_test_id("learn-toggle").click()
    expect(page.get_by_test_id("learn-now")).to_be_visible()
    assert_fits(page, f"the table with the explanations open ({locale})")
    page.get_by_test_id("learn-toggle").click()
    if game == "scout":
        page.get_by_test_id("table-end-L").click()
        expect(page.get_by_test_id("gap-0")).to_be_visible()
        assert_fits(page, f"choosing where the scouted card goes ({locale})")
        page.get_by_test_id("gap-0").click()
        assert_fits(page, f"the scouted card in the hand ({locale})")
        page.get_by_test_id("btn-cancel").click()
    play_to_the_round_summary(page, game, SEED)
    # The summary and the status line are in view wherever the page is scrolled to.
    expect(page.get_by_test_id("summary-panel")).to_be_visible()
    for where in ("0", "document.body.scrollHeight / 2", "document.body.scrollHeight"):
        page.evaluate(f"window.scrollTo(0, {where})")
        assert page.evaluate(IN_VIEW, "[data-testid=summary-panel]"), f"the summary is out of sight ({where})"
        assert page.evaluate(IN_VIEW, "[data-testid=status]"), f"the status line is out of sight ({where})"
    assert_fits(page, f"the round summary ({locale})")
    play_until_over([page], game, seed=SEED)
    expect(page.get_by_test_id("final-results")).to_be_visible()
    assert_fits(page, f"the final results ({locale})")
    page.get_by_test_id("open-replay").click()
    page.get_by_test_id("replay-next").click()
    assert_fits(page, f"the replay ({locale})")


@pytest.mark.parametrize("game", ["scout", "schmaus"])
@pytest.mark.parametrize("locale", ["en-US", "de-DE"])
def test_every_screen_fits_a_phone(
    live_server: LiveServer, new_page: NewPage, game: str, locale: str
) -> None:
    page = new_page(locale=locale, width=390, height=844)
    walk_the_table(page, live_server.url, game, locale)


def test_the_hand_and_the_round_results_are_not_cut_off_on_a_laptop(
    live_server: LiveServer, new_page: NewPage
) -> None:
    laptop = ((1280, 800),)
    page = new_page(locale="en-US")
    open_seeded_room(page, live_server.url, "scout", ["random", "random"], "Anna", seed=SEED)
    decide(page, "keep")
    rng = random.Random(SEED)
    while True:
        wait_for_my_turn(page)
        if page.get_by_test_id("table-end-L").count():
            break
        scout_move(page, rng)
    page.get_by_test_id("table-end-L").click()
    gaps = page.locator("[data-testid^=gap-]")
    expect(gaps.first).to_be_visible()
    assert gaps.count() == page.locator("[data-testid^=hand-card-]").count() + 1
    assert_fits(page, "choosing where the scouted card goes", laptop)  # every gap and card inside the hand
    page.get_by_test_id("btn-cancel").click()
    play_to_the_round_summary(page, "scout", SEED)
    page.get_by_test_id("summary-close").click()
    rounds = page.locator(".side details", has=page.get_by_test_id("round-summary"))
    rounds.locator("summary").click()
    table = rounds.locator(".table-wrap").first
    expect(table).to_be_visible()
    clipped = table.evaluate("(w) => [w.scrollWidth, w.clientWidth]")
    assert clipped[0] <= clipped[1], f"the round results are cut: {clipped[0]} px in {clipped[1]} px"
    expect(rounds).to_contain_text("Total")
    assert_fits(page, "the round results beside the table", laptop)
