"""``lab design``: goals in TOML, an Optuna search of the rule options, every
candidate confirmed by a fresh paired run against the printed rules (random
and easy bots, tiny budgets)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from spieltisch.cli import app
from spieltisch.lab.config import LabError
from spieltisch.lab.design import Design, load_spec, parse_spec
from spieltisch.lab.report import design_html

ROOT = Path(__file__).resolve().parents[1]
QUICK = {"games_per_trial": 4, "max_games_per_candidate": 8, "batch": 3, "confirm": 2, "confirm_games": 8,
         "sensitivity_games": 0}  # fmt: skip


def spec(**data: Any) -> Any:
    base: dict[str, Any] = {"game": "schmaus", "players": 4, "bots": ["random"], "search_settings": QUICK}
    return parse_spec({**base, **data})


def comparable(result: Any) -> dict[str, Any]:
    out = result.to_json()
    for key in ("seconds", "cpu_seconds", "summary"):
        out.pop(key)
    return out


def test_printed_rules_that_meet_the_goals_are_the_answer() -> None:
    s = spec(goals={"rounds": {"min": 10, "max": 14}}, search={"rounds": ["3x-players", 6, 8, 16]})
    result = Design(s, budget=16).run(workers=1)
    assert result.feasible
    best = result.confirmed[0]
    assert best["changes"] == [] and best["meets_every_goal"]
    assert "The printed rules as they are" in result.summary_lines()[1]


def test_a_goal_only_the_rounds_option_meets_is_found_within_a_small_budget() -> None:
    s = load_spec(ROOT / "examples" / "goals-short.toml")
    s.games_per_trial, s.confirm_games, s.sensitivity_games = 4, 8, 4
    result = Design(s, budget=40).run(workers=1)
    assert result.feasible and result.search_games <= 40
    for c in result.confirmed:
        assert {x["option"] for x in c["changes"]} >= {"rounds"}
        assert c["params"]["rounds"] in (6, 8)
        rounds = next(g for g in c["goals"] if g["measure"] == "rounds")
        assert rounds["status"] == "met"
        assert rounds["difference"]["verdict"] == "lower"  # fewer rounds than the printed 12, paired
    assert {e["option"] for e in result.sensitivity} == {"rounds", "loser_draws"}


def test_results_are_identical_across_worker_counts() -> None:
    s = spec(goals={"rounds": {"max": 8}, "void_rounds": {"max": 30}},
             search={"rounds": [6, 8, 12], "hunter_draw": ["everybody", "nobody"]})  # fmt: skip
    one = Design(s, budget=24).run(workers=1)
    two = Design(s, budget=24).run(workers=2)
    assert comparable(one) == comparable(two)


def test_the_pareto_front_when_no_setting_meets_every_goal() -> None:
    s = spec(goals={"rounds": {"max": 6}, "decisions": {"min": 1000}}, search={"rounds": [6, 12]})
    result = Design(s, budget=16).run(workers=1)
    assert not result.feasible
    assert result.confirmed and "Pareto" in result.summary_lines()[0]


def test_scout_searches_player_counts_or_says_there_is_nothing_to_search() -> None:
    with pytest.raises(LabError, match="Scout has no rule options to search"):
        parse_spec({"game": "scout", "goals": {"rounds": {"max": 5}}})
    with pytest.raises(LabError, match="Scout has no rule option 'rounds'"):
        parse_spec({"game": "scout", "goals": {"rounds": {"max": 5}}, "search": {"rounds": [3]}})
    s = parse_spec({"game": "scout", "players": 3, "bots": ["random"], "goals": {"rounds": {"max": 3}},
                    "search": {"players": [2, 3, 4]}, "search_settings": QUICK})  # fmt: skip
    result = Design(s, budget=12).run(workers=1)
    assert result.feasible
    assert all(c["players"] in (2, 3) for c in result.confirmed)  # S-12: as many rounds as players


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"goals": {"fun": {"min": 1}}}, "unknown goal 'fun'"),
        ({"goals": {"rounds": {"min": 9, "max": 8}}}, "min 9 is above max 8"),
        ({"goals": {"rounds": {"max": 8}}, "search": {"loser_draws": {"min": -1, "max": 2}}}, "loser_draws"),
        ({"goals": {"rounds": {"max": 8}}, "search": {"colour": ["red"]}}, "unknown rule option"),
        ({"goals": {"rounds": {"max": 8}}, "search": {}}, "nothing to search"),
        ({"goals": {"rounds": {"max": 8}}, "bots": ["genius"]}, "unknown bot spec 'genius'"),
    ],
)
def test_bad_goal_files_fail_before_any_game(data: dict[str, Any], message: str) -> None:
    base = {"search": {"rounds": [6, 8]}}
    with pytest.raises(LabError, match=message):
        parse_spec({**base, **data})


def test_cli_design_writes_json_and_html_in_both_languages(tmp_path: Path) -> None:
    goals = tmp_path / "goals.toml"
    goals.write_text(
        'bots = ["random"]\n[goals]\nrounds = { max = 8 }\n[search]\nrounds = [6, 8, 12]\n'
        "[search_settings]\ngames_per_trial = 4\nconfirm = 1\nconfirm_games = 8\nsensitivity_games = 4\n"
    )
    for lang, headings in (
        ("en", ["The answer", "Goals and the printed rules", "Candidates", "The search", "Sensitivity"]),
        (
            "de",
            ["Die Antwort", "Ziele und die gedruckten Regeln", "Kandidaten", "Die Suche", "Empfindlichkeit"],
        ),
    ):
        out = CliRunner().invoke(
            app,
            ["lab", "design", "-f", str(goals), "--budget", "12", "-j", "1", "-q", "--lang", lang,
             "--json", str(tmp_path / "d.json"), "--html", str(tmp_path / f"d-{lang}.html")],
        )  # fmt: skip
        assert out.exit_code == 0, out.output
        html = (tmp_path / f"d-{lang}.html").read_text()
        for heading in headings:
            assert f"<h2>{heading}</h2>" in html
        assert html.count("<img") >= 3 and "http" not in html.split("<body>")[1][:2000]
    data = json.loads((tmp_path / "d.json").read_text())
    assert data["feasible"] and data["candidates"][0]["params"]["rounds"] in (6, 8)
    assert data["search"]["games"] <= 12


def test_design_report_from_python_matches_the_json() -> None:
    s = spec(goals={"rounds": {"max": 8}}, search={"rounds": [8, 12]})
    result = Design(s, budget=16).run(workers=1)
    html = design_html(result, "en")
    assert "rounds 8 instead of 3x-players" in html
    assert f"{result.games_played}</td>" in html
