"""Learning at the table and the wording fixes of issue #35, in English and German.

A learning game from the start page: easy bots, hints on, and the explanations
open at the table, which say what the decision in front of the player means
(with the ruling ids) and show how the game is played with its own cards. The
texts that said "card(s)", "Hand −0", "about 0 points" or left English in the
German page, and the summary of a final round voided by the hunter (W-8, W-15).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from browser_helpers import INVITE_URL, LiveServer, check_screen, decide, open_seeded_room, wait_for_my_turn
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

NewPage = Callable[..., Page]

WORDS = {
    "en-US": {
        "flip": "turn it round",
        "turn": r"Show a stronger set|The table is empty",
        "lay": "Choose 3 cards to lay face down",
        "howto": "in short",
        "skip": "Skip to the table",
    },
    "de-DE": {
        "flip": "dreh sie",
        "turn": r"Lege eine stärkere Kombination aus|Der Tisch ist leer",
        "lay": "Wähle 3 Karten, die du verdeckt legst",
        "howto": "in Kürze",
        "skip": "Zum Spieltisch springen",
    },
}


def start_a_learning_game(page: Page, base: str, game: str) -> None:
    page.goto(base + "/")
    page.get_by_test_id(f"game-{game}").check()
    page.get_by_test_id("opt-learn").check()
    # The learning game: every other seat an easy bot, hints allowed.
    for i in (1, 2):
        expect(page.get_by_test_id(f"seat-kind-{i}")).to_have_value("bot:easy")
    expect(page.get_by_test_id("opt-hints")).to_be_checked()
    page.get_by_test_id("name-input").fill("Anna")
    page.get_by_test_id("create-room").click()
    page.wait_for_url(INVITE_URL)
    expect(page.get_by_test_id("hints-on")).to_be_visible()


@pytest.mark.parametrize("locale", ["en-US", "de-DE"])
def test_a_learning_game_of_scout_explains_each_decision(
    live_server: LiveServer, new_page: NewPage, locale: str
) -> None:
    words = WORDS[locale]
    page = new_page(locale=locale)
    start_a_learning_game(page, live_server.url, "scout")
    now = page.get_by_test_id("learn-now")
    # Open by itself: the flip decision (S-5) explained.
    expect(now).to_contain_text("S-5")
    expect(now).to_contain_text(words["flip"])
    howto = page.get_by_test_id("learn-howto")
    expect(howto).to_contain_text("S-8")
    assert howto.locator(".scard").count() >= 4  # drawn with Scout's own cards
    check_screen(page, f"the learning panel at the flip ({locale})")
    decide(page, "keep")
    wait_for_my_turn(page)
    expect(now).to_contain_text(re.compile(words["turn"]))
    expect(now).to_contain_text("S-6")
    if page.get_by_test_id("table-end-L").count():
        page.get_by_test_id("table-end-L").click()
        expect(now).to_contain_text("S-8")  # where the scouted card goes
        page.get_by_test_id("btn-cancel").click()
    # Closed, it stays closed on this table.
    page.get_by_test_id("learn-toggle").click()
    expect(now).to_have_count(0)
    page.reload()
    expect(page.get_by_test_id("learn-toggle")).to_have_attribute("aria-expanded", "false")


@pytest.mark.parametrize("locale", ["en-US", "de-DE"])
def test_a_learning_game_of_waschbaer_schmaus_explains_the_lay(
    live_server: LiveServer, new_page: NewPage, locale: str
) -> None:
    words = WORDS[locale]
    page = new_page(locale=locale)
    start_a_learning_game(page, live_server.url, "schmaus")
    wait_for_my_turn(page)
    now = page.get_by_test_id("learn-now")
    expect(now).to_contain_text(words["lay"])
    for ruling in ("W-4", "W-8", "W-14"):
        expect(now).to_contain_text(ruling)
    expect(page.get_by_test_id("learn")).to_contain_text(words["howto"])
    pictures = page.get_by_test_id("learn-howto").locator(".wcard img")
    assert pictures.count() >= 9  # the game's card pictures: foods, hunter, guardian, grocer, ...
    check_screen(page, f"the learning panel at the lay ({locale})")


COUNTS = """async () => {
  const { hintBox } = await import("/static/js/review.js");
  const { refusalText, scoutRound } = await import("/static/js/results.js");
  const name = (s) => `P${s}`;
  const scout = { seat: 0, hand: ["5/1", "5/9", "4/2"] };
  const lay = { seat: 0, hand: [] };
  const say = (game, action, reason, params, view) =>
    hintBox(game, { action, reason, params }, view, name)
      .querySelector("[data-testid=hint-reason]").textContent;
  const round = scoutRound({
    round: 1, collected: [2, 0, 1], tokens: [0, 1, 0], chips: [1, 1, 1], hand_sizes: [0, 3, 1],
    points: [2, -2, 0], totals: [2, -2, 0], exempt: null, ended_by: "hand_empty",
  }, 3, name);
  const refusal = { reason: "discard_too_many", ruling: "W-16", params: { need: 1, chosen: 2 } };
  return {
    one: say("scout", "show 0", "show.beat", { cards: "5", count: 1 }, scout),
    two: say("scout", "show 0-1", "show.beat", { cards: "5-5", count: 2 }, scout),
    scoutShow: say("scout", "scout L @0 show 0-1", "scoutshow.beat",
      { card: "7", cards: "7-7", count: 1, owner: 1 }, scout),
    lay0: say("schmaus", "play F1 F2 F3", "lay.best", { cards: "F1 F2 F3", points: 0 }, lay),
    lay1: say("schmaus", "play F1 F2 F3", "lay.best", { cards: "F1 F2 F3", points: 1 }, lay),
    hand: [...round.querySelectorAll("tbody tr")].map((tr) => tr.children[3].textContent),
    refusal: refusalText(refusal, name),
    skip: document.querySelector(".skip").textContent,
  };
}"""

SAID = {
    "en-US": {
        "one": "captures 1 card.",
        "two": "captures 2 cards.",
        "scoutShow": "captures 1 card.",
        "lay0": "none of your lays is likely to win this round's pot",
        "lay1": "(about 1 point)",
        "refusal": "W-16: discard down to the hand limit: 1 more card, not 2",
    },
    "de-DE": {
        "one": "erbeutet 1 Karte.",
        "two": "erbeutet 2 Karten.",
        "scoutShow": "erbeutet 1 Karte.",
        "lay0": "keine deiner Auslagen gewinnt wahrscheinlich den Topf dieser Runde",
        "lay1": "vom Topf dieser Runde (etwa 1 Punkt)",
        "refusal": "W-16: Wirf bis zum Handlimit ab: noch 1 Karte, nicht 2",
    },
}


@pytest.mark.parametrize("locale", ["en-US", "de-DE"])
def test_counts_are_said_in_their_plural_form(
    live_server: LiveServer, new_page: NewPage, locale: str
) -> None:
    page = new_page(locale=locale)
    page.goto(live_server.url + "/")
    expect(page.get_by_test_id("create-room")).to_be_visible()
    said = page.evaluate(COUNTS)
    for key, text in SAID[locale].items():
        assert text in said[key], f"{key}: {said[key]!r}"
    for key in ("one", "two", "scoutShow", "refusal"):
        assert "(s)" not in said[key] and "(n)" not in said[key], said[key]
    assert "0 Punkte" not in said["lay0"] and "0 points" not in said["lay0"] and "Pott" not in said["lay1"]
    assert said["hand"] == ["0", "−3", "−1"]  # an empty hand costs 0, not "−0"
    assert said["skip"] == WORDS[locale]["skip"]  # the skip link in the page's language


HUNTER_SEED = 3
"""A 1-round Waschbär-Schmaus deal in which Anna holds the hunter, two food cards and no
guardian is laid against it: her hunter voids the final round (W-8)."""

VOID = {
    "en-US": {
        "pot": "The hunter voids the round",
        "note": "all tied lowest: drew 2 cards",
        "won": "takes the pot",
    },
    "de-DE": {
        "pot": "Der Jäger macht die Runde ungültig",
        "note": "alle gleich niedrig: zog 2 Karten",
        "won": "gewinnt den Topf",
    },
}


@pytest.mark.parametrize("locale", ["en-US", "de-DE"])
def test_a_final_round_voided_by_the_hunter_says_what_happened(
    live_server: LiveServer, new_page: NewPage, locale: str
) -> None:
    words = VOID[locale]
    page = new_page(locale=locale)
    open_seeded_room(
        page,
        live_server.url,
        "schmaus",
        ["random", "random"],
        "Anna",
        seed=HUNTER_SEED,
        options={"rounds": 1},
    )
    wait_for_my_turn(page)
    food = [
        c
        for c in page.locator("[data-testid^=hand-card-]").evaluate_all("bs => bs.map(b => b.dataset.card)")
        if c.startswith("F")
    ]
    for card in ("HUNTER", *food[:2]):
        page.locator(f"[data-testid^=hand-card-][data-card={card}][aria-pressed=false]").first.click()
    page.get_by_test_id("btn-lay").click()
    expect(page.get_by_test_id("room")).to_have_attribute("data-status", "over")
    summary = page.get_by_test_id("round-summary").first
    expect(summary.get_by_test_id("summary-pot")).to_contain_text(words["pot"])
    expect(summary.get_by_test_id("summary-pot")).to_contain_text("W-8")
    notes = summary.locator("td.notes").all_text_contents()
    assert len(notes) == 3
    for note in notes:  # nobody takes the pot; everybody ties lowest at 0 and draws 2 (W-15)
        assert note == words["note"], notes
        assert words["won"] not in note
    expect(summary.locator("tr.winner")).to_have_count(0)
    check_screen(page, f"the final round voided by the hunter ({locale})")
