"""Save the main screens of the web table under docs/screenshots/.

Run: ``.venv/bin/python tests/browser/make_screenshots.py`` (starts its own
server on a temporary SQLite file). Desktop 1280×800 and phone 390×844.
"""

from __future__ import annotations

import random
import re
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import Browser, Page, sync_playwright

from spieltisch.tutorial import lesson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browser_helpers import (
    LiveServer,
    create_room,
    is_mine,
    legal_moves,
    play_move,
    play_to_the_round_summary,
    play_until_over,
    scout_move,
    version,
)
from conftest import CHROMIUM, CHROMIUM_ARGS

OUT = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


def wait_mine(page: Page) -> None:
    while not is_mine(page):
        page.wait_for_timeout(30)


def shot(page: Page, name: str, size: str) -> None:
    path = OUT / f"{name}-{size}.png"
    page.screenshot(path=str(path))
    print(f"saved {path.relative_to(OUT.parents[1])}")


def scout_screens(browser: Browser, base: str, size: str) -> None:
    width, height = SIZES[size]
    page = browser.new_context(viewport={"width": width, "height": height}, locale="en-US").new_page()
    create_room(page, base, "scout", 3, ["bot:easy", "bot:easy"], "Alice")
    rng = random.Random(11)
    wait_mine(page)
    page.get_by_test_id("btn-keep").click()
    # Play on until it is our turn with a table to scout from and scout & show open.
    while True:
        wait_mine(page)
        moves = legal_moves(page)
        page.get_by_test_id("legal-toggle").click()  # close the list again
        combos = [m for m in moves if " show " in m and re.search(r"show \d+-\d+$", m)]
        if combos and page.get_by_test_id("round-summary").count() == 0:
            break
        scout_move(page, rng)
        if page.get_by_test_id("summary-close").count():
            page.get_by_test_id("summary-close").click()
    shot(page, "scout-table", size)
    page.get_by_test_id("learn-toggle").click()  # how to play, and what the decision now means
    page.evaluate("document.querySelector('[data-testid=learn]').scrollIntoView()")
    shot(page, "learn", size)
    page.get_by_test_id("learn-toggle").click()
    m = re.fullmatch(r"scout ([LR])( flip)? @(\d+) show (\d+)-(\d+)", combos[0])
    assert m
    end = page.get_by_test_id(f"table-end-{m.group(1)}")
    (end if end.count() else page.get_by_test_id("table-end-L")).click()
    if m.group(2):
        page.get_by_test_id("btn-turn").click()
    page.get_by_test_id(f"gap-{m.group(3)}").click()
    for i in range(int(m.group(4)), int(m.group(5)) + 1):
        page.get_by_test_id(f"hand-card-{i}").click()
    shot(page, "scout-scout-and-show", size)
    page.context.close()


