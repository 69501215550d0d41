"""Accounts, sessions, block lists and ratings at the web table (docs/accounts.md, issue #36)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from server_harness import TEST_LIMITS, Player, ServerThread, play, run_async, seat_socket, ws_url
from sqlalchemy import func, select, text

from spieltisch.server.accounts import DELETED_NAME
from spieltisch.server.ratings import BOT_RATINGS, PROVISIONAL_GAMES, PROVISIONAL_SIGMA, ordinal
from spieltisch.server.store import Store

PASSWORD = "correct horse battery"
POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


@pytest.fixture
def srv(db_url: str) -> Iterator[ServerThread]:
    s = ServerThread(db_url, limits=dataclasses.replace(TEST_LIMITS, accounts_per_hour=0))
    yield s
    s.stop()


def signup(srv: ServerThread, name: str, password: str = PASSWORD) -> httpx.Client:
    client = srv.client()
    r = client.post("/api/account/signup", json={"name": name, "password": password})
    assert r.status_code == 201, r.text
    return client


def me(client: httpx.Client) -> dict[str, Any]:
    r = client.get("/api/account")
    assert r.status_code == 200
    return dict(r.json())


def store_of(srv: ServerThread) -> Store:
    return srv.app.state.store  # type: ignore[no-any-return]


def test_sign_up_log_in_elsewhere_and_log_out_everywhere(srv: ServerThread) -> None:
    first = signup(srv, "Ada")
    assert me(first) == {"signed_in": True, "name": "Ada", "password": True, "passkeys": 0}
    second = srv.client()
    assert me(second)["signed_in"] is False
    assert (
        second.post("/api/account/login", json={"name": "ada", "password": "wrong password"}).status_code
        == 401
    )
    assert second.post("/api/account/login", json={"name": "Nobody", "password": PASSWORD}).status_code == 401
    r = second.post("/api/account/login", json={"name": "ADA", "password": PASSWORD})  # names fold
    assert r.status_code == 200 and r.json()["name"] == "Ada"
    assert me(second)["name"] == "Ada"
    # The stored session is a hash, never the cookie's token.
    token = second.cookies["spieltisch_session"]
    with store_of(srv).engine.connect() as conn:
        stored = list(conn.execute(select(store_of(srv).accounts.sessions.c.token_hash)).scalars())
    assert len(stored) == 2 and token not in stored
    # Logging out ends this browser's session only ...
    third = srv.client()
    third.post("/api/account/login", json={"name": "Ada", "password": PASSWORD})
    keep = third.cookies["spieltisch_session"]
    assert third.post("/api/account/logout").status_code == 204
    third.cookies.set("spieltisch_session", keep)  # a copied cookie does not come back to life
    assert me(third)["signed_in"] is False
    assert me(first)["signed_in"] and me(second)["signed_in"]
    # ... logging out everywhere ends all of them.
    assert first.post("/api/account/logout-everywhere").status_code == 204
    assert me(first)["signed_in"] is False
    assert me(second)["signed_in"] is False
    assert second.post("/api/account/logout-everywhere").status_code == 401


def test_cookie_flags(srv: ServerThread) -> None:
    with srv.client() as client:
        r = client.post("/api/account/signup", json={"name": "Grace", "password": PASSWORD})
        cookie = r.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=lax" in cookie and "path=/" in cookie
        assert "secure" not in cookie  # plain http (tests): a Secure cookie would never come back
    with srv.client() as client:  # behind the trusted proxy that speaks https to the browser
        r = client.post(
            "/api/account/login",
            json={"name": "Grace", "password": PASSWORD},
            headers={"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.9"},
        )
        assert r.status_code == 200
        cookie = r.headers["set-cookie"].lower()
        assert "; secure" in cookie and "httponly" in cookie and "samesite=lax" in cookie


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("easy", "reserved"),
        ("Medium", "reserved"),
        ("ＨＡＲＤ", "reserved"),  # full-width: NFKC
        ("random", "reserved"),
        ("Bot Anna", "bot"),
        ("anna_bot", "bot"),
        ("bot7", "bot"),
        ("Аnna", "one script"),  # a Cyrillic А among Latin letters
        ("x", "3 to 24"),
        ("a" * 25, "3 to 24"),
        ("Ann<script>", "only letters"),
        ("Ann  Lee", "separators"),
    ],
)
def test_names_refused(srv: ServerThread, name: str, why: str) -> None:
    with srv.client() as client:
        r = client.post("/api/account/signup", json={"name": name, "password": PASSWORD})
    assert r.status_code == 422, r.text
    assert why in r.json()["detail"]


def test_look_alike_names_are_one_name(srv: ServerThread) -> None:
    signup(srv, "Anna")
    for twin in ("anna", "ＡＮＮＡ", "An-na", "a.n.n.a"):
        with srv.client() as client:
            r = client.post("/api/account/signup", json={"name": twin, "password": PASSWORD})
        assert r.status_code == 409, (twin, r.text)
    with srv.client() as client:  # wholly Cyrillic look-alikes of "Caxa" fold to it too
        assert (
            client.post("/api/account/signup", json={"name": "Caxa", "password": PASSWORD}).status_code == 201
        )
        r = client.post(
            "/api/account/signup", json={"name": "\u0421\u0430\u0445\u0430", "password": PASSWORD}
        )
        assert r.status_code == 409, r.text
    with srv.client() as client:
        r = client.post("/api/account/signup", json={"name": "Jürgen", "password": "short"})
        assert r.status_code == 422 and "password" in r.json()["detail"]


def test_account_creation_rate_limit(db_url: str) -> None:
    s = ServerThread(db_url, limits=dataclasses.replace(TEST_LIMITS, accounts_per_hour=2))
    try:
        with s.client() as client:
            here = {"X-Forwarded-For": "198.51.100.7"}
            for name in ("First", "Second"):
                assert (
                    client.post(
                        "/api/account/signup", json={"name": name, "password": PASSWORD}, headers=here
                    ).status_code
                    == 201
                )
            r = client.post("/api/account/signup", json={"name": "Third", "password": PASSWORD}, headers=here)
            assert r.status_code == 429
            assert r.json()["detail"].startswith("accounts_per_hour: at most 2 new accounts per hour")
            assert 3500 <= int(r.headers["Retry-After"]) <= 3600
            elsewhere = {"X-Forwarded-For": "198.51.100.8"}  # another address has its own count
            assert (
                client.post(
                    "/api/account/signup", json={"name": "Third", "password": PASSWORD}, headers=elsewhere
                ).status_code
                == 201
            )
            # A refused name is not counted.
            assert (
                client.post(
                    "/api/account/signup", json={"name": "easy", "password": PASSWORD}, headers=elsewhere
                ).status_code
                == 422
            )
            assert (
                client.post(
                    "/api/account/signup", json={"name": "Fourth", "password": PASSWORD}, headers=elsewhere
                ).status_code
                == 201
            )
    finally:
        s.stop()


# -- rated rooms --------------------------------------------------------------------------


def rated_room(
    creator: httpx.Client, others: list[httpx.Client], seats: list[dict[str, Any]], seed: int = 5
) -> tuple[str, dict[int, str]]:
    """A rated Scout room: ``creator`` opens it, ``others`` take the other human seats."""
    body = {
        "game": "scout",
        "players": len(seats),
        "seats": seats,
        "seed": seed,
        "bot_delay": 0,
        "rated": True,
    }
    r = creator.post("/api/rooms", json=body)
    assert r.status_code == 200, r.text
    code = r.json()["room"]
    secrets = {r.json()["seat"]: r.json()["secret"]}
    humans = [i for i, s in enumerate(seats) if s["kind"] == "human" and i not in secrets]
    for client, seat in zip(others, humans, strict=True):
        j = client.post(f"/api/rooms/{code}/join", json={"seat": seat, "name": "ignored"})
        assert j.status_code == 200, j.text
        secrets[seat] = j.json()["secret"]
    return code, secrets


def play_out(srv: ServerThread, code: str, secrets: dict[int, str], seed: int = 1) -> None:
    rng = random.Random(seed)
    play([Player(ws_url(srv, code, s, secret), s, rng) for s, secret in secrets.items()])


def test_rated_room_rules(srv: ServerThread) -> None:
    anon = srv.client()
    body = {
        "game": "scout",
        "players": 3,
        "rated": True,
        "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "easy"}],
    }
    r = anon.post("/api/rooms", json=body)
    assert r.status_code == 403 and "signed-in" in r.json()["detail"]
    ada = signup(srv, "Ada")
    remote = {**body, "seats": [{"kind": "human"}, {"kind": "remote"}, {"kind": "bot", "level": "easy"}]}
    assert ada.post("/api/rooms", json=remote).status_code == 422
    r = ada.post("/api/rooms", json=body)
    assert r.status_code == 200
    code = r.json()["room"]
    info = ada.get(f"/api/rooms/{code}").json()
    assert info["rated"] is True and info["seats"][0]["name"] == "Ada" and info["seats"][0]["signed_in"]
    j = anon.post(f"/api/rooms/{code}/join", json={"name": "Guest"})
    assert j.status_code == 403 and "sign in" in j.json()["detail"]
    j = ada.post(f"/api/rooms/{code}/join", json={})  # one seat per account at a rated table
    assert j.status_code == 409 and "a seat at this table already" in j.json()["detail"]
    bob = signup(srv, "Bob")
    j = bob.post(f"/api/rooms/{code}/join", json={"name": "Ada"})  # a signed-in player sits as themself
    assert j.status_code == 200
    assert ada.get(f"/api/rooms/{code}").json()["seats"][1]["name"] == "Bob"


def test_block_list(srv: ServerThread) -> None:
    ada, bob, cy = signup(srv, "Ada"), signup(srv, "Bob"), signup(srv, "Cyd")
    assert ada.post("/api/account/blocks", json={"name": "bob"}).json() == {"blocked": ["Bob"]}
    assert ada.post("/api/account/blocks", json={"name": "Ada"}).status_code == 422
    assert ada.post("/api/account/blocks", json={"name": "Nobody"}).status_code == 404
    r = ada.post("/api/rooms", json={"game": "scout", "players": 3})
    code = r.json()["room"]
    j = bob.post(f"/api/rooms/{code}/join", json={})
    assert j.status_code == 403 and "not open to you" in j.json()["detail"]
    assert cy.post(f"/api/rooms/{code}/join", json={}).status_code == 200
    # The other way round too: Bob's room is not open to Ada, who blocked him.
    code2 = bob.post("/api/rooms", json={"game": "scout", "players": 3}).json()["room"]
    assert ada.post(f"/api/rooms/{code2}/join", json={}).status_code == 403
    # blocked(a, b) for the lobby's quick play.
    accounts = srv.app.state.accounts
    a, b, c = (accounts.by_name(n).id for n in ("Ada", "Bob", "Cyd"))
    assert accounts.blocked(a, b) and accounts.blocked(b, a)
    assert not accounts.blocked(a, c) and not accounts.blocked(a, None)
    assert ada.delete("/api/account/blocks/Bob").json() == {"blocked": []}
    assert not accounts.blocked(a, b)
    assert bob.post(f"/api/rooms/{code}/join", json={}).status_code == 200


def ratings_rows(srv: ServerThread) -> tuple[int, int]:
    t = store_of(srv).accounts
    with store_of(srv).engine.connect() as conn:
        return (
            int(conn.execute(select(func.count()).select_from(t.ratings)).scalar_one()),
            int(conn.execute(select(func.count()).select_from(t.rating_history)).scalar_one()),
        )


def test_rated_game_updates_ratings_and_leaderboard(srv: ServerThread) -> None:
    ada, bob = signup(srv, "Ada"), signup(srv, "Bob")
    seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "medium"}]
    code, secrets = rated_room(ada, [bob], seats)
    assert ratings_rows(srv) == (0, 0)
    play_out(srv, code, secrets)
    info = ada.get(f"/api/rooms/{code}").json()
    assert info["status"] == "over"
    assert ratings_rows(srv) == (2, 2)
    board = ada.get("/api/leaderboard/scout").json()
    people = [e for e in board["entries"] if not e["bot"]]
    assert {e["name"] for e in people} == {"Ada", "Bob"}
    assert all(e["games"] == 1 and e["provisional"] for e in people)
    ratings = [e["rating"] for e in board["entries"]]
    assert ratings == sorted(ratings, reverse=True)  # best first, bots among them
    assert [e["place"] for e in people] == [1, 2]
    bots = {e["name"]: e for e in board["entries"] if e["bot"]}
    mu, sigma = BOT_RATINGS["scout"]["medium"]
    assert bots["Bot (medium)"]["rating"] == round(ordinal(mu, sigma), 2)  # fixed: the game left it
    scores = info["outcome"]["scores"]
    ada_r, bob_r = (next(e for e in people if e["name"] == n) for n in ("Ada", "Bob"))
    if scores[0] > scores[1]:
        assert ada_r["mu"] > bob_r["mu"]
    elif scores[0] < scores[1]:
        assert ada_r["mu"] < bob_r["mu"]
    profile = bob.get("/api/players/bob").json()
    assert profile["name"] == "Bob"
    (scout,) = profile["ratings"]
    assert scout["game"] == "scout" and scout["games"] == 1 and scout["provisional"]
    assert [h["room"] for h in scout["history"]] == [code]
    assert profile["games"][0]["room"] == code and profile["games"][0]["rated"]
    assert ada.get("/api/leaderboard/chess").status_code == 404
    assert ada.get("/api/players/Nobody").status_code == 404


def test_unrated_game_changes_no_rating(srv: ServerThread) -> None:
    ada, bob = signup(srv, "Ada"), signup(srv, "Bob")
    seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "easy"}]
    r = ada.post(
        "/api/rooms", json={"game": "scout", "players": 3, "seats": seats, "seed": 3, "bot_delay": 0}
    )
    code, secrets = r.json()["room"], {0: r.json()["secret"]}
    secrets[1] = bob.post(f"/api/rooms/{code}/join", json={}).json()["secret"]
    play_out(srv, code, secrets)
    assert ratings_rows(srv) == (0, 0)
    assert ada.get("/api/players/Ada").json()["games"][0]["rated"] is False


def test_provisional_until_enough_games(srv: ServerThread) -> None:
    ada = signup(srv, "Ada")
    seats = [{"kind": "human"}, {"kind": "bot", "level": "random"}, {"kind": "bot", "level": "random"}]
    for n in range(PROVISIONAL_GAMES):
        entry = next(
            (e for e in ada.get("/api/leaderboard/scout").json()["entries"] if e["name"] == "Ada"), None
        )
        assert entry is None or (entry["games"] == n and entry["provisional"])
        code, secrets = rated_room(ada, [], seats, seed=n)
        play_out(srv, code, secrets, seed=n)
    entry = next(e for e in ada.get("/api/leaderboard/scout").json()["entries"] if e["name"] == "Ada")
    assert entry["games"] == PROVISIONAL_GAMES
    assert entry["provisional"] == (entry["sigma"] > PROVISIONAL_SIGMA)
    history = ada.get("/api/players/Ada").json()["ratings"][0]["history"]
    assert len(history) == PROVISIONAL_GAMES
    sigmas = [h["sigma"] for h in history]
    assert sigmas == sorted(sigmas, reverse=True)  # each game makes the system surer


async def _play_until_refused(
    srv: ServerThread, code: str, secrets: dict[int, str], seed: int
) -> dict[str, Any]:
    """Play random legal moves at every seat until a move is refused; that refusal."""
    rng = random.Random(seed)

    async def seat(seat: int, secret: str) -> dict[str, Any]:
        async with seat_socket(ws_url(srv, code, seat, secret)) as ws:
            async for raw in ws:
                msg = json.loads(raw)
                if msg["type"] == "error" and msg["code"] != "stale":  # (stale: another seat moved first)
                    return dict(msg)
                if msg["type"] != "state":
                    continue
                if msg["room"]["status"] == "over":
                    raise AssertionError("the game ended although its ratings could not be stored")
                if msg["legal"]:
                    action_id, _text = rng.choice(msg["legal"])
                    await ws.send(
                        json.dumps({"type": "act", "version": msg["version"], "id": action_id, "ref": "x"})
                    )
        raise AssertionError("the socket closed")

    tasks = [asyncio.create_task(seat(s, secret)) for s, secret in secrets.items()]
    done, pending = await asyncio.wait(tasks, timeout=60, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    assert done, "no move was refused in time"
    return next(iter(done)).result()


def test_game_end_and_ratings_in_one_transaction(srv: ServerThread) -> None:
    """A failure in the rating write leaves the game's end unstored too; once the ratings can be
    written, the same last move ends the game and rates it at once."""
    ada, bob, cy = signup(srv, "Ada"), signup(srv, "Bob"), signup(srv, "Cyd")
    seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "human"}]
    code, secrets = rated_room(ada, [bob, cy], seats, seed=11)
    store = store_of(srv)
    history = store.accounts.rating_history.name
    with store._write(), store.engine.begin() as conn:  # the injected failure
        conn.execute(
            text(
                f"CREATE TRIGGER refuse BEFORE INSERT ON {history} BEGIN SELECT RAISE(ABORT, 'injected'); END"
            )
        )
    refusal = run_async(_play_until_refused(srv, code, secrets, seed=2))
    assert refusal["code"] == "internal" and "could not be stored" in refusal["message"]
    loaded = store.load(code)
    assert loaded is not None and loaded.status == "playing"  # the last move is not stored ...
    assert ratings_rows(srv) == (0, 0)  # ... and neither are the ratings
    assert ada.get(f"/api/rooms/{code}").json()["status"] == "playing"
    with store._write(), store.engine.begin() as conn:
        conn.execute(text("DROP TRIGGER refuse"))
    play_out(srv, code, secrets, seed=3)  # the players go on (their last move again)
    loaded = store.load(code)
    assert loaded is not None and loaded.status == "over"
    assert ratings_rows(srv) == (3, 3)


def test_delete_account_anonymises_past_games(srv: ServerThread) -> None:
    ada, bob = signup(srv, "Ada"), signup(srv, "Bob")
    other = srv.client()
    other.post("/api/account/login", json={"name": "Bob", "password": PASSWORD})
    seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "easy"}]
    code, secrets = rated_room(ada, [bob], seats)
    play_out(srv, code, secrets)
    ada.post("/api/account/blocks", json={"name": "Bob"})
    assert bob.request("DELETE", "/api/account", json={"confirm": "bob"}).status_code == 422  # exact name
    assert bob.request("DELETE", "/api/account", json={"confirm": "Bob"}).status_code == 204
    assert me(bob)["signed_in"] is False and me(other)["signed_in"] is False
    assert ada.get("/api/players/Bob").status_code == 404
    assert [e["name"] for e in ada.get("/api/leaderboard/scout").json()["entries"] if not e["bot"]] == ["Ada"]
    assert ada.get("/api/account/blocks").json() == {"blocked": []}
    # The game stays, with Bob's seat anonymised, in memory and as stored.
    info = ada.get(f"/api/rooms/{code}").json()
    assert info["status"] == "over" and info["seats"][1]["name"] == DELETED_NAME
    assert not info["seats"][1].get("signed_in")
    row = store_of(srv).load(code)
    assert row is not None and row.seats[1].name == DELETED_NAME and row.seats[1].account is None
    assert row.seats[0].account is not None  # Ada's seat is still hers
    assert len(row.actions) > 0
    # The name is free again.
    assert (
        srv.client().post("/api/account/signup", json={"name": "Bob", "password": PASSWORD}).status_code
        == 201
    )


@pytest.mark.postgres
def test_rated_game_and_deletion_on_postgres() -> None:
    prefix = f"t{uuid.uuid4().hex[:10]}_"
    srv = ServerThread(
        POSTGRES, table_prefix=prefix, limits=dataclasses.replace(TEST_LIMITS, accounts_per_hour=0)
    )
    try:
        ada, bob = signup(srv, "Ada"), signup(srv, "Bob")
        seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "level": "easy"}]
        code, secrets = rated_room(ada, [bob], seats)
        play_out(srv, code, secrets)
        assert ratings_rows(srv) == (2, 2)
        assert [e["name"] for e in ada.get("/api/leaderboard/scout").json()["entries"] if not e["bot"]] != []
        assert bob.request("DELETE", "/api/account", json={"confirm": "Bob"}).status_code == 204
        assert ratings_rows(srv) == (1, 1)
    finally:
        srv.stop()
        store = Store(POSTGRES, prefix=prefix)
        row = store.load(code)
        store.drop()
    assert row is not None and row.status == "over" and row.seats[1].name == DELETED_NAME


def test_sign_ups_at_once_get_accounts_per_hour_and_no_more(db_url: str) -> None:
    """Eight sign-ups from one address at once (each hashes its password meanwhile) make
    ``accounts_per_hour`` (2) accounts: a sign-up takes its place before the account is
    made, so none passes a check made before the others were counted."""
    s = ServerThread(db_url, limits=dataclasses.replace(TEST_LIMITS, accounts_per_hour=2))
    here = {"X-Forwarded-For": "198.51.100.9"}

    def sign_up(n: int) -> int:
        with s.client() as client:
            body = {"name": f"Racer{'ABCDEFGH'[n]}", "password": PASSWORD}
            return client.post("/api/account/signup", json=body, headers=here).status_code

    try:
        with ThreadPoolExecutor(8) as pool:
            answers = sorted(pool.map(sign_up, range(8)))
    finally:
        s.stop()
    assert answers == [201] * 2 + [429] * 6, answers


def test_passkey_sign_up_checks_the_name_and_the_rate(db_url: str) -> None:
    """The browser's part (the authenticator) is in tests/browser/test_accounts_web.py."""
    s = ServerThread(db_url, limits=dataclasses.replace(TEST_LIMITS, accounts_per_hour=1))
    try:
        with s.client() as client:
            here = {"X-Forwarded-For": "198.51.100.20"}
            r = client.post("/api/account/passkeys/signup-options", json={"name": "medium"}, headers=here)
            assert r.status_code == 422 and "reserved" in r.json()["detail"]
            r = client.post("/api/account/passkeys/signup-options", json={"name": "Keyholder"}, headers=here)
            assert r.status_code == 200
            options = r.json()["options"]
            assert options["rp"]["id"] == "127.0.0.1" and options["user"]["name"] == "Keyholder"
            assert options["authenticatorSelection"]["residentKey"] == "required"
            bad = {
                "id": r.json()["id"],
                "credential": {"id": "x", "rawId": "x", "type": "public-key", "response": {}},
            }
            r = client.post("/api/account/passkeys/signup", json=bad, headers=here)
            assert r.status_code == 400 and "not accepted" in r.json()["detail"]
            r = client.post(
                "/api/account/passkeys/signup", json=bad, headers=here
            )  # a challenge is used once
            assert r.status_code == 400 and "no such passkey challenge" in r.json()["detail"]
            r = client.post(
                "/api/account/signup", json={"name": "Holder", "password": PASSWORD}, headers=here
            )
            assert r.status_code == 201
            r = client.post("/api/account/passkeys/signup-options", json={"name": "Another"}, headers=here)
            assert r.status_code == 429 and "Retry-After" in r.headers
            r = client.post(
                "/api/account/passkeys/signup-options",
                json={"name": "holder"},
                headers={"X-Forwarded-For": "198.51.100.21"},
            )
            assert r.status_code == 409
    finally:
        s.stop()


def test_wrong_passwords_are_misses_of_the_address(db_url: str) -> None:
    s = ServerThread(db_url, limits=dataclasses.replace(TEST_LIMITS, accounts_per_hour=0, misses_per_hour=3))
    try:
        signup(s, "Ada")
        with s.client() as client:
            here = {"X-Forwarded-For": "198.51.100.30"}
            for _ in range(3):
                r = client.post(
                    "/api/account/login", json={"name": "Ada", "password": "guess guess"}, headers=here
                )
                assert r.status_code == 401
            r = client.post("/api/account/login", json={"name": "Ada", "password": PASSWORD}, headers=here)
            assert r.status_code == 429 and r.json()["detail"].startswith("misses_per_hour")
            assert int(r.headers["Retry-After"]) > 3000
            other = {"X-Forwarded-For": "198.51.100.31"}
            assert (
                client.post(
                    "/api/account/login", json={"name": "Ada", "password": PASSWORD}, headers=other
                ).status_code
                == 200
            )
    finally:
        s.stop()
