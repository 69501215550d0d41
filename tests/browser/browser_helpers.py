"""Drive the web table through its UI like a player would.

The helpers read the legal moves from the page's accessible "list of legal
moves" and then carry the chosen move out with the ordinary controls (clicking
cards, table ends, gaps and buttons), so the real interaction paths are tested.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import socket
import threading
import time
from pathlib import Path

import uvicorn
from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from spieltisch.server.app import create_app
from spieltisch.server.limits import Limits

ROOM = "[data-testid=room]"

INVITE_URL = re.compile(r"/r/[A-Z0-9]{6}-[A-Z0-9]{26}$")
"""A room's invite link, ``/r/CODE-KEY`` (docs/protocol.md, "Room names"): where a table is."""
BROWSER_LIMITS = Limits(rooms_per_minute=0, misses_per_hour=0, accounts_per_hour=0)
"""The test session opens rooms (and accounts) faster than the defaults per address
allow (every test comes from 127.0.0.1); the limits themselves are tested in tests/server."""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class LiveServer:
    """uvicorn serving the web table in a background thread."""

    def __init__(self, database: str, port: int | None = None) -> None:
        self.database = database
        self.port = port or _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(
            create_app(database, bot_delay=0.0, limits=BROWSER_LIMITS),
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the web table did not start within 20 s")
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def create_room(
    page: Page,
    base: str,
    game: str,
    players: int,
    seats: list[str],
    name: str,
    options: dict[str, str] | None = None,
) -> str:
    """Fill in the start page; ``seats`` gives seats 2.. as 'human' or 'bot:LEVEL'.
    Returns the invite link shown in the lobby or at the table."""
    page.goto(base + "/")
    page.get_by_test_id(f"game-{game}").check()
    page.get_by_test_id("players").select_option(str(players))
    for i, kind in enumerate(seats, start=1):
        page.get_by_test_id(f"seat-kind-{i}").select_option(kind)
    for option, value in (options or {}).items():
        control = page.get_by_test_id(f"opt-{option}")
        if control.evaluate("e => e.tagName") == "SELECT":
            values: list[str] = control.locator("option").evaluate_all("os => os.map(o => o.value)")
            if value in values:
                control.select_option(value)
            else:  # a choice-or-number option: pick "a number" and type it
                control.select_option("__n")
                page.get_by_test_id(f"opt-{option}-number").fill(value)
        else:
            control.fill(value)
    page.get_by_test_id("name-input").fill(name)
    page.get_by_test_id("create-room").click()
    page.wait_for_url(INVITE_URL)
    return page.url


def open_seeded_room(
    page: Page,
    base: str,
    game: str,
    bots: list[str],
    name: str,
    seed: int,
    hints: bool = False,
    options: dict[str, object] | None = None,
) -> str:
    """Open a table with a fixed deal through the HTTP API (seat 0 for ``name``,
    then one bot per level in ``bots``) and take seat 0 in ``page``: with a
    seed, the deal and the bots' moves are the same on every run. ``hints``
    allows hints at the table; ``options`` are the game's rule options."""
    seats = [{"kind": "human"}, *({"kind": "bot", "level": level} for level in bots)]
    body = {"game": game, "players": len(seats), "seats": seats, "name": name, "seed": seed}
    body.update(hints=hints, options=options or {})
    res = page.request.post(base + "/api/rooms", data=body)
    assert res.ok, res.text()
    data = res.json()
    page.goto(f"{base}/r/{data['room']}#seat={data['seat']}&secret={data['secret']}")
    return str(data["room"])


ROOM_STATE = f"""() => {{
  const rooms = document.querySelectorAll("{ROOM}");
  return rooms.length === 1 ? ["version", "mine", "status"].map((k) => rooms[0].dataset[k] ?? null) : null;
}}"""
"""The table's version, whether it waits for this page and its status, in one round trip
(the helpers below poll them many times a move); null without exactly one table."""


def _room_state(page: Page) -> list[str | None] | None:
    state: list[str | None] | None = page.evaluate(ROOM_STATE)
    return state


def version(page: Page) -> int:
    state = _room_state(page)
    if state is None:  # no table (yet): wait for it, as a locator does
        return int(page.locator(ROOM).get_attribute("data-version") or "-1")
    return int(state[0] or "-1")


def is_mine(page: Page) -> bool:
    state = _room_state(page)
    return state is not None and state[1] == "true"


def is_over(page: Page) -> bool:
    state = _room_state(page)
    return state is not None and state[2] == "over"


LEGAL_STATE = """() => {
  const room = document.querySelector("[data-testid=room]");
  const waits = room?.dataset.mine === "true" && room?.dataset.status !== "over";
  const select = document.querySelector("[data-testid=legal-select]");
  return [waits, select ? [...select.options].map((o) => o.textContent) : null];
}"""


def legal_moves(page: Page, timeout: float = 15.0) -> list[str]:
    """The notations of the decisions the table offers this page, or [] once it no
    longer waits for this page: between reading "your turn" and opening the list the
    page's own queued move (or the last round's end) may have been taken."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        waits, texts = page.evaluate(LEGAL_STATE)
        if not waits:
            return []
        if texts is not None:
            return [t.split(" — ")[0] for t in texts]
        toggle = page.get_by_test_id("legal-toggle")
        if toggle.count() and toggle.get_attribute("aria-expanded") != "true":
            with contextlib.suppress(PlaywrightTimeout):
                toggle.click(timeout=2000)
        page.wait_for_timeout(30)
    raise AssertionError(f"the list of legal moves did not open within {timeout:.0f} s")


def wait_for_change(page: Page, before: int, timeout: float = 30.0, what: str = "") -> None:
    """Wait until the table's version is no longer ``before``: ``what`` (a move made) was
    taken. (30 s: the early minutes of CI run the heaviest tests beside the browser.)"""
    deadline = time.monotonic() + timeout
    notice = ""
    while time.monotonic() < deadline:
        now, notice = page.evaluate(
            """() => [document.querySelector("[data-testid=room]")?.dataset.version ?? null,
                      document.querySelector("[data-testid=notice]")?.textContent ?? ""]"""
        )
        if now is not None and int(now) != before:
            return
        if "Table:" in notice:
            raise AssertionError(f"the table refused a move: {notice}")
        page.wait_for_timeout(30)
    said = f" after {what!r}" if what else ""
    raise AssertionError(
        f"the table did not move on from version {before}{said} within {timeout:.0f} s "
        f"(its turn: {is_mine(page)}; the notice: {notice!r})"
    )


def _click_cards(page: Page, start: int, end: int) -> None:
    for i in range(start, end + 1):
        page.get_by_test_id(f"hand-card-{i}").click()


def decide(page: Page, choice: str = "keep") -> None:
    """Keep or turn the Scout hand (S-5) and wait until the table took the decision: a
    version change alone may be another player's decision, and a page that still
    shows the buttons would press them again (and wait for a button that went)."""
    before = version(page)
    page.get_by_test_id(f"btn-{choice}").click()
    wait_for_change(page, before)
    page.get_by_test_id("btn-keep").wait_for(state="detached")


def play_move(page: Page, game: str, move: str) -> None:
    """Make ``move`` (the server's notation) with the table's own controls, as a person
    would: choose the cards and press the button (a Scout card to scout: its end of the
    table, turned or not, and its gap in the hand)."""
    if game == "scout":
        if move in ("keep", "flip"):
            page.get_by_test_id(f"btn-{move}").click()
            return
        m = re.fullmatch(r"show (\d+)(?:-(\d+))?", move)
        if m:
            _click_cards(page, int(m.group(1)), int(m.group(2) or m.group(1)))
            page.get_by_test_id("btn-show").click()
            return
        m = re.fullmatch(r"scout ([LR])( flip)? @(\d+)(?: show (\d+)(?:-(\d+))?)?", move)
        assert m, move
        end = page.get_by_test_id(f"table-end-{m.group(1)}")
        if not end.count():  # a single card on the table is both ends; the UI offers it once
            end = page.get_by_test_id("table-end-L")
        end.click()
        if m.group(2):
            page.get_by_test_id("btn-turn").click()
        page.get_by_test_id(f"gap-{m.group(3)}").click()
        if m.group(4) is None:
            page.get_by_test_id("btn-scout").click()
        else:
            _click_cards(page, int(m.group(4)), int(m.group(5) or m.group(4)))
            page.get_by_test_id("btn-scout-show").click()
        return
    verb, *args = move.split()
    if verb in ("x5", "target"):
        page.get_by_test_id(f"btn-{verb}-{args[0]}").click()
        return
    assert verb == "play", move
    cards = page.locator("[data-testid^=hand-card-]")
    wanted = args if args != ["-"] else []
    if wanted:
        cards.first.wait_for()
    faces = [cards.nth(i).get_attribute("data-card") for i in range(cards.count())]
    used: set[int] = set()
    for card in wanted:
        i = next((i for i, face in enumerate(faces) if i not in used and face == card), None)
        assert i is not None, f"no {card} left in the hand {faces} for {move!r}"
        used.add(i)
        cards.nth(i).click()
    page.get_by_test_id("btn-lay").click()


def scout_move(page: Page, rng: random.Random) -> str:
    """Make one Scout decision through the UI; returns the notation played ("" if the
    turn went by before the page could act)."""
    before = version(page)
    if page.get_by_test_id("btn-keep").count():
        choice = rng.choice(["keep", "flip"])
        decide(page, choice)
        return choice
    moves = legal_moves(page)
    if not moves:  # the turn went by while the page looked (see legal_moves)
        return ""
    shows = [m for m in moves if m.startswith("show")]
    scout_shows = [m for m in moves if " show " in m]
    scouts = [m for m in moves if m.startswith("scout") and " show " not in m]
    roll = rng.random()
    if scout_shows and roll < 0.25:
        move = rng.choice(scout_shows)
    elif shows and roll < 0.85:
        move = max(shows, key=lambda m: (m.count("-"), rng.random()))
    elif scouts:
        move = rng.choice(scouts)
    else:
        move = rng.choice(moves)
    play_move(page, "scout", move)
    wait_for_change(page, before, what=move)
    return move


def schmaus_move(page: Page, rng: random.Random) -> str:
    """Make one Waschbär-Schmaus decision through the UI; returns what was done ("" if
    the turn went by before the page could act)."""
    before = version(page)
    targets = page.locator("[data-testid^=btn-target-]")
    x5 = page.locator("[data-testid^=btn-x5-]")
    # After a choice, wait until its buttons went too (as in decide()): the version may
    # change with another player's secret choice first.
    if targets.count():
        targets.nth(rng.randrange(targets.count())).click()
        wait_for_change(page, before)
        targets.first.wait_for(state="detached")
        return "target"
    if x5.count():
        x5.nth(rng.randrange(x5.count())).click()
        wait_for_change(page, before)
        x5.first.wait_for(state="detached")
        return "x5"
    moves = legal_moves(page)
    if not moves:  # the turn went by while the page looked (see legal_moves)
        return ""
    if page.get_by_test_id("btn-discard").count():
        need = int(page.get_by_test_id("btn-discard").get_attribute("data-need") or "1")
        allowed = {m.split()[1] for m in moves}
        cards = page.locator("[data-testid^=hand-card-]")
        chosen = [i for i in range(cards.count()) if cards.nth(i).get_attribute("data-card") in allowed][
            :need
        ]
        for i in chosen:
            cards.nth(i).click()
        page.get_by_test_id("btn-discard").click()
        wait_for_change(page, before)
        # Wait for every queued discard (the version changes with the first one); a queued
        # discard refused (W-16: keep a legal lay) leaves the button: the next call goes on.
        with contextlib.suppress(PlaywrightTimeout):
            page.get_by_test_id("btn-discard").wait_for(state="detached", timeout=5000)
        return "discard"
    plays = [m for m in moves if m.startswith("play")]
    move = rng.choice(plays)
    play_move(page, "schmaus", move)
    wait_for_change(page, before, what=move)
    return move


def play_until_over(pages: list[Page], game: str, seed: int = 1, limit: float = 120.0) -> list[str]:
    """Let every page make its decisions until the game is over; returns the
    moves the people made (notation, or 'target' / 'x5' / 'discard')."""
    rng = random.Random(seed)
    move = scout_move if game == "scout" else schmaus_move
    made: list[str] = []
    deadline = time.monotonic() + limit
    while True:
        states = [_room_state(p) for p in pages]
        if all(state is not None and state[2] == "over" for state in states):
            break
        if time.monotonic() > deadline:
            raise AssertionError(f"the game did not end within {limit} s ({len(made)} moves made)")
        acted = False
        for i, page in enumerate(pages):
            state = states[i] if i == 0 or not acted else _room_state(page)  # fresh after a move
            if state is not None and state[1] == "true" and state[2] != "over":
                done = move(page, rng)
                if done:
                    made.append(done)
                acted = True
        if not acted:
            pages[0].wait_for_timeout(40)
    return made


def wait_for_my_turn(page: Page, limit: float = 120.0) -> None:
    """Wait until the page has a decision to make (the game must not end first)."""
    deadline = time.monotonic() + limit
    while not is_mine(page):
        assert not is_over(page), "the game ended before it was this person's turn"
        assert time.monotonic() < deadline, f"not this person's turn within {limit:.0f} s"
        page.wait_for_timeout(30)


CONTINUE_REVEAL = """(() => {
  const button = document.querySelector("[data-testid=reveal-continue]");
  button?.click();
  return Boolean(button);
})()"""
"""Press Continue on Waschbär-Schmaus' revealed lays, if they are shown (one round trip)."""


def play_to_the_round_summary(page: Page, game: str, seed: int) -> None:
    """Make this page's decisions until a round summary is shown (or the game is over:
    a game that ends with the round shows its last round in the final results instead)."""
    rng = random.Random(seed)
    move = scout_move if game == "scout" else schmaus_move
    deadline = time.monotonic() + 300
    while page.get_by_test_id("summary-close").count() == 0 and not is_over(page):
        assert time.monotonic() < deadline, "no round summary within 300 s"
        # Waschbär-Schmaus shows the revealed lays first: on to the summary (not the next lay).
        if page.evaluate(CONTINUE_REVEAL):
            continue
        if is_mine(page):
            move(page, rng)
        else:
            page.wait_for_timeout(30)


# -- checks shared by the browser tests -----------------------------------------

HERE = Path(__file__).resolve().parent
AXE = HERE / "node_modules" / "axe-core" / "axe.min.js"
AXE_LOCKED = json.loads((HERE / "package-lock.json").read_text())["packages"]["node_modules/axe-core"][
    "version"
]
"""The axe-core version the lock file pins (package.json allows the newest 4.x;
the normal dependency refresh, ``npm update``, moves the lock on)."""

REDRAWS = (HERE / "js" / "redraws.js").read_text()


def redraw_often(page: Page, period_ms: int = 100) -> None:
    """From the next page load on, replay the latest state every ``period_ms``."""
    page.add_init_script(f"({REDRAWS})({period_ms})")


SETTLE = (
    "for (const a of document.getAnimations()) if (a.effect?.getTiming().iterations !== Infinity) a.finish();"
)
"""JavaScript: every animation to its end, so a check sees the screen as it comes to rest (a card in
motion may stand anywhere; a text fading in reads as low contrast)."""


def assert_fits(page: Page, screen: str, widths: tuple[int, ...] = (1280, 390)) -> None:
    """No horizontal overflow: at every width the page is no wider than the
    screen, and nothing scrolls out of keyboard reach (axe at every width)."""
    size = page.viewport_size or {"width": 1280, "height": 800}
    try:
        for width in widths:
            page.set_viewport_size({"width": width, "height": size["height"]})
            page.wait_for_timeout(50)
            wide = page.evaluate(f"() => {{ {SETTLE} return document.documentElement.scrollWidth; }}")
            assert wide <= width, f"{screen}: the page is {wide} px wide on a {width} px screen"
            audit(page, f"{screen} at {width} px")
    finally:
        page.set_viewport_size(size)


def audit(page: Page, screen: str) -> None:
    """axe-core on the current screen: no serious or critical violation."""
    assert AXE.exists(), f"axe-core is missing: run `npm ci --prefix tests/browser` ({AXE})"
    if not page.evaluate("typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
    running = page.evaluate("axe.version")
    assert running == AXE_LOCKED, (
        f"axe-core {running} is installed, the lock file pins {AXE_LOCKED}: "
        "run `npm ci --prefix tests/browser`"
    )
    found = page.evaluate(
        """async () => {
          """ + SETTLE + """
          const r = await axe.run(document, { resultTypes: ["violations"] });
          return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
            .map((v) => `${v.id} (${v.impact}): ${v.help} — `
              + v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | "));
        }"""
    )
    assert not found, f"accessibility problems on {screen}:\n" + "\n".join(found)


TRANSLATED = (HERE / "js" / "translated.js").read_text()


def assert_translated(page: Page) -> None:
    """Every visible text (and accessible name) is a real text in the page's
    language: no text key, no NaN/undefined, no English left in German."""
    bad = page.evaluate(TRANSLATED)
    assert not bad, "untranslated texts:\n" + "\n".join(bad)


PICTURES_SETTLED = """() => {
  const images = [...document.images];
  return images.every((i) => i.complete) && images.filter((i) => !i.naturalWidth).map((i) => i.src);
}"""
"""Once no picture is loading any more, the ones that failed (complete but no size); else false.
One evaluation, so the answer is about one state of the page."""


def assert_pictures_shown(page: Page, screen: str) -> None:
    """Every picture (the card art shipped with the app) has loaded.

    Waiting for "all complete" and then asking "which have no size" in a second
    round trip was flaky: a table that goes on by itself (bots, stand-ins, clocks)
    can draw a card between the two, and its picture, fetched the first time that
    card is shown, is still loading (complete false, naturalWidth 0) when the
    second question comes. Both questions are therefore asked in one evaluation."""
    broken = page.wait_for_function(PICTURES_SETTLED).json_value()
    assert not broken, f"pictures that did not load on {screen}: {broken}"


def check_screen(page: Page, screen: str) -> None:
    """The standing checks of every screen: accessibility, translation, pictures."""
    audit(page, screen)
    assert_translated(page)
    assert_pictures_shown(page, screen)