def schmaus_screens(browser: Browser, base: str, size: str) -> None:
    width, height = SIZES[size]
    page = browser.new_context(viewport={"width": width, "height": height}, locale="en-US").new_page()
    create_room(page, base, "schmaus", 3, ["bot:easy", "bot:medium"], "Alice", options={"rounds": "2"})
    wait_mine(page)
    play = next(m for m in legal_moves(page) if len(m.split()) == 4)
    page.get_by_test_id("legal-toggle").click()
    cards = page.locator("[data-testid^=hand-card-]")
    used: set[int] = set()
    for card in play.split()[1:]:
        for i in range(cards.count()):
            if i not in used and cards.nth(i).get_attribute("data-card") == card:
                used.add(i)
                cards.nth(i).click()
                break
    shot(page, "schmaus-lay", size)
    before = version(page)
    page.get_by_test_id("btn-lay").click()
    page.wait_for_function(f"document.querySelector('[data-testid=room]').dataset.version != '{before}'")
    play_to_the_round_summary(page, "schmaus", 2)
    page.evaluate("document.querySelector('.summary-panel').scrollIntoView()")
    shot(page, "round-summary", size)
    play_until_over([page], "schmaus", seed=4)
    page.get_by_test_id("final-results").scroll_into_view_if_needed()
    shot(page, "final", size)
    page.get_by_test_id("open-replay").click()
    slider = page.get_by_test_id("replay-slider")
    slider.fill(str(int(slider.get_attribute("max") or "1") // 2))
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, "replay", size)
    page.context.close()


def review_screens(browser: Browser, base: str, size: str) -> None:
    """A hint at a table that allows them, then the review of the finished game."""
    width, height = SIZES[size]
    page = browser.new_context(viewport={"width": width, "height": height}, locale="en-US").new_page()
    seats = [{"kind": "human"}, {"kind": "bot", "level": "easy"}]
    body = {"game": "schmaus", "players": 2, "seats": seats, "name": "Alice", "seed": 20261202}
    body.update(options={"rounds": 3}, hints=True)
    data = page.request.post(base + "/api/rooms", data=body).json()
    page.goto(f"{base}/r/{data['room']}#seat={data['seat']}&secret={data['secret']}")
    wait_mine(page)
    page.get_by_test_id("btn-hint").click()
    page.get_by_test_id("hint").wait_for()
    shot(page, "hint", size)
    play_until_over([page], "schmaus", seed=20261202)
    page.get_by_test_id("open-review").click()
    page.get_by_test_id("review-summary").wait_for()
    page.evaluate("document.querySelector('[data-testid=review]').scrollIntoView()")
    shot(page, "review", size)
    page.context.close()


def start_screen(browser: Browser, base: str, size: str) -> None:
    width, height = SIZES[size]
    page = browser.new_context(viewport={"width": width, "height": height}, locale="en-US").new_page()
    page.goto(base + "/")
    page.get_by_test_id("create-room").wait_for()
    page.get_by_test_id("name-input").fill("Alice")
    shot(page, "start", size)
    de = browser.new_context(viewport={"width": width, "height": height}, locale="de-DE").new_page()
    de.goto(base + "/")
    de.get_by_test_id("game-schmaus").check()
    de.get_by_test_id("create-room").wait_for()
    shot(de, "start-de", size)
    page.context.close()
    de.context.close()


def tutorial_screens(browser: Browser, base: str, size: str) -> None:
    """Learn to play: Scout's Scout & Show step with "Show me" on, and the outcome of the
    first Waschbär-Schmaus step."""
    width, height = SIZES[size]
    page = browser.new_context(viewport={"width": width, "height": height}, locale="en-US").new_page()
    page.goto(base + "/learn/scout")
    for step in lesson("scout").steps:
        page.get_by_test_id("tutorial-step").and_(page.locator(f"[data-step={step.id}]")).wait_for()
        if step.id == "scoutShow":
            page.get_by_test_id("tutorial-show-me").click()
            page.get_by_test_id("tutorial-step-title").scroll_into_view_if_needed()
            shot(page, "tutorial-scout", size)
            break
        play_move(page, "scout", step.teach[0])
        page.get_by_test_id("tutorial-next").click()
    page.goto(base + "/learn/schmaus")
    page.get_by_test_id("tutorial-step").wait_for()
    play_move(page, "schmaus", lesson("schmaus").steps[0].teach[0])
    page.get_by_test_id("tutorial-done").scroll_into_view_if_needed()
    shot(page, "tutorial-schmaus-done", size)
    page.context.close()


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        server = LiveServer(f"sqlite:///{tmp}/shots.db")
        server.start()
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
                for size in SIZES:
                    start_screen(browser, server.url, size)
                    scout_screens(browser, server.url, size)
                    schmaus_screens(browser, server.url, size)
                    review_screens(browser, server.url, size)
                    tutorial_screens(browser, server.url, size)
                browser.close()
        finally:
            server.stop()


if __name__ == "__main__":
    main()
