"""The table comes alive (issue #35): cards move (and stay still for reduced motion), the
last move and a hinted move are marked on the cards, the log names cards, turns are
noticed (tab title, sound, opt-in notification), away players show a countdown, a
refusal stays in view, leaving turns the page into a spectator's, Waschbär-Schmaus
reveals the lays before the summary, and the end shows placings and a score chart."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from typing import Any

import pytest
from browser_helpers import (
    LiveServer,
    check_screen,
    is_mine,
    legal_moves,
    play_until_over,
    schmaus_move,
    scout_move,
    version,
    wait_for_change,
    wait_for_my_turn,
)
from playwright.sync_api import Locator, Page, expect

pytestmark = pytest.mark.browser

NewPage = Callable[..., Page]

IN_VIEW = "el => { const r = el.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }"

FAKE_NOTIFICATIONS = """(() => {
  // A stand-in for the browser's Notification (headless Chromium shows none) that
  // records what the page does with it, and a switch for document.hidden.
  const made = [];
  let asked = 0;
  class FakeNotification {
    static permission = "default";
    static async requestPermission() {
      asked += 1;
      FakeNotification.permission = "granted";
      return "granted";
    }
    constructor(title, options) { made.push({ title, body: options && options.body }); }
    close() {}
  }
  window.Notification = FakeNotification;
  window.__notes = { made, asked: () => asked };
  let hidden = false;
  Object.defineProperty(document, "hidden", { configurable: true, get: () => hidden });
  window.__hide = (value) => { hidden = value; };
})()"""


def open_room(page: Page, base: str, game: str, seats: list[str], seed: int, **extra: Any) -> dict[str, Any]:
    """A table through the HTTP API: seat 0 for Alice, then ``seats`` ('human' or a bot level)."""
    kinds = [{"kind": "human"}] + [
        {"kind": "human"} if s == "human" else {"kind": "bot", "level": s} for s in seats
    ]
    body = {"game": game, "players": len(kinds), "seats": kinds, "name": "Alice", "seed": seed, **extra}
    res = page.request.post(base + "/api/rooms", data=body)
    assert res.ok, res.text()
    data: dict[str, Any] = res.json()
    return data


def sit(page: Page, base: str, room: str, seat: int, secret: str) -> None:
    page.goto(f"{base}/r/{room}#seat={seat}&secret={secret}")
    expect(page.get_by_test_id("room")).to_be_visible()


def join(page: Page, base: str, room: str, name: str) -> tuple[int, str]:
    res = page.request.post(f"{base}/api/rooms/{room}/join", data={"name": name})
    assert res.ok, res.text()
    return int(res.json()["seat"]), str(res.json()["secret"])


def play_to_the_reveal(page: Page, rng: random.Random, limit: float = 120.0) -> Locator:
    """Make this page's decisions until the revealed lays are on the table (the game must
    not end first, and it must come within ``limit`` seconds)."""
    stage = page.get_by_test_id("reveal-stage")
    deadline = time.monotonic() + limit
    while not stage.count():
        assert page.get_by_test_id("room").get_attribute("data-status") == "playing", "no reveal: game over"
        assert time.monotonic() < deadline, f"no reveal within {limit:.0f} s"
        if is_mine(page):
            schmaus_move(page, rng)
        page.wait_for_timeout(20)
    return stage


def log_lines(page: Page) -> list[str]:
    lines: list[str] = page.get_by_test_id("log").locator("li").all_text_contents()
    return lines


def test_turn_notices_named_cards_last_move_and_moving_cards(
    live_server: LiveServer, new_page: NewPage
) -> None:
    base = live_server.url
    alice, bob = new_page(), new_page()
    alice.add_init_script(FAKE_NOTIFICATIONS)
    data = open_room(alice, base, "scout", ["human", "random"], seed=41)
    room = data["room"]
    bob_seat, bob_secret = join(bob, base, room, "Bob")
    sit(alice, base, room, 0, data["secret"])
    sit(bob, base, room, bob_seat, bob_secret)
    # The flip decision is Alice's to make: the tab says so, in its title and its icon.
    expect(alice).to_have_title(f"● Your turn · Scout · {room}")
    icon = alice.locator("link[rel=icon]")
    expect(icon).to_have_attribute("data-turn", "true")
    assert "circle" in (icon.get_attribute("href") or "")
    # Sound and notifications are off until she switches them on; only then the browser asks.
    assert alice.evaluate("window.__notes.asked()") == 0
    expect(alice.get_by_test_id("sound-switch")).not_to_be_checked()
    alice.get_by_test_id("sound-switch").check()
    alice.get_by_test_id("notify-switch").check()
    assert alice.evaluate("window.__notes.asked()") == 1
    expect(alice.get_by_test_id("notify-switch")).to_be_checked()
    assert alice.evaluate("window.__spieltischChimes") == 1  # what it sounds like
    check_screen(alice, "the table with the turn notice switches")
    alice.get_by_test_id("btn-keep").click()
    # Decided: while Bob decides, the tab is the plain title and icon again.
    expect(alice).to_have_title(f"Scout · {room}")
    expect(icon).to_have_attribute("data-turn", "false")
    assert "circle" not in (icon.get_attribute("href") or "")
    # Alice looks at another tab; when her turn comes she is notified, with the chime.
    alice.evaluate("window.__hide(true)")
    rng = random.Random(4)
    bob.get_by_test_id("btn-keep").click()
    deadline = 60
    while not is_mine(alice):
        if is_mine(bob):
            scout_move(bob, rng)
        alice.wait_for_timeout(50)
        deadline -= 1
        assert deadline > 0 or is_mine(alice), "Alice's turn never came"
    expect(alice).to_have_title(f"● Your turn · Scout · {room}")
    made = alice.evaluate("window.__notes.made")
    assert made and made[-1]["title"] == f"● Your turn · Scout · {room}", made
    assert alice.evaluate("window.__spieltischChimes") >= 2
    alice.evaluate("window.__hide(false)")
    # The sound choice is remembered.
    alice.reload()
    expect(alice.get_by_test_id("sound-switch")).to_be_checked()

    # Play on until somebody else has shown a set: the log names its cards.
    shown = re.compile(r"^(Bob|Bot 3 \(random\)) shows \d+( \d+)*\.$")
    for _ in range(80):
        if any(shown.match(line) for line in log_lines(alice)):
            break
        for page in (alice, bob):
            if is_mine(page):
                scout_move(page, rng)
        alice.wait_for_timeout(40)
    assert any(shown.match(line) for line in log_lines(alice)), log_lines(alice)
    while not (is_mine(alice) or is_mine(bob)):  # the bots are done: the table stands still
        alice.wait_for_timeout(30)
    assert not any(re.search(r"shows \d+ cards?\.", line) for line in log_lines(alice))
    # The last move is named above the table and marked on it until the next one.
    last = log_lines(alice)[-1]
    expect(alice.get_by_test_id("last-move")).to_have_text(f"Last move: {last}")
    assert alice.locator(".player.last-mover").count() == 1

    # Alice scouts: the log says which card went where, and the card travels into her hand.
    for _ in range(80):
        if is_mine(alice) and any(m.startswith("scout") and " show " not in m for m in legal_moves(alice)):
            break
        for page in (alice, bob):
            if is_mine(page):
                scout_move(page, rng)
        alice.wait_for_timeout(40)
    move = next(m for m in legal_moves(alice) if m.startswith("scout") and " show " not in m)
    m = re.fullmatch(r"scout ([LR])( flip)? @(\d+)", move)
    assert m, move
    before = version(alice)
    end = alice.get_by_test_id(f"table-end-{m.group(1)}")
    (end if end.count() else alice.get_by_test_id("table-end-L")).click()
    if m.group(2):
        alice.get_by_test_id("btn-turn").click()
    alice.get_by_test_id(f"gap-{m.group(3)}").click()
    alice.get_by_test_id("btn-scout").click()
    # (the cards' own animations: not a CSS transition of a button under the pointer)
    alice.wait_for_function(
        "document.getAnimations().some((a) => !(a instanceof CSSTransition) && a.playState === 'running')",
        timeout=5000,
    )
    wait_for_change(alice, before)
    side = "left" if m.group(1) == "L" else "right"
    mine = [line for line in log_lines(alice) if line.startswith("Alice (you) scouts")]
    assert re.fullmatch(
        rf"Alice \(you\) scouts the \d+ from the {side} end and puts it in as card {int(m.group(3)) + 1}\.",
        mine[-1],
    ), mine
    # In German the same.
    alice.get_by_test_id("lang-toggle").click()
    expect(alice.get_by_test_id("log")).to_contain_text(
        re.compile(r"nimmt die \d+ vom (linken|rechten) Ende und steckt sie als \d+\. Karte ein")
    )
    check_screen(alice, "the log naming cards, in German")


def test_reduced_motion_moves_no_card(live_server: LiveServer, new_page: NewPage) -> None:
    page = new_page()
    page.emulate_media(reduced_motion="reduce")
    data = open_room(page, live_server.url, "scout", ["random", "random"], seed=5)
    sit(page, live_server.url, data["room"], 0, data["secret"])
    page.get_by_test_id("btn-keep").click()
    wait_for_my_turn(page)
    duration = page.locator(".hand-area .scard").first.evaluate(
        "el => getComputedStyle(el).transitionDuration"
    )
    assert duration == "0s"
    # A whole turn round: the cards change place without any animation.
    page.evaluate(
        """() => { window.__moved = 0; new MutationObserver(() => {
             window.__moved = Math.max(window.__moved, document.getAnimations().length); })
           .observe(document.body, { subtree: true, childList: true, attributes: true }); }"""
    )
    scout_move(page, random.Random(2))
    while not is_mine(page) and page.get_by_test_id("room").get_attribute("data-status") == "playing":
        page.wait_for_timeout(30)
    page.wait_for_timeout(100)
    assert page.evaluate("window.__moved") == 0


def test_a_hint_is_shown_on_the_cards(live_server: LiveServer, new_page: NewPage) -> None:
    page = new_page()
    data = open_room(page, live_server.url, "scout", ["easy", "easy"], seed=8, hints=True)
    sit(page, live_server.url, data["room"], 0, data["secret"])
    page.get_by_test_id("lang-toggle").click()  # (the turn in the tab's title, in German)
    expect(page).to_have_title(f"● Du bist dran · Scout · {data['room']}")
    page.get_by_test_id("lang-toggle").click()
    page.get_by_test_id("btn-hint").click()
    hint = page.get_by_test_id("hint")
    expect(hint).to_contain_text(re.compile(r"Suggested move: (keep|turn) the hand"))
    choice = "keep" if "keep" in hint.inner_text() else "flip"
    expect(page.locator(".hinted")).to_have_count(1)
    expect(page.get_by_test_id(f"btn-{choice}")).to_have_class(re.compile(r"\bhinted\b"))
    page.get_by_test_id(f"btn-{choice}").click()
    # On: hints to show a set (those cards of the hand) and to scout (the table's end and
    # the place in the hand where it goes, with its number), until both were seen.
    seen: set[str] = set()
    for _ in range(30):
        wait_for_my_turn(page)
        if page.get_by_test_id("btn-keep").count():  # a new round's flip decision
            page.evaluate("document.querySelector('[data-testid=btn-keep]')?.click()")
            page.wait_for_timeout(100)
            continue
        page.get_by_test_id("btn-hint").click()
        expect(hint).to_be_visible()
        text = hint.locator("p").first.inner_text()
        shown = re.search(r"show the ([\d-]+)", text)
        if shown and "take the" not in text:
            numbers = shown.group(1).split("-")
            hinted = page.locator(".hand-area .scard.hinted")
            expect(hinted).to_have_count(len(numbers))
            tops = hinted.locator(".top").evaluate_all("es => es.map((e) => e.firstChild.nodeValue)")
            assert [t.strip() for t in tops] == numbers, (text, tops)
            if "show" not in seen:
                check_screen(page, "a hinted set on the cards")
            seen.add("show")
            before = version(page)
            for testid in hinted.evaluate_all("es => es.map((e) => e.dataset.testid)"):
                page.get_by_test_id(testid).click()
            page.get_by_test_id("btn-show").click()  # the hinted set is a legal show
            wait_for_change(page, before)
        else:
            expect(page.locator("[data-testid^=table-end-].hinted")).to_have_count(1)
            taken = re.search(r"take the (\d+)", text)
            assert taken, text
            expect(page.locator(".hand-area .hand [data-testid=hint-gap]")).to_have_text(taken.group(1))
            seen.add("scout")
            break
    assert seen == {"show", "scout"}, seen
    check_screen(page, "a hint shown on the cards")


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_a_refusal_is_in_view_and_said(
    live_server: LiveServer, new_page: NewPage, size: tuple[int, int]
) -> None:
    page = new_page(width=size[0], height=size[1])
    data = open_room(page, live_server.url, "scout", ["random", "random", "random", "random"], seed=12)
    sit(page, live_server.url, data["room"], 0, data["secret"])
    page.get_by_test_id("btn-keep").click()
    wait_for_my_turn(page)
    page.get_by_test_id("btn-show").click()  # nothing selected
    notice = page.get_by_test_id("notice")
    expect(notice).to_contain_text("Select")
    expect(notice).to_have_attribute("role", "alert")
    page.wait_for_function(f"({IN_VIEW})(document.querySelector('[data-testid=notice]'))")


HOLD_REVEAL = """(() => {
  const later = window.setTimeout;
  window.setTimeout = (fn, ms, ...args) => later(fn, ms === 4500 ? 3600000 : ms, ...args);
})();"""
"""The reveal's timer (js/reveal.js, REVEAL_MS) held for an hour."""


