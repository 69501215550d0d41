"""Issue #34, "No way in": guessing room codes, invite links and seat secrets.

The production limits, as ``spieltisch serve`` has them by default: per client address
``misses_per_hour`` (a room that does not exist, a wrong secret), per room
``room_misses_per_hour`` (failed joins and wrong secrets from every address together),
and private rooms (a started game opens only by its invite link ``/r/CODE-KEY`` or a
seat's secret). The guessing tests print the share of lookups that is refused
(docs/deploy.md, "Threat model"); the cluster's shared counts are in
tests/server/test_cluster_limits.py.
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import alembic.command as alembic_command
import httpx
import pytest
import sqlalchemy as sa
from server_harness import ServerThread, connect_seat, migration_revision, seat_headers, ws_url
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from spieltisch.server import migrate
from spieltisch.server.codes import ALPHABET, CODE_LENGTH, KEY_LENGTH
from spieltisch.server.limits import Limits
from spieltisch.server.quickplay import TICKET_HEADER
from spieltisch.server.store import RoomRow, SeatRow, Store

HUMAN = {"kind": "human"}


@pytest.fixture
def make_server(tmp_path: Path) -> Iterator[Any]:
    servers: list[ServerThread] = []

    def make(**limits: Any) -> ServerThread:
        """A server with the production limits and ``limits``; 127.0.0.1 a trusted proxy,
        so ``X-Forwarded-For`` names the client."""
        srv = ServerThread(f"sqlite:///{tmp_path / f'guess{len(servers)}.db'}", limits=Limits(**limits))
        servers.append(srv)
        return srv

    yield make
    for srv in servers:
        srv.stop()


def at(address: str) -> dict[str, str]:
    return {"X-Forwarded-For": address}


def recv(ws: ClientConnection) -> dict[str, Any]:
    msg: dict[str, Any] = json.loads(ws.recv(timeout=5))
    return msg


def close_code(ws: ClientConnection) -> int:
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            ws.recv(timeout=5)
    assert closed.value.rcvd is not None
    return closed.value.rcvd.code


def first(url: Any, address: str) -> dict[str, Any]:
    """The first message a socket from ``address`` gets after its hello."""
    with connect_seat(url, additional_headers=at(address)) as ws:
        return recv(ws)


def hello_answer(srv: ServerThread, name: str, address: str, hello: dict[str, Any]) -> dict[str, Any]:
    """The first answer to a socket from ``address`` whose first message is ``hello``."""
    with connect(f"{srv.ws}/ws/{name}", additional_headers=at(address)) as ws:
        ws.send(json.dumps({"type": "hello", **hello}))
        return recv(ws)


def random_code(rng: random.Random) -> str:
    return "".join(rng.choices(ALPHABET, k=CODE_LENGTH))


def open_table(client: httpx.Client, players: int, joined: int) -> tuple[dict[str, Any], dict[int, str]]:
    """A Scout room of ``players`` people, ``joined`` of them seated; its create answer and secrets."""
    data = client.post("/api/rooms", json={"game": "scout", "players": players, "name": "Alice"}).json()
    secrets = {0: data["secret"]}
    for seat in range(1, joined):
        r = client.post(f"/api/rooms/{data['room']}/join", json={"seat": seat}, headers=at("10.0.0.1"))
        assert r.status_code == 200, r.text
        secrets[seat] = r.json()["secret"]
    return data, secrets


def test_guessing_codes_is_refused_per_address_after_misses_per_hour(make_server: Any) -> None:
    """Five addresses guess codes, 100 lookups each: each gets ``misses_per_hour`` (10)
    answers, then ``429`` with ``Retry-After`` for every room, even one that exists."""
    srv = make_server(misses_per_hour=10)
    rng = random.Random(34)
    with srv.client() as client:
        data, _ = open_table(client, 2, 1)
        answers: dict[str, list[int]] = {}
        start = time.perf_counter()
        for n in range(5):
            address = f"10.5.0.{n + 1}"
            answers[address] = [
                client.get(f"/api/rooms/{random_code(rng)}", headers=at(address)).status_code
                for _ in range(100)
            ]
        took = time.perf_counter() - start
        for got in answers.values():
            assert got[:10] == [404] * 10 and set(got[10:]) == {429}
        locked = client.get(f"/api/rooms/{data['room']}", headers=at("10.5.0.1"))
        assert locked.status_code == 429 and 3500 <= int(locked.headers["Retry-After"]) <= 3600
        assert client.get(f"/api/rooms/{data['room']}", headers=at("10.5.0.9")).status_code == 200
    flat = [a for got in answers.values() for a in got]
    print(
        f"\nper address: {len(flat)} lookups from 5 addresses in {took:.2f} s ({len(flat) / took:.0f}/s): "
        f"{flat.count(404)} answered (10 per address), {flat.count(429)} refused "
        f"({flat.count(429) / len(flat):.1%}) with 429"
    )


def test_guessing_one_rooms_secret_from_many_addresses_locks_the_failures_not_the_players(
    make_server: Any,
) -> None:
    """Forty addresses guess seat 0's secret, two guesses each (under their own limit),
    half over HTTP (replay), half on a socket: the room answers ``room_misses_per_hour``
    (10) of them, then refuses every further wrong secret (``429`` / ``rate_limited``
    echoing the hello's ``ref``), from any address. The players' right secrets pass all
    the while, from an attacker's address too."""
    srv = make_server(misses_per_hour=3, room_misses_per_hour=10)
    with srv.client() as client:
        data, secrets = open_table(client, 2, 2)
        name = data["invite"].removeprefix("/r/")
        answers: list[str] = []
        start = time.perf_counter()
        for n in range(40):
            address = f"10.6.{n // 200}.{n % 200 + 1}"
            r = client.get(
                f"/api/rooms/{name}/replay", headers={**seat_headers(0, f"guess{n}"), **at(address)}
            )
            answers.append(str(r.status_code))
            if r.status_code == 429:
                assert r.json()["detail"].startswith("room_misses_per_hour: more than 10")
                assert 3500 <= int(r.headers["Retry-After"]) <= 3600
            err = hello_answer(srv, name, address, {"seat": 0, "secret": f"guess{n}", "ref": f"h{n}"})
            answers.append(err["code"])
            if err["code"] == "rate_limited":
                assert err["ref"] == f"h{n}"
        took = time.perf_counter() - start
        # Both players, one from an attacker's address, with the right secrets: still served.
        assert client.get(
            f"/api/rooms/{name}/replay", headers={**seat_headers(0, secrets[0]), **at("10.6.0.1")}
        )
        for seat in (0, 1):
            state = first(ws_url(srv, name, seat, secrets[seat]), "10.6.0.2")
            assert state["type"] == "state" and state["view"]["seat"] == seat
    print(
        f"\nper room: {len(answers)} wrong secrets from 40 addresses in {took:.2f} s: "
        f"{sum(a in ('403', 'forbidden') for a in answers)} answered, "
        f"{sum(a in ('429', 'rate_limited') for a in answers)} refused; the players' right secrets served"
    )


def _guesses_on_a_socket(srv: ServerThread, name: str) -> list[str]:
    """Wrong secrets on a socket, the secret in the first message (hello with a ref)."""
    out = []
    for n in range(12):
        with connect_seat(ws_url(srv, name, 0, f"wrong{n}"), additional_headers=at(f"10.7.0.{n + 1}")) as ws:
            err = recv(ws)
            out.append(err["code"])
    return out


def test_the_room_lock_counts_sockets_and_echoes_the_ref(
    make_server: Any, caplog: pytest.LogCaptureFixture
) -> None:
    srv = make_server(room_misses_per_hour=5)
    with srv.client() as client:
        data, _ = open_table(client, 2, 2)
    name = data["invite"].removeprefix("/r/")
    with caplog.at_level(logging.WARNING, logger="spieltisch.server"):
        assert _guesses_on_a_socket(srv, name) == ["forbidden"] * 5 + ["rate_limited"] * 7
    said = [r.getMessage() for r in caplog.records if "room_misses_per_hour" in r.getMessage()]
    assert said == [
        f"room {data['room']}: 5 failed joins or wrong secrets in the last hour (room_misses_per_hour); "
        "further ones are refused with 429 - is somebody guessing?"
    ]  # once
    assert first(ws_url(srv, name), "10.7.1.1")["type"] == "state"  # watching is no failure
    with connect(f"{srv.ws}/ws/{name}", additional_headers=at("10.7.1.2")) as ws:
        ws.send(json.dumps({"type": "hello", "seat": 1, "secret": "nope", "ref": "mine"}))
        err = recv(ws)
        assert err["code"] == "rate_limited" and err["ref"] == "mine"
        assert err["message"].startswith("room_misses_per_hour: more than 5 failed joins or wrong secrets")
        assert close_code(ws) == 1008


def test_failed_joins_lock_the_room_but_a_free_seat_is_still_taken(make_server: Any) -> None:
    """Fifteen addresses ask for a taken seat: after ``room_misses_per_hour`` (10) the
    failures are refused with ``429``; a join that finds the free seat still gets it."""
    srv = make_server(room_misses_per_hour=10)
    with srv.client() as client:
        data, _ = open_table(client, 3, 2)
        code = data["room"]
        codes = [
            client.post(
                f"/api/rooms/{code}/join", json={"seat": 1}, headers=at(f"10.8.0.{n + 1}")
            ).status_code
            for n in range(15)
        ]
        assert codes == [409] * 10 + [429] * 5
        joined = client.post(f"/api/rooms/{code}/join", json={"name": "Cleo"}, headers=at("10.8.0.1"))
        assert joined.status_code == 200 and joined.json()["seat"] == 2
        full = client.post(f"/api/rooms/{data['invite'][3:]}/join", json={}, headers=at("10.8.0.2"))
        assert full.status_code == 429 and "room_misses_per_hour" in full.json()["detail"]
        assert int(full.headers["Retry-After"]) >= 3500


def test_a_started_game_opens_only_by_its_invite_link_or_a_seats_secret(make_server: Any) -> None:
    srv = make_server()
    with srv.client() as client:
        data = client.post("/api/rooms", json={"game": "scout", "players": 2, "name": "Alice"}).json()
        code, invite = data["room"], data["invite"]
        assert invite.startswith(f"/r/{code}-") and len(invite) == len("/r/") + CODE_LENGTH + 1 + KEY_LENGTH
        name = invite.removeprefix("/r/")
        # Waiting for players: the code people type opens it, and tells its invite link.
        info = client.get(f"/api/rooms/{code}").json()
        assert info["status"] == "waiting" and info["invite"] == invite
        bob = client.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).json()
        # Started: the code alone answers as a room that does not exist ...
        nowhere = client.get(f"/api/rooms/{code}")
        assert nowhere.status_code == 404 and nowhere.json() == {"detail": f"no room {code}"}
        assert client.get("/api/rooms/ZZZZZZ").json() == {"detail": "no room ZZZZZZ"}
        assert client.get(f"/api/rooms/{code}/review").status_code == 404
        assert client.post(f"/api/rooms/{code}/join", json={}).status_code == 404
        assert client.get(f"/api/rooms/{code}-{'A' * KEY_LENGTH}").status_code == 404  # a wrong key
        # ... its invite link opens it (in any case), and so does a seat's secret with the code.
        assert client.get(f"/api/rooms/{name.lower()}").json()["status"] == "playing"
        assert client.get(f"/api/rooms/{name}/review").status_code == 409  # (not over yet)
        assert client.get(f"/api/rooms/{code}", headers=seat_headers(1, bob["secret"])).status_code == 200
        assert client.get(f"/api/rooms/{code}", headers=seat_headers(1, "wrong")).status_code == 404
    assert first(ws_url(srv, code), "10.9.0.1")["code"] == "no_room"
    assert first(ws_url(srv, code, 1, "wrong"), "10.9.0.1")["code"] == "no_room"  # not "forbidden"
    assert first(ws_url(srv, name), "10.9.0.1")["type"] == "state"
    assert first(ws_url(srv, name, 1, "wrong"), "10.9.0.1")["code"] == "forbidden"
    assert first(ws_url(srv, code, 1, bob["secret"]), "10.9.0.1")["type"] == "state"


