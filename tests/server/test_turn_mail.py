"""E-mail turn notices in turn-based games (issue #36), caught by a local SMTP server."""

from __future__ import annotations

import asyncio
import email
import json
import socket
import time
from collections.abc import Iterator
from email.message import Message
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from server_harness import SeatUrl, ServerThread, run_async, seat_socket

from spieltisch.server.notify import Mailer, MailError

HOURS = 3600.0


class Inbox:
    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def handle_DATA(self, _server: Any, _session: Any, envelope: Any) -> str:
        self.messages.append(email.message_from_bytes(envelope.content))
        return "250 OK"

    def wait(self, count: int, timeout: float = 20) -> list[Message]:
        deadline = time.monotonic() + timeout
        while len(self.messages) < count:
            assert time.monotonic() < deadline, f"{len(self.messages)} of {count} e-mails arrived"
            time.sleep(0.05)
        return self.messages


@pytest.fixture
def inbox() -> Iterator[tuple[Inbox, int]]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    box = Inbox()
    controller = Controller(box, hostname="127.0.0.1", port=port)
    controller.start()
    yield box, port
    controller.stop()


def _room(c: Any, move: float, email_address: str) -> dict[str, Any]:
    body = {"game": "scout", "players": 2, "name": "Alice", "clock": {"move": move}, "email": email_address}
    r = c.post("/api/rooms", json=body)
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_the_player_away_is_told_by_e_mail_that_it_is_their_turn(
    db_url: str, inbox: tuple[Inbox, int]
) -> None:
    box, port = inbox
    mailer = Mailer(f"smtp://127.0.0.1:{port}", "Spieltisch <table@example.org>", "https://table.example")
    server = ServerThread(db_url, bot_workers=1, mailer=mailer)
    try:
        with server.client() as c:
            live = _room(c, 60, "quick@example.org")  # a live game: no e-mail
            c.post(f"/api/rooms/{live['room']}/join", json={"name": "Q", "email": "q@example.org"})
            room = _room(c, 24 * HOURS, "alice@example.org")
            code = room["room"]

            async def join_while_alice_is_here() -> None:
                async with seat_socket(SeatUrl(f"{server.ws}/ws/{code}", room["seat"], room["secret"])) as ws:
                    await asyncio.wait_for(ws.recv(), 10)
                    body = {"name": "Bob", "email": "bob@example.org", "lang": "de"}
                    r = await asyncio.to_thread(c.post, f"/api/rooms/{code}/join", json=body)
                    assert r.status_code == 200, r.text
                    bob.update(r.json())
                    while json.loads(await asyncio.wait_for(ws.recv(), 10))["room"]["status"] != "playing":
                        pass

            bob: dict[str, Any] = {}
            run_async(join_while_alice_is_here())
            [mail] = box.wait(1)
            time.sleep(0.5)
            assert len(box.messages) == 1  # Alice was at the table, the live game sends none
            assert mail["To"] == "bob@example.org" and mail["From"] == "Spieltisch <table@example.org>"
            assert mail["Subject"] == f"Du bist dran: Scout ({code})"
            text = mail.get_payload(decode=True).decode()
            assert f"https://table.example/r/{code}" in text and "24 Stunden pro Zug" in text
            assert text.startswith("Hallo Bob,")
            assert bob["secret"] not in text and room["secret"] not in text
            info = c.get(f"/api/rooms/{code}").text
            assert "example.org" not in info  # nobody is shown an address
    finally:
        server.stop()


def test_mail_settings_are_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SPIELTISCH_SMTP", raising=False)
    assert Mailer.from_env() is None
    monkeypatch.setenv("SPIELTISCH_SMTP", "smtp://mail.example:2525")
    with pytest.raises(MailError, match="SPIELTISCH_MAIL_FROM and SPIELTISCH_PUBLIC_URL"):
        Mailer.from_env()
    monkeypatch.setenv("SPIELTISCH_MAIL_FROM", "table@example.org")
    monkeypatch.setenv("SPIELTISCH_PUBLIC_URL", "https://table.example")
    assert Mailer.from_env() == Mailer(
        "smtp://mail.example:2525", "table@example.org", "https://table.example"
    )
    with pytest.raises(MailError, match="SPIELTISCH_SMTP: smtp://HOST"):
        Mailer("http://mail.example", "table@example.org", "https://table.example")
    with pytest.raises(MailError, match="SPIELTISCH_PUBLIC_URL"):
        Mailer("smtps://mail.example", "table@example.org", "table.example")


def test_a_bad_address_is_refused(db_url: str) -> None:
    server = ServerThread(db_url)
    try:
        with server.client() as c:
            r = c.post("/api/rooms", json={"game": "scout", "players": 2, "email": "not an address"})
            assert r.status_code == 422 and r.json()["detail"].startswith("email:")
    finally:
        server.stop()
