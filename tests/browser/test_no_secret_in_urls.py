"""The browser client never puts a seat secret into a URL (docs/protocol.md, "Secrets"):
it says hello with it on the socket and sends it in headers or JSON bodies."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from browser_helpers import LiveServer, create_room, play_until_over
from playwright.sync_api import Page, WebSocket, expect

NewPage = Callable[..., Page]


def test_a_whole_game_replay_and_rematch_keep_the_secret_out_of_every_url(
    live_server: LiveServer, new_page: NewPage
) -> None:
    alice: Page = new_page()
    urls: list[str] = []
    sent: list[str] = []

    def on_socket(ws: WebSocket) -> None:
        urls.append(ws.url)
        ws.on(
            "framesent",
            lambda payload: sent.append(payload if isinstance(payload, str) else payload.decode()),
        )

    alice.on("request", lambda request: urls.append(request.url))
    alice.on("websocket", on_socket)
    create_room(alice, live_server.url, "schmaus", 2, ["bot:random"], "Alice", options={"rounds": "1"})
    play_until_over([alice], "schmaus", seed=3)
    alice.get_by_test_id("open-replay").click()
    expect(alice.get_by_test_id("replay")).to_be_visible()
    alice.get_by_test_id("replay-close").click()
    old = alice.url
    alice.get_by_test_id("rematch").click()
    alice.wait_for_url(lambda url: url != old)
    expect(alice.get_by_test_id("room")).to_have_attribute("data-status", "playing")
    stored: dict[str, str] = alice.evaluate(
        "() => Object.fromEntries(Object.entries(localStorage)"
        ".filter(([k]) => k.startsWith('spieltisch.seat.')))"
    )
    secrets = {json.loads(v)["secret"] for v in stored.values()}
    assert len(secrets) == 2  # the first room's and the rematch's
    assert any("/ws/" in u for u in urls) and any("/replay" in u for u in urls)
    assert not [u for u in urls if any(s in u for s in secrets)]
    assert not [u for u in urls if re.search(r"[?&](secret|token)=", u)]
    hellos = [json.loads(m) for m in sent if '"hello"' in m]
    assert {h.get("secret") for h in hellos} == secrets  # both seats said hello with their secret
