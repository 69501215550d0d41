"""The FastAPI application: the wiring of the server's parts.

:func:`create_app` makes the store, the bot pool, the owner of the rooms (one
process: :class:`~spieltisch.server.owner.LocalOwner`; with ``redis``, this
worker's :class:`~spieltisch.server.cluster.Cluster` - the only place the cluster is
imported, next to ``spieltisch serve``), the room directory, and includes the
routers: the HTTP API (:mod:`spieltisch.server.api`), the game WebSocket
(:mod:`spieltisch.server.game_socket`) and the pages (:mod:`spieltisch.server.pages`).
See ``docs/protocol.md`` for every message (typed in :mod:`spieltisch.server.messages`)
and every limit (:mod:`spieltisch.server.limits`); ``spieltisch serve`` runs it under uvicorn.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from spieltisch.server import logs
from spieltisch.server.account_api import accounts_api, forget_account
from spieltisch.server.accounts import AccountError, Accounts, Signups
from spieltisch.server.api import client_address, rooms_api
from spieltisch.server.bot_seats import bot_levels
from spieltisch.server.botpool import BotPool
from spieltisch.server.codes import split_name
from spieltisch.server.directory import RoomDirectory
from spieltisch.server.errors import RoomError
from spieltisch.server.game_socket import game_socket
from spieltisch.server.housekeeping import Sweeper
from spieltisch.server.limits import Addresses, BodyLimit, Limits, retry_after
from spieltisch.server.lobby import Lobby, lobby_routes
from spieltisch.server.my_games import my_games_routes
from spieltisch.server.notify import Mailer, TurnNotices
from spieltisch.server.operator import check_token, operator_routes
from spieltisch.server.owner import LocalOwner, Owner
from spieltisch.server.pages import STATIC_DIR, mount_files, pages
from spieltisch.server.quickplay import QuickPlay, quickplay_routes
from spieltisch.server.reviews import DEFAULT_BUDGET, REVIEW_NICENESS, Reviewer
from spieltisch.server.shutdown import Shutdown
from spieltisch.server.store import Store
from spieltisch.server.tutorial_api import tutorial_routes

log = logging.getLogger(__name__)


def create_app(
    database: str = "sqlite:///spieltisch.db",
    bot_delay: float = 0.6,
    table_prefix: str = "",
    static_dir: Path | None = None,
    room_idle: float = 600.0,
    limits: Limits | None = None,
    bot_workers: int | None = None,
    bot_pool: BotPool | None = None,
    review_budget: str = DEFAULT_BUDGET,
    review_workers: int = 1,
    redis: str | None = None,
    cluster_prefix: str | None = None,
    worker_name: str = "",
    tune_gc: bool = False,
    latency_log: str | None = None,
    mailer: Mailer | None = None,
    operator_token: str | None = None,
) -> FastAPI:
    """The web table on ``database`` (SQLAlchemy URL); bots wait ``bot_delay`` s by default.
    Rooms idle for ``room_idle`` s leave memory
    (:meth:`~spieltisch.server.directory.RoomDirectory.forget_idle`); the store keeps them
    until they expire (``limits.keep_finished_days`` / ``keep_abandoned_days``).
    Bots think in ``bot_workers`` processes (default: :func:`~spieltisch.server.botpool.default_workers`),
    or in ``bot_pool``. Reviews of finished games (docs/review.md) are computed at
    ``review_budget`` (sampled worlds per decision) in ``review_workers`` processes of
    their own, at a lower priority than the bots'.

    ``redis`` (a ``redis://`` URL) makes this server one worker of several on one
    database (:mod:`spieltisch.server.cluster`); ``cluster_prefix`` (default: the
    table prefix) names its keys and channels, so that several sets of workers can
    share one Redis; ``worker_name`` starts this worker's name there (logs).

    ``tune_gc``: this process is the server (``spieltisch serve``, uvicorn's factory):
    once started, what the start made is moved out of the cyclic garbage collector's
    reach (:func:`_tune_gc`).

    ``latency_log`` (a folder; ``SPIELTISCH_LATENCY_LOG``, for ``spieltisch bench server``):
    the server times every acknowledged act, from its arrival to its acknowledging state
    written to the socket, and writes the times to ``latency-PID.json`` there when it stops
    (``[[time.monotonic(), seconds], ...]``).

    ``mailer``: sends the e-mail turn notices of turn-based rooms (:mod:`spieltisch.server.notify`).
    ``operator_token``: turns the operator's page on (:mod:`spieltisch.server.operator`)."""
    limits = limits or Limits()
    timings: list[tuple[float, float]] | None = [] if latency_log is not None else None
    store = Store(database, prefix=table_prefix)
    pool = bot_pool if bot_pool is not None else BotPool(bot_workers)
    owner: Owner = LocalOwner()
    addresses = Addresses(limits)
    signups = Signups(limits.accounts_per_hour)
    cluster = None
    if redis is not None:
        from spieltisch.server.cluster import Cluster, SharedAddresses, SharedSignups

        prefix = cluster_prefix if cluster_prefix is not None else table_prefix
        owner = cluster = Cluster(redis, prefix, name=worker_name)
        # With several workers, sockets and rooms per address are counted across all of them.
        addresses = SharedAddresses(limits, cluster)
        signups = SharedSignups(limits.accounts_per_hour, cluster)  # and the accounts made
    directory = RoomDirectory(
        store,
        pool,
        owner,
        bot_delay=bot_delay,
        turn_notices=TurnNotices(mailer),
        private=bool(limits.private_rooms),
    )
    accounts = Accounts(store, {level for g in ("scout", "schmaus") for level in bot_levels(g)})
    review_pool = BotPool(review_workers, niceness=REVIEW_NICENESS)
    reviewer = Reviewer(store, review_pool, review_budget)
    shutdown = Shutdown(owner)
    logs.install()

    sweeper = Sweeper(directory, addresses, room_idle)
    lobby = Lobby(store)
    lobby_changed = lobby.poke
    if cluster is not None:  # the other workers' lobbies are told through Redis
        cluster.on_lobby = lobby.poke

        def lobby_changed() -> None:
            lobby.poke()
            cluster.lobby_changed()

    quick = QuickPlay(store, bot_delay, lobby_changed)

    def account_gone(account: str) -> None:
        """An account was deleted: its seats in the rooms in memory change, here and on
        every other worker, and the lobby (which names the seated) is read again."""
        forget_account(directory.rooms.values(), account)
        lobby_changed()  # (tells the other workers' lobbies too)
        if cluster is not None:
            cluster.account_gone(account)

    if cluster is not None:

        def account_gone_elsewhere(account: str) -> None:
            forget_account(directory.rooms.values(), account)

        cluster.on_account_gone = account_gone_elsewhere

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        starting = asyncio.create_task(asyncio.to_thread(pool.start), name="start-bot-workers")
        await directory.start()
        if tune_gc:
            _tune_gc()
        sweeping = asyncio.create_task(sweeper.run(), name="sweep-rooms")
        matching = asyncio.create_task(quick.run(), name="quick-play")
        shutdown.install()  # SIGTERM: close the sockets with 1001 and give the rooms up at once
        try:
            yield
        finally:
            await shutdown.wait()
            shutdown.uninstall()
            for task in (sweeping, matching):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await lobby.close()
            with contextlib.suppress(Exception):
                await starting
            await directory.stop()
            await reviewer.close()
            await asyncio.to_thread(review_pool.close)
            await asyncio.to_thread(pool.close)
            await asyncio.to_thread(store.close)
            if latency_log is not None and timings is not None:
                path = Path(latency_log) / f"latency-{os.getpid()}.json"
                await asyncio.to_thread(path.write_text, json.dumps(timings))

    app = FastAPI(
        title="Spieltisch",
        description="The web table's HTTP API. The game WebSocket /ws/{room} and every limit are "
        "described in docs/protocol.md; the JSON Schema of every message is in docs/schema/.",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.add_middleware(BodyLimit, max_body=limits.max_body)
    app.state.directory = directory
    app.state.reviewer = reviewer
    app.state.cluster = cluster
    app.state.store = store
    app.state.limits = limits
    app.state.addresses = addresses
    app.state.shutdown = shutdown
    app.state.expire = sweeper.expire
    app.state.quickplay = quick
    app.state.accounts = accounts  # docs/accounts.md (blocked(a, b) for quick play)

    async def room_error(request: Request, exc: RoomError) -> JSONResponse:
        if exc.status in (403, 404):  # a room that does not exist, a wrong secret: a miss
            await addresses.miss_async(client_address(request.client))
        name = request.path_params.get("code")
        joining = request.url.path.endswith("/join")
        if name is not None and (exc.status == 403 or (joining and exc.status in (409, 422))):
            # A wrong secret or a failed join, counted for the room whoever made it (issue #34).
            code, _key = split_name(name)
            wait = await addresses.room_miss_async(code)
            if wait is not None:
                return JSONResponse(
                    {"detail": addresses.room_text(code, wait)}, status_code=429, headers=retry_after(wait)
                )
        return JSONResponse({"detail": exc.detail}, status_code=exc.status)

    app.add_exception_handler(RoomError, room_error)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, _validation_error)  # type: ignore[arg-type]
    app.add_exception_handler(AccountError, _account_error)  # type: ignore[arg-type]
    app.include_router(rooms_api(directory, reviewer, addresses, accounts, lobby_changed))
    app.include_router(
        accounts_api(accounts, directory, addresses, signups, static_dir or STATIC_DIR, account_gone)
    )
    app.include_router(quickplay_routes(quick, addresses, accounts))
    app.include_router(my_games_routes(directory, addresses))
    app.include_router(
        operator_routes(
            check_token(operator_token), database, table_prefix, addresses, static_dir or STATIC_DIR
        )
    )
    app.include_router(lobby_routes(lobby, addresses))  # (before /ws/{code})
    app.include_router(game_socket(directory, addresses, shutdown, timings))
    app.include_router(tutorial_routes())
    app.include_router(pages(static_dir or STATIC_DIR))
    mount_files(app, static_dir or STATIC_DIR)
    return app


async def _account_error(_request: Request, exc: AccountError) -> JSONResponse:
    return JSONResponse({"detail": exc.detail}, status_code=exc.status, headers=exc.headers)


async def _validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(x) for x in err.get("loc", ()) if x not in ("body", "query", "header"))
        parts.append(f"{loc}: {err.get('msg', 'invalid')}" if loc else str(err.get("msg", "invalid")))
    return JSONResponse({"detail": "; ".join(parts) or "invalid request"}, status_code=422)


GC_THRESHOLD = (700, 10, 100)
"""The cyclic collector's thresholds in a server: Python's, except that a full collection
is considered after 100 collections of the middle generation instead of 10."""


def _tune_gc() -> None:
    """Make the cyclic garbage collector's full collections smaller and rarer in a started server.

    A full collection walks every tracked object in one pause of the event
    loop: at 1,000 clients about 365,000 objects, 220-290 ms of CPU on the
    2-core machine (docs/web.md, "What a move costs"), the longest pause the server
    had. Everything the start made (modules, the app, its routes and models,
    the resumed rooms: about 110,000 objects) lives as long as the process:
    ``gc.freeze()`` puts it out of the collector's reach. Nothing is freed
    late by that (objects that die are freed by their reference counts as
    ever; only a cycle among the frozen ones would stay). The rest, about 220
    objects per connection, is still walked by a full collection, so those are
    made rarer (:data:`GC_THRESHOLD`: at most about every 100 s at 1,000 clients
    instead of every 10 s); cyclic garbage that old waits that much longer."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)


def create_app_from_env() -> FastAPI:
    """Factory for ``uvicorn --factory`` (``spieltisch serve --reload`` and ``--workers``)."""
    return create_app(
        database=os.environ.get("SPIELTISCH_DATABASE", "sqlite:///spieltisch.db"),
        bot_delay=float(os.environ.get("SPIELTISCH_BOT_DELAY", "0.6")),
        limits=Limits.from_env(),
        review_budget=os.environ.get("SPIELTISCH_REVIEW_BUDGET", DEFAULT_BUDGET),
        table_prefix=os.environ.get("SPIELTISCH_TABLE_PREFIX", ""),
        redis=os.environ.get("SPIELTISCH_REDIS") or None,
        worker_name=f"pid{os.getpid()}",
        tune_gc=True,
        latency_log=os.environ.get("SPIELTISCH_LATENCY_LOG") or None,
        mailer=Mailer.from_env(),
        operator_token=os.environ.get("SPIELTISCH_OPERATOR_TOKEN"),
    )
