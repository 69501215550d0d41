"""The web table in a real browser: people create, join and play whole games."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import pytest
from browser_helpers import (
    INVITE_URL,
    LiveServer,
    assert_fits,
    assert_translated,
    check_screen,
    create_room,
    is_mine,
    is_over,
    legal_moves,
    open_seeded_room,
    play_until_over,
    schmaus_move,
    scout_move,
    version,
)
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

NewPage = Callable[..., Page]


def join_by_invite(page: Page, invite: str, name: str) -> None:
    page.goto(invite)
    page.get_by_test_id("name-input").fill(name)
    page.locator("[data-testid^=join-seat-]").first.click()
    expect(page.get_by_test_id("room")).to_be_visible()


def test_two_people_and_a_bot_play_a_whole_scout_game(live_server: LiveServer, new_page: NewPage) -> None:
    alice, bob = new_page(), new_page()
    invite = create_room(alice, live_server.url, "scout", 3, ["human", "bot:easy"], "Alice")
    expect(alice.get_by_test_id("lobby")).to_be_visible()
    check_screen(alice, "the lobby")
    shown = alice.get_by_test_id("invite-link").input_value()
    assert shown == invite
    bob.goto(shown)
    expect(bob.get_by_test_id("join-panel")).to_be_visible()
    check_screen(bob, "the join page")
    join_by_invite(bob, shown, "Bob")
    expect(alice.get_by_test_id("room")).to_be_visible()
    # The flip decision shows the hand both ways (S-5), both buttons above the fold at 1280×800.
    expect(alice.get_by_test_id("btn-flip")).to_be_visible()
    expect(alice.get_by_role("heading", name="Turned round")).to_be_visible()
    for button in ("btn-keep", "btn-flip"):
        box = alice.get_by_test_id(button).bounding_box()
        assert box and box["y"] + box["height"] <= 800, f"{button} is below the fold: {box}"
    check_screen(alice, "the flip decision")
    moves = play_until_over([alice, bob], "scout", seed=3)
    assert any(m.startswith("show") for m in moves)
    assert any(m.startswith("scout") for m in moves)
    for page in (alice, bob):
        expect(page.get_by_test_id("final-results")).to_be_visible()
        # S-2: 3 rounds with 3 players; the last one is in the main area too.
        expect(page.locator(".side [data-testid=round-summary]")).to_have_count(3)
        expect(page.get_by_test_id("last-round").get_by_test_id("round-summary")).to_contain_text("Round 3")
        # Each summary says whose round end it was (S-10, S-11, S-15).
        for ended in page.locator(".side [data-testid=round-summary] > p").all_text_contents():
            assert re.search(r"Alice|Bob|Bot 3", ended), ended
    # Everybody's names are on the table; the log has one line per action, and
    # after the game even the secret flip decisions are revealed (S-5).
    expect(bob.get_by_test_id("player-0")).to_contain_text("Alice")
    expect(bob.get_by_test_id("log").locator("li")).to_have_count(version(bob))
    expect(bob.get_by_test_id("log").locator("li").first).to_have_text(re.compile(r"(turns|keeps) the hand"))
    # The finished table: nothing wider than the screen, every text in place, no "Seat NaN".
    expect(alice.get_by_test_id("status")).to_have_text("The game is over.")
    check_screen(alice, "the final results")
    assert_fits(alice, "the final results")


def test_waschbaer_schmaus_whole_game_then_replay_and_rematch(
    live_server: LiveServer, new_page: NewPage
) -> None:
    alice, bob = new_page(), new_page()
    invite = create_room(
        alice, live_server.url, "schmaus", 3, ["human", "bot:easy"], "Alice", options={"rounds": "2"}
    )
    join_by_invite(bob, invite, "Bob")
    # The sealed lay: after Alice lays, she waits for Bob, whose cards stay hidden.
    expect(alice.get_by_test_id("btn-lay")).to_be_visible()
    check_screen(alice, "the sealed lay")
    # The card pictures are the app's own SVG files, not emoji (no font needed).
    pictures = alice.locator("[data-testid^=hand-card-] img.art")
    expect(pictures).to_have_count(alice.locator("[data-testid^=hand-card-]").count())
    assert all((src or "").endswith(".svg") for src in pictures.evaluate_all("ps => ps.map(p => p.src)"))
    assert not re.search("[\U0001f300-\U0001faff]", alice.locator("body").inner_text())
    # On a phone every lay stays in sight (the grocer's target is chosen by looking at them).
    alice.set_viewport_size({"width": 390, "height": 844})
    for seat in range(3):
        box = alice.get_by_test_id(f"lay-{seat}").bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, f"lay {seat} is off-screen: {box}"
    alice.set_viewport_size({"width": 1280, "height": 800})
    alice.get_by_test_id("btn-lay").click()
    expect(alice.get_by_test_id("notice")).to_contain_text("exactly 3 cards")
    # A spectator sees the public table only: no hand, no controls.
    watcher = new_page()
    watcher.goto(invite)
    watcher.get_by_test_id("spectate").click()
    expect(watcher.get_by_test_id("room")).to_be_visible()
    expect(watcher.locator("[data-testid^=hand-card-]")).to_have_count(0)
    expect(watcher.get_by_test_id("lay-0")).to_contain_text("Alice")
    check_screen(watcher, "the spectator's table")
    # Keyboard: Tab to a card, Space selects it (and the focus survives updates).
    alice.get_by_test_id("hand-card-0").focus()
    alice.keyboard.press("Space")
    expect(alice.get_by_test_id("hand-card-0")).to_have_attribute("aria-pressed", "true")
    alice.keyboard.press("Tab")
    alice.keyboard.press("Enter")
    expect(alice.get_by_test_id("hand-card-1")).to_have_attribute("aria-pressed", "true")
    alice.get_by_role("button", name="Clear selection").click()
    # The sealed lay: once Alice has laid she sees whom the table waits for.
    schmaus_move(alice, random.Random(1))
    expect(alice.get_by_test_id("status")).to_have_text("Waiting for Bob.")
    expect(watcher.get_by_test_id("lay-0")).to_contain_text("laid")
    play_until_over([alice, bob], "schmaus", seed=5)
    expect(alice.get_by_test_id("final-results")).to_be_visible()
    expect(alice.locator(".side [data-testid=round-summary]")).to_have_count(2)
    expect(alice.locator(".side [data-testid=round-summary]").first).to_contain_text("Pot")
    check_screen(alice, "the final results")
    assert_fits(alice, "the final results")
    # Replay: step through the stored record.
    alice.get_by_test_id("open-replay").click()
    expect(alice.get_by_test_id("replay")).to_be_visible()
    expect(alice.get_by_test_id("replay-caption")).to_have_text("The deal.")
    alice.get_by_test_id("replay-next").click()
    expect(alice.get_by_test_id("replay-pos")).to_contain_text("Step 1 of")
    # The replay shows every card, the sealed lays too: one person has laid so far.
    laid = alice.locator("[data-testid^=lay-] .lay-cards")
    expect(laid.locator(".wcard")).to_have_count(3)
    expect(laid.locator(".wcard.back")).to_have_count(0)
    check_screen(alice, "the replay")
    assert_fits(alice, "the replay")
    # The finished game and its replay in German.
    alice.get_by_test_id("lang-toggle").click()
    expect(alice.get_by_test_id("replay-pos")).to_contain_text("Schritt 1 von")
    check_screen(alice, "the replay in German")
    alice.get_by_test_id("replay-close").click()
    check_screen(alice, "the final results in German")
    alice.get_by_test_id("lang-toggle").click()
    alice.get_by_test_id("open-replay").click()
    alice.get_by_test_id("replay-next").click()
    slider = alice.get_by_test_id("replay-slider")
    last = int(slider.get_attribute("max") or "0")
    # The step that ends round 1 shows that round's lays face up with the next deal.
    step = 1
    while alice.get_by_test_id("replay-round").count() == 0:
        step += 1
        assert step <= last, "no replay step shows the end of round 1"
        alice.get_by_test_id("replay-next").click()
    expect(alice.get_by_test_id("replay-round")).to_contain_text("Round 1 is over")
    expect(alice.get_by_test_id("replay-round").locator(".wcard")).to_have_count(9)
    slider.fill(str(last))
    expect(alice.get_by_test_id("final-results")).to_be_visible()
    alice.get_by_test_id("replay-close").click()
    # Rematch: same seats, a new room, both people seated again.
    old = alice.url
    alice.get_by_test_id("rematch").click()
    alice.wait_for_url(lambda url: url != old)
    assert INVITE_URL.search(alice.url)
    expect(alice.get_by_test_id("room")).to_have_attribute("data-status", "playing")
    expect(bob.get_by_test_id("rematch")).to_have_text("Join the rematch")
    bob.get_by_test_id("rematch").click()
    bob.wait_for_url(alice.url)
    expect(bob.get_by_test_id("player-1")).to_have_class(re.compile(r"\bme\b"))


def test_reload_and_device_link_land_back_in_the_game(live_server: LiveServer, new_page: NewPage) -> None:
    alice = new_page()
    create_room(alice, live_server.url, "scout", 2, ["bot:random"], "Alice")
    rng = random.Random(7)
    while not is_mine(alice):
        alice.wait_for_timeout(30)
    scout_move(alice, rng)
    seen = version(alice)
    alice.reload()
    expect(alice.get_by_test_id("room")).to_be_visible()
    assert version(alice) >= seen
    expect(alice.get_by_test_id("player-0")).to_have_class(re.compile(r"\bme\b"))
    # The 2-player game shows scout chips (S-13).
    expect(alice.get_by_test_id("player-0")).to_contain_text("scout chips")
    # The device link carries the seat secret in the fragment: another device takes the seat.
    link = alice.get_by_test_id("device-link").input_value()
    assert "#seat=0&secret=" in link
    phone = new_page(width=390, height=844)
    phone.goto(link)
    expect(phone.get_by_test_id("room")).to_be_visible()
    expect(phone.get_by_test_id("player-0")).to_have_class(re.compile(r"\bme\b"))
    assert "#" not in phone.url  # the secret is moved into localStorage, not left in the address bar
    while not is_over(phone):
        if is_mine(phone):
            scout_move(phone, rng)
        else:
            phone.wait_for_timeout(30)
    expect(alice.get_by_test_id("final-results")).to_be_visible()


def test_german_ui_and_plain_word_explanations(live_server: LiveServer, new_page: NewPage) -> None:
    page = new_page(locale="de-DE")
    page.goto(live_server.url + "/")
    expect(page.get_by_test_id("create-room")).to_have_text("Tisch eröffnen")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    check_screen(page, "the start page in German")
    page.get_by_test_id("game-schmaus").check()
    check_screen(page, "the start page with the rule options in German")
    # A fixed deal (seeded room, seeded bots, seeded choices below): the same game every run.
    open_seeded_room(page, live_server.url, "scout", ["random", "random"], "Anna", seed=20261201)
    expect(page.get_by_test_id("btn-keep")).to_have_text("So behalten")
    check_screen(page, "the flip decision in German")
    page.get_by_test_id("btn-keep").click()
    while not is_mine(page):
        page.wait_for_timeout(30)
    # Two cards that are not neighbours: explained, never silently ignored.
    page.get_by_test_id("hand-card-0").click()
    page.get_by_test_id("hand-card-2").click()
    page.get_by_test_id("btn-show").click()
    expect(page.get_by_test_id("notice")).to_contain_text("nicht nebeneinander")
    check_screen(page, "the table in German")
    # A set that does not beat the table: plain words plus the table's ruling (S-7).
    # The turn must offer some show, else the page rightly says "you must scout"
    # (why.noShowBeats) instead; so play on until a single card is weak but some set is not.
    page.get_by_role("button", name="Auswahl aufheben").click()
    rng = random.Random(5)
    while True:
        while not is_mine(page):
            assert not is_over(page), "the game ended before such a turn came"
            page.wait_for_timeout(30)
        shows = {m for m in legal_moves(page) if m.startswith("show ")}
        cards = page.locator("[data-testid^=hand-card-]").count()
        weak = [i for i in range(cards) if f"show {i}" not in shows]
        if weak and shows:
            break
        scout_move(page, rng)
    page.get_by_test_id(f"hand-card-{weak[0]}").click()
    page.get_by_test_id("btn-show").click()
    expect(page.get_by_test_id("notice")).to_contain_text("Hier nicht erlaubt")
    # ... said in German too (the engine's reason, translated from its key).
    expect(page.get_by_test_id("notice")).to_contain_text(
        re.compile(r"Tisch: S-7: \d+ schlägt die aktive Kombination [\d-]+ nicht")
    )
    check_screen(page, "an explained refusal and the list of legal moves in German")
    # Names a screen reader reads: no decoration in them, the connection said in words.
    expect(page.get_by_test_id("legal-toggle")).to_have_accessible_name(
        re.compile(r"^Liste der erlaubten Züge \(\d+\)$")
    )
    expect(page.get_by_test_id("player-0")).to_contain_text("verbunden")
    # A card is named for screen readers and voice control: its visible number first (WCAG 2.5.3).
    card = page.get_by_test_id("hand-card-0")
    top = card.evaluate("(b) => b.querySelector('.top').firstChild.nodeValue")
    expect(card).to_have_accessible_name(re.compile(rf"^{top}\s*, andere Seite \d+$"))
    # Switch to English: everything at once, the status line too; remembered after a reload.
    expect(page.get_by_test_id("status")).to_have_text("Du bist dran!")
    page.get_by_test_id("lang-toggle").click()
    expect(page.get_by_test_id("btn-show")).to_contain_text("Show")
    expect(page.get_by_test_id("status")).to_have_text("Your turn!")
    expect(card).to_have_accessible_name(re.compile(rf"^{top}\s*, other side \d+$"))
    assert_translated(page)
    page.reload()
    expect(page.get_by_test_id("room")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", "en")


def test_the_page_reconnects_by_itself_after_a_server_restart(
    new_page: NewPage, tmp_path_factory: pytest.TempPathFactory
) -> None:
    database = f"sqlite:///{tmp_path_factory.mktemp('restart') / 'table.db'}"
    server = LiveServer(database)
    server.start()
    alice = new_page()
    try:
        create_room(alice, server.url, "scout", 3, ["bot:random", "bot:random"], "Alice")
        while not is_mine(alice):
            alice.wait_for_timeout(30)
        scout_move(alice, random.Random(2))
        seen = version(alice)
    finally:
        server.stop()
    expect(alice.get_by_test_id("conn")).to_be_visible()  # "reconnecting…"
    check_screen(alice, "the table while reconnecting")
    again = LiveServer(database, port=server.port)
    again.start()
    try:
        expect(alice.get_by_test_id("conn")).to_have_count(0, timeout=20_000)
        assert version(alice) >= seen
        expect(alice.get_by_test_id("player-0")).to_have_class(re.compile(r"\bme\b"))
    finally:
        again.stop()


def test_waschbaer_schmaus_hand_limit_discards_through_the_ui(
    live_server: LiveServer, new_page: NewPage
) -> None:
    # Hands of 3 and a hand limit of 3 (W-16): everybody lays the whole hand,
    # draws 2 for the empty hand (W-6) and the lowest draws 2 more (W-15), so
    # at least one of the two people must discard before round 2.
    alice, bob = new_page(), new_page()
    options = {"rounds": "2", "hand_size": "3", "hand_limit": "3"}
    invite = create_room(alice, live_server.url, "schmaus", 2, ["human"], "Alice", options=options)
    join_by_invite(bob, invite, "Bob")
    # The summary after round 1: checked like every screen (it tops the table).
    rng = random.Random(9)
    moves: list[str] = []
    while alice.get_by_test_id("summary-close").count() == 0:
        assert not is_over(alice), "the game ended without a round summary"
        # The revealed lays come first; Continue brings the summary at once.
        alice.evaluate("document.querySelector('[data-testid=reveal-continue]')?.click()")
        acted = False
        for page in (alice, bob):
            if is_mine(page) and page.get_by_test_id("summary-close").count() == 0:
                # Bob may discard here already, while his page still shows the revealed lays.
                moves.append(schmaus_move(page, rng))
                acted = True
        if not acted:
            alice.wait_for_timeout(30)
    check_screen(alice, "the round summary")
    assert_fits(alice, "the round summary")
    moves += play_until_over([alice, bob], "schmaus", seed=9)
    assert "discard" in moves
    expect(alice.get_by_test_id("log")).to_contain_text("discards")


def test_rules_pages_open_from_the_table_in_the_ui_language(
    live_server: LiveServer, new_page: NewPage
) -> None:
    english = new_page()
    english.goto(live_server.url + "/")
    expect(english.get_by_test_id("create-room")).to_be_visible()
    check_screen(english, "the start page")
    # The lobby: the two links and their copy buttons have names of their own.
    create_room(english, live_server.url, "scout", 3, ["human", "bot:easy"], "Alice")
    expect(english.get_by_test_id("lobby")).to_be_visible()
    check_screen(english, "the lobby")
    english.get_by_text("Continue on another device").click()
    for name in ("Invite link", "Link for another device (contains your secret)"):
        expect(english.get_by_role("textbox", name=name, exact=True)).to_have_count(1)
    for name in ("Copy the invite link", "Copy the link for another device"):
        expect(english.get_by_role("button", name=name, exact=True)).to_have_count(1)
    page = new_page(locale="de-DE")
    page.goto(live_server.url + "/")
    page.get_by_test_id("rules-button").click()
    dialog = page.get_by_test_id("rules-dialog")
    expect(dialog.locator("table").first).to_be_visible()
    check_screen(page, "the rules in German")
    expect(dialog.locator("h2").first).to_contain_text("Scout")
    expect(dialog.locator("table").first).to_be_visible()
    expect(dialog).to_contain_text("S-7")
    dialog.get_by_role("link", name="English").click()
    expect(dialog.locator("h2").first).to_contain_text("rules of the table")
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
