"""Every screen of both games audited in English and German (issue #38).

Per game and language one person walks through the whole life of a table: the
start page, the lobby and the join page, the table mid-game with the cards as
buttons (Scout: the flip decision, choosing a table end, the scouted card in
its gap), a hint, a round summary, the final results, the replay and the
review. Each screen gets the standing checks of ``check_screen``: axe-core
(0 serious or critical violations; it checks "label in name", WCAG 2.5.3),
no untranslated text, every picture loaded. Names a person says to voice
control begin with what the card shows.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import pytest
from browser_helpers import (
    LiveServer,
    check_screen,
    create_room,
    decide,
    is_over,
    open_seeded_room,
    play_to_the_round_summary,
    play_until_over,
    scout_move,
    wait_for_my_turn,
)
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

NewPage = Callable[..., Page]

SEED = 20261206
"""A fixed deal, bots and choices: the same game every run."""
SCHMAUS_SEED = 1
"""A Waschbär-Schmaus deal in which Anna holds the ×5 raccoon (she lays it and chooses its card)."""

WORDS = {
    "en-US": {"other": "other side", "value": "value", "keep": "Keep it this way", "summary": "Continue"},
    "de-DE": {"other": "andere Seite", "value": "Wert", "keep": "So behalten", "summary": "Weiter"},
}


def the_start_the_lobby_and_the_join_page(page: Page, join: Page, base: str, game: str, lang: str) -> None:
    page.goto(base + "/")
    expect(page.get_by_test_id("create-room")).to_be_visible()
    check_screen(page, f"the start page ({lang})")
    invite = create_room(page, base, game, 3, ["human", "bot:easy"], "Anna")
    expect(page.get_by_test_id("lobby")).to_be_visible()
    check_screen(page, f"the lobby ({lang})")
    join.goto(invite)
    expect(join.get_by_test_id("join-panel")).to_be_visible()
    check_screen(join, f"the join page ({lang})")


def a_hint(page: Page, lang: str) -> None:
    page.get_by_test_id("btn-hint").click()
    expect(page.get_by_test_id("hint-reason")).not_to_be_empty(timeout=30_000)
    check_screen(page, f"a hint ({lang})")


def the_end_the_replay_and_the_review(page: Page, game: str, lang: str) -> None:
    if not is_over(page):
        expect(page.get_by_test_id("summary-close")).to_have_text(WORDS[lang]["summary"])
        check_screen(page, f"the round summary ({lang})")
    play_until_over([page], game, seed=SEED)
    expect(page.get_by_test_id("final-results")).to_be_visible()
    check_screen(page, f"the final results ({lang})")
    page.get_by_test_id("open-replay").click()
    expect(page.get_by_test_id("replay")).to_be_visible()
    page.get_by_test_id("replay-next").click()
    check_screen(page, f"the replay ({lang})")
    page.get_by_test_id("replay-close").click()
    page.get_by_test_id("open-review").click()
    expect(page.get_by_test_id("review-summary")).to_be_visible(timeout=120_000)
    check_screen(page, f"the review ({lang})")


@pytest.mark.parametrize("locale", ["en-US", "de-DE"])
def test_every_scout_screen_is_accessible(live_server: LiveServer, new_page: NewPage, locale: str) -> None:
    base = live_server.url
    page, join = new_page(locale=locale), new_page(locale=locale)
    words = WORDS[locale]
    the_start_the_lobby_and_the_join_page(page, join, base, "scout", locale)
    open_seeded_room(page, base, "scout", ["random", "random"], "Anna", seed=SEED, hints=True)
    expect(page.get_by_test_id("btn-keep")).to_have_text(words["keep"])
    check_screen(page, f"the flip decision ({locale})")
    decide(page, "keep")
    # Play on until it is Anna's turn with cards on the table (she may scout them).
    rng = random.Random(SEED)
    while True:
        wait_for_my_turn(page)
        if page.get_by_test_id("table-end-L").count():
            break
        scout_move(page, rng)
    card = page.get_by_test_id("hand-card-0")
    top = card.evaluate("(b) => b.querySelector('.top').firstChild.nodeValue")
    expect(card).to_have_accessible_name(re.compile(rf"^{top}\s*, {words['other']} \d+$"))
    check_screen(page, f"the Scout table ({locale})")
    a_hint(page, locale)
    end = page.get_by_test_id("table-end-L")
    shown = end.evaluate("(b) => b.querySelector('.top').firstChild.nodeValue")
    expect(end).to_have_accessible_name(re.compile(rf"^{shown}\s*, {words['other']} \d+ – \S"))
    end.click()
    check_screen(page, f"choosing where the scouted card goes ({locale})")
    page.get_by_test_id("gap-0").click()
    expect(page.get_by_test_id("hand-card-0")).to_have_class(re.compile(r"\bfresh\b"))
    check_screen(page, f"the scouted card in the hand ({locale})")
    page.get_by_test_id("btn-cancel").click()
    play_to_the_round_summary(page, "scout", SEED)
    the_end_the_replay_and_the_review(page, "scout", locale)


@pytest.mark.parametrize("locale", ["en-US", "de-DE"])
def test_every_waschbaer_schmaus_screen_is_accessible(
    live_server: LiveServer, new_page: NewPage, locale: str
) -> None:
    base = live_server.url
    page, join = new_page(locale=locale), new_page(locale=locale)
    words = WORDS[locale]
    the_start_the_lobby_and_the_join_page(page, join, base, "schmaus", locale)
    bots = ["random", "random"]
    options = {"rounds": 3}  # the summary of round 1 always comes before the end
    open_seeded_room(page, base, "schmaus", bots, "Anna", seed=SCHMAUS_SEED, hints=True, options=options)
    wait_for_my_turn(page)
    card = page.get_by_test_id("hand-card-0")
    name = card.locator(".wname").evaluate("(n) => n.firstChild.nodeValue")
    expect(card).to_have_accessible_name(re.compile(rf"^{re.escape(name)}\s*, {words['value']} \+?\d+$"))
    check_screen(page, f"the Waschbär-Schmaus table ({locale})")
    a_hint(page, locale)
    # Lay the ×5 raccoon with two different foods, then choose the card it multiplies (W-11).
    for wanted in ("X5", "F1", "F4"):
        page.locator(f"[data-testid^=hand-card-][data-card={wanted}][aria-pressed=false]").first.click()
    page.get_by_test_id("btn-lay").click()
    choice = page.locator("[data-testid^=btn-x5-]").first
    expect(choice).to_have_accessible_name(re.compile(rf"^\S.*, {words['value']} \d+$"))
    check_screen(page, f"choosing the ×5 raccoon's card ({locale})")
    choice.click()
    page.locator("[data-testid^=btn-x5-]").first.wait_for(state="detached")  # the choice was taken
    play_to_the_round_summary(page, "schmaus", SEED)
    the_end_the_replay_and_the_review(page, "schmaus", locale)
