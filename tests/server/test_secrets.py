"""Secrets never in URLs or logs (docs/protocol.md, "Secrets"): a whole game with every
log captured (uvicorn's access log on, debug level) carries none of the seats' secrets."""

from __future__ import annotations

import json
import logging
import random
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from server_harness import Player, ServerThread, connect_seat, open_room, play, seat_headers, ws_url
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

HUMAN = {"kind": "human"}
BOT = {"kind": "bot", "level": "random"}
LOGGERS = ("", "uvicorn", "uvicorn.error", "uvicorn.access", "spieltisch", "websockets")
CLIENT_LOGGERS = ("websockets.client", "httpx", "httpcore")


class Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith(CLIENT_LOGGERS):
            return  # the test's own clients log what they send
        traceback = " [Traceback]" if record.exc_info else ""
        self.lines.append(f"{record.name} {record.levelname} {record.getMessage()}{traceback}")


Logged = tuple[ServerThread, Capture, str]


@pytest.fixture(params=["debug", "trace"])
def logged_server(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Logged]:
    """A server logging at ``debug`` and at ``trace`` (uvicorn's ASGI messages too), every line
    of every logger captured; and that level."""
    capture = Capture()
    capture.setLevel(1)
    levels = {name: logging.getLogger(name).level for name in (*LOGGERS, "uvicorn.asgi")}
    srv = ServerThread(f"sqlite:///{tmp_path / 'secrets.db'}", log_level=request.param, access_log=True)
    for name in levels:  # after uvicorn configured its loggers: every line of every logger counts
        logging.getLogger(name).addHandler(capture)
        logging.getLogger(name).setLevel(1)
    try:
        yield srv, capture, request.param
    finally:
        srv.stop()
        for name in levels:
            logging.getLogger(name).removeHandler(capture)
            logging.getLogger(name).setLevel(levels[name])


def test_a_whole_game_logs_no_secret(logged_server: Logged) -> None:
    srv, capture, _level = logged_server
    with srv.client() as client:
        room, secrets = open_room(client, "schmaus", [HUMAN, HUMAN, BOT], 9, options={"rounds": 1})
        invite = client.get(f"/api/rooms/{room}").json()["invite"]
        key = invite.rsplit("-", 1)[1]  # the invite key: whoever reads the log cannot watch
        assert client.get(f"/api/rooms{invite.removeprefix('/r')}").status_code == 200
        with connect_seat(ws_url(srv, invite.removeprefix("/r/"))) as ws:
            assert json.loads(ws.recv(timeout=5))["type"] == "state"
        every = {*secrets.values(), key}
        players = [Player(ws_url(srv, room, s, secrets[s]), s, random.Random(s)) for s in sorted(secrets)]
        players[0].by_text = True  # its sealed lays travel as text ("play F1 F3 X5")
        spectator = Player(ws_url(srv, room), None, random.Random(0))
        play([*players, spectator])
        assert client.get(f"/api/rooms/{room}").json()["status"] == "over"
        replay = client.get(f"/api/rooms/{room}/replay", headers=seat_headers(0, secrets[0]))
        assert replay.status_code == 200 and replay.json()["seat"] == 0
        new = client.post(f"/api/rooms/{room}/rematch", json={"seat": 0, "secret": secrets[0]}).json()["room"]
        for seat in (0, 1):
            claim = client.post(
                f"/api/rooms/{new}/claim", json={"from": room, "seat": seat, "secret": secrets[seat]}
            )
            assert claim.status_code == 200
            every.add(claim.json()["secret"])
            with connect_seat(ws_url(srv, new, seat, claim.json()["secret"])) as ws:
                assert json.loads(ws.recv(timeout=5))["type"] == "state"
        # An old client that still puts its secret into the URL is refused, and the
        # URL is logged without it.
        r = client.get(f"/api/rooms/{room}/replay", params={"seat": 1, "secret": secrets[1]})
        assert r.status_code == 400 and "never accepted in a URL" in r.json()["detail"]
        r = client.get(f"/api/rooms/{new}/claim", params={"from": room, "seat": 1, "secret": secrets[1]})
        assert r.status_code == 400
        with connect(f"{srv.ws}/ws/{room}?seat=1&secret={secrets[1]}") as ws:
            err = json.loads(ws.recv(timeout=5))
            assert err["code"] == "forbidden" and "never accepted in a URL" in err["message"]
    text = "\n".join(capture.lines)
    # The capture works: the access log and the WebSocket lines are there ...
    assert f'"GET /api/rooms/{room}/replay HTTP/1.1" 200' in text
    assert f'"WebSocket /ws/{room}" [accepted]' in text
    assert f'"GET /api/rooms/{room}-[redacted] HTTP/1.1" 200' in text
    assert "secret=[redacted]" in text and re.search(r"< TEXT \[\d+ bytes\]", text)  # a frame: its size only
    # ... and not one secret, nor a sealed lay's text (the seat sent every lay as text).
    leaked = [s for s in every if s in text]
    assert not leaked, [line for line in capture.lines if any(s in line for s in leaked)][:5]
    lays = {m["action"] for m in players[0].sent if m.get("action", "").startswith("play ")}
    assert lays, "the seat laid nothing by text"
    told = [lay for lay in lays if lay in text]
    assert not told, [line for line in capture.lines if any(lay in line for lay in told)][:5]


