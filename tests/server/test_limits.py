"""Hostile input and the limits (docs/protocol.md, "Limits"): every limit hit gets a clear
answer naming the limit, the server keeps serving everybody else, nothing stored changes."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from server_harness import ServerThread, connect_seat, open_room, run_async, ws_url
from starlette.websockets import WebSocketState
from typer.testing import CliRunner
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from spieltisch.cli import app as cli_app
from spieltisch.server.botpool import BotPool
from spieltisch.server.codes import ALPHABET, CODE_LENGTH
from spieltisch.server.directory import RoomDirectory
from spieltisch.server.game_socket import serve
from spieltisch.server.limits import Addresses, Limits
from spieltisch.server.owner import LocalOwner
from spieltisch.server.store import Store

HUMAN = {"kind": "human"}
BOT = {"kind": "bot", "level": "random"}


def recv(ws: ClientConnection) -> dict[str, Any]:
    msg: dict[str, Any] = json.loads(ws.recv(timeout=5))
    return msg


def sync(ws: ClientConnection) -> dict[str, Any]:
    ws.send(json.dumps({"type": "sync", "ref": "s"}))
    while True:
        msg = recv(ws)
        if msg["type"] == "state" and msg.get("ack") == "s":
            return msg


def closed_with(ws: ClientConnection) -> tuple[int, str]:
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            ws.recv(timeout=5)
    frame = closed.value.rcvd
    assert frame is not None
    return frame.code, frame.reason


def from_address(address: str) -> dict[str, Any]:
    """Connect as another client address (uvicorn trusts X-Forwarded-For from 127.0.0.1, like a proxy)."""
    return {"additional_headers": {"X-Forwarded-For": address}}


@pytest.fixture
def make_server(tmp_path: Path) -> Iterator[Any]:
    servers: list[ServerThread] = []

    def make(proxies: tuple[str, ...] = ("127.0.0.1",), **limits: Any) -> ServerThread:
        """A server with the production limits and ``limits``, whose games open by their
        codes (these tests watch them so; private rooms: tests/server/test_guessing.py)."""
        db = f"sqlite:///{tmp_path / f'limits{len(servers)}.db'}"
        srv = ServerThread(db, limits=Limits(**{"private_rooms": 0, **limits}), proxies=proxies)
        servers.append(srv)
        return srv

    yield make
    for srv in servers:
        srv.stop()


def stored_actions(srv: ServerThread, room: str) -> int:
    return int(srv.app.state.store.count_actions(room))


def test_deeply_nested_json_gets_bad_message_not_a_dropped_socket(server: ServerThread) -> None:
    with server.client() as client:
        room, secrets = open_room(client, "scout", [HUMAN, HUMAN], 5)
    with connect_seat(ws_url(server, room, 0, secrets[0])) as ws:
        before = sync(ws)
        nested = "[" * 3000 + "]" * 3000  # 6 KB, under the size limit
        ws.send(nested)
        err = recv(ws)
        assert err["code"] == "bad_message" and "nested deeper than 1024 levels" in err["message"]
        deep_action = {
            "type": "act",
            "version": 0,
            "action": {"type": "flip", "flip": [[[[[[[[[[[]]]]]]]]]]]},
        }
        ws.send(json.dumps(deep_action).replace("[[[[[[[[[[[]]]]]]]]]]]", "[" * 900 + "]" * 900))
        err = recv(ws)
        assert err["code"] == "illegal" and err["message"]
        after = sync(ws)  # the socket is still served, and nothing changed
        assert after["version"] == before["version"] and after["view"] == before["view"]
    assert stored_actions(server, room) == 0


def test_an_oversized_frame_is_refused_before_it_is_read(make_server: Any) -> None:
    srv = make_server(max_message=4096)
    with srv.client() as client:
        room, secrets = open_room(client, "schmaus", [HUMAN, HUMAN], 3)
    with (
        connect_seat(ws_url(srv, room, 0, secrets[0])) as big,
        connect_seat(ws_url(srv, room, 1, secrets[1])) as other,
    ):
        state = sync(big)
        big.send(json.dumps({"type": "act", "version": 0, "action": "x" * 5000}))
        code, reason = closed_with(big)
        assert code == 1009 and "exceeds limit of 4096 bytes" in reason
        # The other seat plays on; the big message changed nothing.
        fresh = sync(other)
        assert fresh["version"] == state["version"]
        other.send(
            json.dumps({"type": "act", "version": fresh["version"], "id": fresh["legal"][0][0], "ref": "a"})
        )
        while not ((msg := recv(other))["type"] == "state" and msg.get("ack") == "a"):
            assert msg["type"] != "error", msg
    assert stored_actions(srv, room) == 1


def test_open_sockets_per_address(make_server: Any) -> None:
    srv = make_server(sockets_per_address=3)
    with srv.client() as client:
        room, secrets = open_room(client, "scout", [HUMAN, HUMAN], 1)
    a = from_address("10.1.1.1")
    with (
        connect_seat(ws_url(srv, room, 0, secrets[0]), **a) as s1,
        connect_seat(ws_url(srv, room), **a) as s2,
        connect_seat(ws_url(srv, room), **a) as s3,
    ):
        for ws in (s1, s2, s3):
            assert recv(ws)["type"] == "state"
        with connect(ws_url(srv, room), **a) as s4:  # a spectator counts too
            err = recv(s4)
            assert err["code"] == "too_many_sockets" and "sockets_per_address: at most 3" in err["message"]
            assert closed_with(s4)[0] == 1008
        with connect_seat(ws_url(srv, room, 1, secrets[1]), **from_address("10.1.1.2")) as other:
            assert recv(other)["type"] == "state"  # another address is served
        assert sync(s1)["view"]["seat"] == 0  # and so are the three
    with connect_seat(ws_url(srv, room), **a) as again:  # closed sockets no longer count
        assert recv(again)["type"] == "state"


def test_rooms_created_per_minute_per_address(make_server: Any) -> None:
    srv = make_server(rooms_per_minute=2)
    body = {"game": "scout", "players": 2}
    with srv.client() as client:
        for _ in range(2):
            assert client.post("/api/rooms", json=body).status_code == 200
        stored = len(srv.app.state.store.unfinished())
        r = client.post("/api/rooms", json=body)
        assert r.status_code == 429
        assert r.json()["detail"].startswith("rooms_per_minute: at most 2 new rooms per minute")
        assert 1 <= int(r.headers["Retry-After"]) <= 60
        assert len(srv.app.state.store.unfinished()) == stored  # nothing stored
        other = client.post("/api/rooms", json=body, headers={"X-Forwarded-For": "10.2.2.2"})
        assert other.status_code == 200


def test_guessing_room_codes_is_refused_after_misses_per_hour(make_server: Any) -> None:
    """Issue #34: an address that asks for rooms that do not exist (or shows wrong secrets)
    is refused every room once it has used up ``misses_per_hour``, with ``Retry-After``,
    over HTTP and on a socket; another address is served. It reports the share of a
    guesser's 200 lookups that is refused."""
    srv = make_server(misses_per_hour=5)
    rng = random.Random(34)
    with srv.client() as client:
        room, _secrets = open_room(client, "scout", [HUMAN, HUMAN], 1)
        answers = [
            client.get(f"/api/rooms/{''.join(rng.choices(ALPHABET, k=CODE_LENGTH))}").status_code
            for _ in range(200)
        ]
        assert answers[:5] == [404] * 5 and set(answers[5:]) == {429}
        print(f"guessing: {answers.count(429) / len(answers):.1%} of 200 lookups refused (5 misses per hour)")
        locked = client.get(f"/api/rooms/{room}")  # even a room that exists: the address is locked out
        assert locked.status_code == 429
        assert locked.json()["detail"].startswith("misses_per_hour: more than 5")
        assert 3500 <= int(locked.headers["Retry-After"]) <= 3600
        assert client.get(f"/api/rooms/{room}", headers={"X-Forwarded-For": "10.3.3.3"}).status_code == 200
    with connect(ws_url(srv, room)) as ws:
        err = recv(ws)
        assert err["code"] == "rate_limited" and err["message"].startswith("misses_per_hour")
    # Wrong secrets count too.
    other = from_address("10.4.4.4")
    for _ in range(5):
        with connect_seat(ws_url(srv, room, 1, "wrong"), **other) as ws:
            assert recv(ws)["code"] == "forbidden"
    with connect(ws_url(srv, room), **other) as ws:
        assert recv(ws)["code"] == "rate_limited"


