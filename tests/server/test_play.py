"""Whole games over the WebSocket protocol: people and bots, no leaks, replay, rematch."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from server_harness import Player, ServerThread, open_room, play, schmaus_sealed, seat_headers, ws_url

from spieltisch.engine import GameRecord, get_game

HUMAN = {"kind": "human"}
BOT = {"kind": "bot", "level": "random"}
NEURAL = {"kind": "bot", "level": "neural"}  # the trained level (numpy) at the table


def _keys(data: Any) -> set[str]:
    if isinstance(data, dict):
        out = set(data)
        for v in data.values():
            out |= _keys(v)
        return out
    if isinstance(data, list):
        out = set()
        for v in data:
            out |= _keys(v)
        return out
    return set()


def _states_by_version(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The full state (hidden parts included) after each number of actions."""
    rec = GameRecord.from_json(record)
    state = get_game(rec.game).new_state(rec.players, rec.seed, rec.options)
    states = [state.to_json()]
    for seat, text in rec.actions:
        state.apply(seat, text)
        states.append(state.to_json())
    return states


def assert_no_leak(
    game: str, seat: int | None, msg: dict[str, Any], states: list[dict[str, Any]], actions: list[Any]
) -> None:
    """Nothing in a state message to ``seat`` reveals another seat's hand or the deck order."""
    if msg["room"]["status"] == "over":
        return
    full = states[msg["version"]]
    view = msg["view"]
    text = json.dumps(msg)
    assert "seed" not in _keys(msg)
    assert msg["view"]["seat"] == seat
    if game == "scout":
        for other, hand in enumerate(view["hands"]):
            if other == seat:
                assert hand == full["hands"][other]
                continue
            for i, card in enumerate(hand):
                if full["known"][other][i]:  # scouted openly: public (S-11)
                    assert card == full["hands"][other][i]
                else:
                    assert card is None
        for entry in msg["log"]:
            if entry["seat"] != seat and entry["text"] in ("flip", "keep"):
                raise AssertionError(f"another seat's flip decision leaked (S-5): {entry}")
            # The cards a log entry names were public: the set it showed lies on the table
            # (S-7), the card it scouted came off the table's end (S-8).
            before, after = states[entry["n"] - 1], states[entry["n"]]
            if "cards" in entry and "scout" not in entry["text"] and after["round"] == before["round"]:
                assert entry["cards"] == after["table"], entry
            if "card" in entry:
                ends = {before["table"][0], before["table"][-1]}
                assert entry["card"] in ends | {"/".join(c.split("/")[::-1]) for c in ends}, entry
    else:
        assert view["hands"] is None
        assert "draw_pile" not in _keys(msg)
        if seat is not None:
            assert sorted(view["hand"]) == sorted(full["hands"][seat])
        pile = full["draw_pile"]
        if len(pile) >= 6:
            assert json.dumps(pile[:6])[1:-1] not in text
        for entry in msg["log"]:
            if entry["seat"] != seat:
                true_text = actions[entry["n"] - 1][1]
                if schmaus_sealed(states, entry["n"], true_text, msg["version"]):
                    assert entry["hidden"] and entry["text"].endswith(" ?"), entry
                else:  # revealed once all of its kind are in: named as played
                    assert not entry["hidden"] and entry["text"] == true_text, entry
        if full["phase"] == "play":  # sealed lays stay sealed (W-4)
            for other, laid in enumerate(full["plays"]):
                if other != seat and laid is not None:
                    assert view["my_play"] is None or seat is not None


