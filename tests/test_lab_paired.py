"""Paired comparisons in the variants study: same deals and seeds on both
sides, every difference with its 95 % interval, "no measurable difference"
where it covers 0, an early stop that says how many games it took, and
reports whose figures carry their game counts (random bots, few games)."""

from __future__ import annotations

import re

import pytest

from spieltisch.lab.config import LabError
from spieltisch.lab.paired import describe_diff, estimate, measures, paired_difference
from spieltisch.lab.play import GameTask
from spieltisch.lab.report import variants_html
from spieltisch.lab.runner import run_tasks
from spieltisch.lab.variants import VariantStudy, parse_variant

LINEUP = ("random", "easy", "random", "easy")


def games(options: dict[str, object], n: int = 16) -> list:  # type: ignore[type-arg]
    return run_tasks(
        [GameTask("schmaus", LINEUP, options, seed=5, index=i, detail=True) for i in range(n)], workers=1
    )


def test_identical_variants_show_no_measurable_difference() -> None:
    a, b = games({}), games({})
    for measure in measures(list(LINEUP), 4).values():
        diff = paired_difference(a, b, measure, LINEUP, 4)
        assert (diff.value, diff.low, diff.high) == (0.0, 0.0, 0.0)
        assert diff.verdict() == "none"
        assert describe_diff(diff, measure.unit) == "no measurable difference"
        assert describe_diff(diff, measure.unit, "de") == "kein messbarer Unterschied"


def test_a_real_difference_is_measured_with_its_interval() -> None:
    base, short = games({}), games({"rounds": 8})
    rounds = measures(list(LINEUP), 4)["rounds"]
    diff = paired_difference(base, short, rounds, LINEUP, 4)
    assert diff.value == -4.0 and diff.verdict() == "lower"
    assert diff.games == 16 and diff.blocks == 4  # four duplicate deals of four rotations
    assert diff.p_value is not None and diff.p_value < 0.2
    spread = paired_difference(base, short, measures(list(LINEUP), 4)["score_spread"], LINEUP, 4)
    assert spread.low <= spread.value <= spread.high and spread.low < spread.high


def test_an_estimate_carries_its_game_count_and_contains_its_value() -> None:
    skill = measures(list(LINEUP), 4)["skill_gap"]
    e = estimate(games({}), skill, LINEUP, 4)
    assert e.games == 16 and e.low <= e.value <= e.high


def test_sequential_study_stops_when_settled_and_says_after_how_many_games() -> None:
    study = VariantStudy.create(
        list(LINEUP),
        [parse_variant("defaults"), parse_variant("short:rounds=4")],
        64,
        seed=2,
        looks=4,
        stop_on="rounds",
    )
    assert study.look_points() == [8, 16, 32, 64]
    result = study.run(workers=1)
    assert result.played < 64 and result.sequential["settled"]
    assert f"Stopped early after {result.played} of 64 games" in result.stop_note()
    assert all(s["games"] == result.played for s in result.summaries.values())
    assert len(result.games) == 2 * result.played


def test_identical_variants_never_settle_and_play_every_game() -> None:
    study = VariantStudy.create(
        list(LINEUP), [parse_variant("a"), parse_variant("b")], 16, seed=2, looks=2, stop_on="rounds"
    )
    result = study.run(workers=1)
    assert result.played == 16 and not result.sequential["settled"]
    paired = result.summaries["b"]["paired"]["measures"]
    assert all(d["verdict"] == "none" for d in paired.values())


def test_variants_report_sections_in_both_languages_and_counts_agree() -> None:
    study = VariantStudy.create(
        ["random", "random", "easy"], [parse_variant("defaults"), parse_variant("r6:rounds=6")], 6, seed=3
    )
    result = study.run(workers=1)
    for lang, heading in (("en", "Paired differences"), ("de", "Gepaarte Unterschiede")):
        html = variants_html(result, lang)
        assert f"<h2>{heading}</h2>" in html
        assert ("How to read this:" if lang == "en" else "So liest man das:") in html
        games_word = "games" if lang == "en" else "Partien"
        assert f"{games_word}: 6 " in html
        # a pooled bot (random x2) shows its seat-games beside the games, never instead of them
        assert re.search(r"<td>random</td><td>6</td><td>\d+ / 12</td>", html)


def test_bad_sequential_settings_fail_before_any_game() -> None:
    variants = [parse_variant("a"), parse_variant("b:rounds=4")]
    with pytest.raises(LabError, match="--stop-on 'fun'"):
        VariantStudy.create(list(LINEUP), variants, 16, stop_on="fun")
    with pytest.raises(LabError, match="--looks must be from 1"):
        VariantStudy.create(list(LINEUP), variants, 16, looks=0)


def test_card_impact_runs_stop_per_card_and_their_counts_agree() -> None:
    study = VariantStudy.create(
        list(LINEUP), [parse_variant("a"), parse_variant("b:rounds=4")], 8, seed=4, looks=2,
        impact_games=8, impact_cards=["F1", "HUNTER"], stop_on="rounds",
    )  # fmt: skip
    result = study.run(workers=1)
    runs = result.sequential["impact"]["games"]
    assert set(runs) == {"a/F1", "a/HUNTER", "b/F1", "b/HUNTER"}
    for name, summary in result.summaries.items():
        for c in summary["impact"]:
            games = runs[f"{name}/{c['card']}"]
            assert c["with"]["games"] == c["without"]["games"] == c["paired"]["games"] == games
            assert games in study.look_points(min(8, result.played))  # a look, never past the variants
    html = variants_html(result)
    assert "per card and variant" in html