def test_waschbaer_schmaus_reveal_named_lays_and_the_end(live_server: LiveServer, new_page: NewPage) -> None:
    page = new_page()
    # The revealed lays stay until Continue here: a slow machine must not miss their 4.5 s.
    page.add_init_script(HOLD_REVEAL)
    data = open_room(page, live_server.url, "schmaus", ["easy", "easy"], seed=3, options={"rounds": 2})
    room = data["room"]
    sit(page, live_server.url, room, 0, data["secret"])
    stage = play_to_the_reveal(page, random.Random(3))
    # The lays face up on the table first, the summary after Continue (or a few seconds,
    # though not while the keyboard focus is on them).
    page.get_by_test_id("reveal-continue").focus()
    for seat in range(3):
        expect(page.get_by_test_id(f"reveal-lay-{seat}")).to_be_visible()
    assert stage.locator(".wcard").count() >= 3
    assert stage.locator(".wcard.back").count() == 0
    expect(page.get_by_test_id("summary-close")).to_have_count(0)
    check_screen(page, "the revealed lays")
    # The bots' lays of round 1 are named in the log now, not "face down".
    lines = [line for line in log_lines(page) if " lays " in line][:3]
    assert sum(bool(re.match(r"Bot [23] \(easy\) lays .+\.", line)) for line in lines) == 2, lines
    assert not any("face down" in line for line in lines), lines
    page.get_by_test_id("reveal-continue").click()
    expect(page.get_by_test_id("summary-close")).to_be_visible()
    expect(stage).to_have_count(0)

    play_until_over([page], "schmaus", seed=3)
    # The end: placings (equal points share a place), the chart, its table, the last round.
    invite = data["invite"].removeprefix("/r/")  # (a started game opens by its link only)
    outcome = page.request.get(f"{live_server.url}/api/rooms/{invite}").json()["outcome"]
    scores = outcome["scores"]
    placings = page.get_by_test_id("placings").locator("li")
    expect(placings).to_have_count(3)
    for seat in range(3):
        place = 1 + sum(s > scores[seat] for s in scores)
        expect(page.get_by_test_id(f"place-{seat}")).to_have_attribute("data-place", str(place))
        ordinal = {1: "1st", 2: "2nd", 3: "3rd"}[place]
        expect(page.get_by_test_id(f"place-{seat}")).to_contain_text(ordinal)
    expect(placings.first).to_have_attribute("data-place", "1")
    # Rematch first among the end's actions.
    first_action = page.locator(".final-actions").first.locator("button, a").first
    expect(first_action).to_have_attribute("data-testid", "rematch")
    chart = page.get_by_test_id("score-chart")
    expect(chart.locator("polyline")).to_have_count(3)
    expect(chart).to_have_attribute("aria-hidden", "true")  # its numbers are the table's
    table = page.get_by_test_id("score-table")
    expect(table.locator("tbody tr")).to_have_count(3)
    expect(table.locator("thead th")).to_have_count(3)  # player, round 1, round 2
    totals = table.locator("tbody tr td:last-child").all_text_contents()
    assert [int(x) for x in totals] == scores
    expect(page.get_by_test_id("last-round")).to_contain_text("Round 2 is over")
    box = page.get_by_test_id("last-round").bounding_box()
    side = page.locator(".side").bounding_box()
    assert box and side and box["y"] < side["y"], "the last round is not in the main area"
    check_screen(page, "the end with placings and the score chart")
    page.get_by_test_id("lang-toggle").click()
    expect(page.get_by_test_id("place-0")).to_contain_text(re.compile(r"\d\."))
    expect(page.locator(".score-figure figcaption")).to_have_text("Punkte über die Runden")
    check_screen(page, "the end in German")


