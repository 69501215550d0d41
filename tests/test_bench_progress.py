"""Benchmarks say how long they take and show an honest ETA from the first seconds."""

from __future__ import annotations

import io

from rich.console import Console
from rich.progress import Progress

from spieltisch.benchmarks import engine
from spieltisch.benchmarks.bots import (
    Speed,
    decision_points,
    estimate_tournament,
    measure_speed,
    measure_work,
)
from spieltisch.progress import EtaColumn


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_eta_is_remaining_work_at_the_average_rate_since_the_start() -> None:
    clock = Clock()
    progress = Progress(console=Console(file=io.StringIO()), get_time=clock)
    task_id = progress.add_task("x", total=20.0)
    task = progress.tasks[0]
    assert EtaColumn().render(task).plain == "ETA –:––:––"  # nothing measured yet
    progress.start_task(task_id)
    clock.now = 4.0
    progress.advance(task_id, 2.0)  # 2 of 20 planned seconds took 4 s: 18 more take 36 s
    assert EtaColumn().render(task).plain == "ETA 0:00:36"
    progress.update(task_id, completed=20.0)
    assert EtaColumn().render(task).plain == "done"


def test_tournament_estimate_from_measured_speeds() -> None:
    speeds = {
        "hard": Speed("scout", "hard", decisions=4, seconds=2.0),  # 0.5 s a decision
        "medium": Speed("scout", "medium", decisions=2000, seconds=2.0, games=10, game_decisions=1000),
    }
    # 100 decisions a game (from the games medium finished), a quarter of them by hard:
    # 100 × (0.5 + 3 × 0.001) / 4 s a game; 8 games on 2 workers.
    estimate = estimate_tournament(speeds, ["hard", "medium", "medium", "medium"], 8, 2)
    assert estimate is not None and abs(estimate - 8 * 100 * (0.5 + 0.003) / 4 / 2) < 1e-9
    assert estimate_tournament({"hard": speeds["hard"]}, ["hard"] * 4, 8, 2) is None


def test_bot_speed_measurement_is_bounded_by_wall_time_too() -> None:
    """``random`` spends almost all its time in the engine: with a bot-time bound only, a
    0.05 s measurement took minutes of wall time at ``--seconds 2``."""
    speed = measure_speed("scout", "random", 0.05, seed=1)
    assert speed.decisions > 0 and speed.seconds < 0.05


def test_bench_engine_says_up_front_how_long_it_measures() -> None:
    out = io.StringIO()
    engine.run(seconds=0.01, console=Console(file=out, width=160), progress=False)
    text = out.getvalue()
    build = engine.engine_build()
    both = build == engine.COMPILED  # then pure Python is measured beside it
    assert text.startswith(f"Measuring {20 if both else 12} × 0.01 CPU s (about 0 s on an idle core)")
    assert f"Engine build: {build}" in text
    assert "Random playouts" in text and "enumeration" in text
    assert ("compiled ÷ pure" in text) == both


def test_bench_work_times_every_version_on_the_same_decisions() -> None:
    # The same seed gives the same decision points; every spec is timed on
    # all of them, at its own budget (counted in playouts), in CPU seconds.
    assert decision_points("scout", 4, 3, 7) == decision_points("scout", 4, 3, 7)
    rates = measure_work("scout", ["hard@v7:playouts=8", "hard:playouts=12"], positions=3, seed=7)
    assert [(r.spec, r.work, r.decisions) for r in rates] == [
        ("hard@v7:playouts=8", 8, 3),
        ("hard:playouts=12", 12, 3),
    ]
    assert all(r.cpu > 0 and r.cpu_per_decision == r.cpu / 3 for r in rates)
