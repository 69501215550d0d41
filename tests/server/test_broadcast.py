"""What a broadcast sends, and how a connection's sender delivers it (the hot path of a move)."""

from __future__ import annotations

import asyncio
import gc
import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from server_harness import run_async
from starlette.websockets import WebSocketState

from spieltisch.server.app import GC_THRESHOLD, create_app
from spieltisch.server.botpool import BotPool
from spieltisch.server.commands import Join
from spieltisch.server.connection import Connection
from spieltisch.server.directory import RoomDirectory
from spieltisch.server.game_socket import serve
from spieltisch.server.limits import Addresses, Limits
from spieltisch.server.owner import LocalOwner
from spieltisch.server.store import Store


class _RecordingSocket:
    """A client that reads everything at once and never speaks (until cancelled)."""

    def __init__(self) -> None:
        self.client_state = WebSocketState.CONNECTED
        self.sent: list[str] = []

    async def receive(self) -> dict[str, Any]:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    async def send_text(self, text: str) -> None:
        self.sent.append(text)

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.client_state = WebSocketState.DISCONNECTED


@pytest.mark.parametrize("game", ["scout", "schmaus"])
def test_every_seat_gets_its_legal_ids_with_their_notation_and_nobody_else_any(
    tmp_path: Path, game: str
) -> None:
    """``legal`` is ``[[id, notation], ...]`` of the seat's own legal actions, in the
    engine's order, at every step of a game; seats not to move and spectators get []."""

    async def main() -> int:
        store = Store(f"sqlite:///{tmp_path / 'legal.db'}")
        pool = BotPool(1)  # no bot seat: no worker starts
        directory = RoomDirectory(store, pool, LocalOwner(), bot_delay=0.0)
        room = await directory.insert(directory.plan(game, 3, None, None, "A", 0.0, 11).template)
        for seat in (1, 2):
            await directory.run(Join(room.code, None, seat))
        rng = random.Random(5)
        checked = 0
        for _ in range(40):
            if room.status != "playing":
                break
            state = room.state
            for seat in (None, 0, 1, 2):
                msg = json.loads(room.state_text(seat))
                if seat is None or seat not in state.to_move():
                    assert msg["legal"] == []
                    continue
                ids = state.legal_action_ids(seat)
                assert msg["legal"] == [[a, state.action_from_id(a).to_text()] for a in ids]
                checked += 1
            mover = state.to_move()[0]
            await room.act(mover, room.version, action_id=rng.choice(state.legal_action_ids(mover)))
        await directory.stop()
        pool.close()
        store.close()
        return checked

    assert run_async(main()) >= 40


def test_a_sender_delivers_everything_queued_while_it_slept_in_order(tmp_path: Path) -> None:
    """Messages queued before the sender wakes all go out, in the order they were queued;
    a sender that has caught up waits for the next one."""

    async def main() -> list[str]:
        store = Store(f"sqlite:///{tmp_path / 'order.db'}")
        pool = BotPool(1)
        directory = RoomDirectory(store, pool, LocalOwner())
        room = await directory.insert(directory.plan("scout", 2, None, None, "A", 0.0, 1).template)
        socket_ = _RecordingSocket()
        serving = asyncio.create_task(
            serve(socket_, directory, room, None, "10.1.1.1", Addresses(Limits()))  # type: ignore[arg-type]
        )
        await asyncio.sleep(0.05)
        (conn,) = room.connections
        assert len(socket_.sent) == 1  # the spectator's first state
        for text in ("one", "two", "three"):  # no await between them: one wake-up
            conn.send(text)
        await asyncio.sleep(0.05)
        conn.send("four")
        await asyncio.sleep(0.05)
        serving.cancel()
        with pytest.raises(asyncio.CancelledError):
            await serving
        await directory.stop()
        pool.close()
        store.close()
        return socket_.sent[1:]

    assert run_async(main()) == ["one", "two", "three", "four"]


def test_a_connection_that_falls_behind_is_closed_once_and_sends_nothing_more() -> None:
    closed: list[bool] = []
    conn = Connection(0, lambda: closed.append(True))
    for i in range(600):
        conn.send(str(i))
    assert closed == [True]
    assert conn.closed and list(conn.outbox) == [str(i) for i in range(512)]


def test_a_timed_connection_times_each_acknowledged_act_until_its_state_is_written() -> None:
    """With ``timings`` (``SPIELTISCH_LATENCY_LOG``), an act is timed from its arrival
    until the state that acknowledges it has been written - not the messages before it,
    and not an act that was refused."""
    timings: list[tuple[float, float]] = []
    conn = Connection(0, timings=timings)
    conn.arrived("a", at=time.perf_counter() - 0.5)  # arrived half a second ago
    conn.arrived("b")
    conn.send("someone else's move")
    conn.send("the ack of a", ack="a")
    conn.error("stale", "refused", "b")
    conn.written()  # the first message only: the ack is still in the outbox
    assert timings == []
    conn.written()
    conn.written()  # the error: nothing is timed for a refused act
    assert len(timings) == 1
    when, seconds = timings[0]
    assert 0.5 <= seconds < 5 and abs(when - time.monotonic()) < 5
    untimed = Connection(0)
    untimed.arrived("c")
    untimed.send("the ack of c", ack="c")
    untimed.written()
    assert untimed.timings is None


def test_a_started_server_freezes_what_its_start_made_only_when_asked(tmp_path: Path) -> None:
    """``tune_gc`` (the server process: ``spieltisch serve``, uvicorn's factory) puts what
    the start made out of the cyclic collector's reach; an app made for a test does not."""
    gc.unfreeze()
    thresholds = gc.get_threshold()
    try:
        with TestClient(create_app(f"sqlite:///{tmp_path / 'plain.db'}", bot_workers=1)) as client:
            assert client.get("/api/games").status_code == 200
            assert gc.get_freeze_count() == 0
        with TestClient(
            create_app(f"sqlite:///{tmp_path / 'tuned.db'}", bot_workers=1, tune_gc=True)
        ) as client:
            assert client.get("/api/games").status_code == 200
            assert gc.get_freeze_count() > 10_000  # modules, the app, its routes and models
            assert gc.get_threshold() == GC_THRESHOLD
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
