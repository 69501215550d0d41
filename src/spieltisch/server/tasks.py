"""The background tasks of a room's owner (its bots, its clock timer)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine
from typing import Any

log = logging.getLogger("spieltisch.server")


def background(work: Coroutine[Any, Any, None], what: str, code: str) -> asyncio.Task[None]:
    """A task of a room's owner (its bots, its clocks) that logs why it stopped."""
    task = asyncio.create_task(work, name=f"{what}-{code}")

    def ended(task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.error("room %s: the %s stopped", code, what, exc_info=task.exception())

    task.add_done_callback(ended)
    return task


async def cancel(task: asyncio.Task[None] | None) -> None:
    """Cancel a room's background task and wait until it has stopped."""
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


class OwnerTask:
    """One background task of a room's owner (its bots, its clock timer): started at most
    once (:meth:`launch`), woken by :attr:`wake`, cancelled by :meth:`stop`."""

    def __init__(self, what: str, code: str) -> None:
        self.what = what
        self.code = code
        self.wake = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def launch(self, work: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run ``work()`` as the task, unless it runs already; wake it."""
        if self.task is None:
            self.task = background(work(), self.what, self.code)
            self.wake.set()

    async def stop(self) -> None:
        task, self.task = self.task, None
        await cancel(task)
