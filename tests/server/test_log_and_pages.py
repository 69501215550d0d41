"""The log arrives in pieces that add up; the rules pages are served for the table."""

from __future__ import annotations

import json
import random
from typing import Any

from server_harness import Player, SeatUrl, ServerThread, open_room, play, run_async, seat_socket, ws_url


async def _first_state(url: SeatUrl) -> dict[str, Any]:
    async with seat_socket(url) as ws:
        while True:
            msg = json.loads(await ws.recv())
            if msg["type"] == "state":
                return msg


def test_each_state_carries_only_new_log_entries_which_add_up_to_the_whole_log(
    server: ServerThread,
) -> None:
    with server.client() as client:
        room, secrets = open_room(client, "scout", [{"kind": "human"}] * 3, seed=4)
    players = [
        Player(ws_url(server, room, seat, secrets[seat]), seat, random.Random(seat), stop_at=30)
        for seat in range(3)
    ]
    play(players)
    for p in players:
        assert p.last is not None
        assert len(p.log) == p.last["version"]
        assert [e["n"] for e in p.log] == list(range(1, len(p.log) + 1))
        # The entries came in small pieces, not the whole log with every state
        # (only a first state, a resync or a stale answer carries it whole).
        states = [m for m in p.messages if m["type"] == "state"]
        assert max(len(m["log"]) for m in states if m["log_from"] > 0) <= 3
        assert sum(len(m["log"]) for m in states) < 2 * len(p.log)
    for p in players:
        full = run_async(_first_state(ws_url(server, room, p.seat, secrets[p.seat or 0])))
        assert full["log_from"] == 0
        assert full["log"][: len(p.log)] == p.log  # same entries, same redaction for that seat
        assert "log" not in full["view"]  # the message's log replaces the engine view's


def test_rules_pages_are_served_in_both_languages(server: ServerThread) -> None:
    with server.client() as client:
        for page, words in (
            ("scout.en.md", "S-7"),
            ("scout.de.md", "S-7"),
            ("waschbaer-schmaus.en.md", "W-9"),
            ("waschbaer-schmaus.de.md", "W-9"),
        ):
            r = client.get(f"/rules/{page}")
            assert r.status_code == 200
            assert r.headers["content-type"].startswith("text/markdown")
            assert words in r.text
        for bad in ("chess.en.md", "scout.fr.md", "..%2Fpyproject.toml", "scout.en.md.bak"):
            assert client.get(f"/rules/{bad}").status_code == 404
