"""Turn notices by e-mail in turn-based games (docs/web.md, "Turn-based games").

A room whose clock gives an hour or more per decision is turn-based: its players
come and go over days. When a person's seat becomes one of the seats to move and
nobody is at the table for it, and its player gave an e-mail address when they
took the seat, the server sends one e-mail in the player's language (English or
German) with the game, the time per move and the link to the table - never the
seat's secret (the player's browser holds it). The e-mail goes out on a thread
of its own (the event loop never waits for a mail server); a failure is logged
without the address and the game goes on. Without ``SPIELTISCH_SMTP`` nothing is sent
(:meth:`Mailer.from_env`, docs/deploy.md).
"""

from __future__ import annotations

import asyncio
import logging
import os
import smtplib
from collections.abc import Iterable
from dataclasses import dataclass
from email.message import EmailMessage
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from spieltisch.clocks import TURN_BASED

if TYPE_CHECKING:
    from spieltisch.server.room import Room

log = logging.getLogger("spieltisch.server.notify")

SCHEMES = {"smtp": 25, "smtp+starttls": 587, "smtps": 465}

TEXTS = {
    "en": (
        "Your turn in {game} ({code})",
        "Hello {name},\n\nit is your turn in {game} at table {code}. You have {hours} hours per move.\n\n"
        "Open the table: {link}\n\n(Open it in the browser you play with: it keeps your seat.)\n",
    ),
    "de": (
        "Du bist dran: {game} ({code})",
        "Hallo {name},\n\ndu bist dran in {game} an Tisch {code}. Du hast {hours} Stunden pro Zug.\n\n"
        "Zum Tisch: {link}\n\n(Öffne ihn in dem Browser, in dem du spielst: er kennt deinen Platz.)\n",
    ),
}


class MailError(ValueError):
    """An SMTP setting that cannot work; the message says which."""


@dataclass(frozen=True)
class Mailer:
    """Where e-mail goes: ``smtp://[user:password@]host[:port]`` (``smtp+starttls://``,
    ``smtps://``), from ``sender``; links point at ``public_url``."""

    url: str
    sender: str
    public_url: str

    def __post_init__(self) -> None:
        parts = urlsplit(self.url)
        if parts.scheme not in SCHEMES or not parts.hostname:
            raise MailError(
                f"SPIELTISCH_SMTP: smtp://HOST[:PORT], smtp+starttls://... or smtps://..., not {parts.scheme}://"
            )
        if "@" not in self.sender:
            raise MailError(f"SPIELTISCH_MAIL_FROM: an e-mail address, not {self.sender!r}")
        if not self.public_url.startswith(("http://", "https://")):
            raise MailError(f"SPIELTISCH_PUBLIC_URL: the table's https:// address, not {self.public_url!r}")

    @classmethod
    def from_env(cls) -> Mailer | None:
        """The server's mailer from ``SPIELTISCH_SMTP`` (the URL, with the password: kept out of
        command lines), ``SPIELTISCH_MAIL_FROM`` and ``SPIELTISCH_PUBLIC_URL``; None without
        ``SPIELTISCH_SMTP``. Raises :class:`MailError` naming a missing or wrong setting."""
        url = os.environ.get("SPIELTISCH_SMTP", "")
        if not url:
            return None
        sender = os.environ.get("SPIELTISCH_MAIL_FROM", "")
        public = os.environ.get("SPIELTISCH_PUBLIC_URL", "")
        if not sender or not public:
            raise MailError("SPIELTISCH_SMTP needs SPIELTISCH_MAIL_FROM and SPIELTISCH_PUBLIC_URL too")
        return cls(url, sender, public)

    def send(self, to: str, subject: str, body: str) -> None:
        """Send one e-mail (blocking: call it on a thread)."""
        parts = urlsplit(self.url)
        port = parts.port or SCHEMES[parts.scheme]
        host = parts.hostname or ""
        connect = smtplib.SMTP_SSL if parts.scheme == "smtps" else smtplib.SMTP
        with connect(host, port, timeout=20) as smtp:
            if parts.scheme == "smtp+starttls":
                smtp.starttls()
            if parts.username:
                smtp.login(unquote(parts.username), unquote(parts.password or ""))
            message = EmailMessage()
            message["From"], message["To"], message["Subject"] = self.sender, to, subject
            message.set_content(body)
            smtp.send_message(message)


class TurnNotices:
    """Sends the turn notices of a server's rooms (``mailer`` None: none)."""

    def __init__(self, mailer: Mailer | None) -> None:
        self.mailer = mailer
        self.sending: set[asyncio.Future[None]] = set()

    def __call__(self, room: Room, seats: Iterable[int]) -> None:
        """``seats`` have just become seats to move in ``room``."""
        settings = room.clock_settings
        if self.mailer is None or settings is None or (settings.move or 0) < TURN_BASED:
            return
        for seat in seats:
            s = room.row.seats[seat]
            if s.kind != "human" or not s.email or room.connected(seat) or seat in room.stand_in:
                continue
            subject, body = TEXTS["de" if s.lang == "de" else "en"]
            values = {
                "game": room.game.title,
                "code": room.code,
                "name": s.name or "",
                "hours": f"{(settings.move or 0) / 3600:g}",
                "link": f"{self.mailer.public_url.rstrip('/')}{room.invite}",
            }
            sent = asyncio.get_running_loop().run_in_executor(
                None, self._send, s.email, subject.format(**values), body.format(**values), room.code, seat
            )
            self.sending.add(sent)
            sent.add_done_callback(self.sending.discard)

    def _send(self, to: str, subject: str, body: str, code: str, seat: int) -> None:
        assert self.mailer is not None
        try:
            self.mailer.send(to, subject, body)
        except (OSError, smtplib.SMTPException) as exc:  # (never the address in a log line)
            log.warning("room %s: no turn notice to seat %d: %s", code, seat, type(exc).__name__)
