"""Turn clocks and stand-in bots (docs/web.md, "Clocks and stand-in bots"): a time-out hands
the seat to a bot, the returning player takes it back, the record says who played each move;
the clocks are derived from the stored log after a restart; leaving and ending a game."""

from __future__ import annotations

import asyncio
import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from server_harness import ServerThread, run_async, seat_socket, ws_url
from websockets.asyncio.client import ClientConnection

from spieltisch.clocks import Clocks, ClockSettings
from spieltisch.server.messages import server_message
from spieltisch.server.store import Store

HUMAN = {"kind": "human"}
BOT = {"kind": "bot", "level": "random"}


def _create(
    srv: ServerThread, seats: list[dict[str, Any]], clock: dict[str, Any] | None, **extra: Any
) -> Any:
    body: dict[str, Any] = {
        "game": "schmaus",
        "players": len(seats),
        "seats": seats,
        "options": {"rounds": 1},
        "name": "Alice",
        "seed": 7,
        "bot_delay": 0,
        **extra,
    }
    if clock is not None:
        body["clock"] = clock
    with srv.client() as client:
        return client.post("/api/rooms", json=body)


async def _next_state(ws: ClientConnection, timeout: float = 20) -> dict[str, Any]:
    while True:
        msg = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        server_message.validate_python(msg)  # every frame is a valid protocol message
        if msg["type"] == "state":
            return msg
        assert msg["type"] == "error", msg


async def _next_error(ws: ClientConnection, timeout: float = 10) -> dict[str, Any]:
    """The next error frame; state frames that arrive first (a bot's move, a seat's
    connection) are passed over."""
    while True:
        msg = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        server_message.validate_python(msg)
        if msg["type"] == "error":
            return msg
        assert msg["type"] == "state", msg


@pytest.mark.parametrize(
    ("clock", "field"),
    [
        ({"move": -1}, "clock.move"),
        ({"move": 0}, "clock.move"),
        ({"bank": "long"}, "clock.bank"),
        ({"bank": True}, "clock.bank"),
        ({"grace": 10**9}, "clock.grace"),
        ({"move": 5, "stand_in": "grandmaster"}, "clock.stand_in"),
        ({"moves": 5}, "clock.moves"),
    ],
)
def test_bad_clock_settings_are_refused_naming_the_field(
    server: ServerThread, clock: dict[str, Any], field: str
) -> None:
    r = _create(server, [HUMAN, BOT, BOT], clock)
    assert r.status_code == 422, r.text
    assert field in r.json()["detail"], r.json()


def test_a_room_without_a_clock_has_none(server: ServerThread) -> None:
    r = _create(server, [HUMAN, BOT, BOT], None)
    assert r.status_code == 200, r.text
    with server.client() as client:
        assert client.get(f"/api/rooms/{r.json()['room']}").json()["clock"] is None


def test_a_time_out_hands_the_seat_to_a_bot_and_the_player_takes_it_back(server: ServerThread) -> None:
    r = _create(server, [HUMAN, BOT, BOT], {"move": 0.3, "stand_in": "random"}, options={"rounds": 3})
    assert r.status_code == 200, r.text
    room, secret = r.json()["room"], r.json()["secret"]
    rng = random.Random(1)

    async def main() -> dict[str, Any]:
        async with seat_socket(ws_url(server, room, 0, secret)) as ws:
            state = await _next_state(ws)
            assert state["room"]["clock"] == {"move": 0.3, "bank": None, "grace": None, "stand_in": "random"}
            assert state["clocks"][0]["running"] and state["clocks"][0]["move"] <= 0.3
            # Sit still: the clock runs out and the stand-in bot plays for seat 0 (W-4: the
            # sealed lays of all three run at once; the bots decided, seat 0's clock ran on).
            while not any(e["seat"] == 0 and e["by"] == "bot:random" for e in state["log"]):
                state = await _next_state(ws)
                if state["room"]["status"] == "over":
                    raise AssertionError("the game ended before the stand-in played")
            stood_in = state["room"]["seats"][0]
            assert stood_in["stand_in"] == "random" and stood_in["connected"]
            # Take the seat back; then play every decision at once until the game is over.
            await ws.send(json.dumps({"type": "take_back", "ref": "back"}))
            while state.get("ack") != "back":
                state = await _next_state(ws)
            assert "stand_in" not in state["room"]["seats"][0]
            log = state["log"]
            mine = 0
            while state["room"]["status"] != "over":
                if state["legal"] and "stand_in" not in state["room"]["seats"][0]:
                    action_id, _ = rng.choice(state["legal"])
                    await ws.send(json.dumps({"type": "act", "version": state["version"], "id": action_id}))
                    mine += 1
                state = await _next_state(ws)
                log = log[: state["log_from"]] + state["log"]
            assert mine > 0
            return {"log": log}

    played = run_async(main())
    with server.client() as client:
        replay = client.get(f"/api/rooms/{room}/replay").json()
    by = replay["record"]["by"]
    assert len(by) == len(replay["record"]["actions"]) == len(played["log"])
    seat0 = [b for (seat, _), b in zip(replay["record"]["actions"], by, strict=True) if seat == 0]
    assert "bot:random" in seat0 and None in seat0  # both the stand-in and the player played seat 0
    first_own = seat0.index(None)
    assert all(b == "bot:random" for b in seat0[:first_own])  # the bot until the player was back
    # The bot seats play as themselves (None), never as a stand-in.
    assert all(b is None for (seat, _), b in zip(replay["record"]["actions"], by, strict=True) if seat != 0)
    assert [e["by"] for e in played["log"]] == by
    assert [f["by"] for f in replay["frames"][1:]] == by


