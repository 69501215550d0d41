"""The lobby page (issue #36): quick play seats strangers in one game; open public
tables are listed live and joined with one click."""

from __future__ import annotations

import re
from collections.abc import Callable

import httpx
import pytest
from browser_helpers import INVITE_URL, ROOM, LiveServer, check_screen
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

NewPage = Callable[..., Page]


def _quick_play(page: Page, base: str, name: str, players: int = 3) -> None:
    page.goto(base + "/lobby")
    page.get_by_test_id("quick-game").select_option("scout")
    page.get_by_test_id("quick-players").select_option(str(players))
    page.get_by_test_id("quick-bots").select_option("")  # people only
    page.get_by_test_id("quick-name").fill(name)
    page.get_by_test_id("quick-play").click()


def test_quick_play_seats_three_people_in_one_game(live_server: LiveServer, new_page: NewPage) -> None:
    base = live_server.url
    ann, ben = new_page(), new_page("de-DE", 390, 844)
    _quick_play(ann, base, "Ann")
    expect(ann.get_by_test_id("quick-waiting")).to_contain_text("Scout")
    check_screen(ann, "the lobby while waiting for quick play")
    _quick_play(ben, base, "Ben")
    expect(ben.get_by_test_id("quick-waiting")).to_contain_text("Suche eine Partie Scout")
    check_screen(ben, "the German lobby on a phone while waiting")
    expect(ann.get_by_test_id("queue-line")).to_contain_text("2 waiting in quick play")  # live, no reload
    cid = new_page()
    _quick_play(cid, base, "Cid")
    names = set()
    for page in (ann, ben, cid):  # each at the game's invite link /r/CODE-KEY
        page.wait_for_url(INVITE_URL, timeout=20_000)
        expect(page.locator(ROOM)).to_have_count(1)
        names.add(page.url.rsplit("/", 1)[1])
    assert len(names) == 1
    name = names.pop()
    seats = httpx.get(f"{base}/api/rooms/{name}").json()["seats"]
    assert sorted(s["name"] for s in seats) == ["Ann", "Ben", "Cid"]
    for page in (ann, ben, cid):  # each in their own seat, able to play: the flip decision is theirs
        expect(page.locator(f"{ROOM}[data-mine=true]")).to_have_count(1)


def test_public_tables_are_listed_live_and_joined_with_one_click(
    live_server: LiveServer, new_page: NewPage
) -> None:
    base = live_server.url
    host, guest = new_page(), new_page()
    guest.goto(base + "/lobby")
    expect(guest.get_by_test_id("quick-play")).to_be_visible()
    host.goto(base + "/")
    host.get_by_test_id("game-schmaus").check()
    host.get_by_test_id("players").select_option("3")
    host.get_by_test_id("seat-kind-1").select_option("human")
    host.get_by_test_id("seat-kind-2").select_option("bot:easy")
    host.get_by_test_id("opt-public").check()
    host.get_by_test_id("name-input").fill("Host")
    host.get_by_test_id("create-room").click()
    host.wait_for_url(INVITE_URL)
    name = host.url.rsplit("/", 1)[1]
    code = name.split("-")[0]
    row = guest.get_by_test_id(f"lobby-{code}")
    expect(row).to_contain_text("Waschbär-Schmaus")  # arrived without a reload
    expect(row).to_contain_text("1 free seat")
    check_screen(guest, "the lobby with an open table")
    guest.get_by_test_id("quick-name").fill("Guest")
    guest.get_by_test_id(f"join-{code}").click()
    expect(guest).to_have_url(host.url)  # the code, then the invite link the server tells
    expect(guest.locator(ROOM)).to_have_count(1)
    expect(host.locator(ROOM)).to_have_count(1)
    seats = httpx.get(f"{base}/api/rooms/{name}").json()["seats"]
    names = sorted(s["name"] for s in seats if s["kind"] == "human")
    assert names == ["Guest", "Host"]


def test_a_turn_based_game_waits_for_you_in_your_games(live_server: LiveServer, new_page: NewPage) -> None:
    base = live_server.url
    page = new_page("de-DE")
    page.goto(base + "/")
    page.get_by_test_id("game-scout").check()
    page.get_by_test_id("players").select_option("3")
    page.get_by_test_id("seat-kind-1").select_option("bot:random")
    page.get_by_test_id("clock-settings").locator("summary").click()
    page.get_by_test_id("clock-pace").select_option("48")
    expect(page.get_by_test_id("clock-move")).to_have_value(str(48 * 3600))
    page.get_by_test_id("name-input").fill("Tess")
    page.get_by_test_id("email-input").fill("tess@example.org")  # turn notices (SMTP: tests/server)
    page.get_by_test_id("create-room").click()
    page.wait_for_url(INVITE_URL)
    name = page.url.rsplit("/", 1)[1]
    code = name.split("-")[0]
    assert httpx.get(f"{base}/api/rooms/{name}").json()["clock"]["move"] == 48 * 3600
    page.get_by_role("link", name="Spieltisch", exact=True).click()
    entry = page.get_by_test_id(f"mine-{code}")
    expect(page.get_by_test_id(f"mine-turn-{code}")).to_have_text("Du bist dran")
    expect(entry).to_contain_text("rundenbasiert")
    expect(entry).to_contain_text(re.compile(r"noch 4[78]:\d\d:\d\d"))  # hours, counted by the server
    expect(page).to_have_title(re.compile(r"^\(1\) "))
    check_screen(page, "the German start page with your games")