def test_refused_rooms_do_not_use_up_the_room_budget(make_server: Any) -> None:
    """Issue #34: ten rooms refused for a bad option (422) leave the address's budget whole."""
    srv = make_server(rooms_per_minute=2)
    with srv.client() as client:
        for _ in range(10):
            bad = client.post("/api/rooms", json={"game": "schmaus", "players": 3, "options": {"rounds": 0}})
            assert bad.status_code == 422 and "rounds" in bad.text
        good = [client.post("/api/rooms", json={"game": "scout", "players": 2}).status_code for _ in range(3)]
        assert good == [200, 200, 429]


def test_a_spoofed_forwarded_for_changes_nothing_without_a_trusted_proxy(make_server: Any) -> None:
    """Issue #34: a client that writes ``X-Forwarded-For`` itself stays itself: with no
    trusted proxy (``spieltisch serve``'s default) the header names nobody, so neither the
    room budget nor the socket count of its address can be escaped - not even from 127.0.0.1."""
    srv = make_server(proxies=(), rooms_per_minute=2, sockets_per_address=2)
    body = {"game": "scout", "players": 2}
    with srv.client() as client:
        codes = [
            client.post("/api/rooms", json=body, headers={"X-Forwarded-For": f"203.0.113.{k}"}).status_code
            for k in range(4)
        ]
        assert codes == [200, 200, 429, 429]
    room = srv.app.state.store.unfinished()[0]
    spoofed = [from_address(f"198.51.100.{k}") for k in range(3)]
    url = ws_url(srv, room)
    with connect_seat(url, **spoofed[0]) as s1, connect_seat(url, **spoofed[1]) as s2:
        for ws in (s1, s2):
            assert recv(ws)["type"] == "state"
        with connect(ws_url(srv, room), **spoofed[2]) as s3:
            assert recv(s3)["code"] == "too_many_sockets"


