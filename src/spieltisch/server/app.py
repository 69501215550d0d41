"""The FastAPI application: HTTP API, the game WebSocket and the static client.

See ``docs/protocol.md`` for every message (typed in :mod:`spieltisch.server.messages`)
and every limit (:mod:`spieltisch.server.limits`). Build it with :func:`create_app`;
``spieltisch serve`` runs it under uvicorn.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Header, HTTPException, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.websockets import WebSocketDisconnect, WebSocketState

from spieltisch.server import redact
from spieltisch.server.botpool import BotPool
from spieltisch.server.games import games_info
from spieltisch.server.limits import DAY, Addresses, BodyLimit, CountUnavailable, Limits
from spieltisch.server.messages import (
    Act,
    ClaimIn,
    ClaimOut,
    CreateIn,
    CreateOut,
    EndGame,
    ErrorOut,
    GamesOut,
    Hello,
    HintIn,
    JoinIn,
    JoinOut,
    Leave,
    MessageError,
    RematchIn,
    RematchOut,
    ReplayOut,
    ReviewOut,
    RoomInfo,
    Sync,
    TakeBack,
    parse_client,
)
from spieltisch.server.reviews import DEFAULT_BUDGET, REVIEW_NICENESS, Reviewer
from spieltisch.server.rooms import CommandError, Connection, Room, RoomError, SeatSpec, Tables, new_secret
from spieltisch.server.shutdown import GOING_AWAY, Shutdown
from spieltisch.server.store import Store

log = logging.getLogger(__name__)

SEAT_HEADER = "Spieltisch-Seat"
SECRET_HEADER = "Spieltisch-Secret"
"""A seat's secret (or a remote bot's token) travels in these headers or in the
first WebSocket message, never in a URL (docs/protocol.md, "Secrets")."""
SECRET_PARAMS = ("secret", "token")

STATIC_DIR = Path(__file__).resolve().parent.parent / "web" / "static"
RULES_DIR = Path(__file__).resolve().parent.parent / "web" / "rules"
"""A link to docs/rules (one source for the docs and the table)."""
RULES_PAGES = frozenset(
    f"{game}.{lang}.md" for game in ("scout", "waschbaer-schmaus") for lang in ("en", "de")
)
EXPIRE_EVERY = 3600.0
"""Seconds between two sweeps of expired rooms from the store (more often if a keep time is short)."""

SECRET_IN_URL = (
    "secrets are never accepted in a URL (it ends up in logs and browser history): "
    f"send the seat and secret in the {SEAT_HEADER}/{SECRET_HEADER} headers"
)


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    texts = {
        400: "a secret in the URL",
        403: "wrong or missing secret",
        404: "no such room (or seat)",
        409: "the room's state does not allow it (full, taken, not over yet)",
        422: "an invalid body or parameter, or a rule option the engine refuses",
        413: "the request body is over max_body",
        429: "a per-address limit was hit (the detail names it; Retry-After says when to try again)",
        503: "the database refused the write (or, for a review: too many reviews running)",
    }
    # 422 everywhere: a bad parameter is answered {"detail": "..."} too (validation_error below).
    return {c: {"model": ErrorOut, "description": texts[c]} for c in sorted({*codes, 422})}


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
) -> FastAPI:
    """The web table on ``database`` (SQLAlchemy URL); bots wait ``bot_delay`` s by default.
    Rooms idle for ``room_idle`` s leave memory (:meth:`Tables.forget_idle`); the store keeps
    them until they expire (``limits.keep_finished_days`` / ``keep_abandoned_days``).
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
    (``[[time.monotonic(), seconds], ...]``)."""
    limits = limits or Limits()
    timings: list[tuple[float, float]] | None = [] if latency_log is not None else None
    store = Store(database, prefix=table_prefix)
    pool = bot_pool if bot_pool is not None else BotPool(bot_workers)
    tables = Tables(store, pool, bot_delay=bot_delay)
    review_pool = BotPool(review_workers, niceness=REVIEW_NICENESS)
    reviewer = Reviewer(store, review_pool, review_budget)
    if redis is not None:
        from spieltisch.server.cluster import Cluster

        prefix = cluster_prefix if cluster_prefix is not None else table_prefix
        tables.cluster = Cluster(redis, tables, prefix, name=worker_name)
    # With several workers, sockets and rooms per address are counted across all of them.
    addresses = tables.cluster.addresses(limits) if tables.cluster is not None else Addresses(limits)
    shutdown = Shutdown(tables)
    static = static_dir or STATIC_DIR
    redact.install()

    keeps = [d * DAY for d in (limits.keep_finished_days, limits.keep_abandoned_days) if d]
    expire_every = min([EXPIRE_EVERY, *(k / 4 for k in keeps)])

    async def expire() -> list[str]:
        now = time.time()
        finished = now - limits.keep_finished_days * DAY if limits.keep_finished_days else 0.0
        abandoned = now - limits.keep_abandoned_days * DAY if limits.keep_abandoned_days else 0.0
        if not finished and not abandoned:
            return []
        # Rooms in memory are in use: never deleted under anybody's feet; and nobody loads a
        # room while the old ones go (the lock Tables.room and Tables.forget_idle hold).
        async with tables._load_lock:
            keep = set(tables.rooms)
            if tables.cluster is not None:  # one worker at a time, keeping every worker's rooms
                in_use = await tables.cluster.sweep_turn(expire_every)
                if in_use is None:
                    return []
                keep |= in_use
            return await asyncio.to_thread(store.expire, finished, abandoned, keep)

    async def sweep() -> None:
        last_expiry = -EXPIRE_EVERY
        period = min(60.0, room_idle / 4)
        while True:
            await asyncio.sleep(period)
            try:
                addresses.sweep()
                gone = await tables.forget_idle(room_idle)
                if gone:
                    log.info("let %d idle room(s) go: %s", len(gone), ", ".join(gone))
                if time.monotonic() - last_expiry >= expire_every:
                    last_expiry = time.monotonic()
                    expired = await expire()
                    if expired:
                        log.info("expired %d room(s) from the store: %s", len(expired), ", ".join(expired))
            except Exception:  # pragma: no cover - a sweep must never stop the server
                log.exception("sweeping rooms failed")

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        starting = asyncio.create_task(asyncio.to_thread(pool.start), name="start-bot-workers")
        await tables.start()
        if tune_gc:
            _tune_gc()
        sweeper = asyncio.create_task(sweep(), name="sweep-rooms")
        shutdown.install()  # SIGTERM: close the sockets with 1001 and give the rooms up at once
        try:
            yield
        finally:
            await shutdown.wait()
            shutdown.uninstall()
            sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sweeper
            with contextlib.suppress(Exception):
                await starting
            await tables.stop()
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
    app.state.tables = tables
    app.state.reviewer = reviewer
    app.state.cluster = tables.cluster
    app.state.store = store
    app.state.limits = limits
    app.state.addresses = addresses
    app.state.shutdown = shutdown
    app.state.expire = expire

    @app.exception_handler(RoomError)
    async def room_error(_request: Request, exc: RoomError) -> JSONResponse:
        return JSONResponse({"detail": exc.detail}, status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for err in exc.errors():
            loc = ".".join(str(x) for x in err.get("loc", ()) if x not in ("body", "query", "header"))
            parts.append(f"{loc}: {err.get('msg', 'invalid')}" if loc else str(err.get("msg", "invalid")))
        return JSONResponse({"detail": "; ".join(parts) or "invalid request"}, status_code=422)

    def no_secret_in_url(request: Request) -> None:
        if any(p in request.query_params for p in SECRET_PARAMS):
            raise HTTPException(400, SECRET_IN_URL)

    # -- HTTP API ---------------------------------------------------------------
    @app.get("/api/games", response_model=GamesOut)
    async def list_games() -> dict[str, Any]:
        return games_info()

    @app.post("/api/rooms", response_model=CreateOut, responses=_errors(413, 429, 503))
    async def create_room(body: CreateIn, request: Request) -> dict[str, Any]:
        """Open a table. ``remote`` seats get a bot token each (in ``remote``): give it to the
        program that plays the seat over the WebSocket (docs/bot-protocol.md, "Remote bots")."""
        address = _client_address(request.client)
        try:
            wait = await addresses.take_room_async(address)
        except CountUnavailable as exc:  # not let through uncounted (docs/deploy.md)
            raise HTTPException(503, str(exc)) from None
        if wait is not None:
            raise HTTPException(
                429,
                f"rooms_per_minute: at most {limits.rooms_per_minute} new rooms per minute from one "
                f"address; try again in {wait:.0f} s",
                headers={"Retry-After": str(max(1, round(wait)))},
            )
        seats: list[SeatSpec] | None = None
        tokens: dict[int, str] = {}
        if body.seats is not None:
            seats = []
            for i, s in enumerate(body.seats):
                if s.kind == "remote":
                    tokens[i] = new_secret()
                seats.append(SeatSpec(s.kind, s.level, s.name, tokens.get(i)))
        clock = body.clock.model_dump() if body.clock is not None else None
        room, seat, secret = await tables.create(
            body.game,
            body.players,
            body.options,
            seats,
            body.name,
            body.bot_delay,
            body.seed,
            clock,
            allow_hints=body.hints,
        )
        return {
            "room": room.code,
            "seat": seat,
            "secret": secret,
            "invite": f"/r/{room.code}",
            "remote": [{"seat": s, "token": t} for s, t in tokens.items()],
        }

    @app.get(
        "/api/rooms/{code}",
        response_model=RoomInfo,
        response_model_exclude_unset=True,
        responses=_errors(404),
    )
    async def room_info(code: str) -> dict[str, Any]:
        return (await tables.room(code)).info()

    @app.post("/api/rooms/{code}/join", response_model=JoinOut, responses=_errors(404, 409, 413, 503))
    async def join(code: str, body: JoinIn) -> dict[str, Any]:
        seat, secret = await tables.join(code, body.name, body.seat)
        return {"seat": seat, "secret": secret}

    @app.post("/api/rooms/{code}/rematch", response_model=RematchOut, responses=_errors(403, 404, 409, 503))
    async def rematch(code: str, body: RematchIn) -> dict[str, Any]:
        return {"room": await tables.rematch(code, body.seat, body.secret)}

    @app.post("/api/rooms/{code}/claim", response_model=ClaimOut, responses=_errors(403, 404))
    async def claim(code: str, body: ClaimIn) -> dict[str, Any]:
        """A seat's secret in the rematch room ``code``, from its secret in the old room."""
        new_secret_ = await tables.claim(code, body.from_, body.seat, body.secret)
        return {"room": code.upper(), "seat": body.seat, "secret": new_secret_}

    @app.get("/api/rooms/{code}/claim", include_in_schema=False)
    async def claim_by_url(code: str, request: Request) -> None:
        no_secret_in_url(request)
        raise HTTPException(405, "claim a rematch seat with POST and a JSON body {from, seat, secret}")

    @app.get("/api/rooms/{code}/replay", response_model=ReplayOut, responses=_errors(400, 403, 404, 409))
    async def replay(
        code: str,
        request: Request,
        seat: int | None = Header(default=None, alias=SEAT_HEADER),
        secret: str | None = Header(default=None, alias=SECRET_HEADER),
    ) -> dict[str, Any]:
        """The finished game step by step, as seen by the seat in the headers (none: a spectator)."""
        no_secret_in_url(request)
        return await tables.replay(code, seat, secret)

    @app.get("/api/rooms/{code}/review", response_model=ReviewOut, responses=_errors(404, 409))
    async def review_status(code: str) -> dict[str, Any]:
        """The review of a finished game (docs/review.md): ``done`` with every seat's
        review when it is stored, ``running`` with the progress, or ``none``."""
        return await reviewer.status((await tables.room(code)).code, await tables.record(code), start=False)

    @app.post("/api/rooms/{code}/review", response_model=ReviewOut, responses=_errors(404, 409, 503))
    async def review_start(code: str) -> dict[str, Any]:
        """Start the review of a finished game (or answer the stored one at once). The
        game is over and every card public: any seat or spectator may ask."""
        return await reviewer.status((await tables.room(code)).code, await tables.record(code), start=True)

    # -- the game socket ----------------------------------------------------------
    @app.websocket("/ws/{code}")
    async def game_socket(websocket: WebSocket, code: str) -> None:
        await websocket.accept()
        if any(p in websocket.query_params for p in SECRET_PARAMS):
            await _refuse(websocket, "forbidden", f"{SECRET_IN_URL}, or in the first message (hello)", 4403)
            return
        if shutdown.stopping:
            await _refuse(websocket, "unavailable", "the server is stopping; connect again", GOING_AWAY)
            return
        address = _client_address(websocket.client)
        try:
            admitted = await addresses.open_socket_async(address)
        except CountUnavailable as exc:  # not let through uncounted: try another worker
            await _refuse(websocket, "unavailable", str(exc), 1013)
            return
        if not admitted:
            await _refuse(
                websocket,
                "too_many_sockets",
                f"sockets_per_address: at most {limits.sockets_per_address} open sockets per client "
                "address (spectators included); close one first",
                1008,
            )
            return
        try:
            try:
                room = await tables.room(code)
            except RoomError as exc:
                if exc.status == 409:  # a stored record this engine cannot open at all
                    await _refuse(websocket, "archived", exc.detail, 4409)
                else:
                    await _refuse(websocket, "no_room", exc.detail, 4404)
                return
            shutdown.sockets.add(websocket)
            greeted = await _greet(websocket, room, address, addresses)
            if greeted is not None:
                if tables.rooms.get(room.code) is not room:  # let go meanwhile: load it again
                    try:
                        room = await tables.room(code)
                    except RoomError as exc:
                        await _refuse(websocket, "no_room", exc.detail, 4404)
                        return
                await _serve(websocket, tables, room, greeted[0], address, addresses, timings)
        finally:
            shutdown.sockets.discard(websocket)
            await addresses.close_socket_async(address)

    # -- the client and the API pages -------------------------------------------------
    def index() -> Response:
        page = static / "index.html"
        if not page.is_file():
            return HTMLResponse(
                "<h1>Spieltisch</h1><p>The web client is not installed (no web/static/index.html).</p>",
                status_code=503,
            )
        return FileResponse(page)

    @app.get("/", include_in_schema=False)
    async def root() -> Response:
        return index()

    @app.get("/r/{code}", include_in_schema=False)
    async def invite(code: str) -> Response:
        return index()

    @app.get("/rules/{page}", include_in_schema=False)
    async def rules_page(page: str) -> Response:
        """The players' rules pages (docs/rules/GAME.LANG.md) for the table's rules dialog."""
        if page not in RULES_PAGES:
            return JSONResponse({"detail": f"no rules page {page!r}"}, status_code=404)
        return FileResponse(RULES_DIR / page, media_type="text/markdown; charset=utf-8")

    swagger = _swagger_files()
    if swagger is not None:

        @app.get("/api/docs", include_in_schema=False)
        async def api_docs() -> HTMLResponse:
            """Swagger UI from the swagger-ui-bundle package: no third-party CDN."""
            return get_swagger_ui_html(
                openapi_url="/openapi.json",
                title="Spieltisch API",
                swagger_js_url="/api/docs/files/swagger-ui-bundle.js",
                swagger_css_url="/api/docs/files/swagger-ui.css",
                swagger_favicon_url="/api/docs/files/favicon-32x32.png",
            )

        app.mount("/api/docs/files", StaticFiles(directory=swagger), name="swagger-ui")

    app.mount("/static", StaticFiles(directory=static, check_dir=False), name="static")
    return app


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


