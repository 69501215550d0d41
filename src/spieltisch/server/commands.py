"""The commands that change a room, one type each.

Whoever sends a command - the HTTP API, a WebSocket, a bot - hands it to the
room directory, whose owner runs it where the room is owned: here
(:func:`spieltisch.server.command_path.execute`), or, in a cluster, on the worker
that owns the room, which gets it as JSON (:func:`encode` / :func:`decode`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from spieltisch.server.errors import CommandError, RoomError


@dataclass(frozen=True, slots=True)
class RoomCommand:
    """A command for the room ``room``; refused over the socket (``over_http`` false:
    a protocol error code) or over HTTP (a status)."""

    room: str
    over_http: ClassVar[bool] = False


@dataclass(frozen=True, slots=True)
class Move(RoomCommand):
    """An action of a seat (the WebSocket's ``act``), by notation or by id."""

    seat: int | None
    version: int
    action: str | Mapping[str, Any] | None = None
    action_id: int | None = None


@dataclass(frozen=True, slots=True)
class SeatCommand(RoomCommand):
    """A command of a seat's player about the seat itself (from the player's socket)."""

    seat: int


class TakeBack(SeatCommand):
    """The seat's player takes the seat back from its stand-in bot."""

    __slots__ = ()


class Leave(SeatCommand):
    """The seat's player resigns and leaves; a bot plays on for the seat."""

    __slots__ = ()


class End(SeatCommand):
    """After a player left, one of the others ends the game."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Join(RoomCommand):
    """A person takes a free seat (``seat`` ``None``: the first free one); answers
    ``(seat, secret)``."""

    over_http: ClassVar[bool] = True
    name: str | None
    seat: int | None
    email: str | None = None
    """Where a turn-based game tells the player it is their turn (never shown, never logged)."""
    lang: str | None = None
    account: str | None = None
    """The signed-in account that takes the seat (its ``name`` is the account's)."""


@dataclass(frozen=True, slots=True)
class Rematch(RoomCommand):
    """A seat of a finished game asks for the next one; answers the new room's code."""

    over_http: ClassVar[bool] = True
    seat: int
    secret: str


@dataclass(frozen=True, slots=True)
class Claim(RoomCommand):
    """A seat's secret in the rematch ``room`` from its secret in the ``old`` one; answers it."""

    over_http: ClassVar[bool] = True
    old: str
    seat: int
    secret: str


Command = Move | TakeBack | Leave | End | Join | Rematch | Claim
KINDS: dict[str, type[Command]] = {
    cls.__name__.lower(): cls for cls in (Move, TakeBack, Leave, End, Join, Rematch, Claim)
}
"""Each command's name in :func:`encode`."""


def encode(command: Command) -> dict[str, Any]:
    """The command as JSON, for the worker that owns the room."""
    return {"kind": type(command).__name__.lower(), **dataclasses.asdict(command)}


def decode(data: Mapping[str, Any]) -> Command:
    """The command :func:`encode` gave."""
    fields = dict(data)
    kind = KINDS.get(str(fields.pop("kind", "")))
    if kind is None:
        raise CommandError("bad_message", f"unknown command {data.get('kind')!r}")
    return kind(**fields)


def result_from_json(command: Command, raw: Any) -> Any:
    """A command's answer as it came back as JSON from the worker that ran it."""
    if isinstance(command, Join):
        return int(raw[0]), str(raw[1])
    if isinstance(command, Rematch | Claim):
        return str(raw)
    return None


def unavailable(command: Command, message: str) -> CommandError | RoomError:
    """The refusal of a command that found no owner for its room: on the socket
    (``unavailable``), or over HTTP (503)."""
    if command.over_http:
        return RoomError(503, message)
    return CommandError("unavailable", message)
