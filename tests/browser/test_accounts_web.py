"""Accounts, a rated game, the leaderboard and profiles in a real browser (docs/accounts.md)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from browser_helpers import LiveServer, assert_fits, check_screen, play_until_over
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

NewPage = Callable[..., Page]
PASSWORD = "a long enough password"


def sign_up(page: Page, base: str, name: str) -> None:
    page.goto(base + "/account")
    page.get_by_test_id("signup-name").fill(name)
    page.get_by_test_id("signup-password").fill(PASSWORD)
    page.get_by_test_id("signup-submit").click()
    expect(page.get_by_test_id("account-panel")).to_contain_text(name)


def board_rows(page: Page) -> list[str]:
    return [r.inner_text() for r in page.get_by_test_id("board-row").all()]


def test_a_rated_game_changes_ratings_leaderboard_and_profile(
    live_server: LiveServer, new_page: NewPage
) -> None:
    base = live_server.url
    ada, bob = new_page(), new_page(locale="de-DE")  # two devices, two people
    sign_up(ada, base, "Adalovelace")
    check_screen(ada, "the account page")
    assert_fits(ada, "the account page")
    sign_up(bob, base, "Bobbyfischer")
    ada.goto(base + "/leaderboard/scout")
    expect(ada.get_by_test_id("leaderboard")).to_be_visible()
    assert not any("Adalovelace" in r for r in board_rows(ada))
    assert any("Bot (medium)" in r for r in board_rows(ada))  # bots at their fixed ratings
    check_screen(ada, "the leaderboard")
    assert_fits(ada, "the leaderboard")

    # Ada opens a rated table: Bob's seat and a bot's.
    ada.goto(base + "/account")
    ada.get_by_test_id("rated-game").select_option("scout")
    ada.get_by_test_id("rated-players").fill("3")
    ada.get_by_test_id("rated-players").dispatch_event("change")
    ada.get_by_test_id("rated-seat-1").select_option("human")
    ada.get_by_test_id("rated-seat-2").select_option("random")
    ada.get_by_test_id("rated-open").click()
    ada.wait_for_url(re.compile(r"/r/[A-Z0-9]{6}$"))
    invite = ada.url
    bob.goto(invite)
    bob.get_by_test_id("name-input").fill("anything")  # a signed-in player sits under the account's name
    bob.locator("[data-testid^=join-seat-]").first.click()
    expect(bob.get_by_test_id("room")).to_be_visible()
    expect(ada.get_by_test_id("room")).to_contain_text("Bobbyfischer")
    play_until_over([ada, bob], "scout", seed=3)

    # The leaderboard and both profiles show the new ratings.
    ada.goto(base + "/leaderboard/scout")
    expect(ada.get_by_test_id("leaderboard")).to_contain_text("Adalovelace")
    rows = board_rows(ada)
    assert any("Adalovelace" in r and "provisional" in r for r in rows)
    assert any("Bobbyfischer" in r for r in rows)
    ada.get_by_role("link", name="Bobbyfischer").click()
    expect(ada.get_by_test_id("profile-name")).to_have_text("Bobbyfischer")
    expect(ada.get_by_test_id("rating-scout")).to_contain_text("1 rated games")
    expect(ada.get_by_test_id("plot-scout")).to_be_visible()
    expect(ada.get_by_test_id("recent-games")).to_contain_text("Replay and review")
    check_screen(ada, "a profile")
    assert_fits(ada, "a profile")
    bob.goto(base + "/players/Bobbyfischer")
    expect(bob.get_by_test_id("rating-scout")).to_contain_text("1 gewertete Spiele")
    check_screen(bob, "a profile in German")
    code = invite.rsplit("/", 1)[1]
    bob.get_by_role("link", name="Wiederholung und Analyse").first.click()
    bob.wait_for_url(re.compile(f"/r/{code}$"))


def virtual_authenticator(page: Page) -> None:
    """Chromium's virtual authenticator (CDP WebAuthn) stands in for a security key or phone."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    options = {
        "protocol": "ctap2",
        "transport": "internal",
        "hasResidentKey": True,
        "hasUserVerification": True,
        "isUserVerified": True,
    }
    cdp.send("WebAuthn.addVirtualAuthenticator", {"options": options})


def test_passkey_registration_and_sign_in(live_server: LiveServer, new_page: NewPage) -> None:
    base = live_server.url.replace("127.0.0.1", "localhost")  # WebAuthn needs a domain, not an IP
    page = new_page()
    virtual_authenticator(page)
    sign_up(page, base, "Passkeyuser")
    page.get_by_test_id("add-passkey").click()
    expect(page.get_by_test_id("account-notice")).to_contain_text("passkey is saved")
    expect(page.get_by_test_id("passkey-count")).to_contain_text("Passkeys: 1")
    page.get_by_test_id("logout").click()
    expect(page.get_by_test_id("login-form")).to_be_visible()
    page.get_by_test_id("passkey-login").click()
    expect(page.get_by_test_id("account-panel")).to_contain_text("Passkeyuser")
    cookies = {c["name"]: c for c in page.context.cookies()}
    session = cookies["spieltisch_session"]
    assert session["httpOnly"] and session["sameSite"] == "Lax"


def test_sign_up_with_a_passkey_only(live_server: LiveServer, new_page: NewPage) -> None:
    base = live_server.url.replace("127.0.0.1", "localhost")
    page = new_page(locale="de-DE")
    virtual_authenticator(page)
    page.goto(base + "/account")
    page.get_by_test_id("signup-name").fill("Nurschluessel")
    page.get_by_test_id("passkey-signup").click()
    expect(page.get_by_test_id("account-panel")).to_contain_text("Nurschluessel")
    expect(page.get_by_test_id("passkey-count")).to_contain_text("Passkeys: 1")
    check_screen(page, "the account page in German")
    page.get_by_test_id("logout").click()
    page.get_by_test_id("passkey-login").click()
    expect(page.get_by_test_id("account-panel")).to_contain_text("Nurschluessel")
