"""Forwarded commands: a command for a room another worker owns goes to that worker,
which runs it through the one command path and answers (docs/deploy.md)."""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError

from spieltisch.engine import IllegalActionError
from spieltisch.server.cluster.keys import FORWARD_TIMEOUT, NO_REDIS, ROUTE_FOR
from spieltisch.server.cluster.leases import Moved
from spieltisch.server.codes import normalize_code
from spieltisch.server.command_path import execute
from spieltisch.server.commands import Command, Move, decode, encode, result_from_json, unavailable
from spieltisch.server.connection import Connection
from spieltisch.server.errors import CommandError, RoomError

if TYPE_CHECKING:
    from spieltisch.server.cluster.worker import Cluster

log = logging.getLogger("spieltisch.server.cluster")

origin: ContextVar[list[Any] | None] = ContextVar("spieltisch_cluster_origin", default=None)
"""``[worker, request]`` of the forwarded command being run (its ack travels with the append)."""


class Forwarder:
    """A worker's forwarded commands: those it sent (waiting for their answers) and those
    it runs for the others."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        """The answers this worker waits for, by request."""
        self.acks: dict[int, tuple[Connection | None, str | None]] = {}
        """The connection (and its ``ref``) to acknowledge a forwarded move on, by request."""
        self.seq = itertools.count(1)

    async def run(self, command: Command, conn: Connection | None = None, ref: str | None = None) -> Any:
        """Run ``command`` on the owner of its room - here, or forwarded to the worker that
        owns it - and answer as if it ran here (a move's ack or error, on ``conn``)."""
        c = self.cluster
        if isinstance(command, Move) and command.seat is None:  # refused before anything else
            return await execute(c.directory, command, conn, ref)
        try:
            return await self._route(command, conn, ref)
        except RoomError as exc:  # (no room to run it in) a socket's command is refused on it
            if command.over_http:
                raise
            raise CommandError("unavailable", exc.detail) from exc

    async def _route(self, command: Command, conn: Connection | None, ref: str | None) -> Any:
        c = self.cluster
        code = normalize_code(command.room)
        deadline = time.monotonic() + ROUTE_FOR
        at_once = True
        entry: tuple[Connection | None, str | None] | None = None
        while True:
            try:
                owner = await c._owner(code)
                reply = None
                if owner == c.id:
                    try:
                        return await c._local(code, command, conn, ref)
                    except Moved:  # handed over (or lost) meanwhile: nothing done, find its owner
                        pass
                elif owner is not None:
                    req = next(self.seq)
                    if isinstance(command, Move):  # the ack travels with the owner's append
                        self.acks[req] = (conn, ref)
                    try:
                        reply = await self.forward(owner, code, command, req)
                    finally:
                        entry = self.acks.pop(req, None)
            except (RedisError, OSError) as exc:
                log.warning("room %s: Redis unreachable: %s", code, exc)
                raise unavailable(command, NO_REDIS) from exc
            except TimeoutError as exc:
                c._owners.pop(code, None)
                raise unavailable(
                    command, f"the worker that owns room {code} did not answer; try again"
                ) from exc
            if reply is not None and not reply.get("moved"):
                break
            c._owners.pop(code, None)
            if at_once:  # the owner believed may be out of date: read the lease again now
                at_once = False
                continue
            if time.monotonic() > deadline:
                raise unavailable(command, f"no worker could take room {code} over; try again")
            await asyncio.sleep(c.tick)
        return await self._answer(code, command, reply, entry, conn, ref)

    async def _answer(
        self,
        code: str,
        command: Command,
        reply: dict[str, Any],
        entry: tuple[Connection | None, str | None] | None,
        conn: Connection | None,
        ref: str | None,
    ) -> Any:
        """The owner's reply to a forwarded command, as if the command had run here."""
        c = self.cluster
        if "room_error" in reply:
            status, detail = reply["room_error"]
            raise RoomError(int(status), str(detail))
        error = reply.get("error")
        if error is not None:
            if command.over_http:
                raise RoomError(503, str(error["message"]))
            if error["code"] == "stale":
                await c._resync(await c.directory.room(code))
            because = None
            if error.get("ruling") is not None:
                because = IllegalActionError(
                    error["ruling"], error["reason"], error["template"], error["params"]
                )
            raise CommandError(str(error["code"]), str(error["message"]), because)
        if isinstance(command, Move):
            if entry is not None:  # the owner's append has not reached the replica yet
                room = await c.directory.room(code)
                if room.version < reply["version"]:
                    await c._resync(room)
                if conn is not None:
                    room.send_state(conn, ref)
            return None
        if not command.over_http:  # taken back, left or ended there: the copy here reloads
            await c._resync(await c.directory.room(code))
        return result_from_json(command, reply.get("result"))

    async def forward(self, owner: str, code: str, command: Command, req: int) -> dict[str, Any] | None:
        """Send a command to its owner; its reply, or ``None`` if that worker is gone."""
        c = self.cluster
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pending[req] = future
        try:
            msg = {"t": "req", "from": c.id, "req": req, "room": code, "command": encode(command)}
            if isinstance(command, Move):  # answered by the room's add when stored, by a reply if not
                msg["by_add"] = True
            if not await c.sender.publish_counted(c.keys.worker_channel(owner), msg):
                return None  # nobody listens: the owner died, its lease will expire
            return await asyncio.wait_for(future, FORWARD_TIMEOUT)
        finally:
            self.pending.pop(req, None)

    async def serve(self, msg: dict[str, Any]) -> None:
        """Run a command another worker forwarded here, and answer it."""
        c = self.cluster
        code = str(msg["room"])
        reply: dict[str, Any] = {"t": "reply", "req": msg["req"]}
        lease = c.leases.get(code)
        if lease is None or not lease.ready:
            reply["moved"] = True
        else:
            token = origin.set([msg["from"], msg["req"]])
            try:
                command = decode(msg["command"])
                result = await c._local(code, command)
                if isinstance(command, Move):
                    if msg.get("by_add"):  # the room's add names the request: that is the answer
                        return
                    reply["version"] = (await c.directory.room(code)).version
                else:
                    reply["result"] = result
            except Moved:  # being handed over: the sender asks the new owner
                reply["moved"] = True
            except CommandError as exc:
                error: dict[str, Any] = {"code": exc.code, "message": exc.message}
                if exc.because is not None:
                    b = exc.because
                    error.update(ruling=b.ruling, reason=b.reason, template=b.template, params=b.params)
                reply["error"] = error
            except RoomError as exc:
                reply["room_error"] = [exc.status, exc.detail]
            except Exception as exc:  # answered, so that the sender is not left waiting
                log.exception("room %s: a forwarded %s failed", code, msg["command"].get("kind"))
                reply["error"] = {"code": "internal", "message": f"the owner failed: {exc}"}
            finally:
                origin.reset(token)
        c.sender.publish(c.keys.worker_channel(str(msg["from"])), reply)