def test_the_secret_travels_in_headers_too(server: ServerThread) -> None:
    """A program may name its seat in headers instead of the hello (remote bots do)."""
    with server.client() as client:
        room, secrets = open_room(client, "scout", [HUMAN, HUMAN], 2)
    with connect(f"{server.ws}/ws/{room}", additional_headers=seat_headers(1, secrets[1])) as ws:
        state = json.loads(ws.recv(timeout=5))
        assert state["type"] == "state" and state["view"]["seat"] == 1
    with connect(f"{server.ws}/ws/{room}", additional_headers=seat_headers(1, secrets[0])) as ws:
        assert json.loads(ws.recv(timeout=5))["code"] == "forbidden"
    r = httpx.get(f"{server.http}/api/rooms/{room}/replay", headers=seat_headers(1, "forged"))
    assert r.status_code == 403 and "wrong or missing secret" in r.json()["detail"]


def test_no_secret_at_debug_or_trace_level(logged_server: Logged) -> None:
    """At ``debug`` the WebSocket library logs each handshake header (through ``uvicorn.error``),
    at ``trace`` uvicorn logs each ASGI scope with its query string (``uvicorn.asgi``): a secret
    sent in a header, a hello, or (refused) a URL's ``token=`` shows in neither."""
    srv, capture, level = logged_server
    with srv.client() as client:
        room, secrets = open_room(client, "schmaus", [HUMAN, HUMAN, HUMAN], 4, options={"rounds": 1})
        with connect(f"{srv.ws}/ws/{room}", additional_headers=seat_headers(1, secrets[1])) as ws:
            state = json.loads(ws.recv(timeout=5))
            assert state["view"]["seat"] == 1
            lay = max((text for _id, text in state["legal"]), key=len)  # sealed until the reveal
            ws.send(json.dumps({"type": "act", "version": state["version"], "action": lay, "ref": "l"}))
            while json.loads(ws.recv(timeout=5)).get("ack") != "l":
                pass
        with connect_seat(ws_url(srv, room, 0, secrets[0])) as ws:
            assert json.loads(ws.recv(timeout=5))["view"]["seat"] == 0
        with connect(f"{srv.ws}/ws/{room}?token={secrets[2]}") as ws:
            assert json.loads(ws.recv(timeout=5))["code"] == "forbidden"
        r = client.get(f"/api/rooms/{room}/replay", params={"seat": 2, "token": secrets[2]})
        assert r.status_code == 400
        r = client.get(f"/api/rooms/{room}/replay", headers=seat_headers(0, secrets[0]))
        assert r.status_code == 409  # not over yet
    text = "\n".join(capture.lines)
    leaked = [s for s in [*secrets.values(), lay] if s in text]
    assert not leaked, [line for line in capture.lines if any(s in line for s in leaked)][:5]
    # The capture saw what each level adds: the handshake's headers, the ASGI scopes.
    assert "spieltisch-secret: [redacted]" in text.lower()
    if level == "trace":
        assert "ASGI" in text and "token=[redacted]" in text


def test_a_frame_that_is_not_utf8_is_one_info_line_without_a_traceback(tmp_path: Path) -> None:
    """Issue #34: uvicorn closes such a socket with 1007 (right) and logged ERROR with a
    traceback each time (a flood one client could cause): now one INFO line a connection."""
    capture = Capture()
    srv = ServerThread(f"sqlite:///{tmp_path / 'utf8.db'}", log_level="info")
    logging.getLogger("uvicorn.error").addHandler(capture)
    try:
        with srv.client() as client:
            room, _secrets = open_room(client, "scout", [HUMAN, HUMAN], 1)
        for _ in range(3):
            with connect(f"{srv.ws}/ws/{room}") as ws:
                ws.send(b'{"type": "hello"\xff}', text=True)
                with pytest.raises(ConnectionClosed) as closed:
                    ws.recv(timeout=5)
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 1007
    finally:
        srv.stop()
        logging.getLogger("uvicorn.error").removeHandler(capture)
    bad = [line for line in capture.lines if "UTF-8" in line]
    assert len(bad) == 3 and all(" INFO " in line for line in bad), capture.lines
    assert not [line for line in capture.lines if "Traceback" in line or " ERROR " in line], capture.lines
