"""The lobby and quick play (issue #36): public tables listed live, strangers seated together."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from server_harness import Player, SeatUrl, ServerThread, Workers, play, run_async

from spieltisch.server import lobby
from spieltisch.server.quickplay import TICKET_HEADER


@pytest.fixture
def quick_server(db_url: str) -> Iterator[ServerThread]:
    srv = ServerThread(db_url, bot_workers=1)
    yield srv
    srv.stop()


def _queue(client: httpx.Client, **body: Any) -> str:
    r = client.post("/api/quickplay", json={"game": "scout", "players": 3, **body})
    assert r.status_code == 200, r.text
    assert r.json()["header"] == TICKET_HEADER
    return str(r.json()["ticket"])


def _status(client: httpx.Client, ticket: str) -> dict[str, Any]:
    r = client.get("/api/quickplay", headers={TICKET_HEADER: ticket})
    assert r.status_code == 200, r.text
    return dict(r.json())


def _wait_seated(client: httpx.Client, ticket: str, timeout: float = 20) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        status = _status(client, ticket)
        if status["status"] == "seated":
            return status
        assert time.monotonic() < deadline, f"not seated after {timeout} s: {status}"
        time.sleep(0.2)


def test_public_rooms_are_listed_until_full(server: ServerThread) -> None:
    with server.client() as c:
        seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "easy"}]
        body = {"game": "schmaus", "players": 3, "seats": seats, "name": "Ada", "clock": {"grace": 30}}
        public = c.post("/api/rooms", json={**body, "public": True, "options": {"loser_draws": 3}}).json()
        private = c.post("/api/rooms", json=body).json()
        lobby = c.get("/api/lobby").json()
        listed = {t["room"]: t for t in lobby["tables"]}
        assert public["room"] in listed and private["room"] not in listed
        table = listed[public["room"]]
        assert table["free"] == 1 and table["title"] == "Waschbär-Schmaus" and table["players"] == 3
        assert not table["rated"] and not table["turn_based"]
        assert table["options"] == {"loser_draws": 3} and table["clock"]["grace"] == 30
        assert [s["name"] for s in table["seats"]] == ["Ada", None, None]
        assert table["seats"][2] == {"seat": 2, "kind": "bot", "name": None, "level": "easy", "taken": True}
        assert "secret" not in json.dumps(lobby)
        joined = c.post(f"/api/rooms/{public['room']}/join", json={"name": "Bo"})
        assert joined.status_code == 200
        assert public["room"] not in {t["room"] for t in c.get("/api/lobby").json()["tables"]}


def test_lobby_socket_sends_changes_at_once(server: ServerThread, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lobby, "POLL", 60.0)  # so the change can only come from the poke

    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        async with websockets.connect(f"{server.ws}/ws/lobby") as ws:
            first = json.loads(await asyncio.wait_for(ws.recv(), 10))
            body = {"game": "scout", "players": 3, "public": True, "name": "Cy"}
            await asyncio.to_thread(httpx.post, f"{server.http}/api/rooms", json=body)
            second = json.loads(await asyncio.wait_for(ws.recv(), 20))
            await ws.send("hello")  # a lobby socket only listens
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await asyncio.wait_for(ws.recv(), 10)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
            return first, second

    first, second = run_async(main())
    assert first["type"] == "lobby" and first["tables"] == []
    assert [t["free"] for t in second["tables"]] == [2]


def test_quick_play_seats_three_strangers_in_one_game(quick_server: ServerThread) -> None:
    with quick_server.client() as c:
        tickets = [_queue(c, name=name) for name in ("Ann", "Ben")]
        waiting = _status(c, tickets[0])
        assert waiting["status"] == "waiting" and waiting["waiting"] == 2 and waiting["players"] == 3
        queues = c.get("/api/lobby").json()["quickplay"]
        assert queues[0]["game"] == "scout" and queues[0]["waiting"] == 2
        tickets.append(_queue(c, name="Cid"))
        seated = [_wait_seated(c, t) for t in tickets]
        assert len({s["room"] for s in seated}) == 1 and sorted(s["seat"] for s in seated) == [0, 1, 2]
        room = seated[0]["room"]
        info = c.get(f"/api/rooms/{room}").json()
        assert info["status"] == "playing"
        assert sorted(s["name"] for s in info["seats"]) == ["Ann", "Ben", "Cid"]
        assert info["clock"]["move"] == 120 and c.get("/api/lobby").json()["quickplay"] == []
    # each ticket is its seat's secret: the three play the game to its end
    players = [
        Player(SeatUrl(f"{quick_server.ws}/ws/{room}", s["seat"], s["secret"]), s["seat"], random.Random(i))
        for i, s in enumerate(seated)
    ]
    play(players)
    assert all(p.last is not None and p.last["room"]["status"] == "over" for p in players)
    refused = [e for p in players for e in p.errors if e["code"] != "stale"]  # (simultaneous flips race)
    assert not refused, refused


def test_quick_play_with_bots_after_a_wait(quick_server: ServerThread) -> None:
    with quick_server.client() as c:
        patient = _queue(c, game="schmaus", players=4, name="Pat", bots_after=600)
        hurried = _queue(c, game="schmaus", players=4, name="Hal", bots_after=1, bots="easy")
        seated = _wait_seated(c, hurried, timeout=10)  # its own second is up: bots, without Pat
        info = c.get(f"/api/rooms/{seated['room']}").json()
        kinds = sorted((s["kind"], s.get("level")) for s in info["seats"])
        assert kinds == [("bot", "easy")] * 3 + [("human", None)]
        assert _status(c, patient)["status"] == "waiting"  # Pat asked for people for 10 minutes


def test_quick_play_refuses_what_it_cannot_do(quick_server: ServerThread) -> None:
    with quick_server.client() as c:
        assert c.get("/api/quickplay").status_code == 400  # no ticket
        assert c.get("/api/quickplay", headers={TICKET_HEADER: "nope"}).status_code == 404
        bad = [
            ({"game": "chess", "players": 2}, "unknown game"),
            ({"game": "scout", "players": 9}, "2 to 5 players"),
            ({"game": "scout", "players": 3, "bots": "godlike"}, "bots: the level"),
            ({"game": "scout", "players": 3, "bots_after": -1}, "bots_after"),
            ({"game": "scout", "players": 3, "name": "x" * 99}, "name: at most"),
        ]
        for body, text in bad:
            r = c.post("/api/quickplay", json=body)
            assert r.status_code == 422 and text in r.json()["detail"], (body, r.text)
        ticket = _queue(c, bots_after=0)
        seated = _wait_seated(c, ticket)
        r = c.delete("/api/quickplay", headers={TICKET_HEADER: ticket})
        assert r.status_code == 409 and seated["room"] in r.json()["detail"]
        assert c.get(f"/api/quickplay?ticket={ticket}").status_code == 400  # never in a URL


def test_a_ticket_nobody_asks_about_leaves_the_queue(quick_server: ServerThread) -> None:
    from sqlalchemy import update

    store = quick_server.app.state.store
    with quick_server.client() as c:
        gone = _queue(c, players=4, name="Gone")
        with store.engine.begin() as conn:  # its page closed 31 s ago
            conn.execute(update(store.quickplay).values(seen=time.time() - 31))
        kept = _queue(c, players=4, name="Kept")
        assert c.get("/api/quickplay", headers={TICKET_HEADER: gone}).status_code == 404
        assert _status(c, kept)["waiting"] == 1
        seated = _queue(c, players=2, name="Sam", bots_after=0)
        assert _wait_seated(c, seated)["status"] == "seated"
        with store.engine.begin() as conn:  # seated a day ago: the answer is kept no longer
            conn.execute(update(store.quickplay).where(store.quickplay.c.room.is_not(None)).values(created=0))
        _queue(c, players=4, name="Later")
        assert c.get("/api/quickplay", headers={TICKET_HEADER: seated}).status_code == 404


@pytest.mark.postgres
def test_200_players_over_two_workers_are_seated_exactly_once(cluster_env: Any, tmp_path: Path) -> None:
    """200 quick-play requests from 200 clients (addresses) over two workers: every player
    in exactly one seat, no seat twice, every room full."""
    w = Workers(cluster_env.database, cluster_env.redis, cluster_env.prefix, 2, log=tmp_path / "w.log")
    try:
        w.start_all()

        def player(i: int) -> tuple[str, dict[str, Any]]:
            with httpx.Client(base_url=w.http(i % 2), timeout=30) as c:
                headers = {"X-Forwarded-For": f"198.51.100.{i % 250}"}
                body = {"game": "scout", "players": 4, "name": f"p{i}"}
                r = c.post("/api/quickplay", json=body, headers=headers)
                assert r.status_code == 200, r.text
                ticket = r.json()["ticket"]
                return ticket, _wait_seated(c, ticket, timeout=60)

        with ThreadPoolExecutor(50) as pool:
            results = list(pool.map(player, range(200)))
        seats = [(s["room"], s["seat"]) for _t, s in results]
        assert len(set(seats)) == 200  # no seat given twice
        rooms: dict[str, list[int]] = {}
        for room, seat in seats:
            rooms.setdefault(room, []).append(seat)
        assert len(rooms) == 50 and all(sorted(s) == [0, 1, 2, 3] for s in rooms.values())
        with w.client(0) as c:  # and each room knows its four people by their tickets
            for ticket, status in results[:8]:
                info = c.get(f"/api/rooms/{status['room']}").json()
                assert all(s["kind"] == "human" and s["taken"] for s in info["seats"])
                assert status["secret"] == ticket
    finally:
        w.close()


@pytest.mark.postgres
def test_a_lobby_on_another_worker_hears_of_a_change_through_redis(cluster_env: Any, tmp_path: Path) -> None:
    w = Workers(cluster_env.database, cluster_env.redis, cluster_env.prefix, 2, log=tmp_path / "w.log")
    try:
        for i in range(2):
            w.start(i, lobby_poll=60.0)  # a change can only come through Redis

        async def main() -> dict[str, Any]:
            async with websockets.connect(f"{w.ws(1)}/ws/lobby") as ws:
                await asyncio.wait_for(ws.recv(), 10)
                body = {"game": "scout", "players": 3, "public": True, "name": "Far"}
                r = await asyncio.to_thread(httpx.post, f"{w.http(0)}/api/rooms", json=body)
                assert r.status_code == 200, r.text
                while True:
                    msg = json.loads(await asyncio.wait_for(ws.recv(), 20))
                    if msg["tables"]:
                        return dict(msg)

        seen = run_async(main())
        assert [t["players"] for t in seen["tables"]] == [3]
    finally:
        w.close()


def test_quick_play_tickets_count_as_new_rooms_but_refusals_do_not(db_url: str) -> None:
    import dataclasses

    from server_harness import TEST_LIMITS

    srv = ServerThread(db_url, limits=dataclasses.replace(TEST_LIMITS, rooms_per_minute=1))
    try:
        with srv.client() as c:
            for _ in range(3):  # refused: not counted
                assert c.post("/api/quickplay", json={"game": "scout", "players": 9}).status_code == 422
            _queue(c, name="One")
            r = c.post("/api/quickplay", json={"game": "scout", "players": 3})
            assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
            assert r.json()["detail"].startswith("rooms_per_minute: at most 1 new rooms per minute")
    finally:
        srv.stop()


def test_quick_play_never_seats_blocked_players_together(db_url: str) -> None:
    import dataclasses

    from server_harness import TEST_LIMITS

    srv = ServerThread(db_url, limits=dataclasses.replace(TEST_LIMITS, accounts_per_hour=0))
    clients = []
    try:
        for name in ("Ada", "Bob"):
            client = srv.client()
            r = client.post("/api/account/signup", json={"name": name, "password": "a long passphrase 42"})
            assert r.status_code == 201, r.text
            clients.append(client)
        ada, bob = clients
        assert ada.post("/api/account/blocks", json={"name": "Bob"}).status_code == 200
        ticket_ada = _queue(ada, players=2, name="ignored")  # signed in: the account's name
        ticket_bob = _queue(bob, players=2)
        time.sleep(1.5)  # a matching or two
        assert [_status(ada, ticket_ada)["status"], _status(bob, ticket_bob)["status"]] == ["waiting"] * 2
        with srv.client() as anon:
            ticket_cy = _queue(anon, players=2, name="Cy")
            seated = _wait_seated(anon, ticket_cy)
        assert _wait_seated(ada, ticket_ada)["room"] == seated["room"]  # the longest waiting first
        assert _status(bob, ticket_bob)["status"] == "waiting"
        names = sorted(s["name"] for s in ada.get(f"/api/rooms/{seated['room']}").json()["seats"])
        assert names == ["Ada", "Cy"]
    finally:
        for client in clients:
            client.close()
        srv.stop()