def test_a_quick_play_game_is_private_too(make_server: Any) -> None:
    srv = make_server()
    with srv.client() as client:
        ticket = {
            TICKET_HEADER: client.post(
                "/api/quickplay", json={"game": "scout", "players": 2, "bots_after": 0}
            ).json()["ticket"]
        }
        deadline = time.monotonic() + 20
        status = client.get("/api/quickplay", headers=ticket).json()
        while status["status"] != "seated":
            assert time.monotonic() < deadline, status
            time.sleep(0.2)
            status = client.get("/api/quickplay", headers=ticket).json()
        code = status["room"]
        assert client.get(f"/api/rooms/{code}").status_code == 404
        info = client.get(f"/api/rooms/{code}", headers=seat_headers(status["seat"], status["secret"])).json()
        assert info["invite"].startswith(f"/r/{code}-")
        assert client.get(f"/api/rooms/{info['invite'].removeprefix('/r/')}").status_code == 200


def test_rooms_stored_before_invite_keys_open_by_their_code(make_server: Any) -> None:
    srv = make_server()
    store: Store = srv.app.state.store
    seats = [SeatRow(0, "human", name="Alice", secret_hash="h", taken=True), SeatRow(1, "human")]
    store.create_room(RoomRow("QLDABC", "scout", 2, {}, 1, 0.0, "waiting", seats))
    with srv.client() as client:
        assert client.get("/api/rooms/QLDABC").json()["invite"] == "/r/QLDABC"
        assert client.post("/api/rooms/QLDABC/join", json={"name": "Bob"}).status_code == 200
        assert client.get("/api/rooms/qldabc").json()["status"] == "playing"  # started: the old link works
    assert first(ws_url(srv, "QLDABC"), "10.9.1.1")["type"] == "state"


def test_the_invite_keys_revision_keeps_the_stored_rooms(tmp_path: Path) -> None:
    """Revision 0007 adds ``rooms.invite`` (NULL for the rooms stored before) and takes
    it away again; a store opened on an older database upgrades it, its rooms intact."""
    rev = migration_revision("0007_invite_keys")
    assert (rev.revision, rev.down_revision) == ("0007_invite_keys", "0006_lobby")
    url = f"sqlite:///{tmp_path / 'old.db'}"
    store = Store(url)
    seats = [SeatRow(0, "human", name="Alice", secret_hash="h", taken=True), SeatRow(1, "human")]
    store.create_room(RoomRow("BEFORE", "scout", 2, {}, 1, 0.0, "waiting", seats))
    store.close()
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            alembic_command.downgrade(migrate.alembic_config(conn, ""), "0006_lobby")
            assert "invite" not in {c["name"] for c in sa.inspect(conn).get_columns("rooms")}
    finally:
        engine.dispose()
    store = Store(url)  # upgraded again when it opens
    try:
        assert migrate.current(url, "").current == migrate.head()
        row = store.load("BEFORE")
        assert row is not None and row.invite is None and row.seats[0].name == "Alice"
    finally:
        store.close()