def _swagger_files() -> Path | None:
    """Swagger UI's files, shipped by the ``swagger-ui-bundle`` package (the ``web`` extra)."""
    try:
        from swagger_ui_bundle import swagger_ui_path  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - the docs page is optional
        return None
    return Path(swagger_ui_path)


def _client_address(client: Any) -> str:
    """The client's IP address (uvicorn takes it from X-Forwarded-For behind a trusted proxy)."""
    return str(client.host) if client is not None and client.host else "unknown"


async def _refuse(
    websocket: WebSocket, code: str, message: str, close_code: int, ref: str | None = None
) -> None:
    body: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if ref is not None:
        body["ref"] = ref
    with contextlib.suppress(Exception):
        await websocket.send_text(json.dumps(body))
        await websocket.close(code=close_code, reason=code.replace("_", " ")[:120])


def _header_seat(websocket: WebSocket) -> tuple[str | None, str | None]:
    return websocket.headers.get(SEAT_HEADER), websocket.headers.get(SECRET_HEADER)


async def _greet(
    websocket: WebSocket, room: Room, address: str, addresses: Addresses
) -> tuple[int | None, str | None] | None:
    """Who is this socket: the seat and secret from the headers, or from the first
    message (``hello``, within ``hello_timeout`` s). Returns ``(seat, ref)``
    (seat ``None``: a spectator), or ``None`` after refusing the socket."""
    limits = addresses.limits
    seat_text, secret = _header_seat(websocket)
    ref: str | None = None
    if seat_text is None and secret is None:
        try:
            message = await asyncio.wait_for(websocket.receive(), limits.hello_timeout)
        except TimeoutError:
            await _refuse(
                websocket,
                "too_slow",
                f"hello_timeout: the first message must be a hello within {limits.hello_timeout:g} s",
                1008,
            )
            return None
        if message["type"] == "websocket.disconnect":
            return None
        addresses.take_message(address)
        raw = message.get("text")
        if raw is None:
            raw = message.get("bytes") or b""
        try:
            hello = parse_client(raw)
        except MessageError as exc:
            await _refuse(
                websocket, "bad_message", f"{exc.message} (the first message must be a hello)", 4400, exc.ref
            )
            return None
        if not isinstance(hello, Hello):
            await _refuse(
                websocket,
                "bad_message",
                f'the first message must be {{"type": "hello", "seat": N, "secret": S}} (or a bare hello '
                f"to watch), not {hello.type!r}",
                4400,
                hello.ref,
            )
            return None
        ref = hello.ref
        if hello.seat is None and hello.secret is None:
            return None, ref
        if hello.seat is None:
            await _refuse(websocket, "forbidden", "a hello with a 'secret' needs its 'seat'", 4403, ref)
            return None
        seat = hello.seat
        secret = hello.secret
    else:
        try:
            seat = int(seat_text or "")
        except ValueError:
            await _refuse(websocket, "forbidden", f"seat must be a seat number, not {seat_text!r}", 4403)
            return None
    if not room.check_seat(seat, secret) and room.hooks is not None:
        await room.hooks.refresh(room)  # the seat may have been taken through another worker just now
    if not room.check_seat(seat, secret):
        await _refuse(
            websocket, "forbidden", f"seat {seat} of room {room.code}: wrong or missing secret", 4403, ref
        )
        return None
    return seat, ref


