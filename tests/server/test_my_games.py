"""Turn-based games and "your games" (issue #36): hours per move, counted across a restart
from the stored move times; where it is your turn, asked with the seats' secrets."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
from server_harness import ServerThread
from sqlalchemy import update

HOURS = 3600.0


def _mine(c: httpx.Client, seats: list[dict[str, Any]]) -> list[dict[str, Any]]:
    r = c.post("/api/my-games", json={"seats": seats})
    assert r.status_code == 200, r.text
    return list(r.json()["games"])


def _turn_based_room(c: httpx.Client, hours: float) -> dict[str, Any]:
    seats = [{"kind": "human"}, {"kind": "bot", "level": "random"}, {"kind": "bot", "level": "random"}]
    body = {"game": "scout", "players": 3, "seats": seats, "name": "Tess", "clock": {"move": hours * HOURS}}
    r = c.post("/api/rooms", json=body)
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_your_games_says_where_it_is_your_turn(server: ServerThread) -> None:
    with server.client() as c:
        room = _turn_based_room(c, 48)
        mine = {"room": room["room"], "seat": room["seat"], "secret": room["secret"]}
        waiting = c.post("/api/rooms", json={"game": "schmaus", "players": 3, "name": "Tess"}).json()
        [game, other, wrong, gone] = _mine(
            c,
            [
                mine,
                {"room": waiting["room"], "seat": 0, "secret": waiting["secret"]},
                {**mine, "secret": "not-the-secret"},
                {"room": "ZZZZZ9", "seat": 0, "secret": "x"},
            ],
        )
        assert game["your_turn"] and game["turn_based"] and game["status"] == "playing"  # the first flip
        assert game["title"] == "Scout" and game["names"] == ["Tess", "Bot (random)", "Bot (random)"]
        assert 47.9 * HOURS < game["time_left"] <= 48 * HOURS
        assert other["status"] == "waiting" and not other["your_turn"] and not other["turn_based"]
        assert wrong == {"room": room["room"], "seat": 0, "status": "gone"}  # nothing told to a guesser
        assert gone == {"room": "ZZZZZ9", "seat": 0, "status": "gone"}
        assert c.post("/api/my-games", json={"seats": [mine] * 101}).status_code == 422
        week_and_a_day = {"game": "scout", "players": 3, "clock": {"move": 8 * 24 * HOURS}}
        too_long = c.post("/api/rooms", json=week_and_a_day)
        assert too_long.status_code == 422 and "clock.move" in too_long.json()["detail"]


def test_a_turn_based_clock_counts_hours_across_a_restart(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'turns.db'}"
    server = ServerThread(url, bot_workers=1)
    try:
        with server.client() as c:
            room = _turn_based_room(c, 24)
            mine = {"room": room["room"], "seat": room["seat"], "secret": room["secret"]}
            [before] = _mine(c, [mine])
    finally:
        server.stop()
    assert before["your_turn"] and before["time_left"] > 23.9 * HOURS
    store_url = url
    from spieltisch.server.store import Store

    store = Store(store_url)  # the game began 5 hours ago (its stored start time says so)
    try:
        with store.engine.begin() as conn:
            conn.execute(update(store.rooms).values(started=time.time() - 5 * HOURS))
    finally:
        store.close()
    server = ServerThread(url, bot_workers=1)
    try:
        with server.client() as c:
            [after] = _mine(c, [mine])
    finally:
        server.stop()
    assert after["your_turn"] and after["turn_based"]
    assert 18.9 * HOURS < after["time_left"] < 19.01 * HOURS  # 24 h per move, 5 of them gone
