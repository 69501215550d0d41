"""The lab's progress bar is honest from the first game: the rate is games over
the time since the start, the ETA the games left at that rate, and games go
out one at a time (no 16-game chunks that hold the bar at 0)."""

from __future__ import annotations

from rich.progress import Progress

from spieltisch.lab.play import GameTask
from spieltisch.lab.runner import EtaColumn, RateColumn, chunked


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def rendered(progress: Progress, task_id: int) -> tuple[str, str]:
    task = progress.tasks[task_id]
    return str(RateColumn().render(task)), str(EtaColumn().render(task))


def test_rate_and_eta_from_the_first_game_on() -> None:
    clock = Clock()
    progress = Progress(get_time=clock)
    task_id = progress.add_task("games", total=400)
    assert rendered(progress, task_id) == ("measuring…", "ETA –")
    clock.now = 2.0
    progress.advance(task_id, 1)
    assert rendered(progress, task_id) == ("2.0 s/game", "ETA 13:18")  # 399 games x 2 s


def test_the_rate_is_the_overall_mean_not_a_burst() -> None:
    """Results arriving in a burst (two workers finishing together) must not
    multiply the rate: it is all games over all the time so far."""
    clock = Clock()
    progress = Progress(get_time=clock)
    task_id = progress.add_task("games", total=400)
    for step in range(1, 20):
        clock.now = float(step)
        progress.advance(task_id, 2)
    clock.now = 20.0
    progress.advance(task_id, 10)  # a burst: ten results at once
    rate, eta = rendered(progress, task_id)
    assert rate == "2.4 games/s"  # 48 games in 20 s
    assert eta == "ETA 2:27"  # 352 games left at 2.4 per s


def test_games_go_out_one_at_a_time() -> None:
    tasks = [GameTask("scout", ("random", "random"), {}, seed=1, index=i) for i in range(400)]
    assert {len(c) for c in chunked(tasks, 2)} == {1}
    many = [GameTask("scout", ("random", "random"), {}, seed=1, index=i) for i in range(4000)]
    assert max(len(c) for c in chunked(many, 2)) <= 4