async def _serve(
    websocket: WebSocket,
    tables: Tables,
    room: Room,
    seat: int | None,
    address: str,
    addresses: Addresses,
    timings: list[tuple[float, float]] | None = None,
) -> None:
    limits = addresses.limits
    closing: list[bool] = []
    me = asyncio.current_task()
    receiving = False

    def close() -> None:
        """The connection fell too far behind: close it (1008 "too slow") now, even if
        its client sends nothing, by interrupting the wait for its next message."""
        closing.append(True)
        if receiving and me is not None:
            me.cancel()

    conn = Connection(seat, close, timings)

    async def sender() -> None:
        outbox = conn.outbox
        while True:
            await conn.ready()
            while outbox:  # everything queued since the last wake-up, in order
                await websocket.send_text(outbox.popleft())
                conn.written()

    send_task = asyncio.create_task(sender())
    room.attach(conn)
    try:
        while not closing and not send_task.done():
            receiving = True
            try:
                message = await websocket.receive()
            except asyncio.CancelledError:
                if not closing:
                    raise  # the server is stopping
                if me is not None:
                    me.uncancel()
                break
            finally:
                receiving = False
            received = time.perf_counter()
            if message["type"] == "websocket.disconnect":
                break
            raw: str | bytes | None = message.get("text")
            if raw is None:
                raw = message.get("bytes") or b""
            if not addresses.take_message(address):
                conn.error(
                    "rate_limited",
                    f"messages_per_second: more than {limits.messages_per_second:g} messages per second "
                    f"(burst {limits.message_burst}) from your address, all its sockets together: "
                    "this one was ignored",
                )
                continue
            # Bytes in UTF-8; an ASCII text (every message of the protocol's own clients) is
            # as long as its characters, without encoding a copy to count them.
            size = len(raw) if isinstance(raw, bytes) or raw.isascii() else len(raw.encode())
            if size > limits.max_message:  # uvicorn refuses such frames first (ws_max_size)
                conn.error(
                    "too_large",
                    f"max_message: messages are limited to {limits.max_message} bytes, got {size}",
                )
                continue
            await _handle(tables, room, conn, raw, received)
    except WebSocketDisconnect:
        pass
    finally:
        room.detach(conn)
        send_task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await send_task
        if closing and websocket.client_state == WebSocketState.CONNECTED:
            with contextlib.suppress(Exception):
                await websocket.close(code=1008, reason="too slow")