CUT_NAMES = """svg => [...svg.querySelectorAll("text.end-name")]
  .filter((t) => { const b = t.getBBox(); return b.x + b.width > svg.viewBox.baseVal.width; })
  .map((t) => t.textContent)"""
"""The names at the chart's line ends that do not fit inside it."""


def test_long_names_fit_the_score_chart(live_server: LiveServer, new_page: NewPage) -> None:
    page = new_page(width=390, height=844)
    seats = [{"kind": "human"}, {"kind": "bot", "level": "medium"}, {"kind": "bot", "level": "medium"}]
    body = {"game": "schmaus", "players": 3, "seats": seats, "name": "Maximiliane", "options": {"rounds": 1}}
    data = page.request.post(live_server.url + "/api/rooms", data=body).json()
    sit(page, live_server.url, data["room"], 0, data["secret"])
    play_until_over([page], "schmaus", seed=5)
    chart = page.get_by_test_id("score-chart")
    expect(chart.locator("text.end-name")).to_have_count(3)
    # "Maximiliane (you)" and "Bot 3 (medium)" were cut at the chart's right edge.
    assert chart.evaluate(CUT_NAMES) == []


def test_a_click_on_a_card_still_moving_takes_it_and_ends_the_motion(
    live_server: LiveServer, new_page: NewPage
) -> None:
    page = new_page()
    data = open_room(page, live_server.url, "scout", ["random", "random"], seed=5)
    sit(page, live_server.url, data["room"], 0, data["secret"])
    rng = random.Random(5)
    for _ in range(80):
        if is_mine(page) and any(m.startswith("scout") for m in legal_moves(page)):
            break
        if is_mine(page):
            scout_move(page, rng)
        page.wait_for_timeout(40)
    end = page.locator("[data-testid^=table-end-]").last
    # A card on its way to the table, as js/motion.js moves one (waiting its turn, then
    # travelling): the person clicks it where it is now, away from where it will land.
    end.evaluate(
        """el => { window.__flight = el.animate(
             [{ transform: "translate(-90px, 0)" }, { transform: "none" }],
             { duration: 60000, delay: 60000, fill: "backwards" }); }"""
    )
    end.click()
    # The click took the card (its gaps in the hand are offered) and ended the motion.
    expect(page.locator("[data-testid^=gap-]").first).to_be_visible()
    assert page.evaluate("window.__flight.playState") == "finished"


