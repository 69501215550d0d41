"""The values of the web table's limits (docs/protocol.md, "Limits"), without the server.

:class:`Limits` is the one source of every limit: its name, type, default and the
help text of its ``spieltisch serve`` option (``help`` in the field's metadata);
:func:`spieltisch.cli.serve` makes one option of each field. This module imports
nothing of the web extra, so that ``spieltisch --help`` stays fast and works
without it; :mod:`spieltisch.server.limits` enforces the limits.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from typing import Any

DAY = 86400.0


def _limit(default: Any, help: str) -> Any:
    return field(default=default, metadata={"help": help})


@dataclass(frozen=True)
class Limits:
    """Every limit of the web table; ``0`` switches a count or rate limit off."""

    max_message: int = _limit(8 * 1024, "Largest WebSocket message in bytes.")
    """Largest WebSocket message (bytes); a larger frame closes the socket (1009) before it is read."""
    messages_per_second: float = _limit(
        20.0, "Messages per second per client address, all its sockets together."
    )
    """Messages per second one client address may send, across all of its sockets ..."""
    message_burst: int = _limit(40, "Messages one address may send at once.")
    """... and at once."""
    sockets_per_address: int = _limit(32, "Open WebSockets per client address, spectators included.")
    """Open WebSockets per client address, spectators included (with ``--redis``: on all workers together)."""
    rooms_per_minute: int = _limit(10, "Rooms one client address may open per minute.")
    """Rooms one client address may open per minute (``POST /api/rooms``; with ``--redis``: all workers)."""
    misses_per_hour: int = _limit(
        30, "Failed room lookups and secret checks per client address per hour, then 429 (anti-guessing)."
    )
    """Requests naming a room that does not exist, or a seat with a wrong secret, that one
    client address may make per hour; then every room request of it is refused until the
    oldest miss is an hour old (``429`` with ``Retry-After``; on a socket ``rate_limited``).
    Against guessing room codes (docs/deploy.md, "Threat model"; with ``--redis``: all workers)."""
    room_misses_per_hour: int = _limit(
        20, "Failed joins and wrong secrets on one room per hour, all addresses together; then 429."
    )
    """Failed joins (the room full, the seat taken) and wrong secrets on one room that all
    client addresses together may make per hour; then each further one is refused with
    ``429`` and ``Retry-After`` (on a socket ``rate_limited``) until the oldest is an hour
    old. A right secret and a join that finds a free seat always pass, so nobody can lock
    the room's players out (docs/deploy.md, "Threat model"; with ``--redis``: all workers)."""
    private_rooms: int = _limit(
        1, "1: a started game opens only by its invite link or a seat's secret; 0: by its code too."
    )
    """``1`` (any other than 0): a game that has started opens only by its invite link (``/r/CODE-KEY``) or a
    seat's secret; its 6-letter code alone answers as a room that does not exist, so that
    guessing codes finds only rooms still waiting for players. ``0``: the code opens every
    room (a public server where anyone may watch by code). docs/deploy.md, "Threat model"."""
    accounts_per_hour: int = _limit(5, "Accounts one client address may create per hour.")
    """Accounts one client address may create per hour (``POST /api/account/signup``, and a
    sign-up with a passkey; ``429`` with ``Retry-After``; counted per server process)."""
    hello_timeout: float = _limit(10.0, "Seconds a new socket has to send its hello.")
    """Seconds a new WebSocket has to send its ``hello`` (closed with 1008 "too slow")."""
    request_timeout: float = _limit(10.0, "Seconds a client has to send a request line and its headers.")
    """Seconds a client has to send a whole request line with its headers (else ``408``, closed)."""
    max_request_head: int = _limit(
        16 * 1024, "Largest request line with headers in bytes (the WebSocket handshake too)."
    )
    """Largest request line with headers (bytes), the WebSocket handshake included (else ``400``)."""
    max_body: int = _limit(64 * 1024, "Largest HTTP request body in bytes.")
    """Largest HTTP request body (bytes), by its Content-Length (``413``; a body without one: ``411``)."""
    keep_finished_days: float = _limit(30.0, "Days a finished game stays stored (0: forever).")
    """Days a finished game stays in the store (counted from when the room was opened)."""
    keep_abandoned_days: float = _limit(
        7.0, "Days an unfinished game nobody is connected to stays stored (0: forever)."
    )
    """Days an unfinished game nobody is connected to stays in the store (from when it was opened)."""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if value < 0:
                raise ValueError(f"limit {f.name} must be 0 or more, not {value}")
        if self.max_message < 256:
            raise ValueError(f"limit max_message must be at least 256 bytes, not {self.max_message}")
        for name in ("hello_timeout", "request_timeout"):
            if getattr(self, name) <= 0:
                raise ValueError(f"limit {name} must be more than 0 seconds")

    @staticmethod
    def field_type(name: str) -> type[int] | type[float]:
        """The Python type of the limit ``name`` (``int`` or ``float``)."""
        kind = {f.name: f.type for f in fields(Limits)}[name]
        return float if kind in ("float", float) else int

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Limits:
        """The defaults, overridden by ``SPIELTISCH_LIMIT_<NAME>`` variables (``serve --reload``)."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for f in fields(cls):
            raw = env.get(f"SPIELTISCH_LIMIT_{f.name.upper()}")
            if raw is not None:
                values[f.name] = cls.field_type(f.name)(raw)
        return cls(**values)

    def to_env(self) -> dict[str, str]:
        return {f"SPIELTISCH_LIMIT_{f.name.upper()}": str(getattr(self, f.name)) for f in fields(self)}


PROXIES_ENV = "SPIELTISCH_TRUSTED_PROXIES"
"""The trusted proxies of ``spieltisch serve --trusted-proxy``, for its workers (comma-separated)."""


def trusted_proxies(values: Iterable[str]) -> tuple[str, ...]:
    """The reverse proxies whose ``X-Forwarded-For`` the server believes, checked: each an IP
    address or network (``10.0.0.5``, ``172.30.0.0/24``). Raises :class:`ValueError` saying
    what is wrong; ``*`` (any client) is refused, since a client that writes the header
    itself would then choose its own address and escape every per-address limit."""
    proxies: list[str] = []
    for value in values:
        for item in (part.strip() for part in value.split(",")):
            if not item:
                continue
            if item == "*":
                raise ValueError(
                    "trusted proxy '*': any client could then name its own address in "
                    "X-Forwarded-For and escape the per-address limits; name the proxy's "
                    "address or network, e.g. --trusted-proxy 10.0.0.5"
                )
            try:
                ipaddress.ip_network(item, strict=False)
            except ValueError:
                raise ValueError(
                    f"trusted proxy {item!r}: not an IP address or network (e.g. 10.0.0.5 or 172.30.0.0/24)"
                ) from None
            proxies.append(item)
    return tuple(dict.fromkeys(proxies))
