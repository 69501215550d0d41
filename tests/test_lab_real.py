"""``spieltisch lab real``: people's finished games beside bot games of the same rules."""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from spieltisch.cli import app
from spieltisch.engine import GameRecord, get_game
from spieltisch.lab.play import replay_record
from spieltisch.lab.real import study
from spieltisch.server.store import RoomRow, SeatRow, Store


def _random_game(game: str, players: int, seed: int, options: dict[str, object]) -> list[tuple[int, str]]:
    state = get_game(game).new_state(players, seed, options)
    rng = random.Random(seed)
    actions = []
    while not state.is_over():
        seat = state.to_move()[0]
        action = state.action_from_id(rng.choice(state.legal_action_ids(seat)))
        actions.append((seat, str(action)))
        state.apply(seat, action)
    return actions


def _store_game(
    store: Store,
    code: str,
    game: str,
    seed: int,
    kinds: str,
    status: str = "over",
    ended: str | None = None,
    options: dict[str, object] | None = None,
    actions: list[tuple[int, str]] | None = None,
) -> None:
    opts = get_game(game).normalize_options(options or {})
    seats = [
        SeatRow(i, "human", name=f"Secret Name {code}", secret_hash="h", taken=True)
        if kind == "h"
        else SeatRow(i, "bot", level="random", taken=True)
        for i, kind in enumerate(kinds)
    ]
    store.create_room(RoomRow(code, game, len(kinds), opts, seed, 0.0, status, seats))
    log = actions if actions is not None else _random_game(game, len(kinds), seed, opts)
    store.append_actions(code, 0, log)
    if ended is not None:  # a game the players ended early: over without an outcome
        asyncio.run(store.end_room_async(code, ended))


@pytest.fixture
def database(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'played.db'}"
    store = Store(url)
    try:
        for i in range(5):  # people only, default rules
            _store_game(store, f"PEOPL{i}", "schmaus", 100 + i, "hhh")
        _store_game(store, "MIXED0", "schmaus", 200, "hhb")  # people and a bot
        _store_game(store, "OTHER0", "schmaus", 300, "hhh", options={"loser_draws": 3})  # other rules
        _store_game(store, "SCOUT0", "scout", 400, "hhh")
        _store_game(store, "BOTSON", "schmaus", 500, "bbb")  # no people: left out
        _store_game(store, "ENDED0", "schmaus", 600, "hhh", "playing", "ended", actions=[])  # ended early
        _store_game(store, "PLAYNG", "schmaus", 700, "hhh", status="playing", actions=[])  # not over
        _store_game(store, "BROKEN", "schmaus", 800, "hhh", actions=[(0, "play nonsense")])
    finally:
        store.close()
    return url


def test_replay_record_gives_the_games_outcome() -> None:
    actions = _random_game("schmaus", 4, 9, {})
    result = replay_record(GameRecord("schmaus", 4, 9, {}, actions))
    state = GameRecord("schmaus", 4, 9, {}, actions).replay()
    outcome = state.outcome()
    assert outcome is not None
    assert result.scores == list(outcome.scores) and result.winners == list(outcome.winners)
    assert sum(result.decisions) == len(actions)
    assert result.detail is not None and sum(n for n, _won in result.detail["lays"].values()) >= result.rounds


def test_study_groups_people_and_counts_what_it_leaves_out(database: str) -> None:
    from spieltisch.server.played import played_games

    store = Store(database)
    try:
        result = study(played_games(store), bots="random", games=3, seed=5, workers=1)
    finally:
        store.close()
    groups = {(g.game, g.players, json.dumps(g.figures()["options"])): g for g in result.groups}
    assert set(groups) == {
        ("schmaus", 3, "{}"),
        ("schmaus", 3, '{"loser_draws": 3}'),
        ("scout", 3, "{}"),
    }
    default = groups[("schmaus", 3, "{}")]
    assert len(default.people) == 6 and len(default.bots) == 3  # 3 games, rounded to 3 players
    figures = default.figures()
    assert sum(r["wins"] for r in figures["people"]["seats"]) >= 6  # every game has a winner
    assert figures["people"]["versus_bots"]["games"] == 2  # the mixed game's two people
    assert figures["people"]["versus_bots"]["fair"] == pytest.approx(1 / 3)
    laid = sum(c["games"] for c in figures["people"]["cards"])
    assert laid >= 3 * sum(g.rounds for g in default.people)  # each of 3 seats lays at least one card
    assert [r["rule"] for r in figures["bots"]["rulings"]][:2] == ["W-5", "W-6"]
    assert result.skipped == {"without people": 1, "that do not replay with this engine": 1}


def test_lab_real_command_reports_without_identifying_anyone(database: str, tmp_path: Path) -> None:
    db_file = Path(database.removeprefix("sqlite:///"))
    before = hashlib.sha256(db_file.read_bytes()).hexdigest()
    out_json, out_html = tmp_path / "real.json", tmp_path / "real.html"
    args = ["lab", "real", "--database", database, "--bots", "random", "--games", "3", "--workers", "1", "-q"]
    files = ["--json", str(out_json), "--html", str(out_html), "--lang", "de"]
    result = CliRunner().invoke(app, [*args, *files])
    assert result.exit_code == 0, result.output
    assert "Seat 1 wins" in result.output and "Waschbär-Schmaus, 3 players" in result.output
    assert "People (6 games)" in result.output and "Bots: random (3 games)" in result.output
    html = out_html.read_text(encoding="utf-8")
    assert "Wie Menschen wirklich spielen" in html and "Siegquote nach Platz" in html
    assert html.count("<img") >= 5  # seats per group, rulings, hand sizes, cards
    for text in (out_json.read_text(encoding="utf-8"), html, result.output):
        assert "Secret Name" not in text and "PEOPL" not in text and "MIXED0" not in text
    assert hashlib.sha256(db_file.read_bytes()).hexdigest() == before  # read, never written


def test_lab_real_refuses_what_it_cannot_read(tmp_path: Path) -> None:
    empty = f"sqlite:///{tmp_path / 'empty.db'}"
    result = CliRunner().invoke(app, ["lab", "real", "--database", empty, "-q"])
    assert result.exit_code == 2 and "holds no Spieltisch games" in result.output
    url = f"sqlite:///{tmp_path / 'x.db'}"
    Store(url).close()
    result = CliRunner().invoke(app, ["lab", "real", "--database", url, "--bots", "nobody", "-q"])
    assert result.exit_code == 0 and "No finished games with people" in result.output
    result = CliRunner().invoke(app, ["lab", "real", "--database", url, "--lang", "fr"])
    assert result.exit_code == 2 and "choose en or de" in result.output