SLOW_REVEAL = ".pot-chip, .reveal-effects li { animation-duration: 30s !important; }"
"""The reveal's pot and effects slowed down, so the test sees them move (and skips them)."""
MOVING = """() => document.getAnimations()
  .filter((a) => a.playState === "running" && a.animationName && a.animationName !== "reveal-time")
  .map((a) => a.animationName)"""


def test_the_reveal_moves_the_pot_to_its_winners_and_escape_skips_it(
    live_server: LiveServer, new_page: NewPage
) -> None:
    page = new_page()
    page.add_init_script(HOLD_REVEAL)
    data = open_room(page, live_server.url, "schmaus", ["easy", "easy"], seed=3, options={"rounds": 2})
    sit(page, live_server.url, data["room"], 0, data["secret"])
    page.add_style_tag(content=SLOW_REVEAL)
    stage = play_to_the_reveal(page, random.Random(3))
    winners = stage.locator(".lay.winner")
    expect(winners.first).to_be_visible()  # (seed 3: round 1 has a winner, no hunter)
    for i in range(winners.count()):
        expect(winners.nth(i).locator(".pot-chip")).to_have_text(re.compile(r"^\+\d+$"))
    expect(stage.locator(".pot-chip")).to_have_count(winners.count())  # the pot goes to its takers only
    assert "pot-in" in page.evaluate(MOVING)
    page.keyboard.press("Escape")  # skips the motion; the stage stays until Continue
    page.wait_for_function(f"({MOVING})().length === 0", timeout=2000)
    expect(stage).to_be_visible()
    page.get_by_test_id("reveal-continue").click()
    expect(page.get_by_test_id("summary-close")).to_be_visible()


