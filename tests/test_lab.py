"""The simulation lab: reproducibility, seat rotation, statistics, reports,
errors and the Waschbär-Schmaus variants study (random and tiny custom bots,
few games)."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from spieltisch.bots import Bot, Budget, View
from spieltisch.cli import app
from spieltisch.engine.schmaus.actions import PLAYS, TARGET_BASE
from spieltisch.engine.schmaus.cards import KIND
from spieltisch.lab.bots import AvoidCardBot
from spieltisch.lab.config import (
    LabError,
    parse_option_pairs,
    round_up_games,
    seating,
    split_bots,
)
from spieltisch.lab.play import GameTask, play_game, rulings_fired
from spieltisch.lab.report import tournament_html, variants_html
from spieltisch.lab.runner import run_tasks
from spieltisch.lab.stats import wilson
from spieltisch.lab.tournament import Tournament
from spieltisch.lab.variants import VariantStudy, load_variants_file, parse_variant
from spieltisch.options import OptionsInputError

ROOT = Path(__file__).resolve().parents[1]
RULING_IDS = ("W-5", "W-6", "W-7", "W-8", "W-9", "W-10", "W-14", "W-15", "W-16")


class FirstLegalBot(Bot):
    """Always the first legal action: a deterministic, dumb opponent."""

    level = "first"

    def choose(self, view: View, legal: Sequence[int]) -> int:
        return legal[0]


class IllegalBot(Bot):
    """Answers an impossible action id: every decision is a fault."""

    level = "illegal"

    def choose(self, view: View, legal: Sequence[int]) -> int:
        return -1


def make_first(game: str, seat: int, seed: int, budget: Budget | None) -> Bot:
    return FirstLegalBot(game, seat, seed, budget)


class RecordingBot(Bot):
    """Random play that remembers every legal list it was offered."""

    level = "recording"

    def __init__(self, game: str, seat: int, seed: int, budget: Budget | None = None) -> None:
        super().__init__(game, seat, seed, budget)
        self.offered: list[list[int]] = []

    def choose(self, view: View, legal: Sequence[int]) -> int:
        self.offered.append(list(legal))
        return legal[self.rng.randrange(len(legal))]


# -- statistics -------------------------------------------------------------------


def test_wilson_interval_known_values() -> None:
    lo, hi = wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4)
    assert hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = wilson(0, 10)
    assert lo == 0.0
    assert hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson(10, 10)
    assert lo == pytest.approx(0.7225, abs=1e-4)
    assert hi == 1.0
    assert wilson(0, 0) == (0.0, 1.0)


@settings(deadline=None)
@given(st.integers(1, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_bounds_solve_the_score_equation(case: tuple[int, int]) -> None:
    """By definition, a Wilson bound p solves |k/n - p| = z * sqrt(p (1 - p) / n)."""
    k, n = case
    z = 1.959963984540054
    for bound in wilson(k, n):
        if bound == 0.0:
            assert k == 0
        elif bound == 1.0:
            assert k == n
        else:
            assert abs(k / n - bound) == pytest.approx(z * math.sqrt(bound * (1 - bound) / n), abs=1e-9)


@settings(deadline=None)
@given(st.integers(1, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_interval_holds_the_observed_rate(case: tuple[int, int]) -> None:
    k, n = case
    lo, hi = wilson(k, n)
    assert 0.0 <= lo <= k / n <= hi <= 1.0


def test_wilson_rejects_impossible_counts() -> None:
    with pytest.raises(ValueError, match="successes"):
        wilson(11, 10)


# -- seats, games, seeds --------------------------------------------------------


@settings(deadline=None)
@given(st.integers(2, 5), st.integers(0, 50))
def test_seat_rotation_is_balanced(players: int, block: int) -> None:
    games = [seating(block * players + g, players) for g in range(players)]
    for entry in range(players):
        assert sorted(s.index(entry) for s in games) == list(range(players))
    for s in games:
        assert sorted(s) == list(range(players))


def test_game_count_is_rounded_up_to_a_multiple_of_the_players() -> None:
    assert round_up_games(10, 4) == 12
    assert round_up_games(12, 4) == 12
    assert round_up_games(1, 3) == 3
    with pytest.raises(LabError, match="at least 1"):
        round_up_games(0, 4)
    t = Tournament.create("schmaus", ["random"] * 4, 10)
    assert t.games == 12


def test_every_bot_plays_every_seat_equally_in_a_tournament() -> None:
    result = Tournament.create("schmaus", ["random", make_first, "random"], 9, seed=5).run(workers=1)
    per_entry = Counter((g.seating[seat], seat) for g in result.games for seat in range(3))
    assert set(per_entry.values()) == {3}
    assert len(per_entry) == 9


def test_tournament_is_reproducible_across_worker_counts() -> None:
    t = Tournament.create("schmaus", ["random", "random", "random", make_first], 8, seed=11)
    one = t.run(workers=1)
    two = t.run(workers=2)
    assert one.games == two.games
    assert one.summary == two.summary
    assert [g.index for g in two.games] == list(range(8))
    other_seed = Tournament.create("schmaus", ["random", "random", "random", make_first], 8, seed=12).run(
        workers=1
    )
    assert [g.scores for g in other_seed.games] != [g.scores for g in one.games]


def test_duplicate_deals_share_a_deal_per_rotation_block() -> None:
    t = Tournament.create("scout", ["random"] * 3, 6, seed=2)
    seeds = [task.deal_seed for task in t.tasks()]
    assert seeds[0] == seeds[1] == seeds[2] != seeds[3] == seeds[4] == seeds[5]
    fresh = Tournament.create("scout", ["random"] * 3, 6, seed=2, duplicate=False)
    assert len({task.deal_seed for task in fresh.tasks()}) == 6


def test_ray_local_gives_the_local_result() -> None:
    pytest.importorskip("ray")
    t = Tournament.create("schmaus", ["random"] * 3, 6, seed=4)
    local = t.run(workers=1)
    on_ray = t.run(workers=2, ray_address="local")
    assert on_ray.games == local.games
    assert on_ray.summary == local.summary


# -- summaries and faults -----------------------------------------------------------


def test_summary_counts_wins_scores_and_faults() -> None:
    result = Tournament.create("schmaus", [IllegalBot, "random"], 4, seed=3).run(workers=1)
    s = result.summary
    assert s["games"] == 4
    assert [b["bot"] for b in s["bots"]] == ["illegal", "random"]
    illegal = s["bots"][0]
    assert illegal["faults"] == sum(g.decisions[g.entry_seat(0)] for g in result.games) > 0
    assert illegal["games_with_faults"] == 4
    assert s["bots"][1]["faults"] == 0
    wins = sum(len(g.winners) for g in result.games)
    assert sum(b["wins"] for b in s["bots"]) == wins == sum(seat["wins"] for seat in s["seats"])
    assert sum(b["win_share"] * b["games"] for b in s["bots"]) == pytest.approx(4)
    for bot in s["bots"]:
        assert bot["ci95"][0] <= bot["rate"] <= bot["ci95"][1]
    assert "illegal action id -1" in s["faults"]["messages"][0]


def test_repeated_specs_are_pooled_per_bot_and_kept_per_entry() -> None:
    s = Tournament.create("schmaus", ["random", make_first, make_first], 3, seed=8).run(workers=1).summary
    assert [b["bot"] for b in s["bots"]] == ["random", "make_first"]
    assert s["bots"][1]["entries"] == 2 and s["bots"][1]["games"] == 6
    assert [e["label"] for e in s["entries"]] == ["random", "make_first", "make_first #2"]
    assert all(e["rating"]["sigma"] < 25 / 3 for e in s["entries"])


# -- outputs ---------------------------------------------------------------------------


def test_json_csv_and_html_outputs(tmp_path: Path) -> None:
    result = Tournament.create("scout", ["random", "random", make_first], 3, seed=6).run(workers=1)
    result.write_json(tmp_path / "t.json")
    data = json.loads((tmp_path / "t.json").read_text())
    assert data["config"]["lineup"] == ["random", "random", "make_first"]
    assert len(data["games"]) == 3 and data["summary"]["games"] == 3

    result.write_csv(tmp_path / "t.csv")
    with (tmp_path / "t.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 3
    assert [int(r["game"]) for r in rows] == [0, 1, 2]
    assert {r["seat0_bot"] for r in rows} == {"random", "random #2", "make_first"}
    for row, game in zip(rows, result.games, strict=True):
        assert [int(row[f"seat{s}_score"]) for s in range(3)] == game.scores

    html = tournament_html(result)
    sections = [("summary", "Summary"), ("win-rates", "Win rates"), ("scores", "Scores"),
                ("ratings", "Ratings"), ("seats", "Seats"), ("game-length", "Game length")]  # fmt: skip
    for sid, title in sections:
        assert f'<section id="{sid}">' in html
        assert f"<h2>{title}</h2>" in html
    assert_self_contained(html)
    german = tournament_html(result, lang="de")
    assert "<h2>Siegquoten</h2>" in german and 'lang="de"' in german


def assert_self_contained(html: str) -> None:
    sources = re.findall(r'(?:src|href)="([^"]*)"', html)
    assert sources, "the report should hold images"
    for src in sources:
        assert src.startswith(("data:image/png;base64,", "#")), src
    assert "<script" not in html and "<link" not in html


# -- bad input -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lineup", "options", "message"),
    [
        (["random"] * 4, {"loser_draws": -1}, "loser_draws"),
        (["random"] * 4, {"hunter_draws": "nobody"}, "unknown rule option"),
        (["random"] * 4, {"deck": {"JOKER": 2}}, "JOKER"),
        (["random"] * 5, {"hand_size": 12}, "impossible deck"),
        (["random"] * 6, {}, "2 to 5 players"),
        (["random", "strong"], {}, "unknown bot spec 'strong'"),
        (["random", "cmd:surely-not-a-command-xyz"], {}, "not found"),
        (["random", "cmd:"], {}, "give the command"),
        (["random", "avoid=JOKER:random"], {}, "unknown card"),
    ],
)
def test_bad_options_and_bot_specs_give_clear_errors(
    lineup: list[str], options: dict[str, object], message: str
) -> None:
    with pytest.raises(LabError, match=re.escape(message)):
        Tournament.create("schmaus", lineup, 4, options=options)


def test_option_pairs_parse_values_and_nest() -> None:
    assert parse_option_pairs(["loser_draws=3", "hunter_draw=nobody", "deck.HUNTER=4", "deck.GROCER=0"]) == {
        "loser_draws": 3,
        "hunter_draw": "nobody",
        "deck": {"HUNTER": 4, "GROCER": 0},
    }
    with pytest.raises(OptionsInputError, match="key=value"):
        parse_option_pairs(["loser_draws"])
    assert split_bots(["hard,medium", "cmd:python bot.py --a,b", "easy"]) == [
        "hard", "medium", "cmd:python bot.py --a,b", "easy",
    ]  # fmt: skip
    with pytest.raises(LabError, match="empty bot spec"):
        split_bots(["hard,,easy"])


def test_cli_reports_bad_input_without_a_traceback(tmp_path: Path) -> None:
    runner = CliRunner()
    bad = runner.invoke(app, ["lab", "tournament", "--bots", "random,random", "-o", "loser_draws=lots", "-q"])
    assert bad.exit_code == 2
    assert "Error:" in bad.output and "loser_draws" in bad.output and "Traceback" not in bad.output
    mismatch = runner.invoke(app, ["lab", "tournament", "--bots", "random,random", "-p", "3", "-q"])
    assert mismatch.exit_code == 2 and "--players 3 but 2 bots" in mismatch.output
    broken = tmp_path / "opts.toml"
    broken.write_text("loser_draws = = 3\n")
    result = runner.invoke(
        app, ["lab", "tournament", "--bots", "random,random", "--options-file", str(broken)]
    )
    assert result.exit_code == 2 and "not valid TOML" in result.output


def test_cli_tournament_writes_every_output(tmp_path: Path) -> None:
    options = tmp_path / "opts.json"
    options.write_text(json.dumps({"loser_draws": 3}))
    result = CliRunner().invoke(
        app,
        ["lab", "tournament", "-g", "schmaus", "--bot", "random", "--bot", "random", "--bot", "random",
         "-n", "4", "--seed", "9", "-j", "1", "-q", "--options-file", str(options), "-o", "deck.HUNTER=1",
         "--json", str(tmp_path / "r.json"), "--csv", str(tmp_path / "r.csv"),
         "--html", str(tmp_path / "r.html")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "rounded up to 6" in result.output
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["config"]["options"] == {"loser_draws": 3, "deck": {"HUNTER": 1}}
    assert data["config"]["games"] == 6
    assert "Game length" in (tmp_path / "r.html").read_text()
    assert len((tmp_path / "r.csv").read_text().splitlines()) == 7


def test_ctrl_c_stops_a_tournament_at_once_and_saves_the_finished_games(tmp_path: Path) -> None:
    """Ctrl+C: the workers stop within a few seconds (not after their games), and the
    games finished by then are shown and saved where a whole run saves, marked interrupted."""
    import os
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "partial.json"
    env = {**os.environ, "COLUMNS": "80", "PYTHONPATH": str(ROOT / "src")}
    args = ["lab", "tournament", "-g", "scout", "--bots", "medium,medium,medium", "-n", "3000", "-j", "2"]
    child = subprocess.Popen(
        [sys.executable, "-m", "spieltisch.cli", *args, "--json", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # even in a background job
    )  # fmt: skip
    time.sleep(10)  # some games are finished, most are not
    assert child.poll() is None
    child.send_signal(signal.SIGINT)
    start = time.monotonic()
    stdout, stderr = child.communicate(timeout=30)
    assert time.monotonic() - start < 5, "Ctrl+C took too long"
    assert child.returncode == 130, stderr
    said = " ".join(stdout.split())
    match = re.search(r"Scout: (\d+) of 3000 games \(interrupted\)", said)
    assert match and int(match[1]) > 0, said
    assert "Interrupted (Ctrl+C)" in said and "Traceback" not in stderr
    data = json.loads(out.read_text())
    assert data["interrupted"] is True and len(data["games"]) == int(match[1])
    assert data["summary"]["games"] == int(match[1])


def test_ctrl_c_in_one_process_keeps_the_finished_games(monkeypatch: pytest.MonkeyPatch) -> None:
    from spieltisch.lab import runner

    tasks = Tournament.create("schmaus", ["random"] * 3, 6, seed=2).tasks()
    played: list[GameTask] = []

    def play(task: GameTask) -> object:
        if len(played) == 2:
            raise KeyboardInterrupt
        played.append(task)
        return play_game(task)

    monkeypatch.setattr(runner, "play_game", play)
    with pytest.raises(runner.Interrupted) as stop:
        run_tasks(tasks, workers=1)
    assert [r.index for r in stop.value.results] == [0, 1]


# -- Waschbär-Schmaus variants ------------------------------------------------------------


def test_rulings_fired_reads_the_engine_round_results() -> None:
    round_result = {
        "plays": [["F1", "F2", "GUARDIAN"], ["F1", "F1", "HUNTER"], ["F2", "F2", "F3"]],
        "guardian": True, "hunter": False, "effects": ["W-7 guardian: negative cards have no effect"],
        "winners": [0, 2], "lowest": [1], "short_hand_draws": [0, 2, 0], "empty_hand_draws": [0, 0, 0],
        "hand_limit_discards": [0, 0, 1],
    }  # fmt: skip
    fired = rulings_fired(round_result)
    assert fired == {
        "W-5": 1,
        "W-6": 0,
        "W-7": 1,
        "W-8": 0,
        "W-9": 0,
        "W-10": 0,
        "W-14": 1,
        "W-15": 0,
        "W-16": 1,
    }


def test_variants_study_counts_rulings_per_variant() -> None:
    variants = [
        parse_variant("defaults"),
        parse_variant("hunters:deck.HUNTER=12,deck.GUARDIAN=0,hunter_draw=nobody"),
        parse_variant("no-negatives:deck.HUNTER=0,deck.GARBAGE=0,deck.GROCER=0"),
    ]
    study = VariantStudy.create(["random", make_first, "random", make_first], variants, 8, seed=3)
    result = study.run(workers=1)
    assert set(result.summaries) == {"defaults", "hunters", "no-negatives"}
    rulings = {name: {r["rule"]: r for r in s["rulings"]} for name, s in result.summaries.items()}
    assert [r["rule"] for r in result.summaries["defaults"]["rulings"]] == list(RULING_IDS)
    # W-8: a deck full of hunters voids many rounds; a deck without any never does.
    assert rulings["hunters"]["W-8"]["rounds"] > rulings["defaults"]["W-8"]["rounds"]
    assert rulings["hunters"]["W-8"]["round_share"] > 0.3
    assert rulings["no-negatives"]["W-8"]["rounds"] == 0
    assert rulings["no-negatives"]["W-9"]["rounds"] == rulings["no-negatives"]["W-10"]["rounds"] == 0
    assert rulings["hunters"]["W-7"]["rounds"] == 0  # no guardian in that deck
    # W-5: with the default deck, hands run short and short-hand draws fire.
    assert rulings["defaults"]["W-5"]["rounds"] > 0
    for summary in result.summaries.values():
        sizes = summary["hand_sizes"]
        assert len(sizes) == 12 and sizes[0]["mean"] == 7.0
        assert summary["length"]["rounds"]["mean"] == 12
        assert [b["bot"] for b in summary["bots"]] == ["random", "make_first"]
        assert summary["skill_gap"] is not None
    html = variants_html(result)
    for title in ("Summary", "Skill", "Seats", "Scores", "Rulings", "Hand sizes", "Game length"):
        assert f"<h2>{title}</h2>" in html
    assert_self_contained(html)


def test_variants_are_validated() -> None:
    with pytest.raises(LabError, match="at least two variants"):
        VariantStudy.create(["random"] * 3, [parse_variant("defaults")], 3)
    with pytest.raises(LabError, match=r"variant 'odd'.*hunter_draw"):
        VariantStudy.create(
            ["random"] * 3, [parse_variant("defaults"), parse_variant("odd:hunter_draw=sometimes")], 3
        )
    with pytest.raises(LabError, match="used twice"):
        VariantStudy.create(["random"] * 3, [parse_variant("a"), parse_variant("a:loser_draws=3")], 3)
    # One deal (its seat rotations) has no interval: a quick look needs two deals (issue #35).
    with pytest.raises(LabError, match=r"one deal played from every seat.*-n 6 or more"):
        VariantStudy.create(["random"] * 3, [parse_variant("a"), parse_variant("b:loser_draws=3")], 3)
    with pytest.raises(LabError, match="bad variant"):
        parse_variant(":loser_draws=3")
    assert parse_variant('many:deck={"HUNTER": 6, "GROCER": 0},loser_draws=1').options == {
        "deck": {"HUNTER": 6, "GROCER": 0},
        "loser_draws": 1,
    }


def test_example_variants_file_is_valid() -> None:
    variants = load_variants_file(ROOT / "examples" / "variants.toml")
    assert variants[0].name == "defaults" and variants[0].options == {}
    study = VariantStudy.create(["random"] * 4, variants, 8)
    assert len(study.variants) == len(variants) >= 2


def test_card_impact_compares_the_same_games_with_and_without_the_card() -> None:
    variants = [parse_variant("defaults"), parse_variant("loser-draws-3:loser_draws=3")]
    study = VariantStudy.create(
        ["random"] * 3, variants, 6, seed=7, impact_games=3, impact_cards=["f5", "HUNTER"]
    )
    assert study.impact_cards == ("F5", "HUNTER") and study.impact_games == 3
    groups = Counter(task.group for task in study.tasks())
    assert groups == {"defaults": 6, "loser-draws-3": 6, "defaults/avoid=F5": 3, "defaults/avoid=HUNTER": 3,
                      "loser-draws-3/avoid=F5": 3, "loser-draws-3/avoid=HUNTER": 3}  # fmt: skip
    result = study.run(workers=2)
    impact = result.summaries["defaults"]["impact"]
    assert [c["card"] for c in impact] == ["F5", "HUNTER"]
    for c in impact:
        assert c["with"]["games"] == c["without"]["games"] == 3
        assert c["delta"] == pytest.approx(c["with"]["rate"] - c["without"]["rate"])
    assert impact[0]["bites_per_game"] > 0  # F5 is common enough to be held and banned
    assert "<h2>Card impact</h2>" in variants_html(result)


def test_avoid_card_bot_never_lays_the_card_unless_forced() -> None:
    inner = RecordingBot("schmaus", 0, 1)
    bot = AvoidCardBot(inner, "HUNTER")
    hunter = KIND["HUNTER"]
    with_hunter = [i for i in range(TARGET_BASE) if hunter in PLAYS[i]]
    without = [i for i in range(TARGET_BASE) if hunter not in PLAYS[i]]
    assert bot.choose({}, [with_hunter[0], without[0]]) == without[0]
    assert bot.choose({}, [with_hunter[0]]) == with_hunter[0]
    assert bot.lab_stats() == {"bites": 1, "overrides": 0}
    assert inner.offered == [[without[0]], [with_hunter[0]]]


def test_avoid_card_bot_in_whole_games() -> None:
    heavy = {"deck": {"HUNTER": 20}}
    for index in range(3):
        task = GameTask("schmaus", ("avoid=HUNTER:random", "random", "random"), heavy, seed=1, index=index)
        result = play_game(task)
        assert result.bot_stats[result.entry_seat(0)]["bites"] > 0
        assert result.faults == [0, 0, 0]


def test_run_tasks_keeps_task_order_and_checks_workers() -> None:
    tasks = [GameTask("scout", ("random", "random"), {}, seed=1, index=i, group=f"g{i}") for i in range(5)]
    assert [r.group for r in run_tasks(tasks, workers=2)] == [f"g{i}" for i in range(5)]
    with pytest.raises(LabError, match="at least 1"):
        run_tasks(tasks, workers=0)


def test_cli_variants_end_to_end(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        ["lab", "variants", "--bots", "random,random,random", "-V", "defaults",
         "-V", "nodraw:hunter_draw=nobody",
         "-n", "6", "-j", "1", "-q", "--impact-games", "3", "--impact-card", "GROCER",
         "--json", str(tmp_path / "v.json"), "--csv", str(tmp_path / "v.csv"),
         "--html", str(tmp_path / "v.html"),
         "--lang", "de"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "Side by side" in result.output
    data = json.loads((tmp_path / "v.json").read_text())
    assert set(data["variants"]) == {"defaults", "nodraw"}
    assert data["config"]["variants"][1]["normalized"]["hunter_draw"] == "nobody"
    with (tmp_path / "v.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert {r["variant"] for r in rows} == {
        "defaults",
        "nodraw",
        "defaults/avoid=GROCER",
        "nodraw/avoid=GROCER",
    }
    assert "W-8_rounds" in rows[0]
    assert "<h2>Regeln</h2>" in (tmp_path / "v.html").read_text()


def test_bench_bots_measures_the_random_level() -> None:
    from spieltisch.benchmarks.bots import available_levels, measure_speed

    ok, missing = available_levels("schmaus")
    assert "random" in ok and set(ok) | set(missing) == {"random", "easy", "medium", "neural", "hard"}
    speed = measure_speed("schmaus", "random", 0.05, seed=1)
    assert speed.decisions > 0 and speed.per_second > 0


def test_external_protocol_bots_play_in_tournaments() -> None:
    import shlex
    import sys

    command = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(ROOT / 'examples' / 'random_bot.py'))}"
    result = Tournament.create("schmaus", ["random", command], 2, seed=3).run(workers=1)
    assert result.summary["faults"]["total"] == 0
    assert result.summary["bots"][1]["bot"] == command
    assert sum(g.decisions[g.entry_seat(1)] for g in result.games) > 0


def test_ray_backend_missing_gives_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)
    t = Tournament.create("scout", ["random"] * 2, 2)
    with pytest.raises(LabError, match=re.escape("pip install 'spieltisch[ray]'")):
        t.run(ray_address="local")


def test_the_tournament_table_keeps_intervals_and_ratings_whole_at_80_columns() -> None:
    from rich.console import Console

    result = Tournament.create("schmaus", ["random", "easy", "medium", "medium"], 4, seed=3).run(workers=1)
    console = Console(width=80, record=True, color_system=None, file=io.StringIO())
    result.print(console)
    out = console.export_text()
    assert "…" not in out
    for bot in result.summary["bots"]:
        r = bot["rating"]
        ci = f"{100 * bot['ci95'][0]:.1f}–{100 * bot['ci95'][1]:.1f}%"
        assert ci in out and f"{r['mu']:.1f}±{r['sigma']:.1f}" in out, out
        assert f"{bot['wins']} / {bot['games']}" in out
