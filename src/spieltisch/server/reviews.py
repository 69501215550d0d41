"""Reviews of finished games and hints at the web table (docs/review.md).

A review rates every decision of every seat of a finished game, from that
seat's view only (:mod:`spieltisch.analysis.review`). Its decisions are rated one by
one in the worker processes of a pool of its own (:class:`Reviewer`), at a
lower CPU priority than the bots' pool, so a review never holds the event loop
nor starves the tables' bots. Progress (decisions done of the total) is kept
per job and polled over ``GET /api/rooms/{room}/review``. Once every seat is
rated, each seat's review is stored in the ``reviews`` table (room, seat,
budget, result, created): asking again is answered from the store, nothing is
computed twice. The budget is the server's (``review_budget``), and the
review is reproducible: the same record and budget give the same review.

The game is over, all cards are public then: anybody who may open the room,
a seat's player or a spectator, may ask for the review of every seat.

A hint (:func:`spieltisch.analysis.hints.hint`) is the medium bot's choice for the
asking seat, computed from that seat's view only in a worker of the bots'
pool (a person waits for it, like for a bot), with a sentence saying why; a
room allows hints only when it was opened with ``hints`` on.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any

import anyio.to_thread

from spieltisch.analysis.review import Decision, ReviewBudget, Task, assemble, collect, rate
from spieltisch.engine import GameRecord, State
from spieltisch.server.botpool import NICENESS, BotPool
from spieltisch.server.errors import RoomError
from spieltisch.server.store import ReviewRow, Store

log = logging.getLogger("spieltisch.server.reviews")

REVIEW_NICENESS = NICENESS + 5
"""The review workers run this much lower than the server (the bots' workers: :data:`NICENESS`)."""
MAX_JOBS = 8
"""Reviews computed at once; one more is refused (503) until one is done."""
DEFAULT_BUDGET = "8"
"""Sampled worlds per decision at the web table (``spieltisch serve --review-budget``)."""


@dataclass
class Job:
    """A review being computed: progress, and its end (the stored rows or the error)."""

    total: int | None = None
    done: int = 0
    error: str | None = None
    task: asyncio.Task[None] | None = None


class Reviewer:
    """The web table's reviews: one job per room at a time, results in the store."""

    def __init__(self, store: Store, pool: BotPool, budget: str = DEFAULT_BUDGET) -> None:
        self.store = store
        self.pool = pool
        self.budget = ReviewBudget.parse(budget)
        self.jobs: dict[str, Job] = {}
        """Running (or failed) jobs by room code; a finished one is in the store."""
        self.rated = 0
        """Decisions rated by this server so far (work done, for tests and logs)."""

    async def status(self, code: str, record: GameRecord, start: bool) -> dict[str, Any]:
        """The review of the finished game ``record`` of room ``code``: the stored
        one, or the progress of the job computing it (``start``: begin one when
        there is neither, or when the last one failed)."""
        budget = str(self.budget)
        job = self.jobs.get(code)
        if job is not None and job.error is None:
            return _answer(code, budget, "running", job=job)
        rows = await anyio.to_thread.run_sync(self.store.load_reviews, code, budget)
        if len(rows) == record.players:
            return _answer(code, budget, "done", rows=rows)
        if not start:
            return _answer(code, budget, "failed" if job is not None else "none", job=job)
        running = sum(j.error is None for j in self.jobs.values())
        if running >= MAX_JOBS:
            raise RoomError(503, f"the server is reviewing {running} games already: try again in a minute")
        job = self.jobs[code] = Job()
        job.task = asyncio.create_task(self._run(code, record, job, rows), name=f"review-{code}")
        return _answer(code, budget, "running", job=job)

    async def _run(self, code: str, record: GameRecord, job: Job, stored: list[ReviewRow]) -> None:
        try:
            await self._review(code, record, job, stored)
        except asyncio.CancelledError:
            self.jobs.pop(code, None)
            raise
        except Exception as exc:  # kept, so that a poll can say why; asking again starts anew
            log.exception("room %s: the review failed", code)
            job.error = f"the review failed: {exc}"
        else:
            self.jobs.pop(code, None)  # the rows are durable now: the store serves them

    async def _review(self, code: str, record: GameRecord, job: Job, stored: list[ReviewRow]) -> None:
        have = {r.seat for r in stored}
        seats = [s for s in range(record.players) if s not in have]
        start = await anyio.to_thread.run_sync(_start, record)
        tasks = await anyio.to_thread.run_sync(
            collect, start, record.actions, seats, self.budget, record.seed
        )
        job.total = len(tasks)

        async def one(task: Task) -> Decision:
            decision = await self.pool.run(rate, task)
            job.done += 1
            self.rated += 1
            return decision

        decisions = await asyncio.gather(*(one(t) for t in tasks))
        now = time.time()
        for seat in seats:
            mine = [d for d in decisions if d.seat == seat]
            result = assemble(start, mine, [seat], self.budget, record.seed)
            row = ReviewRow(code, seat, str(self.budget), result.to_json(), now)
            try:
                await self.store.save_review_async(row)
            except Exception:
                # Another server of the same database stored this seat's review first
                # (the same one: reviews are reproducible); else the write failed.
                stored_now = await anyio.to_thread.run_sync(self.store.load_reviews, code, row.budget)
                if all(r.seat != seat for r in stored_now):
                    raise

    async def close(self) -> None:
        """Abandon the jobs in progress (nothing of them was stored)."""
        tasks = [job.task for job in self.jobs.values() if job.task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self.jobs.clear()


def _start(record: GameRecord) -> State:
    from spieltisch.engine import get_game

    return get_game(record.game).new_state(record.players, record.seed, record.options)


def _answer(
    code: str, budget: str, status: str, rows: list[ReviewRow] | None = None, job: Job | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = {"room": code, "budget": budget, "status": status, "done": 0, "total": None}
    if job is not None:
        out.update(done=job.done, total=job.total)
        if job.error is not None:
            out["error"] = job.error
    if rows is not None:
        total = sum(len(r.result["decisions"]) for r in rows)
        out.update(done=total, total=total, reviews=[_seat_review(r) for r in rows])
    return out


def _seat_review(row: ReviewRow) -> dict[str, Any]:
    return {"seat": row.seat, "created": row.created, **row.result}
