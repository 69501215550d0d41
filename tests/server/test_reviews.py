"""Reviews and hints at the web table (docs/review.md): a finished game's review
is computed in worker processes, stored with the game and served again from
the store; hints obey the room option and see only the asking seat's view."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from server_harness import Player, ServerThread, connect_seat, open_room, play, ws_url

from spieltisch.analysis.hints import TEXTS, hint
from spieltisch.analysis.review import ReviewBudget, review
from spieltisch.engine import get_game
from spieltisch.engine.scout import ScoutState
from spieltisch.engine.scout.cards import parse_card
from spieltisch.server.botpool import BotPool
from spieltisch.server.messages import ReviewOut, server_message
from spieltisch.server.store import ReviewRow, Store

T = TypeVar("T")

SCHMAUS = [{"kind": "human"}, {"kind": "bot", "level": "random"}]
OPTIONS = {"rounds": 3}


def finished_room(srv: ServerThread, seed: int) -> str:
    with srv.client() as client:
        code, secrets = open_room(client, "schmaus", SCHMAUS, seed, options=OPTIONS)
    play([Player(ws_url(srv, code, 0, secrets[0]), 0, random.Random(seed))])
    return code


def wait_done(srv: ServerThread, code: str, timeout: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    with srv.client() as client:
        while True:
            r = client.get(f"/api/rooms/{code}/review")
            assert r.status_code == 200, r.text
            data: dict[str, Any] = r.json()
            ReviewOut.model_validate(data)
            if data["status"] == "done":
                return data
            assert data["status"] == "running", data
            if data["total"] is not None:
                assert 0 <= data["done"] <= data["total"]
            assert time.monotonic() < deadline, f"the review did not finish within {timeout} s: {data}"
            time.sleep(0.1)


BUDGET = str(ReviewBudget.parse("3"))
"""The key of the server's reviews: 3 worlds, up to 21 more where a mark is uncertain."""


def test_a_review_is_stored_and_served_again_without_computing(db_url: str) -> None:
    srv = ServerThread(db_url, review_budget="3")
    assert BUDGET == "3x1+21"
    try:
        with srv.client() as client:
            code, _ = open_room(client, "schmaus", SCHMAUS, 11, options=OPTIONS)
            r = client.post(f"/api/rooms/{code}/review")
            assert r.status_code == 409 and "not over" in r.json()["detail"]
        code = finished_room(srv, 11)
        # A review stored by an older version (budget "3x1": no extra worlds) is not
        # this budget's: it is left alone and the review is computed anew.
        old = {"budget": "3x1", "decisions": [], "summary": []}
        srv.app.state.reviewer.store.save_review(ReviewRow(code, 0, "3x1", old, 1.0))
        with srv.client() as client:
            assert client.get(f"/api/rooms/{code}/review").json()["status"] == "none"
            first = client.post(f"/api/rooms/{code}/review").json()
            assert first["status"] in ("running", "done") and first["budget"] == BUDGET
        done = wait_done(srv, code)
        rated = srv.app.state.reviewer.rated
        assert rated == done["total"] > 0
        reviews = done["reviews"]
        assert [r["seat"] for r in reviews] == [0, 1]  # every seat, the bot's too
        for r in reviews:
            assert r["summary"][0]["seat"] == r["seat"]
            for d in r["decisions"]:
                assert d["seat"] == r["seat"] and d["played"]
                if d["rated"]:
                    assert d["best"] and d["played_estimate"] is not None and d["best_estimate"] is not None
                    assert d["difference"] == pytest.approx(
                        d["played_estimate"] - d["best_estimate"], abs=0.01
                    )
                    assert d["mark"] in (None, "mistake", "blunder")
                    assert 1 <= d["worlds"] <= 24  # 3, and up to 21 more where the mark was uncertain
        # Asked again (by anybody: the game is over): the stored rows, at once, nothing recomputed.
        with srv.client() as client:
            again = client.post(f"/api/rooms/{code}/review").json()
        assert again["status"] == "done"
        assert [r["created"] for r in again["reviews"]] == [r["created"] for r in reviews]
        assert again["reviews"] == reviews
        assert srv.app.state.reviewer.rated == rated
        record = srv.app.state.directory.rooms[code].state.record()
    finally:
        srv.stop()
    # Stored with the game: a new server on the same database serves them too.
    store = Store(db_url)
    try:
        rows = store.load_reviews(code, BUDGET)
        assert [(r.seat, r.created) for r in rows] == [(r["seat"], r["created"]) for r in reviews]
        assert [r.result for r in store.load_reviews(code, "3x1")] == [old]
    finally:
        store.close()
    # Reproducible: the same record and budget give the same review, here in one process.
    start = get_game("schmaus").new_state(record.players, record.seed, record.options)
    for r in reviews:
        alone = review(start, record.actions, record.seed, [r["seat"]], ReviewBudget(3, 1)).to_json()
        assert alone == {k: v for k, v in r.items() if k not in ("seat", "created")}


