"""The room command path on a room's owner: :func:`execute` runs each command here.

A move, taking a seat back, leaving and ending go to the room's own methods
(:meth:`Room.act <spieltisch.server.room.Room.act>`, ...: under the room's lock);
joining, a rematch and claiming a rematch seat are written here. The owner
(:class:`~spieltisch.server.owner.LocalOwner`, or a cluster's worker that owns
the room) calls :func:`execute`; nobody else does.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol, assert_never

from spieltisch.server.codes import clean_name, hash_secret, new_secret, rematch_secret
from spieltisch.server.commands import Claim, Command, End, Join, Leave, Move, Rematch, TakeBack
from spieltisch.server.connection import Connection
from spieltisch.server.errors import RoomError
from spieltisch.server.room import Room
from spieltisch.server.store import RoomRow, SeatRow, Store


class Rooms(Protocol):
    """The room directory as the command path and the owners see it
    (:class:`~spieltisch.server.directory.RoomDirectory`)."""

    store: Store

    @property
    def rooms(self) -> Mapping[str, Room]:
        """The rooms in this process's memory, by code."""

    async def room(self, code: str) -> Room:
        """The room ``code`` (loaded from the store if need be); :class:`RoomError` 404 if none."""

    async def insert(self, template: RoomRow) -> Room:
        """Store a new room like ``template`` under a new code; its owner is this process."""

    async def let_go(self, room: Room, unless: Callable[[], bool]) -> bool:
        """Take ``room`` out of memory unless ``unless()`` says otherwise (nobody loads a
        room meanwhile); whether it went."""


async def execute(
    rooms: Rooms, command: Command, conn: Connection | None = None, ref: str | None = None
) -> Any:
    """Run ``command`` here, on the owner of its room; its answer (``None`` for most).
    A move answers its ``conn`` (the sender's, with ``ref``) with the broadcast."""
    room = await rooms.room(command.room)
    if isinstance(command, Move):
        await room.act(command.seat, command.version, command.action, command.action_id, conn, ref)
    elif isinstance(command, TakeBack):
        await room.take_back(command.seat)
    elif isinstance(command, Leave):
        await room.leave(command.seat)
    elif isinstance(command, End):
        await room.end(command.seat)
    elif isinstance(command, Join):
        return await _join(room, command)
    elif isinstance(command, Rematch):
        return await _rematch(rooms, room, command)
    elif isinstance(command, Claim):
        return await _claim(room, await rooms.room(command.old), command)
    else:
        assert_never(command)
    return None


async def _join(room: Room, command: Join) -> tuple[int, str]:
    if room.archived is not None:
        raise RoomError(409, f"room {room.code} is an archived record, nobody can join: {room.archived}")
    seat = command.seat
    async with room.lock:
        seats = room.row.seats
        if seat is None:
            free = [s.seat for s in seats if s.kind == "human" and not s.taken]
            if not free:
                raise RoomError(409, f"room {room.code} is full")
            seat = free[0]
        if not 0 <= seat < len(seats):
            raise RoomError(422, f"seat: there is no seat {seat} (seats 0..{len(seats) - 1})")
        target = seats[seat]
        if target.kind != "human":
            raise RoomError(409, f"seat {seat} is a bot seat")
        if target.taken:
            raise RoomError(409, f"seat {seat} is taken")
        if room.row.rated and command.account is None:
            raise RoomError(403, f"room {room.code} is rated: sign in to take a seat (docs/accounts.md)")
        if room.row.rated and any(s.account == command.account for s in seats):
            raise RoomError(409, f"room {room.code} is rated: you have a seat at this table already")
        secret = new_secret()
        updated = SeatRow(
            seat=seat,
            kind="human",
            name=clean_name(command.name, seat),
            secret_hash=hash_secret(secret),
            taken=True,
            email=command.email,
            lang=command.lang,
            account=command.account,
        )
        all_taken = all(s.taken or s.kind == "bot" or s.seat == seat for s in seats)
        status = "playing" if all_taken and room.row.status == "waiting" else None
        started = time.time() if status == "playing" else None
        try:
            await room.store.update_seat_async(
                room.code, updated, status, {"started": started} if started is not None else None
            )
        except Exception as exc:
            raise RoomError(503, f"the database refused the seat: {exc}") from exc
        seats[seat] = updated
        room.away.setdefault(seat, time.monotonic())
        if status is not None:
            room.row.status = status
            room.row.started = started
            room.turn_version = [room.version] * room.row.players
            if room.clocks is not None:  # the first decisions' clocks start now
                room.clocks.start(room.state.to_move(), time.monotonic())
            room.turn_notices(room, room.to_move())
        room.broadcast()
    room.seat_bots.wake.set()
    return seat, secret


async def _rematch(rooms: Rooms, room: Room, command: Rematch) -> str:
    if not room.check_seat(command.seat, command.secret):
        raise RoomError(403, f"seat {command.seat} of room {room.code}: wrong or missing secret")
    async with room.lock:
        row = room.row
        if row.status != "over":
            raise RoomError(409, f"the game in room {room.code} is not over yet")
        if row.rematch is not None:
            return row.rematch
        seats = [
            SeatRow(
                seat=s.seat,
                kind=s.kind,
                level=s.level,
                name=s.name,
                taken=s.kind != "bot",
                claim_from=room.code if s.kind != "bot" else None,
                account=s.account,
            )
            for s in row.seats
        ]
        template = RoomRow(
            code="",
            game=row.game,
            players=row.players,
            options=dict(row.options),
            seed=secrets.randbits(62),
            bot_delay=row.bot_delay,
            status="playing",
            seats=seats,
            rematch_of=room.code,
            clock=row.clock,
            hints=row.hints,
            invite=row.invite,  # the same people: the old room's link opens the rematch too
            rated=row.rated,
        )
        new = await rooms.insert(template)
        row.rematch = new.code
        room.broadcast()
    return new.code


async def _claim(room: Room, old_room: Room, command: Claim) -> str:
    seat, secret = command.seat, command.secret
    if not 0 <= seat < room.row.players or room.row.seats[seat].claim_from != old_room.code:
        raise RoomError(404, f"seat {seat} of room {room.code} is not a rematch seat of room {old_room.code}")
    if not old_room.check_seat(seat, secret):
        raise RoomError(403, f"seat {seat} of room {old_room.code}: wrong or missing secret")
    claimed = rematch_secret(secret, room.code, seat)
    target = room.row.seats[seat]
    if target.secret_hash is None:
        async with room.lock:
            target.secret_hash = hash_secret(claimed)
            await room.store.update_seat_async(room.code, target, None)
    return claimed