def test_no_hello_in_time_closes_1008_too_slow(make_server: Any) -> None:
    srv = make_server(hello_timeout=0.5)
    with srv.client() as client:
        room, _secrets = open_room(client, "scout", [HUMAN, HUMAN], 1)
    with connect(ws_url(srv, room)) as ws:
        start = time.monotonic()
        err = recv(ws)
        assert err["code"] == "too_slow" and "hello_timeout" in err["message"]
        assert closed_with(ws) == (1008, "too slow")
        assert time.monotonic() - start < 3
    with connect(ws_url(srv, room)) as ws:  # the first message must be a hello
        ws.send(json.dumps({"type": "ping"}))
        err = recv(ws)
        assert err["code"] == "bad_message" and "first message must be" in err["message"]
        assert closed_with(ws)[0] == 4400


def _raw(srv: ServerThread, data: bytes, wait: float = 5.0) -> bytes:
    """Send ``data`` on a plain TCP connection and read until the server closes it."""
    host, port = srv.http.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=wait) as sock:
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
        return b"".join(chunks)


@pytest.mark.parametrize(
    "head",
    [
        b"GET /api/games HTTP/1.1\r\nHost: x\r\n",
        b"GET /ws/ABCDEF HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n",
    ],
    ids=["request", "websocket-handshake"],
)
def test_a_slow_request_head_is_closed_not_left_hanging(make_server: Any, head: bytes) -> None:
    srv = make_server(request_timeout=0.5)
    start = time.monotonic()
    answer = _raw(srv, head)  # never finished: the server answers and closes by itself
    assert answer.startswith(b"HTTP/1.1 408 ")
    assert b"within 0.5 s" in answer
    assert time.monotonic() - start < 3
    assert httpx.get(f"{srv.http}/api/games").status_code == 200  # everybody else is served


@pytest.mark.parametrize("path", [b"/api/games", b"/ws/ABCDEF"])
def test_a_too_long_request_head_is_refused(make_server: Any, path: bytes) -> None:
    srv = make_server(max_request_head=4096)
    head = b"GET " + path + b" HTTP/1.1\r\nHost: x\r\nX-Junk: " + b"a" * 8000 + b"\r\n\r\n"
    answer = _raw(srv, head)
    assert answer.startswith(b"HTTP/1.1 400 ")
    assert b"request line and headers are limited to 4096 bytes" in answer
    assert httpx.get(f"{srv.http}/api/games").status_code == 200


