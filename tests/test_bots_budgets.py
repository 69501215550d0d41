"""Bot specs and work-counted budgets: the same seed gives the same game on
any machine, under any load and with any number of workers."""

from __future__ import annotations

import itertools
import pickle
import subprocess
import sys
import time

import pytest

from spieltisch.bots import (
    Budget,
    baseline_version,
    bot_class,
    check_spec,
    default_version,
    make_bot,
    resolve_stored_spec,
    versions,
)
from spieltisch.bots.match import play_match
from spieltisch.bots.spec import BotSpec, parse_spec
from spieltisch.engine import OptionsError, get_game
from spieltisch.lab.config import LabError
from spieltisch.lab.tournament import Tournament

# -- the spec syntax ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("hard", BotSpec("hard")),
        ("hard@v1", BotSpec("hard", "v1")),
        ("hard:playouts=400", BotSpec("hard", work=400)),
        ("hard@v1:playouts=50:cap=1.5", BotSpec("hard", "v1", 50, 1.5)),
        (" hard : cap=2 ", BotSpec("hard", cap=2.0)),
    ],
)
def test_specs_parse(text: str, expected: BotSpec) -> None:
    assert parse_spec(text, "playouts") == expected


@pytest.mark.parametrize(
    ("game", "spec", "message"),
    [
        ("scout", "hard:playouts=abc", "playouts must be a whole number"),
        ("scout", "hard:playouts=0", "between 1 and"),
        ("scout", "hard:samples=10", "unknown key 'samples'; hard takes playouts and cap"),
        ("schmaus", "hard:playouts=10", "unknown key 'playouts'; hard takes samples and cap"),
        ("scout", "hard:playouts=5:playouts=6", "playouts is given twice"),
        ("scout", "hard:cap=-1", "cap must be more than 0 seconds"),
        ("scout", "hard:cap=soon", "cap must be seconds"),
        ("scout", "hard:playouts", "write KEY=VALUE"),
        ("scout", "hard@", "give a version after @"),
        ("scout", "hard@v99", "unknown version 'v99' of hard for Scout: choose hard@v7, hard@v12"),
        ("scout", "hard@v9", "retired version 'v9' of hard for Scout: choose hard@v7, hard@v12"),
        (
            "schmaus",
            "hard@v1",
            r"retired version 'v1' of hard for .*: choose hard@v5, hard@v8 \(hard@baseline",
        ),
        ("scout", "medium@v2", "unknown version 'v2' of medium for Scout: choose medium@v1"),
        ("scout", "medium:playouts=5", "medium does no search and takes no budget"),
        ("schmaus", "easy:samples=5", "easy does no search"),
        ("scout", "strong", "unknown bot level 'strong'"),
    ],
)
def test_bad_specs_say_what_is_wrong(game: str, spec: str, message: str) -> None:
    with pytest.raises(OptionsError, match=message):
        check_spec(game, spec)
    with pytest.raises(LabError):
        Tournament.create(game, [spec, "random", "random"], 3)


def test_spec_budget_wins_over_the_passed_budget_and_defaults_fill_the_rest() -> None:
    bot = make_bot("scout", "hard:playouts=77", 0, 1, Budget(seconds=3.0, iterations=5))
    assert bot.budget == Budget(seconds=3.0, iterations=77)
    assert bot.work == 77
    default = make_bot("scout", "hard", 0, 1)
    assert default.budget == Budget() and default.work == bot_class("scout", "hard").default_work
    assert make_bot("schmaus", "medium:samples=9", 0, 1).work == 9


@pytest.mark.parametrize(("game", "default", "baseline"), [("scout", "v12", "v7"), ("schmaus", "v8", "v5")])
def test_a_level_keeps_its_default_and_one_baseline(game: str, default: str, baseline: str) -> None:
    assert versions(game, "hard") == [baseline, default]
    assert default_version(game, "hard") == default and baseline_version(game, "hard") == baseline
    assert bot_class(game, "hard") is bot_class(game, f"hard@{default}") is bot_class(game, "hard@baseline")
    for spec, version in [("hard", default), (f"hard@{default}", default), ("hard@baseline", baseline),
                          (f"hard@{baseline}:cap=2", baseline)]:  # fmt: skip
        bot = make_bot(game, spec, 0, 1)
        assert bot.version == version and bot.work_unit is not None  # type: ignore[attr-defined]
    for level in ("easy", "medium", "random"):
        assert versions(game, level) == ["v1"] and baseline_version(game, level) is None
        check_spec(game, f"{level}@v1")