def hint_answer(srv: ServerThread, code: str, seat: int, secret: str) -> dict[str, Any]:
    with connect_seat(ws_url(srv, code, seat, secret)) as ws:
        state = json.loads(ws.recv(timeout=10))
        assert state["type"] == "state"
        ws.send(json.dumps({"type": "hint", "ref": "h1"}))
        while True:
            msg = json.loads(ws.recv(timeout=30))
            if msg["type"] != "state":
                server_message.validate_python(msg)
                msg["_legal"] = [a for a, _ in state["legal"]]
                msg["_version"] = state["version"]
                return msg


def test_hints_obey_the_room_option(server: ServerThread) -> None:
    with server.client() as client:
        off, off_secrets = open_room(client, "scout", [{"kind": "human"}] * 2, 4)
        on, on_secrets = open_room(client, "scout", [{"kind": "human"}] * 2, 4, hints=True)
        assert client.get(f"/api/rooms/{off}").json()["hints"] is False
        assert client.get(f"/api/rooms/{on}").json()["hints"] is True  # everybody sees it is on
    refused = hint_answer(server, off, 0, off_secrets[0])
    assert refused["type"] == "error" and refused["code"] == "hints_off" and refused["ref"] == "h1"
    assert "does not allow hints" in refused["message"]
    answer = hint_answer(server, on, 0, on_secrets[0])
    assert answer["type"] == "hint" and answer["ref"] == "h1"
    assert answer["id"] in answer["_legal"] and answer["version"] == answer["_version"]
    assert answer["reason"] in TEXTS and answer["text"]
    again = hint_answer(server, on, 0, on_secrets[0])  # the same decision: the same hint
    assert {k: again[k] for k in ("id", "reason", "params")} == {
        k: answer[k] for k in ("id", "reason", "params")
    }
    # A spectator has no decision to be helped with.
    with connect_seat(ws_url(server, on)) as ws:
        json.loads(ws.recv(timeout=10))
        ws.send(json.dumps({"type": "hint"}))
        msg = json.loads(ws.recv(timeout=10))
    assert msg["type"] == "error" and msg["code"] == "forbidden"


def test_a_hint_sees_only_the_asking_seats_view() -> None:
    # Two deals that differ only in what seat 0 cannot see: the other hand's cards.
    mine = [parse_card(c) for c in ["3/4", "5/6", "5/7", "6/8", "9/2"]]
    other_a = [parse_card(c) for c in ["1/2", "2/3", "7/8", "8/9", "10/1"]]
    other_b = [parse_card(c) for c in ["1/5", "4/9", "3/10", "7/9", "1/10"]]
    table = [parse_card("2/5")]
    answers = []
    for other in (other_a, other_b):
        state = ScoutState.from_position(2, [mine, other], table, owner=1, to_move=0, phase="play")
        view = state.view(0)
        answers.append((json.dumps(view, sort_keys=True), hint("scout", view, state.legal_action_ids(0), 9)))
    (view_a, hint_a), (view_b, hint_b) = answers
    assert view_a == view_b  # the premise: seat 0 sees the same
    assert hint_a == hint_b
    # The bot beats the single 2 (S-7) with a card of its own, and the sentence says so.
    assert hint_a.reason == "show.beat" and hint_a.params["count"] == 1
    assert hint_a.text.startswith(f"Show {hint_a.params['cards']}: it beats the table")


class RecordingPool(BotPool):
    """Runs a worker function in the test's process and keeps what it was given."""

    def __init__(self) -> None:
        super().__init__(1)
        self.calls: list[tuple[Any, ...]] = []

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        self.calls.append(args)
        return fn(*args)


def test_the_server_hands_the_hint_only_the_asking_seats_view(db_url: str) -> None:
    pool = RecordingPool()
    srv = ServerThread(db_url, bot_pool=pool)
    try:
        with srv.client() as client:
            code, secrets = open_room(client, "scout", [{"kind": "human"}] * 3, 8, hints=True)
        answer = hint_answer(srv, code, 2, secrets[2])
        assert answer["type"] == "hint"
        state = srv.app.state.directory.rooms[code].state
        ((game, view, legal, _seed),) = pool.calls
        assert (game, legal) == ("scout", state.legal_action_ids(2))
        assert json.dumps(view, sort_keys=True) == json.dumps(state.view(2), sort_keys=True)
        # The other seats' cards are hidden in it: only their number is known.
        assert all(card is None for s in (0, 1) for card in view["hands"][s])
    finally:
        srv.stop()
