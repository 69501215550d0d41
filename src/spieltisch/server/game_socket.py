"""The game WebSocket ``/ws/{code}``: who is connecting, then its messages (docs/protocol.md).

Each socket is a :class:`~spieltisch.server.connection.Connection` of its room; its
commands go through the room directory to the room's owner.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from typing import Any

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect, WebSocketState

from spieltisch.server.api import SEAT_HEADER, SECRET_HEADER, SECRET_IN_URL, SECRET_PARAMS, client_address
from spieltisch.server.codes import split_name
from spieltisch.server.commands import End, Leave, Move, TakeBack
from spieltisch.server.connection import Connection
from spieltisch.server.directory import RoomDirectory
from spieltisch.server.errors import CommandError, RoomError
from spieltisch.server.hinting import hint
from spieltisch.server.limits import Addresses, CountUnavailable
from spieltisch.server.messages import Act, EndGame, Hello, HintIn, MessageError, Sync, parse_client, ref_of
from spieltisch.server.messages import Leave as LeaveIn
from spieltisch.server.messages import TakeBack as TakeBackIn
from spieltisch.server.room import Room
from spieltisch.server.shutdown import GOING_AWAY, Shutdown


def game_socket(
    directory: RoomDirectory,
    addresses: Addresses,
    shutdown: Shutdown,
    timings: list[tuple[float, float]] | None = None,
) -> APIRouter:
    """The route of the game socket (``timings``: see :class:`Connection`)."""
    router = APIRouter()
    limits = addresses.limits

    @router.websocket("/ws/{code}")
    async def socket(websocket: WebSocket, code: str) -> None:
        """``code``: the room's code, or ``CODE-KEY`` from its invite link (docs/protocol.md)."""
        code, key = split_name(code)
        await websocket.accept()
        if any(p in websocket.query_params for p in SECRET_PARAMS):
            await _refuse(websocket, "forbidden", f"{SECRET_IN_URL}, or in the first message (hello)", 4403)
            return
        if shutdown.stopping:
            await _refuse(websocket, "unavailable", "the server is stopping; connect again", GOING_AWAY)
            return
        address = client_address(websocket.client)
        try:
            counted = await addresses.open_socket_async(address)
        except CountUnavailable as exc:  # not let through uncounted: try another worker
            await _refuse(websocket, "unavailable", str(exc), 1013)
            return
        if not counted:
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
                wait = await addresses.locked_out_async(address)
            except CountUnavailable as exc:
                await _refuse(websocket, "unavailable", str(exc), 1013)
                return
            if wait is not None:  # guessing room codes or secrets (docs/deploy.md, "Threat model")
                await _refuse(websocket, "rate_limited", addresses.locked_text(wait), 1008)
                return
            try:
                room = await directory.room(code)
            except RoomError as exc:
                if exc.status == 409:  # a stored record this engine cannot open at all
                    await _refuse(websocket, "archived", exc.detail, 4409)
                else:
                    await addresses.miss_async(address)
                    await _refuse(websocket, "no_room", exc.detail, 4404)
                return
            shutdown.sockets.add(websocket)
            admitted = not directory.private or room.admits(key)
            greeted = await _greet(websocket, room, admitted, address, addresses)
            if greeted is not None:
                if directory.rooms.get(room.code) is not room:  # let go meanwhile: load it again
                    try:
                        room = await directory.room(code)
                    except RoomError as exc:
                        await _refuse(websocket, "no_room", exc.detail, 4404)
                        return
                await serve(websocket, directory, room, greeted[0], address, addresses, timings)
        finally:
            shutdown.sockets.discard(websocket)
            await addresses.close_socket_async(address)

    return router


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
    websocket: WebSocket, room: Room, admitted: bool, address: str, addresses: Addresses
) -> tuple[int | None, str | None] | None:
    """Who is this socket: the seat and secret from the headers, or from the first
    message (``hello``, within ``hello_timeout`` s). Returns ``(seat, ref)``
    (seat ``None``: a spectator), or ``None`` after refusing the socket. A socket not
    ``admitted`` by the room's name (:meth:`Room.admits`) needs a seat's secret: without
    one it is told ``no_room``, as for a room that does not exist."""
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
            if not admitted:
                await _no_room(websocket, room.code, address, addresses, ref)
                return None
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
    if not room.check_seat(seat, secret):
        await room.hooks.refresh(room)  # the seat may have been taken through another worker just now
    if not room.check_seat(seat, secret):
        if not admitted:  # nothing tells a guesser that the room exists
            await _no_room(websocket, room.code, address, addresses, ref)
            return None
        await addresses.miss_async(address)
        wait = await addresses.room_miss_async(room.code)
        if wait is not None:  # the room's failures from every address (issue #34)
            await _refuse(websocket, "rate_limited", addresses.room_text(room.code, wait), 1008, ref)
        else:
            text = f"seat {seat} of room {room.code}: wrong or missing secret"
            await _refuse(websocket, "forbidden", text, 4403, ref)
        return None
    return seat, ref


async def _no_room(
    websocket: WebSocket, code: str, address: str, addresses: Addresses, ref: str | None
) -> None:
    await addresses.miss_async(address)
    await _refuse(websocket, "no_room", f"no room {code}", 4404, ref)


async def serve(
    websocket: WebSocket,
    directory: RoomDirectory,
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
                    ref_of(raw),
                )
                continue
            # Bytes in UTF-8; an ASCII text (every message of the protocol's own clients) is
            # as long as its characters, without encoding a copy to count them.
            size = len(raw) if isinstance(raw, bytes) or raw.isascii() else len(raw.encode())
            if size > limits.max_message:  # uvicorn refuses such frames first (ws_max_size)
                conn.error(
                    "too_large",
                    f"max_message: messages are limited to {limits.max_message} bytes, got {size}",
                    ref_of(raw),
                )
                continue
            await _handle(directory, room, conn, raw, received)
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
    directory: RoomDirectory, room: Room, conn: Connection, raw: str | bytes, received: float | None = None
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
            answer = await hint(room, conn.seat)
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
        if isinstance(msg, TakeBackIn | LeaveIn | EndGame):
            if conn.seat is None:
                raise CommandError("forbidden", "spectators have no seat to take back, leave or end")
            kind = TakeBack if isinstance(msg, TakeBackIn) else Leave if isinstance(msg, LeaveIn) else End
            await directory.run(kind(room.code, conn.seat))
            room.send_state(conn, msg.ref)
            return
        assert isinstance(msg, Act)
        conn.arrived(msg.ref, received)
        await directory.run(Move(room.code, conn.seat, msg.version, msg.action, msg.id), conn, msg.ref)
    except CommandError as exc:
        conn.error(exc.code, exc.message, msg.ref, exc.because)
        if exc.code == "stale":
            room.send_state(conn)
