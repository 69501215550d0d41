"""The review and hints in a real browser (docs/review.md): a person asks for a
hint, finishes a game against a bot, opens the review and reads the marks and
the summary, in English and German, on the results screen and in the replay."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from browser_helpers import (
    LiveServer,
    assert_fits,
    check_screen,
    is_mine,
    play_until_over,
    version,
    wait_for_change,
)
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

NewPage = Callable[..., Page]

SEED = 20261202
"""A fixed deal, bot and choices: the same game, and so the same review, every run."""


def open_room(page: Page, base: str, hints: bool) -> str:
    seats = [{"kind": "human"}, {"kind": "bot", "level": "easy"}]
    body = {"game": "schmaus", "players": 2, "seats": seats, "name": "Alice", "seed": SEED}
    body.update(options={"rounds": 3}, hints=hints)
    res = page.request.post(base + "/api/rooms", data=body)
    assert res.ok, res.text()
    data = res.json()
    page.goto(f"{base}/r/{data['room']}#seat={data['seat']}&secret={data['secret']}")
    expect(page.get_by_test_id("room")).to_be_visible()
    return str(data["room"])


def test_a_hint_then_the_review_of_the_finished_game(live_server: LiveServer, new_page: NewPage) -> None:
    page = new_page()
    open_room(page, live_server.url, hints=True)
    # Hints are on: everybody sees it; the button shows the bot's move and why.
    expect(page.get_by_test_id("hints-on")).to_have_text("Hints allowed")
    while not is_mine(page):
        page.wait_for_timeout(30)
    page.get_by_test_id("btn-hint").click()
    expect(page.get_by_test_id("hint")).to_contain_text("Suggested move: lay")
    expect(page.get_by_test_id("hint-reason")).to_contain_text(
        re.compile(r"Lay .+ it expects the most of this round's pot \(about \d+ points\)")
    )
    # The hinted lay is marked on the hand: three cards, a lay the table takes.
    hinted = page.locator("[data-testid^=hand-card-].hinted")
    expect(hinted).to_have_count(3)
    check_screen(page, "a hint")
    before = version(page)
    for testid in hinted.evaluate_all("es => es.map((e) => e.dataset.testid)"):
        page.get_by_test_id(testid).click()
    page.get_by_test_id("btn-lay").click()
    wait_for_change(page, before)  # (it fails on a refusal)
    play_until_over([page], "schmaus", seed=SEED)
    expect(page.get_by_test_id("final-results")).to_be_visible()
    # The review: progress while the workers rate, then the summary and the marks.
    page.get_by_test_id("open-review").click()
    expect(page.get_by_test_id("review")).to_be_visible()
    # It comes into view where it opens (below the results at 1280×800).
    page.wait_for_function(
        "() => { const r = document.querySelector('[data-testid=review]').getBoundingClientRect();"
        " return r.top >= 0 && r.top < innerHeight / 2; }"
    )
    summary = page.get_by_test_id("review-summary")
    expect(summary).to_be_visible(timeout=60_000)
    expect(page.get_by_test_id("review-summary-0")).to_contain_text("Alice")
    expect(page.get_by_test_id("review-summary-1")).to_contain_text("Bot 2")
    name = page.url.rsplit("/", 1)[1]  # the invite link's CODE-KEY: a finished game opens by it
    stored = page.request.get(f"{live_server.url}/api/rooms/{name}/review").json()
    assert stored["status"] == "done"
    marks = {
        seat["seat"]: [d["number"] for d in seat["decisions"] if d["mark"]] for seat in stored["reviews"]
    }
    seat = next(s for s in (0, 1) if marks[s])  # the fixed game has marked decisions
    page.get_by_test_id("review-seat").select_option(str(seat))
    decisions = page.get_by_test_id("review-decisions")
    expect(decisions.locator("tbody tr")).to_have_count(len(stored["reviews"][seat]["decisions"]))
    expect(decisions.locator("[data-testid^=mark-]")).to_have_count(len(marks[seat]))
    first = page.get_by_test_id(f"review-decision-{marks[seat][0]}")
    expect(first).to_contain_text(re.compile(r"Mistake|Blunder"))
    expect(first).to_contain_text(re.compile(r"lay|grocer|×5"))
    summary_row = page.get_by_test_id(f"review-summary-{seat}")
    blunders = sum(d["mark"] == "blunder" for d in stored["reviews"][seat]["decisions"])
    expect(summary_row.locator("td").nth(3)).to_have_text(str(blunders))
    check_screen(page, "the review")
    assert_fits(page, "the review")
    # In German.
    page.get_by_test_id("lang-toggle").click()
    expect(page.get_by_test_id("review")).to_contain_text("Übersicht je Spieler")
    expect(first).to_contain_text(re.compile(r"Grober Fehler|Fehler"))
    check_screen(page, "the review in German")
    page.get_by_test_id("lang-toggle").click()
    # In the replay: each step says how good the move was.
    page.get_by_test_id("review-close").click()
    page.get_by_test_id("open-replay").click()
    page.get_by_test_id("replay-review").click()
    expect(page.get_by_test_id("review-summary")).to_be_visible()  # stored: at once
    page.get_by_test_id("replay-slider").fill(str(marks[seat][0]))
    expect(page.get_by_test_id("replay-rating")).to_contain_text(re.compile(r"(Mistake|Blunder) Better: "))
    check_screen(page, "the replay with the review")


def test_no_hint_button_when_the_room_does_not_allow_hints(
    live_server: LiveServer, new_page: NewPage
) -> None:
    page = new_page(locale="de-DE")
    open_room(page, live_server.url, hints=False)
    while not is_mine(page):
        page.wait_for_timeout(30)
    expect(page.get_by_test_id("btn-lay")).to_be_visible()
    expect(page.get_by_test_id("btn-hint")).to_have_count(0)
    expect(page.get_by_test_id("hints-on")).to_have_count(0)
    # The start page offers the option, in German too.
    page.goto(live_server.url + "/")
    expect(page.get_by_test_id("opt-hints").locator("xpath=..")).to_contain_text("Tipps erlauben")


@pytest.mark.parametrize(
    ("locale", "between", "first"),
    [
        ("en-US", "take the 6, put it between 3 and 5", "take the 6, put it far left, before 3"),
        (
            "de-DE",
            "die 6 nehmen und zwischen 3 und 5 einstecken",
            "die 6 nehmen und ganz links vor der 3 einstecken",
        ),
    ],
)
def test_a_scout_in_words_names_where_the_card_goes(
    live_server: LiveServer, new_page: NewPage, locale: str, between: str, first: str
) -> None:
    """The review and the replay say moves in words: two scouts of the same card to
    different places must not read the same (issue #35)."""
    page = new_page(locale=locale)
    page.goto(live_server.url)
    expect(page.locator("#app")).not_to_be_empty()
    said = page.evaluate(
        """async () => {
          const { moveText } = await import("/static/js/review.js");
          // The texts may still be on their way while the page starts: wait for them.
          await (await import("/static/js/i18n.js")).loadLanguages();
          const frame = { hands: { 0: ["3/1", "5/2"] }, view: { table: { cards: ["6/4", "7/4"] } } };
          const moves = ["scout L @1", "scout L @0", "scout L @2 show 1-2"];
          return moves.map((m) => moveText("scout", m, frame, 0, String));
        }"""
    )
    assert said[0] == between and said[1] == first
    assert len(set(said)) == 3 and ("after 5" in said[2] or "nach der 5" in said[2])


def test_the_end_shows_each_players_review_by_itself(live_server: LiveServer, new_page: NewPage) -> None:
    page = new_page(auto_review=True)
    open_room(page, live_server.url, hints=False)
    play_until_over([page], "schmaus", seed=SEED)
    expect(page.get_by_test_id("final-results")).to_be_visible()
    # Nobody pressed anything: the review runs, then each player's summary is on the end screen.
    expect(page.get_by_test_id("review-summary")).to_be_visible(timeout=60_000)
    expect(page.get_by_test_id("review-summary-0")).to_contain_text("Alice")
    expect(page.get_by_test_id("review-summary-1")).to_contain_text("Bot 2")
    expect(page.get_by_test_id("open-review")).to_have_count(0)
    switch = page.get_by_test_id("auto-review")
    expect(switch).to_be_checked()
    check_screen(page, "the end with the review")
    # Switched off, and remembered: after a reload the review waits for its button.
    switch.uncheck()
    page.reload()
    expect(page.get_by_test_id("final-results")).to_be_visible()
    expect(page.get_by_test_id("open-review")).to_be_visible()
    expect(page.get_by_test_id("review")).to_have_count(0)
    expect(page.get_by_test_id("auto-review")).not_to_be_checked()
