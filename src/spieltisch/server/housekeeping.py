"""Housekeeping: idle rooms leave memory, and old rooms leave the store (docs/storage.md)."""

from __future__ import annotations

import asyncio
import logging
import time

from spieltisch.server.directory import RoomDirectory
from spieltisch.server.limits import DAY, Addresses

log = logging.getLogger("spieltisch.server.app")

EXPIRE_EVERY = 3600.0
"""Seconds between two sweeps of expired rooms from the store (more often if a keep time is short)."""


class Sweeper:
    """Every little while: forget the per-address counts that ran out, let the rooms idle for
    ``room_idle`` s go from memory (:meth:`RoomDirectory.forget_idle`), and now and then
    delete the rooms past their keep time from the store (:meth:`expire`)."""

    def __init__(self, directory: RoomDirectory, addresses: Addresses, room_idle: float) -> None:
        self.directory = directory
        self.addresses = addresses
        self.room_idle = room_idle
        limits = addresses.limits
        keeps = [d * DAY for d in (limits.keep_finished_days, limits.keep_abandoned_days) if d]
        self.expire_every = min([EXPIRE_EVERY, *(k / 4 for k in keeps)])

    async def expire(self) -> list[str]:
        """Delete the rooms past ``keep_finished_days`` / ``keep_abandoned_days``; their codes."""
        limits = self.addresses.limits
        now = time.time()
        finished = now - limits.keep_finished_days * DAY if limits.keep_finished_days else 0.0
        abandoned = now - limits.keep_abandoned_days * DAY if limits.keep_abandoned_days else 0.0
        if not finished and not abandoned:
            return []
        return await self.directory.expire(finished, abandoned, self.expire_every)

    async def run(self) -> None:
        """The sweeps, until cancelled."""
        last_expiry = -EXPIRE_EVERY
        period = min(60.0, self.room_idle / 4)
        while True:
            await asyncio.sleep(period)
            try:
                self.addresses.sweep()
                gone = await self.directory.forget_idle(self.room_idle)
                if gone:
                    log.info("let %d idle room(s) go: %s", len(gone), ", ".join(gone))
                if time.monotonic() - last_expiry >= self.expire_every:
                    last_expiry = time.monotonic()
                    expired = await self.expire()
                    if expired:
                        log.info("expired %d room(s) from the store: %s", len(expired), ", ".join(expired))
            except Exception:  # pragma: no cover - a sweep must never stop the server
                log.exception("sweeping rooms failed")
