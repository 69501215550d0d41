"""Learn to play (issue #35): the guided lesson of each game, in English and German, at
desktop and phone widths. Every step is completed through the table's own controls; a
wrong move is refused where the player is looking (a legal one the step does not teach,
and an illegal one with its ruling); "Show me" marks the taught move; the lesson ends in
a short game against easy bots. Every screen passes axe and fits 360-430 px."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from browser_helpers import INVITE_URL, LiveServer, assert_fits, check_screen, play_move
from playwright.sync_api import Page, expect

from spieltisch.tutorial import FINAL_GAME, lesson

pytestmark = pytest.mark.browser

NewPage = Callable[..., Page]

IN_VIEW = "el => { const r = el.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }"
PHONES = (360, 390, 430)

WRONG = {
    # A legal move each first step does not teach, and what the refusal says.
    "scout": "keep",
    "schmaus": "play F1 F2 F3",
}
SHOW_ME = {
    # A later step, and the mark "Show me" puts on its taught move.
    "scout": ("scout", ".table-area [data-testid=table-end-L].hinted"),
    "schmaus": ("guardian", ".hand-area [data-card=GUARDIAN].hinted"),
}
NOT_TAUGHT = {"en-US": "this step teaches another one", "de-DE": "dieser Schritt übt einen anderen"}


def unselect(page: Page) -> None:
    """Press the chosen cards again (a refused move leaves them chosen, to be changed)."""
    chosen = page.locator(".hand-area button[aria-pressed=true]")
    while chosen.count():
        chosen.first.click()


@pytest.mark.parametrize("locale", ["en-US", "de-DE"])
@pytest.mark.parametrize("game", ["scout", "schmaus"])
def test_the_lesson_can_be_completed_and_refuses_wrong_moves(
    live_server: LiveServer, new_page: NewPage, game: str, locale: str
) -> None:
    page = new_page(locale=locale)
    page.goto(live_server.url + "/")
    page.get_by_test_id(f"learn-{game}").click()
    page.wait_for_url(re.compile(f"/learn/{game}$"))
    steps = lesson(game).steps
    for number, step in enumerate(steps, 1):
        screen = f"{game} lesson step {step.id} ({locale})"
        current = page.get_by_test_id("tutorial-step")
        expect(current).to_have_attribute("data-step", step.id)
        expect(page.get_by_test_id("tutorial-progress")).to_contain_text(f"{number}")
        expect(page.get_by_test_id("tutorial-text")).to_contain_text(step.rules[0])
        check_screen(page, screen)
        assert_fits(page, screen, (1280, *PHONES))
        if number == 1:
            # A legal move the step does not teach: refused, said, in view; "Show me" marks the way.
            play_move(page, game, WRONG[game])
            notice = page.get_by_test_id("notice")
            expect(notice).to_contain_text(NOT_TAUGHT[locale])
            expect(notice).to_have_attribute("role", "alert")
            page.wait_for_function(f"({IN_VIEW})(document.querySelector('[data-testid=notice]'))")
            expect(current).to_have_attribute("data-done", "false")
            expect(page.locator(".tutorial-table .hinted").first).to_be_visible()
            check_screen(page, f"{screen}, refused")
            unselect(page)
        if step.id == "beat":
            # An illegal move: the single 9 does not beat the run 6-7 (S-7).
            play_move(page, game, "show 0")
            expect(page.get_by_test_id("notice")).to_contain_text("S-7")
            expect(current).to_have_attribute("data-done", "false")
            unselect(page)
        if step.id == SHOW_ME[game][0]:
            expect(page.locator(".tutorial-table .hinted")).to_have_count(0)
            page.get_by_test_id("tutorial-show-me").click()
            expect(page.locator(SHOW_ME[game][1])).to_have_count(1)
        play_move(page, game, step.teach[0])
        done = page.get_by_test_id("tutorial-done")
        expect(done).to_be_visible()
        page.wait_for_function(f"({IN_VIEW})(document.querySelector('[data-testid=tutorial-done]'))")
        expect(current).to_have_attribute("data-done", "true")
        if number == len(steps) or game == "schmaus":
            expect(page.get_by_test_id("summary-panel")).to_be_visible()  # the round's outcome
        check_screen(page, f"{screen}, done")
        page.get_by_test_id("tutorial-next").click()
    final = page.get_by_test_id("tutorial-final")
    expect(final).to_be_visible()
    check_screen(page, f"{game} lesson, the end ({locale})")
    assert_fits(page, f"{game} lesson, the end", (1280, *PHONES))
    # The short game against easy bots: hints on, the explanations open.
    page.get_by_test_id("tutorial-play").click()
    page.wait_for_url(INVITE_URL)
    expect(page.get_by_test_id("hints-on")).to_be_visible()
    expect(page.locator("[data-testid^=player-]")).to_have_count(FINAL_GAME[game]["players"])
    expect(page.locator(".learn")).to_be_visible()


def test_a_finished_lesson_starts_again_on_a_phone(live_server: LiveServer, new_page: NewPage) -> None:
    page = new_page(locale="en-US", width=390, height=844)
    page.goto(live_server.url + "/learn/schmaus")
    steps = lesson("schmaus").steps
    for step in steps:
        expect(page.get_by_test_id("tutorial-step")).to_have_attribute("data-step", step.id)
        play_move(page, "schmaus", step.teach[0])
        page.get_by_test_id("tutorial-next").click()
    page.get_by_test_id("tutorial-again").click()
    expect(page.get_by_test_id("tutorial-step")).to_have_attribute("data-step", steps[0].id)
    expect(page.get_by_test_id("tutorial-progress")).to_have_text(f"Step 1 of {len(steps)}")