def test_a_player_away_longer_than_the_grace_period_is_played_by_a_bot(server: ServerThread) -> None:
    r = _create(server, [HUMAN, HUMAN, BOT], {"grace": 0.2, "stand_in": "random"})
    assert r.status_code == 200, r.text
    room, secret = r.json()["room"], r.json()["secret"]
    with server.client() as client:
        assert client.post(f"/api/rooms/{room}/join", json={"name": "Bob"}).status_code == 200
    rng = random.Random(2)

    async def main() -> dict[str, Any]:
        async with seat_socket(ws_url(server, room, 0, secret)) as ws:  # Bob never connects
            state = await _next_state(ws)
            while state["room"]["status"] != "over":
                if state["legal"]:
                    action_id, _ = rng.choice(state["legal"])
                    await ws.send(json.dumps({"type": "act", "version": state["version"], "id": action_id}))
                state = await _next_state(ws)
            return state

    final = run_async(main())
    assert final["room"]["seats"][1]["stand_in"] == "random" and not final["room"]["seats"][1]["connected"]
    assert {e["by"] for e in final["log"] if e["seat"] == 1} == {"bot:random"}
    assert {e["by"] for e in final["log"] if e["seat"] == 0} == {None}
    assert final["clocks"][1] == {
        "seat": 1,
        "running": False,
        "move": None,
        "bank": None,
        "stand_in_after": None,
    }


def test_the_table_counts_down_to_the_stand_in_of_a_player_away_on_their_turn(server: ServerThread) -> None:
    r = _create(server, [HUMAN, HUMAN, BOT], {"grace": 30, "stand_in": "random"})
    room, secret = r.json()["room"], r.json()["secret"]
    with server.client() as client:
        assert client.post(f"/api/rooms/{room}/join", json={"name": "Bob"}).status_code == 200

    async def main() -> dict[str, Any]:
        async with seat_socket(ws_url(server, room, 0, secret)) as ws:  # Bob never connects
            return await _next_state(ws)

    first = run_async(main())
    assert 1 in first["view"]["to_move"]  # W-4: everybody lays at once
    assert 0 < first["clocks"][1]["stand_in_after"] <= 30  # Bob is away on his turn
    assert first["clocks"][0]["stand_in_after"] is None  # Alice is here


def test_the_bank_is_derived_from_the_stored_log_after_a_restart(db_url: str) -> None:
    srv = ServerThread(db_url)
    try:
        r = _create(srv, [HUMAN, BOT, BOT], {"bank": 60}, options={"rounds": 3})
        room, secret = r.json()["room"], r.json()["secret"]

        async def before() -> tuple[float, float]:
            async with seat_socket(ws_url(srv, room, 0, secret)) as ws:
                state = await _next_state(ws)
                await asyncio.sleep(0.4)  # think a while: the bank runs
                await ws.send(
                    json.dumps({"type": "act", "version": state["version"], "id": state["legal"][0][0]})
                )
                # States of the bots' lays may have queued up meanwhile: wait for
                # the one that has seat 0's own lay in its log and its next decision.
                laid = False
                while not (laid and state["clocks"][0]["running"]):
                    state = await _next_state(ws)
                    laid = laid or any(e["seat"] == 0 for e in state["log"])
                return state["clocks"][0]["bank"], time.monotonic()

        bank, seen = run_async(before())
        assert 50 < bank < 59.7  # at least the 0.4 s of thinking
    finally:
        srv.stop()
    srv = ServerThread(db_url)  # a fresh server: the clocks come from the stored log
    try:

        async def after() -> tuple[float, bool]:
            async with seat_socket(ws_url(srv, room, 0, secret)) as ws:
                state = await _next_state(ws)
                return state["clocks"][0]["bank"], state["clocks"][0]["running"]

        again, running = run_async(after())
        passed = time.monotonic() - seen
        assert running
        assert bank - passed - 0.5 <= again <= bank  # ran on meanwhile, no more
    finally:
        srv.stop()


