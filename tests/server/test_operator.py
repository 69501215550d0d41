"""The operator's page (issue #36): `lab real` on the server's own database, behind a token."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from server_harness import ServerThread

from spieltisch.engine import get_game
from spieltisch.server.operator import OPERATOR_HEADER, check_token
from spieltisch.server.store import RoomRow, SeatRow, Store

TOKEN = "operator-secret-0123456789"


def _finished_game(store: Store, code: str, seed: int) -> None:
    state = get_game("schmaus").new_state(3, seed, {})
    rng = random.Random(seed)
    actions = []
    while not state.is_over():
        seat = state.to_move()[0]
        action = state.action_from_id(rng.choice(state.legal_action_ids(seat)))
        actions.append((seat, str(action)))
        state.apply(seat, action)
    seats = [SeatRow(i, "human", name=f"Person {i}", secret_hash="h", taken=True) for i in range(3)]
    store.create_room(RoomRow(code, "schmaus", 3, {}, seed, 0.0, "over", seats))
    store.append_actions(code, 0, actions)


def test_the_operator_sees_how_people_play(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'op.db'}"
    store = Store(url)
    for i in range(3):
        _finished_game(store, f"DONE{i:02d}", 10 + i)
    store.close()
    server = ServerThread(url, operator_token=TOKEN)
    try:
        with server.client() as c:
            page = c.get("/operator")
            assert page.status_code == 200 and "Spieltisch-Operator" in page.text
            assert c.post("/api/operator/real", json={"games": 3}).status_code == 403
            wrong = c.post("/api/operator/real", json={"games": 3}, headers={OPERATOR_HEADER: "x" * 20})
            assert wrong.status_code == 403
            r = c.post(
                "/api/operator/real",
                json={"games": 3, "lang": "de"},
                headers={OPERATOR_HEADER: TOKEN},
                timeout=300,
            )
            assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
            assert "Wie Menschen wirklich spielen" in r.text and "Waschbär-Schmaus, 3 players" in r.text
            assert "Person 0" not in r.text and "DONE00" not in r.text
            bad = c.post(
                "/api/operator/real", json={"games": 3, "bots": "nobody"}, headers={OPERATOR_HEADER: TOKEN}
            )
            assert bad.status_code == 422 and "nobody" in bad.json()["detail"]
    finally:
        server.stop()


def test_the_operator_page_is_off_without_a_token(server: ServerThread) -> None:
    with server.client() as c:
        assert c.get("/operator").status_code == 404
        r = c.post("/api/operator/real", json={}, headers={OPERATOR_HEADER: TOKEN})
        assert r.status_code == 404 and "SPIELTISCH_OPERATOR_TOKEN" in r.json()["detail"]
    with pytest.raises(ValueError, match="at least 16 characters"):
        check_token("short")
