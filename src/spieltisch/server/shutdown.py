"""A prompt stop on SIGTERM (or Ctrl+C): what a server does before uvicorn's own shutdown.

uvicorn's shutdown closes the listening socket, closes every WebSocket with 1012
("service restart", which asks a client to wait 5-30 s before it reconnects), waits
for every request and socket handler to end, and only then runs the application's
shutdown. A worker of several (:mod:`spieltisch.server.cluster`) would hold its rooms'
leases all that time. So :class:`Shutdown` catches the signal first (it wraps the
handler uvicorn installed, in the main thread only) and at once:

1. refuses new WebSockets and closes every open one with ``1001`` "going away": the
   clients reconnect at once, through the proxy, to another worker (docs/deploy.md);
2. hands the signal on to uvicorn, which stops accepting and shuts down;
3. meanwhile gives the rooms up (:meth:`Cluster.drain`): each room's commit in
   progress finishes, then its lease is released, so another worker owns it well
   before a lease could expire. Nothing acknowledged is lost: every ack followed a
   durable write.

uvicorn's wait for the handlers is bounded by ``timeout_graceful_shutdown``
(:func:`~spieltisch.server.limits.uvicorn_options`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import threading
from types import FrameType
from typing import Any

from starlette.websockets import WebSocket, WebSocketState

from spieltisch.server.owner import Owner

log = logging.getLogger("spieltisch.server")

GOING_AWAY = 1001
"""The close code of the sockets of a server that stops: reconnect (elsewhere) now."""
CLOSE_WAIT = 0.5
"""Seconds the close frames may take before the signal goes on to uvicorn."""
SIGNALS = (signal.SIGTERM, signal.SIGINT)


class Shutdown:
    """The open WebSockets of an app, and its stop on a signal (see the module)."""

    def __init__(self, owner: Owner) -> None:
        self.owner = owner
        self.sockets: set[WebSocket] = set()
        self.stopping = False
        self._previous: dict[int, Any] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None

    def install(self) -> None:
        """Catch SIGTERM and SIGINT before the handlers installed so far (uvicorn's);
        only in the main thread (a server in a thread of its own, as in tests, is stopped
        by its owner)."""
        if threading.current_thread() is not threading.main_thread():
            return
        self._loop = asyncio.get_running_loop()
        for sig in SIGNALS:
            self._previous[sig] = signal.getsignal(sig)
            signal.signal(sig, self._caught)

    def uninstall(self) -> None:
        for sig, previous in self._previous.items():
            if signal.getsignal(sig) == self._caught:
                signal.signal(sig, previous)
        self._previous = {}

    def _caught(self, sig: int, frame: FrameType | None) -> None:
        if self.stopping or self._loop is None or self._loop.is_closed():
            self._hand_on(sig, frame)  # a second Ctrl+C: uvicorn's forced exit
            return
        self.stopping = True
        self._loop.call_soon_threadsafe(self._begin, sig)

    def _hand_on(self, sig: int, frame: FrameType | None) -> None:
        previous = self._previous.get(sig)
        if callable(previous):
            previous(sig, frame)
        elif previous == signal.SIG_DFL:  # nobody else handles it: what it would have done
            signal.signal(sig, signal.SIG_DFL)
            signal.raise_signal(sig)

    def _begin(self, sig: int) -> None:
        self._task = asyncio.get_running_loop().create_task(self._stop(sig), name="shutdown")

    async def _stop(self, sig: int) -> None:
        log.info("stopping (signal %d): closing %d socket(s), giving the rooms up", sig, len(self.sockets))
        draining = asyncio.ensure_future(self.owner.drain())  # (a worker of several: its rooms)
        await self.close_all()
        self._hand_on(sig, None)
        await draining

    async def close_all(self) -> None:
        """Close every open WebSocket with 1001 "going away" (waiting at most :data:`CLOSE_WAIT` s)."""
        sockets = [ws for ws in self.sockets if ws.application_state == WebSocketState.CONNECTED]
        if not sockets:
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(CLOSE_WAIT):
                await asyncio.gather(*(_close(ws) for ws in sockets))

    async def wait(self, timeout: float = 5.0) -> None:
        """The stop begun by a signal has ended (the app's own shutdown comes after it)."""
        if self._task is not None:
            with contextlib.suppress(TimeoutError, Exception):
                async with asyncio.timeout(timeout):
                    await self._task


async def _close(websocket: WebSocket) -> None:
    with contextlib.suppress(Exception):
        await websocket.close(code=GOING_AWAY, reason="server stopping")