def test_sealed_decisions_run_every_undecided_clock() -> None:
    """W-4: all seats lay at once; each clock stops when its seat has laid (derived, replayed)."""
    from spieltisch.engine import get_game

    game = get_game("schmaus")
    state = game.new_state(3, 7, {"rounds": 1})
    assert len(state.to_move()) == 3
    first = state.clone()
    lays = [(seat, first.action_from_id(first.legal_action_ids(seat)[0]).to_text()) for seat in (1, 0)]
    settings = ClockSettings(bank=10.0)
    clocks, after = Clocks.replay(settings, state, 1000.0, lays, [1002.0, 1005.0], now=(1010.0, 500.0))
    snap = {c["seat"]: c for c in clocks.snapshot(500.0)}
    assert snap[1]["bank"] == pytest.approx(8.0) and not snap[1]["running"]  # laid after 2 s
    assert snap[0]["bank"] == pytest.approx(5.0) and not snap[0]["running"]  # laid after 5 s
    assert snap[2]["bank"] == pytest.approx(0.0) and snap[2]["running"]  # still to lay, 10 s gone
    assert 2 in after.to_move()


def test_leaving_hands_the_seat_to_a_bot_and_another_player_may_end_the_game(server: ServerThread) -> None:
    r = _create(server, [HUMAN, HUMAN, BOT], None)
    room, secret = r.json()["room"], r.json()["secret"]
    with server.client() as client:
        bob = client.post(f"/api/rooms/{room}/join", json={"name": "Bob"}).json()

    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        async with (
            seat_socket(ws_url(server, room, 0, secret)) as alice,
            seat_socket(ws_url(server, room, 1, bob["secret"])) as b,
        ):
            await _next_state(alice)
            state = await _next_state(b)
            await b.send(json.dumps({"type": "end_game", "ref": "e"}))
            refused = await _next_error(b)
            assert refused["code"] == "forbidden" and "only after a player left" in refused["message"]
            await b.send(json.dumps({"type": "leave", "ref": "bye"}))
            while state.get("ack") != "bye":
                state = await _next_state(b)
            assert state["room"]["seats"][1]["left"] and state["room"]["seats"][1]["stand_in"] == "medium"
            await b.send(json.dumps({"type": "act", "version": state["version"], "action": "lay 1"}))
            refused = await _next_error(b)
            assert refused["code"] == "forbidden" and "left the game" in refused["message"]
            await alice.send(json.dumps({"type": "end_game", "ref": "end"}))
            state = await _next_state(alice)
            while state.get("ack") != "end":
                state = await _next_state(alice)
            # Bob's socket may still hold states of the stand-in's moves before the end.
            seen = await _next_state(b)
            while seen["room"]["status"] != "over":
                seen = await _next_state(b)
            return state, seen

    ended, seen_by_bob = run_async(main())
    assert ended["room"]["status"] == "over" and ended["room"]["ended"] == "ended"
    assert ended["room"]["outcome"] is None and seen_by_bob["room"]["status"] == "over"
    with server.client() as client:
        assert client.get(f"/api/rooms/{room}").json()["ended"] == "ended"


def test_when_the_last_person_leaves_the_game_ends(db_url: str) -> None:
    server = ServerThread(db_url)
    r = _create(server, [HUMAN, BOT, BOT], None)
    room, secret = r.json()["room"], r.json()["secret"]

    async def main() -> dict[str, Any]:
        async with seat_socket(ws_url(server, room, 0, secret)) as ws:
            state = await _next_state(ws)
            await ws.send(json.dumps({"type": "leave", "ref": "bye"}))
            while state.get("ack") != "bye":
                state = await _next_state(ws)
            return state

    try:
        state = run_async(main())
    finally:
        server.stop()
    assert state["room"]["status"] == "over" and state["room"]["ended"] == "left"
    again = ServerThread(db_url)  # loaded from the store: a game ended early, not an archived record
    try:
        with again.client() as client:
            info = client.get(f"/api/rooms/{room}").json()
        assert (info["status"], info["ended"], info["archived"], info["outcome"]) == (
            "over",
            "left",
            False,
            None,
        )
    finally:
        again.stop()