@pytest.mark.parametrize(
    ("game", "seats", "seed"),
    [
        ("scout", [HUMAN, HUMAN, NEURAL], 11),
        ("schmaus", [HUMAN, BOT, HUMAN], 12),
    ],
)
def test_whole_game_over_websockets_without_leaks(
    server: ServerThread, game: str, seats: list[dict[str, Any]], seed: int
) -> None:
    with server.client() as client:
        room, secrets = open_room(
            client, game, seats, seed, options={"rounds": 2} if game == "schmaus" else {}
        )
        assert client.get(f"/api/rooms/{room}").json()["status"] == "playing"
        players = [Player(ws_url(server, room, s, secrets[s]), s, random.Random(s)) for s in sorted(secrets)]
        spectator = Player(ws_url(server, room), None, random.Random(0))
        play([*players, spectator])

        info = client.get(f"/api/rooms/{room}").json()
        assert info["status"] == "over"
        assert info["outcome"] is not None and len(info["outcome"]["scores"]) == len(seats)
        replay = client.get(f"/api/rooms/{room}/replay", headers=seat_headers(0, secrets[0])).json()

    record = replay["record"]
    assert len(record["actions"]) == info["version"]
    states = _states_by_version(record)
    for p in [*players, spectator]:
        assert p.last is not None and p.last["room"]["status"] == "over"
        assert p.last["version"] == info["version"]
        for msg in p.messages:
            if msg["type"] == "state":
                assert_no_leak(game, p.seat, msg, states, record["actions"])
        assert all(e["code"] in ("stale", "rate_limited") for e in p.errors), p.errors
    # Both humans and bots acted through the same path.
    acted = {seat for seat, _ in record["actions"]}
    assert acted == set(range(len(seats)))
    # The replay: one frame per action plus the deal, the seat's views, the final position revealed.
    frames = replay["frames"]
    assert len(frames) == len(record["actions"]) + 1
    assert frames[-1]["view"]["outcome"] == info["outcome"]
    assert all(f["view"]["seat"] == 0 for f in frames)
    assert frames[0]["hands"] == states[0]["hands"]
    # Each frame is the position at its moment: round results appear one by one
    # (frame 0 has none), and the sealed plays of Waschbär-Schmaus are there.
    rounds = [len(f["view"]["round_results"]) for f in frames]
    assert rounds[0] == 0 and rounds == sorted(rounds)
    assert rounds[-1] >= 2 and len(set(rounds)) >= 3
    if game == "schmaus":
        assert frames[1]["plays"][frames[1]["seat"]] is not None


def test_replay_only_after_the_game(server: ServerThread) -> None:
    with server.client() as client:
        room, _secrets = open_room(client, "scout", [HUMAN, BOT], 3)
        r = client.get(f"/api/rooms/{room}/replay")
        assert r.status_code == 409
        assert "not over" in r.json()["detail"]
        r = client.get(f"/api/rooms/{room}/replay", headers=seat_headers(0, "forged"))
        assert r.status_code == 403


def test_rematch_keeps_seats_with_new_secrets(server: ServerThread) -> None:
    with server.client() as client:
        room, secrets = open_room(client, "schmaus", [HUMAN, HUMAN, BOT], 5, options={"rounds": 1})
        r = client.post(f"/api/rooms/{room}/rematch", json={"seat": 0, "secret": secrets[0]})
        assert r.status_code == 409  # not over yet
        players = [Player(ws_url(server, room, s, secrets[s]), s, random.Random(s)) for s in secrets]
        play(players)

        r = client.post(f"/api/rooms/{room}/rematch", json={"seat": 1, "secret": "forged"})
        assert r.status_code == 403
        new = client.post(f"/api/rooms/{room}/rematch", json={"seat": 1, "secret": secrets[1]}).json()["room"]
        again = client.post(f"/api/rooms/{room}/rematch", json={"seat": 0, "secret": secrets[0]}).json()[
            "room"
        ]
        assert again == new != room
        info = client.get(f"/api/rooms/{new}").json()
        old = client.get(f"/api/rooms/{room}").json()
        assert old["rematch"] == new and info["rematch_of"] == room
        assert info["status"] == "playing" and info["version"] <= 1  # the bot may have laid already
        assert [s["kind"] for s in info["seats"]] == ["human", "human", "bot"]
        assert [s["name"] for s in info["seats"][:2]] == ["Alice", "P1"]
        assert info["options"]["rounds"] == 1

        bad = client.post(f"/api/rooms/{new}/claim", json={"from": room, "seat": 0, "secret": secrets[1]})
        assert bad.status_code == 403
        claims = {}
        for seat in (0, 1):
            c1 = client.post(
                f"/api/rooms/{new}/claim", json={"from": room, "seat": seat, "secret": secrets[seat]}
            )
            c2 = client.post(
                f"/api/rooms/{new}/claim", json={"from": room, "seat": seat, "secret": secrets[seat]}
            )
            assert c1.status_code == 200 and c1.json() == c2.json()
            claims[seat] = c1.json()["secret"]
            assert claims[seat] != secrets[seat]
        # The old secret does not open the new room; the claimed one plays it to the end.
        players = [Player(ws_url(server, new, s, claims[s]), s, random.Random(s + 7)) for s in claims]
        play(players)
        assert client.get(f"/api/rooms/{new}").json()["status"] == "over"
