"""The rule scenarios: the shared ones, the project's own, and the runner itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from spieltisch.scenarios import report, run_paths, run_scenario

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "scenarios"
OWN = ROOT / "scenarios"


def _failures(path: Path) -> list[str]:
    results = run_paths([path])
    assert results, f"no scenarios under {path}"
    return [f"{r.source}: {r.name}: {r.problems}" for r in results if not r.ok]


@pytest.mark.skipif(not SHARED.is_dir(), reason="shared scenarios are beside the project only")
def test_shared_scenarios_pass() -> None:
    assert _failures(SHARED) == []


def test_project_scenarios_pass() -> None:
    assert _failures(OWN) == []


PAIR: dict[str, Any] = {
    "game": "scout",
    "name": "a pair beats a single",
    "rule": "S-7",
    "setup": {
        "players": 3,
        "hands": [["3/1", "3/5", "7/2"], ["9/4"], ["6/2"]],
        "table": {"owner": 2, "cards": ["10/1"]},
        "to_move": 0,
    },
    "steps": [{"player": 0, "action": {"type": "show", "start": 0, "count": 2}}],
    "expect": {"collected": [1, 0, 0], "to_move": 1},
}


def test_a_wrong_expectation_is_reported_with_expected_and_actual() -> None:
    bad = json.loads(json.dumps(PAIR))
    bad["expect"]["collected"] = [5, 0, 0]
    result = run_scenario(bad)
    assert not result.ok
    assert result.problems == ["collected: expected [5, 0, 0], got [1, 0, 0]"]
    text, ok = report([result, run_scenario(PAIR)])
    assert not ok
    assert text.splitlines()[-1] == "1 passed, 1 failed"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("{not json", "bad JSON"),
        (json.dumps({**PAIR, "setup": {**PAIR["setup"], "hands": [["3/1", "3/1"], [], []]}}), "duplicate"),
        (json.dumps({**PAIR, "setup": {**PAIR["setup"], "hands": [["3/11"], [], []]}}), "unknown Scout card"),
        (json.dumps({**PAIR, "setup": {**PAIR["setup"], "players": 7}}), "'players' must be 2 to 5"),
        (json.dumps({**PAIR, "setup": {**PAIR["setup"], "hands": [["3/1"]]}}), "a list of 3"),
        (
            json.dumps({"game": "schmaus", "name": "x", "setup": {"players": 2, "plays": [["F9"], []]}}),
            "unknown Waschbär-Schmaus card",
        ),
        (json.dumps({"game": "chess", "name": "x", "setup": {}}), "unknown game"),
    ],
)
def test_malformed_files_are_errors_not_tracebacks(tmp_path: Path, content: str, reason: str) -> None:
    path = tmp_path / "broken.json"
    path.write_text(content)
    (result,) = run_paths([path])
    assert result.error and not result.ok
    assert reason in " ".join(result.problems)


def test_cli_exit_codes(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from spieltisch.cli import app

    good = tmp_path / "good.json"
    good.write_text(json.dumps(PAIR))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**PAIR, "expect": {"to_move": 2}}))
    runner = CliRunner()
    ok = runner.invoke(app, ["scenarios", str(good)])
    assert ok.exit_code == 0 and ok.output.strip().endswith("1 passed, 0 failed")
    fail = runner.invoke(app, ["scenarios", str(tmp_path)])
    assert fail.exit_code == 1
    assert "to_move: expected 2, got 1" in fail.output
    assert fail.output.strip().endswith("1 passed, 1 failed")


RULINGS = [f"S-{i}" for i in range(1, 17)] + [f"W-{i}" for i in range(1, 19)]


def test_every_ruling_is_pinned_by_a_project_scenario() -> None:
    pinned: set[str] = set()
    for path in OWN.rglob("*.json"):
        for scenario in json.loads(path.read_text(encoding="utf-8")):
            assert scenario.get("rule"), f"{path}: {scenario['name']!r} names no ruling"
            pinned.update(scenario["rule"].split())
    assert [r for r in RULINGS if r not in pinned] == []


SEEDED: dict[str, Any] = {
    "game": "scout",
    "name": "a seeded deal",
    "rule": "S-2",
    "setup": {"players": 3, "seed": 11},
    "expect": {"hand_sizes": [12, 12, 12], "rounds": 3, "round": 1, "phase": "flip"},
}


def test_seeded_setup_deals_a_real_game_and_checks_project_keys() -> None:
    assert run_scenario(SEEDED).ok
    wrong = json.loads(json.dumps(SEEDED))
    wrong["expect"]["hand_sizes"] = [11, 11, 11]
    result = run_scenario(wrong)
    assert result.problems == ["hand_sizes: expected [11, 11, 11], got [12, 12, 12]"]


def test_skip_rounds_plays_whole_rounds_first() -> None:
    later = {**SEEDED, "setup": {**SEEDED["setup"], "skip_rounds": 3}, "expect": {"game_over": True}}
    assert run_scenario(later).ok
    bad = {**SEEDED, "setup": {**SEEDED["setup"], "skip_rounds": -1}}
    result = run_scenario(bad)
    assert result.error and "skip_rounds" in result.problems[0]


def test_setup_error_needs_the_refusal_text() -> None:
    base: dict[str, Any] = {
        "game": "schmaus",
        "name": "bad option",
        "setup": {"players": 3, "seed": 1, "options": {"x": 1}},
    }
    assert run_scenario({**base, "expect": {"setup_error": "unknown rule option"}}).ok
    other = run_scenario({**base, "expect": {"setup_error": "something else"}})
    assert not other.ok and "expected 'something else'" in other.problems[0]
    fine = {**base, "setup": {"players": 3, "seed": 1}, "expect": {"setup_error": "x"}}
    result = run_scenario(fine)
    assert not result.ok and "should be refused" in result.problems[0]


def _scenario(**changes: Any) -> str:
    return json.dumps({**PAIR, **changes})


def _setup(**changes: Any) -> str:
    return _scenario(setup={**PAIR["setup"], **changes})


def _without(key: str) -> str:
    return json.dumps({k: v for k, v in PAIR.items() if k != key})


SCHMAUS_TABLE: dict[str, Any] = {"players": 2, "hands": [["F1", "F1", "F1"], ["F2", "F2", "F2"]]}


def _schmaus(**setup: Any) -> str:
    return json.dumps({"game": "schmaus", "name": "x", "setup": {**SCHMAUS_TABLE, **setup}})


def _short(**setup: Any) -> str:
    return json.dumps({"game": "schmaus", "name": "x", "setup": setup})


# file name -> (content, what the report must say); every one is an ERROR but the
# last, a rules failure (a step the rules refuse in a scenario that expects none).
MALFORMED: dict[str, tuple[str, str]] = {
    "bad_json": ("{not json", "bad JSON at line 1 column 2"),
    "empty": ("", "bad JSON at line 1 column 1"),
    "deep": ("[" * 100_000, "nested too deeply"),
    "number": ("42", "a scenario must be a JSON object"),
    "list_of_text": ('["x"]', "a scenario must be a JSON object"),
    "no_game": (_without("game"), "missing key 'game'"),
    "no_name": (_without("name"), "missing key 'name'"),
    "no_setup": (_without("setup"), "missing key 'setup'"),
    "setup_list": (_scenario(setup=[1]), "'setup' and 'expect' must be objects"),
    "expect_list": (_scenario(expect=[1]), "'setup' and 'expect' must be objects"),
    "steps_object": (_scenario(steps={}), "'steps' must be a list"),
    "unknown_game": (_scenario(game="chess"), "unknown game 'chess'"),
    "players_text": (_setup(players="3"), "'players' must be 2 to 5, got '3'"),
    "players_7": (_setup(players=7), "'players' must be 2 to 5, got 7"),
    "hands_text": (_setup(hands="3/1"), "'hands' must be a list of 3"),
    "to_move_text": (_setup(to_move="x"), "'to_move' must be a seat 0..2, got 'x'"),
    "to_move_9": (_setup(to_move=9), "'to_move' must be a seat 0..2, got 9"),
    "chips_text": (_setup(chips=["a", 1, 1]), "'chips' must hold true/false or whole numbers"),
    "collected_negative": (_setup(collected=[-1, 0, 0]), "'collected' must hold whole numbers >= 0"),
    "table_text": (_setup(table="x"), "'table' must be null or {owner, cards}"),
    "table_no_owner": (_setup(table={"cards": ["10/1"]}), "the table's 'owner' must be a seat"),
    "table_no_set": (_setup(table={"owner": 2, "cards": ["10/1", "4/6"]}), "neither a match nor a run (S-6)"),
    "phase": (_setup(phase="deal"), '\'phase\' must be "play" or "flip"'),
    "scout_options": (_setup(options={"fast": True}), "Scout has no rule options"),
    "unknown_card": (_setup(hands=[["3/11"], ["9/4"], ["6/2"]]), "unknown Scout card '3/11'"),
    "duplicate_card": (_setup(hands=[["3/1"], ["1/3"], ["6/2"]]), "duplicate card(s) 1/3"),
    "empty_hand": (_setup(hands=[["3/1"], [], ["6/2"]]), "S-10, S-15: seat 1 has no cards"),
    "stuck": (
        _scenario(
            setup={
                "players": 2,
                "hands": [["1/7", "9/6", "2/7"], ["3/8", "10/8", "4/2", "1/6", "8/6"]],
                "table": {"owner": 1, "cards": ["7/4", "7/8"]},
                "to_move": 0,
                "chips": [0, 3],
            }
        ),
        "S-15: seat 0 can neither show nor scout",
    ),
    "options_unknown": (_schmaus(options={"x": 1}), "unknown rule option(s) 'x'"),
    "options_text": (_schmaus(options="fast"), "rule options must be an object"),
    "options_rounds": (_schmaus(options={"rounds": 0}), "option 'rounds' must be a whole number from 1"),
    "options_hand_size": (_schmaus(options={"hand_size": "7"}), "option 'hand_size' must be a whole number"),
    "draw_rounds": (_schmaus(options={"rounds": "draw"}), "W-2: with the 'draw' round count"),
    "deck_exceeded": (_schmaus(hands=[["F5"] * 4, ["F2"]]), "more cards than the deck holds: 4 × F5"),
    "round_text": (_schmaus(round="2"), "'round' must be a whole number, got '2'"),
    "rounds_0": (_schmaus(rounds=0), "a game has at least one round"),
    "scores_text": (_schmaus(scores=["a", 0]), "'scores' must hold whole numbers"),
    "plays_count": (_short(players=2, plays=[["F1"]]), "'plays' must be a list of 2"),
    "targets_text": (
        _short(players=3, plays=[["F1", "F1", "GROCER"], ["F2"], ["F3"]], targets=["x", None, None]),
        "'targets' must hold seats or null",
    ),
    "x5_card": (_short(players=2, plays=[["F1", "F1", "X5"], ["F2"]], x5=["Q", None]), "card 'Q'"),
    "step_no_player": (_scenario(steps=[{"action": "show 0"}]), "step 1 needs 'player' and 'action'"),
    "step_seat_9": (_scenario(steps=[{"player": 9, "action": "show 0"}]), "step 1: no seat 9"),
    "step_seat_text": (_scenario(steps=[{"player": "0", "action": "show 0"}]), "step 1: no seat '0'"),
    "step_unreadable": (
        _scenario(steps=[{"player": 0, "action": "jump"}]),
        "cannot read Scout action 'jump'",
    ),
    "step_number": (_scenario(steps=[{"player": 0, "action": 5}]), "step 1: not a Scout action: 5"),
    "illegal_typo": (
        _scenario(steps=[{"player": 0, "action": "shwo 0"}], expect={"illegal": True}),
        "step 1: cannot read Scout action 'shwo 0'",
    ),
    "illegal_no_steps": (_scenario(steps=[], expect={"illegal": True}), "'illegal' needs at least one step"),
    "legal_includes_text": (_scenario(expect={"legal_includes": "show 0"}), "legal_includes must be a list"),
    "cards_held_list": (_scenario(expect={"cards_held": ["1/3"]}), "'cards_held' must map cards to seats"),
    "cards_held_card": (_scenario(expect={"cards_held": {"1/1": 0}}), "unknown Scout card '1/1'"),
    "skip_rounds": (
        json.dumps({**PAIR, "setup": {"players": 3, "seed": 1, "skip_rounds": -1}}),
        "skip_rounds",
    ),
    "seed_text": (
        json.dumps({**PAIR, "setup": {"players": 3, "seed": "x"}}),
        "'seed' must be a whole number",
    ),
    "zz_refused_step": (
        _scenario(steps=[{"player": 0, "action": "show 2"}]),
        "step 1 (show 2) was refused: S-7",
    ),
}


def test_every_kind_of_broken_file_is_reported_and_the_run_goes_on(tmp_path: Path) -> None:
    for name, (content, _) in MALFORMED.items():
        (tmp_path / f"{name}.json").write_text(content, encoding="utf-8")
    (tmp_path / "latin1.json").write_bytes(b'{"name": "\xe9"}')
    (tmp_path / "zzz_good.json").write_text(json.dumps(PAIR))
    results = {Path(r.source.split("#")[0]).stem: r for r in run_paths([tmp_path, tmp_path / "missing.json"])}
    assert results.pop("zzz_good").ok  # after every broken file, the run went on
    assert "cannot read" in results.pop("latin1").problems[0]
    assert results.pop("missing").problems == [f"{tmp_path / 'missing.json'}: no such file"]
    for name, (_, reason) in MALFORMED.items():
        result = results.pop(name)
        assert not result.ok and str(tmp_path / name) in result.source
        assert result.error == (name != "zz_refused_step"), name
        assert reason in " ".join(result.problems), (name, result.problems)
    assert results == {}

    from typer.testing import CliRunner

    from spieltisch.cli import app

    output = CliRunner().invoke(app, ["scenarios", str(tmp_path)]).output
    assert "Traceback" not in output
    assert output.strip().endswith(f"1 passed, {len(MALFORMED) + 1} failed")


def test_an_unexpected_failure_is_reported_not_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Even a bug in the runner or the engine is one file's ERROR, not a traceback."""
    from spieltisch import scenarios

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("generator raised StopIteration")

    monkeypatch.setattr(scenarios.ScoutState, "from_position", broken)
    (tmp_path / "a.json").write_text(json.dumps(PAIR))
    (tmp_path / "b.json").write_text(json.dumps(SEEDED))
    first, second = run_paths([tmp_path])
    assert first.error and "RuntimeError: generator raised StopIteration" in first.problems[0]
    assert second.ok