def test_the_stand_in_is_derived_from_the_log_after_a_restart(tmp_path: Path) -> None:
    """A seat whose last move a stand-in played stays stood in until its player is back."""
    db = f"sqlite:///{tmp_path / 'r.db'}"
    srv = ServerThread(db)
    try:
        r = _create(srv, [HUMAN, BOT, BOT], {"move": 0.2, "stand_in": "random"})
        room = r.json()["room"]
        store = Store(db)
        try:
            deadline = time.monotonic() + 20
            while True:  # until the stand-in has played for seat 0
                row = store.load(room)
                assert row is not None
                if any(
                    seat == 0 and b == "bot:random" for (seat, _), b in zip(row.actions, row.by, strict=True)
                ):
                    break
                assert time.monotonic() < deadline, "the stand-in did not play"
                time.sleep(0.05)
        finally:
            store.close()
    finally:
        srv.stop()
    srv = ServerThread(db)
    try:
        with srv.client() as client:
            assert client.get(f"/api/rooms/{room}").json()["seats"][0]["stand_in"] == "random"
    finally:
        srv.stop()


@settings(max_examples=25, deadline=None)
@given(
    game=st.sampled_from(["scout", "schmaus"]),
    seed=st.integers(0, 2**32),
    move=st.one_of(st.none(), st.floats(0.5, 20)),
    bank=st.one_of(st.none(), st.floats(1, 60)),
    gaps=st.lists(st.floats(0, 30), min_size=1, max_size=40),
)
def test_clocks_derived_from_the_log_equal_the_clocks_kept_while_playing(
    game: str, seed: int, move: float | None, bank: float | None, gaps: list[float]
) -> None:
    """What a restarted server derives from the stored log (times, moves) is what the
    live room had kept: every bank and every running decision's start."""
    from spieltisch.engine import get_game

    clock = ClockSettings(move=move, bank=bank)
    g = get_game(game)
    state = g.new_state(3, seed, {"rounds": 2} if game == "schmaus" else {})
    rng = random.Random(seed)
    live = Clocks(clock, 3)
    started = 1000.0
    live.start(state.to_move(), started)
    now, actions, times = started, [], []
    for gap in gaps:
        if state.is_over():
            break
        seat = rng.choice(state.to_move())
        before = state.to_move()
        action = state.action_from_id(rng.choice(state.legal_action_ids(seat)))
        state.apply(seat, action)
        now += gap
        live.moved([seat], before, state.to_move() if not state.is_over() else (), now)
        actions.append((seat, action.to_text()))
        times.append(now)
    first = g.new_state(3, seed, {"rounds": 2} if game == "schmaus" else {})
    derived, after = Clocks.replay(clock, first, started, actions, times, now=(now + 5, now + 5))
    assert after.to_json() == state.to_json()
    assert derived.bank == pytest.approx(live.bank)
    assert derived.since == pytest.approx(live.since)


def test_reconnecting_takes_the_seat_back_before_the_stand_in_moves(server: ServerThread) -> None:
    # The bots wait 3 s before each move: the player is back before the stand-in plays.
    r = _create(server, [HUMAN, BOT, BOT], {"move": 1.0, "stand_in": "random"}, bot_delay=3)
    room, secret = r.json()["room"], r.json()["secret"]
    with server.client() as client:
        deadline = time.monotonic() + 20
        while "stand_in" not in client.get(f"/api/rooms/{room}").json()["seats"][0]:
            assert time.monotonic() < deadline, "no time-out"
            time.sleep(0.02)

    async def main() -> dict[str, Any]:
        async with seat_socket(ws_url(server, room, 0, secret)) as ws:
            state = await _next_state(ws)
            assert "stand_in" not in state["room"]["seats"][0]  # back by connecting
            assert state["clocks"][0]["running"] and state["clocks"][0]["move"] > 0.5  # time afresh
            action_id = state["legal"][0][0]
            await ws.send(
                json.dumps({"type": "act", "version": state["version"], "id": action_id, "ref": "a"})
            )
            while state.get("ack") != "a":
                state = await _next_state(ws)
            return state

    state = run_async(main())
    assert [e["by"] for e in state["log"] if e["seat"] == 0] == [None]  # the player's own move


def test_a_stored_stand_in_level_this_server_lacks_falls_back_to_the_default(db_url: str) -> None:
    from spieltisch.server.store import RoomRow, SeatRow

    store = Store(db_url)
    try:
        seats = [
            SeatRow(0, "human", name="A", secret_hash="h", taken=True),
            SeatRow(1, "bot", level="random"),
        ]
        row = RoomRow(
            "STALEB", "scout", 2, {}, 1, 0.0, "playing", seats, clock={"move": 30, "stand_in": "gone"}
        )
        store.create_room(row)
    finally:
        store.close()
    srv = ServerThread(db_url)
    try:
        with srv.client() as client:
            info = client.get("/api/rooms/STALEB").json()
        assert info["clock"] == {"move": 30.0, "bank": None, "grace": None, "stand_in": "medium"}
    finally:
        srv.stop()