async def _handle(
    tables: Tables, room: Room, conn: Connection, raw: str | bytes, received: float | None = None
) -> None:
    """One message of a connection (``received``: when it arrived, ``time.perf_counter()``)."""
    try:
        msg = parse_client(raw)
    except MessageError as exc:
        conn.error("bad_message", exc.message, exc.ref)
        return
    if msg.type == "ping":
        conn.send_json({"type": "pong"})
        return
    if isinstance(msg, Sync):
        room.send_state(conn, msg.ref)
        return
    if isinstance(msg, HintIn):
        try:
            answer = await room.hint(conn.seat)
        except CommandError as exc:
            conn.error(exc.code, exc.message, msg.ref)
            return
        if msg.ref is not None:
            answer["ref"] = msg.ref
        conn.send_json(answer)
        return
    if isinstance(msg, Hello):
        conn.error(
            "bad_message", "this socket has said hello already; open a new socket for another seat", msg.ref
        )
        return
    try:
        if isinstance(msg, TakeBack | Leave | EndGame):
            if conn.seat is None:
                raise CommandError("forbidden", "spectators have no seat to take back, leave or end")
            op = "take_back" if isinstance(msg, TakeBack) else "leave" if isinstance(msg, Leave) else "end"
            await tables.seat_command(room, op, conn.seat)
            room.send_state(conn, msg.ref)
            return
        assert isinstance(msg, Act)
        conn.arrived(msg.ref, received)
        await tables.act(room, conn.seat, msg.version, msg.action, msg.id, conn, msg.ref)
    except CommandError as exc:
        conn.error(exc.code, exc.message, msg.ref, exc.because)
        if exc.code == "stale":
            room.send_state(conn)


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
    )