@pytest.mark.parametrize(
    ("game", "stored", "resolved"),
    [
        ("scout", "hard@v9", "hard"),
        ("scout", "hard@v3:playouts=400", "hard:playouts=400"),
        ("scout", "hard@v7:playouts=400", "hard@v7:playouts=400"),
        ("schmaus", "hard@v1:samples=32:cap=2", "hard:samples=32:cap=2"),
        ("schmaus", "hard@v5", "hard@v5"),
        ("schmaus", "medium", "medium"),
        ("scout", "cmd:python bot.py", "cmd:python bot.py"),
    ],
)
def test_a_stored_spec_of_a_retired_version_resolves_to_todays_default(
    game: str, stored: str, resolved: str
) -> None:
    assert resolve_stored_spec(game, stored) == resolved
    if not stored.startswith("cmd:"):
        check_spec(game, resolved)


@pytest.mark.parametrize("spec", ["hard@v99", "strong", "hard@v9:samples=3"])
def test_a_stored_spec_that_never_existed_is_still_refused(spec: str) -> None:
    with pytest.raises(OptionsError):
        resolve_stored_spec("scout", spec)


# -- budgets in work: independent of the clock -----------------------------------

SPECS = {"scout": "hard:playouts=16", "schmaus": "hard:samples=16"}


def _game_log(game: str, specs: list[str], seed: int) -> list[object]:
    bots = [make_bot(game, spec, s, seed) for s, spec in enumerate(specs)]
    return list(play_match(game, bots, seed).state.history)


def slow_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine where every look at the clock finds a minute gone."""
    ticks = itertools.count()
    monkeypatch.setattr(time, "perf_counter", lambda: 60.0 * next(ticks))


@pytest.mark.parametrize(
    ("game", "version"), [(g, v) for g in ("scout", "schmaus") for v in versions(g, "hard")]
)
def test_work_budgets_ignore_the_clock(game: str, version: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every kept version: without a cap, the budget counts work, never time."""
    specs = [SPECS[game].replace("hard:", f"hard@{version}:"), "medium"]
    normal = _game_log(game, specs, 8)
    slow_clock(monkeypatch)
    assert _game_log(game, specs, 8) == normal


def test_a_wall_clock_cap_stops_the_search_early(monkeypatch: pytest.MonkeyPatch) -> None:
    # With a cap and a slow clock every search stops after its first playout,
    # so the game differs from the uncapped one (which is why the lab never
    # caps unless asked).
    free = _game_log("scout", ["hard:playouts=40", "medium"], 3)
    slow_clock(monkeypatch)
    assert _game_log("scout", ["hard:playouts=40", "medium"], 3) == free
    assert _game_log("scout", ["hard:playouts=40:cap=1", "medium"], 3) != free


@pytest.mark.parametrize("game", ["scout", "schmaus"])
def test_bots_pickle_mid_game_and_go_on_alike(game: str) -> None:
    # A worker process builds a bot from its spec, or receives one pickled:
    # either way it plays on exactly as the original would.
    state = get_game(game).new_state(3, 4)
    bot = make_bot(game, SPECS[game], 0, 4)
    turns = 0
    while turns < 6:
        seat = state.to_move()[0]
        legal = state.legal_action_ids(seat)
        if seat == 0:
            turns += 1
            action = bot.choose(state.view(0), legal)
        else:
            action = legal[0]
        state.apply_id(seat, action)
    while 0 not in state.to_move():
        seat = state.to_move()[0]
        state.apply_id(seat, state.legal_action_ids(seat)[0])
    copy = pickle.loads(pickle.dumps(bot))
    legal = state.legal_action_ids(0)
    assert copy.choose(state.view(0), legal) == bot.choose(state.view(0), legal)


# -- the lab: -j 1, -j 2 and a busy machine give the same tournament ----------------


@pytest.mark.parametrize(
    ("game", "lineup"),
    [
        ("scout", ["hard:playouts=10", "hard@v7:playouts=10"]),
        ("schmaus", ["hard:samples=12", "medium", "hard@v5:samples=12"]),
    ],
)
def test_hard_tournaments_are_identical_across_workers_and_load(game: str, lineup: list[str]) -> None:
    t = Tournament.create(game, lineup, 3, seed=21)
    one = t.run(workers=1)
    two = t.run(workers=2)
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        loaded = t.run(workers=2)
    finally:
        busy.kill()
        busy.wait()
    assert [g.to_json() for g in one.games] == [g.to_json() for g in two.games]
    assert [g.to_json() for g in one.games] == [g.to_json() for g in loaded.games]
    assert one.summary == two.summary == loaded.summary
