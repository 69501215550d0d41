"""One WebSocket's seat and outbox: the room broadcasts into it, its sender drains it."""

from __future__ import annotations

import asyncio
import collections
import json
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

from spieltisch.engine import IllegalActionError

log = logging.getLogger("spieltisch.server")

OUTBOX_LIMIT = 512
"""A connection that falls this many messages behind is closed (too slow)."""
MAX_TIMINGS = 1_000_000
"""Most acknowledged acts a server times (:class:`Connection`, ``timings``)."""


class Connection:
    """One WebSocket: a seat (``None``: spectator) and an outbox drained by its sender.

    The outbox is a plain deque and the sender's wake-up one future, made only
    when the sender has caught up (:meth:`ready`): a broadcast to many
    connections costs an append each, not an :class:`asyncio.Queue`'s
    bookkeeping, and a sender woken once sends everything queued meanwhile.

    With ``timings`` (a list: ``SPIELTISCH_LATENCY_LOG``, for ``spieltisch bench server``)
    each acknowledged act adds ``(when, seconds)`` to it: from the act's arrival
    (:meth:`arrived`) to its acknowledging state written to the socket (:meth:`written`),
    ``when`` its ``time.monotonic()``."""

    def __init__(
        self,
        seat: int | None,
        close: Callable[[], None] | None = None,
        timings: list[tuple[float, float]] | None = None,
    ) -> None:
        self.seat = seat
        self.outbox: collections.deque[str] = collections.deque()
        self._waiter: asyncio.Future[None] | None = None
        self._close = close
        self.closed = False
        self.timings = timings
        self._arrived: dict[str, float] = {}
        """``ref`` of each act being answered and when it arrived (``time.perf_counter()``)."""
        self._timed: collections.deque[tuple[int, float]] = collections.deque()
        """Acknowledging states in the outbox: their number among all sent, their act's arrival."""
        self._queued = 0
        self._written = 0

    def arrived(self, ref: str | None, at: float | None = None) -> None:
        """An act with ``ref`` arrived at ``at`` (``time.perf_counter()``; default: now),
        timed if ``timings`` is set."""
        if self.timings is not None and ref is not None and len(self._arrived) < OUTBOX_LIMIT:
            self._arrived[ref] = at if at is not None else time.perf_counter()

    def written(self) -> None:
        """The sender wrote the outbox's first message to the socket."""
        self._written += 1
        timed = self._timed
        if timed and timed[0][0] == self._written and self.timings is not None:
            _, started = timed.popleft()
            if len(self.timings) < MAX_TIMINGS:
                self.timings.append((time.monotonic(), time.perf_counter() - started))

    def send(self, text: str, ack: str | None = None) -> None:
        if self.closed:
            return
        if ack is not None and self._arrived:
            started = self._arrived.pop(ack, None)
            if started is not None:
                self._timed.append((self._queued + 1, started))
        if len(self.outbox) >= OUTBOX_LIMIT:
            log.warning("closing a connection that fell %d messages behind", OUTBOX_LIMIT)
            self.closed = True
            if self._close is not None:
                self._close()
            return
        self.outbox.append(text)
        self._queued += 1
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():  # (cancelled: its sender is gone)
                waiter.set_result(None)

    async def ready(self) -> None:
        """Return once the outbox holds a message (at once if it does now)."""
        if self.outbox:
            return
        waiter = self._waiter = asyncio.get_running_loop().create_future()
        await waiter

    def send_json(self, data: Mapping[str, Any]) -> None:
        self.send(json.dumps(data, separators=(",", ":")))

    def error(
        self, code: str, message: str, ref: str | None = None, because: IllegalActionError | None = None
    ) -> None:
        msg: dict[str, Any] = {"type": "error", "code": code, "message": message}
        if ref is not None:  # a refused act is not timed
            self._arrived.pop(ref, None)
        if because is not None:  # so that a client can say it in its own language
            msg.update(ruling=because.ruling, reason=because.reason, params=because.params)
        if ref is not None:
            msg["ref"] = ref
        self.send_json(msg)