def test_finished_and_abandoned_rooms_expire_from_the_store(tmp_path: Path) -> None:
    keep = 1.0 / 86400  # one second, in days
    srv = ServerThread(
        f"sqlite:///{tmp_path / 'expire.db'}",
        room_idle=0.4,
        limits=Limits(keep_finished_days=keep, keep_abandoned_days=keep * 2),
    )
    try:
        with srv.client() as client:
            done, secrets = open_room(client, "schmaus", [HUMAN, BOT], 3, options={"rounds": 1})
            with connect_seat(ws_url(srv, done, 0, secrets[0])) as ws:
                while True:  # play seat 0 to the end
                    msg = recv(ws)
                    if msg["type"] == "state" and msg["room"]["status"] == "over":
                        break
                    if msg["type"] == "state" and msg["legal"]:
                        ws.send(
                            json.dumps({"type": "act", "version": msg["version"], "id": msg["legal"][0][0]})
                        )
            abandoned = client.post("/api/rooms", json={"game": "scout", "players": 2}).json()["room"]
            watched = client.post("/api/rooms", json={"game": "scout", "players": 2}).json()["room"]
            with connect_seat(ws_url(srv, watched)) as ws:
                recv(ws)
                # Watch the store, not the room: asking for a room loads it, and a room
                # in memory is in use (never expired under anybody's feet).
                store = srv.app.state.store
                deadline = time.monotonic() + 20
                while time.monotonic() < deadline and store.exists(abandoned):
                    time.sleep(0.2)
                assert client.get(f"/api/rooms/{done}").json() == {"detail": f"no room {done}"}
                assert client.get(f"/api/rooms/{abandoned}").status_code == 404
                assert client.get(f"/api/rooms/{watched}").status_code == 200  # in use: kept
            assert store.load(done) is None and store.count_actions(done) == 0
            assert store.load(watched) is not None
    finally:
        srv.stop()


