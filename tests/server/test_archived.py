"""A stored game that no longer replays under the engine (a rules change,
simulated by editing its stored rows) is an archived record: shown with its
stored log and a clear reason, never played on, and never a 500 - over HTTP,
the WebSocket and ``spieltisch review`` (docs/storage.md, "Rules versions")."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from server_harness import Player, ServerThread, open_room, play, run_async, seat_headers, seat_socket, ws_url

from spieltisch.engine import GameRecord, get_game
from spieltisch.server.store import Store

ROOT = Path(__file__).resolve().parents[2]
HUMAN = {"kind": "human"}
BOT = {"kind": "bot", "level": "random"}


def _edit(db_url: str, *statements: str) -> None:
    engine = sa.create_engine(db_url)
    with engine.begin() as conn:
        for statement in statements:
            conn.execute(sa.text(statement))
    engine.dispose()


def _illegal_at(db_url: str, room: str, number: int) -> str:
    """Make stored action ``number`` (1-based) illegal, as a rules change would, and
    say the stored game was played under rules version 0; returns the new text."""
    store = Store(db_url)
    row = store.load(room)
    store.close()
    assert row is not None
    state = GameRecord(row.game, row.players, row.seed, row.options, row.actions[: number - 1]).replay()
    seat = row.actions[number - 1][0]
    legal = {state.action_from_id(a).to_text() for a in state.legal_action_ids(seat)}
    game = get_game(row.game)
    text = next(
        t
        for a in range(game.num_actions(row.players))
        if (t := game.action_from_id(a).to_text()) not in legal
    )
    _edit(
        db_url,
        f"UPDATE actions SET text = '{text}' WHERE room = '{room}' AND idx = {number - 1}",
        f"UPDATE rooms SET rules_version = '0' WHERE code = '{room}'",
    )
    return text


def _finished_game(srv: ServerThread, client: httpx.Client) -> tuple[str, dict[int, str], int]:
    room, secrets = open_room(client, "scout", [HUMAN, BOT, BOT], 5)
    play([Player(ws_url(srv, room, 0, secrets[0]), 0, random.Random(3))])
    info = client.get(f"/api/rooms/{room}").json()
    assert info["status"] == "over"
    return room, secrets, info["version"]


def _no_500(client: httpx.Client, room: str, secrets: dict[int, str]) -> dict[str, int]:
    """Every HTTP endpoint of the room answers JSON, none with a server error."""
    answers = {
        "info": client.get(f"/api/rooms/{room}"),
        "replay": client.get(f"/api/rooms/{room}/replay", headers=seat_headers(0, secrets[0])),
        "spectator replay": client.get(f"/api/rooms/{room}/replay"),
        "join": client.post(f"/api/rooms/{room}/join", json={"name": "Zoe"}),
        "page": client.get(f"/r/{room}"),
    }
    for what, r in answers.items():
        assert r.status_code < 500, (what, r.status_code, r.text)
        if what != "page":
            assert isinstance(r.json(), dict), what
    return {what: r.status_code for what, r in answers.items()}


async def _socket(url: Any, act: dict[str, Any] | None) -> list[dict[str, Any]]:
    got: list[dict[str, Any]] = []
    async with seat_socket(url) as ws:
        got.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
        if act is not None:
            await ws.send(json.dumps(act))
            got.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
            await ws.send(json.dumps({"type": "ping"}))  # the socket stays open
            got.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
    return got


def test_a_finished_game_that_no_longer_replays_is_an_archived_record(db_url: str) -> None:
    srv = ServerThread(db_url)
    try:
        with srv.client() as client:
            room, secrets, total = _finished_game(srv, client)
            stored = client.get(f"/api/rooms/{room}/replay", headers=seat_headers(0, secrets[0])).json()
    finally:
        srv.stop()
    broken = 7
    text = _illegal_at(db_url, room, broken)
    srv = ServerThread(db_url)
    try:
        with srv.client() as client:
            info = client.get(f"/api/rooms/{room}").json()
            assert info["archived"] is True and info["status"] == "over" and info["rules_version"] == "0"
            reason = info["archived_reason"]
            assert f"action {broken} (" in reason and repr(text) in reason
            assert "played under rules version 0; this engine plays version 1" in reason
            replay = client.get(f"/api/rooms/{room}/replay", headers=seat_headers(0, secrets[0]))
            assert replay.status_code == 200
            body = replay.json()
            assert body["archived"] is True and body["archived_reason"] == reason
            assert body["rules_version"] == "0" and body["record"]["rules_version"] == "0"
            expected = [list(a) for a in stored["record"]["actions"]]
            expected[broken - 1][1] = text
            assert body["record"]["actions"] == expected  # the stored log, whole
            assert len(body["frames"]) == broken  # the deal and the actions before the broken one
            assert body["frames"] == stored["frames"][:broken]
            codes = _no_500(client, room, secrets)
            assert (
                codes["join"] == 409
                and "archived record" in client.post(f"/api/rooms/{room}/join", json={}).json()["detail"]
            )

            seat_msgs = run_async(
                _socket(ws_url(srv, room, 0, secrets[0]), {"type": "act", "version": total, "action": "flip"})
            )
            state, error, pong = seat_msgs
            assert state["type"] == "state" and state["room"]["archived"] is True and state["legal"] == []
            assert [e["text"] for e in state["log"]] == [t for _, t in expected]  # the stored log as text
            assert error["type"] == "error" and error["code"] == "archived" and reason in error["message"]
            assert pong == {"type": "pong"}
            (watch,) = run_async(_socket(ws_url(srv, room), None))
            assert watch["room"]["archived_reason"] == reason and watch["legal"] == []
            # A rematch is a new game under today's rules.
            rematch = client.post(f"/api/rooms/{room}/rematch", json={"seat": 0, "secret": secrets[0]})
            assert rematch.status_code == 200, rematch.text
            new = client.get(f"/api/rooms/{rematch.json()['room']}").json()
            assert new["rules_version"] == "1" and new["archived"] is False and new["status"] == "playing"
    finally:
        srv.stop()


def test_an_unfinished_game_that_no_longer_replays_is_archived_and_its_bots_stay_still(db_url: str) -> None:
    srv = ServerThread(db_url)
    try:
        with srv.client() as client:
            room, secrets = open_room(client, "schmaus", [HUMAN, BOT, BOT], 9, options={"rounds": 6})
            play([Player(ws_url(srv, room, 0, secrets[0]), 0, random.Random(1), stop_at=8)])
    finally:
        srv.stop()
    store = Store(db_url)
    version = store.count_actions(room)  # the bots may have moved on after the person stopped
    store.close()
    _illegal_at(db_url, room, 4)
    srv = ServerThread(db_url)  # resumes every unfinished game: this one is archived instead
    try:
        with srv.client() as client:
            info = client.get(f"/api/rooms/{room}").json()
            assert (
                info["archived"] is True
                and info["status"] == "playing"
                and "action 4 (" in info["archived_reason"]
            )
            codes = _no_500(client, room, secrets)
            assert codes["replay"] == 409 and codes["spectator replay"] == 409
            detail = client.get(f"/api/rooms/{room}/replay").json()["detail"]
            assert "archived record of a game that was not finished" in detail
            state, error, _pong = run_async(
                _socket(ws_url(srv, room, 0, secrets[0]), {"type": "act", "version": version, "id": 0})
            )
            assert state["legal"] == [] and state["room"]["archived"] is True
            assert len(state["log"]) == version
            assert error["code"] == "archived"
            assert client.get(f"/api/rooms/{room}").json()["version"] == version  # no bot moved
    finally:
        srv.stop()


def test_a_stored_end_the_rules_no_longer_reach_is_archived(db_url: str) -> None:
    srv = ServerThread(db_url)
    try:
        with srv.client() as client:
            room, secrets, total = _finished_game(srv, client)
    finally:
        srv.stop()
    _edit(db_url, f"DELETE FROM actions WHERE room = '{room}' AND idx = {total - 1}")
    srv = ServerThread(db_url)
    try:
        with srv.client() as client:
            info = client.get(f"/api/rooms/{room}").json()
            assert info["archived"] is True
            assert info["archived_reason"] == (
                f"the stored game ended after {total - 1} actions, "
                "but under this engine it does not end there"
            )
            _no_500(client, room, secrets)
    finally:
        srv.stop()


def test_a_room_the_engine_cannot_open_at_all_is_a_clear_refusal(db_url: str) -> None:
    srv = ServerThread(db_url)
    try:
        with srv.client() as client:
            room, secrets, _total = _finished_game(srv, client)
    finally:
        srv.stop()
    _edit(db_url, f"UPDATE rooms SET game = 'chess' WHERE code = '{room}'")
    srv = ServerThread(db_url)
    try:
        with srv.client() as client:
            codes = _no_500(client, room, secrets)
            assert codes["info"] == 409
            assert (
                "archived record this engine cannot open" in client.get(f"/api/rooms/{room}").json()["detail"]
            )
            (refusal,) = run_async(_socket(ws_url(srv, room), None))
            assert refusal["type"] == "error" and refusal["code"] == "archived"
    finally:
        srv.stop()


@pytest.mark.parametrize("wrapped", [False, True])
def test_review_refuses_an_archived_record_clearly(tmp_path: Path, wrapped: bool) -> None:
    state = get_game("scout").new_state(3, 4)
    rng = random.Random(4)
    for _ in range(6):
        seat = state.to_move()[0]
        state.apply(seat, state.action_from_id(rng.choice(state.legal_action_ids(seat))).to_text())
    record = state.record().to_json()
    assert record["rules_version"] == "1"
    record["rules_version"] = "0"
    record["actions"][3][1] = "show 9 9 9 9 9 9 9"
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"record": record, "archived": True} if wrapped else record))
    out = subprocess.run(
        [sys.executable, "-m", "spieltisch.cli", "review", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        check=False,
    )
    assert out.returncode == 2
    assert "is an archived record that no longer replays under this engine: action 4 (" in out.stderr
    assert "played under rules version 0; this engine plays version 1" in out.stderr