def test_an_away_player_and_leaving_to_watch(live_server: LiveServer, new_page: NewPage) -> None:
    page = new_page()
    data = open_room(page, live_server.url, "schmaus", ["human", "random"], seed=9, clock={"grace": 90})
    room = data["room"]
    join(page, live_server.url, room, "Bob")  # Bob never connects
    sit(page, live_server.url, room, 0, data["secret"])
    away = page.get_by_test_id("away-1")
    expect(away).to_contain_text(re.compile(r"Not connected – a bot plays for them in 1:\d\d"))
    first = away.inner_text()
    page.wait_for_timeout(1300)
    assert away.inner_text() != first  # it counts down
    expect(page.get_by_test_id("away-0")).to_have_count(0)  # Alice is here
    check_screen(page, "an away player with the stand-in countdown")
    # Alice leaves: from then on she watches, without "(you)" or a decision of her own.
    page.get_by_test_id("leave").click()
    page.get_by_test_id("leave-yes").click()
    expect(page.get_by_test_id("left-banner")).to_contain_text("you are watching as a spectator")
    room_el = page.get_by_test_id("room")
    expect(room_el).to_be_visible()
    expect(room_el).not_to_contain_text("(you)")
    expect(room_el).to_have_attribute("data-mine", "false")
    expect(page.locator("[data-testid^=hand-card-]")).to_have_count(0)
    expect(page.get_by_test_id("btn-lay")).to_have_count(0)
    expect(page.get_by_test_id("player-0")).not_to_have_class(re.compile(r"\bme\b"))
    assert not page.title().startswith("●")
    check_screen(page, "the table after leaving")
    page.get_by_test_id("left-home").click()
    expect(page.get_by_test_id("create-room")).to_be_visible()
