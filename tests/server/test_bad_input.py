"""Bad input gets a clear error and changes nothing; everybody else keeps playing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from server_harness import ServerThread, connect_seat, open_room, ws_url
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from spieltisch.engine import get_game
from spieltisch.server.limits import Limits

HUMAN = {"kind": "human"}
BOT = {"kind": "bot", "level": "random"}


def recv(ws: ClientConnection) -> dict[str, Any]:
    msg: dict[str, Any] = json.loads(ws.recv(timeout=5))
    return msg


def recv_error(ws: ClientConnection) -> dict[str, Any]:
    while True:
        msg = recv(ws)
        if msg["type"] == "error":
            return msg


def latest_state(ws: ClientConnection) -> dict[str, Any]:
    """Ask for a fresh state (sync) and return it."""
    ws.send(json.dumps({"type": "sync", "ref": "s"}))
    while True:
        msg = recv(ws)
        if msg["type"] == "state" and msg.get("ack") == "s":
            return msg


@pytest.fixture
def schmaus_room(server: ServerThread) -> tuple[str, dict[int, str]]:
    with server.client() as client:
        return open_room(client, "schmaus", [HUMAN, HUMAN], 21)


def test_http_errors_are_clear(server: ServerThread) -> None:
    with server.client() as c:
        r = c.get("/api/rooms/ABCDEF")
        assert r.status_code == 404 and r.json() == {"detail": "no room ABCDEF"}
        r = c.post("/api/rooms", json={"game": "schmaus", "players": 3, "options": {"foo": 1}})
        assert r.status_code == 422 and "unknown rule option(s) 'foo'" in r.json()["detail"]
        r = c.post("/api/rooms", json={"game": "schmaus", "players": 3, "options": {"hand_size": 99}})
        assert r.status_code == 422 and "hand_size" in r.json()["detail"]
        r = c.post("/api/rooms", json={"game": "chess", "players": 2})
        assert r.status_code == 422 and "unknown game 'chess'" in r.json()["detail"]
        r = c.post("/api/rooms", json={"game": "scout", "players": 7})
        assert r.status_code == 422 and "2 to 5 players" in r.json()["detail"]
        r = c.post("/api/rooms", json={"game": "scout", "players": 2, "seats": [HUMAN]})
        assert r.status_code == 422 and "exactly 2 seats" in r.json()["detail"]
        r = c.post("/api/rooms", json={"game": "scout", "players": 2, "seats": [BOT, BOT]})
        assert r.status_code == 422 and "at least one seat must be human" in r.json()["detail"]
        r = c.post(
            "/api/rooms",
            json={"game": "scout", "players": 2, "seats": [HUMAN, {"kind": "bot", "level": "god"}]},
        )
        assert r.status_code == 422 and "bot level" in r.json()["detail"]
        r = c.post("/api/rooms", json={"game": "scout", "players": 2, "options": {"numbers": 4}})
        assert r.status_code == 422 and "Scout has no rule options at the table" in r.json()["detail"]
        neural = {"kind": "bot", "level": "neural"}  # the trained level is offered like the others
        assert c.post("/api/rooms", json={"game": "scout", "players": 2, "seats": [HUMAN, neural]}).is_success
        r = c.post("/api/rooms", json={"game": "scout", "players": "two"})
        assert r.status_code == 422 and r.json()["detail"].startswith("players:")
        r = c.post("/api/rooms", json={"game": "scout", "players": 2, "name": "x" * 100})
        assert r.status_code == 422 and "name" in r.json()["detail"]
        room = c.post("/api/rooms", json={"game": "scout", "players": 2, "seats": [HUMAN, BOT]}).json()[
            "room"
        ]
        assert c.post(f"/api/rooms/{room}/join", json={"name": "Bob"}).status_code == 409
        assert c.post(f"/api/rooms/{room}/join", json={"seat": 1}).json() == {
            "detail": "seat 1 is a bot seat"
        }
        two = c.post("/api/rooms", json={"game": "scout", "players": 2}).json()["room"]
        assert c.post(f"/api/rooms/{two}/join", json={"seat": 0}).json() == {"detail": "seat 0 is taken"}
        assert c.post(f"/api/rooms/{two}/join", json={"seat": 5}).status_code == 422
        assert c.post(f"/api/rooms/{two.lower()}/join", json={"name": "Bob"}).json()["seat"] == 1
        assert c.post(f"/api/rooms/{two}/join", json={}).json() == {"detail": f"room {two} is full"}


def test_unknown_room_and_forged_secrets_on_connect(
    server: ServerThread, schmaus_room: tuple[str, dict[int, str]]
) -> None:
    room, secrets = schmaus_room
    with connect(ws_url(server, "ZZZZZZ")) as ws:  # refused before any hello
        assert recv(ws)["code"] == "no_room"
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4404
    for seat, secret in [(0, "forged"), (0, secrets[1]), (9, secrets[0])]:
        with connect_seat(ws_url(server, room, seat, secret)) as ws:
            err = recv(ws)
            assert err["code"] == "forbidden" and "secret" in err["message"]
    with connect(f"{server.ws}/ws/{room}", additional_headers={"Spieltisch-Seat": "zero"}) as ws:
        err = recv(ws)
        assert err["code"] == "forbidden" and "seat must be a seat number" in err["message"]


def test_bad_messages_change_nothing(server: ServerThread, schmaus_room: tuple[str, dict[int, str]]) -> None:
    room, secrets = schmaus_room
    with (
        connect_seat(ws_url(server, room, 0, secrets[0])) as ws,
        connect_seat(ws_url(server, room)) as spectator,
    ):
        first = latest_state(ws)
        version = first["version"]
        cases: list[tuple[str | bytes, str]] = [
            ("not json", "bad_message"),
            ("[1, 2]", "bad_message"),
            (json.dumps({"type": "dance"}), "bad_message"),
            (json.dumps({"type": "act", "id": 3}), "bad_message"),
            (json.dumps({"type": "act", "version": version}), "bad_message"),
            (json.dumps({"type": "act", "version": version, "id": True}), "bad_message"),
            (json.dumps({"type": "act", "version": version, "id": 1, "action": "play -"}), "bad_message"),
            (json.dumps({"type": "act", "version": version, "action": "fly away"}), "illegal"),
            (
                json.dumps({"type": "act", "version": version, "action": "play GUARDIAN GUARDIAN GUARDIAN"}),
                "illegal",
            ),
            (json.dumps({"type": "act", "version": version, "id": 99999}), "illegal"),
            (json.dumps({"type": "act", "version": version + 5, "action": "play -"}), "stale"),
            (b"\xff\xfe", "bad_message"),
        ]
        for raw, code in cases:
            ws.send(raw)
            err = recv_error(ws)
            assert err["code"] == code, (raw, err)
            assert err["message"]
        # Illegal moves name the ruling they break.
        ws.send(
            json.dumps(
                {"type": "act", "version": version, "action": "play GUARDIAN GUARDIAN GUARDIAN", "ref": "r1"}
            )
        )
        err = recv_error(ws)
        assert err["ref"] == "r1" and err["message"].startswith("W-")
        # ... and say why in a form any client can translate (engine.Reasons).
        template = get_game("schmaus").reasons[err["reason"]]
        assert err["message"] == f"{err['ruling']}: " + template.format(**err["params"])
        # A spectator cannot act.
        spectator.send(json.dumps({"type": "act", "version": version, "id": first["legal"][0][0]}))
        assert recv_error(spectator)["code"] == "forbidden"
        ws.send(json.dumps({"type": "ping"}))
        while (msg := recv(ws))["type"] != "pong":
            pass
        after = latest_state(ws)
        assert after["version"] == version
        assert after["view"] == first["view"]
        # ... and the seat still plays normally.
        ws.send(json.dumps({"type": "act", "version": version, "id": after["legal"][0][0], "ref": "ok"}))
        while not ((msg := recv(ws))["type"] == "state" and msg.get("ack") == "ok"):
            assert msg["type"] != "error", msg
        assert msg["version"] == version + 1
        # Sealed lay (W-4): the seat is no longer asked; acting again is not its turn.
        assert msg["legal"] == []
        ws.send(json.dumps({"type": "act", "version": msg["version"], "action": "play -"}))
        assert recv_error(ws)["code"] == "not_your_turn"


def test_waiting_room_and_stale_versions(server: ServerThread) -> None:
    with server.client() as c:
        data = c.post("/api/rooms", json={"game": "scout", "players": 2, "seed": 4}).json()
        room, secret = data["room"], data["secret"]
        with connect_seat(ws_url(server, room, 0, secret)) as ws:
            state = latest_state(ws)
            assert state["room"]["status"] == "waiting" and state["legal"] == []
            ws.send(json.dumps({"type": "act", "version": 0, "action": "keep"}))
            err = recv_error(ws)
            assert err["code"] == "not_your_turn" and "every seat" in err["message"]
            bob = c.post(f"/api/rooms/{room}/join", json={"name": "Bob"}).json()
            with connect_seat(ws_url(server, room, 1, bob["secret"])) as ws1:
                state = latest_state(ws)
                assert state["room"]["status"] == "playing"
                assert [t for _, t in state["legal"]] == ["keep", "flip"] or {
                    t for _, t in state["legal"]
                } == {"keep", "flip"}
                # The flip decision is sealed (S-5): seat 1 deciding does not make seat 0's version stale.
                ws1.send(json.dumps({"type": "act", "version": 0, "action": "keep"}))
                ws.send(json.dumps({"type": "act", "version": 0, "action": "flip", "ref": "f"}))
                while not ((msg := recv(ws))["type"] == "state" and msg.get("ack") == "f"):
                    assert msg["type"] != "error", msg
                assert msg["version"] == 2
                log = latest_state(ws1)["log"]
                assert [e["hidden"] for e in log] == [e["seat"] == 0 for e in log]
                # An ordinary turn: an old version is stale and a fresh state follows.
                mover = msg["view"]["to_move"][0]
                sock = ws if mover == 0 else ws1
                fresh = latest_state(sock)
                sock.send(json.dumps({"type": "act", "version": 1, "id": fresh["legal"][0][0]}))
                assert recv_error(sock)["code"] == "stale"
                assert recv(sock)["version"] == 2


def test_flooding_is_rate_limited_per_address_and_others_keep_playing(tmp_path: Path) -> None:
    """The limit (the default: 20/s, burst 40) counts every socket of one address together
    (here seat 0 and a spectator from 10.0.0.1, as a trusted proxy would say); another
    address plays on."""
    server = ServerThread(
        f"sqlite:///{tmp_path / 'flood.db'}", limits=Limits(private_rooms=0)
    )  # (watched by code)
    try:
        with server.client() as client:
            room, secrets = open_room(client, "schmaus", [HUMAN, HUMAN], 21)
        _flood(server, room, secrets)
    finally:
        server.stop()


def _flood(server: ServerThread, room: str, secrets: dict[int, str]) -> None:
    flooder = {"X-Forwarded-For": "10.0.0.1"}
    with (
        connect_seat(ws_url(server, room, 0, secrets[0]), additional_headers=flooder) as flood,
        connect_seat(ws_url(server, room), additional_headers=flooder) as flood2,
        connect_seat(
            ws_url(server, room, 1, secrets[1]), additional_headers={"X-Forwarded-For": "10.0.0.2"}
        ) as other,
    ):
        for i in range(50):
            flood.send(json.dumps({"type": "ping"}))
            flood2.send(json.dumps({"type": "sync", "ref": f"s{i}"}))
        codes = []
        refs = []  # of the refusals on the second socket: each echoes the ref it refuses (issue #34)
        for ws in (flood, flood2):
            n = 0
            while n < 50:
                msg = recv(ws)
                if msg["type"] in ("pong", "error") or (msg["type"] == "state" and ws is flood2):
                    codes.append(msg.get("code", "pong"))
                    n += 1
                    if ws is flood2 and msg["type"] == "error":
                        refs.append(msg.get("ref"))
        limited = [c for c in codes if c == "rate_limited"]
        assert refs and all(isinstance(r, str) and r.startswith("s") for r in refs), refs
        # 40 at once (the burst, two hellos included) plus what trickled in meanwhile.
        assert limited and 38 <= codes.count("pong") <= 60, codes
        state = latest_state(other)
        other.send(
            json.dumps({"type": "act", "version": state["version"], "id": state["legal"][0][0], "ref": "x"})
        )
        while not ((msg := recv(other))["type"] == "state" and msg.get("ack") == "x"):
            assert msg["type"] != "error", msg
        assert msg["view"]["committed"][1] is True
