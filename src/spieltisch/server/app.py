"""The FastAPI application: HTTP API, the game WebSocket and the static client.

See ``docs/protocol.md`` for every message. Build it with :func:`create_app`;
``spieltisch serve`` runs it under uvicorn.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal

from fastapi import FastAPI, Query, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.websockets import WebSocketDisconnect, WebSocketState

from spieltisch.server.botpool import BotPool
from spieltisch.server.games import games_info
from spieltisch.server.rooms import CommandError, Connection, Room, RoomError, SeatSpec, Tables
from spieltisch.server.store import Store

log = logging.getLogger(__name__)

MAX_MESSAGE = 8 * 1024
"""Largest client message (bytes)."""
RATE = 20.0
"""Messages per second a connection may send on average ..."""
BURST = 40.0
"""... and at once."""

STATIC_DIR = Path(__file__).resolve().parent.parent / "web" / "static"
RULES_DIR = Path(__file__).resolve().parent.parent / "web" / "rules"
"""A link to docs/rules (one source for the docs and the table)."""
RULES_PAGES = frozenset(
    f"{game}.{lang}.md" for game in ("scout", "waschbaer-schmaus") for lang in ("en", "de")
)


class SeatIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["human", "bot"]
    level: str | None = None


class CreateIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    game: str
    players: int
    options: dict[str, Any] | None = None
    seats: list[SeatIn] | None = None
    name: str | None = None
    bot_delay: float | None = Field(default=None, ge=0, le=10)
    seed: int | None = Field(default=None, ge=0, lt=2**62)


class JoinIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str | None = None
    seat: int | None = None


class RematchIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seat: int
    secret: str


def create_app(
    database: str = "sqlite:///spieltisch.db",
    bot_delay: float = 0.6,
    table_prefix: str = "",
    static_dir: Path | None = None,
    room_idle: float = 600.0,
    bot_workers: int | None = None,
    bot_pool: BotPool | None = None,
) -> FastAPI:
    """The web table on ``database`` (SQLAlchemy URL); bots wait ``bot_delay`` s by default.
    Rooms idle for ``room_idle`` s leave memory (:meth:`Tables.forget_idle`); the store keeps them.
    Bots think in ``bot_workers`` processes (default: :func:`~spieltisch.server.botpool.default_workers`),
    or in ``bot_pool``."""
    store = Store(database, prefix=table_prefix)
    pool = bot_pool if bot_pool is not None else BotPool(bot_workers)
    tables = Tables(store, pool, bot_delay=bot_delay)
    static = static_dir or STATIC_DIR

    async def sweep() -> None:
        while True:
            await asyncio.sleep(min(60.0, room_idle / 4))
            try:
                gone = await tables.forget_idle(room_idle)
            except Exception:  # pragma: no cover - a sweep must never stop the server
                log.exception("letting idle rooms go failed")
                continue
            if gone:
                log.info("let %d idle room(s) go: %s", len(gone), ", ".join(gone))

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        starting = asyncio.create_task(asyncio.to_thread(pool.start), name="start-bot-workers")
        await tables.start()
        sweeper = asyncio.create_task(sweep(), name="forget-idle-rooms")
        try:
            yield
        finally:
            sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sweeper
            with contextlib.suppress(Exception):
                await starting
            await tables.stop()
            await asyncio.to_thread(pool.close)
            await asyncio.to_thread(store.close)

    app = FastAPI(title="Spieltisch", lifespan=lifespan, docs_url="/api/docs", redoc_url=None)
    app.state.tables = tables
    app.state.store = store

    @app.exception_handler(RoomError)
    async def room_error(_request: Request, exc: RoomError) -> JSONResponse:
        return JSONResponse({"detail": exc.detail}, status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for err in exc.errors():
            loc = ".".join(str(x) for x in err.get("loc", ()) if x not in ("body", "query"))
            parts.append(f"{loc}: {err.get('msg', 'invalid')}" if loc else str(err.get("msg", "invalid")))
        return JSONResponse({"detail": "; ".join(parts) or "invalid request"}, status_code=422)

    # -- HTTP API ---------------------------------------------------------------
    @app.get("/api/games")
    async def list_games() -> dict[str, Any]:
        return games_info()

    @app.post("/api/rooms")
    async def create_room(body: CreateIn) -> dict[str, Any]:
        seats = None if body.seats is None else [SeatSpec(s.kind, s.level) for s in body.seats]
        room, seat, secret = await tables.create(
            body.game, body.players, body.options, seats, body.name, body.bot_delay, body.seed
        )
        return {"room": room.code, "seat": seat, "secret": secret, "invite": f"/r/{room.code}"}

    @app.get("/api/rooms/{code}")
    async def room_info(code: str) -> dict[str, Any]:
        return (await tables.room(code)).info()

    @app.post("/api/rooms/{code}/join")
    async def join(code: str, body: JoinIn) -> dict[str, Any]:
        seat, secret = await tables.join(code, body.name, body.seat)
        return {"seat": seat, "secret": secret}

    @app.post("/api/rooms/{code}/rematch")
    async def rematch(code: str, body: RematchIn) -> dict[str, Any]:
        return {"room": await tables.rematch(code, body.seat, body.secret)}

    @app.get("/api/rooms/{code}/claim")
    async def claim(code: str, seat: int, secret: str, from_: str = Query(alias="from")) -> dict[str, Any]:
        new_secret = await tables.claim(code, from_, seat, secret)
        return {"room": code.upper(), "seat": seat, "secret": new_secret}

    @app.get("/api/rooms/{code}/replay")
    async def replay(code: str, seat: int | None = None, secret: str | None = None) -> dict[str, Any]:
        return await tables.replay(code, seat, secret)

    # -- the game socket ----------------------------------------------------------
    @app.websocket("/ws/{code}")
    async def game_socket(websocket: WebSocket, code: str) -> None:
        await websocket.accept()
        seat_text = websocket.query_params.get("seat")
        secret = websocket.query_params.get("secret")
        try:
            room = await tables.room(code)
        except RoomError as exc:
            await _refuse(websocket, "no_room", exc.detail, 4404)
            return
        seat: int | None = None
        if seat_text is not None or secret is not None:
            try:
                seat = int(seat_text or "")
            except ValueError:
                await _refuse(websocket, "forbidden", f"seat must be a seat number, not {seat_text!r}", 4403)
                return
            if not room.check_seat(seat, secret):
                await _refuse(
                    websocket, "forbidden", f"seat {seat} of room {room.code}: wrong or missing secret", 4403
                )
                return
        await _serve(websocket, room, seat)

    # -- the client -----------------------------------------------------------------
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

    app.mount("/static", StaticFiles(directory=static, check_dir=False), name="static")
    return app


async def _refuse(websocket: WebSocket, code: str, message: str, close_code: int) -> None:
    await websocket.send_text(json.dumps({"type": "error", "code": code, "message": message}))
    await websocket.close(code=close_code)


class _Bucket:
    """Token bucket: ``RATE`` messages per second, bursts up to ``BURST``."""

    def __init__(self) -> None:
        self.tokens = BURST
        self.at = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(BURST, self.tokens + (now - self.at) * RATE)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


async def _serve(websocket: WebSocket, room: Room, seat: int | None) -> None:
    closing: list[bool] = []

    def close() -> None:
        closing.append(True)

    conn = Connection(seat, close)

    async def sender() -> None:
        while True:
            text = await conn.outbox.get()
            await websocket.send_text(text)

    send_task = asyncio.create_task(sender())
    room.attach(conn)
    bucket = _Bucket()
    try:
        while not closing and not send_task.done():
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            raw = message.get("text")
            if raw is None:
                data = message.get("bytes") or b""
                if len(data) > MAX_MESSAGE:
                    conn.error("too_large", f"messages are limited to {MAX_MESSAGE} bytes, got {len(data)}")
                    continue
                try:
                    raw = data.decode()
                except UnicodeDecodeError:
                    conn.error("bad_message", "a message must be UTF-8 JSON text")
                    continue
            if not bucket.take():
                conn.error("rate_limited", f"more than {RATE:g} messages per second: this one was ignored")
                continue
            if len(raw) > MAX_MESSAGE or len(raw.encode()) > MAX_MESSAGE:
                conn.error(
                    "too_large", f"messages are limited to {MAX_MESSAGE} bytes, got {len(raw.encode())}"
                )
                continue
            await _handle(room, conn, raw)
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


async def _handle(room: Room, conn: Connection, raw: str) -> None:
    try:
        msg = json.loads(raw)
    except ValueError as exc:
        conn.error("bad_message", f"not JSON: {exc}")
        return
    if not isinstance(msg, dict):
        conn.error("bad_message", "a message must be a JSON object with a 'type'")
        return
    ref = msg.get("ref")
    if ref is not None and (not isinstance(ref, str) or len(ref) > 64):
        conn.error("bad_message", "'ref' must be a string of at most 64 characters")
        return
    kind = msg.get("type")
    if kind == "ping":
        conn.send_json({"type": "pong"})
        return
    if kind == "sync":
        room.send_state(conn, ref)
        return
    if kind != "act":
        conn.error("bad_message", f"unknown message type {kind!r}: use act, ping or sync", ref)
        return
    version = msg.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        conn.error("bad_message", "an act needs 'version': the version of the last state you received", ref)
        return
    action_id = msg.get("id")
    action = msg.get("action")
    if (action_id is None) == (action is None):
        conn.error("bad_message", "an act needs exactly one of 'id' (from legal) or 'action'", ref)
        return
    if action_id is not None and (not isinstance(action_id, int) or isinstance(action_id, bool)):
        conn.error("bad_message", f"'id' must be a whole number from the legal list, not {action_id!r}", ref)
        return
    if action is not None and not isinstance(action, str | dict):
        conn.error("bad_message", "'action' must be notation text or the JSON form of an action", ref)
        return
    try:
        await room.act(conn.seat, version, action=action, action_id=action_id, conn=conn, ref=ref)
    except CommandError as exc:
        conn.error(exc.code, exc.message, ref, exc.because)
        if exc.code == "stale":
            room.send_state(conn)


def create_app_from_env() -> FastAPI:
    """Factory for ``uvicorn --factory`` (used by ``spieltisch serve --reload``)."""
    return create_app(
        database=os.environ.get("SPIELTISCH_DATABASE", "sqlite:///spieltisch.db"),
        bot_delay=float(os.environ.get("SPIELTISCH_BOT_DELAY", "0.6")),
    )
