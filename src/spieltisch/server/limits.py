"""The web table's limits against hostile or broken clients (docs/protocol.md, "Limits").

:class:`Limits` (:mod:`spieltisch.server.limit_values`) holds every limit with its
default and help text; ``spieltisch serve`` makes an option of each.
:class:`Addresses` counts per client address (open sockets, messages per second
across all of its sockets, rooms created per minute, misses) and per room (failed
joins and wrong secrets).
:func:`uvicorn_options` sets the limits that must be enforced by the server
itself, before the application reads anything: the WebSocket frame size, the
size of a request line with its headers, and the time a client may take to
send them (:class:`GuardedH11Protocol`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import h11
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from spieltisch.server.limit_values import DAY, Limits

log = logging.getLogger("spieltisch.server")

__all__ = [
    "DAY",
    "Addresses",
    "BodyLimit",
    "CountUnavailable",
    "GuardedH11Protocol",
    "Limits",
    "retry_after",
    "uvicorn_options",
]


class CountUnavailable(Exception):
    """A count shared by several workers cannot be read now (Redis is unreachable):
    the socket or room is refused, not let through uncounted (docs/deploy.md)."""


@dataclass
class _Address:
    sockets: int = 0
    tokens: float = 0.0
    at: float = 0.0
    rooms: deque[float] = field(default_factory=deque)
    misses: deque[float] = field(default_factory=deque)


MISS_WINDOW = 3600.0
"""The window of ``misses_per_hour`` (seconds)."""


def _prune(times: deque[float], now: float, window: float) -> deque[float]:
    """``times`` without those older than ``window`` seconds (oldest first)."""
    while times and now - times[0] >= window:
        times.popleft()
    return times


def retry_after(wait: float) -> dict[str, str]:
    """The ``Retry-After`` header of a refusal that may be tried again in ``wait`` seconds."""
    return {"Retry-After": str(max(1, round(wait)))}


def _add_miss(times: deque[float], now: float, limit: int) -> float | None:
    """Count a miss at ``now`` in ``times`` (the last ``limit`` kept); ``None`` if fewer than
    ``limit`` were counted in the window before it, else the seconds until fewer are."""
    refused = len(_prune(times, now, MISS_WINDOW)) >= limit
    times.append(now)
    while len(times) > limit:
        times.popleft()
    return MISS_WINDOW - (now - times[0]) if refused else None


class Addresses:
    """Per client address: open sockets, a message token bucket shared by all of
    its sockets, and the times of its recent room creations and misses (a room that
    does not exist, a wrong secret); per room: the times of its recent failures
    (a failed join, a wrong secret: :meth:`room_miss`)."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._by: dict[str, _Address] = {}
        self._rooms: dict[str, deque[float]] = {}

    def _get(self, address: str) -> _Address:
        entry = self._by.get(address)
        if entry is None:
            entry = self._by[address] = _Address(tokens=float(self.limits.message_burst), at=time.monotonic())
        return entry

    def _idle(self, entry: _Address, now: float) -> bool:
        """Nothing to remember: no socket, no room in the last minute, a full bucket again
        (so closing and reopening a socket does not refill it faster)."""
        _prune(entry.rooms, now, 60.0)
        _prune(entry.misses, now, MISS_WINDOW)
        rate = self.limits.messages_per_second
        full = not rate or entry.tokens + (now - entry.at) * rate >= self.limits.message_burst
        return entry.sockets == 0 and not entry.rooms and not entry.misses and full

    def _tidy(self, address: str) -> None:
        entry = self._by.get(address)
        if entry is not None and self._idle(entry, time.monotonic()):
            del self._by[address]

    def sweep(self) -> int:
        """Forget every address with nothing to remember; returns how many are still known."""
        now = time.monotonic()
        for address in [a for a, e in self._by.items() if self._idle(e, now)]:
            del self._by[address]
        for code in [c for c, times in self._rooms.items() if not _prune(times, now, MISS_WINDOW)]:
            del self._rooms[code]
        return len(self._by)

    def open_socket(self, address: str) -> bool:
        """Count a new socket; ``False`` (nothing counted) when the address has too many."""
        entry = self._get(address)
        limit = self.limits.sockets_per_address
        if limit and entry.sockets >= limit:
            self._tidy(address)
            return False
        entry.sockets += 1
        return True

    def close_socket(self, address: str) -> None:
        entry = self._by.get(address)
        if entry is not None:
            entry.sockets = max(0, entry.sockets - 1)
            self._tidy(address)

    def take_message(self, address: str) -> bool:
        """One message from ``address``: ``False`` when its sockets together send too fast."""
        rate = self.limits.messages_per_second
        if not rate:
            return True
        entry = self._get(address)
        now = time.monotonic()
        entry.tokens = min(float(self.limits.message_burst), entry.tokens + (now - entry.at) * rate)
        entry.at = now
        if entry.tokens < 1:
            return False
        entry.tokens -= 1
        return True

    def take_room(self, address: str) -> float | None:
        """Count a room creation; returns ``None`` if allowed, else the seconds until one is."""
        limit = self.limits.rooms_per_minute
        if not limit:
            return None
        entry = self._get(address)
        now = time.monotonic()
        if len(_prune(entry.rooms, now, 60.0)) >= limit:
            return 60.0 - (now - entry.rooms[0])
        entry.rooms.append(now)
        return None

    def miss(self, address: str) -> None:
        """Count a miss of ``address``: a room that does not exist, or a wrong secret."""
        if self.limits.misses_per_hour:
            _add_miss(self._get(address).misses, time.monotonic(), self.limits.misses_per_hour)

    def room_miss(self, code: str) -> float | None:
        """Count a failure on the room ``code`` (a failed join, a wrong secret), whoever
        made it; ``None`` while the room had fewer than ``room_misses_per_hour`` in the
        last hour, else the seconds until it has: the failure is then refused (``429``)."""
        limit = self.limits.room_misses_per_hour
        if not limit:
            return None
        times = self._rooms.setdefault(code, deque())
        wait = _add_miss(times, time.monotonic(), limit)
        if wait is None and len(times) == limit:
            self.room_locked(code)
        return wait

    def room_locked(self, code: str) -> None:
        """The room ``code`` has just had ``room_misses_per_hour`` failures: say so once."""
        log.warning(
            "room %s: %d failed joins or wrong secrets in the last hour (room_misses_per_hour); "
            "further ones are refused with 429 - is somebody guessing?",
            code,
            self.limits.room_misses_per_hour,
        )

    def room_text(self, code: str, wait: float) -> str:
        """What a failure on a locked room is told."""
        return (
            f"room_misses_per_hour: more than {self.limits.room_misses_per_hour} failed joins or wrong "
            f"secrets on room {code} in an hour; try again in {wait:.0f} s"
        )

    def locked_out(self, address: str) -> float | None:
        """``None`` while ``address`` may look rooms up, else the seconds until it may again
        (it has used up ``misses_per_hour``)."""
        limit = self.limits.misses_per_hour
        entry = self._by.get(address)
        if not limit or entry is None:
            return None
        now = time.monotonic()
        if len(_prune(entry.misses, now, MISS_WINDOW)) < limit:
            return None
        return MISS_WINDOW - (now - entry.misses[0])

    def locked_text(self, wait: float) -> str:
        """What a locked-out address is told."""
        return (
            f"misses_per_hour: more than {self.limits.misses_per_hour} requests for rooms that do not "
            f"exist or with a wrong secret from your address in an hour; try again in {wait:.0f} s"
        )

    def sockets(self, address: str) -> int:
        entry = self._by.get(address)
        return entry.sockets if entry is not None else 0

    # What the server awaits; a worker of several counts sockets, rooms and misses across
    # all workers (spieltisch.server.cluster.SharedAddresses). One server: the counts above.
    async def open_socket_async(self, address: str) -> bool:
        """:meth:`open_socket`; raises :class:`CountUnavailable` when it cannot count."""
        return self.open_socket(address)

    async def close_socket_async(self, address: str) -> None:
        self.close_socket(address)

    async def take_room_async(self, address: str) -> float | None:
        """:meth:`take_room`; raises :class:`CountUnavailable` when it cannot count."""
        return self.take_room(address)

    async def locked_out_async(self, address: str) -> float | None:
        """:meth:`locked_out`; raises :class:`CountUnavailable` when it cannot count."""
        return self.locked_out(address)

    async def miss_async(self, address: str) -> None:
        """:meth:`miss` (a miss that cannot be counted is not counted)."""
        self.miss(address)

    async def room_miss_async(self, code: str) -> float | None:
        """:meth:`room_miss` (a failure that cannot be counted is not counted, nor refused)."""
        return self.room_miss(code)


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for the request head: a client that
    has not sent a whole request line with its headers ``request_timeout``
    seconds after connecting (or after its previous response) gets ``408`` and
    is disconnected, so a slow client cannot hold a connection open. A head
    over ``max_head`` bytes gets ``400`` naming the limit."""

    request_timeout = Limits.request_timeout
    max_head = Limits.max_request_head

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._head_timer: asyncio.TimerHandle | None = None
        self._arm_head_timer()

    def _arm_head_timer(self) -> None:
        if getattr(self, "_head_timer", None) is not None:
            self._head_timer.cancel()  # type: ignore[union-attr]
        self._head_timer = self.loop.call_later(self.request_timeout, self._head_deadline)

    def _head_deadline(self) -> None:
        self._head_timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return  # a request is being answered (or the socket was handed to the WebSocket)
        if self.cycle is not None and not self.cycle.response_complete:
            return
        self.logger.info("closing a connection that sent no whole request head in %g s", self.request_timeout)
        self._refuse(
            408, "Request Timeout", f"request line and headers must arrive within {self.request_timeout:g} s"
        )

    def _refuse(self, status: int, phrase: str, text: str) -> None:
        """Answer ``status`` with ``text`` and close (before any request was read)."""
        body = text.encode()
        head = (
            f"HTTP/1.1 {status} {phrase}\r\ncontent-type: text/plain; charset=utf-8\r\n"
            f"connection: close\r\ncontent-length: {len(body)}\r\n\r\n"
        )
        self.transport.write(head.encode() + body)
        self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self.conn.their_state is h11.IDLE:  # still reading a request head: count it whole
            buffered = self.conn.trailing_data[0] + data
            end = buffered.find(b"\r\n\r\n")
            size = end + 4 if end >= 0 else len(buffered)
            if size > self.max_head:
                self._unset_keepalive_if_required()
                self.logger.info("refusing a request head over %d bytes", self.max_head)
                self._refuse(
                    400, "Bad Request", f"request line and headers are limited to {self.max_head} bytes"
                )
                return
        super().data_received(data)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm_head_timer()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None
        super().handle_websocket_upgrade(event)

    def connection_lost(self, exc: Exception | None) -> None:
        if getattr(self, "_head_timer", None) is not None:
            self._head_timer.cancel()  # type: ignore[union-attr]
            self._head_timer = None
        super().connection_lost(exc)


class BodyLimit:
    """ASGI middleware: an HTTP request body over ``max_body`` bytes is refused by its
    ``Content-Length`` before a byte of it is read (``413``); a body without a length
    (chunked) gets ``411``. h11 reads exactly ``Content-Length`` bytes, so the length
    cannot lie."""

    def __init__(self, app: ASGIApp, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.max_body:
            headers = dict(scope["headers"])
            length = headers.get(b"content-length")
            if length is None and b"chunked" in headers.get(b"transfer-encoding", b"").lower():
                await _answer(send, 411, "a request body needs a Content-Length header")
                return
            if length is not None and length.isdigit() and int(length) > self.max_body:
                await _answer(send, 413, f"max_body: request bodies are limited to {self.max_body} bytes")
                return
        await self.app(scope, receive, send)


async def _answer(send: Send, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def uvicorn_options(limits: Limits, proxies: Sequence[str] = ()) -> dict[str, Any]:
    """Keyword arguments for ``uvicorn.run`` / ``uvicorn.Config`` that enforce ``limits`` in the server.

    ``proxies``: the reverse proxies (addresses or networks, checked by
    :func:`~spieltisch.server.limit_values.trusted_proxies`) whose ``X-Forwarded-For`` names
    the client; uvicorn then takes the right-most address of that header that is not one of
    them. Without any, the client is the peer of the connection, whatever the headers say
    (uvicorn's own default would believe 127.0.0.1, or ``FORWARDED_ALLOW_IPS``)."""
    protocol = type(
        "GuardedH11Protocol",
        (GuardedH11Protocol,),
        {"request_timeout": limits.request_timeout, "max_head": limits.max_request_head},
    )
    return {
        "http": protocol,
        "h11_max_incomplete_event_size": limits.max_request_head,
        "ws_max_size": limits.max_message,
        "ws_per_message_deflate": False,  # costs more CPU than it saves on a table's small messages
        "timeout_keep_alive": 5,
        # A stopping server waits at most this long for its handlers (docs/deploy.md, "Stopping").
        "timeout_graceful_shutdown": 3,
        "proxy_headers": bool(proxies),
        "forwarded_allow_ips": list(proxies) or None,
    }
