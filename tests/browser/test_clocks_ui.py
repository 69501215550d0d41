"""Clocks, stand-in bots, leaving and remote seats in the browser (docs/web.md, "Clocks and
stand-in bots"), in English and German, with the accessibility audit on every new screen."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from browser_helpers import INVITE_URL, LiveServer, check_screen, create_room
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

NewPage = Callable[..., Page]


def _clock_seconds(text: str) -> float:
    """ "0:12" -> 12, "7.3" -> 7.3 (the first part: this decision's time)."""
    first = text.split("+")[0].strip()
    if ":" in first:
        mins, secs = first.split(":")[-2:]
        return int(mins) * 60 + int(secs)
    return float(first)


def _open_timed_room(page: Page, base: str, name: str, clock: dict[str, object]) -> None:
    """Seat 0 for ``name`` and two random bots; the bots take 0.4 s per move, so that the
    game lasts while a stand-in plays for seat 0."""
    seats = [{"kind": "human"}, {"kind": "bot", "level": "random"}, {"kind": "bot", "level": "random"}]
    body = {"game": "schmaus", "players": 3, "seats": seats, "name": name, "clock": clock, "bot_delay": 0.4}
    res = page.request.post(base + "/api/rooms", data=body)
    assert res.ok, res.text()
    data = res.json()
    page.goto(f"{base}/r/{data['room']}#seat={data['seat']}&secret={data['secret']}")


def test_the_clock_settings_of_the_start_page_make_a_ticking_clock(
    live_server: LiveServer, new_page: NewPage
) -> None:
    page = new_page(locale="en-US")
    page.goto(live_server.url + "/")
    page.get_by_test_id("game-schmaus").check()
    page.get_by_test_id("players").select_option("3")
    page.get_by_test_id("seat-kind-1").select_option("bot:random")
    page.get_by_test_id("seat-kind-2").select_option("bot:random")
    page.get_by_test_id("clock-settings").locator("summary").click()
    page.get_by_test_id("clock-move").fill("30")
    page.get_by_test_id("clock-bank").fill("120")
    page.get_by_test_id("clock-grace").fill("60")
    page.get_by_test_id("clock-stand_in").select_option("easy")
    check_screen(page, "the start page with the clock settings open")
    page.get_by_test_id("name-input").fill("Alice")
    page.get_by_test_id("create-room").click()
    page.wait_for_url(INVITE_URL)
    clock = page.get_by_test_id("clock-0")
    expect(clock).to_contain_text("+ 2:00")  # this decision's time + the bank
    expect(page.get_by_test_id("clock-info")).to_have_text("0:30 per decision · 2:00 bank · 1:00 grace")
    time_left = clock.locator(".clock-time")
    first = _clock_seconds(time_left.inner_text())
    page.wait_for_timeout(1500)
    assert _clock_seconds(time_left.inner_text()) < first  # it ticks by itself
    check_screen(page, "the table with clocks")


def test_a_stand_in_bot_plays_after_the_time_out_and_the_player_takes_the_seat_back(
    live_server: LiveServer, new_page: NewPage
) -> None:
    page = new_page(locale="en-US")
    _open_timed_room(page, live_server.url, "Alice", {"move": 1.5, "stand_in": "random"})
    expect(page.get_by_test_id("clock-0")).to_be_visible()
    # Nobody moves for seat 0: its time runs out and the bot plays for Alice.
    mark = page.get_by_test_id("stand-in-0")
    expect(mark).to_have_text("Bot (random) playing for Alice", timeout=15_000)
    expect(page.get_by_test_id("stood-in")).to_be_visible()
    expect(page.get_by_test_id("log")).to_contain_text("(played by a bot (random))")  # who played it
    # Not "Your turn!" while the bot plays for her (issue #35).
    expect(page.get_by_test_id("status")).to_have_text("A bot (random) is playing for you.")
    check_screen(page, "the table with a stand-in bot playing for you")
    page.get_by_test_id("take-back").click()
    expect(mark).to_have_count(0)
    expect(page.get_by_test_id("stood-in")).to_have_count(0)
    expect(page.get_by_test_id("status")).not_to_have_text("A bot (random) is playing for you.")


def test_the_clock_and_the_stand_in_mark_in_german(live_server: LiveServer, new_page: NewPage) -> None:
    page = new_page(locale="de-DE")
    _open_timed_room(page, live_server.url, "Anna", {"move": 1.5, "bank": 2, "stand_in": "random"})
    expect(page.get_by_test_id("clock-0")).to_contain_text("+")  # decision time + bank
    expect(page.get_by_test_id("clock-info")).to_contain_text("pro Entscheidung")
    expect(page.get_by_test_id("stand-in-0")).to_have_text("Bot (zufällig) spielt für Anna", timeout=20_000)
    expect(page.get_by_test_id("take-back")).to_have_text("Platz zurücknehmen")
    expect(page.get_by_test_id("log")).to_contain_text("(vom Bot (zufällig) gespielt)")
    expect(page.get_by_test_id("status")).to_have_text("Ein Bot (zufällig) spielt für dich.")
    # The stopwatch is drawn (no emoji font needed); a decision's time run out is not shown as 0.0.
    expect(page.get_by_test_id("clock-0").locator(".clock-icon svg")).to_have_count(1)
    expect(page.get_by_test_id("clock-0")).not_to_contain_text("0.0 +")
    check_screen(page, "the table with a stand-in bot, in German")


def test_leaving_with_confirmation_and_the_others_choose_to_end(
    live_server: LiveServer, new_page: NewPage
) -> None:
    alice, bob = new_page(locale="en-US"), new_page(locale="de-DE")
    invite = create_room(alice, live_server.url, "schmaus", 3, ["human", "bot:random"], "Alice")
    bob.goto(invite)
    bob.get_by_test_id("name-input").fill("Bob")
    bob.locator("[data-testid^=join-seat-]").first.click()
    expect(bob.get_by_test_id("room")).to_be_visible()
    bob.get_by_test_id("leave").click()
    expect(bob.get_by_test_id("confirm-leave")).to_be_visible()
    check_screen(bob, "the confirmation to leave, in German")
    bob.get_by_test_id("leave-no").click()  # stays
    expect(bob.get_by_test_id("confirm-leave")).to_have_count(0)
    bob.get_by_test_id("leave").click()
    bob.get_by_test_id("leave-yes").click()
    expect(bob.get_by_test_id("leave")).to_have_count(0)
    choice = alice.get_by_test_id("left-choice")
    expect(choice).to_contain_text("Bob left the game")
    expect(alice.get_by_test_id("stand-in-1")).to_contain_text("Bob left")
    check_screen(alice, "the choice to go on with a bot or end the game")
    alice.get_by_test_id("end-game").click()
    expect(alice.get_by_test_id("ended")).to_contain_text("The game was ended")
    expect(bob.get_by_test_id("ended")).to_contain_text("Das Spiel wurde beendet")
    check_screen(alice, "a game ended after a player left")


def test_a_remote_seat_from_the_seat_picker_shows_its_bot_token(
    live_server: LiveServer, new_page: NewPage
) -> None:
    page = new_page(locale="en-US")
    create_room(page, live_server.url, "scout", 3, ["remote", "bot:random"], "Alice")
    expect(page.get_by_test_id("player-1")).to_contain_text("Remote bot")
    tokens = page.get_by_test_id("tokens")
    tokens.locator("summary").click()
    token = page.get_by_test_id("token-1").input_value()
    assert len(token) > 16 and token not in page.url
    check_screen(page, "the table with a remote seat's bot token")