def test_every_limit_is_a_serve_option() -> None:
    result = CliRunner().invoke(cli_app, ["serve", "--help"], env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert result.exit_code == 0
    for f in dataclasses.fields(Limits):
        assert f"--{f.name.replace('_', '-')}" in result.output, f.name
        help_text = f.metadata["help"].split()[0]
        assert help_text in result.output, f.name  # the help text comes from the field
    bad = CliRunner().invoke(cli_app, ["serve", "--messages-per-second", "-1"])
    assert bad.exit_code != 0 and "messages_per_second must be 0 or more" in bad.output


def test_every_limit_option_reaches_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each field of Limits is an option of its name and type, and its value reaches
    run_server (and, through the environment, the processes of --workers)."""
    import spieltisch.server.serve as serve_module

    got: list[Limits] = []
    monkeypatch.setattr(serve_module, "run_server", lambda **kwargs: got.append(kwargs["limits"]))
    values: dict[str, Any] = {}
    args = ["serve", "--port", "0"]
    for i, f in enumerate(dataclasses.fields(Limits)):
        # A value unlike every default (and a fraction where the limit is a float).
        value = Limits.field_type(f.name)(f.default) * 2 + 300 + i
        if Limits.field_type(f.name) is float:
            value += 0.25
        values[f.name] = value
        args += [f"--{f.name.replace('_', '-')}", str(value)]
    result = CliRunner().invoke(cli_app, args)
    assert result.exit_code == 0, result.output
    assert got == [Limits(**values)]
    assert Limits.from_env(got[0].to_env()) == got[0]
    defaults = CliRunner().invoke(cli_app, ["serve"])
    assert defaults.exit_code == 0 and got[1] == Limits()


def test_reopening_a_socket_does_not_refill_the_message_bucket() -> None:
    book = Addresses(Limits(messages_per_second=1, message_burst=3))
    assert book.open_socket("a")
    assert [book.take_message("a") for _ in range(4)] == [True, True, True, False]
    book.close_socket("a")
    assert book.open_socket("a")
    assert not book.take_message("a")  # still empty: the address is remembered
    book.close_socket("a")
    assert book.sweep() == 1  # remembered while its bucket refills ...
    fast = Addresses(Limits(messages_per_second=1000, message_burst=3))
    assert fast.open_socket("a") and all(fast.take_message("a") for _ in range(3))
    fast.close_socket("a")
    time.sleep(0.01)
    assert fast.sweep() == 0  # ... and forgotten once it would be full again


@given(st.lists(st.tuples(st.sampled_from("abc"), st.booleans()), max_size=60), st.integers(1, 4))
def test_open_sockets_never_exceed_the_limit(steps: list[tuple[str, bool]], limit: int) -> None:
    book = Addresses(Limits(sockets_per_address=limit))
    mine: dict[str, int] = {}
    for address, opening in steps:
        if opening:
            if book.open_socket(address):
                mine[address] = mine.get(address, 0) + 1
            else:
                assert mine.get(address, 0) == limit
        elif mine.get(address, 0):
            book.close_socket(address)
            mine[address] -= 1
        assert book.sockets(address) == mine.get(address, 0) <= limit


def test_a_too_large_request_body_is_refused_by_its_length(make_server: Any) -> None:
    srv = make_server(max_body=2048)
    big = {"game": "scout", "players": 2, "name": "x" * 4000}
    with srv.client() as client:
        r = client.post("/api/rooms", json=big)
        assert r.status_code == 413
        assert r.json() == {"detail": "max_body: request bodies are limited to 2048 bytes"}

        def chunks() -> Iterator[bytes]:
            yield b'{"game": "scout", '
            yield b'"players": 2}'

        r = client.post("/api/rooms", content=chunks(), headers={"content-type": "application/json"})
        assert r.status_code == 411 and "Content-Length" in r.json()["detail"]
        assert srv.app.state.store.unfinished() == []  # nothing stored
        assert client.post("/api/rooms", json={"game": "scout", "players": 2}).status_code == 200


def test_a_client_that_reads_too_slowly_is_closed_1008_too_slow(server: ServerThread) -> None:
    """A connection that falls 512 messages behind is closed, so the server never holds an
    unbounded backlog (here: thousands of syncs asked for by a client with a tiny receive buffer)."""
    with server.client() as client:
        room, secrets = open_room(client, "schmaus", [HUMAN, HUMAN], 8)
    host, port = server.http.removeprefix("http://").split(":")
    sock = socket.socket()
    sock.setsockopt(
        socket.SOL_SOCKET, socket.SO_RCVBUF, 4096
    )  # no autotuning: the backlog stays at the server
    sock.connect((host, int(port)))
    with connect_seat(ws_url(server, room, 0, secrets[0]), sock=sock, max_size=None) as ws:
        asked, states = 3000, 0
        with pytest.raises(ConnectionClosed) as closed:
            for _ in range(asked):  # the server may close before all are sent
                ws.send('{"type": "sync"}')
            while True:
                if json.loads(ws.recv(timeout=20))["type"] == "state":
                    states += 1
        frame = closed.value.rcvd
        assert frame is not None and (frame.code, frame.reason) == (1008, "too slow")
        assert states < asked, states
    with connect_seat(ws_url(server, room, 1, secrets[1])) as other:  # everybody else is served
        assert recv(other)["type"] == "state"


class _StuckSocket:
    """A client that neither reads nor writes: every send blocks, nothing arrives."""

    def __init__(self) -> None:
        self.client_state = WebSocketState.CONNECTED
        self.closed: tuple[int, str] | None = None

    async def receive(self) -> dict[str, Any]:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    async def send_text(self, _text: str) -> None:
        await asyncio.Event().wait()

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.closed = (code, reason or "")
        self.client_state = WebSocketState.DISCONNECTED


def test_a_silent_client_that_falls_behind_is_closed_at_once(tmp_path: Path) -> None:
    """The backlog is caused by the others (broadcasts), not by the client itself: it is
    closed 1008 "too slow" without waiting for a message from it."""

    async def main() -> tuple[int, str] | None:
        store = Store(f"sqlite:///{tmp_path / 'stuck.db'}")
        pool = BotPool(1)  # no bot at this table: no worker ever starts
        directory = RoomDirectory(store, pool, LocalOwner())
        room = await directory.insert(directory.plan("scout", 2, None, None, "A", 0.0, 1).template)
        socket_ = _StuckSocket()
        serving = asyncio.create_task(serve(socket_, directory, room, None, "10.9.9.9", Addresses(Limits())))  # type: ignore[arg-type]
        await asyncio.sleep(0.05)
        for _ in range(600):  # e.g. 600 moves of the others: the spectator's outbox overflows
            room.broadcast()
        await asyncio.wait_for(serving, 2)
        assert not room.connections
        await directory.stop()
        pool.close()
        store.close()
        return socket_.closed

    assert run_async(main()) == (1008, "too slow")
