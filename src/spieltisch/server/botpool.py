"""Bots think in worker processes, never in the server's interpreter.

A :class:`BotPool` is a :class:`~concurrent.futures.ProcessPoolExecutor`
(``forkserver`` start method where there is one, else ``spawn``; one worker
per CPU the server may use by default) whose workers run at a lower CPU
priority than the server: a thinking bot never holds the event loop or its
interpreter, and people's moves are served first when the machine is busy.

A decision is :func:`think` of a :class:`ThinkRequest`: the worker builds the bot from its seat spec
(:func:`spieltisch.bots.make_bot`) - or restores it from its *memory*, the
pickled bot after its previous decision at this seat - and asks it for one of
the legal action ids given the seat's view. Only the view and the legal ids
cross to the worker, never the state. Because the memory travels with the
request, any worker can take any decision, and a bot plays the same game
whichever worker, and however many, served it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import multiprocessing
import os
import pickle
import select
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, TypeVar

log = logging.getLogger("spieltisch.server.bots")

NICENESS = 5
"""How much lower the workers' CPU priority is than the server's (``os.nice``)."""

T = TypeVar("T")


@dataclass(frozen=True)
class ThinkRequest:
    """One decision to take: what crosses to the worker (never the state)."""

    game: str
    spec: str
    """The seat's bot spec (:func:`spieltisch.bots.make_bot`)."""
    seat: int
    seed: int
    memory: bytes | None
    """The pickled bot after its previous decision at this seat (``None``: a new bot); the
    server keeps it in memory and in its database, with the bot's move."""
    view: dict[str, Any]
    legal: Sequence[int]


Think = Callable[[ThinkRequest], tuple[int, bytes]]
"""``request -> (action id, memory after)``."""


class BotCrashed(RuntimeError):
    """A worker process died while a bot was thinking (the pool was renewed)."""


def default_workers() -> int:
    """``SPIELTISCH_BOT_WORKERS`` if set, else the number of CPUs this process may use."""
    text = os.environ.get("SPIELTISCH_BOT_WORKERS")
    if text:
        try:
            n = int(text)
        except ValueError:
            raise ValueError(f"SPIELTISCH_BOT_WORKERS must be a whole number, not {text!r}") from None
        if n < 1:
            raise ValueError(f"SPIELTISCH_BOT_WORKERS must be at least 1, not {n}")
        return n
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def think(request: ThinkRequest) -> tuple[int, bytes]:
    """One decision of the bot at ``request.seat`` (runs in a worker process)."""
    from spieltisch.bots import make_bot, resolve_stored_spec

    r = request
    # The memory was pickled by this function after the seat's previous decision, and kept by
    # the server or read back from its own database (docs/storage.md, "Bot memory"); it never
    # comes from a client. A memory this release cannot load raises: the server starts the bot afresh.
    # A stored room's seat may name a bot version retired since: today's default plays it.
    if r.memory is not None:
        bot = pickle.loads(r.memory)
    else:
        bot = make_bot(r.game, resolve_stored_spec(r.game, r.spec), r.seat, r.seed)
    choice = bot.choose(r.view, r.legal)
    return choice, pickle.dumps(bot, protocol=pickle.HIGHEST_PROTOCOL)


def _start_worker(niceness: int, server: int) -> None:
    if niceness:
        with contextlib.suppress(OSError):  # not allowed here: think at the same priority
            os.nice(niceness)
    threading.Thread(target=_exit_with, args=(server,), name="exit-with-server", daemon=True).start()
    import spieltisch.bots  # noqa: F401 - import once per worker, not on the first decision


def _exit_with(server: int) -> None:
    """End this worker when the server process ends, even by SIGKILL: the
    worker's parent is the forkserver, and its task queue never reports that
    the server is gone (without this, a killed server leaves its workers)."""
    try:
        fd = os.pidfd_open(server)
    except (AttributeError, OSError):  # no pidfd here: ask every second
        while True:
            time.sleep(1.0)
            try:
                os.kill(server, 0)
            except ProcessLookupError:
                os._exit(0)
            except OSError:
                pass
    select.select([fd], [], [])  # readable once the server has ended
    os._exit(0)


def _warm() -> None:
    return None


class BotPool:
    """Worker processes that think for the bots of every table of a server
    (and, in a pool of their own at a lower priority, compute reviews and hints:
    :meth:`run`).

    ``think`` is the function a worker runs per decision (a module-level
    function, so that it can be sent to the worker); ``niceness`` how much
    lower the workers' CPU priority is. The processes start in a thread of
    their own (:meth:`start`, or on the first decision), never on the event
    loop: starting Python processes takes a while on a busy machine.
    """

    def __init__(self, workers: int | None = None, think: Think = think, niceness: int = NICENESS) -> None:
        self.workers = workers if workers is not None else default_workers()
        if self.workers < 1:
            raise ValueError(f"a bot pool needs at least one worker, not {self.workers}")
        self._think = think
        self._niceness = niceness
        self._executor: ProcessPoolExecutor | None = None
        self._started: ProcessPoolExecutor | None = None
        """The executor whose workers have all started."""
        self._lock = threading.Lock()
        self._start_lock = threading.Lock()
        self._closed = False

    def _pool(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._closed:
                raise RuntimeError("the bot pool is closed")
            if self._executor is None:
                methods = multiprocessing.get_all_start_methods()
                ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
                self._executor = ProcessPoolExecutor(
                    self.workers,
                    mp_context=ctx,
                    initializer=_start_worker,
                    initargs=(self._niceness, os.getpid()),
                )
            return self._executor

    def start(self) -> ProcessPoolExecutor:
        """Start every worker process and wait until they run (blocking: call it
        from a thread). Returns the executor."""
        with self._start_lock:
            pool = self._pool()
            if self._started is not pool:
                concurrent.futures.wait([pool.submit(_warm) for _ in range(self.workers)])
                self._started = pool
            return pool

    async def choose(self, request: ThinkRequest) -> tuple[int, bytes]:
        """The bot's action id and its memory after the decision.

        Raises what the bot raised, or :class:`BotCrashed` when its worker
        died (then the pool is renewed for the next decisions)."""
        try:
            return await self.run(self._think, request)
        except BotCrashed as exc:
            raise BotCrashed(f"the worker process thinking for seat {request.seat} died") from exc.__cause__

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a worker process (``fn`` a module-level function, so
        that it can be sent there), without blocking the event loop. Raises what
        ``fn`` raised, or :class:`BotCrashed` when the worker died (then the pool
        is renewed)."""
        pool = self._started
        if pool is None or pool is not self._executor:
            pool = await asyncio.to_thread(self.start)
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(pool, fn, *args)
        except BrokenProcessPool as exc:
            self._renew(pool)
            raise BotCrashed("a worker process died") from exc

    def _renew(self, broken: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._executor is broken:
                self._executor = None
        broken.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop the workers (a decision in progress is abandoned)."""
        with self._lock:
            self._closed = True
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)
