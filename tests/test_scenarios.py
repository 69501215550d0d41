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
